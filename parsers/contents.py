"""A table of contents typed into a Word document without Word's marks, read as list items.

Under a paragraph or heading that reads as a contents title ("Contents", "목차", …), the run of short
lines that end in page numbers (:func:`contents_as_entries`) are entries, not headings: read as
headings they would open empty sections. Word's own contents (a TOC field, the ``TOC 1``-``TOC 9``
styles) are recognised where the body is read (:mod:`parsers.docx`).
"""

from __future__ import annotations

import re

from parsers.model import Block

#: The title over a table of contents typed without Word's marks.
_TOC_TITLE = re.compile(
    r"^(?:table\s+of\s+contents|contents|목\s*차|차\s*례|目\s*次|目\s*录|inhalt|inhaltsverzeichnis"
    r"|table\s+des\s+matières|sommaire|índice|indice|sommario|содержание|оглавление)\s*:?$",
    re.IGNORECASE,
)


#: A TOC entry's page number at the end of its line: "3", "3-12" (chapter-page), "xi". It is often
#: fused to the title ("PURPOSE1-1") when the tab before it was lost in an export, and then where
#: the title's figures end and the page's begin is read from the order of the pages (see _page_after).
_ENTRY_PAGE = re.compile(r"(\d{1,4})(?:[-–](\d{1,4}))?$|(?<=\s)[ivxlc]{1,7}$")


#: A line of a TOC without a page number (a chapter title, the first half of a wrapped entry) is
#: short and is not a sentence.
_ENTRY_LINE = 120


_SENTENCE_END = re.compile(r"[.!?。:;]$")


#: Lines without a page number in a row after which a hand-made TOC is over.
_ENTRY_GAP = 4


#: Entries with a page number a hand-made TOC needs before it is taken for one.
_MIN_ENTRIES = 3


def contents_as_entries(blocks: list[Block]) -> list[Block]:
    """A table of contents typed without Word's marks, as list items: below a paragraph or heading
    that reads as a TOC's title, the run of short lines of which at least three end in a page number,
    up to its last such line (a heading, a table, a sentence or a long gap ends the run). A page
    number fused to the title's last word gets a space before it, as the lost tab would have
    rendered: "PURPOSE1-1" is not a word a search finds "purpose" in."""
    out = list(blocks)
    index = 0
    while index < len(out):
        block = out[index]
        index += 1
        if block.kind not in ("paragraph", "heading") or not _TOC_TITLE.match(block.text):
            continue
        last = None
        last_page: tuple[int, ...] = ()
        fused: dict[int, int] = {}  # entry -> where its page number starts, fused to its title
        entries = gap = 0
        position = index
        while position < len(out) and gap < _ENTRY_GAP:
            entry = out[position]
            if entry.kind not in ("paragraph", "list_item") or "\n" in entry.text:
                break
            page = _page_after(entry.text, last_page)
            if page is not None:
                last, last_page, entries, gap = position, page[0], entries + 1, 0
                if page[1] is not None:
                    fused[position] = page[1]
            elif len(entry.text) <= _ENTRY_LINE and not _SENTENCE_END.search(entry.text):
                gap += 1
            else:
                break
            position += 1
        if last is None or entries < _MIN_ENTRIES:
            continue
        for position in range(index, last + 1):
            entry = out[position]
            if entry.kind != "list_item":
                text = entry.text
                if position in fused:
                    text = f"{text[:fused[position]]} {text[fused[position]:]}"
                out[position] = Block("list_item", text, entry.locator)
        index = last + 1
    return out


def _page_after(line: str, last: tuple[int, ...]) -> tuple[tuple[int, ...], int | None] | None:
    """The page number ``line`` ends in, if it is one that can follow page ``last`` (pages of a TOC
    do not go back), and where a separator goes when the number is fused to the title's last word
    ("PURPOSE1-1": the tab before it was lost). After a space the number may have taken figures of
    the title ("ELIGIBILITY FOR CHAPTER 133-4" is page 3-4): the smallest reading that follows
    ``last`` is taken. A lower-case roman page (front matter) keeps the order where it is.
    ``None``: no page number ("CHAPTER 1" after page 7-4 is not one)."""
    match = _ENTRY_PAGE.search(line)
    if match is None:
        return None
    if match.group(1) is None:
        return last, None
    figures, after = match.group(1), match.group(2)
    begin = match.start(1)
    if begin and not line[begin - 1].isspace() and not line[begin - 1].isdigit():
        page = (int(figures), int(after)) if after else (int(figures),)
        return (page, begin) if page >= last else None
    for start in range(len(figures) - 1, -1, -1):
        if start and figures[start] == "0":
            continue  # "10" is not page "0"
        page = (int(figures[start:]), int(after)) if after else (int(figures[start:]),)
        if page >= last:
            return page, None
    return None
