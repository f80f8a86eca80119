"""Reading cache files, which anyone may have altered: only plain data and our own record types are unpickled,
and a file that is unreadable or of the wrong shape is discarded with a one-line notice."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

_ALLOWED_GLOBALS = {("datetime", "date")}


class CorruptCache(Exception):
    """A cache file that cannot be used: its reason is the notice's text."""


_NOTICED: set[str] = set()


def notice(message: str) -> None:
    """One line on stderr about something the build repaired by itself (never a failure, never a warning);
    the same line is given once per process."""
    if message not in _NOTICED:
        _NOTICED.add(message)
        print(f"notice: {message}", file=sys.stderr, flush=True)


class _RecordUnpickler(pickle.Unpickler):
    """Builds only plain data, dates and the generator's dataclasses and named tuples: never calls a function."""

    def find_class(self, module: str, name: str) -> Any:
        found = _APPROVED.get((module, name))
        if found is not None:
            return found
        if (module, name) in _ALLOWED_GLOBALS:
            found = super().find_class(module, name)
        elif module.split(".")[0] == "generator":
            found = super().find_class(module, name)
            if not (isinstance(found, type) and (dataclasses.is_dataclass(found) or issubclass(found, tuple))):
                found = None
        if found is None:
            raise pickle.UnpicklingError(f"{module}.{name} is not a record type")
        _APPROVED[(module, name)] = found  # the store unpickles each value apart: look each class up once
        return found


_APPROVED: dict[tuple[str, str], type] = {}


def loads(data: bytes) -> Any:
    """Unpickle ``data`` as :func:`load_pickle` does: plain data, dates and our record types only."""
    return _RecordUnpickler(io.BytesIO(data)).load()


def load_pickle(path: Path, valid: Callable[[Any], bool]) -> Any:
    """The data pickled at ``path``, or None when there is no file; :class:`CorruptCache` when it cannot be read
    safely or ``valid`` refuses its shape."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return None
    except OSError as error:
        raise CorruptCache(f"cannot read: {error.strerror}") from None
    with handle:
        try:
            data = _RecordUnpickler(handle).load()
        except Exception as error:  # noqa: BLE001 - any failure to unpickle means the file is unusable
            raise CorruptCache(f"unreadable ({type(error).__name__})") from None
    if not valid(data):
        raise CorruptCache("unexpected content")
    return data


def discard(path: Path, reason: str, shown: Path | None = None) -> None:
    """Remove a corrupt cache file (best effort) and say so in one line, naming ``shown`` (a folder of many such
    files, named once) or the file."""
    notice(f"{shown or path}: corrupt cache {'files' if shown else 'file'} discarded: {reason}")
    with contextlib.suppress(OSError):
        path.unlink()
