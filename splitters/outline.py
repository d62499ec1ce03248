"""A document's outline: its headers, the heading path in force anywhere, and which headers must
stay with what follows them.

Two facts about each header drive every strategy and the budget step:

- it *folds* when nothing but a deeper header follows it (a chapter title right before its first
  article): it has no body of its own, so it opens the section that follows;
- it *glues* when body text or a deeper header follows it: a cut right after it would leave the
  header at the end of one chunk and its body in the next. A header followed directly by a sibling
  or a shallower header (a one-line ``- item``) is content on its own and does not glue.

Furniture (running headers, page numbers) is neither body nor header: it is skipped when looking
for what follows a header or how a chunk ends.

The heading path of a span is the longest common prefix of the paths of the content it holds. A
folding header that is a bare title ("제2장 총칙", "□ 추진 배경") is not content: its path is a prefix
of what it folds into, and leaving it out gives the chunk "제2장 총칙 / 제3조(목적) …" the path
``제2장 총칙 > 제3조(목적)``. A folding header that carries text ("제3조(수집) ① 기관은 …" before ②, a
"○" sentence before its "-" details) is content. So a chunk that is one section carries that
section's path, and a chunk that merged two sibling sections carries their parent's.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from classifiers.headings import Heading, find_headings
from classifiers.markers import (
    LEAD_IN_WRAP,
    ends_sentence,
    is_lead_in,
    is_title,
    is_title_line,
    titles_its_sublist,
)
from parsers.model import Document

HeadingPath = tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Outline:
    """A document's headers and what follows from them, built once (:meth:`build`) and then read
    by bisection: each question about a span costs a logarithm, not a scan of the document."""

    headings: tuple[Heading, ...]
    offsets: tuple[int, ...]  # headings[i].offset, for bisection
    paths: tuple[HeadingPath, ...]  # the heading path in force from headings[i] on
    folds: tuple[bool, ...]
    hidden: tuple[bool, ...]  # folding bare titles: left out of heading-path prefixes
    glue_ends: dict[int, int]  # header line end -> header line start, for headers that glue
    block_starts: tuple[int, ...]
    furniture: tuple[bool, ...]  # per block
    text: str
    # Per block, the slide it is on (empty for documents without slides): a header's path ends
    # with its slide, so an untitled slide does not carry the title of the slide before it.
    scopes: tuple[int | None, ...] = ()
    # Per header: a bare annex label right before the next one (an annex deleted but for its label)
    # or before the title the file declares for its annex ("[별표 4]" over the annex's title set in
    # large type, which ranks above the label). It opens the section that follows, as part of its
    # header, and is left out of heading paths like a folding title. (Other bare titles stay where
    # they are: two titles set side by side read one after the other.)
    leads: tuple[bool, ...] = ()
    # Title lines no header grammar knows (:func:`_title_lines`): end -> start. One right before a
    # header opens that header's section (a task's title box over its ○ items).
    titles: Mapping[int, int] = field(default_factory=dict)

    @classmethod
    def build(cls, doc: Document) -> Outline:
        headings = tuple(find_headings(doc))
        text = doc.text
        block_starts = tuple(start for start, _ in doc.spans)
        furniture = tuple(block.kind == "furniture" for block in doc.blocks)
        paths: list[HeadingPath] = []
        stack: list[int] = []
        for index, heading in enumerate(headings):
            while stack and headings[stack[-1]].level >= heading.level:
                stack.pop()
            stack.append(index)
            paths.append(tuple(headings[i].text for i in stack))
        folds: list[bool] = []
        leads: list[bool] = []
        glue_ends: dict[int, int] = {}
        for index, heading in enumerate(headings):
            following = headings[index + 1] if index + 1 < len(headings) else None
            body = _has_content(text, block_starts, furniture, heading.end,
                                following.offset if following else len(text))
            fold = not body and following is not None and following.level > heading.level
            folds.append(fold)
            if body or fold:
                glue_ends[heading.end] = heading.offset
            lead = False
            if following is not None and heading.family == "attachment" and not (index and folds[index - 1]) \
                    and (following.level == heading.level or following.family == "declared"):
                end = header_end(text, heading)
                lead = _is_label(text, heading, end) and not _has_content(text, block_starts, furniture, end,
                                                                          following.offset)
                if lead:
                    glue_ends[end] = heading.offset
            leads.append(lead)
        # A lead-in line ("다음 각 호의 경우는 제외한다:") glues to the list it introduces — from the
        # end of its sentence, when that wraps on over a line or two ("…다음 각 호의 어느 하나에" /
        # "해당하는 경우에는 면직된다.").
        for block, (b_start, _) in zip(doc.blocks, doc.spans, strict=True):
            if block.kind in ("paragraph", "list_item"):
                lines = list(_LINE.finditer(block.text))
                for number, match in enumerate(lines):
                    if is_lead_in(match.group()):
                        glue_ends.setdefault(b_start + match.end(), b_start + match.start())
                        if ends_sentence(match.group()):
                            continue
                        for wrapped in lines[number + 1:number + 1 + LEAD_IN_WRAP]:
                            if is_lead_in(wrapped.group()) or ends_sentence(wrapped.group()):
                                glue_ends.setdefault(b_start + wrapped.end(), b_start + match.start())
                                break
        titles = _title_lines(doc)
        # A title box (a one-row table) only opens the section after it (see titles): glued, a box
        # that does not fit with what follows would be cut at a word, inside its row.
        boxes = {b_start + len(block.text.rstrip()) for block, (b_start, _) in zip(doc.blocks, doc.spans, strict=True)
                 if block.kind == "table"}
        for title_end, title_start in titles.items():
            if title_end not in boxes:
                glue_ends.setdefault(title_end, title_start)
        hidden = tuple((fold and heading.title) or lead
                       for fold, lead, heading in zip(folds, leads, headings, strict=True))
        slides = tuple(block.locator.slide for block in doc.blocks)
        scopes = slides if any(slide is not None for slide in slides) else ()
        return cls(headings, tuple(h.offset for h in headings), tuple(paths), tuple(folds),
                   hidden, glue_ends, block_starts, furniture, text, scopes, tuple(leads), titles)

    def _in_scope(self, heading: int, position: int) -> bool:
        """Whether the header ``heading`` still applies at ``position`` (same slide, if any)."""
        if not self.scopes:
            return True
        here = self.scopes[max(bisect.bisect_right(self.block_starts, position) - 1, 0)]
        there = self.scopes[max(bisect.bisect_right(self.block_starts, self.offsets[heading]) - 1, 0)]
        return here == there

    # ------------------------------------------------------------------------------ content

    def has_content(self, start: int, end: int) -> bool:
        """Whether ``text[start:end]`` holds anything but whitespace and furniture."""
        return _has_content(self.text, self.block_starts, self.furniture, start, end)

    def content_end(self, start: int, end: int) -> int:
        """Where the content of ``text[start:end]`` ends, before trailing whitespace and furniture."""
        while end > start:
            while end > start and self.text[end - 1].isspace():
                end -= 1
            if end <= start:
                break
            block = bisect.bisect_right(self.block_starts, end - 1) - 1
            if block < 0 or not self.furniture[block]:
                break
            end = max(self.block_starts[block], start)
        return end

    # ------------------------------------------------------------------------------ paths

    def path_at(self, position: int) -> HeadingPath:
        index = bisect.bisect_right(self.offsets, position) - 1
        return self.paths[index] if index >= 0 and self._in_scope(index, position) else ()

    def path_of(self, start: int, end: int) -> HeadingPath:
        """The heading path of ``text[start:end]``: the common prefix of its content's paths."""
        if not self.headings:
            return ()
        first = bisect.bisect_right(self.offsets, start)  # headings strictly inside the span start here
        last = bisect.bisect_left(self.offsets, end)
        paths: list[HeadingPath] = []
        opening = first - 1
        if opening >= 0 and start < self.headings[opening].end:  # the span opens on (part of) a header line
            if not self.hidden[opening]:
                paths.append(self.paths[opening])
        else:
            stop = self.offsets[first] if first < len(self.offsets) else end
            if self.has_content(start, min(stop, end)):
                paths.append(self.path_at(start))
        paths.extend(self.paths[i] for i in range(first, last) if not self.hidden[i])
        if not paths:  # only folding titles (or furniture): the deepest path in the span
            return self.path_at(max(start, end - 1))
        common = paths[0]
        for path in paths[1:]:
            common = common_prefix(common, path)
            if not common:
                break
        return common

    # ------------------------------------------------------------------------------ glue

    def glued_start(self, start: int, end: int) -> int | None:
        """If ``text[start:end]`` ends with headers that glue to what follows, where the first of them
        starts (the span should end before it); ``None`` if it ends with content of its own."""
        cut = None
        content_end = self.content_end(start, end)
        while content_end > start:
            header_start = self.glue_ends.get(content_end)
            if header_start is None or header_start < start:
                break
            cut = header_start
            content_end = self.content_end(start, cut)
        return cut

    def after_bare_titles(self, start: int) -> int:
        """Where the text after the bare titles that open ``text[start:]`` begins ("제2장 총칙" right
        before "제5조(목적) …" has no body of its own: it only opens what follows)."""
        position = start
        while True:
            while position < len(self.text) and self.text[position].isspace():
                position += 1
            index = bisect.bisect_left(self.offsets, position)
            if index >= len(self.offsets) or self.offsets[index] != position or not self.folds[index]:
                return position
            position = self.headings[index].end


_OPENING, _CLOSING = "(<[‹〈「『【", ")>]›〉」』】"
_LINE = re.compile(r"[^\n]*\S")


#: "Related Keywords: …", "Definition: …": a label that opens three or more lines is a field name.
_FIELD = re.compile(r"^([^:：\n]{1,40})[:：]\s")
_FIELD_LINES = 3
_TITLE_RUN = 2  # a chapter divider's "CHAPTER 5" / "ADDITIONAL RESPONSIBILITIES"
_TITLE_BOX = 150  # characters of a one-row table that titles what follows it


def _title_lines(doc: Document) -> dict[int, int]:
    """End -> start of the title lines no header grammar knows (a run-in heading, a caption, a
    chapter divider's lines, a glossary's term), which glue to what follows them: a cut right after
    one would leave it at the end of a chunk, cut off from what it names.

    A title line is one of:

    - a paragraph block of one line (:func:`is_title_line`) with a block after it, at most two in a
      row (more are a list: abbreviations, names);
    - a line inside a block after a finished sentence and before a line that does not go on in
      lower case (a PDF's "…affected operators." / "Authority for This Rulemaking" / "Title 49 …");
    - a short table of one row: a title set in a box, as Korean plans title each task.

    A line that opens with a field name the document repeats ("Related Keywords: Search, Retrieval")
    is a field of a record, not a title."""
    paragraphs = [(index, block, b_start) for index, (block, (b_start, _)) in enumerate(zip(doc.blocks, doc.spans, strict=True))
                  if block.kind == "paragraph"]
    labels = Counter(m.group(1).strip() for _, block, _ in paragraphs for line in block.text.split("\n")
                     if (m := _FIELD.match(line.strip())))

    def is_title(line: str) -> bool:
        field = _FIELD.match(line)
        return is_title_line(line) and not (field and labels[field.group(1).strip()] >= _FIELD_LINES)

    titles: dict[int, int] = {}
    for index, (block, (b_start, _)) in enumerate(zip(doc.blocks, doc.spans, strict=True)):
        # A title set in a box: a table of one row ("스마트폰을 통한 전자증명서 발급 (20년말 100종) |
        # 행안부", "참고 2 | 주요 과제별 추진일정") over the ○ items or the table it names.
        if block.kind == "table" and block.table is not None and len(block.table.rows) == 1 \
                and index + 1 < len(doc.blocks) and len(block.text.strip()) <= _TITLE_BOX:
            titles[b_start + len(block.text.rstrip())] = b_start + len(block.text) - len(block.text.lstrip())
    # A numbered item that titles the sub-list after it ("5. 제안서 제출" over "가. 제안서 10부 …").
    blocks = [(block, b_start) for block, (b_start, _) in zip(doc.blocks, doc.spans, strict=True)
              if block.kind != "furniture"]
    for (block, b_start), (following, _) in itertools.pairwise(blocks):
        if block.kind in ("paragraph", "list_item") and following.kind in ("paragraph", "list_item") \
                and "\n" not in block.text.strip() and titles_its_sublist(block.text, following.text.split("\n", 1)[0]):
            titles[b_start + len(block.text.rstrip())] = b_start + len(block.text) - len(block.text.lstrip())
    whole = {index for index, block, _ in paragraphs if index + 1 < len(doc.blocks) and is_title(block.text.strip())}
    for index, block, b_start in paragraphs:
        last = index + 1 == len(doc.blocks)
        if index in whole:
            run = 1 + sum(1 for _ in itertools.takewhile(whole.__contains__, itertools.count(index + 1))) \
                + sum(1 for _ in itertools.takewhile(whole.__contains__, itertools.count(index - 1, -1)))
            if run <= _TITLE_RUN:  # three or more in a row are a list (abbreviations, names), not titles
                titles[b_start + len(block.text.rstrip())] = b_start + len(block.text) - len(block.text.lstrip())
        elif "\n" in block.text:
            lines = list(_LINE.finditer(block.text))
            for before, line, after in zip(lines[:-1], lines[1:], [*lines[2:], None], strict=True):
                text = line.group().strip()
                if (after is not None or not last) and ends_sentence(before.group()) and is_title(text) \
                        and not (after and after.group().lstrip()[:1].islower()):
                    titles[b_start + line.end()] = b_start + line.end() - len(text)
    return titles


def header_end(text: str, heading: Heading) -> int:
    """Where a header line ends, with the next line when it closes a bracket the header left open
    (an amendment note wrapped in two: "[별표 1] <개정 2021.12.28., 2022. 5. 27." + "2023.3.13.>")."""
    line = text[heading.offset:heading.end]
    if sum(map(line.count, _OPENING)) <= sum(map(line.count, _CLOSING)):
        return heading.end
    newline = text.find("\n", heading.end)
    if newline < 0:
        return heading.end
    stop = text.find("\n", newline + 1)
    following = text[newline + 1:stop if stop >= 0 else len(text)].rstrip()
    if following.strip() and len(following) <= 80 and following[-1:] in _CLOSING:
        return newline + 1 + len(following)
    return heading.end


def _is_label(text: str, heading: Heading, end: int) -> bool:
    """A header line that is its label and nothing else, a title (not "제4조(제공) 기관은…", not a
    "○" item), read up to ``end``, its wrapped end (:func:`header_end`)."""
    whole = " ".join(text[heading.offset:end].split())
    return text[heading.offset:heading.end].strip() == heading.text and is_title(whole, whole, heading.family)


def _has_content(text: str, block_starts: tuple[int, ...], furniture: tuple[bool, ...], start: int, end: int) -> bool:
    if end <= start or not block_starts:
        return bool(text[start:end].strip())
    block = max(bisect.bisect_right(block_starts, start) - 1, 0)
    position = start
    while position < end and block < len(block_starts):
        block_end = block_starts[block + 1] if block + 1 < len(block_starts) else len(text)
        stop = min(block_end, end)
        if not furniture[block] and text[position:stop].strip():
            return True
        position, block = stop, block + 1
    return False


def common_prefix(a: HeadingPath, b: HeadingPath) -> HeadingPath:
    size = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        size += 1
    return a[:size]
