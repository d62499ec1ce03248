"""The ``sheet`` strategy: each sheet (table) on its own — whole when it fits the max, else whole rows
grouped up to the pack size — and the header rows repeated at the top of every chunk after the first.
A row too wide for the pack size with its header is cut into column groups that repeat only their
own columns' header cells (see :mod:`splitters.columns`).

The merge group is the sheet name, so rows of two sheets never share a chunk.
"""

from __future__ import annotations

from parsers.model import Document
from splitters.budget import keep_headers_with_next, split_chunk, split_span
from splitters.chunk import Budget, Chunk, TokenCounter, cl100k_floor, counts_cl100k
from splitters.outline import Outline
from splitters.pieces import make_chunk


def split_sheets(doc: Document, count: TokenCounter, budget: Budget) -> list[Chunk]:
    outline = Outline.build(doc)
    units: list[Chunk] = []
    for block, (start, end) in zip(doc.blocks, doc.spans, strict=True):
        text = doc.text[start:end]
        if not text.strip():
            continue
        group = block.locator.sheet or ""
        if block.table is not None and counts_cl100k(count) and cl100k_floor(text) > budget.max_tokens:
            # Over the max whatever its exact count (a tall sheet): cut into rows without tokenising
            # the whole table first. Its pieces are what split_chunk makes of it.
            pieces = split_span(doc, start, end, count, budget.pack_tokens, outline, budget.merge_ceiling,
                                group=group)
            if pieces is not None:
                units.extend(pieces)
                continue
        whole = make_chunk(doc, start, end, count, group=group)
        if block.table is None or whole.tokens <= budget.max_tokens:
            units.append(whole)
        else:
            units.extend(split_chunk(doc, whole, count, budget.pack_tokens, outline, budget.merge_ceiling))
    return keep_headers_with_next(doc, units, count, outline)
