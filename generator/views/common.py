"""What every page kind's view shares: the language handle, page head, breadcrumbs, source rows, cloud offers,
their rental cost and the rent-or-buy calculator's inputs."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar
from urllib.parse import urlparse

from markupsafe import Markup

from .. import urls
from ..catalog import freshness
from ..catalog.schema import Gpu, Model
from ..codegen import escape_output
from ..estimate import cost
from ..estimate.cost import HOURS_PER_MONTH
from ..estimate.estimator import Estimate, Request
from ..i18n import Formatter, translation_markup
from ..links import is_safe_href
from ..sitedata import SiteData
from . import labels

T = TypeVar("T")
PROMPT_TOKENS = Request().prompt_tokens  # the prompt the pages' time to first token is estimated for


@dataclass(frozen=True)
class Lang:
    """What a view needs of a language: its code, formatter, gettext and prose pages (rendered Markdown), a memo
    for view parts many pages share (one ``Lang`` per language and process) and one for parts that do not depend on
    the language (one for every ``Lang`` of a process: a subject's page in the next language finds them)."""

    code: str
    fmt: Formatter
    gettext: Callable[[str], str]
    prose: Callable[[str], Markup]
    memo: dict[tuple[Any, ...], Any] = field(default_factory=dict, compare=False, repr=False)
    messages: dict[str, Markup] = field(default_factory=dict, compare=False, repr=False)
    common: dict[tuple[Any, ...], Any] = field(default_factory=dict, compare=False, repr=False)

    def shared(self, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """``compute()``, once per key in this language (the key must name everything the result depends on)."""
        try:
            return self.memo[key]
        except KeyError:
            value = self.memo[key] = compute()
            return value

    def in_every_language(self, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """``compute()``, once per key for every language (the result must not depend on the language, the key
        must name everything else it depends on)."""
        try:
            return self.common[key]
        except KeyError:
            value = self.common[key] = compute()
            return value

    def _(self, message: str, **values: Any) -> Markup:
        """A translated message as markup with each value escaped: the bytes ``{{ _(message, **values) }}`` writes
        in a template (values are formatted by the caller, as the template's filters would). Named ``_`` so that
        message extraction (pybabel's default keywords) finds its messages."""
        translated = self.messages.get(message)
        if translated is None:
            translated = self.messages[message] = translation_markup(self.gettext(message))
        if not values:
            return translated
        for name, value in values.items():  # the call's own dict
            values[name] = escape_output(value)
        return str.__new__(Markup, str.__mod__(translated, values))


class Crumb(NamedTuple):
    name: str
    path: str


class Head(NamedTuple):
    """What a page's head and JSON-LD say of it: title, description, breadcrumbs and date last modified."""

    title: str
    description: str
    breadcrumbs: tuple[Crumb, ...] = ()
    modified: str | None = None


def home(lang: Lang) -> Crumb:
    return Crumb(lang.gettext("Home"), urls.index(lang.code))


def latest_read(*entries: Model | Gpu) -> str:
    """The date the newest source of these entries was read, as an ISO date."""
    return max(s.read for e in entries for s in e.sources).isoformat()


class SourceRow(NamedTuple):
    what: str
    url: str
    link: bool  # an https URL, linked; else a document title, shown as text
    host: str
    read: dt.date


def source_rows(entries: list[tuple[str, Model | Gpu]], gettext: Callable[[str], str]) -> tuple[SourceRow, ...]:
    rows = []
    for what, entry in entries:
        for source in entry.sources:
            link = is_safe_href(source.url)
            fields = ", ".join(gettext(labels.FIELD[f]) if f in labels.FIELD else f for f in source.fields)
            rows.append(SourceRow(f"{what} ({fields})", source.url, link,
                                  urlparse(source.url).netloc if link else source.url, source.read))
    return tuple(rows)


class OfferRow(NamedTuple):
    """A cloud offer for a GPU with its age on the build's price reference date."""

    provider: str
    instance: str
    vram_bytes: int
    gpu_count: int
    usd_per_hour: float
    usd_per_gpu_hour: float
    usd_per_month: float
    billing: str
    tier: str
    checked: dt.date
    age_days: int
    one_day: bool  # "1 day old", not "1 days old"
    stale: bool
    url: str


def marketed_memory_bytes(gpu: Gpu) -> int:
    """The GPU's memory as vendors and clouds state it, in decimal bytes (24 GB for an RTX 4090, whose driver
    reports 23.99 GiB): ``memory_gb`` where given, else ``memory_bytes`` is the marketed size read as GiB."""
    return round((gpu.memory_gb if gpu.memory_gb is not None else gpu.memory_bytes / 2**30) * 1e9)


def offer_rows(site: SiteData, gpu_id: str) -> tuple[OfferRow, ...]:
    """Cloud offers for a GPU, cheapest per GPU first, each with its age on the build's price reference date."""
    gpu = site.catalog.gpus[gpu_id]
    as_of = site.price_reference_date
    rows = []
    for p, o in site.offers_by_gpu[gpu_id]:
        age = freshness.age_days(o.checked, as_of) if as_of else 0
        rows.append(OfferRow(p.name, o.instance, marketed_memory_bytes(gpu) * o.gpu_count, o.gpu_count,
                             o.price_usd_per_hour, o.price_usd_per_hour / o.gpu_count,
                             o.price_usd_per_hour * HOURS_PER_MONTH, o.billing, o.tier, o.checked, age,
                             age == 1, freshness.is_stale(age), o.url))
    return tuple(rows)


def cheapest_per_tier(rows: tuple[OfferRow, ...]) -> tuple[OfferRow, ...]:
    """The cheapest offer of each tier, cheapest first: what a pair page lists (its GPU page lists them all)."""
    first: dict[str, OfferRow] = {}
    for row in rows:
        first.setdefault(row.tier, row)
    return tuple(first.values())


def offer_label(offer: OfferRow) -> str:
    return f"{offer.provider}, {offer.instance}"


class RentalCost(NamedTuple):
    """Cost per 1M output tokens on the cheapest offer."""

    usd_per_hour: float
    offer_label: str
    single_usd_per_mtok: float
    batched_usd_per_mtok: float


def rental_cost(offers: tuple[OfferRow, ...], e: Estimate) -> RentalCost | None:
    """Cost per 1M output tokens on the cheapest offer (``offer_rows`` order), or None without an offer or speed."""
    if not offers or e.decode_tokens_per_s <= 0:
        return None
    per_gpu = offers[0].usd_per_gpu_hour
    return RentalCost(per_gpu, offer_label(offers[0]), cost.usd_per_million_tokens(e.decode_tokens_per_s, per_gpu),
                      cost.usd_per_million_tokens(max(e.batched_tokens_per_s or 0.0, e.decode_tokens_per_s), per_gpu))


def purchase_price(gpu: Gpu) -> tuple[float, str, Any] | None:
    """(USD, kind, date) rent-or-buy uses: a current street price where one is given, else the catalogued price."""
    if gpu.street_price_usd is not None:
        return gpu.street_price_usd, "street", gpu.street_price_date
    if gpu.price_usd is not None:
        return gpu.price_usd, gpu.price_kind or "msrp", gpu.price_date
    return None


class PriceSource(NamedTuple):
    """Where a purchase price was read: linked where it is an https URL."""

    url: str
    host: str
    link: bool


def price_source(gpu: Gpu) -> PriceSource | None:
    """The source backing the price rent-or-buy uses (``purchase_price``: the street price where one is given)."""
    field_name = "street_price_usd" if gpu.street_price_usd is not None else "price_usd"
    for source in gpu.sources:
        if field_name in source.fields:
            link = is_safe_href(source.url)
            return PriceSource(source.url, urlparse(source.url).netloc if link else source.url, link)
    return None


class CloudBasis(NamedTuple):
    """What owning is compared with: this GPU's cheapest offer, or, where this GPU is not rented, the cloud GPU that
    makes the model's tokens cheapest."""

    label: str  # provider, instance
    gpu_name: str
    same_gpu: bool
    usd_per_gpu_hour: float
    single_usd_per_mtok: float | None
    batched_usd_per_mtok: float | None
    rent_usd_per_hour: float | None  # renting what one hour of the owned GPU makes; None: nothing to compare
    stale: bool  # the offer's price is older than freshness.STALE_AFTER_DAYS on the build's reference date


class RentBuyView(NamedTuple):
    """The rent-or-buy calculator: its default inputs, the page's per-pair figures it computes with (embedded for the
    script), what owning is compared with, and the figures at the defaults (what the page shows without script)."""

    inputs: dict[str, str]  # the inputs' default values as the form states them ("" where none)
    price_usd: float | None  # None: no public price, the buyer enters a quote
    price_kind: str | None
    price_date: dt.date | None
    price_source: PriceSource | None
    power_w: float | None  # None: no published draw, electricity left out
    usd_per_kwh: float
    hours_per_day: float
    years: float
    single_tokens_per_s: float | None  # None on the GPU page (no model) or where the pair does not run
    batched_tokens_per_s: float | None
    cloud: CloudBasis | None
    result: cost.RentOrBuy
    never: bool  # priced and compared, yet renting costs no more than the electricity: buying never pays off
    apple: bool  # a Mac: buy the machine or rent a GPU


def same_gpu_basis(offers: tuple[OfferRow, ...], single_tps: float | None, batched_tps: float | None,
                   gpu_name: str) -> CloudBasis | None:
    """This GPU's cheapest offer (``offer_rows`` order) as what owning is compared with; None without an offer."""
    if not offers:
        return None
    per_gpu = offers[0].usd_per_gpu_hour
    return CloudBasis(offer_label(offers[0]), gpu_name, True, per_gpu,
                      cost.usd_per_million_tokens(single_tps, per_gpu) if single_tps else None,
                      cost.usd_per_million_tokens(batched_tps, per_gpu) if batched_tps else None, per_gpu,
                      offers[0].stale)


def rentbuy_view(gpu: Gpu, cloud: CloudBasis | None, single_tps: float | None,
                 batched_tps: float | None) -> RentBuyView:
    """The calculator at the default inputs: the catalogue's dated price where there is one, else none entered."""
    purchase = purchase_price(gpu)
    price, kind, date = purchase if purchase else (None, None, None)
    own = cost.Ownership(price, gpu.tdp_w)
    inputs = {"price": _input_value(price), "kwh": _input_value(own.usd_per_kwh),
              "hours": _input_value(own.hours_per_day), "years": _input_value(own.years)}
    rent = cloud.rent_usd_per_hour if cloud else None
    result = cost.rent_or_buy(own, single_tps, batched_tps, rent)
    return RentBuyView(inputs, price, kind, date, price_source(gpu) if purchase else None, gpu.tdp_w, own.usd_per_kwh,
                       own.hours_per_day, own.years, single_tps, batched_tps, cloud, result,
                       price is not None and rent is not None and result.breakeven_months is None,
                       gpu.vendor == "apple")


def _input_value(value: float | None) -> str:
    """A number as an HTML number input's value: "999", not "999.0"; "" for none."""
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else repr(float(value))
