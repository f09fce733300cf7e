"""Fixtures of the ledger tests: minimal floor rows (tables, players, hands) and a user.

The floor rows are made directly with the floor's models, with only the fields they require: the
ledger needs a table, a player or a hand to point at, nothing of their rules.

The report tests (test_reports_*.py, test_drop_count.py, test_exports.py, test_tasks.py,
test_celery_worker.py) use ``room`` (a ``ReportRoom``: house data, schedules with versions in the
past, tables, seated players with chips, hands at stated times with their fees) and ``staff``
(users by role).
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Group, Permission
from django.db import connection
from django.utils import timezone

from ledger import services as ledger_services
from ledger.models import JournalTransaction
from ledger.shifts import Shift, room_zone
from tables import services as floor_services
from tables.house_data import load_house_data
from tables.models import (
    CollectionRate,
    CollectionSchedule,
    CollectionScheduleVersion,
    Game,
    Hand,
    HandPlayer,
    HandStatus,
    Player,
    Seat,
    Stakes,
    Table,
)
from tables.roles import AUDITOR, DEALER, FLOOR_MANAGER, sync_roles
from tables.selectors import rate_for_hand

_numbers = itertools.count(1)


@pytest.fixture(autouse=True)
def _postgres_only(request: pytest.FixtureRequest) -> None:
    """``@pytest.mark.postgres`` tests are skipped unless the database is PostgreSQL."""
    if request.node.get_closest_marker("postgres") and connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL=postgres://...)")


def create_table() -> Table:
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
        next(_numbers), (Table.objects.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    )
    return Table.objects.create(
        number=number, game=game, stakes=stakes, seat_count=5, collection_schedule=schedule
    )


def create_player(name: str = "player") -> Player:
    return Player.objects.create(name=name)


def create_hand(table: Table, *, status: str = "settled") -> Hand:
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


@pytest.fixture
def make_table(db: None) -> Callable[[], Table]:
    return create_table


@pytest.fixture
def make_player(db: None) -> Callable[..., Player]:
    return create_player


@pytest.fixture
def make_hand(db: None) -> Callable[..., Hand]:
    return create_hand


@pytest.fixture
def table(db: None) -> Table:
    return create_table()


@pytest.fixture
def other_table(db: None) -> Table:
    return create_table()


@pytest.fixture
def alice(db: None) -> Player:
    return create_player("Alice")


@pytest.fixture
def bob(db: None) -> Player:
    return create_player("Bob")


@pytest.fixture
def carol(db: None) -> Player:
    return create_player("Carol")


@pytest.fixture
def hand(table: Table) -> Hand:
    return create_hand(table)


@pytest.fixture
def cashier(db: None) -> AbstractBaseUser:
    user: AbstractBaseUser = get_user_model().objects.create_user(username="cashier", password=None)
    return user


@pytest.fixture
def keys() -> Iterator[str]:
    """Fresh idempotency keys: ``next(keys)``."""
    return (f"test-key-{n}" for n in itertools.count(1))


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
        return ledger_services.post_payments(
            table=hand.table,
            hand=hand,
            payments=payments,
            user=self.user,
            idempotency_key=f"hand:{hand.pk}:settle",
        )


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> None:
    """The house data is loaded once per test database (the report tests' schedules need it)."""
    with django_db_blocker.unblock():
        load_house_data()


@pytest.fixture
def house(db: None) -> None:
    """The house data (seed 004) is loaded (again, if a transactional test flushed it)."""
    if not Game.objects.filter(slug="holdem").exists():
        load_house_data()


@pytest.fixture
def room(house: None, cashier: AbstractBaseUser) -> ReportRoom:
    return ReportRoom(cashier)


@pytest.fixture
def staff(db: None) -> dict[str, AbstractBaseUser]:
    """Users by role: ``auditor``, ``dealer``, ``floor`` (the Floor manager group) from
    tables.roles; ``counter`` and ``manager`` also hold the report permissions listed above
    (``counter``: count team; ``manager``: floor manager who signs off); ``nobody`` has none."""
    groups: dict[str, Group] = sync_roles()
    model = get_user_model()
    made: dict[str, AbstractBaseUser] = {}
    for username, role in (("auditor", AUDITOR), ("dealer", DEALER), ("floor", FLOOR_MANAGER)):
        user = model.objects.create_user(username=username, password=None)
        user.groups.add(groups[role])
        made[username] = user
    for username, perms in (("counter", COUNT_TEAM_PERMISSIONS), ("manager", FLOOR_REPORT_PERMISSIONS)):
        user = model.objects.create_user(username=username, password=None)
        user.groups.add(groups[FLOOR_MANAGER])
        for name in perms:
            app_label, codename = name.split(".")
            user.user_permissions.add(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )
        made[username] = user
    made["nobody"] = model.objects.create_user(username="nobody", password=None)
    return made


@pytest.fixture
def a_past_day() -> dt.date:
    """A business date well in the past (shifts over, nothing else posted that day)."""
    return (timezone.localtime(timezone.now(), room_zone()) - dt.timedelta(days=30)).date()
