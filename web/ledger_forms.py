"""Forms of the report pages. They only read and check input; the services decide and write.

Money is typed in dollars (``123.45``) on the pages and turned into integer cents exactly
(``Decimal``); the API takes cents.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms

from ledger.models import ExportFormat, ReportKind
from ledger.shifts import Shift, ShiftCode


def dollars_to_cents(text: str) -> int:
    """``"123.45"`` -> ``12345``; refuses more than two decimals, signs and non-numbers."""
    try:
        value = Decimal(str(text).strip().replace(",", "").removeprefix("$"))
    except InvalidOperation:
        raise forms.ValidationError("Enter an amount in dollars, e.g. 1234.50.") from None
    if not value.is_finite() or value < 0:
        raise forms.ValidationError("Enter an amount of zero or more.")
    if value != value.quantize(Decimal("0.01")):
        raise forms.ValidationError("Cents are the smallest unit (at most two decimals).")
    return int(value * 100)


class DollarsField(forms.CharField):
    def clean(self, value: Any) -> int:
        text = super().clean(value)
        return dollars_to_cents(text)


class FilterForm(forms.Form):
    """The filter inputs every report page shows (validated by ``ReportFilters.from_params``)."""

    date_from = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    shift = forms.ChoiceField(required=False, choices=[("", "all shifts"), *ShiftCode.choices])
    table = forms.CharField(required=False, help_text="Table numbers, comma-separated; empty: all.")


class ShiftField(forms.CharField):
    """A shift key ``YYYY-MM-DD/grave|day|swing``."""

    def clean(self, value: Any) -> Shift:
        text = super().clean(value)
        try:
            return Shift.parse(text)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None


class DropCountForm(forms.Form):
    table = forms.IntegerField(min_value=1, max_value=32_767, label="Table number")
    shift = ShiftField(help_text="YYYY-MM-DD/grave, /day or /swing")
    amount = DollarsField(label="Drop counted ($)")
    counter_one = forms.CharField(max_length=100, label="First counter")
    counter_two = forms.CharField(max_length=100, label="Second counter")
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))


class DropCorrectionForm(forms.Form):
    amount = DollarsField(label="Drop counted ($)")
    counter_one = forms.CharField(max_length=100, label="First counter")
    counter_two = forms.CharField(max_length=100, label="Second counter")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), label="Why is it corrected?")
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))


class SignOffForm(forms.Form):
    explanation = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}), label="What explains the variance?"
    )


class WaiverForm(forms.Form):
    hand = forms.IntegerField(min_value=1, max_value=2**62, label="Hand id")
    player = forms.IntegerField(min_value=1, max_value=2**62, label="Player id")
    amount = DollarsField(label="Fee not collected ($)")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}))


class CloseShiftForm(forms.Form):
    shift = ShiftField(help_text="YYYY-MM-DD/grave, /day or /swing")


class ExportRequestForm(forms.Form):
    kind = forms.ChoiceField(choices=ReportKind.choices)
    format = forms.ChoiceField(choices=ExportFormat.choices)
