"""API input and output shapes. Serializers validate shapes only; services decide and change.

Money fields end in ``_cents`` and are integers. Games, stakes, schedules and tables are named
by their natural keys (``slug``, ``code``, ``code``, ``number``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.models import User as AuthUser
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tables.choices import KillType, MisdealReason, Payer, RateStructure
from tables.models import (
    CollectionRate,
    CollectionSchedule,
    CollectionScheduleVersion,
    ConfigChange,
    Game,
    Hand,
    HandPlayer,
    Seat,
    Seating,
    Stakes,
    Table,
)
from tables.services import RATE_FIELDS, STAKES_FIELDS
from tables.validators import rates_fee_warnings
from web.common.serializers import WholeNumberField


def _username(user: AbstractBaseUser | None) -> str | None:
    return user.get_username() if user is not None else None


class GameSerializer(serializers.ModelSerializer[Game]):
    hands_per_round = serializers.IntegerField(read_only=True)
    choice_of: serializers.SlugRelatedField[Game] = serializers.SlugRelatedField(
        slug_field="slug",
        many=True,
        read_only=True,
        help_text="A choice game: the games the button picks from (empty: any approved pot game).",
    )

    class Meta:
        model = Game
        fields = (
            "slug",
            "name",
            "kind",
            "is_button_game",
            "is_stud_game",
            "is_dealers_choice",
            "choice_of",
            "seat_count",
            "max_hands",
            "hands_per_round",
            "is_active",
        )


class StakesSerializer(serializers.ModelSerializer[Stakes]):
    # DRF's metaclass takes declared fields out of the class body, so this field doesn't shadow
    # Field.label (the serializer's own label) at run time; the stubs can't know that.
    label = serializers.CharField(read_only=True)  # type: ignore[assignment]
    kill_multiplier_pct = serializers.IntegerField(read_only=True)

    class Meta:
        model = Stakes
        fields = (
            "code",
            "label",
            "structure",
            "small_bet_cents",
            "big_bet_cents",
            "alt_small_bet_cents",
            "alt_big_bet_cents",
            "buy_in_min_cents",
            "buy_in_max_cents",
            "kill",
            "kill_multiplier_pct",
            "point_cents",
            "is_active",
        )


class StakesCreateSerializer(serializers.ModelSerializer[Stakes]):
    reason = serializers.CharField(required=False, allow_blank=True, default="")

    class Meta:
        model = Stakes
        fields = ("code", *STAKES_FIELDS, "reason")  # what the service creates a stakes from
        # Uniqueness is the service's to check (it answers 409, not 400).
        extra_kwargs: dict[str, dict[str, Any]] = {"code": {"validators": []}}


class CollectionRateSerializer(serializers.ModelSerializer[CollectionRate]):
    limits_label = serializers.CharField(read_only=True)
    fee_label = serializers.CharField(read_only=True)

    class Meta:
        model = CollectionRate
        fields = (*RATE_FIELDS, "limits_label", "fee_label")


def _cents(**kwargs: Any) -> WholeNumberField:
    return WholeNumberField(required=False, allow_null=True, **kwargs)


class RateInputSerializer(serializers.Serializer[dict[str, Any]]):
    """One rate of a new version. Shapes only: whether its fees are whole chips of the tables on
    the schedule, and its other rules, are the service's (:mod:`tables.validators`)."""

    structure = serializers.ChoiceField(choices=RateStructure.choices)
    small_bet_cents = _cents()
    big_bet_cents = _cents()
    alt_small_bet_cents = _cents()
    alt_big_bet_cents = _cents()
    buy_in_min_cents = _cents()
    buy_in_max_cents = _cents()
    point_min_cents = _cents()
    point_max_cents = _cents()
    players_min = WholeNumberField(min_value=1, max_value=10)
    players_max = WholeNumberField(min_value=1, max_value=10)
    payer = serializers.ChoiceField(choices=Payer.choices, default=Payer.BUTTON)
    fee_cents = WholeNumberField(min_value=0)
    others_fee_cents = _cents(min_value=0)


class ScheduleVersionSerializer(serializers.ModelSerializer[CollectionScheduleVersion]):
    rates = CollectionRateSerializer(many=True, read_only=True)
    created_by = serializers.SerializerMethodField()

    class Meta:
        model = CollectionScheduleVersion
        fields: tuple[str, ...] = ("number", "effective_from", "created_at", "created_by", "reason", "rates")

    def get_created_by(self, obj: CollectionScheduleVersion) -> str | None:
        return _username(obj.created_by)


class ScheduleVersionWithWarningsSerializer(ScheduleVersionSerializer):
    """A version just added, with its fees far outside the schedule's sense (accepted; docs/floor.md)."""

    warnings = serializers.SerializerMethodField(
        help_text="Fees far outside what their stakes bear, by rate: rates[i].fee_cents -> message."
    )

    class Meta(ScheduleVersionSerializer.Meta):
        fields = (*ScheduleVersionSerializer.Meta.fields, "warnings")

    def get_warnings(self, obj: CollectionScheduleVersion) -> dict[str, str]:
        return rates_fee_warnings(list(obj.rates.all()))


class ScheduleVersionSummarySerializer(serializers.ModelSerializer[CollectionScheduleVersion]):
    class Meta:
        model = CollectionScheduleVersion
        fields = ("number", "effective_from", "created_at", "reason")


class CollectionScheduleSerializer(serializers.ModelSerializer[CollectionSchedule]):
    version_in_force = serializers.SerializerMethodField()
    versions = ScheduleVersionSummarySerializer(many=True, read_only=True)

    class Meta:
        model = CollectionSchedule
        fields: tuple[str, ...] = ("code", "name", "description", "version_in_force", "versions")

    @extend_schema_field(ScheduleVersionSerializer(allow_null=True))
    def get_version_in_force(self, obj: CollectionSchedule) -> dict[str, Any] | None:
        version = obj.version_at()
        return ScheduleVersionSerializer(version).data if version else None


class ScheduleCreatedSerializer(CollectionScheduleSerializer):
    """A schedule just created, with its first version's fee warnings (accepted; docs/floor.md)."""

    warnings = serializers.SerializerMethodField(
        help_text="Fees far outside what their stakes bear, by rate: rates[i].fee_cents -> message."
    )

    class Meta(CollectionScheduleSerializer.Meta):
        fields = (*CollectionScheduleSerializer.Meta.fields, "warnings")

    def get_warnings(self, obj: CollectionSchedule) -> dict[str, str]:
        first = obj.versions.order_by("number").first()
        return rates_fee_warnings(list(first.rates.all())) if first is not None else {}


class ScheduleCreateSerializer(serializers.Serializer[dict[str, Any]]):
    code = serializers.CharField(max_length=20)
    name = serializers.CharField(max_length=100)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    effective_from = serializers.DateTimeField(required=False, allow_null=True, default=None)
    reason = serializers.CharField(required=False, allow_blank=True, default="")
    rates = RateInputSerializer(many=True)


class ScheduleReviseSerializer(serializers.Serializer[dict[str, Any]]):
    effective_from = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="When the new rates take effect (default now).",
    )
    reason = serializers.CharField()
    rates = RateInputSerializer(many=True, help_text="The complete set of rates of the new version.")


class OccupantSerializer(serializers.Serializer[dict[str, Any]]):
    seating_id = serializers.IntegerField()
    player_id = serializers.IntegerField()
    player_name = serializers.CharField()


class SeatSerializer(serializers.ModelSerializer[Seat]):
    table: serializers.SlugRelatedField[Table] = serializers.SlugRelatedField(
        slug_field="number", read_only=True
    )
    occupant = serializers.SerializerMethodField()

    class Meta:
        model = Seat
        fields = ("id", "table", "number", "occupant")

    @extend_schema_field(OccupantSerializer(allow_null=True))
    def get_occupant(self, obj: Seat) -> dict[str, Any] | None:
        active = [s for s in obj.seatings.all() if s.left_at is None]
        if not active:
            return None
        seating = active[0]
        return {"seating_id": seating.pk, "player_id": seating.player_id, "player_name": seating.player.name}


class ButtonsSerializer(serializers.Serializer[dict[str, Any]]):
    button_seat = serializers.IntegerField(allow_null=True)
    sitting_out_seat = serializers.IntegerField(allow_null=True)
    streak_seat = serializers.IntegerField(allow_null=True)
    streak_wins = serializers.IntegerField()
    kill_seat = serializers.IntegerField(allow_null=True)
    kill_multiplier_pct = serializers.IntegerField()


class TableSerializer(serializers.ModelSerializer[Table]):
    game: serializers.SlugRelatedField[Game] = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    stakes: serializers.SlugRelatedField[Stakes] = serializers.SlugRelatedField(
        slug_field="code", read_only=True
    )
    stakes_label = serializers.CharField(source="stakes.label", read_only=True)
    collection_schedule: serializers.SlugRelatedField[CollectionSchedule] = serializers.SlugRelatedField(
        slug_field="code", read_only=True
    )
    seats = SeatSerializer(many=True, read_only=True)
    buttons = serializers.SerializerMethodField()
    hand_in_progress = serializers.SerializerMethodField()

    class Meta:
        model = Table
        fields = (
            "number",
            "game",
            "stakes",
            "stakes_label",
            "seat_count",
            "chip_unit_cents",
            "collection_schedule",
            "status",
            "keep_fees_on_misdeal",
            "opened_at",
            "closed_at",
            "seats",
            "buttons",
            "hand_in_progress",
        )

    @extend_schema_field(ButtonsSerializer(allow_null=True))
    def get_buttons(self, obj: Table) -> dict[str, Any] | None:
        buttons = getattr(obj, "buttons", None)
        if buttons is None:
            return None

        def number(seat: Seat | None) -> int | None:
            return seat.number if seat else None

        return {
            "button_seat": number(buttons.button_seat),
            "sitting_out_seat": number(buttons.sitting_out_seat),
            "streak_seat": number(buttons.streak_seat),
            "streak_wins": buttons.streak_wins,
            "kill_seat": number(buttons.kill_seat),
            "kill_multiplier_pct": buttons.kill_multiplier_pct,
        }

    def get_hand_in_progress(self, obj: Table) -> int | None:
        """The id of the hand in progress, if any."""
        hand = obj.hand_in_progress()
        return hand.pk if hand else None


class TableCreateSerializer(serializers.Serializer[dict[str, Any]]):
    number = serializers.IntegerField(min_value=1)
    game = serializers.SlugRelatedField(slug_field="slug", queryset=Game.objects.all())
    stakes = serializers.SlugRelatedField(slug_field="code", queryset=Stakes.objects.all())
    collection_schedule = serializers.SlugRelatedField(
        slug_field="code", queryset=CollectionSchedule.objects.all()
    )
    seat_count = serializers.IntegerField(required=False, allow_null=True, default=None)
    chip_unit_cents = serializers.IntegerField(required=False, default=100)
    keep_fees_on_misdeal = serializers.BooleanField(required=False, default=False)
    kill = serializers.ChoiceField(
        choices=KillType.choices,
        required=False,
        allow_null=True,
        default=None,
        help_text="none, half or full: the stakes of the same limits with this kill (default: the stakes').",
    )
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class TableConfigureSerializer(serializers.Serializer[dict[str, Any]]):
    game = serializers.SlugRelatedField(slug_field="slug", queryset=Game.objects.all(), required=False)
    stakes = serializers.SlugRelatedField(slug_field="code", queryset=Stakes.objects.all(), required=False)
    collection_schedule = serializers.SlugRelatedField(
        slug_field="code", queryset=CollectionSchedule.objects.all(), required=False
    )
    seat_count = serializers.IntegerField(required=False)
    chip_unit_cents = serializers.IntegerField(required=False)
    keep_fees_on_misdeal = serializers.BooleanField(required=False)
    kill = serializers.ChoiceField(
        choices=KillType.choices,
        required=False,
        help_text="none, half or full: the stakes of the same limits with this kill.",
    )
    reason = serializers.CharField(help_text="Why; kept in the configuration history.")


class SeatingSerializer(serializers.ModelSerializer[Seating]):
    table: serializers.SlugRelatedField[Table] = serializers.SlugRelatedField(
        slug_field="number", read_only=True
    )
    seat_number = serializers.IntegerField(source="seat.number", read_only=True)
    player_name = serializers.CharField(source="player.name", read_only=True)
    seated_by = serializers.SerializerMethodField()
    left_by = serializers.SerializerMethodField()

    class Meta:
        model = Seating
        fields = (
            "id",
            "table",
            "seat_number",
            "player",
            "player_name",
            "seated_at",
            "left_at",
            "seated_by",
            "left_by",
            "elsewhere_reason",
        )
        read_only_fields = fields

    def get_seated_by(self, obj: Seating) -> str | None:
        return _username(obj.seated_by)

    def get_left_by(self, obj: Seating) -> str | None:
        return _username(obj.left_by)


def elsewhere_reason_field() -> serializers.CharField:
    """The floor's reason to seat a player who sits at another table (one table at a time), where a
    request seats one: a seating, a buy-in that seats (:mod:`web.terminal.serializers`)."""
    return serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=500,
        help_text=(
            "A player sits at one table at a time: why the floor allows a second one "
            "(409 seated_elsewhere without). Kept on the new seating."
        ),
    )


class SeatPlayerSerializer(serializers.Serializer[dict[str, Any]]):
    table = serializers.IntegerField(min_value=1, help_text="Table number.")
    seat_number = serializers.IntegerField(min_value=1)
    player = serializers.IntegerField(help_text="Player id.")
    elsewhere_reason = elsewhere_reason_field()


class MovePlayerSerializer(serializers.Serializer[dict[str, Any]]):
    to_seat_number = serializers.IntegerField(min_value=1)
    to_table = serializers.IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        default=None,
        help_text="Table number (default: same table).",
    )


class HandPlayerSerializer(serializers.ModelSerializer[HandPlayer]):
    seat_number = serializers.IntegerField(source="seat.number", read_only=True)
    player_name = serializers.CharField(source="player.name", read_only=True)
    is_button = serializers.BooleanField(read_only=True)

    class Meta:
        model = HandPlayer
        fields = ("position", "seat_number", "player", "player_name", "is_button")


class HandSerializer(serializers.ModelSerializer[Hand]):
    table: serializers.SlugRelatedField[Table] = serializers.SlugRelatedField(
        slug_field="number", read_only=True
    )
    game: serializers.SlugRelatedField[Game] = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    stakes: serializers.SlugRelatedField[Stakes] = serializers.SlugRelatedField(
        slug_field="code", read_only=True
    )
    collection_schedule: serializers.SlugRelatedField[CollectionSchedule] = serializers.SlugRelatedField(
        slug_field="code", read_only=True
    )
    button_seat = serializers.IntegerField(source="button_seat.number", read_only=True)
    kill_seat = serializers.IntegerField(
        source="kill_seat.number", read_only=True, allow_null=True, default=None
    )
    players = HandPlayerSerializer(many=True, read_only=True)
    created_by = serializers.SerializerMethodField()
    dealt_by = serializers.SerializerMethodField()
    settled_by = serializers.SerializerMethodField()
    voided_by = serializers.SerializerMethodField()
    dealer: serializers.SlugRelatedField[AuthUser] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    misdeal_reason = serializers.ChoiceField(
        choices=MisdealReason.choices,
        allow_blank=True,
        read_only=True,
        help_text="A void hand's reason code.",
    )

    class Meta:
        model = Hand
        fields = (
            "id",
            "table",
            "number",
            "game",
            "stakes",
            "collection_schedule",
            "status",
            "button_seat",
            "kill_seat",
            "kill_multiplier_pct",
            "players",
            "created_at",
            "created_by",
            "dealt_at",
            "dealt_by",
            "showdown_at",
            "settled_at",
            "settled_by",
            "voided_at",
            "voided_by",
            "void_reason",
            "misdeal_reason",
            "boards",
            "dealer",
        )
        read_only_fields = fields

    def get_created_by(self, obj: Hand) -> str | None:
        return _username(obj.created_by)

    def get_dealt_by(self, obj: Hand) -> str | None:
        return _username(obj.dealt_by)

    def get_settled_by(self, obj: Hand) -> str | None:
        return _username(obj.settled_by)

    def get_voided_by(self, obj: Hand) -> str | None:
        return _username(obj.voided_by)


class MisdealSerializer(serializers.Serializer[dict[str, Any]]):
    """A misdeal: one of 004's reasons by code, with the dealer's words (needed for ``other``).
    The rule (which codes, when words are needed) is the floor's: ``check_misdeal_reason``."""

    reason_code = serializers.ChoiceField(
        choices=MisdealReason.choices, help_text="Why the hand is void: one of 004's misdeals, or other."
    )
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=500,
        help_text="What happened, in words (required with `other`).",
    )


class ConfigChangeSerializer(serializers.ModelSerializer[ConfigChange]):
    model = serializers.CharField(source="content_type.model", read_only=True)
    by = serializers.CharField(source="by_username", read_only=True)

    class Meta:
        model = ConfigChange
        fields = (
            "id",
            "at",
            "by",
            "action",
            "model",
            "object_id",
            "object_repr",
            "before",
            "after",
            "reason",
        )
        read_only_fields = fields
