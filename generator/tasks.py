"""One piece of work over many items, in this process or in a pool of forked workers, through one interface (as
Sphinx's ``SerialTasks`` and ``ParallelTasks``): the same results either way."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from .buildlock import quiet_worker_signals


class Worker(Protocol):
    """A process's worker: made once per process, then called on each item."""

    def __call__(self, item: Any, /) -> Any: ...


class Tasks(Protocol):
    """Runs a worker over items; :meth:`close` stops it (no worker runs after that)."""

    def run(self, items: Iterable[Any]) -> Iterator[Any]:
        """Each item's result, in the items' order."""
        ...

    def run_unordered(self, items: Iterable[Any]) -> Iterator[Any]:
        """Each item's result, as soon as it is done."""
        ...

    def close(self) -> None: ...


class SerialTasks:
    """Every item in this process, one after the other, as the results are asked for."""

    def __init__(self, start: Callable[[], Worker]):
        self._worker: Worker | None = start()

    def run(self, items: Iterable[Any]) -> Iterator[Any]:
        assert self._worker is not None
        return map(self._worker, items)

    run_unordered = run

    def close(self) -> None:
        self._worker = None  # its renderer and site data: free them for the next build in this process


class ParallelTasks:
    """Items spread over ``jobs`` forked processes, each with its own worker (forking shares the parent's data
    copy-on-write; the items and results travel pickled)."""

    def __init__(self, jobs: int, start: Callable[[], Worker]):
        self._pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_start_worker, initargs=(start,))

    def run(self, items: Iterable[Any]) -> Iterator[Any]:
        return self._pool.imap(_run, items)

    def run_unordered(self, items: Iterable[Any]) -> Iterator[Any]:
        return self._pool.imap_unordered(_run, items)

    def close(self) -> None:
        self._pool.terminate()


@contextmanager
def tasks(jobs: int, start: Callable[[], Worker]) -> Iterator[Tasks]:
    """Serial tasks for one job, else parallel ones; closed (every worker stopped) when the block ends."""
    running: Tasks = SerialTasks(start) if jobs <= 1 else ParallelTasks(jobs, start)
    try:
        yield running
    finally:
        running.close()


_worker: Worker | None = None  # in a pool process, its worker (set once by the pool's initializer); else None


def _start_worker(start: Callable[[], Worker]) -> None:
    global _worker
    quiet_worker_signals()
    _worker = start()


def _run(item: Any) -> Any:
    assert _worker is not None
    return _worker(item)
