"""Full text that knows a table cell when a question names one.

A question about a table's cell names the cell's row and its column: "2024년 1분기 미국에 대한
해외직접투자액은?" names the row ``미국`` and the columns ``2024년`` / ``1분기``; "2019년
부동산교부세 교부액은?" the row ``2019`` and the column ``부동산교부세``. BM25 over character n-grams
weighs a question's word by how many grams it has, so the long words (``해외직접투자액은``) decide the
ranking, and prose that repeats them ranks above the table whose row and header the question names
(the two-letter row key ``미국`` is one bigram).

:func:`by_cells` re-ranks full text's candidates: a chunk holding a table cell that the question
names — a line's row key and the header of one column where that line has a value — has its score
multiplied by ``1 + CELL_WEIGHT × share``, ``share`` being the part of the question's words that key
and that column's headers name. A row key is the line's first cell (or the key above it when that
cell is empty: a merged label) and any other label before its first figure (a table whose first
column is empty keys its rows in the second). A table's header lines are its first lines whose later
cells are not mostly figures (at most three, at least one); a merged heading is repeated in each
column it spans, so ``2024년`` over ``3분기`` heads one column and ``2024년`` over ``1분기`` another. A
cell names a question word that is the cell plus a particle (``미국에``), not one it is buried in
(``투자액`` in ``해외직접투자액은`` is part of a compound); a quarter key (``‘24.1Q``) names the year
and the quarter a Korean question says (``2024년 1분기``). The stored text is read as it is; nothing
in the index changes. :func:`flows.index.search.fts_ranking` applies it to queries of the n-gram
index only.

Measured with ``seams evaluate`` on five sets of real documents, full text and hybrid hit@5, seams'
cuts (docs/search.md, "Table cells"): the first version (headers of any column, a key anywhere in a
word, weight 1) lifted the held-out set 95.2 → 97.1 % and the table set 95.1 → 96.1 %; the cell as
one row under one column, compounds left out and weight 3 then lifted the table set (with 16
questions on three HWPX files added, written before their chunks were seen) 91.5 → 96.6 % hybrid,
HWPX 17 → 23 of 27, and lost no question on any set.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from parsers.model import CELL_SEPARATOR

#: How many full-text candidates :func:`by_cells` re-ranks (the ranking is cut to what was asked after).
CELL_POOL = 100
#: How much the share of the question's words one cell names lifts a chunk's BM25 (:func:`by_cells`):
#: 3, the largest that lost no question on the five sets (4 lost a held-out-2 question whose answer
#: is prose beside a table keying the same words).
CELL_WEIGHT = 3.0
#: At most this many leading lines of a table are its header.
_MAX_HEADER_LINES = 3
#: A cell of figures only (amounts, rates, changes: ``1,006.5``, ``(△29.8)``, ``12%``).
_FIGURES = re.compile(r"[\s()△▲▽+\-,.%0-9]*")
#: Column labels that name no column (``구분``: "category", the corner of most Korean tables).
_CORNER_LABELS = frozenset({"구분", "항목", "내용", "비고"})
#: What is cut from a question's words before they are matched (punctuation, quotes, brackets).
_PUNCTUATION = re.compile(r"[?？.,!:;()\[\]“”\"'‘’「」『』<>]")
_SPACE = re.compile(r"\s+")
#: At most this many letters may follow a cell's text in the question word that names it (a
#: particle: ``미국에``, ``아시아에서``); a cell inside a longer word is part of a compound
#: (``투자액`` in ``해외직접투자액은``) and names nothing.
_PARTICLE = 3


def question_words(question: str) -> list[str]:
    """The question's words (split at spaces, punctuation cut), case-folded."""
    return [word for word in (_PUNCTUATION.sub("", word).casefold() for word in question.split()) if word]


def _squeezed(text: str) -> str:
    return _SPACE.sub("", text).casefold()


def _names(cell: str, word: str) -> bool:
    """Whether a table cell (squeezed) and a question word name the same thing: one holds the other
    (a particle glued to the word: ``미국에`` names ``미국``; ``2019년`` names ``2019``), at least two
    letters long; a cell of ASCII letters and digits only must be the whole word (``US`` does not
    name ``USE``), and one of digits only at least four (a year or a code, not a row number)."""
    if len(cell) < 2 or len(word) < 2:
        return False
    if cell.isascii() and cell.isalnum():
        if cell.isdigit():
            return len(cell) >= 4 and word.startswith(cell) and not word[len(cell):len(cell) + 1].isdigit()
        return cell == word
    if word.startswith(cell):
        return len(word) - len(cell) <= _PARTICLE
    return word in cell


#: A quarter as statistics tables write it: ``‘24.1Q``, ``24.1Q``, ``2024.1Q``, ``2024 1Q``, ``1Q24``.
_QUARTER = re.compile(r"[‘’'`]?(?P<year>(?:19|20)?\d\d)[.\s]?(?P<quarter>[1-4])q|(?P<quarter2>[1-4])q[‘’'`]?(?P<year2>(?:19|20)?\d\d)")


def _readings(cell: str) -> list[str]:
    """How a question may say a cell (squeezed): itself, and a quarter (:data:`_QUARTER`) also as its
    year and ``N분기`` (``‘24.1Q`` → ``2024``, ``1분기``), as Korean questions name them."""
    match = _QUARTER.fullmatch(cell)
    if not match:
        return [cell]
    year = match["year"] or match["year2"]
    year = year if len(year) == 4 else f"20{year}"
    return [year, f"{match['quarter'] or match['quarter2']}분기"]


def _named(words: Sequence[str], cell: str) -> set[int]:
    """The indexes of the words that name ``cell``: each of its readings (:func:`_readings`; a
    quarter's year and quarter both) held whole by the question and named by a word, else none."""
    joined = "".join(words)
    named: set[int] = set()
    for reading in _readings(cell):
        by = {index for index, word in enumerate(words) if _names(reading, word)} if reading in joined else set()
        if not by:
            return set()
        named |= by
    return named


def _tables(text: str) -> list[list[list[str]]]:
    """The runs of table lines (cells joined by ``" | "``) in ``text``, each line as its cells."""
    tables, current = [], []
    for line in text.split("\n"):
        if CELL_SEPARATOR in line or line.startswith("| ") or line.endswith(" |"):
            current.append([cell.strip() for cell in line.split("|")])
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


def _header_lines(lines: list[list[str]]) -> int:
    count = 0
    while count < min(_MAX_HEADER_LINES, len(lines) - 1):
        later = [cell for cell in lines[count][1:] if cell]
        if later and 2 * sum(bool(_FIGURES.fullmatch(cell)) for cell in later) >= len(later):
            break
        count += 1
    return max(count, 1)


def _columns(words: Sequence[str], header: list[list[str]]) -> list[set[int]]:
    """For each column after the key column, the indexes of the words its header cells name (its
    cells in the header lines, a corner label such as ``구분`` naming nothing): a merged heading is
    repeated in every column it spans, so ``2024년`` over ``3분기`` heads one column."""
    width = max(len(line) for line in header)
    known: dict[str, set[int]] = {}  # a heading merged over several columns is read once
    columns = []
    for index in range(1, width):
        named: set[int] = set()
        for line in header:
            cell = _squeezed(line[index]) if index < len(line) else ""
            if cell and cell not in _CORNER_LABELS:
                if cell not in known:
                    known[cell] = _named(words, cell)
                named |= known[cell]
        columns.append(named)
    return columns


def cell_share(question: str | Sequence[str], text: str) -> float:
    """The largest share of ``question``'s words (:func:`question_words`) that one cell's row key and
    column headers name together, in ``text``: a table line's key (its first cell, or the key above
    it when that cell is empty: a merged label) and the header cells of one column where that line
    has a value; 0 where no key names a word its column's headers do not, or no header names one."""
    words = question_words(question) if isinstance(question, str) else list(question)
    if not words or CELL_SEPARATOR not in text:
        return 0.0
    best = 0.0
    for lines in _tables(text):
        count = _header_lines(lines)
        columns = _columns(words, lines[:count])
        if not any(columns):
            continue
        key = ""
        for line in lines[count:]:
            key = _squeezed(line[0]) or key
            first = next((index for index, cell in enumerate(line) if cell and _FIGURES.fullmatch(cell)), len(line))
            labels = {key} | {_squeezed(cell) for cell in line[1:first] if cell}
            keyed = set().union(*(_named(words, label) for label in labels if label))
            if not keyed:
                continue
            for index, headed in enumerate(columns, start=1):
                if headed and first <= index < len(line) and line[index] and keyed - headed:
                    best = max(best, len(keyed | headed) / len(words))
    return best


def by_cells(rows: list[dict], question: str) -> list[dict]:
    """Full-text ``rows`` (with ``text`` and ``_score``) re-ranked by ``_score × (1 + CELL_WEIGHT × share)``
    (:func:`cell_share`); ties keep their order. ``_score`` becomes the product."""
    words = question_words(question)
    if not words:
        return rows
    scored = []
    for position, row in enumerate(rows):
        share = cell_share(words, row.get("text") or "")
        scored.append((-(float(row.get("_score", 0.0)) * (1.0 + CELL_WEIGHT * share)), position, row))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [dict(row, _score=-score) for score, _, row in scored]
