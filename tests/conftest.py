"""Shared fixtures: the project root, a tiny fixture catalogue and a built copy of it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_PROJECT = ROOT / "tests" / "fixtures" / "project"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test on the real catalogue's site is ``slow`` and one with a Chromium page is ``browser``, marked or not:
    ``make test-fast`` must never start either. Tests on the real site go first: under pytest-xdist (``make test``:
    ``--dist loadfile --no-loadscope-reorder``) their modules are the longest, and one worker builds the site while
    the other starts on the rest."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "real_site" in fixtures:
            item.add_marker(pytest.mark.slow)
        if "browser" in fixtures:
            item.add_marker(pytest.mark.browser)
    items.sort(key=lambda item: "real_site" not in getattr(item, "fixturenames", ()))


def make_project(tmp: Path) -> Path:
    """A project folder with the fixture catalogue and the real templates and locales."""
    project = tmp / "project"
    shutil.copytree(FIXTURE_PROJECT / "catalog", project / "catalog")
    shutil.copytree(ROOT / "templates", project / "templates")
    shutil.copytree(ROOT / "locales", project / "locales")
    return project


HF_CONFIGS = ROOT / "tests" / "estimate" / "fixtures"  # Hugging Face config.json files


def run_generator(*args: str | Path, cwd: Path = ROOT, env: dict[str, str] | None = None,
                  stdout: int = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    """Run ``python -m generator ARGS`` as a user would (a bare environment plus ``env``), asserting that no
    traceback is printed."""
    done = subprocess.run([sys.executable, "-m", "generator", *map(str, args)], cwd=cwd, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=600,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", **(env or {})})
    assert "Traceback" not in done.stderr, done.stderr
    return done


def check_problems(catalog: Path) -> list[str]:
    """The lines ``check`` prints on ``catalog``, asserting it failed with status 1."""
    done = run_generator("check", "--catalog", catalog)
    assert (done.returncode, done.stdout) == (1, ""), done.stdout
    return done.stderr.splitlines()


def edit(path: Path, old: str, new: str) -> None:
    """Replace the one occurrence of ``old`` in ``path``."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


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
