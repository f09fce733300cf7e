"""A player's name as it was at a time: today's name, unwound through the renames in the change log.

A rename is the player's ``ConfigChange`` row (action ``update``) whose ``before`` holds the old
``name``, written by :func:`tables.services.update_player` in the rename's own transaction. So the
name a player had at ``at`` is the old name of the first rename after ``at``, or today's name when
none came after. A row recorded at the very moment of a rename reads the new name.

Reports read it once per report (:func:`name_history`: one query, whatever the rows, only the
renames after the report's first row), then ask each row's name (:meth:`NameHistory.at`). The
change log is the one source: a second history (a table of names) would be one more thing to keep
in step with it. A record merged into another keeps its own names (its rows are its own).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from bisect import bisect_right
from collections.abc import Iterable, Mapping

from django.contrib.contenttypes.models import ContentType

from tables.models import ConfigAction, ConfigChange, Player

#: Up to this many players the renames are read by id; more, every player's since the time (renames
#: are rare: the few extra rows cost less than an ``IN`` list of thousands of ids).
BY_ID_LIMIT = 500


@dataclasses.dataclass(frozen=True, slots=True)
class NameHistory:
    """The names of some players over time: ``current`` (today's, by id) and, per player renamed
    since the report's first row, the times of the renames with the name each one replaced."""

    current: Mapping[int, str]
    renames: Mapping[int, tuple[tuple[dt.datetime, ...], tuple[str, ...]]] = dataclasses.field(
        default_factory=dict
    )

    def at(self, player_id: int, when: dt.datetime) -> str:
        """The name ``player_id`` had at ``when`` ("" for a player this history wasn't given)."""
        found = self.renames.get(player_id)
        if found is not None:
            times, names = found
            index = bisect_right(times, when)
            if index < len(times):
                return names[index]
        return self.current.get(player_id, "")

    def during(self, player_id: int, start: dt.datetime, end: dt.datetime) -> list[str]:
        """The names ``player_id`` had from ``start`` until ``end``, oldest first, each once."""
        names = [self.at(player_id, start)]
        times, olds = self.renames.get(player_id, ((), ()))
        names += [
            olds[index + 1] if index + 1 < len(olds) else self.current.get(player_id, "")
            for index, moment in enumerate(times)
            if start < moment < end
        ]
        return list(dict.fromkeys(name for name in names if name))


def name_history(current: Mapping[int, str], *, since: dt.datetime | None = None) -> NameHistory:
    """The names of the players of ``current`` (id -> today's name, as the caller read them with
    its rows) over time; ``since``: the time of the report's first row (older renames don't
    matter to it). One query."""
    if not current:
        return NameHistory(current={})
    rows = ConfigChange.objects.filter(
        content_type=ContentType.objects.get_for_model(Player),
        action=ConfigAction.UPDATE,
        before__has_key="name",
    )
    if since is not None:
        rows = rows.filter(at__gt=since)
    if len(current) <= BY_ID_LIMIT:
        rows = rows.filter(object_id__in=[str(pk) for pk in current])
    found: dict[int, tuple[list[dt.datetime], list[str]]] = {}
    for object_id, at, before in rows.order_by("at", "pk").values_list("object_id", "at", "before"):
        pk = int(object_id) if object_id.isdigit() else 0
        if pk not in current or not isinstance(before, dict) or not isinstance(before.get("name"), str):
            continue
        times, names = found.setdefault(pk, ([], []))
        times.append(at)
        names.append(before["name"])
    return NameHistory(
        current=dict(current),
        renames={pk: (tuple(times), tuple(names)) for pk, (times, names) in found.items()},
    )


def names_as_of(player_ids: Iterable[int], at: dt.datetime) -> dict[int, str]:
    """Each player's name at ``at`` (players who don't exist are left out). Two queries."""
    current = dict(Player.objects.filter(pk__in=set(player_ids)).values_list("pk", "name"))
    history = name_history(current, since=at)
    return {pk: history.at(pk, at) for pk in current}
