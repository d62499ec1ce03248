"""The Document every parser produces and every later stage reads.

A Document is an ordered tuple of Blocks. Its text is the blocks' texts joined by a blank line, and
each block knows its character span in that text, so chunks can point back into the document
(``Document.text[start:end]``) and evaluation can measure overlap with gold excerpts.

Everything here is a frozen dataclass: stages never mutate what the previous stage gave them.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Literal

BlockKind = Literal["heading", "paragraph", "list_item", "table", "title", "notes", "furniture"]

#: Separator between blocks in ``Document.text``.
BLOCK_SEPARATOR = "\n\n"
#: Separator between cells when a table row is rendered as text.
CELL_SEPARATOR = " | "


#: Joins a packed row's cells (:class:`parsers.tables.SheetRows`): a control character no normalised
#: cell holds.
PACKED_SEPARATOR = "\x1f"


class PackedRows(Sequence[tuple[str, ...]]):
    """The rows of a tall table kept as the table's rendered text (:meth:`Table.render`, which is the
    block's text: the same string) and where each row starts in it; a row's cells are read back on
    demand, as a tuple of ``width`` cells, by cutting its line at ``" | "``.

    A sheet's cells as tuples of strings cost about 90 bytes each for a few characters of text (a
    26 MB CSV held seven times its text in them); here a row costs 8 bytes. A row whose line cannot
    be cut back into its cells (a cell holding ``|``) keeps its cells in ``odd``. Equal to any
    sequence of the same rows.
    """

    __slots__ = ("odd", "starts", "text", "width")

    def __init__(self, text: str, starts: array, width: int, odd: dict[int, tuple[str, ...]]) -> None:
        self.text = text
        self.starts = starts  # where each row's line starts, then len(text) + 1
        self.width = width
        self.odd = odd  # row index -> its cells (empty cells at the right end left out)

    @classmethod
    def pack(cls, packed: list[str], width: int) -> PackedRows:
        """From rows of cells joined by :data:`PACKED_SEPARATOR`, empty cells at the right end left out
        (the list is emptied once read)."""
        starts = array("q", [0])
        odd: dict[int, tuple[str, ...]] = {}
        position = 0
        for index, row in enumerate(packed):
            position += len(row) + (len(CELL_SEPARATOR) - 1) * row.count(PACKED_SEPARATOR) + 1
            starts.append(position)
            if "|" in row:
                line = row.replace(PACKED_SEPARATOR, CELL_SEPARATOR)
                if line.split(CELL_SEPARATOR) != row.split(PACKED_SEPARATOR):
                    odd[index] = tuple(row.split(PACKED_SEPARATOR))
        text = "\n".join(packed)
        packed.clear()
        return cls(text.replace(PACKED_SEPARATOR, CELL_SEPARATOR), starts, width, odd)

    def __len__(self) -> int:
        return len(self.starts) - 1

    def __getitem__(self, index):  # int -> a row, slice -> a tuple of rows
        if isinstance(index, slice):
            return tuple(self._cells(i) for i in range(*index.indices(len(self))))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("row index out of range")
        return self._cells(index)

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        return map(self._cells, range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"PackedRows({len(self)} rows of {self.width} cells)"

    def _cells(self, index: int) -> tuple[str, ...]:
        cells = self.odd.get(index) or tuple(self.line(index).split(CELL_SEPARATOR))
        return cells + ("",) * (self.width - len(cells))

    def line(self, index: int) -> str:
        """Row ``index`` as :meth:`Table.row_text` renders it."""
        return self.text[self.starts[index]:self.starts[index + 1] - 1]


@dataclass(frozen=True, slots=True)
class Table:
    """A table kept as a table: rows of cells, the first ``header_rows`` of them are headers.

    ``rows`` is a tuple of tuples, or :class:`PackedRows` for a sheet's rows (same reading).
    The first ``title_rows`` of the header rows are the table's title (a caption row over it, such
    as a merged first row): a piece that starts inside the table repeats them above the header
    rows, but they label no column (:attr:`header_text` is the rows under them) and do not count
    against the limit of header rows."""

    rows: tuple[tuple[str, ...], ...] | PackedRows
    header_rows: int = 1
    title_rows: int = 0

    def row_text(self, index: int) -> str:
        """One row as a line: cells joined by ``" | "``, empty cells at the right end left out."""
        if isinstance(self.rows, PackedRows):
            return self.rows.line(index)
        cells = self.rows[index]
        end = len(cells)
        while end and not cells[end - 1]:
            end -= 1
        return CELL_SEPARATOR.join(cells[:end])

    def render(self) -> str:
        if isinstance(self.rows, PackedRows):
            return self.rows.text
        return "\n".join(self.row_text(i) for i in range(len(self.rows)))

    @property
    def header_text(self) -> str:
        """The header rows under the title rows, one line each: what a piece inside the table repeats."""
        return "\n".join(self.row_text(i) for i in range(min(self.title_rows, self.header_rows),
                                                          min(self.header_rows, len(self.rows))))

    @property
    def title_text(self) -> str:
        """The title rows, one line each ("" when the table has none)."""
        return "\n".join(self.row_text(i) for i in range(min(self.title_rows, self.header_rows, len(self.rows))))


@dataclass(frozen=True, slots=True)
class Locator:
    """Where a block sits in its file. Fields that do not apply to a format stay ``None``."""

    page: int | None = None  # 1-based PDF page (where the block starts)
    page_end: int | None = None  # the page it ends on, when a paragraph runs on across a page break
    sheet: str | None = None  # XLSX/CSV sheet name
    row_start: int | None = None  # 1-based spreadsheet row of the block's first row
    row_end: int | None = None
    slide: int | None = None  # 1-based PPTX slide
    # 1-based spreadsheet columns of a sheet's table (one of several tables on a sheet sits in its own)
    column_start: int | None = None
    column_end: int | None = None


#: The locator of a block whose format has none (one shared instance, not one per block).
NO_LOCATOR = Locator()


@dataclass(frozen=True, slots=True)
class Block:
    kind: BlockKind
    text: str
    locator: Locator = NO_LOCATOR  # shared: a Locator is frozen
    level: int = 0  # heading level (1 = top) when the format declares one
    table: Table | None = None
    # For a table block whose rows map to spreadsheet rows: the row number of each table row.
    row_numbers: tuple[int, ...] = ()


@dataclass(frozen=True)
class PageInfo:
    number: int
    width: float
    height: float
    chars: int
    #: Mean OCR word confidence (0-100) of a page read by OCR (a scan); None for a text layer.
    ocr: float | None = None

    @property
    def landscape(self) -> bool:
        return self.width > self.height


@dataclass(frozen=True)
class Properties:
    """File-level facts the classifier may use (cheap, certain signals)."""

    title: str = ""
    author: str = ""
    subject: str = ""
    pages: tuple[PageInfo, ...] = ()
    sheets: tuple[str, ...] = ()
    hidden_sheets: tuple[str, ...] = ()
    slides: int = 0
    #: Scanned pages (an image's frames) left without text because OCR did not read them, each with
    #: why: ``(page, reason)`` in page order. A report can say what is missing without parsing warnings.
    unread: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class Document:
    path: str
    format: str  # "pdf", "xlsx", "csv", "pptx", "docx", "md", "html", "txt", or an unstructured type
    blocks: tuple[Block, ...]
    properties: Properties = field(default_factory=Properties)
    warnings: tuple[str, ...] = ()
    #: Page furniture (running headers and footers, page numbers, navigation): kept with the
    #: document, with its locators, but out of :attr:`text`, so it never splits or pads a chunk.
    furniture: tuple[Block, ...] = ()

    @cached_property
    def spans(self) -> tuple[tuple[int, int], ...]:
        """Character span of every block in :attr:`text`."""
        spans: list[tuple[int, int]] = []
        pos = 0
        for block in self.blocks:
            spans.append((pos, pos + len(block.text)))
            pos += len(block.text) + len(BLOCK_SEPARATOR)
        return tuple(spans)

    @cached_property
    def text(self) -> str:
        return BLOCK_SEPARATOR.join(block.text for block in self.blocks)

    @property
    def page_count(self) -> int:
        return len(self.properties.pages)

    @property
    def table_count(self) -> int:
        return sum(1 for b in self.blocks if b.kind == "table")

    def without_furniture(self) -> Document:
        """The same document with its furniture blocks moved out of the text into :attr:`furniture`
        (unless nothing else would be left: then they are its text)."""
        moved = tuple(block for block in self.blocks if block.kind == "furniture")
        kept = tuple(block for block in self.blocks if block.kind != "furniture")
        if not moved or not any(block.text.strip() for block in kept):
            return self
        return replace(self, blocks=kept, furniture=self.furniture + moved)

    def chars_per_page(self) -> float:
        pages = self.properties.pages
        return sum(p.chars for p in pages) / len(pages) if pages else float(len(self.text))

    def landscape_share(self) -> float:
        pages = self.properties.pages
        return sum(p.landscape for p in pages) / len(pages) if pages else 0.0
