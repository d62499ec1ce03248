"""A document's headings: the header-line grammar (:mod:`classifiers.markers`) applied to a whole document.

:func:`scan` reads a document's lines (or its first ones, for the classifier) and keeps the
candidates that pass the line checks, with tables of contents set aside; :func:`find_headings` turns
them into :class:`Heading` entries with a depth per document — declared headings keep their level,
legal depth is fixed, other families nest in the order they first appear (with the fixed chains
``I.`` > ``1.`` > ``1.1`` and ``□`` > ``○`` > ``-``) — and leaves out a PDF's title and cover lines.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from classifiers.markers import (
    APPENDIX,
    ARTICLE_RANK,
    CLAUSE_RANK,
    LEAD_IN_WRAP,
    LIST_INTRO,
    NUMBERED,
    SENTENCE_END,
    TOC_PAGE,
    Marker,
    fills_its_lines,
    heading_label,
    is_header_line,
    is_title,
    is_toc_line,
    legal_marker,
    pattern_marker,
    reads_as_statement,
    wraps_on,
)
from parsers.model import Block, Document

#: Families whose relative depth is fixed, whatever order they first appear in.
_CHAINS: tuple[tuple[str, ...], ...] = (("roman", "dec1", "dec2", "dec3"), ("box", "circle", "dash"))
_TOC_RUN = 3
_TOC_GAP = 13  # lines without a page number between two contents lines: at most 12 sub-entries
_TOC_ENTRY = 80  # characters: longer is a paragraph, not an entry
_REPORT = frozenset({"box", "circle"})



@dataclass(frozen=True, slots=True)
class Candidate:
    """A line that may open a section, judged on its own and its neighbours (not yet the document)."""

    offset: int  # where the stripped line starts in Document.text
    end: int  # where it ends (trailing spaces excluded)
    line: str
    marker: Marker | None  # None: a heading block the format declared
    declared: int = 0  # the declared level of a heading block
    in_list: bool = False  # the line sits in a list block of the format
    plausible: bool = True  # passed the line-context checks (a "①" sentence may still be a 항 in legal text)


@dataclass(frozen=True)
class Scan:
    candidates: tuple[Candidate, ...]
    toc_lines: int  # lines read as a table of contents (not headers)
    lines: int  # lines read


@dataclass(frozen=True, slots=True)
class _Line:
    offset: int
    end: int
    text: str
    block: int
    first_in_block: bool


def scan(doc: Document, max_lines: int | None = None) -> Scan:
    """Header candidates of a document (or of its first ``max_lines`` text lines), in order."""
    lines: list[_Line] = []
    declared: dict[int, list[Candidate]] = {}  # by the position of the text line that follows them
    for index, (block, (b_start, _)) in enumerate(zip(doc.blocks, doc.spans, strict=True)):
        if max_lines is not None and len(lines) >= max_lines:
            break
        if block.kind in ("heading", "title"):  # a slide's title heads the slide
            first = block.text.split("\n")[0].strip()
            if first and not reads_as_statement(first):
                start = b_start + block.text.index(first)
                end = b_start + len(block.text.rstrip())
                declared.setdefault(len(lines), []).append(Candidate(start, end, first, None, max(block.level, 1)))
                continue
            if not first:
                continue
        elif block.kind == "table":
            boxed = boxed_title(block)
            if boxed is not None:
                label, level = boxed
                start = b_start + len(block.text) - len(block.text.lstrip())
                declared.setdefault(len(lines), []).append(Candidate(start, b_start + len(block.text.rstrip()),
                                                                     label, None, level))
            continue
        elif block.kind not in ("paragraph", "list_item"):
            continue
        offset = b_start
        first_in_block = True
        for raw in block.text.split("\n"):
            stripped = raw.strip()
            if stripped:
                start = offset + (len(raw) - len(raw.lstrip()))
                lines.append(_Line(start, start + len(stripped), stripped, index, first_in_block))
                first_in_block = False
            offset += len(raw) + 1
    toc = _toc_lines(lines)
    candidates: list[Candidate] = []
    previous: _Line | None = None
    previous_marker: Marker | None = None  # of the previous line, header or not
    previous_header = False
    header_families: set[str] = set()
    last_alpha: str | None = None
    for position, line in enumerate(lines):
        candidates.extend(declared.pop(position, ()))
        same_block = previous is not None and previous.block == line.block
        marker = pattern_marker(line.text) if position not in toc else None
        plausible = False
        if marker is not None:
            before = previous_marker if same_block else None
            previous_text = previous.text if same_block else None
            if previous_text is not None and SENTENCE_END.search(previous_text):
                # A lead-in whose sentence wrapped on ("…다음 각 호의 직종에 대한" / "…실시할 수 있다."):
                # what follows its end is its list, as after a lead-in on one line.
                opener = next((lines[p].text for p in range(position - 2, max(position - 2 - LEAD_IN_WRAP, -1), -1)
                               if lines[p].block == line.block and LIST_INTRO.search(lines[p].text)), None)
                previous_text = opener or previous_text
            plausible = is_header_line(line.text, marker, previous_text, line.first_in_block,
                                       before if previous_header else None)
            # After an item of another numbering (a list that ended), a family that already opened a
            # section in this document opens one again: "1. 중소기업 / 2. 소상공인 / 1.2 목적".
            if (not plausible and before is not None and not previous_header and before.family != marker.family
                    and marker.family in header_families and is_header_line(line.text, marker, None, True)):
                plausible = True
            following = lines[position + 1] if position + 1 < len(lines) else None
            numbered = marker.family in NUMBERED
            if plausible and following is not None and following.block == line.block \
                    and wraps_on(line.text, following.text, numbered):
                plausible = False  # "1. 분류번호, 업종명 및 품목명은" + "「통계법」에 따른다.": a note, wrapped
            if plausible and numbered:
                rest = [r.text for r in lines[position + 1:position + 4] if r.block == line.block]
                plausible = not fills_its_lines(line.text, rest)
            if plausible and marker.family == "alpha":
                # "A." opens a run and each next letter goes on it: an initial at a line start
                # ("J. Smith") is not a section.
                letter = line.text[0]
                plausible = letter == "A" or (last_alpha is not None and ord(letter) == ord(last_alpha) + 1)
                if plausible:
                    last_alpha = letter
            if plausible or marker.family == "circled":
                in_list = doc.blocks[line.block].kind == "list_item"
                candidates.append(Candidate(line.offset, line.end, line.text, marker, in_list=in_list,
                                            plausible=plausible))
            if plausible:
                header_families.add(marker.family)
        previous, previous_marker, previous_header = line, marker, plausible
    for position in sorted(declared):  # headings after the last text line
        candidates.extend(declared[position])
    return Scan(tuple(candidates), len(toc), len(lines))


#: A Korean plan sets its part and task titles in boxes (one-row tables): "Ⅰ. 개 요", "Ⅱ | 추진계획",
#: "1 |  | 선제적·통합적 대국민 서비스 혁신", "참고 2 |  | 주요 과제별 추진일정", "붙임 |  | …".
_BOX_PART = re.compile(r"^(?:[IVX]{1,4}|[ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩ])\.?$|^(?:참\s?고|붙\s?임)(?:\s*\d{1,2})?$")
_BOX_TASK = re.compile(r"^\d{1,2}$")
_BOX_TITLE = 60  # characters of a boxed title: longer is a sentence (a footnote set in a table)


def boxed_title(block: Block) -> tuple[str, int] | None:
    """The label and level (1: a part, 2: a task) of a title set in a box, or None: a one-row table
    whose first cell is a part's number ("Ⅰ", "참고 1", "붙임") or a task's ("1") and whose only other
    cell is a short title — or one cell that reads as a part's header ("Ⅰ. 개 요"). Without it a
    plan's parts never appear in heading paths and the last ○ item before a part heads all of it."""
    table = block.table
    if table is None or len(table.rows) != 1:
        return None
    cells = [cell.strip() for cell in table.rows[0] if cell.strip()]
    if len(cells) == 1:
        marker = pattern_marker(cells[0])
        if marker is not None and marker.family == "roman" and len(cells[0]) <= _BOX_TITLE:
            return cells[0], 1
        return None
    if len(cells) != 2 or len(cells[1]) > _BOX_TITLE or SENTENCE_END.search(cells[1]):
        return None
    if _BOX_PART.match(cells[0]):
        return f"{cells[0]} {cells[1]}", 1
    if _BOX_TASK.match(cells[0]):
        return f"{cells[0]} {cells[1]}", 2
    return None


def _toc_lines(lines: list[_Line]) -> set[int]:
    """Positions of table-of-contents lines: dot leaders, or runs ending in non-decreasing page numbers."""
    toc = {i for i, line in enumerate(lines) if is_toc_line(line.text)}
    run: list[int] = []
    last_page = -1
    for i, line in enumerate([*lines, None]):
        match = TOC_PAGE.search(line.text) if line is not None else None
        page = int(match.group(1)) if match else -1
        if match and page >= last_page and (not run or lines[run[-1]].block + 2 >= line.block):
            run.append(i)
            last_page = page
            continue
        # A run counts when it is long and some of its lines name sections (not a column of figures).
        if len(run) >= _TOC_RUN and sum(pattern_marker(TOC_PAGE.sub("", lines[j].text)) is not None
                                        for j in run) >= 2:
            toc.update(run)
        run, last_page = ([i], page) if match else ([], -1)
    toc.update(_unnumbered_contents(lines))
    # Entries printed without a page number between two with one are entries too: the sub-items a
    # contents page lists under a chapter ("1. 우선 추진과제 2" / "① 선제적 … 혁신" / … / "2. 로드맵 4").
    marked = sorted(toc)
    for before, after in itertools.pairwise(marked):
        if 1 < after - before <= _TOC_GAP and all(len(lines[j].text) <= _TOC_ENTRY for j in range(before + 1, after)):
            toc.update(range(before + 1, after))
    return toc


def _unnumbered_contents(lines: list[_Line]) -> set[int]:
    """Positions of a contents list printed without page numbers (an RFP's "1. 제안공모요강" /
    "1.1. 일반사항" / … / "첨부1 : 평가기준" before the same headers open the body): a run of more than
    :data:`_TOC_RUN` header lines, each a block of its own, most of which the document prints again
    after the run in the same order, starting with its first. The run ends where one of its lines
    comes again (the body starts), or at a line that is not a header's. Read as headers, its last
    entry (often an attachment) would become the parent of the whole body; a document that only
    reuses a few header texts ("개요" in every chapter) does not print them again in its order."""
    where: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        where.setdefault(line.text, []).append(i)

    def printed_again(run: list[int]) -> int:
        """How many of the run's lines come again after it, in its order, from its first line on."""
        end, last, found = run[-1], -1, 0
        for k, j in enumerate(run):
            later = next((p for p in where[lines[j].text] if p > max(end, last)), None)
            if later is None:
                if k == 0:
                    return 0
                continue
            last, found = later, found + 1
        return found

    found: set[int] = set()
    run: list[int] = []
    for i, line in enumerate([*lines, None]):
        alone = line is not None and line.first_in_block and (i + 1 == len(lines) or lines[i + 1].block != line.block)
        entry = alone and pattern_marker(line.text) is not None
        if entry and run and line.text not in {lines[j].text for j in run} and line.block <= lines[run[-1]].block + 1:
            run.append(i)
            continue
        if len(run) > _TOC_RUN and 2 * printed_again(run) > len(run):
            found.update(run)
        run = [i] if entry else []
    return found


@dataclass(frozen=True, slots=True)
class Heading:
    """A line that opens a section: where it is, how deep (smaller is higher) and its path label."""

    offset: int  # where the header line starts in Document.text
    level: int
    text: str  # the label it contributes to heading paths
    end: int = 0  # where the header line ends
    family: str = ""  # "declared", "legal" or a pattern family
    title: bool = True  # the line is a title only (no sentence, no body text after the label)


def is_back_matter(heading: Heading) -> bool:
    """Whether a header opens the back matter: a regulation's ``부칙`` (its effective dates and
    transitional rules), an attachment, an appendix, the references."""
    return heading.family == "attachment" or (heading.family == "legal" and bool(APPENDIX.match(heading.text)))


_DECLARED_BASE = 0  # declared heading levels 1..6 keep their level
_LEGAL_BASE = 10
_PATTERN_BASE = 20
_MIN_ARTICLES = 2
_ARTICLE_NUMBER = re.compile(r"^제\s?(\d+)\s?조")


def is_legal_text(article_lines: Sequence[str]) -> bool:
    """Whether a document's article lines (제N조, in order) make it a regulation: its articles start
    at 제1조 or run on in sequence (제7조, 제8조, 제9조). A plan or notice that quotes two articles of
    a law ("제23조의2 …", "제24조 …") is not a regulation, and its 1./가. stay sections."""
    numbers = [int(m.group(1)) for line in article_lines if (m := _ARTICLE_NUMBER.match(line))]
    if len(numbers) < _MIN_ARTICLES:
        return False
    if numbers[0] == 1:
        return True
    run = longest = 1
    for before, after in itertools.pairwise(numbers):
        run = run + 1 if after == before + 1 else (run if after == before else 1)
        longest = max(longest, run)
    return longest >= 3


def is_regulation(text: str, candidates: Sequence[Candidate]) -> bool:
    """Whether a document is a regulation: its article lines run as a regulation's do
    (:func:`is_legal_text`) and the first of them starts in the first half of its ``text``.

    Why the half: a plan, a bid notice or a statement of work may carry a contract's clauses, 제1조 to
    제12조, in its last annex (a real 과업지시서: [별표4] 용역사업 보안특약 조항, on its 17th page of
    18); read as a regulation, its own ``1.``–``13.`` sections became 호 of an article and a bare ``④``
    headed its last three chunks. A regulation's articles start its body, and a notice that attaches
    one (붙임) is mostly that regulation."""
    articles = [c for c in candidates if c.marker == Marker("legal", ARTICLE_RANK)]
    return bool(articles) and articles[0].offset <= len(text) / 2 and is_legal_text([c.line for c in articles])


def find_headings(doc: Document) -> list[Heading]:
    """Every header line of the document with its depth, after the document-level context checks."""
    candidates = scan(doc).candidates
    if any(block.locator.slide is not None for block in doc.blocks):
        # A deck's sections are its slides, headed by their titles: a numbered line on a slide
        # ("6) 발표력 (10%)") is an item of that slide, not a header over the slides after it.
        candidates = tuple(c for c in candidates if c.marker is None)
    families = {c.marker.family for c in candidates if c.marker is not None}
    legal = is_regulation(doc.text, candidates)
    report = bool(families & _REPORT)
    kept: list[tuple[Candidate, Marker | None]] = []
    for candidate in candidates:
        marker = candidate.marker
        if marker is None:
            # A declared heading that is also a legal header takes the legal depth, so a chapter
            # styled as a heading and one typed as a paragraph nest the same way.
            legal_line = legal_marker(candidate.line)
            kept.append((candidate, legal_line if legal and legal_line is not None else None))
            continue
        if marker.family == "dash" and (not report or candidate.in_list):
            continue
        if marker.family == "legal" and marker.rank >= ARTICLE_RANK and not legal:
            continue  # an article quoted by a report ("제34조(예산안의 첨부서류)"), not one of its sections
        if marker.family in NUMBERED:
            if legal:
                if marker.family != "circled":
                    continue  # 호/목 of an article
                marker = Marker("legal", CLAUSE_RANK)  # a 항, sentence or not
            elif candidate.in_list or not candidate.plausible:
                continue  # an item of the format's own list, or a sentence
        kept.append((candidate, marker))
    order = _family_order(m.family for _, m in kept if m is not None and m.family not in ("legal", "attachment"))
    headings: list[Heading] = []
    for candidate, marker in kept:
        if marker is None:
            level, family = _DECLARED_BASE + candidate.declared, "declared"
        elif marker.family == "legal":
            level, family = _LEGAL_BASE + marker.rank, "legal"
        elif marker.family == "attachment":
            level, family = _LEGAL_BASE + 1, "attachment"  # a new top-level part, even in legal text
        else:
            level, family = _PATTERN_BASE + order[marker.family], marker.family
        label = heading_label(candidate.line, marker)
        headings.append(Heading(candidate.offset, level, label, candidate.end, family,
                                is_title(candidate.line, label, family)))
    if doc.format == "pdf" and len(headings) > 1 and headings[0].family == "declared" \
            and all(h.level > headings[0].level for h in headings[1:]):
        # In a PDF, the one line set larger than all others, first: the document's title, not a
        # section of it. It stays in the preamble, so heading paths start at the top sections.
        headings = headings[1:]
    if doc.format == "pdf":
        headings = _without_cover(doc, headings)
    return headings


def _without_cover(doc: Document, headings: list[Heading]) -> list[Heading]:
    """A PDF's first-page headings set larger than any heading set in type after that page are its
    cover's (a title, a series logo such as "Redpaper", a masthead): they stay in the preamble, or every
    heading path of the document would start at a logo."""
    starts = [start for start, _ in doc.spans]
    pages = [doc.blocks[max(bisect.bisect_right(starts, h.offset) - 1, 0)].locator.page for h in headings]
    later = [h.level for h, page in zip(headings, pages, strict=True)
             if h.family == "declared" and page is not None and page > 1]
    if not later:
        return headings
    top = min(later)
    return [h for h, page in zip(headings, pages, strict=True)
            if not (h.family == "declared" and page == 1 and h.level < top)]


def _family_order(families: Iterable[str]) -> dict[str, int]:
    """Depth of each pattern family: order of first appearance, fixed order inside each chain."""
    seen: list[str] = []
    for family in families:
        if family not in seen:
            seen.append(family)
    for chain in _CHAINS:
        slots = [i for i, family in enumerate(seen) if family in chain]
        for slot, family in zip(slots, sorted((seen[i] for i in slots), key=chain.index), strict=True):
            seen[slot] = family
    return {family: depth for depth, family in enumerate(seen)}
