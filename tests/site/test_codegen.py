"""Our code generator changes how templates run, never what they write: every fixture page renders to the same
bytes as with stock Jinja's code generator, and output escaping still escapes."""

from __future__ import annotations

import jinja2.compiler
import pytest
from markupsafe import Markup

from generator import codegen
from generator.build import BuildOptions, RenderWorker, estimate_pages
from generator.catalog.load import load_catalog
from generator.codegen import escape_output
from generator.pages.render import PageEnvironment
from generator.sitedata import ModelEstimates, SiteData
from generator.views.plan import Page, PageKey, plan_pages

from ..conftest import ROOT, make_project


def _render_all(tmp_path, options_dir: str) -> dict[str, bytes]:
    project = make_project(tmp_path / options_dir)
    options = BuildOptions(project=project, out_dir=project / "site")
    site = SiteData(load_catalog(options.catalog_dir))
    return dict(RenderWorker(options, site).render(plan_pages(site.catalog)))


def test_pages_match_stock_jinja_byte_for_byte(tmp_path, monkeypatch) -> None:
    ours = _render_all(tmp_path, "ours")
    monkeypatch.setattr(PageEnvironment, "code_generator_class", jinja2.compiler.CodeGenerator)
    stock = _render_all(tmp_path, "stock")  # its own project folder: no compiled templates shared
    assert ours.keys() == stock.keys()
    for path in stock:
        assert ours[path] == stock[path], f"{path}: our code generator changed the page"


@pytest.mark.parametrize("value, html", [
    ('<b class="x">Tom & Jerry\'s</b>', "&lt;b class=&#34;x&#34;&gt;Tom &amp; Jerry&#39;s&lt;/b&gt;"),
    (Markup("<b>kept</b>"), "<b>kept</b>"),
    (3.5, "3.5"),
    (type("Html", (), {"__html__": lambda self: "<i>own</i>"})(), "<i>own</i>"),
])
def test_output_escaping(value, html) -> None:
    assert escape_output(value) == html


@pytest.mark.parametrize("language", ["en", "de"])
def test_plain_filters_write_nothing_html_escapes(language) -> None:
    """The filters whose output the generator writes unescaped give only digits, signs and units."""
    from generator.i18n import formatter
    from generator.pages.render import _filters
    filters = _filters(formatter(language))
    values = [0, 0.004, 1, 7.5, 999.5, 1024, 8192, 131072, 2**20, 123456.789, 8.03e9, 1e15, -3.25, -12345.6]
    for name in PageEnvironment.plain_filters:
        for value in values:
            text = filters[name](abs(value) if name in ("tokens", "params") else value)
            assert escape_output(text) == text, (name, value, text)


@pytest.mark.parametrize("generator_class", [None, jinja2.compiler.CodeGenerator])
def test_inline_messages_escape_their_values(generator_class, monkeypatch, tmp_path) -> None:
    """``{{ _("…", x=…) }}`` written as a constant still escapes each value, exactly as the call does."""
    import shutil
    from pathlib import Path

    from generator.i18n import compile_locales, translations
    from generator.pages.render import make_environment
    if generator_class:
        monkeypatch.setattr(PageEnvironment, "code_generator_class", generator_class)
    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "locales", tmp_path / "locales")
    compile_locales(tmp_path / "locales")  # a fresh checkout has no compiled catalogues
    env = make_environment(root / "templates", translations(tmp_path / "locales", "de"), "de")
    page = env.from_string('{{ _("%(model)s on %(gpu)s", model=a, gpu=b) }}|{{ _("Copy", ) }}|{{ x|num }}')
    assert page.render(a='<b class="x">', b=Markup("<i>A</i> & B"), x=1234.5) == (
        "&lt;b class=&#34;x&#34;&gt; auf <i>A</i> & B|Kopieren|1.234")


def test_this_jinja_has_every_hook_and_the_pages_use_our_generator() -> None:
    assert codegen.missing_hooks() == []
    assert PageEnvironment.code_generator_class is codegen.FastCodeGenerator


@pytest.mark.parametrize("break_hook", [
    lambda mp: mp.delattr(jinja2.compiler.CodeGenerator, "_output_child_pre"),
    lambda mp: mp.setattr(jinja2.compiler.CodeGenerator, "visit_Call", lambda self, node, frame: None),
    lambda mp: mp.delattr(jinja2.compiler, "optimizeconst"),
    lambda mp: mp.setattr(jinja2.compiler.Frame, "__init__", lambda self, eval_ctx, parent=None, level=None: None),
])
def test_a_missing_hook_falls_back_to_stock_jinja_with_the_same_pages(break_hook, tmp_path, monkeypatch) -> None:
    """A Jinja without one of the internals we override (simulated) gets stock compilation, and pages stay as they are."""
    with monkeypatch.context() as broken:
        break_hook(broken)
        assert codegen.missing_hooks()
        with pytest.warns(RuntimeWarning, match="compile with stock Jinja"):
            chosen = codegen.code_generator()
    assert chosen is jinja2.compiler.CodeGenerator
    ours = _render_all(tmp_path, "ours")
    monkeypatch.setattr(PageEnvironment, "code_generator_class", chosen)
    assert _render_all(tmp_path, "fallback") == ours


def _sample(site: SiteData) -> list[Page]:
    """Real pages of every kind: index, methodology, 404, model pages (one with multi-GPU setups), GPU pages
    (CUDA, ROCm, Apple, other) and pair pages (CUDA, ROCm, Apple, other backend; fits, tight, offload, no fit;
    a multi-GPU fine-tuning pick), in both languages."""
    catalog, pairs = site.catalog, site.pairs
    keys = [PageKey("index"), PageKey("methodology"), PageKey("notfound")]
    models = site.models_by_size
    multi = next(m for m in reversed(models) if any(s["multi"] for s in site.cheapest_setups(m)))
    keys += [PageKey("model", model=m) for m in dict.fromkeys((models[0], models[len(models) // 2], multi))]
    by_backend: dict[str, str] = {}
    for gpu_id in sorted(catalog.gpus):
        gpu = catalog.gpus[gpu_id]
        kind = "apple" if gpu.vendor == "apple" else gpu.backends[0] if gpu.backends[0] in ("cuda", "rocm") else "other"
        by_backend.setdefault(kind, gpu_id)
    assert set(by_backend) == {"cuda", "rocm", "apple", "other"}, by_backend
    keys += [PageKey("gpu", gpu=g) for g in by_backend.values()]
    wanted = {(kind, verdict) for kind in by_backend for verdict in ("fits", "offload")}
    wanted |= {("any", verdict) for verdict in ("tight", "no_fit")}
    for (m, g), pick in sorted(pairs.items()):
        gpu = catalog.gpus[g]
        kind = "apple" if gpu.vendor == "apple" else gpu.backends[0] if gpu.backends[0] in ("cuda", "rocm") else "other"
        for found in ((kind, pick.estimate.verdict), ("any", pick.estimate.verdict)):
            if found in wanted:
                wanted.discard(found)
                keys.append(PageKey("pair", model=m, gpu=g))
    keys.append(PageKey("pair", model=multi, gpu=by_backend["cuda"]))
    multi_finetune = next(m for m in reversed(models) if "×" in (site.finetune_gpu(m, "full") or ("", ""))[1])
    keys.append(PageKey("pair", model=multi_finetune, gpu=by_backend["rocm"]))
    return [Page(key, language) for key in dict.fromkeys(keys) for language in ("en", "de")]


@pytest.mark.slow
def test_real_pages_of_every_kind_match_stock_jinja(tmp_path, monkeypatch) -> None:
    """The fixture has 3 models and 2 AMD GPUs; this compares a sample of the real catalogue's pages."""
    import shutil
    shutil.copytree(ROOT / "locales", tmp_path / "locales")
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    options = BuildOptions(project=tmp_path, out_dir=tmp_path / "ours" / "site")
    estimates = ModelEstimates(load_catalog(ROOT / "catalog"))
    estimate_pages(estimates, jobs=2)
    site = SiteData(estimates.catalog, estimates=estimates)
    from generator.i18n import compile_locales
    compile_locales(tmp_path / "locales")
    pages = _sample(site)
    assert len(pages) >= 40
    ours = dict(RenderWorker(options, site).render(pages))
    monkeypatch.setattr(PageEnvironment, "code_generator_class", jinja2.compiler.CodeGenerator)
    stock_options = BuildOptions(project=tmp_path, out_dir=tmp_path / "stock" / "site")
    stock = dict(RenderWorker(stock_options, site).render(pages))
    for path in stock:
        assert ours[path] == stock[path], f"{path}: our code generator changed the page"
