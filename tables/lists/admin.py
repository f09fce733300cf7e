"""Django admin for the waiting lists: read-only windows for auditors and the floor.

The lists, their places, their record, the room's list settings and the must-move tables are
shown here with search and filters, but nothing is added, changed or deleted from the admin. A
list changes only through its services (:mod:`tables.lists.services`), which lock the list,
renumber its places, write the record (:class:`~tables.models.WaitingListEvent`, append-only) or
the configuration history, and apply the room's rules; a raw edit here would skip all of that.
The floor runs the lists from ``/floor/lists/`` (docs/waiting-lists.md). Interest lists are not
stored: they are lists whose game has no open table, read from the tables.

Imported by :mod:`tables.admin` (Django's admin discovery loads only ``admin`` modules).
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest

from casino.core.admin import ReadOnlyAdmin
from tables.models import (
    EntryState,
    MustMove,
    WaitingList,
    WaitingListEntry,
    WaitingListEvent,
    WaitingListSettings,
)


class ListReadOnlyAdmin(ReadOnlyAdmin):
    """The lists' records, viewed only (:class:`casino.core.admin.ReadOnlyAdmin`): the floor,
    auditors and superusers see them; the lists change through the services only."""


@admin.register(WaitingList)
class WaitingListAdmin(ListReadOnlyAdmin):
    """One list per game and stakes; opened and closed on the floor's lists page."""

    list_display = ("label_shown", "game", "stakes", "is_active", "on_list", "created_at", "created_by")
    list_filter = ("is_active", "game", "stakes")
    search_fields = ("game__name", "game__slug", "stakes__code")
    list_select_related = ("game", "stakes", "created_by")

    def get_queryset(self, request: HttpRequest) -> QuerySet[WaitingList]:
        lists: QuerySet[WaitingList] = super().get_queryset(request)
        on_list = Q(entries__state__in=EntryState.on_list())
        return lists.annotate(on_list_count=Count("entries", filter=on_list))

    @admin.display(description="List", ordering="game__sort_order")
    def label_shown(self, obj: WaitingList) -> str:
        return obj.label

    @admin.display(description="Places on the list (as recorded)", ordering="on_list_count")
    def on_list(self, obj: WaitingList) -> int:
        # As stored: a call-in past its time or a missed call is settled by the next write
        # (tables.lists.rules); the floor's page shows the list as it stands now.
        return int(getattr(obj, "on_list_count", 0))


@admin.register(WaitingListEntry)
class WaitingListEntryAdmin(ListReadOnlyAdmin):
    """A player's places on the lists, current and past (a place ended is kept for the record)."""

    list_display = (
        "player",
        "waiting_list",
        "position",
        "state",
        "entry_kind",
        "added_via",
        "added_at",
        "arrived_at",
        "called_to",
        "call_deadline",
        "misses",
        "ended_at",
    )
    list_filter = ("state", "added_via", "entry_kind", "waiting_list")
    search_fields = ("player__name", "player__member_number", "player__board_alias", "note", "ended_reason")
    list_select_related = (
        "player",
        "waiting_list__game",
        "waiting_list__stakes",
        "called_to",
        "from_table",
        "added_by",
    )
    date_hierarchy = "added_at"


@admin.register(WaitingListEvent)
class WaitingListEventAdmin(ListReadOnlyAdmin):
    """The lists' record: append-only (the model refuses updates and deletes), read here."""

    list_display = (
        "at",
        "event",
        "player",
        "waiting_list",
        "table",
        "seat_number",
        "position_before",
        "position_after",
        "by_username",
        "reason",
    )
    list_filter = ("event", "waiting_list")
    search_fields = ("player__name", "player__member_number", "by_username", "reason")
    list_select_related = ("player", "waiting_list__game", "waiting_list__stakes", "table")
    date_hierarchy = "at"


@admin.register(WaitingListSettings)
class WaitingListSettingsAdmin(ListReadOnlyAdmin):
    """The room's list rules; the floor changes them on the lists page (with the history)."""

    list_display = (
        "__str__",
        "call_in_minutes",
        "call_minutes",
        "missed_call_policy",
        "move_down_places",
        "table_changes_first",
        "interest_players",
        "updated_at",
        "updated_by",
    )


@admin.register(MustMove)
class MustMoveAdmin(ListReadOnlyAdmin):
    """Must-move tables and the main game each feeds; set and ended on the lists page."""

    list_display = ("table", "waiting_list", "created_at", "created_by")
    list_filter = ("waiting_list",)
    search_fields = ("table__number",)
    list_select_related = ("table", "waiting_list__game", "waiting_list__stakes", "created_by")
