"""PDF: text with pypdfium2 in reading order, ruled tables from pdfium's drawing, furniture marked.

The package by concern: :mod:`~parsers.pdf.page` (what a page is read into), :mod:`~parsers.pdf.text`
(the text layer and glyph repair), :mod:`~parsers.pdf.ruled` (ruled tables),
:mod:`~parsers.pdf.furniture` (running headers and footers), :mod:`~parsers.pdf.blocks` (headings,
paragraphs, reading order, the document) and :mod:`~parsers.pdf.scans` (pages read by OCR).

Why pdfium for everything it reads (numbers from ``bench/parse.py`` on this machine): pdfplumber's
page parse (pdfminer) costs about 100 ms for a page of plain text, whichever of ``extract_text``,
``find_tables`` or ``chars`` is asked for first, while pypdfium2 extracts the same page in about
1 ms. pdfium also keeps content order, which reads multi-column pages column by column (pdfminer's
line clustering interleaves the columns) and keeps word spaces that pdfminer drops in tightly set
text. So every page's text comes from pdfium. Tables are looked for only on pages whose vector
graphics could draw a ruled table (:func:`may_have_table`): their ruling edges are read from
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
(``flows/ingest/workers.py``, ``Cutter``), which kills the worker; tests that need a timeout should run
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

from contextlib import ExitStack
from pathlib import Path
from typing import Any

from parsers.errors import CorruptFile, EncryptedFile, TooLarge
from parsers.model import Document, Properties
from parsers.ocr import OcrOptions
from parsers.pdf.blocks import assemble_document
from parsers.pdf.page import Page
from parsers.pdf.ruled import TableFinder
from parsers.pdf.scans import Scans, scanned
from parsers.pdf.text import read_page
from parsers.text import normalize_line

MAX_PAGES = 5000


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
        tables = TableFinder()
        scans = Scans(ocr or OcrOptions(), str(path), count)
        pages: list[Page] = []
        warnings: list[str] = []
        for index in range(count):
            try:
                page = read_page(pdf, index, tables)
                pages.append(scans.read(pdf, index, page) if scanned(pdf, index, page) else page)
            except pdfium.PdfiumError as exc:  # one bad page must not lose the others
                warnings.append(f"page {index + 1}: could not be read ({exc})")
                pages.append(Page(index + 1, 0.0, 0.0))
        warnings.extend(tables.warnings)
        warnings.extend(scans.warnings())
    properties = Properties(
        title=normalize_line(metadata.get("Title", "")), author=normalize_line(metadata.get("Author", "")),
        subject=normalize_line(metadata.get("Subject", "")), unread=scans.unread_pages(),
    )
    document = assemble_document(str(path), "pdf", pages, properties, warnings)
    scans.check(document)
    return document


def _open_error(exc: Any) -> Exception:
    import pypdfium2.raw as pdfium_c

    code = getattr(exc, "err_code", None)
    if code == pdfium_c.FPDF_ERR_PASSWORD:
        return EncryptedFile("password-protected PDF (a user password is needed to open it)")
    if code == pdfium_c.FPDF_ERR_SECURITY:
        return EncryptedFile("PDF encrypted with an unsupported security handler (e.g. certificates)")
    return CorruptFile(f"unreadable PDF (truncated or damaged): {exc}")
