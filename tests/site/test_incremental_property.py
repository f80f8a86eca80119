"""Property: after a few random edits (a catalogue value, a removed entry, a template, a translation, a code
constant), an incremental build leaves exactly the bytes of a clean ``--force`` build. The incremental build decides
what to re-render from the reads recorded by the previous build alone (issues 16 and 17)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator import build as build_module
from generator.build import BuildOptions, build
from generator.incremental import code_digest
from generator.sitedata import compute as compute_module
from tests.conftest import build_project, make_project
from tests.site.hostile import tree_digest

GPUS = ("mi300x", "rx-7900-xtx")
MODELS = ("deepseek-v3", "gpt-oss-20b", "llama-3.1-8b")
REMOVABLE = ("rx-7900-xtx", *MODELS)  # mi300x has cloud offers: removing it is a check error, not an edit


def _edit_yaml(path: Path, change: Callable[[dict], None]) -> None:
    if not path.exists():
        return  # removed by an earlier edit
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _gpu(target: str) -> str:
    return f"catalog/gpus/{target}.yaml"


def _offer_price(data: dict, which: int, value: int) -> None:
    offer = data["offers"][which]
    offer["price_usd_per_hour"] = round(value / 100 * offer["gpu_count"], 2)


def _list_price(data: dict, value: int) -> None:
    data.update(price_usd=value, price_kind="street", price_date=data.get("price_date") or data["sources"][0]["read"])


# kind: (targets, values, edit of the project)
EDITS: dict[str, tuple[st.SearchStrategy, st.SearchStrategy, Callable[[Path, str, object], None]]] = {
    "bandwidth": (st.sampled_from(GPUS), st.integers(900, 1300), lambda p, t, v: _edit_yaml(
        p / _gpu(t), lambda d: d.update(bandwidth_gb_per_s=v * (5 if t == "mi300x" else 1)))),  # plausible for its memory
    "tdp": (st.sampled_from(GPUS), st.integers(100, 900), lambda p, t, v: _edit_yaml(p / _gpu(t), lambda d: d.update(tdp_w=v))),
    "gpu name": (st.sampled_from(GPUS), st.text("abcxyz 123", min_size=1, max_size=8), lambda p, t, v: _edit_yaml(
        p / _gpu(t), lambda d: d.update(name=f"{d['name']} {v.strip() or 'x'}"))),
    "model name": (st.sampled_from(MODELS), st.text("abcxyz 123", min_size=1, max_size=8), lambda p, t, v: _edit_yaml(
        p / f"catalog/models/{t}.yaml", lambda d: d.update(name=f"{d['name']} {v.strip() or 'x'}"))),
    "model licence": (st.sampled_from(MODELS), st.sampled_from(("mit", "qwen", "llama3.2", "apache-2.0")),
                      lambda p, t, v: _edit_yaml(p / f"catalog/models/{t}.yaml", lambda d: d.update(license=v))),
    "gpu price": (st.sampled_from(GPUS), st.integers(300, 40_000), lambda p, t, v: _edit_yaml(
        p / _gpu(t), lambda d: _list_price(d, v))),
    "offer price": (st.sampled_from((0, 1)), st.integers(100, 2_000), lambda p, t, v: _edit_yaml(
        p / "catalog/clouds/digitalocean.yaml", lambda d: _offer_price(d, t, v))),
    "remove": (st.sampled_from(REMOVABLE), st.none(), lambda p, t, v: (
        p / ("catalog/gpus" if t in GPUS else "catalog/models") / f"{t}.yaml").unlink(missing_ok=True)),
    "template": (st.none(), st.integers(1, 3), lambda p, t, v: _replace(
        p / "templates/partials/about_gpu.html", "</dt>", " " * v + "</dt>")),
    "translation": (st.none(), st.integers(1, 50), lambda p, t, v: _replace(
        p / "locales/de/LC_MESSAGES/messages.po", 'msgstr "Kopieren', f'msgstr "Kopieren {v}')),
    "code constant": (st.none(), st.sampled_from((1024, 8192)), lambda p, t, v: None),  # applied as running code
}
edits = st.one_of(*(st.tuples(st.just(kind), targets, values) for kind, (targets, values, _) in EDITS.items()))


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture project, its site, manifest and store, built once: each example starts from a copy."""
    root = tmp_path_factory.mktemp("property-base")
    project = make_project(root)
    done = build_project(project, root / "site")
    assert done.returncode == 0, done.stderr
    return root


def _as_code(monkeypatch: pytest.MonkeyPatch, seq_len: int) -> None:
    """A code edit as the running code sees it: the constant changes, and so do the code and store versions."""
    monkeypatch.setattr(compute_module, "FINETUNE_SEQ_LEN", seq_len)
    monkeypatch.setattr(build_module, "code_digest", lambda project: code_digest(project) + f"-{seq_len}")
    version = build_module.store_version
    monkeypatch.setattr(build_module, "store_version", lambda module: version(module) + f"-{seq_len}")


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(changes=st.lists(edits, min_size=1, max_size=3))
def test_incremental_build_equals_a_clean_build_after_random_edits(base: Path, tmp_path_factory: pytest.TempPathFactory,
                                                                  changes: list[tuple]) -> None:
    root = tmp_path_factory.mktemp("property")
    shutil.copytree(base, root, dirs_exist_ok=True)
    project = root / "project"
    with pytest.MonkeyPatch.context() as monkeypatch:
        for kind, target, value in changes:
            if kind == "code constant":
                _as_code(monkeypatch, value)
            EDITS[kind][2](project, target, value)
        build(BuildOptions(project=project, out_dir=root / "site", jobs=1, quiet=True))
        build(BuildOptions(project=project, out_dir=root / "clean", jobs=1, quiet=True, force=True))
    assert tree_digest(root / "site") == tree_digest(root / "clean")
    shutil.rmtree(root)


@pytest.mark.slow
def test_a_gpu_list_price_edit_rewrites_only_pages_that_show_it(base: Path, tmp_path: Path) -> None:
    """Recorded reads, not declared ones: the GPU's page, its pairs and the pages whose picks the price moves."""
    shutil.copytree(base, tmp_path, dirs_exist_ok=True)
    _edit_yaml(tmp_path / "project" / _gpu("rx-7900-xtx"), lambda d: _list_price(d, 123))
    report = build(BuildOptions(project=tmp_path / "project", out_dir=tmp_path / "site", jobs=1, quiet=True))
    assert 0 < report.written < report.pages / 2
