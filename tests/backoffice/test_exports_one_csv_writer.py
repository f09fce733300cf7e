"""Every CSV the project writes goes through the one guarded writer
(``backoffice.exports.CsvWriter``), whose cells are never formulas: no module of the project makes
a ``csv.writer`` or ``csv.DictWriter`` of its own, so a new CSV can't skip the guard."""

from __future__ import annotations

import ast
import io
from pathlib import Path

from backoffice.exports import CsvWriter

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("casino", "poker", "tables", "ledger", "handflow", "backoffice", "web")
#: The one module that may make a ``csv.writer``: the guarded writer's.
THE_WRITER = Path("backoffice/exports/csv_writer.py")
WRITERS = {"writer", "DictWriter"}


def _writers_made(tree: ast.AST) -> list[int]:
    """The lines of ``tree`` that name ``csv.writer``/``csv.DictWriter`` or import them by name."""
    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in WRITERS
            and isinstance(node.value, ast.Name)
            and node.value.id == "csv"
        ):
            lines.append(node.lineno)
        if (
            isinstance(node, ast.ImportFrom)
            and node.module == "csv"
            and any(alias.name in WRITERS or alias.name == "*" for alias in node.names)
        ):
            lines.append(node.lineno)
    return lines


def test_no_module_writes_a_csv_but_through_the_one_writer() -> None:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if relative == THE_WRITER:
                continue
            found += [f"{relative}:{line}" for line in _writers_made(ast.parse(path.read_text()))]
    assert found == []
    assert _writers_made(ast.parse((ROOT / THE_WRITER).read_text()))  # the scan does see one


def test_the_scan_sees_every_spelling_of_a_csv_writer() -> None:
    for source in (
        "import csv\ncsv.writer(out)",
        "import csv\ncsv.DictWriter(out, fieldnames=[])",
        "from csv import writer",
        "from csv import DictWriter as W",
    ):
        assert _writers_made(ast.parse(source)), source
    assert _writers_made(ast.parse("import csv\ncsv.reader(inp)")) == []


def test_the_one_writer_writes_no_formula() -> None:
    out = io.StringIO()
    CsvWriter(out).writerows([["name", "amount"], ["=cmd|' /C calc'!A0", "-$1.50"], ["@SUM(A1)", -3]])
    assert out.getvalue() == "name,amount\r\n'=cmd|' /C calc'!A0,-$1.50\r\n'@SUM(A1),-3\r\n"
