"""The evaluation metrics pinned on hand-made cases, and checked against a brute-force oracle.

The oracle counts characters as sets; the metrics do range arithmetic the way Chroma's reference
code does. They must agree on every random case (with the reference code's one closed-range quirk
in precision-Ω written into the oracle).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flows.evaluate.metrics import (
    Span,
    document_dcg,
    document_recall,
    first_evidence_rank,
    headings_at_chunk_end,
    intersect,
    overlap_scores,
    precision_omega,
    reciprocal_rank,
    subtract,
    tables_split_without_header,
    union,
)
from parsers.model import Block, Document, Table
from splitters import Budget, split_document


def d(start: int, end: int, doc: str = "a") -> Span:
    return Span(doc, start, end)


# -- range helpers -------------------------------------------------------------------------------
def test_union_merges_overlapping_and_touching_ranges():
    assert union([(5, 8), (0, 3), (3, 4), (7, 10)]) == [(0, 4), (5, 10)]


def test_intersect_is_closed_and_subtract_keeps_the_rest():
    assert intersect((0, 10), (10, 20)) == (10, 10)  # touching: an empty intersection, not None
    assert intersect((0, 9), (10, 20)) is None
    assert subtract([(0, 10), (20, 30)], (5, 25)) == [(0, 5), (25, 30)]
    assert subtract([(0, 10)], (2, 4)) == [(0, 2), (4, 10)]


# -- Chroma's metrics ------------------------------------------------------------------------------
def test_recall_precision_iou_of_two_adjacent_chunks():
    scores = overlap_scores([d(10, 20)], [d(0, 15), d(15, 30)])
    assert scores.recall == 1.0
    assert scores.precision == pytest.approx(10 / 30)
    assert scores.iou == pytest.approx(10 / 30)
    assert scores.hit


def test_overlapping_retrieved_chunks_count_twice_in_the_denominator():
    # Both chunks hold the whole excerpt; together they span 25 characters but weigh 20 + 20.
    scores = overlap_scores([d(10, 20)], [d(0, 20), d(5, 25)])
    assert scores.recall == 1.0
    assert scores.precision == pytest.approx(10 / 40)  # not 10 / 25
    assert scores.iou == pytest.approx(10 / 40)


def test_partial_cover_and_a_chunk_of_another_document():
    scores = overlap_scores([d(0, 100)], [d(50, 150), d(0, 100, "b")])
    assert scores.recall == pytest.approx(0.5)
    assert scores.precision == pytest.approx(50 / 200)  # the other document's chunk still costs
    assert scores.iou == pytest.approx(50 / (200 + 50))  # + the 50 uncovered excerpt characters
    assert scores.uncovered == 50 and not scores.hit


def test_two_excerpts_and_nothing_retrieved():
    assert overlap_scores([d(0, 10), d(20, 30)], [d(0, 30)]).precision == pytest.approx(20 / 30)
    empty = overlap_scores([d(0, 10)], [])
    assert (empty.recall, empty.precision, empty.iou, empty.hit) == (0.0, 0.0, 0.0, False)


def test_precision_omega_takes_exactly_the_chunks_holding_excerpt_text():
    chunks = [d(0, 9), d(11, 30), d(30, 40)]
    # (11, 30) holds 9 excerpt characters; (10, 11) stays uncovered and joins the denominator.
    assert precision_omega([d(10, 20)], chunks) == pytest.approx(9 / 20)


def test_precision_omega_unions_overlapping_chunks():
    assert precision_omega([d(10, 20)], [d(0, 20), d(10, 30)]) == pytest.approx(10 / 30)


def test_precision_omega_counts_a_chunk_that_only_touches_the_excerpt():
    # The reference code's ranges are closed: (0, 10) ends where the excerpt starts, so it counts.
    assert precision_omega([d(10, 20)], [d(0, 10), d(10, 30), d(30, 40)]) == pytest.approx(10 / 30)


def test_precision_omega_ignores_other_documents_and_is_zero_without_evidence():
    assert precision_omega([d(0, 10)], [d(0, 10, "b"), d(0, 20)]) == pytest.approx(0.5)
    assert precision_omega([d(0, 10)], [d(0, 10, "b")]) == 0.0


# -- rank metrics ----------------------------------------------------------------------------------
def test_first_evidence_rank_needs_a_shared_character():
    ranked = [d(0, 10, "b"), d(0, 10), d(10, 20), d(15, 25)]
    assert first_evidence_rank([d(10, 20)], ranked) == 3  # (0, 10) only touches it
    assert first_evidence_rank([d(100, 120)], ranked) is None
    assert reciprocal_rank(3, k=5) == pytest.approx(1 / 3)
    assert reciprocal_rank(6, k=5) == 0.0
    assert reciprocal_rank(None, k=5) == 0.0


def test_document_recall_and_dcg():
    excerpts = [d(0, 5, "a"), d(0, 5, "b")]
    retrieved = [d(0, 5, "c"), d(50, 60, "a"), d(0, 5, "a"), d(0, 5, "b")]
    assert document_recall(excerpts, retrieved) == 1.0
    assert document_recall(excerpts, retrieved[:2]) == 0.5
    # a first appears at rank 2, b at rank 4; a second chunk of a gains nothing.
    assert document_dcg(excerpts, retrieved) == pytest.approx(1 / math.log2(3) + 1 / math.log2(5))


# -- against a brute-force oracle ---------------------------------------------------------------------
def _chars(spans):
    return {(s.doc_id, i) for s in spans for i in range(s.start, s.end)}


def _oracle(excerpts, retrieved):
    gold = _chars(excerpts)
    covered = gold & _chars(retrieved)
    retrieved_total = sum(s.end - s.start for s in retrieved)
    missing = len(gold - covered)
    return (len(covered) / len(gold), len(covered) / retrieved_total if retrieved_total else 0.0,
            len(covered) / (retrieved_total + missing) if retrieved_total + missing else 0.0)


def _oracle_omega(excerpts, chunks):
    holding = [c for c in chunks if any(e.doc_id == c.doc_id and c.start <= e.end and e.start <= c.end
                                        for e in excerpts)]
    if not holding:
        return 0.0
    gold = _chars(excerpts)
    taken = _chars(holding)
    return len(gold & taken) / len(taken | gold)


@st.composite
def cases(draw):
    cuts = sorted(draw(st.sets(st.integers(0, 80), min_size=2, max_size=7)))
    excerpts = [d(a, b, draw(st.sampled_from("ab"))) for a, b in zip(cuts[::2], cuts[1::2], strict=False) if b > a]
    chunk = st.tuples(st.integers(0, 79), st.integers(1, 30), st.sampled_from("ab"))
    retrieved = [d(s, min(80, s + n), doc) for s, n, doc in draw(st.lists(chunk, max_size=6))]
    return excerpts, retrieved


@settings(max_examples=300, deadline=None)
@given(cases())
def test_metrics_agree_with_character_sets(case):
    excerpts, retrieved = case
    scores = overlap_scores(excerpts, retrieved)
    recall, precision, iou = _oracle(excerpts, retrieved)
    assert scores.recall == pytest.approx(recall)
    assert scores.precision == pytest.approx(precision)
    assert scores.iou == pytest.approx(iou)
    assert precision_omega(excerpts, retrieved) == pytest.approx(_oracle_omega(excerpts, retrieved))


# -- intrinsic checks --------------------------------------------------------------------------------
def _doc_with_table() -> Document:
    rows = (("city", "people"), *((f"town {i}", str(1000 + i)) for i in range(60)))
    table = Table(rows, header_rows=1)
    return Document("t.md", "md", (Block("heading", "Towns", level=1), Block("table", table.render(), table=table)))


def test_tables_split_without_header(counter):
    doc = _doc_with_table()
    seams = split_document(doc, "section", counter, Budget(20, 120, 130))
    windows = split_document(doc, "tokens:100/0", counter, Budget())
    assert len(seams) > 1 and tables_split_without_header(doc, seams) == 0  # headers repeated
    assert tables_split_without_header(doc, windows) == len(windows) - 1


def test_headings_at_chunk_end(counter):
    doc = Document("h.md", "md", (
        Block("paragraph", "Intro text that runs on for a while."),
        Block("heading", "Second section", level=1),
        Block("paragraph", "Body of the second section."),
    ))
    glued = [split_document(doc, "none", counter, Budget())[0]]
    from splitters.pieces import make_chunk

    head_end = doc.spans[1][1]
    cut = [make_chunk(doc, 0, head_end, counter), make_chunk(doc, doc.spans[2][0], len(doc.text), counter)]
    assert headings_at_chunk_end(doc, cut) == 1
    assert headings_at_chunk_end(doc, glued) == 0
    # A header with nothing under it before the next header is a leaf item, not a glued header.
    leaf = Document("l.md", "md", (Block("paragraph", "Intro."), Block("heading", "Empty", level=1),
                                   Block("heading", "Next", level=1), Block("paragraph", "Body.")))
    first = make_chunk(leaf, 0, leaf.spans[1][1], counter)
    rest = make_chunk(leaf, leaf.spans[2][0], len(leaf.text), counter)
    assert headings_at_chunk_end(leaf, [first, rest]) == 0
