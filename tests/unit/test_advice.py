"""Issue 25: the choices a practitioner would make: quality first in rankings, one machine per tensor-parallel group,
rentals priced as providers rent them, fine-tuning on hardware people train on."""

from __future__ import annotations

import pytest

from generator.catalog.load import load_catalog
from generator.estimate.estimator import Estimate
from generator.sitedata.compute import gpu_counts
from generator.sitedata.policy import PairResult, holds, quality_rank, rents
from tests.conftest import FIXTURE_PROJECT


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(FIXTURE_PROJECT / "catalog")


def _pick(quant: str, verdict: str, speed: float) -> PairResult:
    fields = {name: 0 for name in Estimate._fields}
    fields.update(verdict=verdict, decode_tokens_per_s=speed, assumptions=())
    return PairResult(quant, Estimate(**fields))


def test_a_fast_heavy_loss_setup_ranks_after_a_slow_good_one_and_does_not_count_as_fitting():
    iq1, q8 = _pick("IQ1_S", "fits", 300.0), _pick("Q8_0", "tight", 50.0)
    offload = _pick("Q4_K_M", "offload", 5.0)
    ordered = sorted([offload, iq1, q8], key=lambda p: quality_rank(p, "bf16"))
    assert [p.quant for p in ordered] == ["Q8_0", "IQ1_S", "Q4_K_M"]
    assert holds(q8, "bf16") and not holds(iq1, "bf16") and not holds(offload, "bf16")
    assert holds(_pick("MXFP4_MOE", "fits", 1.0), "mxfp4")  # a model's own release is no loss


def test_rankings_and_counts_use_the_floor_the_recommendation_uses():
    from generator.sitedata.policy import below_floor, meets_floor

    # Q4_K_S has no quality measurement; the recommendation counts it at the floor by its bits (more than IQ4_XS,
    # graded good), so the lists and counts that rank pairs must too, or a pair page's pick drops out of them.
    q4ks, q3km = _pick("Q4_K_S", "fits", 100.0), _pick("Q3_K_M", "fits", 120.0)
    assert meets_floor("Q4_K_S") and holds(q4ks, "bf16") and not below_floor(q4ks, "bf16")
    assert not holds(q3km, "bf16") and below_floor(q3km, "bf16")  # graded noticeable loss
    assert sorted([q3km, q4ks], key=lambda p: quality_rank(p, "bf16")) == [q4ks, q3km]


def test_an_instance_holds_a_group_only_when_it_has_enough_gpus_for_whole_replicas():
    assert rents(1, 1) and rents(8, 1) and rents(8, 2) and rents(8, 8) and rents(4, 4)
    assert not rents(1, 2) and not rents(1, 8) and not rents(4, 8) and not rents(6, 4)


def test_tensor_parallel_stays_in_one_machine_whose_gpus_the_catalogue_connects(catalog):
    gpu = catalog.gpus["mi300x"]
    assert gpu.interconnect is not None and gpu_counts(gpu) == (1, 2, 4, 8)
    assert gpu_counts(gpu.model_copy(update={"interconnect": None})) == (1,)
    assert gpu_counts(gpu.model_copy(update={"unified_memory": True, "segment": "unified"})) == (1,)


def test_the_way_forward_on_several_gpus_decodes_at_llama_cpp_layer_split_speed(catalog):
    """A GGUF on several GPUs runs as llama.cpp splits it by default, one GPU after another: slower than tensor
    parallelism's N-fold bandwidth, which is vLLM's, not what llama.cpp runs by default."""
    from generator.estimate import estimator
    from generator.estimate.estimator import Request
    from generator.sitedata import ModelEstimates
    from generator.sitedata.adapters import device_spec

    site = ModelEstimates(catalog)
    (multi,) = site.multi_gpu("deepseek-v3", "mi300x")
    assert multi is not None and multi.gpu_count > 1
    layer = estimator.estimate(site.models["deepseek-v3"], device_spec(catalog.gpus["mi300x"], multi.gpu_count, "layer"),
                               Request(quant=multi.quant, gpu_count=multi.gpu_count), limits=False)
    tensor = estimator.estimate(site.models["deepseek-v3"], device_spec(catalog.gpus["mi300x"], multi.gpu_count, "tensor"),
                                Request(quant=multi.quant, gpu_count=multi.gpu_count), limits=False)
    assert multi.decode_tokens_per_s == layer.decode_tokens_per_s < tensor.decode_tokens_per_s


def test_the_floor_grades_are_the_measured_grades_at_the_floor_then_unmeasured():
    from generator.estimate import fidelity
    from generator.sitedata.policy import FLOOR_GRADES, meets_floor

    # The finder's grade column and its labels read this tuple; a grade the floor admits must be in it, best first.
    assert set(FLOOR_GRADES[:-1]) == fidelity.AT_FLOOR and FLOOR_GRADES[-1] == "unmeasured"
    assert all(fidelity.grade(q) in FLOOR_GRADES for q in ("Q8_0", "Q4_K_M", "IQ4_XS", "Q4_K_S") if meets_floor(q))


def test_a_model_released_in_mxfp4_is_recommended_in_its_own_release_not_a_requantised_k_quant():
    from pathlib import Path

    from generator.sitedata.compute import ModelEstimates

    # unsloth's gpt-oss Q5_K_M has more nominal bits than MXFP4 but re-quantises the tensors the release keeps in
    # BF16; ranked by bits alone it came first, and every gpt-oss page told llama.cpp users to download it.
    site = ModelEstimates(load_catalog(Path("catalog")))
    assert {"Q5_K_M", "MXFP4_MOE"} <= set(site.candidates("gpt-oss-20b"))
    assert site.candidates("gpt-oss-20b")[0] == "MXFP4_MOE"
    assert site.pick("gpt-oss-20b", "rtx-4090").quant == "MXFP4_MOE"
    assert site.pick("gpt-oss-120b", "h100-sxm").quant == "MXFP4_MOE"
    assert site.candidates("qwen3-8b")[0] == "Q8_0"  # a BF16 release: the list's order stands
