"""Floor manager pages: a table's seats and chips (open/close, seat, move, table change, unseat,
buy-in, rebuy, cash-out) and the collection schedules (list, history, a new version, the posted
table notice).

Input and output only: each POST calls one service (``tables.services``, ``handflow.services``)
and shows its refusal as a message; nothing is written when a service refuses. A chip movement
carries a token made when its form was drawn, so a double submit is one movement (the services'
idempotency key ``page:<token>``).
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from django.contrib import messages
from django.contrib.auth.mixins import PermissionRequiredMixin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.views import View

from backoffice.reports.changes import schedule_history
from handflow import services as hand_flow
from handflow.chips import Movement
from ledger import selectors as ledger_selectors
from ledger.errors import LedgerError
from tables import services
from tables.errors import FloorError
from tables.models import CollectionSchedule, Player, Seating, Table, TableStatus
from tables.selectors import active_seatings
from tables.services import RATE_FIELDS
from web.floor_forms import PageInputError, ScheduleRevisionForm, dollars_to_cents
from web.pages import refusal, whole_number


def _table(number: int) -> Table:
    table = (
        Table.objects.select_related("game", "stakes", "collection_schedule").filter(number=number).first()
    )
    if table is None:
        raise Http404(f"There is no table {number}.")
    return table


def _manage_url(number: int) -> str:
    return reverse("tables:manage", args=[number])


CHIP_ACTIONS = frozenset({"buy_in", "rebuy", "cash_out"})
#: The token a page puts in each of its forms (``uuid4().hex``; tests post short ones).
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _key(request: HttpRequest, action: str) -> str:
    """The ledger key of a chip form's posting: the page's token, its action and who posted it
    (a replay is the same user's same form)."""
    return f"page:{request.user.pk}:{request.POST['token']}:{action}"


def _done(request: HttpRequest, done: Movement, text: str) -> None:
    if done.replayed:
        messages.info(request, f"That form was already posted ({text}); nothing was posted again.")
    else:
        messages.success(request, text)


def _int(value: str | None) -> int | None:
    return whole_number(value)


class ManageTableView(PermissionRequiredMixin, View):
    """``/floor/tables/<number>/``: the floor manager's view of a table, and its actions."""

    permission_required = "tables.manage_floor"

    def get(self, request: HttpRequest, number: int) -> HttpResponse:
        table = _table(number)
        seated = list(active_seatings(table))  # by seat number
        context = {
            "table": table,
            "chips": hand_flow.table_chips(table=table),
            "seatings": seated,
            "free_seats": sorted(set(range(1, table.seat_count + 1)) - {s.seat.number for s in seated}),
            "players": Player.objects.order_by("name")[:500],
            # Where a table change can go (the service refuses a full seat or chips that don't fit).
            "other_tables": Table.objects.filter(status=TableStatus.OPEN)
            .exclude(pk=table.pk)
            .select_related("game", "stakes")
            .order_by("number"),
            "token": uuid.uuid4().hex,
        }
        return render(request, "tables/manage.html", context)

    def post(self, request: HttpRequest, number: int) -> HttpResponse:
        table = _table(number)
        action = request.POST.get("action", "")
        data = request.POST
        by = request.user
        try:
            if action == "open":
                services.open_table(table=table, by=by, reason=data.get("reason", ""))
                messages.success(request, f"Table {number} is open.")
            elif action == "close":
                services.close_table(table=table, by=by, reason=data.get("reason", ""))
                messages.success(request, f"Table {number} is closed.")
            elif action in CHIP_ACTIONS and not _TOKEN.fullmatch(data.get("token", "")):
                # Each chip form carries the token of the page that drew it: the key of its one
                # posting. Without one, every such form would share one key (a second player's
                # buy-in refused as "already used").
                raise PageInputError("This form has no token: reload the page and post it again.")
            elif action == "buy_in":
                # A walk-in is created by the buy-in itself, in its transaction: a refused buy-in
                # leaves no player behind.
                chosen = _int(data.get("player"))
                walk_in = "" if chosen is not None else (data.get("player_name") or "").strip()
                amount = dollars_to_cents(data.get("amount", ""), "amount")
                done = hand_flow.buy_in(
                    table=table,
                    player=None if walk_in else self._player(data),
                    new_player_name=walk_in or None,
                    amount_cents=amount,
                    seat_number=_int(data.get("seat_number")),
                    by=by,
                    idempotency_key=_key(request, action),
                )
                _done(request, done, f"{done.movement.player.name} bought in for ${amount / 100:,.2f}.")
            elif action == "rebuy":
                player = self._player(data)
                amount = dollars_to_cents(data.get("amount", ""), "amount")
                key = _key(request, action)
                done = hand_flow.rebuy(
                    table=table, player=player, amount_cents=amount, by=by, idempotency_key=key
                )
                _done(request, done, f"{player.name} rebought for ${amount / 100:,.2f}.")
            elif action == "cash_out":
                player = self._player(data)
                done = hand_flow.cash_out(
                    table=table, player=player, by=by, idempotency_key=_key(request, action)
                )
                _done(request, done, f"{player.name} cashed out ${done.movement.amount_cents / 100:,.2f}.")
            elif action in ("move", "unseat", "change_table"):
                seating = get_object_or_404(Seating, pk=_int(data.get("seating")), table=table, left_at=None)
                if action == "change_table":
                    to_table = _int(data.get("to_table"))
                    target = Table.objects.filter(number=to_table).first() if to_table is not None else None
                    to_seat = _int(data.get("to_table_seat"))
                    if target is None or to_seat is None:
                        raise PageInputError("Choose the table and type the seat to move to.")
                    hand_flow.move_player(seating=seating, to_table=target, to_seat_number=to_seat, by=by)
                    chips = ledger_selectors.player_chips(table=target, player=seating.player)
                    messages.success(
                        request,
                        f"{seating.player.name} moved to table {target.number} seat {to_seat} "
                        f"with their chips (${chips / 100:,.2f} there now).",
                    )
                elif action == "move":
                    to_seat = _int(data.get("to_seat"))
                    if to_seat is None:
                        raise PageInputError("Choose the seat to move to.")
                    hand_flow.move_player(seating=seating, to_seat_number=to_seat, by=by)
                    messages.success(request, f"{seating.player.name} moved to seat {to_seat}.")
                else:
                    services.unseat_player(seating=seating, by=by)
                    messages.success(request, f"{seating.player.name} left seat {seating.seat.number}.")
            else:
                messages.error(request, "Unknown action.")
        except (FloorError, LedgerError, PageInputError) as exc:
            refusal(request, exc)
        return HttpResponseRedirect(_manage_url(number))

    @staticmethod
    def _player(data: Any) -> Player:
        """The chosen player (a walk-in's name is only for a buy-in, which creates the player)."""
        pk = _int(data.get("player"))
        if pk is None:
            raise PageInputError("Choose a player (a new player's name goes with a buy-in).")
        player = Player.objects.filter(pk=pk).first()
        if player is None:
            raise PageInputError(f"There is no player {pk}.")
        return player


class ScheduleListView(PermissionRequiredMixin, View):
    permission_required = "tables.view_collectionschedule"

    def get(self, request: HttpRequest) -> HttpResponse:
        schedules = CollectionSchedule.objects.order_by("code").prefetch_related("versions")
        return render(request, "tables/schedules.html", {"schedules": schedules})


def table_notice(schedule: CollectionSchedule, version: Any) -> list[str]:
    """The notice the room posts at each table on ``schedule``: who pays what, from when."""
    if version is None:
        return [f"Collection schedule {schedule.code}: no rates in force yet."]
    when = timezone.localtime(version.effective_from).strftime("%Y-%m-%d %H:%M")
    lines = [f"Collection (schedule {schedule.code}, {schedule.name}), in force from {when}:"]
    for rate in version.rates.order_by("pk"):
        lines.append(
            f"{rate.limits_label}, {rate.players_min} to {rate.players_max} players: {rate.fee_label}."
        )
    lines.append("The fee is taken before the cards are dealt. A misdeal returns it.")
    return lines


class ScheduleView(PermissionRequiredMixin, View):
    """``/floor/schedules/<code>/``: the history, the notice, and (floor managers) a new version.

    A new version is saved in two steps. ``step=preview`` (the first button) checks the fees as
    the save would and shows what would change: each table on the schedule and the bands of
    players whose fee changes, old fee -> new fee, and the warnings of fees far outside the
    schedule's sense (:func:`tables.services.preview_revision`). ``step=save`` saves only the
    change previewed (``preview_digest``; anything else shows the new preview) and, when there are
    warnings, only with ``confirm_warnings`` ticked. Nothing is written before the save.
    """

    permission_required = "tables.view_collectionschedule"

    def _context(
        self,
        schedule: CollectionSchedule,
        form: ScheduleRevisionForm | None,
        preview: services.RevisionPreview | None = None,
    ) -> dict[str, Any]:
        current = schedule.version_at()
        latest = schedule.versions.order_by("-number").first()
        return {
            "schedule": schedule,
            "history": schedule_history(schedule),
            "current": current,
            "notice": table_notice(schedule, current),
            "form": form or ScheduleRevisionForm(rates=list(latest.rates.order_by("pk")) if latest else []),
            "preview": preview,
        }

    def get(self, request: HttpRequest, code: str) -> HttpResponse:
        schedule = get_object_or_404(CollectionSchedule, code=code)
        return render(request, "tables/schedule.html", self._context(schedule, None))

    def post(self, request: HttpRequest, code: str) -> HttpResponse:
        if not request.user.has_perm("tables.add_collectionscheduleversion"):
            raise PermissionDenied("Only a floor manager changes a schedule.")
        schedule = get_object_or_404(CollectionSchedule, code=code)
        latest = schedule.versions.order_by("-number").first()
        form = ScheduleRevisionForm(request.POST, rates=list(latest.rates.order_by("pk")) if latest else [])
        if not form.is_valid():
            return render(request, "tables/schedule.html", self._context(schedule, form), status=400)
        rates = form.rate_dicts(RATE_FIELDS)
        when = form.cleaned_data.get("effective_from")
        try:
            preview = services.preview_revision(schedule=schedule, rates=rates, effective_from=when)
        except FloorError as exc:
            form.add_error(None, exc.message)
            return render(request, "tables/schedule.html", self._context(schedule, form), status=400)
        if request.POST.get("step") != "save":
            return render(request, "tables/schedule.html", self._context(schedule, form, preview))
        if request.POST.get("preview_digest") != preview.digest:
            # Saved is what was previewed: fees edited since, or another version saved meanwhile.
            form.add_error(None, "This is not the change previewed: check the preview below, then save.")
            return render(request, "tables/schedule.html", self._context(schedule, form, preview), status=400)
        if preview.warnings and not form.cleaned_data["confirm_warnings"]:
            form.add_error(
                "confirm_warnings",
                "Some fees are far outside the schedule (see the warnings): tick the box to save them as "
                "they are, or correct them.",
            )
            return render(request, "tables/schedule.html", self._context(schedule, form, preview), status=400)
        try:
            version = services.revise_schedule(
                schedule=schedule,
                rates=rates,
                by=request.user,
                reason=form.cleaned_data["reason"],
                effective_from=when,
            )
        except FloorError as exc:
            form.add_error(None, exc.message)
            return render(request, "tables/schedule.html", self._context(schedule, form, preview), status=400)
        messages.success(request, f"Schedule {code} version {version.number} saved.")
        return HttpResponseRedirect(reverse("tables:schedule", args=[code]))
