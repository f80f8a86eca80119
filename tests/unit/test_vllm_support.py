"""Which checkpoint formats vLLM runs on which GPU (vLLM's quantization hardware table), derived from catalogue facts,
and the serving precisions pages try under the same rule."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from generator.catalog.load import load_catalog
from generator.estimate import serving_setup
from generator.estimate.vllm_support import runs_format, split_by_support
from generator.sitedata.adapters import device_spec, model_spec
from tests.conftest import FIXTURE_PROJECT


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(FIXTURE_PROJECT / "catalog")


def _nvidia(catalog, launch: dt.date | None, fp8_tflops: float | None):
    """The fixture's MI300X restated as an NVIDIA CUDA part launched on ``launch`` with an FP8 rate (or none)."""
    gpu = catalog.gpus["mi300x"].model_copy(update={"id": "nv", "vendor": "nvidia", "backends": ["cuda"],
                                                    "launch_date": launch, "fp8_tensor_tflops": fp8_tflops})
    return device_spec(gpu)


def test_fp8_needs_fp8_tensor_cores_or_marlin_for_a_dense_model_on_ampere(catalog):
    hopper = _nvidia(catalog, dt.date(2022, 9, 20), 989.0)
    ampere = _nvidia(catalog, dt.date(2020, 11, 16), None)
    turing = _nvidia(catalog, dt.date(2018, 9, 20), None)
    undated = _nvidia(catalog, None, None)
    assert runs_format("FP8", hopper, moe=True) and runs_format("FP8", hopper, moe=False)
    assert runs_format("FP8", ampere, moe=False) and not runs_format("FP8", ampere, moe=True)
    assert not runs_format("FP8", turing, moe=False) and not runs_format("FP8", undated, moe=False)
    assert runs_format("FP8", device_spec(catalog.gpus["mi300x"]), moe=True)
    assert not runs_format("FP8", device_spec(catalog.gpus["rx-7900-xtx"]), moe=False)


def test_mxfp4_runs_on_ampere_or_newer_and_the_amd_parts_vllm_names(catalog):
    assert runs_format("MXFP4", _nvidia(catalog, dt.date(2020, 5, 14), None), moe=True)
    assert not runs_format("MXFP4", _nvidia(catalog, dt.date(2020, 5, 13), None), moe=True)
    assert runs_format("MXFP4", device_spec(catalog.gpus["mi300x"]), moe=True)
    assert not runs_format("MXFP4", device_spec(catalog.gpus["rx-7900-xtx"]), moe=True)


def test_bf16_runs_on_cuda_and_rocm_and_nothing_runs_elsewhere(catalog):
    xtx = device_spec(catalog.gpus["rx-7900-xtx"])
    assert runs_format("BF16", xtx, moe=False) and runs_format("BF16", _nvidia(catalog, None, None), moe=False)
    for backend in ("metal", "vulkan", "sycl"):
        assert not runs_format("BF16", replace(xtx, backend=backend), moe=False)
    assert not runs_format("NVFP4", _nvidia(catalog, dt.date(2025, 1, 30), 2250.0), moe=False)  # not in the table
    assert not runs_format("AWQ-INT4", xtx, moe=False)  # AWQ: not on AMD GPUs


def test_split_keeps_the_order_and_names_each_left_out_format_once(catalog):
    xtx = device_spec(catalog.gpus["rx-7900-xtx"])
    runnable, skipped = split_by_support([("a/fp8", "FP8"), ("a/bf16", "BF16"), ("b/fp8", "FP8")], xtx, moe=False)
    assert runnable == [("a/bf16", "BF16")] and skipped == ("FP8",)


def test_serving_precisions_follow_the_same_rule(catalog):
    mi300x, xtx = device_spec(catalog.gpus["mi300x"]), device_spec(catalog.gpus["rx-7900-xtx"])
    gpt_oss, deepseek, llama = (model_spec(catalog.models[m]) for m in ("gpt-oss-20b", "deepseek-v3", "llama-3.1-8b"))
    assert serving_setup.page_precisions(gpt_oss, mi300x) == ("MXFP4",)
    assert serving_setup.page_precisions(gpt_oss, xtx) == ()  # the MXFP4 release has no BF16 fallback
    assert serving_setup.page_precisions(deepseek, xtx) == ()
    assert serving_setup.page_precisions(llama, mi300x) == ("FP8", "BF16")
    assert serving_setup.page_precisions(llama, xtx) == ("BF16",)


def test_vllm_runs_only_on_the_gpus_its_installation_page_lists(catalog):
    """Issue 25: CUDA at compute capability 7.5 or higher (the launch-date rule puts Pascal and Volta before Turing),
    ROCm on the listed LLVM targets only; an NVIDIA part of unknown launch date counts as newer."""
    from generator.estimate.vllm_support import runs_on
    pascal = _nvidia(catalog, dt.date(2016, 9, 13), None)  # Tesla P40
    volta = _nvidia(catalog, dt.date(2018, 3, 27), None)  # V100 32GB
    turing = _nvidia(catalog, dt.date(2018, 9, 13), None)  # T4
    assert not runs_on(pascal) and not runs_on(volta) and runs_on(turing) and runs_on(_nvidia(catalog, None, 989.0))
    assert not any(runs_format(q, pascal, moe=False) for q in ("BF16", "FP8", "AWQ-INT4", "MXFP4"))
    assert runs_on(device_spec(catalog.gpus["mi300x"])) and runs_on(device_spec(catalog.gpus["rx-7900-xtx"]))
    rdna2 = device_spec(catalog.gpus["rx-7900-xtx"].model_copy(update={"id": "rx-6900-xt"}))  # gfx1030: not listed
    assert not runs_on(rdna2) and not runs_format("BF16", rdna2, moe=False)


def test_an_fp8_format_the_catalogue_leaves_undecided_is_not_blamed_on_vllms_docs(catalog):
    """Issue 25: an Ada or Blackwell card without a catalogued FP8 rate gets no FP8 checkpoint, but the page must not
    say vLLM's documentation rules FP8 out; on Turing the table does rule it out."""
    candidates = [("org/m", "BF16"), ("org/m-FP8", "FP8")]
    ada_without_rate = _nvidia(catalog, dt.date(2022, 9, 20), None)
    assert split_by_support(candidates, ada_without_rate, moe=True) == ([("org/m", "BF16")], ())
    turing = _nvidia(catalog, dt.date(2018, 9, 20), None)
    assert split_by_support(candidates, turing, moe=True) == ([("org/m", "BF16")], ("FP8",))


def test_fp8_quantized_on_load_needs_the_16_bit_weights_to_fit_first():
    from pathlib import Path

    real = load_catalog(Path("catalog"))
    llama, h100 = model_spec(real.models["llama-3.3-70b"]), real.gpus["h100-sxm"]
    one, two = device_spec(h100), device_spec(h100, 2, "tensor")
    # 141 GB of BF16 weights: vLLM loads them whole before quantizing, so one 80 GB H100 serves FP8 only from a
    # published FP8 checkpoint (the plan then serves it: commands.serving_checkpoint); two hold the 16-bit load.
    assert serving_setup.page_precisions(llama, one) == ("BF16",)
    assert serving_setup.page_precisions(llama, one, frozenset({"FP8"})) == ("FP8", "BF16")
    assert serving_setup.page_precisions(llama, two) == ("FP8", "BF16")
    assert not serving_setup.loads_at_16_bit(llama, one) and serving_setup.loads_at_16_bit(llama, two)


def test_amd_gpus_never_load_nvidia_model_optimizer_checkpoints():
    from generator.estimate.vllm_support import loads_checkpoint

    assert loads_checkpoint("nvidia/Llama-3.3-70B-Instruct-FP8", "FP8", "cuda")
    assert not loads_checkpoint("nvidia/Llama-3.3-70B-Instruct-FP8", "FP8", "rocm")  # modelopt: not on ROCm
    assert loads_checkpoint("RedHatAI/gemma-4-31B-it-FP8-dynamic", "FP8", "rocm")  # compressed-tensors
    assert loads_checkpoint("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "BF16", "rocm")  # not quantized


def test_vllm_runs_on_the_rdna4_radeon_cards_its_installation_page_names(catalog):
    from pathlib import Path

    from generator.estimate.vllm_support import runs_on

    real = load_catalog(Path("catalog"))
    assert all(runs_on(device_spec(real.gpus[g])) for g in ("rx-9070-xt", "rx-9070", "rx-9060-xt-16gb"))
    assert not runs_on(device_spec(real.gpus["rx-6800-xt"]))  # gfx1030: not in vLLM's list
