"""Collection schedules: their rates built and checked (:func:`build_rates`, against the tables
on the schedule :func:`check_rates_against_tables`), a schedule created with its first version,
revised by a new version that takes effect now or later (:func:`check_effective_from`), renamed.
Each change is written to the history with its snapshot (:func:`schedule_snapshot_at`).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from django.db.models import Max
from django.utils import timezone

from casino.core.db import service
from tables.errors import (
    FloorConflict,
    InvalidSchedule,
    TooManyRates,
)
from tables.history import record_change, schedule_snapshot, snapshot, version_snapshot
from tables.models import (
    CollectionRate,
    CollectionSchedule,
    CollectionScheduleVersion,
    ConfigAction,
    Table,
)
from tables.services.common import User, acting_user, require_reason
from tables.validators import (
    rate_problems,
    rates_overlap_problems,
    schedule_tables_problems,
)

RATE_FIELDS = (
    "structure",
    "small_bet_cents",
    "big_bet_cents",
    "alt_small_bet_cents",
    "alt_big_bet_cents",
    "buy_in_min_cents",
    "buy_in_max_cents",
    "point_min_cents",
    "point_max_cents",
    "players_min",
    "players_max",
    "payer",
    "fee_cents",
    "others_fee_cents",
)


def build_rates(rates: Sequence[Mapping[str, Any]]) -> list[CollectionRate]:
    """Unsaved :class:`CollectionRate` rows from dicts, each checked; raises InvalidSchedule.

    ``rates`` is a list of mappings of :data:`RATE_FIELDS` (``payer`` defaults to ``button``).
    Every amount must be a real ``int`` (:func:`tables.validators.rate_problems`): 2.5, "150",
    "5%" or True are refused naming the field (``rates[i].fee_cents``), never converted. Each row
    is checked on its own and then the set for overlapping bands; whether the fees suit the tables
    on a schedule is :func:`check_rates_against_tables`.
    """
    if isinstance(rates, (str, bytes, Mapping)) or not isinstance(rates, Sequence):
        raise InvalidSchedule("Give the rates as a list of rows.", field="rates")
    if not rates:
        raise InvalidSchedule("A schedule version needs at least one rate.", field="rates")
    built: list[CollectionRate] = []
    errors: dict[str, str] = {}
    for i, data in enumerate(rates):
        if not isinstance(data, Mapping):
            errors[f"rates[{i}]"] = f"A rate is a mapping of its fields, not {type(data).__name__}."
            continue
        unknown = set(data) - set(RATE_FIELDS)
        if unknown:
            errors[f"rates[{i}]"] = f"Unknown fields: {', '.join(sorted(map(str, unknown)))}."
            continue
        rate = CollectionRate(**{"payer": "button", **data})
        for field, message in rate_problems(rate).items():
            errors[f"rates[{i}].{field}"] = message
        built.append(rate)
    if not errors:
        for i, message in enumerate(rates_overlap_problems(built)):
            errors[f"rates.overlap[{i}]"] = message
    if errors:
        field, message = next(iter(errors.items()))
        raise InvalidSchedule(f"{field}: {message}", field=field, errors=errors)
    return built


def tables_on(schedule: CollectionSchedule) -> list[Table]:
    """The tables on ``schedule``, by number, with their game and stakes."""
    return list(
        Table.objects.filter(collection_schedule=schedule).select_related("game", "stakes").order_by("number")
    )


def check_rates_against_tables(schedule: CollectionSchedule, rates: Sequence[CollectionRate]) -> None:
    """``rates`` as a new version of ``schedule`` must suit every table on it: 1 to 5 rates apply
    at each (TooManyRates above five, InvalidSchedule for none), and each fee of a rate that
    applies is a whole number of that table's chips (InvalidSchedule naming ``rates[i].fee_cents``
    and the table): :func:`tables.validators.schedule_tables_problems`."""
    problems = schedule_tables_problems(rates, tables_on(schedule))
    if not problems:
        return
    field, message = next(iter(problems.items()))
    if field == "rates":
        error_class = TooManyRates if "at most" in message else InvalidSchedule
        raise error_class(message, field=field, errors=problems)
    raise InvalidSchedule(f"{field}: {message}", field=field, errors=problems)


def check_effective_from(
    effective_from: datetime.datetime | None, schedule: CollectionSchedule | None
) -> datetime.datetime:
    now = timezone.now()
    when = effective_from or now
    if timezone.is_naive(when):
        raise InvalidSchedule("Give effective_from with a time zone.", field="effective_from")
    if when < now:
        raise InvalidSchedule(
            "A schedule change takes effect now or later; it never rewrites the past (RULINGS §6).",
            field="effective_from",
        )
    if schedule is not None:
        last = schedule.versions.order_by("-effective_from").first()
        if last is not None and when <= last.effective_from:
            raise InvalidSchedule(
                f"Version {last.number} of schedule {schedule.code} takes effect "
                f"{last.effective_from:%Y-%m-%d %H:%M}; "
                "a new version must take effect after it.",
                field="effective_from",
            )
    return when


def _add_version(
    *,
    schedule: CollectionSchedule,
    rates: list[CollectionRate],
    effective_from: datetime.datetime,
    by: User,
    reason: str,
) -> CollectionScheduleVersion:
    number = (schedule.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    version = CollectionScheduleVersion.objects.create(
        schedule=schedule,
        number=number,
        effective_from=effective_from,
        created_by=acting_user(by),
        reason=reason,
    )
    for rate in rates:
        rate.version = version
    CollectionRate.objects.bulk_create(rates)
    return version


@service
def create_schedule(
    *,
    code: str,
    name: str,
    rates: Sequence[Mapping[str, Any]],
    by: User,
    reason: str = "",
    description: str = "",
    effective_from: datetime.datetime | None = None,
    allow_past: bool = False,
) -> CollectionSchedule:
    """A new schedule with its first version. ``allow_past`` is for loading house data only.

    The rates are checked by :func:`build_rates`; a new schedule has no tables yet, so its fees
    meet each table's chips when a table is put on it (:func:`tables.validators.table_problems`).
    Fees far outside the schedule's sense are accepted (:func:`tables.validators.fee_warnings`
    says which; the API returns them).
    """
    code = (code or "").strip()
    if not code or not (name or "").strip():
        raise InvalidSchedule("A schedule needs a code and a name.", field="code")
    if CollectionSchedule.objects.filter(code=code).exists():
        raise FloorConflict(f"Schedule {code} already exists.", code="duplicate_code", field="code")
    built = build_rates(rates)
    when = effective_from if (allow_past and effective_from) else check_effective_from(effective_from, None)
    schedule = CollectionSchedule.objects.create(code=code, name=name.strip(), description=description)
    _add_version(schedule=schedule, rates=built, effective_from=when, by=by, reason=reason or "created")
    record_change(
        instance=schedule,
        action=ConfigAction.CREATE,
        by=by,
        reason=reason,
        after=schedule_snapshot_at(schedule, when),
    )
    return schedule


def schedule_snapshot_at(schedule: CollectionSchedule, when: datetime.datetime) -> dict[str, Any]:
    data = snapshot(schedule)
    data["version"] = version_snapshot(schedule.version_at(when))
    return data


@service
def revise_schedule(
    *,
    schedule: CollectionSchedule,
    rates: Sequence[Mapping[str, Any]],
    by: User,
    reason: str,
    effective_from: datetime.datetime | None = None,
) -> CollectionScheduleVersion:
    """A new version of ``schedule`` with ``rates`` (the complete set), from ``effective_from``.

    ``effective_from`` defaults to now, can't be in the past, and must follow the latest version;
    earlier versions stay as they were, so fees already collected keep their rates. Every table
    on the schedule must keep 1 to 5 applicable rates (TooManyRates otherwise), each of whose
    fees is a whole number of the table's chips (InvalidSchedule otherwise):
    :func:`check_rates_against_tables`. Fees far outside the schedule's sense are accepted here
    (:func:`tables.validators.fee_warnings`); the schedule page asks to confirm them after
    :func:`preview_revision`, the API returns them with the new version.
    """
    reason = require_reason(reason)
    schedule = CollectionSchedule.objects.select_for_update().get(pk=schedule.pk)
    built = build_rates(rates)
    when = check_effective_from(effective_from, schedule)
    check_rates_against_tables(schedule, built)
    before = version_snapshot(schedule.versions.order_by("-effective_from").first())
    version = _add_version(schedule=schedule, rates=built, effective_from=when, by=by, reason=reason)
    record_change(
        instance=schedule,
        action=ConfigAction.NEW_VERSION,
        by=by,
        reason=reason,
        before=before,
        after=version_snapshot(version),
    )
    return version


@service
def rename_schedule(
    *, schedule: CollectionSchedule, by: User, reason: str, name: str, description: str
) -> None:
    """Change a schedule's name and description (its rates change only by new versions)."""
    reason = require_reason(reason)
    schedule = CollectionSchedule.objects.select_for_update().get(pk=schedule.pk)
    before = schedule_snapshot(schedule)
    schedule.name, schedule.description = name, description
    schedule.save(update_fields=["name", "description"])
    record_change(
        instance=schedule,
        action=ConfigAction.UPDATE,
        by=by,
        reason=reason,
        before=before,
        after=schedule_snapshot(schedule),
    )
