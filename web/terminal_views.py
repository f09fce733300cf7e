"""The dealer terminal: one page per table (``/tables/<number>/``) and its form posts.

Input and output only: every write is a service of ``handflow.services`` (start the hand, submit
the showdown, confirm, misdeal), and a refusal (``FloorError``, ``LedgerError``) is shown as a
message with nothing changed. Confirming is idempotent in the service: two terminals, or a
double tap, settle the hand once (the second sees "already settled" and the same payments).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.mixins import PermissionRequiredMixin
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views import View

from handflow import services as hand_flow
from ledger.errors import LedgerError
from poker.showdown import POT_GAMES
from tables.errors import FeesChanged, FloorError
from tables.models import ButtonState, GameKind, Hand, HandStatus, Table, format_cents
from web.floor_forms import SWEEP_CHOICES, MisdealForm, PageInputError, showdown_from_post
from web.pages import refusal, whole_number
from web.terminal_serializers import TerminalHandSerializer


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


def _payments(hand: dict[str, Any]) -> list[dict[str, Any]]:
    """The reading's ledger lines in settlement order, for reading aloud."""
    reading = hand.get("reading") or {}
    postings = reading.get("postings") or {}
    names = {p["seat_number"]: p["player_name"] for p in hand["players"]}
    rows: list[dict[str, Any]] = []
    if postings.get("kind") == "pot":
        for line in postings.get("put_ins", []):
            rows.append(
                {"text": f"Seat {line['seat']} ({names.get(line['seat'])}) puts in", "amount": line["amount"]}
            )
        for line in postings.get("awards", []):
            pot = "main pot" if line["pot"] == 0 else f"side pot {line['pot']}"
            share = "" if line["share"] == "whole" else f" ({line['share']} half)"
            rows.append(
                {
                    "text": f"{pot}{share} to seat {line['seat']} ({names.get(line['seat'])})",
                    "amount": line["amount"],
                }
            )
        for line in postings.get("returned", []):
            why = f"{line['reason']}: " if "reason" in line else "uncalled chips "
            rows.append({"text": f"{why}back to seat {line['seat']}", "amount": line["amount"]})
    else:
        for line in postings.get("payments", []):
            rows.append(
                {
                    "text": f"seat {line['from_seat']} ({names.get(line['from_seat'])}) pays seat "
                    f"{line['to_seat']} ({names.get(line['to_seat'])})"
                    + (f" — {line['reason']}" if line.get("reason") else ""),
                    "amount": line["amount"],
                    "due": line["due"],
                    "capped": line["amount"] != line["due"],
                }
            )
    return rows


def _readings(hand: dict[str, Any]) -> list[dict[str, str]]:
    """Each seat's hand(s) in words."""
    reading = hand.get("reading") or {}
    result = reading.get("reading") or {}
    rows = []
    if "hands" in result:  # pot games
        for seat, read in result["hands"].items():
            parts = []
            if read.get("high"):
                parts.append(f"{read['high']} ({' '.join(read['high_cards'])})")
            if read.get("low"):
                parts.append(f"low {read['low']} ({' '.join(read['low_cards'])})")
            rows.append({"seat": seat, "text": "; ".join(parts) or "no hand"})
    elif "players" in result:
        for seat, data in result["players"].items():
            if data.get("fouled"):
                text = "fouled"
            elif data.get("sweep"):
                text = f"declared {data['sweep']}"
            elif "segments" in data:
                text = " / ".join(f"{k} {v}" for k, v in data["segments"].items())
            else:
                text = " / ".join(f"{k}: {v}" for k, v in data.items() if k in ("top", "middle", "bottom"))
            rows.append({"seat": seat, "text": f"{text}; net {format_cents(data.get('net', 0))}"})
    return rows


class TerminalView(PermissionRequiredMixin, View):
    """``/tables/<number>/``: the table as the dealer sees it, and the current hand's forms."""

    permission_required = "tables.view_table"

    def get(self, request: HttpRequest, number: int) -> HttpResponse:
        table = _table(number)
        current = Hand.objects.filter(table=table).order_by("-number").first()
        hand = TerminalHandSerializer.from_hand(current) if current is not None else None
        in_progress = hand is not None and hand["status"] in HandStatus.in_progress()
        preview = None
        preview_error = ""
        if table.is_open and not in_progress:
            try:
                preview = hand_flow.preview_fees(table=table)
            except FloorError as exc:
                preview_error = exc.message
        buttons = (
            ButtonState.objects.select_related("button_seat", "kill_seat", "sitting_out_seat")
            .filter(table=table)
            .first()
        )
        spec = POT_GAMES.get(current.game.slug) if current is not None else None
        context = {
            "table": table,
            "chips": hand_flow.table_chips(table=table),
            "buttons": buttons,
            "preview": preview,
            "preview_error": preview_error,
            "hand": hand,
            "in_progress": in_progress,
            "game_kind": current.game.kind if current is not None else table.game.kind,
            "game_slug": current.game.slug if current is not None else table.game.slug,
            # The card picker offers the joker only when it is in this hand's deck.
            "joker": current is not None and current.joker,
            "has_board": bool(spec and spec.board),
            "hole_cards": spec.hole if spec else 0,
            "board_cards": spec.board
            if spec
            else (5 if (current and current.game.slug == "taiwanese-poker") else 0),
            "payments": _payments(hand) if hand else [],
            "readings": _readings(hand) if hand else [],
            "sweeps": SWEEP_CHOICES,
            "misdeal_form": MisdealForm(),
            "can_run": request.user.has_perm("tables.run_hand"),
            "can_manage": request.user.has_perm("tables.manage_floor"),
            "pot_kind": GameKind.POT,
        }
        return render(request, "tables/terminal.html", context)


class RunHandMixin(PermissionRequiredMixin):
    permission_required = "tables.run_hand"


class StartHandView(RunHandMixin, View):
    """GET: the fees of the next hand, to confirm; POST: deal (fees collected first)."""

    def get(self, request: HttpRequest, number: int) -> HttpResponse:
        table = _table(number)
        try:
            plan = hand_flow.preview_fees(table=table)
        except FloorError as exc:
            refusal(request, exc)
            return HttpResponseRedirect(_terminal_url(number))
        return render(request, "tables/start_hand.html", {"table": table, "plan": plan})

    def post(self, request: HttpRequest, number: int) -> HttpResponse:
        table = _table(number)
        try:
            hand = hand_flow.start_hand(
                table=table, by=request.user, expected_fees=_fees_as_shown(request.POST)
            )
        except FeesChanged as exc:
            # Show the new fees to confirm again (the start page reads them afresh).
            refusal(request, exc)
            return HttpResponseRedirect(reverse("tables:start-hand", args=[number]))
        except (FloorError, LedgerError) as exc:
            refusal(request, exc)
        else:
            messages.success(request, f"Hand {hand.number} dealt; fees collected.")
        return HttpResponseRedirect(_terminal_url(number))


def _fees_as_shown(data: Any) -> dict[int, int]:
    """The fees the start page showed, from its ``fee-<seat>`` fields (cents). A field that isn't a
    whole number is no fee the dealer saw: it is dropped, so the deal is refused as changed."""
    fees: dict[int, int] = {}
    for name, value in data.items():
        seat, cents = whole_number(name.removeprefix("fee-")), whole_number(value)
        if name.startswith("fee-") and seat is not None and cents is not None:
            fees[seat] = cents
    return fees


class ShowdownView(RunHandMixin, View):
    """POST the exposed cards (and put-ins): the engine's reading is kept for confirmation."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        hand = _hand(pk)
        seats = list(hand.players.order_by("position").values_list("seat__number", flat=True))
        spec = POT_GAMES.get(hand.game.slug)
        try:
            submitted = showdown_from_post(
                game_kind=hand.game.kind,
                game_slug=hand.game.slug,
                seats=seats,
                has_board=bool(spec and spec.board),
                data=request.POST,
            )
            hand_flow.submit_showdown(hand=hand, submitted=submitted, by=request.user)
        except (PageInputError, FloorError, LedgerError) as exc:
            refusal(request, exc)
        return HttpResponseRedirect(_terminal_url(hand.table.number))


class ConfirmView(RunHandMixin, View):
    """POST: post the reading (revision as shown) and settle. Idempotent in the service."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        hand = _hand(pk)
        try:
            result = hand_flow.confirm_settlement(
                hand=hand, by=request.user, revision=whole_number(request.POST.get("revision"))
            )
        except (FloorError, LedgerError) as exc:
            refusal(request, exc)
        else:
            if getattr(result, "was_replayed", False):
                messages.info(request, f"Hand {hand.number} was already settled; nothing was posted again.")
            else:
                messages.success(request, f"Hand {hand.number} settled.")
        return HttpResponseRedirect(_terminal_url(hand.table.number))


class MisdealView(RunHandMixin, View):
    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        hand = _hand(pk)
        form = MisdealForm(request.POST)
        if not form.is_valid():
            messages.error(request, "A misdeal needs a reason.")
        else:
            try:
                hand_flow.misdeal(hand=hand, reason=form.cleaned_data["reason"], by=request.user)
            except (FloorError, LedgerError) as exc:
                refusal(request, exc)
            else:
                messages.success(request, f"Hand {hand.number} is void (misdeal).")
        return HttpResponseRedirect(_terminal_url(hand.table.number))
