"""The CSV export (the canonical one): one CSV file per table of a report, a zip of them when
there are several, deterministic so that its sha256 identifies the data; no cell is a formula.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import re
import shutil
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from backoffice.exports.layouts import sections_of
from backoffice.exports.sections import Section
from backoffice.reports.common import ReportMeta
from casino.core.errors import DomainError
from casino.core.money import decimal_dollars
from ledger.hashing import sha256_hex

#: A cell a spreadsheet would run as a formula: it starts with ``= + - @`` (or a tab or carriage
#: return, which some spreadsheets skip before one). A player named ``=HYPERLINK("http://x","y")``
#: was written as a live formula into the player statement's CSV.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: ... unless it is a number or an amount as the reports write them (``-3``, ``-$1.50``).
_NUMBER = re.compile(r"-?\$?[0-9][0-9,]*(\.[0-9]+)?")


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell that no spreadsheet runs as a formula (OWASP's CSV injection advice:
    a text starting like a formula gets a leading ``'``, shown by spreadsheets as text)."""
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


class CsvWriter:
    """A ``csv.writer`` (RFC 4180: ``\r\n`` line ends) whose every cell goes through
    :func:`csv_cell`: the one CSV writer of the project (every report's CSV, the shift close's, the
    API's and the pages' downloads, the access log's). No other module makes a ``csv.writer``
    (``tests/backoffice/test_exports_one_csv_writer.py``)."""

    def __init__(self, buffer: io.StringIO) -> None:
        self._writer = csv.writer(buffer, lineterminator="\r\n")

    def writerow(self, row: Iterable[Any]) -> None:
        self._writer.writerow([csv_cell(cell) for cell in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def _csv_rows(section: Section) -> Iterable[list[Any]]:
    """The section's rows as written: cents in money columns as dollars, None as empty."""
    money = [header in section.money for header in section.headers]
    for row in section.rows:
        yield [
            decimal_dollars(value)
            if is_money and isinstance(value, int) and not isinstance(value, bool)
            else ("" if value is None else value)
            for value, is_money in zip(row, money, strict=False)
        ]


def file_name(title: str) -> str:
    """A section's file name in a zip: ``Fee waivers`` -> ``fee-waivers.csv``."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return f"{slug or 'table'}.csv"


def _csv_bytes(rows: Iterable[Iterable[Any]]) -> bytes:
    buffer = io.StringIO()
    CsvWriter(buffer).writerows(rows)
    return buffer.getvalue().encode()


def csv_files(report: Any, *, extra_sections: Iterable[Section] = ()) -> list[tuple[str, bytes]]:
    """One CSV file per table of the report (a header row, then the rows; UTF-8, ``\r\n``); with
    several, ``report.csv`` first: the report, its filters, the software version and each file with
    its table's title and number of rows."""
    sections = [*sections_of(report), *extra_sections]
    files: list[tuple[str, bytes]] = []
    names: set[str] = set()
    for section in sections:
        name = file_name(section.title)
        while name in names:  # two tables with one title: numbered
            name = name.removesuffix(".csv") + "-2.csv"
        names.add(name)
        files.append((name, _csv_bytes([section.headers, *_csv_rows(section)])))
    if len(files) == 1:
        return files
    meta: ReportMeta = report.meta
    index: list[list[Any]] = [
        ["field", "value", "rows"],
        ["report", meta.title, ""],
        ["filters", meta.filters_text, ""],
        ["software", meta.software_version, ""],
        *(
            ["file", f"{name}: {section.title}", len(section.rows)]
            for (name, _), section in zip(files, sections, strict=True)
        ),
    ]
    return [("report.csv", _csv_bytes(index)), *files]


ZIP_DATE = (1980, 1, 1, 0, 0, 0)
"""Every entry of an export zip carries this date, so the same data gives the same bytes."""


def export_file(report: Any, *, extra_sections: Iterable[Section] = ()) -> tuple[bytes, str, str]:
    """The report's CSV export: ``(bytes, content type, extension)``: the CSV of its one table, or
    a zip of its tables' CSVs (:func:`csv_files`)."""
    files = csv_files(report, extra_sections=extra_sections)
    if len(files) == 1:
        return files[0][1], "text/csv; charset=utf-8", "csv"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for name, data in files:
            entry = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, data)
    return buffer.getvalue(), "application/zip", "zip"


def with_download_sha(report: Any, *, extra_sections: Iterable[Section] = ()) -> tuple[Any, bytes]:
    """The report with ``meta.export_sha256`` set to the sha256 of its CSV export (the file or zip
    a download gives: :func:`export_file`, with ``extra_sections`` after the report's own tables,
    e.g. a shift close's signed anchor), and that export's bytes."""
    data, _, _ = export_file(report, extra_sections=extra_sections)
    meta = dataclasses.replace(report.meta, export_sha256=sha256_hex(data))
    return dataclasses.replace(report, meta=meta), data


# --- The background export's writer: row by row to disk ----------------------------------------------


class ExportTooBig(DomainError):
    """An export over its bound (``settings.EXPORT_MAX_ROWS`` rows or ``EXPORT_MAX_BYTES`` bytes of
    CSV, ``EXPORT_PDF_MAX_ROWS`` rows of PDF): the message names the bound and how to split it."""

    code = "export_too_big"
    status = 400


SPLIT_ADVICE = (
    "Ask for a shorter period instead (date_from/date_to: a month at a time, say, or one shift), "
    "as several exports."
)


@dataclasses.dataclass(frozen=True, slots=True)
class WrittenExport:
    """A file :func:`write_export` wrote: its extension (``csv``, ``zip``), size, sha256 and rows."""

    extension: str
    size: int
    sha256: str
    rows: int


CHUNK = 1 << 20
"""Bytes read or copied at a time: a file on disk is never read whole."""


class _SectionFile:
    """One table's CSV being written to its own file, a page of rows at a time."""

    def __init__(self, directory: Path, index: int, section: Section) -> None:
        self.title = section.title
        self.path = directory / f"{index}.csv"
        self.file = self.path.open("wb")
        self.digest = hashlib.sha256()
        self.size = 0
        self.rows = 0
        self.write(_csv_bytes([section.headers]))

    def write(self, data: bytes) -> None:
        self.file.write(data)
        self.digest.update(data)
        self.size += len(data)

    def add(self, section: Section) -> None:
        self.write(_csv_bytes(_csv_rows(section)))
        self.rows += len(section.rows)


def write_export(
    pages: Iterable[Any], target: Path, *, max_rows: int, max_bytes: int, directory: Path | None = None
) -> WrittenExport:
    """Write the CSV export of a report given as ``pages`` (the report itself, or a paged report's
    pages in order, each a report of the same type) to ``target``: the same bytes as
    :func:`export_file` of the whole report, written a page at a time so that no more than one
    page is ever held. Each table goes to its own file as its rows come (the CSV's sha256 computed
    as it is written); a report of several tables is then zipped, each file copied in chunks, and
    the zip hashed in one chunked read (zip patches each entry's header after its data). Raises
    :class:`ExportTooBig` past ``max_rows`` rows or ``max_bytes`` bytes of CSV, and then, as on any
    error, leaves nothing at ``target``. ``directory``: where the tables' files are written while
    the export is built (``target``'s by default)."""
    work = Path(tempfile.mkdtemp(prefix=".export-", dir=directory or target.parent))
    files: list[_SectionFile] = []
    try:
        meta: ReportMeta | None = None
        rows = 0
        for page in pages:
            sections = sections_of(page)
            if meta is None:
                meta = page.meta
                files = [_SectionFile(work, n, section) for n, section in enumerate(sections)]
            rows += sum(len(section.rows) for section in sections)
            if rows > max_rows:
                raise ExportTooBig(
                    f"This export holds more than {max_rows:,} rows, the most one export may hold "
                    f"(EXPORT_MAX_ROWS); nothing was kept. {SPLIT_ADVICE}"
                )
            for file, section in zip(files, sections, strict=True):
                file.add(section)
            if sum(file.size for file in files) > max_bytes:
                raise ExportTooBig(
                    f"This export is larger than {max_bytes:,} bytes, the most one export may be "
                    f"(EXPORT_MAX_BYTES); nothing was kept. {SPLIT_ADVICE}"
                )
        if meta is None:
            raise ValueError("an export needs its report: no page was given")
        for file in files:
            file.file.close()
        partial = work / "export.part"
        if len(files) == 1:
            files[0].path.replace(partial)
            written = WrittenExport("csv", files[0].size, files[0].digest.hexdigest(), files[0].rows)
        else:
            written = _zip_files(meta, files, partial, rows)
        partial.replace(target)  # whole or not at all: a download never finds half a file
        return written
    finally:
        for file in files:
            file.file.close()
        shutil.rmtree(work, ignore_errors=True)


def _zip_files(meta: ReportMeta, files: list[_SectionFile], target: Path, rows: int) -> WrittenExport:
    """The zip of the tables' files, with ``report.csv`` first: as :func:`export_file` writes it
    (each entry's size is set before it is written, so that zip decides on ZIP64 as ``writestr``
    does: the same bytes)."""
    names: list[str] = []
    for file in files:
        name = file_name(file.title)
        while name in names:
            name = name.removesuffix(".csv") + "-2.csv"
        names.append(name)
    index: list[list[Any]] = [
        ["field", "value", "rows"],
        ["report", meta.title, ""],
        ["filters", meta.filters_text, ""],
        ["software", meta.software_version, ""],
        *(["file", f"{name}: {file.title}", file.rows] for name, file in zip(names, files, strict=True)),
    ]
    with (
        target.open("wb") as out,
        zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive,
    ):
        for name, source in [("report.csv", None), *zip(names, files, strict=True)]:
            entry = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            if source is None:
                archive.writestr(entry, _csv_bytes(index))
                continue
            entry.file_size = source.size
            with source.path.open("rb") as data, archive.open(entry, "w") as dest:
                shutil.copyfileobj(data, dest, CHUNK)
    digest = hashlib.sha256()
    with target.open("rb") as written:
        while chunk := written.read(CHUNK):
            digest.update(chunk)
    return WrittenExport("zip", target.stat().st_size, digest.hexdigest(), rows)
