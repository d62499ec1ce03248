"""Page furniture in a PDF: running headers and footers, page numbers, section badges, margin labels.

Lines (and banner tables) at the top or bottom of the page that repeat on most pages, or on most odd
or most even pages (digits do not count when comparing), become ``furniture`` blocks: set aside with
their pages, not deleted. So do running footers whose text changes by chapter beside a page number
that follows the pages (:func:`numbered_series`), and rotated text in the side margins.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from parsers.pdf.page import PARAGRAPH_GAP, FoundTable, Line, Page

#: Share of the page height at the top and bottom where running headers and footers live.
EDGE_BAND = 0.1


#: A line repeated (digits ignored) in the edge band of this share of pages is furniture ...
REPEAT_SHARE = 0.6


#: ... and so is one repeated on this share of the odd pages, or of the even ones (left and right
#: running headers; a cover and a table of contents without them make the share smaller).
PARITY_SHARE = 0.5


#: Running footers (or headers) that carry the page number beside a text that changes (the chapter's
#: title) form a series on at least this many pages, and this share of the pages with text.
SERIES_PAGES = 3


SERIES_SHARE = 0.2


#: A bare number set at least this many times the body size may be a section badge.
BADGE_SIZE = 2.0


_DIGITS = re.compile(r"\d+")


#: A section badge's text: a number of one or two digits (see :func:`_section_badges`).
_BADGE = re.compile(r"^\d{1,2}$")


#: A line that carries a page number before or after its text ("Chapter 3. Row and Column Access
#: Control 27", "© Copyright IBM Corp. 2014. All rights reserved. iii", "28 Row and Column …").
_NUMBERED_LINE = re.compile(
    r"^(?:(?P<lead>\d{1,4}|[ivxlc]{1,7})\s+(?P<after>.*\S)|(?P<before>.*\S)\s+(?P<trail>\d{1,4}|[ivxlc]{1,7}))$")


_ROMAN = re.compile(r"^m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$")


_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}


#: Dot leaders: a table of contents' line, whose page number is no running footer's.
_LEADERS = re.compile(r"(?:\.\s?){4,}|…{2,}|·{4,}")


_PAGE_NUMBER = re.compile(
    r"^(?:[-–—]\s*\d+\s*[-–—]|\d+|\d+\s*/\s*\d+|(?:page|p\.)\s*\d+(?:\s*(?:of|/)\s*\d+)?|\d+\s*쪽|\d+\s*페이지)$",
    re.IGNORECASE,
)


LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)


def _in_edge_band(top: float, bottom: float, page: Page) -> bool:
    """Whether a box starts in the top band of its page or ends in the bottom band."""
    return page.height > 0 and (top < page.height * EDGE_BAND or bottom > page.height * (1 - EDGE_BAND))


def _edge_key(line: Line, page: Page) -> str | None:
    """A line in the top or bottom band of its page, as its digit-free text and its rounded height
    (a running header and a same-titled heading in a larger size are different lines), else None."""
    if _in_edge_band(line.top, line.bottom, page):
        return f"{_DIGITS.sub('#', line.text)}@{round(line.height)}"
    return None


def table_key(found: FoundTable, page: Page) -> str | None:
    """A table in an edge band (a banner of section tabs), as its digit-free text, else None."""
    if _in_edge_band(found.bbox[1], found.bbox[3], page):
        return "table:" + _DIGITS.sub("#", found.table.render())
    return None


def furniture_lines(pages: Sequence[Page]) -> set[str]:
    """Keys (:func:`_edge_key`, :func:`table_key`) of edge-band lines and tables that repeat on
    most pages — or on most odd or most even pages, as the left and right running headers of a
    document printed for binding."""
    # A page printed twice is one page here: its lines repeating are no sign of a running header.
    distinct = {tuple(line.text for line in p.lines): p for p in reversed(pages) if p.lines}
    with_text = sorted(distinct.values(), key=lambda p: p.number)
    if len(with_text) < 2:
        return set()
    repeated: set[str] = set()
    odd, even = [p for p in with_text if p.number % 2], [p for p in with_text if not p.number % 2]
    for group, share in ((with_text, REPEAT_SHARE), (odd, PARITY_SHARE), (even, PARITY_SHARE)):
        counts: Counter[str] = Counter()
        for page in group:
            keys = {_edge_key(line, page) for line in page.lines} | {table_key(t, page) for t in page.tables}
            counts.update(keys - {None})
        needed = max(2, share * len(group))
        repeated |= {key for key, n in counts.items() if n >= needed}
    repeated -= _table_heads(with_text, repeated)
    body = _body_size(with_text)
    return repeated | _numbered_series(with_text, body) | _section_badges(with_text, body)


#: A repeated top line set closer than this many of its heights above the line below it, in that
#: line's size, heads the body (a table's header row printed again on every page it runs over).
HEAD_GAP = 1.0


def _table_heads(pages: Sequence[Page], repeated: set[str]) -> set[str]:
    """The keys of ``repeated`` that are a table's header row printed again on each page, not a
    running header: a line of words in the top band which, on most of the pages that hold it, sits
    closer than :data:`HEAD_GAP` of its height above the next line, in that line's size.

    Why: a long table without rules (a 52-page reference of actions and their parameter sets)
    repeats its header on every page, so it was set aside with the running headers and no chunk
    said what its columns were. A running header stands apart from the body, a paragraph's gap or
    more above it and mostly in another size (measured over the real PDFs here: 1.6 to 6.3 of its
    height, against 0.75 for that table's header)."""
    tight: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for page in pages:
        lines = sorted((line for line in page.lines if not line.turned), key=lambda line: line.top)
        for above, below in itertools.pairwise(lines):
            key = _edge_key(above, page)
            if key not in repeated or above.top >= page.height * EDGE_BAND or not LETTERS.search(above.text):
                continue
            seen[key] += 1
            gap = below.top - above.bottom
            if 0 <= gap < HEAD_GAP * above.height and above.size > 0 and abs(above.size - below.size) < 0.5 \
                    and _edge_key(below, page) not in repeated:
                tight[key] += 1
    return {key for key, count in tight.items() if count >= 2 and 2 * count > seen[key]}


def _body_size(pages: Sequence[Page]) -> float:
    """The size most of the text is set in (by characters), 0 without sized text."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            if line.size > 0:
                sizes[line.size] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _section_badges(pages: Sequence[Page], body: float) -> set[str]:
    """Keys (:func:`_badge_key`) of section badges: a bare number of one or two digits set at least
    :data:`BADGE_SIZE` times the body text's size, one style (size to the point) numbering the
    document's sections 1, 2, 3, … in page order ("01" beside "들어가며", "02" beside the next
    section's title). The number is an ornament of the heading beside it (which stays); read as
    text it lands inside a sentence of the other column. A lone large number, or large numbers
    that do not count up one by one (a chart's callout figures), stay text."""
    if body <= 0:
        return set()
    styles: dict[int, list[tuple[int, int, str]]] = {}  # size -> (value, page, key)
    for page in pages:
        for line in page.lines:
            if _BADGE.match(line.text) and not line.turned and line.size >= BADGE_SIZE * body:
                styles.setdefault(round(line.size), []).append((int(line.text), page.number, _badge_key(line, page)))
    keys: set[str] = set()
    for badges in styles.values():
        badges.sort()
        values = [value for value, _, _ in badges]
        numbering = values == list(range(values[0], values[0] + len(values)))
        in_page_order = all(a[1] <= b[1] for a, b in itertools.pairwise(badges))
        if len(badges) >= 2 and numbering and in_page_order:
            keys |= {key for _, _, key in badges}
    return keys


def _badge_key(line: Line, page: Page) -> str:
    """One line on one page (a section badge)."""
    return f"badge:{page.number}:{line.top:.2f}:{line.text}"


def _numbered_series(pages: Sequence[Page], body: float) -> set[str]:
    """Keys (:func:`_series_key`) of running footers and headers whose text changes (the chapter's
    title) beside a page number that follows the page sequence.

    A candidate is the outermost line of a page's top or bottom band (rotated text and bare page
    numbers aside), set off from the body by a paragraph's gap, no larger than the body text, that
    starts or ends in a page number (arabic or lower-case roman), without dot leaders. Candidates at
    the same place — band, side of the number, height, within two points of each other — form a
    series, and the longest run of them whose numbers follow the pages is furniture when it covers
    :data:`SERIES_PAGES` pages and :data:`SERIES_SHARE` of the pages with text. Following the pages:
    a later page's number exceeds an earlier one's by at least the pages between them (a document
    of sampled pages skips more, never fewer; left and right pages are separate series, the number
    being on their outer sides), and roman front matter may give way to arabic numbers once."""
    if body <= 0:
        return set()
    groups: dict[tuple[str, str, int], list[_Candidate]] = {}
    for index, page in enumerate(pages):
        lines = [x for x in page.lines if not x.turned and not _PAGE_NUMBER.match(x.text)]
        if not lines:
            continue
        for band, line in (("top", min(lines, key=lambda x: x.top)), ("bottom", max(lines, key=lambda x: x.bottom))):
            number = _page_number_of(line, page, band, lines, body)
            if number is not None:
                side, kind, value, text = number
                groups.setdefault((band, side, round(line.height)), []).append(
                    _Candidate(line.top, kind, value - index, index, line, text))
    with_text = sum(1 for page in pages if page.lines)
    keys: set[str] = set()
    for candidates in groups.values():
        candidates.sort(key=lambda c: c.top)
        place: list[_Candidate] = []
        for candidate in candidates:  # one place: tops within two points of the one before
            if place and candidate.top - place[-1].top > 2.0:
                keys |= _following_pages(place, pages, with_text)
                place = []
            place.append(candidate)
        keys |= _following_pages(place, pages, with_text)
    return keys


class _Candidate(NamedTuple):
    """A line that may be a numbered running footer or header (see :func:`_numbered_series`)."""

    top: float
    kind: int  # 0: a roman page number, 1: an arabic one
    offset: int  # the page number less the page's index
    index: int  # the page's index
    line: Line
    text: str  # the line without its page number


def _page_number_of(line: Line, page: Page, band: str, lines: Sequence[Line],
                    body: float) -> tuple[str, int, int, str] | None:
    """``(side, kind, number, text)`` of a candidate line (see :func:`_numbered_series`): the side its
    page number is on, 0 for a roman number and 1 for an arabic one, its value and the line's text
    without it; else None."""
    if not _in_edge_band(line.top, line.bottom, page) or (line.size and line.size > body + 0.25):
        return None
    match = _NUMBERED_LINE.match(line.text)
    if match is None or _LEADERS.search(line.text):
        return None
    text, number = (match["after"], match["lead"]) if match["lead"] else (match["before"], match["trail"])
    if len(LETTERS.findall(text)) < 2:
        return None
    if number.isdigit():
        kind, value = 1, int(number)
    elif _ROMAN.match(number):
        kind, value = 0, _roman_value(number)
    else:
        return None
    # Set off from the body: no other line within a paragraph's gap on its inner side.
    gap = PARAGRAPH_GAP * line.height
    if band == "bottom":
        inner = [x.bottom for x in lines if x is not line and x.top < line.top - 0.5 * line.height]
        if inner and line.top - max(inner) < gap:
            return None
    else:
        inner = [x.top for x in lines if x is not line and x.bottom > line.bottom + 0.5 * line.height]
        if inner and min(inner) - line.bottom < gap:
            return None
    return ("lead" if match["lead"] else "trail"), kind, value, text


def _roman_value(numeral: str) -> int:
    values = [_ROMAN_VALUES[c] for c in numeral]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def _following_pages(place: Sequence[_Candidate], pages: Sequence[Page], with_text: int) -> set[str]:
    """The keys of the longest run of candidates at one place whose numbers follow the pages: in
    page order, (kind, number - page index) never decreasing (a longest non-decreasing
    subsequence) — when some text in it recurs (a chapter's title on its pages, a constant
    footer): headings numbered 1, 2, 3 atop pages 1, 2, 3 follow the pages too, but never
    repeat."""
    if len(place) < SERIES_PAGES:
        return set()
    ordered = sorted(place, key=lambda c: c.index)
    tails: list[tuple[int, int]] = []  # smallest last key of a run of each length
    tail_at: list[int] = []
    previous: list[int] = []
    for position, candidate in enumerate(ordered):
        key = (candidate.kind, candidate.offset)
        length = bisect.bisect_right(tails, key)
        previous.append(tail_at[length - 1] if length else -1)
        if length == len(tails):
            tails.append(key)
            tail_at.append(position)
        else:
            tails[length], tail_at[length] = key, position
    if len(tails) < max(SERIES_PAGES, SERIES_SHARE * with_text):
        return set()
    run: list[_Candidate] = []
    position = tail_at[-1]
    while position >= 0:
        run.append(ordered[position])
        position = previous[position]
    if len({c.text for c in run}) == len(run):
        return set()
    return {_series_key(c.line, pages[c.index]) for c in run}


def _series_key(line: Line, page: Page) -> str:
    """One line on one page (a member of a numbered series)."""
    return f"series:{page.number}:{line.top:.2f}:{line.text}"


def is_furniture(line: Line, page: Page, repeated: set[str]) -> bool:
    if line.turned and _in_margin(line, page):
        return True
    if _BADGE.match(line.text) and _badge_key(line, page) in repeated:
        return True
    key = _edge_key(line, page)
    if key is None:
        return False
    return key in repeated or bool(_PAGE_NUMBER.match(line.text)) or _series_key(line, page) in repeated


def _in_margin(line: Line, page: Page) -> bool:
    """Whether a line lies in the page's left or right margin band (:data:`EDGE_BAND` of its width),
    clear of every upright line and table: a rotated label there (a printer's job slug up the
    edge, a "PROPOSALS" sidebar, a figure's file tag) is no part of the body. Rotated text among
    the body's columns (a table's column header, a turned figure label) stays text, and so does a
    page whose text is mostly rotated (landscape text set on a portrait page, its page number
    upright)."""
    if page.width <= 0 or not (line.x1 <= page.width * EDGE_BAND or line.x0 >= page.width * (1 - EDGE_BAND)):
        return False
    boxes = [(x.x0, x.x1) for x in page.lines if not x.turned] + [(t.bbox[0], t.bbox[2]) for t in page.tables]
    if not boxes or sum(len(x.text) for x in page.lines if x.turned) * 2 > sum(len(x.text) for x in page.lines):
        return False
    return line.x1 <= min(b[0] for b in boxes) or line.x0 >= max(b[1] for b in boxes)
