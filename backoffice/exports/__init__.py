"""Exports of the reports: CSV (the canonical export) and PDF (reportlab), and the service that
builds a requested export in the background.

A report is one or more tables of data (``Section``), laid out per report (one layout per report, as
in ``backoffice/reports/``). Its CSV export is one CSV file per table: a report of one table
downloads as that CSV; a report of several as a zip of them, with ``report.csv`` naming the report,
its filters, the software version and each file (:func:`export_file`). Money columns are named
``..._dollars`` and hold plain decimal numbers (``12.50``); sections name them ``..._cents`` and
hold integer cents, which the writers turn into dollars. The export is deterministic: the same
figures under the same filters and software version give the same bytes (no generation time; the
zip's entries carry a fixed date), so its sha256, printed on every report page and in every PDF,
identifies the data.

A PDF (laid out by ``backoffice.pdf``) can't hold its own checksum: it prints the sha256 of the
CSV export of the same report, and the PDF's own sha256 is recorded on its ``ReportExport`` row
(and sent as ``X-Content-SHA256``).

An export request is recorded (the same one queued or being built is returned instead of a
second), built in the background from its stored parameters (a report's unknown parameters are
refused), and its file dropped after ``settings.EXPORT_RETENTION_DAYS`` (the row stays). A
background export's CSV is written to disk a page of rows at a time (the same bytes as
:func:`export_file`, never the whole file in memory) and streamed to the download, bounded by
``settings.EXPORT_MAX_ROWS`` and ``EXPORT_MAX_BYTES`` (a PDF by ``EXPORT_PDF_MAX_ROWS``): beyond,
it fails saying how to split it (``ExportTooBig``); the file is kept in ``settings.EXPORT_DIR``.
A report page serves inline only a CSV of at most ``INLINE_CSV_MAX_ROWS`` rows; its PDF, and a
bigger CSV, is queued (``queue_export``). Every CSV the project writes goes through the one guarded
writer (``CsvWriter``: a cell that a spreadsheet would read as a formula is written as text).

A shift close seals the same export (:func:`with_download_sha` with the signed anchor as two more
tables, ``anchor_sections``): its zip is stored on the ``ShiftClose`` and ``manage.py
verify_anchors`` reads the anchor's files back from it.

The names below are the ones the rest of the project uses, as ``backoffice.exports.<name>``.
The modules: docs/layers.md.
"""

from __future__ import annotations

from backoffice.exports.building import (
    INLINE_CSV_MAX_ROWS,
    KNOWN_PARAMS,
    build_report,
    check_params,
    content_type_of,
    download_response,
    filename_for,
    is_page,
    merge_pages,
    render,
    render_file,
    report_pages,
    row_count,
)
from backoffice.exports.csv_writer import (
    CsvWriter,
    ExportTooBig,
    WrittenExport,
    csv_cell,
    export_file,
    with_download_sha,
    write_export,
)
from backoffice.exports.files import export_path, export_response, has_file, stored_bytes
from backoffice.exports.jobs import (
    ExportExpired,
    build_export,
    expires_at,
    is_expired,
    purge_expired_exports,
    queue_export,
    request_export,
    retention,
    submit_export,
    waiting_export,
)
from backoffice.exports.layouts import anchor_sections, sections_of
from backoffice.exports.pdf_writer import pdf_parts, to_pdf

__all__ = [
    "INLINE_CSV_MAX_ROWS",
    "KNOWN_PARAMS",
    "CsvWriter",
    "ExportExpired",
    "ExportTooBig",
    "WrittenExport",
    "anchor_sections",
    "build_export",
    "build_report",
    "check_params",
    "content_type_of",
    "csv_cell",
    "download_response",
    "expires_at",
    "export_file",
    "export_path",
    "export_response",
    "filename_for",
    "has_file",
    "is_expired",
    "is_page",
    "merge_pages",
    "pdf_parts",
    "purge_expired_exports",
    "queue_export",
    "render",
    "render_file",
    "report_pages",
    "request_export",
    "retention",
    "row_count",
    "sections_of",
    "stored_bytes",
    "submit_export",
    "to_pdf",
    "waiting_export",
    "with_download_sha",
    "write_export",
]
