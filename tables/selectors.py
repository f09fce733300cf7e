"""Read-only queries over the floor model (no writes; safe to call anywhere).

The ledger looks fees up here: :func:`rate_for_hand` gives the collection rate that applied to a
hand as the schedule stood when the hand started.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.db.models import QuerySet, Subquery
from django.utils import timezone

from casino.core.versions import in_force
from tables.models import (
    CollectionRate,
    CollectionSchedule,
    Hand,
    Seating,
    Stakes,
    Table,
)


def applicable_rates(rates: Iterable[CollectionRate], stakes: Stakes) -> list[CollectionRate]:
    """The rows of ``rates`` that cover ``stakes`` (any players band)."""
    return [rate for rate in rates if rate.matches_stakes(stakes)]


def table_rates(table: Table, *, at: datetime.datetime | None = None) -> list[CollectionRate]:
    """The collection rates that apply at ``table`` as its schedule stood at ``at`` (<= 5)."""
    version = table.collection_schedule.version_at(at)
    if version is None:
        return []
    return applicable_rates(version.rates.all(), table.stakes)


def rate_for(
    *, schedule: CollectionSchedule, stakes: Stakes, players: int, at: datetime.datetime | None = None
) -> CollectionRate | None:
    """The rate for a hand of ``players`` at ``stakes`` under ``schedule`` as in force at ``at``.

    One query (every hand's start makes it): the rates of the version in force, as
    :meth:`~tables.models.CollectionSchedule.version_at` gives it (:mod:`casino.core.versions`)."""
    at = at or timezone.now()
    version = in_force(schedule.versions.all(), at).values("pk")[:1]
    rates = CollectionRate.objects.filter(version=Subquery(version)).order_by("id")
    for rate in applicable_rates(rates, stakes):
        if rate.covers_players(players):
            return rate
    return None


def rate_for_hand(hand: Hand) -> CollectionRate | None:
    """The rate that applies to ``hand``: its schedule as in force when it started."""
    return rate_for(
        schedule=hand.collection_schedule,
        stakes=hand.stakes,
        players=hand.players.count(),
        at=hand.created_at,
    )


def active_seatings(table: Table) -> QuerySet[Seating]:
    """Who sits at ``table`` now, by seat number (seat and player joined)."""
    return (
        Seating.objects.active().filter(table=table).select_related("seat", "player").order_by("seat__number")
    )
