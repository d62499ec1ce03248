"""Column groups: a table row too wide for the budget, cut between its cells.

A row that does not fit the limit together with its table's header rows — in a table whose header
is itself over a quarter of the limit (see :mod:`splitters.budget`) — is cut into runs of
consecutive cells, of about even size within the limit (not full runs and a scrap). Each run repeats only the header cells of
its own columns and, when the table has a key column (a short label in the first cell of every data
row), the key's header cell and the row's key cell, so a piece still says which row it comes from::

    id | a | b | c | d            id | c | d      <- header prefix: the header cells of c, d and the key's,
    r1 | 1 | 2 | 3 | 4     ──▶   r1 | 3 | 4        then the row's key cell "r1 "
                                                 <- span: "| 3 | 4", the row's own text

A run's span starts at the ``|`` before its first cell, so every character of the row but the
spaces around a separator is in some span, and prefix and span read as one small table. A cell too
long for the limit on its own is cut inside (by the injected cutter, at its strongest boundaries);
each of its pieces carries that column's header. Header rows too wide for the limit are cut the
same way, each row on its own and with no prefix (they are the header).

Cost: each cell is counted once on its own; a run is priced by summing its cells' counts and counted
exactly once, plus a few counts by bisection when the sum was short. The tokens of a cut row are the
row's plus one copy of its header cells, so a wide table costs about twice its own size, not (as
when the whole header rode on every word of a row) rows × columns².
"""

from __future__ import annotations

from collections.abc import Callable

from parsers.model import CELL_SEPARATOR, Table
from parsers.tables import MAX_REPEATED_LABEL
from splitters.chunk import TokenCounter

#: Cuts ``text[start:end]`` into spans of at most ``limit`` tokens: ``(start, end, limit) -> spans``.
Cutter = Callable[[int, int, int], list[tuple[int, int]]]
#: Tokens kept free when a long cell is cut to the room its header leaves (BPE joins at a junction,
#: and a piece inside a cell is prefixed slightly differently from one at the cell's start).
_SLACK = 4


def has_key_column(table: Table) -> bool:
    """True when the first column labels the rows: every data row has a short first cell (at most
    :data:`parsers.tables.MAX_REPEATED_LABEL` characters) and there are other columns."""
    data = table.rows[table.header_rows:]
    return bool(data) and len(table.rows[0]) > 1 and all(0 < len(row[0]) <= MAX_REPEATED_LABEL for row in data)


def cell_spans(table: Table, index: int, row_start: int) -> list[tuple[int, int]]:
    """Where each cell of a row's text (:meth:`parsers.model.Table.row_text`) is in the document."""
    spans = []
    position = row_start
    for cell in table.rows[index][:_width(table, index)]:
        spans.append((position, position + len(cell)))
        position += len(cell) + len(CELL_SEPARATOR)
    return spans


def _width(table: Table, index: int) -> int:
    """How many cells a row's text holds (empty cells at the right end are left out)."""
    cells = table.rows[index]
    end = len(cells)
    while end and not cells[end - 1]:
        end -= 1
    return end


def column_groups(text: str, table: Table, index: int, row_start: int, count: TokenCounter, limit: int,
                  cut: Cutter, key: bool, opening: int = -1) -> list[tuple[int, int, str]]:
    """Row ``index`` of ``table`` (whose text starts at ``row_start``) as runs of cells, each
    ``(start, end, prefix)`` with ``count(prefix + text[start:end]) <= limit`` (but a single column's
    prefix over half the limit is left out, and a single piece may be over by the cutter's junction
    slack).

    ``opening``: where the table's header rows start, when they are to open the row's first run
    (a header is not left without a value under it): the first run is then the longest run of whole
    cells (or cell pieces) from there that fits the limit, as ``(opening, end, "")`` — or, when not
    even the first cell fits after the header rows, the runs are made as without it."""
    rows = table.rows
    cells = rows[index]
    # Read once: a sheet's rows are packed text, and each read of a row cuts its line into cells again.
    headers = rows[:table.header_rows]
    data = index >= table.header_rows
    key = key and data
    spans = cell_spans(table, index, row_start)

    def prefix(first: int, last: int, start: int, end: int = -1) -> str:
        if not data:
            return ""
        at_row_start = start == row_start
        after_bar = text[start] == "|"
        lines = []
        for header in headers:
            labels = header[first:last + 1]
            if not any(labels):
                continue
            lead = "" if at_row_start else (header[0] + CELL_SEPARATOR if key else ("| " if after_bar else ""))
            lines.append(lead + CELL_SEPARATOR.join(labels))
        own = "".join(line + "\n" for line in lines)
        if key and not at_row_start:
            own += cells[0] + (" " if after_bar else CELL_SEPARATOR)
        # A single column's header cells over half the limit would leave its cut pieces a few tokens
        # each: they are left out, unless the run they head fits the limit with them.
        if first == last and count(own) > limit // 2 and (end < 0 or count(own + text[start:end]) > limit):
            return ""
        return own

    labels = [sum(count(CELL_SEPARATOR + header[column]) for header in headers) if data else 0
              for column in range(len(spans))]
    per_run = sum(count(line[0] + CELL_SEPARATOR) for line in (*headers, cells)) if key else 0
    # Atoms: each cell with the "| " before it, or the pieces of a cell too long for the limit alone
    # (only a cell whose estimate comes near the limit is priced with its exact prefix).
    atoms: list[tuple[int, int, int]] = []  # (column, start, end)
    sizes: list[int] = []
    for column, (start, end) in enumerate(spans):
        lead = start - 2 if column else start  # the "|" of the separator before the cell
        size = count(text[lead:end])
        if size + labels[column] + per_run + 2 * _SLACK <= limit:
            atoms.append((column, lead, end))
            sizes.append(size)
            continue
        own = prefix(column, column, lead)
        if count(own + text[lead:end]) <= limit:
            pieces = [(lead, end)]
        else:
            pieces = cut(lead, end, max(limit - count(own) - _SLACK, 1))
        atoms.extend((column, s, e) for s, e in pieces)
        sizes.extend(count(text[s:e]) for s, e in pieces)

    def fits(first: int, stop: int) -> bool:
        column, start, _ = atoms[first]
        return count(prefix(column, atoms[stop - 1][0], start) + text[start:atoms[stop - 1][2]]) <= limit

    # Runs of even size rather than full ones and a scrap: aim at the row's estimated total over the
    # number of runs it needs (the exact count still only has to be within the limit).
    body = sum(sizes) + sum(labels)
    runs = max(-(-body // limit), 1)
    runs = -(-(body + runs * per_run) // limit)
    target = min(limit, -(-(body + runs * per_run) // runs) + _SLACK)
    groups = []
    first = 0
    if opening >= 0:
        while first < len(atoms) and count(text[opening:atoms[first][2]]) <= limit:
            first += 1
        if first:
            groups.append((opening, atoms[first - 1][2], ""))
    while first < len(atoms):
        column, start, _ = atoms[first]
        estimate = count(prefix(column, column, start)) + sizes[first]
        stop = first + 1
        while stop < len(atoms):
            step = sizes[stop] + (labels[atoms[stop][0]] if atoms[stop][0] != atoms[stop - 1][0] else 0)
            if estimate + step > target:
                break
            estimate += step
            stop += 1
        if stop > first + 1 and not fits(first, stop):
            low, high = first + 1, stop - 1  # the longest run that fits (one atom always goes)
            while low < high:
                middle = (low + high + 1) // 2
                if fits(first, middle):
                    low = middle
                else:
                    high = middle - 1
            stop = low
        end = atoms[stop - 1][2]
        groups.append((start, end, prefix(column, atoms[stop - 1][0], start, end)))
        first = stop
    return groups


__all__ = ["Cutter", "cell_spans", "column_groups", "has_key_column"]
