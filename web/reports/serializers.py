"""Serializers of the ledger's API: the reports (generated from their dataclasses, so the JSON and
the OpenAPI schema can't drift from the report code) and the report records.

Money is integer cents (fields ending ``_cents``). Times are ISO-8601.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import types
import typing
from typing import TYPE_CHECKING, Any, cast

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from backoffice import integrity_status
from backoffice.reports import changes, collection, downs, drops, hands, journal, statement
from ledger.models import (
    AuthChange,
    DropCount,
    ExportFormat,
    FeeWaiver,
    IntegrityCheck,
    ReportExport,
    ReportKind,
    ShiftClose,
    VarianceSignOff,
)
from ledger.shifts import Shift

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def _field_for(hint: Any, *, name: str) -> serializers.Field[Any, Any, Any, Any]:
    """A read-only serializer field for one dataclass field's type hint."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    nullable = False
    if origin in (types.UnionType, typing.Union):
        inner = [arg for arg in args if arg is not type(None)]
        nullable = len(inner) < len(args)
        hint = inner[0] if len(inner) == 1 else Any
        origin, args = typing.get_origin(hint), typing.get_args(hint)
    options: dict[str, Any] = {"read_only": True, "allow_null": nullable} if nullable else {"read_only": True}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return dataclass_serializer(hint)(**options)
    if origin in (list, tuple):
        child_hint = args[0] if args else Any
        if isinstance(child_hint, type) and dataclasses.is_dataclass(child_hint):
            return dataclass_serializer(child_hint)(many=True, **options)
        return serializers.ListField(child=_field_for(child_hint, name=name), **options)
    if origin is dict or hint is dict:
        return serializers.DictField(**options)
    simple: dict[type, type[serializers.Field[Any, Any, Any, Any]]] = {
        bool: serializers.BooleanField,
        int: serializers.IntegerField,
        str: serializers.CharField,
        dt.datetime: serializers.DateTimeField,
        dt.date: serializers.DateField,
    }
    if hint in simple:
        return simple[hint](**options)
    return serializers.JSONField(**options)


@functools.cache
def dataclass_serializer(cls: type[DataclassInstance]) -> type[serializers.Serializer[DataclassInstance]]:
    """A read-only ``Serializer`` class for a report dataclass (one per class, named
    ``Ledger<Name>`` in the schema). Properties are not fields and are left out."""
    hints = typing.get_type_hints(cls)
    fields = {field.name: _field_for(hints[field.name], name=field.name) for field in dataclasses.fields(cls)}
    name = f"Ledger{cls.__name__}Serializer"
    # A class made at run time with type(): mypy sees only ``type``, not the Serializer it derives from.
    return cast(
        "type[serializers.Serializer[DataclassInstance]]",
        type(name, (serializers.Serializer,), {**fields, "__doc__": cls.__doc__ or name}),
    )


CollectionReportSerializer = dataclass_serializer(collection.CollectionReport)
HandHistorySerializer = dataclass_serializer(hands.HandHistory)
PlayerStatementSerializer = dataclass_serializer(statement.PlayerStatement)
JournalSerializer = dataclass_serializer(journal.Journal)
IntegrityStatusSerializer = dataclass_serializer(integrity_status.IntegrityStatus)
DropVarianceReportSerializer = dataclass_serializer(drops.DropVarianceReport)
ChangeLogSerializer = dataclass_serializer(changes.ChangeLog)
DownsReportSerializer = dataclass_serializer(downs.DownsReport)


class LedgerErrorSerializer(serializers.Serializer[dict[str, Any]]):
    code = serializers.CharField()
    detail = serializers.CharField()
    field = serializers.CharField(required=False)


class LedgerFilterErrorSerializer(serializers.Serializer[dict[str, Any]]):
    code = serializers.CharField()
    detail = serializers.CharField()
    # DRF's metaclass takes declared fields out of the class body, so this field doesn't shadow
    # Serializer.errors at run time; the stubs can't know that.
    # Bad filters name each field; a body the parser refuses (``parse_error``) has none.
    errors = serializers.DictField(child=serializers.CharField(), required=False)  # type: ignore[assignment]


# --- Records ---------------------------------------------------------------------------------------


class ShiftKeyField(serializers.CharField):
    """A shift key ``YYYY-MM-DD/grave|day|swing``."""

    # A CharField whose value is parsed into a Shift: the stubs tie a CharField's value to str.
    def to_internal_value(self, data: Any) -> Shift:  # type: ignore[override]
        text = super().to_internal_value(data)
        try:
            return Shift.parse(text)
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from None

    def to_representation(self, value: Any) -> str:
        return str(value)


class SignOffSerializer(serializers.ModelSerializer[VarianceSignOff]):
    signed_by = serializers.CharField(source="signed_by.get_username", read_only=True)

    class Meta:
        model = VarianceSignOff
        fields = (
            "id",
            "drop_count",
            "explanation",
            "recorded_cents",
            "counted_cents",
            "variance_cents",
            "threshold_bp",
            "signed_by",
            "signed_at",
        )
        read_only_fields = fields


class DropCountSerializer(serializers.ModelSerializer[DropCount]):
    table = serializers.IntegerField(source="table.number", read_only=True)
    shift = serializers.CharField(read_only=True)
    entered_by = serializers.CharField(source="entered_by.get_username", read_only=True)
    superseded_by = serializers.SerializerMethodField()
    sign_off = serializers.SerializerMethodField()

    class Meta:
        model = DropCount
        fields = (
            "id",
            "table",
            "shift",
            "amount_cents",
            "counter_one",
            "counter_two",
            "note",
            "entered_by",
            "entered_at",
            "supersedes",
            "correction_reason",
            "superseded_by",
            "sign_off",
        )
        read_only_fields = fields

    def get_superseded_by(self, obj: DropCount) -> int | None:
        newer = getattr(obj, "superseded_by", None)
        return newer.pk if newer is not None else None

    @extend_schema_field(SignOffSerializer(allow_null=True))
    def get_sign_off(self, obj: DropCount) -> dict[str, Any] | None:
        sign_off = getattr(obj, "sign_off", None)
        return SignOffSerializer(sign_off).data if sign_off is not None else None


class DropCountCreateSerializer(serializers.Serializer[dict[str, Any]]):
    table = serializers.IntegerField(min_value=1, help_text="Table number.")
    shift = ShiftKeyField(help_text="YYYY-MM-DD/grave|day|swing")
    amount_cents = serializers.IntegerField(min_value=0)
    counter_one = serializers.CharField(max_length=100)
    counter_two = serializers.CharField(max_length=100)
    note = serializers.CharField(required=False, allow_blank=True, default="")


class DropCountCorrectSerializer(serializers.Serializer[dict[str, Any]]):
    amount_cents = serializers.IntegerField(min_value=0)
    counter_one = serializers.CharField(max_length=100)
    counter_two = serializers.CharField(max_length=100)
    reason = serializers.CharField()
    note = serializers.CharField(required=False, allow_blank=True, default="")


class SignOffCreateSerializer(serializers.Serializer[dict[str, Any]]):
    explanation = serializers.CharField()


class FeeWaiverSerializer(serializers.ModelSerializer[FeeWaiver]):
    table = serializers.IntegerField(source="hand.table.number", read_only=True)
    hand_number = serializers.IntegerField(source="hand.number", read_only=True)
    created_by = serializers.CharField(source="created_by.get_username", read_only=True)

    class Meta:
        model = FeeWaiver
        fields = (
            "id",
            "hand",
            "table",
            "hand_number",
            "player",
            "amount_cents",
            "reason",
            "created_by",
            "created_at",
        )
        read_only_fields = fields


class FeeWaiverCreateSerializer(serializers.Serializer[dict[str, Any]]):
    hand = serializers.IntegerField(min_value=1, help_text="Hand id.")
    player = serializers.IntegerField(min_value=1, help_text="Player id.")
    amount_cents = serializers.IntegerField(min_value=1)
    reason = serializers.CharField()


class ShiftCloseSerializer(serializers.ModelSerializer[ShiftClose]):
    shift = serializers.CharField(read_only=True)
    closed_by = serializers.SerializerMethodField()

    class Meta:
        model = ShiftClose
        fields = (
            "id",
            "shift",
            "closed_at",
            "closed_by",
            "report_sha256",
            "export_sha256",
            "software_version",
            "last_transaction_id",
            "report",
        )
        read_only_fields = fields

    def get_closed_by(self, obj: ShiftClose) -> str | None:
        return obj.closed_by.get_username() if obj.closed_by else None


class ShiftCloseCreateSerializer(serializers.Serializer[dict[str, Any]]):
    shift = ShiftKeyField(help_text="YYYY-MM-DD/grave|day|swing (a shift that has ended)")


class IntegrityCheckSerializer(serializers.ModelSerializer[IntegrityCheck]):
    class Meta:
        model = IntegrityCheck
        fields = (
            "id",
            "started_at",
            "finished_at",
            "source",
            "ok",
            "transactions",
            "entries",
            "accounts",
            "chains",
            "problems",
            "guards",
            "software_version",
        )
        read_only_fields = fields


class IntegrityQueuedSerializer(serializers.Serializer[dict[str, Any]]):
    """A full check asked for (202): poll ``status_url`` until ``requested.done``."""

    after = serializers.IntegerField(
        read_only=True, help_text="The stored check the full check comes after (0: none stored yet)."
    )
    queued = serializers.BooleanField(
        read_only=True, help_text="False: one asked for earlier is still pending, and is the one polled for."
    )
    status_url = serializers.URLField(read_only=True, help_text="GET it until requested.done is true.")


class ReportExportSerializer(serializers.ModelSerializer[ReportExport]):
    report = serializers.ChoiceField(source="kind", choices=ReportKind.choices, read_only=True)
    requested_by = serializers.SerializerMethodField()

    class Meta:
        model = ReportExport
        fields = (
            "id",
            "report",
            "format",
            "params",
            "status",
            "requested_by",
            "requested_at",
            "started_at",
            "finished_at",
            "attempts",
            "filename",
            "sha256",
            "size",
            "error",
            "software_version",
        )
        read_only_fields = fields

    def get_requested_by(self, obj: ReportExport) -> str | None:
        return obj.requested_by.get_username() if obj.requested_by else None


class ReportExportCreateSerializer(serializers.Serializer[dict[str, Any]]):
    report = serializers.ChoiceField(choices=ReportKind.choices, help_text="Which report to export.")
    format = serializers.ChoiceField(choices=ExportFormat.choices)
    params = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        default=dict,
        help_text="The report's filters: date_from, date_to, shift, table; player for a statement; "
        "threshold_bp for the drop variance; dealer (a username) for the dealers' downs.",
    )


class AuthChangeSerializer(serializers.ModelSerializer[AuthChange]):
    class Meta:
        model = AuthChange
        fields = ("id", "at", "action", "subject_type", "subject_id", "subject_repr", "detail")
        read_only_fields = fields
