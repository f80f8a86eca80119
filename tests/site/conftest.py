"""Fixtures of the site tests: the real catalogue built once per session."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from tests.conftest import run_generator
from tests.quality.folderserver import serve_folder

BASE_URL = "https://vram-atlas.example/"


@pytest.fixture(scope="session")
def real_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real catalogue, built once per session in strict mode; under pytest-xdist the first worker that needs it
    builds it into the folder all workers share, the others wait for it. Tests only read it."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # pytest-N/, the parent of each worker's popen-gwK/
    folder = shared / "real"
    folder.mkdir(exist_ok=True)
    site, done = folder / "site", folder / "built"
    with (folder / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            result = run_generator("build", "--out", str(site), "--strict", "--quiet", "--base-url", BASE_URL)
            assert result.returncode == 0, result.stderr
            done.touch()
    return site


@pytest.fixture(scope="module")
def server(fixture_site: Path):
    """The fixture site on a local static server, one per browser test module."""
    with serve_folder(fixture_site) as base:
        yield base
