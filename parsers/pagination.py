"""Page numbers for Hangul documents (HWPX and HWP 5), derived from what the file declares.

Hangul stores no laid-out pages: it paginates when it opens a file. What a file does declare, and
what :class:`Pagination` counts, in order (page 1 at the start):

- a section boundary (HWPX ``Contents/sectionN.xml``, HWP ``BodyText/SectionN``; a new section
  starts a new page in Hangul) and a paragraph's page break (HWPX ``pageBreak="1"``, HWP the page
  and section break bits of ``PARA_HEADER``): the paragraph starts a new page, unless nothing has
  been placed on the current page yet (a break at the top of a page adds none);
- the line segments Hangul saves with each paragraph (HWPX ``hp:linesegarray``, HWP
  ``PARA_LINE_SEG``): the vertical position of each line from the top of its page (or column);
  a line placed higher than the line before it starts a new page, so a paragraph can start on one
  page and end on the next. Within a multi-column region (a column definition of ``n`` columns)
  the first ``n - 1`` such returns are new columns, not new pages.

Only the body's own paragraphs count; the lines inside tables, text boxes, headers and notes are
positioned within their container. This is not a layout engine: a table or picture taller than a
page, a multi-column region that starts mid-page, or a file edited by a tool that did not recompute
the line segments can put a block a page or so away from where Hangul draws it. A file with none of
these signals (one section, no breaks, no line segments) gets no page numbers at all.

The numbers are physical pages, the n-th page from the start of the file counted from 1, as the PDF
parser's are (pdfium's page index + 1), not the numbers printed on them. A section can restart the
printed numbering (HWPX ``hp:startNum page="N"``, HWP the page start number of its ``secd``; a
new-number control, ``hp:newNum`` / ``nwno``, mid-section) or move it to the next odd or even number
(``pageStartsOn``, HWP bits 20-21 of the ``secd`` attributes: Hancom's specification says it applies
to the page *number*), so printed numbers repeat and skip: they cannot say which page a block is on,
and the same document saved as PDF, often beside it in a team's folder, gets physical numbers, which
its Hangul twin's chunks must match. So those declarations are not read.

:meth:`Pagination.page_infos` gives the pages for ``Properties.pages``: each page's size from its
section's page definition (HWPX ``hp:pagePr``, HWP ``PAGE_DEF``) and the characters of the blocks
on it. The classifier's page geometry rules are for PDFs only (:mod:`classifiers.rules`), so these
pages do not change a Hangul document's strategy; they describe it (``seams inspect``).

Checked against Hangul's own pagination (its HTML export, a ``<div class="hpa">`` a page, beside 37
HWP and 36 HWPX test files of ohah/hwpjs): the last page a block is on equals Hangul's page count in
66 of the 73, and is one short in the other 7 (endnotes set on a page of their own, an empty last
page after a break, a table running on to a page no body line shows).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise

from parsers.model import Block, Locator, PageInfo

#: Hangul's unit of length (HWPUNIT) is 1/7200 inch; a PDF point is 1/72 inch.
HWPUNITS_PER_POINT = 100


def page_size(width: int, height: int, landscape: bool) -> tuple[float, float]:
    """A page definition's paper size (HWPUNIT) as the page's width and height in points. Hangul
    keeps the paper's own size (A4 is 59528 x 84188 either way) and turns it for a landscape page."""
    width_pt, height_pt = width / HWPUNITS_PER_POINT, height / HWPUNITS_PER_POINT
    return (height_pt, width_pt) if landscape else (width_pt, height_pt)


class Pagination:
    """Counts pages over a document's body paragraphs, fed in reading order."""

    def __init__(self) -> None:
        self.page = 1
        self.declared = False  # whether the file gave any signal at all
        self._columns = 1
        self._column = 0
        self._last: int | None = None  # vertical position of the last line placed
        self._fresh = True  # nothing placed on the current page yet
        self._sections = 0
        #: The first page of each section that declared its page size, and that size (points).
        self._size_from: list[int] = []
        self._sizes: list[tuple[float, float]] = []
        #: Per body paragraph: (body blocks so far, notes so far, first page, last page).
        self._marks: list[tuple[int, int, int, int]] = []

    def section(self, size: tuple[float, float] | None = None) -> None:
        """A new section starts: a new page, unless it is the first; ``size`` is the width and height
        (points) its page definition gives its pages, if it has one."""
        self._sections += 1
        if self._sections > 1:
            self.declared = True
            self._break()
        self._columns, self._column = 1, 0
        if size is not None:
            if self._size_from and self._size_from[-1] == self.page:  # the section before holds no page
                self._size_from.pop()
                self._sizes.pop()
            self._size_from.append(self.page)
            self._sizes.append(size)

    def paragraph(self, page_break: bool, lines: Sequence[int], columns: int | None = None) -> tuple[int, int]:
        """The pages a body paragraph starts and ends on, from its break flag, its lines' vertical
        positions and the column count it sets (``None``: it sets none)."""
        if page_break:
            self.declared = True
            self._break()
        elif lines and self._last is not None and lines[0] < self._last:
            self._advance()
        start = self.page
        if columns is not None:
            self._columns, self._column = max(columns, 1), 0
        for before, line in pairwise(lines):
            if line < before:
                self._advance()
        if lines:
            self.declared = True
            self._last = lines[-1]
        self._fresh = False
        return start, self.page

    def mark(self, blocks: int, notes: int, first: int, last: int) -> None:
        """The body blocks and notes read since the last mark are on pages ``first`` to ``last``."""
        self._marks.append((blocks, notes, first, last))

    def locate(self, body: Sequence[Block], notes: Sequence[Block]) -> tuple[list[Block], list[Block]]:
        """The body blocks with their pages, the notes with their anchor's first page, as marked — or
        unchanged when the file declared nothing to count pages by."""
        body, notes = list(body), list(notes)
        if not self.declared:
            return body, notes
        block_from = note_from = 0
        for block_to, note_to, first, last in self._marks:
            locator = Locator(page=first, page_end=last if last != first else None)
            for i in range(block_from, block_to):
                body[i] = replace(body[i], locator=locator)
            for i in range(note_from, note_to):
                notes[i] = replace(notes[i], locator=Locator(page=first))
            block_from, note_from = block_to, note_to
        return body, notes

    def page_infos(self, blocks: Sequence[Block]) -> tuple[PageInfo, ...]:
        """The pages of the located ``blocks`` (:meth:`locate`): one for each page up to the last one
        a block is on, with its section's size (0 x 0 when the section declares none) and the
        characters of the blocks on it (a block over several pages shares its characters among
        them evenly). None when the file declared nothing to count pages by."""
        if not self.declared:
            return ()
        chars: dict[int, int] = {}
        for block in blocks:
            first = block.locator.page
            if first is None:
                continue
            last = block.locator.page_end or first
            share, rest = divmod(len(block.text), last - first + 1)
            for page in range(first, last + 1):
                chars[page] = chars.get(page, 0) + share + (rest if page == first else 0)
        infos = []
        for number in range(1, max(chars, default=0) + 1):
            index = bisect_right(self._size_from, number) - 1
            width, height = self._sizes[index] if index >= 0 else (0.0, 0.0)
            infos.append(PageInfo(number, width, height, chars.get(number, 0)))
        return tuple(infos)

    def _break(self) -> None:
        if not self._fresh:
            self.page += 1
            self._fresh = True
        self._column, self._last = 0, None

    def _advance(self) -> None:
        """Lines went back up: the next column, or the next page."""
        if self._column + 1 < self._columns:
            self._column += 1
        else:
            self.page += 1
            self._column = 0
        self._fresh = False
