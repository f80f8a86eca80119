"""What a build shows while it runs: stage and page counts on a terminal, and the seconds each stage took."""

from __future__ import annotations

import sys
import time


class Progress:
    """Stage and page counts on a terminal; silent otherwise."""

    def __init__(self, total: int, quiet: bool):
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.live = not quiet and sys.stderr.isatty()

    def stage(self, name: str) -> None:
        if self.live:
            print(f"\r\033[K{name}…", end="", file=sys.stderr, flush=True)

    def advance(self, count: int) -> None:
        self.done += count
        if self.live:
            rate = self.done / max(1e-9, time.monotonic() - self.start)
            print(f"\r\033[Krendering {self.done}/{self.total} pages ({rate:.0f}/s)", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.live:
            print("\r\033[K", end="", file=sys.stderr, flush=True)


class StageClock:
    """Records the seconds each stage took into ``stages``."""

    def __init__(self, stages: dict[str, float], start: float):
        self.stages, self.last = stages, start

    def lap(self, name: str) -> None:
        now = time.monotonic()
        self.stages[name] = now - self.last
        self.last = now
