"""The ledger's REST API (under ``/api/ledger/``): every report as JSON, export requests, and the
report records (drop counts, corrections, sign-offs, fee waivers, shift closes, integrity checks).

Permissions per action (``action_permissions``; unlisted actions are refused): reading needs
``ledger.view_reports``; writing needs the record's ``add_*`` permission (a sign-off
``ledger.sign_off_variance``). Auditors read everything and write nothing. Errors are
``{"code", "detail"[, "field"]}`` (400/403/404/409); bad filters are 400 with ``errors`` by field
(``web.common.errors``, for the whole API). Nothing is stored by a browser or proxy (``Cache-Control:
no-store``, ``web.common.no_store.NoStoreMixin``).
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

from django.db import transaction
from django.http import HttpResponse, HttpResponseBase
from django.urls import reverse
from django.utils.http import urlencode
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice import exports, integrity_status, tasks
from backoffice.closing import close_shift
from backoffice.drop_counts import correct_drop_count, record_drop_count, sign_off_variance
from backoffice.reports import changes, collection, downs, drops, hands, journal, limits, statement
from backoffice.reports.common import (
    MAX_OFFSET,
    MAX_THRESHOLD_BP,
    ReportFilters,
    parse_whole,
)
from backoffice.waivers import waive_fee
from ledger.errors import RecordNotFound
from ledger.models import DropCount, ExportStatus, FeeWaiver, IntegrityCheck, ReportExport, ShiftClose
from tables.models import Hand, Player, Table
from web.common import slots
from web.common.no_store import NoStoreMixin
from web.common.permissions import ActionPermissionMixin
from web.common.throttles import DOWNLOADS, EXPORTS, REPORTS, HeavyRequestThrottle
from web.reports import serializers

VIEW = ["ledger.view_reports"]

FILTER_PARAMETERS = [
    OpenApiParameter(
        "date_from", OpenApiTypes.DATE, description="First business date (room clock); default today."
    ),
    OpenApiParameter(
        "date_to", OpenApiTypes.DATE, description="Last business date (inclusive); default date_from."
    ),
    OpenApiParameter(
        "shift",
        OpenApiTypes.STR,
        description="grave, day or swing (each date's shift), or a key YYYY-MM-DD/code (that one shift).",
    ),
    OpenApiParameter(
        "table", OpenApiTypes.STR, description="Table numbers, comma-separated; empty: all tables."
    ),
]
PAGE_PARAMETERS = [
    OpenApiParameter("offset", OpenApiTypes.INT, description="Rows to skip."),
    OpenApiParameter("limit", OpenApiTypes.INT, description=f"Rows to return: 1 to {limits.MAX_PAGE_SIZE}."),
]
ERRORS = {
    400: OpenApiResponse(
        serializers.LedgerFilterErrorSerializer,
        description=f"Bad filters or input (a period over {limits.MAX_PERIOD_DAYS} days, a page over "
        f"{limits.MAX_PAGE_SIZE} rows)",
    ),
    403: OpenApiResponse(serializers.LedgerErrorSerializer, description="Not allowed for your role"),
}
THROTTLED = {
    429: OpenApiResponse(
        serializers.LedgerErrorSerializer,
        description="Too many such requests from you for now (code throttled), or a report of yours "
        "still being built (code reports_running); Retry-After: when to retry",
    ),
}
BUSY = {
    503: OpenApiResponse(
        serializers.LedgerErrorSerializer,
        description="The server builds as many reports at once as it allows (code reports_busy; "
        "Retry-After: when to retry), or the report ran past its time limit and was stopped (code "
        "report_timeout): ask for fewer dates or export it in the background",
    ),
}
RECORD_ERRORS = {
    400: OpenApiResponse(serializers.LedgerErrorSerializer, description="Invalid input"),
    403: OpenApiResponse(
        serializers.LedgerErrorSerializer, description="Not allowed for your role or for you"
    ),
    404: OpenApiResponse(
        serializers.LedgerErrorSerializer, description="Unknown table, hand, player or record"
    ),
    409: OpenApiResponse(
        serializers.LedgerErrorSerializer, description="Conflicts with the records as they stand"
    ),
}


def _not_found(what: str) -> RecordNotFound:
    return RecordNotFound(f"There is no {what}.")


def _filters(request: Request) -> ReportFilters:
    return limits.asked_filters(request.query_params)


class ScopedThrottleMixin(APIView):
    """Per-user rates (``web.common.throttles``) of the actions named in ``throttle_scopes``; the others
    aren't limited."""

    throttle_scopes: dict[str, str] = {}

    def get_throttles(self) -> list[Any]:
        scope = self.throttle_scopes.get(getattr(self, "action", None) or "")
        if scope is None:
            return []
        self.throttle_scope = scope
        return [HeavyRequestThrottle()]


def _int_param(request: Request, name: str, default: int, maximum: int = MAX_OFFSET) -> int:
    """A whole-number query parameter as the report pages read it (:func:`parse_whole`)."""
    raw = request.query_params.get(name)
    if raw is None or not raw.strip():
        return default
    return parse_whole(raw, name, maximum=maximum)


class ReportViewSet(NoStoreMixin, ActionPermissionMixin, viewsets.ViewSet):
    """Each report as JSON, built now from the ledger and the floor (see docs/reports.md), but the
    integrity report, which is read from the stored checks (POST queues a full check for the
    worker); each counts against the user's ``reports`` rate (429 beyond). A report built now
    takes a slot (``web.common.slots``: 429 ``reports_running`` or 503 ``reports_busy`` when none is
    free) and is held to the report time limit (503 ``report_timeout``)."""

    throttle_classes = [HeavyRequestThrottle]
    throttle_scope = REPORTS
    #: The actions that build a report now (the integrity report reads stored checks).
    heavy_actions = frozenset(
        {"collection", "hands", "statement", "journal", "drop_variance", "config_changes", "dealer_downs"}
    )
    _held: ExitStack

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        """After the login, the permission and the rate: a heavy action's slot and time limit
        (``SlotsFull``: nothing taken, DRF answers 429/503)."""
        super().initial(request, *args, **kwargs)
        if self.action in self.heavy_actions:
            self._held.enter_context(slots.heavy_report(request.user))

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        """The slot :meth:`initial` took is given back however the request ends."""
        self._held = ExitStack()
        with self._held:
            return super().dispatch(request, *args, **kwargs)

    action_permissions = {
        "collection": VIEW,
        "hands": VIEW,
        "statement": VIEW,
        "journal": VIEW,
        "integrity": VIEW,
        "drop_variance": VIEW,
        "config_changes": VIEW,
        "dealer_downs": VIEW,
    }

    def _respond(self, report: Any, serializer: type) -> Response:
        report, _ = exports.with_download_sha(report)
        return Response(serializer(report).data)

    @extend_schema(
        summary="Collection report",
        parameters=FILTER_PARAMETERS,
        responses={200: serializers.CollectionReportSerializer, **ERRORS, **THROTTLED, **BUSY},
    )
    @action(detail=False, methods=["get"])
    def collection(self, request: Request) -> Response:
        return self._respond(
            collection.build_collection_report(_filters(request)), serializers.CollectionReportSerializer
        )

    @extend_schema(
        summary="Hand history (paged): cards as entered, the reading, pots or payments, ledger postings",
        parameters=[
            *FILTER_PARAMETERS,
            *PAGE_PARAMETERS,
            OpenApiParameter("hand", OpenApiTypes.INT, description="Only this hand (id), if in the period."),
        ],
        responses={200: serializers.HandHistorySerializer, **ERRORS, **THROTTLED, **BUSY},
    )
    @action(detail=False, methods=["get"])
    def hands(self, request: Request) -> Response:
        hand = request.query_params.get("hand")
        report = hands.build_hand_history(
            _filters(request),
            offset=_int_param(request, "offset", 0),
            limit=limits.check_page_size(_int_param(request, "limit", hands.DEFAULT_LIMIT)),
            hand_id=_int_param(request, "hand", 0) if hand not in (None, "") else None,
        )
        return self._respond(report, serializers.HandHistorySerializer)

    @extend_schema(
        summary="Player statement",
        parameters=[
            OpenApiParameter("player", OpenApiTypes.INT, required=True, description="Player id."),
            *FILTER_PARAMETERS,
        ],
        responses={
            200: serializers.PlayerStatementSerializer,
            404: serializers.LedgerErrorSerializer,
            **ERRORS,
            **THROTTLED,
            **BUSY,
        },
    )
    @action(detail=False, methods=["get"])
    def statement(self, request: Request) -> Response:
        player_id = _int_param(request, "player", 0)
        player = Player.objects.filter(pk=player_id).first()
        if player is None:
            raise _not_found(f"player {player_id}")
        return self._respond(
            statement.build_player_statement(player, _filters(request)), serializers.PlayerStatementSerializer
        )

    @extend_schema(
        summary="Ledger journal with running balances (paged)",
        parameters=[*FILTER_PARAMETERS, *PAGE_PARAMETERS],
        responses={200: serializers.JournalSerializer, **ERRORS, **THROTTLED, **BUSY},
    )
    @action(detail=False, methods=["get"])
    def journal(self, request: Request) -> Response:
        report = journal.build_journal(
            _filters(request),
            offset=_int_param(request, "offset", 0),
            limit=limits.check_page_size(_int_param(request, "limit", journal.DEFAULT_LIMIT)),
        )
        return self._respond(report, serializers.JournalSerializer)

    @extend_schema(
        methods=["GET"],
        summary="Integrity: the stored checks, what each part verified and when (answers at once)",
        description="Read from what the nightly and full checks stored, never by verifying in the "
        "request: the latest stored check of the books (its result, every problem counted in "
        "`problem_count`, the first `shown_problems` listed), the replay audit's, and the "
        "checkpoints (what each part verified, and when). With `after`, `requested` says whether "
        "the full check asked for (POST) is stored yet. A report with the chain heads signed now is "
        "an export (`POST /api/ledger/exports/`, report `integrity`), built in the background.",
        parameters=[
            OpenApiParameter(
                "after",
                OpenApiTypes.INT,
                description="Poll for the full check asked for after stored check `after` (the POST's "
                "answer gives the URL): `requested.done` turns true, with the check, once it is stored.",
            )
        ],
        responses={200: serializers.IntegrityStatusSerializer, **ERRORS, **THROTTLED},
    )
    @extend_schema(
        methods=["POST"],
        summary="Queue a full integrity check in the background; 202 with the URL to poll",
        description="The full check (every row, the database's guards) runs in the worker, queued "
        "once this request commits. While one asked for is still pending, nothing more is queued "
        "(`queued` false) and the same check is polled for. Poll `status_url` (also `Location`) "
        "until `requested.done`.",
        request=None,
        responses={202: serializers.IntegrityQueuedSerializer, 403: ERRORS[403], **THROTTLED},
    )
    @action(detail=False, methods=["get", "post"])
    def integrity(self, request: Request) -> Response:
        if request.method == "POST":
            with transaction.atomic():
                queued = integrity_status.queue_full_check(by=request.user)
            poll = request.build_absolute_uri(
                reverse("ledger-report-integrity") + "?" + urlencode({"after": queued.after})
            )
            body = {"after": queued.after, "queued": queued.queued, "status_url": poll}
            return Response(
                serializers.IntegrityQueuedSerializer(body).data,
                status=status.HTTP_202_ACCEPTED,
                headers={"Location": poll},
            )
        after = _int_param(request, "after", -1)  # a stored check's id: 0 or more; -1, not asked
        report = integrity_status.build_status(after=after if after >= 0 else None)
        return Response(serializers.IntegrityStatusSerializer(report).data)

    @extend_schema(
        summary="Drop count variance",
        parameters=[
            *FILTER_PARAMETERS,
            OpenApiParameter(
                "threshold_bp", OpenApiTypes.INT, description="Threshold in basis points (default 300)."
            ),
        ],
        responses={200: serializers.DropVarianceReportSerializer, **ERRORS, **THROTTLED, **BUSY},
    )
    @action(detail=False, methods=["get"], url_path="drop-variance")
    def drop_variance(self, request: Request) -> Response:
        raw = request.query_params.get("threshold_bp")
        threshold = (
            _int_param(request, "threshold_bp", 0, MAX_THRESHOLD_BP) if raw not in (None, "") else None
        )
        report = drops.build_drop_variance_report(_filters(request), threshold_bp=threshold)
        return self._respond(report, serializers.DropVarianceReportSerializer)

    @extend_schema(
        summary="Configuration change log",
        parameters=FILTER_PARAMETERS,
        responses={200: serializers.ChangeLogSerializer, **ERRORS, **THROTTLED, **BUSY},
    )
    @action(detail=False, methods=["get"], url_path="config-changes")
    def config_changes(self, request: Request) -> Response:
        return self._respond(changes.build_change_log(_filters(request)), serializers.ChangeLogSerializer)

    @extend_schema(
        summary="Dealers' downs: hands dealt, misdeals and fees per down",
        parameters=[
            *FILTER_PARAMETERS,
            OpenApiParameter("dealer", OpenApiTypes.STR, description="Only this dealer's downs (username)."),
        ],
        responses={200: serializers.DownsReportSerializer, **ERRORS, **THROTTLED, **BUSY},
    )
    @action(detail=False, methods=["get"], url_path="dealer-downs")
    def dealer_downs(self, request: Request) -> Response:
        report = downs.build_downs_report(_filters(request), dealer=request.query_params.get("dealer", ""))
        return self._respond(report, serializers.DownsReportSerializer)


@extend_schema_view(
    list=extend_schema(summary="Requested exports, newest first"),
    retrieve=extend_schema(summary="One export request and its status"),
)
class ReportExportViewSet(
    NoStoreMixin,
    ScopedThrottleMixin,
    ActionPermissionMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet[ReportExport],
):
    """Exports built in the background (``backoffice.tasks.build_export``); a built file is kept
    ``EXPORT_RETENTION_DAYS`` (then 410), the record never deleted. Requests count against the
    user's ``exports`` rate, downloads against ``downloads``."""

    throttle_scopes = {"create": EXPORTS, "download": DOWNLOADS}

    serializer_class = serializers.ReportExportSerializer
    queryset = (
        ReportExport.objects.select_related("requested_by").defer("content").order_by("-requested_at", "-pk")
    )
    action_permissions = {"list": VIEW, "retrieve": VIEW, "create": VIEW, "download": VIEW}

    @extend_schema(
        summary="Request an export (built in the background)",
        request=serializers.ReportExportCreateSerializer,
        responses={202: serializers.ReportExportSerializer, **ERRORS, **THROTTLED},
    )
    def create(self, request: Request) -> Response:
        data = serializers.ReportExportCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            export, created = exports.submit_export(
                kind=data.validated_data["report"],
                export_format=data.validated_data["format"],
                params=data.validated_data["params"],
                by=request.user,
            )
            if created:  # else the same export is queued or being built already: that one
                tasks.enqueue_export(export)
        export.refresh_from_db()
        return Response(serializers.ReportExportSerializer(export).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary="Download a built export",
        responses={
            (200, "text/csv"): OpenApiTypes.BINARY,
            (200, "application/zip"): OpenApiTypes.BINARY,
            (200, "application/pdf"): OpenApiTypes.BINARY,
            404: serializers.LedgerErrorSerializer,
            410: OpenApiResponse(
                serializers.LedgerErrorSerializer,
                description="The file was kept EXPORT_RETENTION_DAYS and is gone (code export_expired)",
            ),
            **THROTTLED,
        },
    )
    @action(detail=True, methods=["get"])
    def download(self, request: Request, pk: str | None = None) -> HttpResponseBase:
        export = ReportExport.objects.filter(pk=pk).first() if pk is not None else None
        if export is not None and exports.is_expired(export):
            raise exports.ExportExpired(
                f"Export {export.pk}'s file was kept {exports.retention().days} days and is gone; "
                "its record stays. Request it again."
            )
        if export is None or export.status != ExportStatus.DONE or not exports.has_file(export):
            raise _not_found(f"finished export {pk}")
        return exports.export_response(export)


@extend_schema_view(
    list=extend_schema(summary="Drop counts (every record, corrections included)"),
    retrieve=extend_schema(summary="One drop count"),
)
class DropCountViewSet(
    NoStoreMixin,
    ActionPermissionMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet[DropCount],
):
    serializer_class = serializers.DropCountSerializer
    queryset = DropCount.objects.select_related(
        "table", "entered_by", "superseded_by", "sign_off__signed_by"
    ).order_by("-shift_date", "-pk")
    action_permissions = {
        "list": VIEW,
        "retrieve": VIEW,
        "create": [*VIEW, "ledger.add_dropcount"],
        "correct": [*VIEW, "ledger.add_dropcount"],
        "sign_off": [*VIEW, "ledger.sign_off_variance"],
    }

    @extend_schema(
        summary="Enter a drop count",
        request=serializers.DropCountCreateSerializer,
        responses={201: serializers.DropCountSerializer, **RECORD_ERRORS},
    )
    def create(self, request: Request) -> Response:
        data = serializers.DropCountCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        table = Table.objects.filter(number=data.validated_data["table"]).first()
        if table is None:
            raise _not_found(f"table {data.validated_data['table']}")
        count = record_drop_count(
            table=table,
            shift=data.validated_data["shift"],
            amount_cents=data.validated_data["amount_cents"],
            counter_one=data.validated_data["counter_one"],
            counter_two=data.validated_data["counter_two"],
            note=data.validated_data["note"],
            by=request.user,
        )
        return Response(
            serializers.DropCountSerializer(self._fresh(count)).data, status=status.HTTP_201_CREATED
        )

    def _fresh(self, count: DropCount) -> DropCount:
        return self.get_queryset().get(pk=count.pk)

    @extend_schema(
        summary="Correct a drop count (a new record superseding it)",
        request=serializers.DropCountCorrectSerializer,
        responses={201: serializers.DropCountSerializer, **RECORD_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def correct(self, request: Request, pk: str | None = None) -> Response:
        count = self.get_object()
        data = serializers.DropCountCorrectSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        new = correct_drop_count(count=count, by=request.user, **data.validated_data)
        return Response(
            serializers.DropCountSerializer(self._fresh(new)).data, status=status.HTTP_201_CREATED
        )

    @extend_schema(
        summary="Sign off a flagged variance with an explanation",
        request=serializers.SignOffCreateSerializer,
        responses={201: serializers.SignOffSerializer, **RECORD_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="sign-off")
    def sign_off(self, request: Request, pk: str | None = None) -> Response:
        count = self.get_object()
        data = serializers.SignOffCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        sign_off = sign_off_variance(
            count=count, explanation=data.validated_data["explanation"], by=request.user
        )
        return Response(serializers.SignOffSerializer(sign_off).data, status=status.HTTP_201_CREATED)


@extend_schema_view(
    list=extend_schema(summary="Fee waivers"), retrieve=extend_schema(summary="One fee waiver")
)
class FeeWaiverViewSet(
    NoStoreMixin,
    ActionPermissionMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet[FeeWaiver],
):
    serializer_class = serializers.FeeWaiverSerializer
    queryset = FeeWaiver.objects.select_related("hand__table", "created_by").order_by("-pk")
    action_permissions = {"list": VIEW, "retrieve": VIEW, "create": [*VIEW, "ledger.add_feewaiver"]}

    @extend_schema(
        summary="Record a fee due that was not collected, with the reason",
        request=serializers.FeeWaiverCreateSerializer,
        responses={201: serializers.FeeWaiverSerializer, **RECORD_ERRORS},
    )
    def create(self, request: Request) -> Response:
        data = serializers.FeeWaiverCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hand = Hand.objects.select_related("table").filter(pk=data.validated_data["hand"]).first()
        player = Player.objects.filter(pk=data.validated_data["player"]).first()
        if hand is None or player is None:
            raise _not_found("such hand or player")
        waiver = waive_fee(
            hand=hand,
            player=player,
            amount_cents=data.validated_data["amount_cents"],
            reason=data.validated_data["reason"],
            by=request.user,
        )
        return Response(serializers.FeeWaiverSerializer(waiver).data, status=status.HTTP_201_CREATED)


@extend_schema_view(
    list=extend_schema(summary="Closed shifts, with their frozen reports"),
    retrieve=extend_schema(summary="One closed shift"),
)
class ShiftCloseViewSet(
    NoStoreMixin,
    ScopedThrottleMixin,
    ActionPermissionMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet[ShiftClose],
):
    serializer_class = serializers.ShiftCloseSerializer
    queryset = (
        ShiftClose.objects.select_related("closed_by")
        .defer("export_csv", "export_zip")
        .order_by("-shift_date", "-pk")
    )
    action_permissions = {
        "list": VIEW,
        "retrieve": VIEW,
        "download": VIEW,
        "create": [*VIEW, "ledger.add_shiftclose"],
    }
    throttle_scopes = {"download": DOWNLOADS}

    @extend_schema(
        summary="Close a shift (201 the first time, 200 with the first close after that)",
        request=serializers.ShiftCloseCreateSerializer,
        responses={
            201: serializers.ShiftCloseSerializer,
            200: serializers.ShiftCloseSerializer,
            **RECORD_ERRORS,
        },
    )
    def create(self, request: Request) -> Response:
        data = serializers.ShiftCloseCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        closed = close_shift(shift=data.validated_data["shift"], by=request.user)
        code = status.HTTP_200_OK if closed.replayed else status.HTTP_201_CREATED
        return Response(serializers.ShiftCloseSerializer(closed.close).data, status=code)

    @extend_schema(
        summary="Download a close's sealed export (a zip of CSVs; a close from before the zip: one CSV)",
        responses={
            (200, "application/zip"): OpenApiTypes.BINARY,
            (200, "text/csv"): OpenApiTypes.BINARY,
            404: serializers.LedgerErrorSerializer,
            **THROTTLED,
        },
    )
    @action(detail=True, methods=["get"])
    def download(self, request: Request, pk: str | None = None) -> HttpResponse:
        close = self.get_object()  # 404 for an unknown or malformed id; the file loads on first use
        return exports.download_response(*close.sealed_export())


@extend_schema_view(
    list=extend_schema(summary="Stored integrity checks (the nightly job's results)"),
    retrieve=extend_schema(summary="One stored integrity check"),
)
class IntegrityCheckViewSet(
    NoStoreMixin,
    ActionPermissionMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet[IntegrityCheck],
):
    serializer_class = serializers.IntegrityCheckSerializer
    queryset = IntegrityCheck.objects.order_by("-started_at", "-pk")
    action_permissions = {"list": VIEW, "retrieve": VIEW}
