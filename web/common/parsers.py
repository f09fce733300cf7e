"""The API's JSON: refused with a 400 when Python or the database could not take it.

DRF's own parser turns malformed JSON into a 400, but three well-formed bodies reached a 500: one
nested about 2,000 levels deep (``json`` raises ``RecursionError``, which DRF doesn't catch), a
string holding NUL (``\\u0000``), which PostgreSQL text columns refuse (a ``DataError`` at the
first query), and an integer beyond 64 bits (``"number": 2**63``: an ``OverflowError`` in the
database driver). Every integer column of the project is 64 bits at most, so a larger number is
no id, count or amount this API takes. No request of this API nests deeper than a showdown
(boards in a list in an object: four levels), so :data:`MAX_DEPTH` leaves ample room.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32
MAX_INTEGER = 2**63 - 1


def refuse_unfit(data: object) -> None:
    """Raise :class:`ParseError` for ``data`` nested deeper than :data:`MAX_DEPTH`, holding a NUL in
    a key or a string, or an integer beyond 64 bits (walked without recursion, so a deep body
    can't exhaust the stack here)."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                raise ParseError("Text may not contain the NUL character (\\u0000).")
        elif isinstance(value, int) and not isinstance(value, bool):
            if abs(value) > MAX_INTEGER:
                raise ParseError(f"The number {value} is out of range (a 64-bit integer at most).")
        elif isinstance(value, Mapping | list):
            if depth > MAX_DEPTH:
                raise ParseError(f"JSON nested more than {MAX_DEPTH} levels deep.")
            items = list(value.items()) if isinstance(value, Mapping) else [(None, v) for v in value]
            for key, item in items:
                if isinstance(key, str) and "\x00" in key:
                    raise ParseError("Text may not contain the NUL character (\\u0000).")
                stack.append((item, depth + 1))


class GuardedJSONParser(JSONParser):
    """:class:`JSONParser`, refusing (400) too deep a body or a NUL in its text."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON nested more than {MAX_DEPTH} levels deep.") from None
        refuse_unfit(data)
        return data
