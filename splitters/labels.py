"""What the indexes hold for a chunk that holds table rows: each row with its key and the header of
each value (:func:`label_rows`). The chunk's own text, which a search shows, is left as it is.

A table row as the document shows it — ``20150222 | 서대문구 | 0.024 | 0.021 | 0.4 | 0.004 | 276 | 47``
— says which value is which only through the header rows at the top of its table, which may be
hundreds of rows (and several chunks) away. An embedder reading the row cannot tell that 276 is the
fine-dust reading; a question naming the column ("서대문구의 미세먼지 농도") then matches every chunk
of the sheet about as well. The labelled line — ``측정일시 20150222 · 측정소명 서대문구 · …
미세먼지(㎍/㎥) 276 · 초미세먼지(㎍/㎥) 47`` — names each value's column beside it. The flows
embed it, and put it in the full-text index only when asked (``SEAMS_LABEL_ROWS``: there it lost
table-row questions on the held-out sets; :func:`flows.ingest.pipeline.full_text`).

A cell or line that spaces a short word out to fill its width (``구 분``, ``합 계``, ``사 업 명``) is
indexed as the word (:func:`join_spaced`): a question writes ``합계``, and the n-gram index and an
embedder read ``합 계`` as two syllables.

Pure: from the parsed document and its chunks; no settings, no storage.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from parsers.model import Document, Table
from splitters.chunk import Chunk

#: Joins a labelled row's header–value pairs. Not ``" | "``: the index's table-line handling
#: (:func:`flows.index.store.cells_once`) and the plain-cells embedding read that as a table line.
PAIR_SEPARATOR = " · "
#: A table narrower than this is a list of label–value pairs (``표본크기 | 187명``): its first row is
#: no header, and each row already names its value.
MIN_COLUMNS = 3
#: Header labels longer than this (a note merged over the top of a table) are not repeated.
MAX_LABEL_CHARS = 40
#: A cell or line that is a word with a space between its syllables, as tables and titles space a
#: short label out to fill a cell's width (``구 분``, ``합 계``, ``사 업 명``).
_SPACED = re.compile(r"^[가-힣](?: [가-힣]){1,5}$")
_SPACED_CELL = re.compile(r"(?:(?<=^)|(?<= \| )|(?<=\n))([가-힣](?: [가-힣]){1,5})(?=$| \| |\n)")
#: A header cell that only states the table's unit (``(단위: 백만원)``, ``(단위 : 점)``, ``[Unit: USD]``): it
#: is set in a header row's corner for the whole table, and labels no column.
_UNIT_CAPTION = re.compile(r"^[(\[<〈［（]?\s*(?:단\s?위|units?)\s*[:：]\s*[^)\]>〉］）]*[)\]>〉］）]?$", re.IGNORECASE)
_VALUE_LIKE = re.compile(r"^[\s\d.,:;()%/+\-−△▲~₩$€£¥원억만천]*$")


@dataclass(frozen=True)
class _TableLines:
    """A table block's rows as lines of ``doc.text``: where each starts, and its column labels."""

    start: int  # where the block starts in doc.text
    end: int
    line_starts: tuple[int, ...]  # absolute start of each row's line
    table: Table
    labels: tuple[str, ...]  # the header label of each column ("" where none)


def column_labels(table: Table) -> tuple[str, ...]:
    """Each column's header label: the distinct labels of its header rows, top to bottom, joined by a
    space (``2024년`` over ``확정(B)`` → ``2024년 확정(B)``); "" for a column without one, and
    nothing at all for a table whose header row holds values (a table without a header row)."""
    rows = table.rows
    header_rows = min(table.header_rows, len(rows))
    if header_rows == len(rows) or not header_rows:
        return ()
    width = len(rows[0])
    if width < MIN_COLUMNS:
        return ()
    # A title row (its only text in the first column: a caption over the table) labels no column.
    headers = [index for index in range(header_rows) if sum(bool(cell) for cell in rows[index]) > 1]
    labels: list[str] = []
    for column in range(width):
        parts: list[str] = []
        for index in headers:
            row = rows[index]
            cell = row[column] if column < len(row) else ""
            if cell and len(cell) <= MAX_LABEL_CHARS and cell not in parts and not _UNIT_CAPTION.match(cell):
                parts.append(cell)
        labels.append(" ".join(_joined(part) for part in parts))
    named = [label for label in labels if label]
    # A header row that is mostly values (a table whose first row is data) labels nothing.
    if len(named) * 2 < width or sum(bool(_VALUE_LIKE.match(label)) for label in named) * 2 > len(named):
        return ()
    return tuple(labels)


def join_spaced(text: str) -> str:
    """``text`` with every cell or line that is a spaced-out word written as the word: ``구 분 | 2024년``
    → ``구분 | 2024년``. A question writes the word whole; the n-gram index and an embedder read
    ``구 분`` as two syllables. Only whole cells and lines: a run of one-syllable words inside a
    sentence (``그 중 두 번``) is left alone."""
    if " " not in text:
        return text
    return _SPACED_CELL.sub(lambda match: match.group(1).replace(" ", ""), text)


def _joined(cell: str) -> str:
    return cell.replace(" ", "") if _SPACED.match(cell) else cell


def labelled_row(cells: Sequence[str], labels: Sequence[str]) -> str:
    """One data row as header–value pairs: ``label value`` for each non-empty cell (the value alone
    where its column has no label or the label is the value), joined by :data:`PAIR_SEPARATOR`."""
    pairs = []
    for column, cell in enumerate(cells):
        if not cell:
            continue
        label = labels[column] if column < len(labels) else ""
        cell = _joined(cell)
        pairs.append(f"{label} {cell}" if label and label != cell else cell)
    return PAIR_SEPARATOR.join(pairs)


def _table_lines(doc: Document) -> list[_TableLines]:
    """The document's table blocks whose text is their rows, one line each, and that have labels."""
    found = []
    for block, (start, end) in zip(doc.blocks, doc.spans, strict=True):
        table = block.table
        if table is None or block.kind != "table":
            continue
        labels = column_labels(table)
        if not labels:
            continue
        text = doc.text[start:end]
        line_starts = [start]
        position = text.find("\n")
        while position != -1:
            line_starts.append(start + position + 1)
            position = text.find("\n", position + 1)
        if len(line_starts) != len(table.rows):
            continue  # the block's text is not one line a row (a caption, a wrapped cell): leave it
        found.append(_TableLines(start, end, tuple(line_starts), table, labels))
    return found


def label_rows(doc: Document, chunks: Sequence[Chunk]) -> list[Chunk]:
    """``chunks`` with :attr:`Chunk.index_text` set on each that holds whole data rows of a labelled
    table (:func:`column_labels`): its text with every such row's line written as
    :func:`labelled_row`. Header lines, rows cut into column groups and everything else stay as
    they are; a chunk with no such row keeps ``index_text`` empty (its text is what is indexed)."""
    tables = _table_lines(doc)
    if not tables:
        return [_spaced_words_joined(chunk) for chunk in chunks]
    starts = [table.start for table in tables]
    text = doc.text
    out = []
    for chunk in chunks:
        pieces: list[str] = []
        position = chunk.start
        index = max(bisect.bisect_right(starts, chunk.start) - 1, 0)
        while index < len(tables) and tables[index].start < chunk.end:
            lines = tables[index]
            index += 1
            if lines.end <= chunk.start:
                continue
            # A chunk's span leaves out the blanks at its ends: a row line that starts with an empty
            # cell (" |  | 공공요금 | …") starts a chunk one character in, and is still whole in it.
            first = bisect.bisect_right(lines.line_starts, chunk.start) - 1
            if first < 0 or text[lines.line_starts[first]:chunk.start].strip():
                first += 1
            for row in range(max(first, lines.table.header_rows), len(lines.line_starts)):
                line_start = max(lines.line_starts[row], chunk.start)
                line_end = lines.line_starts[row + 1] - 1 if row + 1 < len(lines.line_starts) else lines.end
                if line_end > chunk.end and text[chunk.end:line_end].strip():
                    break
                line_end = min(line_end, chunk.end)
                pieces.append(text[position:line_start])
                pieces.append(labelled_row(lines.table.rows[row], lines.labels))
                position = line_end
        if pieces:
            pieces.append(text[position:chunk.end])
            out.append(replace(chunk, index_text=join_spaced(chunk.header + "".join(pieces))))
        else:
            out.append(_spaced_words_joined(chunk))
    return out


def _spaced_words_joined(chunk: Chunk) -> Chunk:
    """``chunk`` with an ``index_text`` when :func:`join_spaced` changes its text."""
    joined = join_spaced(chunk.text)
    return chunk if joined == chunk.text else replace(chunk, index_text=joined)


__all__ = ["PAIR_SEPARATOR", "column_labels", "join_spaced", "label_rows", "labelled_row"]
