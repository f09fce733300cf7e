"""The showdown entry: the dealer's entry checked against the hand (the seats dealt in, the
chips from the ledger), read by the rules engine (:func:`poker.showdown.decide`) and kept as the
hand's reading for confirmation (:func:`submit_showdown`). Nothing is posted here: the settlement
(:func:`handflow.settlement.confirm_settlement`) posts the confirmed reading.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.utils import timezone

from casino.core.db import service
from casino.core.money import format_cents
from handflow import locks
from handflow.deal import hand_kill_blind
from handflow.keys import canonical, digest_of
from handflow.sweeps import record_declarations
from ledger import selectors as ledger_selectors
from poker.errors import ShowdownError
from poker.games import GAME_RULES, GameRules
from poker.postings import settlement_postings
from poker.reading import Reading
from poker.showdown import decide
from poker.showdown_input import ShowdownInput
from tables import services as floor
from tables.choices import HandStatus
from tables.errors import HandAlreadySettled, HandVoided, IllegalTransition, InvalidShowdown
from tables.models import Hand, HandPlayer, HandResult, ReadingStatus, Table
from tables.services import User

#: The keys a pot game's player object may give, in the order the engine input lists them: every
#: pot game's (the engine refuses lowball's sevens-rule keys in the other games, with its message).
POT_PLAYER_FIELDS: Final = tuple(
    dict.fromkeys(f for rules in GAME_RULES.values() if rules.is_pot_game for f in rules.player_fields)
)


@dataclass(frozen=True, slots=True)
class Proposed:
    """A showdown read and kept for confirmation: the hand's reading (its hand the locked one, with
    its table, game, stakes and schedule), the players dealt in by position (seat and player
    loaded) and each one's chips at the table by player id (a showdown moves none): what the
    dealer's response shows, without reading them again."""

    reading: HandResult
    players: tuple[HandPlayer, ...]
    chips_after: dict[int, int]

    @property
    def hand(self) -> Hand:
        return self.reading.hand


def game_rules(hand: Hand) -> GameRules:
    """The engine's rules of the hand's game. Raises InvalidShowdown for a game the engine doesn't
    decide (unknown to it, or dealer's choice itself)."""
    rules = GAME_RULES.get(hand.game.slug)
    if rules is None or not rules.has_showdown:
        raise InvalidShowdown(f"{hand.game.name} has no showdown in the rules engine.")
    return rules


def _seat_entries(
    submitted: Mapping[str, Any], allowed: frozenset[str], dealt: Sequence[int]
) -> dict[int, dict[str, Any]]:
    """The dealer's player objects by seat: every seat dealt in exactly once, no other seat, no
    unknown key (stacks and chips come from the ledger, never from the terminal)."""
    raw = submitted.get("players")
    if not isinstance(raw, list) or not raw:
        raise InvalidShowdown("players must be a non-empty list of player objects.", field="players")
    entries: dict[int, dict[str, Any]] = {}
    for i, item in enumerate(raw):
        if not isinstance(item, Mapping):
            raise InvalidShowdown(f"players[{i}] must be an object.", field="players")
        seat = item.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise InvalidShowdown(f"players[{i}]: seat must be a seat number, got {seat!r}.", field="players")
        unknown = sorted(set(item) - allowed)
        if unknown:
            raise InvalidShowdown(
                f"seat {seat}: unknown field(s) {', '.join(unknown)}; "
                f"a player gives {', '.join(sorted(allowed))}.",
                field="players",
            )
        if seat in entries:
            raise InvalidShowdown(f"seat {seat} is entered twice.", field="players")
        if seat not in dealt:
            raise InvalidShowdown(
                f"seat {seat} was not dealt into this hand (dealt in: {', '.join(map(str, dealt))}).",
                field="players",
            )
        entries[seat] = dict(item)
    missing = [s for s in dealt if s not in entries]
    if missing:
        raise InvalidShowdown(
            f"seat(s) {', '.join(map(str, missing))} were dealt in: enter each one "
            '(a player who folded: {"seat": n, "folded": true, "put_in": cents}).',
            field="players",
        )
    return entries


def _engine_input(
    *, hand: Hand, table: Table, hand_players: Sequence[HandPlayer], chips: Mapping[int, int], submitted: Any
) -> dict[str, Any]:
    """The SHOWDOWN_JSON input for ``hand`` from the dealer's entry, checked against the hand.

    Seats are the ones dealt in; ``button`` is the hand's; ``chip`` the table's; ``point`` and (for
    Chinese and Taiwanese poker) each player's ``stack`` come from the stakes and the ledger. Pot
    games: every put-in at most the player's chips and in whole chips of the table (or all the
    player's chips), the kill seat's at least the kill blind (or all its chips). Raises
    InvalidShowdown.
    """
    if not isinstance(submitted, Mapping):
        raise InvalidShowdown("The showdown must be a JSON object.")
    dealt = [hp.seat.number for hp in hand_players]
    by_seat = {hp.seat.number: hp for hp in hand_players}
    game = hand.game
    rules = game_rules(hand)
    unknown = sorted(set(submitted) - {"players", *rules.hand_fields})
    if unknown:
        raise InvalidShowdown(f"unknown field(s) {', '.join(unknown)} for {game.name}.")
    if rules.is_pot_game:
        entries = _seat_entries(submitted, frozenset(POT_PLAYER_FIELDS), dealt)
        kill_blind_cents = hand_kill_blind(hand)
        players = []
        for seat in dealt:
            entry = entries[seat]
            stack = chips.get(by_seat[seat].player_id, 0)
            put_in = entry.get("put_in")
            if isinstance(put_in, int) and not isinstance(put_in, bool):
                if put_in > stack:
                    raise InvalidShowdown(
                        f"seat {seat} put in {format_cents(put_in)} but has {format_cents(stack)} in play.",
                        field="players",
                    )
                if put_in % table.chip_unit_cents and put_in != stack:
                    # 004 rule 12: chips below the table's denomination don't play; an odd amount
                    # is a mistyped entry, and would leave stacks no chips can make.
                    raise InvalidShowdown(
                        f"seat {seat} put in {format_cents(put_in)}, not a whole number of the table's "
                        f"{format_cents(table.chip_unit_cents)} chips.",
                        field="players",
                    )
                if (
                    hand.kill_seat_id is not None
                    and hand.kill_seat is not None
                    and seat == hand.kill_seat.number
                    and kill_blind_cents is not None
                    and put_in < min(kill_blind_cents, stack)
                ):
                    raise InvalidShowdown(
                        f"seat {seat} posted the kill blind of {format_cents(kill_blind_cents)}; "
                        f"its put-in can't be less, got {format_cents(put_in)}.",
                        field="players",
                    )
            players.append({k: entry[k] for k in POT_PLAYER_FIELDS if k in entry})
        result: dict[str, Any] = {
            "game": game.slug,
            "chip": table.chip_unit_cents,
            "button": hand.button_seat.number,
            "players": players,
        }
        if rules.has_board:
            result["board"] = submitted.get("board")
        if rules.joker and not hand.joker:
            result["joker"] = False  # 004 lowball rule 1: no joker at dealer's choice
        return result
    entries = _seat_entries(submitted, frozenset(rules.player_fields), dealt)
    with_stacks: list[dict[str, Any]] = [
        entries[seat] | {"stack": chips.get(by_seat[seat].player_id, 0)} for seat in dealt
    ]
    # A data-entry slip the engine would read as something else (Chinese poker: a wrong card count
    # it would foul, RULINGS §3) is refused here, unless the dealer marked the hand fouled on
    # purpose (004 rule 8: the house may foul it; the dealer decides).
    problem = rules.entry_problem({"players": with_stacks})
    if problem is not None:
        raise InvalidShowdown(
            f"{problem}. Correct the entry, or mark the hand fouled if the house fouls it (004 rule 8).",
            field="players",
        )
    result = {"game": game.slug, "point": hand.stakes.point_cents, "button": hand.button_seat.number}
    if rules.rule_set is not None:
        result["rules"] = rules.rule_set
    if rules.chip_in_input:
        result["chip"] = table.chip_unit_cents
    for key in rules.hand_fields:
        if key in submitted:
            result[key] = submitted[key]
    result["players"] = with_stacks
    return result


@service
def submit_showdown(*, hand: Hand, submitted: Mapping[str, Any], by: User) -> Proposed:
    """Read the showdown the dealer entered and keep it for confirmation; nothing is posted.

    The entry (pot games: ``board`` and each seat's ``cards``, ``put_in``, ``folded``; Chinese
    poker: each seat's set hand or declaration; Taiwanese poker: ``boards`` and each seat's set
    hand) is checked against the hand and sent to :func:`poker.showdown.decide`. The
    reading (engine input, engine result, the ledger lines of the settlement) is stored as the
    hand's :class:`HandResult` and the hand moves to ``showdown``. Submitting again before
    confirmation replaces the reading (``revision`` + 1); the same entry again changes nothing.
    Chinese poker: a declared clean sweep is recorded on the seat with the time it was first
    entered (unless :func:`~handflow.sweeps.declare_sweep` recorded it earlier); an entry that
    drops a declaration on record is refused. Taiwanese poker: the entry brings the boards agreed
    before the deal. Returns the reading with the players dealt in and their chips (:class:`Proposed`).
    Raises NotYourTable, InvalidShowdown (400: the engine's message, or a seat or amount that
    doesn't fit), HandAlreadySettled, HandVoided, IllegalTransition (not dealt yet).
    """
    table, hand = locks.lock_hand(hand)
    floor.check_runs_hands(table, by)
    if hand.status == HandStatus.SETTLED:
        raise HandAlreadySettled(f"Hand {hand.number} at table {table.number} is already settled.")
    if hand.status == HandStatus.VOID:
        raise HandVoided(f"Hand {hand.number} at table {table.number} is void (misdeal).")
    if hand.status not in (HandStatus.DEALT, HandStatus.SHOWDOWN):
        raise IllegalTransition(f"Hand {hand.number} is {hand.status}; deal it before the showdown.")
    hand_players = locks.hand_players(hand)
    chips = ledger_selectors.table_chips(table=table)
    engine_input = _engine_input(
        hand=hand, table=table, hand_players=hand_players, chips=chips, submitted=submitted
    )
    _check_boards(hand, game_rules(hand), engine_input)
    digest = digest_of(engine_input)
    existing = (
        HandResult.objects.select_for_update(of=("self",))
        .select_related("submitted_by")
        .filter(hand=hand)
        .order_by()
        .first()
    )
    if existing is not None:
        existing.hand = hand  # the locked, fresh one: what the caller shows
    players = tuple(hand_players)
    if existing is not None and existing.digest == digest:
        return Proposed(existing, players, chips)  # a showdown moves no chips
    try:
        typed = ShowdownInput.from_json(engine_input)
    except ShowdownError as exc:
        raise InvalidShowdown(str(exc)) from None
    record_declarations(hand, hand_players, typed)
    try:
        reading = decide(engine_input)
    except ShowdownError as exc:
        raise InvalidShowdown(str(exc)) from None
    postings = settlement_postings(
        Reading.from_json(reading),
        engine_input=engine_input,
        player_of={hp.seat.number: hp.player_id for hp in hand_players},
    ).to_json()
    now, user = timezone.now(), floor.acting_user(by)
    values = {
        "status": ReadingStatus.PROPOSED,
        "digest": digest,
        "submitted": json.loads(canonical(submitted)),
        "engine_input": engine_input,
        "engine_result": reading,
        "postings": postings,
        "submitted_at": now,
        "submitted_by": user,
    }
    if existing is None:
        result = HandResult.objects.create(hand=hand, revision=1, **values)
    else:
        for name, value in values.items():
            setattr(existing, name, value)
        existing.revision += 1
        existing.save()
        result = existing
    if hand.status == HandStatus.DEALT:
        floor.move_hand(hand, HandStatus.SHOWDOWN, by=by)
    return Proposed(result, players, chips)


def _check_boards(hand: Hand, rules: GameRules, engine_input: Mapping[str, Any]) -> None:
    """Boards agreed before the deal (Taiwanese poker): the entry brings as many."""
    if hand.boards is None or not rules.agrees_boards:
        return
    boards = engine_input.get("boards")
    given = len(boards) if isinstance(boards, list) else (1 if "board" in engine_input else 0)
    if given != hand.boards:
        raise InvalidShowdown(
            f"{hand.boards} board(s) were agreed before the deal; the entry has {given}.", field="boards"
        )
