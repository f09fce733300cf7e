"""Report pages (under ``/reports/``). Every page needs a login (``LoginRequiredMiddleware``) and
``ledger.view_reports``; entering drop counts, corrections, sign-offs, waivers and closing a shift
need their own ``add_*``/``sign_off_variance`` permissions (docs/reports.md). Views only read
input, call a report builder or a service, and render.

Every report page shows its filters, the time it was made, the software version and the sha256 of
its CSV export; ``?format=csv`` downloads that export of the same report (one CSV per table: a
report of several tables downloads as a zip of them; ``X-Content-SHA256`` carries the file's own
digest) when it holds at most ``exports.INLINE_CSV_MAX_ROWS`` rows. ``?format=pdf``, and a bigger
CSV, is never built in the request: it is queued as a background export and the browser is sent to
that export's page, which polls until the file is ready (docs/reports.md, "Bounded work"). Periods
and page sizes are held to ``backoffice.reports.limits``; report pages, exports and downloads count
against the user's rates (``web.common.throttles``); a report built now takes a slot, per user and
in all, and is held to the report time limit (``web.common.slots``: 429/503 pages with
``Retry-After``, or the 503 "took too long" page saying to narrow the dates or export it). Hand
history and the journal are paged: their page exports cover the page; a whole-period export is
requested in the background (``exports``).
Every hand a report names links to its entry in the hand history (``reports:hand``): its cards, the
reading and the ledger's postings. No page or download is stored by a browser or proxy
(``Cache-Control: no-store``, :class:`ReportPermission`).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.mixins import PermissionRequiredMixin
from django.db import transaction
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views import View

from backoffice import charts, exports, integrity_status, tasks
from backoffice.closing import close_shift, frozen_matches_live
from backoffice.drop_counts import correct_drop_count, record_drop_count, sign_off_variance
from backoffice.reports import changes, collection, downs, drops, hands, journal, limits, statement
from backoffice.reports.common import (
    MAX_THRESHOLD_BP,
    ReportFilterError,
    ReportFilters,
    paging_param,
    parse_whole,
)
from backoffice.reports.table_names import chain_label, chain_names, named_heads
from backoffice.reports.time_limit import ReportTimedOut
from backoffice.waivers import waive_fee
from ledger.errors import RecordError
from ledger.models import (
    DropCount,
    ExportStatus,
    IntegrityCheck,
    IntegrityScope,
    ReportExport,
    ReportKind,
    ShiftClose,
)
from ledger.shifts import Shift
from tables.models import Hand, Player, Table
from web.common import slots, throttles
from web.common.no_store import NoStorePageMixin
from web.common.throttles import page_throttled
from web.reports.forms import (
    CloseShiftForm,
    DropCorrectionForm,
    DropCountForm,
    ExportRequestForm,
    FilterForm,
    SignOffForm,
    WaiverForm,
)

VIEW_REPORTS = "ledger.view_reports"


class ReportPermission(PermissionRequiredMixin, NoStorePageMixin):
    """403 for a signed-in user without the permission (anonymous users never get here: the
    login middleware sends them to the login page). Every answer, a page or a download, is marked
    ``Cache-Control: no-store`` (the one mixin, :class:`web.common.no_store.NoStorePageMixin`):
    reports are not kept by a browser or a proxy."""

    permission_required: Any = VIEW_REPORTS
    raise_exception = True


class ReportPage(ReportPermission, View):
    """A report page: filters from the query string, the report, its export checksum; ``format``
    csv/pdf downloads the export instead."""

    kind: str
    template_name: str
    paged = False
    # A report the background exports know (``ReportKind``): the page offers to export its period.
    can_export = True
    # A paged report's page size when the query names none (its PDF is of the page shown).
    default_limit: int | None = None

    def build(self, filters: ReportFilters, request: HttpRequest) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def extra_context(self, report: Any) -> dict[str, Any]:
        return {}

    def params(self, request: HttpRequest) -> QueryDict:
        """The query the report is built from (the page's query string)."""
        return request.GET

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        self.kwargs = kwargs
        params = self.params(request)
        export_format = params.get("format", "")
        try:
            filters = limits.asked_filters(params)
            if export_format == "pdf":  # never laid out in the request: queued, and polled for
                return self.queue(request, params, export_format)
            if throttled := page_throttled(request, throttles.REPORTS):
                return throttled
            # Built in a slot, under the report time limit (web.common.slots).
            with slots.heavy_report(request.user):
                return self.answer(request, params, filters, export_format)
        except ReportFilterError as exc:
            context = {"form": FilterForm(params), "errors": exc.errors, "kind": self.kind}
            return render(request, "reports/filter_error.html", context, status=400)
        except slots.SlotsFull as exc:
            return busy_page(request, exc)
        except ReportTimedOut as exc:
            context = {"message": exc.message, "kind": self.kind, "form": FilterForm(params)}
            return render(request, "reports/timed_out.html", context, status=exc.status)

    def answer(
        self, request: HttpRequest, params: QueryDict, filters: ReportFilters, export_format: str
    ) -> HttpResponseBase:
        """The report built now: its page, or its CSV (inline when small, else queued)."""
        report = self.build(filters, request)
        report, csv_data = exports.with_download_sha(report)
        if export_format == "csv":
            if exports.row_count(report) > exports.INLINE_CSV_MAX_ROWS:
                return self.queue(request, params, export_format)
            return self.inline_csv(request, report, csv_data, params)
        # Each parameter's last value, as QueryDict.dict() gives.
        query = {key: str(value) for key, value in params.dict().items()}
        query.pop("format", None)
        context = {
            "report": report,
            "meta": report.meta,
            "filters": filters,
            "form": FilterForm(params or filters.as_params()),
            "kind": self.kind,
            "csv_url": "?" + urlencode({**query, "format": "csv"}),
            "pdf_url": "?" + urlencode({**query, "format": "pdf"}),
            "export_params": {key: value for key, value in query.items() if key not in {"offset", "limit"}},
            "can_export": self.can_export,
        }
        context.update(self.extra_context(report))
        return render(request, self.template_name, context)

    def page_params(self, params: QueryDict) -> dict[str, str]:
        """The export parameters of what the page shows: its query without ``format``, and for a
        paged report its page (``offset``, ``limit``) even when the query leaves them to defaults."""
        query = {key: str(value) for key, value in params.dict().items() if key != "format"}
        if self.default_limit is not None and "hand" not in query:
            query.setdefault("offset", "0")
            query.setdefault("limit", str(self.default_limit))
            limits.check_page_size(_whole(query["limit"], "limit"))
        return query

    def queue(self, request: HttpRequest, params: QueryDict, export_format: str) -> HttpResponse:
        """The page's download as a background export (``exports.queue_export``): the same
        user's identical one still waiting, or a new one queued on commit; the answer sends the
        browser to the export's page, which polls until the file is ready. Nothing of the report
        is built here."""
        with transaction.atomic():
            export, created = exports.queue_export(
                kind=self.kind, export_format=export_format, params=self.page_params(params), by=request.user
            )
            if created:
                if throttled := page_throttled(request, throttles.EXPORTS):
                    transaction.set_rollback(True)
                    return throttled
                tasks.enqueue_export(export)
        return redirect("reports:export-download", pk=export.pk)

    def inline_csv(self, request: HttpRequest, report: Any, data: bytes, params: QueryDict) -> HttpResponse:
        """The page's CSV export, built already for its SHA-256 (at most ``INLINE_CSV_MAX_ROWS``
        rows), as a download."""
        if throttled := page_throttled(request, throttles.DOWNLOADS):
            return throttled
        content_type = exports.content_type_of(data, "csv")
        extension = "zip" if content_type == "application/zip" else "csv"
        return exports.download_response(
            data, content_type, exports.filename_for(self.kind, params, extension)
        )


def busy_page(request: HttpRequest, full: slots.SlotsFull) -> HttpResponse:
    """The page of a report refused for want of a slot: 429 (yours) or 503 (the server's), with
    ``Retry-After`` and the same words as the API's body."""
    context = {"detail": full.detail, "seconds": full.wait, "mine": full.mine}
    response = render(request, "reports/busy.html", context, status=full.status_code)
    response["Retry-After"] = str(full.wait)
    return response


def _pages(report: Any, request: HttpRequest) -> dict[str, Any]:
    query = request.GET.copy()
    query.pop("format", None)
    links: dict[str, Any] = {"first": report.offset + 1, "last": report.offset + report.limit}
    if report.offset > 0:
        query["offset"] = str(max(report.offset - report.limit, 0))
        links["previous_url"] = "?" + query.urlencode()
    if report.offset + report.limit < report.total:
        query["offset"] = str(report.offset + report.limit)
        links["next_url"] = "?" + query.urlencode()
    links["last"] = min(links["last"], report.total)
    return {"pages": links}


def _whole(raw: str, name: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise ReportFilterError({name: "must be a number"}) from None


def _int(request: HttpRequest, name: str, default: int) -> int:
    """A paging parameter (``offset``, ``limit``): the API's reading (:func:`paging_param`)."""
    return paging_param(request.GET, name, default)


def replay_hands(check: IntegrityCheck | None) -> list[dict[str, Any]]:
    """The hands a failed replay check names (``hand_id``, ``table``, ``hand``), each once, in order."""
    if check is None or check.ok:
        return []
    found: dict[int, dict[str, Any]] = {}
    for problem in check.problems:
        if isinstance(problem, dict) and isinstance(problem.get("hand_id"), int):
            entry = found.setdefault(problem["hand_id"], {**problem, "codes": []})
            entry["codes"].append(problem.get("code", ""))
    return list(found.values())


class IndexView(ReportPermission, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        replay = integrity_status.latest_check(IntegrityScope.REPLAY)
        context = {
            "last_check": integrity_status.latest_check(IntegrityScope.LEDGER),
            "replay_check": replay,
            "replay_hands": replay_hands(replay),
            "closes": ShiftClose.objects.defer("export_csv", "export_zip").order_by("-shift_date", "-pk")[:9],
            "exports": ReportExport.objects.order_by("-requested_at", "-pk")[:10],
            "kinds": ReportKind.choices,
        }
        return render(request, "reports/index.html", context)


class CollectionView(ReportPage):
    kind = ReportKind.COLLECTION
    template_name = "reports/collection.html"

    def build(self, filters: ReportFilters, request: HttpRequest) -> Any:
        return collection.build_collection_report(filters)

    def extra_context(self, report: Any) -> dict[str, Any]:
        return {
            "hour_chart": charts.bar_chart(
                report.by_hour, title="Net fees by hour of the hand's start (room clock)"
            ),
            "table_chart": charts.bar_chart(report.by_table, title="Net fees by table"),
        }


class HandHistoryView(ReportPage):
    kind = ReportKind.HAND_HISTORY
    template_name = "reports/hands.html"
    default_limit = hands.DEFAULT_LIMIT

    def build(self, filters: ReportFilters, request: HttpRequest) -> Any:
        self.request = request
        limit = limits.check_page_size(_int(request, "limit", hands.DEFAULT_LIMIT))
        return hands.build_hand_history(filters, offset=_int(request, "offset", 0), limit=limit)

    def extra_context(self, report: Any) -> dict[str, Any]:
        return _pages(report, self.request)


class HandView(ReportPage):
    """``/reports/hands/<id>/``: one hand's entry in the hand history (the period is the hand's
    business date), where every report's hand number leads."""

    kind = ReportKind.HAND_HISTORY
    template_name = "reports/hand.html"
    can_export = False

    def params(self, request: HttpRequest) -> QueryDict:
        hand = get_object_or_404(Hand, pk=self.kwargs["hand_id"])
        day = Shift.at(hand.created_at).business_date.isoformat()
        params = QueryDict(mutable=True)
        params.update(
            {"date_from": day, "date_to": day, "table": str(hand.table.number), "hand": str(hand.pk)}
        )
        if request.GET.get("format"):
            params["format"] = request.GET["format"]
        return params

    def build(self, filters: ReportFilters, request: HttpRequest) -> Any:
        return hands.build_hand_history(filters, hand_id=self.kwargs["hand_id"], limit=1)


class DownsView(ReportPage):
    """``/reports/downs/``: the dealers' downs (``?dealer=<username>`` for one dealer); its whole
    period exports in the background like every report's (``ReportKind.DEALER_DOWNS``)."""

    kind = ReportKind.DEALER_DOWNS
    template_name = "reports/downs.html"

    def build(self, filters: ReportFilters, request: HttpRequest) -> Any:
        return downs.build_downs_report(filters, dealer=request.GET.get("dealer", ""))


class JournalView(ReportPage):
    kind = ReportKind.JOURNAL
    template_name = "reports/journal.html"
    default_limit = journal.DEFAULT_LIMIT

    def build(self, filters: ReportFilters, request: HttpRequest) -> Any:
        self.request = request
        limit = limits.check_page_size(_int(request, "limit", journal.DEFAULT_LIMIT))
        return journal.build_journal(filters, offset=_int(request, "offset", 0), limit=limit)

    def extra_context(self, report: Any) -> dict[str, Any]:
        return _pages(report, self.request)


class PlayerStatementView(ReportPage):
    kind = ReportKind.PLAYER_STATEMENT
    template_name = "reports/statement.html"

    def build(self, filters: ReportFilters, request: HttpRequest) -> Any:
        player = get_object_or_404(Player, pk=self.kwargs["player_id"])
        return statement.build_player_statement(player, filters)

    def extra_context(self, report: Any) -> dict[str, Any]:
        return {"export_params_extra": {"player": report.player_id}}

    def page_params(self, params: QueryDict) -> dict[str, str]:
        return {**super().page_params(params), "player": str(self.kwargs["player_id"])}


class PlayerSearchView(ReportPermission, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        text = request.GET.get("q", "").strip()
        found = (
            Player.objects.filter(Q(name__icontains=text) | Q(member_number=text)).order_by("name", "pk")[
                :100
            ]
            if text
            else []
        )
        return render(request, "reports/players.html", {"q": text, "players": found})


class IntegrityView(ReportPermission, View):
    """The integrity page shows the stored checks (``integrity_status.build_status``, as the API does:
    the latest, its first problems and their count, what each part verified and when) and never
    verifies inside the request: "Run the full check now" queues it for the worker
    (``integrity_status.queue_full_check``) and the page polls (htmx, ``?status=1&after=<id>``)
    until its result is stored."""

    def get(self, request: HttpRequest) -> HttpResponse:
        after = _int(request, "after", -1)
        if request.GET.get("status"):
            requested = integrity_status.requested_check(after)
            return render(request, "reports/_integrity_full.html", _full_check_context(requested))
        status = integrity_status.build_status(after=after if after >= 0 else None)
        replay = integrity_status.latest_check(IntegrityScope.REPLAY)
        check = status.last_check
        context = {
            "check": check,
            # The ledger's chain keys name tables by database id: shown with the table's number.
            "heads": named_heads(check.anchors) if check else [],
            "problems": _named_problems(check.problems) if check else [],
            "checkpoints": status.checkpoints,
            "replay_check": replay,
            "replay_hands": replay_hands(replay),
            "kind": ReportKind.INTEGRITY,
            **(_full_check_context(status.requested) if status.requested else {}),
        }
        return render(request, "reports/integrity.html", context)

    def post(self, request: HttpRequest) -> HttpResponse:
        with transaction.atomic():
            queued = integrity_status.queue_full_check(by=request.user)
        return redirect(reverse("reports:integrity") + "?" + urlencode({"after": queued.after}))


def _named_problems(problems: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A stored check's problems, each naming its chain's table (``where``: "Table 7 (chain
    table:8)") when it names a chain."""
    names = chain_names(str(p["chain"]) for p in problems if p.get("chain"))
    return [
        {**p, "where": chain_label(str(p["chain"]), names[str(p["chain"])]) if p.get("chain") else ""}
        for p in problems
    ]


def _full_check_context(requested: integrity_status.RequestedCheck) -> dict[str, Any]:
    """The full check asked for: done (``full_check``) or still running (the fragment polls)."""
    return {"waiting": True, "waiting_after": requested.after, "full_check": requested.check}


class DropVarianceView(ReportPage):
    kind = ReportKind.DROP_VARIANCE
    template_name = "reports/drops.html"

    def build(self, filters: ReportFilters, request: HttpRequest) -> Any:
        raw = request.GET.get("threshold_bp", "")
        threshold = parse_whole(raw, "threshold_bp", maximum=MAX_THRESHOLD_BP) if raw.strip() else None
        return drops.build_drop_variance_report(filters, threshold_bp=threshold)


class ChangeLogView(ReportPage):
    kind = ReportKind.CONFIG_CHANGES
    template_name = "reports/changes.html"

    def build(self, filters: ReportFilters, request: HttpRequest) -> Any:
        return changes.build_change_log(filters)


# --- Records: drop counts, corrections, sign-offs, waivers, shift closes -----------------------------


class RecordFormView(ReportPermission, View):
    """GET shows the form; POST validates it and calls the service. A ``RecordError`` is shown on
    the form (with a 400/403/409 status); success redirects with a message."""

    form_class: type
    template_name = "reports/record_form.html"
    title = ""

    def context(self, form: Any) -> dict[str, Any]:
        return {"form": form, "title": self.title}

    def initial(self) -> dict[str, Any]:
        return {}

    def get(self, request: HttpRequest, **kwargs: Any) -> HttpResponse:
        self.kwargs = kwargs
        return render(request, self.template_name, self.context(self.form_class(initial=self.initial())))

    def post(self, request: HttpRequest, **kwargs: Any) -> HttpResponse:
        self.kwargs = kwargs
        form = self.form_class(request.POST)
        if not form.is_valid():
            return render(request, self.template_name, self.context(form), status=400)
        try:
            message, target = self.save(form.cleaned_data, request)
        except RecordError as exc:
            form.add_error(None, str(exc))
            return render(request, self.template_name, self.context(form), status=exc.status)
        messages.success(request, message)
        return redirect(target)

    def save(self, data: dict[str, Any], request: HttpRequest) -> tuple[str, str]:  # pragma: no cover
        raise NotImplementedError


def _table(number: int) -> Table:
    table = Table.objects.filter(number=number).first()
    if table is None:
        raise RecordError(f"there is no table {number}", code="table_not_found", field="table")
    return table


class DropCountCreateView(RecordFormView):
    permission_required = (VIEW_REPORTS, "ledger.add_dropcount")
    form_class = DropCountForm
    title = "Enter a drop count"

    def initial(self) -> dict[str, Any]:
        return {key: self.request.GET.get(key) for key in ("table", "shift") if self.request.GET.get(key)}

    def save(self, data: dict[str, Any], request: HttpRequest) -> tuple[str, str]:
        count = record_drop_count(
            table=_table(data["table"]),
            shift=data["shift"],
            amount_cents=data["amount"],
            counter_one=data["counter_one"],
            counter_two=data["counter_two"],
            note=data["note"],
            by=request.user,
        )
        return f"Drop count {count.pk} recorded.", _drops_url(count)


def _drops_url(count: DropCount) -> str:
    day = count.shift_date.isoformat()
    return reverse("reports:drops") + "?" + urlencode({"date_from": day, "date_to": day})


class DropCountCorrectView(RecordFormView):
    permission_required = (VIEW_REPORTS, "ledger.add_dropcount")
    form_class = DropCorrectionForm
    title = "Correct a drop count"

    def context(self, form: Any) -> dict[str, Any]:
        return {**super().context(form), "count": get_object_or_404(DropCount, pk=self.kwargs["pk"])}

    def save(self, data: dict[str, Any], request: HttpRequest) -> tuple[str, str]:
        count = get_object_or_404(DropCount, pk=self.kwargs["pk"])
        new = correct_drop_count(
            count=count,
            amount_cents=data["amount"],
            counter_one=data["counter_one"],
            counter_two=data["counter_two"],
            reason=data["reason"],
            note=data["note"],
            by=request.user,
        )
        return f"Drop count {count.pk} corrected by record {new.pk}.", _drops_url(new)


class SignOffView(RecordFormView):
    permission_required = (VIEW_REPORTS, "ledger.sign_off_variance")
    form_class = SignOffForm
    title = "Sign off a drop variance"

    def context(self, form: Any) -> dict[str, Any]:
        return {**super().context(form), "count": get_object_or_404(DropCount, pk=self.kwargs["pk"])}

    def save(self, data: dict[str, Any], request: HttpRequest) -> tuple[str, str]:
        count = get_object_or_404(DropCount, pk=self.kwargs["pk"])
        sign_off = sign_off_variance(count=count, explanation=data["explanation"], by=request.user)
        return f"Variance of drop count {count.pk} signed off ({sign_off.variance_cents} cents).", _drops_url(
            count
        )


class WaiverCreateView(RecordFormView):
    permission_required = (VIEW_REPORTS, "ledger.add_feewaiver")
    form_class = WaiverForm
    title = "Record a fee not collected"

    def save(self, data: dict[str, Any], request: HttpRequest) -> tuple[str, str]:
        hand = Hand.objects.filter(pk=data["hand"]).select_related("table").first()
        player = Player.objects.filter(pk=data["player"]).first()
        if hand is None or player is None:
            raise RecordError("no such hand or player", code="not_found")
        waiver = waive_fee(
            hand=hand, player=player, amount_cents=data["amount"], reason=data["reason"], by=request.user
        )
        day = hand.created_at.date().isoformat()
        return (
            f"Waiver {waiver.pk} recorded.",
            reverse("reports:collection") + "?" + urlencode({"date_from": day, "date_to": day}),
        )


def _closes() -> QuerySet[ShiftClose]:
    """The latest 200 shift closes for a list, without their sealed files."""
    return ShiftClose.objects.select_related("closed_by").defer("export_csv", "export_zip")[:200]


class ShiftCloseListView(ReportPermission, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        return render(request, "reports/shifts.html", {"closes": _closes(), "form": CloseShiftForm()})

    def post(self, request: HttpRequest) -> HttpResponse:
        if not request.user.has_perm("ledger.add_shiftclose"):
            return HttpResponse("Your role may not close shifts.", status=403)
        form = CloseShiftForm(request.POST)
        if not form.is_valid():
            return render(request, "reports/shifts.html", {"closes": _closes(), "form": form}, status=400)
        try:
            closed = close_shift(shift=form.cleaned_data["shift"], by=request.user)
        except RecordError as exc:
            form.add_error("shift", str(exc))
            return render(
                request, "reports/shifts.html", {"closes": _closes(), "form": form}, status=exc.status
            )
        verb = "was already closed" if closed.replayed else "is closed"
        messages.success(request, f"Shift {closed.close.shift} {verb}.")
        return redirect("reports:shift", pk=closed.close.pk)


class ShiftCloseDetailView(ReportPermission, View):
    """A closed shift's frozen report; ``?format=csv`` downloads its sealed export, as stored: the
    zip of one CSV per table (a close from before the zip: its single CSV)."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        close = get_object_or_404(ShiftClose.objects.select_related("closed_by"), pk=pk)
        if request.GET.get("format") == "csv":
            return page_throttled(request, throttles.DOWNLOADS) or exports.download_response(
                *close.sealed_export()
            )
        return render(
            request,
            "reports/shift.html",
            {
                "close": close,
                "report": close.report,
                "matches_live": frozen_matches_live(close),
                "heads": named_heads(close.anchors),
            },
        )


# --- Background exports ----------------------------------------------------------------------------------


class ExportListView(ReportPermission, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        rows = ReportExport.objects.select_related("requested_by").defer("content")[:200]
        context = {
            "exports": rows,
            "form": ExportRequestForm(),
            "retention_days": exports.retention().days,
        }
        return render(request, "reports/exports.html", context)

    def post(self, request: HttpRequest) -> HttpResponse:
        form = ExportRequestForm(request.POST)
        params = {
            key: value
            for key, value in request.POST.items()
            if key not in {"kind", "format", "csrfmiddlewaretoken"}
        }
        if form.is_valid():
            if throttled := page_throttled(request, throttles.EXPORTS):
                return throttled
            try:
                with transaction.atomic():
                    export, created = exports.submit_export(
                        kind=form.cleaned_data["kind"],
                        export_format=form.cleaned_data["format"],
                        params=params,
                        by=request.user,
                    )
                    if created:  # else the same export is queued or being built: that one
                        tasks.enqueue_export(export)
            except ReportFilterError as exc:
                for field, message in exc.errors.items():
                    form.add_error(None, f"{field}: {message}")
            else:
                messages.success(request, f"Export {export.pk} requested; it is built in the background.")
                return redirect("reports:exports")
        rows = ReportExport.objects.select_related("requested_by").defer("content")[:200]
        return render(request, "reports/exports.html", {"exports": rows, "form": form}, status=400)


class ExportDownloadView(ReportPermission, View):
    """An export's file once it is built; until then the export's page, which polls (htmx, every
    two seconds: ``reports/_export_status.html``, answered alone to the poll's ``HX-Request``) and
    offers the download when it is ready. A failed export's page says why; an expired one answers
    410 (its file was dropped after ``EXPORT_RETENTION_DAYS``)."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponseBase:
        export = get_object_or_404(ReportExport.objects.defer("content"), pk=pk)
        expired = exports.is_expired(export)
        waiting = not expired and export.status in (ExportStatus.PENDING, ExportStatus.RUNNING)
        context = {
            "export": export,
            "expired": expired,
            "waiting": waiting,
            "expires_at": exports.expires_at(export),
        }
        if request.headers.get("HX-Request") == "true":
            return render(request, "reports/_export_status.html", context)
        if expired:
            return render(request, "reports/export_status.html", context, status=410)
        if export.status != ExportStatus.DONE:
            return render(request, "reports/export_status.html", context, status=202 if waiting else 200)
        if throttled := page_throttled(request, throttles.DOWNLOADS):
            return throttled
        stored = ReportExport.objects.get(pk=export.pk)
        if not exports.has_file(stored):
            raise Http404(f"export {export.pk}'s file is missing")
        return exports.export_response(stored)
