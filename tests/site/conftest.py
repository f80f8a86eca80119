"""Fixtures of the site tests: the real catalogue built once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_generator
from tests.quality.folderserver import serve_folder

BASE_URL = "https://vram-atlas.example/"


@pytest.fixture(scope="session")
def real_site(tmp_path_factory) -> Path:
    """The real catalogue, built once per session in strict mode."""
    site = tmp_path_factory.mktemp("real") / "site"
    result = run_generator("build", "--out", str(site), "--strict", "--quiet", "--base-url", BASE_URL)
    assert result.returncode == 0, result.stderr
    return site


@pytest.fixture(scope="module")
def server(fixture_site: Path):
    """The fixture site on a local static server, one per browser test module."""
    with serve_folder(fixture_site) as base:
        yield base
