"""The ``sheet`` strategy: each sheet (table) on its own, whole rows grouped up to the budget, and
the header rows repeated at the top of every chunk after the first.

The merge group is the sheet name, so rows of two sheets never share a chunk.
"""

from __future__ import annotations

from dataclasses import replace

from parsers.model import Document
from splitters.budget import make_chunk, split_chunk
from splitters.chunk import Budget, Chunk, TokenCounter


def split_sheets(doc: Document, count: TokenCounter, budget: Budget) -> list[Chunk]:
    chunks: list[Chunk] = []
    for block, (start, end) in zip(doc.blocks, doc.spans, strict=True):
        group = block.locator.sheet or ""
        whole = replace(make_chunk(doc, start, end, count), group=group)
        if block.table is None or whole.tokens <= budget.max_tokens:
            chunks.append(whole)
        else:
            chunks.extend(split_chunk(doc, whole, count, budget.max_tokens))
    return chunks
