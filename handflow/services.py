"""The hand's money: buy-ins, rebuys and cash-outs, the fees before the deal, the showdown, the
settlement and the misdeal (issue "The ledger and the hand's money"; docs/hand-flow.md).

Conventions (HackSoft style, as :mod:`tables.services`):

* keyword-only arguments; ``by`` is the user acting (None for the system);
* each service runs in ONE ``transaction.atomic()``: it locks the table row first
  (``SELECT ... FOR UPDATE``, the floor's lock), then the hand, and only then calls the ledger,
  which is the ledger's own lock order (floor rows, accounts, chain head), so no two flows can
  deadlock and the chips a rule was checked against can't change before they are posted;
* every chip movement goes through :mod:`ledger.services`; the ledger's idempotency keys are
  ``hand:<id>:fees``, ``hand:<id>:settle`` and ``hand:<id>:fees:return`` for a hand's money and
  the caller's key (the API sends ``req:<Idempotency-Key>``) for buy-ins, rebuys and cash-outs;
* failures raise :mod:`tables.errors` (or :mod:`ledger.errors`) exceptions and change nothing.

Reads with no writes (:func:`preview_fees`, :func:`table_chips`) take no locks.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import ForeignKey
from django.utils import timezone

from casino.core.db import service
from ledger import selectors as ledger_selectors
from ledger import services as ledger
from ledger.hashing import json_digest
from ledger.models import JournalTransaction
from ledger.shifts import Shift
from poker.chinese import count_problems
from poker.errors import ShowdownError
from poker.kill import kill_blind
from poker.showdown import POT_GAMES, decide
from poker.sweeps import parse_sweep_kind
from tables import rotation
from tables import services as floor
from tables.chip_rules import ChipRules, chip_rules
from tables.errors import (
    AlreadyBoughtIn,
    ChipsLocked,
    FeesChanged,
    FloorConflict,
    FloorValidationError,
    HandAlreadySettled,
    HandVoided,
    IdempotencyKeyReused,
    IllegalTransition,
    InvalidShowdown,
    NoBuyIn,
    NoChips,
    NoCollectionRate,
    NoReading,
    NotEnoughPlayers,
    NotSeated,
    PlayerAlreadySeated,
    ReadingChanged,
    ShortRebuyUsed,
    TableClosed,
)
from tables.models import (
    MIN_PLAYERS,
    ButtonState,
    ChipMovement,
    ChipMovementKind,
    CollectionRate,
    CollectionSchedule,
    Game,
    GameKind,
    Hand,
    HandPlayer,
    HandResult,
    HandStatus,
    KillType,
    Player,
    ReadingStatus,
    Seating,
    Table,
    format_cents,
)
from tables.selectors import rate_for
from tables.services import User

CHINESE_RULES = "house"  # RULINGS §3: the default rule set of the card room


def fees_key(hand: Hand) -> str:
    """The ledger idempotency key of a hand's collection."""
    return f"hand:{hand.pk}:fees"


def fees_return_key(hand: Hand) -> str:
    """The ledger idempotency key of returning a hand's collection on a misdeal."""
    return f"hand:{hand.pk}:fees:return"


def settle_key(hand: Hand) -> str:
    """The ledger idempotency key of a hand's settlement."""
    return f"hand:{hand.pk}:settle"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest_of(value: Any) -> str:
    """sha256 of the canonical JSON of ``value`` (sorted keys, no whitespace)."""
    return json_digest(value)  # the same function the audit checks it with (backoffice.audit)


# --- Chip locks and sessions ------------------------------------------------------------------------


def _in_hand(table: Table, player: Player) -> Hand | None:
    """The hand in progress at ``table`` that ``player`` is dealt into, if any."""
    row = (
        HandPlayer.objects.filter(hand__table=table, hand__status__in=HandStatus.in_progress(), player=player)
        .select_related("hand")
        .first()
    )
    return row.hand if row else None


def _refuse_if_locked(table: Table, player: Player, doing: str) -> None:
    hand = _in_hand(table, player)
    if hand is not None:
        raise ChipsLocked(
            f"{player} is dealt into hand {hand.number} at table {table.number} ({hand.status}); "
            f"no chips are {doing} during a hand. Wait for it to be settled or void."
        )


def _active_seating(table: Table, player: Player) -> Seating | None:
    return Seating.objects.active().filter(table=table, player=player).select_related("seat").first()


def _replayed_movement(
    *, idempotency_key: str, kind: str, table: Table, player: Player, amount: int | None
) -> ChipMovement | None:
    """The movement already made under ``idempotency_key`` (a retry), or None.

    Raises :class:`IdempotencyKeyReused` when the key was used for another request.
    """
    movement = ChipMovement.objects.filter(transaction__idempotency_key=idempotency_key).first()
    if movement is None:
        return None
    same = (movement.kind, movement.table_id, movement.player_id) == (kind, table.pk, player.pk) and (
        amount is None or movement.amount_cents == amount
    )
    if not same:
        raise IdempotencyKeyReused(f"The key {idempotency_key!r} was already used for another request.")
    movement.was_replayed = True
    return movement


def _replayed_walk_in(*, idempotency_key: str, table: Table, name: str, amount: int) -> ChipMovement | None:
    """:func:`_replayed_movement` for a walk-in's buy-in: the retry names the player it created."""
    movement = (
        ChipMovement.objects.filter(transaction__idempotency_key=idempotency_key)
        .select_related("player")
        .first()
    )
    if movement is None:
        return None
    if movement.player.name != name.strip():
        raise IdempotencyKeyReused(f"The key {idempotency_key!r} was already used for another request.")
    return _replayed_movement(
        idempotency_key=idempotency_key,
        kind=ChipMovementKind.BUY_IN,
        table=table,
        player=movement.player,
        amount=amount,
    )


class _Posting(Protocol):
    """The ledger's buy-in, rebuy and cash-out postings: one shape."""

    def __call__(
        self,
        *,
        table: Table,
        player: Player,
        amount: int,
        user: AbstractBaseUser | None,
        idempotency_key: str,
        memo: str = ...,
    ) -> JournalTransaction: ...


_LEDGER_POSTING: dict[str, _Posting] = {
    ChipMovementKind.BUY_IN: ledger.buy_in,
    ChipMovementKind.REBUY: ledger.rebuy,
    ChipMovementKind.CASH_OUT: ledger.cash_out,
}


def _post_movement(
    *,
    kind: ChipMovementKind,
    table: Table,
    player: Player,
    seating: Seating | None,
    amount: int,
    by: User,
    idempotency_key: str,
    memo: str,
    is_short: bool = False,
) -> ChipMovement:
    """Post a buy-in, rebuy or cash-out to the ledger and record its :class:`ChipMovement`, in the
    caller's transaction (the checks are the caller's)."""
    user = floor.acting_user(by)
    txn = _LEDGER_POSTING[kind](
        table=table, player=player, amount=amount, user=user, idempotency_key=idempotency_key, memo=memo
    )
    return ChipMovement.objects.create(
        table=table,
        player=player,
        seating=seating,
        kind=kind,
        amount_cents=amount,
        is_short=is_short,
        transaction=txn,
        created_by=user,
    )


def table_rules(table: Table) -> ChipRules:
    """The chip rules of ``table`` (buy-in range, short rebuy, chips needed to be dealt in)."""
    return chip_rules(stakes=table.stakes, chip_unit_cents=table.chip_unit_cents)


# --- Buy-in, rebuy, cash-out -------------------------------------------------------------------------


@service
def buy_in(
    *,
    table: Table,
    player: Player | None = None,
    amount_cents: int,
    by: User,
    idempotency_key: str,
    seat_number: int | None = None,
    new_player_name: str | None = None,
) -> ChipMovement:
    """The player's first chips of a session at ``table``: the cage sells ``amount_cents``.

    ``player``, or for a walk-in ``new_player_name``: the player is then created in the same
    transaction, so a refused buy-in leaves no player behind (and a retry under the same key
    creates none twice). Exactly one of the two is given.

    A player not seated at the table is seated in ``seat_number`` in the same transaction (two
    buy-ins racing for one seat: one is seated and gets the chips, the other gets SeatTaken and
    nothing is posted). The amount must fit :class:`tables.chip_rules.ChipRules`. Refused while
    the player is dealt into a hand in progress (ChipsLocked), or when the session already has
    its buy-in (AlreadyBoughtIn: use :func:`rebuy`). A retry under the same key returns the first
    movement (``was_replayed``) and posts nothing.
    """
    table = floor.lock_table(table)
    if (player is None) == (new_player_name is None):
        raise FloorValidationError("Choose a player or type a new player's name, not both.", field="player")
    if player is None:
        if done := _replayed_walk_in(
            idempotency_key=idempotency_key, table=table, name=new_player_name or "", amount=amount_cents
        ):
            return done
        player = floor.create_player(name=new_player_name or "", by=by)
    elif done := _replayed_movement(
        idempotency_key=idempotency_key,
        kind=ChipMovementKind.BUY_IN,
        table=table,
        player=player,
        amount=amount_cents,
    ):
        return done
    seating = _active_seating(table, player)
    if seating is None:
        if seat_number is None:
            raise NotSeated(
                f"{player} is not seated at table {table.number}; give the seat to buy in for.",
                field="seat_number",
            )
        seating = floor.seat_player(table=table, seat_number=seat_number, player=player, by=by)
    elif seat_number is not None and seating.seat.number != seat_number:
        raise PlayerAlreadySeated(
            f"{player} already sits in seat {seating.seat.number} at table {table.number}.",
            field="seat_number",
        )
    _refuse_if_locked(table, player, "added")
    if ChipMovement.objects.filter(seating=seating, kind=ChipMovementKind.BUY_IN).exists():
        raise AlreadyBoughtIn(f"{player} already bought in at table {table.number}; more chips are a rebuy.")
    chips = ledger_selectors.player_chips(table=table, player=player)
    table_rules(table).check_buy_in(amount=amount_cents, chips_before=chips)
    return _post_movement(
        kind=ChipMovementKind.BUY_IN,
        table=table,
        player=player,
        seating=seating,
        amount=amount_cents,
        by=by,
        idempotency_key=idempotency_key,
        memo=f"Buy-in, table {table.number} seat {seating.seat.number}",
    )


@service
def rebuy(*, table: Table, player: Player, amount_cents: int, by: User, idempotency_key: str) -> ChipMovement:
    """More chips for a seated player who bought in this session.

    A full rebuy is at least the minimum buy-in; one *short* rebuy per session may be smaller, down
    to half of it (10 points at Chinese and Taiwanese poker). Refused while the player is dealt into
    a hand in progress (ChipsLocked), before the session's buy-in (NoBuyIn), for a second short
    rebuy (ShortRebuyUsed), or when the amount breaks the table's rules (BuyInRefused).
    """
    table = floor.lock_table(table)
    if done := _replayed_movement(
        idempotency_key=idempotency_key,
        kind=ChipMovementKind.REBUY,
        table=table,
        player=player,
        amount=amount_cents,
    ):
        return done
    seating = _active_seating(table, player)
    if seating is None:
        raise NotSeated(f"{player} is not seated at table {table.number}.", field="player")
    _refuse_if_locked(table, player, "added")
    if not ChipMovement.objects.filter(seating=seating, kind=ChipMovementKind.BUY_IN).exists():
        raise NoBuyIn(f"{player} has not bought in at table {table.number} since sitting down; buy in first.")
    chips = ledger_selectors.player_chips(table=table, player=player)
    is_short = table_rules(table).classify_rebuy(amount=amount_cents, chips_before=chips)
    if is_short and ChipMovement.objects.filter(seating=seating, is_short=True).exists():
        raise ShortRebuyUsed(
            f"{player} already made the one short rebuy of this session; a rebuy is now at least "
            f"{format_cents(table_rules(table).minimum_cents)}."
        )
    return _post_movement(
        kind=ChipMovementKind.REBUY,
        table=table,
        player=player,
        seating=seating,
        amount=amount_cents,
        by=by,
        idempotency_key=idempotency_key,
        memo=f"{'Short rebuy' if is_short else 'Rebuy'}, table {table.number} seat {seating.seat.number}",
        is_short=is_short,
    )


@service
def cash_out(*, table: Table, player: Player, by: User, idempotency_key: str) -> ChipMovement:
    """The player leaves the table with all their chips: the seating ends and the cage buys them back.

    No chips come off a table while the player stays (Robert's Rules: no "going south"), so a
    cash-out is always the whole stack and ends the player's seating (if still seated). Refused
    while the player is dealt into a hand in progress (ChipsLocked), or with no chips (NoChips).
    """
    table = floor.lock_table(table)
    if done := _replayed_movement(
        idempotency_key=idempotency_key,
        kind=ChipMovementKind.CASH_OUT,
        table=table,
        player=player,
        amount=None,
    ):
        return done
    _refuse_if_locked(table, player, "taken off")
    chips = ledger_selectors.player_chips(table=table, player=player)
    if chips <= 0:
        raise NoChips(f"{player} has no chips at table {table.number}.")
    seating = _active_seating(table, player)
    if seating is not None:
        floor.unseat_player(seating=seating, by=by)
    return _post_movement(
        kind=ChipMovementKind.CASH_OUT,
        table=table,
        player=player,
        seating=seating,
        amount=chips,
        by=by,
        idempotency_key=idempotency_key,
        memo=f"Cash-out, table {table.number}",
    )


def table_change_key(seating: Seating) -> str:
    """The ledger's key for the chips carried when ``seating`` ends in a table change: a seating
    ends once, so a retry of the same change can never post twice."""
    return f"seating:{seating.pk}:table-change"


@service
def move_player(*, seating: Seating, to_seat_number: int, by: User, to_table: Table | None = None) -> Seating:
    """Move a seated player to another seat; to another table (a table change) with all their chips.

    Robert's Rules: a player changing tables takes every chip along (no chips leave the game in
    between, whatever the new table's buy-in range: it is not a purchase). The chips go over as one
    TABLE_TRANSFER (``seating:<id>:table-change``) in the same transaction as the seating rows, so
    the player never sits at one table with their chips on the other. Refused, changing nothing,
    while the player is dealt into a hand in progress (PlayerInHand), when the seat is taken or the
    table closed, or when the chips are not a whole number of the new table's chips
    (``chips_not_whole``: colour up or cash out first). Returns the new seating.
    """
    from_table, target_table = floor.lock_tables_for_move(seating, to_table)
    moved = floor.move_seating_locked(
        seating=seating,
        from_table=from_table,
        target_table=target_table,
        to_seat_number=to_seat_number,
        by=by,
    )
    if target_table.pk == from_table.pk:
        return moved
    player = moved.player
    chips = ledger_selectors.player_chips(table=from_table, player=player)
    if chips > 0:
        if chips % target_table.chip_unit_cents:
            raise FloorValidationError(
                f"{player}'s chips ({format_cents(chips)}) are not a whole number of table "
                f"{target_table.number}'s {format_cents(target_table.chip_unit_cents)} chips; colour up or "
                "cash out first.",
                code="chips_not_whole",
                field="to_table",
            )
        ledger.transfer_chips(
            player=player,
            from_table=from_table,
            to_table=target_table,
            amount=chips,
            user=floor.acting_user(by),
            idempotency_key=table_change_key(seating),
            memo=(
                f"Table change, table {from_table.number} seat {seating.seat.number} to table "
                f"{target_table.number} seat {to_seat_number}"
            ),
        )
    return moved


# --- Who is dealt in, and the fees ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DealtSeat:
    """A player to be dealt in: position 1 is the button; ``chips_cents`` before the fee."""

    seat: int
    position: int
    player_id: int
    player_name: str
    chips_cents: int
    fee_cents: int


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A seated player not dealt into the hand, and why (``reason``: a code)."""

    seat: int
    player_id: int
    player_name: str
    chips_cents: int
    reason: str
    detail: str


@dataclass(frozen=True)
class DealPlan:
    """Who is dealt in, the button, the rate and each position's fee, decided together."""

    table_number: int
    game: str
    at: datetime.datetime
    button: int
    dealt: tuple[DealtSeat, ...]
    left_out: tuple[LeftOut, ...]
    rate: CollectionRate
    rules: ChipRules
    kill_seat: int | None = None
    kill_multiplier_pct: int = 100
    kill_blind_cents: int | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def total_fees_cents(self) -> int:
        return sum(d.fee_cents for d in self.dealt)

    @property
    def unable_to_pay(self) -> set[int]:
        return {o.seat for o in self.left_out if o.reason == "cannot_pay"}


def _kill_for(
    table: Table, buttons: ButtonState | None, dealt: Sequence[int]
) -> tuple[int | None, int, int | None]:
    """(kill seat, multiplier %, kill blind) for the next hand, as the floor's start decides it."""
    kill_seat = buttons.kill_seat.number if buttons is not None and buttons.kill_seat else None
    if kill_seat is None or kill_seat not in dealt or table.stakes.kill == KillType.NONE:
        return None, 100, None
    return kill_seat, table.stakes.kill_multiplier_pct, _kill_blind(table, table.stakes.kill)


def _kill_blind(table: Table, kill: str) -> int | None:
    """The kill blind: the big blind (the small bet of a limit) x1.5 or x2, up to a whole chip."""
    big_blind = table.stakes.small_bet_cents
    if not big_blind or kill == KillType.NONE:
        return None
    return kill_blind(big_blind, str(kill), table.chip_unit_cents)


def hand_kill_blind(hand: Hand) -> int | None:
    """The kill blind the hand's kill seat posted (None: not a kill hand)."""
    if hand.kill_seat_id is None or not hand.stakes.small_bet_cents:
        return None
    kind = {150: KillType.HALF, 200: KillType.FULL}.get(hand.kill_multiplier_pct)
    if kind is None:
        return None
    return kill_blind(hand.stakes.small_bet_cents, str(kind), hand.table.chip_unit_cents)


def _plan_deal(
    *,
    table: Table,
    game: Game,
    seatings: Mapping[int, Seating],
    sit_out: set[int],
    chips: Mapping[int, int],
    buttons: ButtonState | None,
    at: datetime.datetime,
) -> DealPlan:
    """Decide the players dealt in, the button and the fees together (no writes).

    Starting from the seated players who don't sit out: the button moves to the next of them
    clockwise (:func:`tables.rotation.next_button`), the players dealt in follow from it
    (:func:`tables.rotation.deal_order`, up to the game's hands per round), the rate is the one
    of the schedule in force at ``at`` for that many players, and each position's fee follows
    from its payer rule. Who can pay (their fee and keep enough in play,
    :meth:`ChipRules.can_be_dealt_in`) is decided at the band they would actually be dealt at:
    :func:`tables.rotation.choose_dealt` leaves out one short player at a time and lets back in
    anyone who can pay once the band has dropped (a fixed point). Raises NotEnoughPlayers,
    NoCollectionRate.
    """
    rules = table_rules(table)
    left_out: dict[int, LeftOut] = {}

    def leave_out(seat: int, reason: str, detail: str) -> None:
        seating = seatings[seat]
        left_out[seat] = LeftOut(
            seat=seat,
            player_id=seating.player_id,
            player_name=seating.player.name,
            chips_cents=chips.get(seating.player_id, 0),
            reason=reason,
            detail=detail,
        )

    for seat in sorted(sit_out):
        leave_out(seat, "sits_out", "sits this hand out")
    previous = buttons.button_seat.number if buttons is not None and buttons.button_seat else None
    rates: dict[int, CollectionRate | None] = {}

    def fees_for(players: int) -> list[int]:
        if players not in rates:
            rates[players] = rate_for(
                schedule=table.collection_schedule, stakes=table.stakes, players=players, at=at
            )
        rate = rates[players]
        if rate is None:
            raise rotation.NoFeeBand(players)
        return rate.fees_by_position(players)

    player_of = {seat: seating.player_id for seat, seating in seatings.items()}
    try:
        choice = rotation.choose_dealt(
            eligible=set(seatings) - sit_out,
            previous_button=previous,
            chips={seat: chips.get(pid, 0) for seat, pid in player_of.items()},
            fees_for=fees_for,
            keep_in_play=rules.to_be_dealt_in_cents,
            max_hands=game.max_hands,
            min_players=MIN_PLAYERS,
        )
    except rotation.NoFeeBand as missing:
        raise NoCollectionRate(
            f"Schedule {table.collection_schedule.code} has no rate for {table.stakes.label} with "
            f"{missing.players} players; a floor manager must revise it before this hand can be dealt."
        ) from None
    for seat, fee in choice.cannot_pay:
        # ``fee``: the one of their position had they been dealt in with the players who are (the
        # band they would actually have been dealt at).
        have = chips.get(player_of[seat], 0)
        keep = format_cents(rules.to_be_dealt_in_cents)
        leave_out(
            seat,
            "cannot_pay",
            f"has {format_cents(have)}; needs {format_cents(fee + rules.to_be_dealt_in_cents)} "
            f"({format_cents(fee)} fee and {keep} in play)"
            if fee is not None
            else f"has {format_cents(have)}; the schedule has no fee band with room for this player",
        )
    if not choice.dealt:
        reasons = "; ".join(
            f"seat {o.seat}: {o.detail}" for o in sorted(left_out.values(), key=lambda o: o.seat)
        )
        count = len(set(seatings) - set(left_out))
        raise NotEnoughPlayers(
            f"Table {table.number} has {count} player(s) who can be dealt in; a hand needs at "
            f"least {MIN_PLAYERS}." + (f" Not dealt in: {reasons}." if reasons else "")
        )
    button, dealt, fees = choice.button, list(choice.dealt), list(choice.fees)
    eligible = set(seatings) - sit_out - {seat for seat, _fee in choice.cannot_pay}
    rate = rates[len(dealt)]
    # A non-empty choice has a button, and fees_for has found the rate of its band.
    assert button is not None
    assert rate is not None
    for seat in rotation.sitting_out(dealt, eligible):
        leave_out(seat, "rotates_out", f"{game.name} deals {game.hands_per_round} hands; dealt in next round")
    kill_seat, kill_pct, kill_blind_cents = _kill_for(table, buttons, dealt)
    return DealPlan(
        table_number=table.number,
        game=game.slug,
        at=at,
        button=button,
        dealt=tuple(
            DealtSeat(
                seat=seat,
                position=position,
                player_id=seatings[seat].player_id,
                player_name=seatings[seat].player.name,
                chips_cents=chips.get(seatings[seat].player_id, 0),
                fee_cents=fee,
            )
            for position, (seat, fee) in enumerate(zip(dealt, fees, strict=True), start=1)
        ),
        left_out=tuple(sorted(left_out.values(), key=lambda o: o.seat)),
        rate=rate,
        rules=rules,
        kill_seat=kill_seat,
        kill_multiplier_pct=kill_pct,
        kill_blind_cents=kill_blind_cents,
    )


TABLE_RELATIONS = ("game", "stakes", "collection_schedule")
"""What a table's rules, fees and screen read of it besides its own row."""


def _seatings(table: Table) -> dict[int, Seating]:
    return {
        s.seat.number: s
        # order_by(): Seating's Meta ordering would join the table (a dict needs no order).
        for s in Seating.objects.active().filter(table=table).select_related("seat", "player").order_by()
    }


def _check_sit_out(table: Table, seatings: Mapping[int, Seating], sit_out: set[int]) -> None:
    unknown = sorted(sit_out - set(seatings))
    if unknown:
        raise FloorValidationError(
            f"Nobody sits in seat(s) {', '.join(map(str, unknown))} at table {table.number}.",
            field="sit_out_seat_numbers",
        )


def preview_fees(
    *,
    table: Table,
    game: Game | None = None,
    sit_out_seat_numbers: Iterable[int] = (),
    hand_in_progress: bool | None = None,
) -> DealPlan:
    """What starting the next hand now would do: who is dealt in, the button, each fee. No writes.

    Same decision as :func:`start_hand` (which makes it again under the table lock). ``table``:
    the caller's read of it for this request; its game, stakes and schedule are read here unless
    that read brought them (a preview is a snapshot: the deal decides again under the lock and
    refuses fees other than the ones shown). ``hand_in_progress``: whether a hand is in progress at
    the table, when the caller has read it (None: read here); the plan then notes that it is the
    hand after that one. Raises TableClosed, NotEnoughPlayers, NoCollectionRate, ConfigMismatch
    (game).
    """
    if not all(_is_cached(table, name) for name in TABLE_RELATIONS):
        table = Table.objects.select_related(*TABLE_RELATIONS).get(pk=table.pk)
    if not table.is_open:
        raise TableClosed(f"Table {table.number} is closed.")
    played = floor.game_for_hand(table, game)
    seatings = _seatings(table)
    sit_out = set(sit_out_seat_numbers)
    _check_sit_out(table, seatings, sit_out)
    buttons = ButtonState.objects.select_related("button_seat", "kill_seat").filter(table=table).first()
    plan = _plan_deal(
        table=table,
        game=played,
        seatings=seatings,
        sit_out=sit_out,
        chips=ledger_selectors.table_chips(table=table),
        buttons=buttons,
        at=timezone.now(),
    )
    if hand_in_progress is None:
        hand_in_progress = table.hand_in_progress() is not None
    if hand_in_progress:
        plan.notes.append("A hand is in progress: this is the hand after it, with today's chips.")
    return plan


@service
def start_hand(
    *,
    table: Table,
    by: User,
    game: Game | None = None,
    sit_out_seat_numbers: Iterable[int] = (),
    expected_fees: Mapping[int, int] | None = None,
    boards: int | None = None,
) -> Hand:
    """Start the next hand with its fees: decide who is dealt in, collect the fees, deal.

    Under the table lock: the players who can pay their fee (and keep enough in play: 9 points at
    Chinese and Taiwanese poker) are dealt in, the others sit this hand out (:func:`_plan_deal`);
    the floor (:func:`tables.services.start_locked`) then
    rotates the buttons and records the hand and its players from exactly that set (so button and
    players dealt in agree). The hand starts at the time of the plan: its ``created_at`` is the
    time whose rate the plan read (:func:`tables.selectors.rate_for_hand` reads the same one), so
    a schedule version taking effect while the hand starts can't leave the fees and the hand's
    rate disagreeing. The fees are collected into the ledger as one transaction (key
    ``hand:<id>:fees``, the house account of the shift the hand started in), each
    :class:`HandPlayer` records its fee and the chips it has in play; and only then is the hand
    ``dealt``; when the band charges nothing the hand records why (``no_fee_reason``) instead.
    This is the only way a hand becomes ``dealt`` (a database trigger refuses any other).

    ``expected_fees``: the fee of each seat dealt in, by seat number, as the dealer was shown and
    confirmed them (:func:`preview_fees`). When given and the deal would now take anything else
    (a schedule version took effect, a player sat down), nothing is written and
    :class:`FeesChanged` says the new fees, to be confirmed again. Every terminal and page sends
    it; None (no check) is for callers with no dealer in front of a screen (tests, data loads).

    ``boards``: Taiwanese poker's boards agreed before the deal (1-3; default 1), recorded with the
    hand; the showdown must bring as many. The hand records its dealer: the one clocked in at the
    table (:func:`tables.services.check_runs_hands`: only they, or the floor, may deal).

    Raises NotYourTable, TableClosed, HandInProgress, NotEnoughPlayers, NoCollectionRate,
    ConfigMismatch, FeesChanged, FloorValidationError (unknown sit-out seat, boards).
    """
    table = floor.lock_table(table)
    down = floor.check_runs_hands(table, by)
    _hold_schedule(table)
    if not table.is_open:
        raise TableClosed(f"Table {table.number} is closed.")
    number = floor.next_hand_number(table, "start a hand at")
    played = floor.game_for_hand(table, game)
    agreed_boards = _agreed_boards(played, boards)
    seatings = _seatings(table)
    sit_out = set(sit_out_seat_numbers)
    _check_sit_out(table, seatings, sit_out)
    chips = ledger_selectors.table_chips(table=table)
    buttons = floor.lock_buttons(table)
    # The schedule row is held (_hold_schedule): no version can be added while the hand starts, and
    # one dated later than ``at`` is not in force at the hand's start, which is ``at``.
    at = timezone.now()
    plan = _plan_deal(
        table=table, game=played, seatings=seatings, sit_out=sit_out, chips=chips, buttons=buttons, at=at
    )
    if agreed_boards is not None and 7 * len(plan.dealt) + 5 * agreed_boards > 52:
        raise FloorValidationError(
            f"{agreed_boards} boards and 7 cards to each of {len(plan.dealt)} players "
            "need more than 52 cards.",
            field="boards",
        )
    if expected_fees is not None:
        _check_fees_as_shown(plan, expected_fees)
    fees = {d.seat: (d.fee_cents, d.chips_cents - d.fee_cents) for d in plan.dealt}
    hand, hand_players = floor.start_locked(
        table=table,
        number=number,
        played=played,
        seatings=seatings,
        buttons=buttons,
        sit_out=sit_out | plan.unable_to_pay,
        by=by,
        created_at=at,
        fees=fees,
    )
    dealt = [hp.seat.number for hp in hand_players]
    if dealt != [d.seat for d in plan.dealt] or hand.button_seat.number != plan.button:
        raise AssertionError(f"the floor dealt {dealt} with button {hand.button_seat.number}, planned {plan}")
    ledger.collect_fees(
        table=table,
        shift=Shift.at(hand.created_at),
        fees=[(hp.player, fees[hp.seat.number][0]) for hp in hand_players],
        hand=hand,
        user=floor.acting_user(by),
        idempotency_key=fees_key(hand),
        memo=f"Table {table.number} hand {hand.number}: collection, {plan.rate.fee_label}",
    )
    columns = floor.move_hand(hand, HandStatus.DEALT, by=by, save=False)
    hand.dealer_shift = down
    hand.dealer = down.dealer if down is not None else floor.acting_user(by)
    hand.boards = agreed_boards
    columns += ["dealer_shift", "dealer", "boards"]
    if not plan.total_fees_cents:
        hand.no_fee_reason = (
            f"{plan.rate.fee_label} for {len(plan.dealt)} players under schedule "
            f"{table.collection_schedule.code} version {plan.rate.version.number}: no fee due"
        )
        columns.append("no_fee_reason")
    if joker_in_deck(table=table, game=played):
        hand.joker = True
        columns.append("joker")
    hand.save(update_fields=columns)
    hand.dealt_players = hand_players
    hand.chips_after = {hp.player_id: fees[hp.seat.number][1] for hp in hand_players}  # chips - fee
    return hand


TAIWANESE = "taiwanese-poker"
# RULINGS §5 says "several boards agreed before the deal" without a limit; the house deals at most
# three (docs/hand-flow.md), and only as many as the deck holds after 7 cards to each player.
MAX_BOARDS = 3


def _agreed_boards(game: Game, boards: object) -> int | None:
    """Taiwanese poker's boards agreed before the deal (default 1); None for every other game."""
    if game.slug != TAIWANESE:
        if boards is not None:
            raise FloorValidationError(f"{game.name} has no boards to agree.", field="boards")
        return None
    if boards is None:
        return 1
    if not isinstance(boards, int) or isinstance(boards, bool) or not 1 <= boards <= MAX_BOARDS:
        raise FloorValidationError(f"Agree 1 to {MAX_BOARDS} boards before the deal.", field="boards")
    return boards


def joker_in_deck(*, table: Table, game: Game) -> bool:
    """Whether the joker is in the deck for ``game`` dealt at ``table``: only a game with a joker
    (lowball) dealt as the table's own game. 004 lowball rule 1: no joker is added when lowball
    is played in dealer's choice."""
    spec = POT_GAMES.get(game.slug)
    return spec is not None and spec.joker and not table.game.is_dealers_choice


def fees_as_shown(plan: DealPlan) -> dict[int, int]:
    """The fees of ``plan`` as a dealer confirms them: each seat dealt in, its fee."""
    return {d.seat: d.fee_cents for d in plan.dealt}


def _check_fees_as_shown(plan: DealPlan, expected: Mapping[int, int]) -> None:
    now = fees_as_shown(plan)
    if dict(expected) == now:
        return
    shown = ", ".join(f"seat {seat} {format_cents(fee)}" for seat, fee in sorted(expected.items())) or "none"
    due = ", ".join(f"seat {seat} {format_cents(fee)}" for seat, fee in sorted(now.items()))
    raise FeesChanged(
        f"The fees changed since they were shown: now {due} (total {format_cents(plan.total_fees_cents)}, "
        f"{plan.rate.fee_label}); shown {shown}. Nothing was taken: confirm the new fees.",
        field="expected_fees",
    )


def _hold_schedule(table: Table) -> None:
    """PostgreSQL: hold the table's collection schedule row ``FOR KEY SHARE`` until the hand is dealt.

    A new schedule version (:func:`tables.services.revise_schedule`) locks the schedule ``FOR
    UPDATE`` before it takes its ``effective_from`` (now at the earliest): so it either commits
    before this hand plans its fees (and the plan sees it), or waits for the deal and takes effect
    after the hand's start. ``KEY SHARE`` doesn't conflict with itself: hands at the tables sharing
    a schedule don't queue on its row. (The table lock doesn't take the joined schedule, game and
    stakes rows ``FOR UPDATE``.)
    """
    if connection.vendor != "postgresql":
        return  # SQLite serialises whole write transactions
    quote = connection.ops.quote_name
    meta = CollectionSchedule._meta
    assert meta.pk.column is not None  # a concrete primary key
    pk = quote(meta.pk.column)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {pk} FROM {quote(meta.db_table)} WHERE {pk} = %s FOR KEY SHARE",
            [table.collection_schedule_id],
        )


# --- Showdown ---------------------------------------------------------------------------------------------


# ``put_in_after_draw`` and ``checked_seven``: lowball's sevens rule (004 lowball rule 2); the
# engine refuses them in any other game.
POT_PLAYER_KEYS = frozenset({"seat", "cards", "put_in", "folded", "put_in_after_draw", "checked_seven"})
POT_ENGINE_KEYS = ("seat", "cards", "put_in", "folded", "put_in_after_draw", "checked_seven")
PLAYER_DEALER_GAMES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # game slug: (keys a player may give, top-level keys besides "players")
    "chinese-poker": (
        frozenset({"seat", "front", "middle", "back", "cards", "declare", "surrender", "fouled"}),
        frozenset(),
    ),
    "taiwanese-poker": (frozenset({"seat", "top", "middle", "bottom"}), frozenset({"board", "boards"})),
}


def _lock_hand(hand: Hand) -> tuple[Table, Hand]:
    """Lock the hand's table, then the hand (the floor's order), and return both fresh."""
    pk = hand.pk
    table = floor.lock_table(hand.table_id)
    # No joins (PostgreSQL plans each join; the ORM builds each row): the table is the row just
    # locked, and its game, stakes and schedule are the hand's unless they changed since the hand
    # started (a dealer's choice game; a table reconfigured after a hand that is over), in which
    # case they are read when used. The button's and kill's seats come with the players
    # (_hand_players).
    locked = Hand.objects.select_for_update().get(pk=pk)
    locked.table = table
    for name in ("game", "stakes", "collection_schedule"):
        if getattr(locked, f"{name}_id") == getattr(table, f"{name}_id"):
            setattr(locked, name, getattr(table, name))
    return table, locked


def _hand_players(hand: Hand) -> list[HandPlayer]:
    players = list(hand.players.select_related("seat", "player").order_by("position"))
    seats = {hp.seat_id: hp.seat for hp in players}
    for name in ("button_seat", "kill_seat"):
        seat_id = getattr(hand, f"{name}_id")
        if seat_id is not None and seat_id in seats and not _is_cached(hand, name):
            setattr(hand, name, seats[seat_id])  # else read when used (a seat not dealt in)
    return players


def _is_cached(row: Hand | Table, name: str) -> bool:
    """Whether the row's foreign key ``name`` (a hand's button_seat, kill_seat; a table's
    TABLE_RELATIONS) holds its object already."""
    fk = type(row)._meta.get_field(name)
    assert isinstance(fk, ForeignKey)
    return fk.is_cached(row)


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
    if game.kind == GameKind.POT:
        spec = POT_GAMES.get(game.slug)
        if spec is None:
            raise InvalidShowdown(f"{game.name} has no showdown in the rules engine.")
        top = {"players", "board"} if spec.board else {"players"}
        unknown = sorted(set(submitted) - top)
        if unknown:
            raise InvalidShowdown(f"unknown field(s) {', '.join(unknown)} for {game.name}.")
        entries = _seat_entries(submitted, POT_PLAYER_KEYS, dealt)
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
            players.append({k: entry[k] for k in POT_ENGINE_KEYS if k in entry})
        result: dict[str, Any] = {
            "game": game.slug,
            "chip": table.chip_unit_cents,
            "button": hand.button_seat.number,
            "players": players,
        }
        if spec.board:
            result["board"] = submitted.get("board")
        if spec.joker and not hand.joker:
            result["joker"] = False  # 004 lowball rule 1: no joker at dealer's choice
        return result
    if game.slug not in PLAYER_DEALER_GAMES:
        raise InvalidShowdown(f"{game.name} has no showdown in the rules engine.")
    player_keys, top_keys = PLAYER_DEALER_GAMES[game.slug]
    unknown = sorted(set(submitted) - top_keys - {"players"})
    if unknown:
        raise InvalidShowdown(f"unknown field(s) {', '.join(unknown)} for {game.name}.")
    entries = _seat_entries(submitted, player_keys, dealt)
    with_stacks: list[dict[str, Any]] = [
        entries[seat] | {"stack": chips.get(by_seat[seat].player_id, 0)} for seat in dealt
    ]
    result = {"game": game.slug, "point": hand.stakes.point_cents, "button": hand.button_seat.number}
    if game.slug == "chinese-poker":
        # A wrong card count is a typing slip to correct, not a foul to charge: the engine would
        # read it as fouled (RULINGS §3), so it is refused here unless the dealer marked the hand
        # fouled on purpose (004 rule 8: the house may foul it; the dealer decides).
        problem = count_problems({"players": with_stacks})
        if problem is not None:
            raise InvalidShowdown(
                f"{problem}. Correct the entry, or mark the hand fouled if the house fouls it (004 rule 8).",
                field="players",
            )
        result["rules"] = CHINESE_RULES
    else:
        result["chip"] = table.chip_unit_cents
        for key in top_keys & set(submitted):
            result[key] = submitted[key]
    result["players"] = with_stacks
    return result


def settlement_postings(
    *,
    hand: Hand,
    hand_players: Sequence[HandPlayer],
    engine_input: Mapping[str, Any],
    reading: Mapping[str, Any],
) -> dict[str, Any]:
    """The ledger lines of the settlement, in settlement order, checked against the engine's nets.

    Pot games (``kind: pot``): every put-in into the hand's pot (position order), then each pot's
    awards (main pot first), then the chips nobody called going back; each player's chips change
    by exactly the engine's ``net``. Chinese and Taiwanese poker (``kind: payments``): the engine's
    payments in its order, each ``amount`` after the all-in caps (zero payments listed, not posted).
    """
    player_of = {hp.seat.number: hp.player_id for hp in hand_players}
    if hand.game.kind == GameKind.POT:
        put_ins = [
            {"seat": p["seat"], "player": player_of[p["seat"]], "amount": p["put_in"]}
            for p in engine_input["players"]
            if p["put_in"] > 0
        ]
        awards = [
            {
                "seat": a["seat"],
                "player": player_of[a["seat"]],
                "amount": a["amount"],
                "pot": i,
                "share": a["share"],
            }
            for i, pot in enumerate(reading["pots"])
            for a in pot["awards"]
            if a["amount"] > 0
        ]
        returned = [
            {
                "seat": r["seat"],
                "player": player_of[r["seat"]],
                "amount": r["amount"],
                # The engine's reason, for a refund that isn't uncalled chips (the sevens rule).
                **({"reason": r["reason"]} if "reason" in r else {}),
            }
            for r in reading.get("returned", [])
            if r["amount"] > 0
        ]
        net = {seat: 0 for seat in player_of}
        for line in put_ins:
            net[line["seat"]] -= line["amount"]
        for line in awards + returned:
            net[line["seat"]] += line["amount"]
        expected = {int(seat): cents for seat, cents in reading["net"].items()}
        postings: dict[str, Any] = {"kind": "pot", "put_ins": put_ins, "awards": awards, "returned": returned}
    else:
        payments = [
            {
                "from_seat": p["from"],
                "to_seat": p["to"],
                "from_player": player_of[p["from"]],
                "to_player": player_of[p["to"]],
                "amount": p["amount"],
                "due": p.get("due", p["amount"]),
                "reason": p.get("reason", ""),
            }
            for p in reading["payments"]
        ]
        net = {seat: 0 for seat in player_of}
        for p in payments:
            net[p["from_seat"]] -= p["amount"]
            net[p["to_seat"]] += p["amount"]
        expected = {int(seat): data["net"] for seat, data in reading["players"].items()}
        postings = {"kind": "payments", "payments": payments}
    expected = {seat: expected.get(seat, 0) for seat in player_of}
    if net != expected or sum(net.values()) != 0:
        raise AssertionError(f"settlement lines give {net}, the engine's nets are {expected}")
    postings["net"] = {str(seat): cents for seat, cents in sorted(net.items())}
    return postings


@service
def submit_showdown(*, hand: Hand, submitted: Mapping[str, Any], by: User) -> HandResult:
    """Read the showdown the dealer entered and keep it for confirmation; nothing is posted.

    The entry (pot games: ``board`` and each seat's ``cards``, ``put_in``, ``folded``; Chinese
    poker: each seat's set hand or declaration; Taiwanese poker: ``boards`` and each seat's set
    hand) is checked against the hand and sent to :func:`poker.showdown.decide`. The
    reading (engine input, engine result, the ledger lines of the settlement) is stored as the
    hand's :class:`HandResult` and the hand moves to ``showdown``. Submitting again before
    confirmation replaces the reading (``revision`` + 1); the same entry again changes nothing.
    Chinese poker: a declared clean sweep is recorded on the seat with the time it was first
    entered (unless :func:`declare_sweep` recorded it earlier); an entry that drops a declaration
    on record is refused. Taiwanese poker: the entry brings the boards agreed before the deal.
    Raises NotYourTable, InvalidShowdown (400: the engine's message, or a seat or amount that
    doesn't fit), HandAlreadySettled, HandVoided, IllegalTransition (not dealt yet).
    """
    table, hand = _lock_hand(hand)
    floor.check_runs_hands(table, by)
    if hand.status == HandStatus.SETTLED:
        raise HandAlreadySettled(f"Hand {hand.number} at table {table.number} is already settled.")
    if hand.status == HandStatus.VOID:
        raise HandVoided(f"Hand {hand.number} at table {table.number} is void (misdeal).")
    if hand.status not in (HandStatus.DEALT, HandStatus.SHOWDOWN):
        raise IllegalTransition(f"Hand {hand.number} is {hand.status}; deal it before the showdown.")
    hand_players = _hand_players(hand)
    chips = ledger_selectors.table_chips(table=table)
    hand.dealt_players, hand.chips_after = hand_players, chips  # a showdown moves no chips
    engine_input = _engine_input(
        hand=hand, table=table, hand_players=hand_players, chips=chips, submitted=submitted
    )
    _check_boards(hand, engine_input)
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
    if existing is not None and existing.digest == digest:
        return existing
    _record_declarations(hand, hand_players, engine_input)
    try:
        reading = decide(engine_input)
    except ShowdownError as exc:
        raise InvalidShowdown(str(exc)) from None
    postings = settlement_postings(
        hand=hand, hand_players=hand_players, engine_input=engine_input, reading=reading
    )
    now, user = timezone.now(), floor.acting_user(by)
    values = {
        "status": ReadingStatus.PROPOSED,
        "digest": digest,
        "submitted": json.loads(_canonical(submitted)),
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
    return result


def outright_winner(reading: Mapping[str, Any]) -> int | None:
    """The seat that won every chip awarded in a pot game's reading, or None (a split, RULINGS §2)."""
    winners = {a["seat"] for pot in reading.get("pots", []) for a in pot["awards"] if a["amount"] > 0}
    return winners.pop() if len(winners) == 1 else None


@service
def confirm_settlement(*, hand: Hand, by: User, revision: int | None = None) -> HandResult:
    """Post the confirmed reading as ONE ledger transaction (key ``hand:<id>:settle``) and settle.

    ``revision`` (optional) is the reading the dealer saw; another one on record is a conflict.
    Pot games post through the hand's pot account (put-ins in, awards and uncalled chips out:
    every player's chips change by exactly the engine's ``net``) and record the outright winner
    for the kill (RULINGS §2); Chinese and Taiwanese poker post the engine's payments in its order.
    Confirming a settled hand again (same or no revision) returns the first result and posts
    nothing (``was_replayed``). Raises NoReading, HandVoided, ReadingChanged, HandAlreadySettled
    (a settled hand confirmed with another revision), FloorConflict ``chips_changed``, NotYourTable.
    """
    table, hand = _lock_hand(hand)
    floor.check_runs_hands(table, by)
    reading = (
        HandResult.objects.select_for_update(of=("self",))
        .select_related("submitted_by")
        .filter(hand=hand)
        .order_by()
        .first()
    )
    if reading is not None:
        reading.hand = hand  # the locked, fresh one: what the caller shows
    if hand.status == HandStatus.VOID:
        raise HandVoided(f"Hand {hand.number} at table {table.number} is void (misdeal); nothing is settled.")
    if hand.status == HandStatus.SETTLED:
        if (
            reading is not None
            and reading.status == ReadingStatus.SETTLED
            and revision in (None, reading.revision)
        ):
            reading.was_replayed = True
            return reading
        raise HandAlreadySettled(
            f"Hand {hand.number} at table {table.number} is already settled"
            + (f" with reading r{reading.revision}." if reading is not None else ".")
        )
    if reading is None or hand.status != HandStatus.SHOWDOWN:
        raise NoReading(f"Hand {hand.number} has no showdown reading to confirm; submit the showdown first.")
    if revision is not None and revision != reading.revision:
        raise ReadingChanged(
            f"Hand {hand.number}'s reading is r{reading.revision}, not r{revision}; "
            "review it before confirming."
        )
    hand_players = _hand_players(hand)
    players = {hp.player_id: hp.player for hp in hand_players}
    chips = _check_chips_unchanged(table, hand, hand_players, reading)
    postings = reading.postings
    memo = f"Table {table.number} hand {hand.number}: settlement of reading r{reading.revision}"
    user = floor.acting_user(by)
    txn: JournalTransaction | None
    if postings["kind"] == "pot":
        txn = ledger.award_pot(
            table=table,
            hand=hand,
            put_ins=[(players[line["player"]], line["amount"]) for line in postings["put_ins"]],
            awards=[
                (players[line["player"]], line["amount"])
                for line in postings["awards"] + postings["returned"]
            ],
            user=user,
            idempotency_key=settle_key(hand),
            memo=memo,
            input_digest=reading.digest,
        )
    else:
        txn = ledger.post_payments(
            table=table,
            hand=hand,
            payments=[
                (players[p["from_player"]], players[p["to_player"]], p["amount"])
                for p in postings["payments"]
            ],
            user=user,
            idempotency_key=settle_key(hand),
            memo=memo,
            input_digest=reading.digest,
        )
    reading.status = ReadingStatus.SETTLED
    reading.confirmed_at, reading.confirmed_by, reading.settlement = timezone.now(), user, txn
    winner = None
    if hand.game.kind == GameKind.POT:
        winner = outright_winner(reading.engine_result)
        reading.outright_winner_seat_number = winner
    reading.save(
        update_fields=["status", "confirmed_at", "confirmed_by", "settlement", "outright_winner_seat_number"]
    )
    # The hand is the latest at its table (it was in progress) and its result isn't recorded yet (it
    # wasn't settled): record_pot_result's checks hold; one UPDATE of the hand for both.
    fields = floor.move_hand(hand, HandStatus.SETTLED, by=by, save=False)
    if hand.game.kind == GameKind.POT:
        _buttons, recorded = floor.record_pot_result_locked(
            table=table,
            hand=hand,
            outright_winner_seat_number=winner,
            dealt={hp.seat.number: hp.seat for hp in hand_players},
        )
        fields += recorded
    hand.save(update_fields=fields)
    hand.dealt_players = hand_players
    hand.chips_after = {
        hp.player_id: chips.get(hp.player_id, 0) + postings["net"][str(hp.seat.number)] for hp in hand_players
    }
    return reading


def _check_chips_unchanged(
    table: Table, hand: Hand, hand_players: Sequence[HandPlayer], reading: HandResult
) -> dict[int, int]:
    """The chips the reading was made with are still there (they are locked during the hand; this
    guards against a posting made around the hand flow). Returns the table's chips by player."""
    chips = ledger_selectors.table_chips(table=table)
    for entry, hp in zip(reading.engine_input["players"], hand_players, strict=True):
        now = chips.get(hp.player_id, 0)
        stack = entry.get("stack")
        if (stack is not None and now != stack) or now < entry.get("put_in", 0):
            raise FloorConflict(
                f"Seat {hp.seat.number}'s chips changed since the reading ({format_cents(now)}); "
                "submit the showdown again.",
                code="chips_changed",
            )
    return chips


# --- Misdeal ----------------------------------------------------------------------------------------------


@service
def misdeal(*, hand: Hand, reason_code: str, reason: str = "", by: User) -> Hand:
    """Void the hand (004 rule 7, RULINGS §6): nothing is settled, and its collection fees go back
    to the players by a reversing ledger entry (key ``hand:<id>:fees:return``) unless the table
    keeps them (``Table.keep_fees_on_misdeal``). The button goes back (the floor's void_hand).

    ``reason_code`` is one of :class:`tables.choices.MisdealReason` (004's misdeals; ``other``
    needs ``reason``, the dealer's words, which any code may carry). Safe to retry: a void hand is
    returned as it is (``was_replayed``), nothing posted again. Raises NotYourTable,
    FloorValidationError (no or an unknown code), HandAlreadySettled.
    """
    table, hand = _lock_hand(hand)
    floor.check_runs_hands(table, by)
    if hand.status == HandStatus.VOID:
        hand.was_replayed = True
        return hand
    if hand.status == HandStatus.SETTLED:
        raise HandAlreadySettled(f"Hand {hand.number} at table {table.number} is settled; it can't be void.")
    code, text = floor.check_misdeal_reason(reason_code, reason)
    collected = JournalTransaction.objects.filter(idempotency_key=fees_key(hand)).first()
    if collected is not None and not table.keep_fees_on_misdeal:
        ledger.reverse(
            transaction=collected,
            user=floor.acting_user(by),
            reason=f"Misdeal, table {table.number} hand {hand.number}: {text}",
            idempotency_key=fees_return_key(hand),
        )
    voided = floor.void_hand(hand=hand, reason_code=code, reason=text, by=by)
    HandResult.objects.filter(hand=hand).exclude(status=ReadingStatus.VOID).update(status=ReadingStatus.VOID)
    return voided


# --- Clean sweeps declared before the showdown ---------------------------------------------------------


@service
def declare_sweep(*, hand: Hand, seat_number: int, sweep: str, by: User) -> HandPlayer:
    """Record that the player in ``seat_number`` declared a clean sweep (Chinese poker; RULINGS §3:
    declared before the showdown, the 13 cards unset) and when. Declaring the same again keeps the
    first time (``was_replayed``); the showdown entry must then carry the declaration.

    Raises NotYourTable, FloorValidationError (not Chinese poker, unknown sweep, seat not dealt in,
    another sweep already declared), HandAlreadySettled, HandVoided, IllegalTransition (not dealt).
    """
    table, hand = _lock_hand(hand)
    floor.check_runs_hands(table, by)
    if hand.status == HandStatus.SETTLED:
        raise HandAlreadySettled(f"Hand {hand.number} at table {table.number} is already settled.")
    if hand.status == HandStatus.VOID:
        raise HandVoided(f"Hand {hand.number} at table {table.number} is void (misdeal).")
    if hand.status not in (HandStatus.DEALT, HandStatus.SHOWDOWN):
        raise IllegalTransition(f"Hand {hand.number} is {hand.status}; deal it before a declaration.")
    if hand.game.slug != "chinese-poker":
        raise FloorValidationError(f"{hand.game.name} has no clean sweeps to declare.", field="sweep")
    kind = parse_sweep_kind(sweep) if isinstance(sweep, str) else None
    if kind is None:
        raise FloorValidationError(f"{sweep!r} is not a clean sweep the rules know.", field="sweep")
    seat = next((hp for hp in _hand_players(hand) if hp.seat.number == seat_number), None)
    if seat is None:
        raise FloorValidationError(f"Seat {seat_number} is not dealt in this hand.", field="seat_number")
    if seat.sweep_declared == kind:
        seat.was_replayed = True
        return seat
    if seat.sweep_declared:
        raise FloorValidationError(
            f"Seat {seat_number} already declared {seat.sweep_declared}; a declaration stands.", field="sweep"
        )
    seat.sweep_declared, seat.sweep_declared_at = str(kind), timezone.now()
    seat.save(update_fields=["sweep_declared", "sweep_declared_at"])
    return seat


def _record_declarations(
    hand: Hand, hand_players: Sequence[HandPlayer], engine_input: Mapping[str, Any]
) -> None:
    """Record each clean sweep the entry declares (when first entered), and refuse an entry that
    drops or changes one on record (a declaration stands: the engine fouls a false one)."""
    if hand.game.slug != "chinese-poker":
        return
    now = timezone.now()
    for hp, entry in zip(hand_players, engine_input["players"], strict=True):
        raw = entry.get("declare")
        kind = parse_sweep_kind(raw) if isinstance(raw, str) else None
        declared = str(kind) if kind is not None else (raw if isinstance(raw, str) else "")
        if hp.sweep_declared and declared != hp.sweep_declared:
            raise InvalidShowdown(
                f"Seat {hp.seat.number} declared {hp.sweep_declared} at "
                f"{timezone.localtime(hp.sweep_declared_at):%H:%M:%S}; the entry must declare it too.",
                field="players",
            )
        if declared and not hp.sweep_declared:
            hp.sweep_declared, hp.sweep_declared_at = declared, now
            hp.save(update_fields=["sweep_declared", "sweep_declared_at"])


def _check_boards(hand: Hand, engine_input: Mapping[str, Any]) -> None:
    """Taiwanese poker: the entry brings as many boards as were agreed before the deal."""
    if hand.boards is None or hand.game.slug != TAIWANESE:
        return
    boards = engine_input.get("boards")
    given = len(boards) if isinstance(boards, list) else (1 if "board" in engine_input else 0)
    if given != hand.boards:
        raise InvalidShowdown(
            f"{hand.boards} board(s) were agreed before the deal; the entry has {given}.", field="boards"
        )


# --- Reads -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerChips:
    """A player's chips at a table, as the dealer screen shows them."""

    player_id: int
    player_name: str
    seat: int | None
    chips_cents: int
    locked_in_hand: int | None
    bought_in: bool
    short_rebuy_used: bool


def table_chips(*, table: Table) -> list[PlayerChips]:
    """Every seated player, and every player who still has chips at ``table``, with their chips
    (from the ledger), the hand their chips are locked in, and the session's buy-in state."""
    seatings = _seatings(table)
    chips = ledger_selectors.table_chips(table=table)
    locked = dict(
        HandPlayer.objects.filter(hand__table=table, hand__status__in=HandStatus.in_progress()).values_list(
            "player_id", "hand_id"
        )
    )
    sessions = ChipMovement.objects.filter(seating__in=seatings.values()).values_list(
        "seating_id", "kind", "is_short"
    )
    bought = {sid for sid, kind, _ in sessions if kind == ChipMovementKind.BUY_IN}
    short = {sid for sid, _, is_short in sessions if is_short}
    rows = [
        PlayerChips(
            player_id=s.player_id,
            player_name=s.player.name,
            seat=seat,
            chips_cents=chips.get(s.player_id, 0),
            locked_in_hand=locked.get(s.player_id),
            bought_in=s.pk in bought,
            short_rebuy_used=s.pk in short,
        )
        for seat, s in sorted(seatings.items())
    ]
    seated = {s.player_id for s in seatings.values()}
    away = [pid for pid, cents in chips.items() if cents and pid not in seated]
    names = dict(Player.objects.filter(pk__in=away).values_list("pk", "name"))
    rows += [
        PlayerChips(
            player_id=pid,
            player_name=names.get(pid, ""),
            seat=None,
            chips_cents=chips[pid],
            locked_in_hand=None,
            bought_in=False,
            short_rebuy_used=False,
        )
        for pid in sorted(away)
    ]
    return rows
