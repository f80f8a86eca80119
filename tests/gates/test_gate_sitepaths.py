"""Link resolution and the URL ↔ file mapping."""

from __future__ import annotations

import pytest

from tests.quality.sitepaths import Link, file_of, resolve, site_path_of, url_of

BASE = "https://vram-atlas.example/"
PAGE = "en/models/m/g/index.html"


@pytest.mark.parametrize(
    ("href", "target", "fragment"),
    [
        ("../../../../assets/site.css", "assets/site.css", ""),
        ("../", "en/models/m/index.html", ""),
        ("./", PAGE, ""),
        (".", PAGE, ""),
        ("..", "en/models/m/index.html", ""),
        ("#x", PAGE, "x"),
        ("?q=1", PAGE, ""),
        ("../h/#verdict", "en/models/m/h/index.html", "verdict"),
        ("/de/", "de/index.html", ""),
        ("a%20b.html", "en/models/m/g/a b.html", ""),
        ("./x/../y/", "en/models/m/g/y/index.html", ""),
        (BASE + "de/x/#f", "de/x/index.html", "f"),
        ("//vram-atlas.example/en/", "en/index.html", ""),
    ],
)
def test_resolves_internal_links(href: str, target: str, fragment: str) -> None:
    assert resolve(href, PAGE, BASE) == Link(href, target=target, fragment=fragment)


@pytest.mark.parametrize("href", ["https://huggingface.co/x", "mailto:a@b.c", "data:image/png;base64,AA", "tel:1"])
def test_skips_other_sites(href: str) -> None:
    assert resolve(href, PAGE, BASE) is None


@pytest.mark.parametrize(
    ("href", "base", "error"),
    [
        ("../../../../../x/", BASE, "climbs above the site root"),
        ("../../../../x/../../y", BASE, "climbs above the site root"),
        ("http://vram-atlas.example/en/", BASE, "uses http: but the site is served over https:"),
        ("/en/", "https://me.github.io/atlas/", "points outside the site (above /atlas/)"),
        ("  ", BASE, "empty link"),
    ],
)
def test_flags_bad_links(href: str, base: str, error: str) -> None:
    assert resolve(href, PAGE, base).error == error


def test_url_file_round_trip() -> None:
    for path in ("index.html", "en/index.html", PAGE, "404.html", "de/404.html"):
        assert file_of(site_path_of(url_of(path, BASE), BASE)) == path
    assert url_of(PAGE, BASE) == BASE + "en/models/m/g/"
    assert site_path_of("https://elsewhere.example/en/", BASE) is None
