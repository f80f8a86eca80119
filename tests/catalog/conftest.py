"""Fixture: a throw-away copy of a small catalogue that passes ``check``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURE_CATALOG = Path(__file__).parent / "fixtures" / "catalog"


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    """A copy of ``fixtures/catalog``: one model (llama-3.1-8b), one GPU (mi300x), one cloud offer."""
    root = tmp_path / "catalog"
    shutil.copytree(FIXTURE_CATALOG, root)
    return root
