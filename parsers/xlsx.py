"""XLSX/XLSM with openpyxl: read-only, cached formula values, macros never run.

Each sheet becomes one table block whose rows keep their spreadsheet row numbers, with its header
rows detected (multi-row headers included; cells left empty by a merge inherit the value to their
left). Rows beyond ``MAX_ROWS`` are not read and the truncation is reported as a warning.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from parsers.detect import check_zip_bomb
from parsers.errors import CorruptFile, EmptyFile
from parsers.model import Block, Document, Locator, Properties, Table
from parsers.text import normalize_line

MAX_ROWS = 200_000
def parse_xlsx(path: Path) -> Document:
    import openpyxl

    check_zip_bomb(path)
    try:
        workbook = openpyxl.load_workbook(str(path), read_only=True, data_only=True, keep_vba=False)
    except Exception as exc:
        raise CorruptFile(f"unreadable workbook: {type(exc).__name__}: {exc}") from exc
    blocks: list[Block] = []
    warnings: list[str] = []
    hidden: list[str] = []
    try:
        for sheet in workbook.worksheets:
            if getattr(sheet, "sheet_state", "visible") != "visible":
                hidden.append(sheet.title)
                warnings.append(f"sheet {sheet.title!r} is hidden; indexed anyway")
            numbered: list[tuple[int, tuple[str, ...]]] = []
            for number, row in enumerate(sheet.iter_rows(values_only=True), start=1):
                if number > MAX_ROWS:
                    warnings.append(f"sheet {sheet.title!r}: rows after {MAX_ROWS:,} were not read")
                    break
                cells = tuple(_cell_text(v) for v in row)
                if any(cells):
                    numbered.append((number, cells))
            block = table_block(numbered, sheet.title)
            if block is not None:
                blocks.append(block)
        title = normalize_line(workbook.properties.title or "")
        author = normalize_line(workbook.properties.creator or "")
        sheets = tuple(ws.title for ws in workbook.worksheets)
    finally:
        workbook.close()
    if not blocks:
        raise EmptyFile("the workbook has no non-empty cells")
    properties = Properties(title=title, author=author, sheets=sheets, hidden_sheets=tuple(hidden))
    return Document(str(path), "xlsx", tuple(blocks), properties, tuple(warnings))


def table_block(numbered: list[tuple[int, tuple[str, ...]]], sheet: str) -> Block | None:
    """Build one table block from (row number, cells) pairs, trimming empty columns at the right."""
    if not numbered:
        return None
    width = max(max((i + 1 for i, c in enumerate(cells) if c), default=0) for _, cells in numbered)
    rows = tuple(tuple(cells[:width]) + ("",) * (width - len(cells[:width])) for _, cells in numbered)
    header_rows = detect_header_rows(rows)
    rows = fill_merged_header(rows, header_rows)
    table = Table(rows, header_rows)
    numbers = tuple(n for n, _ in numbered)
    locator = Locator(sheet=sheet, row_start=numbers[0], row_end=numbers[-1])
    return Block("table", table.render(), locator, table=table, row_numbers=numbers)


def detect_header_rows(rows: tuple[tuple[str, ...], ...]) -> int:
    """Leading rows made of text labels are headers; at most three, at least one."""
    def is_label_row(row: tuple[str, ...]) -> bool:
        filled = [c for c in row if c]
        return bool(filled) and all(not _is_number(c) for c in filled)

    count = 0
    for row in rows[:3]:
        if not is_label_row(row):
            break
        count += 1
    if count == 0 or count == len(rows):
        return 1
    # A second label row counts only when the first is sparse (a merged group header) or the
    # rows below are data; a run of all-text rows in a text table is data, not headers.
    if count > 1:
        width = len(rows[0])
        first_fill = sum(1 for c in rows[0] if c) / max(width, 1)
        if first_fill >= 0.99 and not any(_is_number(c) for c in rows[count]):
            return 1
    return count


def fill_merged_header(rows: tuple[tuple[str, ...], ...], header_rows: int) -> tuple[tuple[str, ...], ...]:
    """In multi-row headers, an empty cell under a merged group label inherits it from the left."""
    if header_rows < 2:
        return rows
    filled = []
    for index, row in enumerate(rows):
        if index < header_rows - 1:
            cells = list(row)
            for i in range(1, len(cells)):
                if not cells[i] and cells[i - 1]:
                    cells[i] = cells[i - 1]
            filled.append(tuple(cells))
        else:
            filled.append(row)
    return tuple(filled)


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", "").replace("%", ""))
    except ValueError:
        return False
    return True


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ", timespec="minutes") if value.time() != dt.time() else value.date().isoformat()
    return normalize_line(str(value))


