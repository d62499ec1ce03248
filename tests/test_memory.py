"""Memory bounds that can be checked without a clock (``bench/memory.py`` measures the whole picture).

- counting tokens leaves nothing behind: not a long text in the counter's memo, not a UTF-8 copy
  cached on the string by the tokeniser;
- counting a long text never holds its tokens whole (as a Python list, tens of bytes a token);
- the counter's answer is tiktoken's, however a long text is cut into pieces to be counted;
- a tall sheet is held in about its text (its rows packed), and reads back as the same table.
- an ingest embeds and writes a batch's files in groups within a vector budget (the same rows as one
  group), and the embedding cache is written and read without a Python float per component;
- a file whose text is over the limit fails alone (``too_large``), in the ingest and in ``inspect``.
"""

from __future__ import annotations

import random
import sys
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from splitters.chunk import MEMO_CHARS, PIECE_CHARS, cl100k, cl100k_counter

WORDS = ("예산 집행 현황 점검 지역 디지털 전환 지원 사업 budget review quarterly growth 2025 12.5% "
         "<|endoftext|> 회의 결과 ○ - □ 제3조(목적)").split(" ")


def korean_text(chars: int, seed: int = 0) -> str:
    rnd = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < chars:
        word = rnd.choice(WORDS) + rnd.choice([" ", " ", " ", "\n", ".\n", " | ", "\n\n", "  \n"])
        parts.append(word)
        size += len(word)
    return "".join(parts)


def tiktoken_count(text: str) -> int:
    return len(cl100k().encode(text, disallowed_special=()))


@pytest.mark.parametrize("chars", [MEMO_CHARS // 2, MEMO_CHARS * 4, PIECE_CHARS * 3])
def test_counting_leaves_no_utf8_copy_on_the_text(chars: int) -> None:
    text = korean_text(chars)
    size = sys.getsizeof(text)
    cl100k_counter()(text)
    assert sys.getsizeof(text) == size  # CPython counts a cached UTF-8 copy in the string's size


def test_a_long_text_is_not_kept_by_the_counter() -> None:
    count = cl100k_counter()
    text = korean_text(MEMO_CHARS * 4)
    references = sys.getrefcount(text)
    count(text)
    assert sys.getrefcount(text) == references


def test_counting_a_long_text_does_not_hold_its_tokens() -> None:
    count = cl100k_counter()
    text = korean_text(2_000_000)
    tracemalloc.start()
    try:
        count(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < sys.getsizeof(text)  # a list of its tokens: about 10 times the text


@pytest.mark.parametrize("seed", range(6))
def test_the_count_of_a_long_text_is_tiktokens(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Small pieces, so that a text is cut at many line breaks (before Hangul, Latin letters, digits).
    monkeypatch.setattr("splitters.chunk.PIECE_CHARS", 50)
    count = cl100k_counter()
    for text in (korean_text(5_000, seed), korean_text(300, seed), "\ud800 lone surrogate\n" * 40,
                 "<|endoftext|>\nx" * 40, "\n\n\n가" * 30, " \n1" * 100, "a" * 600):
        assert count(text) == tiktoken_count(text)


def traced(function):
    """``function()``'s result, with the memory it holds afterwards and its peak (tracemalloc)."""
    tracemalloc.start()
    try:
        result = function()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, held, peak


@pytest.mark.parametrize(("suffix", "height"), [("csv", 20_000), ("xlsx", 8_000)])
def test_a_tall_sheet_is_held_in_about_its_text(tmp_path, suffix: str, height: int) -> None:
    from fixtures.files import make_csv, make_xlsx

    from parsers import parse

    rows = [[f"열{c}" for c in range(10)]] + [[f"값 {r}-{c}" for c in range(10)] for r in range(height)]
    path = make_csv(tmp_path / "tall.csv", rows) if suffix == "csv" else make_xlsx(tmp_path / "tall.xlsx", {"s": rows})
    doc, held, peak = traced(lambda: parse(path))
    text = sys.getsizeof(doc.text)
    print(f"{suffix}: held {held / text:.1f}x, peak {peak / text:.1f}x its text")
    assert len(doc.blocks[0].table.rows) == height + 1
    assert held < 2 * text  # cells as tuples of strings: six times the text, at a peak of eight
    assert peak < 4 * text


cells = st.text(alphabet="a|가 1-", max_size=5).map(lambda cell: " ".join(cell.split()))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.lists(cells, min_size=1, max_size=5), min_size=1, max_size=8),
       merges=st.lists(st.tuples(*[st.integers(0, 5)] * 4), max_size=3))
def test_a_packed_sheet_reads_as_the_table_of_its_cells(rows: list[list[str]], merges) -> None:
    # Cells holding "|" (a line that cannot be cut back at " | "), empty cells and rows, merges.
    from parsers.tables import SheetRows, Span, make_table, sheet_table

    kept = [row for row in rows if any(row)]
    sheet = SheetRows()
    for number, row in enumerate(kept, start=1):
        sheet.add(number, row)
    first = sheet.first_column if kept else 0
    spans = [Span(r, c, r + h, c + w) for r, c, h, w in merges]
    expected = make_table([row[first:] for row in kept], spans, normalized=True)
    if expected is None:
        assert not kept
        return
    table = sheet_table(sheet, spans)
    assert table.header_rows == expected.header_rows
    assert table.rows == expected.rows and tuple(table.rows) == expected.rows
    assert table.rows[1:3] == expected.rows[1:3] and table.rows[-1] == expected.rows[-1]
    assert table.render() == expected.render()
    assert [table.row_text(i) for i in range(len(table.rows))] == [expected.row_text(i) for i in range(len(table.rows))]


# -- the ingest's main process: vectors held a group at a time, no Python floats, a per-file cap ----

def _korean_md(path, sections: int, seed: int = 0):
    path.write_text("".join(f"## 절 {i}\n\n{korean_text(900, seed + i)}\n\n" for i in range(sections)), "utf-8")
    return path


def _bare_ingest(folder, settings, embed_calls: list[tuple[int, int]] | None = None):
    """``run_ingest`` with its steps as plain functions (no Prefect), noting (files, texts) of each
    embedding call."""
    from flows.ingest.flow import Steps, embed_outcomes, run_ingest

    def embed(outcomes, settings_, store):
        vectors, new, reused = embed_outcomes(outcomes, settings_, store)
        if embed_calls is not None:
            embed_calls.append((len(outcomes), new + reused))
        return vectors, new, reused

    return run_ingest([str(folder)], settings, Steps(embed=embed))


def _stored(db) -> list[tuple]:
    from flows.index.store import Store

    rows = Store(str(db)).rows(["chunk_id", "text", "embed_text", "vector", "passages"])
    return sorted((r["chunk_id"], r["text"], r["embed_text"], tuple(r["vector"]), tuple(map(tuple, r["passages"])))
                  for r in rows)


def test_a_batch_is_embedded_and_written_in_groups_within_the_vector_budget(tmp_path) -> None:
    from flows.settings import Settings

    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(6):
        _korean_md(docs / f"note{i}.md", 3 + i, seed=i)
    grouped: list[tuple[int, int]] = []
    report = _bare_ingest(docs, Settings(db=str(tmp_path / "a"), embedder="hashing", workers=0, batch_files=6,
                                         embed_group_vectors=60), grouped)
    assert report.failed == 0 and report.count("added") == 6
    assert len(grouped) > 1, "the batch's six files are embedded in several groups"
    assert all(texts <= 60 for files, texts in grouped if files > 1), "only a file alone goes over the budget"
    whole: list[tuple[int, int]] = []
    _bare_ingest(docs, Settings(db=str(tmp_path / "b"), embedder="hashing", workers=0, batch_files=6), whole)
    assert [files for files, _ in whole] == [6], "by default these files are one group"
    assert _stored(tmp_path / "a") == _stored(tmp_path / "b"), "the same chunks and vectors"


def test_a_file_over_the_text_limit_fails_alone_and_inspect_says_so(tmp_path, capsys) -> None:
    from flows.app.console import inspect_file
    from flows.settings import Settings

    docs = tmp_path / "docs"
    docs.mkdir()
    big = _korean_md(docs / "big.md", 30)
    _korean_md(docs / "small.md", 2)
    settings = Settings(db=str(tmp_path / "db"), embedder="hashing", workers=0, max_text_chars=10_000)
    report = _bare_ingest(docs, settings)
    by_name = {f.doc_id: f for f in report.files}
    assert by_name["small.md"].action == "added"
    assert by_name["big.md"].error_kind == "too_large"
    assert "over the limit of 10,000" in by_name["big.md"].error and "SEAMS_MAX_TEXT_CHARS" in by_name["big.md"].error
    assert inspect_file(big, settings) == 1
    assert "too_large" in capsys.readouterr().out


def _some_vectors(count: int = 2_000) -> dict:
    import numpy as np

    return {f"h{i}": np.random.default_rng(i).random(512, dtype=np.float32) for i in range(count)}


def test_caching_vectors_makes_no_python_float_per_component(tmp_path) -> None:
    from flows.index.store import Store

    store, vectors = Store(str(tmp_path / "db")), _some_vectors()
    _, _, peak = traced(lambda: store.cache.save("test", vectors))
    assert peak < 2 * sum(v.nbytes for v in vectors.values())  # as lists of Python floats: 8 times the vectors


def test_reading_cached_vectors_makes_no_python_float_per_component(tmp_path) -> None:
    import numpy as np

    from flows.index.store import Store

    store, vectors = Store(str(tmp_path / "db")), _some_vectors()
    store.cache.save("test", vectors)
    found, _, peak = traced(lambda: store.cache.vectors("test", list(vectors)))
    assert peak < 2 * sum(v.nbytes for v in vectors.values())  # through Python lists: 8 MB more a 500-row query
    assert found.keys() == vectors.keys()
    assert found["h7"].tolist() == vectors["h7"].tolist() and found["h1999"].dtype == np.float32
