"""Incremental = ``--force`` after a random edit: a catalogue value, a template, a translation or a code constant.
Every page the edit changes must be rebuilt; the property is checked on the fixture catalogue."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Callable

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator import build as build_module
from generator import results as results_module
from generator.build import BuildOptions, build
from generator.incremental import code_digest
from generator.pages import views
from tests.conftest import make_project


def _tree(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(site.rglob("*"))
            if p.is_file()}


def _edit_yaml(path: Path, change: Callable[[dict], None]) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


EDITS: dict[str, Callable[[Path, int], None]] = {
    "gpu price": lambda p, n: _edit_yaml(p / "catalog/gpus/rx-7900-xtx.yaml", lambda d: d.update(price_usd=500 + n)),
    "gpu bandwidth": lambda p, n: _edit_yaml(p / "catalog/gpus/mi300x.yaml",
                                             lambda d: d.update(bandwidth_gb_per_s=d["bandwidth_gb_per_s"] - n)),
    "gpu name": lambda p, n: _edit_yaml(p / f"catalog/gpus/{('mi300x', 'rx-7900-xtx')[n % 2]}.yaml",
                                        lambda d: d.update(name=f"{d['name']} r{n}")),
    "model name": lambda p, n: _edit_yaml(p / "catalog/models/llama-3.1-8b.yaml",
                                          lambda d: d.update(name=f"{d['name']} r{n}")),
    "model licence": lambda p, n: _edit_yaml(p / "catalog/models/gpt-oss-20b.yaml",
                                             lambda d: d.update(license=("mit", "qwen", "llama3.2")[n % 3])),
    "offer price": lambda p, n: _edit_yaml(p / "catalog/clouds/digitalocean.yaml",
                                           lambda d: d["offers"][0].update(price_usd_per_hour=1.0 + n / 100)),
    "template": lambda p, n: _replace(p / "templates/partials/about_gpu.html", "</dt>", " " * (1 + n % 3) + "</dt>"),
    "translation": lambda p, n: _replace(p / "locales/de/LC_MESSAGES/messages.po", 'msgstr "Kopieren"',
                                         f'msgstr "Kopieren {n}"'),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The fixture project built once; each example starts from a copy of it (site, manifest and store)."""
    project = make_project(tmp_path_factory.mktemp("base"))
    build(BuildOptions(project=project, out_dir=project / "site", jobs=1, quiet=True))
    return project


def _check(base: Path, tmp: Path, edit: Callable[[Path, int], None], n: int) -> None:
    project = Path(shutil.copytree(base, tmp / "project", symlinks=True))
    edit(project, n)
    build(BuildOptions(project=project, out_dir=project / "site", jobs=1, quiet=True))
    build(BuildOptions(project=project, out_dir=project / "forced", jobs=1, quiet=True, force=True))
    assert _tree(project / "site") == _tree(project / "forced")


@pytest.mark.slow
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(sorted(EDITS)), n=st.integers(1, 50))
def test_incremental_equals_forced_after_a_random_edit(built, tmp_path_factory, kind, n) -> None:
    _check(built, tmp_path_factory.mktemp("edit"), EDITS[kind], n)


@pytest.mark.slow
@pytest.mark.parametrize("seq_len", [1024, 8192])
def test_incremental_equals_forced_after_a_code_constant_edit(built, tmp_path, monkeypatch, seq_len) -> None:
    """A code edit, as the running code sees it: the constant changes and so do the code and store versions."""
    monkeypatch.setattr(results_module, "FINETUNE_SEQ_LEN", seq_len)
    monkeypatch.setattr(views, "FINETUNE_SEQ_LEN", seq_len)
    monkeypatch.setattr(build_module, "code_digest", lambda project: code_digest(project) + f"-{seq_len}")
    version = build_module.store_version
    monkeypatch.setattr(build_module, "store_version", lambda module: version(module) + f"-{seq_len}")
    _check(built, tmp_path, lambda project, n: None, 0)
