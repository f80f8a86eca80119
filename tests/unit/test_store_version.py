"""The estimate store's version covers every module that computes a stored value, found from the imports."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from generator import build as build_module
from generator.build import BuildOptions, build
from generator.incremental import GENERATOR_DIR, code_digest, imported_modules, store_version
from generator.sitedata import compute as compute_module
from tests.conftest import make_project


def _package_copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(GENERATOR_DIR, tmp_path / "src" / "generator",
                                ignore=shutil.ignore_patterns("__pycache__")))


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name} no longer has {old!r}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_imports_are_followed_through_functions_packages_and_relative_forms(tmp_path: Path) -> None:
    pkg = _write(tmp_path / "pkg", {
        "__init__.py": "",
        "root.py": "import os\nfrom . import near\nfrom .sub import (\n    deep,\n)\n\ndef late():\n    from .lazy import x\n",
        "near.py": "from pkg.sub.deep import y\n",
        "lazy.py": "x = 1\n",
        "unused.py": "import pkg.root\n",
        "sub/__init__.py": "",
        "sub/deep.py": "from ..near import z\ny = 2\n",
    })
    assert imported_modules("pkg.root", pkg) == {"pkg", "pkg.root", "pkg.near", "pkg.lazy", "pkg.sub", "pkg.sub.deep"}


@pytest.mark.parametrize("path, old, new", [
    ("sitedata/compute.py", "FINETUNE_SEQ_LEN = 2048", "FINETUNE_SEQ_LEN = 8192"),
    ("sitedata/compute.py", "PAGE_CONTEXT_TOKENS = 8192", "PAGE_CONTEXT_TOKENS = 4096"),
    ("sitedata/policy.py", "OLDER_LAUNCH_YEAR = 2021", "OLDER_LAUNCH_YEAR = 2020"),
    ("sitedata/adapters.py", "* 1e9", "* 1.0e9"),
    ("estimate/finetune.py", "from __future__", "# an edit\nfrom __future__"),
    ("data/measurements.csv", "\n", "\n\n"),
])
def test_an_edit_to_code_or_data_behind_stored_values_changes_the_store_version(tmp_path, path, old, new) -> None:
    package = _package_copy(tmp_path)
    before = store_version("generator.sitedata.compute", package)
    _edit(package / path, old, new)
    assert store_version("generator.sitedata.compute", package) != before


def test_an_edit_to_rendering_code_keeps_the_store(tmp_path: Path) -> None:
    package = _package_copy(tmp_path)
    before = store_version("generator.sitedata.compute", package)
    _edit(package / "views" / "registry.py", "from __future__", "# an edit\nfrom __future__")
    assert store_version("generator.sitedata.compute", package) == before


def _site(out: Path) -> dict[str, str]:
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.rglob("*.html"))}


@pytest.mark.parametrize("store_follows_code", [True, False])
def test_changing_finetune_seq_len_shows_the_new_figures(tmp_path, monkeypatch, store_follows_code) -> None:
    """Issue 17: with the store versioned by estimate/ alone, an edit of FINETUNE_SEQ_LEN re-rendered every page
    with the old sequence length's memory beside the new length. Incremental must equal a forced build; the test
    shows it would not if the store kept its old version."""
    project = make_project(tmp_path)
    options = BuildOptions(project=project, out_dir=project / "site", jobs=1, quiet=True)
    build(options)
    before = _site(options.out_dir)
    package = _package_copy(tmp_path)
    _edit(package / "sitedata" / "compute.py", "FINETUNE_SEQ_LEN = 2048", "FINETUNE_SEQ_LEN = 8192")  # the edit, as source
    old_version = store_version("generator.sitedata.compute")
    new_version = store_version("generator.sitedata.compute", package)
    monkeypatch.setattr(build_module, "store_version", lambda module: new_version if store_follows_code else old_version)
    monkeypatch.setattr(build_module, "code_digest", lambda project: code_digest(project) + "-edited")
    monkeypatch.setattr(compute_module, "FINETUNE_SEQ_LEN", 8192)  # the edit, as the running code
    build(options)
    incremental = _site(options.out_dir)
    build(BuildOptions(project=project, out_dir=project / "forced", jobs=1, quiet=True, force=True))
    forced = _site(project / "forced")
    assert forced != before
    assert (incremental == forced) is store_follows_code


def test_store_keys_cover_the_gpu_fields_the_adapter_reads_and_no_other() -> None:
    """No hand list of fields: what ``device_spec`` reads from an entry is what its store keys digest."""
    from generator.catalog.load import load_catalog
    from generator.sitedata import SiteData
    from generator.sitedata.adapters import device_fields
    from tests.conftest import FIXTURE_PROJECT
    catalog = load_catalog(FIXTURE_PROJECT / "catalog")
    gpu = catalog.gpus["rx-7900-xtx"]
    read = device_fields(gpu)
    # memory_type: HBM parts have their own decode efficiency; launch_date: NVIDIA parts before Ampere run without
    # CUDA graphs
    assert {"memory_bytes", "bandwidth_gb_per_s", "backends", "name", "usable_memory_bytes", "memory_type",
            "launch_date"} <= read
    assert not read & {"price_usd", "price_kind", "price_date", "sources", "notes"}
    before = SiteData(catalog).gpu_spec_digests["rx-7900-xtx"]

    def key_after(**update) -> str:
        edited = catalog.model_copy(update={"gpus": {**catalog.gpus, gpu.id: gpu.model_copy(update=update)}})
        return SiteData(edited).gpu_spec_digests[gpu.id]

    assert key_after(price_usd=1.0, price_date=None) == before
    assert key_after(memory_type="HBM3") != before
    assert key_after(bandwidth_gb_per_s=gpu.bandwidth_gb_per_s + 1) != before
    assert key_after(tdp_w=(gpu.tdp_w or 0) + 1) != before
