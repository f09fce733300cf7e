"""The settlement: a reading's ledger lines (:func:`settlement_postings`, which the replay audit
uses too) and their posting as ONE ledger transaction under ``hand:<id>:settle`` once the dealer
confirms the reading (:func:`confirm_settlement`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils import timezone

from casino.core.db import service
from handflow import locks
from handflow.keys import settle_key
from ledger import selectors as ledger_selectors
from ledger import services as ledger
from tables import services as floor
from tables.errors import FloorConflict, HandAlreadySettled, HandVoided, NoReading, ReadingChanged
from tables.models import (
    GameKind,
    Hand,
    HandPlayer,
    HandResult,
    HandStatus,
    ReadingStatus,
    Table,
    format_cents,
)
from tables.services import User


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
    hand_players = locks.hand_players(hand)
    players = {hp.player_id: hp.player for hp in hand_players}
    chips = _check_chips_unchanged(table, hand, hand_players, reading)
    postings = reading.postings
    memo = f"Table {table.number} hand {hand.number}: settlement of reading r{reading.revision}"
    user = floor.acting_user(by)
    posted: ledger.Posted | None
    if postings["kind"] == "pot":
        posted = ledger.award_pot(
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
        posted = ledger.post_payments(
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
    txn = None if posted is None else posted.transaction
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
