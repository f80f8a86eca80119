"""``python -m generator accuracy`` output format: cross-validated rows per backend, era and quantity."""

from __future__ import annotations

import json
import re

from generator.__main__ import main


def test_table_lists_cross_validated_rows(capsys) -> None:
    assert main(["accuracy"]) == 0
    out = capsys.readouterr().out
    assert "Cross-validated" in out
    for method in ("leave one GPU out", "leave one source out"):
        for group in ("cuda 2025-26", "cuda 2024-05", "metal 2024-05", "metal 2025-26", "rocm 2025-26", "vulkan 2025-26",
                      "all"):
            for kind in ("decode", "prefill", "TTFT"):
                assert re.search(rf"^{method}\s+{group}\s+{kind}\s+\d+\s+\d+\.\d%\s+\d+\.\d%\s+\d+\.\d%$", out, re.M), \
                    (method, group, kind)
    assert re.search(r"^formula \(nothing fitted\)\s+all\s+file size\s+\d+", out, re.M)
    assert "In-sample" in out


def test_json(capsys) -> None:
    assert main(["accuracy", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [row["kind"] for row in data["in_sample"]] == ["file size", "decode", "prefill"]
    # 398 rows of 2024 builds + 20 of the current CUDA scoreboard (flash attention on) + 252 decode rows of 2025-26
    # pull requests, issues, benches/dgx-spark.md and kyuz0's toolbox logs (CUDA, ROCm, Vulkan; dense, MoE, hybrid)
    # + 100 of 2025-26 Metal builds (llama.cpp pull requests, mac-llm-bench, a blog's llama-bench runs) + 7 CUDA rows of
    # December 2026 (pull requests 15802 and 29152, issue 28196) + 4 decode rows of hybrid models (pull requests 22478
    # and 22653, ik_llama.cpp pull request 1278's mainline column) + 10 Vulkan rows on NVIDIA cards (pull requests
    # 15355, 17675, 17711, 21024) + 4 decode rows of discrete RDNA 3/4 cards (pull requests 20551 and 27952, discussion
    # 15396, LocalAI-Lab's RX 9060 XT log), less the 17 Vulkan decode rows on NVIDIA cards, which are never fitted: they
    # are predicted with CUDA's constants and count only among the held-out rows (group "vulkan NVIDIA")
    assert data["in_sample"][1]["rows"] == 778
    cv = {(r["method"], r["group"], r["kind"]): r for r in data["cross_validated"]}
    assert cv[("leave one GPU out", "all", "decode")]["rows"] == 795
    assert cv[("leave one GPU out", "vulkan NVIDIA 2025-26", "decode")]["rows"] == 17
    assert cv[("leave one GPU out", "cuda 2025-26 hybrid", "decode")]["rows"] == 10
    assert cv[("leave one GPU out", "cuda 2025-26 moe", "decode")]["rows"] == 33
    assert cv[("leave one GPU out", "vulkan 2025-26 moe", "prefill")]["rows"] == 38
    assert cv[("leave one GPU out", "all moe", "prefill")]["rows"] == 148
    assert cv[("leave one GPU out", "metal 2025-26 moe", "decode")]["rows"] == 33
    assert cv[("leave one GPU out", "all multi-GPU", "decode")]["rows"] > 0
    assert 0 <= cv[("leave one GPU out", "cuda 2025-26", "prefill")]["median_abs_error"] < 1


def test_serving_section_reports_cross_validated_error(capsys) -> None:
    assert main(["accuracy", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["serving"]
    validations = {(r["kind"], r["validation"]) for r in rows}
    for kind in ("throughput_per_gpu", "user_tps"):
        for validation in ("leave one GPU out", "leave one source out", "in-sample"):
            assert (kind, validation) in validations
    assert all(0 <= r["median_abs_error"] < 10 and r["rows"] > 0 for r in rows)
