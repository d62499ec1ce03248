"""Embedding-driven cuts from the studies seams grew from; they skip the budget step, like the baselines.

- ``cluster:MAX`` — Chroma's ClusterSemanticChunker: the text is cut into pieces of at most 50
  cl100k tokens (recursive splitting on paragraph, line, sentence end, space), each piece embedded,
  and dynamic programming picks the runs of at most ``MAX // 50`` consecutive pieces that maximise
  the summed pairwise similarity inside each run (similarities less their mean, so unrelated pieces
  cost). One change from Chroma's code: its table starts every position's best score at 0, so when
  every run ending at a position scores below 0 the piece silently joins everything since the
  document's start (an over-long chunk); here each position's best starts at minus infinity.
- ``semantic:MAX`` — Kamradt's semantic chunker: each piece embedded with one neighbour on either
  side, a cut wherever the cosine distance between consecutive groups is above the 95th percentile
  of the document's distances; a stretch still over ``MAX`` tokens is cut again at its largest jump.

Both take the embedding function as an argument (:data:`Embed`, texts -> one row per text): the
caller owns the model and its cache. Pure: no files, no settings, no model loading here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from parsers.model import Document
from splitters.baselines import recursive_windows
from splitters.chunk import Budget, Chunk, TokenCounter
from splitters.pieces import make_chunk

#: texts -> an array with one embedding per text (any scale: rows are normalised here).
Embed = Callable[[Sequence[str]], np.ndarray]

#: Tokens per piece, as Chroma's study (its ``min_chunk_size``).
PIECE_TOKENS = 50
#: Kamradt's breakpoint: distances above this percentile of the document's are cuts.
BREAKPOINT_PERCENTILE = 95.0


def piece_spans(doc: Document, count: TokenCounter, size: int = PIECE_TOKENS) -> list[tuple[int, int]]:
    """The document cut into pieces of at most ``size`` tokens, as character spans."""
    return [(c.start, c.end) for c in recursive_windows(doc, count, Budget(), size=size)]


def piece_vectors(doc: Document, spans: Sequence[tuple[int, int]], embed: Embed) -> np.ndarray:
    """Unit-length embeddings of the pieces (zero rows stay zero)."""
    if not spans:
        return np.zeros((0, 1), dtype=np.float32)
    vectors = np.asarray(embed([doc.text[s:e] for s, e in spans]), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def split_cluster(doc: Document, count: TokenCounter, budget: Budget, embed: Embed, size: int = 400) -> list[Chunk]:
    spans = piece_spans(doc, count)
    if len(spans) <= 1:
        return [make_chunk(doc, s, e, count) for s, e in spans]
    runs = cluster_runs(piece_vectors(doc, spans, embed), max(1, size // PIECE_TOKENS))
    return [make_chunk(doc, spans[first][0], spans[last][1], count) for first, last in runs]


def cluster_runs(vectors: np.ndarray, longest: int) -> list[tuple[int, int]]:
    """Runs ``(first, last)`` of at most ``longest`` pieces covering all pieces in order, maximising
    the sum over runs of the pairwise similarities inside each run, less the mean similarity of all
    pairs. Only similarities within ``longest`` pieces of each other are computed (a long document's
    full matrix would not fit in memory); the mean of all pairs comes from the vectors' sum."""
    n = len(vectors)
    total = vectors.sum(axis=0, dtype=np.float64)
    mean = float((total @ total - np.sum(vectors.astype(np.float64) ** 2)) / (n * (n - 1))) if n > 1 else 0.0
    best = np.full(n + 1, -np.inf)
    best[0] = 0.0
    start = np.zeros(n + 1, dtype=np.int64)
    rewards = np.zeros(0)  # rewards[l-1]: the run of the l pieces ending at the previous piece
    for end in range(1, n + 1):  # runs [first, end)
        span = min(longest, end)
        last = vectors[end - 1]
        # similarity of the new last piece with each of the span-1 pieces before it, less the mean
        added = (vectors[end - span:end - 1] @ last).astype(np.float64) - mean
        gained = 2.0 * np.cumsum(added[::-1])  # gained[l-2]: the new pairs of a run of l pieces
        rewards = np.concatenate(([0.0], rewards[:span - 1] + gained))
        firsts = end - np.arange(1, span + 1)
        totals = best[firsts] + rewards
        pick = int(np.argmax(totals))
        best[end], start[end] = totals[pick], firsts[pick]
    runs = []
    end = n
    while end > 0:
        runs.append((int(start[end]), end - 1))
        end = int(start[end])
    return runs[::-1]


def split_semantic(doc: Document, count: TokenCounter, budget: Budget, embed: Embed, size: int = 800) -> list[Chunk]:
    spans = piece_spans(doc, count)
    if len(spans) <= 1:
        return [make_chunk(doc, s, e, count) for s, e in spans]
    # Each piece with its neighbours (Kamradt's buffer of 1), so one short sentence does not decide a cut.
    groups = [(spans[max(0, i - 1)][0], spans[min(len(spans) - 1, i + 1)][1]) for i in range(len(spans))]
    vectors = piece_vectors(doc, groups, embed)
    distances = 1.0 - np.sum(vectors[:-1] * vectors[1:], axis=1)  # distances[i]: between piece i and i+1
    threshold = float(np.percentile(distances, BREAKPOINT_PERCENTILE))
    cuts = [i + 1 for i, d in enumerate(distances) if d > threshold]
    stretches = list(zip([0, *cuts], [*cuts, len(spans)], strict=True))
    chunks = []
    for first, stop in stretches:
        for a, b in _within(doc, spans, distances, first, stop, count, size):
            chunks.append(make_chunk(doc, spans[a][0], spans[b - 1][1], count))
    return chunks


def _within(doc: Document, spans: Sequence[tuple[int, int]], distances: np.ndarray, first: int, stop: int,
            count: TokenCounter, size: int) -> list[tuple[int, int]]:
    """Pieces ``first:stop`` as runs of at most ``size`` tokens, cut at their largest jumps."""
    if stop - first <= 1 or count(doc.text[spans[first][0]:spans[stop - 1][1]]) <= size:
        return [(first, stop)]
    inner = distances[first:stop - 1]  # between piece first+j and first+j+1
    cut = first + 1 + int(np.argmax(inner))
    return (_within(doc, spans, distances, first, cut, count, size)
            + _within(doc, spans, distances, cut, stop, count, size))
