"""Real Chromium through Playwright: the verdict shows, the language switch, copy button, simulator, search, 375 px."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
playwright = pytest.importorskip("playwright.sync_api")

DEBIAN_CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        options = {"args": ["--no-sandbox", "--disable-background-networking"]}
        if DEBIAN_CHROMIUM.exists():
            options["executable_path"] = str(DEBIAN_CHROMIUM)
        browser = p.chromium.launch(**options)
        yield browser
        browser.close()


def open_page(browser, url: str, width: int = 1280):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
    page.goto(url)
    return page, errors


PAIR = "en/models/llama-3.1-8b/rx-7900-xtx/"


def test_verdict_is_visible_and_the_language_switch_leads_to_the_german_page(browser, server):
    page, errors = open_page(browser, server + PAIR)
    assert page.locator("#verdict h2").is_visible()
    assert page.locator("#verdict h2").inner_text() == "Fits with margin"
    page.click("a.lang[hreflang=de]")
    page.wait_for_url("**/de/models/llama-3.1-8b/rx-7900-xtx/")
    assert page.locator("html").get_attribute("lang") == "de"
    assert page.locator("#verdict h2").inner_text() == "Passt mit Reserve"
    assert "GiB" in page.locator("#verdict").inner_text() and "," in page.locator("#verdict dd").first.inner_text() + ","
    assert errors == []


def test_copy_button_and_simulator(browser, server):
    page, errors = open_page(browser, server + PAIR)
    button = page.locator("button.copy").first
    button.click()
    assert button.get_attribute("data-copied").startswith("llama-server")
    page.click(".sim-run")
    page.wait_for_function("document.querySelector('.sim').dataset.state === 'streaming'"
                           " || document.querySelector('.sim').dataset.state === 'done'", timeout=15000)
    page.wait_for_function("document.querySelector('.sim-out').textContent.trim().split(' ').length > 3", timeout=15000)
    assert errors == []


def test_index_search_filters_the_lists(browser, server):
    page, errors = open_page(browser, server + "en/")
    # The groups follow the box in a task after the input event (finder.js): expect() waits for that, up to 5 s.
    page.fill("#search", "llama")
    visible = page.locator("li[data-name]:visible")
    playwright.expect(visible).to_have_count(1)
    assert "Llama" in visible.first.inner_text()
    playwright.expect(page.locator("details.group[open]")).to_have_count(1)  # the group holding the match opens
    page.fill("#search", "")
    playwright.expect(page.locator("li[data-name]:not([hidden])")).to_have_count(5)  # every row back, in closed groups
    playwright.expect(page.locator("details.group[open]")).to_have_count(0)
    playwright.expect(page.locator("details.group:visible")).to_have_count(5)
    assert errors == []


@pytest.mark.parametrize("path", [PAIR, "de/models/gpt-oss-20b/", "en/gpus/mi300x/", "de/", "en/methodology/"])
def test_no_horizontal_scroll_at_375_px(browser, server, path):
    page, errors = open_page(browser, server + path, width=375)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"{path} scrolls sideways by {overflow}px"
    assert errors == []
