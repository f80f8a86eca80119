"""Incremental builds: content digests of the inputs and code, a manifest of what each page was built from, and the
one decision they serve, whether an output of the previous build is current (:class:`PreviousBuild`).

The contract, in the order a build meets it:

- **Whole site.** When the digest of the code and every catalogue file (``inputs_digest``) equals the manifest's
  and every file it lists is there, nothing is loaded or rendered (:meth:`PreviousBuild.site_current`).
- **Code.** A change to the generator's code or data, the templates, the locales, a rendering library's version or
  an option that changes page bytes (``code_digest``) makes every page stale: the recorded reads say nothing then.
- **Recorder.** Otherwise a page is stale when something it read changed. Pages read the site data through a
  recording stand-in (``pages/reads.py``, as Sphinx's ``note_dependency``, recorded, not declared): each read is a
  typed record (an entry's field, a lookup's key, a stored value's estimator inputs), kept in the manifest with a
  token of its value; the next build tokens each read again (``ReadTable``) and compares.
- **Memo replay.** A value computed once and shared between pages (a view memo, ``RecordedMemo``) keeps the reads
  that computed it and replays them into every page that uses it, so a page's reads do not depend on which page
  filled the memo.
- **Fragment cache.** A partial rendered once and reused (``pages/render.py`` ``FragmentCache``) does the same: a hit
  replays what rendering it read.
- **Files.** A page subject's files stand when the code is the same, none of its reads changed, it has the same
  files as before and all of them are there (:meth:`PreviousBuild.current`); the site-wide files (sitemaps) stand
  when what they list is the same (:meth:`PreviousBuild.listing_current`).

Whatever a manifest holds is untrusted: a read this code cannot make has a token that never matches.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

from . import __version__
from .cachefile import CorruptCache, discard
from .inputfile import CATALOG_FILE_BYTES, LOCALE_FILE_BYTES, TEMPLATE_FILE_BYTES, inside, read_input

GENERATOR_DIR = Path(__file__).resolve().parent
# Libraries whose version can change the bytes of a page (templates, escaping, translations, prose, parsing) or
# of a preview image (Pillow draws and encodes it).
RENDERING_LIBRARIES = ("jinja2", "markupsafe", "babel", "markdown", "pydantic", "pyyaml", "pillow")
# The generator's files that shape the output: its code, its measurement tables and the preview images' font.
CODE_SUFFIXES = (".py", ".csv", ".ttf")


def digest(*parts: Any) -> str:
    """A short, stable hash of strings, bytes or reprs."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else repr(part).encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


def files_digest(paths: Iterable[Path], root: Path, limit: int = TEMPLATE_FILE_BYTES) -> str:
    """Digest of file names (relative to ``root``) and contents, read as the loaders read them (:func:`read_input`:
    regular files of at most ``limit`` bytes inside ``root``; anything else is a one-line error)."""
    h = hashlib.sha256()
    for path in sorted(paths):
        shown = str(path.relative_to(root))
        h.update(shown.encode() + b"\0" + read_input(path, root, limit, shown) + b"\0")
    return h.hexdigest()[:20]


def _input_files(folder: Path, pattern: str) -> list[Path]:
    """The entries under ``folder`` matching ``pattern`` that are not plain folders: a link, pipe or device among
    them is refused by :func:`read_input` rather than skipped."""
    return [p for p in folder.rglob(pattern) if p.is_symlink() or not p.is_dir()]


def code_digest(project: Path) -> str:
    """The generator's code and data, the templates and the locales: a change here rebuilds every page."""
    return digest(__version__, library_versions(), files_digest(code_files(GENERATOR_DIR), GENERATOR_DIR),
                  files_digest(_input_files(project / "templates", "*"), project),
                  files_digest(_input_files(project / "locales", "*.po"), project, LOCALE_FILE_BYTES))


def code_files(package_dir: Path) -> list[Path]:
    """The package's files that :func:`code_digest` covers."""
    return [p for p in package_dir.rglob("*") if p.suffix in CODE_SUFFIXES and "__pycache__" not in p.parts]


@cache
def library_versions() -> tuple[tuple[str, str], ...]:
    """The installed version of each library that shapes the output (read once per process: 18 ms)."""
    return tuple((name, metadata.version(name)) for name in RENDERING_LIBRARIES)


def store_version(module: str, package_dir: Path = GENERATOR_DIR) -> str:
    """Version of stored results computed by ``module``: its source, every package module it imports (directly
    or not, at the top or in a function, with their packages' ``__init__``) and the package's data files they name.
    Any edit that can change a stored value changes this; a template, a view or a translation does not."""
    modules = [path for name in imported_modules(module, package_dir) if (path := _module_path(name, package_dir))]
    sources = [path.read_bytes() for path in modules]
    data = [p for p in package_dir.rglob("*") if p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
            and p.is_file() and any(p.name.encode() in source for source in sources)]
    return digest(__version__, files_digest([*modules, *data], package_dir))


def imported_modules(module: str, package_dir: Path = GENERATOR_DIR) -> set[str]:
    """``module`` and the modules of the package at ``package_dir`` it imports, directly or not (with each
    package's ``__init__``: importing a submodule runs it)."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen or _module_path(name, package_dir) is None:
            continue
        seen.add(name)
        todo += [name.rsplit(".", 1)[0]] if "." in name else []
        todo += module_imports(name, package_dir)
    return seen


_FROM_IMPORT = re.compile(rb"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)", re.M)
_IMPORT = re.compile(rb"^[ \t]*import[ \t]+([^\n#]*)", re.M)


def module_imports(module: str, package_dir: Path = GENERATOR_DIR) -> list[str]:
    """The package's modules that one module imports anywhere in its source (in functions too). Read as text,
    not parsed: ten times faster, and a line in a docstring that looks like an import can only add a module."""
    path = _module_path(module, package_dir)
    assert path is not None
    source = path.read_bytes()
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = []
    for match in _IMPORT.finditer(source):
        found += [part.split()[0] for part in match.group(1).decode().split(",") if part.strip()]
    for match in _FROM_IMPORT.finditer(source):
        base = match.group(1).decode()
        dots = len(base) - len(base.lstrip("."))
        if dots:
            parent = package.rsplit(".", dots - 1)[0] if dots > 1 else package
            base = f"{parent}.{base[dots:]}" if base[dots:] else parent
        names = match.group(2).decode().strip("() \n").replace("\n", " ").split(",")
        found += [base, *(f"{base}.{part.split()[0]}" for part in names if part.strip())]  # ``from . import x``
    return [name for name in dict.fromkeys(found) if _module_path(name, package_dir) is not None]


def _module_path(module: str, package_dir: Path) -> Path | None:
    """The source file of a module of the package at ``package_dir`` (None for any other module)."""
    first, _, rest = module.partition(".")
    if first != package_dir.name:
        return None
    base = package_dir.joinpath(*rest.split(".")) if rest else package_dir
    for candidate in ((base.with_suffix(".py"),) if rest else ()) + (base / "__init__.py",):
        if candidate.is_file():
            return candidate
    return None


def inputs_digest(project: Path, code: str) -> str:
    """Everything a build reads: code plus every catalogue file."""
    catalogue = list((project / "catalog").rglob("*.yaml"))  # a folder named x.yaml too: the loader refuses it
    return digest(code, files_digest(catalogue, project, CATALOG_FILE_BYTES))


@dataclass
class Manifest:
    """What the previous build was made from: the inputs and code digests, each output file's page subject, each
    subject's recorded reads (``pages/reads.py``: numbers into ``reads``, each read with its value's token), the
    digest of what the site-wide files (sitemaps) list and the warnings the build gave."""

    inputs: str = ""
    pages: dict[str, str] = field(default_factory=dict)
    site: str = ""
    warnings: list[str] = field(default_factory=list)
    code: str = ""
    reads: list[list] = field(default_factory=list)  # [read, token]
    subjects: dict[str, str] = field(default_factory=dict)  # subject: " 3 17 42 " (its reads' numbers)

    @classmethod
    def from_data(cls, data: Any) -> Manifest:
        """The manifest saved as ``data``; :class:`CorruptCache` when it is not one (a path outside the site: the
        build would delete or trust files there)."""
        if not isinstance(data, dict) or not isinstance(data.get("inputs"), str) or not isinstance(data.get("pages"), dict):
            raise CorruptCache("not a manifest")
        pages, site, warnings = data["pages"], data.get("site", ""), data.get("warnings", [])
        if not all(inside(path) and isinstance(page, str) for path, page in pages.items()):
            raise CorruptCache("a path outside the site")
        if not isinstance(site, str) or not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
            raise CorruptCache("not a manifest")
        code, reads, subjects = data.get("code", ""), data.get("reads", []), data.get("subjects", {})
        if not isinstance(code, str) or not isinstance(reads, list) or not isinstance(subjects, dict) \
                or not all(isinstance(r, list) and len(r) == 2 and isinstance(r[1], str) for r in reads) \
                or not all(isinstance(s, str) for s in subjects.values()):
            raise CorruptCache("not a manifest")
        return cls(inputs=data["inputs"], pages=dict(pages), site=site, warnings=list(warnings), code=code,
                   reads=reads, subjects=dict(subjects))

    def data(self) -> dict[str, Any]:
        """The manifest as JSON data."""
        return {"inputs": self.inputs, "pages": self.pages, "site": self.site, "warnings": self.warnings,
                "code": self.code, "reads": self.reads, "subjects": self.subjects}

    @classmethod
    def load(cls, path: Path) -> Manifest:
        """The manifest saved at ``path``; an empty one when there is none or it is corrupt (with a notice)."""
        try:
            return cls.from_data(json.loads(path.read_bytes()))
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError) as error:
            discard(path, f"unreadable ({type(error).__name__})")
        except CorruptCache as error:
            discard(path, str(error))
        return cls()

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data(), sort_keys=True, default=repr), encoding="utf-8")  # an odd read: a string
        tmp.replace(path)

    def site_intact(self, out_dir: Path) -> bool:
        """True when every file the manifest lists is still in the output folder."""
        return bool(self.pages) and all((out_dir / path).is_file() for path in self.pages)


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection meanwhile (forked workers inherit this): loading or building long-lived
    objects by the hundred thousand makes almost no cycles, but would trigger collections that rescan them."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class ReadChanges(Protocol):
    """Which page subjects' recorded reads are unchanged (``pages/reads.py`` ``ReadTable``)."""

    def unchanged(self, subject: str) -> bool: ...


class _NoReads:
    """Before the reads are checked: no subject is known unchanged."""

    def unchanged(self, subject: str) -> bool:
        return False


class PreviousBuild:
    """The previous build as the stale decision sees it: its manifest (empty for a forced build), each subject's
    files in it, and which of its reads changed (``reads``, set once the site data can be read)."""

    def __init__(self, manifest: Manifest, out_dir: Path, code: str):
        self.manifest, self.out_dir = manifest, out_dir
        self.every_page = not manifest.pages or manifest.code != code  # then its reads say nothing
        self.reads: ReadChanges = _NoReads()
        self.files: dict[str, list[str]] = {}
        for path, name in manifest.pages.items():
            self.files.setdefault(name, []).append(path)

    def site_current(self, inputs: str) -> bool:
        """Whether no input changed at all and every file of the previous build is there."""
        return bool(inputs) and self.manifest.inputs == inputs and self.manifest.site_intact(self.out_dir)

    def current(self, subject: str, paths: Sequence[str]) -> bool:
        """Whether a page subject's files of the previous build stand: the same code, nothing they read changed,
        the same files, all there."""
        return (not self.every_page and self.reads.unchanged(subject)
                and sorted(self.files.get(subject, ())) == sorted(paths) and self._present(paths))

    def listing_current(self, listing: str, paths: Sequence[str]) -> bool:
        """Whether site-wide files whose content follows from ``listing`` (a digest of what they list) stand."""
        return self.manifest.site == listing and self._present(paths)

    def _present(self, paths: Iterable[str]) -> bool:
        prefix = f"{self.out_dir}{os.sep}"
        return all(os.path.isfile(f"{prefix}{path}") for path in paths)  # a stat: a fifth of walking the site
