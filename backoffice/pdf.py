"""PDF exports laid out for reading (reportlab): every report's tables, or blocks of one table each
(a hand of the hand history), with the report's head on the first page and a footer on every
page (the report, its period, when it was made, the software version, the SHA-256 of its CSV
export, the page number) and the totals of the rows on that page.

Columns are sized from the text itself (``reportlab.pdfbase.pdfmetrics.stringWidth``): each
column is at least as wide as the widest word or number in it, so a cell wraps only between words
and never inside a word or a number ("Okaf/or", "2840/0"); the rest of the width goes where the
text is long. A report is set portrait when every table fits it at a readable size, landscape
otherwise; the font shrinks (down to ``SIZES[-1]``) before a table would not fit.
:func:`layout_problems` checks, for the layout chosen, that every word of every cell fits its
column; a word too wide for a whole page (it would need a narrower font than any here) is the
only one ever broken, and it is named there.

Every table whose rows carry totals (money, counts) ends with a "Report total" row, and each
page's footer adds up the rows drawn on it ("Page totals"), as a paper register does.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Sequence
from typing import Any

from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import landscape, letter, portrait
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import (
    BaseDocTemplate,
    Frame,
    KeepTogether,
    LongTable,
    PageTemplate,
    Paragraph,
    Spacer,
    TableStyle,
)

from casino.core.money import format_cents

FONT, BOLD = "Helvetica", "Helvetica-Bold"
SIZES = (8.0, 7.5, 7.0, 6.5, 6.0, 5.5)
"""Font sizes tried, largest first, until a table fits the page's width."""
PORTRAIT_SMALLEST = 7.0
"""A report is set portrait only if every table fits it at this size or larger."""
PAD = 3.0
"""Left and right padding of a cell, each (points)."""
MARGIN: float = 0.4 * inch
FOOTER_LINES = 5
TOTAL_LABEL = "Report total"
WIDE_SHARE = 0.45
"""No column asks for more than this share of the width before the others have theirs."""


@dataclasses.dataclass(frozen=True, slots=True)
class PdfTable:
    """A table as it is printed: ``cells`` are the texts shown; ``numbers`` the values summed for
    the columns marked in ``totals`` (cents where ``money``; None where a row has none)."""

    title: str
    headers: list[str]
    cells: list[list[str]]
    numbers: list[list[int | None]]
    money: list[bool]
    totals: list[bool]
    note: str = ""

    @property
    def has_totals(self) -> bool:
        return any(self.totals) and bool(self.cells)


@dataclasses.dataclass(frozen=True, slots=True)
class PdfBlock:
    """A block kept together on a page: a heading, one small table, notes below it, and values
    added to the page's totals (``values``: (title, column) -> (value, is money))."""

    heading: str
    table: PdfTable
    notes: list[str]
    values: dict[tuple[str, str], tuple[int, bool]]


@dataclasses.dataclass(frozen=True, slots=True)
class PdfHead:
    title: str
    filters: str
    made: str
    software: str
    sha256: str
    sha_label: str = "SHA-256 of the CSV export of this report"


@dataclasses.dataclass(frozen=True, slots=True)
class TableLayout:
    """How one table is set: its font size and column widths (points)."""

    size: float
    widths: list[float]


@dataclasses.dataclass(frozen=True, slots=True)
class Layout:
    page: tuple[float, float]
    tables: list[TableLayout]

    @property
    def usable_width(self) -> float:
        return self.page[0] - 2 * MARGIN


# --- Sizing columns from the text -----------------------------------------------------------------------


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    return float(stringWidth(text, BOLD if bold else FONT, size))


def widest_word(text: str, size: float, *, bold: bool = False) -> float:
    return max((text_width(word, size, bold=bold) for word in text.split()), default=0.0)


def _column_needs(table: PdfTable, size: float) -> tuple[list[float], list[float]]:
    """Per column: the least width (its widest word) and the width that would hold its longest
    cell on one line; both with the padding."""
    least, want = [], []
    for index, header in enumerate(table.headers):
        texts = [row[index] for row in table.cells if index < len(row)]
        bold = [header, TOTAL_LABEL] if index == 0 and table.has_totals else [header]
        word = max(
            [*(widest_word(text, size, bold=True) for text in bold), *(widest_word(t, size) for t in texts)]
        )
        line = max(
            [*(text_width(text, size, bold=True) for text in bold), *(text_width(t, size) for t in texts)]
        )
        least.append(word + 2 * PAD + 0.5)
        want.append(line + 2 * PAD + 0.5)
    return least, want


def fit_table(table: PdfTable, usable: float, sizes: Sequence[float] = SIZES) -> TableLayout | None:
    """The largest size at which every column is at least as wide as its widest word within
    ``usable`` points, and the widths: the least widths, then the room left shared out where the
    text is long (and, if there is still room, in proportion). None when no size fits."""
    for size in sizes:
        least, want = _column_needs(table, size)
        if sum(least) > usable:
            continue
        want = [max(low, min(high, usable * WIDE_SHARE)) for low, high in zip(least, want, strict=True)]
        spare = usable - sum(least)
        grow = [high - low for low, high in zip(least, want, strict=True)]
        needed = sum(grow)
        if needed >= spare and needed > 0:
            widths = [low + extra * spare / needed for low, extra in zip(least, grow, strict=True)]
        else:
            left = spare - needed
            total = sum(want) or 1.0
            widths = [high + left * high / total for high in want]
        return TableLayout(size=size, widths=widths)
    return None


def _forced(table: PdfTable, usable: float) -> TableLayout:
    """The smallest size, columns in proportion to their words: only for a word wider than a page."""
    least, _ = _column_needs(table, SIZES[-1])
    scale = usable / (sum(least) or 1.0)
    return TableLayout(size=SIZES[-1], widths=[width * scale for width in least])


def choose_layout(tables: Sequence[PdfTable], *, wide: bool = False) -> Layout:
    """Portrait when every table fits it at ``PORTRAIT_SMALLEST`` or larger (and not ``wide``),
    landscape otherwise."""
    if not wide:
        page = portrait(letter)
        usable = page[0] - 2 * MARGIN
        fitted = [fit_table(table, usable, [s for s in SIZES if s >= PORTRAIT_SMALLEST]) for table in tables]
        if all(layout is not None for layout in fitted):
            return Layout(page=page, tables=[layout for layout in fitted if layout is not None])
    page = landscape(letter)
    usable = page[0] - 2 * MARGIN
    return Layout(page=page, tables=[fit_table(table, usable) or _forced(table, usable) for table in tables])


def layout_problems(tables: Sequence[PdfTable], layout: Layout) -> list[str]:
    """Every cell (and header) with a word wider than its column, as set by ``layout``: empty when
    nothing is broken inside a word or a number."""
    problems = []
    for table, set_as in zip(tables, layout.tables, strict=True):
        for index, header in enumerate(table.headers):
            inner = set_as.widths[index] - 2 * PAD
            for row_number, text in [(0, header), *((n, row[index]) for n, row in enumerate(table.cells, 1))]:
                wide = widest_word(text, set_as.size, bold=row_number == 0)
                if wide > inner:
                    problems.append(
                        f"{table.title}: column {header!r}, row {row_number}: a word of {text!r} is "
                        f"{wide:.1f} pt in a {inner:.1f} pt column"
                    )
    return problems


# --- Page totals -------------------------------------------------------------------------------------------


class PageTotals:
    """What the rows drawn on the current page add up to, per table and column."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], int] = {}
        self.money: dict[tuple[str, str], bool] = {}

    def add(self, key: tuple[str, str], value: int, money: bool) -> None:
        self.values[key] = self.values.get(key, 0) + value
        self.money[key] = money

    def lines(self) -> list[str]:
        by_table: dict[str, list[str]] = {}
        for (title, column), value in self.values.items():
            shown = format_cents(value) if self.money[(title, column)] else f"{value:,}"
            by_table.setdefault(title, []).append(f"{column} {shown}")
        return [f"Page totals, {title}: " + " · ".join(items) for title, items in by_table.items()]

    def reset(self) -> None:
        self.values.clear()
        self.money.clear()


class TotalCell(Paragraph):  # type: ignore[misc]  # reportlab is untyped
    """A cell whose values go into the page's totals when it is drawn."""

    def __init__(
        self,
        text: str,
        style: ParagraphStyle,
        *,
        totals: PageTotals,
        values: dict[tuple[str, str], tuple[int, bool]],
    ) -> None:
        super().__init__(text, style)
        self.page_totals = totals
        self.values = values


class CountingTable(LongTable):  # type: ignore[misc]  # reportlab is untyped
    """A table that adds its ``TotalCell`` values to the page's totals as each piece is drawn (a
    table split over pages is drawn piece by piece; repeated headers carry no values)."""

    def draw(self) -> None:
        seen: set[int] = set()
        for row in self._cellvalues:
            for cell in row:
                for item in cell if isinstance(cell, list | tuple) else [cell]:
                    if isinstance(item, TotalCell) and id(item) not in seen:
                        seen.add(id(item))
                        for key, (value, money) in item.values.items():
                            item.page_totals.add(key, value, money)
        super().draw()


# --- Building the document ------------------------------------------------------------------------------


def escape(text: Any) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class _Styles:
    def __init__(self, size: float, *, break_words: bool = False) -> None:
        common: dict[str, Any] = {
            "fontName": FONT,
            "fontSize": size,
            "leading": size * 1.22,
            "splitLongWords": 1 if break_words else 0,  # never break inside a word or a number
            "embeddedHyphenation": 0,
            "hyphenationLang": "",
        }
        self.cell = ParagraphStyle(f"cell{size}", **common)
        self.money = ParagraphStyle(f"money{size}", **common, alignment=TA_RIGHT)
        self.header = ParagraphStyle(f"header{size}", **{**common, "fontName": BOLD})
        self.header_money = ParagraphStyle(
            f"header_money{size}", **{**common, "fontName": BOLD}, alignment=TA_RIGHT
        )


TITLE = ParagraphStyle("title", fontName=BOLD, fontSize=14, leading=17, spaceAfter=4)
HEADING = ParagraphStyle("heading", fontName=BOLD, fontSize=10, leading=12, spaceBefore=8, spaceAfter=3)
BODY = ParagraphStyle("body", fontName=FONT, fontSize=8, leading=10, splitLongWords=0)
SMALL = ParagraphStyle("small", fontName=FONT, fontSize=7, leading=8.5, splitLongWords=0)
BLOCK_HEAD = ParagraphStyle("block_head", fontName=BOLD, fontSize=7.5, leading=9, splitLongWords=0)


def _table_flowable(
    table: PdfTable, set_as: TableLayout, totals: PageTotals, *, problems: bool, repeat_header: bool = True
) -> CountingTable:
    styles = _Styles(set_as.size, break_words=problems)
    data: list[list[Any]] = [
        [
            Paragraph(escape(header), styles.header_money if table.money[i] else styles.header)
            for i, header in enumerate(table.headers)
        ]
    ]
    sums = [0] * len(table.headers)
    for cells, numbers in zip(table.cells, table.numbers, strict=True):
        row: list[Any] = []
        values = {}
        for i, text in enumerate(cells):
            style = styles.money if table.money[i] else styles.cell
            number = numbers[i] if i < len(numbers) else None
            if table.totals[i] and number is not None:
                sums[i] += number
                values = {(table.title, table.headers[i]): (number, table.money[i])}
                row.append(TotalCell(escape(text), style, totals=totals, values=values))
            else:
                row.append(Paragraph(escape(text), style))
        data.append(row)
    if table.has_totals:
        data.append(
            [
                Paragraph(
                    escape(
                        (format_cents(sums[i]) if table.money[i] else f"{sums[i]:,}")
                        if table.totals[i]
                        else (TOTAL_LABEL if i == 0 else "")
                    ),
                    styles.header_money if table.money[i] else styles.header,
                )
                for i in range(len(table.headers))
            ]
        )
    flowable = CountingTable(data, colWidths=set_as.widths, repeatRows=1 if repeat_header else 0)
    commands: list[tuple[Any, ...]] = [
        ("GRID", (0, 0), (-1, -1), 0.25, colors.grey),
        ("BACKGROUND", (0, 0), (-1, 0), colors.Color(0.88, 0.88, 0.88)),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), PAD),
        ("RIGHTPADDING", (0, 0), (-1, -1), PAD),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
    ]
    if table.has_totals:
        commands.append(("BACKGROUND", (0, -1), (-1, -1), colors.Color(0.94, 0.94, 0.94)))
    flowable.setStyle(TableStyle(commands))
    return flowable


def build_pdf(
    head: PdfHead,
    tables: Sequence[PdfTable],
    *,
    blocks: Sequence[PdfBlock] = (),
    block_table: PdfTable | None = None,
    closing: Sequence[PdfTable] = (),
    wide: bool = False,
) -> tuple[bytes, list[str]]:
    """The PDF of ``tables`` (each under its title), or of ``blocks`` (each a heading, a table with
    ``block_table``'s columns, and notes, kept together), then ``closing`` tables; and the layout's
    problems (:func:`layout_problems`; empty unless a word is wider than a page)."""
    all_tables = [*tables, *([block_table] if block_table is not None else []), *closing]
    layout = choose_layout(all_tables, wide=wide or bool(blocks))
    problems = layout_problems(all_tables, layout)
    broken = {problem.split(":", 1)[0] for problem in problems}
    totals = PageTotals()
    buffer = io.BytesIO()
    page_width, page_height = layout.page
    footer_height = FOOTER_LINES * 8.5 + 6
    document = BaseDocTemplate(
        buffer,
        pagesize=layout.page,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN,
        bottomMargin=MARGIN + footer_height,
        title=head.title,
        author=head.software,
        creator=head.software,
        invariant=1,
    )

    def footer(canvas: Any, doc: Any) -> None:
        canvas.saveState()
        y = MARGIN + footer_height - 8
        canvas.setFont(BOLD, 6.5)
        canvas.drawString(MARGIN, y, f"{head.title} · {head.filters} · page {doc.page}")
        canvas.setFont(FONT, 6.5)
        y -= 8.5
        canvas.drawString(MARGIN, y, f"Made {head.made} (room time) · {head.software}")
        y -= 8.5
        canvas.drawString(MARGIN, y, f"{head.sha_label}: {head.sha256}")
        for line in totals.lines()[: FOOTER_LINES - 3]:
            y -= 8.5
            canvas.drawString(MARGIN, y, _clip(line, 6.5, page_width - 2 * MARGIN))
        canvas.restoreState()
        totals.reset()

    frame = Frame(
        MARGIN, MARGIN + footer_height, page_width - 2 * MARGIN, page_height - 2 * MARGIN - footer_height
    )
    document.addPageTemplates([PageTemplate(id="page", frames=[frame], onPageEnd=footer)])
    story: list[Any] = [
        Paragraph(escape(head.title), TITLE),
        Paragraph(f"Period and scope: {escape(head.filters) or '(none)'}", BODY),
        Paragraph(f"Made: {escape(head.made)} (room time)", BODY),
        Paragraph(f"Software: {escape(head.software)}", BODY),
        Paragraph(f"{escape(head.sha_label)}: {escape(head.sha256)}", BODY),
    ]
    layouts = iter(layout.tables)
    for table in tables:
        story += _titled(table, next(layouts), totals, problems=table.title in broken)
    if block_table is not None:
        set_as = next(layouts)
        for block in blocks:
            story.append(_block(block, set_as, totals, problems=block_table.title in broken))
        if not blocks:
            story.append(Paragraph("(none)", BODY))
    for table in closing:
        story += _titled(table, next(layouts), totals, problems=table.title in broken)
    document.build(story)
    return buffer.getvalue(), problems


def _titled(table: PdfTable, set_as: TableLayout, totals: PageTotals, *, problems: bool) -> list[Any]:
    parts: list[Any] = [Paragraph(escape(table.title), HEADING)]
    if not table.cells:
        parts.append(Paragraph("(none)", BODY))
    else:
        parts.append(_table_flowable(table, set_as, totals, problems=problems))
    if table.note:
        parts.append(Paragraph(escape(table.note), SMALL))
    return parts


def _block(block: PdfBlock, set_as: TableLayout, totals: PageTotals, *, problems: bool) -> Any:
    heading = TotalCell(escape(block.heading), BLOCK_HEAD, totals=totals, values=block.values)
    inner = _table_flowable(block.table, set_as, totals, problems=problems, repeat_header=False)
    notes = [Paragraph(escape(note), SMALL) for note in block.notes]
    width = sum(set_as.widths)
    frame = CountingTable([[heading], [inner], *([[note] for note in notes])], colWidths=[width])
    frame.setStyle(
        TableStyle(
            [
                ("BOX", (0, 0), (-1, -1), 0.6, colors.black),
                ("BACKGROUND", (0, 0), (-1, 0), colors.Color(0.9, 0.93, 0.97)),
                ("LEFTPADDING", (0, 0), (-1, -1), 0),
                ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                ("LEFTPADDING", (0, 0), (-1, 0), PAD),
                ("LEFTPADDING", (0, 2), (-1, -1), PAD),
                ("RIGHTPADDING", (0, 2), (-1, -1), PAD),
                ("TOPPADDING", (0, 0), (-1, -1), 1.5),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
            ]
        )
    )
    return KeepTogether([frame, Spacer(1, 5)])


def _clip(text: str, size: float, width: float) -> str:
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "...", size) > width:
        text = text[:-1]
    return text + "..."
