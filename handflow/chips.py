"""A player's chips at a table: the buy-in (a walk-in is created by it), the rebuy, the
cash-out, the table's chip rules, and the chips as the dealer screen shows them.

Each purchase or cash-out is posted through :mod:`ledger.services` under the caller's idempotency
key (the API sends ``req:<Idempotency-Key>``) and recorded as a :class:`tables.models.ChipMovement`
in the same transaction; each returns a :class:`Movement`: the movement, and whether it was made
before (a retry under the same key returns the first movement, ``replayed``, and posts nothing).
No chips come on or off while the player is dealt into a hand in progress
(:func:`handflow.locks.refuse_if_locked`). :func:`table_chips` is a read and takes no locks.

These services are the one place of the rules of moving chips; the floor page and the API ask
their questions first for the screen's sake, but decide nothing. Under the table's lock, each:
checks who moves the chips (:func:`tables.services.check_moves_chips`: the dealer clocked in at
the table, the floor or the cage); for a buy-in, asks "same person?" of a walk-in
(:func:`tables.services.create_player`) and seats the player by the floor's one-table rule
(:func:`tables.services.seat_player`, ``elsewhere_reason``); and before posting, requires the
player's identification past the gaming day's report threshold
(:func:`tables.services.require_identification`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from django.contrib.auth.models import AbstractBaseUser

from casino.core.db import service
from casino.core.money import format_cents
from handflow import locks
from ledger import selectors as ledger_selectors
from ledger import services as ledger
from tables import services as floor
from tables.chip_rules import ChipRules, chip_rules
from tables.choices import HandStatus
from tables.errors import (
    AlreadyBoughtIn,
    FloorValidationError,
    IdempotencyKeyReused,
    NoBuyIn,
    NoChips,
    NotSeated,
    PlayerAlreadySeated,
    ShortRebuyUsed,
)
from tables.models import ChipMovement, ChipMovementKind, HandPlayer, Player, Seating, Table
from tables.services import User


@dataclass(frozen=True, slots=True)
class Movement:
    """What a buy-in, rebuy or cash-out did: its :class:`ChipMovement`, and ``replayed`` when the
    request had already been carried out under its key (the first movement, nothing posted again)."""

    movement: ChipMovement
    replayed: bool = False


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
    ) -> ledger.Posted: ...


_LEDGER_POSTING: dict[str, _Posting] = {
    ChipMovementKind.BUY_IN: ledger.buy_in,
    ChipMovementKind.REBUY: ledger.rebuy,
    ChipMovementKind.CASH_OUT: ledger.cash_out,
}


def table_rules(table: Table) -> ChipRules:
    """The chip rules of ``table`` (buy-in range, short rebuy, chips needed to be dealt in)."""
    return chip_rules(stakes=table.stakes, chip_unit_cents=table.chip_unit_cents)


# --- Buy-in, rebuy, cash-out -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Asked:
    """A buy-in, rebuy or cash-out as asked (``amount`` None: a cash-out's, the stack), at its
    table locked and checked (:meth:`at`): the steps they share, in order (:meth:`replayed`;
    for a buy-in or a rebuy :meth:`sell`; :meth:`post`)."""

    kind: ChipMovementKind
    table: Table
    amount: int | None
    by: User
    idempotency_key: str

    @classmethod
    def at(
        cls, kind: ChipMovementKind, *, table: Table, amount: int | None, by: User, idempotency_key: str
    ) -> _Asked:
        """The table locked (the floor's lock, first), and who moves its chips checked under that
        lock (:func:`tables.services.check_moves_chips`: the dealer clocked in there, the floor or
        the cage; NotYourTable for anyone else), before anything else is read."""
        locked = floor.lock_table(table)
        floor.check_moves_chips(locked, by)
        return cls(kind, locked, amount, by, idempotency_key)

    def replayed(self, player: Player | str) -> Movement | None:
        """The movement already made under the key (a retry), or None. ``player`` is the player,
        or a walk-in's name (the retry of a walk-in's buy-in names the player it created).

        Raises :class:`IdempotencyKeyReused` when the key was used for another request (another
        kind, table, player, or amount; a cash-out's amount is the stack, whatever it was).
        """
        movement = (
            ChipMovement.objects.filter(transaction__idempotency_key=self.idempotency_key)
            .select_related("player")
            .first()
        )
        if movement is None:
            return None
        same_player = (
            movement.player.name == player.strip()
            if isinstance(player, str)
            else movement.player_id == player.pk
        )
        same = (movement.kind, movement.table_id) == (self.kind, self.table.pk) and (
            self.amount is None or movement.amount_cents == self.amount
        )
        if not (same and same_player):
            raise IdempotencyKeyReused(
                f"The key {self.idempotency_key!r} was already used for another request."
            )
        return Movement(movement, replayed=True)

    def post(
        self, player: Player, seating: Seating | None, amount: int, memo: str, *, is_short: bool = False
    ) -> Movement:
        """Post the movement to the ledger and record its :class:`ChipMovement`, in the caller's
        transaction, once the table's checks are made. Every movement passes the gaming day's
        identification rule here first (:func:`tables.services.require_identification`:
        IdentificationRequired past the report threshold with no identification on record), so
        none is posted without it."""
        floor.require_identification(player=player, kind=self.kind, amount_cents=amount)
        user = floor.acting_user(self.by)
        posted = _LEDGER_POSTING[self.kind](
            table=self.table,
            player=player,
            amount=amount,
            user=user,
            idempotency_key=self.idempotency_key,
            memo=memo,
        )
        movement = ChipMovement.objects.create(
            table=self.table,
            player=player,
            seating=seating,
            kind=self.kind,
            amount_cents=amount,
            is_short=is_short,
            transaction=posted.transaction,
            created_by=user,
        )
        return Movement(movement)

    def sell(self, player: Player, seating: Seating) -> Movement:
        """Sell the chips once the session's seating is known, in this order: no chips are added
        during a hand (ChipsLocked); the session has no buy-in yet for a buy-in (AlreadyBoughtIn),
        has one for a rebuy (NoBuyIn); the amount fits the table's rules (BuyInRefused), a short
        rebuy is the session's only one (ShortRebuyUsed); then the posting
        (:meth:`post`, with its identification rule)."""
        table, amount = self.table, self.amount
        assert amount is not None  # a purchase names its amount (a cash-out doesn't sell)
        locks.refuse_if_locked(table, player, "added")
        session = ChipMovement.objects.filter(seating=seating)
        bought_in = session.filter(kind=ChipMovementKind.BUY_IN).exists()
        rules = table_rules(table)
        chips = ledger_selectors.player_chips(table=table, player=player)
        is_short = False
        if self.kind == ChipMovementKind.BUY_IN:
            if bought_in:
                raise AlreadyBoughtIn(
                    f"{player} already bought in at table {table.number}; more chips are a rebuy."
                )
            rules.check_buy_in(amount=amount, chips_before=chips)
            what = "Buy-in"
        else:
            if not bought_in:
                raise NoBuyIn(
                    f"{player} has not bought in at table {table.number} since sitting down; buy in first."
                )
            is_short = rules.classify_rebuy(amount=amount, chips_before=chips)
            if is_short and session.filter(is_short=True).exists():
                raise ShortRebuyUsed(
                    f"{player} already made the one short rebuy of this session; a rebuy is now at least "
                    f"{format_cents(rules.minimum_cents)}."
                )
            what = "Short rebuy" if is_short else "Rebuy"
        return self.post(
            player,
            seating,
            amount,
            f"{what}, table {table.number} seat {seating.seat.number}",
            is_short=is_short,
        )


def _seating_for_buy_in(
    *, table: Table, player: Player, seat_number: int | None, by: User, elsewhere_reason: str
) -> Seating:
    """The player's seating at ``table``: the current one (in ``seat_number`` if given:
    PlayerAlreadySeated otherwise), or a new one in ``seat_number`` (NotSeated without it), made by
    :func:`tables.services.seat_player` with its rules: one table at a time (SeatedElsewhere unless
    ``elsewhere_reason`` says why the floor allows a second, kept on the seating), SeatTaken..."""
    seating = locks.active_seating(table, player)
    if seating is None:
        if seat_number is None:
            raise NotSeated(
                f"{player} is not seated at table {table.number}; give the seat to buy in for.",
                field="seat_number",
            )
        return floor.seat_player(
            table=table, seat_number=seat_number, player=player, by=by, elsewhere_reason=elsewhere_reason
        )
    if seat_number is not None and seating.seat.number != seat_number:
        raise PlayerAlreadySeated(
            f"{player} already sits in seat {seating.seat.number} at table {table.number}.",
            field="seat_number",
        )
    return seating


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
    new_player_confirmed: bool = False,
    elsewhere_reason: str = "",
) -> Movement:
    """The player's first chips of a session at ``table``: the cage sells ``amount_cents``.

    Only the dealer clocked in at ``table``, the floor or the cage sells them
    (:func:`tables.services.check_moves_chips`: NotYourTable, 403, for anyone else).

    ``player``, or for a walk-in ``new_player_name``: the player is then created in the same
    transaction, so a refused buy-in leaves no player behind (and a retry under the same key
    creates none twice). Exactly one of the two is given. A walk-in whose name (its key) matches
    a player on file is refused with PossibleDuplicate ("same person?") unless
    ``new_player_confirmed`` says the floor found it is someone else.

    A player not seated at the table is seated in ``seat_number`` in the same transaction (two
    buy-ins racing for one seat: one is seated and gets the chips, the other gets SeatTaken and
    nothing is posted), by :func:`tables.services.seat_player`: one sitting at another table is
    refused (SeatedElsewhere) unless ``elsewhere_reason`` says why the floor allows a second
    table (kept on the seating). The amount must fit :class:`tables.chip_rules.ChipRules`, and
    past the gaming day's report threshold the player's identification must be on record
    (IdentificationRequired). Refused while the player is dealt into a hand in progress
    (ChipsLocked), or when the session already has its buy-in (AlreadyBoughtIn: use
    :func:`rebuy`). A retry under the same key returns the first movement (``replayed``) and posts
    nothing.
    """
    asked = _Asked.at(
        ChipMovementKind.BUY_IN, table=table, amount=amount_cents, by=by, idempotency_key=idempotency_key
    )
    if (player is None) == (new_player_name is None):
        raise FloorValidationError("Choose a player or type a new player's name, not both.", field="player")
    if done := asked.replayed(player or new_player_name or ""):
        return done
    if player is None:
        player = floor.create_player(
            name=new_player_name or "", by=by, check_same_person=not new_player_confirmed
        )
    seating = _seating_for_buy_in(
        table=asked.table,
        player=player,
        seat_number=seat_number,
        by=by,
        elsewhere_reason=elsewhere_reason,
    )
    return asked.sell(player, seating)


@service
def rebuy(*, table: Table, player: Player, amount_cents: int, by: User, idempotency_key: str) -> Movement:
    """More chips for a seated player who bought in this session.

    A full rebuy is at least the minimum buy-in; one *short* rebuy per session may be smaller, down
    to half of it (10 points at Chinese and Taiwanese poker). Refused to anyone but the dealer
    clocked in at ``table``, the floor or the cage (NotYourTable), while the player is dealt into
    a hand in progress (ChipsLocked), before the session's buy-in (NoBuyIn), for a second short
    rebuy (ShortRebuyUsed), when the amount breaks the table's rules (BuyInRefused), or past the
    gaming day's report threshold with no identification on record (IdentificationRequired).
    """
    asked = _Asked.at(
        ChipMovementKind.REBUY, table=table, amount=amount_cents, by=by, idempotency_key=idempotency_key
    )
    if done := asked.replayed(player):
        return done
    seating = locks.active_seating(asked.table, player)
    if seating is None:
        raise NotSeated(f"{player} is not seated at table {asked.table.number}.", field="player")
    return asked.sell(player, seating)


@service
def cash_out(*, table: Table, player: Player, by: User, idempotency_key: str) -> Movement:
    """The player leaves the table with all their chips: the seating ends and the cage buys them back.

    No chips come off a table while the player stays (Robert's Rules: no "going south"), so a
    cash-out is always the whole stack and ends the player's seating (if still seated). Refused
    to anyone but the dealer clocked in at ``table``, the floor or the cage (NotYourTable), while
    the player is dealt into a hand in progress (ChipsLocked), with no chips (NoChips), or past
    the gaming day's report threshold with no identification on record (IdentificationRequired).
    """
    asked = _Asked.at(
        ChipMovementKind.CASH_OUT, table=table, amount=None, by=by, idempotency_key=idempotency_key
    )
    if done := asked.replayed(player):
        return done
    table = asked.table
    locks.refuse_if_locked(table, player, "taken off")
    chips = ledger_selectors.player_chips(table=table, player=player)
    if chips <= 0:
        raise NoChips(f"{player} has no chips at table {table.number}.")
    seating = locks.active_seating(table, player)
    if seating is not None:
        floor.unseat_player(seating=seating, by=by)
    return asked.post(player, seating, chips, f"Cash-out, table {table.number}")


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
    seatings = locks.seatings(table)
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
