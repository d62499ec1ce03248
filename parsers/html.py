"""HTML with BeautifulSoup: headings, paragraphs, list items, tables and loose text, in document order.

The tree is walked once. Block elements (``p``, ``h1``-``h6``, ``li``, ``table``, ``pre``,
``blockquote``, ``div`` and the other sectioning tags) end the running text; text that sits
directly in a container (``<div>text</div>``) becomes a paragraph of its own, so nothing readable
is dropped. ``<br>`` breaks a line inside a block. Tables keep ``colspan``/``rowspan`` as spans, and
leading rows of ``<th>`` cells (or a ``<thead>``) are their header rows. Page chrome — ``<nav>``, and
``<header>``/``<footer>`` outside ``<main>``/``<article>`` — is kept as ``furniture``, except a footer
that gives contact details (an ``<address>``, a ``tel:``/``mailto:`` link, a phone number or an e-mail
address in its text): readers ask for a body's phone number or address, and the footer is where a page
states them; its own ``<nav>`` stays furniture. Scripts,
styles, templates and hidden elements (``hidden``, ``aria-hidden``, ``display: none``) are dropped.

The encoding comes from a BOM, then ``<meta charset>``, then :func:`parsers.detect.decode_text`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from parsers.detect import decode_text
from parsers.model import Block, Document, Properties
from parsers.tables import Span, make_table, normalize_cell
from parsers.text import normalize_line

_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([\w-]+)""", re.IGNORECASE)
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_LIST_ITEMS = {"li", "dt", "dd"}
_PARAGRAPHS = {"p", "pre", "blockquote", "figcaption", "caption", "address", "summary", "legend"}
_CONTAINERS = {
    "html", "body", "div", "section", "article", "main", "aside", "header", "footer", "nav", "ul", "ol",
    "dl", "form", "fieldset", "figure", "details", "center", "hgroup", "search", "menu", "noscript",
}
_DROPPED = {"script", "style", "template", "head", "svg", "math", "iframe", "object", "canvas"}
_MAX_SPAN = 1000  # colspan/rowspan values above this are treated as typos, not as real spans
#: A phone number as pages write them (02-2100-1234, 1588-1234, +82 2 2100 1234, (555) 123-4567,
#: 042.629.3822) or an e-mail address: what makes a page's footer a statement of contact details.
_CONTACT = re.compile(r"(?<![\w-])(?:\+\d{1,3}[ .-]?)?(?:\(?\d{1,4}\)?[ .-])?\d{3,4}[ .-]\d{4}(?![\w-])"
                      r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_YEARS = re.compile(r"(?:19|20)\d\d[ .-](?:19|20)\d\d")  # "© 2019-2024" is not a phone number


def parse_html(path: Path) -> Document:
    from bs4 import BeautifulSoup

    text = _decode(path.read_bytes())
    soup = BeautifulSoup(text, "html.parser")
    title = normalize_line(soup.title.get_text(" ")) if soup.title else ""
    walker = _Walker()
    try:
        walker.walk(soup.body or soup)
    except RecursionError:  # elements nested deeper than Python's recursion limit (about 1,000)
        blocks = _flat_blocks(text)
        warning = (f"elements nested over {sys.getrecursionlimit():,} deep: read as plain paragraphs "
                   f"(no headings, lists or tables)")
        return Document(str(path), "html", blocks, Properties(title=title), (warning,))
    walker.flush()
    return Document(str(path), "html", tuple(walker.blocks), Properties(title=title))


def _flat_blocks(text: str) -> tuple[Block, ...]:
    """The page's text as paragraphs, without recursion: a new paragraph at every block-level tag,
    dropped and hidden-by-tag elements (``script``, ``style``, …) left out."""
    from html.parser import HTMLParser

    paragraphs: list[str] = []
    current: list[str] = []
    skipping = [0]

    def end_paragraph() -> None:
        line = _lines("".join(current))
        current.clear()
        if line:
            paragraphs.append(line)

    class Flat(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag in _DROPPED:
                skipping[0] += 1
            elif tag == "br":
                current.append("\n")
            elif tag in _CONTAINERS or tag in _HEADINGS or tag in _PARAGRAPHS or tag in _LIST_ITEMS or tag in (
                    "table", "tr", "td", "th", "hr"):
                end_paragraph()

        def handle_endtag(self, tag):
            if tag in _DROPPED:
                skipping[0] = max(0, skipping[0] - 1)
            elif tag in _CONTAINERS or tag in _HEADINGS or tag in _PARAGRAPHS or tag in _LIST_ITEMS:
                end_paragraph()

        def handle_data(self, data):
            if not skipping[0]:
                current.append(data)

    parser = Flat(convert_charrefs=True)
    parser.feed(text)
    parser.close()
    end_paragraph()
    return tuple(Block("paragraph", p) for p in paragraphs)


def _decode(data: bytes) -> str:
    if data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")) or b"\x00" in data[:200]:
        return decode_text(data)
    declared = _CHARSET.search(data[:4096])
    if declared:
        try:
            return data.decode(declared.group(1).decode("ascii"))
        except (LookupError, UnicodeDecodeError):
            pass
    return decode_text(data)


_DISPLAY_NONE = re.compile(r"display\s*:\s*none", re.IGNORECASE)


def _hidden(element: Any) -> bool:
    """Never shown to a reader: ``hidden``, ``aria-hidden``, ``display: none`` (as the inline-XBRL
    header of an SEC filing, hundreds of lines of tags and dates)."""
    attrs = element.attrs or {}
    if "hidden" in attrs or str(attrs.get("aria-hidden", "")).lower() == "true":
        return True
    style = attrs.get("style")
    return bool(style) and _DISPLAY_NONE.search(str(style)) is not None


def _gives_contact(element: Any) -> bool:
    """Whether ``element`` states contact details: an ``<address>``, a ``tel:`` or ``mailto:`` link,
    or a phone number or e-mail address in its text."""
    if element.find("address") is not None:
        return True
    if element.find("a", href=re.compile(r"^\s*(tel|mailto):", re.IGNORECASE)) is not None:
        return True
    return any(not _YEARS.fullmatch(found.group()) for found in _CONTACT.finditer(element.get_text(" ")))


class _Walker:
    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.inline: list[str] = []
        self.furniture_depth = 0

    def flush(self) -> None:
        text = _lines("".join(self.inline))
        self.inline.clear()
        if text:
            self.blocks.append(Block("furniture" if self.furniture_depth else "paragraph", text))

    def walk(self, element: Any) -> None:
        from bs4 import Comment, NavigableString, Tag

        for child in element.children:
            if isinstance(child, Comment):
                continue
            if isinstance(child, NavigableString):
                self.inline.append(str(child))
                continue
            if not isinstance(child, Tag):
                continue
            name = child.name.lower() if child.name else ""
            if name in _DROPPED or _hidden(child):
                continue
            if name == "br":
                self.inline.append("\n")
            elif name in _HEADINGS or name in _LIST_ITEMS or name in _PARAGRAPHS:
                self.flush()
                self._leaf(child, name)
            elif name == "table":
                self.flush()
                self._table(child)
            elif name in _CONTAINERS or name in ("tbody", "thead", "tfoot", "tr", "td", "th"):
                self.flush()
                chrome = name == "nav" or (name in ("header", "footer") and not child.find_parent(["main", "article"])
                                           and not (name == "footer" and _gives_contact(child)))
                self.furniture_depth += chrome
                self.walk(child)
                self.flush()
                self.furniture_depth -= chrome
            elif name == "hr":
                self.flush()
            else:  # inline element: its text joins the running text
                self.walk(child)

    def _leaf(self, element: Any, name: str) -> None:
        # Lists and tables nested inside a list item or paragraph are read as blocks of their own.
        nested = element.find_all(["ul", "ol", "table", "dl"], recursive=True)
        if nested and name in _LIST_ITEMS:
            own = _Walker()
            own.furniture_depth = self.furniture_depth
            own.walk(element)
            own.flush()
            first, rest = (own.blocks[0], own.blocks[1:]) if own.blocks else (None, [])
            if first is not None and first.kind == "paragraph":
                self.blocks.append(Block("list_item", first.text, level=_depth(element)))
            elif first is not None:
                rest = [first, *rest]
            self.blocks.extend(rest)
            return
        text = _lines(_text_with_breaks(element))
        if not text:
            return
        if self.furniture_depth:
            self.blocks.append(Block("furniture", text))
        elif name in _HEADINGS:
            self.blocks.append(Block("heading", text.replace("\n", " "), level=_HEADINGS[name]))
        elif name in _LIST_ITEMS:
            self.blocks.append(Block("list_item", text, level=_depth(element)))
        else:
            self.blocks.append(Block("paragraph", text))

    def _table(self, table: Any) -> None:
        grid: list[list[str | None]] = []
        spans: list[Span] = []
        covered: dict[tuple[int, int], bool] = {}
        header_rows = 0
        counting = True
        rows = [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]
        for r, tr in enumerate(rows):
            row: list[str | None] = []
            c = 0
            cells = tr.find_all(["th", "td"], recursive=False)
            head = tr.find_parent("thead")
            in_head = head is not None and head.find_parent("table") is table
            if counting and cells and (in_head or all(cell.name == "th" for cell in cells)):
                header_rows += 1
            else:
                counting = False
            for cell in cells:
                while covered.get((r, c)):
                    row.append(None)
                    c += 1
                width, height = _span_attr(cell, "colspan"), _span_attr(cell, "rowspan")
                row.append(normalize_cell(cell.get_text(" ")))
                row.extend([None] * (width - 1))
                if width > 1 or height > 1:
                    spans.append(Span(r, c, r + height - 1, c + width - 1))
                for dr in range(1, height):
                    for dc in range(width):
                        covered[(r + dr, c + dc)] = True
                c += width
            while covered.get((r, c)):
                row.append(None)
                c += 1
            grid.append(row)
        parsed = make_table(grid, spans, header_rows=header_rows or None)
        if parsed is None:
            return
        kind = "furniture" if self.furniture_depth else "table"
        self.blocks.append(Block(kind, parsed.render(), table=parsed if kind == "table" else None))
        caption = table.find("caption")
        if caption is not None and caption.find_parent("table") is table:
            text = normalize_line(caption.get_text(" "))
            if text:
                self.blocks.insert(len(self.blocks) - 1, Block("paragraph", text))


def table_from_html(html: str) -> Block | None:
    """The first ``<table>`` in an HTML fragment as a table block (used for unstructured's tables)."""
    from bs4 import BeautifulSoup

    table = BeautifulSoup(html, "html.parser").find("table")
    if table is None:
        return None
    walker = _Walker()
    walker._table(table)
    return next((b for b in walker.blocks if b.kind == "table"), None)


def _span_attr(cell: Any, name: str) -> int:
    try:
        value = int(str(cell.get(name, "1")).strip() or "1")
    except ValueError:
        return 1
    return min(max(value, 1), _MAX_SPAN)


def _depth(element: Any) -> int:
    """Nesting level of a list item: 0 for an item of a top-level list."""
    return max(len(element.find_parents(["ul", "ol", "dl"])) - 1, 0)


def _text_with_breaks(element: Any) -> str:
    from bs4 import Comment, NavigableString, Tag

    parts: list[str] = []
    for node in element.descendants:
        if isinstance(node, Comment):
            continue
        if isinstance(node, NavigableString):
            if not any(p.name in _DROPPED for p in node.parents if isinstance(p, Tag) and p is not element):
                parts.append(str(node))
        elif isinstance(node, Tag) and node.name in ("br", "p", "div", "li", "tr"):
            parts.append("\n")
    return "".join(parts)


def _lines(text: str) -> str:
    lines = (normalize_line(line) for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return "\n".join(line for line in lines if line)
