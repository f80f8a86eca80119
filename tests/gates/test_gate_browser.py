"""The Playwright helpers behind tests/browser/conftest.py: launch options and the clean-page check."""

from __future__ import annotations

from pathlib import Path

import pytest
from synthetic_site import BASE_URL, PAIR, edit

from tests.quality.browser import BROWSER_ARGS, PageErrors, launch_options
from tests.quality.folderserver import serve_folder
from tests.quality.lighthouse import DEBIAN_CHROMIUM

pytestmark = pytest.mark.browser


def test_launch_options_prefer_debian_chromium() -> None:
    options = launch_options()
    assert options["args"] == BROWSER_ARGS
    assert options.get("executable_path") == (str(DEBIAN_CHROMIUM) if DEBIAN_CHROMIUM.exists() else None)


def test_clean_page_and_planted_errors(site: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    edit(site, PAIR, "</footer>", "</footer><script>undefinedFunction()</script><img src=\"missing.png\" alt=\"x\">")
    with serve_folder(site, BASE_URL) as base, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch_options())
        page = browser.new_page()
        good = PageErrors().watch(page)
        page.goto(base + "en/models/llama-3-8b/h100-sxm/", wait_until="networkidle")
        assert page.title() == "llama-3-8b on h100-sxm (en) – VRAM Atlas"
        good.assert_clean()
        bad = PageErrors().watch(page)
        page.goto(base + "en/models/llama-3-8b/rtx-4090/", wait_until="networkidle")
        browser.close()
    assert any("undefinedFunction is not defined" in e for e in bad.console)
    assert any(e.endswith("missing.png: HTTP 404") for e in bad.failed)
    with pytest.raises(AssertionError, match="missing.png"):
        bad.assert_clean()
