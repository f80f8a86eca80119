"""The facade: totals by hand, verdicts, limits, offload, engines and properties."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.catalog.schema import Gpu, Model
from generator.estimate import estimator as api
from generator.estimate.device import GIB, DeviceSpec
from generator.estimate.kvcache import kv_layout
from generator.sitedata.adapters import device_spec, model_spec
from tests.estimate.fixtures import ALL, DEEPSEEK_V4_FLASH, GPT_OSS_20B, LLAMA_8B, QWEN3_30B, config

MIB = 2**20


def device(gib: float, backend: str = "cuda", unified: bool = False, count: int = 1,
           parallel: str = "layer") -> DeviceSpec:
    memory = int(gib * GIB) * count
    return DeviceSpec("test", "Test GPU", count, parallel, memory, memory, "test", 1000e9, 150e12, None, backend,
                      (backend,), unified, None)


def spec(name: str, **kw) -> api.ModelSpec:
    return dataclasses.replace(api.spec_from_config(config(name), name, name), **kw)


# Llama-3.1-8B Q4_K_M, llama.cpp, 8192 tokens, f16 KV (see test_weights, test_kvcache, test_runtime):
FILE = 4_918_541_312
TOKEN_EMBD = 128256 * 2304  # Q4_K, kept in system RAM by llama.cpp
KV = 131_072 * 8192
FIXED = 4 * 512 * (4096 + 128256) + 457 * MIB
PER_CELL = 131_072 + 2 * 512  # KV + KQ mask


def test_llama_8b_totals_by_hand():
    e = api.estimate(spec(LLAMA_8B), device(24), api.Request())
    assert (e.file_size_bytes, e.weights_bytes, e.weights_source) == (FILE, FILE - TOKEN_EMBD, "computed")
    assert e.kv_cache_bytes == KV and e.runtime_overhead_bytes == FIXED + 1024 * 8192
    assert e.total_bytes == FILE - TOKEN_EMBD + KV + FIXED + 1024 * 8192 == 6_455_426_048
    assert e.verdict == "fits" and e.margin_bytes == 24 * GIB - e.total_bytes
    assert e.max_context_tokens == 131072  # clamped to the model's context length
    # sequences: 5,373,295,616 + 8192 × 132,096 × s ≤ 24 GiB → s ≤ 18.85
    assert e.max_sequences == 18
    assert e.decode_tokens_per_s > 0 and e.prefill_tokens_per_s > 0 and e.ttft_s > 0
    assert e.batched_tokens_per_s > e.decode_tokens_per_s


def test_max_context_closed_form():
    usable = 8 * GIB
    cells = (usable - (FILE - TOKEN_EMBD) - FIXED) // PER_CELL  # 24,350 cells → 24,320 tokens (multiple of 256)
    e = api.estimate(spec(LLAMA_8B), device(8), api.Request())
    assert e.max_context_tokens == cells // 256 * 256 == 24320
    assert api.estimate(spec(LLAMA_8B), device(8), api.Request(context_tokens=24320)).verdict in ("fits", "tight")
    assert api.estimate(spec(LLAMA_8B), device(8), api.Request(context_tokens=24576)).verdict == "offload"


def test_deepseek_v4_reads_the_rows_its_indexer_picks_and_sizes_by_pages():
    arch = spec(DEEPSEEK_V4_FLASH).architecture
    groups = api._compressed_groups(arch, kv_layout(arch, "llama.cpp", "f16"))
    reads = sorted((g.kv_bytes_per_token, g.window_tokens) for g in groups)
    # indexer keys: 21 × 128 × 2 B per 4 tokens, all scored; ratio-4 rows 21 × 1,024 B per 4 tokens but only the
    # 512 picked rows (2,048 tokens) are read; ratio-128 rows 20 × 1,024 B per 128 tokens, all read
    assert reads == [(160, None), (1344, None), (5376, 2048)]
    e = api.estimate(spec(DEEPSEEK_V4_FLASH), device(141, count=2, parallel="tensor"),
                     api.Request(quant="FP8", engine="vllm", kv_type="fp8", context_tokens=65536, gpu_count=2))
    assert e.verdict == "fits" and e.max_context_tokens == 1_048_576  # 1M tokens need ~6.3 GiB of pages per rank


def test_tight_then_offload_then_no_fit_on_unified_memory():
    assert api.estimate(spec(LLAMA_8B), device(7), api.Request()).verdict == "tight"  # margin just under 1 GiB
    e = api.estimate(spec(LLAMA_8B), device(5), api.Request())
    assert e.verdict == "offload" and e.offload.gpu_layers < 32 and e.max_sequences == 0
    assert 0 < e.decode_tokens_per_s < api.estimate(spec(LLAMA_8B), device(24), api.Request()).decode_tokens_per_s
    assert api.estimate(spec(LLAMA_8B), device(5, backend="metal", unified=True), api.Request()).verdict == "no_fit"


def test_moe_offload_keeps_experts_in_system_ram():
    e = api.estimate(spec(QWEN3_30B), device(8), api.Request())
    assert e.verdict == "offload" and e.offload.cpu_moe_layers > 0 and e.offload.gpu_layers == 48
    assert e.offload.host_expert_bytes > 0 and e.offload.gpu_bytes <= 7 * GIB


def test_measured_sizes_beat_computed_and_ud_quants_need_one():
    measured = spec(LLAMA_8B, gguf_sizes=(("Q4_K_M", 5_000_000_000), ("UD-Q4_K_XL", 5_100_000_000)))
    e = api.estimate(measured, device(24), api.Request())
    assert (e.file_size_bytes, e.weights_source) == (5_000_000_000, "measured")
    ud = api.estimate(measured, device(24), api.Request(quant="UD-Q4_K_XL"))
    assert ud.file_size_bytes == 5_100_000_000 and ud.weights_source == "measured"
    with pytest.raises(ValueError):
        api.estimate(spec(LLAMA_8B), device(24), api.Request(quant="UD-Q4_K_XL"))


def test_vllm_budget_and_tensor_parallel_divisibility():
    e = api.estimate(spec(LLAMA_8B), device(24), api.Request(quant="BF16", engine="vllm"))
    assert e.usable_bytes == int(24 * GIB * 0.9) and e.weights_bytes == 2 * 8_030_261_248
    assert e.kv_cache_bytes == KV
    three = api.estimate(spec(LLAMA_8B), device(24, count=3, parallel="tensor"),
                         api.Request(quant="BF16", engine="vllm", gpu_count=3))
    assert three.verdict == "no_fit" and "blocked" in dict(three.assumptions)  # 32 heads over 3 GPUs
    two = api.estimate(spec(LLAMA_8B), device(24, count=2, parallel="tensor"),
                       api.Request(quant="BF16", engine="vllm", gpu_count=2))
    assert two.verdict == "fits"


@pytest.mark.parametrize("request_", [
    api.Request(quant="Q4_K_M", engine="vllm"), api.Request(quant="FP8"), api.Request(quant="Q7_K"),
    api.Request(kv_type="fp8"), api.Request(context_tokens=0), api.Request(sequences=0),
    api.Request(engine="tgi"),  # type: ignore[arg-type]
])
def test_invalid_requests_raise(request_):
    with pytest.raises(ValueError):
        api.estimate(spec(LLAMA_8B), device(24), request_)


def test_vllm_refuses_metal():
    with pytest.raises(ValueError):
        api.estimate(spec(LLAMA_8B), device(64, backend="metal", unified=True), api.Request(quant="BF16", engine="vllm"))


def test_model_spec_from_catalogue_entry():
    source = {"url": "https://huggingface.co/openai/gpt-oss-20b", "read": dt.date(2026, 11, 30), "fields": ["config"]}
    model = Model(id="gpt-oss-20b", name="gpt-oss-20b", family="gpt-oss", org="OpenAI", hf_repo="openai/gpt-oss-20b",
                  total_params=20_914_757_184, context_length=131072, config=config(GPT_OSS_20B), sources=[source],
                  gguf=[{"repo": "ggml-org/gpt-oss-20b-GGUF", "source_url": "https://huggingface.co/ggml-org",
                         "read": dt.date(2026, 11, 30), "files": [{"quant": "MXFP4_MOE", "size_bytes": 12_000_000_000}]}])
    s = model_spec(model)
    assert s.native_format == "mxfp4" and s.measured_size("MXFP4_MOE") == 12_000_000_000  # a test value
    assert s.active_params == s.architecture.active_params()


def test_device_usable_memory_rules():
    base = dict(vendor="apple", segment="unified", memory_type="LPDDR5", bandwidth_gb_per_s=400, backends=["metal"],
                unified_memory=True, sources=[{"url": "https://www.apple.com", "read": dt.date(2026, 11, 30),
                                               "fields": ["memory_bytes"]}])
    small = Gpu(id="m1-max-32", name="M1 Max 32GB", memory_bytes=32 * GIB, **base)
    large = Gpu(id="m2-ultra-192", name="M2 Ultra 192GB", memory_bytes=192 * GIB, **base)
    assert device_spec(small).usable_memory_bytes == 32 * GIB * 2 // 3
    assert device_spec(large).usable_memory_bytes == 192 * GIB * 3 // 4
    given_usable = Gpu(id="x", name="X GPU", memory_bytes=24 * GIB, usable_memory_bytes=23 * GIB,
                       **{**base, "unified_memory": False, "backends": ["cuda"]})
    two = device_spec(given_usable, count=2)
    assert two.usable_memory_bytes == 46 * GIB and two.per_gpu_usable_bytes == 23 * GIB


LADDER = ("IQ2_XXS", "Q3_K_M", "Q4_K_M", "Q6_K", "Q8_0", "F16")
ALIGNED = ("Qwen--Qwen3-8B", "Qwen--Qwen3-30B-A3B", "meta-llama--Meta-Llama-3.1-8B", "Qwen--Qwen3.5-35B-A3B",
           "openai--gpt-oss-20b")


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(ALL), st.integers(1, 150_000), st.integers(0, 20_000), st.integers(1, 4), st.integers(0, 4),
       st.sampled_from(["llama.cpp", "vllm"]))
def test_more_context_or_sequences_never_need_less(name, ctx, extra, seqs, more, engine):
    quant = "BF16"
    s, d = spec(name), device(80)

    def total(c: int, n: int) -> int:
        return api.estimate(s, d, api.Request(quant=quant, context_tokens=c, sequences=n, engine=engine)).total_bytes

    assert total(ctx + extra, seqs) >= total(ctx, seqs)
    assert total(ctx, seqs + more) >= total(ctx, seqs)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(ALIGNED), st.integers(0, len(LADDER) - 2), st.integers(1, 65536))
def test_more_bits_never_need_less(name, i, ctx):
    s, d = spec(name), device(80)
    low, high = (api.estimate(s, d, api.Request(quant=q, context_tokens=ctx)) for q in LADDER[i:i + 2])
    assert high.total_bytes >= low.total_bytes and high.max_context_tokens <= low.max_context_tokens


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(ALL), st.floats(4, 200), st.floats(1.0, 2.0))
def test_more_memory_never_shortens_the_context(name, gib, factor):
    s = spec(name)
    small = api.estimate(s, device(gib), api.Request(quant="Q4_K_M"))
    large = api.estimate(s, device(gib * factor), api.Request(quant="Q4_K_M"))
    assert large.max_context_tokens >= small.max_context_tokens and large.max_sequences >= small.max_sequences


def test_no_fit_is_explicit_and_speeds_are_not_applicable():
    e = api.estimate(spec(LLAMA_8B), device(5, backend="metal", unified=True), api.Request())
    assert e.verdict == "no_fit" and not e.runs and e.as_dict()["runs"] is False
    assert (e.decode_tokens_per_s, e.prefill_tokens_per_s, e.ttft_s, e.max_context_tokens) == (0, 0, 0, 0)
    assert api.estimate(spec(LLAMA_8B), device(24), api.Request()).runs


@pytest.mark.parametrize("backend", ["cuda", "metal", "rocm", "vulkan"])
def test_gpu_without_flops_still_gets_prefill_and_says_how(backend):
    bare = dataclasses.replace(device(24, backend=backend), fp16_flops=None)
    e = api.estimate(spec(LLAMA_8B), bare, api.Request())
    assert e.runs and e.prefill_tokens_per_s > 0 and e.ttft_s > 0
    # TTFT = the prompt's prefill plus one decode step at the prompt's end (slower than the one at depth 0).
    prefill_s = 4096 / e.prefill_tokens_per_s
    assert prefill_s + 1 / e.decode_tokens_per_s < e.ttft_s < prefill_s + 2 / e.decode_tokens_per_s
    c = api.speed.constants_for(backend)
    rule = dict(e.assumptions)["speed.prefill_flops"]
    # 1000 GB/s × flops_per_byte FLOPs per byte/s = flops_per_byte TFLOPS
    assert "no FP16 FLOPS catalogued" in rule and f"= {c.flops_per_byte:.1f} TFLOPS" in rule
    rated = api.estimate(spec(LLAMA_8B), device(24, backend=backend), api.Request())
    assert "catalogued dense FP16 tensor 150.0 TFLOPS" in dict(rated.assumptions)["speed.prefill_flops"]


def test_geforce_cards_run_f16_gemms_at_twice_the_datasheet_rate():
    pro = device(24)
    geforce = dataclasses.replace(pro, fp16_accumulate_doubles=True)
    prompt = api.Request(prompt_tokens=512)
    assert api.estimate(spec(LLAMA_8B), geforce, prompt).prefill_tokens_per_s > \
        1.5 * api.estimate(spec(LLAMA_8B), pro, prompt).prefill_tokens_per_s
    assert "× 2 for FP16-accumulate" in dict(api.estimate(spec(LLAMA_8B), geforce, prompt).assumptions)[
        "speed.prefill_flops"]


def test_every_catalogue_gpu_that_runs_a_model_gets_positive_speeds():
    from pathlib import Path

    from generator.catalog.load import load_catalog
    catalog = load_catalog(Path("catalog"))
    model = model_spec(catalog.models["llama-3.1-8b"])
    for gpu in catalog.gpus.values():
        e = api.estimate(model, device_spec(gpu), api.Request())
        assert not e.runs or min(e.decode_tokens_per_s, e.prefill_tokens_per_s, e.ttft_s,
                                 e.batched_tokens_per_s) > 0, gpu.id


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(ALL), st.floats(6, 200), st.sampled_from([("llama.cpp", "Q4_K_M", "f16"), ("llama.cpp", "Q8_0", "q8_0"),
                                                                  ("llama.cpp", "BF16", "q4_0"), ("vllm", "BF16", "f16"),
                                                                  ("vllm", "BF16", "fp8")]), st.integers(1, 3))
def test_context_memory_is_estimate_without_speeds(name, gib, setup, seqs):
    """The chart's sweep gives, at every context, exactly the memory and limits a full estimate gives."""
    engine, quant, kv_type = setup
    s, d = spec(name), device(gib)
    request = api.Request(quant=quant, kv_type=kv_type, sequences=seqs, engine=engine)
    contexts = (4096, 8192, 32768, 131072)
    sweep = api.context_memory(s, d, request, contexts)
    for context, kv, total in zip(contexts, sweep.kv_cache_bytes, sweep.total_bytes):
        e = api.estimate(s, d, dataclasses.replace(request, context_tokens=context))
        assert (kv, total, sweep.usable_bytes, sweep.max_context_tokens) == (
            e.kv_cache_bytes, e.total_bytes, e.usable_bytes, e.max_context_tokens)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(ALL), st.floats(6, 400),
       st.sampled_from([("llama.cpp", "Q4_K_M", 1, "layer"), ("llama.cpp", "BF16", 2, "layer"), ("vllm", "BF16", 1, "layer"),
                        ("vllm", "BF16", 4, "tensor"), ("vllm", "Q8_0", 3, "tensor")]), st.integers(4096, 131072))
def test_on_gpu_is_the_estimate_verdict_without_speeds(name, gib, setup, context):
    """The multi-GPU search's memory-only check gives the full estimate's verdict where that is fits or tight."""
    engine, quant, count, parallel = setup
    s, d = spec(name), device(gib, count=count, parallel=parallel)
    request = api.Request(quant=quant, engine=engine, gpu_count=count, context_tokens=context)
    try:
        verdict = api.estimate(s, d, request).verdict
    except ValueError as error:  # an impossible request is refused the same way
        with pytest.raises(ValueError, match=str(error)[:20]):
            api.on_gpu(s, d, request)
        return
    assert api.on_gpu(s, d, request) == (verdict if verdict in ("fits", "tight") else None)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(ALL), st.floats(4, 200),
       st.sampled_from([("llama.cpp", "Q4_K_M"), ("llama.cpp", "Q2_K"), ("llama.cpp", "BF16"), ("vllm", "BF16")]),
       st.integers(1, 4), st.booleans())
def test_matrix_rows_are_full_estimates_without_the_limits(name, gib, setup, seqs, unified):
    """``limits=False`` gives the full estimate's memory, verdict and decode speed, and computes no limits."""
    engine, quant = setup
    s, d = spec(name), device(gib, backend="metal" if unified and engine != "vllm" else "cuda", unified=unified)
    request = api.Request(quant=quant, engine=engine, sequences=seqs)
    full, row = api.estimate(s, d, request), api.estimate(s, d, request, limits=False)
    limits = ("max_context_tokens", "max_sequences", "prefill_tokens_per_s", "ttft_s", "batched_tokens_per_s")
    assert row._replace(**{f: getattr(full, f) for f in limits}) == full
    assert all(getattr(row, f) is None for f in limits)


def test_catalogued_fp32_rate_reaches_quantised_prefill():
    import yaml

    gpu = Gpu.model_validate(yaml.safe_load(Path("catalog/gpus/h100-sxm.yaml").read_text(encoding="utf-8")))
    h100 = device_spec(gpu)
    assert h100.fp32_flops == pytest.approx(66.91e12)  # TechPowerUp's non-tensor FP32 figure, passed by the adapter
    c = api.speed.constants_for("cuda")
    assert c.mmq_flops_per_fp32_flop is not None
    request = api.Request(prompt_tokens=512)
    with_fp32, without = (api.estimate(spec(LLAMA_8B), d, request)
                          for d in (h100, dataclasses.replace(h100, fp32_flops=None)))
    # On the H100 the tensor path (989 TFLOPS) is far faster than μ × 66.91 TFLOPS: the FP32 path binds and slows it.
    assert with_fp32.prefill_tokens_per_s < 0.5 * without.prefill_tokens_per_s
    assert f"{c.mmq_flops_per_fp32_flop:.2f} × the catalogued FP32 66.9 TFLOPS" in dict(with_fp32.assumptions)[
        "speed.prefill_flops"]


def test_pascal_runs_quantised_prefill_on_dp4a_and_f16_gemms_stop_at_the_board_power():
    import yaml

    def load(name: str) -> Gpu:
        return Gpu.model_validate(yaml.safe_load(Path(f"catalog/gpus/{name}.yaml").read_text(encoding="utf-8")))

    p40, h100 = device_spec(load("tesla-p40")), device_spec(load("h100-sxm"))
    # The P40 (Pascal, launched 2016-09-13, before the first tensor-core part) takes dp4a MMQ on its FP32 rate.
    assert p40.mmq == "dp4a" and p40.fp32_flops == pytest.approx(11.76e12) and p40.fp16_flops is None
    assert h100.mmq == "mma" and h100.tdp_w == 700
    c = api.speed.constants_for("cuda")
    request = api.Request(prompt_tokens=512)
    rate = api.estimate(spec(LLAMA_8B), p40, request).prefill_tokens_per_s
    assert rate * 2 * 7.5e9 <= c.dp4a_flops_per_fp32_flop * 11.76e12  # ν × FP32 at most (7.5e9 matmul weights)
    assert rate < api.estimate(spec(LLAMA_8B), dataclasses.replace(p40, mmq="mma"), request).prefill_tokens_per_s
    assert f"dp4a at {c.dp4a_flops_per_fp32_flop:.2f} × the catalogued FP32 11.8 TFLOPS" in dict(
        api.estimate(spec(LLAMA_8B), p40, request).assumptions)["speed.prefill_flops"]
    # F16 weights go through cuBLAS: on the H100 SXM ε × 700 W binds below η_c × 989 TFLOPS.
    f16 = api.Request(quant="F16", prompt_tokens=512)
    bound, free = (api.estimate(spec(LLAMA_8B), d, f16).prefill_tokens_per_s
                   for d in (h100, dataclasses.replace(h100, tdp_w=None)))
    assert c.gemm_tflops_per_watt * 1e12 * 700 < c.compute_efficiency * 989e12 and bound < free


def test_pascal_dp4a_rule_by_launch_date():
    from generator.estimate.device import pascal_dp4a

    assert pascal_dp4a("nvidia", dt.date(2017, 4, 6))  # TITAN Xp
    assert not pascal_dp4a("nvidia", dt.date(2017, 12, 7))  # TITAN V: tensor cores, cuBLAS for big batches
    assert not pascal_dp4a("amd", dt.date(2016, 1, 1)) and not pascal_dp4a("nvidia", None)


def test_rdna_cards_take_flash_attention_at_their_fp32_rate():
    import yaml

    def load(gpu_id: str) -> Gpu:
        return Gpu.model_validate(yaml.safe_load(Path(f"catalog/gpus/{gpu_id}.yaml").read_text(encoding="utf-8")))

    xtx, mi300x = device_spec(load("rx-7900-xtx")), device_spec(load("mi300x"))
    assert xtx.vector_attention and not mi300x.vector_attention  # RDNA (GDDR6) against CDNA (HBM3)
    # A long prompt spends much of its time in attention: at the FP32 rate (61.39 of the 122.78 TFLOPS) it is slower;
    # a short one barely notices.
    as_matrix = dataclasses.replace(xtx, vector_attention=False)
    for prompt, slower in ((16384, 1.2), (128, 1.0)):
        request = api.Request(context_tokens=32768, prompt_tokens=prompt)
        vector, matrix = (api.estimate(spec(LLAMA_8B), d, request).ttft_s for d in (xtx, as_matrix))
        assert vector > matrix * slower if slower > 1 else vector == pytest.approx(matrix, rel=0.05)


def test_nvidia_on_vulkan_runs_at_cuda_speed_where_coopmat2_exists():
    import yaml

    def load(gpu_id: str) -> Gpu:
        return Gpu.model_validate(yaml.safe_load(Path(f"catalog/gpus/{gpu_id}.yaml").read_text(encoding="utf-8")))

    def speeds(device: DeviceSpec) -> tuple[float | None, float | None]:
        e = api.estimate(spec(LLAMA_8B), device, api.Request())
        return e.decode_tokens_per_s, e.ttft_s

    # An RTX 3090 (Ampere) on Vulkan runs llama.cpp's NV_coopmat2 kernels: the CUDA build's figures, to the bit.
    cuda = device_spec(load("rtx-3090"))
    vulkan = dataclasses.replace(cuda, backend="vulkan")
    assert vulkan.ampere_or_newer and speeds(vulkan) == speeds(cuda)
    assert dict(api.estimate(spec(LLAMA_8B), vulkan, api.Request()).assumptions)["speed.family"] == "cuda"
    # Turing has no coopmat2 (RTX 2080 Ti), and AMD's Vulkan kernels are their own: both keep Vulkan's constants.
    turing = device_spec(load("rtx-2080-ti"))
    assert speeds(dataclasses.replace(turing, backend="vulkan")) != speeds(turing)
    xtx = device_spec(load("rx-7900-xtx"))
    assert not xtx.ampere_or_newer
    e = api.estimate(spec(LLAMA_8B), dataclasses.replace(xtx, backend="vulkan"), api.Request())
    assert dict(e.assumptions)["speed.family"].startswith("vulkan")
