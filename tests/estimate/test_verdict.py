"""Verdict thresholds, the piecewise-linear context solver and offload planning."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from generator.estimate.verdict import GIB, max_linear, on_gpu_verdict, plan_offload, tight_threshold
from generator.estimate.weights import Weights


def test_tight_threshold_is_ten_percent_or_one_gib():
    assert tight_threshold(24 * GIB) == int(2.4 * GIB)
    assert tight_threshold(8 * GIB) == GIB
    assert on_gpu_verdict(20 * GIB, 24 * GIB) == "fits"
    assert on_gpu_verdict(22 * GIB, 24 * GIB) == "tight"
    assert on_gpu_verdict(25 * GIB, 24 * GIB) is None


def test_max_linear_with_a_capped_group():
    # 2x + min(x, 10): slope 3 up to x = 10 (30 bytes), then 2x + 10
    assert max_linear(24, 2, ((1, 10),)) == 8
    assert max_linear(50, 2, ((1, 10),)) == 20
    assert max_linear(-1, 2, ()) < 0
    assert max_linear(10, 0, ((1, 4),)) == float("inf")


@given(st.integers(0, 10**6), st.integers(0, 100), st.lists(st.tuples(st.integers(0, 50), st.integers(0, 10**4)),
                                                           max_size=3))
def test_max_linear_is_the_largest_feasible_x(budget, slope, groups):
    x = max_linear(budget, slope, tuple(groups))

    def cost(v):
        return slope * v + sum(b * min(v, cap) for b, cap in groups)

    if x != float("inf") and slope + sum(b for b, _ in groups) > 0:
        assert cost(x) <= budget + 1e-6
        assert cost(x + 1) > budget - 1e-6


def _weights(layers: int, layer: int, expert: int) -> Weights:
    return Weights("test", layers * layer, 0, 0, (layer,) * layers, (expert,) * layers, layers)


def test_offload_moves_experts_first():
    w = _weights(10, 10 * GIB, 9 * GIB)
    plan = plan_offload(gpu_total=100 * GIB, usable=80 * GIB, weights=w, kv_bytes=0, embed_host_bytes=0)
    # need 100 − (80 − 1) = 21 GiB: three layers of experts (27 GiB)
    assert plan is not None and plan.cpu_moe_layers == 3 and plan.gpu_layers == 10
    assert plan.host_expert_bytes == 27 * GIB and plan.gpu_bytes == 73 * GIB


def test_offload_moves_layers_of_dense_models_with_their_kv():
    w = _weights(10, 4 * GIB, 0)
    plan = plan_offload(gpu_total=45 * GIB, usable=32 * GIB, weights=w, kv_bytes=10 * GIB, embed_host_bytes=GIB)
    # need 45 − 31 = 14 GiB; each layer frees 4 GiB of weights + 1 GiB of KV → 3 layers
    assert plan is not None and plan.gpu_layers == 7 and plan.host_dense_bytes == 12 * GIB
    assert plan.host_bytes == 12 * GIB + 3 * GIB + GIB


def test_offload_gives_up_when_system_ram_is_too_small():
    w = _weights(10, 10 * GIB, 9 * GIB)
    assert plan_offload(100 * GIB, 8 * GIB, w, 0, 0, host_ram=32 * GIB) is None
