"""Money as people read it. Amounts are integer cents everywhere (RULINGS §1); this only labels."""

from __future__ import annotations


def format_cents(cents: int) -> str:
    """``400`` -> ``"$4"``, ``450`` -> ``"$4.50"``, for labels (never for arithmetic)."""
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars:,}" if rest == 0 else f"{sign}${dollars:,}.{rest:02d}"
