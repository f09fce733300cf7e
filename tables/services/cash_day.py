"""Cash per gaming day: each player's chips bought and cashed out in the room's gaming day, the
thresholds of the transaction log and of the currency transaction report, and the identification
a report needs.

* the gaming day runs from the settings' start hour on the room's clock (``settings.TIME_ZONE``) to
  the same hour the next day (:func:`gaming_day`, :func:`gaming_day_bounds`);
* cash in is a buy-in or a rebuy, cash out a cash-out (the floor's
  :class:`~tables.models.ChipMovement` rows, of every record of the player's identity); a table
  change moves chips, not cash;
* each transaction over ``log_threshold_cents`` ($3,000 by default) is in the day's log;
* a transaction that takes the day's total in, or out, over ``report_threshold_cents`` ($10,000)
  is warned of before it is made (:func:`check_cash`), and is made only once the player's
  identification is recorded for that gaming day (:func:`require_identification`,
  :func:`record_identification`).

The money flow (:mod:`handflow.services`: buy-in, rebuy, cash-out) calls
:func:`require_identification` before it posts, under the table's lock; the pages and the API ask
:func:`check_cash` first to warn.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import zoneinfo
from typing import Any

from django.conf import settings
from django.db.models import Sum
from django.utils import timezone

from casino.core.db import service
from casino.core.money import format_cents
from tables.errors import FloorValidationError, IdentificationRequired
from tables.history import record_change, snapshot
from tables.models import (
    CashDaySettings,
    ChipMovement,
    ChipMovementKind,
    ConfigAction,
    IdentificationKind,
    Player,
    PlayerIdentification,
)
from tables.selectors import identity_q, survivor_of
from tables.services.common import User, acting_user, check_text, require_reason
from tables.services.players import hidden_number

IN_KINDS = (ChipMovementKind.BUY_IN, ChipMovementKind.REBUY)
OUT_KINDS = (ChipMovementKind.CASH_OUT,)
#: The largest threshold a setting takes ($100,000,000: far beyond any card room's day).
MAX_THRESHOLD_CENTS = 10_000_000_000


def _zone() -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(settings.TIME_ZONE)


def gaming_day(moment: dt.datetime | None = None, *, start_hour: int | None = None) -> dt.date:
    """The gaming day ``moment`` (default now) falls in: its date on the room's clock, or the day
    before when it is earlier than the start hour."""
    hour = CashDaySettings.current().gaming_day_start_hour if start_hour is None else start_hour
    local = (moment or timezone.now()).astimezone(_zone())
    return local.date() - dt.timedelta(days=1) if local.hour < hour else local.date()


def gaming_day_bounds(day: dt.date, *, start_hour: int | None = None) -> tuple[dt.datetime, dt.datetime]:
    """``[start, end)`` of gaming day ``day``: from the start hour of ``day`` to that of the next
    day, on the room's wall clock (so a daylight-saving change makes the day 23 or 25 hours)."""
    hour = CashDaySettings.current().gaming_day_start_hour if start_hour is None else start_hour
    zone = _zone()
    start = dt.datetime.combine(day, dt.time(hour), tzinfo=zone)
    end = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(hour), tzinfo=zone)
    return start, end


@dataclasses.dataclass(frozen=True, slots=True)
class DayTotals:
    """A player's cash in (buy-ins, rebuys) and out (cash-outs) in one gaming day, in cents."""

    day: dt.date
    in_cents: int
    out_cents: int


def day_totals(*, player: Player, day: dt.date | None = None) -> DayTotals:
    """What ``player`` (every record of the identity) bought and cashed out in gaming day ``day``
    (default today's)."""
    day = day or gaming_day()
    start, end = gaming_day_bounds(day)
    rows = (
        ChipMovement.objects.filter(identity_q(player), created_at__gte=start, created_at__lt=end)
        .values("kind")
        .annotate(cents=Sum("amount_cents"))
    )
    by_kind = {row["kind"]: int(row["cents"] or 0) for row in rows}
    return DayTotals(
        day=day,
        in_cents=sum(by_kind.get(kind, 0) for kind in IN_KINDS),
        out_cents=sum(by_kind.get(kind, 0) for kind in OUT_KINDS),
    )


def identification_on(*, player: Player, day: dt.date) -> PlayerIdentification | None:
    """The latest identification recorded for ``player`` (any record of the identity) on ``day``."""
    return PlayerIdentification.objects.filter(identity_q(player), gaming_day=day).first()


@dataclasses.dataclass(frozen=True, slots=True)
class CashCheck:
    """What a transaction of ``amount_cents`` (``direction`` in or out) would do to the player's
    gaming day: the day's total before and after, whether it goes in the log (over the log
    threshold), whether the total passes the report threshold, and the identification on record.
    ``needs_identification``: the total passes the threshold and no identification is recorded."""

    player_id: int
    day: dt.date
    direction: str
    amount_cents: int
    total_before_cents: int
    total_after_cents: int
    log_threshold_cents: int
    report_threshold_cents: int
    logged: bool
    over_report_threshold: bool
    identification_id: int | None

    @property
    def needs_identification(self) -> bool:
        return self.over_report_threshold and self.identification_id is None

    @property
    def warning(self) -> str:
        """The warning to show before the transaction ("" when there is none)."""
        if not self.over_report_threshold:
            return ""
        text = (
            f"This takes the player's cash {self.direction} today to {format_cents(self.total_after_cents)}, "
            f"over {format_cents(self.report_threshold_cents)}: a currency transaction report."
        )
        if self.needs_identification:
            text += " Record the player's identification first."
        return text


def _direction(kind: str) -> str:
    if kind in IN_KINDS:
        return "in"
    if kind in OUT_KINDS:
        return "out"
    raise FloorValidationError(f"Unknown transaction kind {kind!r}: buy_in, rebuy or cash_out.", field="kind")


def check_cash(*, player: Player, kind: str, amount_cents: int, at: dt.datetime | None = None) -> CashCheck:
    """What a buy-in, rebuy or cash-out (``kind``) of ``amount_cents`` by ``player`` at ``at``
    (default now) would do to the player's gaming day (see :class:`CashCheck`). Reads only."""
    if isinstance(amount_cents, bool) or not isinstance(amount_cents, int) or amount_cents <= 0:
        raise FloorValidationError("The amount is a positive whole number of cents.", field="amount_cents")
    direction = _direction(kind)
    rules = CashDaySettings.current()
    day = gaming_day(at, start_hour=rules.gaming_day_start_hour)
    totals = day_totals(player=player, day=day)
    before = totals.in_cents if direction == "in" else totals.out_cents
    after = before + amount_cents
    found = identification_on(player=player, day=day)
    return CashCheck(
        player_id=survivor_of(player).pk,
        day=day,
        direction=direction,
        amount_cents=amount_cents,
        total_before_cents=before,
        total_after_cents=after,
        log_threshold_cents=rules.log_threshold_cents,
        report_threshold_cents=rules.report_threshold_cents,
        logged=amount_cents > rules.log_threshold_cents,
        over_report_threshold=after > rules.report_threshold_cents,
        identification_id=found.pk if found is not None else None,
    )


def require_identification(
    *, player: Player, kind: str, amount_cents: int, at: dt.datetime | None = None
) -> CashCheck:
    """:func:`check_cash`, refusing (IdentificationRequired) a transaction that takes the day's
    total over the report threshold while no identification is recorded for the player that
    gaming day. The money flow calls it before it posts a buy-in, rebuy or cash-out."""
    check = check_cash(player=player, kind=kind, amount_cents=amount_cents, at=at)
    if check.needs_identification:
        raise IdentificationRequired(check.warning, field="player")
    return check


def _text(value: str | None, *, field: str, what: str, longest: int, required: bool = True) -> str:
    text = (value or "").strip()
    if required and not text:
        raise FloorValidationError(f"{what} is required.", field=field)
    check_text(text, field=field, what=what, longest=longest)
    return text


@service
def record_identification(
    *,
    player: Player,
    kind: str,
    number: str,
    issued_by: str,
    by: User,
    expires_on: dt.date | None = None,
    note: str = "",
    at: dt.datetime | None = None,
) -> PlayerIdentification:
    """Record the identification ``player`` showed, for the gaming day of ``at`` (default now), on
    the survivor's record. Refused (FloorValidationError) without a kind, a number and who issued
    it, or with an identification already expired."""
    if kind not in IdentificationKind.values:
        raise FloorValidationError(
            f"Unknown identification {kind!r}: {', '.join(IdentificationKind.values)}.", field="kind"
        )
    number = _text(number, field="number", what="The identification's number", longest=40)
    issued_by = _text(issued_by, field="issued_by", what="Who issued it", longest=60)
    note = _text(note, field="note", what="The note", longest=500, required=False)
    moment = at or timezone.now()
    day = gaming_day(moment)
    if expires_on is not None and expires_on < moment.astimezone(_zone()).date():
        raise FloorValidationError("This identification has expired; ask for another.", field="expires_on")
    identification = PlayerIdentification.objects.create(
        player=survivor_of(player),
        gaming_day=day,
        kind=kind,
        number=number,
        issued_by=issued_by,
        expires_on=expires_on,
        note=note,
        recorded_at=moment,
        recorded_by=acting_user(by),
    )
    # The player's change log says so in words, as it does every change to the record; the
    # number only by its last two characters (the identification row keeps it for the report).
    shown = f"{IdentificationKind(kind).label} {hidden_number(number)}, issued by {issued_by}"
    record_change(
        instance=identification.player,
        action=ConfigAction.UPDATE,
        by=by,
        after={"identification": f"{shown}, for the gaming day of {day:%Y-%m-%d}"},
    )
    return identification


_UNSET: Any = object()


@service
def update_cash_day_settings(
    *,
    by: User,
    reason: str,
    gaming_day_start_hour: int = _UNSET,
    log_threshold_cents: int = _UNSET,
    report_threshold_cents: int = _UNSET,
) -> CashDaySettings:
    """Change the room's cash-per-gaming-day settings (only the arguments given); needs a reason,
    kept in the configuration history with the change."""
    reason = require_reason(reason)
    rules = CashDaySettings.objects.select_for_update().filter(pk=1).first() or CashDaySettings(pk=1)
    before = _settings_snapshot(rules)  # the defaults, before the first change
    if gaming_day_start_hour is not _UNSET:
        if not _whole(gaming_day_start_hour) or not 0 <= gaming_day_start_hour <= 23:
            raise FloorValidationError(
                "The gaming day starts at an hour 0 to 23.", field="gaming_day_start_hour"
            )
        rules.gaming_day_start_hour = gaming_day_start_hour
    for field, value in (
        ("log_threshold_cents", log_threshold_cents),
        ("report_threshold_cents", report_threshold_cents),
    ):
        if value is _UNSET:
            continue
        if not _whole(value) or not 0 < value <= MAX_THRESHOLD_CENTS:
            raise FloorValidationError(
                "A threshold is a positive whole number of cents, at most "
                f"{format_cents(MAX_THRESHOLD_CENTS)}.",
                field=field,
            )
        setattr(rules, field, value)
    if rules.log_threshold_cents > rules.report_threshold_cents:
        raise FloorValidationError(
            "The log threshold can't be above the report threshold.", field="log_threshold_cents"
        )
    rules.save()
    after = _settings_snapshot(rules)
    if after != before:
        record_change(
            instance=rules, action=ConfigAction.UPDATE, by=by, reason=reason, before=before, after=after
        )
    return rules


def _settings_snapshot(rules: CashDaySettings) -> dict[str, Any]:
    return {key: value for key, value in snapshot(rules).items() if key != "updated_at"}


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
