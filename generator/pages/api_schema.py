"""JSON Schemas (draft 2020-12) of the API documents: every key required, no key unlisted, units in the names."""

from __future__ import annotations

from typing import Any, get_args

from .. import urls
from ..estimate.fidelity import Grade
from .i18n import LANGUAGES

DRAFT = "https://json-schema.org/draft/2020-12/schema"
INT: dict[str, Any] = {"type": "integer"}
BYTES: dict[str, Any] = {"type": "integer", "minimum": 0}
NUM: dict[str, Any] = {"type": "number"}
POS: dict[str, Any] = {"type": "number", "exclusiveMinimum": 0}
STR: dict[str, Any] = {"type": "string"}
BOOL: dict[str, Any] = {"type": "boolean"}
DATE: dict[str, Any] = {"type": "string", "format": "date", "pattern": r"^\d{4}-\d{2}-\d{2}$"}
PATH: dict[str, Any] = {"type": "string", "pattern": r"^[a-z0-9][\w./-]*$"}  # relative to the site's base URL
VERDICT: dict[str, Any] = {"enum": ["fits", "tight", "offload", "no_fit"]}
GRADE: dict[str, Any] = {"enum": list(get_args(Grade))}  # quality of a quantization (methodology: how we grade)


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or null (null: not applicable, or not in the catalogue)."""
    return {"anyOf": [schema, {"type": "null"}]}


def obj(**properties: dict[str, Any]) -> dict[str, Any]:
    """An object with exactly these keys."""
    return {"type": "object", "additionalProperties": False, "required": sorted(properties), "properties": properties}


def array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


REF = obj(id=STR, name=STR, json_path=PATH)
SOURCE = obj(url=STR, read_date=DATE, fields=array(STR), title=nullable(STR))
SPEED = nullable(POS)  # null where the page shows "—": the setup does not run


def envelope(kind: str) -> dict[str, dict[str, Any]]:
    return {"kind": {"const": kind}, "schema_version": {"type": "string", "pattern": r"^\d+\.\d+\.\d+$"},
            "schema_path": PATH, "json_path": PATH, "html_paths": obj(**{language: PATH for language in LANGUAGES}),
            "title": STR, "description": STR}


SUMMARY = dict(quant=STR, quality_grade=GRADE, heavy_loss=BOOL, verdict=VERDICT, total_bytes=BYTES,
               decode_tokens_per_s=SPEED, max_context_tokens=nullable(BYTES), pair_json_path=PATH)
POINT = dict(concurrency=INT, output_tokens_per_s_per_gpu=POS, total_tokens_per_s_per_gpu=POS,
             tokens_per_s_per_user=POS, ttft_s=POS)
SERVING = nullable(obj(
    engine=STR, precision=STR, gpu_count=INT, tensor_parallel=INT, kv_cache_type=STR, prompt_tokens=BYTES,
    output_tokens=BYTES, max_concurrency=INT, curve=array(obj(**POINT)),
    operating_point=nullable(obj(**POINT, prefill_share=NUM)),
    cost=nullable(obj(offer=STR, price_usd_per_gpu_hour=POS, usd_per_million_output_tokens=POS,
                      usd_per_million_input_tokens=POS)),
    setups=array(obj(gpu_count=INT, tensor_parallel=INT, precision=STR, max_concurrency=INT,
                     single_request_tokens_per_s=POS, operating_point=nullable(obj(**POINT, prefill_share=NUM)),
                     offer=nullable(STR), price_usd_per_gpu_hour=nullable(POS),
                     usd_per_million_output_tokens=nullable(POS)))))
OFFER = obj(provider=STR, instance=STR, gpu_count=INT, vram_bytes=BYTES, price_usd_per_hour=POS,
            price_usd_per_gpu_hour=POS, price_usd_per_month=POS, billing=STR, tier=STR, checked_date=DATE, url=STR)

PAIR = obj(
    **envelope("pair"), model=REF, gpu=REF,
    setup=obj(quant=STR, quality_grade=GRADE, context_tokens=BYTES, kv_cache_type=STR, sequences=INT),
    estimate=obj(verdict=VERDICT, runs=BOOL, weights_bytes=BYTES, weights_source={"enum": ["measured", "computed"]},
                 kv_cache_bytes=BYTES, runtime_overhead_bytes=BYTES, total_bytes=BYTES, usable_bytes=BYTES,
                 margin_bytes=INT, max_context_tokens=nullable(BYTES), max_sequences=nullable(BYTES),
                 decode_tokens_per_s=SPEED, prefill_tokens_per_s=SPEED, ttft_s=SPEED, batched_tokens_per_s=SPEED,
                 device_memory_bytes=BYTES, margin_ratio=NUM, utilisation_ratio=NUM, offloaded_bytes=BYTES),
    quantization_matrix=array(obj(quant=STR, quality_grade=GRADE, weights_bytes=BYTES, kv_cache_bytes=BYTES, total_bytes=BYTES,
                                  verdict=VERDICT, decode_tokens_per_s=SPEED, best_gpu_id=nullable(STR))),
    context=obj(max_context_tokens_f16_kv=nullable(BYTES), max_context_tokens_q8_0_kv=nullable(BYTES),
                rows=array(obj(context_tokens=BYTES, kv_cache_f16_bytes=BYTES, total_f16_bytes=BYTES,
                               kv_cache_q8_0_bytes=BYTES, total_q8_0_bytes=BYTES))),
    cost=nullable(obj(offer=STR, price_usd_per_gpu_hour=POS, usd_per_million_tokens_single=POS,
                      usd_per_million_tokens_batched=POS)),
    rent_vs_buy=nullable(obj(price_usd=POS, power_usd_per_kwh=POS, hours_per_month=POS, power_usd_per_month=POS,
                             breakeven_months=nullable(NUM),
                             owned=nullable(obj(amortisation_months=INT, usd_per_hour=POS, usd_per_million_tokens=POS,
                                                joules_per_token=POS, tokens_per_s_per_100_usd=POS)))),
    finetune=array(obj(method={"enum": ["qlora", "lora", "full"]}, sequence_length_tokens=BYTES, weights_bytes=BYTES,
                       gradients_optimizer_bytes=BYTES, activations_bytes=BYTES, total_bytes=BYTES, verdict=VERDICT,
                       suggested_gpu=nullable(STR))),
    serving=SERVING,
    commands=array(obj(engine=STR, text=STR, remark=nullable(STR))),
    assumptions={"type": "object", "additionalProperties": STR},
    error_band=obj(backend=STR, validation=STR, decode_median_abs_error_ratio=NUM, prefill_median_abs_error_ratio=NUM,
                   ttft_median_abs_error_ratio=NUM, borrowed_constants_from=nullable(STR), architecture_class=STR,
                   held_out_rows=INT, status=STR),
    sources=obj(model=array(SOURCE), gpu=array(SOURCE)),
)

SETUP = nullable(obj(gpu=REF, gpu_count=INT, price_usd_per_hour=POS, price_usd_per_month=POS))
MODEL = obj(
    **envelope("model"), id=STR, name=STR,
    facts=obj(org=STR, family=STR, license=nullable(STR), release_date=nullable(DATE), hf_repo=STR, hf_url=STR,
              native_precision=nullable(STR), context_length_tokens=BYTES, total_params=BYTES, active_params=BYTES,
              layers=BYTES, kv_cache_f16_bytes_per_1k_tokens=BYTES,
              token_mixers=array(obj(kind=STR, window_tokens=nullable(BYTES), layers=BYTES))),
    quality_grades=array(obj(quant=STR, quality_grade=GRADE)),
    requirements=array(obj(context_tokens=BYTES, sequences=INT,
                           cells=array(obj(quant=STR, total_bytes=BYTES, weights_bytes=BYTES, kv_cache_bytes=BYTES)))),
    cheapest_setups=array(obj(quant=STR, single=SETUP, multi=SETUP)),
    cheapest_serving=array(obj(precision=STR, engine=STR, gpu=REF, gpu_count=INT, tensor_parallel=INT,
                               prompt_tokens=BYTES, output_tokens=BYTES, concurrency=INT, output_tokens_per_s_per_gpu=POS,
                               total_tokens_per_s_per_gpu=POS, tokens_per_s_per_user=POS, offer=STR,
                               price_usd_per_gpu_hour=POS, usd_per_million_output_tokens=POS,
                               usd_per_million_input_tokens=POS, pair_json_path=PATH)),
    finetune=array(obj(method={"enum": ["qlora", "lora", "full"]}, total_bytes=BYTES, suggested_gpu=nullable(STR))),
    fits_count=BYTES, gpus=array(obj(**REF["properties"], **SUMMARY)), sources=array(SOURCE),
)

GPU = obj(
    **envelope("gpu"), id=STR, name=STR,
    facts=obj(vendor=STR, segment=STR, memory_bytes=BYTES, usable_memory_bytes=BYTES, unified_memory=BOOL,
              memory_type=STR, bandwidth_gb_per_s=POS, fp16_tensor_tflops=nullable(POS), tdp_w=nullable(POS),
              launch_date=nullable(DATE), price_usd=nullable(POS), price_kind=nullable({"enum": ["msrp", "street"]}),
              price_date=nullable(DATE), backends=array(STR), price_usd_per_gib=nullable(POS),
              bandwidth_gb_per_s_per_gib=POS),
    fits_count=BYTES, offers=array(OFFER), models=array(obj(**REF["properties"], **SUMMARY)), sources=array(SOURCE),
)

INDEX = obj(
    **envelope("index"),
    models=array(obj(**REF["properties"], total_params=BYTES)),
    gpus=array(obj(**REF["properties"], memory_bytes=BYTES, usable_memory_bytes=BYTES)),
    popular_pairs=array(obj(model=REF, gpu=REF, pair_json_path=PATH, quant=STR, quality_grade=GRADE, total_bytes=BYTES,
                             decode_tokens_per_s=SPEED)),
    popular_pairs_rule=STR, pair_json_path_template=STR, schemas={"type": "object", "additionalProperties": PATH},
    changelog_path=PATH, assumption_labels={"type": "object", "additionalProperties": STR},
    downloads=obj(pairs_csv_path=PATH, datapackage_path=PATH),
    licence=obj(code=STR, data=STR, note=STR),
)

USD_OR_NULL = nullable(POS)
RUN = {"type": "array", "minItems": 8, "maxItems": 8,  # columns: the document's run_columns
       "prefixItems": [{"type": "integer", "minimum": 0}, {"type": "integer", "minimum": 0},
                       {"type": "integer", "minimum": 0}, {"type": "integer", "minimum": 0}, BYTES, POS,
                       nullable(BYTES), BYTES], "items": False}
FINDER = obj(
    kind={"const": "finder"}, schema_version={"type": "string", "pattern": r"^\d+\.\d+\.\d+$"}, schema_path=PATH,
    json_path=PATH, description=STR, context_tokens=BYTES, pair_path_template=STR, model_path_template=STR,
    gpu_path_template=STR,
    fit_rule=obj(tight_fraction=POS, tight_min_bytes=BYTES, fit_target_bytes=BYTES),
    quality_grades=array(GRADE), verdicts=array(VERDICT), quants=array(STR), run_columns=array(STR),
    memory_quants=array(STR), memory_quality_grades=array(BYTES),
    models=array(obj(id=STR, name=STR, family=STR, total_params=BYTES, memory_bytes=array(BYTES),
                     recommended=array(obj(role={"enum": ["fastest", "value", "cloud"]}, gpu=BYTES, quant=BYTES,
                                           decode_tokens_per_s=POS, below_floor=BOOL, price_usd=USD_OR_NULL,
                                           price_usd_per_gpu_hour=USD_OR_NULL, offer=nullable(STR))),
                     multi_gpu_setups=array(obj(quant=STR, gpu=BYTES, gpu_count=INT, price_usd_per_hour=POS)),
                     serving=array(obj(precision=STR, gpu=BYTES, gpu_count=INT, engine=STR, concurrency=INT,
                                       tokens_per_s_per_user=POS, usd_per_million_output_tokens=POS, offer=STR,
                                       price_usd_per_gpu_hour=POS)))),
    gpus=array(obj(id=STR, name=STR, vendor=STR, segment=STR, usable_memory_bytes=BYTES, runs=array(RUN))),
)

SCHEMAS = {"pair": PAIR, "model": MODEL, "gpu": GPU, "index": INDEX, "finder": FINDER}


def schema_document(kind: str, base_url: str, version: str) -> dict[str, Any]:
    """The published schema of one document kind."""
    return {"$schema": DRAFT, "$id": f"{base_url}{urls.api_schema(kind)}",
            "title": f"VRAM Atlas API {version}: {kind} document", **SCHEMAS[kind]}
