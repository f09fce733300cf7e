"""The API's shared shapes: the error body, a whole number that arrives as one, a reason; and
how a view reads its input through a serializer."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request

from tables.validators import integer_problem


class ErrorSerializer(serializers.Serializer[dict[str, Any]]):
    """The body of every error of the API (400, 401, 403, 404, 405, 409, 415)."""

    code = serializers.CharField(
        help_text="Stable, machine readable: invalid, seat_taken, table_closed, permission_denied, ..."
    )
    detail = serializers.CharField(help_text="What went wrong, for people.")
    field = serializers.CharField(required=False, help_text="The input at fault, when there is one.")
    errors = serializers.DictField(  # type: ignore[assignment]  # a declared field, not Serializer.errors
        child=serializers.CharField(),
        required=False,
        help_text="Every problem found, by input (a validation error).",
    )


class WholeNumberField(serializers.IntegerField):
    """An integer that arrives as one: a JSON number without a fraction, never a bool, a float
    (2.5, 2.0) or a string ("150", "5%"). Money is exact; a client sending anything else has a bug
    the API should show, not round (:func:`tables.validators.integer_problem`, the rule every
    writer of a rate reaches)."""

    def to_internal_value(self, data: Any) -> int:
        problem = integer_problem(data)
        if problem is not None:
            raise serializers.ValidationError(problem, code="invalid")
        return int(super().to_internal_value(data))


class ReasonSerializer(serializers.Serializer[dict[str, Any]]):
    reason = serializers.CharField(required=False, allow_blank=True, default="")


def valid_input(serializer_class: type[serializers.Serializer[Any]], request: Request) -> dict[str, Any]:
    """The request's body as ``serializer_class`` validates it (a 400 with the error body if not)."""
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
