"""Comparison pages: a model on its recommended GPUs side by side, with the numbers of each pair's document."""

from __future__ import annotations

import json
import re
from pathlib import Path

from generator.i18n import formatter
from tests.site.test_opendata import MODELS, _nbsp, _plain


def _columns(page: Path) -> tuple[list[str], dict[str, list[str]]]:
    """The compared GPUs' pair-page links and each row's cells, by row label."""
    text = page.read_text(encoding="utf-8")
    head = text[text.index("<thead>"):text.index("</thead>")]
    links = re.findall(r'<th scope="col"><a href="([^"]+)">', head)
    body = text[text.index("<tbody>"):text.index("</tbody>")]
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        cells = [_plain(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
        rows[cells[0]] = cells[1:]
    return links, rows


def test_every_model_has_a_comparison_linked_from_its_pages_and_listed_in_the_sitemap(fixture_site: Path):
    for language in ("en", "de"):
        sitemap = (fixture_site / language / "sitemap.xml").read_text(encoding="utf-8")
        for model in MODELS:
            path = f"{language}/compare/{model}/"
            assert (fixture_site / path / "index.html").is_file()
            assert f"/{path}</loc>" in sitemap
            for page in (f"{language}/models/{model}/index.html", f"{language}/models/{model}/mi300x/index.html"):
                assert 'compare/' + model + '/"' in (fixture_site / page).read_text(encoding="utf-8"), page


def test_a_comparison_shows_each_pairs_numbers(fixture_site: Path):
    for language in ("en", "de"):
        fmt = formatter(language)
        for model in MODELS:
            links, rows = _columns(fixture_site / language / "compare" / model / "index.html")
            assert 2 <= len(links) <= 4 and len(set(links)) == len(links)
            memory = rows[{"en": "Memory needed", "de": "Speicherbedarf"}[language]]
            decode = rows[{"en": "Decode speed", "de": "Decode-Geschwindigkeit"}[language]]
            for column, link in enumerate(links):
                gpu = link.rstrip("/").split("/")[-1]
                doc = json.loads((fixture_site / "api/v1/models" / model / f"{gpu}.json").read_text(encoding="utf-8"))
                e = doc["estimate"]
                assert memory[column] == _nbsp(fmt.gib(e["total_bytes"]))
                expected = "—" if e["decode_tokens_per_s"] is None else _nbsp(fmt.sig(e["decode_tokens_per_s"]))
                assert decode[column].split(" ")[0] == expected.split(" ")[0]


def test_gpu_pages_link_the_comparisons_that_include_them(fixture_site: Path):
    for model in MODELS:
        links, _ = _columns(fixture_site / "en" / "compare" / model / "index.html")
        for link in links:
            gpu = link.rstrip("/").split("/")[-1]
            page = (fixture_site / "en" / "gpus" / gpu / "index.html").read_text(encoding="utf-8")
            assert f'href="../../../en/compare/{model}/"' in page, (model, gpu)
