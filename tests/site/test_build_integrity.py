"""Builds that are interrupted, run twice at once, or meet stale or damaged caches (issue 16): the site left
behind is always a whole site, the previous one or the new one, and never one the build wrongly believes current."""

from __future__ import annotations

import fcntl
import os
import pickle
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, build_project, edit, make_project
from tests.site.hostile import add_gpu_twins, built, clean_build, one_line, read_manifest, tree_digest

pytestmark = pytest.mark.builds  # each test runs one or more builds of the fixture project

GPU = "catalog/gpus/rx-7900-xtx.yaml"
DE_PO = "locales/de/LC_MESSAGES/messages.po"


def _raise_price(project: Path) -> None:
    edit(project / GPU, "price_usd: 999\n", "price_usd: 949\n")


def _generator(project: Path, site: Path, *extra: str, prelude: str = "") -> subprocess.Popen[str]:
    """A build in a child process, with ``prelude`` run first (to plant a fault). Ctrl-C is handled as in a terminal
    even when the tests run as a background job (which starts with SIGINT ignored, and so would its children)."""
    code = (f"import signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n{prelude}\n"
            f"from generator.__main__ import main\n"
            f"sys.exit(main(['build', '--project', {str(project)!r}, '--out', {str(site)!r}, '--quiet', *{extra!r}]))")
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, start_new_session=True)


def test_ctrl_c_during_the_commit_waits_for_it(tmp_path: Path) -> None:
    """SIGINT in the middle of moving files in: the commit finishes, then the build stops (status 130)."""
    project, site, _ = built(tmp_path)
    _raise_price(project)
    prelude = ("import os, signal, generator.pages.write as w\nreal = w._apply\n"
               "def interrupted(*args):\n    os.kill(os.getpid(), signal.SIGINT)\n    return real(*args)\n"
               "w._apply = interrupted")
    done = _generator(project, site, prelude=prelude)
    _, stderr = done.communicate(timeout=300)
    assert done.returncode == 130 and "Traceback" not in stderr, stderr
    assert tree_digest(site) == clean_build(project, tmp_path / "clean")
    again = build_project(project, site)
    assert again.returncode == 0 and " 0 files written" in again.stdout, again.stdout


def test_a_build_killed_during_the_commit_is_completed_by_the_next(tmp_path: Path) -> None:
    """A process killed after moving half the files: the journal lets the next build finish the change."""
    project, site, before = built(tmp_path)
    _raise_price(project)
    prelude = ("import os, generator.pages.write as w\nreal = w._apply\n"
               "def killed(out, staging, staged, removed):\n    real(out, staging, staged[:len(staged) // 2], [])\n"
               "    os._exit(137)\n"
               "w._apply = killed")
    done = _generator(project, site, prelude=prelude)
    done.communicate(timeout=300)
    assert done.returncode == 137
    assert (tmp_path / ".cache" / "site.journal.json").is_file()
    assert tree_digest(site) != before  # half applied: what a kill -9 leaves
    again = build_project(project, site)
    assert again.returncode == 0, again.stderr
    assert tree_digest(site) == clean_build(project, tmp_path / "clean")
    assert not (tmp_path / ".cache" / "site.journal.json").exists()
    assert not (tmp_path / ".site.staging").exists()


def _wait_for(condition, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@pytest.mark.parametrize("stop", ["sigterm", "ctrl-c"])
def test_a_stop_while_workers_render_leaves_the_old_site_and_no_staging(tmp_path: Path, stop: str) -> None:
    """SIGTERM to the build, or SIGINT to its whole process group as a terminal's Ctrl-C: no worker traceback."""
    project, site, _ = built(tmp_path)
    add_gpu_twins(project, 12)  # ~120 pages: rendered by a pool of workers
    assert build_project(project, site).returncode == 0
    before = tree_digest(site)
    edit(project / "catalog" / "models" / "llama-3.1-8b.yaml", "name: Llama 3.1 8B Instruct",
         "name: Llama 3.1 8B Instruct (renamed)")  # every page changes
    staging = tmp_path / ".site.staging"
    build = _generator(project, site, "--jobs", "2")
    _wait_for(lambda: staging.is_dir() and any(staging.rglob("*.html")) or build.poll() is not None)
    if stop == "sigterm":
        build.send_signal(signal.SIGTERM)
    else:
        os.killpg(build.pid, signal.SIGINT)
    _, stderr = build.communicate(timeout=300)
    assert build.returncode == (128 + signal.SIGTERM if stop == "sigterm" else 130), stderr
    assert stderr == ""
    assert tree_digest(site) == before
    time.sleep(0.5)  # a worker that outlived the build would write here now
    assert not staging.exists()


def test_a_second_build_meanwhile_is_refused_in_one_line(tmp_path: Path) -> None:
    project, site, _ = built(tmp_path)
    _raise_price(project)
    slow = "import time, generator.build as b\nreal = b._build\nb._build = lambda options: (time.sleep(4), real(options))[1]"
    first = _generator(project, site, prelude=slow)  # holds the lock 4 s longer than it needs
    lock = tmp_path / ".cache" / "site.lock"

    def held() -> bool:
        with lock.open("a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
            return first.poll() is not None

    _wait_for(held)
    assert first.poll() is None, "the first build ended before the second started"
    second = build_project(project, site)
    assert second.returncode == 1
    assert one_line(second.stderr) == f"{site}: another build is writing this folder: run again when it has finished"
    _, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    assert tree_digest(site) == clean_build(project, tmp_path / "clean")


def test_base_url_is_part_of_the_build_digest(tmp_path: Path) -> None:
    project, site, _ = built(tmp_path)
    other = "https://atlas.example.org/"
    done = build_project(project, site, "--base-url", other)
    assert done.returncode == 0, done.stderr
    assert tree_digest(site) == clean_build(project, tmp_path / "clean", "--base-url", other)
    assert other.encode() in (site / "en" / "index.html").read_bytes()


def test_strict_fails_while_the_site_has_a_warning(tmp_path: Path) -> None:
    """The warning was printed by an earlier build; an unchanged site still has it, so --strict still fails."""
    project, site, _ = built(tmp_path)
    edit(project / DE_PO, 'msgid "Models"\nmsgstr "Modelle"', 'msgid "Models"\nmsgstr ""')
    lenient = build_project(project, site)
    assert lenient.returncode == 0 and "untranslated message: 'Models'" in lenient.stderr
    assert read_manifest(site)["warnings"] == ["locales/de: untranslated message: 'Models'"]
    before = tree_digest(site)
    strict = build_project(project, site, "--strict")
    assert strict.returncode == 1
    assert one_line(strict.stderr) == "build: strict: locales/de: untranslated message: 'Models'"
    assert tree_digest(site) == before


def test_mo_files_follow_the_po_content_not_its_clock(tmp_path: Path) -> None:
    project, site, _ = built(tmp_path)
    po = project / DE_PO
    edit(po, 'msgid "Models"\nmsgstr "Modelle"', 'msgid "Models"\nmsgstr "Sprachmodelle"')
    mo = po.with_suffix(".mo")
    os.utime(po, (mo.stat().st_mtime - 3600,) * 2)  # the .po now looks older than its .mo
    done = build_project(project, site, "--force")
    assert done.returncode == 0, done.stderr
    assert ">Sprachmodelle<" in (site / "de" / "index.html").read_text(encoding="utf-8")


def test_damaged_compiled_templates_are_discarded_with_a_notice(tmp_path: Path) -> None:
    project, site, before = built(tmp_path)
    compiled = [p for p in (tmp_path / ".cache" / "jinja").rglob("*") if p.is_file()]
    assert compiled
    for i, path in enumerate(compiled):  # garbage, a pickle (Jinja's own header format) and truncated files
        path.write_bytes([b"garbage", pickle.dumps(["not", "code"]), path.read_bytes()[:40]][i % 3])
    done = build_project(project, site, "--force")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert lines and all(line.startswith("notice: ") and "corrupt cache files discarded" in line for line in lines)
    assert tree_digest(site) == before
    again = build_project(project, site, "--force")
    assert again.stderr == "", again.stderr


def test_compiled_code_of_the_wrong_type_is_discarded(tmp_path: Path) -> None:
    import hashlib
    import marshal

    from generator.pages.render import CheckedBytecodeCache

    project, site, before = built(tmp_path)
    for path in (tmp_path / ".cache" / "jinja").rglob("*"):
        if path.is_file():
            header = path.read_bytes().split(b"\n")[1].split(b" ")[0]
            code = marshal.dumps({"not": "code"})
            path.write_bytes(CheckedBytecodeCache.MAGIC + header + b" " + hashlib.sha256(code).hexdigest().encode()
                             + b"\n" + code)
    done = build_project(project, site, "--force")
    assert done.returncode == 0, done.stderr
    assert one_line(done.stderr).endswith("corrupt cache files discarded: not compiled code")
    assert tree_digest(site) == before


class _Plant:
    """A pickle that would run a command when loaded by plain ``pickle.load``."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("cache", ["estimates", "catalog"])
@pytest.mark.parametrize("content", ["wrong-type", "code", "garbage"])
def test_an_ill_typed_or_hostile_cache_pickle_is_discarded(tmp_path: Path, cache: str, content: str) -> None:
    project, site, before = built(tmp_path)
    path = tmp_path / ".cache" / f"site.{cache}.pickle"
    marker = tmp_path / "ran"
    path.write_bytes({"wrong-type": pickle.dumps("a string"), "code": pickle.dumps(_Plant(marker)),
                      "garbage": b"\x80\x05garbage"}[content])
    done = build_project(project, site, "--force")
    assert done.returncode == 0, done.stderr
    reason = "unexpected content" if content == "wrong-type" else "unreadable (UnpicklingError)"
    assert one_line(done.stderr) == f"notice: {path}: corrupt cache file discarded: {reason}"
    assert not marker.exists()
    assert tree_digest(site) == before


def _chattr(flag: str, path: Path) -> bool:
    """``chattr -R flag path``; False where the file system or the user cannot set the flag."""
    return shutil.which("chattr") is not None and subprocess.run(["chattr", "-R", flag, str(path)],
                                                                 capture_output=True).returncode == 0


def test_an_immutable_site_is_one_line_and_left_alone(tmp_path: Path) -> None:
    project, site, before = built(tmp_path)
    _raise_price(project)
    if not _chattr("+i", site):
        pytest.skip("chattr +i is not available here")
    try:
        done = build_project(project, site)
    finally:
        _chattr("-i", site)
    assert done.returncode == 1
    assert one_line(done.stderr) == (f"{site}/en/gpus/rx-7900-xtx: cannot write: cannot write to this folder "
                                     "(read-only or immutable)")
    assert tree_digest(site) == before
    assert not (tmp_path / ".site.staging").exists()
    assert build_project(project, site).returncode == 0  # nothing half done: the next build simply works
    assert tree_digest(site) == clean_build(project, tmp_path / "clean")


# Every point between two steps of a commit (generator/pages/write.py ``_step``), with the occurrence to stop at.
COMMIT_STEPS = [("journal saved", 1), ("a file moved", 1), ("files moved", 1),
                ("a file removed", 1), ("files removed", 1), ("manifest saved", 1), ("journal removed", 1)]
FIRST_BUILD_STEPS = [("journal saved", 1), ("files moved", 1), ("manifest saved", 1)]


def _killed_at(step: str, occurrence: int) -> str:
    """A prelude that ends the build process like kill -9 at the ``occurrence``-th time it reaches ``step``."""
    return ("import os, generator.pages.write as w\nseen = []\n"
            "def step(name):\n"
            f"    seen.append(name)\n    if seen.count({step!r}) == {occurrence} and name == {step!r}:\n"
            "        os._exit(137)\n"
            "w._step = step")


def _without(digest: dict[str, str], *names: str) -> dict[str, str]:
    return {path: sha for path, sha in digest.items() if path not in names}


@pytest.fixture(scope="module")
def commit_case(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A built fixture project (with a CNAME the build must keep) and the digest of a clean build after the change
    the fault-injection test commits: a price edit (files staged) and a model removed (files deleted)."""
    base = tmp_path_factory.mktemp("commit-case")
    project, site, _ = built(base)
    (site / "CNAME").write_text("atlas.example.org\n")
    changed = tmp_path_factory.mktemp("commit-case-changed")
    shutil.copytree(project, changed / "project")
    _change(changed / "project")
    return base, clean_build(changed / "project", changed / "clean")


def _change(project: Path) -> None:
    _raise_price(project)
    (project / "catalog" / "models" / "gpt-oss-20b.yaml").unlink()


@pytest.mark.parametrize("step, occurrence", COMMIT_STEPS, ids=[f"{s} #{n}" for s, n in COMMIT_STEPS])
def test_a_build_killed_at_any_step_of_its_commit_is_completed_by_the_next(
        tmp_path: Path, commit_case: tuple[Path, dict[str, str]], step: str, occurrence: int) -> None:
    """Issue 27: the next build completes the change whatever the kill left (journal, staged files, next manifest
    or not), the site then equals a clean build byte for byte, and the file no build wrote stays."""
    base, expected = commit_case
    shutil.copytree(base, tmp_path / "case")
    project, site = tmp_path / "case" / "project", tmp_path / "case" / "site"
    _change(project)
    killed = _generator(project, site, prelude=_killed_at(step, occurrence))
    _, stderr = killed.communicate(timeout=300)
    assert killed.returncode == 137, stderr  # the build reached this step
    again = build_project(project, site)
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr
    assert _without(tree_digest(site), "CNAME") == expected
    assert (site / "CNAME").read_text() == "atlas.example.org\n"
    assert not (site.parent / ".cache" / "site.journal.json").exists()
    assert not (site.parent / ".site.staging").exists()
    last = build_project(project, site)
    assert last.returncode == 0 and " 0 files written" in last.stdout and last.stderr == "", last.stdout + last.stderr


@pytest.mark.parametrize("step, occurrence", FIRST_BUILD_STEPS, ids=[s for s, _ in FIRST_BUILD_STEPS])
def test_a_first_build_killed_at_any_step_of_its_commit_is_completed_by_the_next(
        tmp_path: Path, step: str, occurrence: int) -> None:
    project = make_project(tmp_path)
    site = tmp_path / "site"
    killed = _generator(project, site, prelude=_killed_at(step, occurrence))
    _, stderr = killed.communicate(timeout=300)
    assert killed.returncode == 137, stderr
    again = build_project(project, site)
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr
    assert tree_digest(site) == clean_build(project, tmp_path / "clean")
    assert not (tmp_path / ".cache" / "site.journal.json").exists()


def test_a_journal_without_its_next_manifest_is_completed(tmp_path: Path) -> None:
    """Issue 27's reproduction: a journal left after the next manifest moved in once stopped every later build."""
    project, site, before = built(tmp_path)
    journal = tmp_path / ".cache" / "site.journal.json"
    journal.write_text('{"staged": ["en/index.html"], "removed": []}')
    first = build_project(project, site)
    assert first.returncode == 0, first.stderr
    assert one_line(first.stderr) == f"notice: {journal}: the interrupted build's record was incomplete: every page " \
                                     "is rendered again"
    assert tree_digest(site) == before
    second = build_project(project, site)
    assert second.returncode == 0 and second.stderr == "" and " 0 files written" in second.stdout, second.stderr


@pytest.mark.parametrize("journal", ["[1, 2]", "not json", '{"staged": ["../x"], "removed": []}'])
def test_an_unusable_journal_is_discarded_and_the_site_rebuilt(tmp_path: Path, journal: str) -> None:
    project, site, before = built(tmp_path)
    path = tmp_path / ".cache" / "site.journal.json"
    path.write_text(journal)
    done = build_project(project, site)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"notice: {path}: corrupt cache file discarded: not a journal of this site",
        f"notice: {path}: the interrupted build's record was incomplete: every page is rendered again"]
    assert tree_digest(site) == before
