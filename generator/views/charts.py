"""Inline SVG charts with explicit sizes; pure functions from numbers to markup.

Text is escaped by ``escape_output`` (markupsafe's C escaper on plain strings, no Markup object per label):
every pair page draws a chart."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from markupsafe import Markup

from ..codegen import escape_output

WIDTH, HEIGHT = 640, 280
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 56, 16, 16, 40


@dataclass(frozen=True)
class Series:
    """One line: a CSS class, a legend label and its y values (one per x label)."""

    css: str
    label: str
    values: tuple[float, ...]


class _Plot(NamedTuple):
    """A line chart's geometry, formatted: the same in every language."""

    grid: tuple[tuple[float, str, str], ...]  # per tick: value, y of its line, y of its label
    xs: tuple[str, ...]
    limit: tuple[str, str] | None  # y of the limit line and of its label
    lines: str  # the series' polylines and points


@lru_cache(maxsize=8)  # a pair page's language versions draw the same lines: they are formatted once
def _plot(n: int, lines: tuple[tuple[str, tuple[float, ...]], ...], limit: float | None) -> _Plot:
    top = max([limit or 0.0, *(v for _, values in lines for v in values)]) * 1.08 or 1.0
    plot_w, plot_h = WIDTH - PAD_LEFT - PAD_RIGHT, HEIGHT - PAD_TOP - PAD_BOTTOM
    step = plot_w / max(1, n - 1)

    def y(value: float) -> float:
        return PAD_TOP + plot_h * (1 - value / top)

    grid = tuple((value, f"{y(value):.1f}", f"{y(value) + 4:.1f}") for value in (top * tick / 4 for tick in range(5)))
    xs = tuple(f"{PAD_LEFT + i * step:.1f}" for i in range(n))
    marks = []
    for css, values in lines:
        ys = [f"{y(v):.1f}" for v in values]
        points = " ".join([f"{x_text},{y_text}" for x_text, y_text in zip(xs, ys)])
        marks.append(f'<polyline class="line {css}" points="{points}"/>')
        marks += [f'<circle class="pt {css}" cx="{x_text}" cy="{y_text}" r="3"/>' for x_text, y_text in zip(xs, ys)]
    at = None if limit is None else (f"{y(limit):.1f}", f"{y(limit) - 5:.1f}")
    return _Plot(grid, xs, at, "".join(marks))


def line_chart(title: str, x_labels: tuple[str, ...], series: tuple[Series, ...], limit: float | None,
               limit_label: str, y_unit: str, y_format) -> Markup:
    """A line chart with a horizontal limit line; x positions are evenly spaced categories."""
    plot = _plot(len(x_labels), tuple((s.css, s.values) for s in series), limit)
    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" '
             f'aria-label="{escape_output(title)}"><title>{escape_output(title)}</title>']
    for value, line_y, label_y in plot.grid:
        parts.append(f'<line class="grid" x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{line_y}" y2="{line_y}"/>'
                     f'<text class="tick" x="{PAD_LEFT - 6}" y="{label_y}" text-anchor="end">'
                     f'{escape_output(y_format(value))}</text>')
    for x_text, label in zip(plot.xs, x_labels):
        parts.append(f'<text class="tick" x="{x_text}" y="{HEIGHT - PAD_BOTTOM + 18}" text-anchor="middle">'
                     f'{escape_output(label)}</text>')
    if plot.limit is not None:
        line_y, label_y = plot.limit
        parts.append(f'<line class="limit" x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{line_y}" y2="{line_y}"/>'
                     f'<text class="limit-label" x="{WIDTH - PAD_RIGHT}" y="{label_y}" text-anchor="end">'
                     f'{escape_output(limit_label)}</text>')
    parts.append(plot.lines)
    legend_y = HEIGHT - 8
    for i, s in enumerate(series):
        lx = PAD_LEFT + i * 160
        parts.append(f'<line class="line {s.css}" x1="{lx}" x2="{lx + 18}" y1="{legend_y - 4}" y2="{legend_y - 4}"/>'
                     f'<text class="legend" x="{lx + 24}" y="{legend_y}">{escape_output(s.label)}</text>')
    parts.append(f'<text class="tick" x="4" y="{PAD_TOP + 4}">{escape_output(y_unit)}</text></svg>')
    return Markup("".join(parts))


def scatter_chart(title: str, points: tuple[tuple[float, float], ...], x_label: str, y_label: str, tick_format) -> Markup:
    """Estimated (y) against measured (x) on equal linear axes, with the diagonal of a perfect estimate."""
    top = max([1.0, *(max(p) for p in points)]) * 1.05
    plot = min(WIDTH - PAD_LEFT - PAD_RIGHT, HEIGHT - PAD_TOP - PAD_BOTTOM)

    def x(value: float) -> float:
        return PAD_LEFT + plot * value / top

    def y(value: float) -> float:
        return PAD_TOP + plot * (1 - value / top)

    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" '
             f'aria-label="{escape_output(title)}"><title>{escape_output(title)}</title>',
             f'<line class="limit" x1="{x(0):.1f}" y1="{y(0):.1f}" x2="{x(top):.1f}" y2="{y(top):.1f}"/>']
    for tick in range(5):
        value = top * tick / 4
        parts.append(f'<text class="tick" x="{PAD_LEFT - 6}" y="{y(value) + 4:.1f}" text-anchor="end">'
                     f'{escape_output(tick_format(value))}</text>'
                     f'<text class="tick" x="{x(value):.1f}" y="{PAD_TOP + plot + 16:.1f}" text-anchor="middle">'
                     f'{escape_output(tick_format(value))}</text>')
    parts += [f'<circle class="pt c-f16" cx="{x(m):.1f}" cy="{y(p):.1f}" r="2.5"/>' for m, p in points]
    parts.append(f'<text class="legend" x="{PAD_LEFT + plot / 2:.1f}" y="{HEIGHT - 4}" text-anchor="middle">'
                 f'{escape_output(x_label)}</text>'
                 f'<text class="legend" x="{PAD_LEFT + plot + 12:.1f}" y="{PAD_TOP + 12}">{escape_output(y_label)}</text></svg>')
    return Markup("".join(parts))


def curve_chart(title: str, points: tuple[tuple[float, float], ...], marked: tuple[float, float] | None,
                x_limit: float, x_label: str, y_label: str, limit_label: str, tick_format) -> Markup:
    """A curve of (x, y) points on linear axes from 0, with a vertical limit line at ``x_limit`` and one point
    ``marked`` (the serving chart: tokens/s per GPU against tokens/s per user)."""
    x_top = max([x_limit, *(p[0] for p in points)]) * 1.08 or 1.0
    y_top = max([1.0, *(p[1] for p in points)]) * 1.08
    top = PAD_TOP + 14  # room for the y-axis title above the plot, clear of the top tick label
    plot_w, plot_h = WIDTH - PAD_LEFT - PAD_RIGHT, HEIGHT - top - PAD_BOTTOM

    def x(value: float) -> float:
        return PAD_LEFT + plot_w * value / x_top

    def y(value: float) -> float:
        return top + plot_h * (1 - value / y_top)

    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" '
             f'aria-label="{escape_output(title)}"><title>{escape_output(title)}</title>']
    for tick in range(5):
        yv, xv = y_top * tick / 4, x_top * tick / 4
        parts.append(f'<line class="grid" x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{y(yv):.1f}" y2="{y(yv):.1f}"/>'
                     f'<text class="tick" x="{PAD_LEFT - 6}" y="{y(yv) + 4:.1f}" text-anchor="end">'
                     f'{escape_output(tick_format(yv))}</text>'
                     f'<text class="tick" x="{x(xv):.1f}" y="{HEIGHT - PAD_BOTTOM + 16}" text-anchor="middle">'
                     f'{escape_output(tick_format(xv))}</text>')
    parts.append(f'<line class="limit" x1="{x(x_limit):.1f}" x2="{x(x_limit):.1f}" y1="{top}" y2="{HEIGHT - PAD_BOTTOM}"/>'
                 f'<text class="limit-label" x="{x(x_limit) + 4:.1f}" y="{top + 12}">{escape_output(limit_label)}</text>')
    coords = [(f"{x(px):.1f}", f"{y(py):.1f}") for px, py in points]
    parts.append(f'<polyline class="line c-f16" points="{" ".join(f"{a},{b}" for a, b in coords)}"/>')
    parts += [f'<circle class="pt c-f16" cx="{a}" cy="{b}" r="3"/>' for a, b in coords]
    if marked is not None:
        parts.append(f'<circle class="pt c-q8" cx="{x(marked[0]):.1f}" cy="{y(marked[1]):.1f}" r="6"/>')
    parts.append(f'<text class="legend" x="{PAD_LEFT + plot_w / 2:.1f}" y="{HEIGHT - 6}" text-anchor="middle">'
                 f'{escape_output(x_label)}</text>'
                 f'<text class="tick" x="4" y="{PAD_TOP - 2}">{escape_output(y_label)}</text></svg>')
    return Markup("".join(parts))
