"""API shapes of the waiting lists, the seat offers and the list settings (docs/waiting-lists.md).
Shapes only: the services decide.

A place on a list is shown as it stands now (``position``, ``state``, ``called_to``,
``call_deadline``: the time limits passed applied, :class:`tables.lists.selectors.FloorState`),
which the next write records; ``stored_state`` is the row as last written.
"""

from __future__ import annotations

from typing import Any, cast

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tables.lists.services import SETTINGS_FIELDS, Candidate, FloorState, Row, TableCalls, names_at_events
from tables.models import (
    EntryKind,
    EntrySource,
    EntryState,
    Game,
    ListEvent,
    MissedCallPolicy,
    MustMove,
    Seating,
    Stakes,
    WaitingList,
    WaitingListEntry,
    WaitingListEvent,
    WaitingListSettings,
)

#: The largest id a route or a body may name (a 64-bit column's range, as web.common.permissions).
MAX_ID = 10**18


def _id(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, **kwargs)


def _reason(*, required: bool = False, help_text: str = "Why (kept in the record).") -> serializers.CharField:
    if required:
        return serializers.CharField(max_length=500, help_text=help_text)
    return serializers.CharField(
        max_length=500, required=False, allow_blank=True, default="", help_text=help_text
    )


class WaitingListEntrySerializer(serializers.ModelSerializer[WaitingListEntry]):
    """A place on a list: as it stands now when it is on the list (``context["state"]``, a
    :class:`FloorState`), else as recorded."""

    player_name = serializers.CharField(source="player.name", read_only=True)
    board_name = serializers.CharField(source="player.board_name", read_only=True)
    from_table = serializers.SerializerMethodField()
    position = serializers.SerializerMethodField()
    state = serializers.SerializerMethodField()
    stored_state = serializers.CharField(
        source="state", read_only=True, help_text="The state as last written (the same values as state)."
    )
    called_to = serializers.SerializerMethodField()
    call_deadline = serializers.SerializerMethodField()
    misses = serializers.SerializerMethodField()

    class Meta:
        model = WaitingListEntry
        fields = (
            "id",
            "waiting_list",
            "player",
            "player_name",
            "board_name",
            "entry_kind",
            "from_table",
            "added_via",
            "position",
            "state",
            "stored_state",
            "note",
            "added_at",
            "expires_at",
            "arrived_at",
            "called_at",
            "called_to",
            "call_deadline",
            "misses",
            "ended_at",
            "ended_reason",
        )
        read_only_fields = fields

    def _row(self, obj: WaitingListEntry) -> Row | None:
        state: FloorState | None = self.context.get("state")
        if state is None:
            return None
        return next((r for r in state.rows.get(obj.waiting_list_id, []) if r.entry.pk == obj.pk), None)

    def get_from_table(self, obj: WaitingListEntry) -> int | None:
        """A table change's table (number)."""
        return obj.from_table.number if obj.from_table else None

    def get_position(self, obj: WaitingListEntry) -> int | None:
        """1 is next; None once off the list."""
        row = self._row(obj)
        if row is not None:
            return row.position
        return (
            obj.position if obj.state in EntryState.on_list() and self.context.get("state") is None else None
        )

    @extend_schema_field(serializers.ChoiceField(choices=EntryState.choices))
    def get_state(self, obj: WaitingListEntry) -> str:
        row = self._row(obj)
        if row is not None:
            return row.place.state
        if obj.state in EntryState.on_list() and self.context.get("state") is not None:
            # On the list as recorded, off it now: a time limit passed (recorded at the next write).
            return EntryState.EXPIRED if obj.call_deadline is None else EntryState.REMOVED
        return obj.state

    def get_called_to(self, obj: WaitingListEntry) -> int | None:
        """The table (number) the player is called to, while called."""
        row = self._row(obj)
        if row is not None:
            return row.entry.called_to.number if row.is_called and row.entry.called_to else None
        return obj.called_to.number if obj.state == EntryState.CALLED and obj.called_to else None

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_call_deadline(self, obj: WaitingListEntry) -> Any:
        row = self._row(obj)
        deadline = row.place.call_deadline if row is not None else obj.call_deadline
        return serializers.DateTimeField().to_representation(deadline) if deadline else None

    def get_misses(self, obj: WaitingListEntry) -> int:
        row = self._row(obj)
        return row.place.misses if row is not None else obj.misses


class WaitingListSerializer(serializers.ModelSerializer[WaitingList]):
    """A list, its tables, and its places in order (``context["state"]``)."""

    game: serializers.SlugRelatedField[Game] = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    game_name = serializers.CharField(source="game.name", read_only=True)
    stakes: serializers.SlugRelatedField[Stakes] = serializers.SlugRelatedField(
        slug_field="code", read_only=True
    )
    stakes_label = serializers.CharField(source="stakes.label", read_only=True)
    label = serializers.CharField(read_only=True)  # type: ignore[assignment]  # a field, not Field.label
    tables = serializers.SerializerMethodField()
    players_to_open = serializers.SerializerMethodField()
    entries = serializers.SerializerMethodField()

    class Meta:
        model = WaitingList
        fields = (
            "id",
            "game",
            "game_name",
            "stakes",
            "stakes_label",
            "label",
            "is_active",
            "tables",
            "players_to_open",
            "entries",
        )
        read_only_fields = fields

    def _state(self) -> FloorState:
        state: FloorState | None = self.context.get("state")
        if state is None:
            state = FloorState.load(with_inactive=True)
            cast(dict[str, Any], self.context)["state"] = state  # shared by the list's entries
        return state

    def get_tables(self, obj: WaitingList) -> list[int]:
        """The open tables the list feeds (numbers); none: an interest list."""
        return [t.number for t in self._state().tables_of(obj)]

    def get_players_to_open(self, obj: WaitingList) -> int:
        """Players waiting that are enough to open a table of the list's game."""
        return self._state().settings.players_to_open(obj.game)

    @extend_schema_field(WaitingListEntrySerializer(many=True))
    def get_entries(self, obj: WaitingList) -> list[dict[str, Any]]:
        rows = self._state().rows.get(obj.pk, [])
        return list(WaitingListEntrySerializer([r.entry for r in rows], many=True, context=self.context).data)


class WaitingListCreateSerializer(serializers.Serializer[dict[str, Any]]):
    game = serializers.CharField(max_length=40, help_text="Game slug.")
    stakes = serializers.CharField(max_length=40, help_text="Stakes code.")
    reason = _reason()


class AddToListsSerializer(serializers.Serializer[dict[str, Any]]):
    waiting_lists = serializers.ListField(
        child=_id(), min_length=1, max_length=50, help_text="The lists (ids) to join, all or none."
    )
    player = _id(required=False, allow_null=True, default=None, help_text="Player id (or new_player_name).")
    new_player_name = serializers.CharField(
        max_length=100, required=False, allow_blank=True, default="", help_text="A new player's name."
    )
    board_alias = serializers.CharField(
        max_length=30, required=False, allow_null=True, default=None, help_text="The name the board shows."
    )
    added_via = serializers.ChoiceField(choices=EntrySource.choices, default=EntrySource.IN_PERSON)
    entry_kind = serializers.ChoiceField(choices=EntryKind.choices, default=EntryKind.SEAT)
    note = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")


class CallSerializer(serializers.Serializer[dict[str, Any]]):
    table = _id(help_text="Table number.")
    reason = _reason(help_text="Needed when someone else is ahead for the seat (kept in the record).")


class SeatFromListSerializer(serializers.Serializer[dict[str, Any]]):
    seat_number = serializers.IntegerField(min_value=1, max_value=10)
    table = _id(
        required=False,
        allow_null=True,
        default=None,
        help_text="Table number, to call and seat a waiting player at once (default: the table called to).",
    )
    reason = _reason(help_text="Needed when someone else is ahead for the seat (kept in the record).")


class ReasonRequiredSerializer(serializers.Serializer[dict[str, Any]]):
    reason = _reason(required=True)


class PassSerializer(serializers.Serializer[dict[str, Any]]):
    reason = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class MoveOnListSerializer(serializers.Serializer[dict[str, Any]]):
    position = serializers.IntegerField(min_value=1, max_value=10_000, help_text="1 is the top.")
    reason = _reason(required=True)


class OpenTableSerializer(serializers.Serializer[dict[str, Any]]):
    table = _id(help_text="Table number (closed, of the list's game and stakes).")
    reason = _reason()


class MoveInSerializer(serializers.Serializer[dict[str, Any]]):
    seating = _id(help_text="The seating (id) of the player moving in.")
    to_table = _id(help_text="Table number.")
    to_seat_number = serializers.IntegerField(min_value=1, max_value=10)
    reason = _reason(help_text="Needed when someone else is ahead for the seat (kept in the record).")


class ListSeatingSerializer(serializers.Serializer[Seating]):
    """A seating made from a list."""

    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table.number")
    seat_number = serializers.IntegerField(source="seat.number")
    player = serializers.IntegerField(source="player_id")
    player_name = serializers.CharField(source="player.name")
    seated_at = serializers.DateTimeField()


class CandidateSerializer(serializers.Serializer[Candidate]):
    via = serializers.ChoiceField(
        source="kind",
        choices=[("must_move", "must_move"), ("table_change", "table_change"), ("list", "list")],
        help_text="must_move: at a must-move table; table_change: a table change request; list: the list.",
    )
    player = serializers.IntegerField(source="player.pk")
    player_name = serializers.CharField(source="player.name")
    entry = serializers.SerializerMethodField()
    seating = serializers.SerializerMethodField()

    def get_entry(self, obj: Candidate) -> int | None:
        """The place on the list (a table change or the list)."""
        return obj.row.entry.pk if obj.row else None

    def get_seating(self, obj: Candidate) -> int | None:
        """A must-move player's seating."""
        return obj.seating.pk if obj.seating else None


class SkipSerializer(serializers.Serializer[Any]):
    entry = serializers.IntegerField(source="row.entry.pk")
    player_name = serializers.CharField(source="row.player.name")
    position = serializers.IntegerField(source="row.position")
    why = serializers.CharField()


class TableCallsSerializer(serializers.Serializer[TableCalls]):
    """A table a list feeds: whom to call next for its open seats."""

    table = serializers.IntegerField(source="table.number")
    waiting_list = serializers.IntegerField(source="waiting_list.pk")
    is_must_move = serializers.BooleanField()
    free_seats = serializers.ListField(child=serializers.IntegerField())
    open_seats = serializers.IntegerField()
    called = serializers.SerializerMethodField()
    candidates = CandidateSerializer(many=True)
    skipped = SkipSerializer(many=True)

    def get_called(self, obj: TableCalls) -> list[int]:
        """The places (ids) called to this table, their time running."""
        return [r.entry.pk for r in obj.called]


class InterestSerializer(serializers.Serializer[Any]):
    waiting_list = serializers.IntegerField(source="waiting_list.pk")
    label = serializers.CharField(source="waiting_list.label")  # type: ignore[assignment]  # a field
    ready = serializers.IntegerField()
    needed = serializers.IntegerField()
    enough = serializers.BooleanField()
    closed_tables = serializers.SerializerMethodField()

    def get_closed_tables(self, obj: Any) -> list[int]:
        """Closed tables (numbers) of the game and stakes, to open for the list."""
        return [t.number for t in obj.closed_tables]


class FloorCallsSerializer(serializers.Serializer[Any]):
    at = serializers.DateTimeField()
    tables = TableCallsSerializer(many=True)
    interest = InterestSerializer(many=True)


class WaitingListEventSerializer(serializers.ModelSerializer[WaitingListEvent]):
    """An event of the lists' record; the player named as at the event (``context["names"]``, a
    :class:`tables.player_names.NameHistory` of the events drawn: one query for a page)."""

    event = serializers.ChoiceField(choices=ListEvent.choices, read_only=True)
    player_name = serializers.SerializerMethodField(
        help_text="The player's name at the event (a later rename doesn't change it)."
    )
    table = serializers.SerializerMethodField()
    passed_over = serializers.ListField(child=serializers.DictField(), read_only=True)

    class Meta:
        model = WaitingListEvent
        fields = (
            "id",
            "at",
            "by_username",
            "event",
            "waiting_list",
            "entry",
            "player",
            "player_name",
            "table",
            "seat_number",
            "position_before",
            "position_after",
            "reason",
            "passed_over",
        )
        read_only_fields = fields

    def get_table(self, obj: WaitingListEvent) -> int | None:
        return obj.table.number if obj.table else None

    def get_player_name(self, obj: WaitingListEvent) -> str:
        names = self.context.get("names") or names_at_events([obj])
        return names.at(obj.player_id, obj.at)


class WaitingListSettingsSerializer(serializers.ModelSerializer[WaitingListSettings]):
    missed_call_policy = serializers.ChoiceField(choices=MissedCallPolicy.choices)
    interest_by_game = serializers.DictField(child=serializers.IntegerField(min_value=2, max_value=10))

    class Meta:
        model = WaitingListSettings
        fields = (*SETTINGS_FIELDS, "updated_at")  # the fields the floor changes, and when
        read_only_fields = ("updated_at",)


class SettingsChangeSerializer(serializers.Serializer[dict[str, Any]]):
    """The settings to change (only those given), and why."""

    call_in_minutes = serializers.IntegerField(min_value=1, max_value=24 * 60, required=False)
    call_minutes = serializers.IntegerField(min_value=1, max_value=60, required=False)
    missed_call_policy = serializers.ChoiceField(choices=MissedCallPolicy.choices, required=False)
    move_down_places = serializers.IntegerField(min_value=1, max_value=50, required=False)
    table_changes_first = serializers.BooleanField(required=False)
    interest_players = serializers.IntegerField(min_value=2, max_value=10, required=False)
    interest_by_game = serializers.DictField(
        child=serializers.IntegerField(min_value=2, max_value=10),
        required=False,
        help_text="{game slug: players}",
    )
    reason = _reason()


class MustMoveSerializer(serializers.ModelSerializer[MustMove]):
    table = serializers.IntegerField(source="table.number", read_only=True)

    class Meta:
        model = MustMove
        fields = ("id", "table", "waiting_list", "created_at")
        read_only_fields = fields


class MustMoveCreateSerializer(serializers.Serializer[dict[str, Any]]):
    table = _id(help_text="Table number: the must-move table.")
    waiting_list = _id(help_text="The main game's list (id).")
    reason = _reason()
