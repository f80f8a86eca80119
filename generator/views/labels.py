"""Short labels for codes the estimator and the catalogue use, translated once per language (templates look them up)."""

from __future__ import annotations

import re
from collections.abc import Callable

from markupsafe import Markup, escape


def N_(message: str) -> str:
    """Mark a message for extraction; translated later, once per language."""
    return message


VERDICT = {"fits": N_("Fits with margin"), "tight": N_("Fits tightly"), "offload": N_("Runs with offload"),
           "no_fit": N_("Does not fit")}
# Lower-case verdicts for use inside a sentence.
VERDICT_PHRASE = {"fits": N_("fits with margin"), "tight": N_("fits tightly"), "offload": N_("only with offload"),
                  "no_fit": N_("does not fit")}
FINETUNE = {"qlora": N_("QLoRA (4-bit base)"), "lora": N_("LoRA (16-bit base)"), "full": N_("Full fine-tuning")}
ROLE = {"fastest": N_("Best single GPU"), "value": N_("Best value"), "older": N_("Used or older option"),
        "apple": N_("Apple unified memory"), "cloud": N_("Cheapest cloud")}
QUALITY = {"native": N_("native release"), "near_lossless": N_("near-lossless"), "good": N_("good"),
           "noticeable": N_("noticeable loss"), "heavy": N_("heavy loss"), "unmeasured": N_("not measured")}
MIXER = {"full": N_("full attention"), "mla": N_("multi-head latent attention"), "linear": N_("linear attention"),
         "compressed": N_("compressed attention"),
         "mamba": "Mamba-2", "sliding": N_("sliding-window attention"), "chunked": N_("chunked attention"),
         "none": N_("MLP only")}
BILLING = {"per-second": N_("per second"), "per-minute": N_("per minute"), "hourly": N_("hourly"),
           "monthly": N_("monthly")}
TIER = {"on-demand": N_("on demand"), "spot": N_("spot"), "community": N_("community"), "secure": N_("secure"),
        "reserved": N_("reserved"), "serverless": N_("serverless")}
PRICE_KIND = {"msrp": N_("launch list price"), "street": N_("street price")}
BACKEND = {"cuda": "CUDA", "rocm": "ROCm", "metal": "Metal", "vulkan": "Vulkan", "sycl": "SYCL", "cann": "CANN",
           "musa": "MUSA", "other": N_("other backends")}
SEGMENT = {"consumer": N_("consumer"), "workstation": N_("workstation"), "datacenter": N_("data centre"),
           "unified": N_("unified memory")}
DTYPE = {"bfloat16": "BF16", "float16": "FP16", "float32": "FP32"}
# Catalogue field names as the source list shows them.
FIELD = {"config": N_("configuration"), "context_length": N_("context length"), "total_params": N_("parameters"),
         "active_params": N_("active parameters"), "license": N_("licence"), "release_date": N_("release date"),
         "memory_bytes": N_("memory"), "memory_gb": N_("memory as marketed"), "usable_memory_bytes": N_("usable memory"),
         "memory_type": N_("memory type"),
         "bandwidth_gb_per_s": N_("bandwidth"), "tdp_w": "TDP", "launch_date": N_("launch date"),
         "price_usd": N_("price"), "street_price_usd": N_("street price"), "fp16_tensor_tflops": N_("FP16 tensor FLOPS"),
         "fp8_tensor_tflops": N_("FP8 tensor FLOPS"), "int8_tensor_tops": N_("INT8 tensor TOPS"),
         "fp32_tflops": N_("FP32 FLOPS (non-tensor)"),
         "interconnect": N_("interconnect"), "gguf": N_("GGUF files"), "ollama": N_("Ollama tags")}
ASSUMPTION = {
    "engine": N_("Inference engine"), "kv_type": N_("KV cache type"), "quant": N_("Quantization"),
    "weights": N_("Weight size"), "sequences": N_("KV cache sizing"), "device.usable": N_("Usable memory"),
    "verdict.tight": N_("“Fits tightly” when"), "weights.token_embd": N_("Token embedding table"),
    "offload": N_("Offload order"), "blocked": N_("Not possible"),
    "runtime.compute_buffer": N_("Compute buffer"), "runtime.context": N_("Backend context"),
    "runtime.gpu_memory_utilization": N_("vLLM memory utilisation"), "runtime.activation_peak": N_("Activation peak"),
    "runtime.non_torch": N_("Memory outside PyTorch"), "runtime.cuda_graphs": N_("CUDA graphs"),
    "speed.family": N_("Speed constants fitted for"), "speed.bandwidth_efficiency": N_("Bandwidth efficiency"),
    "speed.hbm_bandwidth_efficiency": N_("Bandwidth efficiency on HBM"), "speed.engine": N_("Engine builds measured"),
    "speed.kv_efficiency": N_("KV cache read efficiency"), "speed.launch_s": N_("Kernel launch time (s)"),
    "speed.split_s": N_("Layer split cost (s)"), "speed.compute_efficiency": N_("Compute efficiency"),
    "speed.attention_efficiency": N_("Attention efficiency"), "speed.dequant_factor": N_("Dequantization factor"),
    "speed.decode_attention_efficiency": N_("Attention efficiency in decode"),
    "speed.pipeline_efficiency": N_("Pipeline efficiency"),
    "speed.flops_per_byte": N_("FLOPs per byte/s without catalogued FLOPS"),
    "speed.prefill_flops": N_("Prefill compute"),
    "speed.dequant_bytes_per_weight": N_("Prefill dequantization traffic (bytes per weight and micro-batch)"),
    "speed.score_bytes": N_("Prefill attention-score traffic (bytes per score)"),
    "speed.mmq_flops_per_fp32_flop": N_("Quantised-matmul FLOPs per FP32 FLOP"),
    "speed.lpddr_bandwidth_efficiency": N_("Bandwidth efficiency on LPDDR unified memory"),
    "speed.moe_layer_s": N_("Expert routing time per MoE block (s)"),
    "speed.recurrent_layer_s": N_("Fixed time per recurrent layer of a hybrid model (s)"),
    "speed.expert_bandwidth_efficiency": N_("Expert weight read efficiency"),
    "speed.expert_tokens_half": N_("Tokens per expert at half GEMM rate"),
}
# Estimator assumption texts with their numbers and backend names replaced by %(a)s, %(b)s, … (see ``localise``).
ASSUMPTION_TEXT = frozenset({
    N_("computed per tensor"), N_("published GGUF size"), N_("KV cache sized for sequences × context tokens"),
    N_("whole memory (engine context counted separately)"), N_("catalogue usable_memory_bytes"),
    N_("Apple GPU working set %(a)s/%(b)s of unified memory"), N_("kept in system RAM by llama.cpp"),
    N_("margin below max(%(a)s of usable, %(b)s GiB)"),
    N_("experts, then layers, to system RAM until %(a)s MiB stay free; system RAM assumed %(b)s GiB at %(c)s GB/s, "
       "read at %(d)s of it"),
    N_("%(a)s MiB + KQ mask %(b)s B × %(c)s × KV cells (flash attention, n_ubatch %(d)s)"),
    N_("%(a)s MiB backend context (%(b)s × %(c)s MiB, Ollama MinimumMemory)"),
    N_("%(a)s (no measurements of its own: constants of %(b)s)"),
    N_("%(a)s + %(b)s × layers (without CUDA graphs %(c)s × layers)"),
    N_("llama.cpp builds of May %(a)s (llama-bench; quantised weights dequantised to F16 for cuBLAS GEMMs, flash "
       "attention off)"),
    N_("llama.cpp CUDA builds of %(a)s-%(b)s to %(c)s-%(d)s (llama-bench; quantised matmul MMQ, flash attention on)"),
    N_("llama.cpp ROCm builds of %(a)s-%(b)s to %(c)s-%(d)s (llama-bench in pull requests, issues, discussions and the "
       "public logs of kyuz0 and LocalAI-Lab; quantised matmul MMQ)"),
    N_("llama.cpp Metal builds of %(a)s-%(b)s to %(c)s-%(d)s (llama-bench in pull requests, enescingoz/mac-llm-bench "
       "and dotoryeee's blog; flash attention on)"),
    N_("llama.cpp Vulkan builds of %(a)s-%(b)s to %(c)s (llama-bench in pull requests, issues and kyuz0's Strix Halo "
       "logs; flash attention on)"),
    N_("%(a)s per extra GPU (layer split)"),
    N_("%(a)s per MoE block"),
    N_("%(a)s per recurrent layer"),
    N_("catalogued dense FP16 tensor %(a)s TFLOPS per GPU"),
    N_("catalogued dense FP16 tensor %(a)s TFLOPS per GPU (× %(b)s for FP16-accumulate GEMMs on GeForce)"),
    # Clauses the FLOPS rule appends after "; " (``localise`` translates a text clause by clause).
    N_("quantised matmul at most %(a)s × the catalogued FP32 %(b)s TFLOPS"),
    N_("quantised matmul on dp4a at %(a)s × the catalogued FP32 %(b)s TFLOPS"),
    N_("quantised matmul at %(a)s × the catalogued FP32 %(b)s TFLOPS"),
    N_("flash attention on the vector units at the catalogued FP32 %(a)s TFLOPS"),
    N_("no FP16 FLOPS catalogued: %(a)s FLOPs per byte/s × %(b)s GB/s = %(c)s TFLOPS per GPU, the %(d)s "
       "compute-to-bandwidth balance fitted on measured llama.cpp prefill"),
    N_("no FP16 FLOPS catalogued: %(a)s FLOPs per byte/s × %(b)s GB/s = %(c)s TFLOPS per GPU (× %(d)s for "
       "FP16-accumulate GEMMs on GeForce), the %(e)s compute-to-bandwidth balance fitted on measured llama.cpp prefill"),
    N_("no FP16 FLOPS catalogued: %(a)s FLOPs per byte/s × %(b)s GB/s = %(c)s TFLOPS per GPU, the %(d)s "
       "compute-to-bandwidth balance fitted on measured llama.cpp prefill (borrowed from CUDA)"),
    N_("no FP16 FLOPS catalogued: %(a)s FLOPs per byte/s × %(b)s GB/s = %(c)s TFLOPS per GPU (× %(d)s for "
       "FP16-accumulate GEMMs on GeForce), the %(e)s compute-to-bandwidth balance fitted on measured llama.cpp "
       "prefill (borrowed from CUDA)"),
})
# A placeholder: a stand-alone number (with an optional percent sign) or a lower-case backend name.
_SLOT = re.compile(r"(?<![\w.])(?:\d+(?:\.\d+)?(?:e[-+]\d+)?%?|cuda|rocm|metal|vulkan|other)(?![\w])")
_PROSE = re.compile(r"[A-Za-z]{3,}[ ,:;(]+[A-Za-z]{2,}")
_CLAUSE = re.compile(r"; (?![^(]*\))")  # "; " not inside parentheses
_NAMES = "abcdefghijklmnop"


def _slot_text(slot: str, gettext: Callable[[str], str], decimal: str) -> str:
    if slot in BACKEND:
        return gettext(BACKEND[slot])
    number = slot.rstrip("%").replace(".", decimal)
    if not slot.endswith("%"):
        return number
    return f"{number}\u00a0%" if decimal == "," else f"{number}%"


def localise(value: str, gettext: Callable[[str], str], decimal: str) -> tuple[str, bool]:
    """An assumption text in the page's language, and whether that worked (False: the estimator's English text).

    Numbers and backend names are lifted out and the remaining sentence is looked up in ``ASSUMPTION_TEXT``;
    a value without prose (``llama.cpp``, ``0.910``) only gets the locale's decimal sign. A text not found whole is
    translated clause by clause, split at each "; " outside parentheses (rules append clauses to a sentence).
    """
    found = _localise_whole(value, gettext, decimal)
    clauses = _CLAUSE.split(value)
    if found[1] or len(clauses) == 1:
        return found
    parts = [_localise_whole(clause, gettext, decimal) for clause in clauses]
    if all(ok for _, ok in parts):
        return "; ".join(text for text, _ in parts), True
    return value, False


def _localise_whole(value: str, gettext: Callable[[str], str], decimal: str) -> tuple[str, bool]:
    slots = _SLOT.findall(value)
    if len(slots) > len(_NAMES):
        return value, False
    names = iter(_NAMES)
    template = _SLOT.sub(lambda m: f"%({next(names)})s", value)
    shown = {name: _slot_text(slot, gettext, decimal) for name, slot in zip(_NAMES, slots)}
    if template in ASSUMPTION_TEXT:
        return gettext(template) % shown, True
    if not _PROSE.search(_SLOT.sub(" ", value)):
        names = iter(_NAMES)
        return _SLOT.sub(lambda m: shown[next(names)], value), True
    return value, False


def translated_labels(gettext: Callable[[str], str]) -> dict[str, dict[str, str]]:
    """Every label table in one language, plus ready-made verdict badges."""
    tables = {"verdict": VERDICT, "verdict_phrase": VERDICT_PHRASE, "finetune": FINETUNE, "role": ROLE,
              "mixer": MIXER, "billing": BILLING, "tier": TIER, "price_kind": PRICE_KIND, "backend": BACKEND,
              "segment": SEGMENT, "quality": QUALITY}
    labels = {name: {code: gettext(text) for code, text in table.items()} for name, table in tables.items()}
    labels["badge"] = {code: Markup(f'<span class="badge v-{code}">{escape(text)}</span>')
                       for code, text in labels["verdict"].items()}
    return labels
