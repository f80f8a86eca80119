"""The recommendation policy: the best quality at or above the floor that fits, else at it with offload at reading
speed; below it only when neither runs."""

from __future__ import annotations

from types import SimpleNamespace

from generator.estimate import fidelity
from generator.sitedata import recommend
from generator.sitedata.policy import READING_TOKENS_PER_S


def _tried(*rows: tuple) -> list:
    """(quant, verdict, size[, decode tok/s]) rows as recommend's (quant, estimate) pairs."""
    return [(quant, SimpleNamespace(verdict=verdict, total_bytes=size, decode_tokens_per_s=speed[0] if speed else 1.0))
            for quant, verdict, size, *speed in rows]


def test_an_at_floor_quant_that_fits_tightly_beats_a_below_floor_one_with_margin():
    tried = _tried(("Q8_0", "no_fit", 30), ("Q4_K_M", "tight", 20), ("Q3_K_M", "fits", 15), ("IQ1_S", "fits", 8))
    assert recommend(tried, fidelity.at_floor).quant == "Q4_K_M"
    assert recommend(tried).quant == "Q3_K_M"  # without a floor: the best quality that fits with margin


def test_below_the_floor_only_when_nothing_at_it_fits_or_offloads_at_reading_speed():
    tried = _tried(("Q4_K_M", "offload", 20, 3.0), ("IQ4_XS", "offload", 19, 5.2), ("Q2_K", "tight", 12),
                   ("IQ1_S", "fits", 8))
    assert READING_TOKENS_PER_S > 5.2  # 238 words a minute at 3/4 of a word per token: 5.29 tokens a second
    assert recommend(tried, fidelity.at_floor).quant == "IQ1_S"


def test_at_the_floor_with_offload_at_reading_speed_beats_a_heavy_loss_quant_on_the_gpu_alone():
    # Qwen3 30B-A3B on a 12 GB card: IQ4_XS keeps a few experts in system RAM and still runs at 82 tok/s; Q2_K
    # fits the card alone, at heavy loss.
    tried = _tried(("Q8_0", "offload", 31, 40.0), ("Q4_K_M", "offload", 19, 72.0), ("IQ4_XS", "offload", 17, 82.0),
                   ("Q2_K", "tight", 12, 129.0), ("IQ1_S", "fits", 7, 157.0))
    assert recommend(tried, fidelity.at_floor).quant == "IQ4_XS"  # the smallest at the floor, as any offload pick
    slow = _tried(("IQ4_XS", "offload", 17, READING_TOKENS_PER_S), ("Q2_K", "tight", 12, 129.0))
    assert recommend(slow, fidelity.at_floor).quant == "IQ4_XS"
    fitting = _tried(("Q4_K_M", "offload", 19, 72.0), ("IQ4_XS", "tight", 17, 82.0))
    assert recommend(fitting, fidelity.at_floor).quant == "IQ4_XS"  # a fit at the floor still comes first


def test_a_better_quant_that_decodes_slower_than_people_read_gives_way_to_one_that_keeps_up():
    tried = _tried(("Q8_0", "fits", 72, 4.1), ("Q6_K", "fits", 56, 5.3), ("Q4_K_M", "fits", 42, 7.9))
    assert recommend(tried, fidelity.at_floor).quant == "Q6_K"  # the best that keeps up with a reader
    slow = _tried(("Q8_0", "fits", 72, 3.0), ("Q4_K_M", "fits", 42, 5.0), ("Q2_K", "fits", 25, 9.0))
    assert recommend(slow, fidelity.at_floor).quant == "Q8_0"  # none at the floor keeps up: the best, as before


def test_offload_keeps_the_models_own_release_before_a_slightly_smaller_requantised_file():
    tried = _tried(("MXFP4_MOE", "offload", 61, 40.0), ("Q4_K_M", "offload", 59, 41.0), ("Q2_K", "tight", 22))
    native, floor = {"MXFP4_MOE"}.__contains__, {"MXFP4_MOE", "Q4_K_M"}.__contains__
    assert recommend(tried, floor, lambda quant: True, native).quant == "MXFP4_MOE"
    assert recommend(tried, floor).quant == "Q4_K_M"  # without the release known: the smallest
    assert recommend(tried, floor, {"Q4_K_M"}.__contains__, native).quant == "Q4_K_M"  # published first


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


def test_a_published_tight_fit_beats_a_fit_with_margin_that_would_have_to_be_built():
    tried = _tried(("Q8_0", "no_fit", 30), ("Q4_K_M", "tight", 20), ("IQ4_XS", "fits", 18))
    assert recommend(tried, fidelity.at_floor, {"Q4_K_M"}.__contains__).quant == "Q4_K_M"
    assert recommend(tried, fidelity.at_floor, lambda quant: False).quant == "IQ4_XS"  # nothing published: margin


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
