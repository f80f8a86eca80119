"""The writer: stages a whole new site, refuses to write one path twice, swaps it in only on success."""

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
    """Writes into a staging folder beside ``out_dir``; :meth:`commit` swaps it in, :meth:`abort` drops it."""

    def __init__(self, out_dir: Path):
        self.out_dir = out_dir
        self.staging = out_dir.with_name(f".{out_dir.name}.staging")
        self.report = WriteReport()
        if self.staging.exists():
            shutil.rmtree(self.staging)
        self.staging.mkdir(parents=True)
        self._dirs: set[Path] = {self.staging}

    def _claim(self, rel_path: str) -> tuple[Path, Path]:
        if rel_path in self.report.paths:
            raise DuplicatePathError(f"two pages write {rel_path}")
        if rel_path.startswith("/") or ".." in rel_path.split("/"):
            raise DuplicatePathError(f"output path outside the site: {rel_path}")
        self.report.paths.add(rel_path)
        target = self.staging / rel_path
        if target.parent not in self._dirs:
            target.parent.mkdir(parents=True, exist_ok=True)
            self._dirs.add(target.parent)
        return target, self.out_dir / rel_path

    def write(self, rel_path: str, data: bytes) -> None:
        """Stage one file; an identical file from the previous build is kept as it was (same inode, same mtime)."""
        target, previous = self._claim(rel_path)
        try:
            if previous.stat().st_size == len(data) and previous.read_bytes() == data:
                os.link(previous, target)
                self.report.unchanged += 1
                return
        except OSError:
            pass
        target.write_bytes(data)
        self.report.written += 1

    def keep(self, rel_path: str) -> bool:
        """Stage the previous build's file unchanged, without rendering it; False when there is none."""
        target, previous = self._claim(rel_path)
        try:
            os.link(previous, target)
        except OSError:
            self.report.paths.discard(rel_path)
            return False
        self.report.unchanged += 1
        return True

    def commit(self) -> WriteReport:
        """Swap the staged site in place of the old one."""
        old_files = _relative_files(self.out_dir) if self.out_dir.exists() else set()
        self.report.removed = len(old_files - self.report.paths)
        backup = self.out_dir.with_name(f".{self.out_dir.name}.old")
        if backup.exists():
            shutil.rmtree(backup)
        if self.out_dir.exists():
            os.rename(self.out_dir, backup)
        os.rename(self.staging, self.out_dir)
        if backup.exists():
            shutil.rmtree(backup)
        return self.report

    def abort(self) -> None:
        """Drop the staged files; the old site stays exactly as it was."""
        shutil.rmtree(self.staging, ignore_errors=True)


def _relative_files(root: Path) -> set[str]:
    prefix = len(str(root)) + 1
    return {os.path.join(d, f)[prefix:] for d, _, files in os.walk(root) for f in files}
