"""The background export: a request recorded as a ``pending`` ``ReportExport``, and the job
(``backoffice.tasks.build_export``) that builds and stores its file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django.db import DatabaseError, transaction
from django.utils import timezone

from backoffice.exports.building import build_report, filename_for, render_file
from backoffice.reports import downs
from backoffice.reports.common import ReportFilterError, ReportFilters
from casino.core.version import software_version
from ledger.hashing import sha256_hex
from ledger.models import ExportFormat, ExportStatus, ReportExport, ReportKind
from tables.models import Player

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


def request_export(
    *, kind: str, export_format: str, params: Mapping[str, Any], by: User | AnonymousUser | None
) -> ReportExport:
    """Record an export request (``pending``); the caller queues ``backoffice.tasks.build_export``
    for it on commit. Raises ``ReportFilterError`` for parameters the report can't read (bad
    filters, a player or dealer who doesn't exist), ``ValueError`` for an unknown kind or format."""
    kind = ReportKind(kind)
    export_format = ExportFormat(export_format)
    clean = {key: str(value) for key, value in params.items() if value not in (None, "")}
    if kind != ReportKind.INTEGRITY:
        ReportFilters.from_params(clean)  # refuse bad filters now, not in the worker
    if (
        kind == ReportKind.PLAYER_STATEMENT
        and not Player.objects.filter(pk=clean.get("player") or 0).exists()
    ):
        raise ReportFilterError({"player": "no such player"})
    if kind == ReportKind.DEALER_DOWNS and clean.get("dealer"):
        downs.dealer_named(clean["dealer"])  # refuse an unknown dealer now, not in the worker
    return ReportExport.objects.create(
        kind=kind,
        format=export_format,
        params=clean,
        requested_by=by if by is not None and by.is_authenticated else None,
        filename=filename_for(kind, clean, export_format),
    )


def build_export(export_id: int) -> ReportExport:
    """Build the file of export ``export_id``; safe to run twice (a ``done`` export is returned as
    it is). Bad parameters mark it ``failed`` with the reason; a database error propagates (the
    task retries it) and leaves it to be built again."""
    with transaction.atomic():
        export = ReportExport.objects.select_for_update().get(pk=export_id)
        if export.status == ExportStatus.DONE:
            return export
        ReportExport.objects.filter(pk=export.pk).update(
            status=ExportStatus.RUNNING, started_at=timezone.now(), attempts=export.attempts + 1
        )
    try:
        report = build_report(export.kind, export.params, full=True)
        data, _, extension = render_file(report, export.format)
    except DatabaseError:
        raise
    except (ReportFilterError, Player.DoesNotExist, ValueError) as exc:
        ReportExport.objects.filter(pk=export.pk).update(
            status=ExportStatus.FAILED, finished_at=timezone.now(), error=str(exc)[:2000]
        )
        return ReportExport.objects.get(pk=export.pk)
    ReportExport.objects.filter(pk=export.pk).exclude(status=ExportStatus.DONE).update(
        status=ExportStatus.DONE,
        finished_at=timezone.now(),
        content=data,
        sha256=sha256_hex(data),
        size=len(data),
        error="",
        software_version=software_version(),
        filename=filename_for(export.kind, export.params, extension),
    )
    return ReportExport.objects.get(pk=export.pk)
