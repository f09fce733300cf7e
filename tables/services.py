"""Floor services: every change to tables, seats, players, hands and configuration.

Conventions (HackSoft style):

* keyword-only arguments; ``by`` is the user acting (None for the system, e.g. a loader);
* each function runs in one ``transaction.atomic()`` and takes row locks (``select_for_update``
  on the table, or the hand) before it reads the state it decides on, so two concurrent calls
  serialise instead of racing; database constraints are the backstop;
* failures raise a :mod:`tables.errors` exception and change nothing;
* configuration changes (games, stakes, tables, schedules) append a
  :class:`tables.models.ConfigChange` in the same transaction.

Views, forms, serializers and the admin only translate input and output and call these.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as AuthUser
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone

from casino.core.db import service
from tables import rotation
from tables.errors import (
    ConfigMismatch,
    FloorConflict,
    FloorValidationError,
    HandInProgress,
    InUse,
    InvalidSchedule,
    InvalidStakes,
    NotADealer,
    NotEnoughPlayers,
    NotSeated,
    NotYourTable,
    PlayerAlreadySeated,
    PlayerInHand,
    SeatNotFound,
    SeatTaken,
    TableAlreadyInState,
    TableClosed,
    TooManyRates,
)
from tables.history import record_change, schedule_snapshot, snapshot, version_snapshot
from tables.models import (
    MIN_PLAYERS,
    ButtonState,
    CollectionRate,
    CollectionSchedule,
    CollectionScheduleVersion,
    ConfigAction,
    DealerShift,
    Game,
    GameKind,
    Hand,
    HandPlayer,
    HandStatus,
    KillType,
    MisdealReason,
    Player,
    Seat,
    Seating,
    Stakes,
    Table,
    TableStatus,
)
from tables.selectors import applicable_rates
from tables.validators import (
    rate_problems,
    rate_row_key,
    rates_fee_warnings,
    rates_overlap_problems,
    schedule_tables_problems,
    stakes_problems,
    table_problems,
)

# Who does something: a signed-in user (auth.User, the model the ``*_by`` columns point to), an
# anonymous caller, or None (the system).
User = AuthUser | AnonymousUser | None


def acting_user(by: User) -> AuthUser | None:
    """The user to store in a ``*_by`` column (None for the system or an anonymous caller)."""
    return by if by is not None and by.is_authenticated else None


def _require_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise FloorValidationError(
            "Give a reason for this change; it is kept in the history.", field="reason"
        )
    return reason


def lock_table(table: Table | int) -> Table:
    pk = table.pk if isinstance(table, Table) else table
    return (
        # of=("self",): only the table's row. A bare select_for_update() would also lock the joined
        # game, stakes and schedule rows, which every table of that game shares: every hand flow in
        # the room would queue on them (benchmarks/README.md, "Hand API").
        Table.objects.select_for_update(of=("self",))
        .select_related("game", "stakes", "collection_schedule")
        .get(pk=pk)
    )


def lock_buttons(table: Table) -> ButtonState:
    # The seats come with the row (the rotation reads their numbers); only the row is locked.
    buttons, _ = (
        ButtonState.objects.select_for_update(of=("self",))
        .select_related("button_seat", "streak_seat", "kill_seat")
        .get_or_create(table=table)
    )
    return buttons


def _hand_in_progress(table: Table) -> Hand | None:
    return Hand.objects.filter(table=table, status__in=HandStatus.in_progress()).first()


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


def _refuse_if_hand_in_progress(table: Table, doing: str) -> None:
    hand = _hand_in_progress(table)
    if hand is not None:
        raise HandInProgress(
            f"Can't {doing} table {table.number}: hand {hand.number} is {hand.status}. "
            "Settle or void it first."
        )


# --- Players ------------------------------------------------------------------------------------


def _clean_member_number(member_number: str | None) -> str | None:
    number = (member_number or "").strip() or None
    if number is not None:
        _check_text(number, field="member_number", what="A member number", longest=20)
    return number


def _player_name(name: str | None) -> str:
    """The player's name as stored: stripped, 1 to 100 printable characters (the column's size;
    a control character such as NUL is a typing or a tampering accident, and PostgreSQL refuses
    NUL outright)."""
    name = (name or "").strip()
    if not name:
        raise FloorValidationError("A player needs a name.", field="name")
    _check_text(name, field="name", what="A player's name", longest=100)
    return name


def _check_text(text: str, *, field: str, what: str, longest: int) -> None:
    if len(text) > longest:
        raise FloorValidationError(f"{what} is at most {longest} characters.", field=field)
    if not text.isprintable():
        raise FloorValidationError(f"{what} may not contain control characters.", field=field)


def _check_member_number_free(member_number: str | None, *, exclude: int | None = None) -> None:
    if member_number is None:
        return
    players = Player.objects.filter(member_number=member_number)
    clash = (players.exclude(pk=exclude) if exclude is not None else players).first()
    if clash is not None:
        raise FloorConflict(
            f"Member number {member_number} belongs to {clash.name}.",
            code="duplicate_member_number",
            field="member_number",
        )


@service
def create_player(*, name: str, member_number: str | None = None, by: User = None) -> Player:
    """A new player. ``member_number`` is optional and must be unique when given. Raises
    FloorValidationError (an empty name, too long, a control character), FloorConflict (the
    member number is taken)."""
    name = _player_name(name)
    member_number = _clean_member_number(member_number)
    _check_member_number_free(member_number)
    try:
        with transaction.atomic():
            return Player.objects.create(name=name, member_number=member_number)
    except IntegrityError:  # a concurrent create took the number between check and insert
        _check_member_number_free(member_number)
        raise


@service
def update_player(
    *, player: Player, by: User = None, name: str | None = None, member_number: str | None = "__unchanged__"
) -> Player:
    """Rename a player and/or change the member number (None or "" clears it)."""
    player = Player.objects.select_for_update().get(pk=player.pk)
    if name is not None:
        player.name = _player_name(name)
    if member_number != "__unchanged__":
        cleaned = _clean_member_number(member_number)
        _check_member_number_free(cleaned, exclude=player.pk)
        player.member_number = cleaned
    player.save()
    return player


@service
def delete_player(*, player: Player, by: User = None) -> None:
    """Delete a player who never sat at a table; anyone with history is kept."""
    if Seating.objects.filter(player=player).exists() or HandPlayer.objects.filter(player=player).exists():
        raise InUse(f"{player} has seatings or hands on record and can't be deleted.")
    player.delete()


# --- Stakes ------------------------------------------------------------------------------------------


STAKES_FIELDS = (
    "structure",
    "small_bet_cents",
    "big_bet_cents",
    "alt_small_bet_cents",
    "alt_big_bet_cents",
    "buy_in_min_cents",
    "buy_in_max_cents",
    "kill",
    "point_cents",
)


@service
def create_stakes(*, code: str, by: User = None, reason: str = "", **fields: Any) -> Stakes:
    """New stakes (see :class:`tables.models.Stakes` for what each structure needs).

    ``fields`` are the :data:`STAKES_FIELDS`; ``kill`` defaults to none. Raises
    :class:`InvalidStakes` for an inconsistent definition (e.g. a kill at no limit).
    """
    unknown = set(fields) - set(STAKES_FIELDS)
    if unknown:
        raise InvalidStakes(f"Unknown stakes fields: {', '.join(sorted(unknown))}.")
    code = (code or "").strip()
    if not code:
        raise InvalidStakes("Stakes need a code.", field="code")
    if Stakes.objects.filter(code=code).exists():
        raise FloorConflict(f"Stakes {code} already exist.", code="duplicate_code", field="code")
    stakes = Stakes(code=code, **fields)
    problems = stakes_problems(stakes)
    if problems:
        field, message = next(iter(problems.items()))
        raise InvalidStakes(message, field=field, errors=problems)
    stakes.save()
    record_change(instance=stakes, action=ConfigAction.CREATE, by=by, reason=reason, after=snapshot(stakes))
    return stakes


# --- Tables ---------------------------------------------------------------------------------------------


def _check_table_config(
    *, game: Game, stakes: Stakes, seat_count: int, chip_unit_cents: int, schedule: CollectionSchedule
) -> None:
    problems = table_problems(
        game=game, stakes=stakes, seat_count=seat_count, chip_unit_cents=chip_unit_cents, schedule=schedule
    )
    if not problems:
        return
    field, message = next(iter(problems.items()))
    error_class = TooManyRates if field == "collection_schedule" and "at most" in message else ConfigMismatch
    raise error_class(message, field=field, errors=problems)


@service
def create_table(
    *,
    number: int,
    game: Game,
    stakes: Stakes,
    collection_schedule: CollectionSchedule,
    by: User = None,
    seat_count: int | None = None,
    chip_unit_cents: int = 100,
    keep_fees_on_misdeal: bool = False,
    reason: str = "",
) -> Table:
    """A new, closed table with seats 1..``seat_count`` (default: the game's seat count)."""
    seat_count = seat_count if seat_count is not None else game.seat_count
    if Table.objects.filter(number=number).exists():
        raise FloorConflict(f"Table {number} already exists.", code="duplicate_table", field="number")
    if number is None or number < 1:
        raise FloorValidationError("Table numbers start at 1.", field="number")
    _check_table_config(
        game=game,
        stakes=stakes,
        seat_count=seat_count,
        chip_unit_cents=chip_unit_cents,
        schedule=collection_schedule,
    )
    table = Table.objects.create(
        number=number,
        game=game,
        stakes=stakes,
        seat_count=seat_count,
        chip_unit_cents=chip_unit_cents,
        collection_schedule=collection_schedule,
        keep_fees_on_misdeal=keep_fees_on_misdeal,
    )
    Seat.objects.bulk_create(Seat(table=table, number=n) for n in range(1, seat_count + 1))
    ButtonState.objects.create(table=table)
    record_change(instance=table, action=ConfigAction.CREATE, by=by, reason=reason, after=snapshot(table))
    return table


_UNSET: Any = object()


@service
def configure_table(
    *,
    table: Table,
    by: User,
    reason: str,
    game: Game = _UNSET,
    stakes: Stakes = _UNSET,
    collection_schedule: CollectionSchedule = _UNSET,
    seat_count: int = _UNSET,
    chip_unit_cents: int = _UNSET,
    keep_fees_on_misdeal: bool = _UNSET,
) -> Table:
    """Change a table's configuration; only the arguments given change. Needs a reason.

    Refused while a hand is in progress (the hand keeps the stakes it started with anyway).
    The seat count changes only while nobody is seated in the seats that would go away.
    """
    reason = _require_reason(reason)
    table = lock_table(table)
    _refuse_if_hand_in_progress(table, "reconfigure")
    before = snapshot(table)
    new_game = table.game if game is _UNSET else game
    new_stakes = table.stakes if stakes is _UNSET else stakes
    new_schedule = table.collection_schedule if collection_schedule is _UNSET else collection_schedule
    new_seats = table.seat_count if seat_count is _UNSET else seat_count
    new_chip = table.chip_unit_cents if chip_unit_cents is _UNSET else chip_unit_cents
    _check_table_config(
        game=new_game,
        stakes=new_stakes,
        seat_count=new_seats,
        chip_unit_cents=new_chip,
        schedule=new_schedule,
    )
    if new_seats != table.seat_count:
        _resize_seats(table, new_seats)
    table.game, table.stakes, table.collection_schedule = new_game, new_stakes, new_schedule
    table.seat_count, table.chip_unit_cents = new_seats, new_chip
    if keep_fees_on_misdeal is not _UNSET:
        table.keep_fees_on_misdeal = keep_fees_on_misdeal
    table.save()
    after = snapshot(table)
    if after != before:
        record_change(
            instance=table, action=ConfigAction.UPDATE, by=by, reason=reason, before=before, after=after
        )
    return table


def _resize_seats(table: Table, seat_count: int) -> None:
    if seat_count > table.seat_count:
        Seat.objects.bulk_create(
            Seat(table=table, number=n) for n in range(table.seat_count + 1, seat_count + 1)
        )
        return
    going = Seat.objects.filter(table=table, number__gt=seat_count)
    if Seating.objects.active().filter(seat__in=going).exists():
        raise FloorConflict(
            f"Players sit in seats above {seat_count} at table {table.number}; move them first.",
            code="seats_occupied",
            field="seat_count",
        )
    if Seating.objects.filter(seat__in=going).exists() or HandPlayer.objects.filter(seat__in=going).exists():
        raise InUse(
            f"Seats above {seat_count} at table {table.number} have history and can't be removed.",
            field="seat_count",
        )
    ButtonState.objects.filter(table=table).update(button_seat=None, sitting_out_seat=None)
    going.delete()


@service
def open_table(*, table: Table, by: User, reason: str = "") -> Table:
    """Open a closed table. Its configuration is checked again (schedules may have changed)."""
    table = lock_table(table)
    if table.status == TableStatus.OPEN:
        raise TableAlreadyInState(f"Table {table.number} is already open.")
    _check_table_config(
        game=table.game,
        stakes=table.stakes,
        seat_count=table.seat_count,
        chip_unit_cents=table.chip_unit_cents,
        schedule=table.collection_schedule,
    )
    before = snapshot(table)
    table.status = TableStatus.OPEN
    table.opened_at = timezone.now()
    table.closed_at = None
    table.save(update_fields=["status", "opened_at", "closed_at"])
    record_change(
        instance=table, action=ConfigAction.OPEN, by=by, reason=reason, before=before, after=snapshot(table)
    )
    return table


@service
def close_table(*, table: Table, by: User, reason: str = "") -> Table:
    """Close an open table: refused while a hand is in progress, and while anyone is seated.

    Players seated at a closing table are cashed out (:func:`handflow.services.cash_out`) or moved
    to another table with their chips (:func:`handflow.services.move_player`) first: closing the
    table around them would end their seatings and leave their chips on a closed table, to be
    found and cashed out one by one. Refused with FloorConflict ``players_seated`` naming them
    (seat and name), changing nothing. The buttons and kill reset: the next opening starts a new
    game. Raises TableAlreadyInState, HandInProgress, FloorConflict ``players_seated``.
    """
    table = lock_table(table)
    if table.status == TableStatus.CLOSED:
        raise TableAlreadyInState(f"Table {table.number} is already closed.")
    _refuse_if_hand_in_progress(table, "close")
    seated = list(
        Seating.objects.active().filter(table=table).select_related("seat", "player").order_by("seat__number")
    )
    if seated:
        names = ", ".join(f"seat {s.seat.number} {s.player.name}" for s in seated)
        raise FloorConflict(
            f"Table {table.number} still has {len(seated)} player(s) seated ({names}); cash them out or "
            "move them to another table before closing it.",
            code="players_seated",
        )
    before = snapshot(table)
    ButtonState.objects.update_or_create(
        table=table,
        defaults={
            "button_seat": None,
            "sitting_out_seat": None,
            "streak_seat": None,
            "streak_wins": 0,
            "kill_seat": None,
            "kill_multiplier_pct": 100,
        },
    )
    table.status = TableStatus.CLOSED
    table.closed_at = timezone.now()
    table.save(update_fields=["status", "closed_at"])
    record_change(
        instance=table, action=ConfigAction.CLOSE, by=by, reason=reason, before=before, after=snapshot(table)
    )
    return table


# --- Seating ------------------------------------------------------------------------------------------------


def _seat(table: Table, seat_number: int) -> Seat:
    try:
        return Seat.objects.get(table=table, number=seat_number)
    except Seat.DoesNotExist:
        raise SeatNotFound(
            f"Table {table.number} has seats 1 to {table.seat_count}; there is no seat {seat_number}.",
            field="seat_number",
        ) from None


def _player_in_hand(table: Table, player: Player) -> bool:
    return HandPlayer.objects.filter(
        hand__table=table, hand__status__in=HandStatus.in_progress(), player=player
    ).exists()


def _occupy(
    *, table: Table, seat: Seat, player: Player, by: User, at: datetime.datetime | None = None
) -> Seating:
    """Create the seating after the checks; the table row is locked by the caller."""
    if not table.is_open:
        raise TableClosed(f"Table {table.number} is closed; open it before seating players.")
    current = Seating.objects.active().filter(seat=seat).select_related("player").first()
    if current is not None:
        raise SeatTaken(
            f"Seat {seat.number} at table {table.number} is taken by {current.player}.", field="seat_number"
        )
    elsewhere = Seating.objects.active().filter(table=table, player=player).select_related("seat").first()
    if elsewhere is not None:
        raise PlayerAlreadySeated(
            f"{player} already sits in seat {elsewhere.seat.number} at table {table.number}.", field="player"
        )
    try:
        with transaction.atomic():
            return Seating.objects.create(
                table=table,
                seat=seat,
                player=player,
                seated_at=at or timezone.now(),
                seated_by=acting_user(by),
            )
    except IntegrityError:
        # Only reachable if a writer got past the table lock (it shouldn't); report it the same way.
        raise SeatTaken(
            f"Seat {seat.number} at table {table.number} was just taken.", field="seat_number"
        ) from None


@service
def seat_player(*, table: Table, seat_number: int, player: Player, by: User) -> Seating:
    """Seat ``player`` in seat ``seat_number`` at an open table.

    Raises SeatNotFound, TableClosed, SeatTaken or PlayerAlreadySeated. Seating while a hand
    is in progress is fine: the player is dealt in from the next hand.
    """
    table = lock_table(table)
    seat = _seat(table, seat_number)
    return _occupy(table=table, seat=seat, player=player, by=by)


def _leave(seating: Seating, by: User, now: datetime.datetime) -> None:
    seating.left_at = now
    seating.left_by = acting_user(by)
    seating.save(update_fields=["left_at", "left_by"])
    # The player's winning streak and kill go with them (RULINGS §2: the same player).
    buttons = lock_buttons(seating.table)
    state = rotation.clear_seat(_kill_state(buttons), seating.seat.number)
    _store_kill_state(buttons, state, seating.table)


@service
def unseat_player(*, seating: Seating, by: User) -> Seating:
    """End a seating now. Refused while the player is dealt into a hand in progress."""
    table = lock_table(seating.table_id)
    seating = Seating.objects.select_for_update().select_related("seat", "player", "table").get(pk=seating.pk)
    if not seating.is_active:
        raise NotSeated(f"{seating.player} already left seat {seating.seat.number} at table {table.number}.")
    if _player_in_hand(table, seating.player):
        raise PlayerInHand(
            f"{seating.player} is in the hand in progress at table {table.number}; wait for it to end."
        )
    _leave(seating, by, timezone.now())
    return seating


def lock_tables_for_move(seating: Seating, to_table: Table | None) -> tuple[Table, Table]:
    """Lock the seating's table and ``to_table`` (if another) in primary-key order, so that two
    crossing moves can't deadlock; returns (from table, target table), both locked."""
    from_table_id = seating.table_id
    to_table_id = to_table.pk if to_table is not None else from_table_id
    locked = {t.pk: t for t in (lock_table(pk) for pk in sorted({from_table_id, to_table_id}))}
    return locked[from_table_id], locked[to_table_id]


def move_seating_locked(
    *, seating: Seating, from_table: Table, target_table: Table, to_seat_number: int, by: User
) -> Seating:
    """The move's checks and rows, both tables already locked by the caller (one decision for the
    money flow's seat and table changes, :func:`handflow.services.move_player`)."""
    seating = Seating.objects.select_for_update().select_related("seat", "player", "table").get(pk=seating.pk)
    if not seating.is_active:
        raise NotSeated(f"{seating.player} is no longer seated at table {from_table.number}.")
    target_seat = _seat(target_table, to_seat_number)
    if target_seat.pk == seating.seat_id:
        raise FloorValidationError(
            f"{seating.player} already sits in seat {to_seat_number}.", field="to_seat_number"
        )
    if _player_in_hand(from_table, seating.player):
        raise PlayerInHand(
            f"{seating.player} is in the hand in progress at table {from_table.number}; move them after it."
        )
    if not target_table.is_open:
        raise TableClosed(f"Table {target_table.number} is closed.")
    taken = Seating.objects.active().filter(seat=target_seat).select_related("player").first()
    if taken is not None:
        raise SeatTaken(
            f"Seat {to_seat_number} at table {target_table.number} is taken by {taken.player}.",
            field="to_seat_number",
        )
    now = timezone.now()
    _leave(seating, by, now)
    return _occupy(table=target_table, seat=target_seat, player=seating.player, by=by, at=now)


# --- Hands -------------------------------------------------------------------------------------------------


def _kill_state(buttons: ButtonState) -> rotation.KillState:
    return rotation.KillState(
        streak_seat=buttons.streak_seat.number if buttons.streak_seat else None,
        streak_wins=buttons.streak_wins,
        kill_seat=buttons.kill_seat.number if buttons.kill_seat else None,
    )


def _store_kill_state(
    buttons: ButtonState, state: rotation.KillState, table: Table, seats: Mapping[int, Seat] | None = None
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
    if not table.game.is_dealers_choice:
        if game is not None and game.pk != table.game_id:
            raise ConfigMismatch(
                f"Table {table.number} deals {table.game.name}, not {game.name}.", field="game"
            )
        return table.game
    # Dealer's choice: the button picks any approved pot game for the hand (004 Dealer's Choice).
    if game is None:
        raise FloorValidationError(
            f"Table {table.number} is dealer's choice: give the game the button picked.", field="game"
        )
    if game.kind != GameKind.POT or game.is_dealers_choice or not game.is_active:
        raise ConfigMismatch(
            f"{game.name} can't be picked at dealer's choice; pick an approved pot game.", field="game"
        )
    return game


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
    clockwise (:func:`tables.rotation.next_button`); the players dealt in are the button and the
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
    button = rotation.next_button(previous.number if previous else None, eligible)
    dealt = rotation.deal_order(button, eligible, max_hands=played.max_hands)
    if len(dealt) > played.seat_count:
        raise FloorConflict(
            f"{played.name} is dealt to at most {played.seat_count} players; {len(dealt)} are ready. "
            "Sit players out or pick another game.",
            code="too_many_players",
        )
    out = rotation.sitting_out(dealt, eligible)
    kill = _kill_state(buttons)
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


def check_misdeal_reason(reason_code: object, reason: object = "") -> tuple[MisdealReason, str]:
    """The misdeal's code (one of :class:`MisdealReason`: 004's misdeals, or ``other``) and its
    words: the dealer's text when given (at most 500 characters), else the code's label; ``other``
    needs text. Raises FloorValidationError naming the field."""
    if not isinstance(reason_code, str) or reason_code not in MisdealReason.values:
        raise FloorValidationError(
            f"Pick the misdeal's reason: one of {', '.join(MisdealReason.values)}.", field="reason_code"
        )
    code = MisdealReason(reason_code)
    text = reason.strip() if isinstance(reason, str) else ""
    _check_text(text, field="reason", what="The reason", longest=500)
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
    unknown code, ``other`` without words), IllegalTransition (the hand is settled or already void).
    """
    code, text = check_misdeal_reason(reason_code, reason)
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
    state = rotation.after_pot(
        _kill_state(buttons), outright_winner_seat_number, kill_enabled=hand.stakes.kill != KillType.NONE
    )
    _store_kill_state(buttons, state, table, seats=dealt)
    hand.outright_winner_seat = winner
    hand.result_recorded_at = timezone.now()
    return buttons, ["outright_winner_seat", "result_recorded_at"]


# --- Collection schedules ----------------------------------------------------------------------------------


RATE_FIELDS = (
    "structure",
    "small_bet_cents",
    "big_bet_cents",
    "alt_small_bet_cents",
    "alt_big_bet_cents",
    "buy_in_min_cents",
    "buy_in_max_cents",
    "point_min_cents",
    "point_max_cents",
    "players_min",
    "players_max",
    "payer",
    "fee_cents",
    "others_fee_cents",
)


def build_rates(rates: Sequence[Mapping[str, Any]]) -> list[CollectionRate]:
    """Unsaved :class:`CollectionRate` rows from dicts, each checked; raises InvalidSchedule.

    ``rates`` is a list of mappings of :data:`RATE_FIELDS` (``payer`` defaults to ``button``).
    Every amount must be a real ``int`` (:func:`tables.validators.rate_problems`): 2.5, "150",
    "5%" or True are refused naming the field (``rates[i].fee_cents``), never converted. Each row
    is checked on its own and then the set for overlapping bands; whether the fees suit the tables
    on a schedule is :func:`check_rates_against_tables`.
    """
    if isinstance(rates, (str, bytes, Mapping)) or not isinstance(rates, Sequence):
        raise InvalidSchedule("Give the rates as a list of rows.", field="rates")
    if not rates:
        raise InvalidSchedule("A schedule version needs at least one rate.", field="rates")
    built: list[CollectionRate] = []
    errors: dict[str, str] = {}
    for i, data in enumerate(rates):
        if not isinstance(data, Mapping):
            errors[f"rates[{i}]"] = f"A rate is a mapping of its fields, not {type(data).__name__}."
            continue
        unknown = set(data) - set(RATE_FIELDS)
        if unknown:
            errors[f"rates[{i}]"] = f"Unknown fields: {', '.join(sorted(map(str, unknown)))}."
            continue
        rate = CollectionRate(**{"payer": "button", **data})
        for field, message in rate_problems(rate).items():
            errors[f"rates[{i}].{field}"] = message
        built.append(rate)
    if not errors:
        for i, message in enumerate(rates_overlap_problems(built)):
            errors[f"rates.overlap[{i}]"] = message
    if errors:
        field, message = next(iter(errors.items()))
        raise InvalidSchedule(f"{field}: {message}", field=field, errors=errors)
    return built


def _tables_on(schedule: CollectionSchedule) -> list[Table]:
    return list(
        Table.objects.filter(collection_schedule=schedule).select_related("game", "stakes").order_by("number")
    )


def check_rates_against_tables(schedule: CollectionSchedule, rates: Sequence[CollectionRate]) -> None:
    """``rates`` as a new version of ``schedule`` must suit every table on it: 1 to 5 rates apply
    at each (TooManyRates above five, InvalidSchedule for none), and each fee of a rate that
    applies is a whole number of that table's chips (InvalidSchedule naming ``rates[i].fee_cents``
    and the table): :func:`tables.validators.schedule_tables_problems`."""
    problems = schedule_tables_problems(rates, _tables_on(schedule))
    if not problems:
        return
    field, message = next(iter(problems.items()))
    if field == "rates":
        error_class = TooManyRates if "at most" in message else InvalidSchedule
        raise error_class(message, field=field, errors=problems)
    raise InvalidSchedule(f"{field}: {message}", field=field, errors=problems)


def check_effective_from(
    effective_from: datetime.datetime | None, schedule: CollectionSchedule | None
) -> datetime.datetime:
    now = timezone.now()
    when = effective_from or now
    if timezone.is_naive(when):
        raise InvalidSchedule("Give effective_from with a time zone.", field="effective_from")
    if when < now:
        raise InvalidSchedule(
            "A schedule change takes effect now or later; it never rewrites the past (RULINGS §6).",
            field="effective_from",
        )
    if schedule is not None:
        last = schedule.versions.order_by("-effective_from").first()
        if last is not None and when <= last.effective_from:
            raise InvalidSchedule(
                f"Version {last.number} of schedule {schedule.code} takes effect "
                f"{last.effective_from:%Y-%m-%d %H:%M}; "
                "a new version must take effect after it.",
                field="effective_from",
            )
    return when


def _add_version(
    *,
    schedule: CollectionSchedule,
    rates: list[CollectionRate],
    effective_from: datetime.datetime,
    by: User,
    reason: str,
) -> CollectionScheduleVersion:
    number = (schedule.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    version = CollectionScheduleVersion.objects.create(
        schedule=schedule,
        number=number,
        effective_from=effective_from,
        created_by=acting_user(by),
        reason=reason,
    )
    for rate in rates:
        rate.version = version
    CollectionRate.objects.bulk_create(rates)
    return version


@service
def create_schedule(
    *,
    code: str,
    name: str,
    rates: Sequence[Mapping[str, Any]],
    by: User,
    reason: str = "",
    description: str = "",
    effective_from: datetime.datetime | None = None,
    allow_past: bool = False,
) -> CollectionSchedule:
    """A new schedule with its first version. ``allow_past`` is for loading house data only.

    The rates are checked by :func:`build_rates`; a new schedule has no tables yet, so its fees
    meet each table's chips when a table is put on it (:func:`tables.validators.table_problems`).
    Fees far outside the schedule's sense are accepted (:func:`tables.validators.fee_warnings`
    says which; the API returns them).
    """
    code = (code or "").strip()
    if not code or not (name or "").strip():
        raise InvalidSchedule("A schedule needs a code and a name.", field="code")
    if CollectionSchedule.objects.filter(code=code).exists():
        raise FloorConflict(f"Schedule {code} already exists.", code="duplicate_code", field="code")
    built = build_rates(rates)
    when = effective_from if (allow_past and effective_from) else check_effective_from(effective_from, None)
    schedule = CollectionSchedule.objects.create(code=code, name=name.strip(), description=description)
    _add_version(schedule=schedule, rates=built, effective_from=when, by=by, reason=reason or "created")
    record_change(
        instance=schedule,
        action=ConfigAction.CREATE,
        by=by,
        reason=reason,
        after=schedule_snapshot_at(schedule, when),
    )
    return schedule


def schedule_snapshot_at(schedule: CollectionSchedule, when: datetime.datetime) -> dict[str, Any]:
    data = snapshot(schedule)
    data["version"] = version_snapshot(schedule.version_at(when))
    return data


@service
def revise_schedule(
    *,
    schedule: CollectionSchedule,
    rates: Sequence[Mapping[str, Any]],
    by: User,
    reason: str,
    effective_from: datetime.datetime | None = None,
) -> CollectionScheduleVersion:
    """A new version of ``schedule`` with ``rates`` (the complete set), from ``effective_from``.

    ``effective_from`` defaults to now, can't be in the past, and must follow the latest version;
    earlier versions stay as they were, so fees already collected keep their rates. Every table
    on the schedule must keep 1 to 5 applicable rates (TooManyRates otherwise), each of whose
    fees is a whole number of the table's chips (InvalidSchedule otherwise):
    :func:`check_rates_against_tables`. Fees far outside the schedule's sense are accepted here
    (:func:`tables.validators.fee_warnings`); the schedule page asks to confirm them after
    :func:`preview_revision`, the API returns them with the new version.
    """
    reason = _require_reason(reason)
    schedule = CollectionSchedule.objects.select_for_update().get(pk=schedule.pk)
    built = build_rates(rates)
    when = check_effective_from(effective_from, schedule)
    check_rates_against_tables(schedule, built)
    before = version_snapshot(schedule.versions.order_by("-effective_from").first())
    version = _add_version(schedule=schedule, rates=built, effective_from=when, by=by, reason=reason)
    record_change(
        instance=schedule,
        action=ConfigAction.NEW_VERSION,
        by=by,
        reason=reason,
        before=before,
        after=version_snapshot(version),
    )
    return version


@service
def rename_schedule(
    *, schedule: CollectionSchedule, by: User, reason: str, name: str, description: str
) -> None:
    """Change a schedule's name and description (its rates change only by new versions)."""
    reason = _require_reason(reason)
    schedule = CollectionSchedule.objects.select_for_update().get(pk=schedule.pk)
    before = schedule_snapshot(schedule)
    schedule.name, schedule.description = name, description
    schedule.save(update_fields=["name", "description"])
    record_change(
        instance=schedule,
        action=ConfigAction.UPDATE,
        by=by,
        reason=reason,
        before=before,
        after=schedule_snapshot(schedule),
    )


# --- A schedule change, previewed -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FeeChange:
    """One band of players whose fee changes: the fee before and after (``"no rate"``: none)."""

    limits: str
    players: str
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class TableFeeChanges:
    """A table on the schedule and the bands of players dealt in whose fee changes there."""

    table_number: int
    stakes_label: str
    changes: tuple[FeeChange, ...]


@dataclass(frozen=True)
class RevisionPreview:
    """What a new version of a schedule would change, before it is saved (:func:`preview_revision`).

    ``compared_with``: the number of the latest version (the one the new version follows), None
    for a schedule with none; ``rates``: the rows whose fee changes (or that come or go);
    ``tables``: every table on the schedule where a fee changes, and ``unchanged_tables`` the
    others' numbers; ``warnings``: :func:`tables.validators.rates_fee_warnings` of the new rates;
    ``digest``: identifies the schedule, the version compared with, the new rates and the time,
    so that a save can check it is the change that was previewed.
    """

    schedule_code: str
    compared_with: int | None
    rates: tuple[FeeChange, ...]
    tables: tuple[TableFeeChanges, ...]
    unchanged_tables: tuple[int, ...]
    warnings: dict[str, str]
    digest: str


def _fee_terms(rate: CollectionRate | None) -> tuple[object, ...] | None:
    return None if rate is None else (rate.payer, rate.fee_cents, rate.others_fee_cents)


NO_RATE = "no rate"


def band_label(rate: CollectionRate) -> str:
    """The players a rate covers: ``"1-4"``, or ``"3"`` for one number."""
    if rate.players_min == rate.players_max:
        return str(rate.players_min)
    return f"{rate.players_min}-{rate.players_max}"


def _fee_text(rate: CollectionRate | None) -> str:
    return NO_RATE if rate is None else rate.fee_label


def rate_changes(old: Sequence[CollectionRate], new: Sequence[CollectionRate]) -> list[FeeChange]:
    """The rows of ``new`` whose fee differs from the row of ``old`` for the same stakes and band
    (``old`` is ``NO_RATE`` for a row ``new`` adds), then the rows of ``old`` that ``new`` has no
    more (``new`` is ``NO_RATE``). The one comparison of two versions' rates: the revision preview
    and the change log in words (``backoffice.reports.changes``) both read it."""
    before = {rate_row_key(rate): rate for rate in old}
    after = {rate_row_key(rate): rate for rate in new}
    changes = [
        FeeChange(rate.limits_label, band_label(rate), _fee_text(before.get(key)), rate.fee_label)
        for key, rate in after.items()
        if _fee_terms(before.get(key)) != _fee_terms(rate)
    ]
    changes += [
        FeeChange(rate.limits_label, band_label(rate), rate.fee_label, NO_RATE)
        for key, rate in before.items()
        if key not in after
    ]
    return changes


def _table_changes(
    table: Table, old: Sequence[CollectionRate], new: Sequence[CollectionRate]
) -> list[FeeChange]:
    """For each number of players ``table`` can deal to, the fee before and after; consecutive
    numbers with the same change are one band."""
    old_rates, new_rates = applicable_rates(old, table.stakes), applicable_rates(new, table.stakes)
    bands: list[tuple[int, int, CollectionRate | None, CollectionRate | None]] = []
    most = min(table.seat_count, table.game.hands_per_round)
    for players in range(MIN_PLAYERS, most + 1):
        was = next((r for r in old_rates if r.covers_players(players)), None)
        will = next((r for r in new_rates if r.covers_players(players)), None)
        if _fee_terms(was) == _fee_terms(will):
            continue
        if bands:
            low, high, last_was, last_will = bands[-1]
            same = (_fee_terms(last_was), _fee_terms(last_will)) == (_fee_terms(was), _fee_terms(will))
            if same and high == players - 1:
                bands[-1] = (low, players, was, will)
                continue
        bands.append((players, players, was, will))
    limits = table.stakes.label
    return [
        FeeChange(limits, f"{low}-{high}" if low != high else f"{low}", _fee_text(was), _fee_text(will))
        for low, high, was, will in bands
    ]


def preview_revision(
    *,
    schedule: CollectionSchedule,
    rates: Sequence[Mapping[str, Any]],
    effective_from: datetime.datetime | None = None,
) -> RevisionPreview:
    """What :func:`revise_schedule` with the same arguments would change, without writing anything.

    Makes the same checks first (:func:`build_rates`, the effective time, every table on the
    schedule: :func:`check_rates_against_tables`) and raises the same errors. Then compares the
    new rates with the latest version's: the rows that change, and at each table on the schedule
    the bands of players dealt in whose fee changes (old fee -> new fee); with the new rates'
    warnings (:func:`tables.validators.rates_fee_warnings`) for the page to ask to confirm.
    """
    built = build_rates(rates)
    check_effective_from(effective_from, schedule)
    check_rates_against_tables(schedule, built)
    latest = schedule.versions.order_by("-number").first()
    old = list(latest.rates.all()) if latest is not None else []
    tables, unchanged = [], []
    for table in _tables_on(schedule):
        changes = _table_changes(table, old, built)
        if changes:
            tables.append(TableFeeChanges(table.number, table.stakes.label, tuple(changes)))
        else:
            unchanged.append(table.number)
    digest = hashlib.sha256(
        json.dumps(
            {
                "schedule": schedule.pk,
                "compared_with": latest.number if latest is not None else None,
                "effective_from": effective_from.isoformat() if effective_from else None,
                "rates": [{name: getattr(rate, name) for name in RATE_FIELDS} for rate in built],
            },
            sort_keys=True,
        ).encode()
    ).hexdigest()
    return RevisionPreview(
        schedule_code=schedule.code,
        compared_with=latest.number if latest is not None else None,
        rates=tuple(rate_changes(old, built)),
        tables=tuple(tables),
        unchanged_tables=tuple(unchanged),
        warnings=rates_fee_warnings(built),
        digest=digest,
    )


# --- Dealers --------------------------------------------------------------------------------------------


def may_run_any_table(user: User) -> bool:
    """The floor (``tables.manage_floor``; superusers) runs any table's hands without clocking in."""
    return user is not None and user.is_authenticated and user.has_perm("tables.manage_floor")


def dealer_on_duty(table: Table) -> DealerShift | None:
    """The open down at ``table`` (the dealer clocked in there), or None."""
    return (
        DealerShift.objects.select_related("dealer")
        .filter(table=table, clocked_out_at__isnull=True)
        .order_by()
        .first()
    )


def check_runs_hands(table: Table, by: User) -> DealerShift | None:
    """Who may run ``table``'s hands: the dealer clocked in there, or the floor. Returns the table's
    open down (None when nobody is clocked in and the floor runs the hand). Raises NotYourTable
    (403) for anyone else, saying who is clocked in.

    The one place this rule lives: every hand service of the money flow calls it under the table
    lock (deal, showdown, sweep declaration, confirmation, misdeal). ``by=None`` is the system (a
    data load, a job), never a request: the web always passes the request's user."""
    shift = dealer_on_duty(table)
    if by is None or may_run_any_table(by):
        return shift
    if shift is not None and shift.dealer_id == by.pk:
        return shift
    on_duty = f"{shift.dealer.get_username()} is clocked in there" if shift else "nobody is clocked in there"
    raise NotYourTable(
        f"Only the dealer clocked in at table {table.number} (or the floor) runs its hands; "
        f"{on_duty}. Clock in at the table first."
    )


@service
def clock_in(*, table: Table, dealer: AuthUser, by: User) -> DealerShift:
    """Clock ``dealer`` in at ``table``: a dealer clocks themself in; the floor may clock in (assign)
    any dealer. The table's open down (another dealer's) and the dealer's open down at another
    table end now. Clocking in where one already is clocked in returns that down (``was_replayed``).

    Raises NotYourTable (a dealer clocking in someone else), NotADealer (a user who can't run
    hands), TableClosed, HandInProgress (a down ends between hands, not during one).
    """
    user = acting_user(by)
    if user is None:
        raise NotYourTable("Log in to clock in.")
    if dealer.pk != user.pk and not may_run_any_table(user):
        raise NotYourTable("A dealer clocks only themself in; the floor assigns other dealers.")
    if not dealer.is_active or not dealer.has_perm("tables.run_hand"):
        raise NotADealer(f"{dealer.get_username()} can't run hands, so can't be clocked in.", field="dealer")
    table = lock_table(table)
    if not table.is_open:
        raise TableClosed(f"Table {table.number} is closed; open it before clocking a dealer in.")
    shifts = list(
        DealerShift.objects.select_for_update()
        .filter(Q(table=table) | Q(dealer=dealer), clocked_out_at__isnull=True)
        .order_by("pk")
    )
    for shift in shifts:
        if shift.table_id == table.pk and shift.dealer_id == dealer.pk:
            shift.was_replayed = True
            return shift
    now = timezone.now()
    for shift in shifts:
        # A down ends between hands, not during one (the hand records who dealt it).
        _refuse_if_hand_in_progress(shift.table, "change the dealer at")
        _end_shift(shift, by=by, now=now)
    return DealerShift.objects.create(table=table, dealer=dealer, clocked_in_at=now, clocked_in_by=user)


@service
def clock_out(*, table: Table, by: User) -> DealerShift | None:
    """End the down at ``table`` (the dealer themself, or the floor). Returns the ended down, or
    None when nobody was clocked in. Raises NotYourTable, HandInProgress."""
    table = lock_table(table)
    shift = DealerShift.objects.select_for_update().filter(table=table, clocked_out_at__isnull=True).first()
    if shift is None:
        return None
    if (by is None or shift.dealer_id != by.pk) and not may_run_any_table(by):
        raise NotYourTable(f"Only the dealer clocked in at table {table.number} (or the floor) clocks out.")
    _refuse_if_hand_in_progress(table, "clock the dealer out at")
    _end_shift(shift, by=by, now=timezone.now())
    return shift


def _end_shift(shift: DealerShift, *, by: User, now: datetime.datetime) -> None:
    shift.clocked_out_at, shift.clocked_out_by = max(now, shift.clocked_in_at), acting_user(by)
    shift.save(update_fields=["clocked_out_at", "clocked_out_by"])
