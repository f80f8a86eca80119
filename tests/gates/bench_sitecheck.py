"""Time the site gate on a large synthetic site: python tests/gates/bench_sitecheck.py [--models 100 --gpus 99]."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_site import build_site

from tests.quality.sitecheck import check_site


def main() -> int:
    """Build the synthetic site in a temporary folder, check it, print the timings."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--gpus", type=int, default=99)
    parser.add_argument("--detail", type=int, default=10, help="pair-page length multiplier (10 ≈ 18 KB pages)")
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        models = [f"model-{i}" for i in range(args.models)]
        gpus = [f"gpu-{i}" for i in range(args.gpus)]
        site = build_site(Path(tmp), models, gpus, detail=args.detail)
        pages = sum(1 for _ in site.rglob("*.html"))
        size = sum(p.stat().st_size for p in site.rglob("*.html"))
        print(f"built {pages} pages ({size / 2**20:.0f} MiB) in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        problems = check_site(site, jobs=args.jobs)
        print(f"checked in {time.perf_counter() - started:.1f} s: {len(problems)} problems")
        for problem in problems[:20]:
            print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
