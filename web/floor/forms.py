"""The floor's forms: a new version of a collection schedule, a table's set-up.

Input only: the fields read what was typed (money by the one parser, numbers by the one reading
of a number); the services check that the values fit and refuse with a message the page shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms

from casino.core.money import amount_text
from tables.choices import MAX_SEATS, MIN_PLAYERS, KillType
from tables.models import CollectionSchedule, Game, Stakes
from web.common.forms import DollarsField, WholeNumberField


class ScheduleRevisionForm(forms.Form):
    """A new version of a schedule: each rate's fee(s), when it takes effect, and why.

    Saved in two steps (``web.floor.views.ScheduleView``): the page first shows the preview of
    the change (:func:`tables.services.preview_revision`); saving needs ``confirm_warnings`` when
    a fee is far outside the schedule's sense (:func:`tables.validators.fee_warnings`). The page
    draws that checkbox itself, never ticked, next to the warnings it confirms.
    """

    effective_from = forms.DateTimeField(
        required=False,
        label="Effective from (room time; empty: now)",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )
    reason = forms.CharField(max_length=200, label="Reason for the change")
    confirm_warnings = forms.BooleanField(required=False, label="Save these fees as they are")

    def __init__(self, *args: Any, rates: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rates = list(rates)
        for i, rate in enumerate(self.rates):
            self.fields[f"fee_{i}"] = DollarsField(
                max_length=20,
                label=f"{rate.limits_label}, {rate.players_min}-{rate.players_max} players: fee ($)",
                initial=amount_text(rate.fee_cents),
            )
            if rate.others_fee_cents is not None:
                self.fields[f"others_fee_{i}"] = DollarsField(
                    max_length=20, label="others' fee ($)", initial=amount_text(rate.others_fee_cents)
                )

    def rate_dicts(self, fields: Sequence[str]) -> list[dict[str, Any]]:
        """The complete new set of rates: each old rate with its fee(s) changed."""
        rows = []
        for i, rate in enumerate(self.rates):
            row = {name: getattr(rate, name) for name in fields}
            row["fee_cents"] = self.cleaned_data[f"fee_{i}"]
            if rate.others_fee_cents is not None:
                row["others_fee_cents"] = self.cleaned_data[f"others_fee_{i}"]
            rows.append(row)
        return rows


class TableSetupForm(forms.Form):
    """A table as the floor sets it up: its game (a choice game: the games the button picks from),
    stakes and kill, collection schedule, seats, chip. The services check that they fit
    (:func:`tables.services.create_table`, :func:`~tables.services.configure_table`)."""

    game = forms.ModelChoiceField(queryset=Game.objects.filter(is_active=True), to_field_name="slug")
    stakes = forms.ModelChoiceField(queryset=Stakes.objects.filter(is_active=True), to_field_name="code")
    kill = forms.ChoiceField(choices=KillType.choices, label="Kill")
    collection_schedule = forms.ModelChoiceField(
        queryset=CollectionSchedule.objects.all(), to_field_name="code", label="Collection schedule"
    )
    seat_count = WholeNumberField(
        min_value=MIN_PLAYERS, max_value=MAX_SEATS, required=False, label="Seats (empty: the game's)"
    )
    chip = DollarsField(max_length=20, initial="1", label="Smallest chip ($)", what="The chip")
    keep_fees_on_misdeal = forms.BooleanField(required=False, label="Keep the fees of a misdeal")
    reason = forms.CharField(max_length=500, required=False, label="Reason (kept in the change log)")

    def __init__(self, *args: Any, number_field: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if number_field:
            self.fields = {
                "number": WholeNumberField(min_value=1, max_value=32767, label="Table number")
            } | dict(self.fields)

    def service_kwargs(self) -> dict[str, Any]:
        """What the services take from the form (``chip`` in cents)."""
        data = self.cleaned_data
        kwargs = {
            "game": data["game"],
            "stakes": data["stakes"],
            "kill": data["kill"],
            "collection_schedule": data["collection_schedule"],
            "chip_unit_cents": data["chip"],
            "keep_fees_on_misdeal": data["keep_fees_on_misdeal"],
            "reason": data["reason"],
        }
        if data.get("seat_count") is not None:
            kwargs["seat_count"] = data["seat_count"]
        if "number" in data:
            kwargs["number"] = data["number"]
        return kwargs
