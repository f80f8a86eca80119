"""The methodology prose prints the code's constants through ``{placeholders}``, never typed by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.errors import UserError
from generator.estimate import bands, fidelity, finetune, kvcache, runtime, verdict
from generator.i18n import formatter
from generator.pages.render import Renderer, fill_figures
from generator.sitedata.methodology import Figure, prose_figures

ROOT = Path(__file__).resolve().parents[2]
CONTENT = ROOT / "templates" / "content"


def _placeholders(language: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", (CONTENT / f"methodology.{language}.md").read_text(encoding="utf-8")))


@pytest.mark.parametrize("language", ["en", "de"])
def test_each_figure_is_printed_in_each_language(language: str) -> None:
    assert _placeholders(language) == set(prose_figures())


def test_each_figure_is_its_constant() -> None:
    figures = prose_figures()
    assert figures["fit_margin_percent"] == Figure(verdict.TIGHT_FRACTION * 100, 0)
    assert figures["vllm_gpu_memory_utilization"] == Figure(runtime.VLLM_GPU_MEMORY_UTILIZATION, 2)
    assert figures["compute_buffer_ubatch"].value == kvcache.LLAMA_CPP_UBATCH
    assert figures["prefill_ubatch"].value == kvcache.LLAMA_CPP_UBATCH
    assert figures["few_rows"].value == bands.FEW_ROWS
    assert figures["lora_rank"].value == finetune.LORA_RANK
    assert figures["kld_good"].value == dict(fidelity.GRADE_BOUNDS)["good"]
    assert figures["kld_IQ1_S"].value == fidelity.figures()["IQ1_S"].kld


@pytest.mark.parametrize(("language", "expected"), [
    ("en", {"fit_margin_percent": "10", "vllm_gpu_memory_utilization": "0.90", "prefill_ubatch": "512",
            "moe_example_tokens": "32", "kv_q8_0_bytes": "1.0625", "kv_q4_0_bytes": "0.5625", "q4_k_bits": "4.5",
            "full_finetune_bytes": "16", "finetune_seq_len": "2,048", "older_launch_year": "2021",
            "host_bandwidth_gbs": "89.6", "kld_Q8_0": "0.0014", "kld_IQ1_S": "2.25"}),
    ("de", {"vllm_gpu_memory_utilization": "0,90", "kv_q8_0_bytes": "1,0625", "finetune_seq_len": "2.048",
            "older_launch_year": "2021", "host_bandwidth_gbs": "89,6", "kld_noticeable": "0,15"}),
])
def test_figures_print_in_the_language_s_format(language: str, expected: dict[str, str]) -> None:
    """Hand-computed: 2 × 8 B × 5600 MT/s = 89.6 GB/s; 34 B per 32 q8_0 elements; 144 × 8 / 256 = 4.5 bits."""
    printed = {name: fill_figures(f"{{{name}}}", prose_figures(), formatter(language), "test") for name in expected}
    assert printed == expected


def test_changing_a_constant_changes_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    def page(language: str) -> str:
        return str(Renderer(ROOT / "templates", ROOT / "locales", {}).prose(language, "methodology"))

    assert "(0.90)" in page("en") and "(0,90)" in page("de")
    monkeypatch.setattr(runtime, "VLLM_GPU_MEMORY_UTILIZATION", 0.85)
    assert "(0.85)" in page("en") and "(0.90)" not in page("en")
    assert "(0,85)" in page("de") and "(0,90)" not in page("de")


def test_an_unknown_placeholder_is_an_error() -> None:
    with pytest.raises(UserError, match=r"methodology.en.md: unknown figure \{margin\}"):
        fill_figures("at least {margin} %", prose_figures(), formatter("en"), "templates/content/methodology.en.md")
