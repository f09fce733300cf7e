"""The collection report: per table, game, stakes and schedule, the hands dealt, the players dealt
in, the fees due under the schedule in force, the fees the ledger collected for those hands,
returned and waived, and a reconciliation with the house-collection accounts of the period.

A fixed number of aggregate queries, none per hand:

1. hands of the period grouped by (business date, shift, table, game, stakes, schedule, schedule
   version in force at the hand's start, players dealt in) -> hands, void hands. The version is a
   SQL ``CASE`` over the versions' ``effective_from`` (``RateBook.version_case``) and the players
   a correlated ``COUNT`` of ``HandPlayer``; the fee due of each group is then
   ``hands x sum(rate.fees_by_position(players))`` with the rate looked up in memory;
2. the house-collection entries of the fee and reversal transactions of the period's hands,
   grouped by (hand's business date and hour, table, game, stakes, schedule, status, transaction
   kind, house account) -> cents. Driven by the hands (their ``created_at``), so the database reads
   only the period's transactions through their ``hand_id`` index;
3. the house-collection accounts of the period's shifts with their balances (the ledger's view:
   what the drop is counted against);
4. fee waivers of the period's hands grouped like (1), and the waivers themselves (each player
   named as at the hand's start: :mod:`tables.player_names`, one query for the renames).

Every fee is attributed to its hand: ``unexplained = due - collected - waived`` is a fee due that
was neither collected nor waived with a reason (negative: collected beyond the schedule). Fees
returned on a misdeal are shown apart (the void hand explains them; a return for a hand that is
not void is flagged). The reconciliation compares each house account's balance with the fees of
the period's hands booked to it: a difference (a fee posted without a hand, or for a hand of
another period, or anything else posted there) is flagged, and so is a fee booked to the house
account of a shift other than its hand's.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from typing import Any, ClassVar

from django.db.models import Count, OuterRef, Q, Subquery, Sum
from django.db.models.functions import Coalesce, ExtractHour

from backoffice.reports.common import (
    RateBook,
    ReportFilters,
    ReportMeta,
    local_date,
    make_meta,
    report_snapshot,
    shift_code_of,
)
from ledger.models import Account, AccountKind, Entry, FeeWaiver, ShiftClose, TransactionKind
from ledger.shifts import SHIFT_STARTS, Shift, ShiftCode, room_zone
from tables.choices import HandStatus
from tables.models import CollectionSchedule, Game, Hand, HandPlayer, Stakes, Table
from tables.player_names import name_history

TITLE = "Collection report"

GroupKey = tuple[int, int, int, int]
"""(table id, game id, stakes id, schedule id) of the hands of a row."""

ShiftKey = tuple[dt.date, str]
"""(business date, shift code)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Figures:
    """The figures of one row, one shift or the total. All money in cents; fees are those of the
    hands counted here, whichever house account they were booked to."""

    hands: int = 0
    void_hands: int = 0
    players: int = 0
    hands_without_rate: int = 0
    fees_due_cents: int = 0
    fees_collected_cents: int = 0
    fees_returned_cents: int = 0
    waived_cents: int = 0

    @property
    def net_collected_cents(self) -> int:
        """What the house kept of these hands' fees: collected - returned."""
        return self.fees_collected_cents - self.fees_returned_cents

    @property
    def unexplained_cents(self) -> int:
        """Due but neither collected nor waived (negative: collected beyond what was due)."""
        return self.fees_due_cents - self.fees_collected_cents - self.waived_cents


@dataclasses.dataclass(frozen=True, slots=True)
class CollectionRow:
    """One table, game, stakes and schedule."""

    table_number: int
    game: str
    stakes: str
    schedule: str
    figures: Figures
    net_collected_cents: int
    unexplained_cents: int
    returned_without_void_cents: int


@dataclasses.dataclass(frozen=True, slots=True)
class ShiftLine:
    """One shift of the period: its hands' figures, and the ledger's house-collection balance of
    the shift (all tables in scope) with the part not explained by the period's hands."""

    shift: str
    business_date: dt.date
    shift_code: str
    figures: Figures
    net_collected_cents: int
    unexplained_cents: int
    house_balance_cents: int
    unattributed_cents: int
    closed: bool
    close_sha256: str


@dataclasses.dataclass(frozen=True, slots=True)
class WaiverLine:
    hand_id: int
    table_number: int
    hand_number: int
    hand_started_at: dt.datetime
    player: str
    amount_cents: int
    reason: str
    created_by: str
    created_at: dt.datetime


@dataclasses.dataclass(frozen=True, slots=True)
class Flag:
    """Something an auditor must look at; ``code`` is stable."""

    code: str
    message: str
    cents: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class Bar:
    label: str
    cents: int


@dataclasses.dataclass(frozen=True, slots=True)
class CollectionReport:
    # Whether a shift has been closed since is not part of the figures (content_sha256).
    digest_excludes: ClassVar[dict[str, set[str]]] = {"shifts": {"closed", "close_sha256"}}

    meta: ReportMeta
    rows: list[CollectionRow]
    shifts: list[ShiftLine]
    totals: Figures
    net_collected_cents: int
    unexplained_cents: int
    house_balance_cents: int
    unattributed_cents: int
    waivers: list[WaiverLine]
    flags: list[Flag]
    by_hour: list[Bar]
    by_table: list[Bar]


def _players_dealt_in() -> Subquery:
    return Subquery(
        HandPlayer.objects.filter(hand_id=OuterRef("pk"))
        .order_by()
        .values("hand_id")
        .annotate(n=Count("*"))  # COUNT(*): the hand_id index alone answers it
        .values("n")
    )


def hand_groups(filters: ReportFilters, book: RateBook) -> list[dict[str, Any]]:
    """Query 1: the period's hands grouped by shift, table, game, stakes, schedule, version in
    force and players dealt in."""
    hands = filters.on_time(Hand.objects.all(), "created_at", table_field="table")
    return list(
        hands.annotate(
            players_n=Coalesce(_players_dealt_in(), 0),
            version_id=book.version_case(),
            business_date=local_date("created_at"),
            shift_code=shift_code_of("created_at"),
        )
        .values(
            "business_date",
            "shift_code",
            "table_id",
            "game_id",
            "stakes_id",
            "collection_schedule_id",
            "version_id",
            "players_n",
        )
        .annotate(hands=Count("pk"), void_hands=Count("pk", filter=Q(status=HandStatus.VOID)))
        .order_by()
    )


def fee_groups(filters: ReportFilters) -> list[dict[str, Any]]:
    """Query 2: house-collection entries of the fee and reversal transactions of the period's
    hands, grouped by the hand's date, hour, table, game, stakes, schedule and status, the
    transaction kind and the house account.

    A hand's fees go to the house account of its table for the shift of its start
    (``Shift.at(hand.created_at)``), and a reversal posts the same accounts back, so every such
    entry is on an account of a shift dated within a day of the period. Saying so lets the
    database start from those accounts' entries instead of reading the whole journal for the
    period's hands (2.7x the hand-written SQL on a year's journal, benchmarks/README.md "Reports");
    the hands' own times still decide which entries count."""
    margin = dt.timedelta(days=1)
    entries = filters.on_time(
        Entry.objects.filter(
            account__kind=AccountKind.HOUSE_COLLECTION,
            account__shift_date__gte=filters.date_from - margin,
            account__shift_date__lte=filters.date_to + margin,
            transaction__kind__in=[TransactionKind.FEE, TransactionKind.REVERSAL],
        ),
        "transaction__hand__created_at",
        table_field="transaction__hand__table",
    )
    return list(
        entries.annotate(
            business_date=local_date("transaction__hand__created_at"),
            hour=ExtractHour("transaction__hand__created_at", tzinfo=room_zone()),
        )
        .values(
            "business_date",
            "hour",
            "transaction__hand__table_id",
            "transaction__hand__game_id",
            "transaction__hand__stakes_id",
            "transaction__hand__collection_schedule_id",
            "transaction__hand__status",
            "transaction__kind",
            "account_id",
        )
        .annotate(cents=Sum("amount"))
        .order_by()
    )


def house_accounts(filters: ReportFilters) -> dict[int, dict[str, Any]]:
    """Query 3: the house-collection accounts of the period's shifts (and tables), by id, with
    their balances (the ledger's cached sums of entries, proved by ``verify_ledger``)."""
    return {
        row["pk"]: row
        for row in filters.on_shift_key(
            Account.objects.filter(kind=AccountKind.HOUSE_COLLECTION),
            date_field="shift_date",
            code_field="shift_code",
            table_field="table",
        ).values("pk", "table_id", "shift_date", "shift_code", "balance")
    }


def waiver_groups(filters: ReportFilters) -> list[dict[str, Any]]:
    """Query 4: the waivers of the period's hands grouped like query 1 (without version/players)."""
    waivers = filters.on_time(FeeWaiver.objects.all(), "hand__created_at", table_field="hand__table")
    return list(
        waivers.annotate(
            business_date=local_date("hand__created_at"), shift_code=shift_code_of("hand__created_at")
        )
        .values(
            "business_date",
            "shift_code",
            "hand__table_id",
            "hand__game_id",
            "hand__stakes_id",
            "hand__collection_schedule_id",
        )
        .annotate(cents=Sum("amount_cents"))
        .order_by()
    )


FIELDS = [field.name for field in dataclasses.fields(Figures)]
HANDS, VOID, PLAYERS, NO_RATE, DUE, COLLECTED, RETURNED, WAIVED = (
    FIELDS.index(name)
    for name in (
        "hands",
        "void_hands",
        "players",
        "hands_without_rate",
        "fees_due_cents",
        "fees_collected_cents",
        "fees_returned_cents",
        "waived_cents",
    )
)


def _zeros() -> list[int]:
    return [0] * len(FIELDS)


def _shift_code(hour: int) -> str:
    code = ShiftCode.GRAVE
    for start_hour, shift_code in SHIFT_STARTS:
        if hour >= start_hour:
            code = shift_code
    return code.value


def build_collection_report(filters: ReportFilters) -> CollectionReport:
    """The collection report for ``filters`` (see the module docstring for what each figure is),
    read in one snapshot (``report_snapshot``)."""
    with report_snapshot():
        return _build(filters)


def _build(filters: ReportFilters) -> CollectionReport:
    meta = make_meta("collection", TITLE, filters)
    book = RateBook()
    # Running sums as plain lists (one slot per Figures field, in FIELDS order): the loops below
    # run once per group, which is tens of thousands of groups over a month of a busy room.
    by_group: dict[GroupKey, list[int]] = defaultdict(_zeros)
    by_shift: dict[ShiftKey, list[int]] = defaultdict(_zeros)
    returned_without_void: dict[GroupKey, int] = defaultdict(int)

    def add(key: GroupKey, shift_key: ShiftKey, slot: int, value: int) -> None:
        by_group[key][slot] += value
        by_shift[shift_key][slot] += value

    hand_rows = hand_groups(filters, book)
    book.load_stakes({row["stakes_id"] for row in hand_rows})
    for row in hand_rows:
        players, hands = int(row["players_n"]), int(row["hands"])
        fees = book.fees_due(row["version_id"], row["stakes_id"], players)
        key = (row["table_id"], row["game_id"], row["stakes_id"], row["collection_schedule_id"])
        shift_key = (row["business_date"], row["shift_code"])
        add(key, shift_key, HANDS, hands)
        add(key, shift_key, VOID, int(row["void_hands"]))
        add(key, shift_key, PLAYERS, players * hands)
        if fees is None:
            add(key, shift_key, NO_RATE, hands)
        else:
            add(key, shift_key, DUE, sum(fees) * hands)

    accounts = house_accounts(filters)
    attributed: dict[int, int] = defaultdict(int)  # account id -> cents of the period's hands' fees
    misbooked: dict[tuple[int, int], int] = defaultdict(int)  # (table id, account id) -> cents
    by_hour: dict[int, int] = defaultdict(int)
    fee_rows = fee_groups(filters)
    outside = Account.objects.in_bulk({row["account_id"] for row in fee_rows} - set(accounts))
    for row in fee_rows:
        key = (
            row["transaction__hand__table_id"],
            row["transaction__hand__game_id"],
            row["transaction__hand__stakes_id"],
            row["transaction__hand__collection_schedule_id"],
        )
        shift_key = (row["business_date"], _shift_code(row["hour"]))
        cents = int(row["cents"] or 0)
        if row["transaction__kind"] == TransactionKind.FEE:
            add(key, shift_key, COLLECTED, cents)
        else:
            add(key, shift_key, RETURNED, -cents)
            if row["transaction__hand__status"] != HandStatus.VOID:
                returned_without_void[key] += -cents
        by_hour[row["hour"]] += cents
        account_id = row["account_id"]
        attributed[account_id] += cents
        account = accounts.get(account_id)
        booked = (
            (account["table_id"], account["shift_date"], account["shift_code"])
            if account
            else (
                outside[account_id].table_id,
                outside[account_id].shift_date,
                outside[account_id].shift_code,
            )
        )
        if booked != (key[0], *shift_key):
            misbooked[(key[0], account_id)] += cents

    for row in waiver_groups(filters):
        add(
            (
                row["hand__table_id"],
                row["hand__game_id"],
                row["hand__stakes_id"],
                row["hand__collection_schedule_id"],
            ),
            (row["business_date"], row["shift_code"]),
            WAIVED,
            int(row["cents"] or 0),
        )

    # The ledger's view: each house account's balance, and what the period's hands don't explain.
    house_by_shift: dict[ShiftKey, int] = defaultdict(int)
    unattributed: dict[tuple[int, ShiftKey], int] = {}
    for account_id, account in accounts.items():
        shift_key = (account["shift_date"], account["shift_code"])
        house_by_shift[shift_key] += account["balance"]
        difference = account["balance"] - attributed.get(account_id, 0)
        if difference:
            unattributed[(account["table_id"], shift_key)] = difference

    group_figures = {key: Figures(*sums) for key, sums in by_group.items()}
    rows = _rows(group_figures, returned_without_void)
    totals = (
        Figures(*(sum(column) for column in zip(*by_group.values(), strict=True))) if by_group else Figures()
    )
    tables = _table_numbers({key[0] for key in unattributed} | {key[0] for key in misbooked})
    return CollectionReport(
        meta=meta,
        rows=rows,
        shifts=_shift_lines(
            {key: Figures(*sums) for key, sums in by_shift.items()}, house_by_shift, unattributed
        ),
        totals=totals,
        net_collected_cents=totals.net_collected_cents,
        unexplained_cents=totals.unexplained_cents,
        house_balance_cents=sum(house_by_shift.values()),
        unattributed_cents=sum(unattributed.values()),
        waivers=_waiver_lines(filters),
        flags=_flags(rows, unattributed, misbooked, accounts, outside, tables),
        by_hour=[Bar(label=f"{hour:02d}", cents=by_hour.get(hour, 0)) for hour in range(24)],
        by_table=_by_table(rows),
    )


def _table_numbers(table_ids: set[int]) -> dict[int, int]:
    return dict(Table.objects.filter(pk__in=table_ids).values_list("pk", "number")) if table_ids else {}


def _rows(
    by_group: dict[GroupKey, Figures], returned_without_void: dict[GroupKey, int]
) -> list[CollectionRow]:
    tables = Table.objects.in_bulk({key[0] for key in by_group})
    games = Game.objects.in_bulk({key[1] for key in by_group})
    stakes = Stakes.objects.in_bulk({key[2] for key in by_group})
    schedules = CollectionSchedule.objects.in_bulk({key[3] for key in by_group})
    rows = [
        CollectionRow(
            table_number=tables[key[0]].number,
            game=games[key[1]].name,
            stakes=stakes[key[2]].label,
            schedule=schedules[key[3]].code,
            figures=figures,
            net_collected_cents=figures.net_collected_cents,
            unexplained_cents=figures.unexplained_cents,
            returned_without_void_cents=returned_without_void.get(key, 0),
        )
        for key, figures in by_group.items()
    ]
    rows.sort(key=lambda row: (row.table_number, row.game, row.stakes, row.schedule))
    return rows


def _shift_order(key: ShiftKey) -> tuple[dt.date, int]:
    return key[0], [code.value for code in ShiftCode].index(key[1])


def _shift_lines(
    by_shift: dict[ShiftKey, Figures],
    house_by_shift: dict[ShiftKey, int],
    unattributed: dict[tuple[int, ShiftKey], int],
) -> list[ShiftLine]:
    keys = sorted(set(by_shift) | set(house_by_shift), key=_shift_order)
    closes: dict[ShiftKey, str] = {}
    if keys:
        closes = {
            (close["shift_date"], close["shift_code"]): close["report_sha256"]
            for close in ShiftClose.objects.filter(
                shift_date__gte=keys[0][0], shift_date__lte=keys[-1][0]
            ).values("shift_date", "shift_code", "report_sha256")
        }
    unattributed_by_shift: dict[ShiftKey, int] = defaultdict(int)
    for (_, shift_key), cents in unattributed.items():
        unattributed_by_shift[shift_key] += cents
    lines = []
    for key in keys:
        figures = by_shift.get(key, Figures())
        lines.append(
            ShiftLine(
                shift=str(Shift(business_date=key[0], code=ShiftCode(key[1]))),
                business_date=key[0],
                shift_code=key[1],
                figures=figures,
                net_collected_cents=figures.net_collected_cents,
                unexplained_cents=figures.unexplained_cents,
                house_balance_cents=house_by_shift.get(key, 0),
                unattributed_cents=unattributed_by_shift.get(key, 0),
                closed=key in closes,
                close_sha256=closes.get(key, ""),
            )
        )
    return lines


def _waiver_lines(filters: ReportFilters) -> list[WaiverLine]:
    """The period's waivers, each player named as at the hand's start."""
    waivers = list(
        filters.on_time(FeeWaiver.objects.all(), "hand__created_at", table_field="hand__table")
        .select_related("hand__table", "player", "created_by")
        .order_by("hand__created_at", "pk")
    )
    names = name_history(
        {waiver.player_id: waiver.player.name for waiver in waivers},
        since=waivers[0].hand.created_at if waivers else None,
    )
    return [
        WaiverLine(
            hand_id=waiver.hand_id,
            table_number=waiver.hand.table.number,
            hand_number=waiver.hand.number,
            hand_started_at=waiver.hand.created_at,
            player=names.at(waiver.player_id, waiver.hand.created_at),
            amount_cents=waiver.amount_cents,
            reason=waiver.reason,
            created_by=waiver.created_by.get_username(),
            created_at=waiver.created_at,
        )
        for waiver in waivers
    ]


def _flags(
    rows: list[CollectionRow],
    unattributed: dict[tuple[int, ShiftKey], int],
    misbooked: dict[tuple[int, int], int],
    accounts: dict[int, dict[str, Any]],
    outside: dict[int, Account],
    tables: dict[int, int],
) -> list[Flag]:
    flags: list[Flag] = []
    for row in rows:
        where = f"table {row.table_number}, {row.game}, {row.stakes}, schedule {row.schedule}"
        if row.figures.hands_without_rate:
            flags.append(
                Flag(
                    "no_rate",
                    f"{where}: {row.figures.hands_without_rate} hand(s) with no collection rate in force",
                )
            )
        if row.unexplained_cents > 0:
            flags.append(
                Flag(
                    "unexplained_shortfall",
                    f"{where}: fees due but neither collected nor waived with a reason",
                    row.unexplained_cents,
                )
            )
        elif row.unexplained_cents < 0:
            flags.append(
                Flag(
                    "over_collected",
                    f"{where}: more collected than the schedule called for",
                    -row.unexplained_cents,
                )
            )
        if row.returned_without_void_cents:
            flags.append(
                Flag(
                    "returned_without_void",
                    f"{where}: fees returned for hands that are not void",
                    row.returned_without_void_cents,
                )
            )
    for (table_id, account_id), cents in sorted(misbooked.items()):
        account = accounts.get(account_id)
        shift = (
            Shift(account["shift_date"], ShiftCode(account["shift_code"]))
            if account
            else outside[account_id].shift
        )
        flags.append(
            Flag(
                "booked_to_other_shift",
                f"table {tables.get(table_id, table_id)}: fees of hands of another shift or table booked to "
                f"the house account of {shift}",
                cents,
            )
        )
    for (table_id, (day, code)), cents in sorted(
        unattributed.items(), key=lambda item: (item[0][1], item[0][0])
    ):
        flags.append(
            Flag(
                "unattributed_fees",
                f"table {tables.get(table_id, table_id)}, shift {Shift(day, ShiftCode(code))}: "
                "the house account holds fees not tied to this period's hands (posted without a hand, "
                "for a hand of another period, or not a fee)",
                cents,
            )
        )
    return flags


def _by_table(rows: list[CollectionRow]) -> list[Bar]:
    totals: dict[int, int] = defaultdict(int)
    for row in rows:
        totals[row.table_number] += row.net_collected_cents
    return [Bar(label=f"Table {number}", cents=cents) for number, cents in sorted(totals.items())]
