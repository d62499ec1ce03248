"""Tables from every format: one way to normalise cells, find header rows and fill merged cells.

Parsers hand over a grid of raw cell texts plus the merged ranges the format declares (XLSX
``<mergeCell>``, a PDF cell that spans grid columns, a Word ``gridSpan``/``vMerge``), and get back a
:class:`parsers.model.Table` whose rows all have the same width, whose cells are single lines, and
whose ``header_rows`` says how many leading rows are headers (``title_rows`` how many of those are
the table's title, at most one, not counted against :data:`MAX_HEADER_ROWS`).

Header rows are the leading rows made of labels (no numbers, dates or amounts), at most
:data:`MAX_HEADER_ROWS`; a row of years over a row of labels (``2017 | 2017`` over ``총인구 | 가구``)
is a header row too. A merged range decides more than the labels do: a group label merged over
some columns (not the full width) means the row below is a header row too, and a label merged down
over rows ``1..k`` makes rows ``1..k`` headers.

Merged ranges are filled so that every row can be read on its own in a chunk:

- in header rows a label merged across columns is repeated in each of them only when it groups
  sub-columns: when the header row below it holds two or more different labels under it
  (``2019 | 2019`` over ``예산액 | 전년 대비`` says which year each sub-column is), or when it is in
  the last header row (``기간 | 기간`` over a date and a month: each column under its own label).
  Otherwise — over one label or none — it is kept once, in its first column: a form's project or
  title block merged across the top is not read six times on every header line of every chunk. A title — a range merged
  from the first column that holds the only text of its row, whether or not it reaches the last
  column — is kept once. A label merged down over header rows is repeated in each of them, in its
  own column;
- in data rows a label merged down over several rows is repeated in its first column of each row
  (a category cell spanning its rows); cells merged sideways stay empty, so text is not repeated
  along a row;
- a long merged value (a note, a title: over :data:`MAX_REPEATED_LABEL` characters) is never
  repeated.

A sheet often holds several tables, set apart by fully empty columns or rows; :func:`sheet_parts`
finds them, so that each is a table of its own with its own header rows (two tables read as one
grid put the second one's header in the middle of the first one's rows).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from parsers.model import PACKED_SEPARATOR, Block, PackedRows, Table

MAX_HEADER_ROWS = 3
_YEAR = re.compile(r"^(19|20)\d\d$")

_WHITESPACE = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f\u200b\ufeff]")  # \v (a soft line break in Office files) is a space
_VALUE = re.compile(
    r"""^[-+(]?\s*[₩$€£¥]?\s*[-+]?\s*(\d{1,3}(\.\d{3})+(,\d+)?|\d[\d,]*(\.\d+)?|\.\d+)\s*(%|원|억원|만원|천원|[kKmMbB])?\)?$"""  # amounts (1.234.567,89 as Europe writes them too)
    r"""|^\d{4}[-./]\s?\d{1,2}([-./]\s?\d{1,2})?\.?(\s+\d{1,2}:\d{2}(:\d{2})?)?$"""  # 2025-01-04, 2025. 3.
    r"""|^\d{1,2}:\d{2}(:\d{2})?$"""  # times
    r"""|^(true|false|#n/a|#div/0!|#value!|#ref!|#name\?|#num!|#null!)$""",  # booleans, Excel errors
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Span:
    """A merged range, 0-based and inclusive, in grid coordinates; its text sits at (row, col)."""

    row: int
    col: int
    last_row: int
    last_col: int

    @property
    def width(self) -> int:
        return self.last_col - self.col + 1

    @property
    def height(self) -> int:
        return self.last_row - self.row + 1


def normalize_cell(value: object) -> str:
    """A cell's text on one line: newlines and runs of whitespace become one space."""
    if value is None:
        return ""
    return _WHITESPACE.sub(" ", _CONTROL.sub("", str(value))).strip()


def is_value(text: str) -> bool:
    """True for numbers, amounts, percentages, dates, times, booleans and Excel error values."""
    return bool(text) and _VALUE.match(text) is not None


def cell_line(blocks: Sequence[Block]) -> str:
    """A word processor's table cell as one cell of text: its blocks joined on a line, but the
    tables nested in it, which stay tables (:func:`table_blocks`)."""
    return normalize_cell(" ".join(b.text.replace("\n", " ") for b in blocks if b.kind != "table"))


def table_blocks(table: Table | None, cells: Sequence[Sequence[Block]],
                 declared_columns: Sequence[int] = ()) -> list[Block]:
    """What a word processor's table (HWP, HWPX, DOCX) becomes, given its :class:`Table` (its cells as
    :func:`cell_line` reads them), the blocks read in each of its cells and, when the file declares
    the table's header rows, each cell's grid column.

    - A table with one cell of content (a 1×1 table, or one whose other cells are empty margins) is
      a frame: a box drawn round text, as Hangul documents put a title, a summary or a whole annex
      in one. Its blocks stand in its place as they are (headings, paragraphs, tables): read as one
      cell they were one line, and the rows of the tables inside ran together.
    - Any other table is itself, then each table nested in its cells as a table of its own (in
      reading order), so a nested table keeps its rows and header as every table does; its cell
      keeps its own words. Where the file declares the outer table's header rows (HWPX's header
      cells, DOCX's repeated header rows), a nested table is titled with the label of the column it
      sat in, as a title row: in an old-and-new comparison the two tables of a row say which is
      개정 전 and which 개정 후, as their places did. A detected header is not enough: the first row
      of a form is one of its fields, and its label would title the table wrongly.
    """
    filled = [blocks for blocks in cells if any(block.text.strip() for block in blocks)]
    if len(filled) == 1:
        return list(filled[0])
    nested = [_titled(block, _column_label(table, blocks, declared_columns[index] if index < len(declared_columns)
                                           else None))
              for index, blocks in enumerate(cells) for block in blocks if block.kind == "table"]
    return ([] if table is None else [Block("table", table.render(), table=table)]) + nested


def _column_label(table: Table | None, cell: Sequence[Block], column: int | None) -> str:
    """The label over ``column`` in ``table``'s last header row; "" for a cell of that row itself."""
    if table is None or column is None or isinstance(table.rows, PackedRows) or table.header_rows <= table.title_rows:
        return ""
    labels = table.rows[table.header_rows - 1]
    label = labels[column] if column < len(labels) else ""
    return "" if label == cell_line(cell) else label


def _titled(block: Block, label: str) -> Block:
    """A nested table's block with ``label`` as its first title row (the block itself without one)."""
    table = block.table
    if not label or table is None or isinstance(table.rows, PackedRows) or not table.rows:
        return block
    titled = Table(((label,) + ("",) * (len(table.rows[0]) - 1), *table.rows), table.header_rows + 1,
                   table.title_rows + 1)
    return replace(block, text=titled.render(), table=titled)


def make_table(
    rows: Iterable[Sequence[object]],
    spans: Iterable[Span] = (),
    header_rows: int | None = None,
    normalized: bool = False,
) -> Table | None:
    """Build a Table from raw cells: normalise, pad to one width, find headers, fill merges.

    Rows with no text are dropped (and spans are re-indexed accordingly); returns ``None`` when
    nothing is left. ``header_rows`` overrides detection when the format declares it;
    ``normalized`` says the cells already went through :func:`normalize_cell`.
    """
    if normalized:
        grid = [list(row) for row in rows]
    else:
        grid = [[normalize_cell(cell) for cell in row] for row in rows]
    spans = [s for s in spans if s.width > 1 or s.height > 1]
    keep = [index for index, row in enumerate(grid) if any(row)]
    if not keep:
        return None
    width = max(max((i + 1 for i, cell in enumerate(grid[r]) if cell), default=0) for r in keep)
    if len(keep) != len(grid):
        spans = _reindex(spans, keep)
        grid = [grid[r] for r in keep]
    grid = [row[:width] + [""] * (width - len(row[:width])) for row in grid]
    spans = [s for s in spans if s.col < width and s.row < len(grid)]
    if header_rows is None:
        header_rows = detect_header_rows(grid, spans)
    header_rows = max(1, min(header_rows, len(grid)))
    titles = _title_rows(grid, header_rows)
    _fill_spans(grid, spans, header_rows, width, len(grid))
    return Table(tuple(tuple(row) for row in grid), header_rows, titles)


class SheetRows:
    """A sheet's non-empty rows as they are read, each one string (its cells joined by
    :data:`parsers.model.PACKED_SEPARATOR`, empty cells at the right end left out): the cells of a
    row are not kept as strings of their own, so reading a tall sheet holds about its text."""

    def __init__(self) -> None:
        self.numbers: list[int] = []  # the row number of each row
        self.packed: list[str] = []
        self.cells = 0  # cells read, empty ones included (what the cell limits count)
        self.first_column = sys.maxsize  # the first column any row has text in (0-based)
        self.end_column = 0  # one past the last column any row has text in

    def __len__(self) -> int:
        return len(self.numbers)

    def add(self, number: int, cells: Sequence[str]) -> None:
        """Add a row of normalised cells that holds some text."""
        end = len(cells)
        while not cells[end - 1]:
            end -= 1
        self.first_column = min(self.first_column, next(i for i, cell in enumerate(cells) if cell))
        self.end_column = max(self.end_column, end)
        self.numbers.append(number)
        self.packed.append(PACKED_SEPARATOR.join(cells[:end]))
        self.cells += len(cells)


@dataclass(frozen=True)
class SheetPart:
    """One table of a sheet: the rows ``start``..``stop - 1`` (indexes into the sheet's rows) that have
    text in the columns ``first``..``end - 1`` (0-based sheet columns)."""

    start: int
    stop: int
    first: int
    end: int


def sheet_parts(rows: SheetRows, merges: Sequence[tuple[int, int, int, int]] = ()) -> list[SheetPart]:
    """The tables of a sheet, top to bottom and left to right.

    Tables sit apart where a band of fully empty rows, or a fully empty column, separates blocks of
    cells that each head a table (:func:`_heads_a_table`: label rows over a row with figures, or
    over an empty row and then figures: a report's sheet sets its header apart that way). Below
    empty rows, a block also opens a table of its own when it heads one under rows of two cells (a
    block of key/value rows), or when its labels reach a column the rows above leave empty
    (:func:`_labels_beyond`). A
    block beside another whose first row is level with the other's header rows is part of the same
    table (a column set off by an empty one, "Topic | Period | | Page"), and so is a block joined to
    another by a merged range across the gap; blocks that cannot be told apart from data (text only)
    stay one table. ``merges`` are 1-based (row, col, last row, last col). One pass over the rows
    (each row's cells are split only while some column of its band is still unseen); no copy.
    """
    if not rows:
        return []
    groups: list[tuple[int, int]] = []
    start = 0
    headed = False  # whether the current group holds a band that heads a table
    bands = list(_bands(rows.numbers))
    columns: set[int] = set()  # the columns the current group fills (merged ranges included)
    pairs = 0  # its rows of two cells or more, counted up to _ROWS_OF_THEIR_OWN (_band_columns)
    for number, (band_start, band_stop) in enumerate(bands):
        top = _top_rows(rows, band_start, band_stop, 0, rows.end_column)
        if len(top) == band_stop - band_start <= MAX_HEADER_ROWS and _label_rows(top) == len(top) \
                and number + 1 < len(bands):
            # Header rows set off from their data by an empty row: they head the band below.
            top += _top_rows(rows, *bands[number + 1], 0, rows.end_column)[:1]
        heads = _heads_a_table(top)
        if number and not _bridged(rows.numbers[band_start - 1], rows.numbers[band_start], merges) and (
                (heads and (headed or pairs >= _ROWS_OF_THEIR_OWN)) or (pairs and _labels_beyond(top, columns))):
            groups.append((start, band_start))
            start, headed = band_start, False
            columns, pairs = set(), 0
        headed = headed or heads
        if number + 1 < len(bands):  # what the next band is weighed against
            pairs = _band_columns(rows, band_start, band_stop, merges, columns, pairs)
    groups.append((start, len(rows)))
    parts: list[SheetPart] = []
    for group_start, group_stop in groups:
        runs = _column_runs(rows, group_start, group_stop, merges)
        parts.extend(_side_by_side(rows, group_start, group_stop, runs))
    return parts


#: Rows of two cells or more that make the rows above a table their own, not a title over it: a
#: block of key/value rows (``서비스명 | perDay`` over ``Method | GET``) is not what a table below
#: continues. Titles, units and notes stand one to a row.
_ROWS_OF_THEIR_OWN = 2


def _band_columns(rows: SheetRows, start: int, stop: int, merges: Sequence[tuple[int, int, int, int]],
                  columns: set[int], pairs: int) -> int:
    """Add to ``columns`` those rows ``start..stop - 1`` fill (with the merged ranges that start in
    them), and return ``pairs`` plus how many of the rows have two cells or more, up to
    :data:`_ROWS_OF_THEIR_OWN`. Rows are split only while that can still change either: once every
    column of the sheet is filled and the count is reached, the rest of a tall band is not read."""
    width = rows.end_column - rows.first_column
    for index in range(start, stop):
        if pairs >= _ROWS_OF_THEIR_OWN and len(columns) >= width:
            break
        filled = {column for column, cell in enumerate(rows.packed[index].split(PACKED_SEPARATOR)) if cell}
        columns |= filled
        pairs = min(pairs + (len(filled) >= 2), _ROWS_OF_THEIR_OWN)
    low, high = rows.numbers[start], rows.numbers[stop - 1]
    for row, col, _, last_col in merges:
        if low <= row <= high:
            columns.update(range(col - 1, last_col))
    return pairs


def _labels_beyond(top: Sequence[Sequence[str]], columns: set[int]) -> bool:
    """Whether these first rows of a band open another table than the one above, whose rows fill
    ``columns``: a row of labels (under a title row, if any) with a label in a column the table
    above has nothing in, and a row under it. A table's own rows, set apart by an empty row, stay
    in its columns; ``응답 메세지 명세`` over ``구분 | 항목명 | … | 데이터타입 | 비고`` reaches a column
    the request table above it leaves empty."""
    if not columns:
        return False
    first = 1 if top and _is_title_row(top[0]) else 0
    if len(top) < first + 2:
        return False
    labels = top[first]
    filled = {column for column, cell in enumerate(labels) if cell}
    return len(filled) >= 2 and not any(is_value(labels[c]) for c in filled) and not filled <= columns


def _bands(numbers: Sequence[int]) -> Iterator[tuple[int, int]]:
    """Runs of rows with no empty row between them, as index ranges."""
    start = 0
    for index in range(1, len(numbers)):
        if numbers[index] != numbers[index - 1] + 1:
            yield start, index
            start = index
    yield start, len(numbers)


def _bridged(above: int, below: int, merges: Sequence[tuple[int, int, int, int]]) -> bool:
    """Whether a merged range reaches from row ``above`` to row ``below`` (1-based) across empty rows."""
    return any(row <= above and last_row >= below for row, _, last_row, _ in merges)


def _column_runs(rows: SheetRows, start: int, stop: int,
                 merges: Sequence[tuple[int, int, int, int]]) -> list[tuple[int, int]]:
    """The runs of columns with text in rows ``start..stop - 1``, split at fully empty columns that
    no merged range of those rows covers; 0-based [first, end) pairs."""
    first, end = rows.first_column, rows.end_column
    unseen = set(range(first, end))
    for index in range(start, stop):
        if not unseen:
            break
        packed = rows.packed[index]
        cells = packed.split(PACKED_SEPARATOR)
        if len(cells) == end and PACKED_SEPARATOR * 2 not in packed and not packed.startswith(PACKED_SEPARATOR):
            unseen.clear()  # a row with every column filled: no column is empty across the group
            break
        unseen.difference_update([c for c in unseen if c < len(cells) and cells[c]])
    if unseen:
        low, high = rows.numbers[start], rows.numbers[stop - 1]
        for row, col, last_row, last_col in merges:
            if row <= high and last_row >= low and last_col > col:
                unseen.difference_update(range(col - 1, last_col))
    # Columns empty in this group but filled in another group (or left of any text) are not the
    # group's own: its runs are cut at them and trimmed of them alike.
    runs: list[tuple[int, int]] = []
    run_start = None
    for column in range(first, end + 1):
        empty = column == end or column in unseen
        if not empty and run_start is None:
            run_start = column
        elif empty and run_start is not None:
            runs.append((run_start, column))
            run_start = None
    return runs or [(first, end)]


def _top_rows(rows: SheetRows, start: int, stop: int, first: int, end: int) -> list[list[str]]:
    """The first rows (up to one more than :data:`MAX_HEADER_ROWS`) of ``start..stop - 1`` that have
    text in columns ``first..end - 1``, as those columns' cells."""
    top: list[list[str]] = []
    for index in range(start, stop):
        cells = rows.packed[index].split(PACKED_SEPARATOR)[first:end]
        if any(cells):
            top.append(cells)
            if len(top) > MAX_HEADER_ROWS:
                break
    return top


def _label_rows(top: Sequence[Sequence[str]]) -> int:
    labels = 0
    for cells in top[:MAX_HEADER_ROWS]:
        filled = [cell for cell in cells if cell]
        if not filled or any(is_value(cell) for cell in filled):
            break
        labels += 1
    return labels


def _heads_a_table(top: Sequence[Sequence[str]]) -> bool:
    """Whether these first rows open a table of their own: label rows over a row with figures, the
    last label row as full as that row (one cell short at most, from three cells on: the corner over
    the row labels is often empty). A lone label over data ("광역시" over "대구 | 3") is a group
    inside a table, and text-only rows cannot show where a header is."""
    labels = _label_rows(top)
    if labels == 0 or labels >= len(top):
        return False
    header = sum(1 for cell in top[labels - 1] if cell)
    data = [cell for cell in top[labels] if cell]
    return any(is_value(cell) for cell in data) and header >= len(data) - (len(data) >= 3)


def _side_by_side(rows: SheetRows, start: int, stop: int, runs: list[tuple[int, int]]) -> list[SheetPart]:
    """The tables of a group of rows whose columns fall in ``runs``: runs side by side are one table
    unless both head a table and one starts below the other's header rows."""
    if len(runs) == 1:
        return [SheetPart(start, stop, *runs[0])]
    facts = []
    for first, end in runs:
        top_index = next(i for i in range(start, stop) if any(rows.packed[i].split(PACKED_SEPARATOR)[first:end]))
        top = _top_rows(rows, top_index, stop, first, end)
        header_end = rows.numbers[top_index] + max(_label_rows(top), 1) - 1
        facts.append((rows.numbers[top_index], header_end, _heads_a_table(top)))
    parts = [SheetPart(start, stop, *runs[0])]
    for (first, end), (top, header_end, heads), (left_top, left_header_end, left_heads) in zip(
            runs[1:], facts[1:], facts[:-1], strict=True):
        upper_end = left_header_end if left_top <= top else header_end
        apart = heads and left_heads and max(top, left_top) > upper_end
        if apart:
            parts.append(SheetPart(start, stop, first, end))
        else:
            parts[-1] = SheetPart(start, stop, parts[-1].first, end)
    return parts


def sheet_table(rows: SheetRows, spans: Iterable[Span] = ()) -> Table:
    """:func:`make_table` of a sheet's rows (with the columns before its first column of text left
    out; ``spans`` already relative to that column), kept packed (:class:`parsers.model.PackedRows`)."""
    first = rows.first_column
    packed = rows.packed if first == 0 else [row.split(PACKED_SEPARATOR, first)[-1] for row in rows.packed]
    rows.packed = []  # the table owns them now (fills merged cells in place, then renders them)
    width = rows.end_column - first
    height = len(packed)
    spans = [s for s in spans if (s.width > 1 or s.height > 1) and s.col < width and s.row < height]
    header_rows = max(1, min(detect_header_rows(_Unpacked(packed, width), spans), height))
    titles = _title_rows(_Unpacked(packed, width), header_rows)
    if spans:  # fill merged cells in the rows they cover, then pack those rows again (the header
        # rows too: whether a label groups sub-columns is read from the header row under it)
        covered = {r for s in spans for r in range(s.row, min(s.last_row, height - 1) + 1)}
        touched = {r: _cells(packed[r], width) for r in covered.union(range(header_rows))}
        _fill_spans(touched, spans, header_rows, width, height)
        for r, cells in touched.items():
            end = len(cells)
            while end and not cells[end - 1]:
                end -= 1
            packed[r] = PACKED_SEPARATOR.join(cells[:end])
    return Table(PackedRows.pack(packed, width), header_rows, titles)


def _cells(packed: str, width: int) -> list[str]:
    cells = packed.split(PACKED_SEPARATOR)
    return cells + [""] * (width - len(cells))


class _Unpacked(Sequence[tuple[str, ...]]):
    """Packed rows read as tuples of ``width`` cells where they are read, and sliced as views — what
    :func:`detect_header_rows` looks at (its first rows) costs that, not a copy of the table."""

    def __init__(self, packed: list[str], width: int, start: int = 0, stop: int | None = None) -> None:
        self.packed, self.width, self.start = packed, width, start
        self.stop = len(packed) if stop is None else stop

    def __len__(self) -> int:
        return self.stop - self.start

    def __getitem__(self, index):  # int -> a row, slice -> a view
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return tuple(self[i] for i in range(start, stop, step))
            return _Unpacked(self.packed, self.width, self.start + start, self.start + max(stop, start))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("row index out of range")
        return tuple(_cells(self.packed[self.start + index], self.width))


def detect_header_rows(grid: Sequence[Sequence[str]], spans: Sequence[Span] = ()) -> int:
    """How many leading rows are headers: at least one, at most :data:`MAX_HEADER_ROWS`."""
    if len(grid) <= 1:
        return 1
    width = len(grid[0])
    if _opens_with_title(grid):
        # A title over the table ("요구사항 정의서", "Stanley Cups"): a header row of its own, on
        # top of the header rows below it — a merged title must not hide the column labels, nor
        # count against their limit (a title over three rows of labels leaves them all headers).
        below = [Span(s.row - 1, s.col, s.last_row - 1, s.last_col) for s in spans if s.row >= 1]
        return min(1 + detect_header_rows(grid[1:], below), 1 + MAX_HEADER_ROWS)
    # Merges in the top rows are the strongest signal (a "2025" merged over Q1 | Q2 is a header
    # even though it looks like a number): a label merged down over rows 0..k, or a group label
    # merged over some (not all) columns with the row below it.
    declared = 0
    for span in sorted(spans, key=lambda s: s.row):
        if (span.row > 0 and span.row >= declared) or span.row >= MAX_HEADER_ROWS:
            continue  # starts below the header rows found so far: a category merged over data rows
        if span.height > 1:
            declared = max(declared, span.last_row + 1)
        elif span.width < width and _sub_header_below(grid, spans, span.row):
            declared = max(declared, span.row + 2)
    if 0 < declared <= MAX_HEADER_ROWS and declared < len(grid):
        return declared

    def is_label_row(row: Sequence[str]) -> bool:
        filled = [cell for cell in row if cell]
        return bool(filled) and not any(is_value(cell) for cell in filled)

    labels = 0
    for index, row in enumerate(grid[:MAX_HEADER_ROWS]):
        if not is_label_row(row) and not (_is_year_row(row) and index + 1 < len(grid) and is_label_row(grid[index + 1])):
            break
        labels += 1
    if labels <= 1 or all(is_label_row(row) for row in grid[labels:labels + 200]):
        return 1  # one label row, or a table of text only: its first row is the header
    # A lone label above the header (a title such as "Stanley Cups") or a sparse group row counts.
    first_fill = sum(1 for cell in grid[0] if cell) / max(width, 1)
    if first_fill < 0.99:
        return labels
    # A full first row followed by more label rows: those are data unless numbers follow them.
    below = grid[labels] if labels < len(grid) else ()
    return labels if any(is_value(cell) for cell in below) else 1


#: A merged value longer than this is a note or a title, not a label: it is kept once, in its first
#: cell, instead of being repeated in every cell it covers (a 600-character 비고 merged down twelve
#: rows would otherwise be read twelve times).
MAX_REPEATED_LABEL = 40


def _fill_spans(grid: Mapping[int, list[str]] | list[list[str]], spans: Sequence[Span], header_rows: int, width: int,
                height: int) -> None:
    """Fill merged ranges in ``grid`` (all ``height`` rows, or those the spans cover and the header
    rows, by index). Which labels group sub-columns is decided on the cells as given, before any is
    filled: a label filled into the row below would count as sub-labels of the row above it."""
    titles = {span for span in spans if span.col == 0 and _alone_in_its_row(grid[span.row], span)}
    # which columns the data rows use apart: asked of a label merged across the last header row only
    heading = any(span.width > 1 and span.row < header_rows <= span.last_row + 1 for span in spans)
    separate = _separate_cells(spans, header_rows, width, height) if heading and isinstance(grid, list) else None
    groups = {span for span in spans if _groups_columns(grid, span, header_rows, width, separate)}
    for span in spans:
        value = grid[span.row][span.col]
        if not value or len(value) > MAX_REPEATED_LABEL:
            continue
        title, across = span in titles, span in groups
        for r in range(span.row, min(span.last_row, height - 1) + 1):
            for c in range(span.col, min(span.last_col, width - 1) + 1):
                if (r, c) == (span.row, span.col) or grid[r][c]:
                    continue
                if r < header_rows:
                    if not title and (across or c == span.col):
                        grid[r][c] = value
                elif c == span.col and r > span.row:
                    grid[r][c] = value


def _separate_cells(spans: Sequence[Span], header_rows: int, width: int, height: int) -> list[set[int]]:
    """For each data row (from ``header_rows`` on), the columns that hold a cell of their own: those
    no range merged across from a column to their left covers."""
    covered: list[set[int]] = [set() for _ in range(height)]
    for span in spans:
        if span.width > 1:
            for r in range(max(span.row, header_rows), min(span.last_row, height - 1) + 1):
                covered[r].update(range(span.col + 1, min(span.last_col, width - 1) + 1))
    return [set(range(width)) - covered[r] for r in range(header_rows, height)]


def _groups_columns(grid: Mapping[int, list[str]] | Sequence[Sequence[str]], span: Span, header_rows: int,
                    width: int, separate: Sequence[set[int]] | None = None) -> bool:
    """Whether a label merged across columns is repeated in each of them: in the last header row it
    is (each column is read under its own label: ``기간 | 기간`` over a date and a month, ``2021 |
    2021`` over a 10-K's ``$`` and amount columns) when the data rows use those columns apart — at
    least half of them have a cell of their own in each (``separate``: :func:`_separate_cells`; not
    known for a sheet read in packed rows, where it is assumed). A form laid out on a fine grid, whose
    "개발형태 | 의약바이오" heads no column but spans seven of them over rows cut at other columns,
    keeps it once. Above the last header row, only when the header row right under it holds two or
    more different labels in its columns ("2019" over "예산액 | 전년 대비"). Over one label or none
    (a form's "프로젝트명" block over its value) repeating it adds nothing."""
    below = span.last_row + 1
    if span.width < 2:
        return False
    if below >= header_rows:  # the last header row: each column is read under its own label
        if not separate:
            return True
        columns = range(span.col, min(span.last_col, width - 1) + 1)
        return 2 * sum(all(column in row for column in columns) for row in separate) >= len(separate)
    return len({cell for cell in grid[below][span.col:min(span.last_col, width - 1) + 1] if cell}) >= 2


def _sub_header_below(grid: Sequence[Sequence[str]], spans: Sequence[Span], row: int) -> bool:
    """Whether the row under a row of group labels holds their sub-labels: nothing outside the
    groups (cells merged down from the labels above), or short labels only (years count as labels
    here), one under each group ("Quarter Ended | High | Low" under "2021" over High and Low). Under
    "구분" merged over two of four columns, a row of long text in the other two is data, and so is
    "Licensing fees | $ | 19,984,378" under "2021" over the "$" and amount columns."""
    if row + 1 >= len(grid):
        return False
    below = grid[row + 1]
    groups = [s for s in spans if s.row == row and s.width > 1]
    grouped = {c for s in groups for c in range(s.col, s.last_col + 1)}
    if not any(cell for c, cell in enumerate(below) if c not in grouped):
        return True
    labels = all(len(cell) <= MAX_REPEATED_LABEL and (not is_value(cell) or _YEAR.match(cell)) for cell in below if cell)
    return labels and all(any(below[c] for c in range(s.col, min(s.last_col + 1, len(below)))) for s in groups)


def _opens_with_title(grid: Sequence[Sequence[str]]) -> bool:
    """Whether the first row is the table's title: one label in its first cell, over a table of
    three columns or more with at least two rows under it."""
    return len(grid) > 2 and len(grid[0]) >= 3 and _is_title_row(grid[0])


def _title_rows(grid: Sequence[Sequence[str]], header_rows: int) -> int:
    """How many of the ``header_rows`` leading rows are the table's title (0 or 1): a title row with
    header rows under it (a title over data rows only is the table's one header row)."""
    return 1 if header_rows > 1 and _opens_with_title(grid) else 0


def _is_year_row(row: Sequence[str]) -> bool:
    """Years standing over the columns (``행정구역별 | 2017 | 2017 | …``), with labels beside them at
    most: a header row when a row of labels follows it (the years say which period each label's
    column is), though a year reads as a number."""
    filled = [cell for cell in row if cell]
    return any(_YEAR.match(cell) for cell in filled) and not any(is_value(cell) and not _YEAR.match(cell)
                                                                 for cell in filled)


def _is_title_row(row: Sequence[str]) -> bool:
    """One label in the whole row, in its first cell."""
    filled = [cell for cell in row if cell]
    return len(filled) == 1 and bool(row[0]) and not is_value(row[0])


def _alone_in_its_row(row: Sequence[str], span: Span) -> bool:
    """A range merged from the first column that holds the only text of its row is the table's
    title or a caption row (``3. Analyses by segment`` over eight of ten columns), not a group
    label over some of the columns: nothing beside it needs the label to be read."""
    return not any(cell for c, cell in enumerate(row) if c < span.col or c > span.last_col)


def _reindex(spans: Sequence[Span], keep: Sequence[int]) -> list[Span]:
    """Map spans onto the grid after empty rows were dropped."""
    position = {row: index for index, row in enumerate(keep)}
    out = []
    for span in spans:
        rows = [position[r] for r in range(span.row, span.last_row + 1) if r in position]
        if rows and span.row in position:
            out.append(Span(rows[0], span.col, rows[-1], span.last_col))
    return out
