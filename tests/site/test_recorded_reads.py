"""Declared against recorded dependencies: every catalogue field a fixture page reads (recorded as views and
templates read it) must be covered by the page's digest in ``pages/deps.py``: changing it changes the digest."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from generator.build import BuildOptions, make_renderer
from generator.catalog.load import load_catalog
from generator.pages import context
from generator.pages.deps import PageDependencies
from generator.pages.i18n import compile_locales
from generator.pages.plan import API, plan_pages
from generator.pages.reads import recording
from generator.results import Results
from tests.conftest import make_project


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


def _page_reads(project: Path, results: Results) -> dict:
    """The catalogue fields each page reads, by output path (fragment and view memos cleared per page)."""
    options = BuildOptions(project=project, out_dir=project / "site")
    compile_locales(options.locales_dir)
    renderer = make_renderer(options)
    reads = {}
    for page in plan_pages(results.catalog):
        if page.language == API:
            continue  # an API document is its English page's view as JSON: those reads are the page's
        renderer._langs.clear()
        for env in renderer.environments.values():
            env.globals["cached"]._rendered.clear()
        recorded, log = recording(results)
        context.render_page(recorded, renderer, page, options.base_url)  # pages, JSON documents and images alike
        reads[page] = {read for read in log if read[2] != "id"}  # the id is the page's own key
    return reads


@pytest.mark.slow
def test_every_recorded_read_is_in_the_page_digest(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    catalog = load_catalog(project / "catalog")
    results = Results(catalog)
    reads = _page_reads(project, results)
    before = {page: PageDependencies(results, "code").digest(page.key) for page in reads}
    fields = sorted(set().union(*reads.values()))
    assert ("gpus", "rx-7900-xtx", "price_usd") in fields and ("models", "llama-3.1-8b", "license") in fields
    missed = []
    for folder, entry_id, name in fields:
        entries = getattr(catalog, folder)
        new_value = _changed(getattr(entries[entry_id], name))
        if new_value is None:
            continue
        edited = catalog.model_copy(update={folder: {**entries, entry_id: entries[entry_id].model_copy(
            update={name: new_value})}})
        deps = PageDependencies(Results(edited), "code")
        missed += [(page.output_path, folder, entry_id, name) for page, read in reads.items()
                   if (folder, entry_id, name) in read and deps.digest(page.key) == before[page]]
    assert missed == []
