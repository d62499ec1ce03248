"""Token counts the sheet path derives instead of tokenising (issue #17) against tiktoken's own.

With the cl100k counter, a pack of table rows is priced as its header's count plus its rows' counts
plus one token a line break, and a tall table is known to be over the max by a bound
(:func:`splitters.chunk.cl100k_floor`) rather than by counting it. Each shortcut must give exactly
what tiktoken gives for the whole text — the chunks' ``tokens`` are stored — so each is checked here
against a fresh, unmemoised ``tiktoken`` count on generated sheets: Korean and English words,
numbers, punctuation at cell ends (``.\\n`` is one token), empty cells, long cells, cells holding
line breaks or pipes.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers.model import CELL_SEPARATOR, PACKED_SEPARATOR, Block, Document, Locator, PackedRows, Table
from splitters import Budget, cl100k, cl100k_counter, split_document
from splitters.chunk import WORD_END, cl100k_floor, counts_cl100k
from splitters.pieces import Segment, _adds_up

PIECES = ["매출", "합계", "서울특별시", "값", "data", "Total", "2024", "12,500", "3.5", "-", "(주)", "%", ".", ")",
          "비고:", "a|b", "", "", " ", "x\ny", "é", "漢字", "…", "'s", "\t", "01-02"]


def tiktoken_count(text: str) -> int:
    return len(cl100k().encode(text, disallowed_special=()))


def _cell(rnd: random.Random) -> str:
    if rnd.random() < 0.05:  # a long cell
        return " ".join(rnd.choice(PIECES[:12]) for _ in range(rnd.randint(40, 120)))
    return "".join(rnd.choice(PIECES) for _ in range(rnd.randint(0, 3))).strip(" ")


def _sheet(seed: int, packed: bool) -> Document:
    rnd = random.Random(seed)
    width = rnd.randint(1, 9)
    rows = [tuple(f"열{c}" if rnd.random() < 0.8 else _cell(rnd) for c in range(width))]
    rows += [tuple(_cell(rnd) for _ in range(width)) for _ in range(rnd.randint(1, 300))]
    if packed:  # as the CSV and XLSX parsers keep a sheet's rows
        packed = []
        for row in rows:
            end = len(row)
            while end and not row[end - 1]:
                end -= 1
            packed.append(PACKED_SEPARATOR.join(row[:end]))
        table = Table(PackedRows.pack(packed, width))
        assert list(table.rows) == rows
    else:
        table = Table(tuple(rows))
    return Document("s.csv", "csv", (Block("table", table.render(), Locator(sheet="s"), table=table),))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("budget", [Budget(), Budget(20, 120, 130), Budget(50, 300, 320, pack=150)])
def test_every_sheet_chunk_carries_tiktokens_count(seed: int, budget: Budget) -> None:
    doc = _sheet(seed, packed=seed % 2 == 0)
    chunks = split_document(doc, "sheet", cl100k_counter(), budget)
    assert chunks
    for chunk in chunks:
        assert chunk.tokens == tiktoken_count(chunk.text), chunk.text[:200]


def test_the_cl100k_counter_says_so_and_others_do_not() -> None:
    assert counts_cl100k(cl100k_counter())
    assert not counts_cl100k(len)
    assert not counts_cl100k(lambda text: len(text.split()))


_ROW = st.text(alphabet="가나다라값 abcXYZ 0123456789 .,|()-:%'漢é\t\n", min_size=1, max_size=40)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=_ROW, after=_ROW)
def test_a_join_that_adds_up_adds_up(before: str, after: str) -> None:
    # _adds_up lets a pack skip its recount: it must only say so when the sum is tiktoken's count.
    text = before + "\n" + after
    if _adds_up(text, len(before), Segment(len(before) + 1, len(text))):
        assert tiktoken_count(text) == tiktoken_count(before) + tiktoken_count("\n") + tiktoken_count(after)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(header=_ROW, row=_ROW)
def test_a_header_and_a_row_add_up(header: str, row: str) -> None:
    # A repeated header ends with a line break: with any non-space after it, the counts add up.
    if not row[0].isspace():
        assert tiktoken_count(header + "\n" + row) == tiktoken_count(header + "\n") + tiktoken_count(row)


def test_a_mark_before_the_break_is_why_not_every_join_adds_up() -> None:
    # The case the shortcut must leave to a real count: "." and the line break share a token.
    assert tiktoken_count("합계.\n매출") != tiktoken_count("합계.") + 1 + tiktoken_count("매출")
    assert WORD_END.match(".") is None
    assert not _adds_up("합계.\n매출", 3, Segment(4, 7))
    assert _adds_up("합계\n매출", 2, Segment(3, 5))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.text(alphabet="값 ab1 .|-:\n\t", max_size=8), min_size=1, max_size=6), max_size=30))
def test_the_floor_is_never_over_the_count(rows: list[list[str]]) -> None:
    text = "\n".join(CELL_SEPARATOR.join(row) for row in rows)
    assert cl100k_floor(text) <= tiktoken_count(text)


@pytest.mark.parametrize("seed", range(6))
def test_the_floor_is_never_over_the_count_of_generated_sheets(seed: int) -> None:
    text = _sheet(seed, packed=True).text
    assert cl100k_floor(text) <= tiktoken_count(text)
