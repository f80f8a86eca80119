"""Read ``catalog/`` into a validated :class:`Catalog`; every problem names its file and field."""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from ..cachefile import CorruptCache, discard, load_pickle
from ..errors import Problem, UserError
from ..inputfile import CATALOG_FILE_BYTES, read_input
from .schema import Catalog, CloudProvider, Gpu, Model

T = TypeVar("T", bound=BaseModel)

_PYDANTIC_PREFIXES = {
    "Input should be ": "must be ",
    "Value error, ": "",
    "String should ": "must ",
    "List should ": "must ",
}


class _UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc] # libyaml if the wheel has it
    """A YAML loader that rejects a key given twice in one mapping, and aliases and merge keys: an alias repeats a
    node, and nested ones multiply (a few lines can stand for billions of values)."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if node in self.constructed_objects:  # each node is constructed once, unless an alias names it again
            raise yaml.constructor.ConstructorError(None, None, "anchors and aliases (&name, *name) are not allowed",
                                                    node.start_mark)
        return super().construct_object(node, deep=deep)


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    mapping: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            raise yaml.constructor.ConstructorError(None, None, "merge keys (<<) are not allowed", key_node.start_mark)
        key = loader.construct_object(key_node, deep=deep)
        try:
            duplicate = key in mapping
        except TypeError:
            raise yaml.constructor.ConstructorError(None, None, "a key must be a plain value", key_node.start_mark) from None
        if duplicate:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        mapping[key] = loader.construct_object(value_node, deep=deep)
    return mapping


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def display_path(path: Path, root: Path) -> str:
    """The path as the user should see it: relative to the project when possible."""
    try:  # the link's own path, not its target's: a planted link is named as the user sees it
        return str(Path(os.path.abspath(path)).relative_to(Path(os.path.abspath(root)).parent))
    except ValueError:
        return str(path)


# Type errors that strict validation raises for a quoted value: the message says what was given.
_STRICT_TYPES = {"int_type", "float_type", "date_type", "bool_type"}


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _message(text: str) -> str:
    for prefix, replacement in _PYDANTIC_PREFIXES.items():
        if text.startswith(prefix):
            text = replacement + text[len(prefix):]
    return {"Field required": "is required", "Extra inputs are not permitted": "unknown field"}.get(text, text)


def validation_problems(error: ValidationError, path: str) -> list[Problem]:
    """Pydantic errors as one problem per field."""
    problems = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"])
        message = _message(item["msg"])
        if item["type"] in _STRICT_TYPES and isinstance(item.get("input"), str):
            message += f", got the text {_short(item['input'])!r}"
        if ": " in message and not field:  # model-level validators name their field first
            field, message = message.split(": ", 1)
        problems.append(Problem(path, field, message))
    return problems


def read_yaml(path: Path, shown: str, project: Path | None = None) -> Any:
    """Parse one YAML file (a link may lead anywhere inside ``project``, default: the file's folder), turning every
    kind of failure into a :class:`Problem`."""
    return _parse_yaml(read_input(path, project or path.parent, CATALOG_FILE_BYTES, shown), shown)


def _parse_yaml(raw: bytes, shown: str) -> Any:
    try:
        return yaml.load(raw.decode("utf-8"), Loader=_UniqueKeyLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else "syntax"
        reason = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise UserError(Problem(shown, where, f"invalid YAML: {reason}")) from None
    except UnicodeDecodeError as error:
        raise UserError(Problem(shown, "", f"cannot read: not UTF-8 text (byte {error.start:,})")) from None
    except (ValueError, OverflowError, RecursionError, MemoryError) as error:
        # PyYAML builds values with int(), float() and date(): an integer of more than 4,300 digits, a 30th of
        # February or nesting deeper than Python's stack raise these, not YAMLError
        reason = str(error).split(";")[0].splitlines()[0] if str(error) else type(error).__name__
        raise UserError(Problem(shown, "", f"invalid value: {_short(reason, 100)}")) from None


class ParsedFiles:
    """The parsed YAML of an earlier load, by file content: a file whose bytes did not change is not parsed again.

    libyaml scans in C, but the objects are built by Python code: a quarter of a one-price-edit rebuild. Only
    files that parsed without error are kept, so an error is always found by parsing."""

    def __init__(self, path: Path | None = None):
        self.path = path
        self._earlier: dict[bytes, Any] = {}
        self._now: dict[bytes, Any] = {}
        if path is not None:
            try:
                self._earlier = load_pickle(path, _valid_parses) or {}
            except CorruptCache as error:
                discard(path, str(error))

    def read(self, path: Path, shown: str, project: Path | None = None) -> Any:
        """What :func:`read_yaml` gives for this file, from the earlier parse of the same bytes when there is one."""
        raw = read_input(path, project or path.parent, CATALOG_FILE_BYTES, shown)
        key = hashlib.sha256(raw).digest()
        data = self._earlier[key] if key in self._earlier else _parse_yaml(raw, shown)
        self._now[key] = data
        return data

    def save(self) -> None:
        """Keep this load's parses for the next one (only when a file changed)."""
        if self.path is None or self._now.keys() == self._earlier.keys():
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with tmp.open("wb") as handle:
            pickle.dump(self._now, handle, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(self.path)


def _valid_parses(data: Any) -> bool:
    """Whether ``data`` has the shape :meth:`ParsedFiles.save` writes: parses keyed by SHA-256 digests."""
    return type(data) is dict and all(type(key) is bytes and len(key) == 32 for key in data)


def _load_kind(folder: Path, root: Path, model: type[T], key: Callable[[T], str], problems: list[Problem],
               read: Callable[[Path, str, Path], Any]) -> dict[str, T]:
    entries: dict[str, T] = {}
    origin: dict[str, str] = {}
    for path in sorted(folder.glob("*.yaml")):
        shown = display_path(path, root)
        try:
            data = read(path, shown, root.parent)
        except UserError as error:
            problems.extend(error.problems)
            continue
        if not isinstance(data, dict):
            problems.append(Problem(shown, "", "must be a YAML mapping"))
            continue
        try:
            entry = model.model_validate(data)
        except ValidationError as error:
            problems.extend(validation_problems(error, shown))
            continue
        entry_id = key(entry)
        if entry_id in entries:
            problems.append(Problem(shown, "id", f"duplicate id {entry_id!r}, also in {origin[entry_id]}"))
            continue
        if path.stem != entry_id:
            problems.append(Problem(shown, "id", f"must match the file name ({path.stem!r})"))
        entries[entry_id] = entry
        origin[entry_id] = shown
    return entries


def load_catalog(root: Path, parsed: ParsedFiles | None = None) -> Catalog:
    """Load and validate every file under ``root``; raise :class:`UserError` listing all problems. ``parsed``:
    earlier parses to reuse for unchanged files (a build keeps them beside its output)."""
    read = parsed.read if parsed is not None else read_yaml
    if not root.is_dir():
        raise UserError(Problem(str(root), "", "catalogue folder not found"))
    problems: list[Problem] = []
    models = _load_kind(root / "models", root, Model, lambda m: m.id, problems, read)
    gpus = _load_kind(root / "gpus", root, Gpu, lambda g: g.id, problems, read)
    clouds = _load_kind(root / "clouds", root, CloudProvider, lambda c: c.id, problems, read)
    if problems:
        raise UserError(problems)
    return Catalog(models=models, gpus=gpus, clouds=clouds)
