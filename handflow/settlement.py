"""The settlement: the confirmed reading's ledger lines (:class:`poker.postings.Postings`, stored
with the reading by the showdown) posted as ONE ledger transaction under ``hand:<id>:settle`` once
the dealer confirms the reading (:func:`confirm_settlement`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils import timezone

from casino.core.db import service
from casino.core.money import format_cents
from handflow import locks
from handflow.keys import settle_key
from ledger import selectors as ledger_selectors
from ledger import services as ledger
from poker.postings import Postings, PostingsKind
from poker.reading import Reading
from poker.showdown_input import ShowdownInput
from tables import services as floor
from tables.choices import HandStatus
from tables.errors import FloorConflict, HandAlreadySettled, HandVoided, NoReading, ReadingChanged
from tables.models import Hand, HandPlayer, HandResult, ReadingStatus, Table
from tables.services import User


@dataclass(frozen=True, slots=True)
class Settled:
    """A confirmed reading: the hand's :class:`HandResult` (its hand the locked one, with its table,
    game, stakes and schedule), and either ``replayed`` (the hand was settled already: nothing
    posted again, ``players`` and ``chips_after`` None) or the players dealt in by position (seat
    and player loaded) with each one's chips at the table after the settlement, by player id."""

    reading: HandResult
    replayed: bool = False
    players: tuple[HandPlayer, ...] | None = None
    chips_after: dict[int, int] | None = None

    @property
    def hand(self) -> Hand:
        return self.reading.hand


@service
def confirm_settlement(*, hand: Hand, by: User, revision: int | None = None) -> Settled:
    """Post the confirmed reading as ONE ledger transaction (key ``hand:<id>:settle``) and settle.

    ``revision`` (optional) is the reading the dealer saw; another one on record is a conflict.
    Pot games post through the hand's pot account (put-ins in, awards and uncalled chips out:
    every player's chips change by exactly the engine's ``net``) and record the outright winner
    for the kill (RULINGS §2); Chinese and Taiwanese poker post the engine's payments in its order.
    Confirming a settled hand again (same or no revision) returns the first result and posts
    nothing (``replayed``). Raises NoReading, HandVoided, ReadingChanged, HandAlreadySettled
    (a settled hand confirmed with another revision), FloorConflict ``chips_changed``, NotYourTable.
    """
    table, hand = locks.lock_hand(hand)
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
            return Settled(reading, replayed=True)
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
    hand_players = locks.hand_players(hand)
    players = {hp.player_id: hp.player for hp in hand_players}
    chips = _check_chips_unchanged(table, hand, hand_players, reading)
    postings = Postings.from_json(reading.postings)
    memo = f"Table {table.number} hand {hand.number}: settlement of reading r{reading.revision}"
    user = floor.acting_user(by)
    posted: ledger.Posted | None
    if postings.kind is PostingsKind.POT:
        posted = ledger.award_pot(
            table=table,
            hand=hand,
            put_ins=[(players[player], cents) for player, cents in postings.into_pot()],
            awards=[(players[player], cents) for player, cents in postings.out_of_pot()],
            user=user,
            idempotency_key=settle_key(hand),
            memo=memo,
            input_digest=reading.digest,
        )
    else:
        posted = ledger.post_payments(
            table=table,
            hand=hand,
            payments=[
                (players[payer], players[payee], cents) for payer, payee, cents in postings.transfers()
            ],
            user=user,
            idempotency_key=settle_key(hand),
            memo=memo,
            input_digest=reading.digest,
        )
    reading.status = ReadingStatus.SETTLED
    txn = None if posted is None else posted.transaction
    reading.confirmed_at, reading.confirmed_by, reading.settlement = timezone.now(), user, txn
    winner = None
    if postings.kind is PostingsKind.POT:
        winner = Reading.from_json(reading.engine_result).outright_winner
        reading.outright_winner_seat_number = winner
    reading.save(
        update_fields=["status", "confirmed_at", "confirmed_by", "settlement", "outright_winner_seat_number"]
    )
    # The hand is the latest at its table (it was in progress) and its result isn't recorded yet (it
    # wasn't settled): record_pot_result's checks hold; one UPDATE of the hand for both.
    fields = floor.move_hand(hand, HandStatus.SETTLED, by=by, save=False)
    if postings.kind is PostingsKind.POT:
        _buttons, recorded = floor.record_pot_result_locked(
            table=table,
            hand=hand,
            outright_winner_seat_number=winner,
            dealt={hp.seat.number: hp.seat for hp in hand_players},
        )
        fields += recorded
    hand.save(update_fields=fields)
    net = postings.net
    chips_after = {hp.player_id: chips.get(hp.player_id, 0) + net[hp.seat.number] for hp in hand_players}
    return Settled(reading, players=tuple(hand_players), chips_after=chips_after)


def _check_chips_unchanged(
    table: Table, hand: Hand, hand_players: Sequence[HandPlayer], reading: HandResult
) -> dict[int, int]:
    """The chips the reading was made with are still there (they are locked during the hand; this
    guards against a posting made around the hand flow). Returns the table's chips by player."""
    chips = ledger_selectors.table_chips(table=table)
    for entry, hp in zip(ShowdownInput.from_json(reading.engine_input).players, hand_players, strict=True):
        now = chips.get(hp.player_id, 0)
        if (entry.stack is not None and now != entry.stack) or now < entry.put_in_cents:
            raise FloorConflict(
                f"Seat {hp.seat.number}'s chips changed since the reading ({format_cents(now)}); "
                "submit the showdown again.",
                code="chips_changed",
            )
    return chips
