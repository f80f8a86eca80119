"""Parsed catalogue files are reused only while their bytes are unchanged; errors are always found by parsing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.catalog import load
from generator.catalog.load import ParsedFiles, load_catalog
from generator.errors import UserError

CATALOG = Path(__file__).resolve().parents[1] / "fixtures" / "project" / "catalog"


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    return Path(shutil.copytree(CATALOG, tmp_path / "catalog"))


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    parse = load._parse_yaml
    monkeypatch.setattr(load, "_parse_yaml", lambda raw, shown: seen.append(shown) or parse(raw, shown))
    return seen


def test_a_second_load_parses_only_the_changed_file(catalog: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "parsed.pickle"
    first = ParsedFiles(cache)
    fresh = load_catalog(catalog, first)
    first.save()
    gpu = sorted((catalog / "gpus").glob("*.yaml"))[0]
    gpu.write_text(gpu.read_text(encoding="utf-8").replace("price_usd: ", "price_usd: 1"), encoding="utf-8")
    seen = _parses(monkeypatch)
    again = load_catalog(catalog, ParsedFiles(cache))
    assert seen == [f"catalog/gpus/{gpu.name}"]
    assert again.models == fresh.models
    assert again.gpus[gpu.stem] != fresh.gpus[gpu.stem]
    assert again == load_catalog(catalog)


def test_a_broken_file_is_reported_although_an_earlier_parse_is_kept(catalog: Path, tmp_path: Path) -> None:
    cache = tmp_path / "parsed.pickle"
    parsed = ParsedFiles(cache)
    load_catalog(catalog, parsed)
    parsed.save()
    gpu = sorted((catalog / "gpus").glob("*.yaml"))[0]
    gpu.write_text(gpu.read_text(encoding="utf-8") + "memory_gib: [\n", encoding="utf-8")
    with pytest.raises(UserError) as error:
        load_catalog(catalog, ParsedFiles(cache))
    assert [(p.path, p.message.split(":")[0]) for p in error.value.problems] == [(f"catalog/gpus/{gpu.name}", "invalid YAML")]


def test_an_unreadable_cache_is_ignored(catalog: Path, tmp_path: Path) -> None:
    cache = tmp_path / "parsed.pickle"
    cache.write_bytes(b"not a pickle")
    assert load_catalog(catalog, ParsedFiles(cache)) == load_catalog(catalog)
