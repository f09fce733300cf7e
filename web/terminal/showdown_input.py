"""The showdown as the terminal's form fields post it, and back: the showdown object of
``docs/hand-flow.md`` read from the fields (each field's cards split as the engine splits them:
:func:`poker.cards.card_texts`; amounts by the one money parser), and the fields of a reading on
record, to correct and read again; the clean sweeps a dealer may declare.

Input only: every rule is checked by the services and the rules engine, which refuse bad input
with a message the page shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from casino.core.money import AmountError, amount_text, parse_dollars
from poker.cards import card_texts
from poker.errors import ShowdownError
from poker.games import GAME_RULES, MAX_BOARDS, GameRules
from poker.showdown_input import SeatIn
from poker.sweeps import SweepKind
from web.common.pages import PageInputError

#: How the terminal names a clean sweep (the engine's names are the values posted).
_SWEEP_LABELS: Final = {
    SweepKind.DRAGON: "Dragon (A to K)",
    SweepKind.SIX_PAIRS: "Six pairs",
    SweepKind.THREE_STRAIGHTS: "Three straights",
    SweepKind.THREE_FLUSHES: "Three flushes",
}


def _sweep_choices(kinds: Iterable[SweepKind]) -> list[tuple[str, str]]:
    return [("", "no declaration")] + [
        (str(kind), _SWEEP_LABELS.get(kind) or str(kind).replace("-", " ").capitalize()) for kind in kinds
    ]


def sweep_choices(rules: GameRules) -> list[tuple[str, str]]:
    """The clean sweeps a dealer may declare in the game of ``rules`` (:attr:`GameRules.sweeps
    <poker.games.GameRules.sweeps>`: the engine verifies each from the 13 cards), after "no
    declaration"."""
    return _sweep_choices(rules.sweeps)


#: The clean sweeps a dealer may declare in any game that has them (Chinese poker, RULINGS 3 and
#: the named sets), after "no declaration".
SWEEP_CHOICES: Final = _sweep_choices(
    dict.fromkeys(kind for rules in GAME_RULES.values() for kind in rules.sweeps)
)


def _amount(text: str, what: str, field: str) -> int:
    """Dollars typed in a seat's field, in cents; a PageInputError with the parser's message and
    the field when they are no amount."""
    try:
        return parse_dollars(text, what=what, field=field)
    except AmountError as exc:
        raise PageInputError(str(exc), field=exc.field) from exc


#: The board fields of boards agreed before the deal (Taiwanese poker), first to the last the
#: engine allows (:data:`poker.games.MAX_BOARDS`); a game with one board has the first.
BOARD_FIELDS: Final = ("board", *(f"board_{i}" for i in range(2, MAX_BOARDS + 1)))


def showdown_from_post(
    *,
    rules: GameRules,
    seats: Sequence[int],
    data: Mapping[str, Any],
    boards: int | None = None,
) -> dict[str, Any]:
    """The showdown object for ``submit_showdown`` from the terminal's form fields, for the game of
    ``rules`` (what it enters: :class:`poker.games.GameRules`).

    Pot games: ``cards_<seat>``, ``put_in_<seat>`` (dollars), ``folded_<seat>``, and ``board``;
    lowball also ``after_draw_<seat>`` (dollars put in after the draw) and ``checked_seven_<seat>``
    (004 lowball rule 2), sent only when a seat is marked.
    Chinese poker: ``front_<seat>``, ``middle_<seat>``, ``back_<seat>``, or ``declare_<seat>``
    (a sweep, with all 13 cards in ``cards_<seat>``) or ``surrender_<seat>``; ``fouled_<seat>``:
    the house fouls the hand (004 rule 8), with whatever cards were entered.
    Taiwanese poker: ``top_<seat>``, ``middle_<seat>``, ``bottom_<seat>``, and the boards
    ``board``, ``board_2``, ``board_3`` (:data:`BOARD_FIELDS`): with ``boards`` (the number agreed
    before the deal) exactly that many are sent (an empty one as empty, for the engine to refuse
    with its message); without it, ``board`` and any later board given.
    Raises PageInputError for an amount that isn't one.
    """

    def text(name: str) -> str:
        return str(data.get(name, "") or "")

    players: list[dict[str, Any]] = []
    if rules.is_pot_game:
        for seat in seats:
            entry: dict[str, Any] = {
                "seat": seat,
                "put_in": _amount(text(f"put_in_{seat}") or "0", f"seat {seat}: put in", f"put_in_{seat}"),
            }
            cards = card_texts(text(f"cards_{seat}"))
            if text(f"folded_{seat}"):
                entry["folded"] = True
            if cards or not entry.get("folded"):
                entry["cards"] = cards
            players.append(entry)
        if rules.sevens and any(text(f"checked_seven_{seat}") for seat in seats):
            for entry in players:
                seat = entry["seat"]
                after = text(f"after_draw_{seat}")
                if after or not entry.get("folded"):
                    where = f"seat {seat}: after the draw"
                    entry["put_in_after_draw"] = _amount(after or "0", where, f"after_draw_{seat}")
                if text(f"checked_seven_{seat}"):
                    entry["checked_seven"] = True
        result: dict[str, Any] = {"players": players}
        if rules.has_board:
            result["board"] = card_texts(text("board"))
        return result
    # The games whose players set hands (Chinese and Taiwanese poker): each seat's rows, or what
    # the game lets a seat do instead (house foul, surrender, a clean sweep declared).
    for seat in seats:
        declare = text(f"declare_{seat}")
        if rules.house_foul and text(f"fouled_{seat}"):
            fouled: dict[str, Any] = {"seat": seat, "fouled": True}
            for row in rules.rows:
                if cards := card_texts(text(f"{row.name}_{seat}")):
                    fouled[row.name] = cards
            players.append(fouled)
        elif rules.surrender and text(f"surrender_{seat}"):
            players.append({"seat": seat, "surrender": True, "cards": _whole_hand(text, seat, rules)})
        elif rules.declares_sweeps and declare:
            players.append({"seat": seat, "declare": declare, "cards": _whole_hand(text, seat, rules)})
        else:
            players.append(
                {"seat": seat} | {row.name: card_texts(text(f"{row.name}_{seat}")) for row in rules.rows}
            )
    if not rules.agrees_boards:
        return {"players": players}
    given = [card_texts(text(name)) for name in BOARD_FIELDS]
    count = boards if boards is not None else max(i + 1 for i, cards in enumerate(given) if cards or i == 0)
    if count > 1:  # more boards: every hand plays each (000)
        return {"boards": given[:count], "players": players}
    return {"board": given[0], "players": players}


def _whole_hand(text: Any, seat: int, rules: GameRules) -> list[str]:
    """A declared or surrendered hand's cards: ``cards_<seat>``, else the rows together."""
    cards = card_texts(text(f"cards_{seat}"))
    if cards:
        return cards
    return [c for row in rules.rows for c in card_texts(text(f"{row.name}_{seat}"))]


def entry_from_submitted(*, rules: GameRules, submitted: Mapping[str, Any]) -> dict[str, str]:
    """The terminal's form fields for a showdown object as :func:`showdown_from_post` made it (a
    reading on record) in the game of ``rules``: the entry as the dealer left it, to correct and
    read again. Amounts are dollars as typed (``12`` or ``12.50``), cards space-separated."""

    def cards(value: Any) -> str:
        return " ".join(str(c) for c in value) if isinstance(value, list) else ""

    fields: dict[str, str] = {}
    boards = submitted.get("boards")
    if isinstance(boards, list):
        for name, board in zip(BOARD_FIELDS, boards, strict=False):
            fields[name] = cards(board)
    elif "board" in submitted:
        fields["board"] = cards(submitted.get("board"))
    for raw in submitted.get("players") or []:
        try:
            player = SeatIn.from_json(raw)
        except ShowdownError:
            continue  # not a seat the form can draw
        seat = player.seat
        if rules.is_pot_game:
            fields[f"cards_{seat}"] = " ".join(player.cards or ())
            if player.put_in is not None:
                fields[f"put_in_{seat}"] = amount_text(player.put_in)
            if player.put_in_after_draw is not None:
                fields[f"after_draw_{seat}"] = amount_text(player.put_in_after_draw)
            if player.folded:
                fields[f"folded_{seat}"] = "on"
            if player.checked_seven:
                fields[f"checked_seven_{seat}"] = "on"
            continue
        rows = dict(player.rows)
        for row in rules.rows:
            if row.name in rows:
                fields[f"{row.name}_{seat}"] = " ".join(rows[row.name])
        if player.cards is not None:
            fields[f"cards_{seat}"] = " ".join(player.cards)
        if isinstance(player.declare, str):
            fields[f"declare_{seat}"] = player.declare
        if player.surrender:
            fields[f"surrender_{seat}"] = "on"
        if player.fouled:
            fields[f"fouled_{seat}"] = "on"
    return fields
