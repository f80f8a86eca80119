"""Issue 27: a build deletes only what an earlier build recorded as its own, never builds into the project's own
folders, and refuses wrong options and unreadable inputs in one line (exit 1, or 2 for an option)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import build_project, edit, make_project, run_generator
from tests.site.hostile import all_output, built, clean_build, one_line, tree_digest

pytestmark = pytest.mark.builds  # each test runs one or more builds of the fixture project

DE_PO = "locales/de/LC_MESSAGES/messages.po"


@pytest.mark.parametrize("out", ["catalog", "templates", "locales", "catalog/models/site", ".", ".."])
def test_the_project_and_its_folders_are_never_an_output(tmp_path: Path, out: str) -> None:
    project = make_project(tmp_path)
    before = tree_digest(tmp_path)
    done = run_generator("build", "--project", ".", "--out", out, "--quiet", cwd=project)
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert "refusing to build a site into" in line and "choose another --out" in line, line
    assert tree_digest(tmp_path) == before  # nothing written or deleted, not even a lock


def test_a_folder_that_holds_the_home_folder_is_never_an_output(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    home = tmp_path / "users" / "me"
    (home / "notes").mkdir(parents=True)
    done = run_generator("build", "--project", project, "--out", tmp_path / "users", "--quiet", env={"HOME": str(home)})
    assert done.returncode == 2
    assert "is or holds your home folder" in one_line(done.stderr)
    assert (home / "notes").is_dir()


def test_out_dot_outside_the_project_builds_there(tmp_path: Path) -> None:
    """``--out .`` once failed on the empty name of ``Path('.')``; outside the project it is a fine folder."""
    project = make_project(tmp_path)
    out = tmp_path / "www"
    out.mkdir()
    done = run_generator("build", "--project", str(project), "--out", ".", "--quiet", cwd=out)
    assert done.returncode == 0, done.stderr
    assert (out / "en" / "index.html").is_file() and (tmp_path / ".cache" / "www.manifest.json").is_file()


def test_a_non_empty_folder_no_build_recorded_is_refused_until_clean(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    out = tmp_path / "www"
    (out / "blog").mkdir(parents=True)
    (out / "blog" / "post.html").write_text("mine")
    done = build_project(project, out)
    assert done.returncode == 1
    assert one_line(done.stderr).startswith(f"{out}: holds files that no build recorded as its own")
    assert [p.name for p in out.rglob("*")] == ["blog", "post.html"]
    clean = build_project(project, out, "--clean")
    assert clean.returncode == 0, clean.stderr
    assert tree_digest(out) == clean_build(project, tmp_path / "reference")


def test_force_and_incremental_builds_keep_files_no_build_wrote(tmp_path: Path) -> None:
    """``site/CNAME`` and ``site/.nojekyll`` (added for GitHub Pages) stay; pages of a removed model go."""
    project, site, before = built(tmp_path)
    (site / "CNAME").write_text("atlas.example.org\n")
    (site / ".nojekyll").write_text("")
    forced = build_project(project, site, "--force")
    assert forced.returncode == 0 and " 0 removed" in forced.stdout, forced.stdout
    (project / "catalog" / "models" / "gpt-oss-20b.yaml").unlink()
    incremental = build_project(project, site)
    assert incremental.returncode == 0, incremental.stderr
    assert (site / "CNAME").read_text() == "atlas.example.org\n" and (site / ".nojekyll").is_file()
    assert not (site / "en" / "models" / "gpt-oss-20b").exists()
    expected = clean_build(project, tmp_path / "reference")
    assert {p: d for p, d in tree_digest(site).items() if p not in ("CNAME", ".nojekyll")} == expected


@pytest.mark.parametrize("args, expected", [
    (["--base-url", "javascript:alert(1)//"], "--base-url: must be an https:// URL with a host, the address the site "
     "is served at (no query or fragment), got 'javascript:alert(1)//'"),
    (["--base-url", "ftp://atlas.example.org/"], None),
    (["--base-url", ""], None),
    (["--base-url", "https://atlas.example.org/?x=1"], None),
    (["--jobs", "-1"], "--jobs: must be between 1 and 64, got -1"),
    (["--jobs", "0"], "--jobs: must be between 1 and 64, got 0"),
    (["--jobs", "1000"], "--jobs: must be between 1 and 64, got 1000"),
    (["--prices-as-of", "0001-01-01"], "--prices-as-of: 0001-01-01 is before the catalogue's newest cloud price "
     "(2026-05-28): price ages would be negative"),
])
def test_a_wrong_option_is_one_line_and_the_site_stays(tmp_path: Path, args: list[str], expected: str | None) -> None:
    project, site, before = built(tmp_path)
    done = build_project(project, site, *args)
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert line == expected if expected else line.startswith("--base-url: must be an https:// URL"), line
    assert tree_digest(site) == before
    assert b"javascript:" not in all_output(site)


def test_prices_as_of_the_newest_price_date_is_accepted(tmp_path: Path) -> None:
    project, site, _ = built(tmp_path)
    assert build_project(project, site, "--prices-as-of", "2026-05-28").returncode == 0


@pytest.mark.parametrize("plant", ["link-to-dev-zero", "fifo", "folder"])
def test_a_planted_catalogue_entry_never_hangs_the_build(tmp_path: Path, plant: str) -> None:
    project, site, before = built(tmp_path)
    path = project / "catalog" / "models" / "planted.yaml"
    {"link-to-dev-zero": lambda: path.symlink_to("/dev/zero"), "fifo": lambda: os.mkfifo(path),
     "folder": path.mkdir}[plant]()
    done = build_project(project, site)
    assert done.returncode == 1
    assert one_line(done.stderr).startswith("catalog/models/planted.yaml: ")
    assert tree_digest(site) == before


def test_a_template_linked_to_a_file_outside_the_project_is_refused(tmp_path: Path) -> None:
    project, site, before = built(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the web")
    (project / "templates" / "assets" / "leak.css").symlink_to(secret)
    done = build_project(project, site, "--force")
    assert done.returncode == 1
    assert one_line(done.stderr) == ("templates/assets/leak.css: a link to a file outside the project: refusing to "
                                     "read it")
    assert tree_digest(site) == before and b"not for the web" not in all_output(site)


def test_a_po_file_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    project, site, before = built(tmp_path)
    with (project / DE_PO).open("ab") as handle:
        handle.write(b'\nmsgid "caf\xe9"\nmsgstr "Caf\xe9"\n')
    done = build_project(project, site)
    assert done.returncode == 1
    assert one_line(done.stderr).startswith(f"{DE_PO}: line ")
    assert done.stderr.strip().endswith(": not UTF-8 text: a .po file must be UTF-8")
    assert tree_digest(site) == before


def test_a_broken_po_line_is_a_warning_that_strict_fails_on(tmp_path: Path) -> None:
    """Babel once printed its own WARNING and the build counted 0 warnings, so --strict passed."""
    project, site, before = built(tmp_path)
    edit(project / DE_PO, 'msgid "Models"\nmsgstr "Modelle"', 'msgid "Models"\nmsgstr "Modelle"\ngarbage here')
    strict = build_project(project, site, "--strict")
    assert strict.returncode == 1
    assert one_line(strict.stderr).startswith("build: strict: locales/de: unreadable .po line skipped: line ")
    assert "WARNING" not in strict.stdout + strict.stderr
    assert tree_digest(site) == before
    lenient = build_project(project, site)
    assert lenient.returncode == 0 and "1 warnings" in lenient.stdout, lenient.stdout
    assert one_line(lenient.stderr).startswith("warning: locales/de: unreadable .po line skipped: line ")


@pytest.mark.parametrize("target", ["victim", "/dev/zero"])
def test_a_compiled_catalogue_linked_elsewhere_is_replaced_not_written_through(tmp_path: Path, target: str) -> None:
    project, site, before = built(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    mo = project / "locales" / "de" / "LC_MESSAGES" / "messages.mo"
    mo.unlink()
    mo.symlink_to(victim if target == "victim" else target)
    done = build_project(project, site, "--force")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert victim.read_text() == "keep me" and not mo.is_symlink() and mo.stat().st_size > 0
    assert tree_digest(site) == before
