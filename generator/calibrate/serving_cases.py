"""Measured batched serving (generator/data/serving/, copied from the shared calibration folder) against the model.

Rows used, by rule (no row is picked by hand):
* InferenceX DeepSeek-R1-0528 runs (``inferencex_dsr1_fixture.csv``): single-node, not disaggregated, no speculative
  decoding, engines SGLang and TensorRT-LLM, GPUs in the catalogue, rows not marked as duplicates. Output tokens/s per
  GPU, tokens/s per user (median interactivity) and median TTFT at each concurrency; prompt and output lengths are
  0.9 × nominal (uniform in [0.8, 1.0] × nominal). fp4 means NVFP4 on NVIDIA and MXFP4 on AMD. EP > 1 without DP
  attention is expert parallelism under tensor-parallel attention; with DP attention, ``attention_data_parallel``.
* TensorRT-LLM performance overview (``trtllm_perf_overview.csv``): offline maximum output tokens/s per GPU at fixed
  ISL/OSL (the KV cache's maximum concurrency), catalogue GPUs, no pipeline parallelism; DEP n = DP attention + EP.
  GPT-OSS rows are the released MXFP4 checkpoint.
* AMD's vLLM results (``amd_rocm_vllm_perf_results.csv``): throughput rows, all prompts at once (concurrency =
  num_prompts, capped by the KV cache), whole-system tokens/s divided by the GPU count and compared with total
  (input + output) tokens/s: the page does not say which it counts (ISL ≤ OSL in all rows, so the two differ by at
  most 2×; this is the least certain source).
* Low-concurrency runs (``low_concurrency.csv``, collected for this project from public benchmark write-ups; each row
  names its URL, date, engine version and conditions): vLLM and SGLang at 1-8 requests on one GPU, tokens/s per user
  (1000 / median TPOT, or output tokens over end-to-end latency where that is all a source gives) and median TTFT.
  Their throughput is concurrency × per-user speed and is not scored again.
Not used: MLPerf v4.1 (the rows do not carry the datasets' prompt and output lengths), ATOM and Dynamo/disaggregated
runs (other engines or multi-node setups), GB200/GB300 (not in the catalogue), speculative-decoding runs.
"""

from __future__ import annotations

import csv
import re
import statistics
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..estimate import estimator, serving
from ..estimate.device import DeviceSpec
from ..estimate.serving import ServingConstants
from ..estimate.serving_setup import ServingError, ServingSetup, setup

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "serving"
LENGTH_FACTOR = 0.9  # InferenceX draws lengths uniformly in [0.8, 1.0] × nominal
WITHIN = 0.25
KINDS = ("output_per_gpu", "total_per_gpu", "user_tps", "ttft")
LOW_CONCURRENCY = 8  # per-user speed at this many requests or fewer on one GPU is also scored alone ('user_tps_low')
INFERENCEX_GPUS = {"b200": "b200", "h200": "h200", "h100": "h100-sxm", "mi300x": "mi300x", "mi355x": "mi355x"}
INFERENCEX_ENGINES = {"sglang": "sglang", "trt": "trtllm"}
TRT_GPUS = {"B200": "b200", "H200": "h200", "H100": "h100-sxm", "RTX6000PRO": "rtx-pro-6000-blackwell"}
TRT_MODELS = (("deepseek r1", "deepseek-r1"), ("gpt-oss 120b", "gpt-oss-120b"), ("gpt-oss 20b", "gpt-oss-20b"),
              ("3.3 70b", "llama-3.3-70b"), ("3.1 405b", "llama-3.1-405b"), ("3.1 8b", "llama-3.1-8b"),
              ("maverick", "llama-4-maverick"), ("scout", "llama-4-scout"), ("235b", "qwen3-235b-a22b"),
              ("30b", "qwen3-30b-a3b"))
AMD_MODELS = (("3.1 70b", "llama-3.1-70b"), ("3.1 405b", "llama-3.1-405b"))


@dataclass(frozen=True)
class Row:
    """One measured serving configuration and what was measured (None: not measured)."""

    source: str  # inferencex, trtllm-docs, amd-vllm
    date: str
    model: str
    gpu: str
    gpu_count: int
    engine: str
    precision: str
    tensor_parallel: int
    expert_parallel: bool
    attention_data_parallel: bool
    prompt: int
    output: int
    concurrency: int | None  # None: offline maximum
    output_per_gpu: float | None = None
    total_per_gpu: float | None = None
    user_tps: float | None = None
    ttft: float | None = None


def _inferencex(path: Path) -> list[Row]:
    rows = []
    for r in csv.DictReader(path.open(encoding="utf-8")):
        if (r["disagg"] != "False" or r["is_multinode"] != "False" or r["spec_method"] != "none"
                or r["framework"] not in INFERENCEX_ENGINES or r["hardware"] not in INFERENCEX_GPUS
                or r["dup_of_other_file"] == "1" or not r["output_tput_per_gpu"]):
            continue
        amd = r["hardware"].startswith("mi")
        precision = {"fp8": "FP8", "fp4": "MXFP4" if amd else "NVFP4"}.get(r["precision"])
        if precision is None:
            continue
        ep = int(r["decode_ep"]) > 1
        rows.append(Row("inferencex", r["date"], "deepseek-r1", INFERENCEX_GPUS[r["hardware"]], int(r["total_gpus"]),
                        INFERENCEX_ENGINES[r["framework"]], precision, int(r["decode_tp"]), ep,
                        r["decode_dp_attention"] == "True", round(LENGTH_FACTOR * int(r["isl"])),
                        round(LENGTH_FACTOR * int(r["osl"])), int(r["conc"]),
                        output_per_gpu=float(r["output_tput_per_gpu"]), user_tps=float(r["median_intvty"]),
                        ttft=float(r["median_ttft"]) if r["median_ttft"] else None))
    return rows


def _lookup(name: str, table: tuple[tuple[str, str], ...]) -> str | None:
    low = name.lower().replace("-", " ")
    return next((model for key, model in table if key.replace("-", " ") in low), None)


def _trtllm(path: Path) -> list[Row]:
    rows = []
    for r in csv.DictReader(path.open(encoding="utf-8")):
        model, gpu = _lookup(r["model"], TRT_MODELS), TRT_GPUS.get(r["gpu"])
        par = re.fullmatch(r"(D?EP|TP)(\d+)(?:,PP(\d+))?", r["parallelism"].replace("DEP", "DEP"))
        if model is None or gpu is None or par is None or (par.group(3) or "1") != "1":
            continue
        n = int(par.group(2))
        dep = par.group(1) == "DEP"
        precision = "MXFP4" if model.startswith("gpt-oss") else {"FP4": "NVFP4", "FP8": "FP8"}.get(r["weight_precision"])
        if precision is None:
            continue
        date = re.search(r"@(\w+)", r["source"])
        rows.append(Row("trtllm-docs", date.group(1) if date else "", model, gpu, int(r["num_gpus"]), "trtllm",
                        precision, n, dep, dep, int(r["isl"]), int(r["osl"]), None,
                        output_per_gpu=float(r["output_tok_s_per_gpu"])))
    return rows


def _amd(path: Path) -> list[Row]:
    rows = []
    for r in csv.DictReader(path.open(encoding="utf-8")):
        model = _lookup(r["model"], AMD_MODELS)
        if r["metric"] != "throughput" or model is None or not r["num_prompts"]:
            continue
        n = int(r["num_gpus"])
        rows.append(Row("amd-vllm", r["container_release_date"], model, "mi300x", n, "vllm", "FP8", int(r["tp"]),
                        False, False, int(r["isl"]), int(r["osl"]), int(r["num_prompts"]),
                        total_per_gpu=float(r["value"]) / n))
    return rows


def _low_concurrency(path: Path) -> list[Row]:
    rows = []
    for r in csv.DictReader(path.open(encoding="utf-8")):
        rows.append(Row(r["source"], r["date"], r["model"], r["gpu"], int(r["gpu_count"]), r["engine"], r["precision"],
                        int(r["tensor_parallel"]), False, False, int(r["prompt"]), int(r["output"]),
                        int(r["concurrency"]), user_tps=float(r["user_tps"]),
                        ttft=float(r["ttft_s"]) if r["ttft_s"] else None))
    return rows


def load_rows(data_dir: Path = DATA_DIR) -> list[Row]:
    """Every usable calibration row (see the module docstring)."""
    return (_inferencex(data_dir / "inferencex_dsr1_fixture.csv") + _trtllm(data_dir / "trtllm_perf_overview.csv")
            + _amd(data_dir / "amd_rocm_vllm_perf_results.csv") + _low_concurrency(data_dir / "low_concurrency.csv"))


@dataclass(frozen=True)
class Case:
    """A row with its serving setup resolved (work, device, KV capacity)."""

    row: Row
    setup: ServingSetup


def cases(rows: Iterable[Row], models: Mapping[str, estimator.ModelSpec],
          device_of: Callable[[str, int], DeviceSpec | None]) -> list[Case]:
    """Rows whose model and GPU (``device_of(gpu id, count)``, tensor parallel) are known and whose setup runs
    (others are skipped, not guessed)."""
    out = []
    for row in rows:
        device = device_of(row.gpu, row.gpu_count) if row.model in models else None
        if device is None:
            continue
        try:
            s = setup(models[row.model], device, row.engine, row.precision, row.prompt, row.output,
                      row.tensor_parallel, row.expert_parallel, row.attention_data_parallel)
        except ServingError:
            continue
        out.append(Case(row, s))
    return out


def predict(case: Case, c: ServingConstants) -> serving.ServingPoint:
    """The model's point for a case under constants ``c``."""
    s = case.setup
    conc = s.max_concurrency if case.row.concurrency is None else min(case.row.concurrency, s.max_concurrency)
    return serving.serve(s.work, s.device, c, conc, case.row.prompt, case.row.output)


def errors(case: Case, c: ServingConstants) -> dict[str, float]:
    """Relative error (predicted / measured − 1) per measured kind."""
    p = predict(case, c)
    pred = {"output_per_gpu": p.output_tokens_per_s_per_gpu, "total_per_gpu": p.total_tokens_per_s_per_gpu,
            "user_tps": p.tokens_per_s_per_user, "ttft": p.ttft_s}
    errs = {k: pred[k] / getattr(case.row, k) - 1 for k in KINDS if getattr(case.row, k)}
    row = case.row
    if "user_tps" in errs and row.gpu_count == 1 and row.concurrency is not None and row.concurrency <= LOW_CONCURRENCY:
        errs["user_tps_low"] = errs["user_tps"]
    return errs


@dataclass(frozen=True)
class KindStat:
    """Error statistics of one kind of measurement."""

    kind: str
    rows: int
    median_abs_error: float
    within: float


def stats(errs: Iterable[dict[str, float]]) -> list[KindStat]:
    """Median absolute error and share within ±25 % per kind (throughput kinds pooled as 'throughput_per_gpu')."""
    pooled: dict[str, list[float]] = {}
    for e in errs:
        for kind, value in e.items():
            name = "throughput_per_gpu" if kind in ("output_per_gpu", "total_per_gpu") else kind
            pooled.setdefault(name, []).append(abs(value))
    return [KindStat(k, len(v), statistics.median(v), sum(x <= WITHIN for x in v) / len(v))
            for k, v in sorted(pooled.items())]
