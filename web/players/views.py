"""The floor's player pages: find a player as you type (name, member number, phone), add one (asking
"same person?" when the name or phone matches a player on file), a player's page (chips at each
table, the gaming day's buy-ins and cash-outs, sessions, merges, identification), merging a
duplicate, recording identification; and the cash-per-gaming-day report.

Input and output only: each POST calls one service (``tables.services``) and shows its refusal;
the search answers htmx with the list alone (``_player_results.html``, or the buy-in form's
``<select>``), and the whole page without it (no script needed). No page is kept by a browser or a
proxy (``Cache-Control: no-store``): they carry identification numbers, contact details and cash
totals.

Who reads what: finding a player by name is every role's (a dealer names the players at the
table); a player's page (identification numbers, the cash day, the currency-transaction status) and
the cash-per-gaming-day report need :data:`web.players.data.RECORD_PERMISSION`: the floor, the
cage and auditors, never a dealer.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.mixins import PermissionRequiredMixin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views import View

from backoffice.reports.cash_day import build_cash_day_report
from tables import services
from tables.errors import FloorError
from tables.models import CashDaySettings, IdentificationKind, Player
from tables.selectors import find_players, same_person_candidates
from web.common.forms import WholeNumberField
from web.common.no_store import NoStorePageMixin
from web.common.pages import refusal, whole_number
from web.players.data import RECORD_PERMISSION, player_overview


class PlayerForm(forms.Form):
    name = forms.CharField(max_length=100)
    member_number = forms.CharField(max_length=20, required=False)
    phone = forms.CharField(max_length=30, required=False)


class IdentificationForm(forms.Form):
    kind = forms.ChoiceField(choices=IdentificationKind.choices, label="Identification")
    number = forms.CharField(max_length=40, label="Number")
    issued_by = forms.CharField(max_length=60, label="Issued by (state or country)")
    expires_on = forms.DateField(required=False, label="Expires on (YYYY-MM-DD)")


class CashDaySettingsForm(forms.Form):
    gaming_day_start_hour = WholeNumberField(min_value=0, max_value=23, label="Gaming day starts at (hour)")
    log_threshold = WholeNumberField(
        min_value=1, max_value=100_000_000, label="Log each transaction over ($)"
    )
    report_threshold = WholeNumberField(
        min_value=1, max_value=100_000_000, label="Identification when the day's total passes ($)"
    )
    reason = forms.CharField(max_length=500)


def _found(query: str) -> list[Player]:
    return find_players(query) if query.strip() else []


def _is_htmx(request: HttpRequest) -> bool:
    return request.headers.get("HX-Request") == "true"


class PlayerListView(NoStorePageMixin, PermissionRequiredMixin, View):
    """``/floor/players/``: find a player (``?q=``), and add one."""

    permission_required = "tables.view_player"

    def get(self, request: HttpRequest) -> HttpResponse:
        query = request.GET.get("q", "")[:100]
        return render(
            request,
            "tables/players.html",
            {"q": query, "found": _found(query), "form": PlayerForm(), "searched": bool(query.strip())},
        )


class PlayerSearchView(NoStorePageMixin, PermissionRequiredMixin, View):
    """``/floor/players/search/?q=``: the players matching what is typed, for htmx. ``for=select``
    answers the buy-in form's player ``<select>`` (``_player_select.html``)."""

    permission_required = "tables.view_player"

    def get(self, request: HttpRequest) -> HttpResponse:
        query = request.GET.get("q", "")[:100]
        found = _found(query)
        if request.GET.get("for") == "select":
            return render(request, "tables/_player_select.html", {"players": found, "q": query})
        return render(
            request, "tables/_player_results.html", {"found": found, "searched": bool(query.strip())}
        )


class PlayerCreateView(NoStorePageMixin, PermissionRequiredMixin, View):
    """``POST /floor/players/new/``: add a player. A name or phone matching a player on file asks
    "same person?" first (the page lists them); ``confirmed_new`` says it is someone else."""

    permission_required = "tables.add_player"

    def post(self, request: HttpRequest) -> HttpResponse:
        form = PlayerForm(request.POST)
        context: dict[str, Any] = {"q": "", "found": [], "form": form, "searched": False}
        if not form.is_valid():
            return render(request, "tables/players.html", context, status=400)
        data = form.cleaned_data
        confirmed = request.POST.get("confirmed_new") == "1"
        try:
            player = services.create_player(
                name=data["name"],
                member_number=data["member_number"] or None,
                phone=data["phone"],
                by=request.user,
                check_same_person=not confirmed,
            )
        except FloorError as exc:
            if exc.code == "possible_duplicate":
                context["same_person"] = same_person_candidates(name=data["name"], phone=data["phone"])
                return render(request, "tables/players.html", context)
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            return render(request, "tables/players.html", context, status=400)
        messages.success(request, f"{player.name} added.")
        return HttpResponseRedirect(reverse("tables:player", args=[player.pk]))


def _player(pk: int) -> Player:
    player = Player.objects.filter(pk=pk).first()
    if player is None:
        raise Http404(f"There is no player {pk}.")
    return player


class PlayerDetailView(NoStorePageMixin, PermissionRequiredMixin, View):
    """``/floor/players/<pk>/``: one player (a merged record shows its survivor). POST ``action``:
    ``update`` (name, member number, phone), ``merge`` (another record into this one, with a
    reason), ``identify`` (record the identification shown today). The floor, the cage and
    auditors only (:data:`RECORD_PERMISSION`): a dealer reads names, not records."""

    permission_required = RECORD_PERMISSION

    def _context(self, player: Player, **extra: Any) -> dict[str, Any]:
        overview = player_overview(player)
        return {
            "overview": overview,
            "player": overview.player,
            "rules": CashDaySettings.current(),
            "form": PlayerForm(
                initial={
                    "name": overview.player.name,
                    "member_number": overview.player.member_number or "",
                    "phone": overview.player.phone,
                }
            ),
            "id_form": IdentificationForm(),
            "merge_q": "",
            "merge_found": [],
            **extra,
        }

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        player = _player(pk)
        if player.merged_into_id is not None:
            messages.info(request, f"{player.name} (player {player.pk}) was merged into this player.")
            return HttpResponseRedirect(reverse("tables:player", args=[player.merged_into_id]))
        extra: dict[str, Any] = {}
        merge_q = request.GET.get("merge_q", "")[:100]
        if merge_q.strip():
            extra = {
                "merge_q": merge_q,
                "merge_found": [p for p in find_players(merge_q) if p.pk != player.pk],
            }
        return render(request, "tables/player.html", self._context(player, **extra))

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        player = _player(pk)
        action = request.POST.get("action", "")
        needed = {
            "update": "tables.change_player",
            "merge": "tables.merge_player",
            "identify": "tables.add_playeridentification",
        }.get(action)
        if needed is None:
            messages.error(request, "Unknown action.")
            return HttpResponseRedirect(reverse("tables:player", args=[pk]))
        if not request.user.has_perm(needed):
            raise PermissionDenied("Your role does not allow this.")
        try:
            if action == "update":
                form = PlayerForm(request.POST)
                if not form.is_valid():
                    return render(request, "tables/player.html", self._context(player, form=form), status=400)
                data = form.cleaned_data
                services.update_player(
                    player=player,
                    by=request.user,
                    name=data["name"],
                    member_number=data["member_number"] or None,
                    phone=data["phone"],
                )
                messages.success(request, f"{data['name']} saved.")
            elif action == "merge":
                other = _player(whole_number(request.POST.get("merged")) or 0)
                services.merge_players(
                    survivor=player, merged=other, by=request.user, reason=request.POST.get("reason", "")
                )
                messages.success(request, f"{other.name} (player {other.pk}) merged into {player.name}.")
            else:
                id_form = IdentificationForm(request.POST)
                if not id_form.is_valid():
                    context = self._context(player, id_form=id_form)
                    return render(request, "tables/player.html", context, status=400)
                services.record_identification(player=player, by=request.user, **id_form.cleaned_data)
                messages.success(request, f"{player.name}'s identification is recorded for today.")
        except FloorError as exc:
            refusal(request, exc)
        return HttpResponseRedirect(reverse("tables:player", args=[pk]))


def _day(text: str | None) -> dt.date:
    if not text:
        return services.gaming_day()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise Http404(f"{text!r} is not a date (YYYY-MM-DD).") from None


class CashDayView(NoStorePageMixin, PermissionRequiredMixin, View):
    """``/floor/cash-day/?day=YYYY-MM-DD``: the cash-per-gaming-day report (default: today's gaming
    day), and (floor managers) the room's settings."""

    permission_required = RECORD_PERMISSION

    def _context(self, day: dt.date, form: CashDaySettingsForm | None = None) -> dict[str, Any]:
        rules = CashDaySettings.current()
        return {
            "report": build_cash_day_report(day),
            "previous": day - dt.timedelta(days=1),
            "next": day + dt.timedelta(days=1),
            "settings_form": form
            or CashDaySettingsForm(
                initial={
                    "gaming_day_start_hour": rules.gaming_day_start_hour,
                    "log_threshold": rules.log_threshold_cents // 100,
                    "report_threshold": rules.report_threshold_cents // 100,
                }
            ),
        }

    def get(self, request: HttpRequest) -> HttpResponse:
        return render(request, "tables/cash_day.html", self._context(_day(request.GET.get("day"))))

    def post(self, request: HttpRequest) -> HttpResponse:
        if not request.user.has_perm("tables.change_cashdaysettings"):
            raise PermissionDenied("Only a floor manager changes the settings.")
        form = CashDaySettingsForm(request.POST)
        if not form.is_valid():
            return render(
                request, "tables/cash_day.html", self._context(services.gaming_day(), form), status=400
            )
        data = form.cleaned_data
        try:
            services.update_cash_day_settings(
                by=request.user,
                reason=data["reason"],
                gaming_day_start_hour=data["gaming_day_start_hour"],
                log_threshold_cents=data["log_threshold"] * 100,
                report_threshold_cents=data["report_threshold"] * 100,
            )
        except FloorError as exc:
            form.add_error(None, exc.message)
            return render(
                request, "tables/cash_day.html", self._context(services.gaming_day(), form), status=400
            )
        messages.success(request, "The cash-per-gaming-day settings are saved.")
        return HttpResponseRedirect(reverse("tables:cash-day"))
