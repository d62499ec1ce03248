"""PPTX with python-pptx: slides in order; title, text frames in reading order, tables, notes."""

from __future__ import annotations

from pathlib import Path

from parsers.detect import check_zip_bomb
from parsers.errors import CorruptFile
from parsers.model import Block, Document, Locator, Properties, Table
from parsers.text import normalize_line, normalize_text


def parse_pptx(path: Path) -> Document:
    from pptx import Presentation

    check_zip_bomb(path)
    try:
        deck = Presentation(str(path))
    except Exception as exc:
        raise CorruptFile(f"unreadable presentation: {type(exc).__name__}: {exc}") from exc
    blocks: list[Block] = []
    warnings: list[str] = []
    for number, slide in enumerate(deck.slides, start=1):
        locator = Locator(slide=number)
        try:
            blocks.extend(_slide_blocks(slide, locator))
        except Exception as exc:  # a broken shape must not lose the rest of the deck
            warnings.append(f"slide {number}: could not be read ({type(exc).__name__}: {exc})")
    core = deck.core_properties
    properties = Properties(
        title=normalize_line(core.title or ""), author=normalize_line(core.author or ""),
        subject=normalize_line(core.subject or ""), slides=len(deck.slides),
    )
    return Document(str(path), "pptx", tuple(blocks), properties, tuple(warnings))


def _slide_blocks(slide, locator: Locator) -> list[Block]:
    blocks: list[Block] = []
    title_shape = slide.shapes.title
    if title_shape is not None and title_shape.has_text_frame:
        title = normalize_line(title_shape.text_frame.text.replace("\n", " "))
        if title:
            blocks.append(Block("title", title, locator))
    for shape in sorted(_flatten(slide.shapes), key=lambda s: ((s.top or 0), (s.left or 0))):
        if title_shape is not None and shape.shape_id == title_shape.shape_id:
            continue
        if getattr(shape, "has_table", False) and shape.has_table:
            rows = tuple(
                tuple(normalize_line(cell.text.replace("\n", " ")) for cell in row.cells)
                for row in shape.table.rows
            )
            rows = tuple(r for r in rows if any(r))
            if rows:
                table = Table(rows, header_rows=1)
                blocks.append(Block("table", table.render(), locator, table=table))
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            for paragraph in shape.text_frame.paragraphs:
                text = normalize_line("".join(run.text for run in paragraph.runs) or "")
                if text:
                    kind = "list_item" if paragraph.level > 0 else "paragraph"
                    blocks.append(Block(kind, text, locator, level=paragraph.level))
    if slide.has_notes_slide:
        notes = normalize_text(slide.notes_slide.notes_text_frame.text or "")
        if notes:
            blocks.append(Block("notes", notes, locator))
    return blocks


def _flatten(shapes):
    for shape in shapes:
        if shape.shape_type == 6:  # MSO_SHAPE_TYPE.GROUP
            yield from _flatten(shape.shapes)
        else:
            yield shape
