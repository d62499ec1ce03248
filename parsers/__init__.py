"""Parsers: ``parse(path) -> Document`` for every supported format.

The format is detected from the file's bytes (see :mod:`parsers.detect`), then the registry picks
the parser. Every failure reaches the caller as a :class:`parsers.errors.ParseError` of one of a
small set of kinds; nothing else escapes.

Limits that keep memory bounded live beside the code they bound: :data:`MAX_FILE_BYTES` here,
zip/XML bombs in :mod:`parsers.containers`, rows and cells in :mod:`parsers.xlsx`, pages in
:mod:`parsers.pdf`. Time is bounded by the caller: ``parse`` has no clock of its own (see the
note in :mod:`parsers.pdf`); ``flows/ingest/workers.py`` runs it in a process pool with a per-file timeout.
OCR (scanned PDF pages, images) is the exception: it gets a time budget of its own in
:class:`parsers.ocr.OcrOptions`, so a long scan stops reading pages before the pool's limit kills it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from parsers.delimited import parse_csv
from parsers.detect import detect_format
from parsers.docx import parse_docx
from parsers.errors import ERROR_KINDS, CorruptFile, EmptyFile, ParseError, TooLarge, UnsupportedFile
from parsers.html import parse_html
from parsers.hwp import parse_hwp
from parsers.hwpx import parse_hwpx
from parsers.image import parse_image
from parsers.model import Block, Document, Locator, PageInfo, Properties, Table
from parsers.ocr import OcrOptions
from parsers.other import PARTITIONERS, parse_with_unstructured
from parsers.pdf import parse_pdf
from parsers.pptx import parse_pptx
from parsers.text import parse_markdown, parse_txt
from parsers.xlsx import parse_xlsx

Parser = Callable[[Path], Document]

#: Format name -> parser. Formats not listed here go to unstructured (see UNSTRUCTURED_FORMATS).
PARSERS: dict[str, Parser] = {
    "pdf": parse_pdf,
    "image": parse_image,
    "xlsx": parse_xlsx,
    "csv": parse_csv,
    "pptx": parse_pptx,
    "docx": parse_docx,
    "hwpx": parse_hwpx,
    "hwp": parse_hwp,
    "html": parse_html,
    "md": parse_markdown,
    "txt": parse_txt,
}
UNSTRUCTURED_FORMATS = frozenset(PARTITIONERS)
#: Formats whose parser reads scans by OCR: they take the OCR options as well.
OCR_FORMATS = frozenset({"pdf", "image"})

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: Files larger than this are refused before parsing.
MAX_FILE_BYTES = 512 * 1024 * 1024


def parse(path: str | Path, max_bytes: int = MAX_FILE_BYTES, ocr: OcrOptions | None = None) -> Document:
    """Parse one file into a Document, or raise a ParseError saying why not; scans are read by OCR
    with ``ocr`` (default :class:`parsers.ocr.OcrOptions`)."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise CorruptFile(f"cannot read the file: {exc.strerror or exc}") from exc
    if size == 0:
        raise EmptyFile("the file is empty (0 bytes)")
    if size > max_bytes:
        raise TooLarge(f"{size:,} bytes (limit {max_bytes:,})")
    fmt = ""
    try:
        fmt = detect_format(path)
        if fmt in OCR_FORMATS:
            document = PARSERS[fmt](path, ocr=ocr)
        elif fmt in PARSERS:
            document = PARSERS[fmt](path)
        elif fmt in UNSTRUCTURED_FORMATS:
            document = parse_with_unstructured(path, fmt)
        else:
            raise UnsupportedFile(f"no parser for format {fmt!r}")
    except ParseError as exc:
        exc.format = exc.format or fmt  # a failed file's report still says what type it is
        raise
    except MemoryError as exc:
        raise _typed(TooLarge("ran out of memory while parsing"), fmt) from exc
    except PermissionError as exc:
        raise _typed(CorruptFile(f"cannot read the file: {exc.strerror or exc}"), fmt) from exc
    except Exception as exc:  # the parser boundary: no third-party exception escapes
        raise _typed(CorruptFile(f"{type(exc).__name__}: {exc}"), fmt) from exc
    document = document.without_furniture()
    if _LONE_SURROGATE.search(document.text):
        # No store or encoder takes such text: one file would stop the run at its first write.
        raise _typed(CorruptFile(f"the {fmt} parser returned text with an unpaired UTF-16 surrogate (a seams "
                                 "defect: please report it with the file)"), fmt)
    if not document.text.strip():
        hint = {"pdf": " (no text layer, and no page is a scanned image for OCR)",
                "image": " (OCR read no text in it)"}.get(fmt, "")
        raise _typed(EmptyFile(f"no extractable text in this {fmt} file{hint}"), fmt)
    return document


def _typed(error: ParseError, fmt: str) -> ParseError:
    """``error``, saying the file's type (``fmt``) for the failed file's report."""
    error.format = fmt
    return error


__all__ = [
    "ERROR_KINDS", "OCR_FORMATS", "PARSERS", "Block", "Document", "Locator", "OcrOptions", "PageInfo", "ParseError",
    "Properties", "Table", "detect_format", "parse",
]

