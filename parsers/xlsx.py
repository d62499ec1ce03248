"""XLSX/XLSM with openpyxl and lxml: streamed, cached formula values only, macros never run.

Each table of a worksheet becomes one table block whose rows keep their spreadsheet row numbers and
whose locator names its rows and columns, with header rows detected from labels and from the
sheet's merged ranges (see :mod:`parsers.tables`). A sheet is one table unless empty columns or rows
set several tables apart (:func:`parsers.tables.sheet_parts`).

How a sheet is read: openpyxl opens the workbook read-only (``data_only=True``: cached values; no
VBA, no external links) and provides the sheet list and states, the shared strings and which styles
are dates. Each sheet's XML is then streamed here with lxml's ``iterparse`` — about 8x faster than
openpyxl's per-cell parser — which also finds what openpyxl's read-only mode hides:

- formula cells that have no cached value (a file written by a program that does not calculate,
  such as openpyxl or pandas): Excel would show a number, a reader sees nothing; they are listed
  in a warning instead of silently becoming empty cells;
- the sheet's merged ranges (``<mergeCell>``), which read-only worksheets do not expose.

Only cells present in the XML are visited, so a wrong ``<dimension>`` (``A1:XFD1048576``) costs
nothing. Memory is bounded: after :data:`MAX_ROWS` rows or :data:`MAX_CELLS` cells in a workbook
the rest is not read and a warning says so (merged ranges are still found, by a byte scan of the
rest of the sheet); cells beyond column :data:`MAX_COLUMNS` are cut the same way.
"""

from __future__ import annotations

import bisect
import datetime as dt
import re
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parsers.containers import check_ooxml
from parsers.errors import CorruptFile, EmptyFile
from parsers.model import PACKED_SEPARATOR, Block, Document, Locator, Properties
from parsers.numformat import date_codes, display_date, display_number, number_codes
from parsers.tables import SheetPart, SheetRows, Span, normalize_cell, sheet_parts, sheet_table

#: Rows read per sheet; the rest is reported as not read.
MAX_ROWS = 200_000
#: Cells read per workbook (bounds memory for wide sheets); the rest is reported as not read.
MAX_CELLS = 2_000_000
#: Columns read per row.
MAX_COLUMNS = 1_000
#: How many cell references a warning lists before "…".
_LISTED = 5

_MERGE_REF = re.compile(rb"""<(?:\w+:)?mergeCell\b[^>]*?\bref=["']([A-Za-z]+\d+(?::[A-Za-z]+\d+)?)["']""")


@dataclass
class _SheetData:
    rows: SheetRows = field(default_factory=SheetRows)
    merges: list[str] = field(default_factory=list)
    uncached: list[str] = field(default_factory=list)
    uncached_count: int = 0
    truncated_rows: bool = False
    truncated_columns: int = 0


def parse_xlsx(path: Path) -> Document:
    import openpyxl
    from openpyxl.utils.exceptions import InvalidFileException

    check_ooxml(path, streamed=("xl/worksheets/",))
    # A file object, not the name: openpyxl refuses names whose extension is not .xlsx/.xlsm,
    # and the type was already detected from the content.
    with path.open("rb") as handle, _no_size_scan():
        try:
            workbook = openpyxl.load_workbook(handle, read_only=True, data_only=True, keep_vba=False,
                                              keep_links=False)
        except (InvalidFileException, zipfile.BadZipFile, KeyError, ValueError, TypeError, OSError) as exc:
            raise CorruptFile(f"unreadable workbook: {type(exc).__name__}: {exc}") from exc
        try:
            return _read_workbook(path, workbook)
        finally:
            workbook.close()


@contextmanager
def _no_size_scan() -> Iterator[None]:
    """Open read-only worksheets without their size scan.

    openpyxl's ``ReadOnlyWorksheet.__init__`` calls ``_get_size``, which looks for the sheet's
    ``<dimension>``; a sheet without one (written by openpyxl's own write-only mode, pandas, many
    exporters) is then parsed to its end with the standard library's ElementTree, at load time, for
    every sheet: 84 s of a 1,000,000-row sheet's 101 s profile. seams never asks a read-only
    worksheet its size (its rows are streamed by :func:`_read_sheet`), so the scan is skipped while
    the workbook loads. ``_get_size`` is private (openpyxl 3.1); a test fails if it goes away or the
    scan comes back.
    """
    from openpyxl.worksheet._read_only import ReadOnlyWorksheet

    scan = ReadOnlyWorksheet.__dict__.get("_get_size")
    if scan is None:
        raise RuntimeError("openpyxl's ReadOnlyWorksheet._get_size is gone: revisit parsers.xlsx._no_size_scan")
    ReadOnlyWorksheet._get_size = lambda self: None
    try:
        yield
    finally:
        ReadOnlyWorksheet._get_size = scan


def _read_workbook(path: Path, workbook: Any) -> Document:
    blocks: list[Block] = []
    warnings: list[str] = []
    hidden: list[str] = []
    budget = MAX_CELLS
    for sheet in workbook.worksheets:
        state = getattr(sheet, "sheet_state", "visible")
        if state != "visible":
            hidden.append(sheet.title)
            warnings.append(f"sheet {sheet.title!r} is {state}; indexed anyway")
        if budget <= 0:
            warnings.append(f"sheet {sheet.title!r} was not read: the workbook reached {MAX_CELLS:,} cells")
            continue
        data = _read_sheet(workbook, sheet, budget)
        budget -= data.rows.cells
        warnings.extend(_sheet_warnings(sheet.title, data))
        blocks.extend(sheet_blocks(data.rows, sheet.title, [_span(ref) for ref in data.merges]))
    for name in getattr(workbook, "chartsheets", ()):
        warnings.append(f"chart sheet {getattr(name, 'title', name)!r} has no cells; not indexed")
    if not blocks:
        raise EmptyFile("the workbook has no non-empty cells")
    props = workbook.properties
    properties = Properties(
        title=normalize_cell(props.title), author=normalize_cell(props.creator),
        subject=normalize_cell(props.subject), sheets=tuple(ws.title for ws in workbook.worksheets),
        hidden_sheets=tuple(hidden),
    )
    return Document(str(path), "xlsx", tuple(blocks), properties, tuple(warnings))


def _sheet_warnings(title: str, data: _SheetData) -> list[str]:
    warnings = []
    if data.uncached_count:
        listed = ", ".join(data.uncached) + (", …" if data.uncached_count > len(data.uncached) else "")
        warnings.append(
            f"sheet {title!r}: {data.uncached_count:,} formula cell(s) have no cached value and are empty "
            f"here ({listed}); the file was saved without calculating — open and save it in Excel or "
            "LibreOffice to fill them"
        )
    if data.truncated_rows:
        last = data.rows.numbers[-1] if data.rows else 0
        warnings.append(f"sheet {title!r}: rows after row {last:,} were not read "
                        f"(limit {MAX_ROWS:,} rows per sheet, {MAX_CELLS:,} cells per workbook)")
    if data.truncated_columns:
        warnings.append(f"sheet {title!r}: {data.truncated_columns:,} row(s) are wider than {MAX_COLUMNS:,} "
                        "columns; the cells beyond were not read")
    return warnings


def _read_sheet(workbook: Any, sheet: Any, cell_budget: int) -> _SheetData:
    """Stream one worksheet's XML: non-empty rows as (row number, cell texts), merges, uncached formulas.

    lxml's ``iterparse`` with entities off (the container check already refused any DTD); each row
    is cleared once read, so memory holds only the kept texts. About 8x faster than openpyxl's
    ``WorkSheetParser``, which does per-cell work seams does not need (styles, formulas, cell objects).
    """
    from lxml import etree

    # openpyxl keeps these on its read-only objects without a public accessor (openpyxl 3.1).
    archive, member = workbook._archive, sheet._worksheet_path
    reader = _CellReader(sheet._shared_strings, workbook._date_formats, workbook._timedelta_formats,
                         workbook.epoch, date_codes(workbook), number_codes(workbook))
    data = _SheetData()
    cells_read = 0
    with archive.open(member) as source:
        events = etree.iterparse(source, events=("end",), tag=("{*}row", "{*}mergeCell"),
                                 resolve_entities=False, no_network=True, huge_tree=False)
        for _, element in events:
            if element.tag.endswith("mergeCell"):
                ref = element.get("ref")
                if ref:
                    data.merges.append(ref)
                continue
            number, cells = reader.row(element, data)
            element.clear()
            while element.getprevious() is not None:  # drop the rows already read from the tree
                del element.getparent()[0]
            if not cells:
                continue
            if len(data.rows) >= MAX_ROWS or cells_read + len(cells) > cell_budget:
                data.truncated_rows = True
                break
            data.rows.add(number, cells)
            cells_read += len(cells)
        if data.truncated_rows:
            data.merges = _scan_merges(source)
    data.uncached, data.uncached_count = reader.uncached, reader.uncached_count
    return data


class _CellReader:
    """Cell values as openpyxl reads them with ``data_only=True``, turned into display text."""

    def __init__(self, shared_strings: Any, date_formats: set[int], timedelta_formats: set[int],
                 epoch: dt.datetime, date_codes: dict[int, str] | None = None,
                 number_codes: dict[int, str] | None = None) -> None:
        self.shared_strings = shared_strings
        self.date_formats = date_formats
        self.date_codes = date_codes or {}  # style index -> the number format of a date style
        self.number_codes = number_codes or {}  # style index -> a number format display_number renders
        self.timedelta_formats = timedelta_formats
        self.epoch = epoch
        self.row_number = 0
        self.uncached: list[str] = []
        self.uncached_count = 0
        self._columns: dict[str, int] = {}

    def row(self, element: Any, data: _SheetData) -> tuple[int, tuple[str, ...]]:
        number = element.get("r")
        self.row_number = int(number) if number and number.isdigit() else self.row_number + 1
        namespace = element.tag[: element.tag.index("}") + 1] if element.tag[0] == "{" else ""
        values: dict[int, str] = {}
        column = 0
        for cell in element.iterchildren(namespace + "c"):
            ref = cell.get("r")
            column = self._column(ref) if ref else column + 1
            if column > MAX_COLUMNS:
                data.truncated_columns += 1
                break
            text = self._text(cell, ref, namespace)
            if text:
                values[column] = text
        if not values:
            return self.row_number, ()
        return self.row_number, tuple(values.get(c, "") for c in range(1, max(values) + 1))

    def _column(self, ref: str) -> int:
        letters = ref.rstrip("0123456789")
        column = self._columns.get(letters)
        if column is None:
            column = 0
            for ch in letters.upper():
                column = column * 26 + ord(ch) - 64
            self._columns[letters] = column
        return column

    def _text(self, cell: Any, ref: str | None, ns: str) -> str:
        kind = cell.get("t", "n")
        if kind == "inlineStr":
            inline = cell.find(ns + "is")
            return _inline_text(inline) if inline is not None else ""
        value_element = cell.find(ns + "v")
        raw = value_element.text if value_element is not None else None
        if not raw:
            if cell.find(ns + "f") is not None and not (kind == "str" and value_element is not None):
                self.uncached_count += 1
                if len(self.uncached) < _LISTED:
                    self.uncached.append(ref or f"R{self.row_number}")
            return ""
        if kind == "n":
            style = cell.get("s")
            index = int(style) if style else 0
            code = self.number_codes.get(index)
            if raw.isdigit() and code is None and index not in self.date_formats:
                return raw.lstrip("0") or "0"  # the common case: a whole number
            try:
                number: float = float(raw) if any(ch in raw for ch in ".eE") else int(raw)
            except ValueError:
                return normalize_cell(raw)
            if index in self.date_formats:
                return self._date(number, index)
            return (display_number(number, code) if code is not None else "") or cell_text(number)
        if kind == "s":
            try:
                return normalize_cell(self.shared_strings[int(raw)])
            except (IndexError, ValueError):
                return ""
        if kind == "b":
            return "TRUE" if raw.strip() in ("1", "true") else "FALSE"
        return normalize_cell(raw)  # "str", "e" (#DIV/0!), "d" (ISO 8601 text)

    def _date(self, number: float, style: int) -> str:
        from openpyxl.utils.datetime import from_excel

        try:
            value = from_excel(number, self.epoch, timedelta=style in self.timedelta_formats)
        except (OverflowError, ValueError):
            return cell_text(number)
        if isinstance(value, dt.datetime) and style in self.date_codes:
            shown = display_date(value, self.date_codes[style])
            if shown:
                return shown
        return cell_text(value)


def _inline_text(inline: Any) -> str:
    """An inline string: plain text or rich-text runs; phonetic guides (``<rPh>``) are not the value."""
    parts: list[str] = []
    for child in inline:
        local = child.tag.rsplit("}", 1)[-1]
        if local == "t":
            parts.append(child.text or "")
        elif local == "r":
            parts.extend(t.text or "" for t in child if t.tag.rsplit("}", 1)[-1] == "t")
    return normalize_cell("".join(parts))


def _scan_merges(source: Any) -> list[str]:
    """Find merged ranges in the rest of a sheet's XML without parsing it (they follow the rows)."""
    refs: dict[str, None] = {}  # ordered set: a match inside the overlap between chunks is seen twice
    tail = b""
    for chunk in iter(lambda: source.read(1 << 20), b""):
        window = tail + chunk
        if b"mergeCell" in window:
            refs.update((m.group(1).decode("ascii"), None) for m in _MERGE_REF.finditer(window))
        tail = window[-200:]
    return list(refs)


def _span(ref: str) -> tuple[int, int, int, int]:
    from openpyxl.utils.cell import range_boundaries

    min_col, min_row, max_col, max_row = range_boundaries(ref if ":" in ref else f"{ref}:{ref}")
    return min_row, min_col, max_row, max_col


def sheet_blocks(rows: SheetRows, sheet: str, merges: Sequence[tuple[int, int, int, int]] = ()) -> list[Block]:
    """The table blocks of a sheet's rows, one per table on the sheet (see
    :func:`parsers.tables.sheet_parts`); merges are 1-based (row, col, last row, last col). The rows
    are handed over: a sheet of one table keeps them as they are, several tables take their cells
    row by row, each row dropped once read, so the sheet is never held twice."""
    parts = sheet_parts(rows, merges)
    if len(parts) <= 1:
        block = _table_block(rows, sheet, merges, 0)
        return [block] if block is not None else []
    own: list[SheetRows] = [SheetRows() for _ in parts]
    position = 0
    while position < len(parts):  # parts side by side share their rows: each row is read once
        start, stop = parts[position].start, parts[position].stop
        beside = position
        while beside < len(parts) and (parts[beside].start, parts[beside].stop) == (start, stop):
            beside += 1
        for index in range(start, stop):
            cells = rows.packed[index].split(PACKED_SEPARATOR)
            rows.packed[index] = ""
            for part, part_rows in zip(parts[position:beside], own[position:beside], strict=True):
                piece = cells[part.first:part.end]
                if any(piece):
                    part_rows.add(rows.numbers[index], piece)
        position = beside
    blocks = []
    for part, part_rows in zip(parts, own, strict=True):
        block = _table_block(part_rows, sheet, _inside(merges, part), part.first)
        if block is not None:
            blocks.append(block)
    return blocks


def _inside(merges: Sequence[tuple[int, int, int, int]], part: SheetPart) -> list[tuple[int, int, int, int]]:
    """The merged ranges whose first cell lies in the columns of ``part``."""
    return [m for m in merges if part.first < m[1] <= part.end]


def _table_block(rows: SheetRows, sheet: str, merges: Sequence[tuple[int, int, int, int]],
                 offset: int) -> Block | None:
    """One table block from rows whose first cell is in sheet column ``offset`` (0-based)."""
    if not rows:
        return None
    first_column = offset + rows.first_column
    columns = (first_column + 1, offset + rows.end_column)
    numbers = tuple(rows.numbers)
    spans = []
    for row, col, last_row, last_col in merges:
        start = bisect.bisect_left(numbers, row)
        if start < len(numbers) and numbers[start] == row and col - 1 - first_column >= 0:
            end = bisect.bisect_right(numbers, last_row) - 1
            spans.append(Span(start, col - 1 - first_column, end, last_col - 1 - first_column))
    table = sheet_table(rows, spans)
    locator = Locator(sheet=sheet, row_start=numbers[0], row_end=numbers[-1], column_start=columns[0],
                      column_end=columns[1])
    return Block("table", table.render(), locator, table=table, row_numbers=numbers)


def cell_text(value: object) -> str:
    """A cell value as the text Excel would show for it (close enough for retrieval)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return format(value, ".15g")
    if isinstance(value, dt.datetime):
        if value.time() == dt.time():
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds" if value.second else "minutes")
    if isinstance(value, dt.time):
        return value.isoformat(timespec="seconds" if value.second else "minutes")
    if isinstance(value, int):
        return str(value)
    return normalize_cell(value)
