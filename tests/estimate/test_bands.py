"""Error bands per backend and architecture class: the class's own held-out rows, and honest labels when few."""

from __future__ import annotations

from pathlib import Path

from generator.estimate import bands, constants
from generator.estimate.estimator import spec_from_config


def _rows(group: str) -> int:
    return sum(n for method, g, k, n, *_ in constants.CV_STATS if method == "gpu" and g == group
               and k in ("decode_tps", "prefill_tps"))


def test_status_follows_the_held_out_row_count() -> None:
    band = bands.ErrorBand("cuda", 0.1, 0.2, 0.2, "cuda 2025-26 moe", rows=bands.FEW_ROWS)
    assert band.status == "validated"
    assert bands.ErrorBand("cuda", 0.1, 0.2, 0.2, "g", rows=bands.FEW_ROWS - 1).status == "few"
    assert bands.ErrorBand("cuda", 0.1, 0.2, 0.2, "g", rows=0).status == "none"


def test_a_page_gets_its_own_class_band() -> None:
    era = next(e for (f, e), k in constants.ERA_CONSTANTS.items() if f == "cuda" and k is constants.CONSTANTS["cuda"])
    for cls in bands.CLASSES:
        band = bands.error_band("cuda", cls)
        assert band.architecture == cls and band.rows == _rows(f"cuda {era} {cls}")
        if band.rows:
            assert band.group == f"cuda {era} {cls}"
        else:  # no held-out row of this class: the backend's figure over all classes, marked not validated
            assert band.group == f"cuda {era}" and band.status == "none"


def test_metal_bands_rest_on_current_metal_rows() -> None:
    # Apple pages use the 2025-26 Metal set, so their MoE band is that set's held-out MoE rows, not the 2024 builds'.
    band = bands.error_band("metal", "moe")
    assert band.group == "metal 2025-26 moe" and band.rows == _rows("metal 2025-26 moe") > 0


def test_architecture_class_of_configs() -> None:
    dense = {"model_type": "llama", "hidden_size": 512, "num_hidden_layers": 2, "num_attention_heads": 8,
             "num_key_value_heads": 8, "intermediate_size": 1024, "vocab_size": 1000, "max_position_embeddings": 4096}
    moe = dict(dense, model_type="qwen3_moe", num_experts=8, num_experts_per_tok=2, moe_intermediate_size=256)
    assert bands.architecture_class(spec_from_config(dense).architecture) == "dense"
    assert bands.architecture_class(spec_from_config(moe).architecture) == "moe"


def _median(method: str, group: str, kind: str) -> float:
    return next(m for me, g, k, _n, m, *_ in constants.CV_STATS if me == method and g == group and k == kind)


def test_a_band_is_the_larger_of_leaving_a_gpu_and_a_source_out() -> None:
    band = bands.error_band("cuda", "dense")
    for value, kind in ((band.decode, "decode_tps"), (band.prefill, "prefill_tps")):
        assert value == max(_median("gpu", band.group, kind), _median("source", band.group, kind))


def test_rocm_bands_split_by_gpu_generation() -> None:
    assert bands.generation("rocm", "datacenter") == "cdna"
    assert bands.generation("rocm", "consumer") == "rdna"
    assert bands.generation("cuda", "datacenter") == ""
    unmeasured = bands.error_band("rocm", "dense", "cdna", generation_rows=0)
    assert unmeasured.status == "none" and not unmeasured.generation_measured
    few = bands.error_band("rocm", "dense", "cdna", generation_rows=bands.FEW_ROWS - 1)
    assert few.status == "few" and few.generation_measured and few.by_generation  # the page names the generation
    assert not bands.error_band("rocm", "dense", "rdna", generation_rows=10**6).by_generation
    assert bands.error_band("rocm", "dense", "rdna").rows == _rows(bands.error_band("rocm", "dense").group)


def test_a_rocm_generation_counts_only_its_own_rows() -> None:
    """CDNA (Instinct) and RDNA (Radeon) run different kernels: a generation's band rests on its own held-out rows, so
    the few CDNA rows in the data make its pages say "few measurements", never the Radeon-dominated band's status."""
    from generator.catalog.load import load_catalog
    from generator.sitedata.methodology import error_bands, generation_rows

    gpus = load_catalog(Path("catalog")).gpus
    rows = generation_rows(gpus)
    assert rows[("rocm", "rdna")] >= bands.FEW_ROWS
    assert rows.get(("rocm", "cdna"), 0) < bands.FEW_ROWS  # a test to revisit when a CDNA table enters the data
    assert sum(rows.values()) == sum(n for counted in constants.ROW_GPUS.values() for gpu, n in counted if gpu in gpus)
    cdna = error_bands(gpus)[("rocm", "cdna", "dense")]
    assert cdna.status == ("few" if rows.get(("rocm", "cdna")) else "none")


def test_a_setup_with_experts_in_ram_takes_the_offload_runs_band() -> None:
    from generator.estimate import offload_constants

    band = bands.offload_band(bands.error_band("cuda", "moe"))
    assert band.offload and band.group == "offload" and band.rows == offload_constants.ROWS
    assert band.decode == max(err for _, _, err in offload_constants.CV_STATS)
    # prefill with experts in RAM has no measurement: the band must not look validated while the runs are few
    assert offload_constants.ROWS < bands.FEW_ROWS and band.few
