"""The pipeline: load → estimate → plan pages → render → write, serial or parallel through one interface."""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import multiprocessing
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path

from .cachefile import notice
from .catalog.check import check_catalog
from .catalog.freshness import newest_price_date
from .catalog.load import ParsedFiles, load_catalog
from .errors import Interrupted, Problem, UsageError, UserError
from .incremental import GENERATOR_DIR, Manifest, code_digest, collector_paused, digest, inputs_digest, store_version
from .links import is_safe_href
from .pages import assets, context, opendata, seo
from .pages.i18n import compile_locales
from .pages.plan import Page, PageKey, plan_pages
from .pages.reads import Read, ReadTable, Recorder
from .pages.render import Renderer
from .pages.write import SiteWriter, resume, stage_file
from .sitedata import EstimateStore, ModelEstimates, SiteData

CHUNK_PAGES = 64
MAX_JOBS = 64  # worker processes at most: beyond this a build gains nothing and a mistyped --jobs forks thousands
# Folders of a project (and of the generator's own checkout) a site is never written into.
PROJECT_FOLDERS = ("catalog", "templates", "locales", "generator", "tests", ".git", ".cache", ".venv", "node_modules")
OPEN_DATA = "open data"  # the subject of the site-wide open-data files
Reads = tuple[tuple[int, int], list[Read], dict[str, list[int]]]  # a recorder's batch: (its process and number,
# new reads, each subject's read numbers)


@dataclass(frozen=True)
class BuildOptions:
    """Where to read and write, and how."""

    project: Path = Path(".")
    out_dir: Path = Path("site")
    base_url: str = "https://vram-atlas.example/"
    jobs: int | None = None  # None: all cores (at most MAX_JOBS)
    strict: bool = False
    quiet: bool = False
    force: bool = False  # ignore the previous build's manifest and render every page
    clean: bool = False  # the output folder ends holding the new site only (else files the build did not write stay)
    prices_as_of: dt.date | None = None  # the date price ages count to (default: the catalogue's newest price date)

    def page_options(self) -> tuple:
        """The options that change the bytes of pages (the others choose where, how fast and how loud): part of
        every digest that decides whether an earlier build's output is current."""
        return (self.base_url,)

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
    stages: dict[str, float] = field(default_factory=dict)  # seconds per pipeline stage, in order

    def summary(self) -> str:
        return (f"{self.pages} pages: {self.written} files written, {self.unchanged} unchanged, {self.removed} removed "
                f"in {self.seconds:.1f} s, {len(self.warnings)} warnings")


def subject(key: PageKey) -> str:
    """The name a page subject's reads are kept under in the manifest (all its files share them)."""
    return f"{key.kind}:{key.model or ''}:{key.gpu or ''}"


# Worker state: built once per process (fork start method shares the parent's site data copy-on-write).
_STATE: dict[str, object] = {}


def make_renderer(options: BuildOptions) -> Renderer:
    """The build's renderer: compiled templates cached beside the output folder."""
    return Renderer(options.templates_dir, options.locales_dir, assets.names(options.project),
                    options.out_dir.parent / ".cache" / "jinja")


def _quiet_signals() -> None:
    """In a pool worker: Ctrl-C is the parent's to handle, and SIGTERM (the pool's way to stop a worker) ends the
    worker at once, without a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _init_pool_worker(options: BuildOptions, site: SiteData, renderer: Renderer | None = None) -> None:
    _quiet_signals()
    _init_worker(options, site, renderer)


def _init_worker(options: BuildOptions, site: SiteData, renderer: Renderer | None = None) -> None:
    _STATE["renderer"] = renderer or make_renderer(options)
    _STATE["recorder"] = Recorder(site)  # pages read the site data through it: what they read is recorded
    _STATE["options"] = options
    _STATE["made_dirs"] = set()  # staging folders this process created (a new staging folder per build)


def _render_chunk(pages: list[Page]) -> list[tuple[str, bytes]]:
    renderer = _STATE["renderer"]
    recorder = _STATE["recorder"]
    options = _STATE["options"]
    assert isinstance(renderer, Renderer) and isinstance(recorder, Recorder) and isinstance(options, BuildOptions)
    rendered = []
    for page in pages:
        with recorder.subject(subject(page.key)):
            rendered.append((page.output_path, context.render_page(recorder.site, renderer, page, options.base_url)))
    return rendered


def _recorded(recorder: Recorder) -> Reads:
    return ((os.getpid(), id(recorder)), *recorder.flush())


def _page_answer(model_ids: list[str]) -> dict[tuple, bytes]:
    estimates = _STATE["estimates"]
    assert isinstance(estimates, ModelEstimates)
    return estimates.page_answer(model_ids)


def estimate_pages(estimates: ModelEstimates, jobs: int, meanwhile: Callable[[], object] = lambda: None) -> None:
    """Compute every result the pages need, model by model, in one process or a pool: the stage's hot loop.
    ``meanwhile`` runs in this process while the pool works (or first, without a pool)."""
    keys = estimates.keys
    keys.model_digests, keys.gpu_spec_digests, keys.gpu_specs_digest  # noqa: B018 - once here, not in every worker
    missing = [m for m in sorted(estimates.models) if not estimates.stored(m)]  # the others come from the store
    if jobs <= 1 or len(missing) <= 1:
        meanwhile()
        estimates.compute(missing)
        return
    _STATE["estimates"] = estimates
    with multiprocessing.get_context("fork").Pool(jobs, initializer=_quiet_signals) as pool:
        answers = pool.imap_unordered(_page_answer, [[m] for m in missing])
        meanwhile()
        for answer in answers:
            estimates.absorb(answer)
    _STATE.clear()


def _render_and_stage(pages: list[Page]) -> tuple[list[tuple[str, bool]], Reads]:
    """Render pages and stage each changed file from this process: only paths and what the pages read travel back
    to the parent."""
    options, made_dirs, recorder = _STATE["options"], _STATE["made_dirs"], _STATE["recorder"]
    assert isinstance(options, BuildOptions) and isinstance(made_dirs, set) and isinstance(recorder, Recorder)
    staging = SiteWriter.staging_for(options.out_dir)
    staged = [(path, stage_file(options.out_dir, staging, path, data, made_dirs)) for path, data in _render_chunk(pages)]
    return staged, _recorded(recorder)


def _chunks(pages: list[Page], jobs: int = 1) -> Iterator[list[Page]]:
    """Chunks of at most CHUNK_PAGES pages, smaller when there are few pages, so that every worker gets some."""
    size = max(1, min(CHUNK_PAGES, -(-len(pages) // (2 * jobs))))
    for start in range(0, len(pages), size):
        yield pages[start:start + size]


def render_pages(pages: list[Page], options: BuildOptions, site: SiteData, jobs: int,
                 renderer: Renderer | None = None) -> Generator[tuple[list[tuple[str, bool]], Reads]]:
    """Render and stage pages chunk by chunk, in one process or a pool (same bytes either way); yields each
    chunk's (path, staged) pairs in plan order with what its pages read. Workers inherit ``renderer`` (its
    compiled templates) if given."""
    if jobs <= 1:
        _init_worker(options, site, renderer)
        yield from map(_render_and_stage, _chunks(pages))
        return
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(jobs, initializer=_init_pool_worker, initargs=(options, site, renderer)) as pool:
        yield from pool.imap(_render_and_stage, _chunks(pages, jobs))


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


class _StageClock:
    """Records the seconds each stage took into ``stages``."""

    def __init__(self, stages: dict[str, float], start: float):
        self.stages, self.last = stages, start

    def lap(self, name: str) -> None:
        now = time.monotonic()
        self.stages[name] = now - self.last
        self.last = now


# Errors of the machine, not of the program: one line, no traceback.
_WRITE_ERRORS = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT}


def build(options: BuildOptions) -> BuildReport:
    """Build the site into a staging folder and swap it in; on any error the old site stays untouched.

    Pages whose dependency digest matches the previous build's manifest are carried over without rendering;
    when no input changed at all, nothing is loaded. One build at a time writes an output folder; SIGTERM stops
    it as Ctrl-C does.
    """
    # A build keeps millions of objects alive and makes almost no cycles (290 unreachable objects in 2,000
    # pages), yet each collection rescanned the young survivors: a quarter of an incremental build.
    options = checked_options(options)
    try:
        with collector_paused(), output_lock(options.out_dir), sigterm_interrupts():
            return _build(options)
    except OSError as error:
        if error.errno not in _WRITE_ERRORS:
            raise
        where = error.filename if error.filename is not None else options.out_dir
        raise UserError(Problem(str(where), "", f"cannot write: {error.strerror}")) from None


def checked_options(options: BuildOptions) -> BuildOptions:
    """The options, with an output folder named by a path that has a name (``--out .``); a wrong option is a
    one-line :class:`UsageError`."""
    if not is_safe_href(options.base_url) or not options.base_url.endswith("/") \
            or any(mark in options.base_url for mark in "?#"):
        raise UsageError(Problem("--base-url", "", "must be an https:// URL with a host, the address the site is "
                                 f"served at (no query or fragment), got {options.base_url[:80]!r}"))
    if options.jobs is not None and not 1 <= options.jobs <= MAX_JOBS:
        raise UsageError(Problem("--jobs", "", f"must be between 1 and {MAX_JOBS}, got {options.jobs}"))
    out_dir = options.out_dir
    if out_dir.name in ("", ".", ".."):
        out_dir = Path(os.path.abspath(out_dir))
    _check_output_place(out_dir, options.project)
    return replace(options, out_dir=out_dir)


def _check_output_place(out_dir: Path, project: Path) -> None:
    """Refuse an output folder that is, holds or lies inside the project's own folders (or the generator's
    checkout), or that is the home folder or holds it: a build removes files from its output folder."""
    out = Path(os.path.realpath(out_dir))
    roots = {Path(os.path.realpath(project)), GENERATOR_DIR.parent}
    try:
        homes = {Path(os.path.realpath(Path.home()))}
    except (KeyError, RuntimeError):  # no home folder known
        homes = set()
    for root in roots | homes:
        if root.is_relative_to(out):
            what = "your home folder" if root in homes else "the project"
            raise UsageError(Problem(str(out_dir), "", f"refusing to build a site into a folder that is or holds {what}"
                                     " (its files would be overwritten): choose another --out"))
    for root in roots:
        for name in PROJECT_FOLDERS:
            if out.is_relative_to(root / name):
                raise UsageError(Problem(str(out_dir), "", f"refusing to build a site into the project's own folder "
                                         f"{name}/: choose another --out"))
    if out.exists() and not out.is_dir():
        raise UsageError(Problem(str(out_dir), "", "not a folder: choose another --out"))


def _check_owned(out_dir: Path, owned: Manifest, manifest_path: Path, clean: bool) -> None:
    """A folder holding files that no earlier build recorded as its own is refused, unless ``clean``."""
    if owned.pages or clean or not out_dir.is_dir() or not any(files for _, _, files in os.walk(out_dir)):
        return
    raise UserError(Problem(str(out_dir), "", f"holds files that no build recorded as its own (no {manifest_path}): "
                            "refusing to overwrite or delete them; choose an empty or new folder, or pass --clean "
                            "to replace everything in it with the site"))


def cache_dir_of(out_dir: Path) -> Path:
    """Where the build of ``out_dir`` keeps its manifest, caches, lock and journal."""
    return out_dir.parent / ".cache"


@contextmanager
def output_lock(out_dir: Path) -> Iterator[None]:
    """Hold the output folder's lock for the block; a second build meanwhile is a one-line error."""
    path = cache_dir_of(out_dir) / f"{out_dir.name}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
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


def _file_token(path: Path) -> str:
    """A digest of a file's bytes ("" when there is none): which manifest a journal's commit installs."""
    try:
        return digest(path.read_bytes())
    except OSError:
        return ""


def _strict(options: BuildOptions, report: BuildReport) -> None:
    """With ``--strict``, a site with a warning is a failure, however many builds ago the warning was found."""
    if options.strict and report.warnings:
        raise UserError([Problem("build", "strict", w) for w in report.warnings])


def _build(options: BuildOptions) -> BuildReport:
    started = time.monotonic()
    report = BuildReport()
    progress = Progress(0, options.quiet)
    cache_dir = cache_dir_of(options.out_dir)
    manifest_path = cache_dir / f"{options.out_dir.name}.manifest.json"
    next_manifest = manifest_path.with_name(f"{options.out_dir.name}.manifest.next.json")  # saved before a commit

    journal = cache_dir / f"{options.out_dir.name}.journal.json"

    def manifest_applied() -> None:
        with suppress(FileNotFoundError):  # a killed build had moved it already (or someone removed it: see below)
            next_manifest.replace(manifest_path)

    resumed = resume(options.out_dir, journal, manifest_applied)
    shutil.rmtree(SiteWriter.staging_for(options.out_dir), ignore_errors=True)  # a build killed before or after
    owned = Manifest.load(manifest_path)  # what the previous build wrote: the only files a build removes
    if resumed is not None and (not resumed.whole or _file_token(manifest_path) != resumed.token):
        notice(f"{journal}: the interrupted build's record was incomplete: every page is rendered again")
        owned.inputs = owned.code = ""
        if owned.pages:
            owned.save(manifest_path)
    _check_owned(options.out_dir, owned, manifest_path, options.clean)
    code = digest(code_digest(options.project), options.page_options())
    inputs = digest(inputs_digest(options.project, code), options.prices_as_of) if options.catalog_dir.is_dir() else ""
    manifest = Manifest() if options.force or options.clean else owned
    if inputs and manifest.inputs == inputs and manifest.site_intact(options.out_dir):
        report.pages = sum(1 for name in manifest.pages.values() if name and name != OPEN_DATA)
        report.unchanged = len(manifest.pages)
        report.warnings = list(manifest.warnings)
        _strict(options, report)
        report.seconds = time.monotonic() - started
        return report
    clock = _StageClock(report.stages, started)
    progress.stage("loading catalogue")
    parsed = ParsedFiles(cache_dir / f"{options.out_dir.name}.catalog.pickle")
    catalog = check_catalog(load_catalog(options.catalog_dir, parsed), options.catalog_dir)
    parsed.save()
    newest_price = newest_price_date(catalog)
    if options.prices_as_of is not None and newest_price is not None and options.prices_as_of < newest_price:
        raise UsageError(Problem("--prices-as-of", "", f"{options.prices_as_of} is before the catalogue's newest "
                                 f"cloud price ({newest_price}): price ages would be negative"))
    for status in compile_locales(options.locales_dir):
        report.warnings += [f"locales/{status.language}: untranslated message: {m!r}" for m in status.untranslated]
        report.warnings += [f"locales/{status.language}: fuzzy message: {m!r}" for m in status.fuzzy]
        report.warnings += [f"locales/{status.language}: translation left out, its placeholders differ from the "
                            f"message's: {m!r}" for m in status.bad_placeholders]
        report.warnings += [f"locales/{status.language}: unreadable .po line skipped: {p}" for p in status.syntax]
    _strict(options, report)
    clock.lap("load")
    progress.stage("estimating")
    estimates = ModelEstimates(catalog, EstimateStore(cache_dir / f"{options.out_dir.name}.estimates.pickle",
                                                      store_version(ModelEstimates.__module__)))
    jobs = options.jobs or min(os.cpu_count() or 1, MAX_JOBS)
    renderer = make_renderer(options)  # its templates compile here while the estimate workers run, once for all
    estimate_pages(estimates, jobs, meanwhile=renderer.load_templates)
    site = SiteData(catalog, prices_as_of=options.prices_as_of, estimates=estimates)  # frozen: workers inherit it
    every_page = not manifest.pages or manifest.code != code  # then the previous reads say nothing
    table = ReadTable([] if every_page else manifest.reads, {} if every_page else manifest.subjects)
    if not every_page:
        table.check(site)
    clock.lap("estimate")
    pages = plan_pages(catalog)
    report.pages = len(pages)
    writer = SiteWriter(options.out_dir)
    previous_files: dict[str, list[str]] = {}  # each subject's files in the previous build
    for path, name in manifest.pages.items():
        previous_files.setdefault(name, []).append(path)

    def current(name: str, paths: list[str]) -> bool:
        """Whether a subject's files of the previous build stand: the same files, nothing they read changed."""
        return (not every_page and table.current(name) and sorted(previous_files.get(name, ())) == sorted(paths)
                and writer.keep_all(tuple(paths)))

    site_digest = digest(code, options.base_url, [page.output_path for page in pages])  # all the sitemaps show

    def write_site_files() -> None:
        kept = manifest.site == site_digest and writer.keep_all(seo.site_paths())
        for path, data in [*([] if kept else seo.site_files(catalog, pages, options.base_url)), *assets.files(options.project)]:
            writer.write(path, data)

    open_data: list[str] = []

    def write_open_data() -> None:
        if current(OPEN_DATA, previous_files.get(OPEN_DATA, [])):
            open_data.extend(previous_files[OPEN_DATA])
            return
        recorder = Recorder(site)
        with recorder.subject(OPEN_DATA):
            files = opendata.files(recorder.site, options.base_url)
        table.absorb(*_recorded(recorder), site=site)
        for path, data in files:
            writer.write(path, data)
            open_data.append(path)

    # This process's own work, done while the workers render.
    meanwhile = [estimates.save_store, write_site_files, write_open_data]
    chunks: Generator[tuple[list[tuple[str, bool]], Reads]] | None = None
    try:
        by_subject: dict[str, list[Page]] = {}
        for page in pages:
            by_subject.setdefault(subject(page.key), []).append(page)
        stale = [page for name, files in by_subject.items() if not current(name, [p.output_path for p in files])
                 for page in files]
        progress.total = len(stale)
        for page in stale:
            writer.claim(page.output_path)
        # A pool costs a fork per worker and a cold view memo in each: only worth it beyond a chunk of pages.
        chunks = render_pages(stale, options, site, jobs if len(stale) > CHUNK_PAGES else 1, renderer)
        for chunk, recorded in chunks:
            for path, staged in chunk:
                writer.record(path, staged)
            table.absorb(*recorded, site=site)
            progress.advance(len(chunk))
            while meanwhile:
                meanwhile.pop(0)()
        while meanwhile:
            meanwhile.pop(0)()
        clock.lap("render")
        files = {p.output_path: subject(p.key) for p in pages}
        files.update((path, OPEN_DATA) for path in open_data)
        reads, subjects = table.saved(set(files.values()))
        new_manifest = Manifest(inputs, files, site_digest, report.warnings, code, reads, subjects)
        new_manifest.pages.update({path: "" for path in writer.report.paths if path not in new_manifest.pages})
        new_manifest.save(next_manifest)
        written = writer.commit(set(owned.pages), journal, manifest_applied, clean=options.clean,
                                token=_file_token(next_manifest))
    except BaseException:
        if chunks is not None:
            chunks.close()  # stops the render workers first: none may write into the staging folder after this
        writer.abort()
        raise
    finally:
        progress.close()
        _STATE.clear()  # the serial path's renderer and site data: free them for the next build in this process
    clock.lap("write")
    report.written, report.unchanged, report.removed = written.written, written.unchanged, written.removed
    report.seconds = time.monotonic() - started
    return report
