"""Plain text, Markdown and the text-normalisation helpers other parsers share."""

from __future__ import annotations

import re
from pathlib import Path

from parsers.detect import read_text
from parsers.model import Block, Document, Table

_SPACES = re.compile(r"[ \t\u00a0\u3000\f\v]+")
_BLANK_LINES = re.compile(r"\n\s*\n")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_MD_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_MD_LIST = re.compile(r"^\s*([-*+]|\d+[.)])\s+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f\u200b\ufeff]")


def normalize_line(line: str) -> str:
    """Collapse runs of spaces, drop control characters, strip the ends."""
    return _SPACES.sub(" ", _CONTROL.sub("", line)).strip()


def normalize_text(text: str) -> str:
    """Normalise every line and drop blank lines (paragraph breaks are the caller's business)."""
    lines = (normalize_line(line) for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return "\n".join(line for line in lines if line)


def paragraphs(text: str) -> list[str]:
    """Split text at blank lines into normalised paragraphs."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [p for p in (normalize_text(chunk) for chunk in _BLANK_LINES.split(text)) if p]


def parse_txt(path: Path) -> Document:
    blocks = tuple(Block("paragraph", p) for p in paragraphs(read_text(path)))
    return Document(str(path), "txt", blocks)


def parse_markdown(path: Path) -> Document:
    return Document(str(path), "md", tuple(markdown_blocks(read_text(path))))


def markdown_blocks(text: str) -> list[Block]:
    """Markdown to blocks: ATX headings, pipe tables, list items, paragraphs."""
    blocks: list[Block] = []
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    buffer: list[str] = []
    in_fence = False

    def flush() -> None:
        joined = normalize_text("\n".join(buffer))
        if joined:
            kind = "list_item" if all(_MD_LIST.match(x) for x in joined.split("\n")) else "paragraph"
            blocks.append(Block(kind, joined))
        buffer.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            buffer.append(line)
            i += 1
            continue
        if in_fence:
            buffer.append(line)
            i += 1
            continue
        heading = _MD_HEADING.match(line)
        if heading:
            flush()
            blocks.append(Block("heading", normalize_line(heading.group(2)), level=len(heading.group(1))))
            i += 1
            continue
        if "|" in line and i + 1 < len(lines) and _MD_TABLE_RULE.match(lines[i + 1]):
            flush()
            rows = [_md_cells(line)]
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                rows.append(_md_cells(lines[i]))
                i += 1
            table = Table(tuple(rows), header_rows=1)
            blocks.append(Block("table", table.render(), table=table))
            continue
        if not line.strip():
            flush()
        else:
            buffer.append(line)
        i += 1
    flush()
    return blocks


def _md_cells(line: str) -> tuple[str, ...]:
    stripped = line.strip()
    if stripped.startswith("|"):
        stripped = stripped[1:]
    if stripped.endswith("|"):
        stripped = stripped[:-1]
    return tuple(normalize_line(cell) for cell in stripped.split("|"))
