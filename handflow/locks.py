"""The hand's locks: the rows a service of the hand's money locks, in the one order, and the chips
a hand in progress locks.

Every service of the hand's money runs in ONE ``transaction.atomic()``
(:func:`casino.core.db.service`): it locks the table row first (``SELECT ... FOR UPDATE``, the
floor's lock, :func:`tables.services.lock_table`), then the hand (:func:`lock_hand`), and only then
calls the ledger, which is the ledger's own lock order (floor rows, accounts, chain head), so no
two flows can deadlock and the chips a rule was checked against can't change before they are
posted. Reads with no writes (:func:`handflow.deal.preview_fees`,
:func:`handflow.chips.table_chips`) take no locks.

A player dealt into a hand in progress has their chips locked in it: no chips come on or off the
table until the hand is settled or void (:func:`refuse_if_locked`; 004 rule 1, RULINGS §3).

Also here: the reads the services make of the rows they lock (a table's seatings, a hand's
players).
"""

from __future__ import annotations

from django.db.models import ForeignKey

from tables import services as floor
from tables.choices import HandStatus
from tables.errors import ChipsLocked
from tables.models import Hand, HandPlayer, Player, Seating, Table


def lock_hand(hand: Hand) -> tuple[Table, Hand]:
    """Lock the hand's table, then the hand (the floor's order), and return both fresh."""
    pk = hand.pk
    table = floor.lock_table(hand.table_id)
    # No joins (PostgreSQL plans each join; the ORM builds each row): the table is the row just
    # locked, and its game, stakes and schedule are the hand's unless they changed since the hand
    # started (a dealer's choice game; a table reconfigured after a hand that is over), in which
    # case they are read when used. The button's and kill's seats come with the players
    # (hand_players).
    locked = Hand.objects.select_for_update().get(pk=pk)
    locked.table = table
    for name in ("game", "stakes", "collection_schedule"):
        if getattr(locked, f"{name}_id") == getattr(table, f"{name}_id"):
            setattr(locked, name, getattr(table, name))
    return table, locked


def hand_players(hand: Hand) -> list[HandPlayer]:
    """The players dealt into ``hand``, in position order, with their seats and players; the hand's
    button and kill seats are taken from them when they are among those seats (no query more)."""
    players = list(hand.players.select_related("seat", "player").order_by("position"))
    seats = {hp.seat_id: hp.seat for hp in players}
    for name in ("button_seat", "kill_seat"):
        seat_id = getattr(hand, f"{name}_id")
        if seat_id is not None and seat_id in seats and not is_cached(hand, name):
            setattr(hand, name, seats[seat_id])  # else read when used (a seat not dealt in)
    return players


def is_cached(row: Hand | Table, name: str) -> bool:
    """Whether the row's foreign key ``name`` (a hand's button_seat, kill_seat; a table's
    :data:`handflow.deal.TABLE_RELATIONS`) holds its object already."""
    fk = type(row)._meta.get_field(name)
    assert isinstance(fk, ForeignKey)
    return fk.is_cached(row)


def _in_hand(table: Table, player: Player) -> Hand | None:
    """The hand in progress at ``table`` that ``player`` is dealt into, if any."""
    row = (
        HandPlayer.objects.filter(hand__table=table, hand__status__in=HandStatus.in_progress(), player=player)
        .select_related("hand")
        .first()
    )
    return row.hand if row else None


def refuse_if_locked(table: Table, player: Player, doing: str) -> None:
    """Raise ChipsLocked when ``player`` is dealt into a hand in progress at ``table``: no chips
    are ``doing`` ("added", "taken off") during a hand."""
    hand = _in_hand(table, player)
    if hand is not None:
        raise ChipsLocked(
            f"{player} is dealt into hand {hand.number} at table {table.number} ({hand.status}); "
            f"no chips are {doing} during a hand. Wait for it to be settled or void."
        )


def active_seating(table: Table, player: Player) -> Seating | None:
    """The player's current seating at ``table`` (with its seat), if seated."""
    return Seating.objects.active().filter(table=table, player=player).select_related("seat").first()


def seatings(table: Table) -> dict[int, Seating]:
    """Every current seating at ``table`` by seat number, with its seat and player."""
    return {
        s.seat.number: s
        # order_by(): Seating's Meta ordering would join the table (a dict needs no order).
        for s in Seating.objects.active().filter(table=table).select_related("seat", "player").order_by()
    }
