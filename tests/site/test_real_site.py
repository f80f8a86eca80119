"""Gates on a build of the real catalogue: links, hreflang, canonicals, sitemaps, uniqueness, HTML, Lighthouse."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.quality import check_site, validate_html
from generator.quality.lighthouse import audit_site, default_pages
from generator.quality.vnu import one_page_of_each_kind
from tests.site.conftest import BASE_URL

NEAR_DUPLICATE = re.compile(r"^(\S+): near-duplicate <main> text, \d+% alike (\S+) ")
# Pages the estimator cannot tell apart: same architecture (fine-tunes and re-releases) or the same GPU facts.
# Each is a known limit of the content, listed so that any NEW near-duplicate fails the gate.
IDENTICAL_ESTIMATES = {
    frozenset(pair)
    for language in ("en", "de")
    for pair in [
        (f"{language}/models/minimax-m2.5/index.html", f"{language}/models/minimax-m2.7/index.html"),
        (f"{language}/models/llama-3.1-70b/index.html", f"{language}/models/llama-3.3-70b/index.html"),
        (f"{language}/models/deepseek-r1-distill-llama-70b/index.html", f"{language}/models/llama-3.1-70b/index.html"),
        (f"{language}/models/deepseek-r1-distill-llama-70b/index.html", f"{language}/models/llama-3.3-70b/index.html"),
        (f"{language}/models/glm-5/index.html", f"{language}/models/glm-5.1/index.html"),
        (f"{language}/models/deepseek-r1/index.html", f"{language}/models/deepseek-v3/index.html"),
        (f"{language}/gpus/apple-m2-16gb/index.html", f"{language}/gpus/apple-m3-16gb/index.html"),
        (f"{language}/gpus/apple-m2-24gb/index.html", f"{language}/gpus/apple-m3-24gb/index.html"),
        # Same architecture as the model-page pair above: the pair pages differ only in names and sources, and the
        # quality grades and pick reasons (identical for identical estimates) tipped this one over 90 %.
        (f"{language}/models/glm-5/l40s/index.html", f"{language}/models/glm-5.1/l40s/index.html"),
        (f"{language}/models/llama-4-maverick/rtx-2060-super/index.html",
         f"{language}/models/llama-4-maverick/rtx-2070-super/index.html"),
        # Same memory and bandwidth and no sourced FP16 figure for either card: every model row is identical.
        (f"{language}/gpus/rtx-2060-super/index.html", f"{language}/gpus/rtx-2070-super/index.html"),
        # Same architecture (Qwen2.5-32B): the model pages' cheapest serving setups are identical too.
        (f"{language}/models/deepseek-r1-distill-qwen-32b/index.html", f"{language}/models/qwen2.5-coder-32b/index.html"),
        # Same architecture: the same GPUs compared with the same numbers.
        (f"{language}/compare/qwen3.5-27b/index.html", f"{language}/compare/qwen3.6-27b/index.html"),
    ]
}
# GPUs the estimator cannot tell apart (see above): a model's pages on one and on the other differ only in the name.
TWIN_GPUS = ("/rtx-2060-super/", "/rtx-2070-super/")


def _known_limit(first: str, second: str) -> bool:
    """Whether two near-duplicate pages are a known limit of the content, not a new defect."""
    if frozenset((first, second)) in IDENTICAL_ESTIMATES:
        return True
    return first.replace(*TWIN_GPUS) == second.replace(*TWIN_GPUS) and first != second


@pytest.mark.slow
def test_site_gates_pass(real_site: Path):
    problems = check_site(real_site, base_url=BASE_URL)
    unexpected = [p for p in problems if not ((m := NEAR_DUPLICATE.match(p)) and _known_limit(*m.groups()))]
    assert unexpected == [], "\n".join(unexpected[:40])


@pytest.mark.slow
def test_every_page_type_is_valid_html(real_site: Path):
    files = one_page_of_each_kind(real_site)
    assert len(files) >= 12
    errors = validate_html(files, real_site)
    assert errors == [], "\n".join(errors[:40])


@pytest.mark.slow
@pytest.mark.browser
def test_lighthouse_scores_at_least_095(real_site: Path):
    pages = default_pages(real_site, "en") + default_pages(real_site, "de") + ["en/methodology/"]
    scores, failures = audit_site(real_site, pages, BASE_URL)
    assert len(scores) == len(pages)
    assert failures == [], "\n".join(failures)
