"""The command checker: parse every launch command of a built pair page and hold it against the page's own figures
(context, KV type, quantization, GPU count, memory) and the catalogue (repositories, files, tags): every repository
a command names is catalogued, every served context is at least the page's, no command serves a base repository
where a chat release is catalogued, no step reads a calibration file the command does not download, and no command
is for an engine no source shows running the model's architecture."""

from __future__ import annotations

import html
import re
import shlex
from pathlib import Path

from generator.catalog.schema import Catalog, Gpu, Model
from generator.estimate import engines
from generator.estimate.quant import quant_info
from generator.estimate.vllm_support import runs_format
from generator.sitedata.adapters import device_spec, model_spec
from generator.views.commands import SPLIT, hf_tag

SECTION = re.compile(r'<section id="launch"([^>]*)>(.*?)</section>', re.S)
SERVING = re.compile(r'<section id="serving"([^>]*)>')
COMMAND = re.compile(r'<div class="cmd"([^>]*)><pre><code[^>]*>(.*?)</code>', re.S)
ATTRIBUTE = re.compile(r'data-([a-z-]+)="([^"]*)"')
PICKED_QUANT = re.compile(r"<dt>[^<]*</dt><dd>([A-Z0-9_]+)[ <]")  # the first KPI: the recommended quantization
SPLIT_PART = re.compile(r"-\d{5}-of-\d{5}")  # Ollama cannot pull a split GGUF
LLAMA_KV = {"f16": None, "q8_0": "q8_0", "q4_0": "q4_0"}
VLLM_KV = {"f16": None, "q8_0": "fp8", "q4_0": "fp8"}


def _attributes(text: str) -> dict[str, str]:
    return {key: html.unescape(value) for key, value in ATTRIBUTE.findall(text)}


def _options(words: list[str]) -> dict[str, str]:
    """``--flag value`` pairs of a command line (a flag followed by another flag maps to "")."""
    found = {}
    for i, word in enumerate(words):
        if word.startswith("-"):
            found[word] = words[i + 1] if i + 1 < len(words) and not words[i + 1].startswith("-") else ""
    return found


def _lines(text: str) -> list[list[str]]:
    """Shell words of each command line, with backslash continuations joined."""
    return [shlex.split(line) for line in text.replace("\\\n", " ").splitlines() if line.strip()]


def _command_line(text: str) -> list[str]:
    """The words of a command's last line: its server, after any ``hf auth login``."""
    return _lines(text)[-1]


def _gguf_has(model: Model, repo: str, quant: str) -> bool:
    return any(r.repo == repo and any(f.quant == quant for f in r.files) for r in model.gguf)


def _gguf_single_file(model: Model, repo: str, quant: str) -> bool:
    """The repository has this quant as one file of known name (Ollama cannot pull split files)."""
    return any(r.repo == repo and any(f.quant == quant and f.file and not SPLIT.search(f.file) for f in r.files)
               for r in model.gguf)


def _native(model: Model) -> str:
    """The format of the model's own checkpoint (BF16, FP8, MXFP4) as its config.json declares it."""
    method = str((model.config.get("quantization_config") or {}).get("quant_method", "")).lower()
    return {"fp8": "FP8", "mxfp4": "MXFP4"}.get(method, "BF16")


def _unsupported(quant: str, model: Model, gpu: Gpu) -> list[str]:
    """A problem when vLLM's kernels do not run a ``quant`` checkpoint of ``model`` on ``gpu``."""
    if runs_format(quant, device_spec(gpu), model_spec(model).architecture.n_experts > 0):
        return []
    return [f"vLLM does not run {quant} checkpoints of {model.id} on {gpu.id}"]


def check_llama_cpp(text: str, page: dict[str, str], model: Model) -> list[str]:
    """Problems of a llama.cpp command against the page."""
    lines = _lines(text)
    server = next((words for words in lines if words and words[0] == "llama-server"), None)
    if server is None:
        return ["no llama-server line"]
    opts, quant, problems = _options(server), page["quant"], []
    if opts.get("-c") != page["context"]:
        problems.append(f"-c {opts.get('-c')} is not the page's context {page['context']}")
    problems += _calibration(lines)
    if opts.get("-fa") != "on":
        problems.append("flash attention not on")
    for flag in ("--cache-type-k", "--cache-type-v"):
        if opts.get(flag) != LLAMA_KV[page["kv"]]:
            problems.append(f"{flag} {opts.get(flag)} is not the page's KV type {page['kv']}")
    if "-hf" in opts:
        repo, _, named = opts["-hf"].partition(":")
        if named != hf_tag(quant):
            problems.append(f"-hf names {named}, the page recommends {quant}")
        if not _gguf_has(model, repo, quant):
            problems.append(f"{repo} with {quant} is not in the catalogue")
    elif "-m" in opts:
        quantize = next((words for words in lines if words and words[0] == "llama-quantize"), None)
        if quantize is None or quantize[-1] != quant or quantize[-2] != opts["-m"]:
            problems.append(f"-m {opts['-m']} is not a file the command builds at {quant}")
        download = next((words for words in lines if words[:2] == ["hf", "download"]), None)
        if download is None or download[2] not in {model.hf_repo, model.chat_repo}:
            problems.append("the build does not download the model's own repository")
    else:
        problems.append("neither -hf nor -m")
    offloaded = "--n-cpu-moe" in opts or opts.get("-ngl") != "999"
    if offloaded != (page["verdict"] == "offload"):
        problems.append(f"offload flags {offloaded} but the page's verdict is {page['verdict']}")
    if "cpu-moe" in page:  # the offload plan the page states: experts of N layers and the layers kept on the GPU
        if opts.get("--n-cpu-moe", "0") != page["cpu-moe"]:
            problems.append(f"--n-cpu-moe {opts.get('--n-cpu-moe')} is not the plan's {page['cpu-moe']} layers")
        gpu_layers = "999" if page["gpu-layers"] == page["layers"] else page["gpu-layers"]
        if opts.get("-ngl") != gpu_layers:
            problems.append(f"-ngl {opts.get('-ngl')} is not the plan's {page['gpu-layers']} of {page['layers']} layers")
    return problems


def check_vllm(text: str, page: dict[str, str], command: dict[str, str], model: Model, gpu: Gpu) -> list[str]:
    """Problems of a vLLM command against the page and the checkpoint's memory."""
    words = _command_line(text)
    if words[:2] != ["vllm", "serve"]:
        return ["not a vllm serve line"]
    opts, problems = _options(words[3:]), []
    repos = {model.hf_repo, *([model.chat_repo] if model.chat_repo else []), *(c.repo for c in model.checkpoints)}
    if words[2] not in repos:
        problems.append(f"{words[2]} is not a catalogued checkpoint of {model.id}")
    else:
        quant = _native(model) if words[2] in (model.hf_repo, model.chat_repo) else next(c.quant for c in model.checkpoints
                                                                       if c.repo == words[2])
        problems += _unsupported(quant, model, gpu)
    if opts.get("--max-model-len") != page["context"]:
        problems.append(f"--max-model-len {opts.get('--max-model-len')} is not the page's context")
    if opts.get("--tensor-parallel-size", "1") != command.get("gpus"):
        problems.append(f"tensor parallel {opts.get('--tensor-parallel-size', '1')} for {command.get('gpus')} GPUs")
    if opts.get("--kv-cache-dtype") != VLLM_KV[page["kv"]]:
        problems.append(f"--kv-cache-dtype {opts.get('--kv-cache-dtype')} is not the page's KV type")
    if int(command.get("need", "0")) > int(command.get("usable", "-1")):
        problems.append(f"checkpoint needs {command.get('need')} bytes, more than the usable {command.get('usable')}")
    return problems


def check_vllm_serving(text: str, serving: dict[str, str], model: Model, gpu: Gpu, context: str) -> list[str]:
    """Problems of a vLLM command that serves the serving section's operating point, against that section."""
    words = _command_line(text)
    if words[:2] != ["vllm", "serve"]:
        return ["not a vllm serve line"]
    opts, problems = _options(words[3:]), []
    if words[2] not in _serving_repos(model, serving):
        problems.append(f"{words[2]} is not {model.id}'s own checkpoint")
    problems += _serving_point(opts, ("--tensor-parallel-size", "--max-model-len", "--max-num-seqs"), serving, model,
                               (serving.get("kv"),), context, words[2])
    return problems + _unsupported(serving.get("precision", ""), model, gpu)


def _serving_repos(model: Model, serving: dict[str, str]) -> set[str | None]:
    """The repositories a serving command may load: the model's own or its chat release, and at FP8 a catalogued
    FP8 checkpoint."""
    fp8 = {c.repo for c in model.checkpoints if c.quant == "FP8"} if serving.get("precision") == "FP8" else set()
    return {model.hf_repo, model.chat_repo} | fp8


def _serving_point(opts: dict[str, str], flags: tuple[str, str, str], serving: dict[str, str], model: Model,
                   kv_names: tuple[str | None, ...], context: str, repo: str) -> list[str]:
    """Problems of a serving command's tensor parallel and concurrency ``flags`` against the serving section's
    operating point, its length flag against the page's ``context`` (a server accepting less rejects the page's
    requests), its KV dtype (one of ``kv_names``) and on-load quantization."""
    problems = [f"{flag} {opts.get(flag)} is not the serving section's {serving.get(key)}"
                for flag, key in zip(flags[::2], ("tp", "seqs")) if opts.get(flag) != serving.get(key)]
    if not opts.get(flags[1], "").isdigit() or int(opts[flags[1]]) < int(context):
        problems.append(f"{flags[1]} {opts.get(flags[1])} serves less than the page's context {context}")
    if int(serving.get("seqs", "0")) > int(serving.get("max", "-1")):
        problems.append(f"{serving.get('seqs')} requests, more than the KV cache's {serving.get('max')}")
    if opts.get("--kv-cache-dtype", "auto") not in kv_names:
        problems.append(f"--kv-cache-dtype {opts.get('--kv-cache-dtype')} is not the serving section's {serving.get('kv')}")
    prequantized = any(c.repo == repo and c.quant == "FP8" for c in model.checkpoints)
    if ("--quantization" in opts) != (serving.get("precision") == "FP8" and _native(model) != "FP8" and not prequantized):
        problems.append(f"--quantization {opts.get('--quantization')} for precision {serving.get('precision')}")
    return problems


SGLANG_KV = {"auto": ("auto",), "fp8": ("fp8_e5m2", "fp8_e4m3")}  # the serving section's KV type, as SGLang names it


def check_sglang_serving(text: str, serving: dict[str, str], model: Model, context: str) -> list[str]:
    """Problems of an SGLang command that serves the serving section's operating point, against that section."""
    words = _command_line(text)
    if words[:3] != ["python", "-m", "sglang.launch_server"]:
        return ["not a python -m sglang.launch_server line"]
    opts, problems = _options(words[3:]), []
    if opts.get("--model-path") not in _serving_repos(model, serving):
        problems.append(f"{opts.get('--model-path')} is not {model.id}'s own checkpoint")
    problems += _serving_point(opts, ("--tp-size", "--context-length", "--max-running-requests"), serving, model,
                               SGLANG_KV.get(serving.get("kv", ""), ()), context, opts.get("--model-path", ""))
    unknown = set(opts) - {"--model-path", "--tp-size", "--context-length", "--max-running-requests", "--kv-cache-dtype",
                           "--quantization"}
    if unknown:
        problems.append(f"flags outside the checked set: {sorted(unknown)}")
    return problems


def check_ollama(text: str, page: dict[str, str], command: dict[str, str], model: Model) -> list[str]:
    """Problems of an Ollama command against the page and the catalogue: another quant than the page's only from a
    published file no larger than the page's (by its size, else by its quant's bits per weight)."""
    lines = _lines(text)
    serve, run = lines[0], lines[-1]
    env = dict(word.split("=", 1) for word in serve if "=" in word)
    problems = []
    if env.get("OLLAMA_CONTEXT_LENGTH") != page["context"]:
        problems.append(f"OLLAMA_CONTEXT_LENGTH {env.get('OLLAMA_CONTEXT_LENGTH')} is not the page's context")
    if env.get("OLLAMA_FLASH_ATTENTION") != "1":
        problems.append("flash attention not on")
    if env.get("OLLAMA_KV_CACHE_TYPE") != LLAMA_KV[page["kv"]]:
        problems.append(f"OLLAMA_KV_CACHE_TYPE {env.get('OLLAMA_KV_CACHE_TYPE')} is not the page's KV type")
    if run[:2] != ["ollama", "run"]:
        return problems + ["no ollama run line"]
    name, served = run[2], command.get("serves")
    if name.startswith("hf.co/"):
        repo, _, tag = name.removeprefix("hf.co/").partition(":")
        quant = served or page["quant"]
        if tag != hf_tag(quant) or not _gguf_single_file(model, repo, quant):
            problems.append(f"{name} is not a catalogued single-file GGUF with {quant}")
    elif name not in {t.tag for t in model.ollama}:
        problems.append(f"{name} is not a catalogued Ollama tag")
    if served and served != page["quant"] and int(command.get("size", "0")) > int(page["file"]):
        problems.append(f"{name} loads {command.get('size')} bytes, more than the page's {page['file']}-byte file")
    if (served and served != page["quant"] and "size" not in command
            and quant_info(served).nominal_bits > quant_info(page["quant"]).nominal_bits):
        problems.append(f"{name} loads {served}, more bits per weight than the page's {page['quant']}")
    return problems


ENGINE_OF = {"llama.cpp": "llama.cpp", "Ollama": "llama.cpp", "MLX": None, "vLLM": "vllm", "vLLM (ROCm)": "vllm",
             "SGLang": "sglang", "SGLang (ROCm)": "sglang"}
DOWNLOADERS = ("hf", "huggingface-cli", "wget", "curl")


def _runs(model: Model, engine: str) -> bool:
    """Whether a source shows ``engine`` running the model's architecture (llama.cpp: or a GGUF is catalogued)."""
    return (engine == "llama.cpp" and bool(model.gguf)) or engines.runs(engines.architecture(model.config), engine)


def _calibration(lines: list[list[str]]) -> list[str]:
    """An importance-matrix step that reads a calibration file no earlier line of the command downloads."""
    problems, fetched = [], set()
    for words in lines:
        if words and words[0] in DOWNLOADERS:
            fetched.update(w.rsplit("/", 1)[-1] for w in words[1:])
        if words and words[0] == "llama-imatrix":
            named = _options(words).get("-f", "")
            if named.rsplit("/", 1)[-1] not in fetched:
                problems.append(f"llama-imatrix reads {named or 'no file'}, which the command does not download")
    return problems


def check_common(text: str, engine: str, model: Model) -> list[str]:
    """Rules for every command: the engine runs the architecture, a gated model's own repositories are downloaded
    after ``hf auth login``, and no base repository is served where the catalogue names a chat release."""
    problems = []
    wanted = ENGINE_OF.get(engine)
    if wanted and not _runs(model, wanted):
        problems.append(f"{engine} command, but no source shows {wanted} running {engines.architecture(model.config)}")
    owners = {model.hf_repo.split("/")[0], (model.chat_repo or model.hf_repo).split("/")[0]}
    if model.gated and any(re.search(rf"(?<![\w./-]){re.escape(owner)}/", text) for owner in owners) and \
            ["hf", "auth", "login"] not in _lines(text):
        problems.append(f"{engine} downloads a gated repository of {model.id} without hf auth login")
    if model.chat_repo and re.search(rf"(?<![\w./-]){re.escape(model.hf_repo)}(?![\w.-])", text):
        problems.append(f"{engine} serves the base repository {model.hf_repo}, not the chat release {model.chat_repo}")
    return problems


def check_mlx(text: str, model: Model) -> list[str]:
    """Problems of an MLX command: it serves a catalogued MLX repository."""
    server = next((words for words in _lines(text) if words and words[0] == "mlx_lm.server"), None)
    if server is None:
        return ["no mlx_lm.server line"]
    repo = _options(server).get("--model")
    return [] if repo in {r.repo for r in model.mlx} else [f"{repo} is not a catalogued MLX repository"]


def check_page(page_html: str, catalog: Catalog) -> list[str]:
    """Every problem of the launch commands of one pair page."""
    section = SECTION.search(page_html)
    if section is None:
        return ["no launch section"]
    page = _attributes(section.group(1))
    model, gpu = catalog.models[page["model"]], catalog.gpus[page["gpu"]]
    problems = []
    picked = PICKED_QUANT.search(page_html)
    if picked is None or picked.group(1) != page["quant"]:
        problems.append(f"the page shows {picked and picked.group(1)}, the commands use {page['quant']}")
    shown = []
    for attributes, code in COMMAND.findall(section.group(2)):
        command, text = _attributes(attributes), html.unescape(code)
        engine = command["engine"]
        shown.append(engine)
        problems += check_common(text, engine, model)
        if engine == "llama.cpp":
            problems += check_llama_cpp(text, page, model)
        elif engine.startswith("vLLM") and "serving" in command:
            serving = SERVING.search(page_html)
            problems += (check_vllm_serving(text, _attributes(serving.group(1)), model, gpu, page["context"]) if serving
                         else ["a serving command without a serving section"])
        elif engine.startswith("vLLM"):
            problems += check_vllm(text, page, command, model, gpu)
        elif engine.startswith("SGLang"):
            serving = SERVING.search(page_html)
            problems += (check_sglang_serving(text, _attributes(serving.group(1)), model, page["context"])
                         if serving and "serving" in command
                         else ["an SGLang command without a serving section"])
        elif engine == "Ollama":
            problems += check_ollama(text, page, command, model)
        elif engine == "MLX":
            problems += check_mlx(text, model)
        else:
            problems.append(f"unknown engine {engine}")
    if (page["verdict"] != "no_fit" and _runs(model, "llama.cpp")) != ("llama.cpp" in shown):
        problems.append(f"llama.cpp command {'llama.cpp' in shown} but the page's verdict is {page['verdict']}")
    single_files = [f for r in model.gguf for f in r.files if f.file and not SPLIT_PART.search(f.file)]
    if page["verdict"] != "no_fit" and any(page["quant"] == f.quant for f in single_files) and "Ollama" not in shown:
        problems.append(f"a GGUF repository publishes {page['quant']} but the page has no Ollama command")
    return problems


def check_site(site: Path, catalog: Catalog, language: str = "en") -> dict[str, list[str]]:
    """Problems per pair page of a built site (pages without problems left out) and the number of pages read."""
    found = {}
    for page in sorted((site / language / "models").glob("*/*/index.html")):
        problems = check_page(page.read_text(encoding="utf-8"), catalog)
        if problems:
            found[str(page.relative_to(site))] = problems
    return found


def figures(site: Path, catalog: Catalog, language: str = "en") -> dict[str, int]:
    """Counts for the closing note of the weights work over the pair pages of a built site and the catalogue."""
    counts = dict.fromkeys(("pair pages", "with llama.cpp", "llama.cpp -hf", "llama.cpp built", "with Ollama",
                            "llama.cpp pages with Ollama", "with MLX", "with vLLM/SGLang", "unsupplied calibration",
                            "base repository served", "engine not shown (no source)", "pages with problems"), 0)
    served_contexts = []
    for path in sorted((site / language / "models").glob("*/*/index.html")):
        page_html = path.read_text(encoding="utf-8")
        section = SECTION.search(page_html)
        counts["pair pages"] += 1
        if section is None:
            continue
        model = catalog.models[_attributes(section.group(1))["model"]]
        found = {}
        for attributes, code in COMMAND.findall(section.group(2)):
            found[_attributes(attributes)["engine"]] = html.unescape(code)
        llama = found.get("llama.cpp")
        counts["with llama.cpp"] += llama is not None
        counts["llama.cpp -hf"] += bool(llama and " -hf " in llama)
        counts["llama.cpp built"] += bool(llama and "llama-quantize" in llama)
        counts["with Ollama"] += "Ollama" in found
        counts["llama.cpp pages with Ollama"] += bool(llama and "Ollama" in found)
        counts["with MLX"] += "MLX" in found
        counts["unsupplied calibration"] += any(_calibration(_lines(text)) for text in found.values())
        counts["base repository served"] += any("base repository" in p for e, text in found.items()
                                                for p in check_common(text, e, model))
        counts["engine not shown (no source)"] += "No source we read shows" in section.group(2)
        for engine, text in found.items():
            if engine.startswith(("vLLM", "SGLang")):
                opts = _options(_lines(text)[-1] if engine.startswith("SGLang") else
                                next(w for w in _lines(text) if w[:2] == ["vllm", "serve"]))
                length = opts.get("--max-model-len") or opts.get("--context-length")
                served_contexts.append((int(length), min(8192, model.context_length)))
        counts["with vLLM/SGLang"] += any(e.startswith(("vLLM", "SGLang")) for e in found)
        counts["pages with problems"] += bool(check_page(page_html, catalog))
    counts["min served vLLM/SGLang context"] = min((s for s, _ in served_contexts), default=0)
    counts["vLLM/SGLang below min(8K, model max)"] = sum(s < want for s, want in served_contexts)
    models = catalog.models.values()
    counts.update({
        "models": len(catalog.models), "models with a GGUF repository": sum(bool(m.gguf) for m in models),
        "GGUF repositories": sum(len(m.gguf) for m in models),
        "GGUF files": sum(len(r.files) for m in models for r in m.gguf),
        "GGUF files with sizes": sum(f.size_bytes is not None for m in models for r in m.gguf for f in r.files),
        "Ollama tags": sum(len(m.ollama) for m in models), "models with an Ollama tag": sum(bool(m.ollama) for m in models),
        "MLX repositories": sum(len(m.mlx) for m in models), "vLLM checkpoints": sum(len(m.checkpoints) for m in models),
        "chat_repo set": sum(bool(m.chat_repo) for m in models), "gated": sum(bool(m.gated) for m in models)})
    return counts


if __name__ == "__main__":  # python -m tests.site.command_check SITE CATALOG: the counts for the closing note
    import sys

    from generator.catalog.load import load_catalog

    for name, value in figures(Path(sys.argv[1]), load_catalog(Path(sys.argv[2]))).items():
        print(f"{name}: {value}")
