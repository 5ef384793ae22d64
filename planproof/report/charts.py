"""Inline SVG bar charts (no script, no external resource): grouped horizontal bars, one
group per category, one bar per model. Every label is escaped here because the SVG is
built as text and handed to the template as markup."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

WIDTH = 640
LABEL_W = 150
VALUE_W = 54
BAR_H = 12
BAR_GAP = 2
GROUP_GAP = 10
TOP = 6
AXIS_H = 22


@dataclass(frozen=True, slots=True)
class Series:
    """One model's values, in category order (None: not measured); ``marks``, in the same
    order, a suffix for a value's label (``*``: a sample's figure), drawn paler."""

    name: str
    color: str
    values: tuple[float | None, ...]
    marks: tuple[str, ...] = ()


def nice_max(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k at or above ``value`` (at least 1)."""
    if not math.isfinite(value) or value <= 1:
        return 1.0
    exp = 10 ** math.floor(math.log10(value))
    for m in (1, 2, 2.5, 5, 10):
        if m * exp >= value:
            return float(m * exp)
    return float(10 * exp)  # pragma: no cover - the loop always returns


def _num(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".") if x % 1 else f"{x:.0f}"


def bar_chart(
    title: str,
    categories: Sequence[str],
    series: Sequence[Series],
    *,
    unit: str = "%",
    max_value: float | None = None,
) -> Markup:
    """The chart as an ``<svg>`` element; bar length is value / axis maximum."""
    values = [v for s in series for v in s.values if v is not None and math.isfinite(v)]
    top = max_value if max_value is not None else nice_max(max(values, default=0.0))
    plot_w = WIDTH - LABEL_W - VALUE_W
    group_h = max(len(series), 1) * (BAR_H + BAR_GAP) - BAR_GAP
    height = TOP + len(categories) * (group_h + GROUP_GAP) + AXIS_H
    out: list[str] = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
        f'height="{height}" role="img" aria-label="{escape(title)}">'
        f"<title>{escape(title)}</title>"
    ]
    axis_y = height - AXIS_H + 4
    for k in range(5):
        x = LABEL_W + plot_w * k / 4
        out.append(
            f'<line x1="{x:.1f}" y1="{TOP - 2}" x2="{x:.1f}" y2="{axis_y}" class="grid"/>'
            f'<text x="{x:.1f}" y="{axis_y + 13}" class="tick">{_num(top * k / 4)}'
            f"{escape(unit)}</text>"
        )
    y = TOP
    for i, cat in enumerate(categories):
        out.append(
            f'<text x="{LABEL_W - 6}" y="{y + group_h / 2 + 4:.1f}" class="cat">'
            f"{escape(cat)}</text>"
        )
        for s in series:
            v = s.values[i] if i < len(s.values) else None
            if v is None or not math.isfinite(v):
                out.append(
                    f'<text x="{LABEL_W + 2}" y="{y + BAR_H - 2}" class="na">'
                    f"{escape(s.name)}: n/a</text>"
                )
            else:
                w = plot_w * min(max(v / top, 0.0), 1.0)
                mark = s.marks[i] if i < len(s.marks) else ""
                tip = f"{s.name} — {cat}: {_num(v)}{unit}{mark}"
                pale = ' fill-opacity="0.45"' if mark else ""
                out.append(
                    f'<rect x="{LABEL_W}" y="{y}" width="{w:.2f}" height="{BAR_H}" '
                    f'fill="{escape(s.color)}"{pale}><title>{escape(tip)}</title></rect>'
                    f'<text x="{LABEL_W + w + 4:.2f}" y="{y + BAR_H - 2}" class="val">'
                    f"{_num(v)}{escape(mark)}</text>"
                )
            y += BAR_H + BAR_GAP
        y += GROUP_GAP - BAR_GAP
    out.append("</svg>")
    return Markup("".join(out))
