"""Forms of the report pages. They only read and check input; the services decide and write.

Money is typed in dollars (``123.45``) on the pages and turned into integer cents by the one
parser (:class:`web.common.forms.DollarsField`); the API takes cents.
"""

from __future__ import annotations

from typing import Any

from django import forms

from ledger.models import ExportFormat, ReportKind
from ledger.shifts import Shift, ShiftCode
from web.common.forms import DollarsField, WholeNumberField


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
    table = WholeNumberField(min_value=1, max_value=32_767, label="Table number")
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
    hand = WholeNumberField(min_value=1, max_value=2**62, label="Hand id")
    player = WholeNumberField(min_value=1, max_value=2**62, label="Player id")
    amount = DollarsField(label="Fee not collected ($)")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}))


class CloseShiftForm(forms.Form):
    shift = ShiftField(help_text="YYYY-MM-DD/grave, /day or /swing")


class ExportRequestForm(forms.Form):
    kind = forms.ChoiceField(choices=ReportKind.choices)
    format = forms.ChoiceField(choices=ExportFormat.choices)
