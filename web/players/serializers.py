"""API shapes of one identity per player and of cash per gaming day: a player's overview, a merge,
an identification, the day's check of a transaction, the room's settings, the day's report.

Shapes only (money in integer cents); the services decide (:mod:`tables.services`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from rest_framework import serializers

from tables.models import CashDaySettings, IdentificationKind, Player, PlayerIdentification, PlayerMerge
from tables.services import CashCheck
from web.common.serializers import WholeNumberField
from web.floor.serializers import SeatingSerializer


class PlayerSerializer(serializers.ModelSerializer[Player]):
    confirmed_new_person = serializers.BooleanField(
        write_only=True,
        required=False,
        default=False,
        help_text=(
            "Creating: a name or phone matching a player on file is refused (409 possible_duplicate, "
            "'same person?'); true once the floor said this is someone else."
        ),
    )

    class Meta:
        model = Player
        fields = ("id", "name", "member_number", "phone", "merged_into", "created_at", "confirmed_new_person")
        read_only_fields = ("id", "merged_into", "created_at")
        # The service checks member-number uniqueness (409 with a clear message).
        extra_kwargs: dict[str, dict[str, Any]] = {"member_number": {"validators": []}}


class PlayerMergeInputSerializer(serializers.Serializer[dict[str, Any]]):
    merged = serializers.IntegerField(
        min_value=1, max_value=2**62, help_text="The id of the duplicate record to merge."
    )
    reason = serializers.CharField(max_length=500, help_text="Why they are one person; kept with the merge.")


class PlayerMergeSerializer(serializers.ModelSerializer[PlayerMerge]):
    class Meta:
        model = PlayerMerge
        fields = ("id", "survivor", "merged", "merged_as", "reason", "at", "by_username")
        read_only_fields = fields


class PlayerTableChipsSerializer(serializers.Serializer[dict[str, Any]]):
    table_number = serializers.IntegerField()
    player_id = serializers.IntegerField(
        help_text="The record the chips are on (a merged one keeps its own)."
    )
    seat_number = serializers.IntegerField(allow_null=True, help_text="None: not seated there.")
    chips_cents = serializers.IntegerField()


class DayMovementSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    at = serializers.DateTimeField(source="created_at")
    table_number = serializers.IntegerField(source="table.number")
    player_id = serializers.IntegerField()
    kind = serializers.CharField()
    amount_cents = serializers.IntegerField()


class IdentificationSerializer(serializers.ModelSerializer[PlayerIdentification]):
    recorded_by = serializers.SlugRelatedField(slug_field="username", read_only=True)  # type: ignore[var-annotated]
    document = serializers.ChoiceField(
        source="kind",
        choices=IdentificationKind.choices,
        read_only=True,
        help_text="The kind of identification.",
    )

    class Meta:
        model = PlayerIdentification
        fields = (
            "id",
            "player",
            "gaming_day",
            "document",
            "number",
            "issued_by",
            "expires_on",
            "note",
            "recorded_at",
            "recorded_by",
        )
        read_only_fields = fields


class IdentificationInputSerializer(serializers.Serializer[dict[str, Any]]):
    player = serializers.IntegerField(
        min_value=1, max_value=2**62, help_text="Player id (a merged record: its survivor)."
    )
    document = serializers.ChoiceField(
        choices=IdentificationKind.choices, help_text="The kind of identification."
    )
    number = serializers.CharField(max_length=40)
    issued_by = serializers.CharField(max_length=60, help_text="The state or country that issued it.")
    expires_on = serializers.DateField(required=False, allow_null=True, default=None)
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)


class PlayerOverviewSerializer(serializers.Serializer[dict[str, Any]]):
    """A player (the survivor of any record named) with everything the floor reads of them."""

    player = PlayerSerializer()
    records = PlayerSerializer(many=True, help_text="Every record of the identity (the survivor first).")
    chips = PlayerTableChipsSerializer(many=True, help_text="Chips at each table (from the ledger).")
    gaming_day = serializers.DateField()
    in_cents = serializers.IntegerField(help_text="Bought (buy-ins, rebuys) this gaming day.")
    out_cents = serializers.IntegerField(help_text="Cashed out this gaming day.")
    movements = DayMovementSerializer(many=True, help_text="This gaming day's buy-ins, rebuys and cash-outs.")
    sessions = SeatingSerializer(many=True, help_text="Seatings, the newest first (at most 100).")
    merges = PlayerMergeSerializer(many=True)
    identifications = IdentificationSerializer(many=True)


class CashCheckQuerySerializer(serializers.Serializer[dict[str, Any]]):
    player = serializers.IntegerField(min_value=1, max_value=2**62)
    kind = serializers.ChoiceField(
        choices=[("buy_in", "Buy-in"), ("rebuy", "Rebuy"), ("cash_out", "Cash-out")]
    )
    amount_cents = serializers.IntegerField(min_value=1, max_value=2**62)


class CashCheckSerializer(serializers.Serializer[CashCheck]):
    player_id = serializers.IntegerField()
    day = serializers.DateField()
    direction = serializers.ChoiceField(choices=[("in", "in"), ("out", "out")])
    amount_cents = serializers.IntegerField()
    total_before_cents = serializers.IntegerField()
    total_after_cents = serializers.IntegerField()
    log_threshold_cents = serializers.IntegerField()
    report_threshold_cents = serializers.IntegerField()
    logged = serializers.BooleanField(help_text="Over the log threshold: in the day's transaction log.")
    over_report_threshold = serializers.BooleanField()
    identification_id = serializers.IntegerField(allow_null=True)
    needs_identification = serializers.BooleanField(help_text="Refused until the identification is recorded.")
    warning = serializers.CharField(allow_blank=True)


class CashDaySettingsSerializer(serializers.ModelSerializer[CashDaySettings]):
    updated_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="None: never changed.")

    class Meta:
        model = CashDaySettings
        fields = ("gaming_day_start_hour", "log_threshold_cents", "report_threshold_cents", "updated_at")
        read_only_fields = fields


class CashDaySettingsInputSerializer(serializers.Serializer[dict[str, Any]]):
    gaming_day_start_hour = WholeNumberField(required=False, min_value=0, max_value=23)
    log_threshold_cents = WholeNumberField(required=False, min_value=1, max_value=10_000_000_000)
    report_threshold_cents = WholeNumberField(required=False, min_value=1, max_value=10_000_000_000)
    reason = serializers.CharField(max_length=500, help_text="Why; kept in the configuration history.")


class CashDayQuerySerializer(serializers.Serializer[dict[str, Any]]):
    day = serializers.DateField(
        required=False, default=None, allow_null=True, help_text="The gaming day (default today's)."
    )

    def validate_day(self, value: dt.date | None) -> dt.date | None:
        if value is not None and not dt.date(2000, 1, 1) <= value <= dt.date(2200, 1, 1):
            raise serializers.ValidationError("A gaming day between 2000 and 2200.")
        return value


class PlayerDaySerializer(serializers.Serializer[dict[str, Any]]):
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    member_number = serializers.CharField(allow_blank=True)
    in_cents = serializers.IntegerField()
    out_cents = serializers.IntegerField()
    over_in = serializers.BooleanField()
    over_out = serializers.BooleanField()
    identification = serializers.CharField(allow_blank=True)


class LogLineSerializer(serializers.Serializer[dict[str, Any]]):
    movement_id = serializers.IntegerField()
    at = serializers.DateTimeField()
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    table_number = serializers.IntegerField()
    kind = serializers.CharField()
    direction = serializers.CharField()
    amount_cents = serializers.IntegerField()
    by = serializers.CharField(allow_blank=True)


class CashDayReportSerializer(serializers.Serializer[dict[str, Any]]):
    gaming_day = serializers.DateField()
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    log_threshold_cents = serializers.IntegerField()
    report_threshold_cents = serializers.IntegerField()
    in_cents = serializers.IntegerField()
    out_cents = serializers.IntegerField()
    players = PlayerDaySerializer(many=True)
    reports = PlayerDaySerializer(many=True, help_text="The players over the report threshold, in or out.")
    log = LogLineSerializer(many=True, help_text="Each transaction over the log threshold.")
