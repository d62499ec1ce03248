"""HWP 5 (Hangul's binary format): an OLE2 compound file of record streams, read with olefile + zlib.

No HWP library is used: the one that reads HWP 5 in pure Python (pyhwp) is AGPL, and the part of
the format a text extractor needs is small. The layout, from Hancom's published specification
("한글 문서 파일 형식 5.0"):

- ``FileHeader``: a signature (``HWP Document File``), the version, and flags — bit 0 the streams
  are compressed, bit 1 the document has a password, bit 2 it is a distribution document (DRM:
  its body is in encrypted ``ViewText`` streams). The last two make the file ``encrypted``.
- ``DocInfo``: the document's shared tables; its paragraph shapes say which paragraphs are outline
  headings (and at what level), numbered or bulleted, and which numbering or bullet they use; its
  numbering records hold each level's number format and label template (``^1.``).
- ``BodyText/Section0…N``: the body, raw-deflate compressed when bit 0 is set. Each is a stream of
  records, a 32-bit header (tag 10 bits, nesting level 10 bits, size 12 bits; size ``0xFFF`` means
  a 32-bit size follows) then the data. A paragraph is a ``PARA_HEADER`` with its ``PARA_TEXT``
  (UTF-16LE) and its controls (``CTRL_HEADER``) one level deeper; a control's own paragraphs (table
  cells, header and footer, notes, text boxes) follow a ``LIST_HEADER`` deeper still.
- In ``PARA_TEXT`` characters below 32 are controls: 0, 10 (line break), 13 (paragraph end) and 24–31
  take one UTF-16 unit; every other one takes eight (the code, a 12-byte payload, the code again).
  Of those, the "extended" ones (tables, drawing objects, headers and footers, notes…) each stand
  for the next ``CTRL_HEADER`` of the paragraph, which is how a table is placed inside its text.

What comes out matches the HWPX parser (:mod:`parsers.hwpx`): paragraphs in order, outline headings
at their level, tables on their cell grid (``LIST_HEADER`` of each cell gives its address and span;
a frame — one cell of content — read in its place, a table nested in a cell after its table), text
boxes after their paragraph, notes after the body, headers and footers as furniture, and the labels
Hangul draws for outline, numbered and bulleted paragraphs (``1.``, ``가.``, ``•``) rendered
in front of their text, as :mod:`parsers.hwpx` does (:class:`parsers.text.HangulNumbering`); the
outline's numbering is the one the section definition (``secd``) names.

Page locators: HWP stores no laid-out pages either, so page numbers are derived, as for HWPX, by
:class:`parsers.pagination.Pagination` from what the file declares — section streams, the page and
section break bits of each body paragraph's ``PARA_HEADER`` (its byte 11), the column count of a
column definition (``cold``), and the vertical position of each line in ``PARA_LINE_SEG`` (36
bytes a line, the position at offset 4; a line placed higher than the one before starts a new
page). They are not a layout engine's and can differ from Hangul's own pagination in places. A block
gets the pages of its body paragraph, a footnote its anchor's page; a file with none of these
signals gets no page locators. The numbers are physical pages, as the PDF parser's: the page start
number of a section's ``secd`` is not read (:mod:`parsers.pagination` says why). The pages it
locates get their size (``Properties.pages``) from their section's ``PAGE_DEF`` (under the ``secd``
control: paper width and height in HWPUNIT, 1/7200 inch, then margins; bit 0 of its attributes set
for a landscape page). Limits:
each decompressed stream stops at :data:`MAX_STREAM_BYTES` and all of them at
:data:`MAX_TOTAL_BYTES` (``too_large``); a record that runs past its stream, a broken deflate
stream or a missing section is ``corrupt``.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from parsers.detect import HWP_SIGNATURE
from parsers.errors import CorruptFile, EncryptedFile, TooLarge
from parsers.model import Block, Document, Properties
from parsers.pagination import Pagination, page_size
from parsers.tables import Span, cell_line, make_table, table_blocks
from parsers.text import HangulNumbering, NumberingLevels, bullet_label, normalize_line, normalize_text

#: One decompressed stream may not be larger than this (a deflate bomb in one section)…
MAX_STREAM_BYTES = 256_000_000
#: …nor all of them together.
MAX_TOTAL_BYTES = 1_000_000_000

HWPTAG_BEGIN = 0x10
TAG_NUMBERING = HWPTAG_BEGIN + 7
TAG_BULLET = HWPTAG_BEGIN + 8
TAG_PARA_SHAPE = HWPTAG_BEGIN + 9
TAG_PARA_HEADER = HWPTAG_BEGIN + 50
TAG_PARA_TEXT = HWPTAG_BEGIN + 51
TAG_PARA_LINE_SEG = HWPTAG_BEGIN + 53
TAG_CTRL_HEADER = HWPTAG_BEGIN + 55
TAG_LIST_HEADER = HWPTAG_BEGIN + 56
TAG_PAGE_DEF = HWPTAG_BEGIN + 57
TAG_TABLE = HWPTAG_BEGIN + 61

FLAG_COMPRESSED = 1 << 0
FLAG_PASSWORD = 1 << 1
FLAG_DISTRIBUTION = 1 << 2

#: Break bits of a PARA_HEADER's break-type byte that start a new page: a section break, a page break.
BREAK_SECTION = 0x01
BREAK_PAGE = 0x04
#: Size of one line in PARA_LINE_SEG.
LINE_SEG_SIZE = 36

#: Control characters that take one UTF-16 unit; every other code below 32 takes eight.
_SHORT_CONTROLS = frozenset({0, 10, 13, 24, 25, 26, 27, 28, 29, 30, 31})
#: Eight-unit controls that have a CTRL_HEADER record (the others are inline: tab, field end…).
_EXTENDED_CONTROLS = frozenset({1, 2, 3, 11, 12, 14, 15, 16, 17, 18, 21, 22, 23})
_SHORT_TEXT = {10: "\n", 24: "-", 30: " ", 31: " "}
#: Controls whose records hold no text of the document.
_NO_TEXT = {b"secd", b"cold", b"pgnp", b"atno", b"nwno", b"pghd", b"bokm", b"idxm", b"tdut", b"tcmt"}
#: A caption's sides (its properties' two low bits) from which it is read before its table: left, top.
_CAPTION_BEFORE = frozenset({0, 2})


@dataclass
class _Record:
    tag: int
    level: int
    data: bytes
    children: list[_Record] = field(default_factory=list)


def read_flags(header: bytes) -> int:
    """The property flags of a ``FileHeader`` stream; raise the ParseError the flags call for."""
    if len(header) < 40 or not header.startswith(HWP_SIGNATURE):
        raise CorruptFile("FileHeader is not a HWP 5 header")
    flags = struct.unpack_from("<I", header, 36)[0]
    if flags & FLAG_PASSWORD:
        raise EncryptedFile("password-protected HWP document")
    if flags & FLAG_DISTRIBUTION:
        raise EncryptedFile("HWP distribution document (DRM-protected: copying text is disabled)")
    return flags


def inflate(data: bytes, limit: int = MAX_STREAM_BYTES) -> bytes:
    """Raw-deflate ``data``, refusing output past ``limit`` (TooLarge) and truncated input (corrupt)."""
    inflater = zlib.decompressobj(-15)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise CorruptFile(f"broken compressed stream: {exc}") from exc
    if len(out) > limit:
        raise TooLarge(f"a compressed stream inflates past {limit:,} bytes")
    if not inflater.eof:
        raise CorruptFile("compressed stream is truncated")
    return out


def read_records(data: bytes) -> list[_Record]:
    """The records of a stream, as a tree by nesting level."""
    flat: list[_Record] = []
    pos, end = 0, len(data)
    while pos < end:
        if pos + 4 > end:
            raise CorruptFile("record header cut off at the end of a stream")
        header = struct.unpack_from("<I", data, pos)[0]
        pos += 4
        size = header >> 20
        if size == 0xFFF:
            if pos + 4 > end:
                raise CorruptFile("record size cut off at the end of a stream")
            size = struct.unpack_from("<I", data, pos)[0]
            pos += 4
        if pos + size > end:
            raise CorruptFile("a record runs past the end of its stream (truncated file?)")
        flat.append(_Record(header & 0x3FF, (header >> 10) & 0x3FF, data[pos:pos + size]))
        pos += size
    roots: list[_Record] = []
    stack: list[_Record] = []
    for record in flat:
        while stack and stack[-1].level >= record.level:
            stack.pop()
        (stack[-1].children if stack else roots).append(record)
        stack.append(record)
    return roots


def decode_text(data: bytes) -> list[str | int]:
    """PARA_TEXT as pieces: strings of text, and the codes of extended controls where they stand."""
    count = len(data) // 2
    units = struct.unpack_from(f"<{count}H", data)
    pieces: list[str | int] = []
    run: list[int] = []
    i = 0
    while i < count:
        unit = units[i]
        if unit >= 32:
            run.append(unit)
            i += 1
            continue
        if run:
            pieces.append(struct.pack(f"<{len(run)}H", *run).decode("utf-16-le", "replace"))
            run = []
        if unit in _SHORT_CONTROLS:
            if unit in _SHORT_TEXT:
                pieces.append(_SHORT_TEXT[unit])
            i += 1
            continue
        if unit == 9:
            pieces.append("\t")
        elif unit in _EXTENDED_CONTROLS:
            pieces.append(unit)
        i += 8
    if run:
        pieces.append(struct.pack(f"<{len(run)}H", *run).decode("utf-16-le", "replace"))
    return pieces


def _ctrl_id(record: _Record) -> bytes:
    return record.data[:4][::-1]


#: Number formats by their code in a numbering level's attributes (bits 5-9), named as OWPML names them.
NUMBER_FORMATS = ("DIGIT", "CIRCLED_DIGIT", "ROMAN_CAPITAL", "ROMAN_SMALL", "LATIN_CAPITAL", "LATIN_SMALL",
                  "CIRCLED_LATIN_CAPITAL", "CIRCLED_LATIN_SMALL", "HANGUL_SYLLABLE", "CIRCLED_HANGUL_SYLLABLE",
                  "HANGUL_JAMO", "CIRCLED_HANGUL_JAMO", "HANGUL_PHONETIC", "IDEOGRAPH", "CIRCLED_IDEOGRAPH",
                  "DECAGON_CIRCLE", "DECAGON_CIRCLE_HANJA")


@dataclass(frozen=True)
class _Shape:
    kind: int  # 0 none, 1 outline, 2 number, 3 bullet
    level: int  # 0-based
    ref: int = 0  # the numbering or bullet it uses (1-based, 0 none)


@dataclass
class _DocInfo:
    """What DocInfo says about paragraphs: their shapes (by id), numberings and bullets (by 1-based id)."""

    shapes: list[_Shape] = field(default_factory=list)
    numberings: dict[str, NumberingLevels] = field(default_factory=dict)
    bullets: dict[str, str] = field(default_factory=dict)


def read_docinfo(records: list[_Record]) -> _DocInfo:
    """Paragraph shapes, numberings and bullets from DocInfo, each list in stream order."""
    info = _DocInfo()
    pending = list(reversed(records))
    while pending:  # depth first, in stream order: they sit under ID_MAPPINGS
        record = pending.pop()
        data = record.data
        if record.tag == TAG_PARA_SHAPE and len(data) >= 4:
            attributes = struct.unpack_from("<I", data, 0)[0]
            ref = struct.unpack_from("<H", data, 30)[0] if len(data) >= 32 else 0
            level = (attributes >> 25) & 0x7  # 3 bits: levels 1-7
            if len(data) >= 58:  # 5.1 on: a field at the end holds the level, 8-10 included
                wide = struct.unpack_from("<I", data, 54)[0]
                level = wide if wide < 10 else level
            info.shapes.append(_Shape((attributes >> 23) & 0x3, level, ref))
        elif record.tag == TAG_NUMBERING:
            info.numberings[str(len(info.numberings) + 1)] = read_numbering(data)
        elif record.tag == TAG_BULLET:  # 12 bytes of head information, then the bullet character
            info.bullets[str(len(info.bullets) + 1)] = data[12:14].decode("utf-16-le", "replace") \
                if len(data) >= 14 else ""
        pending.extend(reversed(record.children))
    return info


def read_numbering(data: bytes) -> NumberingLevels:
    """One NUMBERING record: levels 1-7 (head information: attributes, two widths, a char shape id;
    then the label template as a length-prefixed UTF-16 string), a start number, per-level starts
    (5.0.2.5 on), then levels 8-10 and their starts (5.1 on). What a short record lacks is left out."""
    heads: list[tuple[int, str]] = []
    pos = 0

    def read_levels(count: int) -> None:
        nonlocal pos
        for _ in range(count):
            if pos + 14 > len(data):
                return
            attributes = struct.unpack_from("<I", data, pos)[0]
            length = struct.unpack_from("<H", data, pos + 12)[0]
            template = data[pos + 14:pos + 14 + 2 * length].decode("utf-16-le", "replace")
            pos += 14 + 2 * length
            code = (attributes >> 5) & 0x1F
            heads.append((code, template))

    def read_starts(count: int) -> list[int]:
        nonlocal pos
        if pos + 4 * count > len(data):
            return []
        starts = list(struct.unpack_from(f"<{count}I", data, pos))
        pos += 4 * count
        return starts

    read_levels(7)
    common = 1
    if len(heads) == 7 and pos + 2 <= len(data):
        common = struct.unpack_from("<H", data, pos)[0]
        pos += 2
    starts = read_starts(7)
    if len(starts) == 7:
        read_levels(3)
        starts += read_starts(3)
    levels: NumberingLevels = {}
    for index, (code, template) in enumerate(heads):
        fmt = NUMBER_FORMATS[code] if code < len(NUMBER_FORMATS) else "DIGIT"
        start = starts[index] if index < len(starts) else common
        levels[index + 1] = (start, fmt, template)
    return levels


def line_positions(para: _Record) -> list[int]:
    """The vertical positions of a paragraph's lines (``PARA_LINE_SEG``), as Hangul laid them out."""
    record = next((r for r in para.children if r.tag == TAG_PARA_LINE_SEG), None)
    if record is None:
        return []
    count = len(record.data) // LINE_SEG_SIZE
    return [struct.unpack_from("<i", record.data, i * LINE_SEG_SIZE + 4)[0] for i in range(count)]


def section_page_size(records: list[_Record]) -> tuple[float, float] | None:
    """The page size (points) of a section: the ``PAGE_DEF`` under the section definition (``secd``)
    that its first paragraph holds."""
    for para in records:
        if para.tag != TAG_PARA_HEADER:
            continue
        for control in para.children:
            if control.tag != TAG_CTRL_HEADER or _ctrl_id(control) != b"secd":
                continue
            for record in control.children:
                if record.tag == TAG_PAGE_DEF and len(record.data) >= 40:
                    width, height = struct.unpack_from("<II", record.data, 0)
                    landscape = bool(struct.unpack_from("<I", record.data, 36)[0] & 1)
                    return page_size(width, height, landscape) if width and height else None
            return None
    return None


def _column_count(para: _Record) -> int | None:
    """The column count a paragraph's column definition (``cold``: bits 2-9 of its attributes) sets."""
    count = None
    for control in para.children:
        if control.tag == TAG_CTRL_HEADER and _ctrl_id(control) == b"cold" and len(control.data) >= 6:
            count = (struct.unpack_from("<H", control.data, 4)[0] >> 2) & 0xFF
    return count


class _Reader:
    def __init__(self, info: _DocInfo) -> None:
        self.shapes = info.shapes
        self.numbering = HangulNumbering(info.numberings)
        self.bullets = info.bullets
        self.outline_numbering = "1"  # until a section definition names another
        self.headers: dict[str, None] = {}
        self.footers: dict[str, None] = {}
        self.notes: list[Block] = []
        self.note_numbers = {b"fn  ": 0, b"en  ": 0}
        self.pages = Pagination()

    def section(self, records: list[_Record], blocks: list[Block]) -> None:
        """A section's body, each paragraph's pages counted (:class:`Pagination`)."""
        self.pages.section(section_page_size(records))
        for record in records:
            if record.tag == TAG_PARA_HEADER:
                self._paragraph(record, blocks)
                breaks = record.data[11] if len(record.data) >= 12 else 0
                first, last = self.pages.paragraph(bool(breaks & (BREAK_SECTION | BREAK_PAGE)),
                                                   line_positions(record), _column_count(record))
            else:
                self.read([record], blocks)
                first = last = self.pages.page
            self.pages.mark(len(blocks), len(self.notes), first, last)


    def read(self, records: list[_Record], blocks: list[Block]) -> None:
        """The paragraphs among ``records`` (a section, or a control's list), in order."""
        for record in records:
            if record.tag == TAG_PARA_HEADER:
                self._paragraph(record, blocks)
            elif record.tag != TAG_CTRL_HEADER:
                self.read(record.children, blocks)

    def _paragraph(self, para: _Record, blocks: list[Block]) -> None:
        text = next((r for r in para.children if r.tag == TAG_PARA_TEXT), None)
        own_controls = [r for r in para.children if r.tag == TAG_CTRL_HEADER]
        for control in own_controls:  # before the text: the section's first paragraph may be numbered
            if _ctrl_id(control) == b"secd" and len(control.data) >= 20:
                outline = struct.unpack_from("<H", control.data, 18)[0]  # after attributes, gaps, tab width
                if outline:
                    self.outline_numbering = str(outline)
        controls = iter(own_controls)
        pieces: list[str] = []
        anchored: list[Block] = []
        first = True

        def flush() -> None:
            nonlocal first
            joined = normalize_text("".join(pieces))
            pieces.clear()
            if joined:
                blocks.append(self._block(joined, para, first))
                first = False

        for piece in decode_text(text.data) if text is not None else []:
            if isinstance(piece, str):
                pieces.append(piece)
                continue
            control = next(controls, None)
            if control is None:
                continue
            if _ctrl_id(control) == b"tbl ":
                flush()
                blocks.extend(self._table(control))
            else:
                self._control(control, anchored)
        flush()
        for control in controls:  # controls the text did not place (e.g. no PARA_TEXT)
            if _ctrl_id(control) == b"tbl ":
                anchored.extend(self._table(control))
            else:
                self._control(control, anchored)
        blocks.extend(anchored)

    def _block(self, text: str, para: _Record, first: bool) -> Block:
        shape_id = struct.unpack_from("<H", para.data, 8)[0] if len(para.data) >= 10 else -1
        shape = self.shapes[shape_id] if 0 <= shape_id < len(self.shapes) else None
        if not first or shape is None or shape.kind == 0:
            return Block("paragraph", text)
        if shape.kind == 3:
            return Block("list_item", f"{bullet_label(self.bullets.get(str(shape.ref), ''))} {text}",
                         level=shape.level)
        numbering = self.outline_numbering if shape.kind == 1 else str(shape.ref)
        label = self.numbering.label(numbering, shape.level)
        shown = f"{label} {text}" if label else text
        if shape.kind == 1:
            return Block("heading", shown, level=shape.level + 1)
        return Block("list_item", shown, level=shape.level)

    def _control(self, control: _Record, anchored: list[Block]) -> None:
        kind = _ctrl_id(control)
        if kind in _NO_TEXT or kind.startswith(b"%"):  # fields: their text is in the paragraph
            return
        own: list[Block] = []
        self.read(control.children, own)
        if kind in (b"head", b"foot"):
            joined = normalize_line(" ".join(b.text for b in own))
            if joined:
                (self.headers if kind == b"head" else self.footers).setdefault(joined, None)
        elif kind in (b"fn  ", b"en  "):
            self.note_numbers[kind] += 1
            joined = normalize_line(" ".join(b.text for b in own))
            if joined:
                label = "Footnote" if kind == b"fn  " else "Endnote"
                self.notes.append(Block("paragraph", f"{label} {self.note_numbers[kind]}: {joined}"))
        else:  # drawing objects (text boxes), equations' captions, anything else with paragraphs
            anchored.extend(own)

    def _table(self, control: _Record) -> list[Block]:
        """The table of a ``tbl `` control and its caption, in the order they are read: a caption set
        above the table or to its left before it, one below or to its right after it (as
        :mod:`parsers.hwpx` reads ``hp:caption side``). The caption's list header is followed by
        its properties, whose two low bits are its side (0 left, 1 right, 2 top, 3 bottom)."""
        rows = cols = 0
        cells: list[tuple[int, int, int, int, list[Block]]] = []
        caption: list[Block] = []
        caption_first = False
        current: list[Block] | None = None
        seen_table = False
        for record in control.children:
            if record.tag == TAG_TABLE and len(record.data) >= 8:
                rows, cols = struct.unpack_from("<HH", record.data, 4)
                seen_table = True
            elif record.tag == TAG_LIST_HEADER and not seen_table:  # the caption's list comes first
                current = caption
                if len(record.data) >= 12:
                    caption_first = struct.unpack_from("<I", record.data, 8)[0] & 3 in _CAPTION_BEFORE
            elif record.tag == TAG_LIST_HEADER and len(record.data) >= 16:
                col, row, across, down = struct.unpack_from("<HHHH", record.data, 8)
                current = []
                cells.append((row, col, max(down, 1), max(across, 1), current))
            elif record.tag == TAG_PARA_HEADER and current is not None:
                self._paragraph(record, current)
        grid = self._grid(rows, cols, cells)
        return [*caption, *grid] if caption_first else [*grid, *caption]

    def _grid(self, rows: int, cols: int, cells: list[tuple[int, int, int, int, list[Block]]]) -> list[Block]:
        if not cells:
            return []
        height = max(rows, max(row + down for row, _, down, _, _ in cells))
        width = max(cols, max(col + across for _, col, _, across, _ in cells))
        if height * width > 1_000_000:
            raise CorruptFile(f"a table declares {height:,} x {width:,} cells")
        grid = [[""] * width for _ in range(height)]
        spans = []
        for row, col, down, across, own in cells:
            grid[row][col] = cell_line(own)
            if down > 1 or across > 1:
                spans.append(Span(row, col, row + down - 1, col + across - 1))
        table = make_table(grid, spans, normalized=True)
        return table_blocks(table, [own for *_, own in cells])  # HWP declares no header rows here


def parse_hwp(path: Path) -> Document:
    import olefile

    try:
        with olefile.OleFileIO(str(path)) as ole:
            flags = read_flags(ole.openstream("FileHeader").read(256))
            compressed = bool(flags & FLAG_COMPRESSED)
            budget = [MAX_TOTAL_BYTES]

            def stream(name: str) -> bytes:
                data = ole.openstream(name).read()
                out = inflate(data, min(MAX_STREAM_BYTES, budget[0])) if compressed else data
                budget[0] -= len(out)
                return out

            info = read_docinfo(read_records(stream("DocInfo"))) if ole.exists("DocInfo") else _DocInfo()
            sections = sorted((entry for entry in ole.listdir() if len(entry) == 2 and entry[0] == "BodyText"
                               and entry[1].startswith("Section") and entry[1][7:].isdigit()),
                              key=lambda entry: int(entry[1][7:]))
            if not sections:
                raise CorruptFile("no BodyText/Section streams: not a readable HWP document")
            reader = _Reader(info)
            body: list[Block] = []
            for entry in sections:
                reader.section(read_records(stream("/".join(entry))), body)
            properties = _properties(ole)
            # A distribution copy keeps its real body encrypted in ViewText; a BodyText beside it
            # (flag unset: a tool rewrote the file) may be a stub, so say where the text came from.
            warnings = ("the file also holds an encrypted distribution body (ViewText) that was not read",) \
                if any(entry[0] == "ViewText" for entry in ole.listdir()) else ()
    except OSError as exc:  # olefile's errors for a broken container
        raise CorruptFile(f"broken OLE2 container: {exc}") from exc
    except struct.error as exc:
        raise CorruptFile(f"malformed record: {exc}") from exc
    body, notes = reader.pages.locate(body, reader.notes)
    blocks = [Block("furniture", text) for text in reader.headers]
    blocks += body + notes
    blocks += [Block("furniture", text) for text in reader.footers]
    properties = replace(properties, pages=reader.pages.page_infos(body + notes))
    return Document(str(path), "hwp", tuple(blocks), properties, warnings=warnings)


def _properties(ole: Any) -> Properties:
    """Title, author and subject from ``HwpSummaryInformation`` (an OLE property set)."""
    name = "\x05HwpSummaryInformation"
    if not ole.exists(name):
        return Properties()
    try:
        values = ole.getproperties(name, convert_time=True)
    except Exception:  # a damaged summary is no reason to lose the text
        return Properties()

    def text(key: int) -> str:
        value = values.get(key)
        if isinstance(value, bytes):
            value = value.decode("utf-16-le", "replace") if b"\x00" in value else value.decode("cp949", "replace")
        # olefile reads a UTF-16 string's length as bytes, so the value can run on past its NUL.
        return normalize_line(value.split("\x00")[0]) if isinstance(value, str) else ""

    return Properties(title=text(2), subject=text(3), author=text(4))
