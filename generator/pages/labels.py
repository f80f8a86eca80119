"""Short labels for codes the estimator returns, translated once per language (templates look them up)."""

from __future__ import annotations

from typing import Callable

from markupsafe import Markup, escape


def N_(message: str) -> str:
    """Mark a message for extraction; translated later, once per language."""
    return message


VERDICT = {"fits": N_("Fits with margin"), "tight": N_("Fits tightly"), "offload": N_("Runs with offload"),
           "no_fit": N_("Does not fit")}
FINETUNE = {"qlora": N_("QLoRA (4-bit base)"), "lora": N_("LoRA (16-bit base)"), "full": N_("Full fine-tuning")}
ROLE = {"fastest": N_("Best single GPU"), "value": N_("Best value"), "older": N_("Used or older option"),
        "apple": N_("Apple unified memory"), "cloud": N_("Cheapest cloud")}
MIXER = {"full": N_("full attention"), "mla": N_("multi-head latent attention"), "linear": N_("linear attention"),
         "mamba": "Mamba-2", "sliding": N_("sliding-window attention"), "chunked": N_("chunked attention"),
         "none": N_("MLP only")}


def translated_labels(gettext: Callable[[str], str]) -> dict[str, dict[str, str]]:
    """Every label table in one language, plus ready-made verdict badges."""
    tables = {"verdict": VERDICT, "finetune": FINETUNE, "role": ROLE, "mixer": MIXER}
    labels = {name: {code: gettext(text) for code, text in table.items()} for name, table in tables.items()}
    labels["badge"] = {code: Markup(f'<span class="badge v-{code}">{escape(text)}</span>')
                       for code, text in labels["verdict"].items()}
    return labels
