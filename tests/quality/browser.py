"""Playwright helpers shared by the browser tests: which Chromium to launch, and a page's errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .lighthouse import DEBIAN_CHROMIUM

BROWSER_ARGS = ["--no-sandbox", "--disable-background-networking"]


def launch_options() -> dict[str, Any]:
    """Keyword arguments for ``chromium.launch``: Debian's Chromium when installed, else Playwright's own."""
    if DEBIAN_CHROMIUM.exists():
        return {"executable_path": str(DEBIAN_CHROMIUM), "args": BROWSER_ARGS}
    return {"args": BROWSER_ARGS}


@dataclass
class PageErrors:
    """Console errors, uncaught exceptions, failed requests and HTTP errors seen by one Playwright page."""

    console: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def watch(self, page: Any) -> PageErrors:
        """Start recording ``page``'s errors; returns self."""
        page.on("console", lambda m: self.console.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.console.append(f"uncaught: {e}"))
        page.on("requestfailed", lambda r: self.failed.append(f"{r.url}: {r.failure}"))
        page.on("response", lambda r: self.failed.append(f"{r.url}: HTTP {r.status}") if r.status >= 400 else None)
        return self

    @property
    def all(self) -> list[str]:
        return self.console + self.failed

    def assert_clean(self) -> None:
        """Fail, listing them, if any error was recorded."""
        assert not self.all, "page errors:\n" + "\n".join(self.all)


def open_clean(page: Any, url: str) -> PageErrors:
    """Load ``url`` in ``page`` and assert that no console error, uncaught exception or failed request happened."""
    errors = PageErrors().watch(page)
    page.goto(url, wait_until="networkidle")
    errors.assert_clean()
    return errors
