"""Each published shape is declared once (``generator/pages/documents.py``): the schemas and the CSV's data
dictionary are generated from those types, every document and CSV row of a build matches them, and a key a
builder adds without declaring it fails validation."""

from __future__ import annotations

import copy
import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from generator.i18n import formatter
from generator.pages import api_schema, documents
from generator.views.common import PROMPT_TOKENS

API = Path("api/v1")
MAPS = {("assumptions",), ("schemas",), ("assumption_labels",)}  # objects keyed by data, not by the type
CSV_TYPES = {"integer": int, "number": float, "string": str}


def _validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def _published_validators(site: Path) -> dict[str, jsonschema.Draft202012Validator]:
    return {path.name.split(".")[0]: _validator(json.loads(path.read_text(encoding="utf-8")))
            for path in (site / API / "schema").glob("*.schema.json")}


def _documents(site: Path) -> Iterator[tuple[Path, dict]]:
    for path in sorted((site / API).rglob("*.json")):
        if "schema" not in path.parts:
            yield path, json.loads(path.read_text(encoding="utf-8"))


def _errors(validator: jsonschema.Draft202012Validator, doc: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


def _csv_rows(site: Path) -> tuple[list[str], list[dict[str, Any]]]:
    """The pairs CSV's header and rows, each cell read back by its data dictionary type (empty: null)."""
    package = json.loads((site / "downloads" / "datapackage.json").read_text(encoding="utf-8"))
    types = {f["name"]: CSV_TYPES[f["type"]] for f in package["resources"][0]["schema"]["fields"]}
    with (site / "downloads" / "pairs-default.csv").open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        rows = [{k: None if v == "" else types[k](v) for k, v in row.items()} for row in reader]
        return list(reader.fieldnames or ()), rows


def _check_site(site: Path) -> int:
    """Every document and CSV row of a build matches the schema generated from its type; the number checked."""
    validators = _published_validators(site)
    assert sorted(validators) == sorted(api_schema.KINDS)
    checked = 0
    for path, doc in _documents(site):
        errors = _errors(validators[doc["kind"]], doc)
        assert not errors, (path, errors[:3])
        checked += 1
    header, rows = _csv_rows(site)
    assert header == list(documents.PairsCsvRow.__annotations__)
    row_validator = _validator(api_schema.json_schema(documents.PairsCsvRow))
    for row in rows:
        errors = _errors(row_validator, row)
        assert not errors, (row["model_id"], row["gpu_id"], errors[:3])
    return checked + len(rows)


def test_the_index_names_every_published_schema(fixture_site: Path):
    index = json.loads((fixture_site / API / "index.json").read_text(encoding="utf-8"))
    published = {p.name.removesuffix(".schema.json") for p in (fixture_site / API / "schema").glob("*.schema.json")}
    assert set(index["schemas"]) == published == set(api_schema.KINDS)
    assert all((fixture_site / path.lstrip("/")).is_file() for path in index["schemas"].values())


def test_the_published_schemas_are_generated_from_the_types(fixture_site: Path):
    for kind in api_schema.KINDS:
        published = json.loads((fixture_site / API / "schema" / f"{kind}.schema.json").read_text(encoding="utf-8"))
        assert published.pop("$schema") == api_schema.DRAFT and published.pop("$id").endswith(f"{kind}.schema.json")
        assert published.pop("title").endswith(f": {kind} document")
        generated = json.loads(json.dumps(api_schema.schema(kind)))
        del generated["title"]  # the type's name; the published title names the API version
        assert published == generated, kind


def test_the_data_dictionary_is_generated_from_the_row_type(fixture_site: Path):
    package = json.loads((fixture_site / "downloads" / "datapackage.json").read_text(encoding="utf-8"))
    fields = package["resources"][0]["schema"]["fields"]
    assert [f["name"] for f in fields] == list(documents.PairsCsvRow.__annotations__)
    by_name = {f["name"]: f for f in fields}
    assert by_name["margin_bytes"]["type"] == "integer" and by_name["max_context_tokens"]["type"] == "integer"
    assert by_name["ttft_s"]["type"] == "number" and by_name["verdict"]["type"] == "string"  # nullable; enumeration
    prompt = formatter("en").tokens(PROMPT_TOKENS)
    assert by_name["ttft_s"]["description"] == f"Time to first token of a {prompt}-token prompt, seconds"


def test_every_document_and_csv_row_of_the_fixture_matches_its_type(fixture_site: Path):
    assert _check_site(fixture_site) == 2 + 3 + 2 + 3 * 2 + 3 * 2  # index, finder, models, GPUs, pairs; CSV rows


def _objects(node: Any, path: tuple = ()) -> Iterator[tuple]:
    """The path of every object in a document that the type declares (not the maps keyed by data)."""
    if isinstance(node, dict):
        if path[-1:] not in MAPS:
            yield path
        for key, value in node.items():
            yield from _objects(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _objects(value, (*path, i))


def _at(doc: Any, path: tuple) -> Any:
    for step in path:
        doc = doc[step]
    return doc


@pytest.mark.parametrize("document", ["api/v1/models/llama-3.1-8b/mi300x.json", "api/v1/models/llama-3.1-8b.json",
                                      "api/v1/gpus/mi300x.json", "api/v1/index.json", "api/v1/finder.json"])
def test_a_key_a_builder_adds_or_drops_without_the_type_fails(fixture_site: Path, document: str):
    """Every object of every schema is closed and complete: a key added to (or dropped from) any object of a real
    document, as a builder that drifted from its type would write it, makes the document invalid."""
    doc = json.loads((fixture_site / document).read_text(encoding="utf-8"))
    validator = _validator(api_schema.schema(doc["kind"]))
    assert validator.is_valid(doc)
    paths = list(_objects(doc))
    assert len(paths) > 10  # nested objects (the serving plan in the pair document)
    for path in paths:
        added, dropped = copy.deepcopy(doc), copy.deepcopy(doc)
        _at(added, path)["undeclared_bytes"] = 1
        node = _at(dropped, path)
        del node[next(iter(node))]
        assert not validator.is_valid(added), path
        assert not validator.is_valid(dropped), path


def test_the_pair_schema_carries_the_serving_plan(fixture_site: Path):
    doc = json.loads((fixture_site / API / "models" / "llama-3.1-8b" / "mi300x.json").read_text(encoding="utf-8"))
    assert doc["serving"] and doc["serving"]["curve"] and doc["serving"]["operating_point"]
    validator = _validator(api_schema.schema("pair"))
    for drift in ({**doc["serving"], "curve": [{**doc["serving"]["curve"][0], "ttft_s": "fast"}]},
                  {**doc["serving"], "tensor_parallel": 1.5}, "vllm"):
        assert not validator.is_valid({**doc, "serving": drift}), drift


def test_a_finder_run_has_exactly_its_columns(fixture_site: Path):
    doc = json.loads((fixture_site / API / "finder.json").read_text(encoding="utf-8"))
    validator = _validator(api_schema.schema("finder"))
    run = doc["gpus"][0]["runs"][0]
    assert len(run) == len(doc["run_columns"]) and validator.is_valid(doc)
    for drift in ([*run, 0], run[:-1], [*run[:5], -1.0, *run[6:]]):
        changed = copy.deepcopy(doc)
        changed["gpus"][0]["runs"][0] = drift
        assert not validator.is_valid(changed), drift


@pytest.mark.slow
def test_every_document_and_csv_row_of_the_real_site_matches_its_type(real_site: Path):
    assert _check_site(real_site) > 10_000
