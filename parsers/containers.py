"""Safety checks on OOXML (zip) containers, run before any library opens them.

Zip bombs: Python's ``zipfile`` never inflates a member past the size its central directory
declares (it stops there and fails the CRC check), so the declared sizes are a trustworthy upper
bound, and checking them costs no decompression. A container is refused (``too_large``) when

- all members together would inflate past :data:`MAX_UNCOMPRESSED`;
- one member inflates more than :data:`MAX_RATIO` times and past :data:`RATIO_FLOOR` bytes;
- one XML part that its library loads whole (every part of a DOCX/PPTX; the shared strings and
  styles of an XLSX, whose worksheets are streamed) is over :data:`MAX_LOADED_PART`.

XML bombs: OOXML forbids DTDs in its parts (ECMA-376 Part 2, §8.1.4), and a DTD is how "billion
laughs" and external-entity attacks work. Every XML part's prolog is read (a few KB, never the
whole part) and a part that declares a ``<!DOCTYPE`` or ``<!ENTITY`` makes the file ``corrupt``.
This is defence in depth: python-docx and python-pptx parse with ``resolve_entities=False`` and
libxml2 caps entity amplification; openpyxl parses with defusedxml when it is installed (it is a
dependency), which forbids entity declarations.
"""

from __future__ import annotations

import codecs
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from parsers.errors import CorruptFile, TooLarge

#: All members of one container together may not inflate past this.
MAX_UNCOMPRESSED = 1_000_000_000
#: A member that inflates more than this many times its stored size, and past RATIO_FLOOR, is a bomb.
MAX_RATIO = 200
RATIO_FLOOR = 50_000_000
#: An XML part a library parses into memory in one piece may not be larger than this.
MAX_LOADED_PART = 256_000_000
#: How much of each XML part is read to find its prolog.
PROLOG_BYTES = 64 * 1024


def check_zip_bomb(path: Path, streamed: tuple[str, ...] = ()) -> None:
    """Raise TooLarge when the container would inflate beyond the limits (see module docstring).

    ``streamed`` are member-name prefixes the caller reads incrementally (exempt from the
    loaded-part limit), e.g. ``("xl/worksheets/",)`` for openpyxl in read-only mode.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            _check_sizes(archive.infolist(), streamed)
    except zipfile.BadZipFile as exc:
        raise CorruptFile(f"broken zip container: {exc}") from exc


def check_ooxml(path: Path, streamed: tuple[str, ...] = ()) -> None:
    """Zip-bomb limits plus the DTD check on every XML part; raises TooLarge or CorruptFile."""
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            _check_sizes(infos, streamed)
            for info in infos:
                if info.filename.lower().endswith((".xml", ".rels")) and info.file_size:
                    with archive.open(info) as member:
                        head = member.read(PROLOG_BYTES)
                    problem = prolog_problem(head)
                    if problem:
                        raise CorruptFile(f"{info.filename}: {problem}")
    except zipfile.BadZipFile as exc:
        raise CorruptFile(f"broken zip container: {exc}") from exc
    except (OSError, EOFError, ValueError, NotImplementedError) as exc:  # zlib errors, bad members
        raise CorruptFile(f"unreadable zip member: {type(exc).__name__}: {exc}") from exc


def open_ooxml(path: Path, opener: Callable[[Any], Any], what: str,
               not_a_package: type[Exception]) -> Any:
    """``opener``'s package read from ``path`` after :func:`check_ooxml`, from a file object (its type
    was detected from the content, not the name); a package ``opener`` cannot read (its library's
    ``not_a_package``, a missing part, broken XML) raises CorruptFile naming ``what`` it should be."""
    from lxml import etree

    check_ooxml(path)
    with path.open("rb") as handle:
        try:
            return opener(handle)
        except (not_a_package, KeyError, ValueError, TypeError, zipfile.BadZipFile, etree.LxmlError) as exc:
            raise CorruptFile(f"unreadable {what}: {type(exc).__name__}: {exc}") from exc


def _check_sizes(infos: list[zipfile.ZipInfo], streamed: tuple[str, ...]) -> None:
    total = 0
    for info in infos:
        total += info.file_size
        ratio = info.file_size / max(info.compress_size, 1)
        if ratio > MAX_RATIO and info.file_size > RATIO_FLOOR:
            raise TooLarge(f"zip bomb: member {info.filename} inflates {ratio:,.0f}x "
                           f"to {info.file_size:,} bytes")
        loaded = info.filename.lower().endswith((".xml", ".rels")) and not info.filename.startswith(streamed)
        if loaded and info.file_size > MAX_LOADED_PART:
            raise TooLarge(f"member {info.filename} is {info.file_size:,} bytes of XML "
                           f"(limit {MAX_LOADED_PART:,} for a part parsed in one piece)")
    if total > MAX_UNCOMPRESSED:
        raise TooLarge(f"zip bomb: the container inflates to {total:,} bytes (limit {MAX_UNCOMPRESSED:,})")


def prolog_problem(head: bytes) -> str | None:
    """Why the XML prolog at the start of ``head`` is refused, or None when it is acceptable."""
    text = _decode_head(head)
    pos = 0
    length = len(text)
    while pos < length:
        while pos < length and text[pos] in " \t\r\n\ufeff":
            pos += 1
        if pos >= length:
            break
        if text.startswith("<?", pos):
            end = text.find("?>", pos + 2)
            if end < 0:
                break
            pos = end + 2
        elif text.startswith("<!--", pos):
            end = text.find("-->", pos + 4)
            if end < 0:
                break
            pos = end + 3
        elif text.startswith("<!", pos):
            declaration = text[pos + 2:pos + 9].upper()
            if declaration.startswith(("DOCTYPE", "ENTITY")):
                return "declares a DTD (<!DOCTYPE>/<!ENTITY>), which OOXML forbids: a possible XML bomb"
            return "unexpected markup declaration before the root element"
        else:
            return None  # the root element starts here
    if len(head) >= PROLOG_BYTES:
        return f"XML prolog longer than {PROLOG_BYTES:,} bytes"
    return None


def _decode_head(head: bytes) -> str:
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return head.decode("utf-16", errors="replace")
    if head[:2] == b"<\x00":
        return head.decode("utf-16-le", errors="replace")
    if head[:2] == b"\x00<":
        return head.decode("utf-16-be", errors="replace")
    return head.decode("utf-8", errors="replace")
