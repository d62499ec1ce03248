"""The ``adaptive`` strategy: cut a document several ways and keep the cut the intrinsic measures
(:mod:`splitters.quality`) score best, as the "Adaptive Chunking" study selects per document.

The candidates are the classifier's choice (the caller passes it), ``section``, ``page``, ``general``
and the embedding-driven ``semantic`` and ``cluster`` cuts at the budget's pack size. Every candidate
is scored with the same piece embeddings (computed once per document); the highest mean of size
compliance, block integrity, cohesion and coherence wins, the earlier candidate on a tie (the
classifier's choice first). Pure: the caller gives the cutting and embedding functions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from parsers.model import Document
from splitters.chunk import Budget, Chunk, TokenCounter
from splitters.quality import Quality, measure
from splitters.semantic import Embed, piece_spans, piece_vectors

ADAPTIVE = "adaptive"
#: The structural candidates beside the classifier's choice.
STRUCTURAL = ("section", "page", "general")


@dataclass(frozen=True)
class Candidate:
    strategy: str
    chunks: tuple[Chunk, ...]
    quality: Quality


def candidates_for(first: str, budget: Budget) -> tuple[str, ...]:
    """The strategies to try, ``first`` (the classifier's choice) first, without duplicates."""
    size = max(50, budget.pack_tokens)
    names = (first, *STRUCTURAL, f"semantic:{size}", f"cluster:{size}")
    return tuple(dict.fromkeys(n for n in names if n != ADAPTIVE))


def choose(doc: Document, count: TokenCounter, budget: Budget, embed: Embed, strategies: Sequence[str],
           cut: Callable[[str], list[Chunk]]) -> tuple[Candidate, tuple[Candidate, ...]]:
    """(the winner, every candidate scored) among ``strategies``, each cut with ``cut(name)``. A
    candidate that fails to cut the document (a ValueError) or cuts nothing is left out."""
    spans = piece_spans(doc, count)
    vectors = piece_vectors(doc, spans, embed) if spans else None
    scored: list[Candidate] = []
    for name in strategies:
        try:
            chunks = cut(name)
        except ValueError:
            continue
        if not chunks:
            continue
        quality = measure(doc, chunks, count, budget.min_tokens, budget.merge_ceiling, spans, vectors)
        scored.append(Candidate(name, tuple(chunks), quality))
    if not scored:
        raise ValueError(f"no candidate strategy could cut the document ({', '.join(strategies)})")
    winner = max(scored, key=lambda c: c.quality.score)  # max keeps the first of equals
    return winner, tuple(scored)


def explain(winner: Candidate, scored: Sequence[Candidate]) -> str:
    """One line: which cut won and by how much, then every candidate's scores, best first."""
    ranked = sorted(scored, key=lambda c: -c.quality.score)  # stable: equals keep the candidates' order
    others = [c for c in ranked if c.strategy != winner.strategy]
    if not others:
        lead = "the only cut"
    else:
        margin = 100 * (winner.quality.score - others[0].quality.score)
        lead = (f"ties with {others[0].strategy} and comes first among the candidates" if margin < 0.05 else
                f"{margin:.1f} points ahead of {others[0].strategy}")
    parts = [f"{c.strategy} {c.quality.describe()}" for c in ranked]
    return (f"{winner.strategy} has the best mean of the intrinsic measures ({lead}); "
            f"{len(scored)} cuts: " + "; ".join(parts))
