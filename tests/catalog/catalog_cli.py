"""Helpers for the catalogue tests: run the CLI as a user would and edit a copied catalogue."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
CONFIGS = REPO / "tests" / "estimate" / "fixtures"


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run ``python -m generator ARGS`` from the repository root, asserting that no traceback is printed."""
    done = subprocess.run([sys.executable, "-m", "generator", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def edit(path: Path, old: str, new: str) -> None:
    """Replace the one occurrence of ``old`` in ``path``."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path.name}"
    path.write_text(text.replace(old, new), encoding="utf-8")
