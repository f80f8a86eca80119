"""``check`` on catalogue mistakes (the table in mistakes.py, cross-entry and plausibility checks): the exact
one-line message, exit status 1."""

from __future__ import annotations

import datetime as dt
import os
import shutil
from pathlib import Path

import pytest
from mistakes import CLOUD, GPU, MISTAKES, MODEL

from generator.catalog.check import instance_gpus, known_quant
from tests.conftest import HF_CONFIGS, check_problems, edit, run_generator


def passes(catalog: Path) -> bool:
    """Whether ``check`` accepts the catalogue (and says nothing on stderr)."""
    done = run_generator("check", "--catalog", catalog)
    assert (done.returncode == 0) == (done.stderr == ""), done.stderr
    return done.returncode == 0


@pytest.mark.parametrize(("file", "old", "new", "expected"), MISTAKES)
def test_one_mistake_one_line(catalog: Path, file: str, old: str, new: str, expected: str) -> None:
    edit(catalog / file, old, new)
    assert check_problems(catalog) == [expected]


def test_implausible_tflops(catalog: Path) -> None:
    # 1307.4 TFLOPS slipped to 13074: 13074e12 / 5300e9 = 2466.8 FLOP per byte; FP8 and INT8 (2614.9) drop to 0.2x
    edit(catalog / GPU, "fp16_tensor_tflops: 1307.4", "fp16_tensor_tflops: 13074")
    assert check_problems(catalog) == [
        "catalog/gpus/mi300x.yaml: fp16_tensor_tflops: implausible for the bandwidth: 2467 FLOP per byte, "
        "expected 10 to 1000",
        "catalog/gpus/mi300x.yaml: fp8_tensor_tflops: implausible: 0.2 times fp16_tensor_tflops, expected 1 to 4",
        "catalog/gpus/mi300x.yaml: int8_tensor_tops: implausible: 0.2 times fp16_tensor_tflops, expected 1 to 4",
    ]


def test_duplicate_name_and_repo(catalog: Path) -> None:
    copy = catalog / "models" / "llama-copy.yaml"
    shutil.copy(catalog / MODEL, copy)
    edit(copy, "id: llama-3.1-8b", "id: llama-copy")
    assert check_problems(catalog) == [
        "catalog/models/llama-copy.yaml: hf_repo: duplicate hf_repo 'meta-llama/Llama-3.1-8B-Instruct', "
        "also in catalog/models/llama-3.1-8b.yaml",
        "catalog/models/llama-copy.yaml: name: duplicate name 'Llama 3.1 8B Instruct', "
        "also in catalog/models/llama-3.1-8b.yaml",
    ]


def test_future_source_date(catalog: Path) -> None:
    tomorrow = dt.date.today() + dt.timedelta(days=1)
    edit(catalog / CLOUD, "checked: 2026-05-28", f"checked: {tomorrow}")
    assert check_problems(catalog) == [
        f"catalog/clouds/digitalocean.yaml: offers.0.checked: {tomorrow} is in the future"]


@pytest.mark.parametrize(("total", "ok"), [
    (7_628_748_186, True), (7_628_748_185, False),  # 0.95 x 8,030,261,248 = 7,628,748,185.6
    (8_431_774_310, True), (8_431_774_311, False),  # 1.05 x 8,030,261,248 = 8,431,774,310.4
])
def test_total_params_tolerance_edges(catalog: Path, total: int, ok: bool) -> None:
    edit(catalog / MODEL, "total_params: 8030261248", f"total_params: {total}")
    assert passes(catalog) is ok


def test_context_length_from_another_source_passes(catalog: Path) -> None:
    edit(catalog / MODEL, "context_length: 131072", "context_length: 8192")
    edit(catalog / MODEL, "fields: [license, release_date]", "fields: [license, release_date, context_length]")
    assert passes(catalog)


def test_moe_active_params_range(catalog: Path) -> None:
    # Qwen3-30B-A3B: active 3,353,032,704 computed (see test_import_hf); embedding and output 2 x 151936 x 2048
    # = 622,329,856, so the accepted range is 0.95 x 2,730,702,848 = 2.594 B to 1.05 x 3,353,032,704 = 3.521 B.
    done = run_generator("import-hf", HF_CONFIGS / "Qwen--Qwen3-30B-A3B.json", "--id", "qwen3-30b-a3b",
                         "--repo", "Qwen/Qwen3-30B-A3B", "--catalog", catalog)
    assert done.returncode == 0, done.stderr
    entry = catalog / "models" / "qwen3-30b-a3b.yaml"
    edit(entry, "active_params: 3353032704", "active_params: 3000000000")  # the card's nominal "A3B"
    assert passes(catalog)
    edit(entry, "active_params: 3000000000", "active_params: 10000000000")
    assert check_problems(catalog) == ["catalog/models/qwen3-30b-a3b.yaml: active_params: 10.000 B is inconsistent "
                                       "with the config (computed 3.353 B; accepted 2.594 to 3.521 B)"]


@pytest.mark.parametrize("name", ["Q4_K_M", "IQ4_XS", "MXFP4_MOE", "F32", "BF16", "UD-Q4_K_XL", "UD-IQ1_S",
                                  "UD-IQ4_NL", "Q2_K_L", "Q8_K_XL", "TQ1_0"])
def test_known_quants(name: str) -> None:
    assert known_quant(name)


@pytest.mark.parametrize("name", ["q4_k_m", "Q4_K", "Q4_K_Q", "Q9_K_XL", "UD-", "UD-Q4_K_Z", "XL", "_XL", "GPTQ"])
def test_unknown_quants(name: str) -> None:
    assert not known_quant(name)


def test_duplicate_offer(catalog: Path) -> None:
    """The same instance and tier twice in one provider's file; another tier of it is a separate offer."""
    text = (catalog / CLOUD).read_text(encoding="utf-8")
    offer = text[text.index("  - instance:"):]
    (catalog / CLOUD).write_text(text + offer + offer.replace("tier: on-demand", "tier: spot"), encoding="utf-8")
    assert check_problems(catalog) == [
        "catalog/clouds/digitalocean.yaml: offers.1: duplicate offer: same instance and tier as offers.0"]


def test_price_without_date(catalog: Path) -> None:
    edit(catalog / CLOUD, "    checked: 2026-05-28\n", "")
    assert check_problems(catalog) == ["catalog/clouds/digitalocean.yaml: offers.0.checked: is required"]


@pytest.mark.parametrize(("instance", "stated"), [
    ("p5.48xlarge (8x NVIDIA H100 SXM 80 GB)", 8), ("NVIDIA HGX B200, 8 GPUs", 8), ("NVIDIA GH200, 1 GPU (96 GB)", 1),
    ("n3-H100x1 (NVIDIA H100 PCIe 80 GB)", 1), ("vcg-l40s-64c-750g-192vram (4x L40S)", 4),
    ("1H100.80S.32V (1x H100 SXM5 80 GB)", 1), ("g2-gpu-rtx4000a2-s (2 x RTX 4000 Ada, 8 vCPU, 32 GB)", 2),
    ("Secure Cloud H100 SXM", None), ("NVIDIA L40S with Intel CPU", None)])
def test_instance_gpus(instance: str, stated: int | None) -> None:
    assert instance_gpus(instance) == stated


def test_implausible_marketed_memory(catalog: Path) -> None:
    # 192 GiB marketed as 250 GB: 1.3 times the GiB count, above 1.10
    edit(catalog / GPU, "memory_bytes: 206158430208\n", "memory_bytes: 206158430208\nmemory_gb: 250\n")
    edit(catalog / GPU, "  fields:\n  - memory_bytes\n", "  fields:\n  - memory_bytes\n  - memory_gb\n")
    assert check_problems(catalog) == ["catalog/gpus/mi300x.yaml: memory_gb: implausible: 1.3 times the 192.000 GiB "
                                       "of memory_bytes, expected 0.95 to 1.1"]


def test_street_price_needs_its_date_and_a_url(catalog: Path) -> None:
    edit(catalog / GPU, "price_date: 2026-05-13\n", "price_date: 2026-05-13\nstreet_price_usd: 12000\n")
    edit(catalog / GPU, "  fields:\n  - memory_bytes\n", "  fields:\n  - memory_bytes\n  - street_price_usd\n")
    assert check_problems(catalog) == ["catalog/gpus/mi300x.yaml: street_price_date: give street_price_usd and "
                                       "street_price_date together"]
    edit(catalog / GPU, "street_price_usd: 12000\n", "street_price_usd: 12000\nstreet_price_date: 2026-10-01\n")
    assert passes(catalog)
    edit(catalog / GPU, "  fields:\n  - memory_bytes\n  - street_price_usd\n", "  fields:\n  - memory_bytes\n")
    edit(catalog / GPU, "  fields:\n  - interconnect\n", "  fields:\n  - interconnect\n  - street_price_usd\n")
    assert passes(catalog)  # the AMD platform page source has a URL too


@pytest.mark.parametrize("unbuffered", [{"PYTHONUNBUFFERED": "1"}, {}], ids=["unbuffered", "buffered"])
def test_a_reader_that_leaves_early_gets_no_traceback(catalog: Path, unbuffered: dict[str, str]) -> None:
    """``check | head -1``: the pipe closes before the report is written; the command stops quietly (exit 141),
    whether stdout is buffered (the report reaches the pipe only at the final flush) or not."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the command writes a byte
    try:
        done = run_generator("check", "--catalog", catalog, stdout=write, env=unbuffered)
    finally:
        os.close(write)
    assert done.returncode == 141, done.stderr
