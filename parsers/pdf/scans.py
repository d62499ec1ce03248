"""Scanned PDF pages: found, rendered and read by OCR, and laid out as any page's lines are.

A page with next to no text (under :data:`SCAN_TEXT_CHARS` characters) whose images cover most of it
(:data:`SCAN_IMAGE_SHARE`) is rendered (at most :data:`MAX_OCR_PIXELS`) and read by OCR
(:mod:`parsers.ocr`); its lines take the text layer's place, but for the few lines the layer has (a
cover's date, a stamp's caption), which are kept as they are written and stand in for the OCR
reading of the same place; its ``PageInfo.ocr`` holds the mean word confidence. The other pages keep
their text layer. Pages that cannot be read (no engine, over
the file's OCR page or time limit) are named in a warning.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from parsers.errors import EmptyFile, NeedsOcr, TooLarge
from parsers.model import Document, Properties
from parsers.ocr import OcrOptions, OcrPage, OcrUnavailable, dropped_warning, page_read, read_image
from parsers.pdf.blocks import assemble_document
from parsers.pdf.page import Line, Page
from parsers.text import normalize_line

#: A page with fewer characters of text than this (spaces aside) ...
SCAN_TEXT_CHARS = 20


#: ... whose images cover at least this share of it is a scan: it is rendered and read by OCR.
SCAN_IMAGE_SHARE = 0.5


#: A page is rendered for OCR at the asked resolution, or lower when that would make more pixels than
#: this (a poster-sized page at 300 dpi would be 140 million).
MAX_OCR_PIXELS = 40_000_000


def scanned(pdf: Any, index: int, page: Page) -> bool:
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


def _ocr_lines(result: OcrPage) -> list[Line]:
    lines = (Line(normalize_line(x.text), x.top, x.bottom, x.x0, x.x1, x.size) for x in result.lines)
    return [line for line in lines if line.text]


def _same_place(a: Line, b: Line) -> bool:
    """Whether two lines cover the same place: they overlap by over half the shorter one's height and
    half the narrower one's width."""
    high = min(a.bottom, b.bottom) - max(a.top, b.top)
    wide = min(a.x1, b.x1) - max(a.x0, b.x0)
    return high > 0.5 * min(a.height, b.height) and wide > 0.5 * max(min(a.x1 - a.x0, b.x1 - b.x0), 1.0)


def with_layer(layer: Sequence[Line], read: Sequence[Line]) -> list[Line]:
    """A scanned page's OCR lines (``read``, in reading order) with the few lines of its text layer
    (``layer``) kept: a layer line is exact where OCR guesses, so it replaces the OCR lines at its place
    and goes before the first OCR line below it. Why: a cover is a page image with a line or two of
    real text over it (``2023년 12월호``, which OCR read as ``2023년 1225``)."""
    if not layer:
        return list(read)
    pending = sorted(layer, key=lambda line: (line.top, line.x0))
    out: list[Line] = []
    for line in read:
        if any(_same_place(line, exact) for exact in layer):
            continue
        while pending and pending[0].top < line.top:
            out.append(pending.pop(0))
        out.append(line)
    return out + pending


class Scans:
    """Reads a PDF's scanned pages by OCR, within the file's page and time limits, and reports the
    pages it could not read (and why)."""

    def __init__(self, options: OcrOptions, path: str = "", pages: int = 0) -> None:
        self.options = options
        self.path, self.pages = path, pages  # for the progress listener (parsers.ocr.page_read)
        self.spent = 0.0
        self.done = 0
        self.unread: dict[str, list[int]] = {}  # reason -> pages
        self.missing: str | None = None  # why the engine cannot run, once a scan needed it
        self.notes: list[str] = []

    def read(self, pdf: Any, index: int, page: Page) -> Page:
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
        page_read(self.path, page.number, self.pages)
        note = dropped_warning(page.number, result, options.min_confidence)
        if note:
            self.notes.append(note)
        return Page(page.number, page.width, page.height, with_layer(page.lines, _ocr_lines(result)),
                    ocr=result.confidence)

    def _skip(self, page: Page, reason: str) -> Page:
        self.unread.setdefault(reason, []).append(page.number)
        return page

    def unread_pages(self) -> tuple[tuple[int, str], ...]:
        """The scanned pages OCR did not read, each with why, in page order."""
        return tuple(sorted((number, reason) for reason, pages in self.unread.items() for number in pages))

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
                 warnings: Sequence[str] = (), unread: tuple[tuple[int, str], ...] = ()) -> Document:
    """A document of OCR'd page images (width and height in points, what the engine read), laid
    out as a PDF's text pages are (paragraphs, headings by size, running headers set aside);
    ``unread``: the pages that were not read, each with why."""
    read = [Page(number, width, height, _ocr_lines(result), ocr=result.confidence)
            for number, (width, height, result) in enumerate(pages, start=1)]
    return assemble_document(path, fmt, read, Properties(unread=unread), warnings)
