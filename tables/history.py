"""Configuration history: JSON snapshots and the append-only :class:`ConfigChange` rows.

Call :func:`record_change` inside the transaction that makes the change, so that the change and
its history commit or roll back together.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.contrib.contenttypes.models import ContentType
from django.db import models

from tables.models import (
    CollectionSchedule,
    CollectionScheduleVersion,
    ConfigAction,
    ConfigChange,
    Game,
    Player,
)

JSONValue = Any


def _json(value: Any) -> JSONValue:
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal | uuid.UUID):
        return str(value)
    return value


def snapshot(instance: models.Model) -> dict[str, JSONValue]:
    """Every concrete field of ``instance`` as JSON (foreign keys as their ids)."""
    data: dict[str, JSONValue] = {}
    for field in instance._meta.concrete_fields:
        data[field.attname] = _json(getattr(instance, field.attname))
    return data


def game_snapshot(game: Game) -> dict[str, JSONValue]:
    """A game with the games its button picks from (a choice game), in words for the change log."""
    data = snapshot(game)
    data["choice_of"] = ", ".join(g.name for g in game.choice_of.order_by("sort_order", "slug"))
    return data


def version_snapshot(version: CollectionScheduleVersion | None) -> dict[str, JSONValue] | None:
    """A schedule version with all its rates, for the history of a schedule."""
    if version is None:
        return None
    data = snapshot(version)
    data["rates"] = [
        {k: v for k, v in snapshot(rate).items() if k not in {"id", "version_id"}}
        for rate in version.rates.all()
    ]
    return data


def schedule_snapshot(schedule: CollectionSchedule) -> dict[str, JSONValue]:
    data = snapshot(schedule)
    data["version_in_force"] = version_snapshot(schedule.version_at())
    return data


def subject(instance: models.Model) -> str:
    """What a history row names: the object as it prints, but a player by name and record number
    (its printed form carries the member number, which the log never keeps in clear)."""
    if isinstance(instance, Player):
        return f"{instance.name} (player {instance.pk})"
    return str(instance)


def record_change(
    *,
    instance: models.Model,
    action: ConfigAction | str,
    by: User | AnonymousUser | None,
    reason: str = "",
    before: dict[str, JSONValue] | None = None,
    after: dict[str, JSONValue] | None = None,
) -> ConfigChange:
    """Append one history row for ``instance``; ``by`` None (or anonymous) means the system."""
    user = by if by is not None and by.is_authenticated else None
    return ConfigChange.objects.create(
        by=user,
        by_username=user.get_username() if user is not None else "",
        action=action,
        content_type=ContentType.objects.get_for_model(instance, for_concrete_model=True),
        object_id=str(instance.pk),
        object_repr=subject(instance)[:200],
        before=before,
        after=after,
        reason=reason,
    )
