"""Invariants that every strategy keeps, on many generated documents (Hypothesis).

- every chunk maps back: ``chunk.text == chunk.header + doc.text[start:end]``;
- no text lost: the chunks' spans cover every non-space character of the document;
- within budget: no chunk over the merge ceiling, none empty; splits stay within the max;
- deterministic: the same document cuts the same way twice;
- tables: a chunk that starts inside a table (after its header rows) repeats the header.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers.model import Block, Document, Locator, PageInfo, Properties, Table
from splitters import STRATEGIES, Budget, split_document

WORDS = ["정부는", "지역", "디지털", "전환을", "지원한다.", "The", "report", "covers", "budget", "items.",
         "제3조에", "따라", "1.2의", "기준", "data", "표", "합계", "growth", "매출이", "증가했다."]
MARKERS = ["□ ", "○ ", "- ", "1. ", "가. ", "제1조(목적) ", "제2장 총칙", "## ", ""]

small_budget = Budget(min_tokens=20, max_tokens=120, merge_ceiling=130)


@st.composite
def sentences(draw, min_words=1, max_words=40):
    words = draw(st.lists(st.sampled_from(WORDS), min_size=min_words, max_size=max_words))
    return " ".join(words)


@st.composite
def documents(draw):
    blocks = []
    pages = draw(st.integers(1, 4))
    infos = []
    for page in range(1, pages + 1):
        for _ in range(draw(st.integers(0, 5))):
            kind = draw(st.sampled_from(["paragraph", "paragraph", "heading", "list_item", "table"]))
            loc = Locator(page=page)
            if kind == "table":
                width = draw(st.integers(1, 4))
                n_rows = draw(st.integers(1, 40))
                rows = tuple(tuple(draw(sentences(1, 3)) for _ in range(width)) for _ in range(n_rows))
                table = Table(rows, header_rows=min(draw(st.integers(1, 2)), n_rows))
                blocks.append(Block("table", table.render(), loc, table=table))
            elif kind == "heading":
                blocks.append(Block("heading", draw(sentences(1, 4)), loc, level=draw(st.integers(1, 3))))
            else:
                lines = [draw(st.sampled_from(MARKERS)) + draw(sentences()) for _ in range(draw(st.integers(1, 6)))]
                blocks.append(Block(kind, "\n".join(line.strip() for line in lines), loc))
        infos.append(PageInfo(page, 595, 842, 100))
    if not blocks:
        blocks.append(Block("paragraph", draw(sentences()), Locator(page=1)))
    return Document("generated.pdf", "pdf", tuple(blocks), Properties(pages=tuple(infos)))


ALL = [*sorted(STRATEGIES), "tokens:50/10", "recursive:60/0", "none"]


def covered(doc: Document, chunks) -> bool:
    mask = [False] * len(doc.text)
    for chunk in chunks:
        for i in range(chunk.start, chunk.end):
            mask[i] = True
    return all(m or ch.isspace() for m, ch in zip(mask, doc.text, strict=True))


@pytest.mark.parametrize("strategy", ALL)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=documents())
def test_invariants(strategy, doc, counter):
    chunks = split_document(doc, strategy, counter, small_budget)
    assert chunks, "a document with text gives at least one chunk"
    for chunk in chunks:
        assert chunk.text == chunk.header + doc.text[chunk.start:chunk.end]
        assert chunk.text.strip(), "no empty chunk"
        assert chunk.tokens == counter(chunk.text)
    assert covered(doc, chunks), "every non-space character is in some chunk"
    if STRATEGIES.get(strategy) is not None:
        assert all(c.tokens <= small_budget.merge_ceiling for c in chunks)
        for block, (start, end) in zip(doc.blocks, doc.spans, strict=True):
            if block.table is None:
                continue
            header_end = start + len(block.table.header_text)
            for chunk in chunks:
                if header_end < chunk.start < end:
                    assert chunk.text.startswith(block.table.header_text), "table chunk repeats its header"
    assert split_document(doc, strategy, counter, small_budget) == chunks, "deterministic"


def test_over_long_unit_is_split_at_sentences_not_truncated(counter):
    sentence = "정부는 지역 디지털 전환을 지원한다. "
    doc = Document("a.txt", "txt", (Block("paragraph", (sentence * 200).strip()),))
    chunks = split_document(doc, "general", counter, Budget(20, 100, 110))
    assert len(chunks) > 5
    assert all(c.tokens <= 110 for c in chunks)
    assert all(c.text.endswith("지원한다.") for c in chunks)
    assert "".join(c.text.replace(" ", "") for c in chunks) == doc.text.replace(" ", "")


def test_short_units_merge_within_group_only(counter):
    rows_a = tuple((f"a{i}", str(i)) for i in range(3))
    rows_b = tuple((f"b{i}", str(i)) for i in range(3))
    table_a = Table((("name", "value"), *rows_a))
    table_b = Table((("name", "value"), *rows_b))
    doc = Document("s.xlsx", "xlsx", (
        Block("table", table_a.render(), Locator(sheet="A"), table=table_a),
        Block("table", table_b.render(), Locator(sheet="B"), table=table_b),
    ))
    chunks = split_document(doc, "sheet", counter, Budget())
    assert [c.sheet for c in chunks] == ["A", "B"], "tiny sheets are not merged across sheets"


def test_sheet_rows_repeat_header_and_never_split(counter):
    rows = tuple((f"2025-01-{i % 28 + 1:02d}", f"지역{i}", str(i * 1000)) for i in range(300))
    table = Table((("날짜", "지역", "매출"), *rows))
    numbers = tuple(range(1, 302))
    doc = Document("s.xlsx", "xlsx", (Block("table", table.render(), Locator(sheet="월별", row_start=1, row_end=301),
                                            table=table, row_numbers=numbers),))
    chunks = split_document(doc, "sheet", counter, Budget(20, 200, 220))
    assert len(chunks) > 3
    row_lines = {table.row_text(i) for i in range(1, len(table.rows))}
    seen = []
    for chunk in chunks:
        lines = chunk.text.split("\n")
        assert lines[0] == "날짜 | 지역 | 매출"
        assert all(line in row_lines for line in lines[1:]), "only whole rows"
        seen.extend(lines[1:])
        assert chunk.sheet == "월별" and chunk.row_start is not None and chunk.row_end >= chunk.row_start
    assert seen == [table.row_text(i) for i in range(1, len(table.rows))]
    assert chunks[0].row_start == 1 and chunks[-1].row_end == 301
