"""The floor's waiting-list pages (docs/waiting-lists.md): the lists and whom to call
(``/floor/lists/``), the room's list settings (``/floor/lists/settings/``) and the day's record
(``/floor/lists/report/``, for the floor and auditors).

Input and output only: each POST calls one service (:mod:`tables.services`; a move-in also runs
the money flow's move, :func:`handflow.services.move_player`, inside the service) and shows its
refusal as a message. The "Seats to fill" panel redraws itself when anything changes
(``static/live.js`` polls ``/floor/lists/calls/``, a conditional GET whose ETag is the board's
version), so a seat opening at another page shows here within seconds.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.mixins import PermissionRequiredMixin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.utils.dateparse import parse_date
from django.views import View
from django.views.decorators.http import condition

from handflow import services as hand_flow
from ledger.errors import LedgerError
from tables.board import board_version
from tables.errors import FloorError
from tables.lists import services
from tables.lists.services import Candidate, FloorState, day_report
from tables.models import (
    Game,
    MustMove,
    Player,
    Seating,
    Stakes,
    Table,
    WaitingList,
    WaitingListEntry,
    WaitingListSettings,
)
from web.common.pages import PageInputError, refusal, whole_number
from web.lists.forms import AddToListsForm, ListSettingsForm

RUN = "tables.run_waiting_lists"
#: How often the "Seats to fill" panel asks whether anything changed.
PANEL_POLL_SECONDS = 3


@dataclass(frozen=True, slots=True)
class Offer:
    """A candidate for a seat as the panel shows it: a place to call, or a seated player to move in."""

    kind: str
    name: str
    entry_id: int | None
    seating_id: int | None
    where: str


def _offer(candidate: Candidate, state: FloorState) -> Offer:
    seating = candidate.seating
    where = ""
    if candidate.kind == "must_move" and seating is not None:
        where = f"must-move table {seating.table.number} since {timezone.localtime(seating.seated_at):%H:%M}"
    elif candidate.kind == "table_change" and candidate.row is not None:
        source = candidate.row.entry.from_table
        seating = next(
            (s for s in state.seated_at(candidate.player.pk) if source and s.table_id == source.pk), None
        )
        where = f"table change from table {source.number}" if source else "table change"
    return Offer(
        kind=candidate.kind,
        name=candidate.player.name,
        entry_id=candidate.row.entry.pk if candidate.row else None,
        seating_id=seating.pk if seating is not None else None,
        where=where,
    )


def _panel(state: FloorState) -> dict[str, Any]:
    """The "Seats to fill" panel: each table with a free seat or a call out, and the interest lists."""
    tables = []
    for calls in state.all_table_calls():
        if not calls.free_seats and not calls.called:
            continue
        tables.append({"calls": calls, "offers": [_offer(c, state) for c in calls.candidates[:4]]})
    return {"tables": tables, "interest": state.interest(), "at": state.now}


def _panel_etag(request: HttpRequest) -> str:
    return f"{board_version()}-{int(request.user.has_perm(RUN))}"


def _lists_url() -> str:
    return reverse("tables:lists")


class ListsView(PermissionRequiredMixin, View):
    """``/floor/lists/``: whom to call, every list in order, and the forms that change them."""

    permission_required = "tables.view_waitinglist"

    def get(self, request: HttpRequest) -> HttpResponse:
        state = FloorState.load()
        lists = [(w, state.rows.get(w.pk, []), state.tables_of(w)) for w in state.lists]
        context = {
            "state": state,
            "panel": _panel(state),
            "panel_etag": f'"{_panel_etag(request)}"',
            "poll_seconds": PANEL_POLL_SECONDS,
            "lists": lists,
            "add_form": AddToListsForm(lists=state.lists),
            "players": Player.objects.order_by("name")[:500],
            "games": Game.objects.filter(is_active=True).order_by("sort_order", "slug"),
            "stakes": Stakes.objects.filter(is_active=True),
            "must_moves": MustMove.objects.select_related(
                "table", "waiting_list__game", "waiting_list__stakes"
            ),
            "open_tables": state.open_tables,
            "settings": state.settings,
        }
        return render(request, "floor/lists.html", context)

    def post(self, request: HttpRequest) -> HttpResponse:
        if not request.user.has_perm(RUN):
            raise PermissionDenied("Only the floor runs the waiting lists.")
        action = request.POST.get("action", "")
        handler = getattr(self, f"do_{action}", None) if action.isidentifier() else None
        if handler is None:
            messages.error(request, "Unknown action.")
            return HttpResponseRedirect(_lists_url())
        try:
            text = handler(request, request.POST)
        except (FloorError, LedgerError, PageInputError) as exc:
            refusal(request, exc)
        else:
            messages.success(request, text)
        return HttpResponseRedirect(_lists_url())

    # --- One method per action: read the form, call the service, say what was done -------------------

    @staticmethod
    def _entry(data: Any) -> WaitingListEntry:
        entry = (
            WaitingListEntry.objects.select_related("player", "waiting_list__game", "waiting_list__stakes")
            .filter(pk=whole_number(data.get("entry")) or 0)
            .first()
        )
        if entry is None:
            raise PageInputError("That place on the list is gone: the page was old.")
        return entry

    @staticmethod
    def _table(data: Any, field: str = "table") -> Table:
        number = whole_number(data.get(field))
        table = Table.objects.filter(number=number).first() if number is not None else None
        if table is None:
            raise PageInputError("Choose a table.", field=field)
        return table

    @staticmethod
    def _list(data: Any) -> WaitingList:
        found = (
            WaitingList.objects.select_related("game", "stakes")
            .filter(pk=whole_number(data.get("list")) or 0)
            .first()
        )
        if found is None:
            raise PageInputError("Choose a list.")
        return found

    @staticmethod
    def _number(data: Any, field: str, what: str) -> int:
        value = whole_number(data.get(field))
        if value is None:
            raise PageInputError(f"Choose {what}.", field=field)
        return value

    def do_add(self, request: HttpRequest, data: Any) -> str:
        form = AddToListsForm(
            data, lists=list(WaitingList.objects.filter(is_active=True).select_related("game", "stakes"))
        )
        if not form.is_valid():
            field, errors = next(iter(form.errors.items()))
            raise PageInputError(f"{field}: {errors[0]}", field=field)
        chosen = form.chosen_lists()
        player = (
            Player.objects.filter(pk=form.cleaned_data["player"]).first()
            if form.cleaned_data["player"]
            else None
        )
        name = "" if player is not None else form.cleaned_data["player_name"]
        entries = services.add_player(
            waiting_lists=chosen,
            player=player,
            new_player_name=name or None,
            board_alias=form.cleaned_data["board_alias"] or None,
            added_via=form.cleaned_data["added_via"],
            entry_kind=form.cleaned_data["entry_kind"],
            note=form.cleaned_data["note"],
            by=request.user,
        )
        where = ", ".join(f"{e.waiting_list.label} (#{e.position})" for e in entries)
        return f"{entries[0].player.name} is on {where}."

    def do_arrive(self, request: HttpRequest, data: Any) -> str:
        entry = self._entry(data)
        arrived = services.mark_arrived(player=entry.player, by=request.user)
        return f"{entry.player.name} is here: called in turn on {len(arrived)} list(s)."

    def do_call(self, request: HttpRequest, data: Any) -> str:
        entry = self._entry(data)
        table = self._table(data)
        called = services.call_player(
            entry=entry, table=table, by=request.user, reason=data.get("reason", "")
        )
        deadline = timezone.localtime(called.call_deadline) if called.call_deadline else None
        until = f" until {deadline:%H:%M}" if deadline else ""
        return f"Call {entry.player.name} to table {table.number}{until}."

    def do_seat(self, request: HttpRequest, data: Any) -> str:
        entry = self._entry(data)
        table = self._table(data) if data.get("table") else None
        seating = services.seat_from_list(
            entry=entry,
            seat_number=self._number(data, "seat_number", "the seat"),
            table=table,
            by=request.user,
            reason=data.get("reason", ""),
        )
        return f"{entry.player.name} sits at table {seating.table.number} seat {seating.seat.number}."

    def do_pass(self, request: HttpRequest, data: Any) -> str:
        entry = services.pass_call(entry=self._entry(data), by=request.user, reason=data.get("reason", ""))
        return f"{entry.player.name} passed: {entry.ended_reason or f'now #{entry.position} on the list'}."

    def do_remove(self, request: HttpRequest, data: Any) -> str:
        entry = services.remove_from_list(
            entry=self._entry(data), by=request.user, reason=data.get("reason", "")
        )
        return f"{entry.player.name} is off the {entry.waiting_list.label} list."

    def do_move(self, request: HttpRequest, data: Any) -> str:
        entry = services.move_on_list(
            entry=self._entry(data),
            position=self._number(data, "position", "the position"),
            by=request.user,
            reason=data.get("reason", ""),
        )
        return f"{entry.player.name} is #{entry.position} on the {entry.waiting_list.label} list."

    def do_move_in(self, request: HttpRequest, data: Any) -> str:
        seating = Seating.objects.active().filter(pk=whole_number(data.get("seating")) or 0).first()
        if seating is None:
            raise PageInputError("That player is no longer seated there: the page was old.")
        moved = services.move_in_from_list(
            seating=seating,
            to_table=self._table(data),
            to_seat_number=self._number(data, "seat_number", "the seat"),
            by=request.user,
            move=hand_flow.move_player,
            reason=data.get("reason", ""),
        )
        where = f"table {moved.table.number} seat {moved.seat.number}"
        return f"{moved.player.name} moved to {where} with their chips."

    def do_open_table(self, request: HttpRequest, data: Any) -> str:
        waiting_list = self._list(data)
        seated = services.open_table_for_list(
            waiting_list=waiting_list, table=self._table(data), by=request.user, reason=data.get("reason", "")
        )
        names = ", ".join(f"{s.seat.number}: {s.player.name}" for s in seated)
        return f"Table {seated[0].table.number} is open for {waiting_list.label}; seated {names}."

    def do_create_list(self, request: HttpRequest, data: Any) -> str:
        game = Game.objects.filter(pk=whole_number(data.get("game")) or 0).first()
        stakes = Stakes.objects.filter(pk=whole_number(data.get("stakes")) or 0).first()
        if game is None or stakes is None:
            raise PageInputError("Choose the game and the stakes.")
        created = services.create_list(game=game, stakes=stakes, by=request.user)
        return f"The {created.label} list is open."

    def do_close_list(self, request: HttpRequest, data: Any) -> str:
        closed = services.close_list(waiting_list=self._list(data), by=request.user)
        return f"The {closed.label} list is closed."

    def do_set_must_move(self, request: HttpRequest, data: Any) -> str:
        table = self._table(data)
        services.set_must_move(table=table, waiting_list=self._list(data), by=request.user)
        return f"Table {table.number} is a must-move table."

    def do_end_must_move(self, request: HttpRequest, data: Any) -> str:
        must_move = (
            MustMove.objects.select_related("table")
            .filter(pk=whole_number(data.get("must_move")) or 0)
            .first()
        )
        if must_move is None:
            raise PageInputError("That table is no longer a must-move table.")
        number = must_move.table.number
        services.end_must_move(must_move=must_move, by=request.user)
        return f"Table {number} is no longer a must-move table."


class CallsPanelView(PermissionRequiredMixin, View):
    """``/floor/lists/calls/``: the "Seats to fill" panel alone (304 while nothing changed)."""

    permission_required = "tables.view_waitinglist"

    def get(self, request: HttpRequest) -> HttpResponse:
        response = condition(etag_func=_panel_etag)(self._draw)(request)
        patch_cache_control(response, no_cache=True, private=True)
        return response

    @staticmethod
    def _draw(request: HttpRequest) -> HttpResponse:
        return render(request, "floor/_calls.html", {"panel": _panel(FloorState.load())})


class ListSettingsView(PermissionRequiredMixin, View):
    """``/floor/lists/settings/``: the room's list rules (the floor changes them, with a reason)."""

    permission_required = "tables.view_waitinglistsettings"

    def _form(self, data: Any = None) -> ListSettingsForm:
        games = list(Game.objects.filter(is_active=True).order_by("sort_order", "slug"))
        return ListSettingsForm(data, games=games, current=WaitingListSettings.current())

    def get(self, request: HttpRequest) -> HttpResponse:
        return render(request, "floor/list_settings.html", {"form": self._form()})

    def post(self, request: HttpRequest) -> HttpResponse:
        if not request.user.has_perm("tables.change_waitinglistsettings"):
            raise PermissionDenied("Only the floor changes the list settings.")
        form = self._form(request.POST)
        if form.is_valid():
            try:
                services.update_list_settings(
                    by=request.user, reason=form.cleaned_data["reason"], **form.changes()
                )
            except FloorError as exc:
                form.add_error(None, exc.message)
            else:
                messages.success(request, "The list settings are saved.")
                return HttpResponseRedirect(reverse("tables:list-settings"))
        return render(request, "floor/list_settings.html", {"form": form}, status=400)


class ListReportView(PermissionRequiredMixin, View):
    """``/floor/lists/report/?day=YYYY-MM-DD``: a day's record, each offer of a seat with whom it
    went ahead of and why, and the floor's moves by hand with their reasons."""

    permission_required = "tables.view_waitinglistevent"

    def get(self, request: HttpRequest) -> HttpResponse:
        raw = request.GET.get("day", "")
        try:
            day = parse_date(raw) if raw else None
        except ValueError:
            day = None
        if raw and day is None:
            messages.error(request, f"{raw!r} is not a day (YYYY-MM-DD); showing today.")
        day = day or timezone.localdate()
        context = {
            "report": day_report(day),
            "day": day,
            "previous": day - datetime.timedelta(days=1),
            "next": day + datetime.timedelta(days=1),
        }
        return render(request, "floor/list_report.html", context)
