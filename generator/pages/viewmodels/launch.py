"""A pair page's launch commands: llama.cpp, vLLM, SGLang and Ollama for its recommended setup, each with the
note its remark calls for."""

from __future__ import annotations

from typing import Any, NamedTuple

from markupsafe import Markup

from ...estimate.api import Estimate
from ...sitedata import PAGE_CONTEXT_TOKENS, Results
from .. import commands
from ..plan import PageKey
from .common import Lang


class CommandRow(NamedTuple):
    engine: str
    text: str
    remark: str | None
    serves: str | None
    size_bytes: int | None
    skipped: str
    setup: Any  # the vLLM setup its note describes, if any
    serving: bool  # serves the serving section's operating point
    multi_gpu: bool  # the setup needs more than one GPU
    note: Markup | None


def command_note(remark: str | None, quant: str, serves: str | None, lang: Lang) -> Markup | None:
    """What a launch command's remark means, in words."""
    if remark == "built":
        return lang._("No GGUF repository in our catalogue publishes %(quant)s of this model, so the command builds "
                         "it from the original checkpoint with llama.cpp's converter and quantizer (run from a llama.cpp "
                         "checkout).", quant=quant)
    if remark == "built_imatrix":
        return lang._("No GGUF repository in our catalogue publishes %(quant)s of this model, so the command builds "
                         "it from the original checkpoint; %(quant)s needs an importance matrix, computed from a text "
                         "file of your choice (calibration.txt).", quant=quant)
    if remark == "ollama_smaller_quant":
        return lang._("No published %(quant)s file that Ollama can pull is in our catalogue; this command loads the "
                         "smaller %(served)s instead.", quant=quant, served=serves)
    if remark == "ollama_other_quant":
        return lang._("This Ollama tag ships %(served)s, not the %(quant)s recommended here.", served=serves,
                         quant=quant)
    if remark == "ollama_quant_unknown":
        return lang._("Our catalogue does not record which quantization this Ollama tag ships.")
    if remark == "serving":
        return lang._("vLLM serves the original checkpoint from Hugging Face at the serving section's precision "
                         "and operating point.")
    if remark == "sglang_serving":
        return lang._("SGLang with the same checkpoint, precision, tensor parallel size, request length and "
                         "concurrent requests; the serving section's figures are estimated for vLLM, and SGLang sets "
                         "aside its own share of memory (mem_fraction_static), so its KV cache holds a different "
                         "number of requests.")
    if remark == "vllm_none_fits":
        return lang._("No catalogued checkpoint of this model fits vLLM on up to eight of these GPUs at %(ctx)s "
                         "context.", ctx=lang.fmt.tokens(PAGE_CONTEXT_TOKENS))
    return None


def pair_commands(results: Results, key: PageKey, quant: str, estimate: Estimate, lang: Lang) -> tuple[CommandRow, ...]:
    """llama.cpp, vLLM, SGLang (where the page has a serving plan) and Ollama commands for the page's recommended
    setup (vLLM and SGLang alone where it does not run: their commands may need several GPUs)."""
    model, gpu = results.catalog.models[key.model], results.catalog.gpus[key.gpu]
    setup, (runnable, skipped) = results.vllm_setup(key.model, key.gpu), results.vllm_checkpoints(key.model, key.gpu)
    plan = results.serving(key.model, key.gpu)[0]
    vllm = (commands.vllm_serving(model, gpu, plan, results.vllm_utilisation) if plan else
            commands.vllm(setup, gpu, PAGE_CONTEXT_TOKENS, "f16", results.vllm_utilisation, skipped, bool(runnable)))
    if not estimate.runs and setup is None and plan is None and not skipped:
        return ()  # nothing runs: the page says so in one sentence
    found = [vllm, commands.sglang_serving(model, gpu, plan) if plan else None]
    if estimate.runs:  # no llama.cpp or Ollama command for a setup that does not run
        found = [commands.llama_cpp(model, quant, estimate, PAGE_CONTEXT_TOKENS, "f16"), *found,
                 commands.ollama(model, quant, estimate.file_size_bytes, PAGE_CONTEXT_TOKENS, "f16")]
    rows = []
    for c in found:
        if c is None:
            continue
        shown = setup if c.engine.startswith("vLLM") and c.remark != "serving" else None
        rows.append(CommandRow(c.engine, c.text, c.remark, c.serves, c.size_bytes, ", ".join(c.skipped), shown,
                               c.remark in ("serving", "sglang_serving"), bool(shown and shown.gpu_count > 1),
                               command_note(c.remark, quant, c.serves, lang)))
    return tuple(rows)
