"""REST API of players (one identity each) and of cash per gaming day (under ``/api/``).

* ``/api/players/``: list, create (``409 possible_duplicate``, "same person?", unless
  ``confirmed_new_person``), change, delete; ``search/?q=`` as you type (name, member number,
  phone), ``similar/?name=&phone=`` (who a new record may be), ``<id>/overview/`` (chips at each
  table, the gaming day's buy-ins and cash-outs, sessions, merges, identifications),
  ``<id>/merge/`` (a duplicate into this player, with a reason);
* ``/api/identifications/``: the identification a player showed (list, record);
* ``/api/cash-day/``: ``settings/`` (read; POST changes, with a reason), ``check/`` (what a buy-in,
  rebuy or cash-out would do to the player's gaming day), ``report/?day=`` (the day's report).

Errors are the API's one body (``web.common.errors``); each action needs the permissions listed: a
player's name, member number and phone are every role's (a dealer names the players at the table);
what the overview, the identifications, the cash check and the day's report carry (identification
numbers, the gaming day's cash) is the floor's, the cage's and the auditors', never a dealer's
(``web.players.data.RECORD_PERMISSION``). Every change to a player goes through ``tables.services``
and so leaves its row in the change log (who, when, old -> new); a player with any history is not
deleted (409 ``in_use``). No answer is kept by a browser or a proxy (``Cache-Control: no-store``):
they carry identification numbers, contact details and cash totals.
"""

from __future__ import annotations

from typing import Any

import django_filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer

from backoffice.reports.cash_day import build_cash_day_report
from tables import services
from tables.errors import FloorNotFound
from tables.models import CashDaySettings, Player, PlayerIdentification
from tables.selectors import find_players, same_person_candidates
from web.common.no_store import NoStoreMixin
from web.common.permissions import ActionPermissionMixin
from web.common.serializers import ErrorSerializer
from web.players.data import RECORD_PERMISSION, player_overview
from web.players.serializers import (
    CashCheckQuerySerializer,
    CashCheckSerializer,
    CashDayQuerySerializer,
    CashDayReportSerializer,
    CashDaySettingsInputSerializer,
    CashDaySettingsSerializer,
    IdentificationInputSerializer,
    IdentificationSerializer,
    PlayerMergeInputSerializer,
    PlayerMergeSerializer,
    PlayerOverviewSerializer,
    PlayerSerializer,
)

ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Invalid input"),
    404: OpenApiResponse(ErrorSerializer, description="Unknown player"),
    409: OpenApiResponse(ErrorSerializer, description="Conflicts with the floor's state"),
}
#: The longest text a search or a "same person?" question reads.
QUERY_LENGTH = 100


def _input(serializer_class: type, data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _player(pk: int) -> Player:
    player = Player.objects.filter(pk=pk).first()
    if player is None:
        raise FloorNotFound(f"There is no player {pk}.", code="player_not_found", field="player")
    return player


class PlayerFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(lookup_expr="icontains")
    merged = django_filters.BooleanFilter(
        field_name="merged_into", lookup_expr="isnull", exclude=True, label="Merged into another record"
    )

    class Meta:
        model = Player
        fields = ("name", "member_number", "merged")


@extend_schema_view(
    create=extend_schema(responses={201: PlayerSerializer, **ERRORS}),
    update=extend_schema(responses={200: PlayerSerializer, **ERRORS}),
    partial_update=extend_schema(responses={200: PlayerSerializer, **ERRORS}),
    destroy=extend_schema(responses={204: None, 409: ErrorSerializer}),
)
class PlayerViewSet(NoStoreMixin, ActionPermissionMixin, viewsets.ModelViewSet[Player]):
    """Players (floor managers add, change, merge and delete them)."""

    queryset = Player.objects.all()
    serializer_class = PlayerSerializer
    filterset_class = PlayerFilter
    action_permissions = {
        "list": ["tables.view_player"],
        "retrieve": ["tables.view_player"],
        "search": ["tables.view_player"],
        "similar": ["tables.view_player"],
        "overview": [RECORD_PERMISSION],
        "create": ["tables.add_player"],
        "update": ["tables.change_player"],
        "partial_update": ["tables.change_player"],
        "destroy": ["tables.delete_player"],
        "merge": ["tables.merge_player"],
    }

    def perform_create(self, serializer: BaseSerializer[Player]) -> None:
        data = serializer.validated_data
        serializer.instance = services.create_player(
            name=data["name"],
            member_number=data.get("member_number"),
            phone=data.get("phone", ""),
            by=self.request.user,
            check_same_person=not data.get("confirmed_new_person", False),
        )

    def perform_update(self, serializer: BaseSerializer[Player]) -> None:
        data = serializer.validated_data
        kwargs: dict[str, Any] = {
            name: data[name] for name in ("name", "member_number", "phone") if name in data
        }
        assert serializer.instance is not None  # an update has the player it changes
        serializer.instance = services.update_player(
            player=serializer.instance, by=self.request.user, **kwargs
        )

    def perform_destroy(self, instance: Player) -> None:
        services.delete_player(player=instance, by=self.request.user)

    @extend_schema(
        parameters=[
            OpenApiParameter("q", OpenApiTypes.STR, description="Name, member number or phone, as typed.")
        ],
        responses={200: PlayerSerializer(many=True)},
        summary="Find players as you type (merged records answer as the player they were merged into)",
    )
    @action(detail=False, methods=["get"], pagination_class=None, filter_backends=[])
    def search(self, request: Request) -> Response:
        found = find_players(request.query_params.get("q", "")[:QUERY_LENGTH])
        return Response(PlayerSerializer(found, many=True).data)

    @extend_schema(
        parameters=[
            OpenApiParameter("name", OpenApiTypes.STR, description="The new record's name."),
            OpenApiParameter("phone", OpenApiTypes.STR, description="The new record's phone (optional)."),
        ],
        responses={200: PlayerSerializer(many=True)},
        summary="Same person? The players on file a new record's name or phone matches",
    )
    @action(detail=False, methods=["get"], pagination_class=None, filter_backends=[])
    def similar(self, request: Request) -> Response:
        found = same_person_candidates(
            name=request.query_params.get("name", "")[:QUERY_LENGTH],
            phone=request.query_params.get("phone", "")[:QUERY_LENGTH],
        )
        return Response(PlayerSerializer(found, many=True).data)

    @extend_schema(
        responses={200: PlayerOverviewSerializer},
        summary="The player (a merged record: the player it was merged into): chips, today, sessions",
    )
    @action(detail=True, methods=["get"], filter_backends=[])
    def overview(self, request: Request, pk: str | None = None) -> Response:
        overview = player_overview(self.get_object())
        data = {
            "player": overview.player,
            "records": overview.records,
            "chips": overview.chips,
            "gaming_day": overview.totals.day,
            "in_cents": overview.totals.in_cents,
            "out_cents": overview.totals.out_cents,
            "movements": overview.movements,
            "sessions": overview.sessions,
            "merges": overview.merges,
            "identifications": overview.identifications,
        }
        return Response(PlayerOverviewSerializer(data).data)

    @extend_schema(
        request=PlayerMergeInputSerializer,
        responses={201: PlayerMergeSerializer, **ERRORS},
        summary="Merge a duplicate record into this player (every record of both is kept)",
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def merge(self, request: Request, pk: str | None = None) -> Response:
        survivor = self.get_object()
        data = _input(PlayerMergeInputSerializer, request.data)
        record = services.merge_players(
            survivor=survivor, merged=_player(data["merged"]), by=request.user, reason=data["reason"]
        )
        return Response(PlayerMergeSerializer(record).data, status=status.HTTP_201_CREATED)


class IdentificationFilter(django_filters.FilterSet):
    class Meta:
        model = PlayerIdentification
        fields = ("player", "gaming_day")


@extend_schema_view(
    create=extend_schema(
        request=IdentificationInputSerializer, responses={201: IdentificationSerializer, **ERRORS}
    )
)
class IdentificationViewSet(
    NoStoreMixin,
    ActionPermissionMixin,
    mixins.CreateModelMixin,
    viewsets.ReadOnlyModelViewSet[PlayerIdentification],
):
    """The identification players showed, by gaming day (for the currency transaction report)."""

    queryset = PlayerIdentification.objects.select_related("recorded_by")
    serializer_class = IdentificationSerializer
    filterset_class = IdentificationFilter
    action_permissions = {
        "list": [RECORD_PERMISSION],
        "retrieve": [RECORD_PERMISSION],
        "create": ["tables.add_playeridentification"],
    }

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = _input(IdentificationInputSerializer, request.data)
        player = _player(data.pop("player"))
        record = services.record_identification(
            player=player, by=request.user, kind=data.pop("document"), **data
        )
        return Response(IdentificationSerializer(record).data, status=status.HTTP_201_CREATED)


class CashDayViewSet(NoStoreMixin, ActionPermissionMixin, viewsets.ViewSet):
    """Cash per gaming day: the room's settings, a transaction's check, the day's report."""

    action_permissions = {
        "rules": ["tables.view_cashdaysettings"],
        "change_settings": ["tables.change_cashdaysettings"],
        # The check answers the player's cash in and out today (any player's): the record's.
        "check": [RECORD_PERMISSION],
        "report": [RECORD_PERMISSION],
    }

    @extend_schema(
        responses={200: CashDaySettingsSerializer}, summary="The room's cash-per-gaming-day settings"
    )
    @action(detail=False, methods=["get"], url_path="settings")
    def rules(self, request: Request) -> Response:
        return Response(CashDaySettingsSerializer(CashDaySettings.current()).data)

    @extend_schema(
        request=CashDaySettingsInputSerializer,
        responses={200: CashDaySettingsSerializer, **ERRORS},
        summary="Change the gaming day's start hour or the thresholds (with a reason, kept in the history)",
    )
    @rules.mapping.post
    def change_settings(self, request: Request) -> Response:
        data = _input(CashDaySettingsInputSerializer, request.data)
        rules = services.update_cash_day_settings(by=request.user, **data)
        return Response(CashDaySettingsSerializer(rules).data)

    @extend_schema(
        parameters=[CashCheckQuerySerializer],
        responses={200: CashCheckSerializer, **ERRORS},
        summary="What a buy-in, rebuy or cash-out would do to the player's gaming day (warns before $10,000)",
    )
    @action(detail=False, methods=["get"])
    def check(self, request: Request) -> Response:
        query = _input(CashCheckQuerySerializer, request.query_params)
        check = services.check_cash(
            player=_player(query["player"]), kind=query["kind"], amount_cents=query["amount_cents"]
        )
        return Response(CashCheckSerializer(check).data)

    @extend_schema(
        parameters=[CashDayQuerySerializer],
        responses={200: CashDayReportSerializer, 400: ErrorSerializer},
        summary="The gaming day's report: each player's cash in and out, the log, the reports due",
    )
    @action(detail=False, methods=["get"])
    def report(self, request: Request) -> Response:
        query = _input(CashDayQuerySerializer, request.query_params)
        report = build_cash_day_report(query.get("day") or services.gaming_day())
        data = {
            "gaming_day": report.gaming_day,
            "starts_at": report.starts_at,
            "ends_at": report.ends_at,
            "log_threshold_cents": report.log_threshold_cents,
            "report_threshold_cents": report.report_threshold_cents,
            "in_cents": report.in_cents,
            "out_cents": report.out_cents,
            "players": report.players,
            "reports": report.reports,
            "log": report.log,
        }
        return Response(CashDayReportSerializer(data).data)
