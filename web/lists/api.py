"""REST API of the waiting lists, the seat offers, must-move tables and the lists' record (under
``/api/``; docs/waiting-lists.md). Views translate HTTP to service calls and back; the services
(:mod:`tables.lists.services`) decide. Refusals are domain errors with the documented body
(``web.common.errors``): 400 invalid input or out of turn without a reason, 404 unknown, 409 the floor's
state forbids it. Reads need the lists' view permissions; writes ``tables.run_waiting_lists``;
the room's settings ``tables.change_waitinglistsettings``.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from handflow import services as hand_flow
from tables.errors import FloorNotFound
from tables.lists import services
from tables.lists.services import FloorState, day_bounds, names_at_events
from tables.models import (
    EntryState,
    Game,
    ListEvent,
    MustMove,
    Player,
    Seating,
    Stakes,
    Table,
    WaitingList,
    WaitingListEntry,
    WaitingListEvent,
    WaitingListSettings,
)
from web.common.permissions import ActionPermissionMixin
from web.common.serializers import ErrorSerializer, ReasonSerializer
from web.lists.serializers import (
    AddToListsSerializer,
    CallSerializer,
    FloorCallsSerializer,
    ListSeatingSerializer,
    MoveInSerializer,
    MoveOnListSerializer,
    MustMoveCreateSerializer,
    MustMoveSerializer,
    OpenTableSerializer,
    PassSerializer,
    ReasonRequiredSerializer,
    SeatFromListSerializer,
    SettingsChangeSerializer,
    WaitingListCreateSerializer,
    WaitingListEntrySerializer,
    WaitingListEventSerializer,
    WaitingListSerializer,
    WaitingListSettingsSerializer,
)

ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Invalid input, or out of turn without a reason"),
    404: OpenApiResponse(ErrorSerializer, description="Unknown list, place, player, table, seat or seating"),
    409: OpenApiResponse(ErrorSerializer, description="Conflicts with the lists' or the floor's state"),
}
VIEW = ["tables.view_waitinglist"]
RUN = ["tables.run_waiting_lists"]


def _input(serializer_class: type, request: Request) -> dict[str, Any]:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _table(number: int, field: str = "table") -> Table:
    table = Table.objects.filter(number=number).first()
    if table is None:
        raise FloorNotFound(f"There is no table {number}.", code="table_not_found", field=field)
    return table


def _list(pk: int, field: str = "waiting_list") -> WaitingList:
    waiting_list = WaitingList.objects.select_related("game", "stakes").filter(pk=pk).first()
    if waiting_list is None:
        raise FloorNotFound(f"There is no waiting list {pk}.", code="list_not_found", field=field)
    return waiting_list


def _entries(entries: list[WaitingListEntry], status_code: int = status.HTTP_200_OK) -> Response:
    state = FloorState.load(with_inactive=True)
    fresh = WaitingListEntry.objects.select_related("player", "called_to", "from_table").filter(
        pk__in=[e.pk for e in entries]
    )
    return Response(
        WaitingListEntrySerializer(fresh, many=True, context={"state": state}).data, status=status_code
    )


def _entry(entry: WaitingListEntry) -> Response:
    state = FloorState.load(with_inactive=True)
    fresh = WaitingListEntry.objects.select_related("player", "called_to", "from_table").get(pk=entry.pk)
    return Response(WaitingListEntrySerializer(fresh, context={"state": state}).data)


# --- Lists ------------------------------------------------------------------------------------------


@extend_schema_view(
    create=extend_schema(
        request=WaitingListCreateSerializer,
        responses={201: WaitingListSerializer, **ERRORS},
        summary="Open a list for a game at stakes",
    )
)
class WaitingListViewSet(
    ActionPermissionMixin,
    mixins.CreateModelMixin,
    viewsets.ReadOnlyModelViewSet[WaitingList],
):
    """The waiting lists: one per game and stakes, each with its places in order as they stand now
    (a call-in's time up, a missed call, applied), and the tables it feeds (none: an interest list)."""

    queryset = WaitingList.objects.select_related("game", "stakes")
    serializer_class = WaitingListSerializer
    filterset_fields = ("is_active",)
    action_permissions = {
        "list": VIEW,
        "retrieve": VIEW,
        "calls": VIEW,
        "create": RUN,
        "close": RUN,
        "open_table": RUN,
        "move_in": RUN,
    }

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = _input(WaitingListCreateSerializer, request)
        game = Game.objects.filter(slug=data["game"]).first()
        if game is None:
            raise FloorNotFound(f"There is no game {data['game']!r}.", code="game_not_found", field="game")
        stakes = Stakes.objects.filter(code=data["stakes"]).first()
        if stakes is None:
            raise FloorNotFound(
                f"There are no stakes {data['stakes']!r}.", code="stakes_not_found", field="stakes"
            )
        created = services.create_list(game=game, stakes=stakes, by=request.user, reason=data["reason"])
        return Response(WaitingListSerializer(created).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=ReasonSerializer, responses={200: WaitingListSerializer, **ERRORS}, summary="Close the list"
    )
    @action(detail=True, methods=["post"])
    def close(self, request: Request, pk: str | None = None) -> Response:
        data = _input(ReasonSerializer, request)
        closed = services.close_list(waiting_list=self.get_object(), by=request.user, reason=data["reason"])
        return Response(WaitingListSerializer(closed).data)

    @extend_schema(
        request=OpenTableSerializer,
        responses={201: ListSeatingSerializer(many=True), **ERRORS},
        summary="Open a closed table for an interest list and seat its players in order",
    )
    @action(detail=True, methods=["post"], url_path="open-table")
    def open_table(self, request: Request, pk: str | None = None) -> Response:
        data = _input(OpenTableSerializer, request)
        seated = services.open_table_for_list(
            waiting_list=self.get_object(),
            table=_table(data["table"]),
            by=request.user,
            reason=data["reason"],
        )
        body = ListSeatingSerializer(seated, many=True).data  # type: ignore[arg-type]  # many: a list
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(
        responses={200: FloorCallsSerializer},
        summary="Whom to call for each open seat, and the interest lists",
    )
    @action(detail=False, methods=["get"], pagination_class=None, filter_backends=[])
    def calls(self, request: Request) -> Response:
        state = FloorState.load()
        body = {"at": state.now, "tables": state.all_table_calls(), "interest": state.interest()}
        return Response(FloorCallsSerializer(body).data)

    @extend_schema(
        request=MoveInSerializer,
        responses={201: ListSeatingSerializer, **ERRORS},
        summary="Move a must-move player or a table change request into a seat, with their chips",
    )
    @action(detail=False, methods=["post"], url_path="move-in")
    def move_in(self, request: Request) -> Response:
        data = _input(MoveInSerializer, request)
        seating = Seating.objects.active().filter(pk=data["seating"]).first()
        if seating is None:
            raise FloorNotFound(
                f"There is no seating {data['seating']} now.", code="seating_not_found", field="seating"
            )
        moved = services.move_in_from_list(
            seating=seating,
            to_table=_table(data["to_table"], "to_table"),
            to_seat_number=data["to_seat_number"],
            by=request.user,
            move=hand_flow.move_player,
            reason=data["reason"],
        )
        return Response(ListSeatingSerializer(moved).data, status=status.HTTP_201_CREATED)


# --- Places on the lists -----------------------------------------------------------------------------


class WaitingListEntryFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=EntryState.choices, label="As recorded")

    class Meta:
        model = WaitingListEntry
        fields = ("waiting_list", "player", "state")


@extend_schema_view(
    create=extend_schema(
        request=AddToListsSerializer,
        responses={201: WaitingListEntrySerializer(many=True), **ERRORS},
        summary="Put a player on one or more lists (in person or by phone), all or none",
    )
)
class WaitingListEntryViewSet(
    ActionPermissionMixin,
    mixins.CreateModelMixin,
    viewsets.ReadOnlyModelViewSet[WaitingListEntry],
):
    """Players' places on the lists: add, a call-in's arrival, call, seat, pass, remove, move by hand."""

    queryset = WaitingListEntry.objects.select_related("player", "called_to", "from_table").order_by(
        "-added_at", "-id"
    )
    serializer_class = WaitingListEntrySerializer
    filterset_class = WaitingListEntryFilter
    action_permissions = {
        "list": ["tables.view_waitinglistentry"],
        "retrieve": ["tables.view_waitinglistentry"],
        "create": RUN,
        "arrive": RUN,
        "call": RUN,
        "seat": RUN,
        "pass_call": RUN,
        "remove": RUN,
        "move": RUN,
    }

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "state": FloorState.load(with_inactive=True)}

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = _input(AddToListsSerializer, request)
        lists = [_list(pk, "waiting_lists") for pk in dict.fromkeys(data["waiting_lists"])]
        player = None
        if data["player"] is not None:
            player = Player.objects.filter(pk=data["player"]).first()
            if player is None:
                raise FloorNotFound(
                    f"There is no player {data['player']}.", code="player_not_found", field="player"
                )
        entries = services.add_player(
            waiting_lists=lists,
            player=player,
            new_player_name=data["new_player_name"] or None,
            board_alias=data["board_alias"],
            added_via=data["added_via"],
            entry_kind=data["entry_kind"],
            note=data["note"],
            by=request.user,
        )
        return _entries(entries, status.HTTP_201_CREATED)

    @extend_schema(
        request=None,
        responses={200: WaitingListEntrySerializer(many=True), **ERRORS},
        summary="The call-in is here: every call-in place of the player is called in turn from now",
    )
    @action(detail=True, methods=["post"])
    def arrive(self, request: Request, pk: str | None = None) -> Response:
        return _entries(services.mark_arrived(player=self.get_object().player, by=request.user))

    @extend_schema(
        request=CallSerializer,
        responses={200: WaitingListEntrySerializer, **ERRORS},
        summary="Call the player to a seat at a table (the time to take it starts)",
    )
    @action(detail=True, methods=["post"])
    def call(self, request: Request, pk: str | None = None) -> Response:
        data = _input(CallSerializer, request)
        entry = services.call_player(
            entry=self.get_object(), table=_table(data["table"]), by=request.user, reason=data["reason"]
        )
        return _entry(entry)

    @extend_schema(
        request=SeatFromListSerializer,
        responses={201: ListSeatingSerializer, **ERRORS},
        summary="Seat the called player (or a waiting one, called and seated at once); off every list",
    )
    @action(detail=True, methods=["post"])
    def seat(self, request: Request, pk: str | None = None) -> Response:
        data = _input(SeatFromListSerializer, request)
        seating = services.seat_from_list(
            entry=self.get_object(),
            seat_number=data["seat_number"],
            table=_table(data["table"]) if data["table"] is not None else None,
            by=request.user,
            reason=data["reason"],
        )
        return Response(ListSeatingSerializer(seating).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=PassSerializer,
        responses={200: WaitingListEntrySerializer, **ERRORS},
        summary="The called player passes the seat: the room's missed-call policy applies",
    )
    @action(detail=True, methods=["post"], url_path="pass", url_name="pass")
    def pass_call(self, request: Request, pk: str | None = None) -> Response:
        data = _input(PassSerializer, request)
        return _entry(services.pass_call(entry=self.get_object(), by=request.user, reason=data["reason"]))

    @extend_schema(
        request=ReasonRequiredSerializer,
        responses={200: WaitingListEntrySerializer, **ERRORS},
        summary="Take the player off the list, with the reason",
    )
    @action(detail=True, methods=["post"])
    def remove(self, request: Request, pk: str | None = None) -> Response:
        data = _input(ReasonRequiredSerializer, request)
        return _entry(
            services.remove_from_list(entry=self.get_object(), by=request.user, reason=data["reason"])
        )

    @extend_schema(
        request=MoveOnListSerializer,
        responses={200: WaitingListEntrySerializer, **ERRORS},
        summary="Move the player on the list by hand, with the reason (the day's report shows it)",
    )
    @action(detail=True, methods=["post"])
    def move(self, request: Request, pk: str | None = None) -> Response:
        data = _input(MoveOnListSerializer, request)
        entry = services.move_on_list(
            entry=self.get_object(), position=data["position"], by=request.user, reason=data["reason"]
        )
        return _entry(entry)


# --- The record ----------------------------------------------------------------------------------------


class WaitingListEventFilter(django_filters.FilterSet):
    day = django_filters.DateFilter(method="on_day", label="A day on the room's clock (YYYY-MM-DD)")
    event = django_filters.ChoiceFilter(choices=ListEvent.choices)

    class Meta:
        model = WaitingListEvent
        fields = ("day", "waiting_list", "player", "event")

    def on_day(
        self, queryset: QuerySet[WaitingListEvent], name: str, value: Any
    ) -> QuerySet[WaitingListEvent]:
        start, end = day_bounds(value)
        return queryset.filter(at__gte=start, at__lt=end)


class WaitingListEventViewSet(ActionPermissionMixin, viewsets.ReadOnlyModelViewSet[WaitingListEvent]):
    """The lists' record: every add, arrival, call, pass, expiry, removal, seating, move and move-in,
    with who, when, and whom a call or a seating went ahead of and why (append-only)."""

    queryset = WaitingListEvent.objects.select_related("player", "table").order_by("at", "id")
    serializer_class = WaitingListEventSerializer
    filterset_class = WaitingListEventFilter
    action_permissions = {
        "list": ["tables.view_waitinglistevent"],
        "retrieve": ["tables.view_waitinglistevent"],
    }

    def get_serializer(self, *args: Any, **kwargs: Any) -> Any:
        """The serializer of a page of events (or one), with the names the players had at them
        (one query for the page: :func:`tables.lists.selectors.names_at_events`)."""
        drawn = args[0] if args else kwargs.get("instance")
        events = (
            list(drawn) if isinstance(drawn, list) else [drawn] if isinstance(drawn, WaitingListEvent) else []
        )
        kwargs["context"] = {**self.get_serializer_context(), "names": names_at_events(events)}
        return super().get_serializer(*args, **kwargs)


# --- Settings and must-move tables -----------------------------------------------------------------------


class WaitingListSettingsViewSet(ActionPermissionMixin, viewsets.GenericViewSet[WaitingListSettings]):
    """The room's list rules: call-in expiry, time to take a called seat, what a missed call costs,
    the table changes' turn, players enough to open a game (one set for the room). One object at
    one path: routed by hand (``web.lists.urls``: GET ``show``, POST ``change``), not as a
    collection."""

    serializer_class = WaitingListSettingsSerializer
    pagination_class = None
    filter_backends: list[Any] = []
    action_permissions = {
        "show": ["tables.view_waitinglistsettings"],
        "change": ["tables.change_waitinglistsettings"],
    }

    def get_queryset(self) -> QuerySet[WaitingListSettings]:
        return WaitingListSettings.objects.all()

    @extend_schema(responses={200: WaitingListSettingsSerializer}, summary="The room's list settings")
    def show(self, request: Request) -> Response:
        return Response(WaitingListSettingsSerializer(WaitingListSettings.current()).data)

    @extend_schema(
        request=SettingsChangeSerializer,
        responses={200: WaitingListSettingsSerializer, **ERRORS},
        summary="Change the room's list settings (only those given), with a reason",
    )
    def change(self, request: Request) -> Response:
        data = _input(SettingsChangeSerializer, request)
        reason = data.pop("reason")
        row = services.update_list_settings(by=request.user, reason=reason, **data)
        return Response(WaitingListSettingsSerializer(row).data)


@extend_schema_view(
    create=extend_schema(
        request=MustMoveCreateSerializer,
        responses={201: MustMoveSerializer, **ERRORS},
        summary="Make a table a must-move table of a main game",
    )
)
class MustMoveViewSet(
    ActionPermissionMixin, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet[MustMove]
):
    """Must-move tables: their players move to the main game's tables in order when a seat opens."""

    queryset = MustMove.objects.select_related("table")
    serializer_class = MustMoveSerializer
    action_permissions = {
        "list": ["tables.view_mustmove"],
        "retrieve": ["tables.view_mustmove"],
        "create": RUN,
        "end": RUN,
    }

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = _input(MustMoveCreateSerializer, request)
        must_move = services.set_must_move(
            table=_table(data["table"]),
            waiting_list=_list(data["waiting_list"]),
            by=request.user,
            reason=data["reason"],
        )
        return Response(MustMoveSerializer(must_move).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=ReasonSerializer, responses={204: None, **ERRORS}, summary="The table is no longer must-move"
    )
    @action(detail=True, methods=["post"])
    def end(self, request: Request, pk: str | None = None) -> Response:
        data = _input(ReasonSerializer, request)
        services.end_must_move(must_move=self.get_object(), by=request.user, reason=data["reason"])
        return Response(status=status.HTTP_204_NO_CONTENT)
