"""HWPX (OWPML, KS X 6101): Hangul's zip of XML parts, read with lxml — no third-party HWPX library.

A HWPX file is a zip with a ``mimetype`` of ``application/hwp+zip``; ``Contents/content.hpf`` (an
OPF package) lists the parts, its spine orders the sections, and its metadata holds the title and
author; ``Contents/header.xml`` holds paragraph shapes and numbering; ``Contents/sectionN.xml`` hold
the body. Elements are matched by local name, because the namespace URIs changed between OWPML
versions (``…/hwpml/2011/paragraph``, ``…/2016/HwpMl``) and the names did not.

- Paragraphs (``hp:p``) are their runs' ``hp:t`` text in order (tabs, line breaks, non-breaking and
  fixed-width spaces kept). A paragraph whose shape declares an outline heading (``hh:heading
  type="OUTLINE"``) is a heading at that level + 1; numbered and bulleted paragraphs are list items.
  The label Hangul draws (``1.``, ``가.``, ``①``, ``□``) is not in the text, so it is rendered from
  ``header.xml``'s numbering (:class:`parsers.text.HangulNumbering`, shared with the HWP parser) and
  put in front, as the DOCX parser does: the section grammar needs it.
- Tables (``hp:tbl``) are placed on their grid by ``hp:cellAddr`` and ``hp:cellSpan``; cells marked
  ``header="1"`` in the leading rows are the header rows, otherwise they are detected
  (:func:`parsers.tables.make_table`). A table of one cell of content is a frame, read in its
  place; a table inside a cell of another is a table of its own after it
  (:func:`parsers.tables.table_blocks`). A table splits its paragraph: text before it, the table,
  text after it.
- Text boxes and drawing objects with text (``hp:drawText``) follow the paragraph that anchors them.
- Footnotes and endnotes follow the body (``Footnote 1: …``); page headers and footers
  (deduplicated) are ``furniture`` blocks, headers first, footers last.
- Page locators: HWPX stores no laid-out pages (Hangul paginates when it opens the file), so the
  page numbers are derived from what the file declares — section boundaries, paragraphs'
  ``pageBreak="1"``, and the line positions Hangul saves in each paragraph's ``hp:linesegarray``
  (a line placed higher than the one before starts a new page) — by :class:`parsers.pagination.
  Pagination`. They are not a layout engine's, so they can differ from Hangul's own pagination in
  places (a table taller than a page, multi-column regions). A block gets the pages of the body
  paragraph it comes from (``page_end`` when that paragraph runs on to a later page), a footnote
  the page of its anchor; furniture gets none. A file with one section, no page breaks and no line
  segments (one written by a tool, not by Hangul) gets no page locators. The numbers are physical
  pages, as the PDF parser's: a section's ``hp:startNum`` (where its printed numbering restarts) is
  not read (:mod:`parsers.pagination` says why).
- Page geometry (``Properties.pages``, for the pages it locates): each section's ``hp:pagePr``
  (width and height in HWPUNIT, 1/7200 inch, turned for a landscape page).

Safety: the zip-bomb limits and the DTD check of :mod:`parsers.containers` run first; parts are
parsed with entities unresolved and no network. A package whose ``META-INF/manifest.xml`` declares
``encryption-data`` (a password-protected HWPX, ODF-style AES) is ``encrypted``.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from parsers.containers import check_ooxml, prolog_problem
from parsers.errors import CorruptFile, EncryptedFile
from parsers.model import Block, Document, Properties
from parsers.pagination import Pagination, page_size
from parsers.tables import Span, cell_line, make_table, table_blocks
from parsers.text import HangulNumbering, bullet_label, normalize_line, normalize_text

_SECTION = re.compile(r"(?:^|/)section(\d+)\.xml$", re.IGNORECASE)
#: Run items whose text is not the document's (section/column settings, fields' instructions).
_SKIPPED = {"secPr", "colPr", "linesegarray", "fieldBegin", "fieldEnd", "bookmark", "pageNum",
            "pageNumCtrl", "pageHiding", "newNum", "autoNum", "indexmark", "hiddenComment"}
#: The sides of a table (``hp:caption side``) from which its caption is read before it.
_CAPTION_BEFORE = frozenset({"TOP", "LEFT"})


def _local(element: Any) -> str:
    tag = element.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _children(element: Any, name: str) -> list[Any]:
    return [child for child in element if _local(child) == name]


def _child(element: Any, name: str) -> Any | None:
    return next((child for child in element if _local(child) == name), None)


def _int(value: str | None, default: int = 0) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


# ----------------------------------------------------------------------------------- header.xml


@dataclass(frozen=True)
class _ParaShape:
    kind: str  # "NONE", "OUTLINE", "NUMBER", "BULLET"
    ref: str
    level: int  # 0-based


@dataclass
class _Head:
    """What ``header.xml`` says about paragraphs: their shapes, numbering formats and bullets."""

    shapes: dict[str, _ParaShape] = field(default_factory=dict)
    numbering: HangulNumbering = field(default_factory=lambda: HangulNumbering({}))
    bullets: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, root: Any | None) -> _Head:
        head = cls()
        if root is None:
            return head
        for element in root.iter():
            name = _local(element)
            if name == "paraPr" and element.get("id") is not None:
                heading = next((e for e in element.iter() if _local(e) == "heading"), None)
                if heading is not None:
                    head.shapes[element.get("id")] = _ParaShape(
                        (heading.get("type") or "NONE").upper(), heading.get("idRef") or "0",
                        _int(heading.get("level")))
            elif name == "numbering" and element.get("id") is not None:
                levels = {}
                for para_head in _children(element, "paraHead"):
                    levels[_int(para_head.get("level"), 1)] = (
                        _int(para_head.get("start"), 1), (para_head.get("numFormat") or "DIGIT").upper(),
                        para_head.text or "")
                head.numbering.numberings[element.get("id")] = levels
            elif name == "bullet" and element.get("id") is not None:
                head.bullets[element.get("id")] = element.get("char") or ""
        return head

    def label(self, numbering: str, level: int) -> str | None:
        """The number Hangul draws before a paragraph at 0-based ``level`` of ``numbering``."""
        return self.numbering.label(numbering, level)

    def bullet(self, ref: str) -> str:
        return bullet_label(self.bullets.get(ref, ""))


# ------------------------------------------------------------------------------------- the body


def _line_positions(p: Any) -> list[int]:
    """The vertical positions of a paragraph's lines, as Hangul laid them out when it saved the file."""
    array = _child(p, "linesegarray")
    if array is None:
        return []
    return [_int(seg.get("vertpos")) for seg in _children(array, "lineseg") if seg.get("vertpos") is not None]


def _page_size(section: Any) -> tuple[float, float] | None:
    """The page size (points) a section's ``hp:secPr/hp:pagePr`` declares. OWPML names the paper's
    orientation the other way round from HWP 5: ``landscape="WIDELY"`` is an upright page and
    ``"NARROWLY"`` a landscape one (Hangul's own HTML export of hwpjs's ``pagedefs`` and ``example``
    fixtures draws their ``NARROWLY`` pages 297 mm wide and 210 mm high, from the same 59528 x 84188
    paper as the ``WIDELY`` ones; their HWP twins set the landscape bit of ``PAGE_DEF`` there)."""
    for element in section.iter("{*}pagePr"):
        width, height = _int(element.get("width")), _int(element.get("height"))
        if width > 0 and height > 0:
            return page_size(width, height, (element.get("landscape") or "").upper() == "NARROWLY")
        return None
    return None


def _column_count(p: Any) -> int | None:
    """The column count a paragraph's column definition (``hp:colPr`` in a control) sets, if any."""
    count = None
    for run in _children(p, "run"):
        for item in _alternatives(run):
            if _local(item) == "ctrl":
                for control in _children(item, "colPr"):
                    count = _int(control.get("colCount"), 1)
    return count


def _alternatives(container: Any) -> list[Any]:
    """A container's children, with each ``hp:switch`` replaced by one of its alternatives (the
    ``hp:default``, else the first ``hp:case``): they hold the same content twice."""
    items = []
    for child in container:
        if _local(child) == "switch":
            chosen = _child(child, "default")
            if chosen is None:
                chosen = _child(child, "case")
            if chosen is not None:
                items.extend(_alternatives(chosen))
        else:
            items.append(child)
    return items


def text_of_t(t: Any) -> str:
    """The text of one ``hp:t``: its characters with tabs, line breaks and special spaces."""
    parts = [t.text or ""]
    for child in t:
        name = _local(child)
        if name == "tab":
            parts.append("\t")
        elif name == "lineBreak":
            parts.append("\n")
        elif name in ("nbSpace", "fwSpace"):
            parts.append(" ")
        elif name == "hyphen":
            parts.append("-")
        parts.append(child.tail or "")
    return "".join(parts)


class _Reader:
    def __init__(self, head: _Head) -> None:
        self.head = head
        self.headers: dict[str, None] = {}
        self.footers: dict[str, None] = {}
        self.notes: list[Block] = []
        self.note_numbers = {"footNote": 0, "endNote": 0}
        self.outline_numbering = "1"
        self.pages = Pagination()

    def section(self, root: Any, blocks: list[Block]) -> None:
        """A section's body, each paragraph's pages counted (:class:`Pagination`)."""
        self.pages.section(_page_size(root))
        for child in root:
            name = _local(child)
            if name == "p":
                self._paragraph(child, blocks)
                first, last = self.pages.paragraph(child.get("pageBreak") == "1", _line_positions(child),
                                                   _column_count(child))
            else:
                self.read([child], blocks)
                first = last = self.pages.page
            self.pages.mark(len(blocks), len(self.notes), first, last)


    def read(self, container: Any, blocks: list[Block]) -> None:
        """Paragraphs and tables of a section or a sub-list, in order."""
        for child in container:
            name = _local(child)
            if name == "p":
                self._paragraph(child, blocks)
            elif name == "tbl":
                blocks.extend(self._table(child))
            elif name == "subList":
                self.read(child, blocks)

    def _paragraph(self, p: Any, blocks: list[Block]) -> None:
        pieces: list[str] = []
        anchored: list[Block] = []  # text boxes and shapes with text, after the paragraph
        first = True

        def flush() -> None:
            nonlocal first
            text = normalize_text("".join(pieces))
            pieces.clear()
            if text:
                blocks.append(self._block(text, p, labelled=first))
                first = False

        for run in _children(p, "run"):
            for item in _alternatives(run):
                kind = _local(item)
                if kind == "t":
                    pieces.append(text_of_t(item))
                elif kind == "tbl":
                    flush()
                    blocks.extend(self._table(item))
                elif kind == "ctrl":
                    self._controls(item)
                elif kind == "secPr":
                    outline = item.get("outlineShapeIDRef")
                    if outline and outline != "0":
                        self.outline_numbering = outline
                elif kind not in _SKIPPED:
                    self._objects(item, anchored)
        flush()
        blocks.extend(anchored)

    def _block(self, text: str, p: Any, labelled: bool) -> Block:
        shape = self.head.shapes.get(p.get("paraPrIDRef") or "")
        if shape is None or shape.kind == "NONE" or not labelled:
            return Block("paragraph", text)
        if shape.kind == "BULLET":
            return Block("list_item", f"{self.head.bullet(shape.ref)} {text}", level=shape.level)
        numbering = self.outline_numbering if shape.kind == "OUTLINE" else shape.ref
        label = self.head.label(numbering, shape.level)
        shown = f"{label} {text}" if label else text
        if shape.kind == "OUTLINE":
            return Block("heading", shown, level=shape.level + 1)
        return Block("list_item", shown, level=shape.level)

    def _controls(self, ctrl: Any) -> None:
        for control in ctrl:
            name = _local(control)
            if name in ("header", "footer"):
                own: list[Block] = []
                self.read(control, own)
                text = normalize_line(" ".join(b.text for b in own))
                if text:
                    (self.headers if name == "header" else self.footers).setdefault(text, None)
            elif name in ("footNote", "endNote"):
                own = []
                self.read(control, own)
                self.note_numbers[name] += 1
                text = normalize_line(" ".join(b.text for b in own))
                if text:
                    label = "Footnote" if name == "footNote" else "Endnote"
                    self.notes.append(Block("paragraph", f"{label} {self.note_numbers[name]}: {text}"))

    def _objects(self, element: Any, blocks: list[Block]) -> None:
        """Text inside drawing objects (text boxes: ``hp:drawText/hp:subList``), and their tables."""
        for child in element:
            name = _local(child)
            if name == "subList":
                self.read(child, blocks)
            elif name == "tbl":
                blocks.extend(self._table(child))
            elif name not in _SKIPPED:
                self._objects(child, blocks)

    def _table(self, tbl: Any) -> list[Block]:
        """A table and its caption (``hp:caption``), in the order they are read: a caption set above
        the table or to its left (``side="TOP"``, ``"LEFT"``: ``<표 1> 유압식 잭 주요제원``, the usual
        Korean layout) before it, one below or to its right after it. Read after the table whatever
        its side, a caption above ended up at the top of the next chunk, apart from the table it names."""
        before: list[Block] = []
        after: list[Block] = []
        for element in _children(tbl, "caption"):
            self.read(element, before if (element.get("side") or "").upper() in _CAPTION_BEFORE else after)
        return [*before, *self._grid(tbl), *after]

    def _grid(self, tbl: Any) -> list[Block]:
        rows = _children(tbl, "tr")
        height = max(_int(tbl.get("rowCnt")), len(rows))
        cells: list[tuple[int, int, int, int, list[Block], bool]] = []  # row, col, rows, cols, blocks, header
        taken: set[tuple[int, int]] = set()
        for r, tr in enumerate(rows):
            col = 0
            for tc in _children(tr, "tc"):
                addr = _child(tc, "cellAddr")
                span = _child(tc, "cellSpan")
                row = _int(addr.get("rowAddr"), r) if addr is not None else r
                if addr is not None and addr.get("colAddr") is not None:
                    col = _int(addr.get("colAddr"), col)
                else:
                    while (row, col) in taken:
                        col += 1
                down = max(_int(span.get("rowSpan"), 1), 1) if span is not None else 1
                across = max(_int(span.get("colSpan"), 1), 1) if span is not None else 1
                for dr in range(down):
                    for dc in range(across):
                        taken.add((row + dr, col + dc))
                own: list[Block] = []
                self.read(tc, own)
                cells.append((row, col, down, across, own, tc.get("header") == "1"))
                col += across
        if not cells:
            return []
        height = max(height, max(row + down for row, _, down, _, _, _ in cells))
        width = max(max(_int(tbl.get("colCnt")), 1), max(col + across for _, col, _, across, _, _ in cells))
        if height * width > 1_000_000:
            raise CorruptFile(f"a table declares {height:,} x {width:,} cells")
        grid: list[list[str]] = [[""] * width for _ in range(height)]
        spans = []
        header_cells: dict[int, list[bool]] = {}
        for row, col, down, across, own, header in cells:
            grid[row][col] = cell_line(own)
            header_cells.setdefault(row, []).append(header)
            if down > 1 or across > 1:
                spans.append(Span(row, col, row + down - 1, col + across - 1))
        declared = 0
        while declared < height and header_cells.get(declared) and all(header_cells[declared]):
            declared += 1
        table = make_table(grid, spans, header_rows=declared or None, normalized=True)
        return table_blocks(table, [own for *_, own, _ in cells], [col for _, col, *_ in cells] if declared else ())


# ---------------------------------------------------------------------------------- the package


def parse_hwpx(path: Path) -> Document:
    check_ooxml(path)
    try:
        with zipfile.ZipFile(path) as archive:
            members = _members(archive)
            names = list(members)
            _refuse_encrypted(archive, members)
            package = _xml(archive, members["Contents/content.hpf"]) if "Contents/content.hpf" in members else None
            sections = _section_parts(package, names)
            if not sections:
                raise CorruptFile("no Contents/sectionN.xml part: not a readable HWPX document")
            head_name = "Contents/header.xml"
            reader = _Reader(_Head.read(_xml(archive, members[head_name]) if head_name in members else None))
            body: list[Block] = []
            for name in sections:
                reader.section(_xml(archive, members[name]), body)
    except zipfile.BadZipFile as exc:
        raise CorruptFile(f"broken zip container: {exc}") from exc
    except (OSError, EOFError, ValueError, NotImplementedError) as exc:  # zlib errors, bad members
        raise CorruptFile(f"unreadable HWPX member: {type(exc).__name__}: {exc}") from exc
    body, notes = reader.pages.locate(body, reader.notes)
    blocks = [Block("furniture", text) for text in reader.headers]
    blocks += body + notes
    blocks += [Block("furniture", text) for text in reader.footers]
    properties = replace(_properties(package), pages=reader.pages.page_infos(body + notes))
    return Document(str(path), "hwpx", tuple(blocks), properties)


def _members(archive: zipfile.ZipFile) -> dict[str, str]:
    """The archive's member names as the package names them (``Contents/section0.xml``), each to the
    name it is stored under. A tool that re-zipped a HWPX on Windows may store ``Contents\\section0.xml``,
    with the separator the zip format does not allow, and every part is still there (a real filled-in
    procurement notice had all its members so): read, not refused as corrupt."""
    members: dict[str, str] = {}
    for name in archive.namelist():
        members.setdefault(name.replace("\\", "/"), name)
    return members


def _refuse_encrypted(archive: zipfile.ZipFile, members: dict[str, str]) -> None:
    if "META-INF/manifest.xml" in members:
        with archive.open(members["META-INF/manifest.xml"]) as member:
            manifest = member.read(4_000_000)
        if b"encryption-data" in manifest:
            raise EncryptedFile("password-protected HWPX document (encrypted parts)")


def _xml(archive: zipfile.ZipFile, name: str) -> Any:
    from lxml import etree

    data = archive.read(name)
    problem = prolog_problem(data[:64 * 1024])
    if problem:
        raise CorruptFile(f"{name}: {problem}")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, remove_comments=True,
                             remove_pis=True)
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise CorruptFile(f"{name}: broken XML: {exc}") from exc


def _section_parts(package: Any | None, names: list[str]) -> list[str]:
    """Section parts in reading order: the package spine's, then any section it did not list."""
    present = set(names)
    ordered: list[str] = []
    if package is not None:
        hrefs = {item.get("id"): item.get("href") or "" for item in package.iter() if _local(item) == "item"}
        for itemref in (e for e in package.iter() if _local(e) == "itemref"):
            href = hrefs.get(itemref.get("idref"), "")
            for candidate in (href, str(PurePosixPath("Contents") / href)):
                if candidate in present and _SECTION.search(candidate) and candidate not in ordered:
                    ordered.append(candidate)
                    break
    rest = sorted((n for n in names if _SECTION.search(n) and n.startswith("Contents/") and n not in ordered),
                  key=lambda n: int(_SECTION.search(n).group(1)))
    return ordered + rest


def _properties(package: Any | None) -> Properties:
    if package is None:
        return Properties()
    metadata = next((e for e in package.iter() if _local(e) == "metadata"), None)
    if metadata is None:
        return Properties()
    values: dict[str, str] = {}
    for element in metadata:
        name = _local(element)
        key = element.get("name") if name == "meta" else name
        if key and key.lower() not in values:
            values[key.lower()] = normalize_line(element.text or "")
    return Properties(title=values.get("title", ""), author=values.get("creator", ""),
                      subject=values.get("subject", ""))
