"""A PDF page's text layer, read with pypdfium2: lines in reading order, rotated text, lost glyphs.

Every page's text comes from pdfium (about 1 ms a page against 100 ms for pdfminer's parse), which
keeps content order — a multi-column page reads column by column — and the word spaces pdfminer
drops in tightly set text. Characters are grouped into visual lines; a pdfium line that jumps across
a column gutter is split there. Rotated text in the side margins is furniture; elsewhere (a table's
turned column headers) it is read in content order as words. Glyphs pdfium's text layer drops as
duplicates of a neighbour (Hangul's printer reuses codes across font subsets: "제8조" read "제8")
are read back from their own objects. Text inside a table's box is left to the table.
"""

from __future__ import annotations

import bisect
import ctypes
import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from parsers.pdf.page import (
    LINE_BREAK,
    CharBox,
    Glyph,
    Line,
    Page,
    Transform,
    char_box,
    contains,
    ink_centre,
    overlaps,
    sample_chars,
)
from parsers.pdf.ruled import TableFinder, may_have_table
from parsers.text import normalize_line

#: A glyph turned at least this far from upright (degrees) is rotated text: set up the page, down
#: it, or upside down. The text layer of a skewed scan stays far below it.
TURNED_ANGLE = 45.0


#: Two glyphs of one pdfium line this many (smaller) glyph heights apart, off each other's line,
#: are in different columns (see :func:`_across_gutter`).
GUTTER_JUMP = 3.0


LARGE_GLYPH = 2.0


#: pdfium marks a hyphen it found at a line end with U+FFFE (U+0002 in older builds).
_SOFT_HYPHENS = str.maketrans({"\ufffe": "-", "\x02": "-"})


def read_page(pdf: Any, index: int, tables: TableFinder) -> Page:
    page = pdf[index]
    try:
        width, height = page.get_size()
        transform = Transform.of(page, width, height)
        textpage = page.get_textpage()
        try:
            result = Page(index + 1, float(width), float(height))
            # Lines are measured at a few glyphs each, twice (where they break, what they hold); a
            # page with tables boxes every glyph for its cells, then again for the lines around
            # them: each glyph is asked of pdfium once.
            box = functools.cache(char_box(textpage, transform))
            text = _page_text(textpage)
            turned = _turned_char(textpage)
            lost = _lost_glyphs(page, textpage)
            if lost:
                text, box, origin = _with_glyphs(text, box, _read_lost(pdf, index, lost, transform))
                turned = _spliced_turn(turned, origin)
            runs = _turned_runs(text, turned)
            found = tables.find(index, textpage, transform, text, box, runs) if may_have_table(page) else []
            result.tables = found
            result.lines = _text_lines(text, box, [t.bbox for t in found], runs)
        finally:
            textpage.close()
    finally:
        page.close()
    return result


def _page_text(textpage: Any) -> str:
    """The page's text, one character per pdfium character index."""
    import pypdfium2.raw as pdfium_c

    count = textpage.count_chars()
    if count <= 0:
        return ""
    text = textpage.get_text_range()
    if len(text) != count:
        # pdfium indexes UTF-16 code units: a character beyond the BMP (an emoji, a private-use
        # glyph Hangul's printer draws 「 」 with) takes two indexes, and the text one character.
        # Rebuilt index by index, a surrogate pair is the character at its first index and a zero
        # width space (dropped with the line's control characters) at its second, so indexes and
        # boxes stay aligned; a lone surrogate (no text can hold one) is U+FFFD.
        units = [pdfium_c.FPDFText_GetUnicode(textpage, i) or 32 for i in range(count)]
        chars = []
        for i, unit in enumerate(units):
            if 0xD800 <= unit < 0xDC00 and i + 1 < count and 0xDC00 <= units[i + 1] < 0xE000:
                chars.append(chr(0x10000 + ((unit - 0xD800) << 10) + (units[i + 1] - 0xDC00)))
            elif 0xDC00 <= unit < 0xE000 and i and 0xD800 <= units[i - 1] < 0xDC00:
                chars.append("\u200b")
            else:
                chars.append("\ufffd" if 0xD800 <= unit < 0xE000 else chr(unit))
        text = "".join(chars)
    return text.translate(_SOFT_HYPHENS)


def _turned_char(textpage: Any) -> Callable[[int], bool]:
    """Whether the character at a pdfium index is rotated by at least :data:`TURNED_ANGLE` (pdfium
    gives each character's angle from its text matrix; -1 where it cannot)."""
    import pypdfium2.raw as pdfium_c

    get, raw = pdfium_c.FPDFText_GetCharAngle, textpage.raw
    low, high = math.radians(TURNED_ANGLE), math.radians(360 - TURNED_ANGLE)

    def turned(index: int) -> bool:
        return low <= get(raw, index) <= high

    return turned


def _spliced_turn(turned: Callable[[int], bool], origin: Callable[[int], int | None]) -> Callable[[int], bool]:
    """``turned`` over the indexes of a text with recovered glyphs put back (those count as upright)."""
    def spliced(index: int) -> bool:
        source = origin(index)
        return source is not None and turned(source)

    return spliced


def _turned_runs(text: str, turned: Callable[[int], bool]) -> list[tuple[int, int]]:
    """The runs ``(start, end)`` of rotated characters, each within one of pdfium's lines, in text
    order. pdfium writes rotated text in its content order, which is its reading order (bottom to
    top for text turned up the page); read by position, as upright lines are, it falls apart into
    letters. Only lines whose first, middle or last glyph is rotated are looked at glyph by glyph,
    so an upright page costs three angles a line."""
    runs: list[tuple[int, int]] = []
    for match in LINE_BREAK.finditer(text):
        start, end = match.span()
        if not any(turned(i) for i in sample_chars(text, start, end)):
            continue
        first = last = None
        for i in range(start, end):
            if text[i].isspace():
                continue
            if turned(i):
                first = i if first is None else first
                last = i
            elif first is not None and last is not None:
                runs.append((first, last + 1))
                first = None
        if first is not None and last is not None:
            runs.append((first, last + 1))
    return runs


def _lost_glyphs(page: Any, textpage: Any) -> list[int]:
    """The page's text objects (by index) that draw a glyph pdfium's text page left out.

    pdfium drops a text object it takes for a duplicate of the one before it (a word drawn twice
    for a bold look) by their boxes; files printed from Hangul draw each glyph as an object of its
    own, and the glyph after a digit and a space can overlap that box: "제8조(전보)" reads
    "제8 (전보)" and the article's header is lost. Such an object has a size but no text."""
    import pypdfium2.raw as pdfium_c

    lost = []
    raw, text_raw = page.raw, textpage.raw
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    get_object, get_text, text_kind = pdfium_c.FPDFPage_GetObject, pdfium_c.FPDFTextObj_GetText, pdfium_c.FPDF_PAGEOBJ_TEXT
    for i in range(pdfium_c.FPDFPage_CountObjects(raw)):
        obj = get_object(raw, i)
        # The text's size in bytes, with its terminator (0 for an object that is not text): asked
        # first, as most objects have text and one call is what a page's scan costs.
        if get_text(obj, text_raw, None, 0) > 2 or pdfium_c.FPDFPageObj_GetType(obj) != text_kind:
            continue
        if pdfium_c.FPDFPageObj_GetBounds(obj, left, bottom, right, top) and \
                right.value - left.value >= 1 and top.value - bottom.value >= 1:
            lost.append(i)
    return lost


def _read_lost(pdf: Any, index: int, lost: Sequence[int], transform: Transform) -> list[Glyph]:
    """The text of the dropped objects, read on a second copy of the page that holds only them
    (nothing left to be taken for their original), with their display boxes. The copy is closed
    unsaved: the document is unchanged."""
    import pypdfium2.raw as pdfium_c

    page = pdf[index]
    keep = set(lost)
    objects = [pdfium_c.FPDFPage_GetObject(page.raw, i) for i in range(pdfium_c.FPDFPage_CountObjects(page.raw))]
    mine = [objects[i] for i in lost]
    removed = []
    try:
        for i, obj in enumerate(objects):
            if i not in keep and pdfium_c.FPDFPageObj_GetType(obj) == pdfium_c.FPDF_PAGEOBJ_TEXT \
                    and pdfium_c.FPDFPage_RemoveObject(page.raw, obj):
                removed.append(obj)
        textpage = pdfium_c.FPDFText_LoadPage(page.raw)
        glyphs = []
        try:
            left, bottom, right, top = (ctypes.c_float() for _ in range(4))
            for obj in mine:
                size = pdfium_c.FPDFTextObj_GetText(obj, textpage, None, 0)
                buffer = (ctypes.c_ushort * max(size // 2, 1))()
                pdfium_c.FPDFTextObj_GetText(obj, textpage, buffer, size)
                text = normalize_line(bytes(buffer).decode("utf-16-le", "replace").replace("\x00", ""))
                if text and pdfium_c.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
                    x0, top_, x1, bottom_ = transform.to_display((left.value, bottom.value, right.value, top.value))
                    glyphs.append(Glyph(text, x0, top_, x1, bottom_, -1, "", (top_ + bottom_) / 2, (x0 + x1) / 2,
                                         max(bottom_ - top_, 0.5)))
        finally:
            pdfium_c.FPDFText_ClosePage(textpage)
    finally:
        for obj in removed:
            pdfium_c.FPDFPageObj_Destroy(obj)
        page.close()
    return glyphs


def _with_glyphs(text: str, box: CharBox,
                 glyphs: Sequence[Glyph]) -> tuple[str, CharBox, Callable[[int], int | None]]:
    """``text`` with each recovered glyph put back after the glyph to its left on its line (or
    before the first one to its right), a box function over the new indexes, and each new index's
    pdfium index (``None``: a recovered glyph). Text already read in its place is the duplicate
    pdfium meant to drop."""
    visible = [(i, box(i)) for i, char in enumerate(text) if not char.isspace()]
    inserts: dict[int, list[Glyph]] = {}
    for glyph in glyphs:
        line = [(i, b) for i, b in visible
                if min(b[3], glyph.bottom) - max(b[1], glyph.top) > 0.5 * min(b[3] - b[1], glyph.height)]
        slack = 0.25 * glyph.height
        there = "".join(text[i] for i, b in line if glyph.x0 - slack <= (b[0] + b[2]) / 2 <= glyph.x1 + slack)
        if glyph.char.replace(" ", "") in there:
            continue
        left = [(b[0], i) for i, b in line if (b[0] + b[2]) / 2 < glyph.centre]
        right = [(b[0], i) for i, b in line if (b[0] + b[2]) / 2 >= glyph.centre]
        at = max(left)[1] + 1 if left else min(right)[1] if right else len(text)
        inserts.setdefault(at, []).append(glyph)
    if not inserts:
        return text, box, lambda index: index
    parts: list[str] = []
    where: list[int | tuple[float, float, float, float]] = []
    for i in range(len(text) + 1):
        for glyph in inserts.get(i, ()):  # at the end: a line of its own
            parts.append(glyph.char if i < len(text) or not text else "\n" + glyph.char)
            where.extend([(glyph.x0, glyph.top, glyph.x1, glyph.bottom)] * len(parts[-1]))
        if i < len(text):
            parts.append(text[i])
            where.append(i)

    def spliced(index: int) -> tuple[float, float, float, float]:
        origin = where[index]
        return box(origin) if isinstance(origin, int) else origin

    def source(index: int) -> int | None:
        origin = where[index]
        return origin if isinstance(origin, int) else None

    return "".join(parts), spliced, source


def _text_lines(text: str, box: CharBox, table_boxes: Sequence[tuple[float, ...]],
                turned: Sequence[tuple[int, int]] = ()) -> list[Line]:
    """The page's text lines in pdfium's (content) order, with display-space boxes; a run of rotated
    characters (``turned``, from :func:`_turned_runs`) is a line of its own, in pdfium's order."""
    if not text:
        return []
    lines: list[Line] = []
    rotated = set(turned)
    for start, end in _visual_lines(text, box, turned):
        visible = sample_chars(text, start, end)
        if not visible:
            continue
        boxes = [box(i) for i in visible]
        line_box = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                    max(b[2] for b in boxes), max(b[3] for b in boxes))
        if table_boxes and any(overlaps(line_box, t) for t in table_boxes):
            pieces = _outside_tables(text, start, end, box, table_boxes)
            if (start, end) in rotated:
                pieces = [replace(piece, turned=True, size=0.0) for piece in pieces]
            lines.extend(pieces)
            continue
        content = normalize_line(text[start:end])
        if content and (start, end) in rotated:
            # Its size is unknown (the boxes' height is the run's length): it sets no heading level.
            lines.append(Line(content, line_box[1], line_box[3], line_box[0], line_box[2], turned=True))
        elif content:
            # The rendered size: the loose boxes' height (pdfium's font size ignores the text matrix).
            size = min(b[3] - b[1] for b in boxes)
            lines.append(Line(content, line_box[1], line_box[3], line_box[0], line_box[2], round(size * 2) / 2))
    return lines


def _visual_lines(text: str, box, turned: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """The text's lines as ``(start, end)``: pdfium's line breaks, and where a "line" of pdfium's
    runs on to the next line of the page without one (some producers write a new line's first word
    right after the last one's, so "…할 수 있다. 제39조(제규정) …" would read as one line and the
    article's header would be lost inside it). Only lines whose first, middle and last glyphs do
    not sit on one line are looked at glyph by glyph. A run of rotated characters (``turned``) is a
    line as it stands: its glyphs sit one above the other by design."""
    spans: list[tuple[int, int]] = []
    starts = [run[0] for run in turned]
    for match in LINE_BREAK.finditer(text):
        pieces: list[tuple[int, int]] = []
        cursor, end = match.span()
        for run_start, run_end in turned[bisect.bisect_left(starts, cursor):bisect.bisect_left(starts, end)]:
            if run_start > cursor:
                pieces.append((cursor, run_start))
            spans.append((run_start, run_end))
            cursor = run_end
        if cursor < end:
            pieces.append((cursor, end))
        spans.extend(span for piece in pieces for span in _upright_lines(text, box, *piece))
    return sorted(spans)


def _upright_lines(text: str, box, start: int, end: int) -> list[tuple[int, int]]:
    """One stretch of a pdfium line as the page lines it runs over (see :func:`_visual_lines`)."""
    sample = [box(i) for i in sample_chars(text, start, end)]
    if len(sample) < 2:
        return [(start, end)]
    height = min(b[3] - b[1] for b in sample)
    if max(b[3] for b in sample) - min(b[1] for b in sample) <= 1.8 * max(height, 1.0):
        return [(start, end)]
    spans: list[tuple[int, int]] = []
    cut, before = start, None
    for i in range(start, end):
        if text[i].isspace():
            continue
        current = box(i)
        if current[3] - current[1] <= 0:
            continue
        # A new line: back to the left and off the line, or a whole line further down and to the
        # right (a centred "제2장 …" after the short last line of an article; not letters set
        # one under the other), or across a column's gutter (see :func:`_across_gutter`).
        if before is not None and ((current[0] < before[0] and (current[1] >= before[3] - 0.2 * height
                                                                or current[3] <= before[1] + 0.2 * height))
                                   or (current[1] >= before[3] + 0.5 * height and current[0] >= before[2])
                                   or _across_gutter(before, current)):
            spans.append((cut, i))
            cut = i
        before = current
    spans.append((cut, end))
    return spans


def _across_gutter(before: Sequence[float], current: Sequence[float]) -> bool:
    """Whether two glyphs that pdfium put one after the other on a line lie in different columns:
    one set at least :data:`LARGE_GLYPH` times the other's size, a wide white gap between them
    (:data:`GUTTER_JUMP` of the smaller glyph's height; word spaces are a fraction of it), and not
    on one text line (their middles apart by more than half the smaller height). pdfium joins a
    glyph set very large (a section's badge number "04", a title) with the line of the other column
    that its tall box overlaps: "…148조원의 1% 04", whose box then bridges the gutter so that the
    page's columns cannot be told apart. Text of one size stays as pdfium joined it (a table row
    without rules, a form's cells, a running header and its page number), and so does a large
    word on the baseline of small ones."""
    heights = sorted((before[3] - before[1], current[3] - current[1]))
    small = max(heights[0], 1.0)
    gap = max(current[0] - before[2], before[0] - current[2])
    middles = abs((current[1] + current[3]) / 2 - (before[1] + before[3]) / 2)
    return heights[1] >= LARGE_GLYPH * small and gap >= GUTTER_JUMP * small and middles > 0.5 * small


def _outside_tables(text: str, start: int, end: int, box, table_boxes) -> list[Line]:
    """The parts of one line that lie outside every table, as lines of their own."""
    pieces: list[list[tuple[str, tuple[float, float, float, float] | None]]] = [[]]
    for i in range(start, end):
        char_box = None if text[i].isspace() else box(i)
        x = ink_centre(text, box, i) if char_box is not None else 0.0
        inside = char_box is not None and any(contains(t, x, char_box) for t in table_boxes)
        if inside:
            if pieces[-1]:
                pieces.append([])
            continue
        pieces[-1].append((text[i], char_box))
    lines = []
    for piece in pieces:
        boxes = [b for _, b in piece if b is not None]
        content = normalize_line("".join(ch for ch, _ in piece))
        if content and boxes:
            lines.append(Line(content, min(b[1] for b in boxes), max(b[3] for b in boxes),
                               min(b[0] for b in boxes), max(b[2] for b in boxes)))
    return lines
