"""Floor manager pages: a table's seats and chips (open/close, seat, move, table change, unseat,
buy-in, rebuy, cash-out) and the collection schedules (list, history, a new version, the posted
table notice).

Input and output only: each POST calls one service (``tables.services``, ``handflow.services``)
and shows its refusal as a message; nothing is written when a service refuses. A chip movement
carries a token made when its form was drawn, so a double submit is one movement (the services'
idempotency key ``page:<token>``). A refused buy-in, rebuy or cash-out draws the page again (400)
with its form as it was typed.

Before a chip movement the page asks what the floor must answer first, on the page itself (the
form posted again with the answer, under the same token), one question at a time in this order:
"same person?" when a walk-in's name matches a player on file; a reason when the player sits at
another table (one table at a time); the player's identification when the movement takes the
gaming day's total in or out over the report threshold (:func:`tables.services.check_cash`); last,
a confirmation naming the player and the amount (``confirm=1``) for every cash-out and for a
buy-in or rebuy of a large amount (:func:`tables.chip_rules.large_amount_cents`). Each answer is
carried with the next question. An amount the table won't take is refused before anything is
asked. The answers and the movement are written together or not at all. The questions are the
page's courtesy: the money flow's services (:mod:`handflow.chips`) decide each rule again under
the table's lock, with the answers passed on (``new_player_confirmed``, ``elsewhere_reason``, the
identification recorded first), and a refusal there is asked as the same question.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.mixins import PermissionRequiredMixin
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.views import View

from backoffice.reports.changes import schedule_history
from casino.core.money import AmountError, format_cents, parse_dollars
from handflow import services as hand_flow
from handflow.services import Movement
from ledger import selectors as ledger_selectors
from ledger.errors import LedgerError
from tables import services
from tables.chip_rules import LARGE_AMOUNT_BUY_INS, large_amount_cents
from tables.errors import FloorError, IdentificationRequired, PossibleDuplicate, SeatedElsewhere
from tables.models import (
    CashDaySettings,
    ChipMovement,
    CollectionSchedule,
    IdentificationKind,
    Player,
    Seating,
    Table,
    TableStatus,
)
from tables.selectors import active_seatings, same_person_candidates
from tables.services import RATE_FIELDS
from web.common.no_store import NoStorePageMixin
from web.common.pages import PageInputError, refusal, whole_number
from web.floor.forms import ScheduleRevisionForm


def _paid(cents: int) -> str:
    """An amount of chips sold or cashed out as the floor's messages say it: always with cents
    (``$1,200.00``), the way the cashier counts it."""
    return format_cents(cents, always_cents=True)


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
#: The page's form of each chip action (``manage.html``: ``buy-in-form``, ``chips-form``).
_FORM_OF = {"buy_in": "buy_in", "rebuy": "chips", "cash_out": "chips"}


def _kept(data: Any) -> dict[str, dict[str, str]]:
    """A chip form's fields as posted, under the form they came from (``buy_in`` or ``chips``,
    by its ``action``), to draw the form again as it was typed."""
    typed = {key: str(data.get(key, "")) for key in ("player", "player_name", "seat_number", "amount")}
    return {_FORM_OF.get(data.get("action", ""), ""): typed}


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


#: The posted fields a question carries back with the answer (the same form, the same token).
_CARRIED = (
    "action",
    "token",
    "player",
    "player_name",
    "seat_number",
    "amount",
    "confirmed_new",
    "elsewhere_reason",
    "confirm",
)
#: The identification fields of the cash-per-gaming-day question (carried with a later question).
_ID_FIELDS = ("id_kind", "id_number", "id_issued_by", "id_expires_on")


class _Question(Exception):
    """The page must ask the floor first: ``kind`` (``same_person``, ``elsewhere``,
    ``identification``, ``large_amount``, ``cash_out``), its ``message``, for "same person?" the
    players on file, and for a confirmation (``large_amount``, ``cash_out``) the ``yes`` button's
    words (it posts the form again with ``confirm=1``)."""

    def __init__(
        self, kind: str, message: str, candidates: list[Player] | None = None, *, yes: str = ""
    ) -> None:
        super().__init__(message)
        self.kind, self.message, self.candidates, self.yes = kind, message, candidates or [], yes


def _question_of(
    exc: PossibleDuplicate | SeatedElsewhere | IdentificationRequired, walk_in: str, player: Player | None
) -> Exception:
    """The service's refusal as the page's question (the state changed since the page asked
    first): "same person?" with the players on file, the reason for a second table, the
    identification (of a player on file: a walk-in's is refused, see :meth:`_cash_check`)."""
    if isinstance(exc, PossibleDuplicate):
        return _Question("same_person", exc.message, same_person_candidates(name=walk_in))
    if isinstance(exc, SeatedElsewhere):
        return _Question("elsewhere", exc.message)
    return _Question("identification", exc.message) if player is not None else exc


class ManageTableView(NoStorePageMixin, PermissionRequiredMixin, View):
    """``/floor/tables/<number>/``: the floor manager's view of a table, and its actions; never kept
    by a browser or a proxy (its questions carry an identification's number)."""

    permission_required = "tables.manage_floor"

    def _context(self, table: Table, **extra: Any) -> dict[str, Any]:
        seated = list(active_seatings(table))  # by seat number
        return {
            "table": table,
            "chips": hand_flow.table_chips(table=table),
            "seatings": seated,
            "free_seats": sorted(set(range(1, table.seat_count + 1)) - {s.seat.number for s in seated}),
            # A merged record is chosen as the player it was merged into.
            "players": Player.objects.filter(merged_into__isnull=True).order_by("name")[:500],
            # Where a table change can go (the service refuses a full seat or chips that don't fit).
            "other_tables": Table.objects.filter(status=TableStatus.OPEN)
            .exclude(pk=table.pk)
            .select_related("game", "stakes")
            .order_by("number"),
            "token": uuid.uuid4().hex,
            "id_kinds": IdentificationKind.choices,
            **extra,
        }

    def get(self, request: HttpRequest, number: int) -> HttpResponse:
        return render(request, "tables/manage.html", self._context(_table(number)))

    def _ask(self, request: HttpRequest, table: Table, question: _Question) -> HttpResponse:
        """The page again, asking ``question`` with the posted form carried for the answer (and
        the answers given so far: an identification is carried with a later question)."""
        names = _CARRIED if question.kind == "identification" else (*_CARRIED, *_ID_FIELDS)
        carried = [(name, request.POST.get(name, "")) for name in names if request.POST.get(name)]
        context = self._context(table, question=question, carried=carried, kept=_kept(request.POST))
        return render(request, "tables/manage.html", context, status=409)

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
            elif action in CHIP_ACTIONS:
                self._chips(request, table, action)
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
                        f"with their chips ({_paid(chips)} there now).",
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
        except _Question as question:
            return self._ask(request, table, question)
        except (FloorError, LedgerError, PageInputError, AmountError) as exc:
            refusal(request, exc)
            if action in CHIP_ACTIONS:  # drawn again as typed: a walk-in's name, the amount, the seat
                context = self._context(table, kept=_kept(data))
                return render(request, "tables/manage.html", context, status=400)
        return HttpResponseRedirect(_manage_url(number))

    def _chips(self, request: HttpRequest, table: Table, action: str) -> None:
        """A buy-in (a walk-in's creates the player, in its transaction: a refused buy-in leaves
        no player behind), a rebuy or a cash-out, after the questions the floor must answer.

        The money flow's services decide (:mod:`handflow.chips`: "same person?", one table at a
        time, the identification); the page only asks first, and a refusal it did not foresee
        (the state changed since) comes back as the same question (:func:`_question_of`)."""
        data, by = request.POST, request.user
        key = _key(request, action)
        chosen = _int(data.get("player"))
        walk_in = "" if chosen is not None or action != "buy_in" else (data.get("player_name") or "").strip()
        player = None if walk_in else self._player(data)
        amount = (
            parse_dollars(data.get("amount", ""), what="amount", field="amount")
            if action != "cash_out"
            else ledger_selectors.player_chips(table=table, player=player)  # type: ignore[arg-type]
        )
        elsewhere = (data.get("elsewhere_reason") or "").strip()
        # A form posted again (the same token) is answered by the service's replay, not asked again.
        posted = ChipMovement.objects.filter(transaction__idempotency_key=key).exists()
        check = None if posted else self._ask_first(table, action, walk_in, player, amount, elsewhere, data)
        identify = check is not None and check.needs_identification
        try:
            with transaction.atomic():  # the answers and the movement, or nothing
                if identify:
                    self._identify(data, player, by)
                if action == "buy_in":
                    movement = hand_flow.buy_in(
                        table=table,
                        player=player,
                        new_player_name=walk_in or None,
                        new_player_confirmed=data.get("confirmed_new") == "1",
                        amount_cents=amount,
                        seat_number=_int(data.get("seat_number")),
                        elsewhere_reason=elsewhere,
                        by=by,
                        idempotency_key=key,
                    )
                    done = f"{movement.movement.player.name} bought in for {_paid(amount)}."
                elif action == "rebuy":
                    assert player is not None  # a rebuy names its player (self._player)
                    movement = hand_flow.rebuy(
                        table=table, player=player, amount_cents=amount, by=by, idempotency_key=key
                    )
                    done = f"{player.name} rebought for {_paid(amount)}."
                else:
                    assert player is not None
                    movement = hand_flow.cash_out(table=table, player=player, by=by, idempotency_key=key)
                    done = f"{player.name} cashed out {_paid(movement.movement.amount_cents)}."
        except (PossibleDuplicate, SeatedElsewhere, IdentificationRequired) as exc:
            raise _question_of(exc, walk_in, player) from None
        _done(request, movement, done)
        if check is not None and check.over_report_threshold and not movement.replayed:
            messages.warning(request, check.warning or "Over the report threshold today.")

    def _ask_first(
        self,
        table: Table,
        action: str,
        walk_in: str,
        player: Player | None,
        amount: int,
        elsewhere: str,
        data: Any,
    ) -> services.CashCheck | None:
        """The page's questions, one at a time, before the service is called (reads only; the
        service checks each again under its lock): "same person?" of a walk-in, then (after an
        amount the table refuses, refused before anything is asked) the reason for a second table,
        the identification, and last the confirmation. Returns the gaming day's check."""
        if walk_in and data.get("confirmed_new") != "1":
            same = same_person_candidates(name=walk_in)
            if same:
                raise _Question("same_person", f"Same person? {walk_in} may already be on file.", same)
        self._check_amount(table, action, player, amount)
        seated_here = (
            player is not None and Seating.objects.active().filter(table=table, player=player).exists()
        )
        if action == "buy_in" and player is not None and not seated_here:
            try:
                services.check_one_table(player=player, table=table, elsewhere_reason=elsewhere)
            except SeatedElsewhere as exc:
                raise _Question("elsewhere", exc.message) from None
        check = self._cash_check(player, action, amount)
        if check is not None and check.needs_identification and not (data.get("id_number") or "").strip():
            raise _Question("identification", check.warning)
        if data.get("confirm") != "1":
            self._confirm_first(table, action, walk_in or (player.name if player else ""), amount)
        return check

    @staticmethod
    def _check_amount(table: Table, action: str, player: Player | None, amount: int) -> None:
        """Refuse a buy-in or rebuy the table's chip rules refuse (the service checks again under
        its lock) before anything is asked about it: no question for an amount never sold."""
        if action == "cash_out":
            return
        chips = ledger_selectors.player_chips(table=table, player=player) if player is not None else 0
        rules = hand_flow.table_rules(table)
        if action == "buy_in":
            rules.check_buy_in(amount=amount, chips_before=chips)
        else:
            rules.classify_rebuy(amount=amount, chips_before=chips)

    @staticmethod
    def _confirm_first(table: Table, action: str, who: str, amount: int) -> None:
        """The last question: every cash-out (of any chips: with none, the service refuses, saying
        so), and a buy-in or rebuy of more than the table's large amount, named with the player
        and the amount; answered by the same form with ``confirm=1``."""
        if action == "cash_out":
            if amount > 0:
                raise _Question(
                    "cash_out",
                    f"Cash out {who}: {_paid(amount)}, all their chips at table {table.number}? "
                    "They leave the table.",
                    yes=f"Yes, cash out {_paid(amount)}",
                )
            return
        rules = hand_flow.table_rules(table)
        buy_ins = int(getattr(settings, "FLOOR_CONFIRM_BUY_INS", LARGE_AMOUNT_BUY_INS))
        large = large_amount_cents(
            minimum_cents=rules.minimum_cents, maximum_cents=rules.maximum_cents, buy_ins=buy_ins
        )
        if large is not None and amount > large:
            what = "Buy in" if action == "buy_in" else "Rebuy"
            minimum = rules.minimum_cents
            raise _Question(
                "large_amount",
                f"{what} {who} for {_paid(amount)} at table {table.number}? That is more than "
                f"{_paid(large)}, {buy_ins} times the minimum buy-in of {_paid(minimum)}.",
                yes=f"Yes, {_paid(amount)}",
            )

    @staticmethod
    def _cash_check(player: Player | None, action: str, amount: int) -> services.CashCheck | None:
        """The gaming day's check of the movement; asks for the identification it needs."""
        if amount <= 0:
            return None  # the service refuses it with its own message
        if player is None:
            rules = CashDaySettings.current()
            if amount > rules.report_threshold_cents:
                raise PageInputError(
                    f"A buy-in over {format_cents(rules.report_threshold_cents)} needs the player's "
                    "identification: add the player on the Players page first, then buy in."
                )
            return None
        return services.check_cash(player=player, kind=action, amount_cents=amount)

    @staticmethod
    def _identify(data: Any, player: Player | None, by: Any) -> None:
        """Record the identification the question asked for (in the movement's transaction)."""
        assert player is not None  # only a player on file is asked for it (_cash_check)
        expires = (data.get("id_expires_on") or "").strip()
        try:
            expires_on = dt.date.fromisoformat(expires) if expires else None
        except ValueError:
            raise PageInputError(f"Expires on: {expires!r} is not a date (YYYY-MM-DD).") from None
        services.record_identification(
            player=player,
            kind=data.get("id_kind", ""),
            number=data.get("id_number", ""),
            issued_by=data.get("id_issued_by", ""),
            expires_on=expires_on,
            by=by,
        )

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
