"""Social preview images of the fixture site: one 1200×630 PNG per model, GPU and the index in each language,
referenced by every page's Open Graph tags, drawing the numbers its page states, with the same bytes however
the build ran."""

from __future__ import annotations

import html
import re
import shutil
import struct
from pathlib import Path

import pytest
from PIL import Image

from generator.build import BuildOptions, make_renderer
from generator.catalog.load import load_catalog
from generator.i18n import compile_locales
from generator.pages import social
from generator.sitedata import SiteData
from generator.views import registry
from generator.views.plan import PageKey
from tests.conftest import build_project, make_project
from tests.site.test_build import tree_digest

BASE_URL = "https://vram-atlas.example/"  # the build's default
MODELS = ("deepseek-v3", "gpt-oss-20b", "llama-3.1-8b")
GPUS = ("mi300x", "rx-7900-xtx")
IMAGES = [f"og/{language}/{path}" for language in ("en", "de")
          for path in ("index.png", *(f"models/{m}.png" for m in MODELS), *(f"gpus/{g}.png" for g in GPUS))]


def _meta(page: Path) -> dict[str, str]:
    text = page.read_text(encoding="utf-8")
    return {name: html.unescape(value)
            for name, value in re.findall(r'<meta (?:property|name)="((?:og:image|twitter:card)[^"]*)" content="([^"]*)">', text)}


def _chunks(data: bytes) -> list[bytes]:
    """The PNG's chunk types, in order."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    types, at = [], 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        types.append(kind)
        at += 12 + length
    return types


@pytest.mark.parametrize("path", IMAGES)
def test_every_subject_has_a_1200_by_630_png_without_metadata(fixture_site: Path, path: str):
    data = (fixture_site / path).read_bytes()
    assert _chunks(data) == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]  # no time, text or other metadata chunk
    with Image.open(fixture_site / path) as image:
        assert image.size == (1200, 630) and image.format == "PNG"


def test_the_site_has_no_image_without_a_subject(fixture_site: Path):
    assert sorted(str(p.relative_to(fixture_site)) for p in (fixture_site / "og").rglob("*") if p.is_file()) == sorted(IMAGES)


@pytest.mark.parametrize("page, image", [
    ("en/index.html", "og/en/index.png"),
    ("de/index.html", "og/de/index.png"),
    ("en/models/gpt-oss-20b/index.html", "og/en/models/gpt-oss-20b.png"),
    ("de/gpus/mi300x/index.html", "og/de/gpus/mi300x.png"),
    ("de/models/llama-3.1-8b/mi300x/index.html", "og/de/models/llama-3.1-8b.png"),  # a pair shows its model's
    ("en/compare/deepseek-v3/index.html", "og/en/models/deepseek-v3.png"),
    ("en/methodology/index.html", "og/en/index.png"),
])
def test_pages_point_their_open_graph_tags_at_an_existing_image(fixture_site: Path, page: str, image: str):
    meta = _meta(fixture_site / page)
    assert meta["og:image"] == BASE_URL + image and (fixture_site / image).is_file()
    assert (meta["og:image:width"], meta["og:image:height"]) == ("1200", "630")
    assert meta["og:image:alt"].strip() and meta["twitter:card"] == "summary_large_image"


def test_an_image_of_its_own_subject_is_described_by_what_it_draws(fixture_site: Path):
    assert _meta(fixture_site / "de/gpus/rx-7900-xtx/index.html")["og:image:alt"] == (
        "AMD Radeon RX 7900 XTX (GDDR6); Speicher: 24\u00a0GiB; Bandbreite: 960\u00a0GB/s; "
        "LLMs, die bei 8K-Kontext passen: 2 von 3")


def test_every_page_names_an_image_that_exists(fixture_site: Path):
    pages = [p for p in fixture_site.rglob("*.html") if p.parent != fixture_site or p.name == "404.html"]
    assert len(pages) == 34  # the root page only redirects
    for page in pages:
        url = _meta(page)["og:image"]
        assert url.startswith(BASE_URL) and (fixture_site / url[len(BASE_URL):]).is_file(), page


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The fixture project's site data and renderer, as a build makes them."""
    project = make_project(tmp_path_factory.mktemp("social"))
    options = BuildOptions(project=project, out_dir=project / "site")
    compile_locales(options.locales_dir)
    return SiteData(load_catalog(options.catalog_dir)), make_renderer(options)


def _text(page: Path) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8"))).replace("\u00a0", " ").split())


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("key", [PageKey("model", model=m) for m in MODELS] + [PageKey("gpu", gpu=g) for g in GPUS]
                         + [PageKey("index")])
def test_an_image_draws_numbers_its_page_states(fixture_site: Path, rendered, key: PageKey, language: str):
    """Every figure the image draws is written on the page (its description or key figures), in its language."""
    site, renderer = rendered
    lang = renderer.lang(language)
    title, _, figures = social._card(key.kind, registry.VIEWS[key.kind](site, key, lang), lang)
    page = _text(fixture_site / key.url_path(language) / "index.html")
    assert title in page
    for value, label in figures:
        shown = value.replace("\u00a0", " ")
        # "2 of 3": the German descriptions say "2 von 3" or "2 der 3" by the sentence around it
        assert shown in page or shown.replace(" von ", " der ") in page, (value, label)


def test_the_image_follows_the_view_not_the_page_before(rendered):
    """An image rendered from its view alone (no page just before) has the bytes the build's order gives."""
    site, renderer = rendered
    key = PageKey("gpu", gpu="mi300x")
    lang = renderer.lang("de")
    first = social.image_bytes(key, registry.VIEWS["gpu"](site, key, lang), lang)
    assert social.image_bytes(key, registry.VIEWS["gpu"](site, key, lang), lang) == first
    other = PageKey("gpu", gpu="rx-7900-xtx")
    assert social.image_bytes(other, registry.VIEWS["gpu"](site, other, lang), lang) != first


def test_a_long_name_is_fitted_inside_the_image():
    text, font = social._fitted("A" * 200, social.BOLD, 72, 1000, 40)
    assert text.endswith("…") and font.size == 40 and font.getlength(text) <= 1000
    text, font = social._fitted("RTX 4090", social.BOLD, 72, 1000, 40)
    assert text == "RTX 4090" and font.size == 72
    assert social._wrapped("GPUs it fits on at Q4_K_M", social.REGULAR, 26, 1000) == ["GPUs it fits on at Q4_K_M"]
    first, second = social._wrapped("LLMs, die bei 8K-Kontext passen", social.REGULAR, 26, 320)
    assert f"{first} {second}" == "LLMs, die bei 8K-Kontext passen"
    assert social._font(social.REGULAR, 26).getlength(first) <= 320
    assert social._wrapped("word " * 60, social.REGULAR, 26, 320)[1].endswith("…")


@pytest.mark.slow
def test_images_have_the_same_bytes_in_every_kind_of_build(tmp_path: Path):
    """Two fresh builds, an incremental build after a lost image and page, and a forced build: same images."""
    project = make_project(tmp_path)
    first, second = tmp_path / "first", tmp_path / "second"
    assert build_project(project, first).returncode == 0
    assert build_project(project, second, "--jobs", "1").returncode == 0
    assert tree_digest(first / "og") == tree_digest(second / "og")
    before = tree_digest(first)
    (first / "og" / "de" / "gpus" / "mi300x.png").unlink()  # rendered alone: its page is current
    (first / "en" / "models" / "gpt-oss-20b" / "index.html").unlink()  # the page alone: its image is current
    result = build_project(project, first)
    assert result.returncode == 0, result.stderr
    assert tree_digest(first) == before
    result = build_project(project, first, "--force")
    assert result.returncode == 0, result.stderr
    assert tree_digest(first) == before


@pytest.mark.external
def test_the_site_gates_check_the_preview_images(fixture_site: Path, tmp_path: Path):
    """The fixture site passes the link gate and the HTML validator with its Open Graph tags; a lost image is a
    broken link on every page that shows it."""
    from tests.quality import check_site, validate_html
    from tests.quality.vnu import one_page_of_each_kind
    assert check_site(fixture_site, jobs=1) == []
    assert validate_html(one_page_of_each_kind(fixture_site), fixture_site) == []
    site = tmp_path / "site"
    shutil.copytree(fixture_site, site)
    (site / "og" / "de" / "gpus" / "mi300x.png").unlink()
    problems = check_site(site, jobs=1)
    assert sorted(p.split(":")[0] for p in problems) == ["de/gpus/mi300x/index.html"], problems
