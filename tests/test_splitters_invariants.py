"""Invariants that every strategy keeps, on many generated documents (Hypothesis).

- every chunk maps back: ``chunk.text == chunk.header + doc.text[start:end]``;
- no text lost: the chunks' spans cover every non-space character of the document;
- within budget: split pieces are within the max, merges of pieces within the merge ceiling, and
  a chunk under the min has no neighbour of its group it could still join;
- deterministic: the same document cuts the same way twice;
- tables: a chunk that holds rows of a table but not its start repeats the header rows, and a
  chunk starts and ends on row boundaries inside a table;
- headers: no chunk ends with a header whose body (or deeper header) is in the next chunk;
- heading paths: on documents generated from a known outline (Korean report markers, legal
  chapters/articles/clauses, numbered sections, declared headings), the grammar finds exactly the
  outline's headers, and each chunk's heading path is the common prefix of the paths of what it
  holds; in the ``section`` strategy a chunk that spans several top-level sections holds the ones
  between its two ends whole.
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from classifiers.headings import find_headings
from parsers.model import Block, Document, Locator, PageInfo, Properties, Table
from splitters import STRATEGIES, Budget, split_document
from splitters.table_rows import ROW_GOES_ON

WORDS = ["정부는", "지역", "디지털", "전환을", "지원한다.", "The", "report", "covers", "budget", "items.",
         "제3조에", "따라", "1.2의", "기준", "data", "표", "합계", "growth", "매출이", "증가했다."]
MARKERS = ["□ ", "○ ", "- ", "1. ", "가. ", "제1조(목적) ", "제2장 총칙", "## ", ""]
DOCUMENT_AWARE = sorted(STRATEGIES)
ALL = [*DOCUMENT_AWARE, "tokens:50/10", "recursive:60/0", "none"]

small_budget = Budget(min_tokens=20, max_tokens=120, merge_ceiling=130)
examples = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _sentence(rnd: random.Random, low: int = 1, high: int = 40) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(low, high)))


@st.composite
def documents(draw):
    """Mixed blocks over a few pages. Hypothesis draws the seed and the shape; the words come from
    a seeded generator (drawing every word through Hypothesis is slow and shrinks no better)."""
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    pages = draw(st.integers(1, 4))
    kinds = ["paragraph", "paragraph", "heading", "list_item", "table", "furniture"]
    blocks = []
    for page in range(1, pages + 1):
        loc = Locator(page=page)
        for kind in draw(st.lists(st.sampled_from(kinds), max_size=5)):
            if kind == "table":
                width, n_rows = rnd.randint(1, 4), draw(st.integers(1, 40))
                rows = tuple(tuple(_sentence(rnd, 1, 3) for _ in range(width)) for _ in range(n_rows))
                table = Table(rows, header_rows=min(rnd.randint(1, 2), n_rows))
                blocks.append(Block("table", table.render(), loc, table=table))
            elif kind == "heading":
                blocks.append(Block("heading", _sentence(rnd, 1, 4), loc, level=rnd.randint(1, 3)))
            elif kind == "furniture":
                blocks.append(Block("furniture", f"- {page} -", loc))
            else:
                lines = [(rnd.choice(MARKERS) + _sentence(rnd)).strip() for _ in range(rnd.randint(1, 6))]
                blocks.append(Block(kind, "\n".join(lines), loc))
    if not blocks:
        blocks.append(Block("paragraph", _sentence(rnd), Locator(page=1)))
    infos = tuple(PageInfo(page, 595, 842, 100) for page in range(1, pages + 1))
    return Document("generated.pdf", "pdf", tuple(blocks), Properties(pages=infos))


def covered(doc: Document, chunks) -> bool:
    mask = [False] * len(doc.text)
    for chunk in chunks:
        for i in range(chunk.start, chunk.end):
            mask[i] = True
    return all(m or ch.isspace() for m, ch in zip(mask, doc.text, strict=True))


def content_end(doc: Document, end: int) -> int:
    """Where a span's content ends: before trailing whitespace and furniture blocks."""
    while True:
        end = len(doc.text[:end].rstrip())
        block = next((i for i, (s, e) in enumerate(doc.spans) if s < end <= e), None)
        if block is None or doc.blocks[block].kind != "furniture":
            return end
        end = doc.spans[block][0]


def glued_headers(doc: Document, chunks) -> list[str]:
    """Chunks that end with a header whose body, or a deeper header, comes after the chunk."""
    headings = find_headings(doc)
    furniture = [(s, e) for b, (s, e) in zip(doc.blocks, doc.spans, strict=True) if b.kind == "furniture"]
    bad = []
    for chunk in chunks:
        end = content_end(doc, chunk.end)
        for index, heading in enumerate(headings):
            if heading.end != end or heading.offset < chunk.start:
                continue
            following = headings[index + 1] if index + 1 < len(headings) else None
            after = list(doc.text[heading.end:following.offset if following else len(doc.text)])
            for s, e in furniture:
                for i in range(max(s, heading.end), min(e, heading.end + len(after))):
                    after[i - heading.end] = " "
            if "".join(after).strip() or (following is not None and following.level > heading.level):
                bad.append(chunk.text[-40:])
    return bad


def _wide_header_table() -> Document:
    """Found by Hypothesis (issue #33): a table whose two header rows take two thirds of the max, so
    its first data row is cut into column groups — and the header rows were left a chunk of their
    own, with no value under them. Kept as an explicit example: it runs every time, whatever is drawn."""
    rows = (
        ("The 디지털 budget", "1.2의 data 증가했다.", "정부는", "표 증가했다. 매출이"),
        ("전환을 1.2의 data", "따라 따라", "합계", "합계 증가했다. 매출이"),
        ("data 정부는", "report 기준", "증가했다. 정부는 디지털", "기준 전환을 증가했다."),
        ("디지털", "제3조에 디지털 지역", "따라 budget", "covers"),
        ("매출이 따라", "budget 제3조에", "따라", "매출이"),
        ("증가했다. data", "items. The 기준", "증가했다. report", "report"),
        ("기준 covers", "report 매출이 표", "data 기준", "디지털"),
        ("증가했다. 제3조에 표", "표 합계 지역", "data", "전환을"),
        ("전환을 합계 합계", "디지털 정부는", "정부는 합계 growth", "기준 따라 정부는"),
        ("budget 따라 전환을", "지원한다. 지원한다. 표", "1.2의", "디지털 지원한다. 지역"),
        ("증가했다.", "디지털 증가했다.", "정부는 The", "The"),
        ("표 report", "표", "따라 covers 전환을", "제3조에"),
    )
    table = Table(rows, header_rows=2)
    block = Block("table", table.render(), Locator(page=1), table=table)
    return Document("generated.pdf", "pdf", (block,), Properties(pages=(PageInfo(1, 595, 842, 100),)))


def _saved_counterexamples() -> list[Document]:
    """Documents Hypothesis found breaking an invariant when it drew new examples
    (``SEAMS_HYPOTHESIS=explore``, issue #33), kept in ``fixtures/splitter_counterexamples.json`` with
    what each broke: every run checks them, whatever the profile draws."""
    saved = json.loads((Path(__file__).parent / "fixtures" / "splitter_counterexamples.json").read_text("utf-8"))
    docs = []
    for case in saved:
        blocks = []
        for item in case["blocks"]:
            loc = Locator(page=item["page"])
            if "rows" in item:
                table = Table(tuple(tuple(row) for row in item["rows"]), header_rows=item["header_rows"])
                blocks.append(Block("table", table.render(), loc, table=table))
            else:
                blocks.append(Block(item["kind"], item["text"], loc, level=item.get("level", 0)))
        infos = tuple(PageInfo(page, 595, 842, 100) for page in range(1, case["pages"] + 1))
        docs.append(Document("generated.pdf", "pdf", tuple(blocks), Properties(pages=infos)))
    return docs


@pytest.mark.parametrize("strategy", ALL)
@pytest.mark.parametrize("case", range(len(_saved_counterexamples())))
def test_invariants_hold_on_the_saved_counterexamples(strategy, case, counter):
    assert_invariants(strategy, _saved_counterexamples()[case], counter)


@pytest.mark.parametrize("strategy", ALL)
@examples
@given(doc=documents())
@example(doc=_wide_header_table())
def test_invariants(strategy, doc, counter):
    assert_invariants(strategy, doc, counter)


def assert_invariants(strategy: str, doc: Document, counter) -> None:
    chunks = split_document(doc, strategy, counter, small_budget)
    assert chunks, "a document with text gives at least one chunk"
    for chunk in chunks:
        assert chunk.text == chunk.header + doc.text[chunk.start:chunk.end]
        assert chunk.text.strip(), "no empty chunk"
        assert chunk.tokens == counter(chunk.text)
    assert covered(doc, chunks), "every non-space character is in some chunk"
    assert [c.start for c in chunks] == sorted(c.start for c in chunks), "chunks in document order"
    if strategy in STRATEGIES:
        assert all(c.tokens <= small_budget.merge_ceiling for c in chunks)
        assert all(c.end <= d.start for c, d in itertools.pairwise(chunks)), "no overlap"
        check_tables(doc, chunks, counter)
        assert not glued_headers(doc, chunks), "a header is never left at the end of a chunk"
    assert split_document(doc, strategy, counter, small_budget) == chunks, "deterministic"


def check_tables(doc: Document, chunks, counter, budget: Budget = small_budget) -> None:
    """Header rows repeated, and cuts inside a table only between rows (or inside a row too long
    to fit the max with the header)."""
    for block, (start, end) in zip(doc.blocks, doc.spans, strict=True):
        if block.table is None:
            continue
        table = block.table
        # What a piece inside the table repeats: its title rows, then its header rows.
        lead = "\n".join(table.row_text(i) for i in range(min(table.header_rows, len(table.rows))))
        header_end = start + len(lead)
        cuts = {start, end}
        position = start
        long_rows = []
        for index in range(len(table.rows)):
            row = table.row_text(index)
            if index >= table.header_rows and counter(lead + "\n" + row) > budget.max_tokens:
                long_rows.append((position, position + len(row)))
            cuts.update((position, position + len(row)))
            position += len(row) + 1
        has_data = len(table.rows) > table.header_rows
        for chunk in chunks:
            if header_end < chunk.end and chunk.start < end and chunk.start > start:
                # its header rows, after its caption: lines from just before the table; then, in a
                # piece that goes on with a row too long for one, that row's key (``당초계획 | …``)
                header = chunk.header
                if header.endswith(ROW_GOES_ON) and any(s < chunk.start < e for s, e in long_rows):
                    header = header[:header.rindex("\n", 0, len(header) - 1) + 1]
                    assert chunk.text.startswith(chunk.header), "a continued row's key is in the text"
                caption = header.removesuffix(lead + "\n")
                assert ((caption != header and chunk.text.startswith(chunk.header)
                         and all(line.strip() in doc.text[:start][-400:] for line in caption.splitlines()))
                        or repeats_its_columns_header(table, chunk)), "table chunk repeats its header"
            if has_data and chunk.end == header_end:
                raise AssertionError("a table's header rows are not left without a data row")
            for edge in (chunk.start, chunk.end):
                if start < edge < end and edge not in cuts:
                    assert any(s < edge < e for s, e in long_rows), "a table is cut between rows"


def repeats_its_columns_header(table, chunk) -> bool:
    """A column group of a row too wide for the budget (see ``splitters/columns.py``) repeats the
    header cells of its own columns: one line per header row, each that row's cells for a run of
    columns (after the key column's, if the table has one: the row's key cell then opens its line),
    as many cells as the group's row line."""
    lines = chunk.text.split("\n")
    if not chunk.header or len(lines) <= table.header_rows:
        return False
    width = len(lines[table.header_rows].split(" | "))
    for line, row in zip(lines, table.rows[:table.header_rows], strict=False):
        cells = line.split(" | ")
        if len(cells) != width or not _is_subsequence(cells, [str(c) for c in row]):
            return False
    return True


def _is_subsequence(part: list[str], whole: list[str]) -> bool:
    it = iter(whole)
    return all(any(cell == other for other in it) for cell in part)


def headers_before_rows(doc: Document, piece, budget: Budget) -> bool:
    """The one piece a split may leave over the max: header lines (and furniture), then the table
    rows that follow them (which fit only without the headers), within the merge ceiling."""
    tables = [s for b, (s, _) in zip(doc.blocks, doc.spans, strict=True) if b.table is not None and piece.start < s]
    if piece.tokens > budget.merge_ceiling or not tables or tables[0] >= piece.end:
        return False
    mask = list(doc.text[piece.start:tables[0]])
    furniture = [(s, e) for b, (s, e) in zip(doc.blocks, doc.spans, strict=True) if b.kind == "furniture"]
    for start, end in [(h.offset, h.end) for h in find_headings(doc)] + furniture:
        for i in range(max(start, piece.start), min(end, tables[0])):
            mask[i - piece.start] = " "
    return not "".join(mask).strip()


def titles_before_unit(doc: Document, piece, budget: Budget, counter) -> bool:
    """The other piece allowed over the max: bare titles (a header followed at once by a deeper
    one, as a chapter title before its first article) opening a unit that fits the max, within the
    merge ceiling."""
    if piece.tokens > budget.merge_ceiling:
        return False
    headings = find_headings(doc)
    text = list(doc.text)
    for block, (start, end) in zip(doc.blocks, doc.spans, strict=True):
        if block.kind == "furniture":
            text[start:end] = " " * (end - start)
    position = piece.start
    for heading, following in itertools.pairwise(headings):
        if heading.offset < position:
            continue
        if heading.offset != position or following.level <= heading.level \
                or "".join(text[heading.end:following.offset]).strip():
            break
        position = following.offset
    return position > piece.start and counter(doc.text[position:piece.end]) <= budget.max_tokens


def over_max_allowed(doc: Document, piece, budget: Budget, counter) -> bool:
    return headers_before_rows(doc, piece, budget) or titles_before_unit(doc, piece, budget, counter)


@pytest.mark.parametrize("strategy", DOCUMENT_AWARE)
@examples
@given(doc=documents(), low=st.integers(5, 60))
def test_merges_join_whole_pieces_within_the_ceiling(strategy, doc, low, counter):
    budget = Budget(low, small_budget.max_tokens, small_budget.merge_ceiling)
    pieces = split_document(doc, strategy, counter, Budget(0, budget.max_tokens, budget.merge_ceiling))
    assert all(p.tokens <= budget.max_tokens or over_max_allowed(doc, p, budget, counter) for p in pieces), \
        "no piece over the max after a split (but headers kept with the table rows or the unit after them)"
    chunks = split_document(doc, strategy, counter, budget)
    starts = {p.start: i for i, p in enumerate(pieces)}
    ends = {p.end: i for i, p in enumerate(pieces)}
    for chunk in chunks:
        first, last = starts.get(chunk.start), ends.get(chunk.end)
        assert first is not None and last is not None and first <= last, "a merge joins whole pieces"
        assert chunk.tokens <= (budget.max_tokens if first == last else budget.merge_ceiling) \
            or (first == last and over_max_allowed(doc, chunk, budget, counter))
        assert len({p.group for p in pieces[first:last + 1]}) == 1, "never merged across groups"
    for a, b in itertools.pairwise(chunks):
        if a.group == b.group and min(a.tokens, b.tokens) < budget.min_tokens:
            joined = counter(a.header + doc.text[a.start:b.end])
            assert joined > budget.merge_ceiling, "a small chunk joins a neighbour whenever it fits"


def test_over_long_unit_is_split_at_sentences_not_truncated(counter):
    sentence = "정부는 지역 디지털 전환을 지원한다. "
    doc = Document("a.txt", "txt", (Block("paragraph", (sentence * 200).strip()),))
    chunks = split_document(doc, "general", counter, Budget(20, 100, 110))
    assert len(chunks) > 5
    assert all(c.tokens <= 110 for c in chunks)
    assert all(c.text.endswith("지원한다.") for c in chunks)
    assert "".join(c.text.replace(" ", "") for c in chunks) == doc.text.replace(" ", "")


def test_an_item_number_or_an_initial_is_not_a_sentence_end(counter):
    """A list written inline (``… venues: 1. Leadenhall Market - … 2. …``) is cut between items,
    never between ``3.`` and its item, nor between an initial and the name after it."""
    items = " ".join(f"{n}. Clapham Grand {n} - a Victorian theatre by J. Smith turned into a music venue."
                     for n in range(1, 40))
    doc = Document("a.txt", "txt", (Block("paragraph", "Unusual places in London: " + items),))
    chunks = split_document(doc, "general", counter, Budget(20, 100, 110))
    assert len(chunks) > 5
    for chunk in chunks:
        assert not chunk.text.rstrip().endswith((" J.", *(f" {n}." for n in range(1, 40)))), chunk.text[-40:]
    assert all(c.text.endswith("music venue.") for c in chunks[:-1])



def test_a_date_wrapped_after_its_month_is_not_a_sentence_end(counter):
    """A regulation's amendment note wraps inside its date ("…출장계획서<개정 2018. 12." / "27.>"): the
    line break after "12." is not a sentence's end, and the wrapped "27.>" is not a title line that
    goes with the article after it."""
    lines = []
    for n in range(1, 30):
        lines.append(f"{n}. 기타 공개 시 업무수행에 지장을 초래할 사항이 포함된 출장계획서 제{n}호<개정 2018. 12.")
        lines.append("27.>")
    doc = Document("a.pdf", "pdf", (Block("paragraph", "\n".join(lines), Locator(page=1)),),
                   Properties(pages=(PageInfo(1, 595, 842, 4000),)))
    chunks = split_document(doc, "general", counter, Budget(20, 100, 110))
    assert len(chunks) > 5
    for chunk in chunks:
        assert not chunk.text.rstrip().endswith("2018. 12."), chunk.text[-40:]
        assert not chunk.text.lstrip().startswith("27.>"), chunk.text[:40]


def test_an_escaped_paragraph_break_is_cut_before_a_sentence_end(counter):
    """A chat log exported as JSON is one line whose paragraphs end in a written ``\\n\\n``: a unit over
    the budget is cut there, so each city's paragraph stays whole, not at whichever sentence end
    fills the pack."""
    cities = [f"{n}. City {n}\\n" + " ".join(f"City {n} runs program {k} on renewable energy and parks." for k in range(6))
              for n in range(1, 13)]
    line = '{"role": "assistant", "content": "' + "\\n\\n".join(cities) + '"}'
    doc = Document("chat.txt", "txt", (Block("paragraph", line),))
    chunks = split_document(doc, "general", counter, Budget(20, 150, 160))
    assert len(chunks) > 3
    for chunk in chunks[1:]:
        assert chunk.text.startswith(tuple(f"{n}. City {n}\\n" for n in range(1, 13))), chunk.text[:40]
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


@pytest.mark.parametrize("strategy", ["section", "page", "general", "whole"])
def test_big_tables_inside_documents_follow_the_sheet_rules(strategy, counter):
    rows = tuple((f"{2000 + i}년", f"지역 {i}", f"{i * 37:,}", "비고 없음") for i in range(120))
    table = Table((("연도", "지역", "금액(백만원)", "비고"), ("", "", "(단위)", ""), *rows), header_rows=2)
    blocks = (
        Block("paragraph", "1. 개요", Locator(page=1)),
        Block("paragraph", "정부는 지역별 지원 실적을 다음 표로 정리하였다.", Locator(page=1)),
        Block("table", table.render(), Locator(page=1), table=table),
        Block("paragraph", "2. 향후 계획", Locator(page=2)),
        Block("paragraph", "표의 실적을 바탕으로 내년 예산을 편성한다.", Locator(page=2)),
    )
    doc = Document("r.pdf", "pdf", blocks, Properties(pages=(PageInfo(1, 595, 842, 4000), PageInfo(2, 595, 842, 100))))
    budget = Budget(50, 250, 270)
    chunks = split_document(doc, strategy, counter, budget)
    table_start, table_end = doc.spans[2]
    holding = [c for c in chunks if c.start < table_end and c.end > table_start]
    assert len(holding) > 3
    data_rows = {table.row_text(i) for i in range(2, len(table.rows))}
    for chunk in holding:
        assert chunk.tokens <= budget.merge_ceiling
        if chunk.start > table_start:
            assert chunk.header == table.header_text + "\n", "header rows repeated"
        body_rows = [line for line in doc.text[max(chunk.start, table_start):min(chunk.end, table_end)].split("\n")]
        assert all(line in data_rows or line in table.header_text.split("\n") for line in body_rows), "whole rows"
    assert holding[0].text.startswith("1. 개요"), "the header before the table stays with it"


def _report_with_tables(prose: str, n_rows: int) -> tuple[Document, Table]:
    rows = tuple((f"{2013 + i}", f"{(i + 3) * 4_127_311:,}", f"{(i + 1) * 98_117:,}", "-") for i in range(n_rows))
    table = Table((("", "합계", "부동산교부세", "비고"), *rows))
    page = Locator(page=1)
    blocks = (
        Block("paragraph", "지방교부세 현황", page),
        Block("paragraph", prose, page),
        Block("paragraph", "<표 6> 지방교부세 종류별 현황 및 추이", page),
        Block("paragraph", "(단위: 백만원)", page),
        Block("table", table.render(), page, table=table),
        Block("paragraph", "주 1) 2021년까지는 최종교부액이며, 2022년은 당초예산 기준임.\n자료: 행정안전부", page),
        Block("paragraph", "보통교부세는 재정불균형을 완화하는 데 목적이 있다. " * 6, page),
    )
    return Document("r.pdf", "pdf", blocks, Properties(pages=(PageInfo(1, 595, 842, 4000),))), table


@pytest.mark.parametrize("strategy", ["section", "general"])
def test_a_table_that_fits_a_piece_starts_one_with_its_caption_rather_than_being_cut(strategy, counter):
    """Prose fills most of a piece before a table: the table is not cut to fill the rest, it starts
    the next piece with its caption lines (the lines that say which table it is)."""
    prose = "- 보통교부세는 2019년 52.6조원에서 2020년 44.9조원으로 감소하였으나 2021년부터 상승함\n" * 9
    doc, _ = _report_with_tables(prose, 10)
    budget = Budget(50, 600, 650, pack=300)
    assert counter(doc.text) > budget.max_tokens
    chunks = split_document(doc, strategy, counter, budget)
    caption_start, table_end = doc.spans[2][0], doc.spans[4][1]
    holding = [c for c in chunks if c.start < table_end and c.end > doc.spans[4][0]]
    assert len(holding) == 1, [c.text[:60] for c in holding]
    assert holding[0].start == caption_start and holding[0].end >= table_end
    assert holding[0].text.startswith("<표 6>")


def test_a_table_cut_across_pieces_repeats_its_caption_with_its_header(counter):
    doc, table = _report_with_tables("지방교부세는 2022년 기준 약 65조원이다.", 60)
    chunks = split_document(doc, "section", counter, Budget(50, 600, 650, pack=300))
    table_start, table_end = doc.spans[4]
    holding = [c for c in chunks if c.start < table_end and c.end > table_start]
    assert len(holding) > 2
    assert holding[0].text.startswith("지방교부세 현황") and "<표 6>" in holding[0].text
    for chunk in holding[1:]:
        assert chunk.header == "<표 6> 지방교부세 종류별 현황 및 추이\n(단위: 백만원)\n" + table.header_text + "\n"
        assert chunk.text.startswith(chunk.header)
    data = [table.row_text(i) for i in range(1, len(table.rows))]
    seen = [line for c in holding for line in doc.text[max(c.start, table_start):min(c.end, table_end)].split("\n")]
    assert [line for line in seen if line in data] == data, "every row once, whole"


def test_the_pieces_of_a_row_too_long_for_one_carry_its_key(counter):
    """A slide's yearly plan: the 당초계획 row's cells run past the max. Its last piece was a run of
    words under the header, with no row to read it in; each piece after the first now says whose
    row it goes on with (``당초계획 | …``), after the header rows."""
    plan = " ".join(f"정보망 기능 {n} 구축" for n in range(120))
    table = Table((("구분", "'18년", "'19년"), ("개발단계", "1차년도", "2차년도"), ("당초계획", plan, "고도화")))
    slide = Locator(slide=4)
    doc = Document("d.pptx", "pptx", (Block("table", table.render(), slide, table=table),), Properties())
    chunks = split_document(doc, "slide", counter, Budget(50, 300, 320, pack=250))
    tail = [c for c in chunks if c.start > doc.text.index("당초계획")]
    assert tail, "the row is cut into pieces"
    for chunk in tail:
        assert chunk.header == "구분 | '18년 | '19년\n당초계획 | …\n" and chunk.text.startswith(chunk.header)
        assert chunk.tokens <= 320
    first = next(c for c in chunks if "당초계획 | 정보망" in c.text)
    assert "…" not in first.text, "the row's first piece holds its key itself"


def test_marks_without_words_before_a_table_are_no_caption(counter):
    """A slide's tab marks (``Ⅲ``, ``Ⅳ``, set beside the table as navigation) were taken for the
    table's caption and repeated above every piece of it."""
    rows = tuple((f"{2018 + i}년", f"사업 {i} 개발 내용 " * 6, f"{i + 3}.{i} 억") for i in range(30))
    table = Table((("구분", "내용", "사업비"), *rows))
    slide = Locator(slide=4)
    blocks = (Block("paragraph", "추진경과", slide), Block("paragraph", "Ⅲ", slide), Block("paragraph", "Ⅳ", slide),
              Block("table", table.render(), slide, table=table))
    doc = Document("d.pptx", "pptx", blocks, Properties())
    chunks = split_document(doc, "slide", counter, Budget(50, 400, 420, pack=300))
    pieces = [c for c in chunks if c.header]
    assert len(pieces) >= 2
    assert all(c.header == table.header_text + "\n" for c in pieces), pieces[0].header


@pytest.mark.parametrize("seed", range(6))
def test_a_numbered_item_that_titles_the_items_under_it_never_ends_a_chunk(seed, counter):
    """Hangul and Word draw headings as numbered list paragraphs ("5. 제안서 제출" over "가. …"):
    no outline heading keeps them with what they name, so the cut must not leave one behind."""
    rnd = random.Random(seed)
    page = Locator(page=1)
    blocks = [Block("heading", "Ⅳ 제안서 작성", page, level=1)]
    titles = []
    for number in range(1, 9):
        titles.append(f"{number}. 제안 {('서식', '제출', '형식', '설명회')[number % 4]} 항목")
        blocks.append(Block("list_item", titles[-1], page))
        for letter in "가나다라마"[:rnd.randint(2, 5)]:
            blocks.append(Block("list_item", f"{letter}. {_sentence(rnd, 8, 30)} 제출하여야 한다.", page))
    doc = Document("rfp.hwp", "hwp", tuple(blocks), Properties())
    chunks = split_document(doc, "section", counter, Budget(20, 120, 130, pack=100))
    assert len(chunks) > 4
    for chunk in chunks[:-1]:
        last = chunk.text.rstrip().rsplit("\n", 1)[-1]
        assert last not in titles, f"{last!r} left at the end of a chunk, cut off from its items"
    assert sum(chunk.text.lstrip().startswith(tuple(titles)) for chunk in chunks) >= 3


# ------------------------------------------------------------------------- documents with an outline


@dataclass(frozen=True)
class Line:
    text: str
    path: tuple[str, ...]  # heading path of the section the line belongs to (its own, for a header)
    header: bool
    content: bool  # False only for a folding title (a header with no body right before a deeper one)
    top: int  # index of the top-level section the line is in (-1: the preamble)
    declared: int = 0  # heading level when the line is a declared heading block


TITLES = ["추진 배경", "추진 목적", "개요", "현황", "향후 계획", "예산", "Overview", "Scope"]
ITEMS = ["지역 간 격차가 확대되고 있음", "전문 인력 양성이 시급함", "(과제1) 혁신센터 확충", "센터를 8개소로 늘림",
         "사후관리를 강화할 필요가 있음", "예산 120억원 편성"]
BODY = ["정부는 지역 디지털 전환을 지원한다.", "기관은 정보를 안전하게 보관한다.", "The report covers budget items.",
        "세부 기준은 원장이 정한다.", "매출이 전년보다 증가했다."]
CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"
GANADA = "가나다라마바사"


@st.composite
def outlined(draw):
    """A document generated from an outline, with each line's true heading path."""
    scheme = draw(st.sampled_from(["report", "legal", "numbered", "declared"]))
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    counters = {"장": 0, "조": 0}
    lines: list[Line] = []

    def header_line(depth: int, index: int, parent: tuple[str, ...], body_inline: bool) -> tuple[str, str, bool]:
        """(line, label, title) of a header."""
        title = rnd.choice(TITLES)
        if scheme == "report":
            if depth == 0:
                return f"□ {title}", f"□ {title}", True
            text = ("○ " if depth == 1 else "- ") + rnd.choice(ITEMS)
            return text, text, False
        if scheme == "legal":
            if depth == 0:
                counters["장"] += 1
                text = f"제{counters['장']}장 {title}"
                return text, text, True
            if depth == 1:
                counters["조"] += 1
                label = f"제{counters['조']}조({title})"
                return (f"{label} {rnd.choice(BODY)}" if body_inline else label), label, not body_inline
            text = f"{CIRCLED[index]} {rnd.choice(BODY)}"
            return text, CIRCLED[index], False
        if scheme == "numbered":
            if depth == 0:
                text = f"{index + 1}. {title}"
            elif depth == 1:
                text = f"{parent[0].split('.')[0]}.{index + 1} {title}"
            else:
                text = f"{GANADA[index]}. {title}"
            return text, text, True
        return title, title, True

    def node(depth: int, index: int, parent: tuple[str, ...], top: int) -> None:
        children = rnd.randint(1 if scheme == "legal" and depth == 0 else 0, 3) if depth < 2 else 0
        inline = scheme == "legal" and depth == 1 and rnd.random() < 0.5
        bodies = rnd.randint(0, 2)
        if scheme == "numbered" and not children:
            bodies = max(bodies, 1)  # a bare numbered line after its sibling reads as a list item
        text, label, title = header_line(depth, index, parent, inline)
        path = (*parent, label)
        fold = not bodies and children > 0
        lines.append(Line(text, path, True, not (fold and title), top, depth + 1 if scheme == "declared" else 0))
        lines.extend(Line(rnd.choice(BODY), path, False, True, top) for _ in range(bodies))
        for child in range(children):
            node(depth + 1, child, path, top)

    if rnd.random() < 0.5:
        lines.append(Line("지역 디지털 전환 지원사업 추진계획", (), False, True, -1))
    for top in range(rnd.randint(2 if scheme == "legal" else 1, 4)):
        node(0, top, (), top)

    blocks: list[Block] = []
    owners: list[list[int]] = []  # line indexes of each block
    page = 1
    for index, line in enumerate(lines):
        new_block = not blocks or line.declared or lines[index - 1].declared or rnd.random() < 0.5
        if new_block and blocks and rnd.randint(0, 3) == 0:
            if rnd.random() < 0.5:
                blocks.append(Block("furniture", f"- {page} -", Locator(page=page)))
                owners.append([])
            page += 1
        if line.declared:
            blocks.append(Block("heading", line.text, Locator(page=page), level=line.declared))
            owners.append([index])
        elif new_block:
            blocks.append(Block("paragraph", line.text, Locator(page=page)))
            owners.append([index])
        else:
            blocks[-1] = Block("paragraph", blocks[-1].text + "\n" + line.text, blocks[-1].locator)
            owners[-1].append(index)
    # Declared headings come from a format's styles (a PDF's are its type sizes, where the largest
    # line first is the document's title: see find_headings).
    fmt = "docx" if scheme == "declared" else "pdf"
    doc = Document(f"outlined.{fmt}", fmt, tuple(blocks),
                   Properties(pages=tuple(PageInfo(n, 595, 842, 500) for n in range(1, page + 1))))
    spans: list[tuple[int, int]] = [(0, 0)] * len(lines)
    for (start, _), members in zip(doc.spans, owners, strict=True):
        position = start
        for index in members:
            spans[index] = (position, position + len(lines[index].text))
            position += len(lines[index].text) + 1
    return doc, lines, spans


def _common(paths: list[tuple[str, ...]]) -> tuple[str, ...]:
    common = paths[0]
    for path in paths[1:]:
        size = 0
        while size < min(len(common), len(path)) and common[size] == path[size]:
            size += 1
        common = common[:size]
    return common


@examples
@given(case=outlined())
def test_grammar_finds_the_outline(case):
    doc, lines, spans = case
    found = find_headings(doc)
    expected = [(spans[i][0], line.path[-1]) for i, line in enumerate(lines) if line.header]
    assert [(h.offset, h.text) for h in found] == expected
    stack: list = []
    for heading, (index, line) in zip(found, [(i, x) for i, x in enumerate(lines) if x.header], strict=True):
        while stack and stack[-1].level >= heading.level:
            stack.pop()
        stack.append(heading)
        assert tuple(h.text for h in stack) == line.path, f"depth of {lines[index].text!r}"


@pytest.mark.parametrize("strategy", DOCUMENT_AWARE)
@pytest.mark.parametrize("budget", [Budget(0, 60, 60), Budget(40, 90, 100), Budget()], ids=["split", "merge", "default"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=outlined())
def test_heading_paths(strategy, budget, case, counter):
    doc, lines, spans = case
    chunks = split_document(doc, strategy, counter, budget)
    assert covered(doc, chunks)
    assert not glued_headers(doc, chunks)
    for chunk in chunks:
        inside = [i for i, (s, e) in enumerate(spans) if s < chunk.end and e > chunk.start]
        paths = [lines[i].path for i in inside if lines[i].content]
        if paths:
            assert chunk.heading_path == _common(paths), chunk.text[:80]
        tops = sorted({lines[i].top for i in inside} - {-1})
        if strategy == "section" and len(tops) > 2:
            middle = set(tops[1:-1])
            whole = all(chunk.start <= s and e <= chunk.end for (s, e), line in zip(spans, lines, strict=True)
                        if line.top in middle)
            assert whole, "a chunk that spans top-level sections holds those between its ends whole"


@pytest.mark.parametrize("strategy", DOCUMENT_AWARE)
def test_budget_holds_with_a_counter_that_does_not_add_up(strategy):
    """Packing prices candidates by summing their parts' counts; the exact count of the result must
    still decide. This counter charges extra for long texts, so sums underestimate wholes."""
    def count(text: str) -> int:
        return len(text.split()) + len(text) // 40

    lines = [" ".join(WORDS[(i + j) % len(WORDS)] for j in range(3 + i % 9)) + "." for i in range(400)]
    blocks = tuple(Block("paragraph", "\n".join(lines[i:i + 20]), Locator(page=1 + i // 100)) for i in range(0, 400, 20))
    doc = Document("a.pdf", "pdf", blocks, Properties(pages=tuple(PageInfo(n, 595, 842, 1000) for n in range(1, 5))))
    budget = Budget(0, 90, 90)
    chunks = split_document(doc, strategy, count, budget)
    assert all(c.tokens == count(c.text) <= budget.max_tokens for c in chunks)
    assert covered(doc, chunks)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(previous=st.text(alphabet="가나다 abc 123 .,|()-:\n", max_size=30),
       row=st.text(alphabet="가나다라 abcXYZ 0123456789 .,|()-:%\n\t", min_size=1, max_size=40))
def test_a_packed_segment_is_priced_as_it_is_counted_with_the_line_break_before_it(previous: str, row: str) -> None:
    # Packing prices each next segment (a table row, a sentence) with the gap before it; after a
    # lone line break and before a letter or digit it adds the two memoised counts instead of
    # tokenising the row again — which must equal counting them together.
    from splitters import cl100k_counter
    from splitters.pieces import Segment, _step_count

    count = cl100k_counter()
    text = previous + "\n" + row
    segment = Segment(len(previous) + 1, len(text))
    assert _step_count(text, len(previous), segment, count) == count(text[len(previous):])
