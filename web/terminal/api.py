"""The dealer terminals' API (under ``/api/terminal/``): chips, fees, hands and their money.

Views only translate HTTP to :mod:`handflow.services` calls and back. Every write needs an
``Idempotency-Key`` header (:mod:`web.common.idempotency`). Errors: 400 bad input (the rules
engine's message for a bad showdown), 403 permission, 404 unknown table/player/hand, 409 a
conflict with the floor's or the ledger's state (chips locked during a hand, hand settled or
void, idempotency conflict, insufficient chips).

Who may do what (:mod:`tables.roles`; docs/hand-flow.md): dealers run hands (start, showdown,
confirm, misdeal) and sell chips at their table (buy-ins, rebuys: ``tables.sell_chips``); the
cage and floor managers cash players out (``tables.cash_out_chips``); seating a player with a
buy-in needs the floor's ``tables.manage_floor``, and a walk-in's buy-in (``new_player_name``)
its ``tables.add_player``; auditors read and change nothing. Where (the dealer clocked in at the
table, the floor or the cage), "same person?", one table at a time and the identification past
the report threshold are the money flow's to decide (:mod:`handflow.chips`): their refusals
come through the one error body (403 ``not_clocked_in``; 409 ``possible_duplicate``,
``seated_elsewhere``, ``identification_required``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User as AuthUser
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from handflow import services as hand_flow
from handflow.services import Movement
from poker.sweeps import parse_sweep_kind
from tables import services as floor
from tables.errors import FloorNotFound, FloorValidationError
from tables.models import Game, Hand, HandPlayer, Player, Table
from tables.services import MAX_FIELD_CHARS
from web.common.idempotency import IDEMPOTENCY_HEADER, idempotent, ledger_key
from web.common.permissions import ActionPermissionMixin
from web.common.serializers import ErrorSerializer, valid_input
from web.floor.api import table_by_number
from web.floor.serializers import MisdealSerializer
from web.terminal.serializers import (
    BuyInSerializer,
    CashOutSerializer,
    ChipMovementSerializer,
    ClockInSerializer,
    ConfirmSerializer,
    DealerShiftSerializer,
    DeclareSweepSerializer,
    FeePreviewSerializer,
    PlayerChipsSerializer,
    RebuySerializer,
    ShowdownSerializer,
    TableChipsSerializer,
    TerminalHandSerializer,
    TerminalStartHandSerializer,
)

ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Invalid input (a bad showdown: the engine's message)"),
    403: OpenApiResponse(ErrorSerializer, description="Your role does not allow this"),
    404: OpenApiResponse(ErrorSerializer, description="Unknown table, player or hand"),
    409: OpenApiResponse(
        ErrorSerializer,
        description="Conflicts with the state: chips locked in a hand, hand settled or void, key reused",
    ),
}


#: The chip writes' errors: the role's permission or the table's dealer (403), the floor's
#: questions the money flow asks before it sells or buys back chips (409).
CHIP_ERRORS = {
    **ERRORS,
    403: OpenApiResponse(
        ErrorSerializer,
        description=(
            "Your role does not allow this (permission_denied), or you are a dealer not clocked in "
            "at this table (not_clocked_in: its dealer, the floor or the cage moves its chips)"
        ),
    ),
    409: OpenApiResponse(
        ErrorSerializer,
        description=(
            "Conflicts with the state: chips locked in a hand, key reused, already bought in, "
            "seated_elsewhere (no elsewhere_reason), possible_duplicate (a walk-in: same person? "
            "new_player_confirmed), identification_required (over the gaming day's report "
            "threshold: record the player's identification first)"
        ),
    ),
}


class ShowdownDraftSerializer(serializers.Serializer[dict[str, Any]]):
    """The showdown entry as the terminal has it so far: its form fields by name (``board``,
    ``cards_3``, ``put_in_3``, ``folded_3``...). The floor bounds it (``check_draft_entry``)."""

    entry = serializers.DictField(
        child=serializers.CharField(allow_blank=True, trim_whitespace=False, max_length=MAX_FIELD_CHARS),
        help_text="The entry's fields by name, each as text (at most 150 fields, 16,000 characters).",
    )


class ShowdownDraftSavedSerializer(serializers.Serializer[dict[str, Any]]):
    hand = serializers.IntegerField()
    field_count = serializers.IntegerField(help_text="How many fields the draft holds.")
    updated_at = serializers.DateTimeField()
    updated_by = serializers.CharField(allow_null=True)


#: The longest clean sweep declaration a showdown may carry: the column it is recorded in.
SWEEP_CHARS = HandPlayer._meta.get_field("sweep_declared").max_length or 30


def _check_declarations(submitted: Mapping[str, Any]) -> None:
    """A clean sweep declared in a showdown is one the rules know (by name): anything else, and
    above all text longer than the column it would be recorded in, is refused here (400, field
    ``players``) before the hand flow records it. The engine judges the rest of the entry."""
    players = submitted.get("players")
    for player in players if isinstance(players, list) else ():
        declare = player.get("declare") if isinstance(player, Mapping) else None
        if declare is None or declare == "":
            continue
        if not isinstance(declare, str) or len(declare) > SWEEP_CHARS or parse_sweep_kind(declare) is None:
            shown = declare[:SWEEP_CHARS] if isinstance(declare, str) else type(declare).__name__
            raise FloorValidationError(
                f"Seat {player.get('seat')}: {shown!r} is not a clean sweep the rules know.", field="players"
            )


def _player(player_id: int) -> Player:
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        raise FloorNotFound(f"There is no player {player_id}.", code="player_not_found", field="player")
    return player


def _game(slug: str | None) -> Game | None:
    if not slug:
        return None
    game = Game.objects.filter(slug=slug).first()
    if game is None:
        raise FloorValidationError(f"There is no game {slug!r}.", code="unknown_game", field="game")
    return game


def _dealer(user_id: int) -> AuthUser:
    dealer = AuthUser.objects.filter(pk=user_id, is_active=True).first()
    if dealer is None:
        raise FloorNotFound(f"There is no user {user_id}.", code="dealer_not_found", field="dealer")
    return dealer


def _movement(done: Movement, created: int = status.HTTP_201_CREATED) -> Response:
    code = status.HTTP_200_OK if done.replayed else created
    return Response(ChipMovementSerializer(done.movement).data, status=code)


class TerminalTableViewSet(ActionPermissionMixin, viewsets.GenericViewSet[Table]):
    """A table as a dealer terminal works it: chips, fee preview, starting hands."""

    queryset = Table.objects.select_related("game", "stakes", "collection_schedule")
    lookup_field = "number"
    lookup_value_regex = r"[0-9]{1,5}"  # ASCII digits (\d admits other scripts' digits)
    serializer_class = TableChipsSerializer
    action_permissions = {
        "chips": ["tables.view_chipmovement"],
        "fees": ["tables.view_hand"],
        "buy_in": ["tables.sell_chips"],
        "rebuy": ["tables.sell_chips"],
        "cash_out": ["tables.cash_out_chips"],
        "start_hand": ["tables.run_hand"],
        "clock_in": ["tables.run_hand"],
        "clock_out": ["tables.run_hand"],
    }

    def get_object(self) -> Table:
        return table_by_number(int(self.kwargs["number"]))

    @extend_schema(responses={200: TableChipsSerializer, **ERRORS}, summary="Players' chips at the table")
    @action(detail=True, methods=["get"])
    def chips(self, request: Request, number: str | None = None) -> Response:
        table = self.get_object()
        rows = hand_flow.table_chips(table=table)
        return Response(
            {
                "table": table.number,
                "rules": hand_flow.table_rules(table).as_dict(),
                # many_init() is what many=True calls; the stubs take a plain Serializer's instance
                # to be one object, many or not.
                "players": PlayerChipsSerializer.many_init(rows).data,
            }
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("game", OpenApiTypes.STR, description="Dealer's choice: the game picked."),
            OpenApiParameter("sit_out", OpenApiTypes.STR, description="Seats sitting out, comma separated."),
        ],
        responses={200: FeePreviewSerializer, **ERRORS},
        summary="Preview the next hand's fees and players dealt in (nothing is written)",
    )
    @action(detail=True, methods=["get"])
    def fees(self, request: Request, number: str | None = None) -> Response:
        table = self.get_object()
        raw = request.query_params.get("sit_out", "")
        try:
            sit_out = [int(s) for s in raw.split(",") if s.strip()]
        except ValueError:
            raise FloorValidationError(
                f"sit_out must be seat numbers, got {raw!r}.", field="sit_out"
            ) from None
        plan = hand_flow.preview_fees(
            table=table, game=_game(request.query_params.get("game")), sit_out_seat_numbers=sit_out
        )
        return Response(FeePreviewSerializer(FeePreviewSerializer.from_plan(plan)).data)

    @extend_schema(
        request=BuyInSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: ChipMovementSerializer, **CHIP_ERRORS},
        summary="Buy in (the session's first chips; seats the player, or a walk-in, if a seat is given)",
    )
    @action(detail=True, methods=["post"], url_path="buy-in")
    @idempotent
    def buy_in(self, request: Request, number: str | None = None, *, idempotency_key: str) -> Response:
        table = self.get_object()
        data = valid_input(BuyInSerializer, request)
        if data.get("seat_number") is not None and not request.user.has_perm("tables.manage_floor"):
            raise PermissionDenied("Seating a player is the floor's job; seat the player first.")
        if data["new_player_name"] and not request.user.has_perm("tables.add_player"):
            raise PermissionDenied("Adding a player is the floor's job; add the player first.")
        movement = hand_flow.buy_in(
            table=table,
            player=_player(data["player"]) if data["player"] is not None else None,
            new_player_name=data["new_player_name"] or None,
            new_player_confirmed=data["new_player_confirmed"],
            amount_cents=data["amount_cents"],
            seat_number=data.get("seat_number"),
            elsewhere_reason=data["elsewhere_reason"],
            by=request.user,
            idempotency_key=ledger_key(idempotency_key),
        )
        return _movement(movement)

    @extend_schema(
        request=RebuySerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: ChipMovementSerializer, **CHIP_ERRORS},
        summary="Rebuy (a full rebuy, or the session's one short rebuy)",
    )
    @action(detail=True, methods=["post"])
    @idempotent
    def rebuy(self, request: Request, number: str | None = None, *, idempotency_key: str) -> Response:
        table = self.get_object()
        data = valid_input(RebuySerializer, request)
        movement = hand_flow.rebuy(
            table=table,
            player=_player(data["player"]),
            amount_cents=data["amount_cents"],
            by=request.user,
            idempotency_key=ledger_key(idempotency_key),
        )
        return _movement(movement)

    @extend_schema(
        request=CashOutSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: ChipMovementSerializer, **CHIP_ERRORS},
        summary="Cash out: the player leaves the table with all their chips",
    )
    @action(detail=True, methods=["post"], url_path="cash-out")
    @idempotent
    def cash_out(self, request: Request, number: str | None = None, *, idempotency_key: str) -> Response:
        table = self.get_object()
        data = valid_input(CashOutSerializer, request)
        movement = hand_flow.cash_out(
            table=table,
            player=_player(data["player"]),
            by=request.user,
            idempotency_key=ledger_key(idempotency_key),
        )
        return _movement(movement)

    @extend_schema(
        request=TerminalStartHandSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: TerminalHandSerializer, **ERRORS},
        summary="Start the next hand: deal in who can pay, collect the fees, deal",
    )
    @action(detail=True, methods=["post"], url_path="hands")
    @idempotent
    def start_hand(self, request: Request, number: str | None = None, *, idempotency_key: str) -> Response:
        table = self.get_object()
        data = valid_input(TerminalStartHandSerializer, request)
        dealt = hand_flow.start_hand(
            table=table,
            game=_game(data.get("game")),
            sit_out_seat_numbers=data.get("sit_out_seat_numbers") or (),
            expected_fees=data["expected_fees"],
            boards=data.get("boards"),
            by=request.user,
        )
        return Response(
            TerminalHandSerializer.from_hand(
                dealt.hand, fresh=True, players=dealt.players, chips=dealt.chips_after
            ),
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(
        request=ClockInSerializer,
        responses={201: DealerShiftSerializer, 200: DealerShiftSerializer, **ERRORS},
        summary="Clock a dealer in at the table (a dealer themself; the floor assigns any dealer)",
    )
    @action(detail=True, methods=["post"], url_path="clock-in")
    def clock_in(self, request: Request, number: str | None = None) -> Response:
        table = self.get_object()
        data = valid_input(ClockInSerializer, request)
        dealer = _dealer(request.user.pk or 0 if data.get("dealer") is None else data["dealer"])
        down = floor.clock_in(table=table, dealer=dealer, by=request.user)
        code = status.HTTP_200_OK if down.replayed else status.HTTP_201_CREATED
        body = DealerShiftSerializer(down.shift, context={"replayed": down.replayed}).data
        return Response(body, status=code)

    @extend_schema(
        request=None,
        responses={200: DealerShiftSerializer, 204: None, **ERRORS},
        summary="Clock the table's dealer out (204: nobody was clocked in)",
    )
    @action(detail=True, methods=["post"], url_path="clock-out")
    def clock_out(self, request: Request, number: str | None = None) -> Response:
        down = floor.clock_out(table=self.get_object(), by=request.user)
        if down is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(DealerShiftSerializer(down).data)


class TerminalHandViewSet(ActionPermissionMixin, viewsets.GenericViewSet[Hand]):
    """A hand as a dealer terminal runs it: the showdown, its confirmation, a misdeal."""

    queryset = Hand.objects.all()
    serializer_class = TerminalHandSerializer
    action_permissions = {
        "retrieve": ["tables.view_hand", "tables.view_handresult"],
        "showdown": ["tables.run_hand"],
        "confirm": ["tables.run_hand"],
        "misdeal": ["tables.run_hand"],
        "declare_sweep": ["tables.run_hand"],
        "draft": ["tables.run_hand"],
    }

    def _hand(self) -> Hand:
        # get(), not first(): first() would order by Hand's Meta ordering, a join to the table.
        try:
            return Hand.objects.get(pk=self.kwargs["pk"])
        except Hand.DoesNotExist:
            raise FloorNotFound(f"There is no hand {self.kwargs['pk']}.", code="hand_not_found") from None

    @extend_schema(
        responses={200: TerminalHandSerializer, **ERRORS}, summary="The hand, its fees and its reading"
    )
    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        return Response(TerminalHandSerializer.from_hand(self._hand()))

    @extend_schema(
        request=ShowdownSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: TerminalHandSerializer, **ERRORS},
        summary="Submit the showdown: the engine's reading and the payments, to confirm",
    )
    @action(detail=True, methods=["post"])
    @idempotent
    def showdown(self, request: Request, pk: str | None = None, *, idempotency_key: str) -> Response:
        hand = self._hand()
        valid_input(ShowdownSerializer, request)  # the shape; the flow checks the content
        submitted = request.data
        assert isinstance(submitted, Mapping)  # the shape is an object (else _input answered 400)
        _check_declarations(submitted)
        read = hand_flow.submit_showdown(hand=hand, submitted=submitted, by=request.user)
        return Response(
            TerminalHandSerializer.from_hand(
                read.hand, fresh=True, reading=read.reading, players=read.players, chips=read.chips_after
            )
        )

    @extend_schema(
        request=ConfirmSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: TerminalHandSerializer, **ERRORS},
        summary="Confirm the reading: post the settlement and settle the hand",
    )
    @action(detail=True, methods=["post"])
    @idempotent
    def confirm(self, request: Request, pk: str | None = None, *, idempotency_key: str) -> Response:
        hand = self._hand()
        data = valid_input(ConfirmSerializer, request)
        settled = hand_flow.confirm_settlement(hand=hand, by=request.user, revision=data.get("revision"))
        return Response(
            TerminalHandSerializer.from_hand(
                settled.hand,
                replayed=settled.replayed,
                fresh=True,
                reading=settled.reading,
                players=settled.players,
                chips=settled.chips_after,
            )
        )

    @extend_schema(
        request=MisdealSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: TerminalHandSerializer, **ERRORS},
        summary="Misdeal: void the hand, return its fees (unless the table keeps them)",
    )
    @action(detail=True, methods=["post"])
    @idempotent
    def misdeal(self, request: Request, pk: str | None = None, *, idempotency_key: str) -> Response:
        hand = self._hand()
        data = valid_input(MisdealSerializer, request)
        voided = hand_flow.misdeal(
            hand=hand, reason_code=data["reason_code"], reason=data["reason"], by=request.user
        )
        return Response(TerminalHandSerializer.from_hand(voided.hand, replayed=voided.replayed))

    @extend_schema(
        request=DeclareSweepSerializer,
        responses={200: TerminalHandSerializer, **ERRORS},
        summary="Record a clean sweep declared before the showdown (Chinese poker), with its time",
    )
    @action(detail=True, methods=["post"], url_path="declare-sweep")
    def declare_sweep(self, request: Request, pk: str | None = None) -> Response:
        hand = self._hand()
        data = valid_input(DeclareSweepSerializer, request)
        hand_flow.declare_sweep(
            hand=hand, seat_number=data["seat_number"], sweep=data["sweep"], by=request.user
        )
        return Response(TerminalHandSerializer.from_hand(hand))

    @extend_schema(
        request=ShowdownDraftSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: ShowdownDraftSavedSerializer, **ERRORS},
        summary="Keep the showdown entry being made (a draft: no reading, no money), for a reload",
    )
    @action(detail=True, methods=["put"])
    @idempotent
    def draft(self, request: Request, pk: str | None = None, *, idempotency_key: str) -> Response:
        """The terminal saves what has been entered as it changes (a tap made while the connection
        was down is sent once it is back, under the key it was made with); a reload, a crashed
        browser or another tablet draws it back. 409 once the hand is settled or void."""
        hand = self._hand()
        data = valid_input(ShowdownDraftSerializer, request)
        draft = floor.save_showdown_draft(hand=hand, entry=data["entry"], by=request.user)
        return Response(
            {
                "hand": hand.pk,
                "field_count": len(draft.entry),
                "updated_at": draft.updated_at,
                "updated_by": draft.updated_by.get_username() if draft.updated_by else None,
            }
        )
