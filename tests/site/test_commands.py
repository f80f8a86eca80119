"""The command checker on built pair pages: every llama.cpp, vLLM and Ollama command matches its page's figures
and names only catalogued weights; and the checker catches commands that do not."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from generator.catalog.load import load_catalog
from generator.catalog.schema import Checkpoint
from tests.conftest import FIXTURE_PROJECT, ROOT
from tests.site.command_check import check_page, check_site

PAIR = "en/models/gpt-oss-20b/rx-7900-xtx/index.html"  # a consumer card: llama.cpp and Ollama, no vLLM (MXFP4)
VLLM_PAIR = "en/models/llama-3.1-8b/rx-7900-xtx/index.html"  # a consumer card: the single-stream vLLM command
SERVING_PAIR = "en/models/gpt-oss-20b/mi300x/index.html"  # a datacenter card: vLLM at the serving operating point


@pytest.fixture(scope="module")
def fixture_catalog():
    return load_catalog(FIXTURE_PROJECT / "catalog")


def test_every_fixture_pair_page_passes_the_command_checker(fixture_site: Path, fixture_catalog):
    pages = list((fixture_site / "en" / "models").glob("*/*/index.html"))
    assert len(pages) == 6
    assert check_site(fixture_site, fixture_catalog) == {}


def _assert_each_caught(page: str, mutations: list[tuple[str, str]], catalog) -> None:
    """Each mutated page (the mutation took effect) draws a problem containing its expected text."""
    for wrong, expected in mutations:
        assert wrong != page, expected
        assert any(expected in problem for problem in check_page(wrong, catalog)), expected


def test_the_checker_catches_a_command_that_contradicts_its_page(fixture_site: Path, fixture_catalog):
    page = (fixture_site / PAIR).read_text(encoding="utf-8")
    assert check_page(page, fixture_catalog) == []
    assert "-c 8192 " in page and "OLLAMA_CONTEXT_LENGTH=8192 " in page
    _assert_each_caught(page, [
        (page.replace("-c 8192 ", "-c 4096 ", 1), "-c 4096 is not the page's context 8192"),
        (page.replace("OLLAMA_CONTEXT_LENGTH=8192 ", "OLLAMA_CONTEXT_LENGTH=2048 ", 1), "OLLAMA_CONTEXT_LENGTH 2048"),
        (page.replace('data-kv="f16"', 'data-kv="q8_0"', 1), "--cache-type-k None is not the page's KV type q8_0"),
        (page.replace(' -ngl 999 ', ' -ngl 10 ', 1), "offload flags True but the page's verdict is fits"),
    ], fixture_catalog)


def test_the_checker_catches_a_vllm_command_that_contradicts_its_page(fixture_site: Path, fixture_catalog):
    page = (fixture_site / VLLM_PAIR).read_text(encoding="utf-8")
    assert check_page(page, fixture_catalog) == []
    assert "--max-model-len 8192 " in page
    _assert_each_caught(page, [
        (page.replace("--max-model-len 8192 ", "--max-model-len 131072 ", 1), "--max-model-len 131072"),
        (page.replace("vllm serve meta-llama/Llama-3.1-8B-Instruct", "vllm serve someone/Llama-3.1-8B-AWQ", 1),
         "someone/Llama-3.1-8B-AWQ is not a catalogued checkpoint"),
        (page.replace('data-gpus="1"', 'data-gpus="2"', 1), "tensor parallel 1 for 2 GPUs"),
    ], fixture_catalog)


def test_the_checker_catches_a_checkpoint_larger_than_usable_memory(fixture_site: Path, fixture_catalog):
    page = (fixture_site / VLLM_PAIR).read_text(encoding="utf-8")
    usable = page.split('data-usable="', 1)[1].split('"', 1)[0]
    wrong = page.replace(f'data-usable="{usable}"', 'data-usable="1000"', 1)
    assert any("more than the usable 1000" in problem for problem in check_page(wrong, fixture_catalog))


def test_the_checker_catches_a_checkpoint_format_vllm_does_not_run_on_the_gpu(fixture_site: Path, fixture_catalog):
    """An FP8 checkpoint planted in the catalogue and on the RX 7900 XTX page (no FP8 tensor cores: vLLM's FP8
    W8A8 kernels do not run there) is flagged; so is the MXFP4 gpt-oss checkpoint there."""
    page = (fixture_site / VLLM_PAIR).read_text(encoding="utf-8")
    llama = fixture_catalog.models["llama-3.1-8b"]
    fp8 = Checkpoint(repo="someone/Llama-3.1-8B-Instruct-FP8", quant="FP8", source_url="https://huggingface.co/x",
                     read=dt.date(2026, 12, 1))
    planted = fixture_catalog.model_copy(update={"models": {**fixture_catalog.models,
                                                            "llama-3.1-8b": llama.model_copy(update={"checkpoints": [fp8]})}})
    wrong = page.replace("vllm serve meta-llama/Llama-3.1-8B-Instruct", f"vllm serve {fp8.repo}", 1)
    assert check_page(page, planted) == []
    assert "vLLM does not run FP8 checkpoints of llama-3.1-8b on rx-7900-xtx" in check_page(wrong, planted)
    gpt_oss = wrong.replace(f"vllm serve {fp8.repo}", "vllm serve openai/gpt-oss-20b", 1).replace(
        'data-model="llama-3.1-8b"', 'data-model="gpt-oss-20b"', 1)
    assert "vLLM does not run MXFP4 checkpoints of gpt-oss-20b on rx-7900-xtx" in check_page(gpt_oss, planted)


def test_a_skipped_format_is_said_on_the_page_and_gets_no_command(fixture_site: Path):
    page = (fixture_site / PAIR).read_text(encoding="utf-8")
    assert "do not run MXFP4 checkpoints on AMD Radeon RX 7900 XTX" in page
    assert "vllm serve" not in page


def test_the_checker_catches_an_ollama_fallback_larger_than_the_page_file(fixture_site: Path, fixture_catalog):
    page = (fixture_site / PAIR).read_text(encoding="utf-8")
    assert 'data-serves="MXFP4_MOE"' in page
    wrong = page.replace('data-serves="MXFP4_MOE"', 'data-serves="Q8_0" data-size="99999999999"', 1)
    assert any("loads 99999999999 bytes, more than the page's" in problem for problem in check_page(wrong, fixture_catalog))


def test_the_checker_holds_offload_flags_to_the_stated_plan(fixture_site: Path, fixture_catalog):
    page = (fixture_site / PAIR).read_text(encoding="utf-8")
    planned = page.replace('data-verdict="fits"', 'data-verdict="offload" data-cpu-moe="3" data-gpu-layers="24" '
                           'data-layers="24"', 1)
    problems = check_page(planned, fixture_catalog)
    assert any("--n-cpu-moe None is not the plan's 3 layers" in p for p in problems), problems
    assert any("offload flags False but the page's verdict is offload" in p for p in problems), problems


def test_the_checker_holds_a_serving_command_to_its_operating_point(fixture_site: Path, fixture_catalog):
    page = (fixture_site / SERVING_PAIR).read_text(encoding="utf-8")
    assert check_page(page, fixture_catalog) == []
    seqs = page.split('data-seqs="', 1)[1].split('"', 1)[0]
    assert f"--max-num-seqs {seqs}" in page
    _assert_each_caught(page, [
        (page.replace(f"--max-num-seqs {seqs}", "--max-num-seqs 100000", 1), "--max-num-seqs 100000 is not"),
        (page.replace(f'data-seqs="{seqs}"', 'data-seqs="99999999"', 1), "more than the KV cache's"),
        (page.replace("--tensor-parallel-size 1", "--tensor-parallel-size 4", 1), "--tensor-parallel-size 4 is not"),
        (page.replace("vllm serve openai/gpt-oss-20b", "vllm serve someone/gpt-oss-20b", 1), "is not gpt-oss-20b's own"),
    ], fixture_catalog)


def test_the_checker_holds_an_sglang_command_to_the_same_operating_point(fixture_site: Path, fixture_catalog):
    page = (fixture_site / SERVING_PAIR).read_text(encoding="utf-8")
    serving = page.split('<section id="serving"', 1)[1].split(">", 1)[0]
    seqs = serving.split('data-seqs="', 1)[1].split('"', 1)[0]
    kv = serving.split('data-kv="', 1)[1].split('"', 1)[0]
    command = page.split('data-engine="SGLang', 1)[1].split("</code>", 1)[0]
    assert "python -m sglang.launch_server --model-path openai/gpt-oss-20b" in command
    assert f"--max-running-requests {seqs}" in command and "--tp-size 1" in command and "--context-length 8192" in command
    assert ("--kv-cache-dtype fp8_e5m2" in command) == (kv == "fp8")
    _assert_each_caught(page, [
        (page.replace(f"--max-running-requests {seqs}", "--max-running-requests 100000", 1),
         "--max-running-requests 100000 is not"),
        (page.replace("--tp-size 1", "--tp-size 4", 1), "--tp-size 4 is not"),
        (page.replace("--context-length 8192", "--context-length 2048", 1),
         "--context-length 2048 serves less than the page's context 8192"),
        (page.replace("--model-path openai/gpt-oss-20b", "--model-path someone/gpt-oss-20b", 1), "is not gpt-oss-20b's own"),
        (page.replace("--tp-size 1", "--tp-size 1 --quantization fp8", 1), "--quantization fp8 for precision"),
        (page.replace("--tp-size 1", "--tp 1", 1), "--tp-size None is not"),
    ], fixture_catalog)


@pytest.mark.slow
def test_every_real_pair_page_passes_the_command_checker(real_site: Path):
    catalog = load_catalog(ROOT / "catalog")
    problems = check_site(real_site, catalog)
    assert problems == {}, "\n".join(f"{page}: {p}" for page, found in list(problems.items())[:20] for p in found)


@pytest.mark.slow
def test_ollama_on_an_expert_offload_page_says_it_moves_whole_layers(real_site: Path):
    """Ollama has no --n-cpu-moe (ollama/ollama issue 11772): where the llama.cpp command keeps experts in system RAM,
    the Ollama command's note says it offloads whole layers; on no other page."""
    note = "--n-cpu-moe: it moves whole layers to system RAM"
    seen = {True: 0, False: 0}
    for page in sorted((real_site / "en" / "models").glob("*/*/index.html")):
        html = page.read_text(encoding="utf-8")
        if 'data-engine="Ollama"' not in html:
            continue
        experts_in_ram = "--n-cpu-moe" in html.split('data-engine="llama.cpp"', 1)[-1].split("</code>", 1)[0]
        assert (note in html) == experts_in_ram, page
        seen[experts_in_ram] += 1
    assert seen[True] > 100 and seen[False] > 1000  # both kinds of page exist


def _planted(catalog, model_id: str, **update):
    """The catalogue with one model's entry changed."""
    model = catalog.models[model_id].model_copy(update=update)
    return catalog.model_copy(update={"models": {**catalog.models, model_id: model}})


def test_the_checker_catches_a_base_repository_in_a_chat_command(fixture_site: Path, fixture_catalog):
    """With a chat release catalogued, a command that still serves the model's own (base) repository is flagged."""
    page = (fixture_site / VLLM_PAIR).read_text(encoding="utf-8")
    planted = _planted(fixture_catalog, "llama-3.1-8b", chat_repo="someone/Llama-3.1-8B-Chat")
    assert "vllm serve meta-llama/Llama-3.1-8B-Instruct" in page
    assert any("serves the base repository meta-llama/Llama-3.1-8B-Instruct" in p for p in check_page(page, planted))
    served = page.replace("vllm serve meta-llama/Llama-3.1-8B-Instruct", "vllm serve someone/Llama-3.1-8B-Chat", 1)
    assert not any("base repository" in p for p in check_page(served, planted))


def test_the_checker_catches_a_calibration_file_the_command_does_not_download(fixture_site: Path, fixture_catalog):
    page = (fixture_site / PAIR).read_text(encoding="utf-8")
    step = "llama-imatrix -m m.gguf -f calibration.txt -o imatrix.gguf\nllama-server "
    fetched = "wget https://example.org/data/calibration.txt\n" + step
    _assert_each_caught(page, [(page.replace("llama-server ", step, 1),
                                "llama-imatrix reads calibration.txt, which the command does not download")],
                        fixture_catalog)
    assert not any("llama-imatrix" in p for p in check_page(page.replace("llama-server ", fetched, 1), fixture_catalog))


def test_the_checker_catches_a_command_for_an_engine_that_does_not_run_the_architecture(fixture_site: Path,
                                                                                         fixture_catalog):
    """An architecture no source lists, with no GGUF catalogued: the page's llama.cpp, Ollama and vLLM commands
    are each flagged (the pages of such a model print a sentence instead)."""
    page = (fixture_site / VLLM_PAIR).read_text(encoding="utf-8")
    llama = fixture_catalog.models["llama-3.1-8b"]
    planted = _planted(fixture_catalog, "llama-3.1-8b", gguf=[], ollama=[],
                       config={**llama.config, "architectures": ["UnlistedForCausalLM"]})
    problems = check_page(page, planted)
    for engine in ("llama.cpp command, but no source shows llama.cpp", "command, but no source shows vllm running"):
        assert any(engine in p for p in problems), (engine, problems)


def test_the_checker_catches_an_uncatalogued_mlx_repository(fixture_catalog):
    from tests.site.command_check import check_mlx
    model = fixture_catalog.models["llama-3.1-8b"]
    assert check_mlx("pip install mlx-lm\nmlx_lm.server --model someone/x-4bit --host 127.0.0.1", model) == [
        "someone/x-4bit is not a catalogued MLX repository"]


def test_commands_serve_the_chat_release_and_log_in_for_a_gated_repository(fixture_catalog):
    """A base model with a catalogued chat release and a gated licence: the build downloads the chat release after
    ``hf auth login``; vLLM serves the chat release; an ungated third-party GGUF needs no login."""
    from generator.views import commands

    llama = fixture_catalog.models["llama-3.1-8b"].model_copy(update={
        "hf_repo": "meta-llama/Llama-3.1-8B", "chat_repo": "meta-llama/Llama-3.1-8B-Instruct", "gated": True})
    build = commands._build_steps(llama, "Q4_K_M")
    assert build.splitlines()[:2] == ["hf auth login", "hf download meta-llama/Llama-3.1-8B-Instruct "
                                                       "--local-dir Llama-3.1-8B-Instruct"]
    assert "imatrix" not in build and "calibration" not in build
    assert commands.served_repo(llama, "meta-llama/Llama-3.1-8B") == "meta-llama/Llama-3.1-8B-Instruct"
    assert commands.is_gated(llama, "meta-llama/Llama-3.1-8B-Instruct")
    assert not commands.is_gated(llama, "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF")


def test_mlx_serves_the_catalogued_repository_with_the_most_bits_at_or_below_the_page_quant(fixture_catalog):
    from generator.catalog.schema import MlxRepo
    from generator.views import commands

    repos = [MlxRepo(repo=f"mlx-community/M-{bits}bit", bits=bits, source_url="https://huggingface.co/x",
                     read=dt.date(2026, 12, 1)) for bits in (3, 4, 8)]
    model = fixture_catalog.models["llama-3.1-8b"].model_copy(update={"mlx": repos})
    apple = fixture_catalog.gpus["rx-7900-xtx"].model_copy(update={"backends": ["metal"]})
    command = commands.mlx(model, apple, "Q4_K_M", 5 * 10**9)
    assert command.text.splitlines()[-1].startswith("mlx_lm.server --model mlx-community/M-4bit ")
    assert commands.mlx(model, apple, "Q8_0", 9 * 10**9).text.count("M-8bit") == 1
    assert commands.mlx(model, fixture_catalog.gpus["rx-7900-xtx"], "Q4_K_M", 5 * 10**9) is None


def test_every_engine_support_row_cites_an_https_source_with_a_date():
    from generator.estimate import engines

    for arch, row in engines.TABLE.items():
        for support in row:
            assert support.runs == (support.url is not None), arch
            assert support.url is None or (support.url.startswith("https://github.com/") and support.read), arch
    assert engines.runs("LlamaForCausalLM", "vllm") and not engines.runs("UnlistedForCausalLM", "vllm")


def test_the_checker_catches_a_gated_download_without_a_login(fixture_site: Path, fixture_catalog):
    page = (fixture_site / VLLM_PAIR).read_text(encoding="utf-8")
    planted = _planted(fixture_catalog, "llama-3.1-8b", gated=True)
    assert any("downloads a gated repository of llama-3.1-8b without hf auth login" in p
               for p in check_page(page, planted))
    logged_in = page.replace("vllm serve meta-llama/", "hf auth login\nvllm serve meta-llama/", 1)
    assert check_page(logged_in, planted) == []
