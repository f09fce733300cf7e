"""The form fields of what a person types as a number: money by the one parser
(:func:`casino.core.money.parse_dollars`), a whole number by the one reading of a number
(:func:`web.common.pages.whole_number`). Each refuses with the field's error, never a server
error: ``²`` and ``٣`` are digits to Python, no amount or count a person means."""

from __future__ import annotations

from typing import Any

from django import forms

from casino.core.money import AmountError, parse_dollars
from web.common.pages import whole_number


class DollarsField(forms.CharField):
    """Dollars as typed (``25``, ``12.50``, ``$1,250``), cleaned to integer cents. ``what``
    starts the error's message (default: the field's label)."""

    def __init__(self, *args: Any, what: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.what = what

    def clean(self, value: Any) -> Any:
        text = super().clean(value)
        if text in self.empty_values:
            return None
        try:
            return parse_dollars(text, what=self.what or str(self.label or "Amount"))
        except AmountError as exc:
            raise forms.ValidationError(str(exc), code="invalid") from None


class WholeNumberField(forms.IntegerField):
    """A whole number typed in ASCII digits (Django's ``IntegerField`` reads ``٣`` as 3)."""

    def to_python(self, value: Any) -> int | None:
        if value in self.empty_values:
            return None
        number = whole_number(value)
        if number is None:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return number
