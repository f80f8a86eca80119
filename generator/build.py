"""The pipeline as its stages: load → estimate → plan → render and stage → shared files → commit, each a
function over one :class:`BuildState`; pages render serial or parallel through one interface (``tasks.py``)."""

from __future__ import annotations

import datetime as dt
import errno
import itertools
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field, replace
from pathlib import Path

from .buildlock import output_lock, sigterm_interrupts
from .cachefile import notice
from .catalog.check import check_catalog
from .catalog.freshness import newest_price_date
from .catalog.load import ParsedFiles, load_catalog
from .catalog.schema import Catalog
from .errors import Problem, UsageError, UserError
from .i18n import compile_locales
from .incremental import (
    GENERATOR_DIR,
    Manifest,
    PreviousBuild,
    code_digest,
    collector_paused,
    digest,
    inputs_digest,
    store_version,
)
from .links import is_safe_href
from .pages import assets, context, opendata, seo
from .pages.reads import Read, ReadTable, Recorder
from .pages.render import Renderer
from .pages.write import SiteWriter, resume, stage_file
from .progress import Progress, StageClock
from .sitedata import EstimateStore, ModelEstimates, SiteData
from .tasks import tasks
from .views.plan import Page, PageKey, plan_pages

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


def make_renderer(options: BuildOptions) -> Renderer:
    """The build's renderer: compiled templates cached beside the output folder."""
    return Renderer(options.templates_dir, options.locales_dir, assets.names(options.project),
                    options.out_dir.parent / ".cache" / "jinja")


class RenderWorker:
    """A process's page renderer: renders chunks of pages and stages their files, recording what the pages read."""

    def __init__(self, options: BuildOptions, site: SiteData, renderer: Renderer | None = None):
        self.options = options
        self.renderer = renderer or make_renderer(options)
        self.recorder = Recorder(site)  # pages read the site data through it: what they read is recorded
        self.made_dirs: set[Path] = set()  # staging folders this process created (a new staging folder per build)

    def render(self, pages: list[Page]) -> list[tuple[str, bytes]]:
        """Each page's output path and bytes."""
        rendered = []
        for page in pages:
            with self.recorder.subject(subject(page.key)):
                rendered.append((page.output_path, context.render_page(self.recorder.site, self.renderer, page,
                                                                       self.options.base_url)))
        return rendered

    def __call__(self, pages: list[Page]) -> tuple[list[tuple[str, bool]], Reads]:
        """Render pages and stage each changed file from this process: only paths and what the pages read travel
        back to the parent."""
        out_dir = self.options.out_dir
        staging = SiteWriter.staging_for(out_dir)
        staged = [(path, stage_file(out_dir, staging, path, data, self.made_dirs)) for path, data in self.render(pages)]
        return staged, _recorded(self.recorder)


def _recorded(recorder: Recorder) -> Reads:
    return ((os.getpid(), id(recorder)), *recorder.flush())


def estimate_pages(estimates: ModelEstimates, jobs: int, renderer: Renderer | None = None) -> None:
    """Compute every result the pages need, model by model, in one process or a pool: the stage's hot loop.
    ``renderer``'s templates compile in this process meanwhile."""
    keys = estimates.keys
    keys.model_digests, keys.gpu_spec_digests, keys.gpu_specs_digest  # noqa: B018 - once here, not in every worker
    missing = [m for m in sorted(estimates.models) if not estimates.stored(m)]  # the others come from the store
    if jobs <= 1 or len(missing) <= 1:  # computed here directly: nothing to encode for another process
        if renderer is not None:
            renderer.load_templates()
        estimates.compute(missing)
        return
    with tasks(jobs, lambda: estimates.page_answer) as pool:
        answers = pool.run_unordered([m] for m in missing)
        if renderer is not None:
            renderer.load_templates()
        for answer in answers:
            estimates.absorb(answer)


def _chunks(pages: list[Page], jobs: int = 1) -> Iterator[list[Page]]:
    """Chunks of at most CHUNK_PAGES pages, smaller when there are few pages, so that every worker gets some."""
    size = max(1, min(CHUNK_PAGES, -(-len(pages) // (2 * jobs))))
    for start in range(0, len(pages), size):
        yield pages[start:start + size]


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
        with collector_paused(), output_lock(CacheFiles(options.out_dir).named("lock"), options.out_dir), \
                sigterm_interrupts():
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


@dataclass(frozen=True)
class CacheFiles:
    """Where the build of an output folder keeps its records: beside the folder, in ``.cache``."""

    out_dir: Path

    def named(self, suffix: str) -> Path:
        return cache_dir_of(self.out_dir) / f"{self.out_dir.name}.{suffix}"

    @property
    def manifest(self) -> Path:
        return self.named("manifest.json")

    @property
    def next_manifest(self) -> Path:
        """The new manifest, saved before a commit and moved into place by it."""
        return self.named("manifest.next.json")

    @property
    def journal(self) -> Path:
        return self.named("journal.json")

    def manifest_applied(self) -> None:
        """Move the next manifest into place (a commit's last step, or its completion after a kill)."""
        with suppress(FileNotFoundError):  # a killed build had moved it already (or someone removed it: see _begin)
            self.next_manifest.replace(self.manifest)


@dataclass
class BuildState:
    """One build, handed from stage to stage: each stage sets the fields after its comment."""

    options: BuildOptions
    files: CacheFiles
    started: float
    report: BuildReport
    clock: StageClock
    progress: Progress
    owned: Manifest  # what the previous build wrote: the only files a build removes
    previous: PreviousBuild  # the previous build as the stale decision sees it (none with --force or --clean)
    code: str  # digest of the code, templates, locales and page options
    inputs: str  # digest of the code and the catalogue ("" without a catalogue)
    # load
    catalog: Catalog = field(init=False)
    # estimate
    jobs: int = field(init=False)
    estimates: ModelEstimates = field(init=False)
    renderer: Renderer = field(init=False)
    site: SiteData = field(init=False)
    table: ReadTable = field(init=False)
    # plan
    pages: list[Page] = field(init=False)
    site_digest: str = field(init=False)  # of all the sitemaps show
    kept: list[str] = field(default_factory=list)  # the previous build's files that stand
    stale: list[Page] = field(default_factory=list)  # the pages to render
    # render and stage, shared files, commit
    writer: SiteWriter = field(init=False)
    open_data: list[str] = field(default_factory=list)


def _build(options: BuildOptions) -> BuildReport:
    """The stages, in order; the old site stays untouched until the commit."""
    state = _begin(options)
    if state.previous.site_current(state.inputs):
        return _unchanged(state)
    _load(state)
    _estimate(state)
    _plan(state)
    state.writer = SiteWriter(options.out_dir)
    try:
        _render_and_stage(state)  # this process writes the shared files (_shared_files) while the workers render
        _commit(state)
    except BaseException:
        state.writer.abort()
        raise
    finally:
        state.progress.close()
    state.report.seconds = time.monotonic() - state.started
    return state.report


def _begin(options: BuildOptions) -> BuildState:
    """Complete a commit a killed build left half done, read the previous build's record and digest the inputs."""
    started = time.monotonic()
    files = CacheFiles(options.out_dir)
    resumed = resume(options.out_dir, files.journal, files.manifest_applied)
    shutil.rmtree(SiteWriter.staging_for(options.out_dir), ignore_errors=True)  # a build killed before or after
    owned = Manifest.load(files.manifest)
    if resumed is not None and (not resumed.whole or _file_token(files.manifest) != resumed.token):
        notice(f"{files.journal}: the interrupted build's record was incomplete: every page is rendered again")
        owned.inputs = owned.code = ""
        if owned.pages:
            owned.save(files.manifest)
    _check_owned(options.out_dir, owned, files.manifest, options.clean)
    code = digest(code_digest(options.project), options.page_options())
    inputs = digest(inputs_digest(options.project, code), options.prices_as_of) if options.catalog_dir.is_dir() else ""
    report = BuildReport()
    previous = PreviousBuild(Manifest() if options.force or options.clean else owned, options.out_dir, code)
    return BuildState(options, files, started, report, StageClock(report.stages, started),
                      Progress(0, options.quiet), owned, previous, code, inputs)


def _unchanged(state: BuildState) -> BuildReport:
    """The report of a build that found the whole site current."""
    report, manifest = state.report, state.previous.manifest
    report.pages = sum(1 for name in manifest.pages.values() if name and name != OPEN_DATA)
    report.unchanged = len(manifest.pages)
    report.warnings = list(manifest.warnings)
    _strict(state.options, report)
    report.seconds = time.monotonic() - state.started
    return report


def _load(state: BuildState) -> None:
    """Load and check the catalogue; compile the translations (their gaps are warnings)."""
    options, report = state.options, state.report
    state.progress.stage("loading catalogue")
    parsed = ParsedFiles(state.files.named("catalog.pickle"))
    state.catalog = check_catalog(load_catalog(options.catalog_dir, parsed), options.catalog_dir)
    parsed.save()
    newest_price = newest_price_date(state.catalog)
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
    state.clock.lap("load")


def _estimate(state: BuildState) -> None:
    """Compute (or take from the store) every estimate the pages show; check which recorded reads changed."""
    options = state.options
    state.progress.stage("estimating")
    state.estimates = ModelEstimates(state.catalog, EstimateStore(state.files.named("estimates.pickle"),
                                                               store_version(ModelEstimates.__module__)))
    state.jobs = options.jobs or min(os.cpu_count() or 1, MAX_JOBS)
    state.renderer = make_renderer(options)  # its templates compile while the estimate workers run, once for all
    estimate_pages(state.estimates, state.jobs, state.renderer)
    # Frozen: the render workers inherit it.
    state.site = SiteData(state.catalog, prices_as_of=options.prices_as_of, estimates=state.estimates)
    previous = state.previous
    manifest = Manifest() if previous.every_page else previous.manifest  # then the previous reads say nothing
    state.table = ReadTable(manifest.reads, manifest.subjects)
    state.table.check(state.site)
    previous.reads = state.table
    state.clock.lap("estimate")


def _plan(state: BuildState) -> None:
    """Plan every page; the stale ones are those whose subject's files of the previous build do not stand."""
    state.pages = plan_pages(state.catalog)
    state.report.pages = len(state.pages)
    state.site_digest = digest(state.code, state.options.base_url, [page.output_path for page in state.pages])
    by_subject: dict[str, list[Page]] = {}
    for page in state.pages:
        by_subject.setdefault(subject(page.key), []).append(page)
    for name, pages in by_subject.items():
        paths = [page.output_path for page in pages]
        if state.previous.current(name, paths):
            state.kept += paths
        else:
            state.stale += pages


def _render_and_stage(state: BuildState) -> None:
    """Render the stale pages and stage their files, in this process or a pool; the shared files meanwhile."""
    writer, pages = state.writer, state.stale
    writer.keep(state.kept)
    for page in pages:
        writer.claim(page.output_path)
    state.progress.total = len(pages)
    # A pool costs a fork per worker and a cold view memo in each: only worth it beyond a chunk of pages.
    jobs = state.jobs if len(pages) > CHUNK_PAGES else 1
    with tasks(jobs, lambda: RenderWorker(state.options, state.site, state.renderer)) as workers:
        chunks = workers.run(_chunks(pages, jobs))
        for rendered in itertools.islice(chunks, 1):
            _take(state, rendered)
        _shared_files(state)  # this process's own work, done while the workers render the other chunks
        for rendered in chunks:
            _take(state, rendered)
    state.clock.lap("render")


def _take(state: BuildState, rendered: tuple[list[tuple[str, bool]], Reads]) -> None:
    """Record a rendered chunk: its staged files with the writer, what its pages read in the read table."""
    chunk, recorded = rendered
    for path, staged in chunk:
        state.writer.record(path, staged)
    state.table.absorb(*recorded, site=state.site)
    state.progress.advance(len(chunk))


def _shared_files(state: BuildState) -> None:
    """The estimate store, the site-wide files (sitemaps, robots, assets) and the open data."""
    options, writer = state.options, state.writer
    state.estimates.save_store()
    site_paths = seo.site_paths()
    sitemaps_current = state.previous.listing_current(state.site_digest, site_paths)
    if sitemaps_current:
        writer.keep(site_paths)
    for path, data in [*([] if sitemaps_current else seo.site_files(state.catalog, state.pages, options.base_url)),
                       *assets.files(options.project)]:
        writer.write(path, data)
    previous = state.previous.files.get(OPEN_DATA, [])
    if state.previous.current(OPEN_DATA, previous):
        writer.keep(previous)
        state.open_data = previous
        return
    recorder = Recorder(state.site)
    with recorder.subject(OPEN_DATA):
        files = opendata.files(recorder.site, options.base_url)
    state.table.absorb(*_recorded(recorder), site=state.site)
    for path, data in files:
        writer.write(path, data)
        state.open_data.append(path)


def _commit(state: BuildState) -> None:
    """Save the next manifest, then apply the staged site to the output folder (see :meth:`SiteWriter.commit`)."""
    files = {page.output_path: subject(page.key) for page in state.pages}
    files.update((path, OPEN_DATA) for path in state.open_data)
    reads, subjects = state.table.saved(set(files.values()))
    report = state.report
    new_manifest = Manifest(state.inputs, files, state.site_digest, report.warnings, state.code, reads, subjects)
    new_manifest.pages.update({path: "" for path in state.writer.report.paths if path not in new_manifest.pages})
    new_manifest.save(state.files.next_manifest)
    written = state.writer.commit(set(state.owned.pages), state.files.journal, state.files.manifest_applied,
                                  clean=state.options.clean, token=_file_token(state.files.next_manifest))
    state.clock.lap("write")
    report.written, report.unchanged, report.removed = written.written, written.unchanged, written.removed
