"""The fixture catalogue renders exactly the committed golden pages (refresh with ``make golden``)."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from tests.golden.refresh import EXPECTED, PAGES


@pytest.mark.parametrize("page", PAGES)
def test_page_matches_golden(fixture_site: Path, page: str):
    expected = (EXPECTED / page).read_text(encoding="utf-8")
    actual = (fixture_site / page).read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(list(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), "golden", "built"))[:60])
        pytest.fail(f"{page} differs from its golden copy (run `make golden` if intended):\n{diff}")
