"""``make bench``: full build, no-op rebuild and one-GPU-price edit on a temporary copy of the project."""

from __future__ import annotations

import re
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from .build import BuildOptions, build


def _timed(options: BuildOptions) -> tuple[float, int, int, dict[str, float]]:
    start = time.monotonic()
    report = build(options)
    return time.monotonic() - start, report.pages, report.written, report.stages


def _reference_loop() -> float:
    """CPU seconds of a fixed pure-Python loop: this machine's speed at the moment, to compare runs by (shared
    virtual machines drift by up to 2x within minutes)."""
    start = time.process_time()
    total = 0
    for i in range(5_000_000):
        total += i
    return time.process_time() - start


def _edit_one_price(catalog: Path) -> str:
    for path in sorted((catalog / "gpus").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        match = re.search(r"^price_usd: ([0-9.]+)$", text, flags=re.M)
        if match:
            new = float(match.group(1)) + 1
            path.write_text(text.replace(match.group(0), f"price_usd: {new:g}"), encoding="utf-8")
            return path.stem
    raise SystemExit("no GPU with a price to edit")


def main(project: Path = Path(".")) -> int:
    """Print the benchmark figures for the current catalogue."""
    before = _reference_loop()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "project"
        for part in ("catalog", "templates", "locales"):
            shutil.copytree(project / part, copy / part)
        options = BuildOptions(project=copy, out_dir=copy / "site", quiet=True)
        full, pages, _, stages = _timed(options)
        noop, _, noop_written, _ = _timed(options)
        gpu = _edit_one_price(copy / "catalog")
        edit, _, edit_written, _ = _timed(options)
        sizes = [p.stat().st_size for p in (copy / "site").rglob("*.html")]
        after = _reference_loop()
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    print(f"pages:              {pages}")
    print(f"full build:         {full:.1f} s ({pages / full:.0f} pages/s)")
    print(f"  stages:           {', '.join(f'{name} {seconds:.1f} s' for name, seconds in stages.items())}")
    print(f"no-op rebuild:      {noop:.1f} s ({noop_written} files rewritten)")
    print(f"one-edit rebuild:   {edit:.1f} s ({edit_written} files rewritten; price of {gpu} changed; "
          f"{edit / full:.0%} of a full build)")
    print(f"peak memory:        {peak / 1024:.0f} MiB (largest process)")
    print(f"page size:          {sum(sizes) / 2**20:.1f} MiB total, {statistics.median(sizes) / 1024:.1f} KiB median")
    print(f"machine speed:      reference loop {before:.2f} s before, {after:.2f} s after (lower is faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
