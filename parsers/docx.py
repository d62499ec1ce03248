"""DOCX with python-docx: the body in document order — headings, paragraphs, list items, tables.

python-docx opens the package and resolves styles; the body is walked here on its XML, because
python-docx's own ``iter_inner_content``/``Paragraph.text`` skip content the user can read:
content controls (``w:sdt``), tracked insertions (``w:ins``), simple fields, and text boxes.

- Headings come from the outline level (``w:outlineLvl``, on the paragraph or inherited through its
  style chain), which is language-independent, then from the style name in any of the common UI
  languages (``Heading 1``, ``제목 1``, ``見出し 1``, ``Überschrift 1``, ``Titre 1``…). ``Title``
  (``제목``) is a level-1 heading.
- Lists: a paragraph with numbering (its own ``w:numPr`` or its style's) is a list item at its
  ``ilvl``, and the label Word would draw (``1.``, ``가.``, ``①``, ``□``) is put in front of its text,
  because the number is not in the text and the section grammar needs it. Numbered headings get
  their label too.
- Tables: the grid is rebuilt from ``gridSpan``/``vMerge``/``gridBefore`` so merged and ragged rows
  keep their columns; rows marked "repeat as header row" (``w:tblHeader``) are the header rows,
  otherwise they are detected. A table of one cell of content is a frame, read in its place; a
  table nested in a cell of another is a table of its own after it (:func:`parsers.tables.table_blocks`).
- Tables of contents are list items, never headings: a TOC's entries repeat every heading of the
  document with a page number, and read as headings they would open sections of their own and stay
  on as stale ancestors of the body after them. Word marks its TOC three ways — entries styled
  ``TOC 1``…``TOC 9`` (the level), a content control of the "Table of Contents" gallery, and the
  field ``TOC`` whose result paragraphs are the entries — and any one of them is enough. A TOC typed
  by hand or exported without those marks (Google Docs) is found by its title ("Table of Contents",
  "목차", "차례"…) and the run of lines ending in page numbers below it. Entries stay in the text,
  in order, each with its page number: "which page is chapter 5 on" is a question a TOC answers.
- Text boxes follow the paragraph that anchors them; footnotes and endnotes follow the body
  (``Footnote 1: …``); page headers and footers (deduplicated across sections) are kept as
  ``furniture`` blocks, headers first, footers last. Comments are not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parsers.containers import open_ooxml
from parsers.contents import contents_as_entries
from parsers.model import Block, Document, Properties
from parsers.tables import Span, cell_line, make_table, table_blocks
from parsers.text import CIRCLED_DIGITS, GANADA, HANGUL_JAMO, normalize_line, roman_numeral

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
_NS = {"w": W, "mc": MC}

_HEADING_NAMES = re.compile(
    r"^(?:heading|제목|見出し|标题|標題|überschrift|titre|título|titolo|kop|nagłówek|заголовок|rubrik|otsikko)"
    r"\s*(\d)$",
    re.IGNORECASE,
)
_TITLE_NAMES = {"title", "제목", "表題", "标题", "titel", "titre", "título", "titolo", "заголовок"}

_KOREAN_DIGITS = "일이삼사오육칠팔구"

#: TOC entry styles: Word stores its built-in ones as "toc N" in every UI language; LibreOffice
#: writes "Contents N".
_TOC_STYLE = re.compile(r"^(?:toc|contents|목차)\s*([1-9])$", re.IGNORECASE)


def _q(tag: str) -> str:
    prefix, local = tag.split(":")
    return f"{{{_NS[prefix]}}}{local}"


def _attr(element: Any, name: str) -> str | None:
    return None if element is None else element.get(_q(f"w:{name}"))


@dataclass
class _Style:
    name: str
    outline: int | None
    num_id: str | None
    ilvl: int | None
    based_on: str | None


@dataclass
class _Level:
    start: int = 1
    fmt: str = "decimal"
    text: str = "%1."


@dataclass
class _Numbering:
    """Word's list numbering: renders the label of a numbered paragraph in document order."""

    nums: dict[str, tuple[str, dict[int, int]]] = field(default_factory=dict)  # numId -> (abstract, overrides)
    levels: dict[str, dict[int, _Level]] = field(default_factory=dict)  # abstractNumId -> levels
    counters: dict[str, list[int]] = field(default_factory=dict)
    started: set[str] = field(default_factory=set)

    def label(self, num_id: str, ilvl: int) -> str | None:
        if num_id not in self.nums:
            return None
        abstract, overrides = self.nums[num_id]
        levels = self.levels.get(abstract, {})
        if ilvl not in levels:
            return None
        counters = self.counters.setdefault(abstract, [0] * 9)
        if num_id not in self.started:
            self.started.add(num_id)
            for level, start in overrides.items():
                if 0 <= level < 9:
                    counters[level] = start - 1
        if counters[ilvl] == 0 and levels[ilvl].start != 1:
            counters[ilvl] = levels[ilvl].start - 1
        counters[ilvl] += 1
        for deeper in range(ilvl + 1, 9):
            counters[deeper] = levels[deeper].start - 1 if deeper in levels else 0
        level = levels[ilvl]
        if level.fmt == "bullet":
            return _bullet(level.text)
        if level.fmt == "none":
            return None

        def value(match: re.Match[str]) -> str:
            k = int(match.group(1)) - 1
            fmt = levels[k].fmt if k in levels else "decimal"
            return _format_number(max(counters[k], levels[k].start if k in levels else 1), fmt)

        return re.sub(r"%(\d)", value, level.text).strip() or None


def _bullet(text: str) -> str:
    text = text.strip()
    if not text or any("\ue000" <= ch <= "\uf8ff" for ch in text):  # Symbol/Wingdings private-use glyphs
        return "•"
    return text


def _format_number(n: int, fmt: str) -> str:
    if fmt in ("upperRoman", "lowerRoman"):
        roman = roman_numeral(n)
        return roman if fmt == "upperRoman" else roman.lower()
    if fmt in ("upperLetter", "lowerLetter"):
        letters = chr(ord("A") + (n - 1) % 26) * ((n - 1) // 26 + 1)
        return letters if fmt == "upperLetter" else letters.lower()
    if fmt == "ganada":
        return GANADA[(n - 1) % len(GANADA)]
    if fmt == "chosung":
        return HANGUL_JAMO[(n - 1) % len(HANGUL_JAMO)]
    if fmt == "decimalEnclosedCircle":
        return CIRCLED_DIGITS[n - 1] if 1 <= n <= len(CIRCLED_DIGITS) else f"({n})"
    if fmt in ("koreanDigital", "koreanLegal") and 1 <= n <= 9:
        return _KOREAN_DIGITS[n - 1]
    if fmt == "decimalZero":
        return f"{n:02d}"
    return str(n)


def parse_docx(path: Path) -> Document:
    from docx.opc.exceptions import PackageNotFoundError

    document = open_ooxml(path, _open, "Word document", PackageNotFoundError)
    reader = _BodyReader(_styles(document), _numbering(document))
    blocks: list[Block] = []
    headers, footers = _page_furniture(document)
    blocks.extend(Block("furniture", text) for text in headers)
    reader.read(document.element.body, blocks)
    blocks = contents_as_entries(blocks)
    reader.fields.clear()  # a field left open by the body (a broken file) does not reach the notes
    blocks.extend(_notes(document, reader))
    blocks.extend(Block("furniture", text) for text in footers)
    core = document.core_properties
    properties = Properties(
        title=normalize_line(core.title or ""), author=normalize_line(core.author or ""),
        subject=normalize_line(core.subject or ""),
    )
    return Document(str(path), "docx", tuple(blocks), properties)


#: Main-part content types read as Word documents: documents, templates, and their macro-enabled
#: variants (macros are never run; python-docx only accepts the first).
_WORD_MAIN_TYPES = (
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
    "application/vnd.ms-word.document.macroEnabled.main+xml",
    "application/vnd.ms-word.template.macroEnabledTemplate.main+xml",
)


def _open(handle: Any) -> Any:
    """``docx.Document`` for every Word main-part type (see _WORD_MAIN_TYPES)."""
    from docx.opc.package import OpcPackage
    from docx.opc.part import PartFactory
    from docx.parts.document import DocumentPart

    for content_type in _WORD_MAIN_TYPES:
        PartFactory.part_type_for.setdefault(content_type, DocumentPart)
    part = OpcPackage.open(handle).main_document_part
    if part.content_type not in _WORD_MAIN_TYPES:
        raise ValueError(f"not a Word document: main part is {part.content_type}")
    return part.document


def _related(document: Any, reltype: str) -> Any | None:
    try:
        return document.part.part_related_by(reltype)
    except KeyError:
        return None


def _styles(document: Any) -> dict[str, _Style]:
    from docx.opc.constants import RELATIONSHIP_TYPE as RT

    part = _related(document, RT.STYLES)
    styles: dict[str, _Style] = {}
    if part is None:
        return styles
    for element in part.element.findall(_q("w:style")):
        style_id = _attr(element, "styleId")
        if not style_id:
            continue
        ppr = element.find(_q("w:pPr"))
        outline = ppr.find(_q("w:outlineLvl")) if ppr is not None else None
        numpr = ppr.find(_q("w:numPr")) if ppr is not None else None
        styles[style_id] = _Style(
            name=_attr(element.find(_q("w:name")), "val") or style_id,
            outline=_int(_attr(outline, "val")),
            num_id=_attr(numpr.find(_q("w:numId")), "val") if numpr is not None else None,
            ilvl=_int(_attr(numpr.find(_q("w:ilvl")), "val")) if numpr is not None else None,
            based_on=_attr(element.find(_q("w:basedOn")), "val"),
        )
    return styles


def _numbering(document: Any) -> _Numbering:
    from docx.opc.constants import RELATIONSHIP_TYPE as RT

    numbering = _Numbering()
    part = _related(document, RT.NUMBERING)
    if part is None:
        return numbering
    root = part.element
    for abstract in root.findall(_q("w:abstractNum")):
        levels: dict[int, _Level] = {}
        for lvl in abstract.findall(_q("w:lvl")):
            ilvl = _int(_attr(lvl, "ilvl"))
            if ilvl is None:
                continue
            levels[ilvl] = _Level(
                start=_int(_attr(lvl.find(_q("w:start")), "val")) or 1,
                fmt=_attr(lvl.find(_q("w:numFmt")), "val") or "decimal",
                text=_attr(lvl.find(_q("w:lvlText")), "val") or "",
            )
        numbering.levels[_attr(abstract, "abstractNumId") or ""] = levels
    for num in root.findall(_q("w:num")):
        overrides = {}
        for override in num.findall(_q("w:lvlOverride")):
            start = _int(_attr(override.find(_q("w:startOverride")), "val"))
            level = _int(_attr(override, "ilvl"))
            if start is not None and level is not None:
                overrides[level] = start
        abstract_id = _attr(num.find(_q("w:abstractNumId")), "val") or ""
        numbering.nums[_attr(num, "numId") or ""] = (abstract_id, overrides)
    return numbering


def _notes(document: Any, reader: _BodyReader) -> list[Block]:
    """Footnotes and endnotes, after the body, each as paragraphs prefixed with its number."""
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from lxml import etree

    blocks: list[Block] = []
    for reltype, tag, label in ((RT.FOOTNOTES, "w:footnote", "Footnote"), (RT.ENDNOTES, "w:endnote", "Endnote")):
        part = _related(document, reltype)
        if part is None:
            continue
        element = getattr(part, "element", None)
        if element is None:  # python-docx loads these parts as plain blobs
            parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
            element = etree.fromstring(part.blob, parser)
        for note in element.iter(_q(tag)):
            if _attr(note, "type") in ("separator", "continuationSeparator", "continuationNotice"):
                continue
            own: list[Block] = []
            reader.read(note, own)
            text = " ".join(b.text for b in own).strip()
            if text:
                blocks.append(Block("paragraph", f"{label} {_attr(note, 'id')}: {text}"))
    return blocks


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _page_furniture(document: Any) -> tuple[list[str], list[str]]:
    """Text of every distinct page header and footer, in section order."""
    headers: dict[str, None] = {}
    footers: dict[str, None] = {}
    for section in document.sections:
        for part, seen in ((section.header, headers), (section.first_page_header, headers),
                           (section.footer, footers), (section.first_page_footer, footers)):
            try:
                if part.is_linked_to_previous:
                    continue
                text = normalize_line(" ".join(_text_of(p) for p in part._element.iter(_q("w:p"))))
            except (AttributeError, KeyError, ValueError):
                continue
            if text:
                seen.setdefault(text, None)
    return list(headers), list(footers)


def _text_of(paragraph: Any) -> str:
    """A paragraph's visible text: runs, insertions, fields, hyperlinks, content controls; not the
    text boxes it anchors (read separately), not deleted text, not the fallback copy of drawings."""
    parts: list[str] = []
    for node in paragraph.iter(_q("w:t"), _q("w:tab"), _q("w:br"), _q("w:cr"), _q("w:noBreakHyphen")):
        if _inside_other_box(node, paragraph):
            continue
        tag = node.tag
        if tag == _q("w:t"):
            parts.append(node.text or "")
        elif tag == _q("w:tab"):
            parts.append("\t")
        elif tag in (_q("w:br"), _q("w:cr")):
            parts.append(" ")
        elif tag == _q("w:noBreakHyphen"):
            parts.append("-")
    return "".join(parts)


def _inside_other_box(node: Any, paragraph: Any) -> bool:
    """True when ``node`` sits in a text box (or a drawing's fallback copy) below ``paragraph``."""
    parent = node.getparent()
    while parent is not None and parent is not paragraph:
        if parent.tag in (_q("w:txbxContent"), _q("mc:Fallback"), _q("w:del")):
            return True
        parent = parent.getparent()
    return False


class _BodyReader:
    def __init__(self, styles: dict[str, _Style], numbering: _Numbering) -> None:
        self.styles = styles
        self.numbering = numbering
        self.fields: list[str] = []  # the fields open at this point of the body, outermost first
        self.toc_controls = 0  # how many "Table of Contents" content controls enclose this point

    def read(self, container: Any, blocks: list[Block]) -> None:
        for child in container:
            tag = child.tag
            if tag == _q("w:p"):
                self._paragraph(child, blocks)
            elif tag == _q("w:tbl"):
                blocks.extend(self._table(child))
            elif tag == _q("w:sdt"):
                content = child.find(_q("w:sdtContent"))
                if content is not None:
                    toc = _is_toc_control(child)
                    self.toc_controls += toc
                    self.read(content, blocks)
                    self.toc_controls -= toc
            elif tag in (_q("w:customXml"), _q("w:ins"), _q("w:smartTag")):
                self.read(child, blocks)

    def _paragraph(self, p: Any, blocks: list[Block]) -> None:
        text = normalize_line(_text_of(p))
        ppr = p.find(_q("w:pPr"))
        style_id = _attr(ppr.find(_q("w:pStyle")), "val") if ppr is not None else None
        chain = self._chain(style_id)
        numpr = ppr.find(_q("w:numPr")) if ppr is not None else None
        num_id = _attr(numpr.find(_q("w:numId")), "val") if numpr is not None else None
        ilvl = _int(_attr(numpr.find(_q("w:ilvl")), "val")) if numpr is not None else None
        if num_id is None:
            num_id = next((s.num_id for s in chain if s.num_id is not None), None)
        if ilvl is None:
            ilvl = next((s.ilvl for s in chain if s.ilvl is not None), 0)
        label = self.numbering.label(num_id, ilvl) if num_id and num_id != "0" and text else None
        in_toc = self._in_toc_field(p) or self.toc_controls > 0
        if text:
            shown = f"{label} {text}" if label else text
            toc_level = next((int(m.group(1)) for s in chain if (m := _TOC_STYLE.match(s.name.strip()))), None)
            if toc_level is not None or in_toc:
                blocks.append(Block("list_item", shown, level=(toc_level or 1) - 1))
            else:
                blocks.append(self._block(shown, ppr, chain, numbered=num_id not in (None, "0"), ilvl=ilvl))
        for box in p.iter(_q("w:txbxContent")):
            if not any(a.tag == _q("mc:Fallback") for a in box.iterancestors()):
                nearest = next((a for a in box.iterancestors() if a.tag == _q("w:p")), None)
                if nearest is p:
                    self.read(box, blocks)

    def _in_toc_field(self, p: Any) -> bool:
        """Whether the paragraph is part of a ``TOC`` field's result; follows the fields that open
        and close in it (a field's result runs on over paragraphs until its end mark)."""
        inside = "TOC" in self.fields
        for node in p.iter(_q("w:fldChar"), _q("w:instrText"), _q("w:fldSimple")):
            if node.tag == _q("w:fldSimple"):
                inside = inside or _field_name(_attr(node, "instr") or "") == "TOC"
            elif node.tag == _q("w:instrText"):
                if self.fields and not self.fields[-1]:
                    self.fields[-1] = _field_name(node.text or "")
            elif _attr(node, "fldCharType") == "begin":
                self.fields.append("")
            elif _attr(node, "fldCharType") == "end" and self.fields:
                self.fields.pop()
            inside = inside or "TOC" in self.fields
        return inside

    def _chain(self, style_id: str | None) -> list[_Style]:
        chain: list[_Style] = []
        seen: set[str] = set()
        while style_id and style_id in self.styles and style_id not in seen:
            seen.add(style_id)
            chain.append(self.styles[style_id])
            style_id = self.styles[style_id].based_on
        return chain

    def _block(self, text: str, ppr: Any, chain: list[_Style], numbered: bool, ilvl: int) -> Block:
        outline = _int(_attr(ppr.find(_q("w:outlineLvl")), "val")) if ppr is not None else None
        if outline is None:
            outline = next((s.outline for s in chain if s.outline is not None), None)
        if outline is not None and 0 <= outline < 9:
            return Block("heading", text, level=outline + 1)
        name = chain[0].name.strip() if chain else ""
        match = _HEADING_NAMES.match(name)
        if match:
            return Block("heading", text, level=max(int(match.group(1)), 1))
        if name.lower() in _TITLE_NAMES:
            return Block("heading", text, level=1)
        if numbered or name.lower().startswith(("list", "목록")):
            return Block("list_item", text, level=ilvl)
        return Block("paragraph", text)

    def _table(self, tbl: Any) -> list[Block]:
        grid: list[list[str | None]] = []
        cells: list[list[Block]] = []  # the blocks read in each cell, in reading order
        columns: list[int] = []  # the grid column of each of those cells
        spans: dict[tuple[int, int], list[int]] = {}
        origin_in_column: dict[int, tuple[int, int]] = {}
        declared_headers = 0
        counting_headers = True
        for r, tr in enumerate(tbl.iterchildren(_q("w:tr"))):
            trpr = tr.find(_q("w:trPr"))
            before = _int(_attr(trpr.find(_q("w:gridBefore")), "val")) if trpr is not None else None
            is_header = trpr is not None and trpr.find(_q("w:tblHeader")) is not None and \
                _attr(trpr.find(_q("w:tblHeader")), "val") not in ("0", "false")
            if counting_headers and is_header:
                declared_headers += 1
            else:
                counting_headers = False
            row: list[str | None] = [""] * (before or 0)
            for tc in _cells(tr):
                tcpr = tc.find(_q("w:tcPr"))
                width = _int(_attr(tcpr.find(_q("w:gridSpan")), "val")) if tcpr is not None else None
                width = max(width or 1, 1)
                vmerge = tcpr.find(_q("w:vMerge")) if tcpr is not None else None
                col = len(row)
                if vmerge is not None and _attr(vmerge, "val") in (None, "continue") and col in origin_in_column:
                    origin = origin_in_column[col]
                    box = spans.setdefault(origin, [origin[0], origin[1], origin[0], origin[1] + width - 1])
                    box[2] = r
                    row.extend([None] * width)
                    continue
                own: list[Block] = []
                self.read(tc, own)
                cells.append(own)
                columns.append(col)
                row.append(cell_line(own))
                row.extend([None] * (width - 1))
                for c in range(col, col + width):
                    origin_in_column[c] = (r, col)
                if width > 1:
                    spans[(r, col)] = [r, col, r, col + width - 1]
            grid.append(row)
        span_list = [Span(*box) for box in spans.values()]
        table = make_table(grid, span_list, header_rows=declared_headers or None)
        return table_blocks(table, cells, columns if declared_headers else ())


def _field_name(instruction: str) -> str:
    words = instruction.split()
    return words[0].upper() if words else ""


def _is_toc_control(sdt: Any) -> bool:
    """A content control of the "Table of Contents" building-block gallery (Word's TOC wrapper)."""
    gallery = sdt.find(f"{_q('w:sdtPr')}/{_q('w:docPartObj')}/{_q('w:docPartGallery')}")
    return (_attr(gallery, "val") or "").strip().lower() == "table of contents"


def _cells(tr: Any) -> list[Any]:
    """A row's cells, including those wrapped in content controls or custom XML."""
    cells = []
    for child in tr:
        if child.tag == _q("w:tc"):
            cells.append(child)
        elif child.tag in (_q("w:sdt"), _q("w:customXml")):
            content = child.find(_q("w:sdtContent")) if child.tag == _q("w:sdt") else child
            if content is not None:
                cells.extend(_cells(content))
    return cells
