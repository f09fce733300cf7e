"""Looking at a report's PDF as a reader would, for the export tests (test_exports.py and each report's
own tests): its pages' text (``pdftotext``) and its first page as a PNG (``pdftoppm``), both from
Debian's poppler-utils, and the layout's own check that every word of every cell fits its column."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from backoffice import exports, pdf

PDFTOPPM = shutil.which("pdftoppm")
PDFTOTEXT = shutil.which("pdftotext")

needs_pdftoppm = pytest.mark.skipif(
    PDFTOPPM is None, reason="pdftoppm is not installed (Debian: apt-get install poppler-utils)"
)

LETTER_AT_60_DPI = {(510, 660), (660, 510)}
"""Letter (8.5 x 11 in) at 60 dpi, upright or on its side."""


def pdf_text(data: bytes, tmp_path: Path) -> list[str]:
    """The text of each page (``pdftotext -layout``); skips the test without poppler-utils."""
    if PDFTOTEXT is None:
        pytest.skip("pdftotext is not installed (Debian: apt-get install poppler-utils)")
    source = tmp_path / "report.pdf"
    source.write_bytes(data)
    out = subprocess.run(
        [PDFTOTEXT, "-layout", str(source), "-"], check=True, capture_output=True, text=True
    ).stdout
    return out.split("\f")[:-1]


def laid_out_tables(report: Any) -> tuple[list[pdf.PdfTable], pdf.Layout]:
    """Every table the report's PDF prints (a hand block's table too) and the layout chosen for them."""
    parts = exports.pdf_parts(report)
    tables = [
        *parts["tables"],
        *([parts["block_table"]] if "block_table" in parts else []),
        *parts.get("closing", []),
    ]
    return tables, pdf.choose_layout(tables, wide="blocks" in parts)


def check_first_page(report: Any, data: bytes, tmp_path: Path) -> tuple[int, int]:
    """Render page 1 of ``data`` (the PDF of ``report``) to a PNG at 60 dpi and check it: the page is
    the size the layout chose (letter, portrait or landscape), text is drawn on it, and every word of
    every cell fits its column (``pdf.layout_problems``). Returns the PNG's (width, height)."""
    from PIL import Image

    if PDFTOPPM is None:
        pytest.skip("pdftoppm is not installed (Debian: apt-get install poppler-utils)")
    assert data.startswith(b"%PDF-")
    tables, layout = laid_out_tables(report)
    assert pdf.layout_problems(tables, layout) == []
    source = tmp_path / "report.pdf"
    source.write_bytes(data)
    subprocess.run(
        [PDFTOPPM, "-png", "-r", "60", "-f", "1", "-l", "1", str(source), str(tmp_path / "page")], check=True
    )
    (png,) = tmp_path.glob("page*.png")
    width, height = layout.page
    with Image.open(png) as image:
        assert image.size == (round(width / 72 * 60), round(height / 72 * 60))
        assert image.size in LETTER_AT_60_DPI
        # Not a blank page: the report's text is drawn on it.
        assert image.convert("L").getextrema()[0] < 100
        return image.size
