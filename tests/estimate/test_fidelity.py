"""Quality grades per quantization: published figures, thresholds, the native format and the floor."""

from __future__ import annotations

import pytest

from generator.estimate import fidelity


def test_every_figure_is_sourced_and_dated():
    figures = fidelity.figures()
    assert {"BF16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "Q2_K", "IQ2_XXS", "IQ1_S"} <= set(figures)
    for figure in figures.values():
        assert figure.url.startswith("https://github.com/ggml-org/llama.cpp/") and figure.read.year >= 2024
        assert figure.kld > 0 and figure.ppl_delta > 0


def test_llama_cpp_scoreboard_values_as_published():
    # LLaMA 3 8b Scoreboard rows: q4_K_M / WT 10m and iq1_S / WT 10m
    assert fidelity.figures()["Q4_K_M"].kld == 0.028152
    assert fidelity.figures()["IQ1_S"].ppl_delta == 54.462959


@pytest.mark.parametrize("kld, grade", [(0.0, "near_lossless"), (0.00999, "near_lossless"), (0.01, "good"),
                                        (0.0499, "good"), (0.05, "noticeable"), (0.1499, "noticeable"),
                                        (0.15, "heavy"), (3.0, "heavy")])
def test_grade_thresholds(kld, grade):
    assert fidelity.grade_of_kld(kld) == grade


@pytest.mark.parametrize("quant, grade", [("Q8_0", "near_lossless"), ("Q6_K", "near_lossless"), ("Q5_K_M", "good"),
                                          ("Q4_K_M", "good"), ("IQ4_XS", "good"), ("Q3_K_M", "noticeable"),
                                          ("Q2_K", "heavy"), ("IQ2_XXS", "heavy"), ("IQ1_S", "heavy"),
                                          ("AWQ-INT4", "unmeasured")])
def test_grades_of_the_matrix_quants(quant, grade):
    assert fidelity.grade(quant) == grade


def test_the_native_release_format_is_graded_native_only_for_its_model():
    assert fidelity.grade("MXFP4_MOE", "mxfp4") == "native" and fidelity.at_floor("MXFP4_MOE", "mxfp4")
    assert fidelity.grade("MXFP4_MOE", "bf16") == "unmeasured" and not fidelity.at_floor("MXFP4_MOE", "bf16")


def test_the_floor_is_the_four_bit_k_quant_class():
    assert [q for q in ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "Q2_K", "IQ2_XXS", "IQ1_S")
            if fidelity.at_floor(q)] == ["Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS"]
