"""A table's rows as segments that are never cut, each carrying the header rows to repeat.

The header rows go with the first data row (a header is never left without a row); each other data
row is a segment of its own carrying the header rows (and the table's caption) to repeat when a
piece starts with it. A row too long for the limit is cut at words, each piece carrying the whole
header — or, in a wide table, into column groups (:mod:`splitters.columns`), each repeating only
its own columns' header cells. A sheet that names a group once and leaves its column blank below
repeats the group's value after the header rows (:class:`GroupColumns`).
"""
from __future__ import annotations

from dataclasses import replace

from parsers.model import CELL_SEPARATOR, PackedRows, Table
from splitters.chunk import TokenCounter
from splitters.columns import column_groups, has_key_column
from splitters.pieces import Segment, split_text


def row_segments(text: str, table: Table, block_start: int, start: int, end: int, count: TokenCounter,
                  limit: int, caption: str = "") -> list[Segment]:
    """A table's rows as segments that are never cut (unless a row alone is over the limit): the
    header rows together with the first data row (a header is not left without a row), then one per
    data row, each carrying the header to repeat if a piece starts with it — after the table's
    ``caption`` (its title and unit lines, when the lines before it are short), so a piece that starts
    inside the table still says which table it is.

    A row over the limit is cut at words, each piece carrying the whole header — unless the header
    is over a quarter of the limit (a wide table: the header would crowd out the row, and repeating
    it on each piece costs rows × columns²). Then the row is cut into column groups
    (:mod:`splitters.columns`): sealed segments, each repeating only its own columns' header cells,
    each its own merge group (``group#columns@start``) so no merge joins it to a neighbour."""
    # The title rows (a caption row over the table) are repeated above the header rows, whatever
    # the caption lines before the table are.
    header = "".join(f"{text}\n" for text in (table.title_text, table.header_text) if text)
    wide = len(table.rows[0]) > 1 and count(header) > limit // 4
    if caption and not wide and count(caption + header) <= limit // 4:
        header = caption + header
    rows = spans = row_spans(table, block_start)
    head = min(table.header_rows + 1, len(spans))
    opening = 0  # the last row of the first segment
    # (a span that ends inside the first data row — at a column group's end — holds only that part)
    if head and count(text[spans[0][0]:min(spans[head - 1][1], max(end, spans[0][0]))]) <= limit:
        spans, opening = [(spans[0][0], spans[head - 1][1], 0), *spans[head:]], head - 1
    elif 0 < table.header_rows <= len(spans):
        spans, opening = [(spans[0][0], spans[table.header_rows - 1][1], 0), *spans[table.header_rows:]], \
            table.header_rows - 1
    key = wide and has_key_column(table)

    def cut(s: int, e: int, room: int) -> list[tuple[int, int]]:
        return split_text(text, s, e, count, room)

    segments: list[Segment] = []
    label_end = -1  # where the last row ends, when it is a group label (see _is_group_label)
    groups = GroupColumns(table)
    for row_start, row_end, row_index in spans:
        carried = groups.read(opening if row_index == 0 else row_index)  # every row, skipped ones too
        rs, re_ = max(row_start, start), min(row_end, end)
        if rs >= re_:
            continue
        row_header = header + carried if row_index >= table.header_rows else ""
        room = limit - count(row_header)
        if wide and (rs, re_) == (row_start, row_end) and count(text[rs:re_]) > max(room, 1):
            data = row_index >= table.header_rows
            for index in [row_index] if data else range(table.header_rows):  # header rows one by one
                # Header rows alone before the row open its first run: a header is not left without
                # a value under it.
                header_start = segments[-1].start if data and segments and not segments[-1].sealed \
                    and segments[-1].start == rows[0][0] and segments[-1].end == rows[table.header_rows - 1][1] else -1
                groups_of_row = [Segment(s, e, prefix, whole=True, sealed=data) for s, e, prefix in
                                 column_groups(text, table, index, rows[index][0], count, limit, cut, key, header_start)]
                if header_start >= 0 and groups_of_row[0].start == header_start:  # opens the table as a row would:
                    segments.pop()  # not sealed, so the headers before the table glue to it
                    groups_of_row[0] = replace(groups_of_row[0], sealed=False)
                segments.extend(groups_of_row)
            label_end = -1
            continue
        pieces = split_text(text, rs, re_, count, max(room, 1))
        continued = _row_key(table, row_index) if len(pieces) > 1 and row_index >= table.header_rows else ""
        if continued:  # the row's pieces after its first say whose row they go on with
            pieces = split_text(text, rs, re_, count, max(room - count(continued), 1))
        if len(pieces) == 1:  # a whole row: its count goes with it, for packing
            (ps, pe), = pieces
            segment = Segment(ps, pe, row_header, True, own=count(text[ps:pe]))
            previous = segments[-1] if segments else None
            if previous is not None and label_end == previous.end and previous.whole and not previous.sealed \
                    and count(previous.header + text[previous.start:pe]) <= limit:
                segment = Segment(previous.start, pe, previous.header, True)  # a group label and its first row
                segments.pop()
            segments.append(segment)
            label_end = pe if row_index >= table.header_rows and _is_group_label(table, row_index) else -1
        else:
            segments.extend(Segment(ps, pe, row_header + (continued if number else ""))
                            for number, (ps, pe) in enumerate(pieces))
            label_end = -1
    return segments


#: A row's first cell longer than this is text, not the key a continued row is repeated under.
_KEY_CHARS = 40
#: What ends the line that repeats a continued row's key (``당초계획 | …``), last in a piece's header.
ROW_GOES_ON = f"{CELL_SEPARATOR}…\n"


def _row_key(table: Table, index: int) -> str:
    """The line that says whose row a piece of a row too long for one goes on with: its first cell
    (``당초계획 | …``), or "" when that cell is empty or a text of its own. Without it, the last
    piece of a slide's yearly plan row was a run of words under the header, no row to read it in."""
    first = table.row_text(index).split(CELL_SEPARATOR, 1)
    if len(first) < 2 or not first[0].strip() or len(first[0]) > _KEY_CHARS:
        return ""
    return first[0].strip() + ROW_GOES_ON


class GroupColumns:
    """A sheet's group columns, and what they hold above each row.

    A sheet often names a group once, on its first row, and leaves the group's column blank on the
    rows below (``회원관리 | 로그인 | …`` then `` | 회원가입 | …``; not merged: merged ranges are
    filled by :mod:`parsers.tables`). A piece that starts inside such a group would hold its rows
    without their group. :meth:`read` gives, for a data row whose leading cells are blank, the last
    values of those columns above it as one line (``회원관리``) to repeat after the header rows,
    as the header is; the document's text is not altered.

    A leading column is a group column only when it reads as one (see :meth:`_find`): blank on at
    least as many rows (with text to its right) as it is filled on — groups of two rows or more —
    and changing value on most rows where it is filled. A column of ``O`` marks, a column filled on
    most rows and blank where a table beside it runs on, are not; their blanks stay blank. Only a sheet's rows
    (:class:`~parsers.model.PackedRows`) are read: a sheet cut into row groups is where a piece
    starts mid-group. Two passes over the rows, each reading only the leading cells of a line.
    """

    #: How many leading columns are looked at (a group hierarchy is a few columns deep).
    DEPTH = 4

    def __init__(self, table: Table) -> None:
        self.table = table
        self.depth = self._find() if isinstance(table.rows, PackedRows) else 0
        self.last = [""] * self.depth
        self.next = 0  # the next row to read

    def _leading(self, index: int) -> list[str]:
        rows = self.table.rows
        cells = rows.odd.get(index) if isinstance(rows, PackedRows) else None
        if cells is None:
            cells = self.table.row_text(index).split(CELL_SEPARATOR, self.DEPTH)
        return list(cells[:self.DEPTH + 1])

    def _find(self) -> int:
        """How many leading columns are group columns (0: none)."""
        depth = min(self.DEPTH, max(self.table.rows.width - 1, 0))
        blank_below = [0] * depth  # rows blank in the column, with text to its right
        filled = [0] * depth
        repeated = [0] * depth  # filled with the value the column last held
        last = [""] * depth
        for index in range(self.table.header_rows, len(self.table.rows)):
            cells = self._leading(index)
            for column in range(depth):
                cell = cells[column] if column < len(cells) else ""
                if cell:
                    filled[column] += 1
                    repeated[column] += cell == last[column]
                    last[column] = cell
                elif len(cells) > column + 1:
                    blank_below[column] += 1
        found = 0
        while found < depth and 0 < filled[found] <= blank_below[found] and 2 * repeated[found] < filled[found]:
            found += 1
        return found

    def read(self, index: int) -> str:
        """The group values to repeat before row ``index`` when a piece starts with it ("" if none),
        once the rows up to it are read (rows are read in order, each once)."""
        carried = ""
        while self.depth and self.next <= index:
            carried = self._take(self.next) if self.next >= self.table.header_rows else ""
            self.next += 1
        return carried

    def _take(self, index: int) -> str:
        cells = self._leading(index)
        blank = 0
        while blank < self.depth and blank < len(cells) - 1 and not cells[blank]:
            blank += 1
        carried = self.last[:blank] if blank and self.last[0] else []
        # The row's own cells from its first filled one on name its groups, deeper ones included
        # (a row that opens a group and leaves its sub-group blank has none).
        self.last[blank:] = [cells[c] if c < len(cells) else "" for c in range(blank, self.depth)]
        while carried and not carried[-1]:
            carried.pop()
        return CELL_SEPARATOR.join(carried) + "\n" if carried else ""


def _is_group_label(table: Table, index: int) -> bool:
    """Whether a row of a document's table only names the group of rows under it ("2. 공공부문
    마이데이터 활성화", "6. 계약의 체결 또는 이행 과정에서 …"): one value, in one cell or spread over
    merged ones. A piece never ends with it: its rows would be cut from their group. (A sheet's
    packed rows are not looked at: a sheet's group column repeats on every row or stays blank.)"""
    if isinstance(table.rows, PackedRows):
        return False
    cells = table.rows[index]
    return len(cells) > 1 and len({cell for cell in cells if cell}) == 1


def row_spans(table: Table, block_start: int) -> list[tuple[int, int, int]]:
    spans = []
    position = block_start
    for index in range(len(table.rows)):
        length = len(table.row_text(index))
        spans.append((position, position + length, index))
        position += length + 1
    return spans
