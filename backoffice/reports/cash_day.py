"""Cash per gaming day: for one gaming day, each player's chips bought (buy-ins, rebuys) and cashed
out, the log of each transaction over the log threshold ($3,000 by default), and the players whose
day's total in or out passed the report threshold ($10,000: a currency transaction report), with
the identification recorded for them (card clubs keep these for the currency transaction report).

The amounts are the floor's chip movements (each one a ledger transaction); a player is one
identity, every record merged into the survivor counted with it (:mod:`tables.selectors`). The day
and the thresholds are the room's settings (:class:`tables.models.CashDaySettings`). Two grouped
queries and one for the log's rows.

Names as they were: a player's day shows the name at the day's end, each logged transaction the
name its record had then (a merged record's own name; renamed since: the old name), from
:mod:`tables.player_names` (one query for the renames).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict

from django.db.models import Sum

from backoffice.reports.common import ReportMeta, in_report_snapshot, make_meta
from tables import services as floor
from tables.models import CashDaySettings, ChipMovement, ChipMovementKind, Player, PlayerIdentification
from tables.player_names import name_history

TITLE = "Cash per gaming day"


@dataclasses.dataclass(frozen=True, slots=True)
class PlayerDay:
    """One player's gaming day: cash in and out, in cents; ``over_in``/``over_out``: past the
    report threshold; ``identification``: what was recorded ("" when none)."""

    player_id: int
    name: str
    member_number: str
    in_cents: int
    out_cents: int
    over_in: bool
    over_out: bool
    identification: str

    @property
    def needs_report(self) -> bool:
        return self.over_in or self.over_out


@dataclasses.dataclass(frozen=True, slots=True)
class LogLine:
    """A transaction over the log threshold."""

    movement_id: int
    at: dt.datetime
    player_id: int
    name: str
    table_number: int
    kind: str
    direction: str
    amount_cents: int
    by: str


@dataclasses.dataclass(frozen=True, slots=True)
class CashDayReport:
    meta: ReportMeta
    gaming_day: dt.date
    starts_at: dt.datetime
    ends_at: dt.datetime
    log_threshold_cents: int
    report_threshold_cents: int
    players: list[PlayerDay]
    log: list[LogLine]
    in_cents: int
    out_cents: int

    @property
    def reports(self) -> list[PlayerDay]:
        """The players whose day needs a currency transaction report."""
        return [p for p in self.players if p.needs_report]


def _direction(kind: str) -> str:
    return "out" if kind == ChipMovementKind.CASH_OUT else "in"


@in_report_snapshot
def build_cash_day_report(day: dt.date) -> CashDayReport:
    """The cash-per-gaming-day report of gaming day ``day``."""
    rules = CashDaySettings.current()
    start, end = floor.gaming_day_bounds(day, start_hour=rules.gaming_day_start_hour)
    meta = make_meta("cash_day", TITLE, None, gaming_day=day.isoformat())
    movements = ChipMovement.objects.filter(created_at__gte=start, created_at__lt=end)
    totals: dict[int, dict[str, int]] = defaultdict(lambda: {"in": 0, "out": 0})
    for row in movements.values("player_id", "player__merged_into_id", "kind").annotate(
        cents=Sum("amount_cents")
    ):
        who = row["player__merged_into_id"] or row["player_id"]
        totals[who][_direction(row["kind"])] += int(row["cents"] or 0)
    people = {p.pk: p for p in Player.objects.filter(pk__in=totals)}
    logged = list(
        movements.filter(amount_cents__gt=rules.log_threshold_cents)
        .select_related("player", "table", "created_by")
        .order_by("created_at", "id")
    )
    names = name_history(
        {pk: p.name for pk, p in people.items()} | {m.player_id: m.player.name for m in logged}, since=start
    )
    identified: dict[int, str] = {}
    for ident in (
        PlayerIdentification.objects.filter(gaming_day=day)
        .select_related("player")
        .order_by("recorded_at", "id")
    ):
        who = ident.player.merged_into_id or ident.player_id
        identified[who] = f"{ident.get_kind_display()} {ident.number}, {ident.issued_by}"
    players = sorted(
        (
            PlayerDay(
                player_id=pk,
                name=names.at(pk, end),
                member_number=people[pk].member_number or "",
                in_cents=money["in"],
                out_cents=money["out"],
                over_in=money["in"] > rules.report_threshold_cents,
                over_out=money["out"] > rules.report_threshold_cents,
                identification=identified.get(pk, ""),
            )
            for pk, money in totals.items()
        ),
        key=lambda p: (-max(p.in_cents, p.out_cents), p.name, p.player_id),
    )
    log = [
        LogLine(
            movement_id=m.pk,
            at=m.created_at,
            player_id=m.player.merged_into_id or m.player_id,
            name=names.at(m.player_id, m.created_at),
            table_number=m.table.number,
            kind=m.get_kind_display(),
            direction=_direction(m.kind),
            amount_cents=m.amount_cents,
            by=m.created_by.get_username() if m.created_by else "",
        )
        for m in logged
    ]
    return CashDayReport(
        meta=meta,
        gaming_day=day,
        starts_at=start,
        ends_at=end,
        log_threshold_cents=rules.log_threshold_cents,
        report_threshold_cents=rules.report_threshold_cents,
        players=players,
        log=log,
        in_cents=sum(p.in_cents for p in players),
        out_cents=sum(p.out_cents for p in players),
    )
