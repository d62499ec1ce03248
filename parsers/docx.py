"""DOCX with python-docx: body paragraphs and tables in document order, headings by style."""

from __future__ import annotations

import re
from pathlib import Path

from parsers.detect import check_zip_bomb
from parsers.errors import CorruptFile
from parsers.model import Block, Document, Properties, Table
from parsers.text import normalize_line

_HEADING_STYLE = re.compile(r"^(?:heading|제목)\s*(\d)$", re.IGNORECASE)


def parse_docx(path: Path) -> Document:
    import docx
    from docx.table import Table as DocxTable
    from docx.text.paragraph import Paragraph

    check_zip_bomb(path)
    try:
        document = docx.Document(str(path))
    except Exception as exc:
        raise CorruptFile(f"unreadable Word document: {type(exc).__name__}: {exc}") from exc
    blocks: list[Block] = []
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            block = _paragraph_block(item)
            if block is not None:
                blocks.append(block)
        elif isinstance(item, DocxTable):
            block = _table_block(item)
            if block is not None:
                blocks.append(block)
    core = document.core_properties
    properties = Properties(
        title=normalize_line(core.title or ""), author=normalize_line(core.author or ""),
        subject=normalize_line(core.subject or ""),
    )
    return Document(str(path), "docx", tuple(blocks), properties)


def _paragraph_block(paragraph) -> Block | None:
    text = normalize_line(paragraph.text.replace("\n", " "))
    if not text:
        return None
    style = (paragraph.style.name if paragraph.style is not None else "") or ""
    if style.lower() == "title":
        return Block("heading", text, level=1)
    match = _HEADING_STYLE.match(style.strip())
    if match:
        return Block("heading", text, level=int(match.group(1)))
    is_list = style.lower().startswith("list") or (paragraph._p.pPr is not None and paragraph._p.pPr.numPr is not None)
    return Block("list_item" if is_list else "paragraph", text)


def _table_block(table) -> Block | None:
    rows = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            # Merged cells repeat the same cell object across the span: keep it once.
            if previous is not None and cell._tc is previous:
                continue
            previous = cell._tc
            cells.append(normalize_line(cell.text.replace("\n", " ")))
        if any(cells):
            rows.append(tuple(cells))
    if not rows:
        return None
    width = max(len(r) for r in rows)
    rows = [r + ("",) * (width - len(r)) for r in rows]
    parsed = Table(tuple(rows), header_rows=1)
    return Block("table", parsed.render(), table=parsed)
