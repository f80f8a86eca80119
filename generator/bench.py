"""``make bench``: full build, no-op rebuild and one-GPU-price edit on a temporary copy of the project, and the
full build's HTML pages per second against Hugo's on as many table pages in the same run (``bench_hugo``).
``make bench-scale`` (``--scale N``): full builds of the catalogue, of a synthetic one N times its size and of the
catalogue again, each in a fresh process, with time and peak memory side by side."""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from . import bench_hugo
from .build import BuildOptions, build


def _cpu_seconds() -> float:
    """User and system seconds of this process and its finished children (the build's workers) so far."""
    return sum(usage.ru_utime + usage.ru_stime for usage in (resource.getrusage(resource.RUSAGE_SELF),
                                                               resource.getrusage(resource.RUSAGE_CHILDREN)))


def _timed(options: BuildOptions) -> tuple[float, int, int, dict[str, float]]:
    start = time.monotonic()
    report = build(options)
    return time.monotonic() - start, report.pages, report.written, report.stages


def hugo_lines(ours: bench_hugo.Timing, pages: int, work: Path) -> list[str]:
    """Our full build's HTML pages per second against Hugo's on ``pages`` table pages built in ``work`` now (wall
    and per CPU second: the machine may be shared), or one line saying Hugo is not installed."""
    executable = bench_hugo.hugo()
    if executable is None:
        return [f"hugo ratio:         skipped, hugo is not installed ({bench_hugo.INSTALL})"]
    bench_hugo.write_site(pages, work)
    hugo = bench_hugo.build(executable, work)
    return [
        f"HTML pages:         {pages} in {ours.wall:.1f} s, {ours.cpu:.1f} CPU s "
        f"({pages / ours.wall:.0f} pages/s, {pages / ours.cpu:.0f} per CPU s)",
        f"Hugo, same count:   {bench_hugo.html_pages(work / 'public')} HTML files in {hugo.wall:.1f} s, "
        f"{hugo.cpu:.1f} CPU s ({pages / hugo.wall:.0f} pages/s, {pages / hugo.cpu:.0f} per CPU s)",
        f"ours / Hugo:        {hugo.wall / ours.wall:.2f}x pages/s, {hugo.cpu / ours.cpu:.2f}x per CPU second",
    ]


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


def scaled_catalog(source: Path, target: Path, factor: int) -> int:
    """A copy of the catalogue at ``source`` with every model there ``factor`` times: the clones get new ids, names,
    Hugging Face and GGUF repositories, the same architecture and facts. Returns the number of models."""
    shutil.copytree(source, target)
    count = 0
    for path in sorted((source / "models").glob("*.yaml")):
        entry = yaml.safe_load(path.read_text(encoding="utf-8"))
        count += factor
        for copy in range(2, factor + 1):
            clone = {**entry, "id": f"{entry['id']}-x{copy}", "name": f"{entry['name']} (x{copy})",
                     "hf_repo": f"{entry['hf_repo']}-x{copy}",
                     "gguf": [{**repo, "repo": f"{repo['repo']}-x{copy}"} for repo in entry.get("gguf") or []]}
            (target / "models" / f"{clone['id']}.yaml").write_text(yaml.safe_dump(clone, sort_keys=False),
                                                                   encoding="utf-8")
    return count


def _build_process(project: Path) -> tuple[float, int, int]:
    """One full build of ``project`` in a fresh process: wall seconds, pages, and the peak resident memory (bytes)
    of its largest process (the build or one of its workers)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    start = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "generator", "build", "--project", str(project),
                                "--out", str(project / "site"), "--quiet"], stdout=subprocess.PIPE, env=env, text=True)
    output = process.stdout.read() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)  # this child's own usage: each build is measured alone
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - start
    if process.returncode != 0:
        raise SystemExit(f"build of {project} failed ({process.returncode}): {output}")
    return seconds, int(output.split()[0]), usage.ru_maxrss * 1024


def scale(factor: int, project: Path = Path(".")) -> int:
    """Print full-build time and peak memory of the catalogue and of a synthetic one ``factor`` times its size. The
    catalogue is built before and after the large one, and the large one compared with the mean of the two: the
    machine's speed drifts over the minutes this takes."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in (1, factor, 1):
            copy = Path(tmp) / f"x{size}"
            for part in ("templates", "locales"):
                shutil.copytree(project / part, copy / part)
            models = scaled_catalog(project / "catalog", copy / "catalog", size)
            before = _reference_loop()
            seconds, pages, peak = _build_process(copy)
            rows.append((size, models, pages, seconds, peak, before, _reference_loop()))
            shutil.rmtree(copy)  # a 10x site is gigabytes
    base_pages, base_seconds = rows[0][2], (rows[0][3] + rows[2][3]) / 2
    print(f"{'catalogue':<10} {'models':>7} {'pages':>9} {'full build':>11} {'pages/s':>8} {'time/1x':>8} "
          f"{'s/page vs 1x':>13} {'peak memory':>12} {'reference loop':>16}")
    for size, models, pages, seconds, peak, before, after in rows:
        print(f"{f'{size}x':<10} {models:>7} {pages:>9,} {seconds:>9.1f} s {pages / seconds:>8.0f} "
              f"{seconds / base_seconds:>7.1f}x {(seconds / pages) / (base_seconds / base_pages):>12.2f}x "
              f"{peak / 2**30:>8.2f} GiB {before:>6.2f} → {after:.2f} s")
    print("reference loop: CPU seconds of a fixed loop before and after each build (lower is faster; shared machines "
          "drift)")
    return 0


def main(project: Path = Path(".")) -> int:
    """Print the benchmark figures for the current catalogue."""
    before = _reference_loop()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "project"
        for part in ("catalog", "templates", "locales"):
            shutil.copytree(project / part, copy / part)
        options = BuildOptions(project=copy, out_dir=copy / "site", quiet=True)
        cpu = _cpu_seconds()
        full, pages, _, stages = _timed(options)
        ours = bench_hugo.Timing(full, _cpu_seconds() - cpu)
        html = bench_hugo.html_pages(copy / "site")
        noop, _, noop_written, _ = _timed(options)
        gpu = _edit_one_price(copy / "catalog")
        edit, _, edit_written, _ = _timed(options)
        sizes = [p.stat().st_size for p in (copy / "site").rglob("*.html")]
        shutil.rmtree(copy)  # room for Hugo's site
        hugo = hugo_lines(ours, html, Path(tmp) / "hugo")
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
    print(*hugo, sep="\n")
    print(f"machine speed:      reference loop {before:.2f} s before, {after:.2f} s after (lower is faster)")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m generator.bench", description=__doc__)
    parser.add_argument("--scale", type=int, metavar="N", help="compare full builds of the catalogue and of N times it")
    parser.add_argument("--project", type=Path, default=Path("."), help="folder with catalog/, templates/, locales/")
    arguments = parser.parse_args()
    sys.exit(scale(arguments.scale, arguments.project) if arguments.scale else main(arguments.project))
