"""Parse errors: one root, a small closed set of kinds.

    ParseError
    ├── EmptyFile          (kind "empty")        zero bytes or nothing readable inside
    ├── CorruptFile        (kind "corrupt")      the bytes are not a valid file of the detected type
    ├── EncryptedFile      (kind "encrypted")    a password is needed to read it
    ├── UnsupportedFile    (kind "unsupported")  no parser for this type; reported as skipped
    ├── TooLarge           (kind "too_large")    over a size/row/decompression limit
    └── NeedsOcr           (kind "no_ocr")       a scan, and the OCR engine is not installed

Third-party exceptions are converted at the parser boundary with ``raise ... from exc`` so callers
only ever see these.
"""

from __future__ import annotations


class ParseError(Exception):
    kind = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        #: The file's type when it was known before the error (:func:`parsers.parse` sets it), else "".
        self.format = ""


class EmptyFile(ParseError):
    kind = "empty"


class CorruptFile(ParseError):
    kind = "corrupt"


class EncryptedFile(ParseError):
    kind = "encrypted"


class UnsupportedFile(ParseError):
    kind = "unsupported"


class TooLarge(ParseError):
    kind = "too_large"


class NeedsOcr(ParseError):
    """Only scanned pages or images, and no OCR engine to read them: a passing reason (the file is
    tried again on the next run, so installing the engine is enough)."""

    kind = "no_ocr"


ERROR_KINDS = tuple(
    cls.kind for cls in (EmptyFile, CorruptFile, EncryptedFile, UnsupportedFile, TooLarge, NeedsOcr)
)
