"""The ``section`` strategy: cut before section headers, keep each header with its body.

Headers and their depth come from :func:`classifiers.headings.find_headings` (declared heading
blocks and the line grammar). A section runs from its header to the next header; a header that
folds (a bare title right before a deeper header, such as a chapter before its first article) opens
the section that follows instead of standing alone, so no unit ever ends with a dangling header.
Every unit carries its heading path; its merge group is its top-level section, so small sections
merge with their neighbours inside it. A top-level section that is one unit within the max (a short
article of a regulation that has no chapters, one item of a flat outline, the preamble) is pooled
with the like sections beside it: a short one then joins a neighbour, each kept whole, instead of
standing alone under the min. A section that holds several units or has to be split keeps its
pieces to itself, so a chunk that mixes top-level sections holds each of them whole.
"""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import replace

from classifiers.headings import Heading, find_headings
from parsers.model import Document
from splitters.budget import make_chunk, trim
from splitters.chunk import Budget, Chunk, TokenCounter
from splitters.outline import Outline


def section_starts(outline: Outline) -> list[tuple[int, int | None]]:
    """Where units start, each with the header that opens it (``None``: the preamble). A unit starts
    at every header not folded into by the one before it, or at the furniture right before that
    header (a page number between two sections goes with the one after it: it cannot be left
    alone at the end of a section that has to be split)."""
    starts: list[tuple[int, int | None]] = [
        (_before_furniture(outline, heading.offset), heading.offset) for index, heading in enumerate(outline.headings)
        if index == 0 or not outline.folds[index - 1]
    ]
    if starts and outline.has_content(0, starts[0][0]):
        starts.insert(0, (0, None))
    elif starts:
        starts[0] = (0, starts[0][1])  # a preamble of furniture only (a running header) rides along
    return starts


def _before_furniture(outline: Outline, offset: int) -> int:
    block = bisect.bisect_right(outline.block_starts, offset) - 1
    while block > 0 and outline.block_starts[block] == offset and outline.furniture[block - 1]:
        block -= 1
        offset = outline.block_starts[block]
    return offset


def split_sections(doc: Document, count: TokenCounter, budget: Budget) -> list[Chunk]:
    outline = Outline.build(doc)
    starts = section_starts(outline)
    if not starts:
        return [make_chunk(doc, 0, len(doc.text), count)]
    chunks = []
    for index, (start, header) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(doc.text)
        s, e = trim(doc, start, end)
        if e > s:
            group = outline.group_of(header) if header is not None else ""
            chunks.append(make_chunk(doc, s, e, count, heading_path=outline.path_of(s, e), group=group))
    return pool_whole_sections(chunks, budget.max_tokens)


def pool_whole_sections(units: list[Chunk], max_tokens: int) -> list[Chunk]:
    """Give each run of consecutive top-level sections that are one unit within ``max_tokens`` one
    merge group (named after where the run starts)."""
    units_in = Counter(unit.group for unit in units)
    pooled: list[Chunk] = []
    run: str | None = None
    for unit in units:
        if units_in[unit.group] == 1 and unit.tokens <= max_tokens:
            run = run or f"sections@{unit.start}"
            pooled.append(replace(unit, group=run))
        else:
            run = None
            pooled.append(unit)
    return pooled


__all__ = ["Heading", "find_headings", "pool_whole_sections", "section_starts", "split_sections"]
