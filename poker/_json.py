"""Reading the engine's own JSON back, strictly: each helper takes a value and where it is
(``reading.pots[0].amount``) and returns it typed, or raises :class:`ShowdownError` naming the
path.  Shared by :mod:`poker.reading` and :mod:`poker.postings`.

JSON types are checked exactly (``type(x) is int``: ``true`` is not an integer, ``1.0`` is not
either), since these objects are the engine's answers stored as they came and read back.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Final

from .errors import ShowdownError

__all__ = [
    "SEAT_BY_KEY",
    "Where",
    "as_bool",
    "as_int",
    "as_list",
    "as_object",
    "as_str",
    "opt_str",
    "path",
    "seat_ints",
    "seat_key",
    "seat_list",
    "what",
]


def what(value: object) -> str:
    """A value as an error message shows it: ``null``, or its repr and its Python type."""
    return "null" if value is None else f"{value!r} ({type(value).__name__})"


type Where = str | tuple[Where | str | int, ...]
"""Where a value is: a path (``"reading.pots"``), or a path and the keys and indexes below it, kept
apart (``("reading.pots", 0, "awards")``) and joined only for a message, so reading a value that is
right costs no string."""


def path(where: Where, key: str | None = None) -> str:
    """``where`` as text (``reading.pots[0].awards``), with ``.key`` after it when given."""
    if isinstance(where, str):
        text = where
    else:
        text = path(where[0]) if isinstance(where[0], tuple | str) else str(where[0])
        for part in where[1:]:
            text += (
                f"[{part}]" if isinstance(part, int) else f".{part}" if isinstance(part, str) else path(part)
            )
    return f"{text}.{key}" if key else text


def as_object(
    value: object,
    where: Where,
    keys: Collection[str] | None = None,
    optional: Collection[str] = (),
    key: str | None = None,
) -> Mapping[str, Any]:
    """``value`` as a JSON object; with ``keys``, exactly those keys plus any of ``optional``."""
    if type(value) is not dict:
        raise ShowdownError(f"{path(where, key)} must be an object, got {what(value)}")
    if keys is not None and value.keys() != keys:
        missing = sorted(k for k in keys if k not in value)
        if missing:
            raise ShowdownError(f"{path(where, key)}: missing {', '.join(map(repr, missing))}")
        unknown = sorted(str(k) for k in value if k not in keys and k not in optional)
        if unknown:
            raise ShowdownError(f"{path(where, key)}: unknown {', '.join(map(repr, unknown))}")
    return value


def as_list(value: object, where: Where, key: str | None = None) -> list[Any]:
    if type(value) is not list:
        raise ShowdownError(f"{path(where, key)} must be a list, got {what(value)}")
    return value


def as_int(value: object, where: Where, key: str | None = None) -> int:
    if type(value) is not int:
        raise ShowdownError(f"{path(where, key)} must be an integer, got {what(value)}")
    return value


def as_bool(value: object, where: Where, key: str | None = None) -> bool:
    if type(value) is not bool:
        raise ShowdownError(f"{path(where, key)} must be true or false, got {what(value)}")
    return value


def as_str(value: object, where: Where, key: str | None = None) -> str:
    if type(value) is not str:
        raise ShowdownError(f"{path(where, key)} must be a string, got {what(value)}")
    return value


def opt_str(value: object, where: Where, key: str | None = None) -> str | None:
    """A string or null."""
    return None if value is None else as_str(value, where, key)


_INT_ONLY: Final = frozenset({int})


def seat_list(value: object, where: Where, key: str | None = None) -> tuple[int, ...]:
    """A list of seat numbers."""
    items = as_list(value, where, key)
    if {*map(type, items)} <= _INT_ONLY:  # every item an int (no bool): a set of their types, in C
        return tuple(items)
    return tuple(as_int(s, (path(where, key), i)) for i, s in enumerate(items))


SEAT_BY_KEY: Final[dict[str, int]] = {str(seat): seat for seat in range(100)}
"""The seat numbers a table has (and more), by the key the engine writes for them: looked up, not
parsed (a reading has a key per seat). A key not here is read by :func:`seat_key`'s parsing."""


def seat_key(key: object, where: Where) -> int:
    """A JSON object's seat key: the seat number as the engine writes it (``"3"``, not ``"03"``)."""
    if type(key) is str and (known := SEAT_BY_KEY.get(key)) is not None:
        return known
    seat: int | None = None
    if type(key) is str:
        try:
            seat = int(key)
        except ValueError:
            seat = None
    if seat is None or str(seat) != key:
        raise ShowdownError(f"{path(where)}: {key!r} is not a seat number")
    return seat


def seat_ints(value: object, where: str) -> tuple[tuple[int, int], ...]:
    """A JSON object of seat -> integer (a reading's or postings' ``net``) as ``(seat, integer)``
    pairs, in its order. The seats a table has are looked up by their key (:data:`SEAT_BY_KEY`),
    not parsed; any other key, or a value that is not an integer, goes through :func:`seat_key` and
    :func:`as_int`, which accept it or raise naming it, as they always did."""
    data = as_object(value, where)
    pairs = [(SEAT_BY_KEY.get(key) if type(key) is str else None, cents) for key, cents in data.items()]
    if all(seat is not None and type(cents) is int for seat, cents in pairs):
        return tuple(pairs)  # type: ignore[arg-type]  # no seat is None: checked just above
    return tuple([(seat_key(key, where), as_int(cents, where, key)) for key, cents in data.items()])
