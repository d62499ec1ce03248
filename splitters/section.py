"""The ``section`` strategy: cut before section headers, keep each header with its body.

Headers come from the format (DOCX/Markdown/HTML heading blocks) and from the line grammar in
:mod:`classifiers.headings`. Every chunk carries its heading path; its merge group is its top-level
section, so small sibling sections are merged with each other but never across a top-level
boundary. A header with no body of its own (a chapter title right before its first article) is
folded into the section that follows, so no chunk ever ends with a dangling header.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from classifiers.headings import NUMBERED, Marker, heading_label, is_header_line, pattern_marker
from parsers.model import Document
from splitters.budget import make_chunk
from splitters.chunk import Budget, Chunk, TokenCounter

_DECLARED_BASE = 0  # declared heading levels 1..6 keep their level
_LEGAL_BASE = 10
_PATTERN_BASE = 20


@dataclass(frozen=True)
class Heading:
    offset: int  # where the header line starts in Document.text
    level: int
    text: str


def find_headings(doc: Document) -> list[Heading]:
    """Every header line of the document with its depth (smaller is higher)."""
    candidates: list[tuple[int, Marker | None, str, int]] = []  # offset, marker, line, declared level
    families = set()
    for block, (b_start, _) in zip(doc.blocks, doc.spans, strict=True):
        if block.kind == "heading":
            candidates.append((b_start, None, block.text.split("\n")[0], max(block.level, 1)))
            continue
        if block.kind not in ("paragraph", "list_item"):
            continue
        previous: str | None = None
        offset = b_start
        for index, line in enumerate(block.text.split("\n")):
            stripped = line.strip()
            marker = pattern_marker(stripped) if stripped else None
            if marker is not None and is_header_line(stripped, marker, previous, index == 0):
                candidates.append((offset + (len(line) - len(line.lstrip())), marker, stripped, 0))
                families.add(marker.family)
            previous = stripped or previous
            offset += len(line) + 1
    legal = "legal" in families
    order: dict[str, int] = {}
    headings: list[Heading] = []
    for offset, marker, line, declared in candidates:
        if marker is None:
            level = _DECLARED_BASE + declared
        elif marker.family == "legal":
            level = _LEGAL_BASE + marker.rank
        else:
            if legal and marker.family in NUMBERED:
                continue  # items of an article, not sections
            level = _PATTERN_BASE + order.setdefault(marker.family, len(order))
        headings.append(Heading(offset, level, heading_label(line, marker)))
    return headings


def split_sections(doc: Document, count: TokenCounter, budget: Budget) -> list[Chunk]:
    headings = find_headings(doc)
    if not headings:
        return [make_chunk(doc, 0, len(doc.text), count)]
    # Section starts, the heading path in force at each, and the depth of the header that opens it.
    starts: list[tuple[int, tuple[str, ...], int]] = []
    stack: list[Heading] = []
    if headings[0].offset > 0:
        starts.append((0, (), 0))
    for heading in headings:
        while stack and stack[-1].level >= heading.level:
            stack.pop()
        stack.append(heading)
        starts.append((heading.offset, tuple(h.text for h in stack), heading.level))
    # A header with no body right before a deeper header (a chapter title before its first article)
    # opens the section that follows instead of standing alone.
    bounds: list[tuple[int, int, tuple[str, ...]]] = []
    pending_start: int | None = None
    for index, (start, path, level) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(doc.text)
        body_only_header = bool(path) and "\n" not in doc.text[start:end].strip()
        if body_only_header and index + 1 < len(starts) and starts[index + 1][2] > level:
            pending_start = start if pending_start is None else pending_start
            continue
        bounds.append((pending_start if pending_start is not None else start, end, path))
        pending_start = None
    chunks = []
    for start, end, path in bounds:
        s, e = start, end
        while e > s and doc.text[e - 1].isspace():
            e -= 1
        if e <= s:
            continue
        group = path[0] if path else ""
        chunks.append(replace(make_chunk(doc, s, e, count), heading_path=path, group=group))
    return chunks
