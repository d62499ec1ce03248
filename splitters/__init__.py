"""Splitters: one function per strategy, all ``(Document, count_tokens, Budget) -> list[Chunk]``.

Document-aware strategies produce units at the document's own boundaries; :func:`fit_to_budget`
then splits what is over the max and merges what is under the min. Fixed-size baselines (for the
evaluation, or forced with ``--strategy tokens:250/125``) skip that step. ``split_document`` runs
the right sequence for a strategy name. Pure: no files, no settings, no prefect, no lancedb.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from parsers.model import Document
from splitters.baselines import no_chunking, recursive_windows, token_windows
from splitters.budget import RowSpans, block_starts, fit_to_budget, locate
from splitters.chunk import Budget, Chunk, TokenCounter, cl100k, cl100k_counter
from splitters.labels import label_rows
from splitters.section import find_headings, split_sections
from splitters.sheet import split_sheets
from splitters.structure import split_general, split_pages, split_slides, split_whole

Splitter = Callable[[Document, TokenCounter, Budget], list[Chunk]]


@dataclass(frozen=True)
class Strategy:
    name: str
    split: Splitter
    document_aware: bool  # True: the budget step (split/merge) runs after it


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
BASELINE_HELP = "tokens:SIZE/OVERLAP, recursive:SIZE/OVERLAP or none"


def get_strategy(name: str) -> Strategy:
    """A strategy by name; baselines are parametrised: ``tokens:250/125``, ``recursive:200/0``, ``none``."""
    if name in STRATEGIES:
        return STRATEGIES[name]
    if name == "none":
        return Strategy("none", no_chunking, False)
    match = _BASELINE.match(name)
    if match:
        kind, size, overlap = match.group(1), int(match.group(2)), int(match.group(3) or 0)
        if size <= 0 or not 0 <= overlap < size:
            raise ValueError(f"{name!r}: need SIZE > 0 and 0 <= OVERLAP < SIZE")
        function = token_windows if kind == "tokens" else recursive_windows
        return Strategy(f"{kind}:{size}/{overlap}", partial(function, size=size, overlap=overlap), False)
    known = ", ".join(sorted(STRATEGIES))
    raise ValueError(f"unknown strategy {name!r}; known: {known}, or {BASELINE_HELP}")


def split_document(doc: Document, strategy: str, count: TokenCounter, budget: Budget,
                   labels: bool = True) -> list[Chunk]:
    """Cut a document with a named strategy, then fit the chunks to the budget when it applies;
    ``labels``: also write each chunk's table rows with their columns' labels (:attr:`Chunk.index_text`,
    :func:`splitters.labels.label_rows`), which only a caller that indexes them needs."""
    chosen = get_strategy(strategy)
    chunks = chosen.split(doc, count, budget)
    if chosen.document_aware:
        fitted = fit_to_budget(doc, chunks, count, budget)
        return label_rows(doc, fitted) if labels else fitted
    starts = block_starts(doc)
    rows: RowSpans = {}
    return [locate(doc, chunk, starts, rows) for chunk in chunks]


__all__ = [
    "STRATEGIES", "Budget", "Chunk", "Strategy", "TokenCounter", "cl100k", "cl100k_counter",
    "find_headings", "fit_to_budget", "get_strategy", "split_document",
]
