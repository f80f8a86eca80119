"""The writer: stages changed files, refuses to write one path twice, touches the site only once all succeeded."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..cachefile import discard
from ..inputfile import inside


class DuplicatePathError(RuntimeError):
    """Two pages planned the same output path: a generator bug, never a user mistake."""


@dataclass
class WriteReport:
    """What one build did to the output folder."""

    written: int = 0
    unchanged: int = 0
    removed: int = 0
    paths: set[str] = field(default_factory=set)


class SiteWriter:
    """Collects a build's files; :meth:`commit` applies them to ``out_dir``, :meth:`abort` leaves it untouched.

    New or changed files go to a staging folder beside ``out_dir``; identical and kept files are only recorded,
    so an incremental build moves just what changed. A first build renames the staging folder into place.
    """

    def __init__(self, out_dir: Path):
        self.out_dir = out_dir
        self.staging = self.staging_for(out_dir)
        self.report = WriteReport()
        self._staged: list[str] = []
        if self.staging.exists():
            shutil.rmtree(self.staging)
        self.staging.mkdir(parents=True)
        self._dirs: set[Path] = {self.staging}

    @staticmethod
    def staging_for(out_dir: Path) -> Path:
        """The staging folder beside ``out_dir``."""
        return out_dir.with_name(f".{out_dir.name}.staging")

    def claim(self, rel_path: str) -> None:
        """Reserve a path this build writes (here or in a worker, see :func:`stage_file`); a second claim is an error."""
        if rel_path in self.report.paths:
            raise DuplicatePathError(f"two pages write {rel_path}")
        if not inside(rel_path):
            raise DuplicatePathError(f"output path outside the site: {rel_path}")
        self.report.paths.add(rel_path)

    def write(self, rel_path: str, data: bytes) -> None:
        """Stage one file, unless the previous build left the same bytes there."""
        self.claim(rel_path)
        self.record(rel_path, stage_file(self.out_dir, self.staging, rel_path, data, self._dirs))

    def record(self, rel_path: str, staged: bool) -> None:
        """Count a claimed path as staged (new bytes) or unchanged."""
        if staged:
            self._staged.append(rel_path)
            self.report.written += 1
        else:
            self.report.unchanged += 1

    def keep(self, rel_paths: Iterable[str]) -> None:
        """Keep these files of the previous build without rendering them (the build decided they are current)."""
        for rel_path in rel_paths:
            self.claim(rel_path)
            self.report.unchanged += 1

    def commit(self, owned: set[str], journal: Path, applied: Callable[[], None] = lambda: None,
               clean: bool = False, token: str = "") -> WriteReport:
        """Apply the build: move staged files in, delete the files of ``owned`` (what the previous build wrote, as
        its manifest lists them) that no page wrote now, then call ``applied`` (the build saves its manifest).
        Other files in ``out_dir`` are not the generator's and stay, unless ``clean``: then the folder ends holding
        the new site only. SIGINT and SIGTERM wait until this is done; what a killed process left half done is
        completed by :func:`resume` in the next build (``token`` goes into the journal for it)."""
        with signals_deferred():
            if not self.out_dir.exists():
                _save_json(journal, {"staged": [], "removed": [], "rename": True, "token": token})
                _step("journal saved")
                os.rename(self.staging, self.out_dir)
                _step("files moved")
                applied()
                _step("manifest saved")
                journal.unlink()
                return self.report
            old = owned | (_relative_files(self.out_dir) if clean else set())
            removed = sorted(path for path in old - self.report.paths if inside(path))
            _check_writable(self.out_dir, [*self._staged, *removed])
            _save_json(journal, {"staged": self._staged, "removed": removed, "token": token})
            _step("journal saved")
            self.report.removed = _apply(self.out_dir, self.staging, self._staged, removed)
            applied()
            _step("manifest saved")
            journal.unlink()
            _step("journal removed")
            shutil.rmtree(self.staging, ignore_errors=True)
        return self.report

    def abort(self) -> None:
        """Drop the staged files; the old site stays exactly as it was."""
        shutil.rmtree(self.staging, ignore_errors=True)


def _step(name: str) -> None:
    """A point between two steps of a commit (the fault-injection test stops the process at each)."""


@dataclass(frozen=True)
class Resumed:
    """What :func:`resume` found: the interrupted commit's ``token``, and whether everything its journal named
    was there to complete it (if not, the site may differ from the record the build kept of it)."""

    token: str
    whole: bool


def resume(out_dir: Path, journal: Path, applied: Callable[[], None]) -> Resumed | None:
    """Complete a commit that a killed build left half done (see :meth:`SiteWriter.commit`); None when there was
    none. Any state the kill can leave is completed; a journal that cannot be used (unreadable, of the wrong shape,
    naming a path outside the site) is discarded with a notice, unapplied."""
    try:
        data = json.loads(journal.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        data = None
    staging = SiteWriter.staging_for(out_dir)
    valid = isinstance(data, dict) and all(isinstance(data.get(key), list) for key in ("staged", "removed")) \
        and isinstance(data.get("token", ""), str)
    paths = [*data["staged"], *data["removed"]] if valid else []
    if not valid or not all(inside(path) for path in paths):
        discard(journal, "not a journal of this site")
        shutil.rmtree(staging, ignore_errors=True)
        return Resumed("", whole=False)
    with signals_deferred():
        if data.get("rename") is True and not out_dir.exists() and staging.is_dir():
            os.rename(staging, out_dir)  # a first build killed before its folder moved into place
        present = [path for path in data["staged"] if (staging / path).is_file()]
        lost = [path for path in data["staged"] if path not in present and not (out_dir / path).is_file()]
        if out_dir.is_dir():
            _check_writable(out_dir, paths)
            _apply(out_dir, staging, present, data["removed"])
        applied()
        journal.unlink()
        shutil.rmtree(staging, ignore_errors=True)
    return Resumed(data.get("token", ""), whole=out_dir.is_dir() and not lost)


def _apply(out_dir: Path, staging: Path, staged: list[str], removed: list[str]) -> int:
    """Move the staged files into ``out_dir`` and delete the removed ones; the number deleted."""
    for rel_path in staged:
        target = out_dir / rel_path
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging / rel_path, target)
        _step("a file moved")
    _step("files moved")
    count = 0
    for rel_path in removed:
        try:
            (out_dir / rel_path).unlink()
            count += 1
        except FileNotFoundError:
            continue
        _prune_empty_dirs((out_dir / rel_path).parent, out_dir)
        _step("a file removed")
    _step("files removed")
    return count


def _check_writable(out_dir: Path, rel_paths: list[str]) -> None:
    """Raise ``PermissionError`` before anything changes when a folder the commit must change is read-only or
    immutable: a commit that fails half way would leave a mixed site."""
    checked: set[str] = set()
    for rel_path in rel_paths:
        folder = os.path.dirname(f"{out_dir}{os.sep}{rel_path}")
        while folder not in checked and not os.path.isdir(folder) and folder != str(out_dir):
            checked.add(folder)
            folder = os.path.dirname(folder)  # a folder the commit creates: its nearest existing parent must allow it
        if folder not in checked:
            checked.add(folder)
            if not os.access(folder, os.W_OK | os.X_OK):
                raise PermissionError(errno.EACCES, "cannot write to this folder (read-only or immutable)", folder)


def _save_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        json.dump(data, handle)
        handle.flush()
        os.fsync(handle.fileno())
    tmp.replace(path)


@contextmanager
def signals_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM are held until the block is done (in the main thread; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def stage_file(out_dir: Path, staging: Path, rel_path: str, data: bytes, made_dirs: set[Path]) -> bool:
    """Write ``data`` under ``staging`` unless ``out_dir`` already holds the same bytes; True when staged.

    Safe in worker processes: it only touches the path's own file (``made_dirs`` caches created folders).
    """
    try:
        previous = out_dir / rel_path
        if previous.stat().st_size == len(data) and previous.read_bytes() == data:
            return False
    except OSError:
        pass
    target = staging / rel_path
    if target.parent not in made_dirs:
        target.parent.mkdir(parents=True, exist_ok=True)
        made_dirs.add(target.parent)
    target.write_bytes(data)
    return True


def _prune_empty_dirs(folder: Path, root: Path) -> None:
    while folder != root and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _relative_files(root: Path) -> set[str]:
    prefix = len(str(root)) + 1
    return {os.path.join(d, f)[prefix:] for d, _, files in os.walk(root) for f in files}
