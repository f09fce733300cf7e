"""Money as people type it and read it: the one parser and the formatters.

Amounts are integer cents everywhere (RULINGS §1). A person types dollars (``25``, ``12.50``,
``$1,250``); :func:`parse_dollars` is the one place that turns such text into cents, and the page
script's ``money.js`` (``static/money.js``) does the same with the same cap, tested against the
same cases (``tests/data/money_cases.json``). The formatters only label: never read a label back.
"""

from __future__ import annotations

import re
from typing import Final

#: The most dollars a person may type (12 digits): far above any table's chips or any day's
#: drop, well within the ledger's 64-bit cents and the page script's exact integers (2**53); a
#: larger number is refused as too large, not as "not an amount".
MAX_DOLLARS: Final = 10**12 - 1

# ASCII digits only: ``²`` and ``٣`` are digits to Python's ``int`` and ``Decimal`` but no
# amount a dealer means. A leading ``$`` and thousands' commas are allowed, no sign, at most
# two decimals.
# ``fullmatch``, not ``$``: ``$`` also matches before a final line feed ("12\n," would read).
_DOLLARS: Final = re.compile(r"\$?\s*([0-9]+)(?:\.([0-9]{1,2}))?", re.ASCII)


class AmountError(ValueError):
    """Typed money that can't be read. The message names what was typed and why; ``field`` is
    the input's name when known, so a page can mark it."""

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field


def parse_dollars(text: object, *, what: str = "Amount", field: str = "") -> int:
    """``"12"``, ``"12.5"``, ``"$1,212.50"`` -> cents (``121250``).

    Refuses with :class:`AmountError` anything else: a sign, a third decimal, letters, digits
    other than ASCII's, more than :data:`MAX_DOLLARS`. ``what`` starts the message (the field's
    label), ``field`` is carried by the error.
    """
    raw = str(text)
    match = _DOLLARS.fullmatch(raw.strip().replace(",", ""))
    if match is None:
        raise AmountError(f"{what}: {raw!r} is not an amount in dollars (e.g. 25 or 12.50).", field=field)
    whole, part = match.groups()
    if len(whole.lstrip("0")) > len(str(MAX_DOLLARS)):
        raise AmountError(f"{what}: {raw} is more than ${MAX_DOLLARS:,}, the most a form takes.", field=field)
    return int(whole) * 100 + int((part or "0").ljust(2, "0"))


def format_cents(cents: int, *, always_cents: bool = False) -> str:
    """A label: ``400`` -> ``"$4"``, ``123450`` -> ``"$1,234.50"``, ``-150`` -> ``"-$1.50"``;
    ``always_cents``: with the cents even when whole (``"$4.00"``, as the floor says chips sold)."""
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    if rest == 0 and not always_cents:
        return f"{sign}${dollars:,}"
    return f"{sign}${dollars:,}.{rest:02d}"


def amount_text(cents: int) -> str:
    """What an amount field shows, to be typed over and read again by :func:`parse_dollars`:
    ``1200`` -> ``"12"``, ``1250`` -> ``"12.50"`` (no ``$``, no commas)."""
    sign = "-" if cents < 0 else ""
    whole, rest = divmod(abs(cents), 100)
    return f"{sign}{whole}" if rest == 0 else f"{sign}{whole}.{rest:02d}"


def decimal_dollars(cents: int) -> str:
    """A plain decimal number of dollars for exports and spreadsheets, always two decimals:
    ``-150`` -> ``"-1.50"``, ``400`` -> ``"4.00"``."""
    sign = "-" if cents < 0 else ""
    whole, rest = divmod(abs(cents), 100)
    return f"{sign}{whole}.{rest:02d}"
