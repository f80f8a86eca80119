"""The writer stages a site, refuses duplicate paths, keeps unchanged files and swaps atomically."""

import pytest

from generator.pages.write import DuplicatePathError, SiteWriter


def test_refuses_to_write_one_path_twice(tmp_path):
    writer = SiteWriter(tmp_path / "site")
    writer.write("en/index.html", b"a")
    with pytest.raises(DuplicatePathError):
        writer.write("en/index.html", b"b")
    writer.abort()


def test_nothing_changes_until_commit_and_abort_keeps_the_old_site(tmp_path):
    site = tmp_path / "site"
    first = SiteWriter(site)
    first.write("en/index.html", b"old")
    first.commit(set(), tmp_path / "journal.json")
    second = SiteWriter(site)
    second.write("en/index.html", b"new")
    assert (site / "en/index.html").read_bytes() == b"old"
    second.abort()
    assert (site / "en/index.html").read_bytes() == b"old"
    assert not second.staging.exists()


def test_unchanged_files_keep_their_inode_and_removed_files_are_counted(tmp_path):
    site = tmp_path / "site"
    first = SiteWriter(site)
    first.write("a.html", b"same")
    first.write("gone.html", b"x")
    first.commit(set(), tmp_path / "journal.json")
    (site / "CNAME").write_text("atlas.example.org")  # not the writer's: it stays
    inode = (site / "a.html").stat().st_ino
    second = SiteWriter(site)
    second.write("a.html", b"same")
    second.write("b.html", b"new")
    report = second.commit({"a.html", "gone.html"}, tmp_path / "journal.json")
    assert (site / "a.html").stat().st_ino == inode
    assert (report.written, report.unchanged, report.removed) == (1, 1, 1)
    assert not (site / "gone.html").exists()
    assert (site / "CNAME").read_text() == "atlas.example.org"
    assert not (tmp_path / "journal.json").exists()


def test_clean_leaves_the_new_site_only(tmp_path):
    site = tmp_path / "site"
    (site / "old").mkdir(parents=True)
    (site / "old" / "page.html").write_text("stale")
    writer = SiteWriter(site)
    writer.write("a.html", b"new")
    report = writer.commit(set(), tmp_path / "journal.json", clean=True)
    assert sorted(p.name for p in site.rglob("*")) == ["a.html"]
    assert report.removed == 1


def test_paths_outside_the_site_are_refused(tmp_path):
    writer = SiteWriter(tmp_path / "site")
    with pytest.raises(DuplicatePathError):
        writer.write("../escape.html", b"x")
    writer.abort()
