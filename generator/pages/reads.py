"""What a page reads from site data, recorded as it reads it (as Sphinx's ``note_dependency``), not declared.

``recording(results)`` gives a stand-in for ``Results`` whose catalogue hands out entries that note every field
read from them, by views and templates alike, into a ``ReadLog``. Today a test holds ``pages/deps.py`` (the
declared digests) to these records; the next step is to keep the records in the manifest instead.
"""

from __future__ import annotations

from typing import Any

ReadLog = set[tuple[str, str, str]]  # (catalogue folder, entry id, field)


class RecordedEntry:
    """A catalogue entry that notes each field read from it (one stand-in per entry, so identity holds)."""

    __slots__ = ("_entry", "_folder", "_log")

    def __init__(self, entry: Any, folder: str, log: ReadLog):
        object.__setattr__(self, "_entry", entry)
        object.__setattr__(self, "_folder", folder)
        object.__setattr__(self, "_log", log)

    def __getattr__(self, name: str) -> Any:
        self._log.add((self._folder, self._entry.id, name))
        return getattr(self._entry, name)


class RecordingCatalog:
    """The catalogue with recorded entries."""

    def __init__(self, catalog: Any, log: ReadLog):
        self._catalog = catalog
        self.models = {k: RecordedEntry(v, "models", log) for k, v in catalog.models.items()}
        self.gpus = {k: RecordedEntry(v, "gpus", log) for k, v in catalog.gpus.items()}
        self.clouds = {k: RecordedEntry(v, "clouds", log) for k, v in catalog.clouds.items()}

    def offers(self) -> list:
        return [(self.clouds[p.id], o) for p, o in self._catalog.offers()]


class RecordingResults:
    """``Results`` for views, with the catalogue recorded; everything else is the real object's (so values it
    computes and keeps read the catalogue unrecorded: they are cross-page data, digested by ``pages/deps.py``)."""

    def __init__(self, results: Any, log: ReadLog):
        self._results = results
        self.catalog = RecordingCatalog(results.catalog, log)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._results, name)


def recording(results: Any) -> tuple[RecordingResults, ReadLog]:
    """A recorded stand-in for ``results`` and the log its reads go to."""
    log: ReadLog = set()
    return RecordingResults(results, log), log
