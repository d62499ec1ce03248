"""Strategies that follow the file's own units: ``page``, ``slide``, ``whole`` and ``general``.

- page: one page a unit (PDF), small pages merge with their neighbours afterwards;
- slide: one slide a unit (title, body, tables and notes together);
- whole: the whole document is one unit (the budget step splits it if it is too long);
- general: one block (paragraph, list item, table) a unit, for text with no other structure.
"""

from __future__ import annotations

from parsers.model import Document
from splitters.budget import block_units, make_chunk
from splitters.chunk import Budget, Chunk, TokenCounter


def split_pages(doc: Document, count: TokenCounter, budget: Budget) -> list[Chunk]:
    return block_units(doc, count, key=lambda block: block.locator.page)


def split_slides(doc: Document, count: TokenCounter, budget: Budget) -> list[Chunk]:
    return block_units(doc, count, key=lambda block: block.locator.slide)


def split_whole(doc: Document, count: TokenCounter, budget: Budget) -> list[Chunk]:
    return [make_chunk(doc, 0, len(doc.text), count)]


def split_general(doc: Document, count: TokenCounter, budget: Budget) -> list[Chunk]:
    return [make_chunk(doc, s, e, count) for s, e in doc.spans if e > s]
