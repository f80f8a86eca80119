"""The local site server: files, folder redirects, 404s, and the production base URL swapped for its own."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest
from synthetic_site import BASE_URL, CSS

from tests.quality.folderserver import serve_folder


def fetch(url: str) -> tuple[str, str, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.geturl(), response.headers["Content-Type"], response.read().decode()


def test_serves_the_site_as_production_would(pristine_site: Path) -> None:
    with serve_folder(pristine_site, BASE_URL) as base:
        assert base.startswith("http://127.0.0.1:") and base.endswith("/")
        url, kind, html = fetch(base + "en/models/llama-3-8b")
        assert url == base + "en/models/llama-3-8b/"  # folder redirect
        assert kind == "text/html"
        assert f'<link rel="canonical" href="{base}en/models/llama-3-8b/">' in html
        assert BASE_URL not in html
        assert f"Sitemap: {base}sitemap.xml" in fetch(base + "robots.txt")[2]
        assert fetch(base + "assets/site.css")[2] == CSS
        with pytest.raises(urllib.error.HTTPError, match="404"):
            fetch(base + "en/nowhere/")


def test_without_a_production_base_files_are_untouched(pristine_site: Path) -> None:
    with serve_folder(pristine_site) as base:
        assert fetch(base + "en/")[2] == (pristine_site / "en/index.html").read_text(encoding="utf-8")
