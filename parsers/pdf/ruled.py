"""Ruled tables in a PDF: ruling edges read from pdfium's path objects, cells cut by pdfplumber's table finder.

Tables are looked for only on pages whose vector graphics could draw one (:func:`may_have_table`).
The ruling edges come from pdfium's path objects, and pdfplumber's table finder — its algorithm only,
pdfminer never parses the page — cuts them into cells: the grid ``page.find_tables()`` finds, 20x
faster on notices whose every page draws boxes. Each cell is read in visual order; cells of
open-sided tables are kept; a table drawn inside another's cell is read once, as a table of its own,
the outer cell keeping only its own text.
"""

from __future__ import annotations

import bisect
import ctypes
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from parsers.model import Table
from parsers.pdf.page import LINE_BREAK, CharBox, FoundTable, Glyph, Transform, ink_centre
from parsers.tables import Span, is_value, make_table


def may_have_table(page: Any) -> bool:
    """Whether the page's vector paths could form a ruled table (at least two cells).

    A path with area (a rectangle, a grid drawn as one path) may be one; so may separate rules
    when there are at least two horizontal and two vertical ones. Text-only pages, and pages whose
    only drawing is a header rule, never reach pdfplumber.
    """
    import pypdfium2.raw as pdfium_c

    horizontal = vertical = 0
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH], max_depth=8):
        left, bottom, right, top = obj.get_bounds()
        wide, tall = right - left >= 3, top - bottom >= 3
        if wide and tall:
            return True
        horizontal += wide
        vertical += tall
        if horizontal >= 2 and vertical >= 2:
            return True
    return False


class TableFinder:
    """Ruled tables, found on the pages that may hold one: the grid from the page's vector paths as
    pdfium reads them (:func:`_ruling_edges`), cut into cells by pdfplumber's table finder, each
    cell's text from pdfium (the same text engine as the rest of the page, which keeps word spaces
    pdfminer drops)."""

    def __init__(self) -> None:
        self.warnings: list[str] = []

    def find(self, index: int, textpage: Any, transform: Transform, text: str, box: CharBox,
             turned: Sequence[tuple[int, int]] = ()) -> list[FoundTable]:
        from pdfplumber.table import TableFinder

        try:
            page = textpage.page
            width, height = page.get_size()
            found = TableFinder(_EdgePage(_ruling_edges(page, transform), (0.0, 0.0, width, height))).tables
            glyphs = _Glyphs.of(text, box, turned) if found else None

            def build(candidate: Any, skip: Sequence[Sequence[float]] = ()) -> Table | None:
                rows = [[None if box is None or glyphs is None else glyphs.read(tuple(box), skip)
                         for box in row.cells] for row in candidate.rows]
                read = (lambda box: glyphs.read(tuple(box), skip)) if glyphs is not None else None
                return _table_from_grid(rows, candidate.rows, read) if _is_real_table(rows) else None

            tables = [build(candidate) for candidate in found]
            boxes = [tuple(candidate.bbox) for candidate in found]
            # A table drawn inside a cell of another is a table of its own; the outer cell keeps
            # only its own text, not the nested table's cells flattened a second time. Smallest
            # first, so that a table is skipped only once it is known to stay a table.
            for i in sorted(range(len(found)), key=lambda i: (boxes[i][2] - boxes[i][0]) * (boxes[i][3] - boxes[i][1])):
                nested = [boxes[j] for j, inner in enumerate(tables)
                          if j != i and inner is not None and _nested(boxes[j], boxes[i])]
                if nested and tables[i] is not None:
                    tables[i] = build(found[i], nested)
            return [FoundTable(boxes[i], table) for i, table in enumerate(tables) if table is not None]
        except Exception as exc:  # odd drawings must not lose the page's text: tables are optional
            self.warnings.append(f"page {index + 1}: tables not detected ({type(exc).__name__}: {exc})")
            return []


@dataclass(frozen=True)
class _EdgePage:
    """What pdfplumber's :class:`~pdfplumber.table.TableFinder` reads of a page with its default
    (``lines``) strategies: the ruling edges and the page box."""

    edges: list[dict]
    bbox: tuple[float, float, float, float]


_IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _ruling_edges(page: Any, transform: Transform, max_depth: int = 8) -> list[dict]:
    """The page's painted vector paths as the edges pdfplumber's table finder takes, in display
    space, made the way pdfplumber makes them from pdfminer's objects (so the grid is the one
    ``page.find_tables()`` finds, without pdfminer interpreting the page — 20x faster on real
    pages): each subpath is a line (two points: one edge, ``h`` if level, else ``v``), an
    axis-aligned rectangle (four edges) or a curve (an edge between each pair of consecutive points,
    Bézier end points only; ``h``/``v`` if level/plumb, else none). Lines first, then rectangles,
    then curves, each in content order, as pdfplumber lists them. Paths inside form XObjects count,
    with the form's matrix; paths painted neither filled nor stroked do not."""
    import pypdfium2.raw as pdfium_c

    lines: list[dict] = []
    rects: list[dict] = []
    curves: list[dict] = []
    fill, stroke = ctypes.c_int(), ctypes.c_int()
    x, y = ctypes.c_float(), ctypes.c_float()

    # page space -> display space as a PDF matrix, composed once with each path's own matrix
    to_display = (transform.a, transform.c, transform.b, transform.d, transform.e, transform.f)

    def subpaths(obj: Any, matrix: tuple[float, ...]) -> list[tuple[str, list[tuple[float, float]]]]:
        a, b, c, d, e, f = matrix
        found: list[tuple[list[str], list[tuple[float, float]]]] = []
        current: tuple[list[str], list[tuple[float, float]]] | None = None
        bezier = 0
        for i in range(pdfium_c.FPDFPath_CountSegments(obj)):
            segment = pdfium_c.FPDFPath_GetPathSegment(obj, i)
            kind = pdfium_c.FPDFPathSegment_GetType(segment)
            pdfium_c.FPDFPathSegment_GetPoint(segment, x, y)
            point = (a * x.value + c * y.value + e, b * x.value + d * y.value + f)
            if kind == pdfium_c.FPDF_SEGMENT_MOVETO:
                current, bezier = (["m"], [point]), 0
                found.append(current)
            elif current is None:
                continue
            elif kind == pdfium_c.FPDF_SEGMENT_BEZIERTO:
                bezier += 1
                if bezier % 3:  # pdfium gives both control points as segments; pdfminer keeps the end
                    continue
                current[0].append("c")
                current[1].append(point)
            else:
                current[0].append("l")
                current[1].append(point)
            if pdfium_c.FPDFPathSegment_GetClose(segment) and current is not None:
                current[0].append("h")  # a closed subpath returns to its start
                current[1].append(current[1][0])
        return [("".join(ops), points) for ops, points in found]

    def add(shape: str, points: list[tuple[float, float]]) -> None:
        if len(shape) > 3 and shape.endswith("lh") and points[-2] == points[0]:  # a redundant last line
            shape, points = shape[:-2] + "h", points[:-2] + points[-1:]
        if shape in ("ml", "mlh"):
            (x0, t0), (x1, t1) = points[0], points[1]
            top, bottom = min(t0, t1), max(t0, t1)
            lines.append(_edge(min(x0, x1), max(x0, x1), top, bottom, "h" if top == bottom else "v", "line"))
            return
        if shape in ("mlllh", "mllll"):
            (x0, y0), (x1, y1), (x2, y2), (x3, y3), _ = points
            if points[0] == points[4] and ((x0 == x1 and y1 == y2 and x2 == x3 and y3 == y0)
                                           or (y0 == y1 and x1 == x2 and y2 == y3 and x3 == x0)):
                left, right, top, bottom = min(x0, x2), max(x0, x2), min(y0, y2), max(y0, y2)
                rects.extend([_edge(left, right, top, top, "h", "rect_edge"),
                              _edge(left, right, bottom, bottom, "h", "rect_edge"),
                              _edge(left, left, top, bottom, "v", "rect_edge"),
                              _edge(right, right, top, bottom, "v", "rect_edge")])
                return
        for (x0, t0), (x1, t1) in itertools.pairwise(points):
            orientation = "v" if x0 == x1 else ("h" if t0 == t1 else None)
            curves.append(_edge(min(x0, x1), max(x0, x1), min(t0, t1), max(t0, t1), orientation, "curve_edge"))

    def walk(container: Any, in_form: bool, matrix: tuple[float, ...], depth: int) -> None:
        count = (pdfium_c.FPDFFormObj_CountObjects if in_form else pdfium_c.FPDFPage_CountObjects)(container)
        get = pdfium_c.FPDFFormObj_GetObject if in_form else pdfium_c.FPDFPage_GetObject
        for i in range(max(count, 0)):
            obj = get(container, i)
            kind = pdfium_c.FPDFPageObj_GetType(obj)
            if kind == pdfium_c.FPDF_PAGEOBJ_FORM and depth < max_depth:
                walk(obj, True, _compose(_matrix(obj), matrix), depth + 1)
            elif kind == pdfium_c.FPDF_PAGEOBJ_PATH:
                if not pdfium_c.FPDFPath_GetDrawMode(obj, fill, stroke) or (fill.value == 0 and not stroke.value):
                    continue
                for shape, points in subpaths(obj, _compose(_compose(_matrix(obj), matrix), to_display)):
                    add(shape, points)

    walk(page.raw, False, _IDENTITY, 0)
    return lines + rects + curves


def _edge(x0: float, x1: float, top: float, bottom: float, orientation: str | None, kind: str) -> dict:
    return {"object_type": kind, "x0": x0, "x1": x1, "top": top, "bottom": bottom,
            "width": x1 - x0, "height": bottom - top, "orientation": orientation}


def _matrix(obj: Any) -> tuple[float, ...]:
    """A page object's matrix (its space -> its container's space)."""
    import pypdfium2.raw as pdfium_c

    m = pdfium_c.FS_MATRIX()
    if not pdfium_c.FPDFPageObj_GetMatrix(obj, m):
        return _IDENTITY
    return (m.a, m.b, m.c, m.d, m.e, m.f)


def _compose(inner: tuple[float, ...], outer: tuple[float, ...]) -> tuple[float, ...]:
    """The matrix applying ``inner`` then ``outer`` (PDF row-vector convention)."""
    a, b, c, d, e, f = inner
    oa, ob, oc, od, oe, of = outer
    return (a * oa + b * oc, a * ob + b * od, c * oa + d * oc, c * ob + d * od,
            e * oa + f * oc + oe, e * ob + f * od + of)


#: Between two glyphs that are not neighbours in the content stream, a gap wider than this share
#: of their height is a word space (between neighbours, pdfium's own spacing decides).
WORD_GAP = 0.2


@dataclass(frozen=True)
class _Glyphs:
    """A page's visible characters with their boxes (display space), sorted top to bottom, to read
    the text inside a box in *visual* order. pdfium's own bounded text follows the content stream,
    which writes the glyphs of one cell in any order the producer chose ("제", "회", then "1" for
    "제1회"), and invents spaces where a later glyph will fill the gap ("1.20( ) 월"). Glyphs that
    are neighbours in both orders keep pdfium's word spaces (it knows the fonts' spacing)."""

    glyphs: tuple[Glyph, ...]
    middles: tuple[float, ...]

    @classmethod
    def of(cls, text: str, box: CharBox, turned: Sequence[tuple[int, int]] = ()) -> _Glyphs:
        glyphs: list[Glyph] = []
        visible = [i for i, char in enumerate(text) if not char.isspace()]
        starts = [run[0] for run in turned]
        for n, i in enumerate(visible):
            x0, top, x1, bottom = box(i)
            between = text[i + 1:visible[n + 1]] if n + 1 < len(visible) else ""
            after = "\n" if "\n" in between or "\r" in between else (" " if between else "")
            run = bisect.bisect_right(starts, i) - 1
            glyphs.append(Glyph(text[i], x0, top, x1, bottom, n, after, (top + bottom) / 2, ink_centre(text, box, i),
                                 max(bottom - top, 0.5), run >= 0 and i < turned[run][1]))
        glyphs.sort(key=lambda g: (g.middle, g.x0))
        return cls(tuple(glyphs), tuple(g.middle for g in glyphs))

    def read(self, box: Sequence[float], skip: Sequence[Sequence[float]] = ()) -> str:
        """The text whose glyph centres lie in ``box`` (x0, top, x1, bottom) and in none of the
        boxes ``skip``: lines top to bottom, glyphs left to right, a space where the gap between
        two glyphs is a word's."""
        x0, top, x1, bottom = box
        low, high = bisect.bisect_left(self.middles, top), bisect.bisect_right(self.middles, bottom)
        inside = [g for g in self.glyphs[low:high] if x0 <= g.centre <= x1]
        if skip:
            inside = [g for g in inside
                      if not any(s[0] <= g.centre <= s[2] and s[1] <= g.middle <= s[3] for s in skip)]
        turned = [g for g in inside if g.turned]
        if turned:
            inside = [g for g in inside if not g.turned]
        lines: list[list[Glyph]] = []
        for glyph in inside:  # already sorted by their middles
            if lines and glyph.middle - lines[-1][0].middle <= 0.5 * min(glyph.height, lines[-1][0].height):
                lines[-1].append(glyph)
            else:
                lines.append([glyph])
        out = []
        for line in lines:
            line.sort(key=lambda g: g.centre)
            parts = [line[0].char]
            for before, glyph in itertools.pairwise(line):
                if glyph.index == before.index + 1 and before.after != "\n":
                    space = before.after == " "
                else:
                    space = glyph.x0 - before.x1 > WORD_GAP * max(before.height, glyph.height)
                if space:
                    parts.append(" ")
                parts.append(glyph.char)
            out.append("".join(parts))
        if turned:
            # Rotated text (a column header set up the page) reads in content order, with pdfium's
            # spaces, a line where pdfium broke one; it stands where its highest glyph is.
            turned.sort(key=lambda g: g.index)
            parts = [turned[0].char]
            for before, glyph in itertools.pairwise(turned):
                joined = glyph.index == before.index + 1 and before.after != "\n"
                parts.append((" " if before.after == " " else "") if joined else "\n")
                parts.append(glyph.char)
            top = min(g.top for g in turned)
            at = sum(1 for line in lines if line[0].middle < top)
            out.insert(at, "".join(parts))
        return "\n".join(out)


def _nested(inner: Sequence[float], outer: Sequence[float], tolerance: float = 1.0) -> bool:
    """Whether box ``inner`` lies inside box ``outer`` (x0, top, x1, bottom) and is smaller."""
    return (inner[0] >= outer[0] - tolerance and inner[1] >= outer[1] - tolerance
            and inner[2] <= outer[2] + tolerance and inner[3] <= outer[3] + tolerance
            and (inner[2] - inner[0]) * (inner[3] - inner[1]) < (outer[2] - outer[0]) * (outer[3] - outer[1]))


def _is_real_table(rows: Sequence[Sequence[str | None]]) -> bool:
    """Reject ruled shapes pdfplumber takes for tables that are not: a framed box of one column
    (a code listing, a callout), a grid much coarser than its text (most cells hold three or
    more lines, their columns' lines side by side, as when only some rules of a booktabs table were
    found), a grid mostly empty (a chart's grid lines), or a box of one row whose last cell holds a
    single letter (a title boxed with a rule through its last word, as Hangul's PDFs draw section
    titles: read as cells, "세부 제안 요건" was "세부 제안 요 | 건" and no heading). Their text then
    stays in the page's text."""
    filled = [(c, cell.strip()) for row in rows for c, cell in enumerate(row) if cell and cell.strip()]
    if len(rows) == 1 and filled and len(filled[-1][1]) == 1 and filled[-1][1].isalpha():
        return False  # a title boxed across a rule: "3. 세부 제안 요 | 건" is the line "3. 세부 제안 요건"
    if len({c for c, _ in filled} ) < 2:
        return False
    cells = sum(len(row) for row in rows)
    if cells >= 12 and len(filled) < 0.3 * cells:
        return False  # a chart's grid lines with a few labels and values scattered over it
    counted = [[len(LINE_BREAK.findall(cell)) for cell in row if cell and cell.strip()] for row in rows]
    line_counts = sorted(count for counts in counted for count in counts)
    if line_counts[len(line_counts) // 2] < 3:
        return True
    # Most cells hold three lines or more: a grid coarser than its text runs its columns' lines in
    # parallel (each line a row whose rule was not found), while a table of labels and wrapped
    # text has rows of a short label beside a long cell ("오퍼\n관리" beside eight lines of ❍ items,
    # a Korean 구분 | 주요내용 table, which was read as loose lines).
    tall = [counts for counts in counted if len(counts) >= 2 and max(counts) >= 3]
    return bool(tall) and sum(2 * min(counts) >= max(counts) for counts in tall) * 2 < len(tall)


def _table_from_grid(rows: Sequence[Sequence[str | None]], cell_rows: Sequence[Any],
                     read: Callable[[Sequence[float]], str] | None = None) -> Table | None:
    """Our table from pdfplumber's grid, with cells covered by a merged cell (``None``) recorded as spans.

    A ``None`` cell that no merged cell covers is a cell whose rules are missing — the open first
    and last columns of a table drawn without outer verticals, common in Korean reports. Its text
    is read (``read``) from the box its column and row give, so a row keeps its label ("기금 | 36.7 |
    …") instead of losing it between the table's box and its cells."""
    spans: list[Span] = []
    grid = [list(row) for row in rows]
    # A None cell is covered by a merged neighbour: find the real cell whose box holds its centre.
    columns = _column_centres(cell_rows)
    extents = _column_extents(cell_rows)
    for r, row in enumerate(cell_rows):
        for c, bbox in enumerate(row.cells):
            if bbox is not None or c >= len(columns):
                continue
            y = _row_centre(row)
            x = columns[c]
            if y is None or x is None:
                continue
            for r2 in range(r, -1, -1):
                origin = next((c2 for c2, b in enumerate(cell_rows[r2].cells)
                               if b is not None and b[0] <= x <= b[2] and b[1] <= y <= b[3]), None)
                if origin is not None:
                    spans.append(Span(r2, origin, r, c))
                    break
            else:
                boxes = [b for b in row.cells if b is not None]
                if read is not None and extents[c] is not None:
                    x0, x1 = extents[c]
                    grid[r][c] = read((x0, min(b[1] for b in boxes), x1, max(b[3] for b in boxes)))
    spans = _merge_spans(spans)
    if read is not None:
        spans = [span for span in spans if not _figures_over_columns(grid, span, cell_rows, extents, read)]
    return make_table(grid, spans)


def _figures_over_columns(grid: list[list[str | None]], span: Span, cell_rows: Sequence[Any],
                          extents: Sequence[tuple[float, float] | None],
                          read: Callable[[Sequence[float]], str]) -> bool:
    """Whether a cell merged across a row's columns holds one figure over each of them (``2015 2016
    2017 2018`` over four columns of amounts, the rules between them not drawn in the header row):
    then each column gets its own (written into ``grid``) and the cell is no merged label. Read as
    one label repeated in every column, no column said which year it was. Only figures (years,
    amounts, dates) are split: a label of words centred over two columns ("2024년 예산") stays one."""
    if span.row != span.last_row or span.last_col <= span.col or any(extents[c] is None for c in range(span.col, span.last_col + 1)):
        return False
    merged = grid[span.row][span.col] or ""
    boxes = [b for b in cell_rows[span.row].cells if b is not None]
    top, bottom = min(b[1] for b in boxes), max(b[3] for b in boxes)
    pieces = [read((extents[c][0], top, extents[c][1], bottom)).strip() for c in range(span.col, span.last_col + 1)]
    if not all(pieces) or [word for piece in pieces for word in piece.split()] != merged.split():
        return False  # a column's piece is part of a word: one figure centred over two columns ("2019")
    if not all(is_value(piece) for piece in pieces):
        return False
    grid[span.row][span.col:span.last_col + 1] = pieces
    return True


def _column_extents(cell_rows: Sequence[Any]) -> list[tuple[float, float] | None]:
    """Each grid column's narrowest real cell, left and right (``None``: no real cell in it)."""
    width = max((len(row.cells) for row in cell_rows), default=0)
    extents: list[tuple[float, float] | None] = []
    for c in range(width):
        boxes = [row.cells[c] for row in cell_rows if c < len(row.cells) and row.cells[c] is not None]
        narrowest = min(boxes, key=lambda b: b[2] - b[0], default=None)
        extents.append((narrowest[0], narrowest[2]) if narrowest else None)
    return extents


def _column_centres(cell_rows: Sequence[Any]) -> list[float | None]:
    width = max((len(row.cells) for row in cell_rows), default=0)
    centres: list[float | None] = []
    for c in range(width):
        boxes = [row.cells[c] for row in cell_rows if c < len(row.cells) and row.cells[c] is not None]
        narrowest = min(boxes, key=lambda b: b[2] - b[0], default=None)
        centres.append((narrowest[0] + narrowest[2]) / 2 if narrowest else None)
    return centres


def _row_centre(row: Any) -> float | None:
    boxes = [b for b in row.cells if b is not None]
    if not boxes:
        return None
    shortest = min(boxes, key=lambda b: b[3] - b[1])
    return (shortest[1] + shortest[3]) / 2


def _merge_spans(spans: Sequence[Span]) -> list[Span]:
    """One span per origin cell, covering every covered cell found for it."""
    merged: dict[tuple[int, int], Span] = {}
    for span in spans:
        known = merged.get((span.row, span.col))
        if known is None:
            merged[(span.row, span.col)] = span
        else:
            merged[(span.row, span.col)] = Span(span.row, span.col, max(known.last_row, span.last_row),
                                                max(known.last_col, span.last_col))
    return list(merged.values())
