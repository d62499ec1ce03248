"""PDF: text with pypdfium2 in reading order, ruled tables from pdfium's drawing, furniture marked.

Why pdfium for everything it reads (numbers from ``bench/parse.py`` on this machine): pdfplumber's
page parse (pdfminer) costs about 100 ms for a page of plain text, whichever of ``extract_text``,
``find_tables`` or ``chars`` is asked for first, while pypdfium2 extracts the same page in about
1 ms. pdfium also keeps content order, which reads multi-column pages column by column (pdfminer's
line clustering interleaves the columns) and keeps word spaces that pdfminer drops in tightly set
text. So every page's text comes from pdfium. Tables are looked for only on pages whose vector
graphics could draw a ruled table (:func:`_may_have_table`): their ruling edges are read from
pdfium's path objects (:func:`_ruling_edges`) and pdfplumber's table finder — its algorithm only,
pdfminer never parses the page — cuts them into cells: the same grid ``page.find_tables()`` finds
(checked on real PDFs by a test), 20x faster on real notices whose every page draws boxes. Text
inside a table's box is left to the table.

Blocks per page: paragraphs (consecutive lines in content order, split where the vertical gap is
larger than 0.9 x the line height, where the text moves up or sideways as into the next column)
and tables, put in reading order by a recursive XY-cut of their boxes (see :func:`_reading_order`):
content order alone reads a title that the layout program drew last at the end of the page. Lines
(and banner tables) at the top or bottom of the page that repeat on most pages, or on most odd or
most even pages (running headers, footers, ``- 3 -`` page numbers; digits do not count when
comparing) become ``furniture`` blocks: set aside with their pages, not deleted. So do running
footers whose text changes by chapter beside a page number that follows the pages (see
:func:`_numbered_series`), and rotated text in the side margins, clear of the body (a printer's
slug up the edge, an arXiv stamp). Rotated text elsewhere (a table's turned column headers) is
text, read in pdfium's content order as words (see :func:`_turned_runs`).

Failure kinds: a user password -> ``encrypted``; an owner password only (copy/print restrictions)
opens and is parsed; a file pdfium cannot open (truncated, not a PDF inside) -> ``corrupt``; a page
that fails is skipped with a warning; a page whose drawing the table finder cannot handle keeps its
text, and the warning says tables were not looked for there.

Stalls: pdfium and the table finder run native/pure-Python code without a time check; a
pathological page can take arbitrarily long. The per-file time limit lives in the flow's process pool
(``flows/workers.py``, ``Cutter``), which kills the worker; tests that need a timeout should run
``parse`` through that pool or a subprocess, not expect ``parse`` itself to return. No image is
decoded on a page with text, so oversized images cost nothing there. pdfium is not
thread-safe: parse PDFs in processes (as the flow does), not in threads of one process.

Scans: a page with next to no text (under :data:`SCAN_TEXT_CHARS` characters) whose images cover
most of it (:data:`SCAN_IMAGE_SHARE`) is rendered (at most :data:`MAX_OCR_PIXELS`) and read by OCR
(:mod:`parsers.ocr`); its lines take the text layer's place and are laid out as any page's are, and
its ``PageInfo.ocr`` holds the mean word confidence. The other pages keep their text layer. Pages
that cannot be read (no engine, over the file's OCR page or time limit) are named in a warning; a
file of such pages only fails (``no_ocr`` without the engine, else ``too_large``).
"""

from __future__ import annotations

import bisect
import ctypes
import functools
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from parsers.errors import CorruptFile, EmptyFile, EncryptedFile, NeedsOcr, TooLarge
from parsers.model import Block, Document, Locator, PageInfo, Properties, Table
from parsers.ocr import OcrOptions, OcrPage, OcrUnavailable, dropped_warning, read_image
from parsers.tables import Span, make_table
from parsers.text import normalize_line

MAX_PAGES = 5000
#: Share of the page height at the top and bottom where running headers and footers live.
EDGE_BAND = 0.1
#: A line repeated (digits ignored) in the edge band of this share of pages is furniture ...
REPEAT_SHARE = 0.6
#: ... and so is one repeated on this share of the odd pages, or of the even ones (left and right
#: running headers; a cover and a table of contents without them make the share smaller).
PARITY_SHARE = 0.5
#: Gap between lines (in line heights) that starts a new paragraph.
PARAGRAPH_GAP = 0.9
#: Running footers (or headers) that carry the page number beside a text that changes (the chapter's
#: title) form a series on at least this many pages, and this share of the pages with text.
SERIES_PAGES = 3
SERIES_SHARE = 0.2
#: Narrowest vertical band of white (points) read as a column gutter.
MIN_COLUMN_GAP = 6.0
#: A bare number set at least this many times the body size may be a section badge.
BADGE_SIZE = 2.0
#: Two glyphs of one pdfium line this many (smaller) glyph heights apart, off each other's line,
#: are in different columns (see :func:`_across_gutter`).
GUTTER_JUMP = 3.0
LARGE_GLYPH = 2.0
#: A glyph turned at least this far from upright (degrees) is rotated text: set up the page, down
#: it, or upside down. The text layer of a skewed scan stays far below it.
TURNED_ANGLE = 45.0

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
#: pdfium marks a hyphen it found at a line end with U+FFFE (U+0002 in older builds).
_SOFT_HYPHENS = str.maketrans({"\ufffe": "-", "\x02": "-"})
_LINE_BREAK = re.compile(r"[^\r\n]+")


@dataclass(frozen=True)
class _Line:
    text: str
    top: float
    bottom: float
    x0: float
    x1: float
    size: float = 0.0  # rendered text size (points, to half a point) of its sampled characters; 0: unknown
    turned: bool = False  # its glyphs are rotated (set up the page or upside down), read in content order

    @property
    def height(self) -> float:
        return max(self.bottom - self.top, 1.0)


@dataclass(frozen=True)
class _FoundTable:
    bbox: tuple[float, float, float, float]  # x0, top, x1, bottom in display coordinates
    table: Table


@dataclass
class _Page:
    number: int
    width: float
    height: float
    lines: list[_Line] = field(default_factory=list)
    tables: list[_FoundTable] = field(default_factory=list)
    ocr: float | None = None  # mean OCR confidence when the page was read by OCR (a scan)


def parse_pdf(path: Path, ocr: OcrOptions | None = None) -> Document:
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        raise _open_error(exc) from exc
    with ExitStack() as stack:
        stack.callback(pdf.close)
        count = len(pdf)
        if count > MAX_PAGES:
            raise TooLarge(f"{count:,} pages (limit {MAX_PAGES:,})")
        metadata = pdf.get_metadata_dict()
        tables = _TableFinder()
        scans = _Scans(ocr or OcrOptions())
        pages: list[_Page] = []
        warnings: list[str] = []
        for index in range(count):
            try:
                page = _read_page(pdf, index, tables)
                pages.append(scans.read(pdf, index, page) if _scanned(pdf, index, page) else page)
            except pdfium.PdfiumError as exc:  # one bad page must not lose the others
                warnings.append(f"page {index + 1}: could not be read ({exc})")
                pages.append(_Page(index + 1, 0.0, 0.0))
        warnings.extend(tables.warnings)
        warnings.extend(scans.warnings())
    properties = Properties(
        title=normalize_line(metadata.get("Title", "")), author=normalize_line(metadata.get("Author", "")),
        subject=normalize_line(metadata.get("Subject", "")),
    )
    document = _document(str(path), "pdf", pages, properties, warnings)
    scans.check(document)
    return document


def _document(path: str, fmt: str, pages: list[_Page], properties: Properties, warnings: Sequence[str]) -> Document:
    """Lay out the pages' lines and tables as blocks: furniture, headings, paragraphs, joins."""
    furniture = _furniture_lines(pages)
    levels = _heading_levels(pages, furniture)
    blocks: list[Block] = []
    infos: list[PageInfo] = []
    for page in pages:
        page_blocks = _page_blocks(page, furniture, levels)
        blocks.extend(page_blocks)
        infos.append(PageInfo(page.number, page.width, page.height, sum(len(b.text) for b in page_blocks), page.ocr))
    blocks = _join_across_pages(blocks)
    return Document(path, fmt, tuple(blocks), replace(properties, pages=tuple(infos)), tuple(warnings))


def _open_error(exc: Any) -> Exception:
    import pypdfium2.raw as pdfium_c

    code = getattr(exc, "err_code", None)
    if code == pdfium_c.FPDF_ERR_PASSWORD:
        return EncryptedFile("password-protected PDF (a user password is needed to open it)")
    if code == pdfium_c.FPDF_ERR_SECURITY:
        return EncryptedFile("PDF encrypted with an unsupported security handler (e.g. certificates)")
    return CorruptFile(f"unreadable PDF (truncated or damaged): {exc}")


# ----------------------------------------------------------------------------------------- pages


def _read_page(pdf: Any, index: int, tables: _TableFinder) -> _Page:
    page = pdf[index]
    try:
        width, height = page.get_size()
        transform = _Transform.of(page, width, height)
        textpage = page.get_textpage()
        try:
            result = _Page(index + 1, float(width), float(height))
            # Lines are measured at a few glyphs each, twice (where they break, what they hold); a
            # page with tables boxes every glyph for its cells, then again for the lines around
            # them: each glyph is asked of pdfium once.
            box = functools.cache(_char_box(textpage, transform))
            text = _page_text(textpage)
            turned = _turned_char(textpage)
            lost = _lost_glyphs(page, textpage)
            if lost:
                text, box, origin = _with_glyphs(text, box, _read_lost(pdf, index, lost, transform))
                turned = _spliced_turn(turned, origin)
            runs = _turned_runs(text, turned)
            found = tables.find(index, textpage, transform, text, box, runs) if _may_have_table(page) else []
            result.tables = found
            result.lines = _text_lines(text, box, [t.bbox for t in found], runs)
        finally:
            textpage.close()
    finally:
        page.close()
    return result


@dataclass(frozen=True)
class _Transform:
    """Page space (PDF units, y up, /Rotate not applied) <-> display space (y down, as shown)."""

    a: float
    b: float
    c: float
    d: float
    e: float
    f: float

    @classmethod
    def of(cls, page: Any, width: float, height: float) -> _Transform:
        import pypdfium2.raw as pdfium_c

        scale = 16  # FPDF_PageToDevice returns integers; measure at 1/16 point
        size_x, size_y = max(int(width * scale), 1), max(int(height * scale), 1)

        def device(x: float, y: float) -> tuple[float, float]:
            dx, dy = ctypes.c_int(), ctypes.c_int()
            pdfium_c.FPDF_PageToDevice(page.raw, 0, 0, size_x, size_y, 0, x, y, dx, dy)
            return dx.value / scale, dy.value / scale

        ox, oy = device(0.0, 0.0)
        ax, ay = device(1000.0, 0.0)
        bx, by = device(0.0, 1000.0)
        return cls((ax - ox) / 1000, (bx - ox) / 1000, (ay - oy) / 1000, (by - oy) / 1000, ox, oy)

    def to_display(self, box: Sequence[float]) -> tuple[float, float, float, float]:
        """(left, bottom, right, top) in page space -> (x0, top, x1, bottom) in display space."""
        left, bottom, right, top = box
        xs = (self.a * left + self.b * bottom + self.e, self.a * right + self.b * top + self.e)
        ys = (self.c * left + self.d * bottom + self.f, self.c * right + self.d * top + self.f)
        return min(xs), min(ys), max(xs), max(ys)

    def to_page(self, box: Sequence[float]) -> tuple[float, float, float, float]:
        """(x0, top, x1, bottom) in display space -> (left, bottom, right, top) in page space."""
        det = (self.a * self.d - self.b * self.c) or 1.0
        points = [((self.d * (x - self.e) - self.b * (y - self.f)) / det,
                   (-self.c * (x - self.e) + self.a * (y - self.f)) / det)
                  for x, y in ((box[0], box[1]), (box[2], box[3]))]
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        return min(xs), min(ys), max(xs), max(ys)


#: A character's loose box in display space (x0, top, x1, bottom), by its index on the page.
_CharBox = Callable[[int], tuple[float, float, float, float]]


def _char_box(textpage: Any, transform: _Transform) -> _CharBox:
    """A character's loose box in display space, by index: ``transform.to_display`` of
    ``textpage.get_charbox(i, loose=True)``, with one reused rectangle and the arithmetic inline (it
    runs for every glyph of a page with a table)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    rect = pdfium_c.FS_RECTF()
    get, raw = pdfium_c.FPDFText_GetLooseCharBox, textpage.raw
    a, b, c, d, e, f = transform.a, transform.b, transform.c, transform.d, transform.e, transform.f

    def box(index: int) -> tuple[float, float, float, float]:
        if not get(raw, index, rect):
            raise pdfium.PdfiumError("Failed to get charbox.")
        left, bottom, right, top = rect.left, rect.bottom, rect.right, rect.top
        x0, x1 = a * left + b * bottom + e, a * right + b * top + e
        y0, y1 = c * left + d * bottom + f, c * right + d * top + f
        # Comparisons, not min()/max(): this is the hottest line of a page with a table.
        return (x0, y0, x1, y1) if x0 <= x1 and y0 <= y1 else (x0 if x0 <= x1 else x1, y0 if y0 <= y1 else y1,
                                                             x1 if x0 <= x1 else x0, y1 if y0 <= y1 else y0)

    return box


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
    for match in _LINE_BREAK.finditer(text):
        start, end = match.span()
        if not any(turned(i) for i in _sample(text, start, end)):
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


def _read_lost(pdf: Any, index: int, lost: Sequence[int], transform: _Transform) -> list[_Glyph]:
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
                    glyphs.append(_Glyph(text, x0, top_, x1, bottom_, -1, "", (top_ + bottom_) / 2, (x0 + x1) / 2,
                                         max(bottom_ - top_, 0.5)))
        finally:
            pdfium_c.FPDFText_ClosePage(textpage)
    finally:
        for obj in removed:
            pdfium_c.FPDFPageObj_Destroy(obj)
        page.close()
    return glyphs


def _with_glyphs(text: str, box: _CharBox,
                 glyphs: Sequence[_Glyph]) -> tuple[str, _CharBox, Callable[[int], int | None]]:
    """``text`` with each recovered glyph put back after the glyph to its left on its line (or
    before the first one to its right), a box function over the new indexes, and each new index's
    pdfium index (``None``: a recovered glyph). Text already read in its place is the duplicate
    pdfium meant to drop."""
    visible = [(i, box(i)) for i, char in enumerate(text) if not char.isspace()]
    inserts: dict[int, list[_Glyph]] = {}
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


def _text_lines(text: str, box: _CharBox, table_boxes: Sequence[tuple[float, ...]],
                turned: Sequence[tuple[int, int]] = ()) -> list[_Line]:
    """The page's text lines in pdfium's (content) order, with display-space boxes; a run of rotated
    characters (``turned``, from :func:`_turned_runs`) is a line of its own, in pdfium's order."""
    if not text:
        return []
    lines: list[_Line] = []
    rotated = set(turned)
    for start, end in _visual_lines(text, box, turned):
        visible = _sample(text, start, end)
        if not visible:
            continue
        boxes = [box(i) for i in visible]
        line_box = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                    max(b[2] for b in boxes), max(b[3] for b in boxes))
        if table_boxes and any(_overlaps(line_box, t) for t in table_boxes):
            pieces = _outside_tables(text, start, end, box, table_boxes)
            if (start, end) in rotated:
                pieces = [replace(piece, turned=True, size=0.0) for piece in pieces]
            lines.extend(pieces)
            continue
        content = normalize_line(text[start:end])
        if content and (start, end) in rotated:
            # Its size is unknown (the boxes' height is the run's length): it sets no heading level.
            lines.append(_Line(content, line_box[1], line_box[3], line_box[0], line_box[2], turned=True))
        elif content:
            # The rendered size: the loose boxes' height (pdfium's font size ignores the text matrix).
            size = min(b[3] - b[1] for b in boxes)
            lines.append(_Line(content, line_box[1], line_box[3], line_box[0], line_box[2], round(size * 2) / 2))
    return lines


def _sample(text: str, start: int, end: int) -> list[int]:
    """The first, a middle and the last visible character of ``text[start:end]`` (a line that ends
    in a space must still be measured to its last glyph, or it reads as narrower than it is)."""
    first = next((i for i in range(start, end) if not text[i].isspace()), None)
    if first is None:
        return []
    last = next(i for i in range(end - 1, first - 1, -1) if not text[i].isspace())
    middle = next((i for i in range((first + last) // 2, last) if not text[i].isspace()), last)
    return sorted({first, middle, last})


def _visual_lines(text: str, box, turned: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """The text's lines as ``(start, end)``: pdfium's line breaks, and where a "line" of pdfium's
    runs on to the next line of the page without one (some producers write a new line's first word
    right after the last one's, so "…할 수 있다. 제39조(제규정) …" would read as one line and the
    article's header would be lost inside it). Only lines whose first, middle and last glyphs do
    not sit on one line are looked at glyph by glyph. A run of rotated characters (``turned``) is a
    line as it stands: its glyphs sit one above the other by design."""
    spans: list[tuple[int, int]] = []
    starts = [run[0] for run in turned]
    for match in _LINE_BREAK.finditer(text):
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
    sample = [box(i) for i in _sample(text, start, end)]
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


def _outside_tables(text: str, start: int, end: int, box, table_boxes) -> list[_Line]:
    """The parts of one line that lie outside every table, as lines of their own."""
    pieces: list[list[tuple[str, tuple[float, float, float, float] | None]]] = [[]]
    for i in range(start, end):
        char_box = None if text[i].isspace() else box(i)
        x = ink_centre(text, box, i) if char_box is not None else 0.0
        inside = char_box is not None and any(_contains(t, x, char_box) for t in table_boxes)
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
            lines.append(_Line(content, min(b[1] for b in boxes), max(b[3] for b in boxes),
                               min(b[0] for b in boxes), max(b[2] for b in boxes)))
    return lines


def _overlaps(a: Sequence[float], b: Sequence[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _contains(table: Sequence[float], x: float, char: Sequence[float]) -> bool:
    y = (char[1] + char[3]) / 2
    return table[0] <= x <= table[2] and table[1] <= y <= table[3]


def ink_centre(text: str, box: _CharBox, index: int) -> float:
    """Where the glyph at ``index`` is centred, horizontally. pdfium boxes a glyph by its font's
    bounding box in some fonts: every digit 11 pt wide where it advances 5.5, so the last digit of
    "△9.96" set flush with a table's right rule had its box's centre outside the table and read as a
    stray "6" above it ("△9.9" in the cell). A box wider than the glyph's advance (to the next glyph
    of its line, or the previous glyph's, for the last one) is centred on that advance."""
    x0, top, x1, bottom = box(index)
    width = x1 - x0
    for other in (index + 1, index - 1):
        if not 0 <= other < len(text) or text[other].isspace():
            continue
        n0, n_top, _, n_bottom = box(other)
        if abs((n_top + n_bottom) - (top + bottom)) >= bottom - top:
            continue  # not on this glyph's line
        advance = n0 - x0 if other > index else x0 - n0
        if 0 < advance < width:
            return x0 + advance / 2
    return x0 + width / 2


def _may_have_table(page: Any) -> bool:
    """Whether the page's vector paths could form a ruled table (at least two cells).

    A path with area (a rectangle, a grid drawn as one path) may be one; so may separate rules
    when there are at least two horizontal and two vertical ones. Text-only pages, and pages whose
    only drawing is a header rule, never reach pdfplumber.
    """
    import pypdfium2.raw as pdfium_c

    horizontal = vertical = 0
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH], max_depth=8):
        left, bottom, right, top = obj.get_bounds()
        wide, tall = right - left >= 3, top - bottom >= 3
        if wide and tall:
            return True
        horizontal += wide
        vertical += tall
        if horizontal >= 2 and vertical >= 2:
            return True
    return False


# ---------------------------------------------------------------------------------------- tables


class _TableFinder:
    """Ruled tables, found on the pages that may hold one: the grid from the page's vector paths as
    pdfium reads them (:func:`_ruling_edges`), cut into cells by pdfplumber's table finder, each
    cell's text from pdfium (the same text engine as the rest of the page, which keeps word spaces
    pdfminer drops)."""

    def __init__(self) -> None:
        self.warnings: list[str] = []

    def find(self, index: int, textpage: Any, transform: _Transform, text: str, box: _CharBox,
             turned: Sequence[tuple[int, int]] = ()) -> list[_FoundTable]:
        from pdfplumber.table import TableFinder

        try:
            page = textpage.page
            width, height = page.get_size()
            found = TableFinder(_EdgePage(_ruling_edges(page, transform), (0.0, 0.0, width, height))).tables
            glyphs = _Glyphs.of(text, box, turned) if found else None

            def build(candidate: Any, skip: Sequence[Sequence[float]] = ()) -> Table | None:
                rows = [[None if box is None or glyphs is None else glyphs.read(tuple(box), skip)
                         for box in row.cells] for row in candidate.rows]
                read = (lambda box: glyphs.read(tuple(box), skip)) if glyphs is not None else None
                return _table_from_grid(rows, candidate.rows, read) if _is_real_table(rows) else None

            tables = [build(candidate) for candidate in found]
            boxes = [tuple(candidate.bbox) for candidate in found]
            # A table drawn inside a cell of another is a table of its own; the outer cell keeps
            # only its own text, not the nested table's cells flattened a second time. Smallest
            # first, so that a table is skipped only once it is known to stay a table.
            for i in sorted(range(len(found)), key=lambda i: (boxes[i][2] - boxes[i][0]) * (boxes[i][3] - boxes[i][1])):
                nested = [boxes[j] for j, inner in enumerate(tables)
                          if j != i and inner is not None and _nested(boxes[j], boxes[i])]
                if nested and tables[i] is not None:
                    tables[i] = build(found[i], nested)
            return [_FoundTable(boxes[i], table) for i, table in enumerate(tables) if table is not None]
        except Exception as exc:  # odd drawings must not lose the page's text: tables are optional
            self.warnings.append(f"page {index + 1}: tables not detected ({type(exc).__name__}: {exc})")
            return []


@dataclass(frozen=True)
class _EdgePage:
    """What pdfplumber's :class:`~pdfplumber.table.TableFinder` reads of a page with its default
    (``lines``) strategies: the ruling edges and the page box."""

    edges: list[dict]
    bbox: tuple[float, float, float, float]


_IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _ruling_edges(page: Any, transform: _Transform, max_depth: int = 8) -> list[dict]:
    """The page's painted vector paths as the edges pdfplumber's table finder takes, in display
    space, made the way pdfplumber makes them from pdfminer's objects (so the grid is the one
    ``page.find_tables()`` finds, without pdfminer interpreting the page — 20x faster on real
    pages): each subpath is a line (two points: one edge, ``h`` if level, else ``v``), an
    axis-aligned rectangle (four edges) or a curve (an edge between each pair of consecutive points,
    Bézier end points only; ``h``/``v`` if level/plumb, else none). Lines first, then rectangles,
    then curves, each in content order, as pdfplumber lists them. Paths inside form XObjects count,
    with the form's matrix; paths painted neither filled nor stroked do not."""
    import pypdfium2.raw as pdfium_c

    lines: list[dict] = []
    rects: list[dict] = []
    curves: list[dict] = []
    fill, stroke = ctypes.c_int(), ctypes.c_int()
    x, y = ctypes.c_float(), ctypes.c_float()

    # page space -> display space as a PDF matrix, composed once with each path's own matrix
    to_display = (transform.a, transform.c, transform.b, transform.d, transform.e, transform.f)

    def subpaths(obj: Any, matrix: tuple[float, ...]) -> list[tuple[str, list[tuple[float, float]]]]:
        a, b, c, d, e, f = matrix
        found: list[tuple[list[str], list[tuple[float, float]]]] = []
        current: tuple[list[str], list[tuple[float, float]]] | None = None
        bezier = 0
        for i in range(pdfium_c.FPDFPath_CountSegments(obj)):
            segment = pdfium_c.FPDFPath_GetPathSegment(obj, i)
            kind = pdfium_c.FPDFPathSegment_GetType(segment)
            pdfium_c.FPDFPathSegment_GetPoint(segment, x, y)
            point = (a * x.value + c * y.value + e, b * x.value + d * y.value + f)
            if kind == pdfium_c.FPDF_SEGMENT_MOVETO:
                current, bezier = (["m"], [point]), 0
                found.append(current)
            elif current is None:
                continue
            elif kind == pdfium_c.FPDF_SEGMENT_BEZIERTO:
                bezier += 1
                if bezier % 3:  # pdfium gives both control points as segments; pdfminer keeps the end
                    continue
                current[0].append("c")
                current[1].append(point)
            else:
                current[0].append("l")
                current[1].append(point)
            if pdfium_c.FPDFPathSegment_GetClose(segment) and current is not None:
                current[0].append("h")  # a closed subpath returns to its start
                current[1].append(current[1][0])
        return [("".join(ops), points) for ops, points in found]

    def add(shape: str, points: list[tuple[float, float]]) -> None:
        if len(shape) > 3 and shape.endswith("lh") and points[-2] == points[0]:  # a redundant last line
            shape, points = shape[:-2] + "h", points[:-2] + points[-1:]
        if shape in ("ml", "mlh"):
            (x0, t0), (x1, t1) = points[0], points[1]
            top, bottom = min(t0, t1), max(t0, t1)
            lines.append(_edge(min(x0, x1), max(x0, x1), top, bottom, "h" if top == bottom else "v", "line"))
            return
        if shape in ("mlllh", "mllll"):
            (x0, y0), (x1, y1), (x2, y2), (x3, y3), _ = points
            if points[0] == points[4] and ((x0 == x1 and y1 == y2 and x2 == x3 and y3 == y0)
                                           or (y0 == y1 and x1 == x2 and y2 == y3 and x3 == x0)):
                left, right, top, bottom = min(x0, x2), max(x0, x2), min(y0, y2), max(y0, y2)
                rects.extend([_edge(left, right, top, top, "h", "rect_edge"),
                              _edge(left, right, bottom, bottom, "h", "rect_edge"),
                              _edge(left, left, top, bottom, "v", "rect_edge"),
                              _edge(right, right, top, bottom, "v", "rect_edge")])
                return
        for (x0, t0), (x1, t1) in itertools.pairwise(points):
            orientation = "v" if x0 == x1 else ("h" if t0 == t1 else None)
            curves.append(_edge(min(x0, x1), max(x0, x1), min(t0, t1), max(t0, t1), orientation, "curve_edge"))

    def walk(container: Any, in_form: bool, matrix: tuple[float, ...], depth: int) -> None:
        count = (pdfium_c.FPDFFormObj_CountObjects if in_form else pdfium_c.FPDFPage_CountObjects)(container)
        get = pdfium_c.FPDFFormObj_GetObject if in_form else pdfium_c.FPDFPage_GetObject
        for i in range(max(count, 0)):
            obj = get(container, i)
            kind = pdfium_c.FPDFPageObj_GetType(obj)
            if kind == pdfium_c.FPDF_PAGEOBJ_FORM and depth < max_depth:
                walk(obj, True, _compose(_matrix(obj), matrix), depth + 1)
            elif kind == pdfium_c.FPDF_PAGEOBJ_PATH:
                if not pdfium_c.FPDFPath_GetDrawMode(obj, fill, stroke) or (fill.value == 0 and not stroke.value):
                    continue
                for shape, points in subpaths(obj, _compose(_compose(_matrix(obj), matrix), to_display)):
                    add(shape, points)

    walk(page.raw, False, _IDENTITY, 0)
    return lines + rects + curves


def _edge(x0: float, x1: float, top: float, bottom: float, orientation: str | None, kind: str) -> dict:
    return {"object_type": kind, "x0": x0, "x1": x1, "top": top, "bottom": bottom,
            "width": x1 - x0, "height": bottom - top, "orientation": orientation}


def _matrix(obj: Any) -> tuple[float, ...]:
    """A page object's matrix (its space -> its container's space)."""
    import pypdfium2.raw as pdfium_c

    m = pdfium_c.FS_MATRIX()
    if not pdfium_c.FPDFPageObj_GetMatrix(obj, m):
        return _IDENTITY
    return (m.a, m.b, m.c, m.d, m.e, m.f)


def _compose(inner: tuple[float, ...], outer: tuple[float, ...]) -> tuple[float, ...]:
    """The matrix applying ``inner`` then ``outer`` (PDF row-vector convention)."""
    a, b, c, d, e, f = inner
    oa, ob, oc, od, oe, of = outer
    return (a * oa + b * oc, a * ob + b * od, c * oa + d * oc, c * ob + d * od,
            e * oa + f * oc + oe, e * ob + f * od + of)


class _Glyph(NamedTuple):
    """One visible character (a tuple, with its derived measures stored: a page with a table makes
    thousands, and reading its cells looks at each several times)."""

    char: str
    x0: float
    top: float
    x1: float
    bottom: float
    index: int  # in the content stream, counting visible characters only
    # What pdfium put between this glyph and the next one in the content stream: "" (nothing),
    # " " (a word space) or "\n" (a line break: on one visual line, the gap decides).
    after: str
    middle: float  # vertical
    centre: float  # horizontal
    height: float  # at least half a point
    turned: bool = False  # rotated (read in content order, see :func:`_turned_runs`)


#: Between two glyphs that are not neighbours in the content stream, a gap wider than this share
#: of their height is a word space (between neighbours, pdfium's own spacing decides).
WORD_GAP = 0.2


@dataclass(frozen=True)
class _Glyphs:
    """A page's visible characters with their boxes (display space), sorted top to bottom, to read
    the text inside a box in *visual* order. pdfium's own bounded text follows the content stream,
    which writes the glyphs of one cell in any order the producer chose ("제", "회", then "1" for
    "제1회"), and invents spaces where a later glyph will fill the gap ("1.20( ) 월"). Glyphs that
    are neighbours in both orders keep pdfium's word spaces (it knows the fonts' spacing)."""

    glyphs: tuple[_Glyph, ...]
    middles: tuple[float, ...]

    @classmethod
    def of(cls, text: str, box: _CharBox, turned: Sequence[tuple[int, int]] = ()) -> _Glyphs:
        glyphs: list[_Glyph] = []
        visible = [i for i, char in enumerate(text) if not char.isspace()]
        starts = [run[0] for run in turned]
        for n, i in enumerate(visible):
            x0, top, x1, bottom = box(i)
            between = text[i + 1:visible[n + 1]] if n + 1 < len(visible) else ""
            after = "\n" if "\n" in between or "\r" in between else (" " if between else "")
            run = bisect.bisect_right(starts, i) - 1
            glyphs.append(_Glyph(text[i], x0, top, x1, bottom, n, after, (top + bottom) / 2, ink_centre(text, box, i),
                                 max(bottom - top, 0.5), run >= 0 and i < turned[run][1]))
        glyphs.sort(key=lambda g: (g.middle, g.x0))
        return cls(tuple(glyphs), tuple(g.middle for g in glyphs))

    def read(self, box: Sequence[float], skip: Sequence[Sequence[float]] = ()) -> str:
        """The text whose glyph centres lie in ``box`` (x0, top, x1, bottom) and in none of the
        boxes ``skip``: lines top to bottom, glyphs left to right, a space where the gap between
        two glyphs is a word's."""
        x0, top, x1, bottom = box
        low, high = bisect.bisect_left(self.middles, top), bisect.bisect_right(self.middles, bottom)
        inside = [g for g in self.glyphs[low:high] if x0 <= g.centre <= x1]
        if skip:
            inside = [g for g in inside
                      if not any(s[0] <= g.centre <= s[2] and s[1] <= g.middle <= s[3] for s in skip)]
        turned = [g for g in inside if g.turned]
        if turned:
            inside = [g for g in inside if not g.turned]
        lines: list[list[_Glyph]] = []
        for glyph in inside:  # already sorted by their middles
            if lines and glyph.middle - lines[-1][0].middle <= 0.5 * min(glyph.height, lines[-1][0].height):
                lines[-1].append(glyph)
            else:
                lines.append([glyph])
        out = []
        for line in lines:
            line.sort(key=lambda g: g.centre)
            parts = [line[0].char]
            for before, glyph in itertools.pairwise(line):
                if glyph.index == before.index + 1 and before.after != "\n":
                    space = before.after == " "
                else:
                    space = glyph.x0 - before.x1 > WORD_GAP * max(before.height, glyph.height)
                if space:
                    parts.append(" ")
                parts.append(glyph.char)
            out.append("".join(parts))
        if turned:
            # Rotated text (a column header set up the page) reads in content order, with pdfium's
            # spaces, a line where pdfium broke one; it stands where its highest glyph is.
            turned.sort(key=lambda g: g.index)
            parts = [turned[0].char]
            for before, glyph in itertools.pairwise(turned):
                joined = glyph.index == before.index + 1 and before.after != "\n"
                parts.append((" " if before.after == " " else "") if joined else "\n")
                parts.append(glyph.char)
            top = min(g.top for g in turned)
            at = sum(1 for line in lines if line[0].middle < top)
            out.insert(at, "".join(parts))
        return "\n".join(out)


def _nested(inner: Sequence[float], outer: Sequence[float], tolerance: float = 1.0) -> bool:
    """Whether box ``inner`` lies inside box ``outer`` (x0, top, x1, bottom) and is smaller."""
    return (inner[0] >= outer[0] - tolerance and inner[1] >= outer[1] - tolerance
            and inner[2] <= outer[2] + tolerance and inner[3] <= outer[3] + tolerance
            and (inner[2] - inner[0]) * (inner[3] - inner[1]) < (outer[2] - outer[0]) * (outer[3] - outer[1]))


def _is_real_table(rows: Sequence[Sequence[str | None]]) -> bool:
    """Reject ruled shapes pdfplumber takes for tables that are not: a framed box of one column
    (a code listing, a callout), a grid much coarser than its text (most cells hold three or
    more lines, as when only some rules of a booktabs table were found), or a grid mostly empty
    (a chart's grid lines). Their text then stays in the page's text."""
    filled = [(c, cell.strip()) for row in rows for c, cell in enumerate(row) if cell and cell.strip()]
    if len({c for c, _ in filled} ) < 2:
        return False
    cells = sum(len(row) for row in rows)
    if cells >= 12 and len(filled) < 0.3 * cells:
        return False  # a chart's grid lines with a few labels and values scattered over it
    line_counts = sorted(len(_LINE_BREAK.findall(cell)) for _, cell in filled)
    return line_counts[len(line_counts) // 2] < 3


def _table_from_grid(rows: Sequence[Sequence[str | None]], cell_rows: Sequence[Any],
                     read: Callable[[Sequence[float]], str] | None = None) -> Table | None:
    """Our table from pdfplumber's grid, with cells covered by a merged cell (``None``) recorded as spans.

    A ``None`` cell that no merged cell covers is a cell whose rules are missing — the open first
    and last columns of a table drawn without outer verticals, common in Korean reports. Its text
    is read (``read``) from the box its column and row give, so a row keeps its label ("기금 | 36.7 |
    …") instead of losing it between the table's box and its cells."""
    spans: list[Span] = []
    grid = [list(row) for row in rows]
    # A None cell is covered by a merged neighbour: find the real cell whose box holds its centre.
    columns = _column_centres(cell_rows)
    extents = _column_extents(cell_rows)
    for r, row in enumerate(cell_rows):
        for c, bbox in enumerate(row.cells):
            if bbox is not None or c >= len(columns):
                continue
            y = _row_centre(row)
            x = columns[c]
            if y is None or x is None:
                continue
            for r2 in range(r, -1, -1):
                origin = next((c2 for c2, b in enumerate(cell_rows[r2].cells)
                               if b is not None and b[0] <= x <= b[2] and b[1] <= y <= b[3]), None)
                if origin is not None:
                    spans.append(Span(r2, origin, r, c))
                    break
            else:
                boxes = [b for b in row.cells if b is not None]
                if read is not None and extents[c] is not None:
                    x0, x1 = extents[c]
                    grid[r][c] = read((x0, min(b[1] for b in boxes), x1, max(b[3] for b in boxes)))
    return make_table(grid, _merge_spans(spans))


def _column_extents(cell_rows: Sequence[Any]) -> list[tuple[float, float] | None]:
    """Each grid column's narrowest real cell, left and right (``None``: no real cell in it)."""
    width = max((len(row.cells) for row in cell_rows), default=0)
    extents: list[tuple[float, float] | None] = []
    for c in range(width):
        boxes = [row.cells[c] for row in cell_rows if c < len(row.cells) and row.cells[c] is not None]
        narrowest = min(boxes, key=lambda b: b[2] - b[0], default=None)
        extents.append((narrowest[0], narrowest[2]) if narrowest else None)
    return extents


def _column_centres(cell_rows: Sequence[Any]) -> list[float | None]:
    width = max((len(row.cells) for row in cell_rows), default=0)
    centres: list[float | None] = []
    for c in range(width):
        boxes = [row.cells[c] for row in cell_rows if c < len(row.cells) and row.cells[c] is not None]
        narrowest = min(boxes, key=lambda b: b[2] - b[0], default=None)
        centres.append((narrowest[0] + narrowest[2]) / 2 if narrowest else None)
    return centres


def _row_centre(row: Any) -> float | None:
    boxes = [b for b in row.cells if b is not None]
    if not boxes:
        return None
    shortest = min(boxes, key=lambda b: b[3] - b[1])
    return (shortest[1] + shortest[3]) / 2


def _merge_spans(spans: Sequence[Span]) -> list[Span]:
    """One span per origin cell, covering every covered cell found for it."""
    merged: dict[tuple[int, int], Span] = {}
    for span in spans:
        known = merged.get((span.row, span.col))
        if known is None:
            merged[(span.row, span.col)] = span
        else:
            merged[(span.row, span.col)] = Span(span.row, span.col, max(known.last_row, span.last_row),
                                                max(known.last_col, span.last_col))
    return list(merged.values())


# ------------------------------------------------------------------------------ furniture, blocks


def _in_edge_band(top: float, bottom: float, page: _Page) -> bool:
    """Whether a box starts in the top band of its page or ends in the bottom band."""
    return page.height > 0 and (top < page.height * EDGE_BAND or bottom > page.height * (1 - EDGE_BAND))


def _edge_key(line: _Line, page: _Page) -> str | None:
    """A line in the top or bottom band of its page, as its digit-free text and its rounded height
    (a running header and a same-titled heading in a larger size are different lines), else None."""
    if _in_edge_band(line.top, line.bottom, page):
        return f"{_DIGITS.sub('#', line.text)}@{round(line.height)}"
    return None


def _table_key(found: _FoundTable, page: _Page) -> str | None:
    """A table in an edge band (a banner of section tabs), as its digit-free text, else None."""
    if _in_edge_band(found.bbox[1], found.bbox[3], page):
        return "table:" + _DIGITS.sub("#", found.table.render())
    return None


def _furniture_lines(pages: Sequence[_Page]) -> set[str]:
    """Keys (:func:`_edge_key`, :func:`_table_key`) of edge-band lines and tables that repeat on
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
            keys = {_edge_key(line, page) for line in page.lines} | {_table_key(t, page) for t in page.tables}
            counts.update(keys - {None})
        needed = max(2, share * len(group))
        repeated |= {key for key, n in counts.items() if n >= needed}
    body = _body_size(with_text)
    return repeated | _numbered_series(with_text, body) | _section_badges(with_text, body)


def _body_size(pages: Sequence[_Page]) -> float:
    """The size most of the text is set in (by characters), 0 without sized text."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            if line.size > 0:
                sizes[line.size] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _section_badges(pages: Sequence[_Page], body: float) -> set[str]:
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


def _badge_key(line: _Line, page: _Page) -> str:
    """One line on one page (a section badge)."""
    return f"badge:{page.number}:{line.top:.2f}:{line.text}"


def _numbered_series(pages: Sequence[_Page], body: float) -> set[str]:
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
    line: _Line
    text: str  # the line without its page number


def _page_number_of(line: _Line, page: _Page, band: str, lines: Sequence[_Line],
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
    if len(_LETTERS.findall(text)) < 2:
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


def _following_pages(place: Sequence[_Candidate], pages: Sequence[_Page], with_text: int) -> set[str]:
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


def _series_key(line: _Line, page: _Page) -> str:
    """One line on one page (a member of a numbered series)."""
    return f"series:{page.number}:{line.top:.2f}:{line.text}"


def _is_furniture(line: _Line, page: _Page, repeated: set[str]) -> bool:
    if line.turned and _in_margin(line, page):
        return True
    if _BADGE.match(line.text) and _badge_key(line, page) in repeated:
        return True
    key = _edge_key(line, page)
    if key is None:
        return False
    return key in repeated or bool(_PAGE_NUMBER.match(line.text)) or _series_key(line, page) in repeated


def _in_margin(line: _Line, page: _Page) -> bool:
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


@dataclass(frozen=True)
class _Item:
    """A block on a page with its box (display space) and its place in content order."""

    block: Block
    bbox: tuple[float, float, float, float]
    order: int


#: A line set this much larger than the body text (and at least a point larger) is a heading ...
HEADING_SIZE = 1.15
#: ... while, from the largest size down, such lines stay this rare (a size used for many lines is
#: a second body style, not a heading).
MAX_HEADING_SHARE = 0.1
_HEADING_TEXT_LIMIT = 100
_ITEM_MARK = re.compile(r"^[-–‐·•∙◦○▪*※]\s")
#: Lines of one title (wrapped) are at most this many line heights apart.
TITLE_LINE_GAP = 1.5
_LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)


def _heading_levels(pages: Sequence[_Page], repeated: set[str]) -> dict[float, int]:
    """Font sizes that set headings apart, with their level (largest first, at most three levels).

    The body size is the size most of the text is set in; a size at least :data:`HEADING_SIZE`
    times it marks a heading when such lines are few and read as titles (see :func:`_titled`)."""
    weights: Counter[float] = Counter()
    lines = [(line, page) for page in pages for line in page.lines
             if line.size > 0 and not _is_furniture(line, page, repeated)]
    for line, _ in lines:
        weights[line.size] += len(line.text)
    if not weights:
        return {}
    body = weights.most_common(1)[0][0]
    titled = Counter(line.size for line, _ in lines if _titled(line) and line.size >= max(body * HEADING_SIZE, body + 1))
    large: list[float] = []
    taken = 0
    for size in sorted(titled, reverse=True):  # the largest sizes first, while they stay rare
        taken += titled[size]
        if taken > MAX_HEADING_SHARE * len(lines):
            break
        large.append(size)
    levels: dict[float, int] = {}
    level, last = 0, None
    for size in large:  # sizes within half a point are one level
        if last is None or last - size > 0.5:
            level = min(level + 1, 3)
        levels[size] = level
        last = size
    return levels


def _titled(line: _Line) -> bool:
    """Whether a line can be a title: short, mostly letters, not a finished sentence, not a list item
    set large for emphasis ("- 사업 수혜자 : …")."""
    text = line.text
    letters = len(_LETTERS.findall(text))
    return len(text) <= _HEADING_TEXT_LIMIT and letters >= 2 and letters >= 0.4 * len(text.replace(" ", "")) \
        and not text.endswith((".", "。", "다", ":")) and not _ITEM_MARK.match(text)


def _page_blocks(page: _Page, repeated: set[str], levels: dict[float, int] | None = None) -> list[Block]:
    locator = Locator(page=page.number)
    items: list[_Item] = []
    paragraph: list[_Line] = []
    heading: list[_Line] = []
    levels = levels or {}

    def level_of(line: _Line) -> int:
        return levels.get(line.size, 0) if _titled(line) else 0

    def add(block: Block, lines: Sequence[_Line] = (), bbox: tuple[float, float, float, float] | None = None) -> None:
        if bbox is None:
            bbox = (min(x.x0 for x in lines), min(x.top for x in lines),
                    max(x.x1 for x in lines), max(x.bottom for x in lines))
        items.append(_Item(block, bbox, len(items)))

    def flush() -> None:
        if paragraph:
            add(Block("paragraph", "\n".join(x.text for x in paragraph), locator), paragraph)
            paragraph.clear()
        if heading:
            level = min(level_of(x) for x in heading)
            add(Block("heading", " ".join(x.text for x in heading), locator, level=level), heading)
            heading.clear()

    for line in page.lines:
        if _is_furniture(line, page, repeated):
            # Set aside without ending the paragraph being read: furniture has its own place (the
            # page's top or bottom), and a badge drawn between two lines of a sentence in content
            # order ("…148조원의 1%" / "04" / "인 1.5조원 수준의…") must not cut the sentence in two.
            add(Block("furniture", line.text, locator), [line])
            continue
        level = level_of(line)
        if level:  # a heading line: its own block (a title wrapped over two lines stays one)
            # The next line of a title: right below it — or, when it starts in lower case, anywhere
            # within two lines' gap, the loose glyph boxes of tightly set lines overlapping included
            # ("Enhancing model performance with" / "targeted learning").
            going_on = line.text[:1].isascii() and line.text[:1].islower()
            below = line.top - heading[-1].bottom if heading else -1.0
            if not (heading and abs(heading[-1].size - line.size) <= 0.15 * line.size
                    and (0 <= below <= TITLE_LINE_GAP * line.height
                         or (going_on and line.top >= heading[-1].top + 0.5 * line.height
                             and below <= 2 * TITLE_LINE_GAP * line.height))):
                flush()
            heading.append(line)
            continue
        if heading:
            flush()
        if paragraph:
            previous = paragraph[-1]
            gap = line.top - previous.bottom
            moved_up = line.top < previous.top - 0.5 * previous.height
            beside = line.x0 >= max(x.x1 for x in paragraph) or line.x1 <= min(x.x0 for x in paragraph)
            if gap > PARAGRAPH_GAP * line.height or moved_up or beside:
                flush()
        paragraph.append(line)
    flush()
    for found in page.tables:
        if _table_key(found, page) in repeated:
            add(Block("furniture", found.table.render(), locator), bbox=found.bbox)
        else:
            add(Block("table", found.table.render(), locator, table=found.table), bbox=found.bbox)
    # Furniture sits in the edge bands: the top one reads first, the bottom one last, and neither
    # takes part in finding the body's columns.
    middle = page.height / 2
    furniture = [item for item in items if item.block.kind == "furniture"]
    body = [item for item in items if item.block.kind != "furniture"]
    top = sorted((i for i in furniture if i.bbox[1] < middle), key=lambda i: (i.bbox[1], i.bbox[0]))
    bottom = sorted((i for i in furniture if i.bbox[1] >= middle), key=lambda i: (i.bbox[1], i.bbox[0]))
    return [item.block for item in (*top, *_reading_order(body), *bottom)]


#: A paragraph that ends so has finished its sentence (Korean 개조식 lines end in 다, 음, 함, 임, 됨).
_FINISHED = re.compile(r"[.。!?！？:;)）」』”\"']$|[다음함임됨]$")
#: A line that starts so opens an item or a section of its own.
_OPENS = re.compile(r"^(?:[□■◆◇▣○◦●◎\-·∙•▪‐–※*①-⑳]|\(?\d{1,2}[.)]|\(?[가나다라마바사아자차카타파하][.)]|[IVXⅠ-Ⅹ]+\.|제\s?\d+\s?[편장절관조])")


def _join_across_pages(blocks: list[Block]) -> list[Block]:
    """A paragraph that stops mid-sentence at the foot of a page and goes on at the top of the next
    becomes one block (located on both pages), so no cut can fall inside its sentence."""
    out: list[Block] = []
    body = -1  # index in ``out`` of the last block that is not furniture
    for block in blocks:
        last = out[body] if body >= 0 else None
        if (last is not None and last.kind == "paragraph" and block.kind == "paragraph"
                and last.locator.page is not None and block.locator.page == (last.locator.page_end or last.locator.page) + 1
                and not _FINISHED.search(last.text) and not _OPENS.match(block.text)):
            # The running footer and header in between stay furniture (set aside after parsing).
            out[body] = Block("paragraph", last.text + "\n" + block.text,
                              Locator(page=last.locator.page, page_end=block.locator.page))
            continue
        out.append(block)
        if block.kind != "furniture":
            body = len(out) - 1
    return out


def _reading_order(items: list[_Item], depth: int = 0) -> list[_Item]:
    """Recursive XY-cut: split the blocks at their widest empty bands — down the page (column
    gutters) when the columns run most of the region's height and the gutter is at least half as
    wide as the widest band across, otherwise across it (between rows of blocks) — and read each
    part in turn; a group that cannot be cut keeps pdfium's content order. So a title drawn last
    still reads first, two columns read one after the other, and a band of two columns under
    another band reads after it."""
    if len(items) <= 1 or depth > 60:
        return sorted(items, key=lambda item: item.order)
    rows, row_gap = _cut(items, axis=1)
    columns, column_gap = _cut(items, axis=0)
    if len(columns) > 1 and (len(rows) == 1 or (column_gap >= 0.5 * row_gap and _tall(columns, items))):
        parts = columns
    elif len(rows) > 1:
        parts = rows
    else:
        return sorted(items, key=lambda item: item.order)
    return [item for group in parts for item in _reading_order(group, depth + 1)]


def _cut(items: list[_Item], axis: int) -> tuple[list[list[_Item]], float]:
    """Split at the widest empty bands along ``axis`` (0: x, 1: y) — those at least 0.8 times as
    wide as the widest, so equal gaps go in one step — and return the groups and the widest band."""
    low, high = axis, axis + 2
    ordered = sorted(items, key=lambda item: (item.bbox[low], item.order))
    gaps: list[tuple[int, float]] = []  # (index of the first item after the gap, width)
    end = ordered[0].bbox[high]
    minimum = MIN_COLUMN_GAP if axis == 0 else 0.0
    for index, item in enumerate(ordered[1:], start=1):
        gap = item.bbox[low] - end
        if gap > minimum:
            gaps.append((index, gap))
        end = max(end, item.bbox[high])
    if not gaps:
        return [ordered], 0.0
    widest = max(width for _, width in gaps)
    cuts = [index for index, width in gaps if width >= 0.8 * widest]
    bounds = [0, *cuts, len(ordered)]
    return [ordered[a:b] for a, b in itertools.pairwise(bounds)], widest


def _tall(columns: list[list[_Item]], items: list[_Item]) -> bool:
    """Whether every column runs down most of the region (real columns, not a row of labels)."""
    def height(group: list[_Item]) -> float:
        return max(i.bbox[3] for i in group) - min(i.bbox[1] for i in group)

    return all(height(group) >= 0.5 * height(items) for group in columns)


# ----------------------------------------------------------------------------------- scanned pages

#: A page with fewer characters of text than this (spaces aside) ...
SCAN_TEXT_CHARS = 20
#: ... whose images cover at least this share of it is a scan: it is rendered and read by OCR.
SCAN_IMAGE_SHARE = 0.5
#: A page is rendered for OCR at the asked resolution, or lower when that would make more pixels than
#: this (a poster-sized page at 300 dpi would be 140 million).
MAX_OCR_PIXELS = 40_000_000


def _scanned(pdf: Any, index: int, page: _Page) -> bool:
    """Whether a page is a scan: next to no text layer, and images over most of it."""
    chars = sum(len(line.text) - line.text.count(" ") for line in page.lines)
    if chars >= SCAN_TEXT_CHARS or page.tables or page.width <= 0 or page.height <= 0:
        return False
    import pypdfium2.raw as pdfium_c

    pdf_page = pdf[index]
    try:
        area = 0.0
        for obj in pdf_page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=3):
            bounds = getattr(obj, "get_bounds", None) or obj.get_pos  # pypdfium2 5 renamed get_pos
            left, bottom, right, top = bounds()
            area += max(right - left, 0.0) * max(top - bottom, 0.0)  # a scan tiled in strips adds up
    finally:
        pdf_page.close()
    return area >= SCAN_IMAGE_SHARE * page.width * page.height


def _ocr_lines(result: OcrPage) -> list[_Line]:
    lines = (_Line(normalize_line(x.text), x.top, x.bottom, x.x0, x.x1, x.size) for x in result.lines)
    return [line for line in lines if line.text]


class _Scans:
    """Reads a PDF's scanned pages by OCR, within the file's page and time limits, and reports the
    pages it could not read (and why)."""

    def __init__(self, options: OcrOptions) -> None:
        self.options = options
        self.spent = 0.0
        self.done = 0
        self.unread: dict[str, list[int]] = {}  # reason -> pages
        self.missing: str | None = None  # why the engine cannot run, once a scan needed it
        self.notes: list[str] = []

    def read(self, pdf: Any, index: int, page: _Page) -> _Page:
        import time

        from parsers.ocr import unavailable_reason

        options = self.options
        reason = unavailable_reason(options)
        if reason is not None:
            if options.enabled:  # turned off on purpose is no missing engine
                self.missing = reason
            return self._skip(page, reason)
        if self.done >= options.max_pages:
            return self._skip(page, f"over the {options.max_pages} scanned pages a file is read by OCR "
                                    "(SEAMS_OCR_MAX_PAGES)")
        left = None if options.time_budget_s is None else options.time_budget_s - self.spent
        if left is not None and left <= 0:
            return self._skip(page, "the file's time for OCR ran out (SEAMS_FILE_TIMEOUT_S)")
        started = time.monotonic()
        try:
            dpi = min(options.dpi, 72 * math.sqrt(MAX_OCR_PIXELS / (page.width * page.height)))
            pdf_page = pdf[index]
            try:
                image = pdf_page.render(scale=dpi / 72, grayscale=True).to_pil()
            finally:
                pdf_page.close()
            result = read_image(image, dpi, options, timeout=left)
        except TimeoutError:
            return self._skip(page, "the file's time for OCR ran out (SEAMS_FILE_TIMEOUT_S)")
        except OcrUnavailable as exc:
            self.missing = str(exc)
            return self._skip(page, str(exc))
        finally:
            self.spent += time.monotonic() - started
        self.done += 1
        note = dropped_warning(page.number, result, options.min_confidence)
        if note:
            self.notes.append(note)
        return _Page(page.number, page.width, page.height, _ocr_lines(result), ocr=result.confidence)

    def _skip(self, page: _Page, reason: str) -> _Page:
        self.unread.setdefault(reason, []).append(page.number)
        return page

    def warnings(self) -> list[str]:
        out = [f"scanned page{'s' if len(pages) > 1 else ''} {_page_list(pages)} not read: {reason}"
               for reason, pages in self.unread.items()]
        return out + self.notes

    def check(self, document: Document) -> None:
        """A document whose only pages are scans that could not be read fails, saying why."""
        if not self.unread or document.text.strip():
            return
        unread = sorted(number for pages in self.unread.values() for number in pages)
        if self.missing is not None:
            raise NeedsOcr(f"scanned pages only ({_page_list(unread)}), not read: {self.missing}")
        if not self.options.enabled:
            raise EmptyFile(f"no text layer: scanned pages only ({_page_list(unread)}), and OCR is turned off "
                            "(SEAMS_OCR=0)")
        raise TooLarge(f"scanned pages only, not read: {'; '.join(self.unread)}")


def _page_list(pages: Sequence[int]) -> str:
    shown = ", ".join(str(p) for p in pages[:10])
    return shown + (f" and {len(pages) - 10} more" if len(pages) > 10 else "")


def ocr_document(path: str, fmt: str, pages: Sequence[tuple[float, float, OcrPage]],
                 warnings: Sequence[str] = ()) -> Document:
    """A document of OCR'd page images (width and height in points, what the engine read), laid
    out as a PDF's text pages are (paragraphs, headings by size, running headers set aside)."""
    read = [_Page(number, width, height, _ocr_lines(result), ocr=result.confidence)
            for number, (width, height, result) in enumerate(pages, start=1)]
    return _document(path, fmt, read, Properties(), warnings)
