"""The dealer terminal: one screen per table (``/tables/<number>/``), updated in place.

The screen is one server-rendered body (``templates/tables/_terminal.html``, made of the seats,
next-hand, showdown and reading panels) that every action swaps in place: the page's forms carry
``hx-post``/``hx-get`` (htmx, ``static/htmx.min.js``) and each view answers an htmx request with
that body alone (header ``X-Terminal-Panel``), so no page is loaded between the deal and the
confirmation. Without htmx the same forms post plainly: a success redirects back to the page, a
refusal draws the page again with the entry as posted.

The views and their responses only: the screen is read by
:func:`web.terminal.screen.terminal_screen`, what the dealer posted by :mod:`web.terminal.entry`.
Every write is one service of ``handflow.services`` (start the hand, declare a sweep, submit the
showdown, confirm, misdeal) or ``tables.services`` (clock a dealer in or out); a refusal (a
``DomainError``, or a field this page can't read) is shown in the panel with its status (400, 403,
409) and nothing changed. What the dealer entered is always drawn back as posted, the bad field
marked, so one card can be corrected and the hand read again. Confirming is idempotent in the
service: two terminals, or a double tap, settle the hand once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.mixins import PermissionRequiredMixin
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views import View

from casino.core.errors import DomainError
from casino.core.money import format_cents
from handflow import services as hand_flow
from poker.errors import ShowdownError
from poker.games import rules_for
from tables import services as floor
from tables.errors import FeesChanged
from tables.games import say_games
from tables.models import Hand, HandPlayer, Table
from web.common.pages import PageInputError, whole_number
from web.terminal.entry import (
    MisdealForm,
    NextHandChoice,
    Refusal,
    bad_fields,
    check_entry,
    fees_posted,
    posted_entry,
)
from web.terminal.screen import terminal_screen
from web.terminal.showdown_input import showdown_from_post

#: The response header that marks the terminal's body: the page script swaps a refusal (4xx) in
#: only when it carries it (anything else, such as a login page, reloads the page instead).
PANEL_HEADER = "X-Terminal-Panel"
BODY_TEMPLATE = "tables/_terminal.html"
PAGE_TEMPLATE = "tables/terminal.html"


def _table(number: int) -> Table:
    table = (
        Table.objects.select_related("game", "stakes", "collection_schedule").filter(number=number).first()
    )
    if table is None:
        raise Http404(f"There is no table {number}.")
    return table


def _hand(pk: int) -> Hand:
    hand = Hand.objects.select_related("table", "game").filter(pk=pk).first()
    if hand is None:
        raise Http404(f"There is no hand {pk}.")
    return hand


def _terminal_url(table_number: int) -> str:
    return reverse("tables:terminal", args=[table_number])


def is_htmx(request: HttpRequest) -> bool:
    """The request comes from the page script (htmx), which swaps the body it gets back in place."""
    return request.headers.get("HX-Request") == "true"


def respond(
    request: HttpRequest,
    table: Table,
    *,
    status: int = 200,
    **context: Any,
) -> HttpResponse:
    """The screen: the body alone to htmx (marked with PANEL_HEADER), else the whole page."""
    screen = terminal_screen(table=table, user=request.user, **context)
    template = BODY_TEMPLATE if is_htmx(request) else PAGE_TEMPLATE
    response = render(request, template, screen.template_context(), status=status)
    response[PANEL_HEADER] = "1"
    return response


def _refusal(exc: Exception, entry: Mapping[str, str] | None = None) -> Refusal:
    """A service's refusal (its message and status) or this page's (400), with the bad fields;
    the games named as a card room says them (the engine's messages name them by slug)."""
    if isinstance(exc, DomainError):
        message, status, named = exc.message, exc.status, exc.field or ""
    else:
        message, status, named = str(exc), 400, getattr(exc, "field", "")
    return Refusal(message=say_games(message), status=status, bad=bad_fields(message, entry or {}, named))


def _after_write(
    request: HttpRequest, table: Table, notice: str, *, level: str = "success", **context: Any
) -> HttpResponse:
    """A write went through: htmx gets the new screen with ``notice``; a plain post is redirected."""
    if is_htmx(request):
        return respond(request, table, notices=[(level, notice)], **context)
    getattr(messages, level)(request, notice)
    return HttpResponseRedirect(_terminal_url(table.number))


def _after_refusal(
    request: HttpRequest, table: Table, refusal: Refusal, *, redirect: bool = False, **context: Any
) -> HttpResponse:
    """A write was refused (nothing changed): the screen again with the refusal and, for the
    showdown, the entry as posted. A plain post either draws the page (the entry kept) or, with
    ``redirect``, goes back to the page with the message."""
    if redirect and not is_htmx(request):
        messages.error(request, refusal.message)
        return HttpResponseRedirect(_terminal_url(table.number))
    return respond(request, table, status=refusal.status, refusal=refusal, **context)


# --- Views ------------------------------------------------------------------------------------------------


class TerminalView(PermissionRequiredMixin, View):
    """``/tables/<number>/``: the table's screen. To htmx (the next-hand panel's changes: game,
    boards, a seat sitting out) the body alone, with the fees for that choice."""

    permission_required = "tables.view_table"

    def get(self, request: HttpRequest, number: int) -> HttpResponse:
        return respond(request, _table(number), choice=NextHandChoice.from_data(request.GET))


class RunHandMixin(PermissionRequiredMixin):
    """The hand's writes and the clock: a dealer's (``tables.run_hand``)."""

    permission_required = "tables.run_hand"


class StartHandView(RunHandMixin, View):
    """GET (pages without the script): the fees of the next hand, to confirm. POST: deal, taking
    exactly the fees shown (``fee-<seat>``), with the game, boards and sit-outs picked."""

    def get(self, request: HttpRequest, number: int) -> HttpResponse:
        table = _table(number)
        choice = NextHandChoice.from_data(request.GET)
        try:
            plan = hand_flow.preview_fees(table=table, game=choice.game, sit_out_seat_numbers=choice.sit_out)
        except DomainError as exc:
            messages.error(request, exc.message)
            return HttpResponseRedirect(_terminal_url(number))
        return render(request, "tables/start_hand.html", {"table": table, "plan": plan, "choice": choice})

    def post(self, request: HttpRequest, number: int) -> HttpResponse:
        table = _table(number)
        choice = NextHandChoice.from_data(request.POST)
        if choice.problem:
            return _after_refusal(request, table, Refusal(choice.problem), choice=choice, redirect=True)
        try:
            dealt = hand_flow.start_hand(
                table=table,
                by=request.user,
                game=choice.game,
                sit_out_seat_numbers=choice.sit_out,
                expected_fees=fees_posted(request.POST),
                boards=choice.boards,
            )
        except FeesChanged as exc:
            # The new fees are shown to confirm again (the screen reads them afresh).
            if not is_htmx(request):
                messages.error(request, exc.message)
                return HttpResponseRedirect(reverse("tables:start-hand", args=[number]))
            return _after_refusal(request, table, _refusal(exc), choice=choice)
        except DomainError as exc:
            return _after_refusal(request, table, _refusal(exc), choice=choice, redirect=True)
        fees = sum(p.fee_cents or 0 for p in dealt.players)
        return _after_write(
            request,
            table,
            f"Hand {dealt.hand.number} dealt; fees {format_cents(fees)} collected.",
            hand=dealt.hand,
            players=dealt.players,
            chips=dealt.chips_after,
        )


def _seats_of(hand: Hand) -> list[int]:
    return list(hand.players.order_by("position").values_list("seat__number", flat=True))


class ShowdownView(RunHandMixin, View):
    """POST the whole entry (cards, put-ins, folds, declarations): the engine's reading is kept for
    confirmation and drawn beside the entry, which stays as posted (to correct and read again)."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        hand = _hand(pk)
        entry = posted_entry(request.POST)
        try:
            check_entry(request.POST)
            rules = rules_for(hand.game.slug)
            submitted = showdown_from_post(
                rules=rules,
                seats=_seats_of(hand),
                data=request.POST,
                boards=hand.boards if rules.agrees_boards else None,
            )
            result = hand_flow.submit_showdown(hand=hand, submitted=submitted, by=request.user)
        except (PageInputError, DomainError, ShowdownError) as exc:
            return _after_refusal(request, hand.table, _refusal(exc, entry), entry=entry)
        if not is_htmx(request):
            return HttpResponseRedirect(_terminal_url(hand.table.number))
        return respond(
            request,
            result.hand.table,
            entry=entry,
            notices=[("info", f"Hand {hand.number}: the result to check, then confirm and pay.")],
            hand=result.hand,
            reading=result.reading,
            players=result.players,
            chips=result.chips_after,
        )


class DeclareSweepView(RunHandMixin, View):
    """POST ``sweep_seat`` and its ``declare_<seat>``: a Chinese poker player declared a clean
    sweep (recorded now, before the showdown); the entry comes back with that seat's 13 cards in
    one field, the rest as posted."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        hand = _hand(pk)
        entry = posted_entry(request.POST)
        seat = whole_number(request.POST.get("sweep_seat"))
        sweep = str(request.POST.get(f"declare_{seat}", "")) if seat is not None else ""
        if seat is None or not sweep:
            return _after_refusal(
                request, hand.table, Refusal("Pick the seat and the clean sweep declared."), entry=entry
            )
        try:
            check_entry(request.POST)
        except PageInputError as exc:
            entry.pop(f"declare_{seat}", None)
            return _after_refusal(request, hand.table, _refusal(exc, entry), entry=entry)
        try:
            hp: HandPlayer = hand_flow.declare_sweep(
                hand=hand, seat_number=seat, sweep=sweep, by=request.user
            ).seat
        except DomainError as exc:
            entry.pop(f"declare_{seat}", None)
            return _after_refusal(request, hand.table, _refusal(exc, entry), entry=entry)
        # The declared hand is entered as its 13 cards: what the three rows held so far, in order.
        rows = [entry.pop(f"{row}_{seat}", "") for row in ("front", "middle", "back")]
        entry[f"cards_{seat}"] = " ".join([entry.get(f"cards_{seat}", ""), *rows]).strip()
        entry[f"declare_{seat}"] = hp.sweep_declared
        return _after_write(
            request,
            hp.hand.table,  # the table the service locked, with its game, stakes and schedule
            f"Seat {seat} declared {hp.sweep_declared}; enter the 13 cards.",
            entry=entry,
        )


class ConfirmView(RunHandMixin, View):
    """POST: post the reading (revision as shown) and settle; the screen shows the new chips and
    the next hand. Idempotent in the service (a double tap or a second terminal posts nothing)."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        hand = _hand(pk)
        try:
            result = hand_flow.confirm_settlement(
                hand=hand, by=request.user, revision=whole_number(request.POST.get("revision"))
            )
        except DomainError as exc:
            return _after_refusal(request, hand.table, _refusal(exc), redirect=True)
        if result.replayed:
            notice, level = f"Hand {hand.number} was already settled; nothing was posted again.", "info"
        else:
            notice, level = f"Hand {hand.number} settled.", "success"
        return _after_write(
            request,
            result.hand.table,
            notice,
            level=level,
            hand=result.hand,
            reading=result.reading,
            players=result.players,
            chips=result.chips_after,
        )


class MisdealView(RunHandMixin, View):
    """POST ``reason_code`` (004's misdeals) and ``reason`` (needed for "other"): the hand is void,
    its fees go back (unless the table keeps them)."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        hand = _hand(pk)
        entry = posted_entry(request.POST)
        form = MisdealForm(request.POST)
        if not form.is_valid():
            return _after_refusal(
                request,
                hand.table,
                Refusal("A misdeal needs its reason: pick one."),
                entry=entry,
                redirect=True,
            )
        try:
            voided = hand_flow.misdeal(
                hand=hand,
                reason_code=form.cleaned_data["reason_code"],
                reason=form.cleaned_data["reason"],
                by=request.user,
            )
        except DomainError as exc:
            return _after_refusal(request, hand.table, _refusal(exc), entry=entry, redirect=True)
        if voided.replayed:
            return _after_write(
                request,
                voided.hand.table,
                f"Hand {hand.number} was already void.",
                level="info",
                hand=voided.hand,
            )
        return _after_write(
            request,
            voided.hand.table,
            f"Hand {hand.number} is void (misdeal): {voided.hand.void_reason}.",
            hand=voided.hand,
        )


class ClockView(RunHandMixin, View):
    """POST ``action``: ``in`` (the dealer clocks themself in), ``assign`` (the floor clocks in
    ``dealer``, a user id) or ``out``."""

    def post(self, request: HttpRequest, number: int) -> HttpResponse:
        table = _table(number)
        action = request.POST.get("action")
        try:
            if action == "out":
                down = floor.clock_out(table=table, by=request.user)
                notice = f"{down.dealer.get_username()} clocked out." if down else "Nobody was clocked in."
            elif action in ("in", "assign"):
                dealer: Any = request.user
                if action == "assign":
                    dealer_id = whole_number(request.POST.get("dealer"))
                    dealer = (
                        get_user_model().objects.filter(pk=dealer_id, is_active=True).first()
                        if dealer_id is not None
                        else None
                    )
                    if dealer is None:
                        return _after_refusal(
                            request, table, Refusal("Pick the dealer to clock in."), redirect=True
                        )
                down = floor.clock_in(table=table, dealer=dealer, by=request.user).shift
                notice = f"{down.dealer.get_username()} is clocked in at table {table.number}."
            else:
                return _after_refusal(request, table, Refusal("Clock in or out?"), redirect=True)
        except DomainError as exc:
            return _after_refusal(request, table, _refusal(exc), redirect=True)
        return _after_write(request, table, notice)
