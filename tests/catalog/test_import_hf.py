"""``import-hf``: a dense, an MoE, an MLA and a hybrid config become entries that load and pass ``check``."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import HF_CONFIGS, run_generator

# Llama 3.1 8B, by hand: embedding + output 2 x 128256 x 4096; per layer q, o 4096^2 each, k, v 4096 x 1024 each,
# gate/up/down 3 x 4096 x 14336, two norms 2 x 4096; 32 layers; final norm 4096.
LLAMA_8B = 2 * 128256 * 4096 + 32 * (2 * 4096**2 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096) + 4096
# Qwen3-30B-A3B, by hand: per layer q, o 2048 x 4096 each, k, v 2048 x 512 each, q/k norms 2 x 128, two norms
# 2 x 2048, router 2048 x 128, experts 3 x 2048 x 768 each (128 stored, 8 used); 48 layers; embedding and output
# 2 x 151936 x 2048; final norm 2048.
_QWEN_LAYER = 2 * 2048 * 4096 + 2 * 2048 * 512 + 2 * 128 + 2 * 2048 + 2048 * 128
_QWEN_OUTER = 2 * 151936 * 2048 + 2048
QWEN_30B_TOTAL = 48 * (_QWEN_LAYER + 128 * 3 * 2048 * 768) + _QWEN_OUTER
QWEN_30B_ACTIVE = 48 * (_QWEN_LAYER + 8 * 3 * 2048 * 768) + _QWEN_OUTER


def test_hand_counts_match_the_published_figures() -> None:
    # Hugging Face safetensors totals (catalog/models/llama-3.1-8b.yaml, qwen3-30b-a3b.yaml and their sources)
    assert (LLAMA_8B, QWEN_30B_TOTAL) == (8_030_261_248, 30_532_122_624)


CASES = [  # fixture, id, repo, expected family
    ("meta-llama--Meta-Llama-3.1-8B", "llama-3.1-8b", "meta-llama/Meta-Llama-3.1-8B", "Meta-Llama-3.1"),
    ("Qwen--Qwen3-30B-A3B", "qwen3-30b-a3b", "Qwen/Qwen3-30B-A3B", "Qwen3"),
    ("deepseek-ai--DeepSeek-V3", "deepseek-v3", "deepseek-ai/DeepSeek-V3", "DeepSeek-V3"),
    ("Qwen--Qwen3.5-35B-A3B", "qwen3.5-35b-a3b", "Qwen/Qwen3.5-35B-A3B", "Qwen3.5"),
]


def import_hf(catalog: Path, fixture: str, model_id: str, repo: str) -> dict:
    """Run import-hf on a verbatim fixture config and return the written entry."""
    done = run_generator("import-hf", HF_CONFIGS / f"{fixture}.json", "--id", model_id, "--repo", repo,
                         "--catalog", catalog)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout.startswith(f"wrote catalog/models/{model_id}.yaml: ")
    return yaml.safe_load((catalog / "models" / f"{model_id}.yaml").read_text(encoding="utf-8"))


@pytest.fixture
def empty(tmp_path: Path) -> Path:
    """An empty catalogue folder."""
    root = tmp_path / "catalog"
    for kind in ("models", "gpus", "clouds"):
        (root / kind).mkdir(parents=True)
    return root


@pytest.mark.parametrize(("fixture", "model_id", "repo", "family"), CASES, ids=[c[1] for c in CASES])
def test_written_facts(empty: Path, fixture: str, model_id: str, repo: str, family: str) -> None:
    config = json.loads((HF_CONFIGS / f"{fixture}.json").read_text(encoding="utf-8"))
    entry = import_hf(empty, fixture, model_id, repo)
    text = config.get("text_config", config)
    assert entry["config"] == config  # verbatim, text_config nested as published
    assert list(entry)[:6] == ["id", "name", "family", "org", "hf_repo", "total_params"]
    assert (entry["id"], entry["name"], entry["family"], entry["hf_repo"]) == (
        model_id, repo.split("/")[1], family, repo)
    assert entry["org"] == repo.split("/")[0]
    assert entry["context_length"] == text["max_position_embeddings"]
    computed = ["total_params", "active_params"] if "active_params" in entry else ["total_params"]
    assert entry["sources"] == [{
        "url": f"https://huggingface.co/{repo}/blob/main/config.json",
        "read": dt.date.today(),
        "fields": ["config", "context_length", *computed],
        "note": f"{' and '.join(computed)} computed from this config by generator.estimate.architecture",
    }]
    assert "computed" in entry["notes"] and "replace them with the published figures" in entry["notes"]
    assert ("active_params" in entry) == (model_id != "llama-3.1-8b")


def test_dense_and_moe_counts(empty: Path) -> None:
    llama = import_hf(empty, *CASES[0][:3])
    qwen = import_hf(empty, *CASES[1][:3])
    assert "active_params" not in llama and llama["total_params"] == LLAMA_8B
    assert (qwen["total_params"], qwen["active_params"]) == (QWEN_30B_TOTAL, QWEN_30B_ACTIVE)


def test_mla_and_hybrid_counts(empty: Path) -> None:
    deepseek = import_hf(empty, *CASES[2][:3])
    qwen35 = import_hf(empty, *CASES[3][:3])
    # DeepSeek-V3: Hugging Face safetensors total 684,531,386,000 (671 B main model + 14 B MTP module, as the card
    # says); the computed count includes the MTP layer too. 37 B activated per token (card).
    assert deepseek["total_params"] == pytest.approx(684_531_386_000, rel=1e-4)
    assert deepseek["active_params"] == pytest.approx(37e9, rel=0.02)
    # Qwen3.5-35B-A3B: the safetensors total 35,951,822,704 includes the vision encoder that the text architecture
    # leaves out, so the computed count is a little lower; "A3B" is about 3 B activated.
    assert 0.98 * 35_951_822_704 < qwen35["total_params"] < 35_951_822_704
    assert 3.0e9 < qwen35["active_params"] < 3.5e9


def test_written_entries_pass_check(empty: Path) -> None:
    for fixture, model_id, repo, _ in CASES:
        import_hf(empty, fixture, model_id, repo)
    done = run_generator("check", "--catalog", empty)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "catalogue ok: 4 models, 0 GPUs, 0 cloud offers from 0 providers\n"


def test_refuses_to_overwrite(catalog: Path) -> None:
    existing = catalog / "models" / "llama-3.1-8b.yaml"
    before = existing.read_bytes()
    done = run_generator("import-hf", HF_CONFIGS / "meta-llama--Meta-Llama-3.1-8B.json", "--id", "llama-3.1-8b",
                         "--repo", "meta-llama/Meta-Llama-3.1-8B", "--catalog", catalog)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "catalog/models/llama-3.1-8b.yaml: id: already exists\n"
    assert existing.read_bytes() == before


@pytest.mark.parametrize(("content", "expected"), [
    (None, "cannot read: No such file or directory"),
    ('{"hidden_size": 4096,\n', "line 2: invalid JSON: Expecting property name enclosed in double quotes"),
    ("[4096]", "must be a JSON object"),
    ('{"hidden_size": 4096, "vocab_size": 32000}', "num_hidden_layers: is required"),
    ('{"hidden_size": 4096, "num_hidden_layers": 2, "vocab_size": -1}',
     "vocab_size: must be a non-negative integer, got -1"),
    ('{"hidden_size": 64, "num_hidden_layers": 1, "vocab_size": 10, "num_attention_heads": 1, "intermediate_size": 64}',
     "max_position_embeddings: is required for context_length"),
])
def test_rejects_bad_config(empty: Path, tmp_path: Path, content: str | None, expected: str) -> None:
    path = tmp_path / "config.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    done = run_generator("import-hf", path, "--id", "x-1b", "--repo", "org/X-1B", "--catalog", empty)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", f"{path}: {expected}\n")
    assert not (empty / "models" / "x-1b.yaml").exists()


def test_rejects_bad_id_and_repo(empty: Path) -> None:
    done = run_generator("import-hf", HF_CONFIGS / "Qwen--Qwen3-8B.json", "--id", "Qwen3_8B", "--repo", "Qwen3-8B",
                         "--catalog", empty)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "catalog/models/Qwen3_8B.yaml: hf_repo: must match pattern '^[\\w.-]+/[\\w.-]+$'",
        "catalog/models/Qwen3_8B.yaml: id: must match pattern '^[a-z0-9]+(?:[-.][a-z0-9]+)*$'",
        "catalog/models/Qwen3_8B.yaml: name: must have at least 2 characters",
    ]
    assert list((empty / "models").iterdir()) == []
