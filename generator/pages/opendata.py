"""Site-wide open-data files: the API's schemas and changelog, the CSV of every pair with its data package,
and ``llms.txt``. They follow from the whole catalogue, so every build that loads it writes them (unchanged bytes
are kept, as for any file)."""

from __future__ import annotations

import csv
import io
import posixpath
from typing import Any

from .. import urls
from ..i18n import formatter
from ..sitedata import PAGE_CONTEXT_TOKENS, SiteData
from ..views.common import OfferRow, offer_rows, rental_cost
from . import api, api_schema, finder
from .documents import PairsCsvRow

_EN = formatter("en")  # the data files are in English


def _speed(value: float | None, runs: bool) -> float | None:
    return value if runs else None


def pairs_csv_row(site: SiteData, model_id: str, gpu_id: str, offers: tuple[OfferRow, ...]) -> PairsCsvRow:
    """One pair of the CSV: the pages' recommended setup and its rental cost, the objects the pair page shows."""
    pick = site.pairs[(model_id, gpu_id)]
    model, gpu, e = site.catalog.models[model_id], site.catalog.gpus[gpu_id], pick.estimate
    cost = rental_cost(offers, e)
    return {
        "model_id": model.id, "model_name": model.name, "gpu_id": gpu.id, "gpu_name": gpu.name, "quant": pick.quant,
        "context_tokens": PAGE_CONTEXT_TOKENS, "verdict": e.verdict, "weights_bytes": e.weights_bytes,
        "kv_cache_bytes": e.kv_cache_bytes, "runtime_overhead_bytes": e.runtime_overhead_bytes,
        "total_bytes": e.total_bytes, "usable_bytes": e.usable_bytes, "margin_bytes": e.margin_bytes,
        "max_context_tokens": e.max_context_tokens or None, "max_sequences": e.max_sequences or None,
        "decode_tokens_per_s": _speed(e.decode_tokens_per_s, e.runs),
        "prefill_tokens_per_s": _speed(e.prefill_tokens_per_s, e.runs), "ttft_s": _speed(e.ttft_s, e.runs),
        "batched_tokens_per_s": _speed(e.batched_tokens_per_s, e.runs),
        "price_usd_per_gpu_hour": cost.usd_per_hour if cost else None,
        "usd_per_million_tokens_single": cost.single_usd_per_mtok if cost else None,
        "usd_per_million_tokens_batched": cost.batched_usd_per_mtok if cost else None,
        "pair_json_path": urls.api_pair(model.id, gpu.id),
    }


def pairs_csv(site: SiteData) -> bytes:
    """One row per (model, GPU) pair, by model then GPU id; the columns are ``PairsCsvRow``'s keys."""
    out = io.StringIO()
    writer = csv.DictWriter(out, [field["name"] for field in api_schema.csv_fields()], lineterminator="\n")
    writer.writeheader()  # a row with a key the type does not declare raises
    offers = {g: offer_rows(site, g) for g in site.catalog.gpus}
    for model_id, gpu_id in sorted(site.pairs):
        writer.writerow(pairs_csv_row(site, model_id, gpu_id, offers[gpu_id]))
    return out.getvalue().encode()


def datapackage(base_url: str) -> dict[str, Any]:
    """The CSV's data dictionary as a Frictionless tabular data package."""
    return {
        "profile": "tabular-data-package", "name": "vram-atlas-pairs", "title": "VRAM Atlas: every LLM on every GPU",
        "homepage": base_url, "version": api.SCHEMA_VERSION,
        "description": ("The recommended setup of every catalogued model on every catalogued GPU at the pages' default "
                        f"(llama.cpp, one sequence, {_EN.tokens(PAGE_CONTEXT_TOKENS)} context, f16 KV cache), "
                        "as the pair pages show it. "
                        + api.LICENCE_NOTE),
        "licenses": [{"name": api.CODE_LICENCE, "path": "https://opensource.org/licenses/MIT", "title": "MIT License"}],
        "resources": [{
            "name": "pairs-default", "path": posixpath.basename(urls.PAIRS_CSV), "profile": "tabular-data-resource",
            "format": "csv",
            "mediatype": "text/csv", "encoding": "utf-8",
            "schema": {"fields": api_schema.csv_fields(),
                       "primaryKey": ["model_id", "gpu_id"], "missingValues": [""]}}],
    }


def changelog() -> bytes:
    lines = ["# VRAM Atlas API changelog", "",
             "One line per schema version, newest first. Documents carry their `schema_version`.", ""]
    lines += [f"- {version} ({date}): {text}" for version, date, text in api.CHANGELOG]
    return ("\n".join(lines) + "\n").encode()


def llms_txt(site: SiteData, base_url: str) -> bytes:
    """The site, its API and its method in plain text for language models (https://llmstxt.org)."""
    cv = {(r["method"], r["group"], r["kind"]): r for r in site.cross_validated}
    decode, prefill = cv[("gpu", "all", "decode_tps")], cv[("gpu", "all", "prefill_tps")]
    n_models, n_gpus = len(site.catalog.models), len(site.catalog.gpus)
    return f"""# VRAM Atlas

> Can this GPU run this LLM, how fast, and what does it cost? Estimates of memory, speed and cost for {n_models} \
open-weight LLMs on {n_gpus} GPUs ({n_models * n_gpus} pairs), in English and German, from one published estimator \
with its measured error.

Every number comes from one estimator call per page; catalogue facts (parameter counts, configs, GGUF sizes, GPU \
memory and bandwidth, prices) carry their source and the date they were read. Estimates are for llama.cpp, one \
sequence, an {_EN.tokens(PAGE_CONTEXT_TOKENS)}-token context and an f16 KV cache unless a page says otherwise. \
Verdicts: "fits" (with margin), \
"tight" (fits with little margin), "offload" (runs with part of the model in system RAM), "no_fit". Memory is \
weights + KV cache + runtime buffers, tensor by tensor from each model's config.json. Decode time per token is the \
bytes read over an efficiency times the GPU's bandwidth plus a fixed cost, with constants fitted per backend; the \
methodology page reports the error on GPUs left out of the fit (decode: median {decode['median']:.0%}; prefill: \
median {prefill['median']:.0%}) and every speed figure carries its backend's error band.

## Pages

- [Index]({base_url}{urls.index("en")}): every model and GPU
- [Methodology]({base_url}{urls.methodology("en")}): formulas, fitted constants and measured error
- Model pages: {base_url}{urls.model("en", "{model}")}
- GPU pages: {base_url}{urls.gpu("en", "{gpu}")}
- Pair pages: {base_url}{urls.pair("en", "{model}", "{gpu}")} (German: replace en/ with de/)

## API (static JSON, schema version {api.SCHEMA_VERSION})

- [Index]({base_url}{urls.api_index()}): every model and GPU with its document's path
- Model: {base_url}{urls.api_model("{model}")}
- GPU: {base_url}{urls.api_gpu("{gpu}")}
- Pair: {base_url}{urls.api_pair("{model}", "{gpu}")}
- [Schemas]({base_url}{urls.api_schema("pair")}): JSON Schema 2020-12, one per kind (index, model, gpu, pair, finder)
- [Finder]({base_url}{urls.FINDER_JSON}): every GPU with the models that run on it at or above the quality floor, \
every model with its recommended GPUs and serving setups (the home page's finder)
- [Changelog]({base_url}{urls.api_changelog()})

Keys name their units: *_bytes (bytes), *_tokens_per_s (tokens per second), *_s (seconds), *_usd_* (US dollars); \
null means not applicable (a setup that does not run has no speed) or not in the catalogue. Paths in documents are \
relative to {base_url}.

## Downloads

- [Every pair, default setup (CSV)]({base_url}{urls.PAIRS_CSV}): one row per model and GPU
- [Data dictionary]({base_url}{urls.DATAPACKAGE}): Frictionless data package with every column's type and unit

## Licence

{api.LICENCE_NOTE}
""".encode()


def files(site: SiteData, base_url: str) -> list[tuple[str, bytes]]:
    """Every site-wide open-data file as (site path, bytes)."""
    schemas = [(urls.api_schema(kind),
                api.dumps(api_schema.schema_document(kind, base_url, api.SCHEMA_VERSION))) for kind in api_schema.KINDS]
    return [*schemas, (urls.api_changelog(), changelog()),
            (urls.FINDER_JSON, api.dumps(finder.finder_document(site, api.SCHEMA_VERSION))), (urls.PAIRS_CSV, pairs_csv(site)),
            (urls.DATAPACKAGE, api.dumps(datapackage(base_url))), (urls.LLMS_TXT, llms_txt(site, base_url))]
