"""A pair page's sentences that depend on its figures: the verdict's reason, the context and KV notes, the answers
to its questions, the fine-tuning setup, its title and description (finished, translated messages)."""

from __future__ import annotations

from markupsafe import Markup

from ..catalog.schema import Gpu, Model
from ..estimate import finetune
from ..estimate.estimator import Estimate
from ..sitedata import PAGE_CONTEXT_TOKENS
from . import labels
from .common import PROMPT_TOKENS, Lang
from .insight import Insight


def finetune_note(lang: Lang, seq_len: int) -> Markup:
    """The fine-tuning setup in words, from the estimator's own defaults (once per language and sequence length)."""
    return lang.shared(("finetune_note", seq_len), lambda: lang._(
        "Sequence length %(seq)s, micro-batch %(batch)s, gradient checkpointing, LoRA rank %(rank)s on the attention "
        "and dense or shared MLP projections (routed experts excluded); full fine-tuning uses mixed-precision AdamW "
        "(%(bytes)s bytes per parameter).", seq=lang.fmt.number(seq_len), batch=lang.fmt.number(finetune.MICRO_BATCH),
        rank=lang.fmt.number(finetune.LORA_RANK), bytes=lang.fmt.number(finetune.full_bytes_per_param())))


def verdict_reason(e: Estimate, quant: str, margin_ratio: float, offloaded: int, insight: Insight, lang: Lang,
                   fits_alone: tuple[str, str] | None = None, slower_fit: tuple[str, str] | None = None) -> Markup:
    """Why the verdict is what it is, in one or two sentences; ``fits_alone``: (quant, grade label) of a quant below
    the quality floor that would fit the GPU alone, where the pick offloads at the floor instead; ``slower_fit``:
    (quant, decode tok/s as shown) of a better quant that fits too but decodes slower than people read."""
    fmt = lang.fmt
    need, usable, ctx = fmt.gib(e.total_bytes), fmt.gib(e.usable_bytes), fmt.tokens(PAGE_CONTEXT_TOKENS)
    if e.verdict == "fits":
        text = lang._("%(quant)s weights, an %(ctx)s context and the runtime need %(need)s of the %(usable)s this "
                         "GPU offers, leaving %(margin)s (%(pct)s) free.", quant=quant, ctx=ctx, need=need,
                         usable=usable, margin=fmt.gib(e.margin_bytes), pct=fmt.percent(margin_ratio))
    elif e.verdict == "tight":
        text = lang._("%(quant)s at %(ctx)s context fits, but only %(margin)s (%(pct)s) stays free: a longer "
                         "context or a second sequence will not fit.", quant=quant, ctx=ctx,
                         margin=fmt.gib(e.margin_bytes), pct=fmt.percent(margin_ratio))
    elif e.verdict == "offload" and fits_alone:
        text = lang._("At %(quant)s the model needs %(need)s but the GPU offers %(usable)s: %(offloaded)s stay in "
                         "system RAM, and decoding still runs faster than people read. %(below)s (%(grade)s) would fit "
                         "the GPU alone.", quant=quant, need=need, usable=usable, offloaded=fmt.gib(offloaded),
                         below=fits_alone[0], grade=fits_alone[1])
    elif e.verdict == "offload":
        text = lang._("Even at %(quant)s the model needs %(need)s but the GPU offers %(usable)s: %(offloaded)s stay "
                         "in system RAM and slow decoding.", quant=quant, need=need, usable=usable,
                         offloaded=fmt.gib(offloaded))
    else:
        text = lang._("Even at %(quant)s the model needs %(need)s; this GPU offers %(usable)s, too little even with "
                         "system-RAM offload.", quant=quant, need=need, usable=usable)
    if slower_fit:
        text += Markup(" ") + lang._("%(better)s would fit too, but decodes at about %(speed)s tok/s, slower than "
                                        "people read.", better=slower_fit[0], speed=slower_fit[1])
    if not e.runs and insight.shortfall_bytes and insight.shortfall_ratio is not None:
        text += Markup(" ") + lang._("The setup is %(short)s (%(pct)s) larger than the usable memory.",
                                        short=fmt.gib(insight.shortfall_bytes), pct=fmt.percent(insight.shortfall_ratio))
    return text


def faq_can_run(e: Estimate, quant: str, offloaded: int, lang: Lang) -> Markup:
    need, usable = lang.fmt.gib(e.total_bytes), lang.fmt.gib(e.usable_bytes)
    if e.verdict in ("fits", "tight"):
        return lang._("Yes. At %(quant)s with an %(ctx)s context it needs %(need)s of the %(usable)s available.",
                         quant=quant, ctx=lang.fmt.tokens(PAGE_CONTEXT_TOKENS), need=need, usable=usable)
    if e.verdict == "offload":
        return lang._("Only partly: at %(quant)s it needs %(need)s, more than the %(usable)s available, so llama.cpp "
                         "keeps %(off)s in system RAM.", quant=quant, need=need, usable=usable, off=lang.fmt.gib(offloaded))
    return lang._("No. Even at %(quant)s it needs %(need)s; the GPU offers %(usable)s.", quant=quant, need=need,
                     usable=usable)


def faq_speed(e: Estimate, lang: Lang) -> Markup:
    if not e.runs:
        return lang._("It does not run on this GPU, so there is no speed to report.")
    assert e.prefill_tokens_per_s is not None and e.ttft_s is not None  # a setup that runs has its speeds
    return lang._("About %(decode)s tokens per second when generating one answer, %(prefill)s tokens per second "
                     "reading the prompt, and %(ttft)s seconds until the first token of a %(prompt)s-token prompt.",
                     decode=lang.fmt.sig(e.decode_tokens_per_s), prefill=lang.fmt.sig(e.prefill_tokens_per_s),
                     ttft=lang.fmt.sig(e.ttft_s), prompt=lang.fmt.tokens(PROMPT_TOKENS))


def context_notes(e: Estimate, quant: str, f16: int, q8: int, model: Model, insight: Insight,
                   lang: Lang) -> tuple[Markup, Markup | None, Markup]:
    """The largest context sentence (with the concurrent sequences), the KV-per-GiB sentence and the FAQ answer."""
    fmt, ctx = lang.fmt, lang.fmt.tokens(PAGE_CONTEXT_TOKENS)
    if f16 or q8:
        largest = lang._("Largest context that fits: %(f16)s tokens with f16 KV cache, %(q8)s with q8_0.",
                            f16=fmt.number(f16), q8=fmt.number(q8))
        faq = lang._("%(f16)s tokens with an f16 KV cache and %(q8)s with q8_0 at %(quant)s.", f16=fmt.number(f16),
                        q8=fmt.number(q8), quant=quant)
    else:
        largest = lang._("No context length fits entirely in this GPU's memory at %(quant)s.", quant=quant)
        faq = lang._("None: at %(quant)s not even the weights and the runtime fit in this GPU's memory.", quant=quant)
    if e.max_sequences:
        largest += Markup(" ") + lang._("Concurrent sequences at %(ctx)s context: %(n)s.", ctx=ctx,
                                           n=fmt.number(e.max_sequences))
    kv = None
    if insight.tokens_per_gib:
        kv = lang._("For %(model)s every GiB of f16 KV cache holds about %(n)s tokens of context.", model=model.name,
                       n=fmt.number(insight.tokens_per_gib))
        if insight.margin_tokens:
            kv += Markup(" ") + lang._(
                "The %(margin)s left free at %(ctx)s context would take about %(extra)s more tokens, in one sequence "
                "or spread over several.", margin=fmt.gib(e.margin_bytes), ctx=ctx, extra=fmt.number(insight.margin_tokens))
    return largest, kv, faq


def pair_title(model: Model, gpu: Gpu, quant: str, e: Estimate, lang: Lang) -> str:
    _ = lang.gettext
    values = {"model": model.name, "gpu": gpu.name, "need": lang.fmt.gib(e.total_bytes, 1), "quant": quant,
              "speed": lang.fmt.sig(e.decode_tokens_per_s, 3)}
    if not e.runs:
        return _("%(model)s on %(gpu)s: does not fit, needs %(need)s at %(quant)s") % values
    return _("%(model)s on %(gpu)s: %(need)s at %(quant)s, %(speed)s tok/s") % values


def pair_description(model: Model, gpu: Gpu, quant: str, e: Estimate, lang: Lang) -> str:
    _ = lang.gettext
    assert e.ttft_s is not None and e.max_context_tokens is not None  # every page's estimate has both
    values = {"model": model.name, "gpu": gpu.name, "quant": quant, "need": lang.fmt.gib(e.total_bytes),
              "usable": lang.fmt.gib(e.usable_bytes), "speed": lang.fmt.sig(e.decode_tokens_per_s, 3),
              "ttft": lang.fmt.sig(e.ttft_s, 2), "ctx": lang.fmt.number(e.max_context_tokens),
              "short": lang.fmt.gib(max(0, e.total_bytes - e.usable_bytes)),
              "context": lang.fmt.tokens(PAGE_CONTEXT_TOKENS)}
    if not e.runs:
        return _("%(model)s does not fit on %(gpu)s, not even with system-RAM offload: %(quant)s needs %(need)s at "
                 "%(context)s context, %(short)s more than the %(usable)s this GPU offers.") % values
    if e.verdict == "offload":
        return _("%(model)s runs on %(gpu)s only with system-RAM offload: %(quant)s needs %(need)s of %(usable)s at "
                 "%(context)s context, about %(speed)s tok/s decode, %(ttft)s s to first token.") % values
    values["verdict"] = _(labels.VERDICT_PHRASE[e.verdict])
    return _("%(model)s %(verdict)s on %(gpu)s: %(quant)s needs %(need)s of %(usable)s at %(context)s context, "
             "about %(speed)s tok/s decode, %(ttft)s s to first token, max context %(ctx)s.") % values
