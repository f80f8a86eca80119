"""Launch commands from catalogue entries: which published weights each engine names, and the build fallback."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from generator.catalog.load import load_catalog
from generator.views import commands
from tests.conftest import FIXTURE_PROJECT


@pytest.fixture(scope="module")
def llama():
    return load_catalog(FIXTURE_PROJECT / "catalog").models["llama-3.1-8b"]


def _estimate(offload=None):
    return SimpleNamespace(offload=offload)


def test_a_published_quant_is_pulled_from_its_repository(llama):
    command = commands.llama_cpp(llama, "Q6_K", _estimate(), 8192, "q8_0")
    assert command.text.startswith("llama-server -hf bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q6_K \\\n")
    assert "-c 8192 -ngl 999 -fa on --cache-type-k q8_0 --cache-type-v q8_0" in command.text and command.remark is None


def test_an_unpublished_quant_is_built_from_the_original_checkpoint(llama):
    """Built only at quants llama-quantize makes without an importance matrix (the recommendation picks no other
    to build), so no step reads a calibration file."""
    text = commands.llama_cpp(llama, "Q5_K_M", _estimate(), 4096, "f16").text.splitlines()
    name = llama.hf_repo.split("/")[1]
    assert text[0] == f"hf download {llama.hf_repo} --local-dir {name}"
    assert text[1] == f"python convert_hf_to_gguf.py {name} --outtype bf16 --outfile {name}-BF16.gguf"
    assert text[2] == f"llama-quantize {name}-BF16.gguf {name}-Q5_K_M.gguf Q5_K_M"
    assert text[3] == f"llama-server -m {name}-Q5_K_M.gguf \\"


def test_offload_flags_follow_the_plan(llama):
    experts = SimpleNamespace(gpu_layers=48, n_layers=48, cpu_moe_layers=30)
    layers = SimpleNamespace(gpu_layers=20, n_layers=32, cpu_moe_layers=0)
    assert "-ngl 999 --n-cpu-moe 30 " in commands.llama_cpp(llama, "Q6_K", _estimate(experts), 8192, "f16").text
    assert "-ngl 20 -fa on" in commands.llama_cpp(llama, "Q6_K", _estimate(layers), 8192, "f16").text


def test_ollama_prefers_the_library_tag_then_the_repository_then_a_smaller_published_file(llama):
    assert commands.ollama(llama, "Q4_K_M", 4_920_739_168, 8192, "f16").text.endswith("ollama run llama3.1:8b")
    assert commands.ollama(llama, "Q8_0", 8_540_771_264, 8192, "f16").text.endswith(
        "ollama run hf.co/bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q8_0")
    # Q5_K_M is not published: the largest file no larger than it is Q4_K_M (4,920,739,168 bytes < 5.7e9)
    smaller = commands.ollama(llama, "Q5_K_M", 5_700_000_000, 8192, "q8_0")
    assert smaller.text == ("OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0 ollama serve &\n"
                            "ollama run hf.co/lmstudio-community/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M")
    assert (smaller.remark, smaller.serves) == ("ollama_smaller_quant", "Q4_K_M")
    # Nothing published is small enough and the library tags are larger: a note instead of a command
    none = commands.ollama(llama, "IQ1_S", 2_000_000_000, 8192, "f16")
    assert (none.text, none.remark) == ("", "ollama_none")


def test_ollama_names_a_tag_that_states_its_quant_and_never_a_larger_one_by_its_bits(llama):
    """A bare tag (qwen3:235b) can be moved to other weights, a tag that names its quant cannot; a library tag
    without a recorded size is compared by its quantization's bits per weight."""
    def tag(name, quant):
        return SimpleNamespace(tag=name, quant=quant, size_bytes=None)
    tags = [tag("qwen3:235b", "Q4_K_M"), tag("qwen3:235b-a22b-q4_K_M", "Q4_K_M"), tag("qwen3:235b-a22b-q8_0", "Q8_0")]
    model = llama.model_copy(update={"gguf": [], "ollama": tags})
    assert commands.ollama(model, "Q4_K_M", 140 * 10**9, 8192, "f16").text.endswith("ollama run qwen3:235b-a22b-q4_K_M")
    other = commands.ollama(model, "Q5_K_M", 160 * 10**9, 8192, "f16")  # Q8_0 is larger: the best no larger is Q4_K_M
    assert other.text.endswith("ollama run qwen3:235b-a22b-q4_K_M") and (other.remark, other.serves) == (
        "ollama_other_quant", "Q4_K_M")
    assert commands.ollama(model, "Q2_K", 85 * 10**9, 8192, "f16").remark == "ollama_none"  # every tag is larger


def test_hugging_face_tags_follow_the_file_names_and_ollama_pulls_only_known_single_files(llama):
    """gpt-oss's MXFP4_MOE files are named "mxfp4", so -hf and hf.co/ name the tag MXFP4; a quant recorded without
    its file name may be split, which Ollama cannot pull, so it gets no hf.co/ command."""
    mxfp4 = SimpleNamespace(repo="ggml-org/gpt-oss-20b-GGUF", files=[SimpleNamespace(
        quant="MXFP4_MOE", size_bytes=12_109_566_624, file="gpt-oss-20b-mxfp4.gguf")])
    model = llama.model_copy(update={"gguf": [mxfp4], "ollama": []})
    assert " -hf ggml-org/gpt-oss-20b-GGUF:MXFP4 " in commands.llama_cpp(model, "MXFP4_MOE", _estimate(), 8192, "f16").text
    assert commands.ollama(model, "MXFP4_MOE", 12_109_566_624, 8192, "f16").text.endswith(
        "ollama run hf.co/ggml-org/gpt-oss-20b-GGUF:MXFP4")
    unnamed = SimpleNamespace(repo="unsloth/GLM-4.5-Air-GGUF", files=[SimpleNamespace(
        quant="Q4_K_M", size_bytes=None, file=None)])
    split = SimpleNamespace(repo="unsloth/GLM-4.5-Air-GGUF", files=[SimpleNamespace(
        quant="Q4_K_M", size_bytes=None, file="Q4_K_M/GLM-4.5-Air-Q4_K_M-00001-of-00002.gguf")])
    for entry in (unnamed, split):
        model = llama.model_copy(update={"gguf": [entry], "ollama": []})
        assert " -hf unsloth/GLM-4.5-Air-GGUF:Q4_K_M " in commands.llama_cpp(model, "Q4_K_M", _estimate(), 8192, "f16").text
        assert commands.ollama(model, "Q4_K_M", 70_000_000_000, 8192, "f16") is None


def test_fp8_serving_loads_a_catalogued_fp8_checkpoint_before_quantizing_on_load(llama):
    """An official ``<chat repo>-FP8`` release is served as it is, else another catalogued FP8 checkpoint (vLLM's
    on-load quantization first loads the 16-bit weights whole, which one GPU may not hold); only without either does
    vLLM quantize the chat release on load."""
    repo = commands.chat_repo(llama)
    own = SimpleNamespace(repo=f"{repo}-FP8", quant="FP8")
    other = SimpleNamespace(repo="nvidia/Llama-3.1-8B-Instruct-FP8", quant="FP8")
    nvfp4 = SimpleNamespace(repo="nvidia/Llama-3.1-8B-Instruct-NVFP4", quant="NVFP4")
    assert commands.serving_checkpoint(llama.model_copy(update={"checkpoints": [other, own]}), "FP8") == (f"{repo}-FP8", False)
    assert commands.serving_checkpoint(llama.model_copy(update={"checkpoints": [nvfp4, other]}), "FP8") == (other.repo, False)
    assert commands.serving_checkpoint(llama.model_copy(update={"checkpoints": [nvfp4]}), "FP8") == (repo, True)
    # on ROCm, NVIDIA's Model Optimizer checkpoint does not load: quantize the chat release on load instead
    assert commands.serving_checkpoint(llama.model_copy(update={"checkpoints": [other]}), "FP8", "rocm") == (repo, True)
    assert commands.serving_checkpoint(llama.model_copy(update={"checkpoints": [own]}), "BF16") == (repo, False)


def test_no_ollama_note_claims_nothing_is_small_enough_while_a_single_file_has_no_recorded_size(llama):
    """The note says every tag and single file is larger than the page's quant: it cannot say so of a single file
    whose size is not recorded (GLM-4.5-Air's GLM-4.5-Air-Q2_K.gguf), so such a page gets neither note nor command."""
    unsized = SimpleNamespace(repo="unsloth/GLM-4.5-Air-GGUF", files=[SimpleNamespace(
        quant="Q2_K", size_bytes=None, file="GLM-4.5-Air-Q2_K.gguf")])
    sized = SimpleNamespace(repo="unsloth/GLM-4.5-Air-GGUF", files=[SimpleNamespace(
        quant="Q8_0", size_bytes=117_000_000_000, file="GLM-4.5-Air-Q8_0.gguf")])
    assert commands.ollama(llama.model_copy(update={"gguf": [unsized], "ollama": []}),
                           "Q4_K_M", 74_000_000_000, 8192, "f16") is None
    none = commands.ollama(llama.model_copy(update={"gguf": [sized], "ollama": []}), "Q4_K_M", 74_000_000_000, 8192, "f16")
    assert (none.text, none.remark) == ("", "ollama_none")
