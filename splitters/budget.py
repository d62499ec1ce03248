"""Token-budget post-processing: split what is over the max, merge what is under the min.

Splits look for the best boundary inside an over-long unit: block → line → sentence → word → a
hard cut, and pack the pieces greedily up to ``max_tokens``. Table rows are never cut when a row
fits, and every piece that starts inside a table carries that table's header rows again.
Merges join a chunk under ``min_tokens`` with the following (else the preceding) chunk of the same
group while the result stays within ``merge_ceiling``.

Token counts come from the injected counter (memoised), so a text is tokenised once; candidate
merges and packs are priced by summing counts, and only the chosen result is counted exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from parsers.model import BLOCK_SEPARATOR, Document
from splitters.chunk import Budget, Chunk, TokenCounter

#: Boundaries inside a block, strongest first. Sentence ends cover Korean (다. 요. 음.) via the dot.
LEVELS = (
    re.compile(r"\n"),
    re.compile(r"(?<=[.!?。？！…])\s+"),
    re.compile(r"\s+"),
)


def make_chunk(doc: Document, start: int, end: int, count: TokenCounter, header: str = "", **fields) -> Chunk:
    text = header + doc.text[start:end]
    return Chunk(text=text, start=start, end=end, tokens=count(text), header=header, **fields)


def trim(doc: Document, start: int, end: int) -> tuple[int, int]:
    """Shrink a span so it neither starts nor ends with whitespace."""
    text = doc.text
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def split_text(text: str, start: int, end: int, count: TokenCounter, limit: int, level: int = 0) -> list[tuple[int, int]]:
    """Cut ``text[start:end]`` into spans of at most ``limit`` tokens at the strongest boundaries."""
    if count(text[start:end]) <= limit:
        return [(start, end)]
    if level >= len(LEVELS):
        return _hard_split(text, start, end, count, limit)
    segments: list[tuple[int, int]] = []
    position = start
    for match in LEVELS[level].finditer(text, start, end):
        if match.start() > position:
            segments.append((position, match.start()))
        position = match.end()
    if position < end:
        segments.append((position, end))
    if len(segments) <= 1:
        return split_text(text, start, end, count, limit, level + 1)
    atoms: list[tuple[int, int]] = []
    for s, e in segments:
        atoms.extend(split_text(text, s, e, count, limit, level + 1))
    return _pack_spans(text, atoms, count, limit)


def _pack_spans(text: str, atoms: list[tuple[int, int]], count: TokenCounter, limit: int) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    current_tokens = 0
    for s, e in atoms:
        tokens = count(text[s:e])
        if current is not None and current_tokens + tokens + 1 <= limit:
            candidate = (current[0], e)
            if count(text[candidate[0]:candidate[1]]) <= limit:
                current = candidate
                current_tokens += tokens + 1
                continue
        if current is not None:
            pieces.append(current)
        current, current_tokens = (s, e), tokens
    if current is not None:
        pieces.append(current)
    return pieces


def _hard_split(text: str, start: int, end: int, count: TokenCounter, limit: int) -> list[tuple[int, int]]:
    """Last resort for a run with no spaces (long URLs, base64, unspaced CJK): cut by length."""
    pieces = []
    while start < end:
        low, high = start + 1, end
        while low < high:  # largest cut whose prefix fits
            middle = (low + high + 1) // 2
            if count(text[start:middle]) <= limit:
                low = middle
            else:
                high = middle - 1
        pieces.append((start, low))
        start = low
    return pieces


@dataclass(frozen=True)
class _Segment:
    start: int
    end: int
    tokens: int
    header: str = ""  # header to prefix if a piece starts with this segment


def split_chunk(doc: Document, chunk: Chunk, count: TokenCounter, limit: int) -> list[Chunk]:
    """Split one over-long chunk into pieces of at most ``limit`` tokens each."""
    text = doc.text
    segments: list[_Segment] = []
    for block, (b_start, b_end) in zip(doc.blocks, doc.spans, strict=True):
        s, e = max(b_start, chunk.start), min(b_end, chunk.end)
        if s >= e:
            continue
        if block.table is not None and count(text[s:e]) > limit:
            header = block.table.header_text + "\n"
            for row_start, row_end, row_index in _row_spans(block.table, b_start):
                rs, re_ = max(row_start, s), min(row_end, e)
                if rs >= re_:
                    continue
                row_header = header if row_index >= block.table.header_rows else ""
                room = limit - count(row_header)
                for ps, pe in split_text(text, rs, re_, count, max(room, 1)):
                    segments.append(_Segment(ps, pe, count(text[ps:pe]), row_header))
        else:
            for ps, pe in split_text(text, s, e, count, limit):
                segments.append(_Segment(ps, pe, count(text[ps:pe])))
    pieces: list[Chunk] = []
    group: list[_Segment] = []
    header = ""
    used = 0

    def emit() -> None:
        start, end = trim(doc, group[0].start, group[-1].end)
        pieces.append(replace(make_chunk(doc, start, end, count, header), heading_path=chunk.heading_path,
                              group=chunk.group))

    for segment in segments:
        if group:
            if used + segment.tokens + 1 <= limit and count(header + text[group[0].start:segment.end]) <= limit:
                group.append(segment)
                used += segment.tokens + 1
                continue
            emit()
            header = segment.header
        else:
            header = chunk.header or segment.header
        group = [segment]
        used = count(header) + segment.tokens
    if group:
        emit()
    return pieces


def _row_spans(table, block_start: int) -> list[tuple[int, int, int]]:
    spans = []
    position = block_start
    for index in range(len(table.rows)):
        length = len(table.row_text(index))
        spans.append((position, position + length, index))
        position += length + 1
    return spans


def merge_small(doc: Document, chunks: list[Chunk], count: TokenCounter, budget: Budget) -> list[Chunk]:
    """Join chunks under the min with a neighbour of the same group, up to the merge ceiling."""
    def joined(a: Chunk, b: Chunk) -> Chunk | None:
        if a.group != b.group or a.tokens + b.tokens + 2 > budget.merge_ceiling:
            return None
        merged = replace(make_chunk(doc, a.start, b.end, count, a.header), heading_path=a.heading_path,
                         group=a.group)
        return merged if merged.tokens <= budget.merge_ceiling else None

    forward: list[Chunk] = []
    for chunk in chunks:
        if forward and forward[-1].tokens < budget.min_tokens:
            merged = joined(forward[-1], chunk)
            if merged is not None:
                forward[-1] = merged
                continue
        forward.append(chunk)
    result: list[Chunk] = []
    for chunk in forward:
        if result and chunk.tokens < budget.min_tokens:
            merged = joined(result[-1], chunk)
            if merged is not None:
                result[-1] = merged
                continue
        result.append(chunk)
    return result


def fit_to_budget(doc: Document, chunks: list[Chunk], count: TokenCounter, budget: Budget) -> list[Chunk]:
    """Split chunks over the max, merge chunks under the min, then fill in locators."""
    sized: list[Chunk] = []
    for chunk in chunks:
        sized.extend(split_chunk(doc, chunk, count, budget.max_tokens) if chunk.tokens > budget.max_tokens else [chunk])
    return [locate(doc, c) for c in merge_small(doc, sized, count, budget)]


def locate(doc: Document, chunk: Chunk) -> Chunk:
    """Fill a chunk's page/sheet/row/slide locators and block kinds from the blocks its span touches."""
    pages: list[int] = []
    slides: list[int] = []
    rows: list[int] = []
    sheet = None
    kinds: list[str] = []
    for block, (b_start, b_end) in zip(doc.blocks, doc.spans, strict=True):
        if b_end <= chunk.start and not (b_start == b_end == chunk.start):
            continue
        if b_start >= chunk.end:
            break
        loc = block.locator
        if loc.page is not None:
            pages.append(loc.page)
        if loc.slide is not None:
            slides.append(loc.slide)
        if loc.sheet is not None and sheet is None:
            sheet = loc.sheet
        if block.row_numbers:
            for row_start, row_end, index in _row_spans(block.table, b_start):
                if row_end > chunk.start and row_start < chunk.end:
                    rows.append(block.row_numbers[index])
        if not kinds or kinds[-1] != block.kind:
            kinds.append(block.kind)
    return replace(
        chunk,
        page_start=min(pages) if pages else None, page_end=max(pages) if pages else None,
        slide_start=min(slides) if slides else None, slide_end=max(slides) if slides else None,
        sheet=sheet, row_start=min(rows) if rows else None, row_end=max(rows) if rows else None,
        kinds=tuple(kinds),
    )


def block_units(doc: Document, count: TokenCounter, key) -> list[Chunk]:
    """One chunk per run of consecutive blocks sharing ``key(block)`` (a page, a slide, …)."""
    units: list[Chunk] = []
    run_start = run_end = None
    run_key = None
    for block, (b_start, b_end) in zip(doc.blocks, doc.spans, strict=True):
        k = key(block)
        if run_start is not None and k != run_key:
            units.append(make_chunk(doc, run_start, run_end, count))
            run_start = None
        if run_start is None:
            run_start, run_key = b_start, k
        run_end = b_end
    if run_start is not None:
        units.append(make_chunk(doc, run_start, run_end, count))
    return units


__all__ = ["BLOCK_SEPARATOR", "block_units", "fit_to_budget", "locate", "make_chunk", "merge_small",
           "split_chunk", "split_text", "trim"]
