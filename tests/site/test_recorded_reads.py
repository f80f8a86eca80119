"""Recorded dependencies: what a page reads is noted as it reads it, kept in the manifest with a token of its
value, and an edit of anything a page read changes that read's token (so the page is rendered again)."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from pathlib import Path

import pytest

from generator.build import BuildOptions, build
from generator.catalog.load import load_catalog
from generator.pages import reads
from generator.pages.reads import ENTRY_VALUES, RecordedMemo, RecordingSiteData, recorded, token
from generator.sitedata import SiteData
from generator.sitedata.site import Input, SharedInput
from tests.conftest import FIXTURE_PROJECT, make_project


def _changed(value):
    """Another value of the same type, or None where no simple one exists."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + " (edited)"
    if isinstance(value, dt.date):
        return value - dt.timedelta(days=1)
    return None


def _tuples(value):
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


@pytest.mark.slow
def test_an_edit_of_any_field_a_page_read_changes_its_token(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    build(BuildOptions(project=project, out_dir=project / "site", jobs=1, quiet=True))
    manifest = json.loads((project / ".cache" / "site.manifest.json").read_text(encoding="utf-8"))
    recorded_reads = [_tuples(item) for item, _ in manifest["reads"]]
    fields = [r for r in recorded_reads if r[0] == "entry" and r[3] != "id"]  # an id is the entry's file name
    assert ("entry", "gpus", "rx-7900-xtx", "price_usd") in fields and ("entry", "models", "llama-3.1-8b", "license") in fields
    catalog = load_catalog(project / "catalog")
    site = SiteData(catalog)
    assert [token(site, item) for item in recorded_reads] == [tok for _, tok in manifest["reads"]]
    missed = []
    for read in fields:
        _, folder, entry_id, name = read
        entries = getattr(catalog, folder)
        new_value = _changed(getattr(entries[entry_id], name))
        if new_value is None:
            continue
        edited_entry = entries[entry_id].model_copy(update={name: new_value})
        edited = catalog.model_copy(update={folder: {**entries, entry_id: edited_entry}})
        if token(SiteData(edited), read) == token(site, read):
            missed.append(read)
    assert missed == []
    every_subject = {s for s in manifest["pages"].values() if s}
    assert every_subject == set(manifest["subjects"])  # every page subject's reads are kept


def test_a_price_edit_changes_the_price_read_and_not_the_stored_estimates() -> None:
    catalog = load_catalog(FIXTURE_PROJECT / "catalog")
    gpu = catalog.gpus["rx-7900-xtx"]
    edited = catalog.model_copy(update={"gpus": {**catalog.gpus, gpu.id: gpu.model_copy(update={"price_usd": 1.0})}})
    before, after = SiteData(catalog), SiteData(edited)
    changed = [("entry", "gpus", gpu.id, "price_usd")]
    kept = [("input", "gpu-spec", gpu.id), ("input", "model", "llama-3.1-8b"), ("call", "cheapest_setups", ("llama-3.1-8b",), ())]
    assert all(token(before, r) != token(after, r) for r in changed)
    assert all(token(before, r) == token(after, r) for r in kept)
    assert token(before, ("entry", "gpus", "no-such-gpu", "name")) == "0"
    assert token(before, ("call", "_stored", (("x",),), ())) == "!"  # a manifest may name anything: never a match


def test_stored_lookups_note_their_inputs_and_other_lookups_their_arguments() -> None:
    site = SiteData(load_catalog(FIXTURE_PROJECT / "catalog"))
    recording = RecordingSiteData(site)
    with recorded() as log:
        recording.quant_estimate("llama-3.1-8b", "mi300x", "Q4_K_M")
        recording.pairs[("gpt-oss-20b", "rx-7900-xtx")]
        recording.recommendations("llama-3.1-8b")
        recording.catalog.gpus["mi300x"].price_usd  # noqa: B018 - the read is what the recorder logs
    assert log == {("input", "model", "llama-3.1-8b"), ("input", "gpu-spec", "mi300x"), ("input", "model", "gpt-oss-20b"),
                   ("input", "gpu-spec", "rx-7900-xtx"), ("call", "recommendations", ("llama-3.1-8b",), ()),
                   ("has", "gpus", "mi300x"), ("entry", "gpus", "mi300x", "price_usd")}


def test_a_memo_hit_replays_the_reads_that_filled_it() -> None:
    site = SiteData(load_catalog(FIXTURE_PROJECT / "catalog"))
    recording, memo = RecordingSiteData(site), RecordedMemo()

    def shared(key, compute):  # as Lang.shared does it
        try:
            return memo[key]
        except KeyError:
            value = memo[key] = compute()
            return value

    with recorded() as first:
        shared(("name", "mi300x"), lambda: recording.catalog.gpus["mi300x"].name)
    with recorded() as second:
        shared(("name", "mi300x"), lambda: pytest.fail("computed twice"))
    assert first == second == {("has", "gpus", "mi300x"), ("entry", "gpus", "mi300x", "name")}
    assert reads._LOGS == []


def _entries_in(value, found):
    kind = type(value)
    if kind in reads.FOLDERS:
        found.add(True)
    elif kind in (list, tuple) or isinstance(value, tuple):
        for v in value:
            _entries_in(v, found)
    elif kind is dict:
        for v in value.values():
            _entries_in(v, found)


def test_only_the_listed_lookups_hand_out_catalogue_entries() -> None:
    """A value holding entries is compared with each entry by id (its fields are reads of their own): only right
    when the recorder hands those entries out recorded, that is for the lookups in ENTRY_VALUES."""
    site = SiteData(load_catalog(FIXTURE_PROJECT / "catalog"))
    m, g = "llama-3.1-8b", "mi300x"
    arguments = [(), (m,), (g,), (m, g), (m, "Q4_K_M"), (m, "lora"), (g, 3), (m, g, "Q4_K_M"), ("decode_tps",), ("rocm",)]
    holding = set()
    for name in dir(site):
        if name.startswith("_") or name in ("catalog", "inputs", "input_token"):
            continue
        value = getattr(site, name)
        results = []
        if isinstance(value, dict):
            results = list(value.values())
        elif callable(value):
            for args in arguments:
                with contextlib.suppress(TypeError, KeyError, ValueError):
                    results.append(value(*args))
        else:
            results = [value]
        found: set = set()
        for result in results:
            _entries_in(result, found)
        if found:
            holding.add(name)
    assert holding == ENTRY_VALUES


def _pages_and_reads(project: Path, out: Path) -> tuple[dict[str, bytes], dict[str, frozenset]]:
    """Every output file's bytes, and each subject's recorded reads (as reads, not numbers), of a build."""
    build(BuildOptions(project=project, out_dir=out, jobs=1, quiet=True))
    manifest = json.loads((out.parent / ".cache" / f"{out.name}.manifest.json").read_text(encoding="utf-8"))
    items = [json.dumps(read) for read, _ in manifest["reads"]]
    return ({str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()},
            {s: frozenset(items[int(n)] for n in numbers.split()) for s, numbers in manifest["subjects"].items()})


def test_memos_that_start_afresh_render_the_same_pages_and_reads(tmp_path: Path, monkeypatch) -> None:
    """Past ``MEMO_LIMIT`` entries a process's memos and fragment caches start afresh (a 10x catalogue's pairs would
    fill them): the pages and the reads the manifest keeps are those of memos that keep everything."""
    project = make_project(tmp_path)
    unbounded = _pages_and_reads(project, tmp_path / "unbounded")
    cleared = []
    monkeypatch.setattr(reads, "MEMO_LIMIT", 3)
    monkeypatch.setattr(RecordedMemo, "clear", lambda self: cleared.append(1) or dict.clear(self))
    assert _pages_and_reads(project, tmp_path / "bounded") == unbounded
    assert len(cleared) > 100


def test_only_pages_of_unrented_gpus_read_the_cloud_pick() -> None:
    """Rent or buy keeps an offer edit small: the cross-GPU cloud pick (a site-data table, compared by value) is read
    only by pair pages whose GPU has no offer; the others compare with their own GPU's offers."""
    from generator.pages import assets
    from generator.pages.render import Renderer
    from generator.views.pair import pair_view
    from generator.views.plan import PageKey
    from tests.conftest import ROOT

    site = SiteData(load_catalog(FIXTURE_PROJECT / "catalog"))
    recording = RecordingSiteData(site)
    lang = Renderer(ROOT / "templates", ROOT / "locales", assets.names(ROOT)).lang("en")
    seen = {}
    for gpu in ("mi300x", "rx-7900-xtx"):  # rented, not rented
        with recorded() as log:
            view = pair_view(recording, PageKey("pair", "llama-3.1-8b", gpu), lang)
        seen[gpu] = (log, view.rentbuy.cloud)
    pick = ("item", "cheapest_cloud", "llama-3.1-8b")
    assert pick not in seen["mi300x"][0] and seen["mi300x"][1].same_gpu
    assert pick in seen["rx-7900-xtx"][0] and not seen["rx-7900-xtx"][1].same_gpu


def test_the_manifest_keeps_each_read_as_its_typed_record(tmp_path: Path) -> None:
    """A build's reads come back from its manifest as the records they were (kind, type and fields); a read of an
    unknown shape becomes an unknown read whose token never matches."""
    project = make_project(tmp_path)
    build(BuildOptions(project=project, out_dir=project / "site", jobs=1, quiet=True))
    manifest = json.loads((project / ".cache" / "site.manifest.json").read_text(encoding="utf-8"))
    typed = [reads.as_read(item) for item, _ in manifest["reads"]]
    kinds = {type(read) for read in typed}
    assert {reads.EntryRead, reads.HasRead, reads.CallRead, Input, SharedInput} <= kinds
    assert reads.UnknownRead not in kinds
    assert [json.loads(json.dumps(read)) for read in typed] == [item for item, _ in manifest["reads"]]
    site = SiteData(load_catalog(project / "catalog"))
    assert [token(site, read) for read in typed] == [tok for _, tok in manifest["reads"]]
    for shape in (["entry", "models", "llama-3.1-8b"], ["no such kind", 1], [], "entry", 7):
        unknown = reads.as_read(shape)
        assert type(unknown) is reads.UnknownRead and token(site, unknown) == "!"
        assert reads.as_read(json.loads(json.dumps(unknown))) == unknown  # kept as it is, build after build


def test_what_a_page_reads_is_recorded_as_typed_records() -> None:
    site = RecordingSiteData(SiteData(load_catalog(FIXTURE_PROJECT / "catalog")))
    with recorded() as log:
        assert site.catalog.gpus["mi300x"].name
        site.pick("llama-3.1-8b", "mi300x")
    assert log == {reads.HasRead("has", "gpus", "mi300x"), reads.EntryRead("entry", "gpus", "mi300x", "name"),
                   Input("input", "model", "llama-3.1-8b"), Input("input", "gpu-spec", "mi300x")}
    assert {type(read) for read in log} == {reads.HasRead, reads.EntryRead, Input}
