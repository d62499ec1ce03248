"""Images (PNG, JPEG, TIFF, BMP, WebP): a page each (a multi-page TIFF: a page per frame), read by OCR.

Each frame is turned upright (EXIF orientation), flattened onto white, made grayscale and read by
:func:`parsers.ocr.read_image` at the resolution the file declares (300 dpi when it declares none or
an implausible one); the lines are laid out as a PDF's are (:func:`parsers.pdf.scans.ocr_document`). A
page's size in points comes from its pixels and that resolution.

Without the OCR engine an image fails with kind ``no_ocr`` and the install hint (it is tried again
on the next run); with OCR turned off (``SEAMS_OCR=0``) it is skipped (``unsupported``). Frames past ``SEAMS_OCR_MAX_PAGES`` or past the file's time for OCR are reported
in a warning; an image of more pixels than :data:`MAX_PIXELS` (a decompression bomb) is refused.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from parsers.errors import CorruptFile, EmptyFile, NeedsOcr, TooLarge, UnsupportedFile
from parsers.model import Document
from parsers.ocr import (
    OcrOptions,
    OcrPage,
    OcrUnavailable,
    dropped_warning,
    page_read,
    read_image,
    unavailable_reason,
)
from parsers.pdf.scans import ocr_document

#: Pixels of one frame at most (a 600-dpi A3 scan is 70 million).
MAX_PIXELS = 120_000_000
#: Declared resolutions outside this range are not believed (screenshots say 72, some files 1).
PLAUSIBLE_DPI = (100, 1200)
DEFAULT_DPI = 300


def parse_image(path: Path, ocr: OcrOptions | None = None) -> Document:
    from PIL import Image, ImageSequence, UnidentifiedImageError

    options = ocr or OcrOptions()
    if not options.enabled:  # turned off on purpose: skipped, as any type seams does not read
        raise UnsupportedFile("an image: its text needs OCR, which is turned off (SEAMS_OCR=0)")
    reason = unavailable_reason(options)
    if reason is not None:
        raise NeedsOcr(f"an image: its text needs OCR, and {reason}")
    pages: list[tuple[float, float, OcrPage]] = []
    warnings: list[str] = []
    unread: list[int] = []
    spent = 0.0
    try:
        with Image.open(path) as image:
            if image.width * image.height > MAX_PIXELS:  # asked before any pixel is decoded
                raise TooLarge(f"image of {image.width:,} x {image.height:,} pixels (limit {MAX_PIXELS:,} pixels)")
            frames = getattr(image, "n_frames", 1)
            for number, frame in enumerate(ImageSequence.Iterator(image), start=1):
                left = None if options.time_budget_s is None else options.time_budget_s - spent
                if number > options.max_pages or (left is not None and left <= 0):
                    unread.append(number)
                    continue
                dpi = _dpi(frame)
                width, height = frame.size
                started = time.monotonic()
                try:
                    result = read_image(_page_image(frame), dpi, options, timeout=left)
                except TimeoutError:
                    unread.append(number)
                    continue
                finally:
                    spent += time.monotonic() - started
                page_read(str(path), number, frames)
                note = dropped_warning(number, result, options.min_confidence)
                if note:
                    warnings.append(note)
                pages.append((width * 72 / dpi, height * 72 / dpi, result))
    except Image.DecompressionBombError as exc:
        raise TooLarge(f"image of over {MAX_PIXELS:,} pixels") from exc
    except UnidentifiedImageError as exc:
        raise CorruptFile(f"unreadable image: {exc}") from exc
    except OcrUnavailable as exc:
        raise NeedsOcr(f"an image: its text needs OCR, and {exc}") from exc
    except OSError as exc:  # truncated or damaged image data
        raise CorruptFile(f"unreadable image (truncated or damaged): {exc}") from exc
    reason = f"over SEAMS_OCR_MAX_PAGES ({options.max_pages}) or the file's time for OCR"
    if unread:
        warnings.insert(0, f"frames {', '.join(map(str, unread[:10]))}{' …' if len(unread) > 10 else ''} not read: "
                           + reason)
    if not pages:
        raise TooLarge(warnings[0]) if unread else EmptyFile("an image with no frames")
    return ocr_document(str(path), "image", pages, warnings, unread=tuple((number, reason) for number in unread))


def _dpi(frame: Any) -> float:
    declared = frame.info.get("dpi")
    try:
        dpi = float(declared[0]) if declared else 0.0
    except (TypeError, ValueError, IndexError):
        dpi = 0.0
    return dpi if PLAUSIBLE_DPI[0] <= dpi <= PLAUSIBLE_DPI[1] else DEFAULT_DPI


def _page_image(frame: Any) -> Any:
    """The frame upright, on white, in grayscale (what the engine reads best)."""
    from PIL import Image, ImageOps

    frame = ImageOps.exif_transpose(frame)
    if frame.mode in ("RGBA", "LA", "PA") or (frame.mode == "P" and "transparency" in frame.info):
        rgba = frame.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        frame = Image.alpha_composite(white, rgba)
    return frame.convert("L")
