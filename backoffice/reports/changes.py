"""The configuration change log: who changed what, when and why, in words.

Three sources, merged in time order:

* ``tables.ConfigChange`` (games, stakes, tables, collection schedules, players; written by the
  floor's services in the same transaction as the change, with the reason);
* ``ledger.AuthChange`` (users, groups, permissions; written by signals wherever the change was
  made, so it names what changed but not who made it);
* the admin's own log (``django.contrib.admin.LogEntry``) for users and groups, which names the
  admin user who made the change.

A floor change is told field by field, ``label: old -> new``, with names for what an id points
at (a game's name, a stakes' label, a schedule's code and name) and dollars for money; ids,
creation times and other bookkeeping fields are left out. A schedule revision lists only the
rates whose fee changed (old and new fee side by side) and the rates added or removed
(:func:`rate_changes`, also the schedule page's history: :func:`schedule_history`).

With a tables filter, floor changes are limited to those tables' rows (changes to games, stakes
and schedules are still shown, since they apply to every table on them).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.db.models import Q

from backoffice.reports.common import ReportFilters, ReportMeta, fmt_local, in_report_snapshot, make_meta
from casino.core.money import format_cents
from ledger.models import AuthChange
from tables import services as floor
from tables.choices import GameKind, KillType, Payer, RateStructure, Structure
from tables.models import (
    CollectionRate,
    CollectionSchedule,
    CollectionScheduleVersion,
    ConfigChange,
    Game,
    Stakes,
    Table,
    TableStatus,
    WaitingList,
)

TITLE = "Configuration change log"
MAX_LINES = 5000

_ADMIN_ACTIONS = {ADDITION: "added", CHANGE: "changed", DELETION: "deleted"}

# Bookkeeping, not configuration: never shown (the change's own time and author are).
HIDDEN_FIELDS = frozenset(
    {"id", "created_at", "created_by_id", "opened_at", "closed_at", "updated_at", "schedule_id", "version_id"}
)
LABELS = {
    "number": "Number",
    "game_id": "Game",
    "stakes_id": "Stakes",
    "collection_schedule_id": "Collection schedule",
    "seat_count": "Seats",
    "chip_unit_cents": "Chip",
    "status": "Status",
    "keep_fees_on_misdeal": "Fees kept on a misdeal",
    "code": "Code",
    "name": "Name",
    "description": "Description",
    "structure": "Structure",
    "small_bet_cents": "Small bet",
    "big_bet_cents": "Big bet",
    "alt_small_bet_cents": "Second small bet",
    "alt_big_bet_cents": "Second big bet",
    "buy_in_min_cents": "Minimum buy-in",
    "buy_in_max_cents": "Maximum buy-in",
    "kill": "Kill",
    "point_cents": "Point",
    "is_active": "Active",
    "slug": "Code",
    "kind": "Kind",
    "is_button_game": "Button game",
    "is_stud_game": "Stud game",
    "is_dealers_choice": "Dealer's choice",
    "max_hands": "Most hands dealt",
    "sort_order": "Order on the menu",
    "effective_from": "In force from",
    "reason": "Reason",
    # A player (``tables.services.players``: the numbers are written hidden, "ending 82").
    "board_alias": "Name on the board",
    "member_number": "Member number",
    "phone": "Phone",
    "merged_into": "Merged into",
    "merged_in": "Took in the record of",
}
CHOICES: dict[str, Mapping[str, str]] = {
    "status": dict(TableStatus.choices),
    "structure": {**dict(Structure.choices), **dict(RateStructure.choices)},
    "kill": dict(KillType.choices),
    "kind": dict(GameKind.choices),
    "payer": dict(Payer.choices),
}
# Snapshot fields holding a table's database id, named by the table's number.
TABLE_FIELDS = ("table_id", "from_table_id", "to_table_id", "called_to_id")
# Snapshot fields holding a user's id besides the ``..._by_id`` ones.
USER_FIELDS = frozenset({"dealer_id", "user_id"})
RATE_FIELDS = tuple(
    field.attname
    for field in CollectionRate._meta.concrete_fields
    if field.attname not in {"id", "version_id"}
)


@dataclasses.dataclass(frozen=True, slots=True)
class ChangeLine:
    """One change: ``items`` says what changed, one phrase each (``what`` joins them)."""

    at: dt.datetime
    source: str
    who: str
    action: str
    subject: str
    what: str
    reason: str
    items: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True, slots=True)
class ChangeLog:
    meta: ReportMeta
    lines: list[ChangeLine]
    truncated: bool


# --- Rates ------------------------------------------------------------------------------------------


class RateChangeKind:
    CHANGED = "changed"
    ADDED = "added"
    REMOVED = "removed"


@dataclasses.dataclass(frozen=True, slots=True)
class RateChange:
    """A schedule row whose fee changed (``old`` and ``new`` fee), was added (``old`` empty) or
    removed (``new`` empty) between two versions."""

    kind: str
    limits: str
    players: str
    old: str
    new: str

    @property
    def text(self) -> str:
        row = f"{self.limits}, {self.players} players"
        if self.kind == RateChangeKind.ADDED:
            return f"Rate added: {row}: {self.new}"
        if self.kind == RateChangeKind.REMOVED:
            return f"Rate removed: {row} (was {self.old})"
        return f"Fee {row}: {self.old} -> {self.new}"


def rate_changes(old: Sequence[CollectionRate], new: Sequence[CollectionRate]) -> list[RateChange]:
    """The floor's comparison of two versions' rates (``tables.services.rate_changes``: the rows
    whose fee changed, the rows added, then the rows removed; equal fees are not listed), as
    changed / added / removed rows for the change log."""
    changes: list[RateChange] = []
    for change in floor.rate_changes(old, new):
        if change.old == floor.NO_RATE:
            changes.append(RateChange(RateChangeKind.ADDED, change.limits, change.players, "", change.new))
        elif change.new == floor.NO_RATE:
            changes.append(RateChange(RateChangeKind.REMOVED, change.limits, change.players, change.old, ""))
        else:
            changes.append(
                RateChange(RateChangeKind.CHANGED, change.limits, change.players, change.old, change.new)
            )
    return changes


def rates_from_snapshot(rows: Any) -> list[CollectionRate]:
    """Unsaved rate rows from a version's history snapshot (``tables.history.version_snapshot``)."""
    if not isinstance(rows, list):
        return []
    return [
        CollectionRate(**{name: row.get(name) for name in RATE_FIELDS if name in row})
        for row in rows
        if isinstance(row, dict)
    ]


@dataclasses.dataclass(frozen=True, slots=True)
class VersionHistory:
    """One version of a schedule for its page: what changed from the version before (``changes``;
    for the first version, every rate as added)."""

    version: CollectionScheduleVersion
    previous_number: int | None
    changes: list[RateChange]


def schedule_history(schedule: CollectionSchedule) -> list[VersionHistory]:
    """Every version of ``schedule``, newest first, each with the rates it changed."""
    versions = list(
        schedule.versions.order_by("number").prefetch_related("rates").select_related("created_by")
    )
    history: list[VersionHistory] = []
    previous: CollectionScheduleVersion | None = None
    for version in versions:
        old = list(previous.rates.all()) if previous is not None else []
        history.append(
            VersionHistory(
                version=version,
                previous_number=previous.number if previous is not None else None,
                changes=rate_changes(old, list(version.rates.all())),
            )
        )
        previous = version
    return history[::-1]


# --- Floor changes in words -------------------------------------------------------------------------


class Names:
    """What ids in the snapshots point at, loaded once per report: games, stakes, schedules, tables
    (by number: ``table_id`` 10 is "11" when the room calls it table 11), waiting lists (by game and
    stakes, as the floor calls them), users (only the fields that name one: ``..._by_id``,
    ``dealer_id``). Any other id is shown as ``#<id>``, never looked up among the users."""

    def __init__(self) -> None:
        self.games = dict(Game.objects.values_list("pk", "name"))
        self.stakes = {stakes.pk: stakes.label for stakes in Stakes.objects.all()}
        self.schedules = {s.pk: f"{s.code} ({s.name})" for s in CollectionSchedule.objects.all()}
        self.tables = {pk: str(number) for pk, number in Table.objects.values_list("pk", "number")}
        self.lists = {w.pk: w.label for w in WaitingList.objects.select_related("game", "stakes")}
        self.users = dict(get_user_model().objects.values_list("pk", "username"))

    def of(self, field: str, value: Any) -> str:
        if not isinstance(value, int):
            return _plain(value)
        found: Mapping[int, str] = {
            "game_id": self.games,
            "stakes_id": self.stakes,
            "collection_schedule_id": self.schedules,
            "waiting_list_id": self.lists,
            **dict.fromkeys(TABLE_FIELDS, self.tables),
        }.get(field, self.users if field.endswith("by_id") or field in USER_FIELDS else {})
        return found.get(value, f"#{value}")


def _label(field: str) -> str:
    if field in LABELS:
        return LABELS[field]
    return field.removesuffix("_id").removesuffix("_cents").replace("_", " ").capitalize()


def _plain(value: Any) -> str:
    if value is None or value == "":
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def field_value(field: str, value: Any, names: Names) -> str:
    """A snapshot's value as people read it: dollars, a name for an id, a choice's label."""
    if field.endswith("_cents"):
        if value is None:
            return "no max" if field == "buy_in_max_cents" else "none"
        return format_cents(int(value)) if isinstance(value, int) else _plain(value)
    if field.endswith("_id"):
        return "none" if value is None else names.of(field, value)
    if field in CHOICES and isinstance(value, str):
        return (
            CHOICES[field].get(value, value).lower()
            if field == "status"
            else CHOICES[field].get(value, value)
        )
    if field == "effective_from" and isinstance(value, str):
        try:
            return fmt_local(dt.datetime.fromisoformat(value))
        except ValueError:
            return value
    return _plain(value)


def _fields_changed(before: Mapping[str, Any], after: Mapping[str, Any], names: Names) -> list[str]:
    return [
        f"{_label(key)}: {field_value(key, before.get(key), names)} -> "
        f"{field_value(key, after.get(key), names)}"
        for key in _ordered(set(before) | set(after))
        if key not in HIDDEN_FIELDS
        and not isinstance(after.get(key, before.get(key)), dict | list)
        and before.get(key) != after.get(key)
    ]


def _fields_listed(values: Mapping[str, Any], names: Names) -> list[str]:
    return [
        f"{_label(key)} {field_value(key, value, names)}"
        for key, value in ((key, values[key]) for key in _ordered(set(values)))
        if key not in HIDDEN_FIELDS and not isinstance(value, dict | list) and value not in (None, "")
    ]


def _ordered(keys: set[str]) -> list[str]:
    """Known fields in the labels' order, then the rest alphabetically."""
    order = {name: index for index, name in enumerate(LABELS)}
    return sorted(keys, key=lambda key: (order.get(key, len(order)), key))


def _version_items(before: Any, after: Mapping[str, Any], names: Names) -> list[str]:
    """A schedule version: when it is in force, and the rates it changes against ``before``."""
    number, start = after.get("number"), field_value("effective_from", after.get("effective_from"), names)
    previous = before.get("number") if isinstance(before, dict) else None
    head = f"Version {number} in force from {start}" + (f" (follows version {previous})" if previous else "")
    old = rates_from_snapshot(before.get("rates") if isinstance(before, dict) else None)
    new = rates_from_snapshot(after.get("rates"))
    if not old:
        return [f"{head}: {len(new)} rate{'s' if len(new) != 1 else ''}"]
    changes = rate_changes(old, new)
    return [head, *(change.text for change in changes)] if changes else [head, "No fee changed"]


def describe_change(before: Any, after: Any, *, names: Names | None = None) -> list[str]:
    """What a floor change did, in words, one phrase each: ``Stakes: $4-$8 limit -> $6-$12 limit``.

    ``before``/``after`` are the history's JSON snapshots (None for a creation or a deletion): a
    row's fields, or a schedule version with its ``rates`` (a schedule revision: only the rates
    whose fee changed, and those added or removed), or a schedule with its ``version`` /
    ``version_in_force``. Ids, creation times and bookkeeping fields are left out."""
    names = names or Names()
    if isinstance(after, dict) and "rates" in after:
        return _version_items(before, after, names)
    if not isinstance(before, dict) and isinstance(after, dict):
        items = _fields_listed(after, names)
        version = after.get("version") or after.get("version_in_force")
        if isinstance(version, dict):
            items += _version_items(None, version, names)
        return items or ["Created"]
    if isinstance(before, dict) and not isinstance(after, dict):
        return ["Deleted"]
    if not isinstance(before, dict) or not isinstance(after, dict):
        return []
    items = _fields_changed(before, after, names)
    for key in ("version", "version_in_force"):
        old, new = before.get(key), after.get(key)
        if isinstance(new, dict) and old != new:
            items += _version_items(old, new, names)
    return items or ["Nothing shown changed"]


def _kind(content_type: ContentType | None) -> str:
    return str(content_type.name).capitalize() if content_type is not None else ""


def _subject(change: ConfigChange) -> str:
    kind = _kind(change.content_type)
    if change.object_repr.lower().startswith(kind.lower()):
        return change.object_repr
    return f"{kind} {change.object_repr}".strip()


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
    names = Names()
    lines = [
        _line(
            at=change.at,
            source="floor",
            who=change.by_username or "system",
            action=change.get_action_display(),
            subject=_subject(change),
            items=describe_change(change.before, change.after, names=names),
            reason=change.reason,
        )
        for change in floor.select_related("content_type").order_by("-at", "-pk")[:MAX_LINES]
    ]
    lines += [
        _line(
            at=change.at,
            source="access",
            who="",
            action=change.get_action_display(),
            subject=f"{change.subject_type.capitalize()} {change.subject_repr}",
            items=[
                f"{key.replace('_', ' ').capitalize()}: {_access_value(value)}"
                for key, value in sorted(change.detail.items())
            ],
            reason="",
        )
        for change in filters.on_time(AuthChange.objects.all(), "at").order_by("-at", "-pk")[:MAX_LINES]
    ]
    auth_types = ContentType.objects.filter(app_label="auth", model__in=["user", "group"])
    lines += [
        _line(
            at=entry.action_time,
            source="admin",
            who=entry.user.get_username(),
            action=_ADMIN_ACTIONS.get(entry.action_flag, str(entry.action_flag)),
            subject=f"{_kind(entry.content_type)} {entry.object_repr}".strip(),
            items=[entry.get_change_message()],
            reason="",
        )
        for entry in filters.on_time(LogEntry.objects.filter(content_type__in=auth_types), "action_time")
        .select_related("user", "content_type")
        .order_by("-action_time", "-pk")[:MAX_LINES]
    ]
    lines.sort(key=lambda line: line.at, reverse=True)
    return ChangeLog(meta=meta, lines=lines[:MAX_LINES], truncated=len(lines) > MAX_LINES)


def _line(*, items: list[str], **fields: Any) -> ChangeLine:
    return ChangeLine(what="; ".join(items), items=items, **fields)


def _access_value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if isinstance(value, dict):
        return ", ".join(f"{key} {item}" for key, item in sorted(value.items()))
    return _plain(value)


__all__ = [
    "ChangeLine",
    "ChangeLog",
    "Names",
    "RateChange",
    "VersionHistory",
    "build_change_log",
    "describe_change",
    "rate_changes",
    "schedule_history",
]
