"""What every page of the site shares: how a refusal is shown, and how a number is read.

A page's POST calls one service; when the service refuses (a
:class:`casino.core.errors.DomainError`: nothing was written) or the page can't read its own
input (``PageInputError``), the refusal is shown as the page's error message and
the page is drawn again as it stands.
"""

from __future__ import annotations

import re

from django.contrib import messages
from django.http import HttpRequest

from casino.core.errors import DomainError

#: ASCII digits only, at most 18 (within a 64-bit column): "²" and "٣" pass ``str.isdigit()`` but
#: not ``int()``, and a 5,000-digit number is no row id or count a page ever sends.
_WHOLE = re.compile(r"[0-9]{1,18}")


class PageInputError(ValueError):
    """Form input that can't be read (the message names the field; ``field`` is the input's name
    when known, so the page can mark it)."""

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field


def whole_number(text: object) -> int | None:
    """``text`` as a non-negative whole number (surrounding spaces allowed), or None when it is
    anything else: the one reading of a number typed or posted on a page."""
    value = str(text).strip() if text is not None else ""
    return int(value) if _WHOLE.fullmatch(value) else None


def refusal(request: HttpRequest, exc: Exception) -> None:
    """Show ``exc`` (a domain error's message, else its text) as the page's error message."""
    messages.error(request, exc.message if isinstance(exc, DomainError) else str(exc))
