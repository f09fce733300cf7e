"""Effective-dated versions: which version is in force at a time. The rule, in one place.

Something versioned (a collection schedule) has versions, each in force from its
``effective_from`` until the next one takes effect. **The version in force at ``at`` is the one
with the latest ``effective_from <= at``**: a version is in force from its first instant, and none
is in force before the first one. Two versions of one thing never share an ``effective_from``
(for collection schedules the unique constraint ``schedule_version_from_unique``), so the rule has
no tie to break and needs no second ordering key.

Every reader of a version in force applies the rule through this module:

* :func:`in_force` in a query: the versions that have taken effect, the one in force first
  (``.first()`` is it; ``.values("pk")[:1]`` is it as a subquery);
* :func:`version_in_force` over versions held in memory (a cache that prices many hands);
* :func:`periods` as intervals ``[start, end)`` (an SQL ``CASE`` over many rows).
"""

from __future__ import annotations

import datetime
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from operator import attrgetter
from typing import Final

from django.db.models import Model, QuerySet

#: The field a version takes effect from.
EFFECTIVE_FROM: Final = "effective_from"
#: Of the versions that have taken effect, the one in force first.
IN_FORCE_ORDERING: Final = (f"-{EFFECTIVE_FROM}",)
#: Oldest first: the order in which :func:`version_in_force` and :func:`periods` take versions.
CHRONOLOGICAL_ORDERING: Final = (EFFECTIVE_FROM,)

_effective_from: Final = attrgetter(EFFECTIVE_FROM)


def in_force[V: Model](versions: QuerySet[V], at: datetime.datetime) -> QuerySet[V]:
    """``versions`` that have taken effect by ``at``, the one in force at ``at`` first."""
    return versions.filter(**{f"{EFFECTIVE_FROM}__lte": at}).order_by(*IN_FORCE_ORDERING)


def version_in_force[V](versions: Sequence[V], at: datetime.datetime) -> V | None:
    """The version in force at ``at`` among ``versions`` (one thing's, oldest first), or None."""
    index = bisect_right(versions, at, key=_effective_from) - 1
    return versions[index] if index >= 0 else None


def periods[V](
    versions: Sequence[V],
) -> Iterator[tuple[V, datetime.datetime, datetime.datetime | None]]:
    """Each of ``versions`` (one thing's, oldest first) with the time it takes effect and the time
    the next one does (None for the last): it is in force at ``at`` exactly when
    ``start <= at < end``, the same answer as :func:`version_in_force`."""
    for index, version in enumerate(versions):
        end = _effective_from(versions[index + 1]) if index + 1 < len(versions) else None
        yield version, _effective_from(version), end
