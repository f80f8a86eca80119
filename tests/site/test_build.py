"""Building the fixture catalogue: every page exists, builds are deterministic, bad input changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from generator.build import CHUNK_PAGES
from tests.conftest import build_project, make_project
from tests.site.hostile import tree_digest

pytestmark = pytest.mark.builds  # each test runs one or more builds of the fixture project


def test_every_pair_model_and_gpu_has_a_page_in_both_languages(fixture_site: Path):
    project_catalog = Path(__file__).resolve().parents[1] / "fixtures" / "project" / "catalog"
    models = sorted(p.stem for p in (project_catalog / "models").glob("*.yaml"))
    gpus = sorted(p.stem for p in (project_catalog / "gpus").glob("*.yaml"))
    for language in ("en", "de"):
        assert (fixture_site / language / "index.html").is_file()
        assert (fixture_site / language / "methodology" / "index.html").is_file()
        for model in models:
            assert (fixture_site / language / "models" / model / "index.html").is_file()
            for gpu in gpus:
                assert (fixture_site / language / "models" / model / gpu / "index.html").is_file()
        for gpu in gpus:
            assert (fixture_site / language / "gpus" / gpu / "index.html").is_file()
    for extra in ("index.html", "404.html", "robots.txt", "sitemap.xml", "en/sitemap.xml", "de/sitemap.xml"):
        assert (fixture_site / extra).is_file()


def test_a_second_build_changes_no_byte(tmp_path: Path):
    project = make_project(tmp_path)
    site = tmp_path / "site"
    assert build_project(project, site).returncode == 0
    before = tree_digest(site)
    inodes = {p: p.stat().st_ino for p in site.rglob("*.html")}
    second = build_project(project, site, "--jobs", "1", "--force")  # every page rendered again, serially
    assert second.returncode == 0, second.stderr
    assert tree_digest(site) == before
    assert all(p.stat().st_ino == inode for p, inode in inodes.items())
    assert " 0 files written" in second.stdout and " 0 removed" in second.stdout
    third = build_project(project, site)  # nothing changed: nothing is even loaded
    # 34 HTML pages (6 comparisons), 12 JSON documents and 12 preview images; plus sitemaps, robots, root page,
    # assets (stylesheet, site script, rent-or-buy script, home page's finder.js, favicon), 10 open-data files (with
    # finder.json and its schema)
    assert third.stdout.startswith("58 pages: 0 files written, 78 unchanged, 0 removed"), third.stdout


def test_editing_one_gpu_price_rerenders_only_pages_that_show_it(tmp_path: Path):
    project = make_project(tmp_path)
    site = tmp_path / "site"
    assert build_project(project, site).returncode == 0
    before = tree_digest(site)
    gpu_file = project / "catalog" / "gpus" / "rx-7900-xtx.yaml"
    gpu_file.write_text(gpu_file.read_text().replace("price_usd: 999\n", "price_usd: 949\n"))
    result = build_project(project, site)
    assert result.returncode == 0, result.stderr
    changed = {path for path, h in tree_digest(site).items() if before.get(path) != h}
    assert changed, "the price must show somewhere"
    for path in changed:  # a page of another GPU changes only when it shows this GPU's price
        if "rx-7900-xtx" not in path and path.count("/") > 3:
            assert "949" in (site / path).read_text(), path
    assert len(changed) < len(before) / 2
    incremental = tree_digest(site)
    assert build_project(project, site, "--force").returncode == 0
    assert tree_digest(site) == incremental, "the incremental build left a page stale"


def test_price_reference_date_is_a_build_input(tmp_path: Path):
    """Ages count to --prices-as-of: a later date re-renders exactly the pages that show cloud prices, marks the
    2026-05-28 prices stale after 120 days, and the incremental result equals a forced build."""
    project = make_project(tmp_path)
    site = tmp_path / "site"
    assert build_project(project, site).returncode == 0
    before = tree_digest(site)
    result = build_project(project, site, "--prices-as-of", "2026-09-26")  # 121 days after 2026-05-28
    assert result.returncode == 0, result.stderr
    changed = {path for path, h in tree_digest(site).items() if before.get(path) != h}
    # The MI300X pages, and pair pages of GPUs that are not rented, whose rent-or-buy compares with an MI300X offer:
    # every page that shows a price's age marks it stale now
    shows_prices = {path for path in before if path.endswith(".html") and 'class="stale"' in (site / path).read_text()}
    assert {path for path in before if path.endswith(".html") and "mi300x" in path.split("/")} < shows_prices
    assert changed == shows_prices
    page = (site / "en" / "gpus" / "mi300x" / "index.html").read_text()
    assert "121 days old</small> <strong class=\"stale\">possibly stale</strong>" in page
    assert "Ages count to Sep 26, 2026" in page
    incremental = tree_digest(site)
    assert build_project(project, site, "--force", "--prices-as-of", "2026-09-26").returncode == 0
    assert tree_digest(site) == incremental, "the incremental build left a page stale"
    assert build_project(project, site, "--prices-as-of", "2026-09-26").stdout.startswith("58 pages: 0 files written")


def _break(project: Path, kind: str) -> str:
    """Plant one mistake; return the line the build must print."""
    gpu_file = sorted((project / "catalog" / "gpus").glob("*.yaml"))[0]
    shown = f"catalog/gpus/{gpu_file.name}"
    data = yaml.safe_load(gpu_file.read_text())
    if kind == "syntax":
        gpu_file.write_text(gpu_file.read_text() + "\nbroken: [unclosed\n")
        return f"{shown}: line "
    if kind == "missing":
        del data["bandwidth_gb_per_s"]
        message = f"{shown}: bandwidth_gb_per_s: is required"
    elif kind == "wrong_type":
        data["memory_bytes"] = "a lot"
        message = f"{shown}: memory_bytes: must be a valid integer, got the text 'a lot'"
    elif kind == "negative":
        data["memory_bytes"] = -1
        message = f"{shown}: memory_bytes: must be greater than 0"
    else:  # duplicate id: a second file claiming the same id
        twin = gpu_file.with_name("zz-twin.yaml")
        twin.write_text(gpu_file.read_text())
        return "catalog/gpus/zz-twin.yaml: id: "
    gpu_file.write_text(yaml.safe_dump(data, sort_keys=False))
    return message


@pytest.mark.parametrize("kind", ["syntax", "missing", "wrong_type", "negative", "duplicate_id"])
def test_bad_input_prints_one_line_and_leaves_the_site_untouched(tmp_path: Path, kind: str):
    project = make_project(tmp_path)
    site = tmp_path / "site"
    assert build_project(project, site).returncode == 0
    before = tree_digest(site)
    expected = _break(project, kind)
    result = build_project(project, site)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(expected), lines[0]
    assert "Traceback" not in result.stderr
    assert tree_digest(site) == before
    assert not (tmp_path / ".site.staging").exists()


def test_sitemaps_follow_the_page_list(tmp_path: Path):
    """An edit that keeps the page list keeps the sitemaps as they are; a new GPU adds its pages to them."""
    project = make_project(tmp_path)
    site = tmp_path / "site"
    assert build_project(project, site).returncode == 0
    sitemap = site / "en" / "sitemap.xml"
    gpu_file = project / "catalog" / "gpus" / "rx-7900-xtx.yaml"
    gpu_file.write_text(gpu_file.read_text().replace("price_usd: 999\n", "price_usd: 949\n"))
    inode = sitemap.stat().st_ino
    assert build_project(project, site).returncode == 0
    assert sitemap.stat().st_ino == inode
    twin = yaml.safe_load(gpu_file.read_text())
    twin.update(id="rx-7900-twin", name="AMD Radeon RX 7900 Twin", aliases=[])  # names must be unique
    gpu_file.with_name("rx-7900-twin.yaml").write_text(yaml.safe_dump(twin, sort_keys=False))
    assert build_project(project, site).returncode == 0
    assert "/gpus/rx-7900-twin/" in sitemap.read_text()
    assert build_project(project, site, "--force").returncode == 0
    assert "/gpus/rx-7900-twin/" in sitemap.read_text()


def test_a_pool_of_workers_builds_the_same_site_and_record_as_one_process(tmp_path: Path):
    """Beyond a chunk of pages the workers render in a pool: the same bytes, and the same reads recorded for the
    next build, as when this process renders every page."""
    from tests.site.hostile import add_gpu_twins
    from tests.site.hostile import tree_digest as digest_of
    project = make_project(tmp_path)
    add_gpu_twins(project, 8)
    for jobs in ("1", "2"):
        done = build_project(project, tmp_path / f"site-{jobs}", "--jobs", jobs)
        assert done.returncode == 0, done.stderr
        assert int(done.stdout.split()[0]) > CHUNK_PAGES, done.stdout
    assert digest_of(tmp_path / "site-1") == digest_of(tmp_path / "site-2")
    serial, parallel = (_subject_reads(tmp_path / ".cache" / f"site-{jobs}.manifest.json") for jobs in ("1", "2"))
    assert serial == parallel and serial


def _subject_reads(manifest_path: Path) -> dict[str, frozenset[str]]:
    """Each page subject's recorded reads with their tokens, as reads (numbering follows which process saw a read
    first)."""
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    items = [json.dumps(pair) for pair in manifest["reads"]]
    return {s: frozenset(items[int(n)] for n in numbers.split()) for s, numbers in manifest["subjects"].items()}
