"""Tables set up from the floor: create a table, and change its game (or a choice game), stakes and
kill, collection schedule, seats and chip, between hands (no Django admin needed).

Input and output only: the form (``web.floor.forms.TableSetupForm``) reads what was typed; the
services (:func:`tables.services.create_table`, :func:`tables.services.configure_table`) decide,
refuse (shown next to the field at fault, nothing written) and write each change to the history,
which the page shows in words (``backoffice.reports.changes.describe_change``).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.mixins import PermissionRequiredMixin
from django.contrib.contenttypes.models import ContentType
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views import View

from backoffice.reports.changes import Names, describe_change
from casino.core.money import amount_text
from tables import services
from tables.errors import FloorError
from tables.models import ConfigChange, Game, Table
from tables.selectors import choice_games
from web.floor.forms import TableSetupForm

#: Most history rows the setup page shows (the newest first; the change log report has them all).
HISTORY_ROWS = 20


def _show_error(form: TableSetupForm, exc: FloorError) -> None:
    field = getattr(exc, "field", None) or None
    if field == "chip_unit_cents":
        field = "chip"
    form.add_error(field if field in form.fields else None, exc.message)


def _choices_of_games() -> list[tuple[Game, list[Game]]]:
    """Each choice game and the games its button picks from (for the form's help)."""
    return [
        (game, choice_games(game)) for game in Game.objects.filter(is_dealers_choice=True, is_active=True)
    ]


class TableCreateView(PermissionRequiredMixin, View):
    """``/floor/tables/new/``: a new table (closed; open it from its page)."""

    permission_required = "tables.add_table"

    def _render(self, request: HttpRequest, form: TableSetupForm, status: int = 200) -> HttpResponse:
        context = {"form": form, "table": None, "choice_games": _choices_of_games(), "history": []}
        return render(request, "tables/table_setup.html", context, status=status)

    def get(self, request: HttpRequest) -> HttpResponse:
        numbers = Table.objects.order_by("-number").values_list("number", flat=True)
        next_number = (numbers.first() or 0) + 1
        form = TableSetupForm(number_field=True, initial={"number": next_number, "kill": "none", "chip": "1"})
        return self._render(request, form)

    def post(self, request: HttpRequest) -> HttpResponse:
        form = TableSetupForm(request.POST, number_field=True)
        if not form.is_valid():
            return self._render(request, form, status=400)
        try:
            table = services.create_table(by=request.user, **form.service_kwargs())
        except FloorError as exc:
            _show_error(form, exc)
            return self._render(request, form, status=400)
        messages.success(
            request, f"Table {table.number} is set up ({table.game.name}, {table.stakes.label})."
        )
        return HttpResponseRedirect(reverse("tables:manage", args=[table.number]))


def table_history(table: Table) -> list[tuple[ConfigChange, list[str]]]:
    """The table's latest history rows, each with its change in words."""
    kind = ContentType.objects.get_for_model(Table)
    rows = list(ConfigChange.objects.filter(content_type=kind, object_id=str(table.pk))[:HISTORY_ROWS])
    names = Names()
    return [(row, describe_change(row.before, row.after, names=names)) for row in rows]


class TableSetupView(PermissionRequiredMixin, View):
    """``/floor/tables/<number>/setup/``: change the table's setup, between hands, with a reason."""

    permission_required = "tables.change_table"

    def _table(self, number: int) -> Table:
        table = (
            Table.objects.select_related("game", "stakes", "collection_schedule")
            .filter(number=number)
            .first()
        )
        if table is None:
            raise Http404(f"There is no table {number}.")
        return table

    def _render(
        self, request: HttpRequest, table: Table, form: TableSetupForm, status: int = 200
    ) -> HttpResponse:
        context: dict[str, Any] = {
            "form": form,
            "table": table,
            "choice_games": _choices_of_games(),
            "history": table_history(table),
            "hand_in_progress": table.hand_in_progress(),
        }
        return render(request, "tables/table_setup.html", context, status=status)

    def get(self, request: HttpRequest, number: int) -> HttpResponse:
        table = self._table(number)
        form = TableSetupForm(
            initial={
                "game": table.game.slug,
                "stakes": table.stakes.code,
                "kill": table.stakes.kill,
                "collection_schedule": table.collection_schedule.code,
                "seat_count": table.seat_count,
                "chip": amount_text(table.chip_unit_cents),
                "keep_fees_on_misdeal": table.keep_fees_on_misdeal,
            }
        )
        return self._render(request, table, form)

    def post(self, request: HttpRequest, number: int) -> HttpResponse:
        table = self._table(number)
        form = TableSetupForm(request.POST)
        if not form.is_valid():
            return self._render(request, table, form, status=400)
        try:
            table = services.configure_table(table=table, by=request.user, **form.service_kwargs())
        except FloorError as exc:
            _show_error(form, exc)
            return self._render(request, self._table(number), form, status=400)
        messages.success(request, f"Table {table.number}: {table.game.name}, {table.stakes.label}, saved.")
        return HttpResponseRedirect(reverse("tables:table-setup", args=[table.number]))
