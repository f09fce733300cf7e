"""A schedule revision, previewed before it is saved (:func:`preview_revision`).

What a new version would change: the rows whose fee changes (:func:`rate_changes`, which the change
log in words reads too) and, at each table on the schedule, the bands of players dealt in whose
fee changes (:class:`TableFeeChanges`), with a digest that identifies the change previewed.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tables.choices import MIN_PLAYERS
from tables.models import CollectionRate, CollectionSchedule, Table
from tables.selectors import applicable_rates
from tables.services.schedules import (
    RATE_FIELDS,
    build_rates,
    check_effective_from,
    check_rates_against_tables,
    tables_on,
)
from tables.validators import (
    rate_row_key,
    rates_fee_warnings,
)


@dataclass(frozen=True, slots=True)
class FeeChange:
    """One band of players whose fee changes: the fee before and after (``"no rate"``: none)."""

    limits: str
    players: str
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class TableFeeChanges:
    """A table on the schedule and the bands of players dealt in whose fee changes there."""

    table_number: int
    stakes_label: str
    changes: tuple[FeeChange, ...]


@dataclass(frozen=True)
class RevisionPreview:
    """What a new version of a schedule would change, before it is saved (:func:`preview_revision`).

    ``compared_with``: the number of the latest version (the one the new version follows), None
    for a schedule with none; ``rates``: the rows whose fee changes (or that come or go);
    ``tables``: every table on the schedule where a fee changes, and ``unchanged_tables`` the
    others' numbers; ``warnings``: :func:`tables.validators.rates_fee_warnings` of the new rates;
    ``digest``: identifies the schedule, the version compared with, the new rates and the time,
    so that a save can check it is the change that was previewed.
    """

    schedule_code: str
    compared_with: int | None
    rates: tuple[FeeChange, ...]
    tables: tuple[TableFeeChanges, ...]
    unchanged_tables: tuple[int, ...]
    warnings: dict[str, str]
    digest: str


def _fee_terms(rate: CollectionRate | None) -> tuple[object, ...] | None:
    return None if rate is None else (rate.payer, rate.fee_cents, rate.others_fee_cents)


NO_RATE = "no rate"


def band_label(rate: CollectionRate) -> str:
    """The players a rate covers: ``"1-4"``, or ``"3"`` for one number."""
    if rate.players_min == rate.players_max:
        return str(rate.players_min)
    return f"{rate.players_min}-{rate.players_max}"


def _fee_text(rate: CollectionRate | None) -> str:
    return NO_RATE if rate is None else rate.fee_label


def rate_changes(old: Sequence[CollectionRate], new: Sequence[CollectionRate]) -> list[FeeChange]:
    """The rows of ``new`` whose fee differs from the row of ``old`` for the same stakes and band
    (``old`` is ``NO_RATE`` for a row ``new`` adds), then the rows of ``old`` that ``new`` has no
    more (``new`` is ``NO_RATE``). The one comparison of two versions' rates: the revision preview
    and the change log in words (``backoffice.reports.changes``) both read it."""
    before = {rate_row_key(rate): rate for rate in old}
    after = {rate_row_key(rate): rate for rate in new}
    changes = [
        FeeChange(rate.limits_label, band_label(rate), _fee_text(before.get(key)), rate.fee_label)
        for key, rate in after.items()
        if _fee_terms(before.get(key)) != _fee_terms(rate)
    ]
    changes += [
        FeeChange(rate.limits_label, band_label(rate), rate.fee_label, NO_RATE)
        for key, rate in before.items()
        if key not in after
    ]
    return changes


def _table_changes(
    table: Table, old: Sequence[CollectionRate], new: Sequence[CollectionRate]
) -> list[FeeChange]:
    """For each number of players ``table`` can deal to, the fee before and after; consecutive
    numbers with the same change are one band."""
    old_rates, new_rates = applicable_rates(old, table.stakes), applicable_rates(new, table.stakes)
    bands: list[tuple[int, int, CollectionRate | None, CollectionRate | None]] = []
    most = min(table.seat_count, table.game.hands_per_round)
    for players in range(MIN_PLAYERS, most + 1):
        was = next((r for r in old_rates if r.covers_players(players)), None)
        will = next((r for r in new_rates if r.covers_players(players)), None)
        if _fee_terms(was) == _fee_terms(will):
            continue
        if bands:
            low, high, last_was, last_will = bands[-1]
            same = (_fee_terms(last_was), _fee_terms(last_will)) == (_fee_terms(was), _fee_terms(will))
            if same and high == players - 1:
                bands[-1] = (low, players, was, will)
                continue
        bands.append((players, players, was, will))
    limits = table.stakes.label
    return [
        FeeChange(limits, f"{low}-{high}" if low != high else f"{low}", _fee_text(was), _fee_text(will))
        for low, high, was, will in bands
    ]


def preview_revision(
    *,
    schedule: CollectionSchedule,
    rates: Sequence[Mapping[str, Any]],
    effective_from: datetime.datetime | None = None,
) -> RevisionPreview:
    """What :func:`revise_schedule` with the same arguments would change, without writing anything.

    Makes the same checks first (:func:`build_rates`, the effective time, every table on the
    schedule: :func:`check_rates_against_tables`) and raises the same errors. Then compares the
    new rates with the latest version's: the rows that change, and at each table on the schedule
    the bands of players dealt in whose fee changes (old fee -> new fee); with the new rates'
    warnings (:func:`tables.validators.rates_fee_warnings`) for the page to ask to confirm.
    """
    built = build_rates(rates)
    check_effective_from(effective_from, schedule)
    check_rates_against_tables(schedule, built)
    latest = schedule.versions.order_by("-number").first()
    old = list(latest.rates.all()) if latest is not None else []
    tables, unchanged = [], []
    for table in tables_on(schedule):
        changes = _table_changes(table, old, built)
        if changes:
            tables.append(TableFeeChanges(table.number, table.stakes.label, tuple(changes)))
        else:
            unchanged.append(table.number)
    digest = hashlib.sha256(
        json.dumps(
            {
                "schedule": schedule.pk,
                "compared_with": latest.number if latest is not None else None,
                "effective_from": effective_from.isoformat() if effective_from else None,
                "rates": [{name: getattr(rate, name) for name in RATE_FIELDS} for rate in built],
            },
            sort_keys=True,
        ).encode()
    ).hexdigest()
    return RevisionPreview(
        schedule_code=schedule.code,
        compared_with=latest.number if latest is not None else None,
        rates=tuple(rate_changes(old, built)),
        tables=tuple(tables),
        unchanged_tables=tuple(unchanged),
        warnings=rates_fee_warnings(built),
        digest=digest,
    )
