"""PDF with pdfplumber: text lines in reading order, tables as tables, page geometry.

Each page yields paragraph blocks (lines grouped by vertical gaps) and table blocks, interleaved by
their position on the page. Lines that repeat at the top or bottom of most pages (running headers,
footers, page numbers) are kept as ``furniture`` blocks: marked, not deleted.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from parsers.errors import CorruptFile, EncryptedFile, TooLarge
from parsers.model import Block, Document, Locator, PageInfo, Properties, Table
from parsers.text import normalize_line

_DIGITS = re.compile(r"\d+")
MAX_PAGES = 5000


def parse_pdf(path: Path) -> Document:
    import pdfplumber
    from pdfminer.pdfdocument import PDFPasswordIncorrect

    try:
        pdf = pdfplumber.open(str(path))
    except PDFPasswordIncorrect as exc:
        raise EncryptedFile("password-protected PDF (a user password is needed to open it)") from exc
    except Exception as exc:
        if _is_password_error(exc):
            raise EncryptedFile("password-protected PDF (a user password is needed to open it)") from exc
        raise CorruptFile(f"unreadable PDF: {type(exc).__name__}: {exc}") from exc
    with pdf:
        try:
            pages = pdf.pages
        except Exception as exc:
            raise CorruptFile(f"unreadable PDF page tree: {type(exc).__name__}: {exc}") from exc
        if len(pages) > MAX_PAGES:
            raise TooLarge(f"{len(pages)} pages (limit {MAX_PAGES})")
        metadata = pdf.metadata or {}
        page_blocks: list[list[Block]] = []
        infos: list[PageInfo] = []
        warnings: list[str] = []
        for number, page in enumerate(pages, start=1):
            try:
                blocks = _page_blocks(page, number)
            except Exception as exc:  # one bad page must not lose the others
                warnings.append(f"page {number}: could not be read ({type(exc).__name__}: {exc})")
                blocks = []
            page_blocks.append(blocks)
            infos.append(PageInfo(number, float(page.width), float(page.height),
                                  sum(len(b.text) for b in blocks)))
            page.close()
    blocks = _mark_furniture(page_blocks)
    properties = Properties(
        title=_meta(metadata, "Title"), author=_meta(metadata, "Author"),
        subject=_meta(metadata, "Subject"), pages=tuple(infos),
    )
    return Document(str(path), "pdf", tuple(blocks), properties, tuple(warnings))


def _is_password_error(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if "Password" in type(seen).__name__ or "password" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _meta(metadata: dict, key: str) -> str:
    value = metadata.get(key, "")
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return normalize_line(str(value))


def _page_blocks(page, number: int) -> list[Block]:
    locator = Locator(page=number)
    tables = page.find_tables()
    items: list[tuple[float, Block]] = []
    bboxes = [t.bbox for t in tables]
    for found in tables:
        rows = [tuple(normalize_line(cell or "") for cell in row) for row in found.extract()]
        rows = [row for row in rows if any(row)]
        if not rows:
            continue
        table = Table(tuple(rows), header_rows=1)
        items.append((found.bbox[1], Block("table", table.render(), locator, table=table)))

    def outside_tables(obj) -> bool:
        if obj.get("object_type") != "char":
            return True
        x = (obj["x0"] + obj["x1"]) / 2
        y = (obj["top"] + obj["bottom"]) / 2
        return not any(x0 <= x <= x1 and top <= y <= bottom for x0, top, x1, bottom in bboxes)

    text_page = page.filter(outside_tables) if bboxes else page
    lines = text_page.extract_text_lines(return_chars=False)
    paragraph: list[str] = []
    paragraph_top = 0.0
    previous_bottom: float | None = None
    for line in lines:
        text = normalize_line(line["text"])
        if not text:
            continue
        height = max(line["bottom"] - line["top"], 1.0)
        gap = line["top"] - previous_bottom if previous_bottom is not None else 0.0
        if paragraph and gap > 0.9 * height:
            items.append((paragraph_top, Block("paragraph", "\n".join(paragraph), locator)))
            paragraph = []
        if not paragraph:
            paragraph_top = line["top"]
        paragraph.append(text)
        previous_bottom = line["bottom"]
    if paragraph:
        items.append((paragraph_top, Block("paragraph", "\n".join(paragraph), locator)))
    items.sort(key=lambda item: item[0])
    return [block for _, block in items]


def _mark_furniture(page_blocks: list[list[Block]]) -> list[Block]:
    """Split off first/last lines that repeat on most pages and mark them as furniture."""
    if len(page_blocks) < 3:
        return [b for blocks in page_blocks for b in blocks]
    counts: Counter[str] = Counter()
    for blocks in page_blocks:
        edges = set()
        if blocks and blocks[0].kind == "paragraph":
            edges.add(_DIGITS.sub("#", blocks[0].text.split("\n")[0]))
        if blocks and blocks[-1].kind == "paragraph":
            edges.add(_DIGITS.sub("#", blocks[-1].text.split("\n")[-1]))
        counts.update(edges)
    repeated = {line for line, n in counts.items() if n >= max(3, 0.6 * len(page_blocks))}
    if not repeated:
        return [b for blocks in page_blocks for b in blocks]
    out: list[Block] = []
    for blocks in page_blocks:
        for index, block in enumerate(blocks):
            lines = block.text.split("\n")
            head: list[str] = []
            tail: list[str] = []
            if index == 0 and block.kind == "paragraph" and _DIGITS.sub("#", lines[0]) in repeated:
                head = [lines.pop(0)]
            if (index == len(blocks) - 1 and block.kind == "paragraph" and lines
                    and _DIGITS.sub("#", lines[-1]) in repeated):
                tail = [lines.pop()]
            if head:
                out.append(Block("furniture", head[0], block.locator))
            if lines and (head or tail):
                out.append(Block(block.kind, "\n".join(lines), block.locator))
            elif not head and not tail:
                out.append(block)
            if tail:
                out.append(Block("furniture", tail[0], block.locator))
    return out
