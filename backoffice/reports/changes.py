"""The configuration change log: who changed what, when and why.

Three sources, merged in time order:

* ``tables.ConfigChange`` (games, stakes, tables, collection schedules; written by the floor's
  services in the same transaction as the change, with the reason);
* ``ledger.AuthChange`` (users, groups, permissions; written by signals wherever the change was
  made, so it names what changed but not who made it);
* the admin's own log (``django.contrib.admin.LogEntry``) for users and groups, which names the
  admin user who made the change.

With a tables filter, floor changes are limited to those tables' rows (changes to games, stakes
and schedules are still shown, since they apply to every table on them).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import Q

from backoffice.reports.common import ReportFilters, ReportMeta, in_report_snapshot, make_meta
from ledger.models import AuthChange
from tables.models import ConfigChange, Table

TITLE = "Configuration change log"
MAX_LINES = 5000

_ADMIN_ACTIONS = {ADDITION: "added", CHANGE: "changed", DELETION: "deleted"}


@dataclasses.dataclass(frozen=True, slots=True)
class ChangeLine:
    at: dt.datetime
    source: str
    who: str
    action: str
    subject: str
    what: str
    reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class ChangeLog:
    meta: ReportMeta
    lines: list[ChangeLine]
    truncated: bool


def describe_change(before: Any, after: Any) -> str:
    """``status: closed -> open; seat_count: 9 -> 10`` for two JSON snapshots (None: created/deleted)."""
    if not isinstance(before, dict) and isinstance(after, dict):
        return "created: " + ", ".join(
            f"{key}={_short(value)}" for key, value in sorted(after.items()) if key != "id"
        )
    if isinstance(before, dict) and not isinstance(after, dict):
        return "deleted"
    if not isinstance(before, dict) or not isinstance(after, dict):
        return ""
    changed = [
        f"{key}: {_short(before.get(key))} -> {_short(after.get(key))}"
        for key in sorted(set(before) | set(after))
        if before.get(key) != after.get(key)
    ]
    return "; ".join(changed)


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "..."


@in_report_snapshot
def build_change_log(filters: ReportFilters) -> ChangeLog:
    """Changes made in the period (and shift hours), newest first, at most ``MAX_LINES``."""
    meta = make_meta("config_changes", TITLE, filters)
    floor = filters.on_time(ConfigChange.objects.all(), "at")
    if filters.tables:
        table_type = ContentType.objects.get_for_model(Table)
        table_ids = [
            str(pk) for pk in Table.objects.filter(number__in=filters.tables).values_list("pk", flat=True)
        ]
        floor = floor.filter(~Q(content_type=table_type) | Q(object_id__in=table_ids))
    lines = [
        ChangeLine(
            at=change.at,
            source="floor",
            who=change.by_username or "system",
            action=change.get_action_display(),
            subject=f"{change.content_type.model} {change.object_repr}",
            what=describe_change(change.before, change.after),
            reason=change.reason,
        )
        for change in floor.select_related("content_type").order_by("-at", "-pk")[:MAX_LINES]
    ]
    lines += [
        ChangeLine(
            at=change.at,
            source="access",
            who="",
            action=change.get_action_display(),
            subject=f"{change.subject_type} {change.subject_repr}",
            what=", ".join(f"{key}: {_short(value)}" for key, value in sorted(change.detail.items())),
            reason="",
        )
        for change in filters.on_time(AuthChange.objects.all(), "at").order_by("-at", "-pk")[:MAX_LINES]
    ]
    auth_types = ContentType.objects.filter(app_label="auth", model__in=["user", "group"])
    lines += [
        ChangeLine(
            at=entry.action_time,
            source="admin",
            who=entry.user.get_username(),
            action=_ADMIN_ACTIONS.get(entry.action_flag, str(entry.action_flag)),
            subject=f"{entry.content_type.model if entry.content_type else ''} {entry.object_repr}",
            what=entry.get_change_message(),
            reason="",
        )
        for entry in filters.on_time(LogEntry.objects.filter(content_type__in=auth_types), "action_time")
        .select_related("user", "content_type")
        .order_by("-action_time", "-pk")[:MAX_LINES]
    ]
    lines.sort(key=lambda line: line.at, reverse=True)
    return ChangeLog(meta=meta, lines=lines[:MAX_LINES], truncated=len(lines) > MAX_LINES)
