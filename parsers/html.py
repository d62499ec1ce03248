"""HTML with BeautifulSoup: headings h1-h6, paragraphs, list items and tables in document order."""

from __future__ import annotations

import re
from pathlib import Path

from parsers.detect import decode_text
from parsers.model import Block, Document, Properties, Table
from parsers.text import normalize_line

_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([\w-]+)""", re.IGNORECASE)
_BLOCK_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "table", "pre", "blockquote", "dt", "dd")


def parse_html(path: Path) -> Document:
    from bs4 import BeautifulSoup

    data = path.read_bytes()
    declared = _CHARSET.search(data[:4096])
    text = None
    if declared:
        try:
            text = data.decode(declared.group(1).decode("ascii"))
        except (LookupError, UnicodeDecodeError):
            text = None
    if text is None:
        text = decode_text(data)
    soup = BeautifulSoup(text, "html.parser")
    for tag in soup(["script", "style", "noscript", "template"]):
        tag.decompose()
    title = normalize_line(soup.title.get_text(" ")) if soup.title else ""
    blocks: list[Block] = []
    body = soup.body or soup
    for element in body.find_all(_BLOCK_TAGS):
        # Nested block tags (a <p> inside an <li>, a table inside a table) are read by their parent.
        if element.find_parent(_BLOCK_TAGS) is not None:
            continue
        name = element.name
        if name == "table":
            rows = []
            for tr in element.find_all("tr"):
                cells = tuple(normalize_line(c.get_text(" ")) for c in tr.find_all(["th", "td"]))
                if any(cells):
                    rows.append(cells)
            if rows:
                width = max(len(r) for r in rows)
                table = Table(tuple(r + ("",) * (width - len(r)) for r in rows), header_rows=1)
                blocks.append(Block("table", table.render(), table=table))
            continue
        content = normalize_line(element.get_text(" "))
        if not content:
            continue
        if name[0] == "h" and name[1:].isdigit():
            blocks.append(Block("heading", content, level=int(name[1])))
        elif name in ("li", "dt", "dd"):
            blocks.append(Block("list_item", content))
        else:
            blocks.append(Block("paragraph", content))
    if not blocks:
        loose = normalize_line(body.get_text(" "))
        if loose:
            blocks.append(Block("paragraph", loose))
    return Document(str(path), "html", tuple(blocks), Properties(title=title))
