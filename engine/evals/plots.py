"""Plots of an evaluation, drawn on the server as SVG (issue 13 §2: "Plots where people would
rather look than read … rendered with no network").

Three charts: a value per model as horizontal bars (cost per action), errors per class per model
as grouped horizontal bars, and the latency of each model's actions as a strip of points over a
box (quartiles, the median marked). Plain SVG with presentation attributes only (the site's CSP
allows no inline style), every text escaped, a ``<title>`` and an ``aria-label`` for screen
readers; the same SVG is served inline and as a download.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from html import escape

from engine.evals.report import percentile

PALETTE = ("#3b6ea8", "#d9822b", "#4a9c5d", "#b5484b", "#7a5ea8", "#8c6d46", "#4aa3a3", "#999")
WIDTH = 640
LABEL_W = 180
ROW = 22
Format = Callable[[float], str]


def _svg(title: str, height: int, body: list[str]) -> str:
    label = escape(title)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="100%" role="img" aria-label="{label}" font-family="sans-serif" font-size="12">'
        f"<title>{label}</title>"
        f'<text x="0" y="16" font-size="14" font-weight="bold">{label}</text>'
        + "".join(body)
        + "</svg>"
    )


def _text(x: float, y: float, text: str, anchor: str = "start", fill: str = "#222") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" fill="{fill}">{escape(text)}</text>'
    )


def _bar(x: float, y: float, w: float, h: float, fill: str, tip: str) -> str:
    return (
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(0.0, w):.1f}" height="{h:.1f}" '
        f'fill="{fill}"><title>{escape(tip)}</title></rect>'
    )


def _scale(top: float) -> float:
    """A round upper bound for an axis (1, 2 or 5 times a power of ten)."""
    if top <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(top))
    return float(next(m * power for m in (1, 2, 5, 10) if m * power >= top))


def bar_chart(title: str, values: Mapping[str, float], fmt: Format = str) -> str:
    """One horizontal bar per key (a model), its value written at the end of the bar."""
    top = _scale(max(values.values(), default=0.0))
    span = WIDTH - LABEL_W - 90
    body = []
    for n, (name, value) in enumerate(values.items()):
        y = 30 + n * (ROW + 6)
        colour = PALETTE[n % len(PALETTE)]
        w = span * value / top
        body += [
            _text(LABEL_W - 6, y + ROW * 0.7, name, "end"),
            _bar(LABEL_W, y, w, ROW, colour, f"{name}: {fmt(value)}"),
            _text(LABEL_W + w + 6, y + ROW * 0.7, fmt(value)),
        ]
    if not values:
        body.append(_text(LABEL_W, 44, "No data."))
    return _svg(title, 40 + max(1, len(values)) * (ROW + 6), body)


def grouped_bars(
    title: str, classes: Sequence[str], counts: Mapping[str, Mapping[str, int]]
) -> str:
    """For each class a band with one bar per model (``counts[model][class]``), a legend on top."""
    models = list(counts)
    top = _scale(max((c.get(k, 0) for c in counts.values() for k in classes), default=0))
    bar_h = max(6.0, min(14.0, 40.0 / max(1, len(models))))
    band = bar_h * max(1, len(models)) + 10
    span = WIDTH - LABEL_W - 50
    body = _legend(models, 28)
    first = 52
    for n, name in enumerate(classes):
        y0 = first + n * band
        body.append(_text(LABEL_W - 6, y0 + band / 2, name, "end"))
        for m, model in enumerate(models):
            value = counts[model].get(name, 0)
            y = y0 + m * bar_h
            w = span * value / top
            tip = f"{model} · {name}: {value}"
            body.append(_bar(LABEL_W, y, w, bar_h - 1, PALETTE[m % len(PALETTE)], tip))
            if value:
                body.append(_text(LABEL_W + w + 4, y + bar_h - 2, str(value)))
    if not classes:
        body.append(_text(LABEL_W, first + 14, "No errors found."))
    return _svg(title, int(first + max(1, len(classes)) * band + 8), body)


def _legend(models: Sequence[str], y: float) -> list[str]:
    out, x = [], 0.0
    for m, model in enumerate(models):
        colour = PALETTE[m % len(PALETTE)]
        out.append(f'<rect x="{x:.1f}" y="{y - 10:.1f}" width="12" height="12" fill="{colour}"/>')
        out.append(_text(x + 16, y, model))
        x += 28 + 7 * len(model)
    return out


def latency_plot(title: str, series: Mapping[str, Sequence[float]], unit: str = "ms") -> str:
    """Per model: the quartile box, the median line and every action as a point."""
    top = _scale(max((v for values in series.values() for v in values), default=0.0))
    span = WIDTH - LABEL_W - 40
    body = []
    for n, (name, values) in enumerate(series.items()):
        y = 34 + n * (ROW + 12)
        colour = PALETTE[n % len(PALETTE)]
        body.append(_text(LABEL_W - 6, y + ROW * 0.7, name, "end"))
        if not values:
            continue
        q1, q2, q3 = (percentile(values, p) for p in (25, 50, 75))
        x = [LABEL_W + span * v / top for v in (q1, q2, q3)]
        tip = f"{name}: median {q2:.0f} {unit}, quartiles {q1:.0f}–{q3:.0f} {unit}"
        body.append(_bar(x[0], y, x[2] - x[0], ROW, "#eee", tip))
        body.append(
            f'<line x1="{x[1]:.1f}" x2="{x[1]:.1f}" y1="{y:.1f}" y2="{y + ROW:.1f}" '
            f'stroke="{colour}" stroke-width="3"/>'
        )
        for k, value in enumerate(values):
            cx = LABEL_W + span * value / top
            cy = y + 4 + (k * 7 % (ROW - 8))
            body.append(
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="2.5" fill="{colour}" '
                f'fill-opacity="0.6"><title>{value:.0f} {unit}</title></circle>'
            )
    height = 50 + max(1, len(series)) * (ROW + 12)
    body.append(_axis(span, top, height - 14))
    return _svg(title, height, body)


def _axis(span: float, top: float, y: float) -> str:
    ticks = [
        _text(LABEL_W + span * f, y + 12, f"{top * f:g}", "middle", "#666")
        for f in (0, 0.25, 0.5, 0.75, 1)
    ]
    line = (
        f'<line x1="{LABEL_W}" x2="{LABEL_W + span:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="#999"/>'
    )
    return line + "".join(ticks)
