"""Django admin for the floor.

Changes made here go through :mod:`tables.services` (or, for the house data, write the same
:class:`ConfigChange` history), so the admin enforces the same rules as the API: bad input is
a form error, and configuration changes ask for a reason. The history and the hands are
read-only here (no action changes a hand's status): a hand is dealt only by the fee-taking deal
of the dealer terminals (:func:`handflow.services.start_hand`) and voided by their misdeal.
Players have their own module (:mod:`tables.player_admin`), imported here so that it registers.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest

import tables.player_admin  # noqa: F401 (registers the players' admin)
from casino.core.admin import ReadOnlyAdmin
from tables import services
from tables.admin_tools import change_reason_field
from tables.admin_tools import dry_run as _dry_run
from tables.admin_tools import form_errors as _form_errors
from tables.errors import FloorError
from tables.history import record_change, snapshot, version_snapshot
from tables.models import (
    ButtonState,
    CollectionRate,
    CollectionSchedule,
    CollectionScheduleVersion,
    ConfigAction,
    ConfigChange,
    DealerShift,
    Game,
    Hand,
    HandPlayer,
    Seat,
    Seating,
    Stakes,
    Table,
)
from tables.validators import rates_fee_warnings, rates_overlap_problems, schedule_tables_problems


class ReasonFormMixin(forms.Form):
    change_reason = change_reason_field(
        "Kept in the configuration history. Required when changing an existing object."
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        instance = getattr(self, "instance", None)
        if instance is not None and instance.pk and not (cleaned.get("change_reason") or "").strip():
            self.add_error("change_reason", "Say why you are changing it.")
        return cleaned


class HistoryAdmin(admin.ModelAdmin):
    """Saves write a ConfigChange (before/after snapshot, reason) in the admin's transaction."""

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        before = snapshot(type(obj).objects.get(pk=obj.pk)) if change else None
        super().save_model(request, obj, form, change)
        record_change(
            instance=obj,
            action=ConfigAction.UPDATE if change else ConfigAction.CREATE,
            by=request.user,
            reason=form.cleaned_data.get("change_reason", ""),
            before=before,
            after=snapshot(obj),
        )


# --- Games and stakes -----------------------------------------------------------------------------


class GameForm(ReasonFormMixin, forms.ModelForm):
    class Meta:
        model = Game
        fields = (
            "slug",
            "name",
            "kind",
            "is_button_game",
            "is_stud_game",
            "is_dealers_choice",
            "seat_count",
            "max_hands",
            "sort_order",
            "is_active",
        )


@admin.register(Game)
class GameAdmin(HistoryAdmin):
    form = GameForm
    list_display = (
        "slug",
        "name",
        "kind",
        "is_button_game",
        "is_stud_game",
        "is_dealers_choice",
        "seat_count",
        "max_hands",
        "is_active",
    )
    list_filter = ("kind", "is_active")
    search_fields = ("slug", "name")


class StakesForm(ReasonFormMixin, forms.ModelForm):
    class Meta:
        model = Stakes
        fields = ("code", *services.STAKES_FIELDS, "is_active")


@admin.register(Stakes)
class StakesAdmin(HistoryAdmin):
    """Stakes are created, not edited, once a table or hand uses them (that would rewrite the past)."""

    form = StakesForm
    list_display = ("code", "label", "structure", "kill", "is_active")
    list_filter = ("structure", "kill", "is_active")
    search_fields = ("code",)

    def get_readonly_fields(self, request: HttpRequest, obj: Stakes | None = None) -> Any:
        if obj is not None and (obj.tables.exists() or obj.hands.exists()):
            return (*services.STAKES_FIELDS, "code")
        return ()


# --- Schedules ---------------------------------------------------------------------------------------


class RateInlineFormSet(BaseInlineFormSet):
    """Checks the new version's rates as a whole, as the services do (:mod:`tables.validators`):
    overlaps; at each table on the schedule 1-5 rates and fees in whole chips of that table; and
    fees far outside the schedule's sense saved only with the version form's confirmation."""

    #: Set by :meth:`CollectionRateInline.get_formset` from the version form's checkbox.
    confirmed = False

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        forms_and_rates = [
            (form, form.instance)
            for form in self.forms
            if form.cleaned_data and not form.cleaned_data.get("DELETE", False)
        ]
        rates = [rate for _form, rate in forms_and_rates]
        if not rates:
            raise forms.ValidationError("A schedule version needs at least one rate.")
        problems = rates_overlap_problems(rates)
        version = self.instance
        schedule = getattr(version, "schedule", None) if version.schedule_id else None
        if schedule is not None:
            tables = Table.objects.filter(collection_schedule=schedule).select_related("stakes")
            for field, message in schedule_tables_problems(rates, tables).items():
                problems.append(message if field == "rates" else f"Rate {_row(field)}: {message}")
        if problems:
            raise forms.ValidationError(problems)
        warnings = rates_fee_warnings(rates)
        if warnings and not self.confirmed:
            raise forms.ValidationError(
                [f"Rate {_row(field)}: {message}" for field, message in warnings.items()]
                + ['Tick "Confirm fees far outside the schedule" above to save them as they are.']
            )


def _row(field: str) -> str:
    """``rates[2].fee_cents`` -> ``3`` (the admin's rows count from 1)."""
    return str(int(field.split("[", 1)[1].split("]", 1)[0]) + 1)


class CollectionRateInline(admin.TabularInline):
    model = CollectionRate
    formset = RateInlineFormSet
    extra = 0

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> type[RateInlineFormSet]:
        formset_class = super().get_formset(request, obj, **kwargs)
        assert issubclass(formset_class, RateInlineFormSet)  # made from self.formset
        # The version form's confirmation of fees far outside the schedule (see VersionForm).
        formset_class.confirmed = request.method == "POST" and bool(request.POST.get("confirm_warnings"))
        return formset_class

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Rates of a version in force (or past) never change; add a new version instead.
        if obj is not None and obj.pk and obj.is_in_force_or_past:
            return False
        return super().has_change_permission(request, obj)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and obj.pk:
            return False  # a saved version is complete; its rates are fixed
        return super().has_add_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class VersionForm(forms.ModelForm):
    confirm_warnings = forms.BooleanField(
        required=False,
        label="Confirm fees far outside the schedule",
        help_text="A fee above a quarter of the minimum buy-in of its stakes is saved only when ticked.",
    )

    class Meta:
        model = CollectionScheduleVersion
        fields = ("schedule", "effective_from", "reason")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        schedule, when = cleaned.get("schedule"), cleaned.get("effective_from")
        if not (cleaned.get("reason") or "").strip():
            self.add_error("reason", "Say why the rates change.")
        if schedule is not None and when is not None:
            try:
                services.check_effective_from(when, schedule)
            except FloorError as error:
                _form_errors(self, error)
        return cleaned


@admin.register(CollectionScheduleVersion)
class CollectionScheduleVersionAdmin(admin.ModelAdmin):
    """Add a version with its complete set of rates; saved versions are read-only."""

    form = VersionForm
    inlines = (CollectionRateInline,)
    list_display = ("schedule", "number", "effective_from", "created_by", "reason")
    list_filter = ("schedule",)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(
        self, request: HttpRequest, obj: CollectionScheduleVersion, form: Any, change: bool
    ) -> None:
        obj.number = (
            obj.schedule.versions.order_by("-number").values_list("number", flat=True).first() or 0
        ) + 1
        assert request.user.is_authenticated  # the admin is for signed-in staff only
        obj.created_by = request.user
        super().save_model(request, obj, form, change)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        version: CollectionScheduleVersion = form.instance
        previous = version.schedule.versions.exclude(pk=version.pk).order_by("-effective_from").first()
        record_change(
            instance=version.schedule,
            action=ConfigAction.NEW_VERSION,
            by=request.user,
            reason=version.reason,
            before=version_snapshot(previous),
            after=version_snapshot(version),
        )


class ScheduleForm(ReasonFormMixin, forms.ModelForm):
    class Meta:
        model = CollectionSchedule
        fields = ("code", "name", "description")


class VersionInline(admin.TabularInline):
    model = CollectionScheduleVersion
    fields = ("number", "effective_from", "created_by", "reason")
    readonly_fields = fields
    extra = 0
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(CollectionSchedule)
class CollectionScheduleAdmin(HistoryAdmin):
    """Name and description; rates change by adding a schedule version."""

    form = ScheduleForm
    inlines = (VersionInline,)
    list_display = ("code", "name")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return ("code",) if obj is not None else ()


@admin.register(CollectionRate)
class CollectionRateAdmin(admin.ModelAdmin):
    list_display = (
        "version",
        "structure",
        "limits_label",
        "players_min",
        "players_max",
        "payer",
        "fee_cents",
        "others_fee_cents",
    )
    list_filter = ("version__schedule", "structure", "payer")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# --- Tables, seats, players, seatings ---------------------------------------------------------------------


class TableForm(ReasonFormMixin, forms.ModelForm):
    class Meta:
        model = Table
        fields = (
            "number",
            "game",
            "stakes",
            "seat_count",
            "chip_unit_cents",
            "collection_schedule",
            "keep_fees_on_misdeal",
        )


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    can_delete = False
    readonly_fields = ("number",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    """Tables are created and reconfigured through the services (same checks as the API)."""

    form = TableForm
    list_display = ("number", "game", "stakes", "seat_count", "collection_schedule", "status")
    list_filter = ("status", "game")
    inlines = (SeatInline,)
    actions = ("open_tables", "close_tables")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return ("number", "status") if obj is not None else ("status",)

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form_class = super().get_form(request, obj, change=change, **kwargs)
        admin_user = request.user

        # The admin makes the form class at run time; mypy takes no variable as a base class.
        class ServiceTableForm(form_class):  # type: ignore[valid-type,misc]
            def _post_clean(self) -> None:
                # The model's clean() would duplicate the service's checks; the service decides below.
                pass

            def clean(self) -> dict[str, Any]:
                cleaned: dict[str, Any] = super().clean()
                if self.errors:
                    return cleaned
                try:
                    with _dry_run():
                        if self.instance.pk:
                            services.configure_table(
                                table=self.instance,
                                by=admin_user,
                                reason=cleaned.get("change_reason") or "-",
                                **{k: cleaned[k] for k in services_configure_fields if k in cleaned},
                            )
                        else:
                            services.create_table(by=admin_user, **{k: cleaned[k] for k in create_fields})
                except FloorError as error:
                    _form_errors(self, error)
                return cleaned

        return ServiceTableForm

    def save_model(self, request: HttpRequest, obj: Table, form: Any, change: bool) -> None:
        data = form.cleaned_data
        if change:
            saved = services.configure_table(
                table=obj,
                by=request.user,
                reason=data["change_reason"],
                **{k: data[k] for k in services_configure_fields if k in data},
            )
        else:
            saved = services.create_table(
                by=request.user, reason=data.get("change_reason", ""), **{k: data[k] for k in create_fields}
            )
        obj.pk = saved.pk
        obj._state.adding = False
        obj.refresh_from_db()

    @admin.action(description="Open the selected tables", permissions=["manage_floor"])
    def open_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        self._each(request, queryset, services.open_table, "opened")

    @admin.action(description="Close the selected tables", permissions=["manage_floor"])
    def close_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        self._each(request, queryset, services.close_table, "closed")

    def has_manage_floor_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("tables.manage_floor"))

    def _each(self, request: HttpRequest, queryset: QuerySet[Table], service: Any, done: str) -> None:
        for table in queryset:
            try:
                service(table=table, by=request.user, reason="admin action")
                self.message_user(request, f"Table {table.number} {done}.")
            except FloorError as error:
                self.message_user(request, f"Table {table.number}: {error.message}", level=messages.ERROR)


services_configure_fields = (
    "game",
    "stakes",
    "collection_schedule",
    "seat_count",
    "chip_unit_cents",
    "keep_fees_on_misdeal",
)
create_fields = (
    "number",
    "game",
    "stakes",
    "collection_schedule",
    "seat_count",
    "chip_unit_cents",
    "keep_fees_on_misdeal",
)


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("table", "number")
    list_filter = ("table",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # seats come with their table

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatingAdminForm(forms.ModelForm):
    seat_number = forms.IntegerField(min_value=1)

    class Meta:
        model = Seating
        fields = ("table", "player")

    def _post_clean(self) -> None:
        pass  # the service creates the row; the model's own checks run there

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}
        if self.errors:
            return cleaned
        try:
            with _dry_run():
                services.seat_player(
                    table=cleaned["table"],
                    seat_number=cleaned["seat_number"],
                    player=cleaned["player"],
                    by=None,
                )
        except FloorError as error:
            _form_errors(self, error)
        return cleaned


@admin.register(Seating)
class SeatingAdmin(admin.ModelAdmin):
    """Seat players (add), unseat them (action). Seatings are history, never edited."""

    form = SeatingAdminForm
    list_display = ("player", "table", "seat", "seated_at", "left_at")
    list_filter = ("table", ("left_at", admin.EmptyFieldListFilter))
    actions = ("unseat",)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: Seating, form: Any, change: bool) -> None:
        data = form.cleaned_data
        saved = services.seat_player(
            table=data["table"], seat_number=data["seat_number"], player=data["player"], by=request.user
        )
        obj.pk = saved.pk
        obj.refresh_from_db()

    @admin.action(description="Unseat the selected players", permissions=["manage_floor"])
    def unseat(self, request: HttpRequest, queryset: QuerySet[Seating]) -> None:
        for seating in queryset.filter(left_at__isnull=True):
            try:
                services.unseat_player(seating=seating, by=request.user)
            except FloorError as error:
                self.message_user(request, f"{seating}: {error.message}", level=messages.ERROR)

    def has_manage_floor_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("tables.manage_floor"))


@admin.register(ButtonState)
class ButtonStateAdmin(admin.ModelAdmin):
    list_display = (
        "table",
        "button_seat",
        "sitting_out_seat",
        "streak_seat",
        "streak_wins",
        "kill_seat",
        "kill_multiplier_pct",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class HandPlayerInline(admin.TabularInline):
    model = HandPlayer
    extra = 0
    can_delete = False
    readonly_fields = ("position", "seat", "player")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Hand)
class HandAdmin(ReadOnlyAdmin):
    """Hands, read-only: no action, no change. A hand is dealt with its fees by the dealer terminals
    (:func:`handflow.services.start_hand`), settled by confirming its showdown, voided by a misdeal."""

    list_display = ("table", "number", "game", "stakes", "status", "button_seat", "dealer", "created_at")
    list_filter = ("status", "table", "game", "misdeal_reason")
    inlines = (HandPlayerInline,)


@admin.register(DealerShift)
class DealerShiftAdmin(ReadOnlyAdmin):
    """Dealers' downs, read-only: a dealer clocks in and out at the terminal, the floor reassigns
    there (:func:`tables.services.clock_in`); the downs report is in the back office."""

    list_display = ("table", "dealer", "clocked_in_at", "clocked_out_at", "clocked_in_by", "clocked_out_by")
    list_filter = ("table", "dealer")


@admin.register(ConfigChange)
class ConfigChangeAdmin(ReadOnlyAdmin):
    """The configuration history: append-only, so read-only here."""

    list_display = ("at", "by_username", "action", "content_type", "object_repr", "reason")
    list_filter = ("action", "content_type")
    search_fields = ("object_repr", "reason", "by_username")


from tables.lists import admin as lists_admin  # noqa: E402, F401  (the waiting lists' read-only admin registers itself)
