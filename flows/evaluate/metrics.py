"""Retrieval metrics on character ranges, and intrinsic checks of a chunking. All pure functions.

Chroma's metrics (recall, precision, precision-Ω, IoU) follow the reference code of the study —
``chunking_evaluation/evaluation_framework/base_evaluation.py`` and ``evaluation_utils.py`` in
brandonstarxel/chunking_evaluation — rather than its prose: they are computed on **character**
ranges of excerpts and chunks (the report speaks of tokens), so the numbers compare with the
published ones. Details that the code fixes and the prose does not:

- recall = |⋃(excerpt ∩ retrieved chunk)| / Σ|excerpt|;
- precision = the same numerator / Σ|retrieved chunk| over *all* k retrieved chunks, from any
  document: a character inside two overlapping retrieved chunks is counted twice;
- IoU = numerator / (Σ|retrieved chunk| + |excerpt characters no retrieved chunk covers|);
- precision-Ω = precision when exactly the chunks that hold excerpt text are retrieved: the
  numerator over the *union* of those chunks and the uncovered excerpt parts. Ranges are closed
  there, as in the code: a chunk that only touches an excerpt (ends where it starts) counts as
  holding it.

A :class:`Span` is ``(doc_id, start, end)``; ranges of different documents never intersect (the
study's ``corpus_id`` check). Rank metrics use strict overlap: a chunk "holds evidence" when it
shares at least one character with an excerpt.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

from parsers.model import Document
from splitters import Chunk, find_headings

Range = tuple[int, int]


@dataclass(frozen=True)
class Span:
    doc_id: str
    start: int
    end: int

    @property
    def range(self) -> Range:
        return (self.start, self.end)


@dataclass(frozen=True)
class OverlapScores:
    """Chroma's per-query scores for a list of retrieved chunks."""

    recall: float
    precision: float
    iou: float
    uncovered: int  # excerpt characters no retrieved chunk covers

    @property
    def hit(self) -> bool:
        """Excerpt hit: every excerpt character is inside the retrieved chunks."""
        return self.uncovered == 0


# -- range arithmetic (the semantics of the reference code's helpers) --------------------------------
def range_total(ranges: Sequence[Range]) -> int:
    return sum(end - start for start, end in ranges)


def union(ranges: Sequence[Range]) -> list[Range]:
    """Merge overlapping or touching ranges."""
    merged: list[Range] = []
    for start, end in sorted(ranges, key=lambda r: r[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def intersect(a: Range, b: Range) -> Range | None:
    """The common part of two ranges, closed: touching ranges give an empty range, not None."""
    start, end = max(a[0], b[0]), min(a[1], b[1])
    return (start, end) if start <= end else None


def subtract(ranges: Sequence[Range], target: Range) -> list[Range]:
    """``ranges`` without ``target``."""
    out: list[Range] = []
    t_start, t_end = target
    for start, end in ranges:
        if end < t_start or start > t_end:
            out.append((start, end))
            continue
        if start < t_start:
            out.append((start, t_start))
        if end > t_end:
            out.append((t_end, end))
    return out


# -- Chroma's metrics ----------------------------------------------------------------------------
def overlap_scores(excerpts: Sequence[Span], retrieved: Sequence[Span]) -> OverlapScores:
    """Recall, precision and IoU of the retrieved chunks (pass exactly the top k)."""
    covered: list[Range] = []
    uncovered: list[tuple[str, Range]] = [(e.doc_id, e.range) for e in excerpts]
    for chunk, common in _overlaps(excerpts, retrieved):
        uncovered = _without(uncovered, chunk.doc_id, common)
        covered = _union_by_doc(covered, chunk.doc_id, common)
    numerator = range_total([r for _, r in covered])
    excerpt_total = range_total([e.range for e in excerpts])
    retrieved_total = range_total([c.range for c in retrieved])
    missing = range_total([r for _, r in uncovered])
    return OverlapScores(
        recall=numerator / excerpt_total if excerpt_total else 0.0,
        precision=numerator / retrieved_total if retrieved_total else 0.0,
        iou=numerator / (retrieved_total + missing) if retrieved_total + missing else 0.0,
        uncovered=missing,
    )


def _overlaps(excerpts: Sequence[Span], chunks: Sequence[Span]):
    """``(chunk, shared range)`` for every chunk and excerpt of one document that share characters."""
    for chunk in chunks:
        for excerpt in excerpts:
            if excerpt.doc_id == chunk.doc_id:
                common = intersect(chunk.range, excerpt.range)
                if common is not None:
                    yield chunk, common


def _without(uncovered: list, doc_id: str, common: Range) -> list:
    """The not-yet-covered excerpt ranges, minus ``common`` in its document."""
    return [(d, r) for d, rng in uncovered for r in (subtract([rng], common) if d == doc_id else [rng])]


def _union_by_doc(covered: list, doc_id: str, common: Range) -> list:
    """Union of ranges kept per document (as ``(doc_id, range)`` pairs)."""
    same = [r for d, r in covered if d == doc_id]
    others = [(d, r) for d, r in covered if d != doc_id]
    return others + [(doc_id, r) for r in union([common, *same])]


def precision_omega(excerpts: Sequence[Span], chunks: Sequence[Span]) -> float:
    """Precision when exactly the chunks that hold excerpt text are retrieved. ``chunks`` are all
    chunks of the collection (or at least all of the excerpts' documents)."""
    docs = {e.doc_id for e in excerpts}
    numerator: list[tuple[str, Range]] = []
    holding: list[tuple[str, Range]] = []
    uncovered: list[tuple[str, Range]] = [(e.doc_id, e.range) for e in excerpts]
    found = False
    for chunk, common in _overlaps(excerpts, [c for c in chunks if c.doc_id in docs]):
        found = True
        uncovered = _without(uncovered, chunk.doc_id, common)
        numerator = _union_by_doc(numerator, chunk.doc_id, common)
        holding = _union_by_doc(holding, chunk.doc_id, chunk.range)
    if not found:
        return 0.0
    denominator = 0
    for doc_id in docs:
        denominator += range_total(union([r for d, r in holding + uncovered if d == doc_id]))
    total = range_total([r for _, r in numerator])
    return total / denominator if denominator else 0.0


# -- rank metrics ------------------------------------------------------------------------------------
def holds_evidence(chunk: Span, excerpts: Sequence[Span]) -> bool:
    """The chunk shares at least one character with an excerpt."""
    return any(e.doc_id == chunk.doc_id and max(e.start, chunk.start) < min(e.end, chunk.end) for e in excerpts)


def first_evidence_rank(excerpts: Sequence[Span], ranked: Sequence[Span]) -> int | None:
    """1-based rank of the first chunk that holds evidence, or None if none in ``ranked``."""
    for rank, chunk in enumerate(ranked, start=1):
        if holds_evidence(chunk, excerpts):
            return rank
    return None


def reciprocal_rank(rank: int | None, k: int) -> float:
    """1/rank when the first evidence is within the top k, else 0 (MRR@k averages this)."""
    return 1.0 / rank if rank is not None and rank <= k else 0.0


def document_recall(excerpts: Sequence[Span], retrieved: Sequence[Span]) -> float:
    """Share of the documents holding evidence that have at least one chunk in ``retrieved``."""
    relevant = {e.doc_id for e in excerpts}
    if not relevant:
        return 0.0
    return len(relevant & {c.doc_id for c in retrieved}) / len(relevant)


def document_dcg(excerpts: Sequence[Span], retrieved: Sequence[Span]) -> float:
    """Document-level DCG: each document holding evidence gains 1 / log2(1 + r) at the rank r of its
    first retrieved chunk (binary relevance; one gain per document)."""
    relevant = {e.doc_id for e in excerpts}
    seen: set[str] = set()
    total = 0.0
    for rank, chunk in enumerate(retrieved, start=1):
        if chunk.doc_id in relevant and chunk.doc_id not in seen:
            seen.add(chunk.doc_id)
            total += 1.0 / math.log2(1 + rank)
    return total


# -- containment (chunks known by their text only: peers) -------------------------------------------
def fold(text: str) -> str:
    """Letters and digits only, case-folded: what containment compares, so that a table rendered
    with tabs instead of `` | `` or a number without its thousands separator still holds the
    evidence. (Evidence strings are sentences or table rows, long enough not to match by chance.)"""
    return "".join(c for c in text.casefold() if c.isalnum())


def fold_spaces(text: str) -> str:
    """Whitespace runs as one space: the strict comparison (the text kept as it was written)."""
    return " ".join(text.split())


#: A table row's evidence (``a | b | c``) is held when its cells appear in order within this many
#: folded characters per character of the row (plus a margin): a peer may render the row with its
#: column names (``Region: EUR, Sales: 9467``), which plain containment would count as lost.
ROW_SPREAD, ROW_MARGIN = 3, 200


def pattern(evidence: str) -> tuple[str, ...]:
    """What containment looks for: the folded evidence, or for a table row its folded cells."""
    if " | " not in evidence:
        return (fold(evidence),)
    return tuple(cell for cell in (fold(c) for c in evidence.split("|")) if cell)


def holds(text: str, wanted: tuple[str, ...]) -> bool:
    """The (folded) text holds the pattern: the evidence whole, or a row's cells in order, close together."""
    if not wanted or not all(wanted):
        return False
    if len(wanted) == 1:
        return wanted[0] in text
    limit = ROW_SPREAD * sum(len(c) for c in wanted) + ROW_MARGIN
    start = text.find(wanted[0])
    while start != -1:
        position, ok = start + len(wanted[0]), True
        for cell in wanted[1:]:
            position = text.find(cell, position, start + limit)
            if position == -1:
                ok = False
                break
            position += len(cell)
        if ok:
            return True
        start = text.find(wanted[0], start + 1)
    return False


def held(evidence: Sequence[tuple[str, ...]], texts: Sequence[str]) -> list[bool]:
    """For each evidence pattern (:func:`pattern`), whether one of the (folded) texts holds it."""
    return [any(holds(t, e) for t in texts) for e in evidence]


def first_holding_rank(evidence: Sequence[tuple[str, ...]], texts: Sequence[str]) -> int | None:
    """1-based rank of the first (folded) text holding any evidence pattern, or None."""
    for rank, text in enumerate(texts, start=1):
        if any(holds(text, e) for e in evidence):
            return rank
    return None


# -- intrinsic checks --------------------------------------------------------------------------------
def tables_split_without_header(doc: Document, chunks: Sequence[Chunk]) -> int:
    """Chunks that start inside a table, past its header rows, without repeating the header."""
    count = 0
    tables = [(span, block.table) for block, span in zip(doc.blocks, doc.spans, strict=True)
              if block.kind == "table" and block.table is not None and block.table.header_rows > 0]
    for chunk in chunks:
        if chunk.header:
            continue
        for (b_start, b_end), table in tables:
            body_start = b_start + sum(len(table.row_text(i)) + 1 for i in range(min(table.header_rows, len(table.rows)))) - 1
            if body_start < chunk.start < b_end:
                count += 1
                break
    return count


def headings_at_chunk_end(doc: Document, chunks: Sequence[Chunk]) -> int:
    """Chunks whose last line is a section header whose body lies in a later chunk: the header is
    glued to the end of the previous section instead of opening its own. A header line with no
    body before the next header (a leaf ``-`` or ``○`` item of a Korean report) does not count."""
    text = doc.text
    headings = sorted(h.offset for h in find_headings(doc))
    if not headings:
        return 0
    count = 0
    for chunk in chunks:
        first = bisect.bisect_right(headings, chunk.start)
        for index in range(first, len(headings)):
            offset = headings[index]
            if offset >= chunk.end:
                break
            line_end = text.find("\n", offset, chunk.end)
            if line_end != -1 and text[line_end:chunk.end].strip():
                continue  # the header's body starts inside this chunk
            following = headings[index + 1] if index + 1 < len(headings) else len(text)
            if text[max(line_end, chunk.end):following].strip():
                count += 1
            break
    return count
