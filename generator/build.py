"""The pipeline: load → estimate → plan pages → render → write, serial or parallel through one interface."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from . import __version__
from .catalog.check import check_catalog
from .catalog.load import load_catalog
from .errors import Problem, UserError
from .pages import assets, context, seo
from .pages.i18n import compile_locales
from .pages.plan import Page, plan_pages
from .pages.render import Renderer
from .pages.write import SiteWriter
from .results import Results

CHUNK_PAGES = 64


@dataclass(frozen=True)
class BuildOptions:
    """Where to read and write, and how."""

    project: Path = Path(".")
    out_dir: Path = Path("site")
    base_url: str = "https://vram-atlas.example/"
    jobs: int = 0  # 0: all cores
    strict: bool = False
    quiet: bool = False

    @property
    def catalog_dir(self) -> Path:
        return self.project / "catalog"

    @property
    def templates_dir(self) -> Path:
        return self.project / "templates"

    @property
    def locales_dir(self) -> Path:
        return self.project / "locales"


@dataclass
class BuildReport:
    """The summary line's numbers."""

    pages: int = 0
    written: int = 0
    unchanged: int = 0
    removed: int = 0
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (f"{self.pages} pages: {self.written} files written, {self.unchanged} unchanged, {self.removed} removed "
                f"in {self.seconds:.1f} s, {len(self.warnings)} warnings")


# Worker state: built once per process (fork start method shares the parent's results copy-on-write).
_STATE: dict[str, object] = {}


def _init_worker(options: BuildOptions, results: Results) -> None:
    _STATE["renderer"] = Renderer(options.templates_dir, options.locales_dir, assets.names(options.project))
    _STATE["results"] = results
    _STATE["options"] = options


def _render_chunk(pages: list[Page]) -> list[tuple[str, bytes]]:
    renderer = _STATE["renderer"]
    results = _STATE["results"]
    options = _STATE["options"]
    assert isinstance(renderer, Renderer) and isinstance(results, Results) and isinstance(options, BuildOptions)
    return [(page.output_path, renderer.render(page.language, page.template,
                                                context.page_context(results, renderer, page, options.base_url)).encode())
            for page in pages]


def _chunks(pages: list[Page]) -> Iterator[list[Page]]:
    for start in range(0, len(pages), CHUNK_PAGES):
        yield pages[start:start + CHUNK_PAGES]


def render_pages(pages: list[Page], options: BuildOptions, results: Results, jobs: int) -> Iterator[list[tuple[str, bytes]]]:
    """Rendered pages in plan order, chunk by chunk, from one process or a pool: same bytes either way."""
    if jobs <= 1:
        _init_worker(options, results)
        yield from map(_render_chunk, _chunks(pages))
        return
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(jobs, initializer=_init_worker, initargs=(options, results)) as pool:
        yield from pool.imap(_render_chunk, _chunks(pages))


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


def build(options: BuildOptions) -> BuildReport:
    """Build the whole site into a staging folder and swap it in; on any error the old site stays untouched."""
    started = time.monotonic()
    report = BuildReport()
    progress = Progress(0, options.quiet)
    progress.stage("loading catalogue")
    catalog = check_catalog(load_catalog(options.catalog_dir), options.catalog_dir)
    for status in compile_locales(options.locales_dir):
        report.warnings += [f"locales/{status.language}: untranslated message: {m!r}" for m in status.untranslated]
        report.warnings += [f"locales/{status.language}: fuzzy message: {m!r}" for m in status.fuzzy]
    if options.strict and report.warnings:
        raise UserError([Problem("build", "strict", w) for w in report.warnings])
    progress.stage("estimating")
    results = Results(catalog)
    results.pairs  # noqa: B018 - computed once before planning; workers inherit it
    pages = plan_pages(catalog)
    report.pages = len(pages)
    progress.total = len(pages)
    jobs = options.jobs or os.cpu_count() or 1
    writer = SiteWriter(options.out_dir)
    try:
        for chunk in render_pages(pages, options, results, jobs):
            for path, data in chunk:
                writer.write(path, data)
            progress.advance(len(chunk))
        for path, data in seo.site_files(catalog, pages, options.base_url):
            writer.write(path, data)
        for path, data in assets.files(options.project):
            writer.write(path, data)
        written = writer.commit()
    except BaseException:
        writer.abort()
        raise
    finally:
        progress.close()
    report.written, report.unchanged, report.removed = written.written, written.unchanged, written.removed
    report.seconds = time.monotonic() - started
    return report


def fingerprint(*parts: bytes) -> str:
    """A short content hash (for asset names and incremental builds)."""
    digest = hashlib.sha256(__version__.encode())
    for part in parts:
        digest.update(part)
    return digest.hexdigest()[:12]
