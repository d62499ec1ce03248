"""PPTX with python-pptx: slides in order; title, text in reading order, tables, charts, notes.

Per slide: the title placeholder first (``title``), then every shape's content in reading order —
shapes sorted top to bottom, and shapes whose tops fall in the same band (5% of the slide height)
left to right; each shape's paragraphs stay together, so two side-by-side text boxes read one
after the other. A group is read as a unit at its position on the slide (its children's offsets
are in the group's own coordinate space and are mapped through its ``chOff``/``chExt``), so
grouped columns also read column by column. Text frames give one block per paragraph:
``paragraph`` at outline level 0 and ``list_item`` below it (``level`` = indent level). Tables keep
their merged cells as spans; a chart becomes a table of its categories and series. Speaker notes
come last, as one ``notes`` block. Hidden slides are indexed and reported; SmartArt and other
graphic frames without a reader are reported, not silently dropped.

Also reads .pptm (macros never run), .potx and .ppsx, which python-pptx itself refuses by type.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parsers.containers import open_ooxml
from parsers.model import Block, Document, Locator, Properties
from parsers.tables import Span, make_table, normalize_cell
from parsers.text import normalize_line, normalize_text

#: Shapes whose tops are within this share of the slide height read left to right.
ROW_BAND = 0.05

_PRESENTATION_TYPES = (
    "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml",
    "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml",
    "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml",
    "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml",
    "application/vnd.openxmlformats-officedocument.presentationml.template.main+xml",
    "application/vnd.ms-powerpoint.template.macroEnabled.main+xml",
)


@dataclass(frozen=True)
class _Placed:
    """A shape, or a group of placed shapes, with its position on the slide (EMU)."""

    shape: Any
    left: float
    top: float
    children: tuple[_Placed, ...] = ()


def parse_pptx(path: Path) -> Document:
    from lxml import etree
    from pptx.exc import PackageNotFoundError

    deck = open_ooxml(path, _open, "presentation", PackageNotFoundError)
    blocks: list[Block] = []
    warnings: list[str] = []
    height = deck.slide_height or 6858000
    slides = 0
    for number, slide in enumerate(deck.slides, start=1):
        slides += 1
        locator = Locator(slide=number)
        if slide._element.get("show") in ("0", "false"):
            warnings.append(f"slide {number} is hidden; indexed anyway")
        try:
            blocks.extend(_slide_blocks(slide, locator, height, warnings))
        except (AttributeError, KeyError, ValueError, TypeError, etree.LxmlError) as exc:
            # A broken shape must not lose the rest of the deck.
            warnings.append(f"slide {number}: could not be read ({type(exc).__name__}: {exc})")
    core = deck.core_properties
    properties = Properties(
        title=normalize_line(core.title or ""), author=normalize_line(core.author or ""),
        subject=normalize_line(core.subject or ""), slides=slides,
    )
    return Document(str(path), "pptx", tuple(blocks), properties, tuple(warnings))


def _open(handle: Any) -> Any:
    from pptx.opc.package import PartFactory
    from pptx.package import Package
    from pptx.parts.presentation import PresentationPart

    for content_type in _PRESENTATION_TYPES:
        PartFactory.part_type_for.setdefault(content_type, PresentationPart)
    part = Package.open(handle).main_document_part
    if part.content_type not in _PRESENTATION_TYPES:
        raise ValueError(f"not a PowerPoint file: main part is {part.content_type}")
    return part.presentation


def _slide_blocks(slide: Any, locator: Locator, slide_height: int, warnings: list[str]) -> list[Block]:
    blocks: list[Block] = []
    title_shape = slide.shapes.title
    title_id = title_shape.shape_id if title_shape is not None else None
    if title_shape is not None and title_shape.has_text_frame:
        title = normalize_line(title_shape.text_frame.text)
        if title:
            blocks.append(Block("title", title, locator))
    placed = [p for p in _place(slide.shapes) if title_id is None or p.shape.shape_id != title_id]
    for shape in _reading_order(placed, slide_height * ROW_BAND):
        blocks.extend(_shape_blocks(shape, locator, warnings))
    if slide.has_notes_slide:
        frame = slide.notes_slide.notes_text_frame
        notes = normalize_text(frame.text if frame is not None else "")
        if notes:
            blocks.append(Block("notes", notes, locator))
    return blocks


def _shape_blocks(shape: Any, locator: Locator, warnings: list[str]) -> list[Block]:
    if getattr(shape, "has_table", False):
        block = _table_block(shape.table, locator)
        return [block] if block is not None else []
    if getattr(shape, "has_chart", False):
        try:
            return _chart_blocks(shape.chart, locator)
        except (AttributeError, KeyError, ValueError, TypeError, IndexError) as exc:
            warnings.append(f"slide {locator.slide}: chart {shape.name!r} could not be read ({exc})")
            return []
    if getattr(shape, "has_text_frame", False):
        blocks = []
        for paragraph in shape.text_frame.paragraphs:
            text = normalize_line(paragraph.text)
            if text:
                kind = "list_item" if paragraph.level > 0 else "paragraph"
                blocks.append(Block(kind, text, locator, level=paragraph.level))
        return blocks
    if shape.shape_type is not None and int(shape.shape_type) == 24:  # MSO_SHAPE_TYPE.IGX_GRAPHIC (SmartArt)
        warnings.append(f"slide {locator.slide}: SmartArt {shape.name!r} was not read (no reader for it)")
    return []


def _table_block(table: Any, locator: Locator) -> Block | None:
    grid: list[list[str | None]] = []
    spans: list[Span] = []
    for r, row in enumerate(table.rows):
        cells: list[str | None] = []
        for c, cell in enumerate(row.cells):
            if cell.is_spanned:
                cells.append(None)
                continue
            cells.append(normalize_cell(cell.text))
            if cell.is_merge_origin:
                spans.append(Span(r, c, r + cell.span_height - 1, c + cell.span_width - 1))
        grid.append(cells)
    first_row_header = bool(getattr(table, "first_row", True))
    parsed = make_table(grid, spans, header_rows=None if first_row_header else 1)
    if parsed is None:
        return None
    return Block("table", parsed.render(), locator, table=parsed)


def _chart_blocks(chart: Any, locator: Locator) -> list[Block]:
    blocks = []
    if chart.has_title and chart.chart_title.has_text_frame:
        title = normalize_line(chart.chart_title.text_frame.text)
        if title:
            blocks.append(Block("paragraph", title, locator))
    plot = chart.plots[0] if len(chart.plots) else None
    if plot is None:
        return blocks
    categories = [normalize_cell(c) for c in plot.categories]
    series = list(plot.series)
    header = ["", *(normalize_cell(s.name) for s in series)]
    rows: list[list[object]] = [header]
    for index, category in enumerate(categories):
        values = [s.values[index] if index < len(s.values) else None for s in series]
        rows.append([category, *("" if v is None else _number(v) for v in values)])
    table = make_table(rows, header_rows=1)
    if table is not None:
        blocks.append(Block("table", table.render(), locator, table=table))
    return blocks


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else format(value, ".15g")


def _place(shapes: Any, transform: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)) -> list[_Placed]:
    """Shapes with their slide positions; ``transform`` is (dx, dy, sx, sy) of the enclosing groups.

    A group's children are placed through the group's ``chOff``/``chExt`` (their offsets are in the
    group's own coordinate space) and kept together under the group.
    """
    dx, dy, sx, sy = transform
    placed = []
    for shape in shapes:
        left = dx + (shape.left or 0) * sx
        top = dy + (shape.top or 0) * sy
        if _is_group(shape):
            xfrm = shape._element.grpSpPr.xfrm
            inner = (dx, dy, sx, sy)
            if xfrm is not None and xfrm.chOff is not None and xfrm.chExt is not None:
                scale_x = (shape.width or 1) / (xfrm.chExt.cx or 1)
                scale_y = (shape.height or 1) / (xfrm.chExt.cy or 1)
                inner = (left - xfrm.chOff.x * scale_x * sx, top - xfrm.chOff.y * scale_y * sy,
                         sx * scale_x, sy * scale_y)
            placed.append(_Placed(shape, left, top, tuple(_place(shape.shapes, inner))))
        else:
            placed.append(_Placed(shape, left, top))
    return placed


def _reading_order(placed: list[_Placed], band: float) -> list[Any]:
    """Top to bottom; items whose tops lie within ``band`` of the row's first item, left to right.
    A group is read as a unit, its own shapes in the same order."""
    ordered: list[_Placed] = []
    row: list[_Placed] = []
    for item in sorted(placed, key=lambda p: (p.top, p.left)):
        if row and item.top - row[0].top > band:
            ordered.extend(sorted(row, key=lambda p: p.left))
            row = []
        row.append(item)
    ordered.extend(sorted(row, key=lambda p: p.left))
    shapes: list[Any] = []
    for item in ordered:
        if item.children:
            shapes.extend(_reading_order(list(item.children), band))
        elif not _is_group(item.shape):  # an empty group has nothing to read
            shapes.append(item.shape)
    return shapes


def _is_group(shape: Any) -> bool:
    return shape.shape_type is not None and int(shape.shape_type) == 6  # MSO_SHAPE_TYPE.GROUP
