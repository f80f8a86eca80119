"""Incremental builds: content digests of the inputs, a manifest of what each page was built from, an estimate store."""

from __future__ import annotations

import gc
import hashlib
import json
import pickle
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from . import __version__
from .estimate.api import Estimate

GENERATOR_DIR = Path(__file__).resolve().parent
# GPU fields no estimate reads: editing them must not invalidate cached estimates.
GPU_FIELDS_OUTSIDE_ESTIMATES = {"price_usd", "price_kind", "price_date", "sources", "notes", "aliases", "launch_date"}


def digest(*parts: Any) -> str:
    """A short, stable hash of strings, bytes or reprs."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else repr(part).encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


def files_digest(paths: Iterable[Path], root: Path) -> str:
    """Digest of file names (relative to ``root``) and contents."""
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def code_digest(project: Path) -> str:
    """The generator's code and data, the templates and the locales: a change here rebuilds every page."""
    generator_files = [p for p in GENERATOR_DIR.rglob("*") if p.suffix in (".py", ".csv") and "__pycache__" not in p.parts]
    return digest(__version__, files_digest(generator_files, GENERATOR_DIR),
                  files_digest([p for p in (project / "templates").rglob("*") if p.is_file()], project),
                  files_digest(list((project / "locales").rglob("*.po")), project))


def estimator_digest() -> str:
    """The estimator's code and bundled data: stored estimates stay valid while this is unchanged."""
    files = [p for p in GENERATOR_DIR.rglob("*") if p.suffix in (".py", ".csv") and "__pycache__" not in p.parts
             and (p.parent.name in ("estimate", "data") or p.name == "results.py")]  # results.py picks setups
    return digest(__version__, files_digest(files, GENERATOR_DIR))


def inputs_digest(project: Path, code: str) -> str:
    """Everything a build reads: code plus every catalogue file."""
    return digest(code, files_digest(list((project / "catalog").rglob("*.yaml")), project))


@dataclass
class Manifest:
    """What the previous build was made from: the inputs digest, each output file's dependency digest and the
    digest of what the site-wide files (sitemaps) list."""

    inputs: str = ""
    pages: dict[str, str] = field(default_factory=dict)
    site: str = ""

    @classmethod
    def load(cls, path: Path) -> "Manifest":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(inputs=data["inputs"], pages=dict(data["pages"]), site=str(data.get("site", "")))
        except (OSError, ValueError, KeyError, TypeError):
            return cls()

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"inputs": self.inputs, "pages": self.pages, "site": self.site}, sort_keys=True),
                       encoding="utf-8")
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


class EstimateStore:
    """Estimates of earlier builds keyed by content digests, so an unrelated edit reuses them.

    ``Estimate`` values are saved as plain tuples of their fields and turned back into objects on first use: an
    incremental build checks every key but reads few estimates, and tuples load three times faster."""

    def __init__(self, path: Path | None = None, code: str = ""):
        """The store saved at ``path`` by the same estimator ``code``; with no path, one kept in memory only."""
        self.path, self.code = path, code
        self.entries: dict[tuple, Any] = {}
        self._packed: dict[tuple, tuple] = {}  # saved estimates not yet used in this process, as field tuples
        self.dirty = False
        if path is None:
            return
        try:
            with path.open("rb") as handle, collector_paused():
                saved_code, entries, packed = pickle.load(handle)
            if saved_code == code:
                self.entries, self._packed = entries, packed
        except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError):
            pass

    def get(self, key: tuple) -> Any:
        found = self.entries.get(key)
        if found is None and key in self._packed:
            found = self.entries[key] = Estimate._make(self._packed.pop(key))
        return found

    def has(self, key: tuple) -> bool:
        """Whether the store holds a value for ``key`` (without unpacking it)."""
        return key in self.entries or key in self._packed

    def put(self, key: tuple, value: Any) -> None:
        self.entries[key] = value
        self.dirty = True

    def put_packed(self, key: tuple, fields: tuple) -> None:
        """Put an estimate given as :func:`pack` made it (unpacked on first get)."""
        self.entries.pop(key, None)
        self._packed[key] = fields
        self.dirty = True

    def save(self, keep: set[tuple] | None = None) -> None:
        """Write the store (only the keys still in use, when given)."""
        if not self.dirty or self.path is None:
            return
        plain = {}
        packed = {k: v for k, v in self._packed.items() if keep is None or k in keep}
        for k, v in self.entries.items():
            if keep is None or k in keep:
                if type(v) is Estimate:
                    packed[k] = pack(v)
                else:
                    plain[k] = v
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with tmp.open("wb") as handle:
            pickle.dump((self.code, plain, packed), handle, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(self.path)


ASSUMPTIONS = Estimate._fields.index("assumptions")  # where a packed estimate keeps its assumption list


def pack(estimate: Estimate) -> tuple:
    """An estimate as the tuple of its fields: how the store saves it and workers send it."""
    return tuple(estimate)
