"""Strategies that follow the file's own units: ``page``, ``slide``, ``whole`` and ``general``.

- page: one page a unit (PDF); a header at the foot of a page moves to the next page's unit, where
  its body is; small pages merge with their neighbours afterwards;
- slide: one slide a unit (title, body, tables and notes together); a slide is never re-cut at a
  header, so nothing moves between slides;
- whole: the whole document is one unit (the budget step splits it if it is too long);
- general: for text with no other structure, its blocks (paragraphs, list items, tables) packed in
  order up to the pack size, each whole; a heading block joins the unit after it.
"""

from __future__ import annotations

from parsers.model import Document
from splitters.budget import block_units, keep_headers_with_next, pack_units
from splitters.chunk import Budget, Chunk, TokenCounter
from splitters.outline import Outline
from splitters.pieces import make_chunk


def split_pages(doc: Document, count: TokenCounter, budget: Budget) -> list[Chunk]:
    units = block_units(doc, count, key=lambda block: block.locator.page)
    return keep_headers_with_next(doc, units, count, Outline.build(doc))


def split_slides(doc: Document, count: TokenCounter, budget: Budget) -> list[Chunk]:
    return block_units(doc, count, key=lambda block: block.locator.slide)


def split_whole(doc: Document, count: TokenCounter, budget: Budget) -> list[Chunk]:
    return [make_chunk(doc, 0, len(doc.text), count)]


def split_general(doc: Document, count: TokenCounter, budget: Budget) -> list[Chunk]:
    units = [make_chunk(doc, s, e, count) for s, e in doc.spans if doc.text[s:e].strip()]
    outline = Outline.build(doc)
    units = keep_headers_with_next(doc, units, count, outline)
    # A pack is cut, where it can be, before a title line that opens what follows it.
    return pack_units(doc, units, count, budget.pack_tokens, opens=frozenset(outline.glue_ends.values()))
