"""The comparison page: a model on its recommended GPUs side by side."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

from .. import urls
from ..catalog.schema import Gpu, Model
from ..estimate.estimator import Estimate
from ..sitedata import PAGE_CONTEXT_TOKENS, SiteData
from .common import PROMPT_TOKENS, Crumb, Head, Lang, RentalCost, home, latest_read, offer_rows, rental_cost
from .launch import CommandRow, pair_commands
from .plan import PageKey


class Column(NamedTuple):
    gpu: Gpu
    path: str
    roles: tuple[str, ...]
    quant: str
    estimate: Estimate
    cost: RentalCost | None
    command: CommandRow | None  # llama.cpp's, where it runs


@dataclass(frozen=True, slots=True)
class CompareView:
    head: Head
    model: Model
    context: int
    prompt_tokens: int
    columns: tuple[Column, ...]


def compare_view(site: SiteData, key: PageKey, lang: Lang) -> CompareView:
    """A model on its recommended GPUs side by side: fit, speed, cost and the llama.cpp command of each."""
    _ = lang.gettext
    model = site.catalog.models[key.model]
    roles: dict[str, list[str]] = {}
    for recommended in site.recommendations(model.id):
        roles.setdefault(recommended.gpu, []).append(recommended.role)
    columns = []
    for gpu_id in site.compare_gpus(model.id):
        pick = site.pairs[(model.id, gpu_id)]
        offers = lang.shared(("offer_rows", gpu_id), partial(offer_rows, site, gpu_id))
        command = next((c for c in pair_commands(site, PageKey("pair", model.id, gpu_id), lang)
                        if c.engine == "llama.cpp"), None)
        columns.append(Column(site.catalog.gpus[gpu_id], urls.pair(lang.code, model.id, gpu_id),
                              tuple(roles.get(gpu_id, ())), pick.quant, pick.estimate,
                              rental_cost(offers, pick.estimate), command))
    names = ", ".join(c.gpu.name for c in columns)
    return CompareView(
        head=Head(
            _("%(model)s on %(n)s GPUs side by side: memory, speed and cost") % {"model": model.name, "n": len(columns)},
            _("%(model)s on %(gpus)s: memory, decode speed, time to first token, cost per million tokens "
              "and launch commands, side by side.") % {"model": model.name, "gpus": names},
            (home(lang), Crumb(model.name, urls.model(lang.code, model.id)),
             Crumb(_("GPU comparison"), urls.compare(lang.code, model.id))),
            latest_read(model, *(c.gpu for c in columns))),
        model=model, context=PAGE_CONTEXT_TOKENS, prompt_tokens=PROMPT_TOKENS, columns=tuple(columns),
    )
