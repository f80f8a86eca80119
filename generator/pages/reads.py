"""What a page reads from site data, recorded as it reads it (as Sphinx's ``note_dependency``), not declared.

A page renders against ``RecordingSiteData``: a stand-in whose catalogue hands out entries that note every field
read from them, and whose lookups note what they were asked (a stored value notes the estimator inputs its store
key digests; any other value is compared by value). Memos shared between pages keep the reads that filled them and
replay them on a hit. The manifest keeps each page subject's reads with a token of each read's value; the next
build re-reads only what changed (``ReadTable``). The contract these serve: ``incremental.py``.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from itertools import repeat
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, cast

from ..catalog.schema import CloudProvider, Gpu, Model
from ..incremental import digest
from ..sitedata.site import Input, SharedInput


# The reads, as records. Each starts with its kind, so that records of two kinds never compare equal, and the
# manifest keeps each as the JSON list of its fields.
class EntryRead(NamedTuple):
    """A field of a catalogue entry."""

    kind: Literal["entry"]
    folder: str
    id: str
    field: str


class HasRead(NamedTuple):
    """Whether a catalogue folder holds an entry of this id."""

    kind: Literal["has"]
    folder: str
    id: Any


class IdsRead(NamedTuple):
    """The ids of a catalogue folder's entries."""

    kind: Literal["ids"]
    folder: str


class OffersRead(NamedTuple):
    """Every cloud offer."""

    kind: Literal["offers"]


class AttrRead(NamedTuple):
    """A plain site-data value."""

    kind: Literal["attr"]
    name: str


class ItemRead(NamedTuple):
    """One key of a site-data table that is compared by value."""

    kind: Literal["item"]
    name: str
    key: Any


class KeysRead(NamedTuple):
    """The keys of a site-data table."""

    kind: Literal["keys"]
    name: str


class CallRead(NamedTuple):
    """A site-data lookup's value for these arguments (``kwargs`` as sorted pairs)."""

    kind: Literal["call"]
    name: str
    args: tuple
    kwargs: tuple


class UnknownRead(NamedTuple):
    """A read this code cannot make (a manifest may name anything): its token never matches."""

    kind: Literal["?"]
    data: Any


Read = (EntryRead | HasRead | IdsRead | OffersRead | AttrRead | ItemRead | KeysRead | CallRead | Input | SharedInput
        | UnknownRead)
# Each kind of read by its kind and number of fields, to type the manifest's reads again.
_READ_TYPES: dict[tuple[str, int], Callable[[Iterable[Any]], Read]] = {
    ("entry", 4): EntryRead._make, ("has", 3): HasRead._make, ("ids", 2): IdsRead._make,
    ("offers", 1): OffersRead._make, ("attr", 2): AttrRead._make, ("item", 3): ItemRead._make,
    ("keys", 2): KeysRead._make, ("call", 4): CallRead._make,
    ("input", 3): Input._make, ("input", 2): SharedInput._make, ("?", 2): UnknownRead._make}
if TYPE_CHECKING:
    from ..sitedata import SiteData

FOLDERS: dict[type, str] = {Model: "models", Gpu: "gpus", CloudProvider: "clouds"}
# Site-data lookups whose values hold catalogue entries: they are handed out recorded, and compared with each
# entry named by its id (its fields are reads of their own). Any other value is compared whole.
ENTRY_VALUES = frozenset({"offers_by_gpu", "cheapest_setups"})

_LOGS: list[set[Read]] = []  # the reads being recorded, innermost last
# Entries a per-process memo holds before it starts afresh (its results do not change, only whether they are computed
# again): more than today's catalogue puts in the view memo or the fragment cache of one language, fewer than a 10x
# catalogue's pairs would.
MEMO_LIMIT = 32_768


def make_room(table: dict, *alongside: dict) -> None:
    """Start ``table`` afresh, with the tables kept in step with it, when it holds ``MEMO_LIMIT`` entries."""
    if len(table) >= MEMO_LIMIT:
        table.clear()
        for other in alongside:
            other.clear()


def note(read: Read) -> None:
    """Record one read into the innermost log, if any."""
    if _LOGS:
        _LOGS[-1].add(read)


def replay(reads: Iterable[Read]) -> None:
    """Record reads made earlier (a memo hit: what filled it is read again)."""
    if _LOGS:
        _LOGS[-1].update(reads)


def open_log() -> int:
    """Start recording into a new log; returns its depth, for :func:`close_log`."""
    _LOGS.append(set())
    return len(_LOGS) - 1


def close_log(depth: int) -> frozenset[Read]:
    """Stop recording the log opened at ``depth`` (and any opened within it); its reads are also noted in the
    enclosing log. Returns them."""
    if depth >= len(_LOGS):
        return frozenset()
    for inner in _LOGS[depth + 1:]:  # one a memo miss left open: its reads are this log's too
        _LOGS[depth].update(inner)
    log = frozenset(_LOGS[depth])
    del _LOGS[depth:]
    if _LOGS:
        _LOGS[-1].update(log)
    return log


@contextmanager
def recorded() -> Iterator[set[Read]]:
    """Record the reads of the block into a new log (also noted in the enclosing log)."""
    depth = open_log()
    log = _LOGS[depth]
    try:
        yield log
    finally:
        close_log(depth)


class RecordedMemo(dict):
    """A memo (``Lang.memo``) whose entries keep the reads that computed them: a hit replays them. A miss opens a
    log that the next store under the same key closes (``Lang.shared``: look up, else compute and store)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: dict[Any, frozenset[Read]] = {}
        self._open: list[tuple[Any, int]] = []

    def __getitem__(self, key: Any) -> Any:
        try:
            value = dict.__getitem__(self, key)
        except KeyError:
            self._open.append((key, open_log()))
            raise
        if _LOGS:
            _LOGS[-1].update(self.reads.get(key, ()))
        return value

    def __setitem__(self, key: Any, value: Any) -> None:
        if key not in self:
            make_room(self, self.reads)
        dict.__setitem__(self, key, value)
        if self._open and self._open[-1][0] == key:
            self.reads[key] = close_log(self._open.pop()[1])


class RecordedEntry:
    """A catalogue entry that notes each field read from it (one stand-in per entry and process). Its ``id`` is
    no read: it is how the entry was found, and that lookup is noted (a third of all reads, so a plain slot)."""

    __slots__ = ("_entry", "_folder", "_reads", "id")

    def __init__(self, entry: Any, folder: str):
        object.__setattr__(self, "_entry", entry)
        object.__setattr__(self, "_folder", folder)
        object.__setattr__(self, "_reads", {})  # by field: its read, made once (a record costs a tuple's time thrice)
        object.__setattr__(self, "id", entry.id)

    def __getattr__(self, name: str) -> Any:
        if _LOGS:
            read = self._reads.get(name)
            if read is None:
                read = self._reads[name] = EntryRead("entry", self._folder, self.id, name)
            _LOGS[-1].add(read)
        return getattr(self._entry, name)


class RecordedEntries(Mapping):
    """One catalogue folder's entries, recorded: listing them is a read of the folder's ids."""

    def __init__(self, entries: dict[str, Any], folder: str):
        self._folder = folder
        self._recorded = {k: RecordedEntry(v, folder) for k, v in entries.items()}
        self._has: dict[Any, HasRead] = {}  # by id: its read, made once
        self._ids = IdsRead("ids", folder)

    def _note(self, key: Any) -> None:
        if _LOGS:
            read = self._has.get(key)
            if read is None:
                make_room(self._has)
                read = self._has[key] = HasRead("has", self._folder, key)
            _LOGS[-1].add(read)

    def __getitem__(self, key: str) -> RecordedEntry:
        self._note(key)
        return self._recorded[key]

    def get(self, key: str, default: Any = None) -> Any:
        self._note(key)
        return self._recorded.get(key, default)

    def __contains__(self, key: object) -> bool:
        self._note(key)
        return key in self._recorded

    def __iter__(self) -> Iterator[str]:
        note(self._ids)
        return iter(self._recorded)

    def __len__(self) -> int:
        note(self._ids)
        return len(self._recorded)


class RecordingCatalog:
    """The catalogue with recorded entries."""

    def __init__(self, catalog: Any):
        self._catalog = catalog
        self.models = RecordedEntries(catalog.models, "models")
        self.gpus = RecordedEntries(catalog.gpus, "gpus")
        self.clouds = RecordedEntries(catalog.clouds, "clouds")

    def recorded(self, entry: Any) -> RecordedEntry:
        """The recorded stand-in of a catalogue entry."""
        return getattr(self, FOLDERS[type(entry)])._recorded[entry.id]

    def offers(self) -> list:
        note(OffersRead("offers"))
        return [(self.clouds._recorded[p.id], o) for p, o in self._catalog.offers()]


class RecordedLookups(Mapping):
    """A site-data table (a dict attribute), recorded by key; listing it is a read of its keys."""

    def __init__(self, name: str, table: dict, follows: Callable[..., tuple[Read, ...]] | None,
                 hand_out: Callable[[Any], Any] | None):
        self._name, self._table, self._follows, self._hand_out = name, table, follows, hand_out
        self._reads: dict[Any, tuple[Read, ...]] = {}  # by key: what a lookup notes, made once

    def _note(self, key: Any) -> None:
        if _LOGS:
            found = self._reads.get(key)
            if found is None:
                make_room(self._reads)
                found = self._reads[key] = (ItemRead("item", self._name, key),) if self._follows is None \
                    else self._follows(key)
            _LOGS[-1].update(found)

    def __getitem__(self, key: Any) -> Any:
        self._note(key)
        value = self._table[key]
        return value if self._hand_out is None else self._hand_out(value)

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default  # noqa: SIM401 - this is the get that self.get would call

    def __contains__(self, key: object) -> bool:
        self._note(key)
        return key in self._table

    def __iter__(self) -> Iterator[Any]:
        note(KeysRead("keys", self._name))
        return iter(self._table)

    def __len__(self) -> int:
        note(KeysRead("keys", self._name))
        return len(self._table)


class RecordingSiteData:
    """``SiteData`` for pages, every read recorded (one per site data and process). A stored value's lookup notes
    the estimator inputs its store key digests (``SiteData.inputs``); any other notes its name and arguments."""

    def __init__(self, site: Any):
        self._site = site
        self.catalog = RecordingCatalog(site.catalog)

    def _hand_out(self, value: Any) -> Any:
        return _swap_entries(value, self.catalog.recorded)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        value = getattr(self._site, name)
        follows = self._site.inputs(name)
        hand_out = self._hand_out if name in ENTRY_VALUES else None
        if isinstance(value, dict):
            wrapped: Any = RecordedLookups(name, value, follows, hand_out)
        elif callable(value):
            noted: dict[tuple, tuple[Read, ...]] = {}  # by arguments: what a call notes, made once

            def wrapped(*args: Any, **kwargs: Any) -> Any:
                if _LOGS:
                    key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
                    reads = noted.get(key)
                    if reads is None:
                        make_room(noted)
                        reads = noted[key] = follows(*args) if follows is not None and args else (
                            CallRead("call", name, args, key[1] if kwargs else ()),)
                    _LOGS[-1].update(reads)
                found = value(*args, **kwargs)
                return found if hand_out is None else hand_out(found)
        else:
            note(AttrRead("attr", name))
            return value
        self.__dict__[name] = wrapped  # tables and lookups note each use: make them once
        return wrapped


def _swap_entries(value: Any, swap: Any) -> Any:
    """``value`` with each catalogue entry in it (in lists, plain tuples and dicts) replaced by ``swap(entry)``."""
    kind = type(value)
    if kind in FOLDERS:
        return swap(value)
    if kind is list:
        return [_swap_entries(v, swap) for v in value]
    if kind is tuple:
        return tuple(_swap_entries(v, swap) for v in value)
    if kind is dict:
        return {k: _swap_entries(v, swap) for k, v in value.items()}
    return value


def _entry_name(entry: Any) -> tuple[str, str, str]:
    return ("entry", FOLDERS[type(entry)], entry.id)


def _tuples(value: Any) -> Any:
    """JSON's lists back as the tuples they were."""
    return tuple(_tuples(v) for v in value) if isinstance(value, (list, tuple)) else value


def as_read(data: Any) -> Read:
    """A read as the manifest keeps it (the JSON list of its fields), as its record again; anything else is an
    :class:`UnknownRead`."""
    values = _tuples(data)
    make = _READ_TYPES.get((values[0], len(values))) if type(values) is tuple and values \
        and isinstance(values[0], str) else None
    return make(values) if make is not None else UnknownRead("?", values)


def token(site: Any, read: tuple[Any, ...]) -> str:
    """A digest of what ``read`` reads from ``site`` now ("!" for a read that cannot be made: it never matches)."""
    try:
        kind = read[0]
        if kind in ("entry", "has", "ids"):
            entries = {"models": site.catalog.models, "gpus": site.catalog.gpus, "clouds": site.catalog.clouds}[read[1]]
            if kind == "ids":
                return digest(list(entries))
            entry = entries.get(read[2])
            if kind == "has" or entry is None:
                return "1" if entry is not None else "0"
            field = read[3]
            if not isinstance(field, str) or field.startswith("_"):
                return "!"
            value = getattr(entry, field)
            return digest(entry.model_dump_json() if callable(value) else value)
        if kind == "offers":
            return digest([(p.id, o) for p, o in site.catalog.offers()])
        if kind == "input":
            return site.input_token(read)
        name = read[1]
        if not isinstance(name, str) or name.startswith("_") or name in ("inputs", "input_token"):
            return "!"
        value = getattr(site, name)
        if kind == "attr":
            if callable(value) or isinstance(value, dict):
                return "!"
        elif kind == "item":
            value = value[read[2]]
        elif kind == "keys":
            value = list(value)
        elif kind == "call":
            value = value(*read[2], **dict(read[3]))
        else:
            return "!"
        return digest(_swap_entries(value, _entry_name) if name in ENTRY_VALUES else value)
    except Exception:  # noqa: BLE001 - a manifest is untrusted input: any read it names that fails is "changed"
        return "!"


class ReadTable:
    """Every read the site's pages made, numbered, with its token as of the build that recorded it; and each page
    subject's reads as a string of numbers (" 3 17 42 "), compared without parsing."""

    def __init__(self, reads: list[list], subjects: dict[str, str]):
        self.items: list[Read] = [as_read(item) for item, _ in reads]
        self.previous: list[str] = [str(tok) for _, tok in reads]
        self.subjects = dict(subjects)
        self.ids = {item: i for i, item in enumerate(self.items)}
        self.tokens: list[str] = []
        self._changed: list[str] = []
        self._local: dict[Any, list[int]] = {}
        self._fresh: dict[str, array] = {}  # each subject's reads in this build, sorted numbers

    def check(self, site: Any) -> None:
        """Compute every read's token now; those that differ from the recorded ones make their subjects stale."""
        self.tokens = [token(site, item) for item in self.items]
        self._changed = [f" {i} " for i, (old, new) in enumerate(zip(self.previous, self.tokens)) if old != new]

    def unchanged(self, subject: str) -> bool:
        """Whether ``subject``'s reads were recorded and none of them changed (one part of the stale decision,
        ``incremental.PreviousBuild.current``)."""
        reads = self.subjects.get(subject)
        return reads is not None and not any(changed in reads for changed in self._changed)

    def absorb(self, source: Any, new_items: list[Read], reads: dict[str, list[int]], site: Any) -> None:
        """Take a recorder's reads (``Recorder.flush``): its new items, then per subject the numbers it gave them."""
        local = self._local.setdefault(source, [])
        for item in new_items:
            found = self.ids.get(item)
            if found is None:
                found = self.ids[item] = len(self.items)
                self.items.append(item)
                self.tokens.append(token(site, item))
                self.previous.append("")
            local.append(found)
        for subject, ids in reads.items():
            numbers = set(map(local.__getitem__, ids))
            earlier = self._fresh.get(subject)  # a subject whose pages fell into two chunks
            if earlier is not None:
                numbers.update(earlier)
            self._fresh[subject] = array("I", sorted(numbers))  # a set of them: ten times the memory

    def saved(self, subjects: Iterable[str]) -> tuple[list[list], dict[str, str]]:
        """(reads with their current tokens, each of ``subjects``' reads) for the next build's manifest."""
        for subject, ids in self._fresh.items():
            self.subjects[subject] = f" {' '.join(map(str, ids))} "
        return ([[item, tok] for item, tok in zip(self.items, self.tokens)],
                {s: self.subjects[s] for s in subjects if s in self.subjects})


class Recorder:
    """A process's recording of the pages it renders: reads by subject, numbered locally, sent in batches."""

    def __init__(self, site: Any):
        self.site = cast("SiteData", RecordingSiteData(site))  # the pages read it as site data
        self._ids: dict[Read, int] = {}
        self._new: list[Read] = []
        self._subjects: dict[str, set[int]] = {}

    @contextmanager
    def subject(self, name: str) -> Iterator[None]:
        """Record the block's reads as reads of ``name``."""
        del _LOGS[:]  # a page starts afresh (an interrupted one may have left a log open)
        with recorded() as log:
            yield
        ids = self._subjects.setdefault(name, set())
        ids.update(map(self._ids.get, log, repeat(-1)))
        if -1 in ids:  # reads this process has not numbered yet
            ids.discard(-1)
            for item in log:
                if item not in self._ids:
                    ids.add(self._ids.setdefault(item, len(self._ids)))
                    self._new.append(item)

    def flush(self) -> tuple[list[Read], dict[str, list[int]]]:
        """The reads numbered since the last flush and each subject's read numbers since then."""
        new, self._new = self._new, []
        subjects, self._subjects = {s: list(ids) for s, ids in self._subjects.items()}, {}
        return new, subjects
