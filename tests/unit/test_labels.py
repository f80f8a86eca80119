"""Assumption texts and catalogue codes in the page language."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.catalog.load import load_catalog
from generator.i18n import compile_locales, translations
from generator.sitedata import SiteData, matrix_quants
from generator.views import labels

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def german():
    compile_locales(ROOT / "locales")
    return translations(ROOT / "locales", "de").gettext


def test_numbers_are_lifted_out_translated_around_and_put_back_with_the_locale_decimal_sign(german):
    text, ok = labels.localise("margin below max(10% of usable, 1 GiB)", german, ",")
    assert ok and text == "Reserve unter max(10\u00a0% des nutzbaren Speichers, 1 GiB)"
    text, ok = labels.localise("0.00e+00 + 5.56e-05 × layers (without CUDA graphs 1.71e-04 × layers)", german, ",")
    assert ok and text == "0,00e+00 + 5,56e-05 × Schichten (ohne CUDA-Graphen 1,71e-04 × Schichten)"
    text, ok = labels.localise("llama.cpp CUDA builds of 2025-08 to 2026-03 (llama-bench; quantised matmul MMQ, flash "
                               "attention on)", german, ",")
    assert ok and text.startswith("llama.cpp-CUDA-Builds von 2025-08 bis 2026-03")


def test_appended_clauses_are_translated_one_by_one(german):
    text, ok = labels.localise("catalogued dense FP16 tensor 165.2 TFLOPS per GPU (× 2 for FP16-accumulate GEMMs on "
                               "GeForce); quantised matmul at most 2.34 × the catalogued FP32 82.6 TFLOPS", german, ",")
    assert ok and text == ("erfasste dichte FP16-Tensorleistung 165,2 TFLOPS je GPU (× 2 für GEMMs mit "
                           "FP16-Akkumulation auf GeForce); quantisierte Matrixmultiplikation höchstens 2,34 × die "
                           "erfasste FP32-Leistung von 82,6 TFLOPS")
    assert labels.localise("computed per tensor; a brand new clause", german, ",") == (
        "computed per tensor; a brand new clause", False)


def test_codes_stay_and_backend_names_get_their_label(german):
    assert labels.localise("Q4_K_M", german, ",") == ("Q4_K_M", True)
    assert labels.localise("llama.cpp", german, ",") == ("llama.cpp", True)
    assert labels.localise("0.910", german, ",") == ("0,910", True)
    assert labels.localise("rocm (no measurements of its own: constants of cuda)", german, ",") == (
        "ROCm (keine eigenen Messungen: Konstanten von CUDA)", True)


def test_unknown_prose_is_reported_not_passed_off_as_translated(german):
    assert labels.localise("a brand new rule of 3 GiB", german, ",") == ("a brand new rule of 3 GiB", False)


def test_every_assumption_of_the_fixture_catalogue_has_a_german_text(german):
    site = SiteData(load_catalog(ROOT / "tests" / "fixtures" / "project" / "catalog"))
    missing = set()
    for (model_id, gpu_id), pick in site.pairs.items():
        estimates = [pick.estimate, *(site.quant_estimate(model_id, gpu_id, q) for q in matrix_quants(site.models[model_id]))]
        for estimate in estimates:
            for key, value in estimate.assumptions:
                if key not in labels.ASSUMPTION or not labels.localise(value, german, ",")[1]:
                    missing.add((key, value))
    assert not missing


def test_every_catalogue_code_has_a_label():
    from generator.catalog import schema
    assert set(labels.BILLING) == set(schema.Billing.__args__)
    assert set(labels.TIER) == set(schema.Tier.__args__)
    assert set(labels.BACKEND) == set(schema.Backend.__args__)
    assert set(labels.SEGMENT) == set(schema.Segment.__args__)
    assert {"msrp", "street"} == set(labels.PRICE_KIND)


@pytest.mark.slow  # estimates on every catalogued GPU
def test_every_real_gpu_rule_has_a_german_text(german):
    """The GPU-dependent rules (FLOPS, quantised-matmul kernel, usable memory) for every catalogued GPU."""
    site = SiteData(load_catalog(ROOT / "catalog"))
    missing = {(key, value) for gpu_id in site.devices
               for key, value in site.quant_estimate("llama-3.1-8b", gpu_id, "Q4_K_M").assumptions
               if key not in labels.ASSUMPTION or not labels.localise(value, german, ",")[1]}
    assert not missing
