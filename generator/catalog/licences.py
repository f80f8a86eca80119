"""The names of the licences catalogue entries give by identifier (``license:``, as on Hugging Face model cards).

Each name is the licence's own title (for open-source licences, the name GitHub's licence list gives the same
identifier), with where it was read (2026-12-01).
"""

from __future__ import annotations

from typing import NamedTuple


class Licence(NamedTuple):
    """A licence's name and where it was read."""

    name: str
    source: str


LICENCES: dict[str, Licence] = {
    "apache-2.0": Licence("Apache License 2.0", "https://api.github.com/licenses/apache-2.0"),
    "mit": Licence("MIT License", "https://api.github.com/licenses/mit"),
    "llama3.1": Licence("Llama 3.1 Community License Agreement",
                        "https://github.com/meta-llama/llama-models/blob/main/models/llama3_1/LICENSE"),
    "llama3.2": Licence("Llama 3.2 Community License Agreement",
                        "https://github.com/meta-llama/llama-models/blob/main/models/llama3_2/LICENSE"),
    "llama3.3": Licence("Llama 3.3 Community License Agreement",
                        "https://github.com/meta-llama/llama-models/blob/main/models/llama3_3/LICENSE"),
    "deepseek-model-license": Licence("DeepSeek License Agreement",
                                      "https://github.com/deepseek-ai/DeepSeek-V3/blob/main/LICENSE-MODEL"),
    "modified-mit": Licence("Modified MIT License", "https://github.com/MoonshotAI/Kimi-K2/blob/main/README.md"),
    "tencent-hunyuan-community": Licence("Tencent Hunyuan Community License Agreement",
                                         "https://github.com/Tencent-Hunyuan/Hunyuan-A13B/blob/main/README.md"),
    "qwen": Licence("Qwen License Agreement", "https://huggingface.co/Qwen/Qwen2.5-72B-Instruct/blob/main/LICENSE"),
    "qwen-research": Licence("Qwen Research License Agreement",
                             "https://huggingface.co/Qwen/Qwen2.5-3B-Instruct/blob/main/LICENSE"),
}


def licence_name(identifier: str) -> str:
    """The licence's name, or the identifier itself for one not listed here."""
    found = LICENCES.get(identifier)
    return found.name if found else identifier
