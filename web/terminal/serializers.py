"""Input and output shapes of the dealer terminals' API (:mod:`web.terminal.api`).

Inputs are validated for shape only; :mod:`handflow.services` decides. Money is integer cents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from handflow.services import DealPlan, HandView, PlayerChips, hand_view
from ledger import selectors as ledger_selectors
from poker.games import MAX_BOARDS
from poker.postings import Postings
from tables.choices import MAX_SEATS
from tables.models import (
    ChipMovement,
    ChipMovementKind,
    DealerShift,
    Hand,
    HandPlayer,
    HandResult,
    ReadingStatus,
    Table,
)
from web.floor.serializers import elsewhere_reason_field

MAX_CENTS = 2**62  # within a 64-bit column: a larger amount is refused as input, never overflows


def _username(user: AbstractBaseUser | None) -> str | None:
    return user.get_username() if user is not None else None


# --- Chips -------------------------------------------------------------------------------------------


class BuyInSerializer(serializers.Serializer[dict[str, Any]]):
    """A buy-in: a player on file (``player``) or a walk-in (``new_player_name``), exactly one."""

    player = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Player id; or leave it out and give new_player_name for a walk-in.",
    )
    new_player_name = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=100,
        help_text=(
            "A walk-in: the new player's name, created with the buy-in (needs the floor's "
            "tables.add_player, and a seat_number). 409 possible_duplicate when the name matches "
            "a player on file, unless new_player_confirmed."
        ),
    )
    new_player_confirmed = serializers.BooleanField(
        required=False,
        default=False,
        help_text="The floor checked the players on file: the walk-in is someone else (same person? no).",
    )
    amount_cents = serializers.IntegerField(min_value=1)
    seat_number = serializers.IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        default=None,
        help_text="For a player not seated yet: the seat to sit in (needs the floor's permission).",
    )
    elsewhere_reason = elsewhere_reason_field()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if (attrs.get("player") is None) == (not attrs.get("new_player_name")):
            raise serializers.ValidationError(
                {"player": "Give a player id, or a new player's name for a walk-in, not both."}
            )
        return attrs


class RebuySerializer(serializers.Serializer[dict[str, Any]]):
    player = serializers.IntegerField(help_text="Player id.")
    amount_cents = serializers.IntegerField(min_value=1)


class CashOutSerializer(serializers.Serializer[dict[str, Any]]):
    player = serializers.IntegerField(help_text="Player id. The player leaves with all their chips.")


class ChipMovementSerializer(serializers.ModelSerializer[ChipMovement]):
    table = serializers.IntegerField(source="table.number", read_only=True)
    player_name = serializers.CharField(source="player.name", read_only=True)
    seat_number = serializers.SerializerMethodField()
    kind = serializers.ChoiceField(choices=ChipMovementKind.choices, read_only=True)
    chips_cents = serializers.SerializerMethodField(help_text="The player's chips at the table now.")
    ledger_transaction = serializers.IntegerField(source="transaction_id", read_only=True)
    created_by = serializers.SerializerMethodField()

    class Meta:
        model = ChipMovement
        fields = (
            "id",
            "table",
            "player",
            "player_name",
            "seat_number",
            "kind",
            "amount_cents",
            "is_short",
            "chips_cents",
            "ledger_transaction",
            "created_at",
            "created_by",
        )
        read_only_fields = fields

    def get_seat_number(self, obj: ChipMovement) -> int | None:
        return obj.seating.seat.number if obj.seating is not None else None

    def get_chips_cents(self, obj: ChipMovement) -> int:
        return ledger_selectors.player_chips(table=obj.table, player=obj.player)

    def get_created_by(self, obj: ChipMovement) -> str | None:
        return _username(obj.created_by)


class ChipRulesSerializer(serializers.Serializer[dict[str, Any]]):
    chip_cents = serializers.IntegerField()
    buy_in_min_cents = serializers.IntegerField()
    buy_in_max_cents = serializers.IntegerField(allow_null=True)
    short_rebuy_min_cents = serializers.IntegerField()
    to_be_dealt_in_cents = serializers.IntegerField(
        help_text="Chips in play after the fee needed to be dealt in (9 points at points tables)."
    )
    minimum_reason = serializers.CharField()


class PlayerChipsSerializer(serializers.Serializer[PlayerChips]):
    player = serializers.IntegerField(source="player_id")
    player_name = serializers.CharField()
    seat_number = serializers.IntegerField(source="seat", allow_null=True)
    chips_cents = serializers.IntegerField()
    locked_in_hand = serializers.IntegerField(
        allow_null=True, help_text="The hand in progress this player is dealt into (chips locked)."
    )
    bought_in = serializers.BooleanField(help_text="This session's buy-in is made.")
    short_rebuy_used = serializers.BooleanField()

    def to_representation(self, instance: PlayerChips) -> dict[str, Any]:
        return dict(super().to_representation(instance))


class TableChipsSerializer(serializers.Serializer[Table]):
    table = serializers.IntegerField()
    rules = ChipRulesSerializer()
    players = PlayerChipsSerializer(many=True)


# --- Fees and the start of a hand ------------------------------------------------------------------


class FeePreviewQuerySerializer(serializers.Serializer[dict[str, Any]]):
    game = serializers.CharField(required=False, help_text="Dealer's choice: the game the button picks.")
    sit_out = serializers.CharField(
        required=False, help_text="Seat numbers sitting the hand out, comma separated (e.g. 3,7)."
    )


class ExpectedFeeSerializer(serializers.Serializer[dict[str, Any]]):
    seat_number = serializers.IntegerField(min_value=1, max_value=MAX_SEATS)
    fee_cents = serializers.IntegerField(min_value=0, max_value=MAX_CENTS)


class TerminalStartHandSerializer(serializers.Serializer[dict[str, Any]]):
    game = serializers.CharField(
        required=False, allow_null=True, default=None, help_text="Dealer's choice: the game picked."
    )
    sit_out_seat_numbers = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        default=list,
        help_text="Seated players who sit this hand out.",
    )
    expected_fees = ExpectedFeeSerializer(
        many=True,
        help_text=(
            "The fees the dealer was shown and confirmed: each seat dealt in with its fee (the "
            "`dealt` list of GET .../fees/ can be sent as it is). If the deal would now take "
            "anything else, nothing is taken: 409 `fees_changed`, whose detail gives the new fees."
        ),
    )

    boards = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=MAX_BOARDS,
        help_text="Taiwanese poker: the boards agreed before the deal (default 1).",
    )

    def validate_expected_fees(self, value: list[dict[str, int]]) -> dict[int, int]:
        fees = {row["seat_number"]: row["fee_cents"] for row in value}
        if len(fees) != len(value):
            raise serializers.ValidationError("A seat is listed twice.")
        return fees


class RateSerializer(serializers.Serializer[dict[str, Any]]):
    schedule = serializers.CharField()
    version = serializers.IntegerField()
    limits = serializers.CharField()
    players_min = serializers.IntegerField()
    players_max = serializers.IntegerField()
    payer = serializers.CharField()
    fee_cents = serializers.IntegerField()
    others_fee_cents = serializers.IntegerField(allow_null=True)
    # DRF's metaclass takes declared fields out of the class body, so this field doesn't shadow
    # Field.label (the serializer's own label) at run time; the stubs can't know that.
    label = serializers.CharField()  # type: ignore[assignment]


class DealtSeatSerializer(serializers.Serializer[dict[str, Any]]):
    position = serializers.IntegerField()
    seat_number = serializers.IntegerField()
    player = serializers.IntegerField()
    player_name = serializers.CharField()
    chips_cents = serializers.IntegerField(help_text="Before the fee.")
    fee_cents = serializers.IntegerField()
    in_play_cents = serializers.IntegerField(help_text="After the fee: the chips the hand is played with.")


class LeftOutSerializer(serializers.Serializer[dict[str, Any]]):
    seat_number = serializers.IntegerField()
    player = serializers.IntegerField()
    player_name = serializers.CharField()
    chips_cents = serializers.IntegerField()
    reason = serializers.ChoiceField(choices=["sits_out", "cannot_pay", "rotates_out"])
    detail = serializers.CharField()


class KillSerializer(serializers.Serializer[dict[str, Any]]):
    seat_number = serializers.IntegerField()
    multiplier_pct = serializers.IntegerField()
    kill_blind_cents = serializers.IntegerField(allow_null=True)


class FeePreviewSerializer(serializers.Serializer[dict[str, Any]]):
    """What starting the next hand now would do (nothing is written)."""

    table = serializers.IntegerField()
    game = serializers.CharField()
    at = serializers.DateTimeField(help_text="The time the rate was looked up at.")
    button_seat = serializers.IntegerField()
    rate = RateSerializer()
    dealt = DealtSeatSerializer(many=True)
    left_out = LeftOutSerializer(many=True)
    total_fees_cents = serializers.IntegerField()
    kill = KillSerializer(allow_null=True)
    notes = serializers.ListField(child=serializers.CharField())

    @staticmethod
    def from_plan(plan: DealPlan) -> dict[str, Any]:
        rate = plan.rate
        return {
            "table": plan.table_number,
            "game": plan.game,
            "at": plan.at,
            "button_seat": plan.button,
            "rate": {
                "schedule": rate.version.schedule.code,
                "version": rate.version.number,
                "limits": rate.limits_label,
                "players_min": rate.players_min,
                "players_max": rate.players_max,
                "payer": rate.payer,
                "fee_cents": rate.fee_cents,
                "others_fee_cents": rate.others_fee_cents,
                "label": rate.fee_label,
            },
            "dealt": [
                {
                    "position": d.position,
                    "seat_number": d.seat,
                    "player": d.player_id,
                    "player_name": d.player_name,
                    "chips_cents": d.chips_cents,
                    "fee_cents": d.fee_cents,
                    "in_play_cents": d.chips_cents - d.fee_cents,
                }
                for d in plan.dealt
            ],
            "left_out": [
                {
                    "seat_number": o.seat,
                    "player": o.player_id,
                    "player_name": o.player_name,
                    "chips_cents": o.chips_cents,
                    "reason": o.reason,
                    "detail": o.detail,
                }
                for o in plan.left_out
            ],
            "total_fees_cents": plan.total_fees_cents,
            "kill": None
            if plan.kill_seat is None
            else {
                "seat_number": plan.kill_seat,
                "multiplier_pct": plan.kill_multiplier_pct,
                "kill_blind_cents": plan.kill_blind_cents,
            },
            "notes": list(plan.notes),
        }


# --- Hands: showdown, confirmation, misdeal --------------------------------------------------------


class ShowdownPlayerSerializer(serializers.Serializer[dict[str, Any]]):
    """One seat's showdown entry; which fields apply depends on the game (docs/showdown-json.md)."""

    seat = serializers.IntegerField()
    cards = serializers.ListField(child=serializers.CharField(), required=False)
    put_in = serializers.IntegerField(required=False, help_text="Pot games: total chips put in, in cents.")
    folded = serializers.BooleanField(required=False)
    put_in_after_draw = serializers.IntegerField(
        required=False, help_text="Lowball's sevens rule (004 lowball rule 2): chips put in after the draw."
    )
    checked_seven = serializers.BooleanField(
        required=False,
        help_text="Lowball: this player checked a seven or better after the draw (loses that action).",
    )
    fouled = serializers.BooleanField(
        required=False, help_text="Chinese poker: the house fouls this hand (004 rule 8), e.g. a wrong count."
    )
    front = serializers.ListField(child=serializers.CharField(), required=False)
    middle = serializers.ListField(child=serializers.CharField(), required=False)
    back = serializers.ListField(child=serializers.CharField(), required=False)
    declare = serializers.JSONField(required=False, help_text="Chinese poker: a clean sweep, or true.")
    surrender = serializers.BooleanField(required=False)
    top = serializers.ListField(child=serializers.CharField(), required=False)
    bottom = serializers.ListField(child=serializers.CharField(), required=False)


class ShowdownSerializer(serializers.Serializer[dict[str, Any]]):
    """The dealer's showdown: exposed cards and put-ins (pot games) or set hands (Chinese and
    Taiwanese poker). Seats, button, chip, point and stacks come from the hand and the ledger."""

    board = serializers.ListField(child=serializers.CharField(), required=False)
    boards = serializers.ListField(child=serializers.ListField(child=serializers.CharField()), required=False)
    players = ShowdownPlayerSerializer(many=True)


class ConfirmSerializer(serializers.Serializer[dict[str, Any]]):
    revision = serializers.IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        default=None,
        help_text="The reading the dealer reviewed; another reading on record is a conflict (409).",
    )


class ReadingSerializer(serializers.ModelSerializer[HandResult]):
    status = serializers.ChoiceField(choices=ReadingStatus.choices, read_only=True)
    reading = serializers.JSONField(source="engine_result", read_only=True, help_text="The engine's result.")
    submitted_by = serializers.SerializerMethodField()
    confirmed_by = serializers.SerializerMethodField()
    ledger_transaction = serializers.IntegerField(source="settlement_id", read_only=True, allow_null=True)
    net = serializers.SerializerMethodField()

    class Meta:
        model = HandResult
        fields = (
            "revision",
            "status",
            "reading",
            "postings",
            "net",
            "engine_input",
            "submitted_at",
            "submitted_by",
            "confirmed_at",
            "confirmed_by",
            "ledger_transaction",
            "outright_winner_seat_number",
        )
        read_only_fields = fields

    @extend_schema_field(serializers.DictField(child=serializers.IntegerField()))
    def get_net(self, obj: HandResult) -> dict[str, int]:
        """Each seat's chips change when settled (cents)."""
        return _net(obj)

    def get_submitted_by(self, obj: HandResult) -> str | None:
        return _username(obj.submitted_by)

    def get_confirmed_by(self, obj: HandResult) -> str | None:
        return _username(obj.confirmed_by)

    @staticmethod
    def as_dict(obj: HandResult, postings: Postings | None = None) -> dict[str, Any]:
        """The same fields as a plain dict: the dealer screens read this on every hand, and building a
        ModelSerializer's fields costs more than the rest of the response. ``postings``: ``obj``'s
        typed, when the caller has them (else read from ``obj``)."""
        return {
            "revision": obj.revision,
            "status": obj.status,
            "reading": obj.engine_result,
            "postings": obj.postings,
            "net": _net(obj, postings),
            "engine_input": obj.engine_input,
            "submitted_at": serializers.DateTimeField().to_representation(obj.submitted_at),
            "submitted_by": _username(obj.submitted_by),
            "confirmed_at": (
                serializers.DateTimeField().to_representation(obj.confirmed_at) if obj.confirmed_at else None
            ),
            "confirmed_by": _username(obj.confirmed_by),
            "ledger_transaction": obj.settlement_id,
            "outright_winner_seat_number": obj.outright_winner_seat_number,
        }


def _net(obj: HandResult, postings: Postings | None = None) -> dict[str, int]:
    """Each seat's chips change when settled, by seat number as JSON keys it (ascending seat)."""
    typed = postings if postings is not None else Postings.from_json(obj.postings)
    return {str(seat): cents for seat, cents in typed.seat_nets}


class TerminalHandPlayerSerializer(serializers.Serializer[dict[str, Any]]):
    position = serializers.IntegerField()
    seat_number = serializers.IntegerField()
    player = serializers.IntegerField()
    player_name = serializers.CharField()
    is_button = serializers.BooleanField()
    fee_cents = serializers.IntegerField(allow_null=True)
    stack_cents = serializers.IntegerField(
        allow_null=True, help_text="Chips in play at the deal (after the fee)."
    )
    chips_cents = serializers.IntegerField(help_text="Chips at the table now.")
    sweep_declared = serializers.CharField(help_text="Chinese poker: the clean sweep declared (or blank).")
    sweep_declared_at = serializers.DateTimeField(allow_null=True, help_text="When it was declared.")


class TerminalHandSerializer(serializers.Serializer[Hand]):
    """A hand as the dealer terminal shows it: players, fees, kill, the reading."""

    id = serializers.IntegerField()
    table = serializers.IntegerField()
    number = serializers.IntegerField()
    game = serializers.CharField()
    joker = serializers.BooleanField(
        help_text="The joker JK is in the deck (lowball as the table's game; not at dealer's choice)."
    )
    stakes = serializers.CharField()
    collection_schedule = serializers.CharField()
    status = serializers.CharField()
    button_seat = serializers.IntegerField()
    kill_seat = serializers.IntegerField(allow_null=True)
    kill_multiplier_pct = serializers.IntegerField()
    kill_blind_cents = serializers.IntegerField(allow_null=True)
    players = TerminalHandPlayerSerializer(many=True)
    fees_cents = serializers.IntegerField(help_text="Fees collected before the deal.")
    fees_returned = serializers.BooleanField(help_text="The fees went back to the players (misdeal).")
    reading = ReadingSerializer(allow_null=True)
    replayed = serializers.BooleanField(help_text="This request had already been carried out.")
    void_reason = serializers.CharField()
    misdeal_reason = serializers.CharField(help_text="A void hand's misdeal code (blank otherwise).")
    boards = serializers.IntegerField(allow_null=True, help_text="Taiwanese poker: the boards agreed.")
    dealer = serializers.CharField(allow_null=True, help_text="Who dealt the hand (username).")

    @staticmethod
    def from_hand(
        hand: Hand,
        *,
        replayed: bool = False,
        fresh: bool = False,
        reading: HandResult | None = None,
        players: Sequence[HandPlayer] | None = None,
        chips: Mapping[int, int] | None = None,
    ) -> dict[str, Any]:
        """The hand as it stands in the database now, read once (:func:`handflow.hand_view.hand_view`,
        whose arguments these are) and given as :meth:`from_view` gives it."""
        view = hand_view(hand, fresh=fresh, result=reading, players=players, chips=chips)
        return TerminalHandSerializer.from_view(view, replayed=replayed)

    @staticmethod
    def from_view(view: HandView, *, replayed: bool = False) -> dict[str, Any]:
        """The hand of ``view`` in this serializer's shape (reads nothing: a kill seat not dealt in
        aside, read when named)."""
        hand = view.hand
        result = view.result
        return {
            "id": hand.pk,
            "table": hand.table.number,
            "number": hand.number,
            "game": hand.game.slug,
            "joker": hand.joker,
            "stakes": hand.stakes.code,
            "collection_schedule": hand.collection_schedule.code,
            "status": hand.status,
            "button_seat": hand.button_seat.number,
            "kill_seat": hand.kill_seat.number if hand.kill_seat else None,
            "kill_multiplier_pct": hand.kill_multiplier_pct,
            "kill_blind_cents": view.kill_blind_cents,
            "players": [
                {
                    "position": hp.position,
                    "seat_number": hp.seat.number,
                    "player": hp.player_id,
                    "player_name": hp.player.name,
                    "is_button": hp.is_button,
                    "fee_cents": hp.fee_cents,
                    "stack_cents": hp.stack_cents,
                    "chips_cents": view.chips_of(hp),
                    "sweep_declared": hp.sweep_declared,
                    "sweep_declared_at": hp.sweep_declared_at,
                }
                for hp in view.players
            ],
            "fees_cents": view.fees_cents,
            "fees_returned": view.fees_returned,
            "reading": ReadingSerializer.as_dict(result, view.postings) if result is not None else None,
            "replayed": replayed,
            "void_reason": hand.void_reason,
            "misdeal_reason": hand.misdeal_reason,
            "boards": hand.boards,
            "dealer": hand.dealer.get_username() if hand.dealer is not None else None,
        }


class ClockInSerializer(serializers.Serializer[dict[str, Any]]):
    dealer = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=2**63 - 1,
        help_text="The floor assigns this dealer (user id); a dealer leaves it out to clock themself in.",
    )


class _ContextFlag(serializers.BooleanField):
    """A boolean the view gives in the serializer's context under the field's name (False when
    absent), not an attribute of the instance; in the schema, a plain boolean."""

    def get_attribute(self, instance: Any) -> bool:
        assert self.field_name is not None  # bound to its serializer
        return bool(self.context.get(self.field_name, False))


class DealerShiftSerializer(serializers.Serializer[DealerShift]):
    """A dealer's down at a table."""

    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table.number")
    dealer = serializers.CharField(source="dealer.username")
    clocked_in_at = serializers.DateTimeField()
    clocked_out_at = serializers.DateTimeField(allow_null=True)
    # Clocked in there already: the clock-in gives tables.services.ClockedIn's ``replayed``.
    replayed = _ContextFlag()


class DeclareSweepSerializer(serializers.Serializer[dict[str, Any]]):
    seat_number = serializers.IntegerField(min_value=1, max_value=MAX_SEATS)
    sweep = serializers.CharField(
        max_length=40, help_text="The clean sweep declared (e.g. dragon, six-pairs)."
    )
