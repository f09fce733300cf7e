"""The background export: a request recorded as a ``pending`` ``ReportExport``, and the job
(``backoffice.tasks.build_export``) that builds and stores its file; its retention: a built file is
kept ``settings.EXPORT_RETENTION_DAYS`` days, then dropped (``expired``) by the daily purge
(``backoffice.tasks.purge_expired_exports``). The row, who asked, what, when and the file's sha256
and size, stays: the table is never deleted from (docs/reports.md, "Exports are kept for a set time").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone

from backoffice.exports.building import (
    KNOWN_PARAMS,
    check_params,
    filename_for,
    is_page,
    merge_pages,
    render_file,
    report_pages,
    row_count,
)
from backoffice.exports.csv_writer import ExportTooBig, WrittenExport, write_export
from backoffice.exports.files import export_path, remove_files, remove_leftovers
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
    """The export :func:`submit_export` records or finds (without saying which)."""
    export, _ = submit_export(kind=kind, export_format=export_format, params=params, by=by)
    return export


def submit_export(
    *, kind: str, export_format: str, params: Mapping[str, Any], by: User | AnonymousUser | None
) -> tuple[ReportExport, bool]:
    """Record an export request (``pending``): ``(export, created)``; the caller queues
    ``backoffice.tasks.build_export`` for it on commit when ``created`` (else the export was
    already queued or being built, and is the one to wait for). ``params`` with
    ``offset``/``limit`` (or ``hand``) of a paged report ask for that page (or hand), else the
    whole period. Raises ``ReportFilterError``
    for parameters the report doesn't read or can't read (:func:`building.check_params`: unknown
    names, over-long values; bad filters, a period over ``limits.MAX_PERIOD_DAYS``, a page over
    ``limits.MAX_PAGE_SIZE``, a player or dealer who doesn't exist): nothing is stored then;
    ``ValueError`` for an unknown kind or format.

    The same export (report, format and parameters) already queued or being built, by anyone, is
    returned instead of queueing the work twice (:func:`waiting_export`), as the integrity check's
    own queue does; a finished one is not (docs/decisions.md, "Exports with a size")."""
    kind = ReportKind(kind)
    export_format = ExportFormat(export_format)
    clean = {key: str(value) for key, value in params.items() if value not in (None, "")}
    check_params(kind, clean)
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
    with transaction.atomic():
        if (waiting := waiting_export(kind=kind, export_format=export_format, params=clean)) is not None:
            return waiting, False
        export = ReportExport.objects.create(
            kind=kind,
            format=export_format,
            params=clean,
            requested_by=by if by is not None and by.is_authenticated else None,
            filename=filename_for(kind, clean, export_format),
        )
    return export, True


def waiting_export(*, kind: str, export_format: str, params: Mapping[str, str]) -> ReportExport | None:
    """The export of ``kind`` in ``export_format`` with exactly ``params`` still queued or being
    built (whoever asked), if there is one: the newest. Its file will be built by the software
    running now, so the software version is the same. Like the integrity check's queue, this is
    a look before recording, not a lock: two identical requests in the same instant may both be
    queued (and build the same bytes); a request repeated, by one person or several, is not."""
    waiting = (
        ReportExport.objects.defer("content")
        .filter(kind=kind, format=export_format, status__in=(ExportStatus.PENDING, ExportStatus.RUNNING))
        .order_by("-pk")
    )
    for export in waiting[:50]:
        if export.params == dict(params):
            return export
    return None


def _whole(params: Mapping[str, str], name: str) -> int:
    try:
        return int(params[name])
    except ValueError:
        raise ReportFilterError({name: "must be a whole number"}) from None


def queue_export(
    *, kind: str, export_format: str, params: Mapping[str, Any], by: User | AnonymousUser | None
) -> tuple[ReportExport, bool]:
    """A report page's download that isn't served inline (a PDF, a CSV over the inline bound): the
    page's parameters that its report reads (a page ignores any other in its address, and so does
    its export) as :func:`submit_export`: ``(export, created)``. A page reloaded or a link clicked
    twice waits for the same file rather than queueing the work twice."""
    known = KNOWN_PARAMS[ReportKind(kind)]
    clean = {key: value for key, value in params.items() if key in known}
    return submit_export(kind=kind, export_format=export_format, params=clean, by=by)


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
    ``expired`` and ``content`` null, and its file on disk is deleted (and whatever a build cut
    short left there a day ago or more); the row (who asked what,
    when, the file's sha256 and size) stays. One UPDATE, which the app's database role may run (no
    row is deleted: the table refuses DELETE). Returns how many files were dropped; running it
    again drops nothing more."""
    cutoff = (now or timezone.now()) - retention()
    due = ReportExport.objects.filter(status=ExportStatus.DONE, finished_at__lte=cutoff)
    with transaction.atomic():
        ids = list(due.select_for_update().values_list("pk", flat=True))
        dropped = ReportExport.objects.filter(pk__in=ids, status=ExportStatus.DONE).update(
            status=ExportStatus.EXPIRED, content=None
        )
    remove_files(ids)  # after the commit: a file is never gone while its row still offers it
    remove_leftovers(before=(now or timezone.now()).timestamp() - 86_400)  # no build runs a day
    return dropped


def build_export(export_id: int) -> ReportExport:
    """Build the file of export ``export_id``; safe to run twice (a ``done`` or ``expired`` export
    is returned as it is: an expired file is never built again by a late retry). Bad parameters,
    or a file over its bound (``ExportTooBig``: ``settings.EXPORT_MAX_ROWS``/``EXPORT_MAX_BYTES``,
    a PDF's ``EXPORT_PDF_MAX_ROWS``), mark it ``failed`` with the reason, and nothing of it is
    kept; a database error propagates (the task retries it) and leaves it to be built again.
    Parameters naming a page (``offset``/``limit``, ``hand``) build that page; otherwise the whole
    period, a page at a time (:func:`building.report_pages`): a CSV is written to its file row by
    row (:func:`csv_writer.write_export`), never whole in memory; a PDF holds its rows, at most
    ``EXPORT_PDF_MAX_ROWS``. The file is kept on disk (``files.export_path``), the row's
    ``content`` left empty."""
    with transaction.atomic():
        export = ReportExport.objects.defer("content").select_for_update().get(pk=export_id)
        if export.status in (ExportStatus.DONE, ExportStatus.EXPIRED):
            return ReportExport.objects.get(pk=export.pk)
        ReportExport.objects.filter(pk=export.pk).update(
            status=ExportStatus.RUNNING, started_at=timezone.now(), attempts=export.attempts + 1
        )
    target = export_path(export.pk)
    try:
        written = _write(export, target)
    except DatabaseError:
        raise
    except (ReportFilterError, Player.DoesNotExist, ValueError, ExportTooBig) as exc:
        ReportExport.objects.filter(pk=export.pk).update(
            status=ExportStatus.FAILED, finished_at=timezone.now(), error=str(exc)[:2000]
        )
        return ReportExport.objects.get(pk=export.pk)
    (
        ReportExport.objects.filter(pk=export.pk)
        .exclude(status__in=(ExportStatus.DONE, ExportStatus.EXPIRED))
        .update(
            status=ExportStatus.DONE,
            finished_at=timezone.now(),
            content=b"",  # the file is on disk: files.export_path
            sha256=written.sha256,
            size=written.size,
            error="",
            software_version=software_version(),
            filename=filename_for(export.kind, export.params, written.extension),
        )
    )  # built meanwhile by another run: nothing changes (it wrote the same bytes)
    return ReportExport.objects.get(pk=export.pk)


def _write(export: ReportExport, target: Path) -> WrittenExport:
    """Write ``export``'s file to ``target`` (whole, or nothing there). The pages are closed before
    this returns or raises, so that their snapshot is over when the export's row is updated."""
    with closing(report_pages(export.kind, export.params)) as pages:
        if export.format == ExportFormat.CSV:
            return write_export(
                pages, target, max_rows=settings.EXPORT_MAX_ROWS, max_bytes=settings.EXPORT_MAX_BYTES
            )
        report = merge_pages(pages, max_rows=settings.EXPORT_PDF_MAX_ROWS)
    data, _, extension = render_file(report, export.format)
    partial = target.with_name(f".{target.name}.part")
    partial.write_bytes(data)
    partial.replace(target)
    return WrittenExport(extension, len(data), sha256_hex(data), row_count(report))
