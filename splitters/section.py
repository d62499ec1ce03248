"""The ``section`` strategy: cut a document along its outline, at the shallowest level that fits.

Headers and their depth come from :func:`classifiers.headings.find_headings` (declared heading
blocks and the line grammar); they make a tree — a section runs from its header to the next header
of the same or a higher level, and holds the deeper sections in between. The cut walks that tree
from the top:

- a section that fits the max is one unit, whole, with all its subsections (an article with its
  clauses, a ``□`` topic with its ``○`` items, a chapter of short articles);
- a section that does not fit is cut between its subsections, each handled the same way; its own
  header and lead-in (the text before its first subsection) open the first of them, so a heading
  always starts a chunk and a lead-in ("다음의 경우는 제외한다:") stays with the items it introduces;
- consecutive whole subsections of one parent are packed together, each kept whole, while the
  pack stays within ``Budget.pack_tokens`` (a run of short articles becomes a few chunks, not one
  chunk each); the pieces of a section that had to be cut are never packed with its siblings;
- a section with no subsections that is still over the max is left to the budget step
  (:func:`splitters.budget.fit_to_budget`), which cuts it at blocks, lines or sentences.

Every unit's heading path is computed afterwards from the outline (the common path of what it
holds); all units share one merge group, and the budget step joins what is still under the min
with the neighbour that shares the longest heading path.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from classifiers.headings import Heading, find_headings, is_back_matter
from parsers.model import Document
from splitters.chunk import Budget, Chunk, TokenCounter
from splitters.outline import Outline
from splitters.pieces import make_chunk, trim

_BACK_MATTER = "back matter"  # the merge group of back-matter chunks


@dataclass(frozen=True)
class _Section:
    start: int  # where the section starts (its header, or the furniture right before it)
    end: int
    children: tuple[_Section, ...] = ()
    header_end: int = 0  # where its header line ends (the root has none)
    back: str = ""  # the heading family of back matter (부칙, an attachment, the references): see _Unit.back


@dataclass(frozen=True)
class _Unit:
    start: int
    end: int
    packable: bool  # a whole section (or a whole lead-in with its first whole subsection)
    # Back matter is never packed or merged with the body: a regulation's last article packed with
    # fifteen 부칙 ("이 규정은 … 시행한다") is lost among them. Nor with back matter of another
    # heading family: the last 부칙 packed with the form of [별지 제1호 서식] puts the form's table in
    # a chunk with no heading of its own, among effective dates. "" for the body.
    back: str = ""


def section_tree(outline: Outline, length: int) -> _Section:
    """The document as a tree of sections (the root is the whole document; its lead-in is the
    preamble before the first header)."""
    headings, starts = _section_starts(outline)

    def build(first: int, stop: int, end: int) -> tuple[_Section, ...]:
        """Sections of the headings ``first..stop-1`` at the shallowest level among them."""
        children: list[_Section] = []
        index = first
        while index < stop:
            level = headings[index].level
            following = index + 1
            while following < stop and headings[following].level > level:
                following += 1
            section_end = starts[following] if following < stop else end
            children.append(_Section(starts[index], section_end, build(index + 1, following, section_end),
                                     headings[index].end, _back_family(headings[index])))
            index = following
        return tuple(children)

    return _Section(0, length, build(0, len(headings), length))


def _back_family(heading: Heading) -> str:
    """The heading family of a header that opens back matter (``legal`` for 부칙, ``attachment`` for
    별지 and 별표), or "" for the body."""
    return heading.family if is_back_matter(heading) else ""


def _section_starts(outline: Outline) -> tuple[list[Heading], list[int]]:
    """The headers that open sections and where each section starts: a lead (see
    :attr:`Outline.leads`) opens the section after it, as part of its header."""
    headings = list(outline.headings)
    starts = [_before_furniture(outline, h.offset) for h in headings]
    # (The first header's section does not reach back into the preamble: a document's title block.)
    starts[1:] = [_before_titles(outline, start, before) for start, before in zip(starts[1:], headings, strict=False)]
    for index in range(len(headings) - 2, -1, -1):
        if outline.leads[index]:
            starts[index + 1] = starts[index]
            del headings[index], starts[index]
    return headings, starts


def _before_titles(outline: Outline, offset: int, before: Heading) -> int:
    """A header's section starts at the title lines right before it, after the header ``before``
    it: a task's title set in a box over its ○ items opens the task's section, not the end of the
    section before — unless that would leave the header before it with nothing after its line."""
    text, floor = outline.text, before.end
    while True:
        end = offset
        while end > floor and text[end - 1].isspace():
            end -= 1
        start = outline.titles.get(end)
        if start is None or start < floor or start >= offset or not outline.has_content(floor, start):
            return offset
        offset = start


def _before_furniture(outline: Outline, offset: int) -> int:
    """A header's section starts at the furniture right before it (a page number between two
    sections goes with the one after it, never alone at the end of the one before)."""
    block = bisect.bisect_right(outline.block_starts, offset) - 1
    while block > 0 and outline.block_starts[block] == offset and outline.furniture[block - 1]:
        block -= 1
        offset = outline.block_starts[block]
    return offset


def split_sections(doc: Document, count: TokenCounter, budget: Budget) -> list[Chunk]:
    outline = Outline.build(doc)
    text = doc.text

    def tokens(start: int, end: int) -> int:
        return count(text[start:end])

    def units(section: _Section) -> list[_Unit]:
        if not section.children or tokens(section.start, section.end) <= budget.max_tokens:
            return [_Unit(section.start, section.end, True, section.back)]
        parts: list[_Unit] = []
        lead_end = section.children[0].start
        child_units = [units(child) for child in section.children]
        first = child_units[0]
        bare = not outline.has_content(max(section.start, section.header_end), lead_end)
        opened = tokens(section.start, first[0].end)
        if bare or opened <= budget.pack_tokens:
            # A bare header (or a header with a short lead-in) opens its first subsection; a few
            # header tokens may take a whole subsection past the max, up to the merge ceiling.
            whole = first[0].packable and len(first) == 1 and opened <= budget.merge_ceiling
            first[0] = _Unit(section.start, first[0].end, whole, first[0].back or section.back)
        else:
            parts.append(_Unit(section.start, lead_end, True, section.back))
        for child in child_units:
            if len(child) == 1:
                parts.append(child[0])
            else:
                parts.extend(_Unit(u.start, u.end, False, u.back) for u in child)
        return _pack(parts)

    def _pack(parts: list[_Unit]) -> list[_Unit]:
        packed: list[_Unit] = []
        for part in parts:
            last = packed[-1] if packed else None
            if last is not None and last.packable and part.packable and last.back == part.back \
                    and tokens(last.start, part.end) <= budget.pack_tokens:
                packed[-1] = _Unit(last.start, part.end, True, last.back)
            else:
                packed.append(part)
        # A section's pieces go back to its parent as not packable (it was cut).
        return packed

    root = section_tree(outline, len(text))
    chunks: list[Chunk] = []
    for unit in units(root) if root.children else [_Unit(0, len(text), True)]:
        start, end = trim(doc, unit.start, unit.end)
        if end > start:
            chunks.append(make_chunk(doc, start, end, count, heading_path=outline.path_of(start, end),
                                     group=f"{_BACK_MATTER}: {unit.back}" if unit.back else ""))
    return chunks or [make_chunk(doc, 0, len(text), count)]


__all__ = ["Heading", "find_headings", "section_tree", "split_sections"]
