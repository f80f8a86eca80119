"""``estimate``: memory, verdict and speed of one model on one GPU, as a table or as JSON.

With ``--output-tokens`` or ``--concurrency`` (or engine sglang / trtllm) it estimates batched serving instead:
throughput per GPU, speed per user, TTFT under load and the KV cache's maximum concurrency."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from ..catalog.load import load_catalog
from ..catalog.schema import Catalog, Gpu
from ..errors import Problem, UsageError
from ..estimate import estimator as api
from ..estimate import serving_setup
from ..estimate.architecture import ConfigError
from ..estimate.device import DeviceSpec, Parallel
from ..sitedata.adapters import device_spec, model_spec

GIB = 2**30
OPTIONS = {"context_tokens": "--context", "depth": "--depth", "gpu_count": "--gpu-count", "quant": "--quant"}


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``estimate`` subcommand (values are checked in ``run`` so that mistakes give one line)."""
    parser = subparsers.add_parser("estimate", help="estimate memory and speed of a model on a GPU",
                                   description=__doc__)
    parser.add_argument("--model", help="catalogue id or Hugging Face repo id")
    parser.add_argument("--config", help="a config.json file instead of a catalogue model")
    parser.add_argument("--gpu", help="catalogue id or exact catalogue name")
    parser.add_argument("--gpu-count", default="1", help="number of GPUs (default 1)")
    parser.add_argument("--quant", default="Q4_K_M", help="quantization (default Q4_K_M)")
    parser.add_argument("--context", default="8192", help="context tokens per sequence (default 8192)")
    parser.add_argument("--kv-type", default="f16", help="KV cache type (default f16)")
    parser.add_argument("--sequences", default="1", help="concurrent sequences (default 1)")
    parser.add_argument("--engine", default="llama.cpp",
                        help="llama.cpp, vllm or ollama; serving: vllm, sglang or trtllm (default llama.cpp)")
    parser.add_argument("--backend", help="llama.cpp backend, one of the GPU's (default: its first, e.g. cuda; "
                        "vulkan and rocm have their own fitted constants)")
    parser.add_argument("--prompt-tokens", default="4096", help="prompt length for prefill and TTFT (default 4096)")
    parser.add_argument("--depth", default="0", help="tokens already in the context when decoding (default 0)")
    parser.add_argument("--output-tokens", help="serving: output tokens per request")
    parser.add_argument("--concurrency", help="serving: requests in flight, or 'max' (the KV cache's offline maximum)")
    parser.add_argument("--tensor-parallel", help="serving: tensor-parallel size (default: the GPU count)")
    parser.add_argument("--expert-parallel", action="store_true", help="serving: experts spread over the GPUs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--catalog", default="catalog", help="catalogue folder (default: catalog)")
    parser.set_defaults(func=run)


def _bad(option: str, message: str) -> UsageError:
    return UsageError(Problem("estimate", option, message))


def _integer(value: str, option: str, minimum: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise _bad(option, f"must be a whole number, got {value!r}") from None
    if number < minimum:
        raise _bad(option, f"must be at least {minimum}, got {number}")
    return number


def find_gpu(catalog: Catalog, key: str) -> Gpu:
    """A catalogue GPU by id, exact name or alias (case-insensitive)."""
    wanted = key.strip().lower()
    for gpu in catalog.gpus.values():
        if wanted == gpu.id or wanted == gpu.name.lower() or wanted in (a.lower() for a in gpu.aliases):
            return gpu
    raise _bad("--gpu", f"unknown GPU {key!r} (see `python -m generator list gpus`)")


def _model(args: argparse.Namespace, catalog: Catalog | None) -> api.ModelSpec:
    if bool(args.model) == bool(args.config):
        raise _bad("--model", "give exactly one of --model or --config")
    if args.config:
        try:
            config = json.loads(Path(args.config).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise _bad("--config", f"cannot read {args.config}: {error.__class__.__name__}: {error}") from None
        try:
            return api.spec_from_config(config, Path(args.config).stem, args.config)
        except ConfigError as error:
            raise _bad("--config", f"{args.config}: {error}") from None
    assert catalog is not None
    wanted = args.model.strip().lower()
    for model in catalog.models.values():
        if wanted in (model.id, model.hf_repo.lower()):
            return model_spec(model)
    raise _bad("--model", f"unknown model {args.model!r} (see `python -m generator list models`)")


def _request(args: argparse.Namespace) -> api.Request:
    if args.engine not in api.ENGINES:
        raise _bad("--engine", f"unknown engine {args.engine!r}; choose one of {', '.join(api.ENGINES)}")
    return api.Request(quant=args.quant, context_tokens=_integer(args.context, "--context", 1),
                       kv_type=args.kv_type, sequences=_integer(args.sequences, "--sequences", 1),
                       engine=args.engine, prompt_tokens=_integer(args.prompt_tokens, "--prompt-tokens", 1),
                       depth=_integer(args.depth, "--depth", 0), gpu_count=_integer(args.gpu_count, "--gpu-count", 1))


def _serving_mode(args: argparse.Namespace) -> bool:
    return bool(args.output_tokens or args.concurrency or args.tensor_parallel or args.expert_parallel
                or args.engine in ("sglang", "trtllm"))


def run(args: argparse.Namespace) -> int:
    """Estimate and print."""
    if not args.gpu:
        raise _bad("--gpu", "is required")
    if _serving_mode(args):
        return run_serving(args)
    request = _request(args)
    catalog = load_catalog(Path(args.catalog))
    gpu = find_gpu(catalog, args.gpu)
    spec = _model(args, catalog)
    parallel: Parallel = "tensor" if request.engine == "vllm" else "layer"
    device = _with_backend(device_spec(gpu, count=request.gpu_count, parallel=parallel), args.backend)
    problem = api.impossible_request(spec, request, device.count, device.parallel)
    if problem:
        raise _bad(OPTIONS[problem[0]], problem[1])
    try:
        result = api.estimate(spec, device, request)
    except ValueError as error:
        option = "--quant" if "quant" in str(error) else "--kv-type" if "KV type" in str(error) else "--engine"
        raise _bad(option, str(error)) from None
    if args.json:
        print(json.dumps({"model": spec.id, "gpu": gpu.id, **result.as_dict()}, indent=1, default=str))
    else:
        print(table(spec, gpu, request, result))
    return 0


def _with_backend(device: DeviceSpec, backend: str | None) -> DeviceSpec:
    """The device on ``backend`` (one of its catalogued backends), or as catalogued when None."""
    if backend is None:
        return device
    if backend not in device.backends:
        raise _bad("--backend", f"{device.name} runs {', '.join(device.backends)}, not {backend!r}")
    return dataclasses.replace(device, backend=backend)


def table(spec: api.ModelSpec, gpu: Gpu, request: api.Request, e: api.Estimate) -> str:
    """A readable summary of one estimate."""
    def gib(n: float) -> str:
        return f"{n / GIB:,.2f} GiB"

    rows: list[tuple[str, Any]] = [
        ("model", spec.name), ("GPU", f"{request.gpu_count} × {gpu.name}"),
        ("setup", f"{request.quant}, {request.engine}, KV {request.kv_type}, {request.context_tokens:,} tokens × "
                  f"{request.sequences} sequence(s)"),
        ("file size", gib(e.file_size_bytes)), (f"weights ({e.weights_source})", gib(e.weights_bytes)),
        ("KV cache", gib(e.kv_cache_bytes)), ("runtime", gib(e.runtime_overhead_bytes)),
        ("total", gib(e.total_bytes)), ("usable", gib(e.usable_bytes)), ("margin", gib(e.margin_bytes)),
        ("verdict", e.verdict), ("max context", f"{e.max_context_tokens:,} tokens"),
        ("max sequences", f"{e.max_sequences:,} at {request.context_tokens:,} tokens"),
        ("decode", f"{e.decode_tokens_per_s:,.1f} tok/s"), ("prefill", f"{e.prefill_tokens_per_s:,.0f} tok/s"),
        ("time to first token", f"{e.ttft_s:,.2f} s"), ("batched decode", f"{e.batched_tokens_per_s:,.0f} tok/s"),
    ]
    if e.offload:
        o = e.offload
        rows.append(("offload", f"{o.gpu_layers}/{o.n_layers} layers on GPU, experts of {o.cpu_moe_layers} layers "
                                f"in system RAM, {gib(o.host_bytes)} in system RAM"))
    width = max(len(k) for k, _ in rows)
    lines = [f"{k:<{width}}  {v}" for k, v in rows]
    lines += ["", "assumptions:"] + [f"  {k}: {v}" for k, v in e.assumptions]
    return "\n".join(lines)


def _serving_request(args: argparse.Namespace) -> serving_setup.ServingRequest:
    concurrency = None if str(args.concurrency).strip().lower() == "max" else _integer(
        args.concurrency or "1", "--concurrency", 1)
    tp = _integer(args.tensor_parallel, "--tensor-parallel", 1) if args.tensor_parallel else None
    return serving_setup.ServingRequest(
        engine=args.engine, precision=args.quant.upper(), prompt_tokens=_integer(args.prompt_tokens, "--prompt-tokens", 1),
        output_tokens=_integer(args.output_tokens or "1024", "--output-tokens", 1), concurrency=concurrency,
        tensor_parallel=tp, expert_parallel=args.expert_parallel)


def run_serving(args: argparse.Namespace) -> int:
    """Batched serving: one line of JSON fields or a small table; impossible setups exit 2 with one line."""
    count = _integer(args.gpu_count, "--gpu-count", 1)
    request = _serving_request(args)
    catalog = load_catalog(Path(args.catalog))
    gpu = find_gpu(catalog, args.gpu)
    spec = _model(args, catalog)
    try:
        result = serving_setup.serving_estimate(spec, device_spec(gpu, count=count, parallel="tensor"), request)
    except serving_setup.ServingError as error:
        raise _bad("serving", str(error)) from None
    fields = {"model": spec.id, "gpu": gpu.id, "gpu_count": count, "engine": request.engine,
              "quant": request.precision, "prompt_tokens": request.prompt_tokens,
              "output_tokens": request.output_tokens, **result.as_dict(),
              "assumptions": dict(result.setup.constants.assumptions())}
    if args.json:
        print(json.dumps(fields, indent=1))
    else:
        width = max(map(len, fields))
        print("\n".join(f"{k:<{width}}  {v}" for k, v in fields.items() if k != "assumptions"))
    return 0
