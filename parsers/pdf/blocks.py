"""A PDF's pages as blocks: paragraphs, headings by size, tables, in reading order; then the document.

Paragraphs are consecutive lines in content order, split where the vertical gap is larger than
0.9 x the line height or where the text moves up or sideways as into the next column; titles set
larger than the body are headings; a paragraph that runs over a page break is one block. Blocks are
put in reading order by a recursive XY-cut of their boxes (:func:`reading_order`): content order
alone reads a title that the layout program drew last at the end of the page.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from parsers.model import Block, Document, Locator, PackedRows, PageInfo, Properties, Table
from parsers.pdf.furniture import LETTERS, furniture_lines, is_furniture, table_key
from parsers.pdf.page import PARAGRAPH_GAP, Line, Page
from parsers.tables import is_value

#: Narrowest vertical band of white (points) read as a column gutter.
MIN_COLUMN_GAP = 6.0


def assemble_document(path: str, fmt: str, pages: list[Page], properties: Properties, warnings: Sequence[str]) -> Document:
    """Lay out the pages' lines and tables as blocks: furniture, headings, paragraphs, joins."""
    furniture = furniture_lines(pages)
    levels = _heading_levels(pages, furniture)
    blocks: list[Block] = []
    infos: list[PageInfo] = []
    for page in pages:
        page_blocks = _page_blocks(page, furniture, levels)
        blocks.extend(page_blocks)
        infos.append(PageInfo(page.number, page.width, page.height, sum(len(b.text) for b in page_blocks), page.ocr))
    blocks = _join_across_pages(blocks)
    return Document(path, fmt, tuple(blocks), replace(properties, pages=tuple(infos)), tuple(warnings))


@dataclass(frozen=True)
class _Item:
    """A block on a page with its box (display space) and its place in content order."""

    block: Block
    bbox: tuple[float, float, float, float]
    order: int


#: A line set this much larger than the body text (and at least a point larger) is a heading ...
HEADING_SIZE = 1.15


#: ... while, from the largest size down, such lines stay this rare (a size used for many lines is
#: a second body style, not a heading).
MAX_HEADING_SHARE = 0.1


_HEADING_TEXT_LIMIT = 100


_ITEM_MARK = re.compile(r"^[-–‐·•∙◦○▪*※]\s")


#: Lines of one title (wrapped) are at most this many line heights apart.
TITLE_LINE_GAP = 1.5


def _heading_levels(pages: Sequence[Page], repeated: set[str]) -> dict[float, int]:
    """Font sizes that set headings apart, with their level (largest first, at most three levels).

    The body size is the size most of the text is set in; a size at least :data:`HEADING_SIZE`
    times it marks a heading when such lines are few and read as titles (see :func:`_titled`)."""
    weights: Counter[float] = Counter()
    lines = [(line, page) for page in pages for line in page.lines
             if line.size > 0 and not is_furniture(line, page, repeated)]
    for line, _ in lines:
        weights[line.size] += len(line.text)
    if not weights:
        return {}
    body = weights.most_common(1)[0][0]
    titled = Counter(line.size for line, _ in lines if _titled(line) and line.size >= max(body * HEADING_SIZE, body + 1))
    large: list[float] = []
    taken = 0
    for size in sorted(titled, reverse=True):  # the largest sizes first, while they stay rare
        taken += titled[size]
        if taken > MAX_HEADING_SHARE * len(lines):
            break
        large.append(size)
    levels: dict[float, int] = {}
    level, last = 0, None
    for size in large:  # sizes within half a point are one level
        if last is None or last - size > 0.5:
            level = min(level + 1, 3)
        levels[size] = level
        last = size
    return levels


def _titled(line: Line) -> bool:
    """Whether a line can be a title: short, mostly letters, not a finished sentence, not a list item
    set large for emphasis ("- 사업 수혜자 : …")."""
    text = line.text
    letters = len(LETTERS.findall(text))
    return len(text) <= _HEADING_TEXT_LIMIT and letters >= 2 and letters >= 0.4 * len(text.replace(" ", "")) \
        and not text.endswith((".", "。", "다", ":")) and not _ITEM_MARK.match(text)


def _page_blocks(page: Page, repeated: set[str], levels: dict[float, int] | None = None) -> list[Block]:
    locator = Locator(page=page.number)
    items: list[_Item] = []
    paragraph: list[Line] = []
    heading: list[Line] = []
    levels = levels or {}

    def level_of(line: Line) -> int:
        return levels.get(line.size, 0) if _titled(line) else 0

    def add(block: Block, lines: Sequence[Line] = (), bbox: tuple[float, float, float, float] | None = None) -> None:
        if bbox is None:
            bbox = (min(x.x0 for x in lines), min(x.top for x in lines),
                    max(x.x1 for x in lines), max(x.bottom for x in lines))
        items.append(_Item(block, bbox, len(items)))

    def flush() -> None:
        if paragraph:
            add(Block("paragraph", "\n".join(x.text for x in paragraph), locator), paragraph)
            paragraph.clear()
        if heading:
            level = min(level_of(x) for x in heading)
            add(Block("heading", " ".join(x.text for x in heading), locator, level=level), heading)
            heading.clear()

    for line in page.lines:
        if is_furniture(line, page, repeated):
            # Set aside without ending the paragraph being read: furniture has its own place (the
            # page's top or bottom), and a badge drawn between two lines of a sentence in content
            # order ("…148조원의 1%" / "04" / "인 1.5조원 수준의…") must not cut the sentence in two.
            add(Block("furniture", line.text, locator), [line])
            continue
        level = level_of(line)
        if level:  # a heading line: its own block (a title wrapped over two lines stays one)
            # The next line of a title: right below it — or, when it starts in lower case, anywhere
            # within two lines' gap, the loose glyph boxes of tightly set lines overlapping included
            # ("Enhancing model performance with" / "targeted learning").
            going_on = line.text[:1].isascii() and line.text[:1].islower()
            below = line.top - heading[-1].bottom if heading else -1.0
            if not (heading and abs(heading[-1].size - line.size) <= 0.15 * line.size
                    and (0 <= below <= TITLE_LINE_GAP * line.height
                         or (going_on and line.top >= heading[-1].top + 0.5 * line.height
                             and below <= 2 * TITLE_LINE_GAP * line.height))):
                flush()
            heading.append(line)
            continue
        if heading:
            flush()
        if paragraph:
            previous = paragraph[-1]
            gap = line.top - previous.bottom
            moved_up = line.top < previous.top - 0.5 * previous.height
            beside = line.x0 >= max(x.x1 for x in paragraph) or line.x1 <= min(x.x0 for x in paragraph)
            if gap > PARAGRAPH_GAP * line.height or moved_up or beside:
                flush()
        paragraph.append(line)
    flush()
    for found in page.tables:
        if table_key(found, page) in repeated:
            add(Block("furniture", found.table.render(), locator), bbox=found.bbox)
        else:
            add(Block("table", found.table.render(), locator, table=found.table), bbox=found.bbox)
    # Furniture sits in the edge bands: the top one reads first, the bottom one last, and neither
    # takes part in finding the body's columns.
    middle = page.height / 2
    furniture = [item for item in items if item.block.kind == "furniture"]
    body = [item for item in items if item.block.kind != "furniture"]
    top = sorted((i for i in furniture if i.bbox[1] < middle), key=lambda i: (i.bbox[1], i.bbox[0]))
    bottom = sorted((i for i in furniture if i.bbox[1] >= middle), key=lambda i: (i.bbox[1], i.bbox[0]))
    return [item.block for item in (*top, *_reading_order(body), *bottom)]


#: A paragraph that ends so has finished its sentence (Korean 개조식 lines end in 다, 음, 함, 임, 됨).
_FINISHED = re.compile(r"[.。!?！？:;)）」』”\"']$|[다음함임됨]$")


#: A line that starts so opens an item or a section of its own.
_OPENS = re.compile(r"^(?:[□■◆◇▣○◦●◎\-·∙•▪‐–※*①-⑳]|\(?\d{1,2}[.)]|\(?[가나다라마바사아자차카타파하][.)]|[IVXⅠ-Ⅹ]+\.|제\s?\d+\s?[편장절관조])")


def _join_across_pages(blocks: list[Block]) -> list[Block]:
    """A paragraph that stops mid-sentence at the foot of a page and goes on at the top of the next
    becomes one block (located on both pages), so no cut can fall inside its sentence; so does a
    table that goes on at the top of the next page (:func:`_continued`)."""
    out: list[Block] = []
    body = -1  # index in ``out`` of the last block that is not furniture
    grown: dict[int, list[tuple[str, ...]]] = {}  # a table's rows from the pages after its first, by index in ``out``
    for block in blocks:
        last = out[body] if body >= 0 else None
        if (last is not None and last.table is not None and block.table is not None
                and last.locator.page is not None and block.locator.page == (last.locator.page_end or last.locator.page) + 1):
            rows = _continued(last.table, block.table)
            if rows is not None:  # the rows are added once the table has ended: rendered once
                grown.setdefault(body, []).extend(rows)
                out[body] = replace(last, locator=Locator(page=last.locator.page, page_end=block.locator.page))
                continue
        if (last is not None and last.kind == "paragraph" and block.kind == "paragraph"
                and last.locator.page is not None and block.locator.page == (last.locator.page_end or last.locator.page) + 1
                and not _FINISHED.search(last.text) and not _OPENS.match(block.text)):
            # The running footer and header in between stay furniture (set aside after parsing).
            out[body] = Block("paragraph", last.text + "\n" + block.text,
                              Locator(page=last.locator.page, page_end=block.locator.page))
            continue
        out.append(block)
        if block.kind != "furniture":
            body = len(out) - 1
    for index, rows in grown.items():
        table = replace(out[index].table, rows=(*out[index].table.rows, *rows))
        out[index] = replace(out[index], text=table.render(), table=table)
    return out


#: A cell longer than this is not a column's label (what :func:`_continued` reads a header by).
_LABEL_CHARS = 20


def _continued(above: Table, below: Table) -> tuple[tuple[str, ...], ...] | None:
    """The rows of ``below``, the first table on a page, that go on ``above``, the last block of
    the page before, or None when ``below`` is a table of its own.

    A table cut by a page break goes on with the same columns, either under its header again (the
    repeated header rows are dropped) or straight on with its rows. Read as a table of its own, its
    first row was taken for a header and repeated above every chunk of the rest, and the rest lost
    the header that names its columns (a statement of accounts' years; an RFP's 항목 | 작성방법). A
    table with the same columns whose first row is a header of other labels (short, no figures)
    stands on its own."""
    rows = below.rows
    if not rows or not above.rows or len(rows[0]) != len(above.rows[0]) or isinstance(rows, PackedRows):
        return None
    header = [_squeezed(row) for row in above.rows[above.title_rows:above.header_rows]]
    lead = [_squeezed(row) for row in rows[:len(header)]]
    if header and lead == header:
        return tuple(rows[len(header):])
    first = [cell for cell in rows[0] if cell]
    if len(first) >= 2 and all(len(cell) <= _LABEL_CHARS and not is_value(cell) for cell in first):
        return None
    return tuple(rows)


def _squeezed(row: Sequence[str]) -> tuple[str, ...]:
    """A row's cells without their spaces: ``항 목`` and ``항목`` are the same label."""
    return tuple("".join(cell.split()) for cell in row)


def _reading_order(items: list[_Item], depth: int = 0) -> list[_Item]:
    """Recursive XY-cut: split the blocks at their widest empty bands — down the page (column
    gutters) when the columns run most of the region's height and the gutter is at least half as
    wide as the widest band across, otherwise across it (between rows of blocks) — and read each
    part in turn; a group that cannot be cut keeps pdfium's content order. So a title drawn last
    still reads first, two columns read one after the other, and a band of two columns under
    another band reads after it."""
    if len(items) <= 1 or depth > 60:
        return sorted(items, key=lambda item: item.order)
    rows, row_gap = _cut(items, axis=1)
    columns, column_gap = _cut(items, axis=0)
    if len(columns) > 1 and (len(rows) == 1 or (column_gap >= 0.5 * row_gap and _tall(columns, items))):
        parts = columns
    elif len(rows) > 1:
        parts = rows
    else:
        return sorted(items, key=lambda item: item.order)
    return [item for group in parts for item in _reading_order(group, depth + 1)]


def _cut(items: list[_Item], axis: int) -> tuple[list[list[_Item]], float]:
    """Split at the widest empty bands along ``axis`` (0: x, 1: y) — those at least 0.8 times as
    wide as the widest, so equal gaps go in one step — and return the groups and the widest band."""
    low, high = axis, axis + 2
    ordered = sorted(items, key=lambda item: (item.bbox[low], item.order))
    gaps: list[tuple[int, float]] = []  # (index of the first item after the gap, width)
    end = ordered[0].bbox[high]
    minimum = MIN_COLUMN_GAP if axis == 0 else 0.0
    for index, item in enumerate(ordered[1:], start=1):
        gap = item.bbox[low] - end
        if gap > minimum:
            gaps.append((index, gap))
        end = max(end, item.bbox[high])
    if not gaps:
        return [ordered], 0.0
    widest = max(width for _, width in gaps)
    cuts = [index for index, width in gaps if width >= 0.8 * widest]
    bounds = [0, *cuts, len(ordered)]
    return [ordered[a:b] for a, b in itertools.pairwise(bounds)], widest


def _tall(columns: list[list[_Item]], items: list[_Item]) -> bool:
    """Whether every column runs down most of the region (real columns, not a row of labels)."""
    def height(group: list[_Item]) -> float:
        return max(i.bbox[3] for i in group) - min(i.bbox[1] for i in group)

    return all(height(group) >= 0.5 * height(items) for group in columns)
