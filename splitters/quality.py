"""Intrinsic measures of a document's cut, as the "Adaptive Chunking" study (Ekimetrics, LREC 2026)
defines them; no questions needed, so they can choose a cut per document.

- **size compliance**: the share of chunks within ``[min, max]`` tokens (a document shorter than the
  min may be one short chunk);
- **block integrity**: the share of the document's units that some chunk holds whole — tables, lists
  (runs of list items) and headings with the block after them; units longer than the max count only
  if kept whole (none can be, so they are left out);
- **intrachunk cohesion**: the mean cosine similarity of a chunk's pieces (about 50 tokens each, the
  pieces :mod:`splitters.semantic` cuts) with the chunk's own vector, averaged over chunks;
- **contextual coherence**: the mean cosine similarity of a chunk's vector with the vector of the
  text around it (:data:`CONTEXT_PIECES` pieces on each side, the chunk included);
- **references completeness** (pronouns kept with what they refer to) needs a coreference model;
  none runs offline here, so it is not measured.

A chunk's vector is the normalised mean of its pieces' vectors (each piece belongs to the chunks
that hold its midpoint), so every cut of a document is scored with the same embeddings, computed
once. Pure: vectors come in as arrays.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from parsers.model import Document
from splitters.chunk import Chunk, TokenCounter

#: Pieces on either side of a chunk that make its context (about 1,000 tokens each side).
CONTEXT_PIECES = 20


@dataclass(frozen=True)
class Quality:
    size_compliance: float
    block_integrity: float | None  # None: the document has no tables, lists or headings
    cohesion: float | None  # None: not measured (no embeddings)
    coherence: float | None

    @property
    def score(self) -> float:
        """The mean of the measures there are (the study's selection score)."""
        values = [v for v in (self.size_compliance, self.block_integrity, self.cohesion, self.coherence)
                  if v is not None]
        return sum(values) / len(values)

    def describe(self) -> str:
        def show(value: float | None) -> str:
            return "–" if value is None else f"{100 * value:.0f}"
        return (f"{100 * self.score:.1f} (size {show(self.size_compliance)}, blocks {show(self.block_integrity)}, "
                f"cohesion {show(self.cohesion)}, coherence {show(self.coherence)})")


def size_compliance(chunks: Sequence[Chunk], minimum: int, maximum: int | None) -> float:
    if not chunks:
        return 0.0
    alone = len(chunks) == 1
    ok = sum((c.tokens >= minimum or alone) and (maximum is None or c.tokens <= maximum) for c in chunks)
    return ok / len(chunks)


def block_units(doc: Document) -> list[tuple[int, int]]:
    """Spans that a good cut keeps whole: tables, lists, and each heading with the block after it."""
    units: list[tuple[int, int]] = []
    blocks, spans = doc.blocks, doc.spans
    index = 0
    while index < len(blocks):
        kind = blocks[index].kind
        if kind == "table":
            units.append(spans[index])
        elif kind == "list_item":
            last = index
            while last + 1 < len(blocks) and blocks[last + 1].kind == "list_item":
                last += 1
            if last > index:
                units.append((spans[index][0], spans[last][1]))
            index = last
        elif kind in ("heading", "title") and index + 1 < len(blocks) and \
                blocks[index + 1].kind not in ("heading", "title", "furniture"):
            units.append((spans[index][0], spans[index + 1][1]))
        index += 1
    return units


def block_integrity(doc: Document, chunks: Sequence[Chunk], count: TokenCounter, maximum: int | None,
                    units: Sequence[tuple[int, int]] | None = None) -> float | None:
    units = block_units(doc) if units is None else units
    starts = sorted((c.start, c.end) for c in chunks)
    keys = [s for s, _ in starts]
    fits, whole = 0, 0
    for start, end in units:
        # any chunk starting at or before the unit and ending at or after it
        held = any(e >= end for _, e in starts[:bisect.bisect_right(keys, start)][-8:])
        if held:
            whole += 1
        if held or maximum is None or count(doc.text[start:end]) <= maximum:
            fits += 1
    return whole / fits if fits else None


def embedding_measures(spans: Sequence[tuple[int, int]], vectors: np.ndarray,
                       chunks: Sequence[Chunk]) -> tuple[float | None, float | None]:
    """(intrachunk cohesion, contextual coherence) from the pieces' unit vectors."""
    if not chunks or not len(spans):
        return None, None
    middles = [(s + e) // 2 for s, e in spans]
    cohesion, coherence = [], []
    for chunk in chunks:
        first = bisect.bisect_left(middles, chunk.start)
        stop = bisect.bisect_left(middles, chunk.end)
        if stop <= first:  # a chunk smaller than a piece: the piece it lies in
            first = max(0, min(len(spans) - 1, bisect.bisect_right(middles, chunk.start) - 1))
            stop = first + 1
        own = _unit(vectors[first:stop].sum(axis=0))
        cohesion.append(float(np.mean(vectors[first:stop] @ own)))
        around = _unit(vectors[max(0, first - CONTEXT_PIECES):stop + CONTEXT_PIECES].sum(axis=0))
        coherence.append(float(own @ around))
    return float(np.mean(cohesion)), float(np.mean(coherence))


def measure(doc: Document, chunks: Sequence[Chunk], count: TokenCounter, minimum: int, maximum: int | None,
            spans: Sequence[tuple[int, int]] = (), vectors: np.ndarray | None = None) -> Quality:
    """The intrinsic measures of one document's cut; without ``vectors``, cohesion and coherence are None."""
    cohesion, coherence = (None, None) if vectors is None else embedding_measures(spans, vectors, chunks)
    return Quality(size_compliance(chunks, minimum, maximum), block_integrity(doc, chunks, count, maximum),
                   cohesion, coherence)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector
