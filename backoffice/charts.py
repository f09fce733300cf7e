"""Server-side SVG bar charts for the report pages (inline; no JavaScript, no external assets).

``bar_chart()`` returns safe SVG markup: every label is escaped, every number computed here.
Negative values (e.g. an hour with more fees returned than collected) hang below the zero line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from casino.core.money import format_cents


class BarLike(Protocol):
    @property
    def label(self) -> str: ...

    @property
    def cents(self) -> int: ...


def bar_chart(
    bars: Sequence[BarLike],
    *,
    title: str,
    width: int = 720,
    height: int = 220,
    label_every: int = 1,
) -> SafeString:
    """An SVG bar chart of ``bars`` (label, cents) with an accessible title, the zero line, the
    largest value marked, and a ``<title>`` tooltip per bar. Empty input gives a short note."""
    if not bars:
        return mark_safe(f'<p class="chart-empty">{escape(title)}: no data.</p>')
    top, left, bottom = 24, 8, 36
    plot_h = height - top - bottom
    high = max(0, *(bar.cents for bar in bars))
    low = min(0, *(bar.cents for bar in bars))
    span = (high - low) or 1
    slot = (width - 2 * left) / len(bars)
    bar_w = max(slot * 0.7, 1.0)

    def y(value: int) -> float:
        return top + (high - value) * plot_h / span

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="chart" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">',
        f"<title>{escape(title)}</title>",
        f'<text x="{left}" y="14" font-size="12" font-family="sans-serif">{escape(title)} '
        f"(max {escape(format_cents(high))})</text>",
    ]
    zero = y(0)
    for index, bar in enumerate(bars):
        x = left + index * slot + (slot - bar_w) / 2
        bar_top, bar_bottom = (y(bar.cents), zero) if bar.cents >= 0 else (zero, y(bar.cents))
        fill = "#4a7bb7" if bar.cents >= 0 else "#c0504d"
        parts.append(
            f'<rect x="{x:.1f}" y="{bar_top:.1f}" width="{bar_w:.1f}" '
            f'height="{max(bar_bottom - bar_top, 0):.1f}" fill="{fill}">'
            f"<title>{escape(bar.label)}: {escape(format_cents(bar.cents))}</title></rect>"
        )
        if index % max(label_every, 1) == 0:
            parts.append(
                f'<text x="{x + bar_w / 2:.1f}" y="{height - bottom + 14}" font-size="10" '
                f'text-anchor="middle" font-family="sans-serif">{escape(bar.label)}</text>'
            )
    parts.append(
        f'<line x1="{left}" y1="{zero:.1f}" x2="{width - left}" y2="{zero:.1f}" '
        'stroke="#333" stroke-width="1"/>'
    )
    parts.append("</svg>")
    return mark_safe("".join(parts))
