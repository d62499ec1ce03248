"""Cutting a span of text into pieces within a token limit, at the strongest boundaries.

:func:`split_text` cuts ``text[start:end]`` at the strongest boundary that makes pieces fit —
a line that ends a sentence or opens an item, a sentence end, any line break, a space, and as a
last resort a hard cut by length — then glues header lines to what follows them and packs the
pieces greedily up to the limit. A :class:`Segment` is one such piece, with what a piece that
starts with it must repeat (a table's header rows) and whether it may be cut again. The budget
(:mod:`splitters.budget`) and a table's rows (:mod:`splitters.table_rows`) build on it.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from parsers.model import Document
from splitters.chunk import WORD_END, Chunk, TokenCounter, counts_cl100k

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


NO_GLUE: Mapping[int, int] = {}


def make_chunk(doc: Document, start: int, end: int, count: TokenCounter, header: str = "", tokens: int | None = None,
               **fields) -> Chunk:
    """A chunk of ``header + doc.text[start:end]``; ``tokens``, when the caller already counted that text."""
    text = header + doc.text[start:end]
    return Chunk(text=text, start=start, end=end, tokens=count(text) if tokens is None else tokens, header=header,
                 **fields)


def trim(doc: Document, start: int, end: int) -> tuple[int, int]:
    """Shrink a span so it neither starts nor ends with whitespace."""
    return trim_text(doc.text, start, end)


def trim_text(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


@dataclass(frozen=True, slots=True)
class Segment:
    start: int
    end: int
    header: str = ""  # table header rows to prefix if a piece starts with this segment
    whole: bool = False  # table rows, furniture: never cut again to make room
    sealed: bool = False  # a column group of a wide row: a piece on its own (its header fits it alone)
    tokens: int | None = None  # a packed piece: the count of its header and trimmed span, when known
    own: int | None = None  # the count of text[start:end] alone, when known (a table row: counted when cut)
    table_end: int = -1  # a table's caption or first rows: where the table ends (a piece starts here, see pack_segments)


def split_text(text: str, start: int, end: int, count: TokenCounter, limit: int, level: int = 0,
               glue: Mapping[int, int] = NO_GLUE) -> list[tuple[int, int]]:
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
    atoms: list[Segment] = []
    for s, e in segments:
        atoms.extend(Segment(ps, pe) for ps, pe in split_text(text, s, e, count, limit, level + 1, glue))

    def split_again(s: int, e: int, room: int) -> list[tuple[int, int]]:
        return split_text(text, s, e, count, room, level + 1, glue)

    atoms = glue_segments(text, atoms, count, limit, glue, split_again)
    return [(p.start, p.end) for p in pack_segments(text, atoms, count, limit)]


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


def stripped_end(text: str, segment: Segment) -> int:
    end = segment.end
    while end > segment.start and text[end - 1].isspace():
        end -= 1
    return end


def _glued_start(text: str, segment: Segment, glue: Mapping[int, int]) -> int | None:
    """Where the run of gluing header lines that ends ``segment`` starts, clipped to the segment
    (``None``: it ends with body). A segment that is the tail of a header line is glued too."""
    end = stripped_end(text, segment)
    if end not in glue:
        return None
    cut = max(glue[end], segment.start)
    while cut > segment.start:
        end = stripped_end(text, Segment(segment.start, cut))
        if end not in glue:
            break
        cut = max(glue[end], segment.start)
    return cut


def glue_segments(text: str, segments: list[Segment], count: TokenCounter, limit: int, glue: Mapping[int, int],
          split_again: Callable[[int, int, int], list[tuple[int, int]]],
          solid: Sequence[tuple[int, int]] = (), ceiling: int = 0) -> list[Segment]:
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
    out: list[Segment] = []
    while pending:
        current = pending.pop()
        while pending and not (current.sealed or pending[-1].sealed) \
                and (cut := _glued_start(text, current, glue)) is not None:
            following = pending.pop()
            if count(current.header + text[current.start:following.end]) <= limit:
                current = Segment(current.start, following.end, current.header)
                continue
            if cut > current.start:  # the body before the headers stands alone; the headers go on
                out.append(Segment(current.start, stripped_end(text, Segment(current.start, cut)), current.header))
                current = Segment(cut, current.end)
                pending.append(following)
                continue
            room = limit - count(current.header + text[current.start:following.start]) - 1
            pieces = split_again(following.start, following.end, room) if room > 0 and not following.whole else []
            if len(pieces) > 1:
                first = Segment(current.start, pieces[0][1], current.header)
                if (count(first.header + text[first.start:first.end]) <= limit
                        and _glued_start(text, first, glue) is None):
                    pending.extend(Segment(s, e, following.header) for s, e in reversed(pieces[1:]))
                    current = first
                    continue
            if following.whole and count(current.header + text[current.start:following.end]) <= ceiling:
                current = Segment(current.start, following.end, current.header, whole=True)
                continue
            # Last resort: the headers nearly fill the limit by themselves. Cut at a word, never right
            # after a header: inside the headers when what follows is whole table rows, else anywhere.
            # (rows that cannot be cut may take the headers' tail up to the ceiling, as above)
            keep = _fitting_tail(text, current, following, count, max(limit, ceiling), glue, solid) \
                if following.whole else None
            if keep is not None:
                out.extend(_pack_words(text, current.start, stripped_end(text, Segment(current.start, keep)),
                                       current.header, count, limit, glue, solid))
                current = Segment(keep, following.end)
                continue
            *done, current = _pack_words(text, current.start, following.end, current.header, count, limit, glue,
                                         solid)
            out.extend(done)
        out.append(current)
    return out


def _fitting_tail(text: str, current: Segment, following: Segment, count: TokenCounter, limit: int,
                  glue: Mapping[int, int], solid: Sequence[tuple[int, int]] = ()) -> int | None:
    """The earliest word of ``current`` from which ``current`` and ``following`` fit in ``limit``,
    such that what is left before it does not end with a whole header line, nor is it inside a
    ``solid`` span (furniture: ``- 2 -`` is not cut after its first dash)."""
    words = [current.start + m.start() for m in re.finditer(r"\S+", text[current.start:current.end])]
    for start in words[1:]:
        if stripped_end(text, Segment(current.start, start)) in glue or any(a < start < b for a, b in solid):
            continue
        if count(text[start:following.end]) <= limit:
            return start
    return None


def _pack_words(text: str, start: int, end: int, header: str, count: TokenCounter, limit: int,
                glue: Mapping[int, int], solid: Sequence[tuple[int, int]] = ()) -> list[Segment]:
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
        return [Segment(start, end, header)]
    pieces: list[Segment] = []
    index = 0
    while index < len(words):
        prefix = header if not pieces else ""
        stop = index + 1
        while stop < len(words) and count(prefix + text[words[index][0]:words[stop][1]]) <= limit:
            stop += 1
        while stop < len(words) and stop - 1 > index and words[stop - 1][1] in glue:
            stop -= 1
        pieces.append(Segment(words[index][0], words[stop - 1][1], prefix))
        index = stop
    return pieces


def _step_count(text: str, gap_start: int, segment: Segment, count: TokenCounter) -> int:
    """What a segment adds to a piece: its tokens with the gap before it. After a single line break
    and before a letter or digit, cl100k's pre-tokeniser always splits at the break, so the break
    and the segment are counted apart — the break's count is memoised, a table row carries its own
    from when it was cut, where counting them together would tokenise every row a second time."""
    if segment.start - gap_start == 1 and text[gap_start] == "\n" and text[segment.start].isalnum():
        own = segment.own if segment.own is not None else count(text[segment.start:segment.end])
        return count("\n") + own
    return count(text[gap_start:segment.end])


def _table_fits(text: str, segments: list[Segment], index: int, room: int, count: TokenCounter) -> bool:
    """Whether the table that ``segments[index]`` opens (with its caption) fits in ``room`` tokens, its
    segments priced as :func:`pack_segments` prices them (stopping as soon as they are over)."""
    total, end = 0, segments[index].table_end
    while index < len(segments) and segments[index].start < end:
        total += _step_count(text, segments[index - 1].end, segments[index], count)
        if total > room:
            return False
        index += 1
    return True


def _adds_up(text: str, gap_start: int, segment: Segment) -> bool:
    """Whether :func:`_step_count` of a cl100k counter is exactly what the segment adds to the piece
    before it: a single line break between a letter or digit (:data:`~splitters.chunk.WORD_END`) and
    a letter or digit is a token of its own, so the piece's count is the sum (table rows that end
    with a word or a number; one that ends with a mark, ``.`` or ``)``, may share a token with the
    break)."""
    return (segment.start - gap_start == 1 and text[gap_start] == "\n" and text[segment.start].isalnum()
            and gap_start > 0 and WORD_END.match(text, gap_start - 1) is not None)


def _alone_count(text: str, segment: Segment, count: TokenCounter) -> int:
    """``count(segment.header + text[segment.start:segment.end])``: for a table row that carries its
    own count, and a cl100k counter, its header's count and its own (a header ends with a line break,
    which shares no token with the non-space after it) — a row would otherwise be tokenised again
    with the header before it, once for every piece."""
    if segment.own is not None and counts_cl100k(count) and not text[segment.start].isspace() \
            and (not segment.header or segment.header.endswith("\n")):
        return (count(segment.header) if segment.header else 0) + segment.own
    return count(segment.header + text[segment.start:segment.end])


def pack_segments(text: str, segments: list[Segment], count: TokenCounter, limit: int) -> list[Segment]:
    """Greedy packing of consecutive segments into pieces of at most ``limit`` tokens.

    A candidate is priced as the sum of its segments' counts, each counted with the gap before it;
    the chosen piece is then counted exactly and gives back segments while it is over the limit. A
    sealed segment is a piece on its own. With a cl100k counter, a piece whose every join adds up
    (:func:`_adds_up`: table rows ending with a word or a number) is not counted again: its sum is
    its exact count.
    """
    exact_sums = counts_cl100k(count)
    pieces: list[Segment] = []
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
        untrimmed = trim_text(text, first.start, segments[stop - 1].end) == (first.start, segments[stop - 1].end)
        if stop > index + 1 and exact and untrimmed:
            tokens = estimate  # exact, and within the limit: a recount would keep every segment
        else:
            while stop > index + 1:
                s, e = trim_text(text, first.start, segments[stop - 1].end)
                tokens = count(first.header + text[s:e])
                if tokens <= limit:
                    break
                stop -= 1
        if stop == index + 1:
            tokens = alone if trim_text(text, first.start, first.end) == (first.start, first.end) else None
        pieces.append(Segment(first.start, segments[stop - 1].end, first.header, tokens=tokens))
        index = stop
    return pieces
