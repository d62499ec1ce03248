"""Splitters: one function per strategy, all ``(Document, count_tokens, Budget) -> list[Chunk]``.

Document-aware strategies produce units at the document's own boundaries; :func:`fit_to_budget`
then splits what is over the max and merges what is under the min. Fixed-size baselines (for the
evaluation, or forced with ``--strategy tokens:250/125``) skip that step, as do the embedding-driven
cuts ``semantic:MAX`` and ``cluster:MAX`` (:mod:`splitters.semantic`), which need the caller's
embedding function. ``split_document`` runs
the right sequence for a strategy name. Pure: no files, no settings, no prefect, no lancedb.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from parsers.model import Document
from splitters.adaptive import ADAPTIVE, Candidate, candidates_for, choose
from splitters.baselines import no_chunking, recursive_windows, token_windows
from splitters.budget import RowSpans, block_starts, fit_to_budget, locate
from splitters.chunk import Budget, Chunk, TokenCounter, cl100k, cl100k_counter
from splitters.labels import label_rows
from splitters.section import find_headings, split_sections
from splitters.semantic import Embed, split_cluster, split_semantic
from splitters.sheet import split_sheets
from splitters.structure import split_general, split_pages, split_slides, split_whole

Splitter = Callable[[Document, TokenCounter, Budget], list[Chunk]]


@dataclass(frozen=True)
class Strategy:
    name: str
    split: Splitter
    document_aware: bool  # True: the budget step (split/merge) runs after it
    embeds: bool = False  # True: ``split`` takes an embedding function too (``embed=``)


#: Document-aware strategies by name (the classifier chooses among these).
STRATEGIES: dict[str, Strategy] = {
    "page": Strategy("page", split_pages, True),
    "section": Strategy("section", split_sections, True),
    "sheet": Strategy("sheet", split_sheets, True),
    "slide": Strategy("slide", split_slides, True),
    "whole": Strategy("whole", split_whole, True),
    "general": Strategy("general", split_general, True),
}
_BASELINE = re.compile(r"^(tokens|recursive):(\d+)(?:/(\d+))?$")
_SEMANTIC = re.compile(r"^(semantic|cluster):(\d+)$")
#: Tokens a semantic chunk may have when ``semantic`` or ``cluster`` is named without a size.
SEMANTIC_SIZES = {"semantic": 800, "cluster": 400}
BASELINE_HELP = ("tokens:SIZE/OVERLAP, recursive:SIZE/OVERLAP, none, or the embedding-driven "
                 "semantic:MAX and cluster:MAX")


def get_strategy(name: str) -> Strategy:
    """A strategy by name; baselines are parametrised: ``tokens:250/125``, ``recursive:200/0``, ``none``."""
    if name in STRATEGIES:
        return STRATEGIES[name]
    if name == "none":
        return Strategy("none", no_chunking, False)
    if name == ADAPTIVE:
        return Strategy(ADAPTIVE, _adaptive, False, embeds=True)
    if name in SEMANTIC_SIZES:
        name = f"{name}:{SEMANTIC_SIZES[name]}"
    semantic = _SEMANTIC.match(name)
    if semantic:
        kind, size = semantic.group(1), int(semantic.group(2))
        if size < 50:
            raise ValueError(f"{name!r}: MAX is at least 50 tokens (the pieces it groups are up to 50)")
        function = split_semantic if kind == "semantic" else split_cluster
        return Strategy(f"{kind}:{size}", partial(function, size=size), False, embeds=True)
    match = _BASELINE.match(name)
    if match:
        kind, size, overlap = match.group(1), int(match.group(2)), int(match.group(3) or 0)
        if size <= 0 or not 0 <= overlap < size:
            raise ValueError(f"{name!r}: need SIZE > 0 and 0 <= OVERLAP < SIZE")
        function = token_windows if kind == "tokens" else recursive_windows
        return Strategy(f"{kind}:{size}/{overlap}", partial(function, size=size, overlap=overlap), False)
    known = ", ".join(sorted([*STRATEGIES, ADAPTIVE]))
    raise ValueError(f"unknown strategy {name!r}; known: {known}, or {BASELINE_HELP}")


def split_document(doc: Document, strategy: str, count: TokenCounter, budget: Budget,
                   labels: bool = True, embed: Embed | None = None) -> list[Chunk]:
    """Cut a document with a named strategy, then fit the chunks to the budget when it applies;
    ``labels``: also write each chunk's table rows with their columns' labels (:attr:`Chunk.index_text`,
    :func:`splitters.labels.label_rows`), which only a caller that indexes them needs; ``embed``: the
    embedding function the ``semantic`` and ``cluster`` strategies need."""
    chosen = get_strategy(strategy)
    if chosen.name == ADAPTIVE:
        if embed is None:
            raise ValueError("strategy adaptive needs an embedding function (embed=)")
        return list(cut_adaptive(doc, count, budget, embed, "general", labels)[0].chunks)
    if chosen.embeds:
        if embed is None:
            raise ValueError(f"strategy {chosen.name} needs an embedding function (embed=)")
        chunks = chosen.split(doc, count, budget, embed=embed)
    else:
        chunks = chosen.split(doc, count, budget)
    if chosen.document_aware:
        fitted = fit_to_budget(doc, chunks, count, budget)
        return label_rows(doc, fitted) if labels else fitted
    starts = block_starts(doc)
    rows: RowSpans = {}
    return [locate(doc, chunk, starts, rows) for chunk in chunks]


def cut_adaptive(doc: Document, count: TokenCounter, budget: Budget, embed: Embed, first: str,
                 labels: bool = True) -> tuple[Candidate, tuple[Candidate, ...]]:
    """The ``adaptive`` strategy (:mod:`splitters.adaptive`): the document cut with ``first`` (the
    classifier's choice) and the other candidates, each scored by the intrinsic measures. Returns
    (the winner, every candidate scored)."""
    strategies = candidates_for(first, budget)
    return choose(doc, count, budget, embed, strategies,
                  lambda name: split_document(doc, name, count, budget, labels, embed))


def _adaptive(doc: Document, count: TokenCounter, budget: Budget, embed: Embed) -> list[Chunk]:
    return list(cut_adaptive(doc, count, budget, embed, "general", False)[0].chunks)


__all__ = [
    "ADAPTIVE", "STRATEGIES", "Budget", "Candidate", "Chunk", "Embed", "Strategy", "TokenCounter", "cl100k",
    "cl100k_counter", "cut_adaptive", "find_headings", "fit_to_budget", "get_strategy", "split_document",
]
