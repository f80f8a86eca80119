"""Shared browser fixtures: a Chromium (Debian's when installed), a local static server, a clean-page check.

Fixtures: ``browser`` (per module), ``page`` (fresh context per test), ``site_server(folder, production_base=None)``
→ base URL, ``clean_page(url)`` → the loaded page after asserting no console errors and no failed requests.
Helpers for tests that need more: tests.quality.browser (PageErrors, open_clean).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.quality.browser import launch_options, open_clean
from tests.quality.folderserver import serve_folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (Playwright's sync API allows one running instance per thread, and the
    site and gate tests start their own)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(**launch_options())
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page in its own context, closed after the test."""
    context = browser.new_context()
    yield context.new_page()
    context.close()


@pytest.fixture
def site_server() -> Iterator[Callable[..., str]]:
    """``site_server(folder, production_base=None)`` serves ``folder`` on 127.0.0.1 and returns its base URL."""
    with ExitStack() as stack:

        def serve(folder: Path, production_base: str | None = None) -> str:
            return stack.enter_context(serve_folder(folder, production_base))

        yield serve


@pytest.fixture
def clean_page(page: Any) -> Callable[[str], Any]:
    """``clean_page(url)`` loads ``url`` in ``page``, asserts no console error or failed request, returns the page."""

    def load(url: str) -> Any:
        open_clean(page, url)
        return page

    return load
