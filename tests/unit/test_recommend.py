"""The recommendation policy: the best quality at or above the floor that fits; below it only when nothing fits."""

from __future__ import annotations

from types import SimpleNamespace

from generator.estimate import fidelity
from generator.sitedata import recommend


def _tried(*rows: tuple[str, str, int]) -> list:
    return [(quant, SimpleNamespace(verdict=verdict, total_bytes=size)) for quant, verdict, size in rows]


def test_an_at_floor_quant_that_fits_tightly_beats_a_below_floor_one_with_margin():
    tried = _tried(("Q8_0", "no_fit", 30), ("Q4_K_M", "tight", 20), ("Q3_K_M", "fits", 15), ("IQ1_S", "fits", 8))
    assert recommend(tried, fidelity.at_floor).quant == "Q4_K_M"
    assert recommend(tried).quant == "Q3_K_M"  # without a floor: the best quality that fits with margin


def test_below_the_floor_only_when_nothing_at_it_fits():
    tried = _tried(("Q4_K_M", "offload", 20), ("IQ4_XS", "offload", 19), ("Q2_K", "tight", 12), ("IQ1_S", "fits", 8))
    assert recommend(tried, fidelity.at_floor).quant == "IQ1_S"


def test_offload_prefers_the_smallest_at_floor_quant():
    tried = _tried(("Q4_K_M", "offload", 20), ("IQ4_XS", "offload", 19), ("Q2_K", "offload", 12), ("IQ1_S", "no_fit", 8))
    assert recommend(tried, fidelity.at_floor).quant == "IQ4_XS"


def test_when_nothing_runs_the_smallest_shows_how_far_off_it_is():
    tried = _tried(("Q4_K_M", "no_fit", 20), ("IQ4_XS", "no_fit", 19), ("IQ1_S", "no_fit", 8))
    assert recommend(tried, fidelity.at_floor).quant == "IQ1_S"


def test_a_published_quant_that_fits_beats_a_better_one_to_build():
    tried = _tried(("Q8_0", "fits", 30), ("Q6_K", "fits", 25), ("Q4_K_M", "fits", 20))
    assert recommend(tried, fidelity.at_floor, {"Q4_K_M"}.__contains__).quant == "Q4_K_M"


def test_building_at_the_floor_beats_a_published_quant_below_it():
    tried = _tried(("Q8_0", "no_fit", 30), ("Q4_K_M", "fits", 20), ("Q2_K", "fits", 12))
    assert recommend(tried, fidelity.at_floor, {"Q2_K"}.__contains__).quant == "Q4_K_M"


def test_a_published_fit_with_margin_beats_a_published_tight_fit_of_better_quality():
    tried = _tried(("Q8_0", "tight", 30), ("Q4_K_M", "fits", 20))
    assert recommend(tried, fidelity.at_floor, {"Q8_0", "Q4_K_M"}.__contains__).quant == "Q4_K_M"


def test_a_quant_that_needs_an_importance_matrix_is_never_picked_to_build():
    tried = _tried(("Q4_K_M", "no_fit", 20), ("Q2_K", "no_fit", 12), ("IQ2_XXS", "tight", 9), ("IQ1_S", "fits", 8))
    assert recommend(tried, fidelity.at_floor, lambda quant: False).quant not in {"IQ2_XXS", "IQ1_S"}
    assert recommend(tried, fidelity.at_floor, {"IQ1_S"}.__contains__).quant == "IQ1_S"  # published: downloaded


def test_unmeasured_k_and_i_quants_meet_the_floor_by_bits_per_weight():
    from generator.sitedata.policy import meets_floor

    assert meets_floor("Q4_K_S") and meets_floor("IQ4_NL") and meets_floor("Q5_K_S")  # >= IQ4_XS's 4.25 bits
    assert not meets_floor("Q3_K_L") and not meets_floor("IQ3_M") and not meets_floor("Q4_0")  # fewer bits; not K/I
    assert meets_floor("Q4_K_M") and not meets_floor("Q2_K")  # measured: by their grade
