"""Plain helpers of the tests, imported by the tests and by the fixture modules (``tests/fixtures/``
and the conftests). Never import a fixture module: pytest gives its fixtures, it is no library.

* Bare floor rows (:func:`create_bare_table`, :func:`create_bare_player`, :func:`create_bare_hand`):
  made directly with the floor's models, only the fields they require; the ledger tests need a
  table, a player or a hand to point at, nothing of their rules. The fixtures ``make_bare_table``,
  ``make_bare_player`` and ``make_bare_hand`` return these functions.
* Hands: :func:`showdown_to_settle`, the showdown the ``settle_hand`` fixture submits.
* Reports (docs/reports.md): :class:`ReportRoom` (the ``room`` fixture) builds a card room with
  schedules, tables, hands and their fees; ``rpt_fee``, ``EACH_RATE`` and ``at_local`` are the
  report tests' own arithmetic and clock.
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from handflow import services as hand_flow
from ledger import services as ledger_services
from ledger.models import JournalTransaction
from ledger.shifts import Shift, room_zone
from tables import services as floor_services
from tables.choices import GameKind, HandStatus
from tables.models import (
    ChipMovement,
    CollectionRate,
    CollectionSchedule,
    CollectionScheduleVersion,
    Game,
    Hand,
    HandPlayer,
    Player,
    Seat,
    Seating,
    Stakes,
    Table,
)
from tables.selectors import rate_for_hand

# --- Bare floor rows (the ledger tests) ------------------------------------------------------------

_bare_numbers = itertools.count(1)


def create_bare_table() -> Table:
    """A table (with the game, stakes and schedule rows it needs), numbered uniquely."""
    game, _ = Game.objects.get_or_create(
        slug="ledger-test-game",
        defaults={"name": "Ledger test game", "kind": "player_dealer", "seat_count": 5},
    )
    stakes, _ = Stakes.objects.get_or_create(
        code="ledger-test-points", defaults={"structure": "points", "point_cents": 100}
    )
    schedule, _ = CollectionSchedule.objects.get_or_create(code="LEDGER-T", defaults={"name": "Ledger tests"})
    number = max(
        next(_bare_numbers),
        (Table.objects.order_by("-number").values_list("number", flat=True).first() or 0) + 1,
    )
    return Table.objects.create(
        number=number, game=game, stakes=stakes, seat_count=5, collection_schedule=schedule
    )


def create_bare_player(name: str = "player") -> Player:
    return Player.objects.create(name=name)


def create_bare_hand(table: Table, *, status: str = "settled") -> Hand:
    """A hand at ``table`` (settled by default, so a table can have many). These hands charge no
    fee (``no_fee_reason``): a hand is dealt only with its fees or a reason why none was due, which
    the database checks (ledger migration 0006)."""
    seat, _ = Seat.objects.get_or_create(table=table, number=1)
    number = (
        Hand.objects.filter(table=table).order_by("-number").values_list("number", flat=True).first() or 0
    ) + 1
    return Hand.objects.create(
        table=table,
        number=number,
        game=table.game,
        stakes=table.stakes,
        collection_schedule=table.collection_schedule,
        button_seat=seat,
        status=status,
        no_fee_reason="" if status in ("open", "void") else "ledger test hand: no fee due",
    )


# --- Hands: the showdown that settles a dealt hand simply (the settle_hand fixture) ----------------

# A complete deck in a fixed order: settle_hand's Chinese poker hands are its 13-card slices.
_DECK = [rank + suit for suit in "shdc" for rank in "23456789TJQKA"]
# Every board card of a hold'em split: the board plays for both live players (a royal flush).
_SPLIT_BOARD = ["Ah", "Kh", "Qh", "Jh", "Th"]


def showdown_to_settle(hand: Hand, winners: tuple[int, ...]) -> dict[str, Any]:
    """A showdown entry that settles ``hand`` simply (see the ``settle_hand`` fixture)."""
    dealt = [hp.seat.number for hp in hand.players.select_related("seat").order_by("position")]
    if hand.game.slug == "chinese-poker":
        # Everyone surrenders: two surrendered hands push (docs/chinese-taiwanese.md), no chips move.
        return {
            "players": [
                {"seat": seat, "surrender": True, "cards": _DECK[13 * i : 13 * (i + 1)]}
                for i, seat in enumerate(dealt)
            ]
        }
    if hand.game.kind != GameKind.POT:
        raise ValueError(f"settle_hand settles pot games and Chinese poker, not {hand.game.slug}")
    unknown = set(winners) - set(dealt)
    if unknown:
        raise ValueError(f"seat(s) {sorted(unknown)} were not dealt into hand {hand.number}")
    chip = hand.table.chip_unit_cents
    kill_blind = hand_flow.hand_kill_blind(hand)
    players: list[dict[str, Any]] = []
    for seat in dealt:
        # One chip each (the kill seat its kill blind): the winners take every chip put in.
        entry: dict[str, Any] = {
            "seat": seat,
            "put_in": kill_blind if kill_blind and hand.kill_seat.number == seat else chip,
        }
        if seat not in winners:
            entry["folded"] = True
        players.append(entry)
    if len(winners) == 1:  # everyone else folds: no showdown, no cards (docs/hand-flow.md)
        return {"board": [], "players": players}
    if hand.game.slug != "holdem":
        raise ValueError("settle_hand splits hold'em pots only (the board plays)")
    low = iter(["2c", "3d", "4c", "5d", "2d", "3c", "4d", "5c", "6c", "7d", "6d", "7c"])
    for entry in players:
        if entry["seat"] in winners:
            entry["cards"] = [next(low), next(low)]
            entry["put_in"] = max(entry["put_in"], *(p["put_in"] for p in players))  # everyone called
    return {"board": _SPLIT_BOARD, "players": players}


# --- Reports (docs/reports.md): a card room with schedules, tables, hands and their fees ------------

# The report tests' schedule (limit $4-$8): the button pays $1 (1-4 players), $2 (5-6), $3 (7-10);
# from REVISED_AT version 2: $1.50, $2.50, $3.50. Expected fees are computed from these numbers
# in the tests, independently of the report code.
RPT_RATES_V1 = {(1, 4): 100, (5, 6): 200, (7, 10): 300}
RPT_RATES_V2 = {(1, 4): 150, (5, 6): 250, (7, 10): 350}
# An each-player schedule for points tables: $1 from every player dealt in.
EACH_RATE = 100
SINCE = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)

# Permissions of the floor roles over the report records. tables/roles.py (not the ledger's) grants
# roles their permissions; until it lists these, the tests grant them to the users directly.
COUNT_TEAM_PERMISSIONS = ["ledger.view_reports", "ledger.add_dropcount", "ledger.view_dropcount"]
FLOOR_REPORT_PERMISSIONS = [
    *COUNT_TEAM_PERMISSIONS,
    "ledger.sign_off_variance",
    "ledger.add_variancesignoff",
    "ledger.add_feewaiver",
    "ledger.add_shiftclose",
]


def rpt_fee(players: int, *, revised: bool = False) -> int:
    """What the button owes under the report tests' schedule (the test's own arithmetic)."""
    rates = RPT_RATES_V2 if revised else RPT_RATES_V1
    return next(fee for (low, high), fee in rates.items() if low <= players <= high)


def _limit_rates(rates: dict[tuple[int, int], int]) -> list[dict[str, Any]]:
    return [
        {
            "structure": "limit",
            "small_bet_cents": 400,
            "big_bet_cents": 800,
            "players_min": low,
            "players_max": high,
            "payer": "button",
            "fee_cents": fee,
        }
        for (low, high), fee in rates.items()
    ]


def at_local(day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    """An aware time on the room's clock."""
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=room_zone())


class ReportRoom:
    """Builds the floor and the ledger rows the reports read: schedules (with versions in the past),
    tables (``tables.services``), seated players with chips (``ledger.services.buy_in``) and hands
    at stated times with their fees (``ledger.services.collect_fees``, key ``hand:<id>:fees``),
    misdeals (``ledger.services.reverse``) and settlements (``ledger.services.post_payments``).
    Hands are made directly (the floor's start_hand always starts "now")."""

    def __init__(self, user: AbstractBaseUser) -> None:
        self.user = user
        self.keys = itertools.count(1)
        self.revised_at: dt.datetime | None = None

    def limit_schedule(self, code: str = "RPT", *, revised_at: dt.datetime | None = None) -> Any:
        schedule = CollectionSchedule.objects.filter(code=code).first()
        if schedule is None:
            schedule = floor_services.create_schedule(
                code=code,
                name="Report tests",
                rates=_limit_rates(RPT_RATES_V1),
                by=None,
                effective_from=SINCE,
                allow_past=True,
            )
        if revised_at is not None:
            version = CollectionScheduleVersion.objects.create(
                schedule=schedule, number=2, effective_from=revised_at, reason="report tests: revision"
            )
            rates = floor_services.build_rates(_limit_rates(RPT_RATES_V2))
            for rate in rates:
                rate.version = version
            CollectionRate.objects.bulk_create(rates)
            self.revised_at = revised_at
        return schedule

    def each_schedule(self, code: str = "RPT-EACH") -> Any:
        return floor_services.create_schedule(
            code=code,
            name="Report tests, each player",
            rates=[
                {
                    "structure": "points",
                    "point_min_cents": 100,
                    "point_max_cents": 10000,
                    "players_min": 1,
                    "players_max": 10,
                    "payer": "each_player",
                    "fee_cents": EACH_RATE,
                }
            ],
            by=None,
            effective_from=SINCE,
            allow_past=True,
        )

    def table(self, number: int, *, schedule: Any, stakes: str = "limit-4-8", game: str = "holdem") -> Table:
        table = floor_services.create_table(
            number=number,
            game=Game.objects.get(slug=game),
            stakes=Stakes.objects.get(code=stakes),
            collection_schedule=schedule,
            seat_count=None,
            # 50-cent chips: the report schedules charge $1.50 and $2.50, and a fee is whole chips
            # of the table.
            chip_unit_cents=50,
            by=None,
        )
        return floor_services.open_table(table=table, by=None)

    def seat(self, table: Table, names: list[str], *, chips: int = 100_000) -> list[Player]:
        players = []
        for seat_number, name in enumerate(names, start=1):
            player = floor_services.create_player(name=name)
            floor_services.seat_player(table=table, seat_number=seat_number, player=player, by=None)
            ledger_services.buy_in(
                table=table, player=player, amount=chips, user=self.user, idempotency_key=self.key("buy")
            )
            players.append(player)
        return players

    def key(self, prefix: str) -> str:
        return f"rpt:{prefix}:{next(self.keys)}"

    def hand(
        self,
        table: Table,
        players: list[Player],
        *,
        at: dt.datetime,
        fees: list[int] | None = None,
        collect: bool = True,
        fee_shift: Shift | None = None,
        settled: bool = True,
    ) -> Hand:
        """A settled hand at ``at`` with ``players`` dealt in (the first is the button, position 1).
        Fees: the schedule's (``rate_for_hand``), or ``fees`` per position, or none (``collect``
        False). ``settled`` False: the hand stays dealt (for a misdeal)."""
        number = (
            Hand.objects.filter(table=table).order_by("-number").values_list("number", flat=True).first() or 0
        ) + 1
        seats = {
            s.player_id: s.seat for s in table.seatings.filter(left_at__isnull=True).select_related("seat")
        }
        hand = Hand.objects.create(
            table=table,
            number=number,
            game=table.game,
            stakes=table.stakes,
            collection_schedule=table.collection_schedule,
            button_seat=seats[players[0].pk],
            created_at=at,
        )
        HandPlayer.objects.bulk_create(
            HandPlayer(hand=hand, seat=seats[p.pk], player=p, position=i)
            for i, p in enumerate(players, start=1)
        )
        if collect:
            if fees is None:
                rate = rate_for_hand(hand)
                assert rate is not None
                fees = rate.fees_by_position(len(players))
            ledger_services.collect_fees(
                table=table,
                shift=fee_shift or Shift.at(at),
                fees=list(zip(players, fees, strict=True)),
                hand=hand,
                user=self.user,
                idempotency_key=f"hand:{hand.pk}:fees",
            )
        if not collect or not any(fees or ()):
            hand.no_fee_reason = "no fee collected in this report test"
        # Dealt only once its fees are in (the database refuses otherwise: ledger migration 0006).
        hand.status, hand.dealt_at = HandStatus.DEALT, at
        if settled:
            hand.status, hand.settled_at = HandStatus.SETTLED, at
        hand.save(update_fields=["status", "dealt_at", "settled_at", "no_fee_reason"])
        return hand

    def misdeal(self, hand: Hand, *, return_fees: bool = True, reason: str = "exposed card") -> Hand:
        if return_fees:
            ledger_services.reverse(
                transaction=JournalTransaction.objects.get(idempotency_key=f"hand:{hand.pk}:fees"),
                user=self.user,
                reason=f"misdeal: {reason}",
                idempotency_key=f"hand:{hand.pk}:fees:return",
            )
        Hand.objects.filter(pk=hand.pk).update(
            status=HandStatus.VOID, voided_at=hand.created_at, void_reason=reason
        )
        hand.refresh_from_db()
        return hand

    def settle(self, hand: Hand, payments: list[tuple[Player, Player, int]]) -> JournalTransaction | None:
        posted = ledger_services.post_payments(
            table=hand.table,
            hand=hand,
            payments=payments,
            user=self.user,
            idempotency_key=f"hand:{hand.pk}:settle",
        )
        return None if posted is None else posted.transaction


def chip_writes() -> tuple[int, int, int, int]:
    """What a chip movement writes, counted: ledger transactions, movements, seatings, players (a
    refused one writes none of them)."""
    return (
        JournalTransaction.objects.count(),
        ChipMovement.objects.count(),
        Seating.objects.count(),
        Player.objects.count(),
    )


def file_bytes(response: Any) -> bytes:
    """A download's bytes: a streamed file's chunks (an export's file from disk) or the content."""
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return bytes(response.content)
