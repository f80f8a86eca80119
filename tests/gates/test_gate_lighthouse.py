"""The Lighthouse gate on the synthetic site: good pages score 0.95+, a page without a description does not."""

from __future__ import annotations

from pathlib import Path

import pytest
from synthetic_site import BASE_URL, PAIR, edit

from generator.quality.lighthouse import CATEGORIES, audit_site, default_pages

pytestmark = pytest.mark.browser  # runs Chromium: select with -m browser, skip with -m "not browser"


def test_default_pages_are_one_of_each_kind(pristine_site: Path) -> None:
    assert default_pages(pristine_site) == [
        "en/",
        "en/models/llama-3-8b/",
        "en/gpus/h100-sxm/",
        "en/models/llama-3-8b/h100-sxm/",
    ]


def test_good_pages_pass_and_a_planted_defect_fails(site: Path) -> None:
    edit(site, PAIR, '<meta name="description" content="Can rtx-4090 run llama-3-8b? Memory, speed and price (en).">', "")
    good, bad = "en/models/llama-3-8b/h100-sxm/", "en/models/llama-3-8b/rtx-4090/"
    results, failures = audit_site(site, [good, bad], BASE_URL)
    assert set(results[good]) == set(CATEGORIES)
    assert all(score >= 0.95 for score in results[good].values()), results[good]
    assert results[bad]["seo"] < 0.95
    assert len(failures) == 1
    assert failures[0].startswith(f"{bad}: seo 0.")
    assert "Document does not have a meta description" in failures[0]
