"""Our code generator changes how templates run, never what they write: every fixture page renders to the same
bytes as with stock Jinja's code generator, and output escaping still escapes."""

from __future__ import annotations

import jinja2.compiler
import pytest
from markupsafe import Markup

from generator.build import BuildOptions, _init_worker, _render_chunk
from generator.catalog.load import load_catalog
from generator.pages.codegen import escape_output
from generator.pages.plan import plan_pages
from generator.pages.render import PageEnvironment
from generator.results import Results

from ..conftest import make_project


def _render_all(tmp_path, options_dir: str) -> dict[str, bytes]:
    project = make_project(tmp_path / options_dir)
    options = BuildOptions(project=project, out_dir=project / "site")
    results = Results(load_catalog(options.catalog_dir))
    _init_worker(options, results)
    return dict(_render_chunk(plan_pages(results.catalog)))


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
    from generator.pages.render import _filters
    from generator.pages.i18n import formatter
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
    from generator.pages.i18n import compile_locales, translations
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
