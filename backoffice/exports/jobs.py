"""The background export: a request recorded as a ``pending`` ``ReportExport``, and the job
(``backoffice.tasks.build_export``) that builds and stores its file; its retention: a built file is
kept ``settings.EXPORT_RETENTION_DAYS`` days, then dropped (``expired``) by the daily purge
(``backoffice.tasks.purge_expired_exports``). The row, who asked, what, when and the file's sha256
and size, stays: the table is never deleted from (docs/reports.md, "Exports are kept for a set time").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone

from backoffice.exports.building import build_report, filename_for, is_page, render_file
from backoffice.reports import downs, limits
from backoffice.reports.common import ReportFilterError
from casino.core.errors import DomainError
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
    for it on commit. ``params`` with ``offset``/``limit`` (or ``hand``) of a paged report ask for
    that page (or hand), else the whole period. Raises ``ReportFilterError`` for parameters the
    report can't read (bad filters, a period over ``limits.MAX_PERIOD_DAYS``, a page over
    ``limits.MAX_PAGE_SIZE``, a player or dealer who doesn't exist), ``ValueError`` for an unknown
    kind or format."""
    kind = ReportKind(kind)
    export_format = ExportFormat(export_format)
    clean = {key: str(value) for key, value in params.items() if value not in (None, "")}
    if kind != ReportKind.INTEGRITY:
        limits.asked_filters(clean)  # refuse bad filters and long periods now, not in the worker
    if is_page(kind, clean) and clean.get("limit"):
        limits.check_page_size(_whole(clean, "limit"))
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


def _whole(params: Mapping[str, str], name: str) -> int:
    try:
        return int(params[name])
    except ValueError:
        raise ReportFilterError({name: "must be a whole number"}) from None


def queue_export(
    *, kind: str, export_format: str, params: Mapping[str, Any], by: User | AnonymousUser | None
) -> tuple[ReportExport, bool]:
    """A report page's download that isn't served inline (a PDF, a CSV over the inline bound):
    ``by``'s export of the same report, format and parameters still queued or being built, or a
    new request (:func:`request_export`); ``(export, created)``. A page reloaded or a link clicked
    twice waits for the same file rather than queueing the work twice. The caller queues
    ``backoffice.tasks.build_export`` on commit when ``created``."""
    clean = {key: str(value) for key, value in params.items() if value not in (None, "")}
    if by is not None and by.is_authenticated:
        waiting = (
            ReportExport.objects.defer("content")
            .filter(
                kind=kind,
                format=export_format,
                requested_by=by,
                status__in=(ExportStatus.PENDING, ExportStatus.RUNNING),
            )
            .order_by("-pk")
        )
        for export in waiting[:20]:
            if export.params == clean:
                return export, False
    return request_export(kind=kind, export_format=export_format, params=clean, by=by), True


def retention() -> dt.timedelta:
    """How long a built export's file is kept: ``settings.EXPORT_RETENTION_DAYS``."""
    return dt.timedelta(days=settings.EXPORT_RETENTION_DAYS)


def expires_at(export: ReportExport) -> dt.datetime | None:
    """When ``export``'s file is (or was) dropped: its build's end plus :func:`retention`."""
    return None if export.finished_at is None else export.finished_at + retention()


def is_expired(export: ReportExport, *, now: dt.datetime | None = None) -> bool:
    """Whether ``export``'s file is gone or past its retention (a download answers 410)."""
    if export.status == ExportStatus.EXPIRED:
        return True
    end = expires_at(export)
    return export.status == ExportStatus.DONE and end is not None and end <= (now or timezone.now())


class ExportExpired(DomainError):
    """The export's file was kept its retention and is gone (410); its record stays."""

    code = "export_expired"
    status = 410


def purge_expired_exports(*, now: dt.datetime | None = None) -> int:
    """Drop the file of every export built more than :func:`retention` ago: ``status`` becomes
    ``expired`` and ``content`` null; the row (who asked what, when, the file's sha256 and size)
    stays. One UPDATE, which the app's database role may run (no row is deleted: the table refuses
    DELETE). Returns how many files were dropped; running it again drops nothing more."""
    cutoff = (now or timezone.now()) - retention()
    return ReportExport.objects.filter(status=ExportStatus.DONE, finished_at__lte=cutoff).update(
        status=ExportStatus.EXPIRED, content=None
    )


def build_export(export_id: int) -> ReportExport:
    """Build the file of export ``export_id``; safe to run twice (a ``done`` or ``expired`` export
    is returned as it is: an expired file is never built again by a late retry). Bad parameters
    mark it ``failed`` with the reason; a database error propagates (the task retries it) and
    leaves it to be built again. Parameters naming a page (``offset``/``limit``, ``hand``) build
    that page; otherwise the whole period."""
    with transaction.atomic():
        export = ReportExport.objects.select_for_update().get(pk=export_id)
        if export.status in (ExportStatus.DONE, ExportStatus.EXPIRED):
            return export
        ReportExport.objects.filter(pk=export.pk).update(
            status=ExportStatus.RUNNING, started_at=timezone.now(), attempts=export.attempts + 1
        )
    try:
        report = build_report(export.kind, export.params, full=not is_page(export.kind, export.params))
        data, _, extension = render_file(report, export.format)
    except DatabaseError:
        raise
    except (ReportFilterError, Player.DoesNotExist, ValueError) as exc:
        ReportExport.objects.filter(pk=export.pk).update(
            status=ExportStatus.FAILED, finished_at=timezone.now(), error=str(exc)[:2000]
        )
        return ReportExport.objects.get(pk=export.pk)
    ReportExport.objects.filter(pk=export.pk).exclude(
        status__in=(ExportStatus.DONE, ExportStatus.EXPIRED)
    ).update(
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
