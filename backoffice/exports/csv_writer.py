"""The CSV export (the canonical one): one CSV file per table of a report, a zip of them when
there are several, deterministic so that its sha256 identifies the data; no cell is a formula.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re
import zipfile
from collections.abc import Iterable
from typing import Any

from backoffice.exports.layouts import sections_of
from backoffice.exports.sections import Section
from backoffice.reports.common import ReportMeta
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
