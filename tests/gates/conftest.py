"""Fixtures for the quality-gate tests: a correct synthetic site, and private copies of it to break."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from synthetic_site import build_site


@pytest.fixture(scope="session")
def pristine_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic site, built once per session; tests that break it use ``site``."""
    return build_site(tmp_path_factory.mktemp("pristine") / "site")


@pytest.fixture
def site(pristine_site: Path, tmp_path: Path) -> Path:
    """A private copy of the synthetic site that a test may break."""
    return Path(shutil.copytree(pristine_site, tmp_path / "site"))
