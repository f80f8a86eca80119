"""Which engines run a model architecture (its config.json ``architectures[0]``), each row with the source read.

llama.cpp: the architecture names of ``src/llama-arch.cpp`` (LLM_ARCH_NAMES) at one commit; the Hugging Face
architecture maps to the llama.cpp one named in the row. vLLM: ``_TEXT_GENERATION_MODELS`` and
``_MULTIMODAL_MODELS`` of ``vllm/model_executor/models/registry.py`` at one commit (it names Phi4Multimodal as
last supported in 0.12.0, so it is later than that release). SGLang: a model file under
``python/sglang/srt/models/`` in the stored repository index. An architecture no source we read lists is
"unverified": no page prints that engine's command for it, and the page says so.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

Engine = Literal["llama.cpp", "vllm", "sglang"]
READ = dt.date(2026, 12, 2)
LLAMA_CPP_URL = ("https://github.com/ggml-org/llama.cpp/blob/00395eb285c7c6821ff372e3ca41dae9da33c2c7/"
                 "src/llama-arch.cpp")
VLLM_URL = ("https://github.com/vllm-project/vllm/blob/0002bff0b6cb36a3c8a17364de3303664463c412/"
            "vllm/model_executor/models/registry.py")
SGLANG_URL = "https://github.com/sgl-project/sglang/blob/{commit}/python/sglang/srt/models/{file}"


@dataclass(frozen=True)
class Support:
    """One engine's support for one architecture: whether a source shows it runs, and that source."""

    runs: bool
    url: str | None  # None: no source we read lists the architecture
    read: dt.date | None
    note: str = ""


def _llama(name: str) -> Support:
    return Support(True, LLAMA_CPP_URL, READ, f"llama.cpp architecture {name!r} (LLM_ARCH_NAMES)")


def _vllm() -> Support:
    return Support(True, VLLM_URL, READ, "in vLLM's model registry")


def _sglang(file: str, commit: str) -> Support:
    return Support(True, SGLANG_URL.format(commit=commit, file=file), READ, f"SGLang model file {file}")


UNVERIFIED = Support(False, None, None, "no source we read lists this architecture")
SG_LISTING = "5d2c83e6bb27e91c893e5fc11f6c268790a2a538"  # the models folder listing read (files a-l)

# Hugging Face architecture -> (llama.cpp, vLLM, SGLang).
TABLE: dict[str, tuple[Support, Support, Support]] = {
    "DeepseekV2ForCausalLM": (_llama("deepseek2"), _vllm(), _sglang("deepseek_v2.py", SG_LISTING)),
    "DeepseekV3ForCausalLM": (_llama("deepseek2"), _vllm(), _sglang("deepseek_v2.py", SG_LISTING)),
    "DeepseekV32ForCausalLM": (_llama("deepseek32"), _vllm(), UNVERIFIED),
    "DeepseekV4ForCausalLM": (_llama("deepseek4"), UNVERIFIED, _sglang("deepseek_v4.py", SG_LISTING)),
    "Gemma2ForCausalLM": (_llama("gemma2"), _vllm(), _sglang("gemma2.py", SG_LISTING)),
    "Gemma3ForCausalLM": (_llama("gemma3"), _vllm(), _sglang("gemma3_causal.py", SG_LISTING)),
    "Gemma3ForConditionalGeneration": (_llama("gemma3"), _vllm(), _sglang("gemma3_mm.py", SG_LISTING)),
    "Gemma4ForConditionalGeneration": (_llama("gemma4"), UNVERIFIED, _sglang("gemma4_mm.py", SG_LISTING)),
    "Glm4MoeForCausalLM": (_llama("glm4moe"), _vllm(), _sglang("glm4_moe.py", SG_LISTING)),
    "Glm4MoeLiteForCausalLM": (UNVERIFIED, UNVERIFIED, _sglang("glm4_moe_lite.py", SG_LISTING)),
    "Glm4vMoeForConditionalGeneration": (UNVERIFIED, _vllm(), _sglang("glm4v_moe.py", SG_LISTING)),
    "GlmMoeDsaForCausalLM": (_llama("glm-dsa"), UNVERIFIED, UNVERIFIED),
    "GptOssForCausalLM": (_llama("gpt-oss"), _vllm(), _sglang("gpt_oss.py", SG_LISTING)),
    "HunYuanMoEV1ForCausalLM": (_llama("hunyuan-moe"), _vllm(), _sglang("hunyuan.py", SG_LISTING)),
    "InternLM2ForCausalLM": (_llama("internlm2"), _vllm(), _sglang("internlm2.py", SG_LISTING)),
    "KimiK25ForConditionalGeneration": (UNVERIFIED, UNVERIFIED, _sglang("kimi_k25.py", SG_LISTING)),
    "KimiLinearForCausalLM": (_llama("kimi-linear"), _vllm(), _sglang("kimi_linear.py", SG_LISTING)),
    "Llama4ForConditionalGeneration": (_llama("llama4"), _vllm(),
                                       _sglang("mllama4.py", "04c0584474ed4ba392b38a68db11201b5a247531")),
    "LlamaForCausalLM": (_llama("llama"), _vllm(), _sglang("llama.py", SG_LISTING)),
    "MiMoForCausalLM": (UNVERIFIED, _vllm(), _sglang("mimo.py", "c3855c54e27b314908e0a7bb19ba0101bfda7036")),
    "MiMoV2FlashForCausalLM": (_llama("mimo2"), _vllm(),
                               _sglang("mimo_v2_flash.py", "dd6f32b07e7401bdb912fc69e86c7668f7f2585c")),
    "MiniMaxM2ForCausalLM": (_llama("minimax-m2"), _vllm(),
                             _sglang("minimax_m2.py", "7114ab5b7571a28cc7aba99f2c8d2eb53a5240e7")),
    "MistralForCausalLM": (_llama("llama"), _vllm(), _sglang("mistral.py", "64825b8395216c277ac336e680b0b38adbc96736")),
    "MixtralForCausalLM": (_llama("llama"), _vllm(), _sglang("mixtral.py", "7f1f5bc113cea04dc96cdec553455d73879df04d")),
    "NemotronHForCausalLM": (_llama("nemotron_h"), _vllm(),
                             _sglang("nemotron_h.py", "06c48ca8da0b2c8aac15df74a768e6a012444064")),
    "Phi3ForCausalLM": (_llama("phi3"), _vllm(), UNVERIFIED),
    "Qwen2ForCausalLM": (_llama("qwen2"), _vllm(), _sglang("qwen2.py", "36ce1f99e8ea1d0ad6a6792ec3b3444a8656a3b3")),
    "Qwen2MoeForCausalLM": (_llama("qwen2moe"), _vllm(),
                            _sglang("qwen2_moe.py", "d1a8de4b947a8d20b3413922c0a802876d5f913e")),
    "Qwen3ForCausalLM": (_llama("qwen3"), _vllm(), _sglang("qwen3.py", "d4ff9a85f96cbebd29fbe07785606bb03e8def8d")),
    "Qwen3MoeForCausalLM": (_llama("qwen3moe"), _vllm(),
                            _sglang("qwen3_moe.py", "e3d8e9aec2c7f120ad4d4c6e7ee08cc19346fdbd")),
    "Qwen3NextForCausalLM": (_llama("qwen3next"), _vllm(),
                             _sglang("qwen3_next.py", "502a21a81e31a8ed8f927aa21d7673ade84572f4")),
    "Qwen3VLForConditionalGeneration": (_llama("qwen3vl"), _vllm(),
                                        _sglang("qwen3_vl.py", "2409eacc3cd5681e0608210c755be3988a45614f")),
    "Qwen3VLMoeForConditionalGeneration": (_llama("qwen3vlmoe"), _vllm(),
                                           _sglang("qwen3_vl_moe.py", "d9eb001797383ee3e1aad4a55503a0d7974c75b8")),
    "Qwen3_5ForConditionalGeneration": (_llama("qwen35"), UNVERIFIED,
                                        _sglang("qwen3_5.py", "cf4465f3a8beb6ce66ed09cfe1c4b4d1fc952f60")),
    "Qwen3_5MoeForConditionalGeneration": (_llama("qwen35moe"), UNVERIFIED, UNVERIFIED),
    "Step3p7FlashForCausalLM": (UNVERIFIED, UNVERIFIED, UNVERIFIED),
}
ENGINES: tuple[Engine, ...] = ("llama.cpp", "vllm", "sglang")


def architecture(config: dict) -> str:
    """The architecture a config.json declares (its first ``architectures`` entry), "" without one."""
    names = config.get("architectures") or [""]
    return str(names[0])


def support(arch: str, engine: Engine) -> Support:
    """What our sources say about ``engine`` running ``arch`` (unverified for an architecture not in the table)."""
    row = TABLE.get(arch)
    return row[ENGINES.index(engine)] if row else UNVERIFIED


def runs(arch: str, engine: Engine) -> bool:
    """Whether a source we read shows ``engine`` running ``arch`` in mainline."""
    return support(arch, engine).runs
