"""What a PDF page is read into: text lines with their boxes and sizes, ruled tables with theirs.

:class:`Line` and :class:`Page` are what the text layer (:mod:`parsers.pdf.text`), the table
finder (:mod:`parsers.pdf.ruled`) and OCR (:mod:`parsers.pdf.scans`) produce, and what furniture
(:mod:`parsers.pdf.furniture`) and the blocks (:mod:`parsers.pdf.blocks`) read. Coordinates are
display coordinates (points, y down); :class:`Transform` maps pdfium's page space to them.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from parsers.model import Table

#: Gap between lines (in line heights) that starts a new paragraph.
PARAGRAPH_GAP = 0.9


LINE_BREAK = re.compile(r"[^\r\n]+")


@dataclass(frozen=True)
class Line:
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
class FoundTable:
    bbox: tuple[float, float, float, float]  # x0, top, x1, bottom in display coordinates
    table: Table


@dataclass
class Page:
    number: int
    width: float
    height: float
    lines: list[Line] = field(default_factory=list)
    tables: list[FoundTable] = field(default_factory=list)
    ocr: float | None = None  # mean OCR confidence when the page was read by OCR (a scan)


@dataclass(frozen=True)
class Transform:
    """Page space (PDF units, y up, /Rotate not applied) <-> display space (y down, as shown)."""

    a: float
    b: float
    c: float
    d: float
    e: float
    f: float

    @classmethod
    def of(cls, page: Any, width: float, height: float) -> Transform:
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
CharBox = Callable[[int], tuple[float, float, float, float]]


def char_box(textpage: Any, transform: Transform) -> CharBox:
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


def sample_chars(text: str, start: int, end: int) -> list[int]:
    """The first, a middle and the last visible character of ``text[start:end]`` (a line that ends
    in a space must still be measured to its last glyph, or it reads as narrower than it is)."""
    first = next((i for i in range(start, end) if not text[i].isspace()), None)
    if first is None:
        return []
    last = next(i for i in range(end - 1, first - 1, -1) if not text[i].isspace())
    middle = next((i for i in range((first + last) // 2, last) if not text[i].isspace()), last)
    return sorted({first, middle, last})


def overlaps(a: Sequence[float], b: Sequence[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def contains(table: Sequence[float], x: float, char: Sequence[float]) -> bool:
    y = (char[1] + char[3]) / 2
    return table[0] <= x <= table[2] and table[1] <= y <= table[3]


def ink_centre(text: str, box: CharBox, index: int) -> float:
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


class Glyph(NamedTuple):
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
