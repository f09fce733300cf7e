"""Hand history: each hand of the period with its time, table, game, button, players, the fees due
and paid, the engine's reading and the payments the ledger posted for it.

A page of hands is read with a fixed number of queries (hands; their players; their ledger entries;
their waivers; their readings), whatever the page size.

The engine's reading is the floor's ``tables.HandResult`` (stored with the hand by the hand's money
flow). Where that model is not installed the column says so and the payments still come from the
ledger (``READING_UNAVAILABLE``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from typing import Any

from django.apps import apps
from django.db.models import Sum

from backoffice.reports.common import RateBook, ReportFilters, ReportMeta, in_report_snapshot, make_meta
from ledger.models import AccountKind, Entry, FeeWaiver, TransactionKind
from ledger.shifts import Shift
from tables.models import Hand, HandPlayer

TITLE = "Hand history"
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
READING_UNAVAILABLE = (
    "The engine's reading is not stored in this installation (the hand's result model is missing); "
    "payments are shown from the ledger."
)
SETTLEMENT_KINDS = (TransactionKind.POT_AWARD, TransactionKind.SETTLEMENT_PAYMENT)


@dataclasses.dataclass(frozen=True, slots=True)
class HandPlayerLine:
    position: int
    seat: int
    player_id: int
    player: str
    fee_due_cents: int | None
    fee_paid_cents: int
    result_cents: int


@dataclasses.dataclass(frozen=True, slots=True)
class PaymentLine:
    """One entry of the hand's settlement into or out of a player's chips, in posting order."""

    transaction_id: int
    kind: str
    player: str
    amount_cents: int


@dataclasses.dataclass(frozen=True, slots=True)
class HandLine:
    hand_id: int
    table_number: int
    hand_number: int
    started_at: dt.datetime
    shift: str
    game: str
    stakes: str
    schedule: str
    rate: str
    status: str
    button_seat: int
    button_player: str
    players: list[HandPlayerLine]
    fees_due_cents: int | None
    fees_paid_cents: int
    fees_returned_cents: int
    waived_cents: int
    reading_status: str
    reading: str
    payments: list[PaymentLine]
    void_reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class HandHistory:
    meta: ReportMeta
    total: int
    offset: int
    limit: int
    hands: list[HandLine]
    reading_available: bool
    note: str


def hand_result_model() -> Any | None:
    """The floor's hand-result model (the engine's reading), or None where it isn't installed."""
    try:
        return apps.get_model("tables", "HandResult")
    except LookupError:
        return None


@in_report_snapshot
def build_hand_history(filters: ReportFilters, *, offset: int = 0, limit: int = DEFAULT_LIMIT) -> HandHistory:
    """Hands of the period in start order, ``limit`` of them from ``offset`` (``limit`` is capped at
    ``MAX_LIMIT``)."""
    offset, limit = max(int(offset), 0), min(max(int(limit), 1), MAX_LIMIT)
    meta = make_meta("hand_history", TITLE, filters)
    hands_qs = filters.on_time(Hand.objects.all(), "created_at", table_field="table")
    total = hands_qs.count()
    hands = list(
        hands_qs.select_related("table", "game", "stakes", "collection_schedule", "button_seat").order_by(
            "created_at", "pk"
        )[offset : offset + limit]
    )
    ids = [hand.pk for hand in hands]
    players: dict[int, list[HandPlayer]] = defaultdict(list)
    for hand_player in (
        HandPlayer.objects.filter(hand_id__in=ids)
        .select_related("player", "seat")
        .order_by("hand_id", "position")
    ):
        players[hand_player.hand_id].append(hand_player)

    # Every entry of the page's hands into a player's chips or a house account, in posting order.
    fee_paid: dict[tuple[int, int], int] = defaultdict(int)  # (hand, player) -> cents paid
    fees_paid: dict[int, int] = defaultdict(int)
    fees_returned: dict[int, int] = defaultdict(int)
    results: dict[tuple[int, int], int] = defaultdict(int)
    payments: dict[int, list[PaymentLine]] = defaultdict(list)
    names = {hp.player_id: hp.player.name for rows in players.values() for hp in rows}
    entries = (
        Entry.objects.filter(transaction__hand_id__in=ids)
        .values(
            "transaction_id",
            "transaction__hand_id",
            "transaction__kind",
            "transaction__reverses__kind",
            "account__kind",
            "account__player_id",
            "account__player__name",
            "amount",
        )
        .order_by("transaction_id", "line")
    )
    for entry in entries:
        hand_id, kind, amount = entry["transaction__hand_id"], entry["transaction__kind"], entry["amount"]
        account_kind, player_id = entry["account__kind"], entry["account__player_id"]
        if account_kind == AccountKind.HOUSE_COLLECTION:
            if kind == TransactionKind.FEE:
                fees_paid[hand_id] += amount
            elif kind == TransactionKind.REVERSAL:
                fees_returned[hand_id] += -amount
        elif account_kind == AccountKind.PLAYER_CHIPS:
            names.setdefault(player_id, entry["account__player__name"])
            if kind == TransactionKind.FEE:
                fee_paid[(hand_id, player_id)] += -amount
            elif kind in SETTLEMENT_KINDS or (
                kind == TransactionKind.REVERSAL and entry["transaction__reverses__kind"] in SETTLEMENT_KINDS
            ):
                results[(hand_id, player_id)] += amount
                payments[hand_id].append(
                    PaymentLine(
                        transaction_id=entry["transaction_id"],
                        kind=kind,
                        player=entry["account__player__name"],
                        amount_cents=amount,
                    )
                )

    waived = {
        row["hand_id"]: int(row["cents"])
        for row in FeeWaiver.objects.filter(hand_id__in=ids)
        .values("hand_id")
        .annotate(cents=Sum("amount_cents"))
        .order_by()
    }
    readings, reading_available = _readings(ids)
    book = RateBook({hand.collection_schedule_id for hand in hands})
    lines = []
    for hand in hands:
        dealt = players.get(hand.pk, [])
        version = book.version_at(hand.collection_schedule_id, hand.created_at)
        version_id = version.pk if version else None
        due = book.fees_due(version_id, hand.stakes_id, len(dealt))
        button = next((hp for hp in dealt if hp.position == 1), None)
        status, reading = (
            readings.get(hand.pk, ("not recorded", "")) if reading_available else ("unavailable", "")
        )
        lines.append(
            HandLine(
                hand_id=hand.pk,
                table_number=hand.table.number,
                hand_number=hand.number,
                started_at=hand.created_at,
                shift=str(Shift.at(hand.created_at)),
                game=hand.game.name,
                stakes=hand.stakes.label,
                schedule=hand.collection_schedule.code,
                rate=book.rate_label(version_id, hand.stakes_id, len(dealt)),
                status=hand.status,
                button_seat=hand.button_seat.number,
                button_player=button.player.name if button else "",
                players=[
                    HandPlayerLine(
                        position=hp.position,
                        seat=hp.seat.number,
                        player_id=hp.player_id,
                        player=hp.player.name,
                        fee_due_cents=due[hp.position - 1] if due and hp.position <= len(due) else None,
                        fee_paid_cents=fee_paid.get((hand.pk, hp.player_id), 0),
                        result_cents=results.get((hand.pk, hp.player_id), 0),
                    )
                    for hp in dealt
                ],
                fees_due_cents=sum(due) if due is not None else None,
                fees_paid_cents=fees_paid.get(hand.pk, 0),
                fees_returned_cents=fees_returned.get(hand.pk, 0),
                waived_cents=waived.get(hand.pk, 0),
                reading_status=status,
                reading=reading,
                payments=payments.get(hand.pk, []),
                void_reason=hand.void_reason,
            )
        )
    return HandHistory(
        meta=meta,
        total=total,
        offset=offset,
        limit=limit,
        hands=lines,
        reading_available=reading_available,
        note="" if reading_available else READING_UNAVAILABLE,
    )


def _readings(hand_ids: list[int]) -> tuple[dict[int, tuple[str, str]], bool]:
    model = hand_result_model()
    if model is None:
        return {}, False
    readings: dict[int, tuple[str, str]] = {}
    for row in model.objects.filter(hand_id__in=hand_ids).values(
        "hand_id", "status", "revision", "engine_result"
    ):
        readings[row["hand_id"]] = (
            f"{row['status']} (r{row['revision']})",
            summarize_reading(row["engine_result"]),
        )
    return readings, True


def summarize_reading(result: Any) -> str:
    """One line for people from the engine's result (docs/showdown-json.md): pot awards with the winning
    hands for pot games, each seat's net for Chinese and Taiwanese poker."""
    if not isinstance(result, dict):
        return ""
    parts: list[str] = []
    hands = result.get("hands") if isinstance(result.get("hands"), dict) else {}
    for number, pot in enumerate(result.get("pots") or [], start=1):
        if not isinstance(pot, dict):
            continue
        awards = []
        for award in pot.get("awards") or []:
            if not isinstance(award, dict):
                continue
            seat = str(award.get("seat"))
            share = award.get("share", "whole")
            reading = hands.get(seat, {}) if isinstance(hands, dict) else {}
            name = reading.get("low" if share == "low" else "high", "") if isinstance(reading, dict) else ""
            awards.append(f"seat {seat} {share} {award.get('amount')}" + (f" ({name})" if name else ""))
        parts.append(f"pot {number} {pot.get('amount')}: " + ", ".join(awards))
    if not parts and isinstance(result.get("players"), dict):
        for seat, player in sorted(result["players"].items(), key=lambda item: str(item[0])):
            if not isinstance(player, dict):
                continue
            extra = " fouled" if player.get("fouled") else ""
            if player.get("sweep"):
                extra += f" sweep {player['sweep']}"
            parts.append(f"seat {seat} net {player.get('net')}{extra}")
    return "; ".join(parts)
