"""JSON Schemas (draft 2020-12) of the API documents and the pairs CSV's data dictionary, generated from the types
in ``documents``: every key required, no key unlisted."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import core_schema

from .. import urls
from . import documents

DRAFT = "https://json-schema.org/draft/2020-12/schema"
DOCUMENTS: dict[str, Any] = {"pair": documents.PairDocument, "model": documents.ModelDocument,
                             "gpu": documents.GpuDocument, "index": documents.IndexDocument,
                             "finder": documents.FinderDocument}
KINDS = tuple(DOCUMENTS)


class _Strict(GenerateJsonSchema):
    """Pydantic's generator with no key unlisted in any object and no title per key (the names carry the units)."""

    def typed_dict_schema(self, schema: core_schema.TypedDictSchema) -> dict[str, Any]:
        return {**super().typed_dict_schema(schema), "additionalProperties": False}

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def json_schema(shape: Any) -> dict[str, Any]:
    """The JSON Schema of a type in ``documents``."""
    return TypeAdapter(shape).json_schema(schema_generator=_Strict)


def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of a document kind."""
    return json_schema(DOCUMENTS[kind])


def schema_document(kind: str, base_url: str, version: str) -> dict[str, Any]:
    """The published schema of one document kind."""
    return {**schema(kind), "$schema": DRAFT, "$id": f"{base_url}{urls.api_schema(kind)}",
            "title": f"VRAM Atlas API {version}: {kind} document"}


def csv_fields() -> list[dict[str, str]]:
    """The pairs CSV's columns in order, as Frictionless fields: name, type and description."""
    properties = json_schema(documents.PairsCsvRow)["properties"]
    return [{"name": name, "type": _type(p), "description": p["description"]} for name, p in properties.items()]


def _type(prop: dict[str, Any]) -> str:
    """The JSON type of a column (the non-null one of a nullable column); an enumeration of strings is a string."""
    types = [p["type"] for p in prop.get("anyOf", [prop]) if p["type"] != "null"]
    assert len(types) == 1, prop
    return types[0]
