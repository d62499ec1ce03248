"""Detect a file's type from its bytes (magic numbers, container structure), then its name.

A PDF named ``.docx`` is a PDF here. An OLE2 container that holds an ``EncryptedPackage`` is an
encrypted Office file, whatever its extension says.
"""

from __future__ import annotations

import codecs
import zipfile
from pathlib import Path

from parsers.errors import CorruptFile, EmptyFile, EncryptedFile, TooLarge, UnsupportedFile

#: Refuse OOXML whose members would inflate beyond this (zip bombs).
MAX_UNCOMPRESSED = 1_000_000_000
MAX_RATIO = 200


def check_zip_bomb(path: Path) -> None:
    """Raise TooLarge when an OOXML container would inflate to an unreasonable size."""
    try:
        with zipfile.ZipFile(path) as archive:
            total = 0
            for info in archive.infolist():
                total += info.file_size
                if info.compress_size and info.file_size / info.compress_size > MAX_RATIO and info.file_size > 50_000_000:
                    raise TooLarge(f"member {info.filename} inflates {info.file_size / info.compress_size:.0f}x")
            if total > MAX_UNCOMPRESSED:
                raise TooLarge(f"archive inflates to {total:,} bytes (limit {MAX_UNCOMPRESSED:,})")
    except zipfile.BadZipFile as exc:
        raise CorruptFile(f"broken zip container: {exc}") from exc


_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_TEXT_EXTENSIONS = {
    ".md": "md", ".markdown": "md", ".txt": "txt", ".text": "txt", ".csv": "csv", ".tsv": "csv",
    ".html": "html", ".htm": "html", ".eml": "eml", ".rst": "rst", ".org": "org", ".json": "txt",
    ".xml": "xml", ".log": "txt",
}
_ZIP_MEMBERS = (
    ("word/document.xml", "docx"),
    ("xl/workbook.xml", "xlsx"),
    ("ppt/presentation.xml", "pptx"),
)
_ODF_MIMETYPES = {
    "application/vnd.oasis.opendocument.text": "odt",
    "application/epub+zip": "epub",
}


def detect_format(path: Path) -> str:
    """Return the format name of ``path``; raise a ParseError when it cannot be read at all."""
    with path.open("rb") as handle:
        head = handle.read(4096)
    if not head:
        raise EmptyFile("the file is empty (0 bytes)")
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return _detect_zip(path)
    if head.startswith(_OLE_MAGIC):
        return _detect_ole(path)
    if head.startswith(b"{\\rtf"):
        return "rtf"
    suffix = path.suffix.lower()
    if _looks_binary(head):
        raise UnsupportedFile(f"binary file of unknown type ({suffix or 'no extension'})")
    if suffix in _TEXT_EXTENSIONS:
        return _TEXT_EXTENSIONS[suffix]
    lowered = head[:512].lower().lstrip()
    if lowered.startswith((b"<!doctype html", b"<html")):
        return "html"
    return "txt"


def _detect_zip(path: Path) -> str:
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if "mimetype" in names:
                mimetype = archive.read("mimetype")[:100].decode("ascii", "replace").strip()
                if mimetype in _ODF_MIMETYPES:
                    return _ODF_MIMETYPES[mimetype]
    except zipfile.BadZipFile as exc:
        raise CorruptFile(f"broken zip container: {exc}") from exc
    for member, fmt in _ZIP_MEMBERS:
        if member in names:
            return fmt
    raise UnsupportedFile("zip archive that is not an Office/OpenDocument file")


def _detect_ole(path: Path) -> str:
    import olefile

    try:
        with olefile.OleFileIO(str(path)) as ole:
            streams = {"/".join(entry) for entry in ole.listdir()}
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
    raise UnsupportedFile("OLE2 container of unknown type")


def _looks_binary(head: bytes) -> bool:
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF8)):
        return False
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return False
    if b"\x00" in head:
        # UTF-16 without a BOM has NULs every other byte in ASCII-heavy text.
        even, odd = head[0::2], head[1::2]
        return not (even.count(0) > len(even) * 0.3 or odd.count(0) > len(odd) * 0.3)
    return False


def read_text(path: Path, max_bytes: int | None = None) -> str:
    """Read a text file in whatever encoding it uses: BOMs, UTF-8, CP949/EUC-KR, then a guess."""
    data = path.read_bytes() if max_bytes is None else path.open("rb").read(max_bytes)
    return decode_text(data)


def decode_text(data: bytes) -> str:
    for bom, encoding in (
        (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if b"\x00" in data[:4096]:
        even_nuls = data[0:4096:2].count(0)
        return data.decode("utf-16-be" if even_nuls > data[1:4096:2].count(0) else "utf-16-le", "replace")
    try:
        return data.decode("cp949")  # superset of EUC-KR: the usual legacy Korean encoding
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    return str(best) if best is not None else data.decode("utf-8", errors="replace")
