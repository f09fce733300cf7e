"""Template filters of the report pages: money from cents, times on the room's clock."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import template

from backoffice.reports.common import local_time
from casino.core.money import format_cents

register = template.Library()


@register.filter
def cents(value: Any) -> str:
    """``12345`` -> ``$123.45``; empty for None (e.g. a fee that has no rate)."""
    if value is None or value == "":
        return ""
    return format_cents(int(value))


@register.filter
def room_time(value: dt.datetime | None) -> str:
    """An aware time on the card room's clock, ``2030-01-02 14:05``."""
    local = local_time(value)
    return "" if local is None else local.strftime("%Y-%m-%d %H:%M")


@register.filter
def basis_points(value: int | None) -> str:
    """``345`` -> ``3.45%``."""
    if value is None:
        return ""
    return f"{value // 100}.{value % 100:02d}%"
