"""Shared fixtures: the project root, a tiny fixture catalogue and a built copy of it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_PROJECT = ROOT / "tests" / "fixtures" / "project"


def make_project(tmp: Path) -> Path:
    """A project folder with the fixture catalogue and the real templates and locales."""
    project = tmp / "project"
    shutil.copytree(FIXTURE_PROJECT / "catalog", project / "catalog")
    shutil.copytree(ROOT / "templates", project / "templates")
    shutil.copytree(ROOT / "locales", project / "locales")
    return project


def run_generator(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run ``python -m generator`` as a user would."""
    return subprocess.run([sys.executable, "-m", "generator", *args], cwd=cwd, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=600)


def build_project(project: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run_generator("build", "--project", str(project), "--out", str(out), "--quiet", *extra)


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory) -> Path:
    """The fixture catalogue built once per test session."""
    tmp = tmp_path_factory.mktemp("fixture-site")
    project = make_project(tmp)
    result = build_project(project, tmp / "site", "--strict")
    assert result.returncode == 0, result.stderr
    return tmp / "site"
