"""The methodology page: formulas, fitted constants and the cross-validated error on the calibration data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from markupsafe import Markup

from .. import urls
from ..estimate import fidelity, serving
from ..sitedata import SiteData
from . import charts, labels
from .common import Crumb, Head, Lang, home
from .plan import PageKey


class ErrorRow(NamedTuple):
    """A cross-validated error row: validation method, backend and engine group, quantity, and the error."""

    method: str
    group: str
    kind: str
    rows: int
    median: float
    worst: float
    within: float


class BandRow(NamedTuple):
    """The band a page prints for one backend and architecture class, with the held-out rows behind it."""

    backend: str
    engine: str
    architecture: str
    rows: int
    decode: float
    prefill: float
    ttft: float
    status: str  # "validated", "few measurements" or "not validated", localised


class ConstantRow(NamedTuple):
    backend: str
    name: str
    value: float


class EngineRow(NamedTuple):
    backend: str
    engine: str
    used: Markup  # "yes" or "no": whether the pages use this set of constants


@dataclass(frozen=True, slots=True)
class QualityRow:
    figure: Any
    grade: str
    imatrix: str | None


@dataclass(frozen=True, slots=True)
class ServingConstant:
    group: str
    bandwidth_efficiency: float
    compute_efficiency: float
    step_ms: float
    request_ms: float
    all_reduce_us: float
    provenance: str


@dataclass(frozen=True, slots=True)
class ServingError:
    kind: str
    validation: str
    rows: int
    median: float
    within: float


@dataclass(frozen=True, slots=True)
class ServingMethodology:
    """The serving model's fitted constants per engine and backend and its error."""

    constants: tuple[ServingConstant, ...]
    errors: tuple[ServingError, ...]
    floor: float


@dataclass(frozen=True, slots=True)
class MethodologyView:
    head: Head
    report: tuple[ErrorRow, ...]
    bands: tuple[BandRow, ...]
    constants: tuple[ConstantRow, ...]
    charts: tuple[Markup, ...]
    engines: tuple[EngineRow, ...]
    prose: Markup
    serving: ServingMethodology
    quality: tuple[QualityRow, ...]


def serving_methodology() -> ServingMethodology:
    from ..estimate import serving_constants

    return ServingMethodology(
        tuple(ServingConstant(key, c.bandwidth_efficiency, c.compute_efficiency, c.step_s * 1e3, c.request_s * 1e3,
                              c.all_reduce_s * 1e6, c.provenance)
              for key, c in serving_constants.CONSTANTS.items()),
        tuple(ServingError(*row) for row in serving_constants.CV_STATS + serving_constants.FIT_STATS),
        serving.MIN_USER_TOKENS_PER_S)


def _band_backend(band: Any) -> str:
    """The backend's name, with the GPU generation where the bands are split by it: "ROCm (CDNA)"."""
    name = labels.BACKEND.get(band.backend, band.backend)
    return f"{name} ({band.generation.upper()})" if band.generation else name


def methodology_view(site: SiteData, key: PageKey, lang: Lang) -> MethodologyView:
    """Formulas, assumptions and the cross-validated error on the calibration data."""
    _ = lang.gettext
    methods = {"gpu": _("leave one GPU out"), "source": _("leave one source out"), "model": _("leave one model out"),
               "formula": _("formula, nothing fitted")}
    kinds = {"decode_tps": _("decode"), "prefill_tps": _("prefill"), "ttft_s": _("time to first token"),
             "filesize": _("file size")}
    rows = tuple(ErrorRow(methods[r["method"]], _("all") if r["group"] == "all" else r["group"], kinds[r["kind"]],
                          r["rows"], r["median"], r["worst"], r["within"]) for r in site.cross_validated)
    figures = tuple(
        charts.scatter_chart(title, site.held_out_points(kind),
                             _("measured tok/s"), _("estimated tok/s"), lambda v: lang.fmt.number(v, 0))
        for kind, title in (("decode_tps", _("Decode speed on GPUs left out of the fit")),
                            ("prefill_tps", _("Prefill speed on GPUs left out of the fit"))))
    classes = {"dense": _("dense"), "moe": _("mixture of experts"), "hybrid": _("hybrid linear attention")}
    status = {"validated": _("validated"), "few": _("few measurements"), "none": _("not validated")}
    band_rows = tuple(BandRow(_band_backend(b), "llama.cpp", classes[b.architecture], b.rows, b.decode, b.prefill, b.ttft,
                              status[b.status]) for b in site.error_bands())
    measurements = sum(r["rows"] for r in site.cross_validated
                       if r["group"] == "all" and r["method"] in ("gpu", "formula") and r["kind"] != "ttft_s")
    return MethodologyView(
        head=Head(
            _("How VRAM Atlas estimates memory, speed and cost, and how far off it is"),
            _("Formulas per attention kind and quantization, speed constants per backend and engine build, and the "
              "error on GPUs and sources left out of the fit, over %(n)s measurements.") % {
                "n": lang.fmt.number(measurements)},
            (home(lang), Crumb(_("Methodology"), urls.methodology(lang.code))), site.calibration_date),
        report=rows, bands=band_rows,
        constants=tuple(ConstantRow(c["backend"], c["name"], c["value"]) for c in site.constants_table),
        charts=figures,
        engines=tuple(EngineRow(e["backend"], labels.localise(e["engine"], lang.gettext, lang.fmt.number(0.5, 1)[1])[0],
                                lang._("yes") if e["current"] else lang._("no")) for e in site.engines),
        prose=lang.prose("methodology"), serving=serving_methodology(),
        quality=tuple(QualityRow(f, fidelity.grade_of_kld(f.kld), None if f.imatrix == "none" else f.imatrix)
                      for f in fidelity.figures().values()),
    )
