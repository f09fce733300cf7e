"""The showdown's input typed (``docs/showdown-json.md``): :class:`ShowdownInput` and its seats
(:class:`SeatIn`), read from the JSON object :func:`poker.showdown.decide` takes
(:meth:`ShowdownInput.from_json`) and written back as the same object (:meth:`ShowdownInput.to_json`).

Beside the typed reading (:mod:`poker.reading`): those who keep an engine input (the hand flow
stores the one it read) read its seats, put-ins, stacks and declarations here instead of taking
the object apart. The types are the JSON's, by shape: a value of the wrong JSON type raises
:class:`ShowdownError` naming it; what the values mean (a card, a seat dealt twice, a put-in above
the stack) is the engine's to check when it reads the hand. A key given as ``null`` is read as
absent, as the engine reads it; keys the engine doesn't read are not kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from ._json import Where, as_bool, as_int, as_list, as_object, as_str, path

__all__ = ["SET_ROW_KEYS", "SeatIn", "ShowdownInput"]

#: The hands a player sets, by their keys in a player object: Chinese poker's front, middle and
#: back, Taiwanese poker's top, middle and bottom (in that order in a player's ``rows``).
SET_ROW_KEYS: Final = ("front", "middle", "back", "top", "bottom")

type Json = bool | int | float | str | list[Json] | dict[str, Json] | None


def _cards(value: object, where: Where, key: str | None = None) -> tuple[str, ...]:
    items = as_list(value, where, key)
    return tuple(as_str(c, (path(where, key), i)) for i, c in enumerate(items))


def _boards(value: object) -> tuple[tuple[str, ...], ...] | None:
    if value is None:
        return None
    return tuple(_cards(b, ("input.boards", i)) for i, b in enumerate(as_list(value, "input", "boards")))


def _opt_int(data: Mapping[str, Any], where: Where, key: str) -> int | None:
    value = data.get(key)
    return None if value is None else as_int(value, where, key)


def _opt_bool(data: Mapping[str, Any], where: Where, key: str) -> bool | None:
    value = data.get(key)
    return None if value is None else as_bool(value, where, key)


@dataclass(frozen=True, slots=True)
class SeatIn:
    """One player object of the input. None: the key isn't given.

    Attributes:
        seat: the seat number.
        cards: pot games: the cards shown; Chinese poker: the 13 cards of a declared or
            surrendered hand.
        put_in: pot games: the chips put in (cents).
        folded: pot games: the player folded.
        put_in_after_draw: lowball's sevens rule: the part of ``put_in`` bet after the draw.
        checked_seven: lowball's sevens rule: the player checked a seven or better.
        rows: Chinese and Taiwanese poker: the hands set, by row key (:data:`SET_ROW_KEYS`), in
            the order given.
        declare: Chinese poker: the clean sweep declared (its name), or ``True`` (any), or
            ``False`` (none, as given).
        surrender: Chinese poker: the player surrenders.
        fouled: Chinese poker: the house fouls the hand (004 rule 8).
        stack: the player's chips at the start of the hand (games played for points).
    """

    seat: int
    cards: tuple[str, ...] | None = None
    put_in: int | None = None
    folded: bool | None = None
    put_in_after_draw: int | None = None
    checked_seven: bool | None = None
    rows: tuple[tuple[str, tuple[str, ...]], ...] = ()
    declare: str | bool | None = None
    surrender: bool | None = None
    fouled: bool | None = None
    stack: int | None = None

    @property
    def is_folded(self) -> bool:
        return self.folded is True

    @property
    def put_in_cents(self) -> int:
        """The chips put in (0 when not given)."""
        return self.put_in or 0

    @property
    def declared(self) -> str:
        """The clean sweep named by ``declare``, as given (blank: none named, or ``true``)."""
        return self.declare if isinstance(self.declare, str) else ""

    @staticmethod
    def from_json(value: object, where: Where = "players[0]") -> SeatIn:
        data = as_object(value, where)
        declare = data.get("declare")
        if declare is not None and type(declare) is not bool:
            declare = as_str(declare, where, "declare")
        cards = data.get("cards")
        return SeatIn(
            seat=as_int(data.get("seat"), where, "seat"),
            cards=None if cards is None else _cards(cards, where, "cards"),
            put_in=_opt_int(data, where, "put_in"),
            folded=_opt_bool(data, where, "folded"),
            put_in_after_draw=_opt_int(data, where, "put_in_after_draw"),
            checked_seven=_opt_bool(data, where, "checked_seven"),
            rows=tuple(
                (key, _cards(data[key], where, key))
                for key in data
                if key in SET_ROW_KEYS and data[key] is not None
            ),
            declare=declare,
            surrender=_opt_bool(data, where, "surrender"),
            fouled=_opt_bool(data, where, "fouled"),
            stack=_opt_int(data, where, "stack"),
        )

    def to_json(self) -> dict[str, Json]:
        """The player object, with the keys given (the seat first, as the floor writes it)."""
        out: dict[str, Json] = {"seat": self.seat}
        for key, row in self.rows:
            out[key] = list(row)
        if self.cards is not None:
            out["cards"] = list(self.cards)
        for key in ("put_in", "folded", "put_in_after_draw", "checked_seven", "declare", "surrender"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.fouled is not None:
            out["fouled"] = self.fouled
        if self.stack is not None:
            out["stack"] = self.stack
        return out


@dataclass(frozen=True, slots=True)
class ShowdownInput:
    """The JSON object :func:`poker.showdown.decide` reads. None: the key isn't given.

    Attributes:
        game: the game's name (``holdem``, ``chinese-poker``, ...).
        players: the player objects, in the order given.
        button: the button's seat.
        chip: the table's smallest chip (cents).
        point: what a point is worth (cents; games played for points).
        rules: Chinese poker's rule set: its name, or an object (``{"base": ..., options}``),
            kept as given.
        board: hold'em and Omaha: the board.
        boards: Taiwanese poker: the boards.
        joker: lowball: ``false`` when dealt without the joker.
    """

    game: str
    players: tuple[SeatIn, ...]
    button: int | None = None
    chip: int | None = None
    point: int | None = None
    rules: str | Mapping[str, Json] | None = None
    board: tuple[str, ...] | None = None
    boards: tuple[tuple[str, ...], ...] | None = None
    joker: bool | None = None

    def seat(self, number: int) -> SeatIn | None:
        """The player object of seat ``number`` (None: not in the input)."""
        return next((p for p in self.players if p.seat == number), None)

    @staticmethod
    def from_json(value: object) -> ShowdownInput:
        """The input typed. Raises ShowdownError naming a value of the wrong JSON type."""
        data = as_object(value, "input")
        rules = data.get("rules")
        if rules is not None and type(rules) is not str:
            rules = dict(as_object(rules, "input", key="rules"))
        board = data.get("board")
        return ShowdownInput(
            game=as_str(data.get("game"), "input", "game"),
            players=tuple(
                SeatIn.from_json(p, ("players", i))
                for i, p in enumerate(as_list(data.get("players"), "input", "players"))
            ),
            button=_opt_int(data, "input", "button"),
            chip=_opt_int(data, "input", "chip"),
            point=_opt_int(data, "input", "point"),
            rules=rules,
            board=None if board is None else _cards(board, "input", "board"),
            boards=_boards(data.get("boards")),
            joker=_opt_bool(data, "input", "joker"),
        )

    def to_json(self) -> dict[str, Json]:
        """The JSON object again, with the keys given."""
        out: dict[str, Json] = {"game": self.game}
        if self.rules is not None:
            out["rules"] = self.rules if isinstance(self.rules, str) else dict(self.rules)
        for key in ("point", "chip", "button", "joker"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.board is not None:
            out["board"] = list(self.board)
        if self.boards is not None:
            out["boards"] = [list(b) for b in self.boards]
        out["players"] = [p.to_json() for p in self.players]
        return out
