"""Helpers for the hostile-input build tests: a built fixture project, its site's bytes, and the planted input."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import yaml

from tests.conftest import build_project, make_project


def tree_digest(site: Path) -> dict[str, str]:
    """Every file of ``site`` by relative path, as a SHA-256 of its bytes."""
    return {str(p.relative_to(site)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}


def built(tmp_path: Path, *extra: str) -> tuple[Path, Path, dict[str, str]]:
    """A fixture project built once: (project, site, the site's digest)."""
    project = make_project(tmp_path)
    site = tmp_path / "site"
    done = build_project(project, site, *extra)
    assert done.returncode == 0, done.stderr
    return project, site, tree_digest(site)


def clean_build(project: Path, out: Path, *extra: str) -> dict[str, str]:
    """The digest of a clean (--force) build of ``project`` into ``out``."""
    done = build_project(project, out, "--force", *extra)
    assert done.returncode == 0, done.stderr
    return tree_digest(out)


def one_line(stderr: str) -> str:
    """The single line a failed build printed (no traceback)."""
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def all_output(site: Path) -> bytes:
    """Every byte of the site, for asserting that something did not get into it."""
    return b"".join(p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file())


def add_gpu_twins(project: Path, count: int) -> None:
    """``count`` copies of one fixture GPU under new ids and names: enough pages for the render pool."""
    source = project / "catalog" / "gpus" / "rx-7900-xtx.yaml"
    data = yaml.safe_load(source.read_text(encoding="utf-8"))
    for i in range(count):
        twin = {**data, "id": f"rx-7900-twin-{i}", "name": f"AMD Radeon RX 7900 Twin {i}", "aliases": []}
        (source.parent / f"rx-7900-twin-{i}.yaml").write_text(yaml.safe_dump(twin, sort_keys=False), encoding="utf-8")


def manifest_path(site: Path) -> Path:
    return site.parent / ".cache" / f"{site.name}.manifest.json"


def read_manifest(site: Path) -> dict:
    return json.loads(manifest_path(site).read_text(encoding="utf-8"))
