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
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, replace

from parsers.model import BLOCK_SEPARATOR, CELL_SEPARATOR, Block, Document, PackedRows, Table
from splitters.chunk import WORD_END, Budget, Chunk, TokenCounter, counts_cl100k
from splitters.columns import column_groups, has_key_column
from splitters.outline import Outline, common_prefix

#: Boundaries inside a block, strongest first: a line break after a finished sentence (not after a
#: number's dot: "<개정 2018. 12." wraps on to "27.>") or before an
#: item or a clause (a PDF's lines are where the page ran out, not where the text did: a break inside
#: a sentence is weaker than a sentence end in the middle of a line); a sentence end (Korean 다. 요.
#: via the dot, but not the dot of an item number such as ``3.`` or an initial such as ``J.``, which
#: belong to what follows them); any line break; a space. Text exported escaped (a chat log or a
#: record dumped as JSON: one line holding ``\n\n`` (a backslash and an n, twice) where its paragraphs ended) has its escaped
#: paragraph breaks among the strongest.
LEVELS = (
    re.compile(r"(?<=[.!?。？！…:;다음함임됨])(?<![^\d.,]\d\.)(?<![^\d.,]\d\d\.)\n"
               r"|\n(?=[ \t]*(?:[□■◆○◦●◎\-·∙•▪※*①-⑳]|\(?\d{1,2}[.)]\s|\(?[가나다라마바사아자차카타파하][.)]\s|제\s?\d+\s?[조항호]))"
               r"|(?:\\r)?\\n(?:\\r)?\\n"),
    re.compile(r"(?<=[.!?。？！…])(?<![^\d.,]\d\.)(?<![^\d.,]\d\d\.)(?<!\b[A-Z]\.)\s+"),
    re.compile(r"\n"),
    re.compile(r"\s+"),
)
_NO_GLUE: Mapping[int, int] = {}
#: How far below the sum of its parts' counts a merge may count exactly (BPE joins at the junction).
_JUNCTION_SLACK = 4


def make_chunk(doc: Document, start: int, end: int, count: TokenCounter, header: str = "", tokens: int | None = None,
               **fields) -> Chunk:
    """A chunk of ``header + doc.text[start:end]``; ``tokens``, when the caller already counted that text."""
    text = header + doc.text[start:end]
    return Chunk(text=text, start=start, end=end, tokens=count(text) if tokens is None else tokens, header=header,
                 **fields)


def trim(doc: Document, start: int, end: int) -> tuple[int, int]:
    """Shrink a span so it neither starts nor ends with whitespace."""
    return _trim(doc.text, start, end)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


@dataclass(frozen=True, slots=True)
class _Segment:
    start: int
    end: int
    header: str = ""  # table header rows to prefix if a piece starts with this segment
    whole: bool = False  # table rows, furniture: never cut again to make room
    sealed: bool = False  # a column group of a wide row: a piece on its own (its header fits it alone)
    tokens: int | None = None  # a packed piece: the count of its header and trimmed span, when known
    own: int | None = None  # the count of text[start:end] alone, when known (a table row: counted when cut)
    table_end: int = -1  # a table's caption or first rows: where the table ends (a piece starts here, see _pack)


# ------------------------------------------------------------------------------------- splitting


def split_text(text: str, start: int, end: int, count: TokenCounter, limit: int, level: int = 0,
               glue: Mapping[int, int] = _NO_GLUE) -> list[tuple[int, int]]:
    """Cut ``text[start:end]`` into spans of at most ``limit`` tokens at the strongest boundaries.

    ``glue`` maps the end of each header line that must stay with what follows it to its start.
    """
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
        return split_text(text, start, end, count, limit, level + 1, glue)
    atoms: list[_Segment] = []
    for s, e in segments:
        atoms.extend(_Segment(ps, pe) for ps, pe in split_text(text, s, e, count, limit, level + 1, glue))

    def split_again(s: int, e: int, room: int) -> list[tuple[int, int]]:
        return split_text(text, s, e, count, room, level + 1, glue)

    atoms = _glue(text, atoms, count, limit, glue, split_again)
    return [(p.start, p.end) for p in _pack(text, atoms, count, limit)]


def _hard_split(text: str, start: int, end: int, count: TokenCounter, limit: int) -> list[tuple[int, int]]:
    """Last resort for a run with no spaces (long URLs, base64, unspaced CJK): cut by length.

    The largest prefix that fits is found by galloping then bisecting, so each piece costs a few
    counts of about its own length — not counts of the whole remaining run (quadratic on a long run).
    """
    pieces = []
    while start < end:
        low, step = start + 1, max(limit, 1)
        high = min(end, start + step)
        while count(text[start:high]) <= limit:  # gallop: double until a prefix does not fit
            low = high
            if high == end:
                break
            step *= 2
            high = min(end, start + step)
        if low < high:
            while low < high:  # bisect: largest cut in [low, high) whose prefix fits
                middle = (low + high + 1) // 2
                if count(text[start:middle]) <= limit:
                    low = middle
                else:
                    high = middle - 1
        pieces.append((start, low))
        start = low
    return pieces


def _stripped_end(text: str, segment: _Segment) -> int:
    end = segment.end
    while end > segment.start and text[end - 1].isspace():
        end -= 1
    return end


def _glued_start(text: str, segment: _Segment, glue: Mapping[int, int]) -> int | None:
    """Where the run of gluing header lines that ends ``segment`` starts, clipped to the segment
    (``None``: it ends with body). A segment that is the tail of a header line is glued too."""
    end = _stripped_end(text, segment)
    if end not in glue:
        return None
    cut = max(glue[end], segment.start)
    while cut > segment.start:
        end = _stripped_end(text, _Segment(segment.start, cut))
        if end not in glue:
            break
        cut = max(glue[end], segment.start)
    return cut


def _glue(text: str, segments: list[_Segment], count: TokenCounter, limit: int, glue: Mapping[int, int],
          split_again: Callable[[int, int, int], list[tuple[int, int]]],
          solid: Sequence[tuple[int, int]] = (), ceiling: int = 0) -> list[_Segment]:
    """Join every segment that ends with gluing header lines to the segment after it, so no piece
    can end with them.

    When the two do not fit together, the headers are cut off the body before them and go on with
    what follows; when even that does not fit, what follows is cut again to the room the headers
    leave, and the headers join its first piece. When what follows cannot be cut (table rows that
    fit the limit only without the headers), headers and rows make one piece over the limit if it
    stays within ``ceiling``: a few tokens over the max cost less than a cut row or a header cut
    off its table. Last resort (headers that nearly fill the limit by themselves): headers and body
    are cut at a word, never right after a header nor inside a ``solid`` span (furniture).
    """
    if not glue:
        return segments
    pending = segments[::-1]  # a stack: pop() gives the next segment
    out: list[_Segment] = []
    while pending:
        current = pending.pop()
        while pending and not (current.sealed or pending[-1].sealed) \
                and (cut := _glued_start(text, current, glue)) is not None:
            following = pending.pop()
            if count(current.header + text[current.start:following.end]) <= limit:
                current = _Segment(current.start, following.end, current.header)
                continue
            if cut > current.start:  # the body before the headers stands alone; the headers go on
                out.append(_Segment(current.start, _stripped_end(text, _Segment(current.start, cut)), current.header))
                current = _Segment(cut, current.end)
                pending.append(following)
                continue
            room = limit - count(current.header + text[current.start:following.start]) - 1
            pieces = split_again(following.start, following.end, room) if room > 0 and not following.whole else []
            if len(pieces) > 1:
                first = _Segment(current.start, pieces[0][1], current.header)
                if (count(first.header + text[first.start:first.end]) <= limit
                        and _glued_start(text, first, glue) is None):
                    pending.extend(_Segment(s, e, following.header) for s, e in reversed(pieces[1:]))
                    current = first
                    continue
            if following.whole and count(current.header + text[current.start:following.end]) <= ceiling:
                current = _Segment(current.start, following.end, current.header, whole=True)
                continue
            # Last resort: the headers nearly fill the limit by themselves. Cut at a word, never right
            # after a header: inside the headers when what follows is whole table rows, else anywhere.
            keep = _fitting_tail(text, current, following, count, limit, glue) if following.whole else None
            if keep is not None:
                out.extend(_pack_words(text, current.start, _stripped_end(text, _Segment(current.start, keep)),
                                       current.header, count, limit, glue, solid))
                current = _Segment(keep, following.end)
                continue
            *done, current = _pack_words(text, current.start, following.end, current.header, count, limit, glue,
                                         solid)
            out.extend(done)
        out.append(current)
    return out


def _fitting_tail(text: str, current: _Segment, following: _Segment, count: TokenCounter, limit: int,
                  glue: Mapping[int, int]) -> int | None:
    """The earliest word of ``current`` from which ``current`` and ``following`` fit in ``limit``,
    such that what is left before it does not end with a whole header line."""
    words = [current.start + m.start() for m in re.finditer(r"\S+", text[current.start:current.end])]
    for start in words[1:]:
        if _stripped_end(text, _Segment(current.start, start)) in glue:
            continue
        if count(text[start:following.end]) <= limit:
            return start
    return None


def _pack_words(text: str, start: int, end: int, header: str, count: TokenCounter, limit: int,
                glue: Mapping[int, int], solid: Sequence[tuple[int, int]] = ()) -> list[_Segment]:
    """``text[start:end]`` packed word by word into pieces within ``limit``, a piece never ending
    with the last word of a gluing header when it can give that word to the next piece, and never
    inside a ``solid`` span."""
    words: list[tuple[int, int]] = []
    for match in re.finditer(r"\S+", text[start:end]):
        s, e = start + match.start(), start + match.end()
        inside = next(((a, b) for a, b in solid if a <= s < b), None)
        if inside is not None and words and words[-1][0] >= inside[0]:
            words[-1] = (words[-1][0], e)  # the next word of a solid span joins the word before it
            continue
        words.extend(_hard_split(text, s, e, count, limit) if count(text[s:e]) > limit else [(s, e)])
    if not words:
        return [_Segment(start, end, header)]
    pieces: list[_Segment] = []
    index = 0
    while index < len(words):
        prefix = header if not pieces else ""
        stop = index + 1
        while stop < len(words) and count(prefix + text[words[index][0]:words[stop][1]]) <= limit:
            stop += 1
        while stop < len(words) and stop - 1 > index and words[stop - 1][1] in glue:
            stop -= 1
        pieces.append(_Segment(words[index][0], words[stop - 1][1], prefix))
        index = stop
    return pieces


def _step_count(text: str, gap_start: int, segment: _Segment, count: TokenCounter) -> int:
    """What a segment adds to a piece: its tokens with the gap before it. After a single line break
    and before a letter or digit, cl100k's pre-tokeniser always splits at the break, so the break
    and the segment are counted apart — the break's count is memoised, a table row carries its own
    from when it was cut, where counting them together would tokenise every row a second time."""
    if segment.start - gap_start == 1 and text[gap_start] == "\n" and text[segment.start].isalnum():
        own = segment.own if segment.own is not None else count(text[segment.start:segment.end])
        return count("\n") + own
    return count(text[gap_start:segment.end])


def _table_fits(text: str, segments: list[_Segment], index: int, room: int, count: TokenCounter) -> bool:
    """Whether the table that ``segments[index]`` opens (with its caption) fits in ``room`` tokens, its
    segments priced as :func:`_pack` prices them (stopping as soon as they are over)."""
    total, end = 0, segments[index].table_end
    while index < len(segments) and segments[index].start < end:
        total += _step_count(text, segments[index - 1].end, segments[index], count)
        if total > room:
            return False
        index += 1
    return True


def _adds_up(text: str, gap_start: int, segment: _Segment) -> bool:
    """Whether :func:`_step_count` of a cl100k counter is exactly what the segment adds to the piece
    before it: a single line break between a letter or digit (:data:`~splitters.chunk.WORD_END`) and
    a letter or digit is a token of its own, so the piece's count is the sum (table rows that end
    with a word or a number; one that ends with a mark, ``.`` or ``)``, may share a token with the
    break)."""
    return (segment.start - gap_start == 1 and text[gap_start] == "\n" and text[segment.start].isalnum()
            and gap_start > 0 and WORD_END.match(text, gap_start - 1) is not None)


def _alone_count(text: str, segment: _Segment, count: TokenCounter) -> int:
    """``count(segment.header + text[segment.start:segment.end])``: for a table row that carries its
    own count, and a cl100k counter, its header's count and its own (a header ends with a line break,
    which shares no token with the non-space after it) — a row would otherwise be tokenised again
    with the header before it, once for every piece."""
    if segment.own is not None and counts_cl100k(count) and not text[segment.start].isspace() \
            and (not segment.header or segment.header.endswith("\n")):
        return (count(segment.header) if segment.header else 0) + segment.own
    return count(segment.header + text[segment.start:segment.end])


def _pack(text: str, segments: list[_Segment], count: TokenCounter, limit: int) -> list[_Segment]:
    """Greedy packing of consecutive segments into pieces of at most ``limit`` tokens.

    A candidate is priced as the sum of its segments' counts, each counted with the gap before it;
    the chosen piece is then counted exactly and gives back segments while it is over the limit. A
    sealed segment is a piece on its own. With a cl100k counter, a piece whose every join adds up
    (:func:`_adds_up`: table rows ending with a word or a number) is not counted again: its sum is
    its exact count.
    """
    exact_sums = counts_cl100k(count)
    pieces: list[_Segment] = []
    index = 0
    while index < len(segments):
        first = segments[index]
        if first.sealed:
            pieces.append(first)
            index += 1
            continue
        alone = estimate = _alone_count(text, first, count)
        exact = exact_sums
        stop = index + 1
        while stop < len(segments) and not segments[stop].sealed:
            step = _step_count(text, segments[stop - 1].end, segments[stop], count)
            if estimate + step > limit:
                break
            if segments[stop].table_end >= 0 and not _table_fits(text, segments, stop, limit - estimate, count):
                break  # the table starts the next piece, with its caption, rather than end this one cut
            estimate += step
            exact = exact and _adds_up(text, segments[stop - 1].end, segments[stop])
            stop += 1
        tokens = None
        untrimmed = _trim(text, first.start, segments[stop - 1].end) == (first.start, segments[stop - 1].end)
        if stop > index + 1 and exact and untrimmed:
            tokens = estimate  # exact, and within the limit: a recount would keep every segment
        else:
            while stop > index + 1:
                s, e = _trim(text, first.start, segments[stop - 1].end)
                tokens = count(first.header + text[s:e])
                if tokens <= limit:
                    break
                stop -= 1
        if stop == index + 1:
            tokens = alone if _trim(text, first.start, first.end) == (first.start, first.end) else None
        pieces.append(_Segment(first.start, segments[stop - 1].end, first.header, tokens=tokens))
        index = stop
    return pieces


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
    header lines glued to whole table rows, which may reach ``ceiling`` (see :func:`_glue`)."""
    pieces = split_span(doc, chunk.start, chunk.end, count, limit, outline, ceiling, chunk.header, chunk.group,
                        chunk.heading_path)
    return [chunk] if pieces is None else pieces


def split_span(doc: Document, start: int, end: int, count: TokenCounter, limit: int, outline: Outline | None = None,
               ceiling: int = 0, header: str = "", group: str = "",
               heading_path: tuple[str, ...] = ()) -> list[Chunk] | None:
    """:func:`split_chunk` of ``header + doc.text[start:end]``, for a caller that knows the span is
    over the max without counting it (a tall sheet); ``None`` when the span touches no block's text."""
    text = doc.text
    glue = outline.glue_ends if outline is not None else _NO_GLUE
    starts = outline.block_starts if outline is not None else block_starts(doc)
    segments: list[_Segment] = []
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
            local[_stripped_end(text, _Segment(s, e))] = s
            segments.append(_Segment(s, e, whole=True))
        elif block.table is not None:  # by rows, even if the table alone would fit: its piece may not
            caption = "".join(text[segments[i].start:segments[i].end].strip() + "\n" for i in captions)
            rows = _row_segments(text, block.table, b_start, s, e, count, limit, caption)
            opens = captions[0] if captions else len(segments)  # where a piece should start
            segments.extend(rows)
            if rows:
                segments[opens] = replace(segments[opens], table_end=rows[-1].end)
                table_open = opens
            captions = []
        else:
            segments.extend(_Segment(ps, pe) for ps, pe in split_text(text, s, e, count, limit, 0, glue))
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
    segments = _glue(text, segments, count, limit, ChainMap(local, glue) if local else glue, split_again, solid,
                     ceiling)
    if tables:  # gluing may have joined a table's opening to the lines before it: mark what holds it
        starts = [segment.start for segment in segments]
        for opening, table_end in tables:
            index = bisect.bisect_right(starts, opening) - 1
            if index >= 0 and segments[index].table_end < 0:
                segments[index] = replace(segments[index], table_end=table_end)
    pieces: list[Chunk] = []
    for piece in _pack(text, segments, count, limit):
        s, e = _trim(text, piece.start, piece.end)
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
    title, a table number, a unit), not a list item or a table."""
    line = block.text.strip()
    return (block.kind != "furniture" and block.table is None and 0 < len(line) <= _CAPTION_CHARS
            and "\n" not in line and not _SENTENCE.search(line))


def _row_segments(text: str, table: Table, block_start: int, start: int, end: int, count: TokenCounter,
                  limit: int, caption: str = "") -> list[_Segment]:
    """A table's rows as segments that are never cut (unless a row alone is over the limit): the
    header rows together with the first data row (a header is not left without a row), then one per
    data row, each carrying the header to repeat if a piece starts with it — after the table's
    ``caption`` (its title and unit lines, when the lines before it are short), so a piece that starts
    inside the table still says which table it is.

    A row over the limit is cut at words, each piece carrying the whole header — unless the header
    is over a quarter of the limit (a wide table: the header would crowd out the row, and repeating
    it on each piece costs rows × columns²). Then the row is cut into column groups
    (:mod:`splitters.columns`): sealed segments, each repeating only its own columns' header cells,
    each its own merge group (``group#columns@start``) so no merge joins it to a neighbour."""
    header = table.header_text + "\n"
    wide = len(table.rows[0]) > 1 and count(header) > limit // 4
    if caption and not wide and count(caption + header) <= limit // 4:
        header = caption + header
    rows = spans = _row_spans(table, block_start)
    head = min(table.header_rows + 1, len(spans))
    opening = 0  # the last row of the first segment
    if head and count(text[spans[0][0]:spans[head - 1][1]]) <= limit:
        spans, opening = [(spans[0][0], spans[head - 1][1], 0), *spans[head:]], head - 1
    elif 0 < table.header_rows <= len(spans):
        spans, opening = [(spans[0][0], spans[table.header_rows - 1][1], 0), *spans[table.header_rows:]], \
            table.header_rows - 1
    key = wide and has_key_column(table)

    def cut(s: int, e: int, room: int) -> list[tuple[int, int]]:
        return split_text(text, s, e, count, room)

    segments: list[_Segment] = []
    label_end = -1  # where the last row ends, when it is a group label (see _is_group_label)
    groups = _GroupColumns(table)
    for row_start, row_end, row_index in spans:
        carried = groups.read(opening if row_index == 0 else row_index)  # every row, skipped ones too
        rs, re_ = max(row_start, start), min(row_end, end)
        if rs >= re_:
            continue
        row_header = header + carried if row_index >= table.header_rows else ""
        room = limit - count(row_header)
        if wide and (rs, re_) == (row_start, row_end) and count(text[rs:re_]) > max(room, 1):
            data = row_index >= table.header_rows
            for index in [row_index] if data else range(table.header_rows):  # header rows one by one
                groups_of_row = [_Segment(s, e, prefix, whole=True, sealed=data) for s, e, prefix
                                 in column_groups(text, table, index, rows[index][0], count, limit, cut, key)]
                if data and segments and not segments[-1].sealed and segments[-1].start == rows[0][0]:
                    groups_of_row = _open_with_header(text, segments.pop(), groups_of_row, count, limit, cut)
                segments.extend(groups_of_row)
            label_end = -1
            continue
        pieces = split_text(text, rs, re_, count, max(room, 1))
        if len(pieces) == 1:  # a whole row: its count goes with it, for packing
            (ps, pe), = pieces
            segment = _Segment(ps, pe, row_header, True, own=count(text[ps:pe]))
            previous = segments[-1] if segments else None
            if previous is not None and label_end == previous.end and previous.whole and not previous.sealed \
                    and count(previous.header + text[previous.start:pe]) <= limit:
                segment = _Segment(previous.start, pe, previous.header, True)  # a group label and its first row
                segments.pop()
            segments.append(segment)
            label_end = pe if row_index >= table.header_rows and _is_group_label(table, row_index) else -1
        else:
            segments.extend(_Segment(ps, pe, row_header) for ps, pe in pieces)
            label_end = -1
    return segments


class _GroupColumns:
    """A sheet's group columns, and what they hold above each row.

    A sheet often names a group once, on its first row, and leaves the group's column blank on the
    rows below (``회원관리 | 로그인 | …`` then `` | 회원가입 | …``; not merged: merged ranges are
    filled by :mod:`parsers.tables`). A piece that starts inside such a group would hold its rows
    without their group. :meth:`read` gives, for a data row whose leading cells are blank, the last
    values of those columns above it as one line (``회원관리``) to repeat after the header rows,
    as the header is; the document's text is not altered.

    A leading column is a group column only when it reads as one (see :meth:`_find`): blank on at
    least as many rows (with text to its right) as it is filled on — groups of two rows or more —
    and changing value on most rows where it is filled. A column of ``O`` marks, a column filled on
    most rows and blank where a table beside it runs on, are not; their blanks stay blank. Only a sheet's rows
    (:class:`~parsers.model.PackedRows`) are read: a sheet cut into row groups is where a piece
    starts mid-group. Two passes over the rows, each reading only the leading cells of a line.
    """

    #: How many leading columns are looked at (a group hierarchy is a few columns deep).
    DEPTH = 4

    def __init__(self, table: Table) -> None:
        self.table = table
        self.depth = self._find() if isinstance(table.rows, PackedRows) else 0
        self.last = [""] * self.depth
        self.next = 0  # the next row to read

    def _leading(self, index: int) -> list[str]:
        rows = self.table.rows
        cells = rows.odd.get(index) if isinstance(rows, PackedRows) else None
        if cells is None:
            cells = self.table.row_text(index).split(CELL_SEPARATOR, self.DEPTH)
        return list(cells[:self.DEPTH + 1])

    def _find(self) -> int:
        """How many leading columns are group columns (0: none)."""
        depth = min(self.DEPTH, max(self.table.rows.width - 1, 0))
        blank_below = [0] * depth  # rows blank in the column, with text to its right
        filled = [0] * depth
        repeated = [0] * depth  # filled with the value the column last held
        last = [""] * depth
        for index in range(self.table.header_rows, len(self.table.rows)):
            cells = self._leading(index)
            for column in range(depth):
                cell = cells[column] if column < len(cells) else ""
                if cell:
                    filled[column] += 1
                    repeated[column] += cell == last[column]
                    last[column] = cell
                elif len(cells) > column + 1:
                    blank_below[column] += 1
        found = 0
        while found < depth and 0 < filled[found] <= blank_below[found] and 2 * repeated[found] < filled[found]:
            found += 1
        return found

    def read(self, index: int) -> str:
        """The group values to repeat before row ``index`` when a piece starts with it ("" if none),
        once the rows up to it are read (rows are read in order, each once)."""
        carried = ""
        while self.depth and self.next <= index:
            carried = self._take(self.next) if self.next >= self.table.header_rows else ""
            self.next += 1
        return carried

    def _take(self, index: int) -> str:
        cells = self._leading(index)
        blank = 0
        while blank < self.depth and blank < len(cells) - 1 and not cells[blank]:
            blank += 1
        carried = self.last[:blank] if blank and self.last[0] else []
        # The row's own cells from its first filled one on name its groups, deeper ones included
        # (a row that opens a group and leaves its sub-group blank has none).
        self.last[blank:] = [cells[c] if c < len(cells) else "" for c in range(blank, self.depth)]
        while carried and not carried[-1]:
            carried.pop()
        return CELL_SEPARATOR.join(carried) + "\n" if carried else ""


def _is_group_label(table: Table, index: int) -> bool:
    """Whether a row of a document's table only names the group of rows under it ("2. 공공부문
    마이데이터 활성화", "6. 계약의 체결 또는 이행 과정에서 …"): one value, in one cell or spread over
    merged ones. A piece never ends with it: its rows would be cut from their group. (A sheet's
    packed rows are not looked at: a sheet's group column repeats on every row or stays blank.)"""
    if isinstance(table.rows, PackedRows):
        return False
    cells = table.rows[index]
    return len(cells) > 1 and len({cell for cell in cells if cell}) == 1


def _open_with_header(text: str, head: _Segment, groups: list[_Segment], count: TokenCounter, limit: int,
                      cut: Callable[[int, int, int], list[tuple[int, int]]]) -> list[_Segment]:
    """A wide table's header rows glued to the opening cells of its first data row, when that row is
    cut into column groups: header rows alone make a chunk no question about a value can use. The
    row's first group is cut again where the header leaves it too little room; header rows that
    leave no room for a word of the row stay on their own."""
    first = groups[0]
    if count(text[head.start:first.end]) <= limit:
        return [replace(first, start=head.start, header=""), *groups[1:]]
    room = limit - count(text[head.start:head.end] + "\n")
    if room <= 0:
        return [head, *groups]
    pieces = cut(first.start, first.end, room)
    opening_end = pieces[0][1]
    if count(text[head.start:opening_end]) > limit:
        return [head, *groups]
    rest = [_Segment(s, e, first.header, whole=True, sealed=True) for s, e in pieces[1:]]
    return [replace(first, start=head.start, end=opening_end, header=""), *rest, *groups[1:]]


def _row_spans(table: Table, block_start: int) -> list[tuple[int, int, int]]:
    spans = []
    position = block_start
    for index in range(len(table.rows)):
        length = len(table.row_text(index))
        spans.append((position, position + length, index))
        position += length + 1
    return spans


# --------------------------------------------------------------------------------- keep with next


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


# ---------------------------------------------------------------------------------------- merging


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
                spans = _row_spans(block.table, b_start)
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


__all__ = ["BLOCK_SEPARATOR", "block_starts", "block_units", "fit_to_budget", "keep_headers_with_next", "locate",
           "make_chunk", "merge_small", "pack_units", "split_chunk", "split_span", "split_text", "trim"]
