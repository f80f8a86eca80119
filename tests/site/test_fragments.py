"""Cached fragments and shared view parts never change a page: every page renders the same with warm caches
(all pages through one renderer, as a worker does) as with cold ones (a fresh renderer per page)."""

from __future__ import annotations

import pytest

from generator.build import BuildOptions, RenderWorker
from generator.catalog.load import load_catalog
from generator.sitedata import SiteData
from generator.views.plan import plan_pages

from ..conftest import make_project


@pytest.fixture(scope="module")
def setup(tmp_path_factory) -> tuple[BuildOptions, SiteData, list]:
    project = make_project(tmp_path_factory.mktemp("fragments"))
    options = BuildOptions(project=project, out_dir=project / "site")
    site = SiteData(load_catalog(options.catalog_dir))
    return options, site, plan_pages(site.catalog)


def test_warm_caches_render_the_same_bytes_as_cold_ones(setup) -> None:
    options, site, pages = setup
    warm = dict(RenderWorker(options, site).render(pages))
    for page in pages:
        [(path, cold)] = RenderWorker(options, site).render([page])  # a new renderer: empty fragment cache and
        # view memo
        assert warm[path] == cold, f"{path}: a cached fragment or shared view part leaked from another page"


def test_pair_pages_reuse_model_and_gpu_fragments(setup) -> None:
    """The cache is used: the second pair page of a model renders its model-wide fragments from the cache."""
    options, site, pages = setup
    worker = RenderWorker(options, site)
    pairs = [p for p in pages if p.key.kind == "pair" and p.language == "en"]
    cached = worker.renderer.environments["en"].globals["cached"]
    worker.render(pairs[:1])
    assert cached.size() > 0
    before = cached.size()
    same_model = next(p for p in pairs[1:] if p.key.model == pairs[0].key.model)
    worker.render([same_model])
    assert cached.hits() > 0 and cached.size() > before  # model fragments hit, the new GPU's fragments are added
