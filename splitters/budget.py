"""Token-budget post-processing: split what is over the max, merge what is under the min.

    units ──split_chunk (over max)──▶ pieces ≤ pack* ──merge_small (under min)──▶ chunks ≤ ceiling ──locate

A unit within the max is left whole. One over it is cut at the best boundary inside it — a block;
a line break that ends a sentence or opens an item; a sentence end; any line break; a word; a hard
cut — and the pieces are packed greedily up to the pack size (``Budget.pack_tokens``). Table rows
are never cut when a row fits, and every piece that starts inside a table carries that table's
header rows again — but a row too wide to fit with a header over a quarter of the limit is cut into
column groups, each repeating only its own columns' header cells (:mod:`splitters.columns`), each a
piece and a merge group of its own. A table is not cut to fill a piece: one that does not fit in
what is left starts the next piece, with its caption (up to two short lines just before it: its
title, its unit) and, where they fit, the notes after it; a piece that starts inside a table
repeats the caption lines above the header rows. A header line is never left at the end of a piece when its body
follows (see :mod:`splitters.outline`): it is packed with at least the start of that body.

(*) Two exceptions to the max: header lines followed by table rows that fit only without them make
one piece up to ``merge_ceiling``, rather than a row cut in two or a header cut off its table; and
bare titles opening a unit that fits the max ("제2장 총칙" before a whole article) may take it up to
``merge_ceiling``.

Merges join a chunk under ``min_tokens`` with a neighbour of the same group while the result stays
within ``merge_ceiling``, choosing the neighbour that shares the longest heading path (a trailing
``-`` item joins its ``○``, not the next ``□``), smallest result first.

Where the parts live: :mod:`splitters.pieces` cuts a span of text at its strongest boundaries and
packs the pieces; :mod:`splitters.table_rows` turns a table's rows into segments that carry their
header rows; this module walks a unit's blocks, splits, merges and locates.

Token counts come from the injected counter (memoised). Candidate packs and merges are priced by
summing the counts of their parts (each part counted once, with the gap before it); only the chosen
result is counted exactly, and a pack backs off if the exact count is over. So splitting a document
costs a small constant number of tokenisations of its text, not one per candidate.
"""
from __future__ import annotations

import bisect
import heapq
import re
from collections import ChainMap
from collections.abc import Callable, Iterable, Set
from dataclasses import replace

from parsers.model import Block, Document
from splitters.chunk import Budget, Chunk, TokenCounter
from splitters.outline import Outline, common_prefix
from splitters.pieces import (
    NO_GLUE,
    Segment,
    glue_segments,
    make_chunk,
    pack_segments,
    split_text,
    stripped_end,
    trim,
    trim_text,
)
from splitters.table_rows import row_segments, row_spans

#: How far below the sum of its parts' counts a merge may count exactly (BPE joins at the junction).
_JUNCTION_SLACK = 4


def block_starts(doc: Document) -> tuple[int, ...]:
    """Where each block starts in ``doc.text`` (build once per document, then bisect)."""
    return tuple(start for start, _ in doc.spans)


def _blocks_in(doc: Document, starts: tuple[int, ...], start: int, end: int) -> Iterable[tuple[Block, int, int]]:
    """The blocks a span touches, with their spans, found by bisection (not a scan of the document)."""
    spans = doc.spans
    index = max(bisect.bisect_right(starts, start) - 1, 0)
    while index < len(spans) and (spans[index][0] < end or spans[index][0] == start):
        b_start, b_end = spans[index]
        if b_end > start or b_start == start:
            yield doc.blocks[index], b_start, b_end
        index += 1


def split_chunk(doc: Document, chunk: Chunk, count: TokenCounter, limit: int,
                outline: Outline | None = None, ceiling: int = 0) -> list[Chunk]:
    """Split one over-long chunk into pieces of at most ``limit`` tokens each — but a piece of
    header lines glued to whole table rows, which may reach ``ceiling`` (see :func:`glue_segments`)."""
    pieces = split_span(doc, chunk.start, chunk.end, count, limit, outline, ceiling, chunk.header, chunk.group,
                        chunk.heading_path)
    return [chunk] if pieces is None else pieces


def split_span(doc: Document, start: int, end: int, count: TokenCounter, limit: int, outline: Outline | None = None,
               ceiling: int = 0, header: str = "", group: str = "",
               heading_path: tuple[str, ...] = ()) -> list[Chunk] | None:
    """:func:`split_chunk` of ``header + doc.text[start:end]``, for a caller that knows the span is
    over the max without counting it (a tall sheet); ``None`` when the span touches no block's text."""
    text = doc.text
    glue = outline.glue_ends if outline is not None else NO_GLUE
    starts = outline.block_starts if outline is not None else block_starts(doc)
    segments: list[Segment] = []
    # Furniture (a page number, a running header) glues to what follows it, so it never separates
    # a header from its body and never ends a piece.
    local: dict[int, int] = {}
    captions: list[int] = []  # the segments of the short lines just before the current block
    table_open = -1  # the segment that opens the table just before (its notes follow it: see _NOTE)
    for block, b_start, b_end in _blocks_in(doc, starts, start, end):
        s, e = max(b_start, start), min(b_end, end)
        if s >= e:
            continue
        if block.kind == "furniture":  # (between a caption and its table, it leaves the caption one)
            local[stripped_end(text, Segment(s, e))] = s
            segments.append(Segment(s, e, whole=True))
        elif block.table is not None:  # by rows, even if the table alone would fit: its piece may not
            caption = "".join(text[segments[i].start:segments[i].end].strip() + "\n" for i in captions)
            rows = row_segments(text, block.table, b_start, s, e, count, limit, caption)
            opens = captions[0] if captions else len(segments)  # where a piece should start
            segments.extend(rows)
            if rows:
                segments[opens] = replace(segments[opens], table_end=rows[-1].end)
                table_open = opens
            captions = []
        else:
            segments.extend(Segment(ps, pe) for ps, pe in split_text(text, s, e, count, limit, 0, glue))
            if table_open >= 0 and _NOTE.match(block.text):  # a table's notes go with it where they fit
                segments[table_open] = replace(segments[table_open], table_end=segments[-1].end)
            else:
                table_open = -1
            captions = [*captions, len(segments) - 1][-_CAPTION_LINES:] if _is_caption(block) else []
    if not segments:
        return None
    if header:
        segments[0] = replace(segments[0], header=header)

    def split_again(s: int, e: int, room: int) -> list[tuple[int, int]]:
        return split_text(text, s, e, count, room, 0, glue)

    solid = [(s, e) for e, s in local.items()]
    tables = [(segment.start, segment.table_end) for segment in segments if segment.table_end >= 0]
    segments = glue_segments(text, segments, count, limit, ChainMap(local, glue) if local else glue, split_again, solid,
                     ceiling)
    if tables:  # gluing may have joined a table's opening to the lines before it: mark what holds it
        starts = [segment.start for segment in segments]
        for opening, table_end in tables:
            index = bisect.bisect_right(starts, opening) - 1
            if index >= 0 and segments[index].table_end < 0:
                segments[index] = replace(segments[index], table_end=table_end)
    pieces: list[Chunk] = []
    for piece in pack_segments(text, segments, count, limit):
        s, e = trim_text(text, piece.start, piece.end)
        if e > s:
            piece_group = f"{group}#columns@{s}" if piece.sealed else group
            pieces.append(make_chunk(doc, s, e, count, piece.header, piece.tokens, heading_path=heading_path,
                                     group=piece_group))
    return pieces


#: At most this many short lines before a table are its caption (``<표 3> 예산 규모``, ``(단위: 억원)``).
_CAPTION_LINES = 2


_CAPTION_CHARS = 100


_SENTENCE = re.compile(r"(?:[.!?。]|다\.?)$")


#: What opens a table's note or source line, just after it: ``주 1)``, ``주:``, ``자료:``, ``출처:``,
#: ``※``, ``Note:``, ``Source:``.
_NOTE = re.compile(r"\s*(?:주\s?\d*\s?[):]|\*?\s?(?:자료|출처)\s?:|※|\*\s|(?:Notes?|Sources?)\s?:)", re.IGNORECASE)


def _is_caption(block: Block) -> bool:
    """A block that may caption the table after it: one short line that does not end a sentence (a
    title, a table number, a unit, a date), not a list item or a table, that says something: a
    slide's tab marks (``Ⅲ``, ``Ⅳ``) or a badge (``02``) before a table say nothing of it, and were
    repeated above every piece of the table."""
    line = block.text.strip()
    return (block.kind != "furniture" and block.table is None and 0 < len(line) <= _CAPTION_CHARS
            and "\n" not in line and not _SENTENCE.search(line) and _says_something(line))


def _says_something(line: str) -> bool:
    """Three letters or digits, or two with a letter among them (``<표 3>``, ``2024-11-26``, not
    ``Ⅲ`` or ``02``)."""
    signs = sum(ch.isalnum() for ch in line)
    return signs >= 3 or (signs >= 2 and any(ch.isalpha() for ch in line))


def keep_headers_with_next(doc: Document, units: list[Chunk], count: TokenCounter, outline: Outline) -> list[Chunk]:
    """Move header lines that end a unit (a heading at the foot of a page, a heading block on its own)
    to the start of the next unit of the same group, where their body is."""
    out: list[Chunk | None] = list(units)
    for index in range(len(out) - 1):
        unit, following = out[index], out[index + 1]
        if unit is None or following is None or following.header or unit.group != following.group:
            continue
        cut = outline.glued_start(unit.start, unit.end)
        if cut is None or cut >= following.start:
            continue
        out[index + 1] = make_chunk(doc, cut, following.end, count, group=following.group)
        start, end = trim(doc, unit.start, cut)
        out[index] = make_chunk(doc, start, end, count, unit.header, group=unit.group) if end > start else None
    return [unit for unit in out if unit is not None]


def merge_small(doc: Document, chunks: list[Chunk], count: TokenCounter, budget: Budget,
                outline: Outline | None = None) -> list[Chunk]:
    """Join chunks under the min with a neighbour of the same group, up to the merge ceiling.

    The best join first: the pair sharing the longest heading path, then the smallest result, then
    the earliest. A pair is priced by its parts' counts and counted exactly only when chosen.
    """
    items = list(chunks)
    if budget.min_tokens <= 0 or len(items) < 2:
        return items
    alive = [True] * len(items)
    following = [*range(1, len(items)), -1]
    preceding = [-1, *range(len(items) - 1)]
    version = [0] * len(items)
    heap: list[tuple[int, int, int, int, int, int, int]] = []

    def offer(i: int) -> None:
        j = following[i] if i >= 0 else -1
        if j < 0:
            return
        a, b = items[i], items[j]
        if a.group != b.group or (a.tokens >= budget.min_tokens and b.tokens >= budget.min_tokens):
            return
        estimate = a.tokens + b.tokens - (count(b.header) if b.header else 0)
        if estimate > budget.merge_ceiling + _JUNCTION_SLACK:
            return
        shared = len(common_prefix(a.heading_path, b.heading_path))
        heapq.heappush(heap, (-shared, estimate, a.start, i, j, version[i], version[j]))

    for i in range(len(items) - 1):
        offer(i)
    while heap:
        _, _, _, i, j, version_i, version_j = heapq.heappop(heap)
        if not (alive[i] and alive[j]) or following[i] != j or (version[i], version[j]) != (version_i, version_j):
            continue
        a, b = items[i], items[j]
        path = outline.path_of(a.start, b.end) if outline is not None else common_prefix(a.heading_path, b.heading_path)
        merged = make_chunk(doc, a.start, b.end, count, a.header, heading_path=path, group=a.group)
        if merged.tokens > budget.merge_ceiling:
            continue
        items[i], alive[j] = merged, False
        version[i] += 1
        following[i] = following[j]
        if following[j] >= 0:
            preceding[following[j]] = i
        offer(preceding[i])
        offer(i)
    return [item for item, keep in zip(items, alive, strict=True) if keep]


def pack_units(doc: Document, units: list[Chunk], count: TokenCounter, limit: int,
               opens: Set[int] = frozenset()) -> list[Chunk]:
    """Join consecutive units of one group while the result stays within ``limit`` tokens (a run of
    short paragraphs becomes one chunk; a unit over the limit stays alone).

    ``opens`` are the starts of units that open what follows them (a title line no header grammar
    knows: a glossary's term, a caption): when a unit does not fit, the units of the full pack from
    the last such start on go on with it, if the pack keeps at least half the limit — a term's
    definition is not cut from its example."""
    packed: list[Chunk] = []
    members: list[Chunk] = []  # the units packed[-1] holds
    for unit in units:
        last = packed[-1] if packed else None
        same = last is not None and last.group == unit.group and not unit.header
        if same and last.tokens + unit.tokens <= limit + _JUNCTION_SLACK:
            joined = make_chunk(doc, last.start, unit.end, count, last.header, group=last.group)
            if joined.tokens <= limit:
                packed[-1] = joined
                members.append(unit)
                continue
        if same and opens:
            moved = _move_opened_tail(doc, last, members, unit, count, limit, opens)
            if moved is not None:
                packed[-1], tail, members = moved
                packed.append(tail)
                continue
        packed.append(unit)
        members = [unit]
    return packed


def _move_opened_tail(doc: Document, pack: Chunk, members: list[Chunk], unit: Chunk, count: TokenCounter,
                      limit: int, opens: Set[int]) -> tuple[Chunk, Chunk, list[Chunk]] | None:
    """``pack`` cut before the last of its units that opens what follows, that unit and those after it
    joined to ``unit``: (the pack's head, the new pack, its units), or None when no such cut leaves
    the head at least half the limit and the tail within it."""
    for k in range(len(members) - 1, 0, -1):
        if members[k].start not in opens:
            continue
        head = make_chunk(doc, pack.start, members[k - 1].end, count, pack.header, group=pack.group)
        if head.tokens < limit // 2:
            return None
        tail = make_chunk(doc, members[k].start, unit.end, count, group=unit.group)
        return (head, tail, [*members[k:], unit]) if tail.tokens <= limit else None
    return None


def _over_max(doc: Document, chunk: Chunk, count: TokenCounter, budget: Budget, outline: Outline) -> bool:
    """Over the max — but bare titles that open a unit which fits the max ("제2장 총칙" before a
    whole article) may take it up to the merge ceiling: a cut would leave either alone."""
    if chunk.tokens <= budget.max_tokens:
        return False
    if chunk.tokens > budget.merge_ceiling or chunk.header:
        return True
    body = outline.after_bare_titles(chunk.start)
    return body <= chunk.start or body >= chunk.end or count(doc.text[body:chunk.end]) > budget.max_tokens


def fit_to_budget(doc: Document, chunks: list[Chunk], count: TokenCounter, budget: Budget,
                  outline: Outline | None = None) -> list[Chunk]:
    """Split chunks over the max (into pieces of at most the pack size), give every chunk its
    heading path, merge chunks under the min, then fill in locators."""
    outline = outline if outline is not None else Outline.build(doc)
    sized: list[Chunk] = []
    for chunk in chunks:
        pieces = split_chunk(doc, chunk, count, budget.pack_tokens, outline, budget.merge_ceiling) \
            if _over_max(doc, chunk, count, budget, outline) else [chunk]
        sized.extend(replace(p, heading_path=outline.path_of(p.start, p.end)) for p in pieces)
    rows: RowSpans = {}
    return [locate(doc, c, outline.block_starts, rows) for c in merge_small(doc, sized, count, budget, outline)]


#: A table block's row starts and ends in ``Document.text``, by the block's start (built once per
#: table, then bisected: locating each chunk of a tall table does not walk all its rows).
RowSpans = dict[int, tuple[list[int], list[int]]]


def locate(doc: Document, chunk: Chunk, starts: tuple[int, ...] | None = None, rows: RowSpans | None = None) -> Chunk:
    """Fill a chunk's page/sheet/row/slide locators and block kinds from the blocks its span touches
    (``starts``: :func:`block_starts` of the document, and ``rows``, a cache filled as it goes, when
    locating many chunks)."""
    pages: list[int] = []
    slides: list[int] = []
    numbers: list[int] = []
    rows = rows if rows is not None else {}
    sheet = None
    kinds: list[str] = []
    for block, b_start, _ in _blocks_in(doc, starts if starts is not None else block_starts(doc), chunk.start,
                                        chunk.end):
        loc = block.locator
        if loc.page is not None:
            pages.append(loc.page)
        if loc.page_end is not None:
            pages.append(loc.page_end)
        if loc.slide is not None:
            slides.append(loc.slide)
        if loc.sheet is not None and sheet is None:
            sheet = loc.sheet
        if block.row_numbers and block.table is not None:
            if b_start not in rows:
                spans = row_spans(block.table, b_start)
                rows[b_start] = [s for s, _, _ in spans], [e for _, e, _ in spans]
            row_starts, row_ends = rows[b_start]
            # the rows with an end after the chunk's start and a start before its end
            numbers.extend(block.row_numbers[bisect.bisect_right(row_ends, chunk.start):
                                             bisect.bisect_left(row_starts, chunk.end)])
        if not kinds or kinds[-1] != block.kind:
            kinds.append(block.kind)
    return replace(
        chunk,
        page_start=min(pages) if pages else None, page_end=max(pages) if pages else None,
        slide_start=min(slides) if slides else None, slide_end=max(slides) if slides else None,
        sheet=sheet, row_start=min(numbers) if numbers else None, row_end=max(numbers) if numbers else None,
        kinds=tuple(kinds),
    )


def block_units(doc: Document, count: TokenCounter, key: Callable[[Block], object]) -> list[Chunk]:
    """One chunk per run of consecutive blocks sharing ``key(block)`` (a page, a slide, …)."""
    units: list[Chunk] = []
    run_start = run_end = 0
    run_key: object = None
    running = False
    for block, (b_start, b_end) in zip(doc.blocks, doc.spans, strict=True):
        k = key(block)
        if running and k != run_key:
            units.append(make_chunk(doc, run_start, run_end, count))
            running = False
        if not running:
            run_start, run_key, running = b_start, k, True
        run_end = b_end
    if running:
        units.append(make_chunk(doc, run_start, run_end, count))
    return units


__all__ = ["RowSpans", "block_starts", "block_units", "fit_to_budget", "keep_headers_with_next", "locate",
           "merge_small", "pack_units", "split_chunk", "split_span"]
