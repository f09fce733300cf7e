"""Hands: the floor's part of a deal, of every status move, of a misdeal and of a settlement.

* the deal: :func:`next_hand_number`, :func:`game_for_hand`, :func:`start_locked` (the buttons
  rotate, the hand and its players are recorded);
* a hand's status: :func:`move_hand`, the one way it changes;
* a misdeal: :func:`check_misdeal_reason` (the code fits the hand's game:
  :func:`tables.games.misdeal_reasons_for`), :func:`void_hand` (the button goes back);
* a settlement: :func:`record_pot_result_locked`, the pot's outright winner and the kill it sets
  (the kill state lives on the table's buttons: :func:`kill_state`, :func:`store_kill_state`).

The money of each (fees, readings, postings) is :mod:`handflow.services`'s, which calls these
under the locks it holds.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping

from django.utils import timezone

from casino.core.db import service
from tables.buttons import KillState, after_pot, deal_order, next_button, sitting_out
from tables.choices import MIN_PLAYERS, HandStatus, KillType, MisdealReason
from tables.errors import (
    ConfigMismatch,
    FloorConflict,
    FloorValidationError,
    HandInProgress,
    NotEnoughPlayers,
)
from tables.games import misdeal_reasons_for
from tables.models import ButtonState, Game, Hand, HandPlayer, Seat, Seating, Table
from tables.selectors import choice_games
from tables.services.common import User, acting_user, check_text
from tables.services.locks import lock_buttons


def kill_state(buttons: ButtonState) -> KillState:
    """The streak and kill stored on ``buttons``, by seat number (as :mod:`tables.buttons` reads them)."""
    return KillState(
        streak_seat=buttons.streak_seat.number if buttons.streak_seat else None,
        streak_wins=buttons.streak_wins,
        kill_seat=buttons.kill_seat.number if buttons.kill_seat else None,
    )


def store_kill_state(
    buttons: ButtonState, state: KillState, table: Table, seats: Mapping[int, Seat] | None = None
) -> None:
    """Save ``state`` into ``buttons``. ``seats`` by number, when the caller has the ones the state
    names (a streak and a kill are always seats dealt into the hand that made them)."""
    wanted = {n for n in (state.streak_seat, state.kill_seat) if n}
    if seats is None or not wanted <= seats.keys():
        seats = {s.number: s for s in Seat.objects.filter(table=table)}
    buttons.streak_seat = seats.get(state.streak_seat) if state.streak_seat else None
    buttons.streak_wins = state.streak_wins
    buttons.kill_seat = seats.get(state.kill_seat) if state.kill_seat else None
    buttons.kill_multiplier_pct = (
        KillType(table.stakes.kill).multiplier_pct if state.kill_seat is not None else 100
    )
    buttons.save()


def game_for_hand(table: Table, game: Game | None) -> Game:
    """The game a hand at ``table`` deals: the table's own; at a choice game, the game the button
    picked (``game``), one of the table's game's choices (:func:`tables.selectors.choice_games`):
    004's Seven Card Stud Choice picks stud, stud hi-lo or razz; its Dealer's Choice any approved
    pot game. Raises FloorValidationError (no game picked at a choice table), ConfigMismatch (a
    game the table doesn't deal, or not among its choices)."""
    if not table.game.is_dealers_choice:
        if game is not None and game.pk != table.game_id:
            raise ConfigMismatch(
                f"Table {table.number} deals {table.game.name}, not {game.name}.", field="game"
            )
        return table.game
    if game is None:
        raise FloorValidationError(
            f"Table {table.number} is {table.game.name.lower()}: give the game the button picked.",
            field="game",
        )
    if game.pk not in {choice.pk for choice in choice_games(table.game)}:
        listed = list(table.game.choice_of.all())
        among = ", ".join(g.name for g in listed) if listed else "an approved pot game"
        raise ConfigMismatch(
            f"{game.name} can't be picked at {table.game.name.lower()}; the button picks {among}.",
            field="game",
        )
    return game


def next_hand_number(table: Table, doing: str) -> int:
    """The next hand's number at ``table`` (locked by the caller), refusing while a hand is in
    progress: one query, since the hand in progress, if any, is the latest hand (a table has at
    most one, ``hand_one_in_progress_per_table``, and no hand starts while it lasts)."""
    latest = Hand.objects.filter(table=table).order_by("-number").only("number", "status").first()
    if latest is None:
        return 1
    if latest.is_in_progress:
        raise HandInProgress(
            f"Can't {doing} table {table.number}: hand {latest.number} is {latest.status}. "
            "Settle or void it first."
        )
    return latest.number + 1


def start_locked(
    *,
    table: Table,
    number: int,
    played: Game,
    seatings: Mapping[int, Seating],
    buttons: ButtonState,
    sit_out: set[int],
    by: User,
    created_at: datetime.datetime | None = None,
    fees: Mapping[int, tuple[int, int]] | None = None,
) -> tuple[Hand, list[HandPlayer]]:
    """The floor's part of a deal: rotate the buttons and record the hand (status ``open``, number
    ``number``) and its players, position 1 = the button, then clockwise.

    Only for :func:`handflow.services.start_hand`, the one way a hand is dealt (it collects the
    fees, then moves the hand to ``dealt`` in the same transaction; RULINGS §6): the caller holds
    the table and ``buttons`` locked, has checked the table is open and the game
    (:func:`game_for_hand`), and passes the table's active ``seatings`` by seat number;
    ``number`` from :func:`next_hand_number`. The button moves to the next eligible seat
    clockwise (:func:`tables.buttons.next_button`); the players dealt in are the button and the
    next ones clockwise, up to the game's hands per round (Chinese poker: 4, the fifth sits out).
    ``created_at``: the hand's start (default now). ``fees``: (fee, chips in play after it) by
    seat number, recorded on each :class:`HandPlayer`. Returns the hand (its table, game, stakes,
    schedule and seats set from the objects given) and its players by position. Raises
    NotEnoughPlayers, FloorConflict ``too_many_players``."""
    eligible = sorted(set(seatings) - sit_out)
    if len(eligible) < MIN_PLAYERS:
        raise NotEnoughPlayers(
            f"Table {table.number} has {len(eligible)} player(s) ready; a hand needs at least {MIN_PLAYERS}."
        )
    previous = buttons.button_seat
    button = next_button(previous.number if previous else None, eligible)
    dealt = deal_order(button, eligible, max_hands=played.max_hands)
    if len(dealt) > played.seat_count:
        raise FloorConflict(
            f"{played.name} is dealt to at most {played.seat_count} players; {len(dealt)} are ready. "
            "Sit players out or pick another game.",
            code="too_many_players",
        )
    out = sitting_out(dealt, eligible)
    kill = kill_state(buttons)
    kill_on = kill.kill_seat is not None and kill.kill_seat in dealt and table.stakes.kill != KillType.NONE
    hand = Hand.objects.create(
        table=table,
        number=number,
        game=played,
        stakes=table.stakes,
        collection_schedule=table.collection_schedule,
        button_seat=seatings[button].seat,
        previous_button_seat=previous,
        kill_seat=seatings[kill.kill_seat].seat if kill_on and kill.kill_seat else None,
        kill_multiplier_pct=table.stakes.kill_multiplier_pct if kill_on else 100,
        created_by=acting_user(by),
        **({} if created_at is None else {"created_at": created_at}),
    )
    players = HandPlayer.objects.bulk_create(
        [
            HandPlayer(
                hand=hand,
                seat=seatings[n].seat,
                player=seatings[n].player,
                position=i,
                fee_cents=None if fees is None else fees[n][0],
                stack_cents=None if fees is None else fees[n][1],
            )
            for i, n in enumerate(dealt, start=1)
        ]
    )
    buttons.button_seat = seatings[button].seat
    buttons.sitting_out_seat = seatings[out[0]].seat if out else None
    buttons.save(update_fields=["button_seat", "sitting_out_seat", "updated_at"])
    return hand, players


def move_hand(hand: Hand, status: str, *, by: User, reason: str = "", save: bool = True) -> list[str]:
    """Move ``hand`` (held locked and fresh by the caller) to ``status``: check the transition
    (:data:`tables.models.HAND_TRANSITIONS`), record when and by whom, set it in memory and save
    only the columns it changes (``save=False``: the caller saves them with its own). Returns
    those columns. ``void`` needs a ``reason`` and puts the button back.

    Private to the services that own each move: ``dealt`` is :func:`handflow.services.start_hand`'s
    alone (after the fees are collected), ``showdown`` and ``settled`` the hand flow's showdown and
    confirmation, ``void`` :func:`void_hand` (through :func:`handflow.services.misdeal`, which
    returns the fees). No public service or endpoint moves a hand to a status it names."""
    hand.check_transition(status)
    now, user = timezone.now(), acting_user(by)
    fields = ["status"]
    if status == HandStatus.VOID:
        reason = (reason or "").strip()
        if not reason:
            raise FloorValidationError("Say why the hand is void (e.g. the misdeal rule).", field="reason")
        hand.voided_at, hand.voided_by, hand.void_reason = now, user, reason
        fields += ["voided_at", "voided_by", "void_reason"]
        # A misdeal is redealt with the same button (Robert's Rules): put the button back.
        buttons = lock_buttons(hand.table)
        buttons.button_seat_id = hand.previous_button_seat_id
        buttons.sitting_out_seat = None
        buttons.save(update_fields=["button_seat", "sitting_out_seat", "updated_at"])
    elif status == HandStatus.DEALT:
        hand.dealt_at, hand.dealt_by = now, user
        fields += ["dealt_at", "dealt_by"]
    elif status == HandStatus.SHOWDOWN:
        hand.showdown_at = now
        fields += ["showdown_at"]
    elif status == HandStatus.SETTLED:
        hand.settled_at, hand.settled_by = now, user
        fields += ["settled_at", "settled_by"]
    hand.status = status
    if save:
        hand.save(update_fields=fields)
    return fields


def check_misdeal_reason(
    reason_code: object, reason: object = "", *, game: Game | None = None
) -> tuple[MisdealReason, str]:
    """The misdeal's code (one of :class:`MisdealReason`) and its words: the dealer's text when
    given (at most 500 characters), else the code's label; ``other`` needs text. With ``game`` (the
    hand's game: at dealer's choice the one picked) the code must be one of that game's misdeals
    (:func:`tables.games.misdeal_reasons_for`: 004's for Chinese poker and lowball, Robert's Rules
    for the pot games, ``other`` everywhere). Raises FloorValidationError naming the field."""
    if not isinstance(reason_code, str) or reason_code not in MisdealReason.values:
        raise FloorValidationError(
            f"Pick the misdeal's reason: one of {', '.join(MisdealReason.values)}.", field="reason_code"
        )
    code = MisdealReason(reason_code)
    if game is not None and code not in (fits := misdeal_reasons_for(game.slug)):
        raise FloorValidationError(
            f"{code.label} is not a misdeal of {game.name}; its misdeals are "
            f"{', '.join(fits)} (docs/misdeals.md).",
            field="reason_code",
        )
    text = reason.strip() if isinstance(reason, str) else ""
    check_text(text, field="reason", what="The reason", longest=500)
    if code == MisdealReason.OTHER and not text:
        raise FloorValidationError("Say what happened: the reason is 'other'.", field="reason")
    return code, text or str(code.label)


@service
def void_hand(*, hand: Hand, reason_code: str, reason: str = "", by: User) -> Hand:
    """The floor's part of a misdeal: the hand is void (with its reason code and words), nothing is
    settled, and the button goes back to where it was before the hand (the redeal has the same
    button).

    The fees are the money flow's: call :func:`handflow.services.misdeal`, which returns them
    (unless the table keeps them) and then calls this. Raises FloorValidationError (no or an
    unknown code, a code that isn't a misdeal of the hand's game, ``other`` without words: the
    whole misdeal, fees included, is rolled back), IllegalTransition (the hand is settled or
    already void).
    """
    # The hand's game: the caller's hand carries it (the hand flow's locked hand does); the game a
    # hand was dealt as never changes, so it needs no lock.
    code, text = check_misdeal_reason(reason_code, reason, game=hand.game)
    hand = Hand.objects.select_for_update().select_related("table").get(pk=hand.pk)
    fields = move_hand(hand, HandStatus.VOID, by=by, reason=text, save=False)
    hand.misdeal_reason = code
    hand.save(update_fields=[*fields, "misdeal_reason"])
    return hand


def record_pot_result_locked(
    *, table: Table, hand: Hand, outright_winner_seat_number: int | None, dealt: Mapping[int, Seat]
) -> tuple[ButtonState, list[str]]:
    """Record who won a settled hand's pot outright (None: split) and update the kill state: at a
    half- or full-kill table the kill is on for the next hand once a player has won two pots in a
    row outright (RULINGS §2). For the confirmation of a settlement
    (:func:`handflow.services.confirm_settlement`), which holds the table and the hand locked;
    ``dealt``: the seats dealt into the hand by number. Sets the hand's result in memory; the
    caller saves the returned columns of the hand."""
    winner = None
    if outright_winner_seat_number is not None:
        winner = dealt.get(outright_winner_seat_number)
        if winner is None:
            raise FloorValidationError(
                f"Seat {outright_winner_seat_number} was not dealt into hand {hand.number}.",
                field="outright_winner_seat_number",
            )
    buttons = lock_buttons(table)
    state = after_pot(
        kill_state(buttons), outright_winner_seat_number, kill_enabled=hand.stakes.kill != KillType.NONE
    )
    store_kill_state(buttons, state, table, seats=dealt)
    hand.outright_winner_seat = winner
    hand.result_recorded_at = timezone.now()
    return buttons, ["outright_winner_seat", "result_recorded_at"]
