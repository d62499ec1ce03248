"""Plain text, Markdown and the text-normalisation helpers other parsers share."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt

from parsers.detect import read_text
from parsers.model import Block, Document
from parsers.tables import make_table

_SPACES = re.compile(r"[ \t\u00a0\u3000\f\v]+")
_BLANK_LINES = re.compile(r"\n\s*\n")
#: A MediaWiki heading, ``= Title =`` to ``====== Title ======``, also in the spaced form of
#: tokenised wiki dumps (``= = Plot = =``): as many ``=`` after the title as before it.
_WIKI_HEADING = re.compile(r"^\s*((?:=\s*){1,6})([^=\s](?:[^=]*[^=\s])?)\s*((?:=\s*){1,6})$")
_MD_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f\u200b\ufeff]")  # \v (a soft line break in Office files) is a space


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


def wiki_heading(line: str) -> Block | None:
    """A MediaWiki heading line as a heading block (level = the number of ``=``), else None."""
    match = _WIKI_HEADING.match(line)
    if not match:
        return None
    level = match.group(1).count("=")
    if level != match.group(3).count("="):
        return None
    return Block("heading", normalize_line(match.group(2)), level=level)


def text_blocks(text: str) -> list[Block]:
    """Plain text to blocks: paragraphs split at blank lines; a MediaWiki heading line
    (``= Title =``, ``== Section ==``) is a heading of its own even without a blank line after it."""
    blocks: list[Block] = []
    for paragraph in paragraphs(text):
        lines: list[str] = []
        for line in paragraph.split("\n"):
            heading = wiki_heading(line) if line.startswith("=") else None
            if heading is None:
                lines.append(line)
                continue
            if lines:
                blocks.append(Block("paragraph", "\n".join(lines)))
                lines = []
            blocks.append(heading)
        if lines:
            blocks.append(Block("paragraph", "\n".join(lines)))
    return blocks


def parse_txt(path: Path) -> Document:
    return Document(str(path), "txt", tuple(text_blocks(read_text(path))))


def parse_markdown(path: Path) -> Document:
    return Document(str(path), "md", tuple(markdown_blocks(read_text(path))))


@cache
def _markdown() -> MarkdownIt:
    """CommonMark's block structure with GFM tables. Rules that would drop or regroup text that seams
    keeps as written are off: link reference definitions (markdown-it consumes them), block quotes
    and HTML blocks (their lines stay paragraph text, ``>`` and tags included) and indented code (a
    paragraph like any other)."""
    return MarkdownIt("commonmark", {"html": False}).enable("table").disable(
        ["reference", "blockquote", "html_block", "code"])


def markdown_blocks(text: str) -> list[Block]:
    """Markdown to blocks, on markdown-it-py's block structure: ATX and setext headings, pipe tables,
    list items (one block each, with their nesting level), fenced code and paragraphs. A block's text
    is its source lines, normalised: markers stay in the text (``- item``, ``1. step``) so the section
    grammar still sees them; heading ``#`` marks do not. Beyond CommonMark: YAML front matter is a
    paragraph, MediaWiki heading lines (``== Section ==``) are headings, and rows of cells between
    pipes without a ``---`` rule are a table (:func:`_bare_pipe_rows`)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[Block] = []
    start = 0
    if lines and lines[0].strip() == "---":  # YAML front matter: kept as a paragraph, never a heading
        end = next((n for n in range(1, min(len(lines), 200)) if lines[n].strip() in ("---", "...")), None)
        if end is not None:
            _paragraph(lines[1:end], blocks)
            start = end + 1
    body = lines[start:]
    tokens = _markdown().parse("\n".join(body))
    depth = -1  # nesting of the open lists
    own_text: list[int] = []  # per open list item: the line where the item's own text ends (-1: none)
    skip_to = 0  # the lines before it were taken as a table of bare pipe rows
    for index, token in enumerate(tokens):
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif kind in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif kind == "list_item_close":
            own_text.pop()
        if token.map is None or token.map[0] < skip_to:
            if kind == "list_item_open":
                own_text.append(-1)
            continue
        first = token.map[0]
        if kind in ("paragraph_open", "bullet_list_open", "ordered_list_open") and (rows := _bare_pipe_rows(body, first)):
            # A whole paragraph of rows of cells (also one that reads as a list: `- | 2018 | 2017`).
            table = make_table([_md_cells(row) for row in body[first:first + rows]], header_rows=1)
            if table is not None:
                blocks.append(Block("table", table.render(), table=table))
            skip_to = first + rows
        elif kind == "list_item_open":
            # The item's own text: its first paragraph, marker included; what follows (more
            # paragraphs, a nested list) comes as blocks of its own.
            inner = tokens[index + 1]
            if inner.type == "paragraph_open":
                end = inner.map[1]
            else:  # an item that opens with a fence or a list (those lines are theirs), or an empty one
                end = inner.map[0] if inner.map else token.map[1]
            own_text.append(end)
            _paragraph(body[first:end], blocks, item_level=depth)
        elif kind == "heading_open":
            title = normalize_line(" ".join(tokens[index + 1].content.split("\n")))
            if title:
                blocks.append(Block("heading", title, level=int(token.tag[1:])))
        elif kind == "paragraph_open" and not (own_text and own_text[-1] == token.map[1]):
            _paragraph(body[first:token.map[1]], blocks)
        elif kind == "fence":
            _paragraph(body[first:token.map[1]], blocks, code=True)
        elif kind == "table_open":
            rows = [_md_cells(line) for n, line in enumerate(body[first:token.map[1]]) if n != 1 and line.strip()]
            table = make_table(rows, header_rows=1)
            if table is not None:
                blocks.append(Block("table", table.render(), table=table))
    return blocks


def _paragraph(lines: list[str], blocks: list[Block], code: bool = False, item_level: int | None = None) -> None:
    """A paragraph's lines (or a list item's, at ``item_level``) as blocks: outside code, a MediaWiki
    heading line is a heading of its own, and the lines after it a paragraph."""
    part: list[str] = []
    for line in lines:
        heading = wiki_heading(line) if not code and line.lstrip().startswith("=") else None
        if heading is None:
            part.append(line)
            continue
        _text_block(part, blocks, item_level)
        item_level, part = None, []
        blocks.append(heading)
    _text_block(part, blocks, item_level)


def _text_block(lines: list[str], blocks: list[Block], item_level: int | None) -> None:
    if joined := normalize_text("\n".join(lines)):
        blocks.append(Block("paragraph", joined) if item_level is None else Block("list_item", joined, level=item_level))


#: Rows a pipe table without a rule line needs (its first row taken as the header) to count as one.
BARE_PIPE_ROWS = 3


def _bare_pipe_rows(lines: list[str], start: int) -> int:
    """How many lines from ``start`` form a pipe table that has no ``---`` rule line (text exported
    from a table, ``a | b | c`` a row): a whole paragraph of at least :data:`BARE_PIPE_ROWS` lines,
    each with the same number (two or more) of cells. 0 if the lines are not one."""
    end = start
    while end < len(lines) and lines[end].strip() and "|" in lines[end]:
        end += 1
    if end - start < BARE_PIPE_ROWS or (end < len(lines) and lines[end].strip()):
        return 0
    widths = {len(_md_cells(line)) for line in lines[start:end]}
    return end - start if len(widths) == 1 and widths.pop() >= 2 else 0


def _md_cells(line: str) -> tuple[str, ...]:
    stripped = line.strip()
    if stripped.startswith("|"):
        stripped = stripped[1:]
    if stripped.endswith("|") and not stripped.endswith("\\|"):
        stripped = stripped[:-1]
    return tuple(normalize_line(cell.replace("\\|", "|")) for cell in _MD_CELL_SPLIT.split(stripped))


# -- the numbers that outline labels are drawn with (Word and Hangul numbering alike) -----------------

#: Hangul syllables, jamo and circled digits in the order numbering counts with them.
GANADA = "가나다라마바사아자차카타파하"
HANGUL_JAMO = "ㄱㄴㄷㄹㅁㅂㅅㅇㅈㅊㅋㅌㅍㅎ"
CIRCLED_DIGITS = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"


def roman_numeral(n: int) -> str:
    """``n`` in upper-case Roman numerals (4 -> ``IV``)."""
    out = []
    for value, numeral in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
                           (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        count, n = divmod(n, value)
        out.append(numeral * count)
    return "".join(out)


# -- Hangul's paragraph numbering (HWP 5 and HWPX share the model) ------------------------------------

_KOREAN_DIGITS = "일이삼사오육칠팔구십"
_IDEOGRAPHS = "一二三四五六七八九十"
_CIRCLED_GANADA = "㉮㉯㉰㉱㉲㉳㉴㉵㉶㉷㉸㉹㉺㉻"
_CIRCLED_JAMO = "㉠㉡㉢㉣㉤㉥㉦㉧㉨㉩㉪㉫㉬㉭"
_HEAVENLY_STEMS = "갑을병정무기경신임계"
_HEAVENLY_STEMS_HANJA = "甲乙丙丁戊己庚辛壬癸"
_CYCLES = {"HANGUL_SYLLABLE": GANADA, "HANGUL_JAMO": HANGUL_JAMO, "CIRCLED_HANGUL_SYLLABLE": _CIRCLED_GANADA,
           "CIRCLED_HANGUL_JAMO": _CIRCLED_JAMO, "HANGUL_PHONETIC": _KOREAN_DIGITS, "IDEOGRAPH": _IDEOGRAPHS,
           "CIRCLED_IDEOGRAPH": _IDEOGRAPHS, "DECAGON_CIRCLE": _HEAVENLY_STEMS,
           "DECAGON_CIRCLE_HANJA": _HEAVENLY_STEMS_HANJA}


def format_hangul_number(n: int, fmt: str) -> str:
    """``n`` in one of OWPML's number formats (``DIGIT``, ``HANGUL_SYLLABLE``, ``ROMAN_CAPITAL``…)."""
    if fmt in ("ROMAN_CAPITAL", "ROMAN_SMALL"):
        roman = roman_numeral(n)
        return roman if fmt == "ROMAN_CAPITAL" else roman.lower()
    if fmt in ("LATIN_CAPITAL", "LATIN_SMALL", "CIRCLED_LATIN_CAPITAL", "CIRCLED_LATIN_SMALL"):
        first = {"LATIN_CAPITAL": "A", "LATIN_SMALL": "a", "CIRCLED_LATIN_CAPITAL": "Ⓐ",
                 "CIRCLED_LATIN_SMALL": "ⓐ"}[fmt]
        return chr(ord(first) + (n - 1) % 26)
    if fmt == "CIRCLED_DIGIT":
        return CIRCLED_DIGITS[n - 1] if 1 <= n <= len(CIRCLED_DIGITS) else f"({n})"
    if fmt in _CYCLES and n >= 1:
        return _CYCLES[fmt][(n - 1) % len(_CYCLES[fmt])]
    return str(n)


#: One numbering definition: 1-based level -> (start number, number format, label template such as
#: ``^1.`` or ``(^2)``, where ``^N`` stands for level N's number).
NumberingLevels = dict[int, tuple[int, str, str]]


class HangulNumbering:
    """The labels Hangul draws before outline and numbered paragraphs, which the file does not hold
    as text: each numbering definition keeps a counter per level, a paragraph at a level advances
    that level's counter and resets the deeper ones. The section grammar needs the label
    (``1.``, ``가.``), so the HWP and HWPX parsers put it in front of the paragraph's text."""

    def __init__(self, numberings: dict[str, NumberingLevels]) -> None:
        self.numberings = numberings
        self.counters: dict[str, list[int]] = {}

    def label(self, numbering: str, level: int) -> str | None:
        """The label of the next paragraph at 0-based ``level`` of ``numbering`` (None if undefined)."""
        levels = self.numberings.get(numbering)
        if not levels or level + 1 not in levels:
            return None
        counters = self.counters.setdefault(numbering, [0] * 11)
        if level + 1 >= len(counters):
            return None
        counters[level + 1] = max(counters[level + 1] + 1, levels[level + 1][0])
        for deeper in range(level + 2, len(counters)):
            counters[deeper] = 0

        def value(match: re.Match[str]) -> str:
            n = int(match.group(1))
            fmt = levels[n][1] if n in levels else "DIGIT"
            count = counters[n] if 0 < n < len(counters) and counters[n] else (levels[n][0] if n in levels else 1)
            return format_hangul_number(count, fmt)

        text = re.sub(r"\^(10|[1-9])", value, levels[level + 1][2]).strip()
        return text or None


def bullet_label(char: str) -> str:
    """A bullet character as text: a symbol-font glyph (private use area) becomes ``•``."""
    char = char.strip()
    if not char or any("\ue000" <= ch <= "\uf8ff" or ch >= "\U000f0000" for ch in char):
        return "•"
    return char
