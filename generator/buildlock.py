"""One build at a time per output folder, and how a build and its workers meet signals."""

from __future__ import annotations

import fcntl
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import Interrupted, Problem, UserError


@contextmanager
def output_lock(lock_path: Path, out_dir: Path) -> Iterator[None]:
    """Hold the output folder's lock (a file at ``lock_path``) for the block; a second build meanwhile is a
    one-line error."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UserError(Problem(str(out_dir), "", "another build is writing this folder: "
                                    "run again when it has finished")) from None
        yield


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raises :class:`Interrupted` in the main thread, so the build cleans up as after Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted(signum)

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def quiet_worker_signals() -> None:
    """In a pool worker: Ctrl-C is the parent's to handle, and SIGTERM (the pool's way to stop a worker) ends the
    worker at once, without a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
