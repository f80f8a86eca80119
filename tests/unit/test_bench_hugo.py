"""``make bench``'s Hugo anchor: the vendored generator writes the anchor's site, and a machine without Hugo gets
one line instead of the ratio."""

from __future__ import annotations

import hashlib
from pathlib import Path

from generator import bench, bench_hugo

# sha256sum of content/reports/model000-gpu00.md written by `python3 ../shared/bench/hugo_gen.py 1 DIR`
FIRST_PAGE_SHA256 = "1dc114c642e47f9b548d0cfc38e5d42161a533f16bde062f0290f6ba6bc244e5"


def test_the_site_has_the_layouts_and_one_report_page_per_count_named_by_model_and_gpu(tmp_path: Path) -> None:
    bench_hugo.write_site(205, tmp_path)
    pages = sorted(p.name for p in (tmp_path / "content" / "reports").iterdir())
    assert len(pages) == 205
    assert (pages[0], pages[99], pages[100], pages[-1]) == (
        "model000-gpu00.md", "model000-gpu99.md", "model001-gpu00.md", "model002-gpu04.md")
    assert {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.*") if "content" not in p.parts} == {
        "hugo.toml", "layouts/_default/baseof.html", "layouts/_default/single.html", "layouts/_default/list.html"}
    assert "{{ range $i := seq 250 }}" in (tmp_path / "layouts" / "_default" / "single.html").read_text()


def test_a_page_carries_the_anchor_front_matter_and_body() -> None:
    text = bench_hugo.page_files(102)["content/reports/model001-gpu01.md"]
    head, body = text.removeprefix("---\n").split("\n---\n")
    fields = dict(line.split(": ", 1) for line in head.splitlines())
    assert fields["title"] == '"Model 1 on GPU 1"' and fields["description"] == '"How fast model 1 runs on GPU 1"'
    assert 5 <= float(fields["tps"]) <= 500 and len(fields["tps"].split(".")[1]) == 2
    assert 8 <= int(fields["mem"]) <= 80
    assert body.count(bench_hugo.PARAGRAPH) == 2 and "- item **two**" in body


def test_the_pages_are_the_anchor_script_s_own() -> None:
    text = bench_hugo.page_files(1)["content/reports/model000-gpu00.md"]
    assert "tps: 71.51\nmem: 16\n" in text
    assert hashlib.sha256(text.encode()).hexdigest() == FIRST_PAGE_SHA256


def test_the_same_count_gives_the_same_files() -> None:
    assert bench_hugo.page_files(30) == bench_hugo.page_files(30)
    assert bench_hugo.page_files(30).items() >= bench_hugo.page_files(10).items()


def test_without_hugo_bench_says_so_in_one_line(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(bench_hugo.shutil, "which", lambda name: None)
    lines = bench.hugo_lines(bench_hugo.Timing(10.0, 12.0), 100, tmp_path / "hugo")
    assert lines == [f"hugo ratio:         skipped, hugo is not installed ({bench_hugo.INSTALL})"]
    assert not (tmp_path / "hugo").exists()


def test_the_ratio_divides_hugo_s_seconds_by_ours(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(bench_hugo.shutil, "which", lambda name: "/usr/bin/hugo")
    monkeypatch.setattr(bench_hugo, "build", lambda executable, root: bench_hugo.Timing(30.0, 50.0))
    lines = bench.hugo_lines(bench_hugo.Timing(10.0, 20.0), 100, tmp_path / "hugo")
    assert lines[0] == "HTML pages:         100 in 10.0 s, 20.0 CPU s (10 pages/s, 5 per CPU s)"
    assert lines[2] == "ours / Hugo:        3.00x pages/s, 2.50x per CPU second"
