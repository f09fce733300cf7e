"""Where a background export's file is kept and how it is served: on disk, in
``settings.EXPORT_DIR`` (which the worker and the web server share), one file per export named by
its id, written whole or not at all and streamed to the download in chunks, never read whole.

A ``done`` export's ``content`` is empty when its file is on disk (every export built since files
moved there); an export built before keeps its bytes in ``content`` and is served from them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, HttpResponseBase

from backoffice.exports.building import download_response
from ledger.models import ExportFormat, ReportExport


def export_dir() -> Path:
    """``settings.EXPORT_DIR``, made if missing."""
    directory = Path(settings.EXPORT_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def export_path(export_id: int) -> Path:
    """The file of export ``export_id`` (``<EXPORT_DIR>/<id>.export``)."""
    return export_dir() / f"{int(export_id)}.export"


def content_type_for(export: ReportExport) -> str:
    """A built export's content type, by its format and file name: a PDF, a zip or a CSV."""
    if export.format == ExportFormat.PDF:
        return "application/pdf"
    return "application/zip" if export.filename.endswith(".zip") else "text/csv; charset=utf-8"


def has_file(export: ReportExport) -> bool:
    """Whether ``export``'s file is there to serve: in its row (an export from before files moved
    to disk) or on disk."""
    if export.content is not None and bytes(export.content):
        return True
    return export.content is not None and export_path(export.pk).is_file()


def export_response(export: ReportExport) -> HttpResponseBase:
    """A built export as an attachment: its file streamed from disk in chunks (``FileResponse``),
    or an old export's stored bytes; ``X-Content-SHA256`` is the sha256 recorded when it was built
    (the file's, hashed as it was written), ``Content-Disposition`` its file name."""
    filename = export.filename or f"export-{export.pk}.{export.format}"
    stored = bytes(export.content) if export.content is not None else b""
    if stored:
        return download_response(stored, content_type_for(export), filename)
    response = FileResponse(export_path(export.pk).open("rb"), content_type=content_type_for(export))
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Content-SHA256"] = export.sha256
    return response


def stored_bytes(export: ReportExport) -> bytes:
    """The whole file of a built export, in memory: for tests and small checks only (a download
    streams it, :func:`export_response`)."""
    stored = bytes(export.content) if export.content is not None else b""
    return stored or export_path(export.pk).read_bytes()


def remove_leftovers(*, before: float) -> int:
    """Delete what a build cut short left in ``EXPORT_DIR`` (its tables' files, a PDF's partial
    file: a worker killed mid-way) last written before ``before`` (a timestamp); how many."""
    removed = 0
    for path in export_dir().glob(".*"):
        if path.stat().st_mtime < before:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
            removed += 1
    return removed


def remove_files(export_ids: list[int]) -> None:
    """Delete the files of ``export_ids`` (their retention is over); a missing one is no error."""
    for export_id in export_ids:
        export_path(export_id).unlink(missing_ok=True)
