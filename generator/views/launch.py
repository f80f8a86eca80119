"""A pair page's launch commands: llama.cpp, vLLM, SGLang and Ollama for its recommended setup, each with the
note its remark calls for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, NamedTuple

from markupsafe import Markup

from .. import urls
from ..estimate import engines
from ..sitedata import PAGE_CONTEXT_TOKENS, SiteData
from . import commands
from .common import Lang
from .plan import PageKey


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


ENGINE_NAMES = {"llama.cpp": "llama.cpp", "Ollama": "llama.cpp", "vLLM": "vllm", "vLLM (ROCm)": "vllm",
                "SGLang": "sglang", "SGLang (ROCm)": "sglang"}
ENGINE_SOURCES = {"llama.cpp": engines.LLAMA_CPP_URL, "vllm": engines.VLLM_URL,
                  "sglang": "https://github.com/sgl-project/sglang/tree/main/python/sglang/srt/models"}


def command_note(remark: str | None, quant: str, serves: str | None, lang: Lang, engine: str = "",
                 bf16_bytes: int = 0) -> Markup | None:
    """What a launch command's remark means, in words (``bf16_bytes``: the 16-bit GGUF a build converts to)."""
    if remark == "built":
        return lang._("No GGUF repository in our catalogue publishes a quantization of this model at or above the "
                         "quality floor that fits here, so the command builds %(quant)s from the original checkpoint "
                         "with llama.cpp's converter and quantizer (run from a llama.cpp checkout; %(quant)s needs no "
                         "importance matrix). The converter first writes a 16-bit GGUF of %(bf16)s, next to the "
                         "downloaded checkpoint.", quant=quant, bf16=lang.fmt.gib(bf16_bytes))
    if remark == "unsupported":
        source = ENGINE_SOURCES[ENGINE_NAMES[engine]]
        return lang._("No source we read shows mainline %(engine)s running this model's architecture "
                         "(%(arch)s), so there is no %(engine)s command; the list we checked: %(source)s.",
                         engine=engine, arch=serves, source=source)
    if remark == "mlx":
        return lang._("MLX on Apple silicon loads the %(bits)s MLX release; the figures on this page are for "
                         "llama.cpp at %(quant)s.", bits=serves, quant=quant)
    if remark == "ollama_smaller_quant":
        return lang._("No published %(quant)s file that Ollama can pull is in our catalogue; this command loads the "
                         "smaller %(served)s instead.", quant=quant, served=serves)
    if remark == "ollama_other_quant":
        return lang._("This Ollama tag ships %(served)s, not the %(quant)s recommended here.", served=serves,
                         quant=quant)
    if remark == "ollama_none":
        return lang._("Ollama pulls library tags and single-file GGUFs only, and none of those in our catalogue is "
                         "as small as the %(quant)s recommended here, so there is no Ollama command.", quant=quant)
    if remark == "ollama_quant_unknown":
        return lang._("Our catalogue does not record which quantization this Ollama tag ships.")
    if remark == "serving":
        return lang._("vLLM serves the checkpoint named in the command, from Hugging Face, at the serving "
                         "section's precision and concurrent requests, and accepts requests up to the page's context.")
    if remark == "sglang_serving":
        return lang._("SGLang with the same checkpoint, precision, tensor parallel size, context and "
                         "concurrent requests; the serving section's figures are estimated for vLLM, and SGLang sets "
                         "aside its own share of memory (mem_fraction_static), so its KV cache holds a different "
                         "number of requests.")
    if remark == "serving_context":
        return lang._("The serving setup's KV cache does not hold one request of %(ctx)s, so %(engine)s would "
                         "refuse to start with that context; no command is shown.",
                         ctx=lang.fmt.tokens(PAGE_CONTEXT_TOKENS), engine=engine)
    if remark == "vllm_none_fits":
        return lang._("No catalogued checkpoint of this model fits vLLM on up to eight of these GPUs at %(ctx)s "
                         "context.", ctx=lang.fmt.tokens(PAGE_CONTEXT_TOKENS))
    return None


def _ollama_layers_note(lang: Lang) -> Markup:
    # ollama/ollama issue 11772 (open) asks for llama.cpp's --n-cpu-moe; pull request 16688 describes the placement
    return lang._("Ollama does not expose llama.cpp's --n-cpu-moe: it moves whole layers to system RAM, attention "
                     "included, not only the experts, so it decodes slower than the llama.cpp figure on this page.")


def _gated_note(model_page: str, lang: Lang) -> Markup:
    return lang._("This model's repository is gated: accept its licence on %(page)s, then log in with "
                     "hf auth login (the command's first line).", page=model_page)


def _serving(site: SiteData, key: PageKey, plan: Any, model: Any, gpu: Any) -> list[commands.Command | None]:
    """The vLLM and SGLang serving commands, each only for an engine that runs the architecture and whose KV
    cache holds one request of the full context."""
    context, held_vllm, held_sglang = site.serving_context(key.model, key.gpu)
    arch = engines.architecture(model.config)
    found: list[commands.Command | None] = []
    serving: tuple[tuple[engines.Engine, int, Callable[[], commands.Command | None]], ...] = (
        ("vllm", held_vllm, lambda: commands.vllm_serving(model, gpu, plan, context, site.vllm_utilisation)),
        ("sglang", held_sglang, lambda: commands.sglang_serving(model, gpu, plan, context)))
    for engine, held, make in serving:
        command = make()
        if command is None:
            continue
        if not commands.runs_on(model, engine):
            found.append(commands.unsupported(command.engine, arch))
        elif held < 1:
            found.append(commands.Command(command.engine, "", "serving_context"))
        else:
            found.append(command)
    return found


def _launch(site: SiteData, key: PageKey) -> tuple[str, tuple[tuple[commands.Command, Any, str | None], ...]]:
    """The pair's quant and its commands in every language: each with the vLLM setup its note describes and the
    gated repository's page, if any."""
    pick = site.pairs[(key.model, key.gpu)]
    quant, estimate = pick.quant, pick.estimate
    model, gpu = site.catalog.models[key.model], site.catalog.gpus[key.gpu]
    setup, (runnable, skipped) = site.vllm_setup(key.model, key.gpu), site.vllm_checkpoints(key.model, key.gpu)
    plan = site.serving(key.model, key.gpu)[0]
    arch = engines.architecture(model.config)
    if not estimate.runs and setup is None and plan is None and not skipped:
        return quant, ()  # nothing runs: the page says so in one sentence
    if plan:
        found = _serving(site, key, plan, model, gpu)
    else:
        vllm = commands.vllm(model, setup, gpu, PAGE_CONTEXT_TOKENS, "f16", site.vllm_utilisation, skipped,
                             bool(runnable))
        found = [vllm if vllm is None or commands.runs_on(model, "vllm") else commands.unsupported(vllm.engine, arch)]
    if estimate.runs:  # no llama.cpp, Ollama or MLX command for a setup that does not run
        if commands.runs_on(model, "llama.cpp"):
            found = [commands.llama_cpp(model, quant, estimate, PAGE_CONTEXT_TOKENS, "f16"), *found,
                     commands.ollama(model, quant, estimate.file_size_bytes, PAGE_CONTEXT_TOKENS, "f16"),
                     commands.mlx(model, gpu, quant, estimate.file_size_bytes)]
        else:
            found = [commands.unsupported("llama.cpp", arch), *found]
    rows = []
    for c in found:
        if c is None:
            continue
        shown = (replace(setup, repo=commands.served_repo(model, setup.repo)) if setup and c.engine.startswith("vLLM")
                 and c.remark not in ("serving", "unsupported", "serving_context") else None)
        rows.append((c, shown, urls.huggingface(commands.chat_repo(model)) if c.gated else None))
    return quant, tuple(rows)


def pair_commands(site: SiteData, key: PageKey, lang: Lang) -> tuple[CommandRow, ...]:
    """llama.cpp, vLLM, SGLang (where the page has a serving plan), Ollama and MLX commands for the pair's
    recommended setup (vLLM and SGLang alone where it does not run: their commands may need several GPUs); an
    engine no source shows running the architecture gets a sentence saying so instead of a command. The commands
    are the same in every language (made once for all), their notes are not."""
    quant, found = lang.in_every_language(("launch", key.model, key.gpu), lambda: _launch(site, key))
    plan = site.pairs[(key.model, key.gpu)].estimate.offload
    experts_in_ram = plan is not None and plan.cpu_moe_layers > 0
    rows = []
    for c, shown, gated_page in found:
        bf16 = site.quant_estimate(key.model, key.gpu, "BF16").file_size_bytes if c.remark == "built" else 0
        note = command_note(c.remark, quant, c.serves, lang, c.engine, bf16)
        if experts_in_ram and c.engine == "Ollama" and c.text:
            whole = _ollama_layers_note(lang)
            note = whole if note is None else Markup("{} {}").format(note, whole)
        if gated_page is not None:
            gated = _gated_note(gated_page, lang)
            note = gated if note is None else Markup("{} {}").format(note, gated)
        rows.append(CommandRow(c.engine, c.text, c.remark, c.serves if c.remark != "unsupported" else None,
                               c.size_bytes, ", ".join(c.skipped), shown if c.text else None,
                               c.remark in ("serving", "sglang_serving"), bool(shown and c.text and shown.gpu_count > 1),
                               note))
    return tuple(rows)
