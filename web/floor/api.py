"""REST API of the floor (under ``/api/``). Views translate HTTP to service calls and back.

Floor errors become ``{"code", "detail"[, "field"]}`` bodies: 400 for invalid input, 404 for
something unknown, 409 for a conflict with the floor's state (``web.common.errors``, for the whole API).
Each action needs the Django permissions in its viewset's ``action_permissions`` (see
:mod:`tables.roles`).
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import Prefetch, QuerySet
from django.utils.dateparse import parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from handflow import services as hand_flow
from tables import services
from tables.choices import HandStatus
from tables.errors import FloorNotFound, FloorValidationError
from tables.models import CollectionSchedule, ConfigChange, Game, Hand, Player, Seat, Seating, Stakes, Table
from web.common.permissions import ActionPermissionMixin
from web.common.serializers import ErrorSerializer, ReasonSerializer, valid_input
from web.floor.serializers import (
    CollectionRateSerializer,
    CollectionScheduleSerializer,
    ConfigChangeSerializer,
    GameSerializer,
    HandSerializer,
    MisdealSerializer,
    MovePlayerSerializer,
    ScheduleCreatedSerializer,
    ScheduleCreateSerializer,
    ScheduleReviseSerializer,
    ScheduleVersionWithWarningsSerializer,
    SeatingSerializer,
    SeatPlayerSerializer,
    SeatSerializer,
    StakesCreateSerializer,
    StakesSerializer,
    TableConfigureSerializer,
    TableCreateSerializer,
    TableSerializer,
)

#: A game's slug, a stakes' or a schedule's code in a route (letters, digits, ``_ . -``; no NUL,
#: no slash: anything else is no route, a 404).
CODE_PATTERN = r"[A-Za-z0-9_.-]{1,64}"

ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Invalid input"),
    404: OpenApiResponse(ErrorSerializer, description="Unknown table, seat, player or hand"),
    409: OpenApiResponse(ErrorSerializer, description="Conflicts with the floor's state"),
}


def table_by_number(number: int) -> Table:
    """The table numbered ``number`` (the floor's 404, ``table_not_found``, if none)."""
    table = Table.objects.filter(number=number).first()
    if table is None:
        raise FloorNotFound(f"There is no table {number}.", code="table_not_found", field="table")
    return table


# --- Games, stakes, schedules --------------------------------------------------------------------


class GameViewSet(ActionPermissionMixin, viewsets.ReadOnlyModelViewSet[Game]):
    """The approved games (house data)."""

    queryset = Game.objects.all()
    serializer_class = GameSerializer
    lookup_field = "slug"
    lookup_value_regex = CODE_PATTERN
    filterset_fields = ("kind", "is_active", "is_stud_game", "is_button_game")
    action_permissions = {"list": ["tables.view_game"], "retrieve": ["tables.view_game"]}


@extend_schema_view(
    create=extend_schema(request=StakesCreateSerializer, responses={201: StakesSerializer, **ERRORS})
)
class StakesViewSet(
    ActionPermissionMixin,
    mixins.CreateModelMixin,
    viewsets.ReadOnlyModelViewSet[Stakes],
):
    """Stakes: betting limits with kill, buy-in ranges, or point values. Created, never edited."""

    queryset = Stakes.objects.all()
    serializer_class = StakesSerializer
    lookup_field = "code"
    lookup_value_regex = CODE_PATTERN
    filterset_fields = ("structure", "kill", "is_active")
    action_permissions = {
        "list": ["tables.view_stakes"],
        "retrieve": ["tables.view_stakes"],
        "create": ["tables.add_stakes"],
    }

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = valid_input(StakesCreateSerializer, request)
        reason = data.pop("reason", "")
        code = data.pop("code")
        stakes = services.create_stakes(code=code, by=request.user, reason=reason, **data)
        return Response(StakesSerializer(stakes).data, status=status.HTTP_201_CREATED)


@extend_schema_view(
    create=extend_schema(
        request=ScheduleCreateSerializer, responses={201: ScheduleCreatedSerializer, **ERRORS}
    ),
)
class CollectionScheduleViewSet(
    ActionPermissionMixin,
    mixins.CreateModelMixin,
    viewsets.ReadOnlyModelViewSet[CollectionSchedule],
):
    """Collection rate schedules; rates change only by new versions (never rewriting the past).

    A fee that is not whole chips of a table on the schedule is refused (400 ``invalid_schedule``);
    a fee far outside what its stakes bear is accepted and named in the response's ``warnings``
    (the schedule page asks to confirm it instead; docs/floor.md)."""

    queryset = CollectionSchedule.objects.prefetch_related("versions")
    serializer_class = CollectionScheduleSerializer
    lookup_field = "code"
    lookup_value_regex = CODE_PATTERN
    action_permissions = {
        "list": ["tables.view_collectionschedule"],
        "retrieve": ["tables.view_collectionschedule"],
        "rates": ["tables.view_collectionschedule"],
        "create": ["tables.add_collectionschedule"],
        "revise": ["tables.change_collectionschedule", "tables.add_collectionscheduleversion"],
    }

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = valid_input(ScheduleCreateSerializer, request)
        schedule = services.create_schedule(by=request.user, **data)
        return Response(ScheduleCreatedSerializer(schedule).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=ScheduleReviseSerializer,
        responses={201: ScheduleVersionWithWarningsSerializer, **ERRORS},
        summary="Add a new version of the schedule's rates, from a stated time (with fee warnings)",
    )
    @action(detail=True, methods=["post"])
    def revise(self, request: Request, code: str | None = None) -> Response:
        schedule = self.get_object()
        data = valid_input(ScheduleReviseSerializer, request)
        version = services.revise_schedule(schedule=schedule, by=request.user, **data)
        return Response(ScheduleVersionWithWarningsSerializer(version).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[
            OpenApiParameter("at", OpenApiTypes.DATETIME, description="Time (ISO 8601); default now.")
        ],
        responses={200: CollectionRateSerializer(many=True), 400: ErrorSerializer},
        summary="The rates in force at a time",
    )
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def rates(self, request: Request, code: str | None = None) -> Response:
        schedule = self.get_object()
        raw = request.query_params.get("at")
        at = parse_datetime(raw) if raw else None
        if raw and at is None:
            raise FloorValidationError(f"{raw!r} is not an ISO 8601 time.", field="at")
        return Response(CollectionRateSerializer(schedule.rates_at(at), many=True).data)


# --- Tables and seats ------------------------------------------------------------------------------


class TableFilter(django_filters.FilterSet):
    game = django_filters.CharFilter(field_name="game__slug")

    class Meta:
        model = Table
        fields = ("status", "game")


def _table_queryset() -> QuerySet[Table]:
    active = Seating.objects.active().select_related("player")
    return Table.objects.select_related(
        "game",
        "stakes",
        "collection_schedule",
        "buttons__button_seat",
        "buttons__sitting_out_seat",
        "buttons__streak_seat",
        "buttons__kill_seat",
    ).prefetch_related(Prefetch("seats__seatings", queryset=active))


@extend_schema_view(
    create=extend_schema(request=TableCreateSerializer, responses={201: TableSerializer, **ERRORS}),
)
class TableViewSet(
    ActionPermissionMixin,
    mixins.CreateModelMixin,
    viewsets.ReadOnlyModelViewSet[Table],
):
    """Tables, by number, with their seats, occupants and buttons."""

    queryset = _table_queryset()
    serializer_class = TableSerializer
    lookup_field = "number"
    lookup_value_regex = r"[0-9]{1,5}"  # a table number is a small positive integer
    filterset_class = TableFilter
    action_permissions = {
        "list": ["tables.view_table"],
        "retrieve": ["tables.view_table"],
        "create": ["tables.add_table"],
        "configure": ["tables.change_table"],
        "open": ["tables.manage_floor"],
        "close": ["tables.manage_floor"],
    }

    def _fresh(self, table: Table) -> dict[str, Any]:
        return dict(TableSerializer(_table_queryset().get(pk=table.pk)).data)

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = valid_input(TableCreateSerializer, request)
        table = services.create_table(by=request.user, **data)
        return Response(self._fresh(table), status=status.HTTP_201_CREATED)

    @extend_schema(
        request=TableConfigureSerializer,
        responses={200: TableSerializer, **ERRORS},
        summary="Change the table's game, stakes, schedule, seats or chip, with a reason",
    )
    @action(detail=True, methods=["post"])
    def configure(self, request: Request, number: str | None = None) -> Response:
        table = self.get_object()
        data = valid_input(TableConfigureSerializer, request)
        table = services.configure_table(table=table, by=request.user, **data)
        return Response(self._fresh(table))

    @extend_schema(
        request=ReasonSerializer, responses={200: TableSerializer, **ERRORS}, summary="Open the table"
    )
    @action(detail=True, methods=["post"])
    def open(self, request: Request, number: str | None = None) -> Response:
        table = self.get_object()
        data = valid_input(ReasonSerializer, request)
        return Response(self._fresh(services.open_table(table=table, by=request.user, **data)))

    @extend_schema(
        request=ReasonSerializer,
        responses={200: TableSerializer, **ERRORS},
        summary="Close the table (refused while a hand is in progress or anyone is seated)",
    )
    @action(detail=True, methods=["post"])
    def close(self, request: Request, number: str | None = None) -> Response:
        table = self.get_object()
        data = valid_input(ReasonSerializer, request)
        return Response(self._fresh(services.close_table(table=table, by=request.user, **data)))


class SeatFilter(django_filters.FilterSet):
    table = django_filters.NumberFilter(field_name="table__number")

    class Meta:
        model = Seat
        fields = ("table",)


class SeatViewSet(ActionPermissionMixin, viewsets.ReadOnlyModelViewSet[Seat]):
    """Seats and who sits in them."""

    queryset = Seat.objects.select_related("table").prefetch_related(
        Prefetch("seatings", queryset=Seating.objects.active().select_related("player"))
    )
    serializer_class = SeatSerializer
    filterset_class = SeatFilter
    action_permissions = {"list": ["tables.view_seat"], "retrieve": ["tables.view_seat"]}


# --- Seatings (players: web.players.api) -------------------------------------------------------------


class SeatingFilter(django_filters.FilterSet):
    table = django_filters.NumberFilter(field_name="table__number")
    active = django_filters.BooleanFilter(field_name="left_at", lookup_expr="isnull", label="Still seated")

    class Meta:
        model = Seating
        fields = ("table", "player", "active")


@extend_schema_view(
    create=extend_schema(
        request=SeatPlayerSerializer, responses={201: SeatingSerializer, **ERRORS}, summary="Seat a player"
    ),
)
class SeatingViewSet(
    ActionPermissionMixin,
    mixins.CreateModelMixin,
    viewsets.ReadOnlyModelViewSet[Seating],
):
    """Who sat where and when. POST seats a player; ``unseat`` and ``move`` end or move a seating."""

    queryset = Seating.objects.select_related("table", "seat", "player", "seated_by", "left_by")
    serializer_class = SeatingSerializer
    filterset_class = SeatingFilter
    action_permissions = {
        "list": ["tables.view_seating"],
        "retrieve": ["tables.view_seating"],
        "create": ["tables.manage_floor"],
        "unseat": ["tables.manage_floor"],
        "move": ["tables.manage_floor"],
    }

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = valid_input(SeatPlayerSerializer, request)
        table = table_by_number(data["table"])
        player = Player.objects.filter(pk=data["player"]).first()
        if player is None:
            raise FloorNotFound(
                f"There is no player {data['player']}.", code="player_not_found", field="player"
            )
        seating = services.seat_player(
            table=table,
            seat_number=data["seat_number"],
            player=player,
            by=request.user,
            elsewhere_reason=data["elsewhere_reason"],
        )
        return Response(SeatingSerializer(seating).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=None, responses={200: SeatingSerializer, **ERRORS}, summary="The player leaves the seat"
    )
    @action(detail=True, methods=["post"])
    def unseat(self, request: Request, pk: str | None = None) -> Response:
        seating = services.unseat_player(seating=self.get_object(), by=request.user)
        return Response(SeatingSerializer(seating).data)

    @extend_schema(
        request=MovePlayerSerializer,
        responses={201: SeatingSerializer, **ERRORS},
        summary="Move the player to another seat, or to another table with their chips (the new seating)",
    )
    @action(detail=True, methods=["post"])
    def move(self, request: Request, pk: str | None = None) -> Response:
        seating = self.get_object()
        data = valid_input(MovePlayerSerializer, request)
        to_table = table_by_number(data["to_table"]) if data.get("to_table") else None
        # A table change carries the chips (the money flow); a seat change is the floor's alone.
        new = hand_flow.move_player(
            seating=seating, to_seat_number=data["to_seat_number"], to_table=to_table, by=request.user
        )
        return Response(SeatingSerializer(new).data, status=status.HTTP_201_CREATED)


# --- Hands ---------------------------------------------------------------------------------------------


class HandFilter(django_filters.FilterSet):
    table = django_filters.NumberFilter(field_name="table__number")
    status = django_filters.ChoiceFilter(choices=HandStatus.choices)

    class Meta:
        model = Hand
        fields = ("table", "status")


class HandViewSet(ActionPermissionMixin, viewsets.ReadOnlyModelViewSet[Hand]):
    """Hands: read them, and void one (a misdeal, through the money flow: its fees go back).

    A hand is started, dealt, shown down and settled only by the dealer terminals' API
    (``/api/terminal/``, :mod:`handflow.services`): the deal takes the fees first (RULINGS §6), so
    there is no floor endpoint that starts a hand or moves it to a status it names."""

    queryset = Hand.objects.select_related(
        "table",
        "game",
        "stakes",
        "collection_schedule",
        "button_seat",
        "kill_seat",
        "created_by",
        "dealt_by",
        "settled_by",
        "voided_by",
        "dealer",
    ).prefetch_related("players__seat", "players__player")
    serializer_class = HandSerializer
    filterset_class = HandFilter
    action_permissions = {
        "list": ["tables.view_hand"],
        "retrieve": ["tables.view_hand"],
        "void": ["tables.run_hand"],
    }

    def _fresh(self, hand: Hand) -> dict[str, Any]:
        return dict(HandSerializer(self.get_queryset().get(pk=hand.pk)).data)

    @extend_schema(
        request=MisdealSerializer,
        responses={200: HandSerializer, **ERRORS},
        summary="Void the hand (misdeal): nothing is settled, its fees are returned",
    )
    @action(detail=True, methods=["post"])
    def void(self, request: Request, pk: str | None = None) -> Response:
        hand = self.get_object()
        data = valid_input(MisdealSerializer, request)
        voided = hand_flow.misdeal(
            hand=hand, reason_code=data["reason_code"], reason=data["reason"], by=request.user
        )
        return Response(self._fresh(voided.hand))


# --- History -------------------------------------------------------------------------------------------


class ConfigChangeFilter(django_filters.FilterSet):
    model = django_filters.CharFilter(field_name="content_type__model", label="Model name, e.g. table")

    class Meta:
        model = ConfigChange
        fields = ("model", "object_id", "action")


class ConfigChangeViewSet(ActionPermissionMixin, viewsets.ReadOnlyModelViewSet[ConfigChange]):
    """The configuration history: who changed what, when, and why (append-only)."""

    queryset = ConfigChange.objects.select_related("content_type")
    serializer_class = ConfigChangeSerializer
    filterset_class = ConfigChangeFilter
    action_permissions = {"list": ["tables.view_configchange"], "retrieve": ["tables.view_configchange"]}
