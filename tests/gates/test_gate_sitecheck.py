"""The site gate passes a correct site and names each planted defect."""

from __future__ import annotations

import shutil
from pathlib import Path

from synthetic_site import BASE_URL, OTHER_PAIR, PAIR, PAIR_DE, edit

from tests.quality.sitecheck import check_site, main

PAIR_URL = BASE_URL + "en/models/llama-3-8b/rtx-4090/"
PAIR_DE_URL = BASE_URL + "de/models/llama-3-8b/rtx-4090/"


def problems_of(site: Path) -> list[str]:
    return check_site(site, BASE_URL)


def test_correct_site_passes(pristine_site: Path) -> None:
    assert problems_of(pristine_site) == []


def test_cli_exit_codes(site: Path, capsys) -> None:
    assert main([str(site)]) == 0
    edit(site, PAIR, 'href="../../../../en/gpus/rtx-4090/"', 'href="../../../../en/gpus/rtx-9999/"')
    assert main([str(site), "--base-url", BASE_URL]) == 1
    assert f"{PAIR}: broken link '../../../../en/gpus/rtx-9999/': no file en/gpus/rtx-9999/index.html" in (
        capsys.readouterr().out.splitlines()
    )


def test_broken_link(site: Path) -> None:
    edit(site, PAIR, 'href="../../../../en/gpus/rtx-4090/"', 'href="../../../../en/gpus/rtx-9999/"')
    assert problems_of(site) == [
        f"{PAIR}: broken link '../../../../en/gpus/rtx-9999/': no file en/gpus/rtx-9999/index.html"
    ]


def test_link_preview_image_must_exist(site: Path) -> None:
    edit(site, PAIR, "<title>", f'<meta property="og:image" content="{BASE_URL}og/en/models/llama-3-8b.png"><title>')
    assert problems_of(site) == [
        f"{PAIR}: broken link '{BASE_URL}og/en/models/llama-3-8b.png': no file og/en/models/llama-3-8b.png"
    ]
    (site / "og/en/models").mkdir(parents=True)
    (site / "og/en/models/llama-3-8b.png").write_bytes(b"\x89PNG")
    assert problems_of(site) == []


def test_missing_asset_breaks_every_page_that_loads_it(site: Path) -> None:
    (site / "assets/site.js").unlink()
    problems = problems_of(site)
    pages = sum(1 for _ in site.rglob("*.html")) - 3  # the root chooser and two 404 pages load no script
    assert len(problems) == pages
    assert all("broken link" in p and "no file assets/site.js" in p for p in problems)


def test_broken_fragment(site: Path) -> None:
    edit(site, PAIR, 'href="#verdict"', 'href="#verdikt"')
    assert problems_of(site) == [f"{PAIR}: broken link '#verdikt': no id 'verdikt' on {PAIR}"]


def test_fragment_to_an_id_after_quoted_attributes(site: Path) -> None:
    edit(site, PAIR, '<main id="main">', '<main id="main"><p class="a>b" title=\'see id="fake"\' id="late">')
    edit(site, PAIR, 'href="#verdict"', 'href="#late"')
    assert problems_of(site) == []
    edit(site, PAIR, 'href="#late"', 'href="#fake"')
    assert problems_of(site) == [f"{PAIR}: broken link '#fake': no id 'fake' on {PAIR}"]


def test_fragment_on_another_page(site: Path) -> None:
    edit(site, PAIR, 'href="#verdict"', 'href="../h100-sxm/#verdict"')
    assert problems_of(site) == []
    edit(site, PAIR, 'href="../h100-sxm/#verdict"', 'href="../h100-sxm/#models"')
    assert problems_of(site) == [f"{PAIR}: broken link '../h100-sxm/#models': no id 'models' on {OTHER_PAIR}"]


def test_folder_link_without_slash(site: Path) -> None:
    edit(site, PAIR, 'href="../../../../en/gpus/rtx-4090/"', 'href="../../../../en/gpus/rtx-4090"')
    assert problems_of(site) == [
        f"{PAIR}: link '../../../../en/gpus/rtx-4090' names a folder without its trailing slash "
        "(a redirect on most hosts)"
    ]


def test_link_above_the_root(site: Path) -> None:
    edit(site, PAIR, 'href="../../../../en/gpus/rtx-4090/"', 'href="../../../../../en/gpus/rtx-4090/"')
    assert problems_of(site) == [f"{PAIR}: link '../../../../../en/gpus/rtx-4090/' climbs above the site root"]


def test_missing_hreflang_partner_page(site: Path) -> None:
    (site / PAIR_DE).unlink()
    edit(site, "de/sitemap.xml", f"<url><loc>{PAIR_DE_URL}</loc>", "<url><loc>", count=1)
    problems = problems_of(site)
    assert f"{PAIR}: missing hreflang partner: de → {PAIR_DE_URL} has no page in the site" in problems
    # The German model and GPU pages link to the pair too: those links break as well.
    assert all(p.startswith(f"{PAIR}: missing hreflang") or "broken link" in p or "sitemap" in p for p in problems)


def test_missing_hreflang_alternate(site: Path) -> None:
    edit(site, PAIR, f'<link rel="alternate" hreflang="de" href="{PAIR_DE_URL}">', "")
    problems = problems_of(site)
    assert f"{PAIR}: missing hreflang partner: no alternate for de" in problems
    assert (
        f"{PAIR_DE}: non-reciprocal hreflang: en → {PAIR}, which has no alternate back to this page" in problems
    )


def test_missing_x_default(site: Path) -> None:
    edit(site, PAIR, f'<link rel="alternate" hreflang="x-default" href="{PAIR_URL}">', "")
    assert f"{PAIR}: missing hreflang partner: no alternate for x-default" in problems_of(site)


def test_non_reciprocal_hreflang(site: Path) -> None:
    other_de = BASE_URL + "de/models/llama-3-8b/h100-sxm/"
    edit(site, PAIR, f'hreflang="de" href="{PAIR_DE_URL}"', f'hreflang="de" href="{other_de}"')
    problems = problems_of(site)
    assert (
        f"{PAIR}: non-reciprocal hreflang: de → de/models/llama-3-8b/h100-sxm/index.html, "
        "which has no alternate back to this page"
    ) in problems
    assert f"{PAIR_DE}: non-reciprocal hreflang: en → {PAIR}, which has no alternate back to this page" in problems


def test_hreflang_to_a_page_in_another_language(site: Path) -> None:
    other = BASE_URL + "en/models/llama-3-8b/h100-sxm/"
    edit(site, PAIR, f'hreflang="de" href="{PAIR_DE_URL}"', f'hreflang="de" href="{other}"')
    problems = problems_of(site)
    assert f"{PAIR}: hreflang de → {OTHER_PAIR}, whose <html lang> is 'en'" in problems
    assert f"{PAIR}: non-reciprocal hreflang: de → {OTHER_PAIR}, which has no alternate back to this page" in problems


def test_missing_language_switch(site: Path) -> None:
    edit(site, PAIR, '<a href="../../../../de/models/llama-3-8b/rtx-4090/" hreflang="de" lang="de">DE</a>', "")
    assert problems_of(site) == [f"{PAIR}: no language-switch link to the de version ({PAIR_DE})"]


def test_canonical_differs_from_sitemap(site: Path) -> None:
    edit(site, PAIR, f'rel="canonical" href="{PAIR_URL}"', f'rel="canonical" href="{PAIR_URL}index.html"')
    assert problems_of(site) == [
        f"{PAIR}: canonical {PAIR_URL}index.html differs from the sitemap URL {PAIR_URL}"
    ]


def test_canonical_to_another_page(site: Path) -> None:
    other = BASE_URL + "en/models/llama-3-8b/h100-sxm/"
    edit(site, PAIR, f'rel="canonical" href="{PAIR_URL}"', f'rel="canonical" href="{other}"')
    problems = problems_of(site)
    assert f"{PAIR}: canonical '{other}' names {OTHER_PAIR}, not this page" in problems
    assert f"{PAIR}: canonical {other} differs from the sitemap URL {PAIR_URL}" in problems


def test_canonical_on_another_host(site: Path) -> None:
    edit(site, PAIR, f'rel="canonical" href="{PAIR_URL}"', 'rel="canonical" href="https://staging.example/x/"')
    assert f"{PAIR}: canonical 'https://staging.example/x/' is not an absolute URL under {BASE_URL}" in (
        problems_of(site)
    )


def test_page_missing_from_sitemap(site: Path) -> None:
    edit(site, "en/sitemap.xml", f"<loc>{PAIR_URL}</loc>", "<loc>" + BASE_URL + "en/nowhere/</loc>")
    problems = problems_of(site)
    assert f"{PAIR}: not listed in any sitemap" in problems
    assert f"en/sitemap.xml: lists {BASE_URL}en/nowhere/, which has no page in the site" in problems


def test_sitemap_alternates_differ(site: Path) -> None:
    edit(
        site,
        "en/sitemap.xml",
        f'<url><loc>{PAIR_URL}</loc><xhtml:link rel="alternate" hreflang="en" href="{PAIR_URL}"/>',
        f"<url><loc>{PAIR_URL}</loc>",
    )
    assert [p.split(" {")[0] for p in problems_of(site)] == [f"{PAIR}: hreflang alternates in en/sitemap.xml"]


def test_noindex_page_in_sitemap(site: Path) -> None:
    edit(site, PAIR, "<title>", '<meta name="robots" content="noindex"><title>')
    assert sorted(problems_of(site)) == [
        f"{PAIR_DE}: hreflang en → {PAIR_URL} is a noindex page",
        f"{PAIR_DE}: hreflang x-default → {PAIR_URL} is a noindex page",
        f"{PAIR}: noindex page listed in en/sitemap.xml",
    ]


def test_missing_sitemap_and_robots(site: Path) -> None:
    (site / "de/sitemap.xml").unlink()
    (site / "robots.txt").unlink()
    problems = problems_of(site)
    assert "de/sitemap.xml: sitemap missing" in problems
    assert "robots.txt: missing" in problems
    assert f"{PAIR_DE}: not listed in any sitemap" in problems


def test_robots_names_the_wrong_sitemap(site: Path) -> None:
    edit(site, "robots.txt", f"Sitemap: {BASE_URL}sitemap.xml", "Sitemap: https://other.example/sitemap.xml")
    assert problems_of(site) == [f"robots.txt: no 'Sitemap: {BASE_URL}sitemap.xml' line"]


def test_duplicate_title_and_description(site: Path) -> None:
    other = (site / OTHER_PAIR).read_text(encoding="utf-8")
    title = other.split("<title>")[1].split("</title>")[0]
    description = other.split('<meta name="description" content="')[1].split('"')[0]
    edit(site, PAIR, "<title>llama-3-8b on rtx-4090 (en) – VRAM Atlas</title>", f"<title>{title}</title>")
    edit(site, PAIR, "Can rtx-4090 run llama-3-8b? Memory, speed and price (en).", description)
    assert sorted(problems_of(site)) == [
        f"{OTHER_PAIR}: duplicate meta description {description!r}, also on {PAIR}",
        f"{OTHER_PAIR}: duplicate title {title!r}, also on {PAIR}",
    ]


def test_identical_pages(site: Path) -> None:
    shutil.copyfile(site / OTHER_PAIR, site / PAIR)
    problems = problems_of(site)
    assert f"{OTHER_PAIR}: near-duplicate <main> text, 100% alike {PAIR} (word 5-shingle Jaccard above 90%)" in (
        problems
    )
    assert any(p.startswith(f"{OTHER_PAIR}: duplicate title") for p in problems)
    assert f"{PAIR}: canonical '{BASE_URL}en/models/llama-3-8b/h100-sxm/' names {OTHER_PAIR}, not this page" in (
        problems
    )


def test_near_duplicate_main_text(site: Path) -> None:
    # Same <main> but for one number in the last paragraph: Jaccard far above 0.9, titles still unique.

    def main_of(rel: str) -> str:
        return (site / rel).read_text(encoding="utf-8").split('<main id="main">')[1].split("</main>")[0]

    source, target = main_of(OTHER_PAIR), main_of(PAIR)
    edit(site, PAIR, target, source.replace("h100-sxm</a>", "rtx-4090</a>"))
    problems = problems_of(site)
    assert len(problems) == 1
    assert problems[0].startswith(f"{OTHER_PAIR}: near-duplicate <main> text, ")
    assert problems[0].endswith(f"% alike {PAIR} (word 5-shingle Jaccard above 90%)")


def test_page_basics(site: Path) -> None:
    edit(site, PAIR, '<html lang="en">', "<html>")
    edit(site, PAIR, '<main id="main">', '<main id="main"></main><main>')
    edit(site, OTHER_PAIR, '<meta name="description" content="', '<meta name="keywords" content="')
    problems = problems_of(site)
    assert f"{PAIR}: <html> has no lang attribute" in problems
    assert f"{PAIR}: has 2 <main> elements, expected 1" in problems
    assert f"{OTHER_PAIR}: no <meta name=\"description\"> or an empty one" in problems


def test_invalid_json(site: Path) -> None:
    (site / "en/search.json").write_text('{"broken": ', encoding="utf-8")
    problems = problems_of(site)
    assert len(problems) == 1 and problems[0].startswith("en/search.json: not valid JSON")


def test_other_base_url(tmp_path: Path) -> None:
    from synthetic_site import build_site

    base = "https://example.github.io/vram-atlas/"
    site = build_site(tmp_path / "site", base_url=base)
    assert check_site(site, base) == []
    assert any("is not an absolute URL under https://vram-atlas.example/" in p for p in check_site(site))
