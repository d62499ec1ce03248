"""Wide tables (issue #16): a row wider than the budget is cut into column groups.

Real CSV, XLSX and HTML files with hundreds of columns, cut by every document-aware strategy:

- bounded: every chunk within the merge ceiling, total tokens at most 3× the table's own, chunk
  count about the table's size over the pack size (not rows × words);
- nothing lost: every cell's text lies in some chunk's span, and ``text == header + span``;
- each chunk that holds part of a data row repeats the header cells of exactly its columns (and the
  key column's header and cell), in order;
- linear: the characters tokenised grow in proportion to the table (counted, not timed).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from fixtures.files import make_csv, make_xlsx

from parsers import parse
from parsers.model import Block, Document, Locator, Table
from splitters import STRATEGIES, Budget, cl100k, split_document

BUDGET = Budget()
STRATEGY_NAMES = sorted(STRATEGIES)


def csv_file(directory: Path, columns: int) -> Path:
    rows = [[f"col{c}" for c in range(columns)], *[[f"v{r}_{c}" for c in range(columns)] for r in range(2)]]
    return make_csv(directory / f"wide{columns}.csv", rows)


def xlsx_file(directory: Path, columns: int = 300) -> Path:
    rows = [[f"항목{c}" for c in range(columns)], *[[f"값{r}-{c}" for c in range(columns)] for r in range(3)]]
    return make_xlsx(directory / "wide.xlsx", {"실적": rows})


def html_file(directory: Path, columns: int = 300) -> Path:
    head = "".join(f"<th>head{c}</th>" for c in range(columns))
    body = "".join("<tr>" + "".join(f"<td>x{r}y{c}</td>" for c in range(columns)) + "</tr>" for r in range(2))
    path = directory / "wide.html"
    path.write_text(f"<html><body><h1>지역별 실적</h1><p>아래 표는 항목별 값이다.</p>"
                    f"<table><tr>{head}</tr>{body}</table><p>끝.</p></body></html>", encoding="utf-8")
    return path


FILES: dict[str, Callable[[Path], Path]] = {
    "csv-500": lambda d: csv_file(d, 500),
    "xlsx-300-korean": xlsx_file,
    "html-300": html_file,
}


def the_table(doc: Document) -> tuple[Table, int, int]:
    (block, (start, end)), = [(b, s) for b, s in zip(doc.blocks, doc.spans, strict=True) if b.table is not None]
    return block.table, start, end


def cell_offsets(table: Table, block_start: int) -> dict[tuple[int, int], tuple[int, int]]:
    """(row, column) -> the cell's span in the document text, from the rendering rule (" | ", "\\n")."""
    offsets = {}
    position = block_start
    for r, row in enumerate(table.rows):
        for c, cell in enumerate(row):
            offsets[r, c] = (position, position + len(cell))
            position += len(cell) + 3
        position += 1 - 3
    return offsets


def cells_of(line: str) -> list[str]:
    return [cell.strip() for cell in line.split("|") if cell.strip()]


@pytest.mark.parametrize("strategy", STRATEGY_NAMES)
@pytest.mark.parametrize("name", sorted(FILES))
def test_wide_tables_are_cut_into_column_groups(name, strategy, tmp_path, counter):
    doc = parse(FILES[name](tmp_path))
    table, table_start, table_end = the_table(doc)
    assert len(table.rows[0]) >= 300 and table.header_rows == 1
    chunks = split_document(doc, strategy, counter, BUDGET)

    table_tokens = counter(doc.text[table_start:table_end])
    assert all(c.tokens <= BUDGET.merge_ceiling for c in chunks), max(c.tokens for c in chunks)
    assert sum(c.tokens for c in chunks) <= 3 * counter(doc.text), "tokens linear in the table, not rows × header"
    assert len(chunks) <= 3 * table_tokens // BUDGET.pack_tokens + 2 * len(table.rows) + 3
    for chunk in chunks:
        assert chunk.text == chunk.header + doc.text[chunk.start:chunk.end]

    offsets = cell_offsets(table, table_start)
    for (r, c), (start, end) in offsets.items():
        assert any(ch.start <= start and end <= ch.end for ch in chunks), f"cell {r},{c} {table.rows[r][c]!r} lost"

    header = {cell: c for c, cell in enumerate(table.rows[0])}
    value = {cell: (r, c) for r, row in enumerate(table.rows[1:], start=1) for c, cell in enumerate(row)}
    first_data = offsets[1, 0][0]
    for chunk in chunks:
        if chunk.end <= first_data or chunk.start >= table_end:
            continue  # text before the table, its header row, text after it
        assert chunk.start >= first_data and chunk.header, "a chunk inside the data rows repeats header cells"
        lines = chunk.text.split("\n")
        assert len(lines) == 2, "one header line, then one row's cells"
        labels, cells = cells_of(lines[0]), cells_of(lines[1])
        assert len(labels) == len(cells) > 1
        columns = [header[label] for label in labels]
        assert columns == [value[cell][1] for cell in cells], "each header cell names the column below it"
        assert len({value[cell][0] for cell in cells}) == 1, "a chunk holds cells of one row"
        assert columns[0] == 0 and columns[1:] == list(range(columns[1], columns[1] + len(columns) - 1)), \
            "the key column, then a contiguous run of columns"


def test_wide_rows_with_a_long_cell_and_two_header_rows(counter):
    """A wide table whose header takes two rows and one of whose cells is alone over the limit: the
    cell is cut inside, each piece under that column's header cells and the row's key."""
    width = 120
    groups = tuple(f"그룹{c // 10}" for c in range(width))
    labels = tuple(f"항목{c}" for c in range(width))
    long = " ".join(["정부는 지역 디지털 전환을 지원한다."] * 150)
    rows = [tuple(f"행{r}" if c == 0 else (long if (r, c) == (1, 60) else f"{r}.{c}") for c in range(width))
            for r in range(3)]
    table = Table((groups, labels, *rows), header_rows=2)
    doc = Document("t.xlsx", "xlsx", (Block("table", table.render(), Locator(sheet="표"), table=table),))
    budget = Budget(20, 300, 320)
    chunks = split_document(doc, "sheet", counter, budget)
    assert all(c.tokens <= budget.merge_ceiling for c in chunks)
    assert sum(c.tokens for c in chunks) <= 3 * counter(doc.text)
    pieces = [c for c in chunks if "지원한다" in c.text[len(c.header):]]
    assert len(pieces) > 3
    for piece in pieces:
        assert piece.header.startswith("그룹0 | ") and "그룹6" in piece.header and "항목60" in piece.header
        assert piece.header.endswith("행1 ") or piece.header.endswith("행1 | ")
    offsets = cell_offsets(table, 0)
    for (r, c), (start, _) in offsets.items():
        words = [(start + m.start(), start + m.end()) for m in re.finditer(r"\S+", table.rows[r][c])]
        assert all(any(ch.start <= s and e <= ch.end for ch in chunks) for s, e in words), f"cell {r},{c} lost"


def test_tokenising_stays_linear_in_the_width(tmp_path):
    """Characters handed to the tokeniser per character of the table: the same at 500 and 2,000
    columns (once each cell, once each group, a few back-offs), not growing with the width."""
    encoding = cl100k()
    ratios = []
    for columns in (500, 2000):
        doc = parse(csv_file(tmp_path, columns))
        seen = 0

        def count(text: str) -> int:
            nonlocal seen
            seen += len(text)
            return len(encoding.encode(text, disallowed_special=()))

        chunks = split_document(doc, "sheet", count, BUDGET)
        assert all(c.tokens <= BUDGET.merge_ceiling for c in chunks)
        ratios.append(seen / len(doc.text))
    assert ratios[1] <= 1.5 * ratios[0] and ratios[1] < 40, ratios
