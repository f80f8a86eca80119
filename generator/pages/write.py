"""The writer: stages changed files, refuses to write one path twice, touches the site only once all succeeded."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path


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
        self._out_prefix = f"{out_dir}{os.sep}"

    @staticmethod
    def staging_for(out_dir: Path) -> Path:
        """The staging folder beside ``out_dir``."""
        return out_dir.with_name(f".{out_dir.name}.staging")

    def claim(self, rel_path: str) -> None:
        """Reserve a path this build writes (here or in a worker, see :func:`stage_file`); a second claim is an error."""
        if rel_path in self.report.paths:
            raise DuplicatePathError(f"two pages write {rel_path}")
        if rel_path.startswith("/") or ".." in rel_path.split("/"):
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

    def keep(self, rel_path: str) -> bool:
        """Keep the previous build's file without rendering it; False when there is none."""
        self.claim(rel_path)
        if os.path.isfile(f"{self._out_prefix}{rel_path}"):  # a stat: a fifth of walking the whole site
            self.report.unchanged += 1
            return True
        self.report.paths.discard(rel_path)
        return False

    def keep_all(self, rel_paths: tuple[str, ...]) -> bool:
        """Keep all these files of the previous build, or none of them (False) when one is missing."""
        if not all(os.path.isfile(f"{self._out_prefix}{rel_path}") for rel_path in rel_paths):
            return False
        return all(self.keep(rel_path) for rel_path in rel_paths)

    def commit(self, previous_paths: set[str] | None = None) -> WriteReport:
        """Apply the build: move staged files in, delete files no page wrote (``previous_paths`` or a walk)."""
        if not self.out_dir.exists():
            os.rename(self.staging, self.out_dir)
            return self.report
        old = previous_paths if previous_paths is not None else _relative_files(self.out_dir)
        for rel_path in self._staged:
            target = self.out_dir / rel_path
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.staging / rel_path, target)
        for rel_path in old - self.report.paths:
            try:
                (self.out_dir / rel_path).unlink()
                self.report.removed += 1
            except FileNotFoundError:
                continue
            _prune_empty_dirs((self.out_dir / rel_path).parent, self.out_dir)
        shutil.rmtree(self.staging, ignore_errors=True)
        return self.report

    def abort(self) -> None:
        """Drop the staged files; the old site stays exactly as it was."""
        shutil.rmtree(self.staging, ignore_errors=True)


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
