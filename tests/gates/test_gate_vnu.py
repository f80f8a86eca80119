"""The HTML gate: the Nu checker passes the synthetic site's pages and names a planted invalid element."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from synthetic_site import PAIR, edit

from tests.quality.vnu import one_page_of_each_kind, parse_report, validate_html

KINDS = ("index.html", "methodology/index.html", "models/llama-3-8b/index.html", "gpus/h100-sxm/index.html")
ONE_OF_EACH = ["index.html", "404.html"] + [
    f"{language}/{kind}" for language in ("de", "en") for kind in (*KINDS, "models/llama-3-8b/h100-sxm/index.html")
] + ["de/404.html"]


def test_one_page_of_each_kind(pristine_site: Path) -> None:
    found = [p.relative_to(pristine_site).as_posix() for p in one_page_of_each_kind(pristine_site)]
    assert sorted(found) == sorted(ONE_OF_EACH)


@pytest.mark.external
def test_pages_of_every_kind_are_valid(pristine_site: Path) -> None:
    files = one_page_of_each_kind(pristine_site) + [pristine_site / "assets/favicon.svg"]
    assert validate_html(files, pristine_site) == []


@pytest.mark.external
def test_invalid_element_and_stray_tag(site: Path) -> None:
    edit(site, PAIR, "<footer>", "<foo>bar</foo></div><footer>")
    problems = validate_html([site / "en/index.html", site / PAIR], site)
    assert len(problems) == 3
    assert all(p.startswith(f"{PAIR}:3:") for p in problems)  # the body is line 3 of the page
    assert any("“foo” element is a completely-unknown element" in p for p in problems)
    assert any("Stray end tag “div”" in p for p in problems)


@pytest.mark.external
def test_blocking_is_valid_on_an_expect_link_only(site: Path) -> None:
    """vnu 26.9 rejects blocking="render" on <link rel="expect">, which the HTML standard allows: the gate lets that
    through (tests.quality.vnu) and still fails the attribute on any other link."""
    edit(site, PAIR, "<title>", '<link rel="expect" href="#main" blocking="render"><title>')
    assert validate_html([site / PAIR], site) == []
    edit(site, PAIR, "<title>", '<link rel="preload" href="x.css" as="style" blocking="render"><title>')
    problems = validate_html([site / PAIR], site)
    assert len(problems) == 1 and "“blocking” attribute" in problems[0]


@pytest.mark.external
def test_missing_title(site: Path) -> None:
    edit(site, PAIR, f"<title>{(site / PAIR).read_text().split('<title>')[1].split('</title>')[0]}</title>", "")
    problems = validate_html([site / PAIR], site)
    assert len(problems) == 1
    assert problems[0].startswith(f"{PAIR}:2:")
    assert problems[0].endswith(": Element “head” is missing a required instance of child element “title”.")


def test_report_parsing_lets_through_only_blocking_on_an_expect_link() -> None:
    def message(element: str) -> dict:
        extract = f"</title>\n{element}\n<link"
        return {"type": "error", "url": "file:/s/a.html", "lastLine": 3, "firstColumn": 1, "extract": extract,
                "hiliteStart": 9, "hiliteLength": len(element), "message": "A “link” element with a “blocking” "
                "attribute must have a “rel” attribute whose value is “stylesheet”."}

    expect = message('<link rel="expect" href="#foot" blocking="render">')
    preload = message('<link rel="preload" href="x.css" as="style" blocking="render">')
    unexpected = message('<link rel="unexpected" href="#foot" blocking="render">')
    assert parse_report(json.dumps({"messages": [expect]}), Path("/s")) == []
    assert len(parse_report(json.dumps({"messages": [preload, unexpected]}), Path("/s"))) == 2


def test_report_parsing() -> None:
    report = {
        "messages": [
            {"type": "error", "url": "file:/s/en/a%20b.html", "lastLine": 3, "firstColumn": 7, "message": "Bad."},
            {"type": "info", "url": "file:/s/en/x.html", "message": "Ignored."},
            {"type": "non-document-error", "url": "file:/s/gone.html", "message": "Cannot read."},
        ]
    }
    assert parse_report(json.dumps(report), Path("/s")) == ["en/a b.html:3:7: Bad.", "gone.html: Cannot read."]
