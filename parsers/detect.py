"""Detect a file's type from its bytes (magic numbers, container structure), then its name.

A PDF named ``.docx`` is a PDF here; a workbook named ``.dat`` is a workbook. An OLE2 container
that holds an ``EncryptedPackage`` is an encrypted Office file, whatever its extension says. Images
(PNG, JPEG, TIFF, BMP, WebP) are ``image``, read by OCR. Known binary types seams has no parser for
(GIF, archives, legacy Office, HWP 3) are named in the ``unsupported`` message; unknown binary is
``unsupported`` too. Text is decoded by :func:`decode_text` (BOMs, BOM-less UTF-16/32, UTF-8,
CP949/EUC-KR, then a statistical guess).
"""

from __future__ import annotations

import codecs
import re
import zipfile
from pathlib import Path

from parsers.errors import CorruptFile, EmptyFile, EncryptedFile, TooLarge, UnsupportedFile

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
#: The first bytes of a HWP 5 document's ``FileHeader`` stream.
HWP_SIGNATURE = b"HWP Document File"
_TEXT_EXTENSIONS = {
    ".md": "md", ".markdown": "md", ".txt": "txt", ".text": "txt", ".csv": "csv", ".tsv": "csv",
    ".html": "html", ".htm": "html", ".xhtml": "html", ".eml": "eml", ".rst": "rst", ".org": "org",
    ".json": "txt", ".xml": "xml", ".log": "txt",
}
_ZIP_MEMBERS = (
    ("word/document.xml", "docx"),
    ("xl/workbook.xml", "xlsx"),
    ("ppt/presentation.xml", "pptx"),
    ("Contents/content.hpf", "hwpx"),  # a HWPX whose mimetype member is missing
)
_ZIP_UNSUPPORTED = (
    ("xl/workbook.bin", "binary Excel workbook (.xlsb); save it as .xlsx"),
)
_ODF_MIMETYPES = {
    "application/vnd.oasis.opendocument.text": "odt",
    "application/epub+zip": "epub",
    "application/hwp+zip": "hwpx",
}
_ODF_UNSUPPORTED = {
    "application/vnd.oasis.opendocument.spreadsheet": "OpenDocument spreadsheet (.ods); save it as .xlsx",
    "application/vnd.oasis.opendocument.presentation": "OpenDocument presentation (.odp); save it as .pptx",
}
#: Leading bytes of the images read by OCR (PNG, JPEG, TIFF both byte orders); WebP and BMP are
#: told by their RIFF header and their "BM" with the name (two letters alone prove little).
_IMAGE_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"II*\x00", b"MM\x00*")
#: Leading bytes of binary formats seams does not read -> what to tell the user.
_BINARY_SIGNATURES = (
    (b"GIF87a", "GIF image"), (b"GIF89a", "GIF image"),
    (b"\x1f\x8b", "gzip archive"), (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"), (b"Rar!", "RAR archive"),
    (b"\x7fELF", "executable"),
    (b"HWP Document File V", "Hangul HWP 3 document (before HWP 5); save it as .hwp 5, .hwpx or PDF"),
)
_EMAIL_HEADER = re.compile(
    rb"^(?:(?:From|To|Subject|Date|Received|Return-Path|Message-ID|MIME-Version|Delivered-To|X-[\w-]+):"
    rb"[^\n]*\r?\n)+", re.IGNORECASE,
)


def detect_format(path: Path) -> str:
    """Return the format name of ``path``; raise a ParseError when it cannot be read at all."""
    with path.open("rb") as handle:
        head = handle.read(4096)
    if not head:
        raise EmptyFile("the file is empty (0 bytes)")
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return _detect_zip(path)
    if head.startswith(_OLE_MAGIC):
        return _detect_ole(path)
    if head.startswith(b"{\\rtf"):
        return "rtf"
    if head.startswith(_IMAGE_SIGNATURES) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP") \
            or (head[:2] == b"BM" and path.suffix.lower() in (".bmp", ".dib")):
        return "image"
    for signature, name in _BINARY_SIGNATURES:
        if head.startswith(signature):
            raise UnsupportedFile(name)
    suffix = path.suffix.lower()
    if _looks_binary(head):
        raise UnsupportedFile(f"binary file of unknown type ({suffix or 'no extension'})")
    if suffix in _TEXT_EXTENSIONS:
        return _TEXT_EXTENSIONS[suffix]
    lowered = head[:512].lower().lstrip()
    if lowered.startswith((b"<!doctype html", b"<html")):
        return "html"
    if _EMAIL_HEADER.match(head) and re.search(rb"^(From|Subject):", head, re.IGNORECASE | re.MULTILINE):
        return "eml"
    return "txt"


def _detect_zip(path: Path) -> str:
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if "mimetype" in names:
                mimetype = archive.read("mimetype")[:100].decode("ascii", "replace").strip()
                if mimetype in _ODF_MIMETYPES:
                    return _ODF_MIMETYPES[mimetype]
                if mimetype in _ODF_UNSUPPORTED:
                    raise UnsupportedFile(_ODF_UNSUPPORTED[mimetype])
    except zipfile.BadZipFile as exc:
        raise CorruptFile(f"broken zip container: {exc}") from exc
    for member, fmt in _ZIP_MEMBERS:
        if member in names:
            return fmt
    for member, message in _ZIP_UNSUPPORTED:
        if member in names:
            raise UnsupportedFile(message)
    if "[Content_Types].xml" in names:
        raise UnsupportedFile("Office Open XML package that is not a DOCX, XLSX or PPTX")
    raise UnsupportedFile("zip archive that is not an Office/OpenDocument file")


def _detect_ole(path: Path) -> str:
    import olefile

    try:
        with olefile.OleFileIO(str(path)) as ole:
            streams = {"/".join(entry) for entry in ole.listdir()}
            hwp = "FileHeader" in streams and ole.openstream("FileHeader").read(32).startswith(HWP_SIGNATURE)
    except OSError as exc:
        raise CorruptFile(f"broken OLE2 container: {exc}") from exc
    if "EncryptedPackage" in streams or "EncryptionInfo" in streams:
        raise EncryptedFile("password-protected Office file (encrypted OLE2 container)")
    if "WordDocument" in streams:
        raise UnsupportedFile("legacy Word 97-2003 .doc; save it as .docx")
    if "Workbook" in streams or "Book" in streams:
        raise UnsupportedFile("legacy Excel 97-2003 .xls; save it as .xlsx")
    if "PowerPoint Document" in streams:
        raise UnsupportedFile("legacy PowerPoint 97-2003 .ppt; save it as .pptx")
    if hwp:  # a HWP 5 document: FileHeader's signature, whatever the other streams are
        return "hwp"
    if any(s.startswith("__substg1.0_") for s in streams):
        return "msg"
    raise UnsupportedFile("OLE2 container of unknown type")


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
)


def _looks_binary(head: bytes) -> bool:
    if any(head.startswith(bom) for bom, _ in _BOMS):
        return False
    if b"\x00" in head:
        if _wide_encoding(head) is not None:
            return False
        # A few stray NUL bytes in otherwise clean text (a CSV export gone slightly wrong) do not
        # make it binary: the text parsers drop them.
        if head.count(0) * 100 > len(head):  # over 1 %
            return True
        head = head.replace(b"\x00", b"")
    # Text has few control characters besides tab, newline, carriage return and form feed.
    controls = sum(1 for byte in head if byte < 32 and byte not in (9, 10, 12, 13, 27))
    return controls > len(head) * 0.05


def _wide_encoding(head: bytes) -> str | None:
    """UTF-32 or UTF-16 without a BOM, told apart by where the zero bytes fall."""
    sample = head[: len(head) // 4 * 4]
    if len(sample) < 4:
        return None
    lanes = [sample[i::4].count(0) / (len(sample) // 4) for i in range(4)]
    if lanes[2] > 0.95 and lanes[3] > 0.95:
        return "utf-32-le"
    if lanes[0] > 0.95 and lanes[1] > 0.95:
        return "utf-32-be"
    even = (lanes[0] + lanes[2]) / 2
    odd = (lanes[1] + lanes[3]) / 2
    if odd > 0.3 and even < 0.05:
        return "utf-16-le"
    if even > 0.3 and odd < 0.05:
        return "utf-16-be"
    return None


#: Text formats (TXT, Markdown, HTML) are read whole; larger files are refused. CSV is streamed.
MAX_TEXT_BYTES = 100_000_000
#: How much of a file the encoding is guessed from.
SNIFF_BYTES = 1_000_000


def read_text(path: Path, max_bytes: int | None = None) -> str:
    """Read a whole text file in whatever encoding it uses (see :func:`sniff_encoding`)."""
    max_bytes = MAX_TEXT_BYTES if max_bytes is None else max_bytes
    size = path.stat().st_size
    if size > max_bytes:
        raise TooLarge(f"text file of {size:,} bytes (limit {max_bytes:,} for text read whole)")
    return decode_text(path.read_bytes())


def decode_text(data: bytes) -> str:
    """Decode text in the encoding :func:`sniff_encoding` finds; undecodable bytes become U+FFFD."""
    sample = data[:SNIFF_BYTES]
    return data.decode(sniff_encoding(sample, complete=len(sample) == len(data)), errors="replace")


def sniff_encoding(sample: bytes, complete: bool = True) -> str:
    """The encoding of text starting with ``sample``: a BOM, BOM-less UTF-32/16 (by where the zero
    bytes fall), UTF-8, CP949 (a superset of EUC-KR) when the result is mostly Hangul, then a
    statistical guess. ``complete`` says whether the sample is the whole file (a multi-byte
    character cut at the end of a partial sample is not an error)."""
    for bom, encoding in _BOMS:
        if sample.startswith(bom):
            return encoding
    if b"\x00" in sample[:4096]:
        wide = _wide_encoding(sample[:4096])
        if wide is not None:
            return wide
    if _decodes(sample, "utf-8", complete) is not None:
        return "utf-8"
    text = _decodes(sample, "cp949", complete)
    if text is not None and _mostly_hangul(text):
        return "cp949"
    return _guess_encoding(sample) or ("cp949" if text is not None else "utf-8")


def _decodes(sample: bytes, encoding: str, complete: bool) -> str | None:
    try:
        return codecs.getincrementaldecoder(encoding)().decode(sample, final=complete)
    except UnicodeDecodeError:
        return None


def _guess_encoding(data: bytes) -> str | None:
    """charset_normalizer's least chaotic candidates, then the most coherent; Windows-1252 wins
    ties (it is what "Latin-1" text almost always is, as the WHATWG encoding standard assumes)."""
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        return None
    least = min(m.chaos for m in matches)
    close = [m for m in matches if m.chaos <= least + 0.01]
    return max(close, key=lambda m: (round(m.coherence, 3), m.encoding == "cp1252")).encoding


def _mostly_hangul(text: str) -> bool:
    """CP949 decodes many non-Korean byte strings too; real Korean text is mostly Hangul syllables."""
    wide = [ch for ch in text if ord(ch) > 0x7F]
    if not wide:
        return True
    hangul = sum(1 for ch in wide if "\uac00" <= ch <= "\ud7a3" or "\u3131" <= ch <= "\u318e")
    return hangul >= 0.6 * len(wide)
