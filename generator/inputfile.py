"""The one reader of the project's input files (catalogue, templates, locales): bounded, regular files only, never
through a link that leaves the project. The build's digest and the loaders both read through it."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from .errors import Problem, UserError

CATALOG_FILE_BYTES = 1 << 20  # the largest catalogue file is 13 kB
TEMPLATE_FILE_BYTES = 8 << 20  # the largest template or asset (a font) is a few hundred kB
LOCALE_FILE_BYTES = 8 << 20  # a messages.po is about 200 kB


def read_input(path: Path, root: Path, limit: int, shown: str | None = None) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes that resolves inside ``root``; anything
    else (a folder, device, pipe or socket, a link out of ``root``, a larger file) is a one-line :class:`UserError`
    naming ``shown`` (default: ``path``). Opened without blocking, so a pipe cannot stall the build."""
    shown = shown or str(path)
    try:
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(os.path.realpath(root)):
            raise UserError(Problem(shown, "", "a link to a file outside the project: refusing to read it"))
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise UserError(Problem(shown, "", f"cannot read: {error.strerror}")) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "a device, pipe or socket"
            raise UserError(Problem(shown, "", f"not a regular file ({kind})"))
        chunks, size = [], 0
        while size <= limit and (chunk := os.read(fd, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise UserError(Problem(shown, "", f"cannot read: {error.strerror}")) from None
    finally:
        os.close(fd)
    raw = b"".join(chunks)
    if len(raw) > limit:
        raise UserError(Problem(shown, "", f"file too large: at most {limit:,} bytes"))
    return raw


_PLAIN_PATH = re.compile(r"(?:[\w-]+(?:\.[\w-]+)*/)*[\w-]+(?:\.[\w-]+)*")  # no part is "", "." or ".."


def inside(rel_path: object) -> bool:
    """Whether ``rel_path`` is a plain relative path that stays inside its folder (no ``..``, no absolute path)."""
    if isinstance(rel_path, str) and _PLAIN_PATH.fullmatch(rel_path):  # the usual case, checked at once
        return True
    return (isinstance(rel_path, str) and bool(rel_path) and not rel_path.startswith("/") and "\\" not in rel_path
            and "\0" not in rel_path and all(part not in ("", ".", "..") for part in rel_path.split("/")))
