"""The header-line grammar: which lines may open a section, judged a line at a time.

Families, each a pattern on the start of a line:

- legal: ``제N편`` > ``제N장`` > ``제N절`` > ``제N관`` > ``제N조`` (``제N조의M`` too) > ``①`` (a 항 of an
  article) and ``부칙`` (at the depth of a chapter);
- attachments: ``붙임 1.``, ``[별첨 2]``, ``별표 1``, ``부록 A``, ``Appendix B`` open a top-level part, and so
  does a line that is only ``References`` or ``참고문헌`` (the back matter);
- report markers: ``□``/``■`` > ``○``/``◦`` > ``-``/``·`` (the order of Korean government reports);
- numbered: ``I.``, ``A.`` (a run from ``A.``), ``1.``, ``1.1``, ``1.1.1``, ``가.``, ``(1)``, ``1)``, ``가)``, ``①``;
- declared: heading blocks of formats that mark them (DOCX styles, Markdown ``#``, HTML ``<h1>``),
  and slide titles; in a slide deck only these count (a numbered line on a slide is an item of it).

Depth: declared headings keep their level; legal depth is fixed; the other families nest in the
order they first appear in the document, which is how numbering schemes nest in practice — except
that ``I.`` > ``1.`` > ``1.1`` > ``1.1.1`` and ``□`` > ``○`` > ``-`` are always in that order.

What is *not* a header, and why:

- cross-references: ``제3조에 따라``, ``제3조 제1항에 따른``, ``제3조(수집)에 따라``, ``1.2의 기준`` — a particle
  or conjunction right after the number means the line cites a section, it does not open one;
- numbered lines inside a running paragraph (a list after "다음과 같다:"), long or sentence-like
  numbered lines, and numbered or dashed items of a format's own list blocks: those are list items;
- a line whose sentence wraps on (the next line starts in lower case, or it stops on "and", "by",
  "및", "따른") and a numbered line as long as the lines under it (a paragraph's or a note's first line);
- in legal text (two or more article headers), ``1.``/``가.`` are 호/목 of an article, and ``①`` is
  its 항: a section one level under the article;
- ``-`` items outside a report that also uses ``□`` or ``○`` (elsewhere a dash is a bullet), and
  page numbers such as ``- 3 -``;
- table-of-contents lines: dot leaders and a page number (``제1장 총칙 ······ 3``), or a run of three
  or more lines ending in non-decreasing page numbers.

Everything here judges one line with at most its neighbours; :mod:`classifiers.headings` applies it
to a whole document. The classifier's rules and the splitters both read it from here, so the grammar
is defined once.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from parsers.tables import is_value

_LEGAL = re.compile(r"^제\s?(\d+)\s?(편|장|절|관|조)(?:의\s?\d+)?")
_LEGAL_RANK = {"편": 1, "장": 2, "절": 3, "관": 4, "조": 5}
ARTICLE_RANK = 5
CLAUSE_RANK = 6  # ① inside legal text: a 항 of the article above it
APPENDIX = re.compile(r"^부\s?칙(?=$|[\s(（<〈])")
_SUPPLEMENT_ARTICLE = re.compile(r"^부\s?칙\s*(?:<[^>]*>\s*)?제\s?\d+\s?조")
_ATTACHMENT = re.compile(
    r"^(?P<bracket>[\[<〈【(]\s*)?(?:붙\s?임|별\s?첨|별\s?표|별\s?지|첨\s?부|부\s?록|Appendix|Annex)"
    r"(?:\s*(?:[A-Z]|\d{1,2})(?![A-Za-z\d]))?", re.IGNORECASE)
_BACK_MATTER = re.compile(r"^(?:References|Bibliography|Acknowledge?ments?|참\s?고\s?문\s?헌)$", re.IGNORECASE)
_CLOSING_BRACKET = re.compile(r"[\]>〉】)]")
_AFTER_ATTACHMENT = re.compile(r"^(?:$|\s|[.:\]>〉】)\-–])")
_TITLE = re.compile(r"^\s?[(（【\[〔<〈][^)）】\]〕>〉]{0,40}[)）】\]〕>〉]")
# A cross-reference reads on into a particle or conjunction written against the number ("제3조에",
# "제3조의 규정", "제3조제1항", "제3조(수집)에 따라") or after one space ("제3조 제1항", "제3조 및 제4조").
_ATTACHED_REFERENCE = re.compile(r"^(?:에|의|을|를|은|는|이|가|과|와|로|으로|부터|까지|및|또는|내지|제\s?\d|[·ㆍ,、~∼])")
_SPACED_REFERENCE = re.compile(
    r"^\s+(?:제\s?\d+\s?(?:항|호|조|목)|및|또는|내지|각\s?호|부터|까지|(?:중|등|에|의)(?=\s|$))")

FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("box", re.compile(r"^[□■◆◇▣](?=\s|$)")),
    ("circle", re.compile(r"^[○◦❍●◎](?=\s|$)")),
    ("dash", re.compile(r"^[-·∙•▪‐–](?=\s)")),
    ("dec3", re.compile(r"^\d{1,2}\.\d{1,2}\.\d{1,2}\.?\s+[^\d\s]")),  # "1.0 1.0" is a chart's axis
    ("dec2", re.compile(r"^\d{1,2}\.\d{1,2}\.?\s+[^\d\s]")),
    ("dec1", re.compile(r"^\d{1,2}\.\s+\S")),
    ("roman", re.compile(r"^(?:[IVX]{1,4}|[ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩ])\.\s*\S")),
    ("alpha", re.compile(r"^[A-Z]\.\s+[A-Z0-9\"“‘(가-힣]")),  # "A. Similar Texts Generation" (in sequence: see scan)
    # The syllables items are counted with (parsers.text.GANADA), never the range 가-하: it holds
    # nearly every syllable, and "…지원금) 등으로" wraps to a line starting "금) 등으로".
    ("ganada", re.compile(r"^[가나다라마바사아자차카타파하]\.\s+\S")),
    ("paren", re.compile(r"^\(\d{1,2}\)\s*\S")),
    ("half_paren", re.compile(r"^\d{1,2}\)\s+\S")),
    ("ganada_paren", re.compile(r"^[가나다라마바사아자차카타파하]\)\s+\S")),
    ("circled", re.compile(r"^[①-⑳]\s*\S")),
)
#: Families that number items; inside legal text they are 항/호/목 of an article, not sections.
NUMBERED = frozenset({"dec3", "dec2", "dec1", "roman", "alpha", "ganada", "paren", "half_paren", "ganada_paren", "circled"})
_ITEMS = frozenset({"circle", "dash"})  # report items: their lines are content, not titles
_PAGE_NUMBER = re.compile(r"^[-–]\s*\d{1,4}\s*[-–]$")
#: A short line set between dashes: a page number ("- 3 -") or a marker ("- 끝 -", "- 이하 여백 -",
#: "- 본 페이지 이하 여백 -"), not a dash item.
_BETWEEN_DASHES = re.compile(r"^[-–]\s.{0,30}\s[-–]$")
_MAX_NUMBERED_HEADER = 60
_SHORT_LINE = 30  # a title, not a line a sentence wrapped out of
# Korean reports end sentences without a full stop too: "…하고 있음", "…필요함", "…상황임".
SENTENCE_END = re.compile(r"[.。!?！？:;]$|[다음함임됨]\.?$")
_FIGURE = re.compile(r"\d{3}|\d[,.%]\d?")
LIST_INTRO = re.compile(r"(:|다음과 같다\.?|다음 각 호.*|as follows\.?|following:?)\s*$")
_TOC_LEADERS = re.compile(r"(?:[.·ㆍ•∙‧・．]\s?){3,}\s*(?:\d{1,4}|[ivxlcdm]{1,7})\s*$", re.IGNORECASE)
TOC_PAGE = re.compile(r"(?<=\S)\s+(\d{1,4})$")


@dataclass(frozen=True)
class Marker:
    family: str
    rank: int  # depth within the family scheme: legal ranks are fixed; others are set per document


def legal_marker(line: str) -> Marker | None:
    match = _LEGAL.match(line)
    if match:
        rest = line[match.end():]
        title = _TITLE.match(rest)
        after = rest[title.end():] if title else rest
        if _ATTACHED_REFERENCE.match(after) or _SPACED_REFERENCE.match(after):
            return None
        return Marker("legal", _LEGAL_RANK[match.group(2)])
    if APPENDIX.match(line):
        if _SUPPLEMENT_ARTICLE.match(line):  # "부칙 제6조(특례) …": an article of the 부칙, as quoted
            return Marker("legal", ARTICLE_RANK)
        return Marker("legal", 2)
    return None


def attachment_marker(line: str) -> Marker | None:
    """``붙임 1. 운영 계획``, ``[별지 제1호서식]``: an attachment, unless the line cites one ("별표 1에
    따른", "부록에") or the word goes on ("첨부된"). A line that is only ``References`` (``참고문헌``,
    ``Bibliography``, ``Acknowledgments``) opens the back matter, a part of its own like an appendix:
    without it a paper's reference list reads as its last section's body."""
    if _BACK_MATTER.match(line):
        return Marker("attachment", 0)
    match = _ATTACHMENT.match(line)
    if not match:
        return None
    rest = line[match.end():]
    if not _AFTER_ATTACHMENT.match(rest) or _ATTACHED_REFERENCE.match(rest):
        return None
    if match.group("bracket") is None and _SPACED_REFERENCE.match(rest):
        return None
    if match.group("bracket") is not None:  # "[별지 제2호]를 작성하여": a citation wrapped to a line start
        closed = _CLOSING_BRACKET.search(rest)
        if closed is not None and _ATTACHED_REFERENCE.match(rest[closed.end():]):
            return None
    return Marker("attachment", 0)


def is_toc_line(line: str) -> bool:
    """A table-of-contents entry: dot leaders, then a page number."""
    normalised = line.replace("…", "...").replace("⋯", "...").replace("‥", "..")
    return bool(_TOC_LEADERS.search(normalised))


def pattern_marker(line: str) -> Marker | None:
    """The family of a candidate header line, before context checks (``None``: not a header)."""
    if is_toc_line(line):
        return None
    legal = legal_marker(line) or attachment_marker(line)
    if legal is not None:
        return legal
    if _PAGE_NUMBER.match(line) or _BETWEEN_DASHES.match(line):
        return None
    for family, pattern in FAMILIES:
        if pattern.match(line):
            return Marker(family, 0)
    return None


def is_header_line(line: str, marker: Marker, previous_line: str | None, first_in_block: bool,
                   previous_header: Marker | None = None) -> bool:
    """Context checks that keep list items and wrapped sentences from reading as headers.

    A numbered line is a header when it is short, does not read as a sentence, and starts its
    block, follows a finished sentence or a short title line, or follows a header of another family
    ("1. 개요" then "1.1 배경"); after a header of its own family it is the next item of a list. After a
    long unfinished line it is the rest of a wrapped sentence ("…전년 대비\n2. 5% 증가").
    """
    if is_figure_row(line):
        return False
    if marker.family not in NUMBERED:
        return True
    if len(line) > _MAX_NUMBERED_HEADER or SENTENCE_END.search(line):
        return False
    if previous_line is None or first_in_block:
        return True
    if LIST_INTRO.search(previous_line):
        return False
    before = pattern_marker(previous_line)
    if before is not None and before.family == marker.family:
        return False  # the next item of a list
    if previous_header is not None:
        return True
    return bool(SENTENCE_END.search(previous_line)) or len(previous_line) <= _SHORT_LINE


#: Endings that leave a Korean sentence unfinished: particles and connective or adnominal endings
#: ("품목명은", "기준에 따른", "제출하여"), a comma. Nouns rarely end so (endings that are also common
#: noun endings — 의 as in 회의, 과 as in 결과, 가 as in 평가 — are left out).
_UNFINISHED = re.compile(
    r"(?:[,，·]|[가-힣](?:은|는|을|를|에|에서|에게|으로|이나|거나|하는|있는|없는|되는|하여|하고|하며|되어|으며|이며"
    r"|이고|하면|이면)|(?:^|\s)(?:및|또는|따른|대한|관한|위한|의한|따라|통한|같은))$")


#: English lines stop so only inside a sentence: on an article, a preposition or a conjunction, in
#: lower case (a title's capitals, "Appendix A", are no sentence).
_UNFINISHED_LATIN = re.compile(r"(?:^|\s)(?:a|an|the|and|or|nor|of|to|in|for|with|by|on|at|from|as|into|than|that"
                               r"|which|whose)$")
#: A line this long, as long as the lines after it in its block, is the first line of a paragraph.
_FULL_LINE = 0.9


def wraps_on(line: str, following: str, numbered: bool = True) -> bool:
    """Whether a header-like line is the start of a sentence that wraps onto the next line: the next
    line is not a header of its own, and either starts in lower case (``■ 2. The FAA amends § 39.13
    by`` / ``removing …``) or the line stops on an English article, preposition or conjunction; a
    numbered line also on a Korean unfinished ending ("1. 분류번호, 업종명 및 품목명은"). A ``□`` line of a
    Korean report may be a whole sentence and still open its section, so only the English signals
    count for the report markers."""
    if pattern_marker(following) is not None:
        return False
    if following[:1].islower() or _UNFINISHED_LATIN.search(line):
        return True
    return numbered and bool(_UNFINISHED.search(line))


def fills_its_lines(line: str, rest: Sequence[str]) -> bool:
    """Whether a numbered line is as long as the lines after it in its block (up to the next marked line):
    the first line of a paragraph that wrapped ("3) 개정 이유는 질환의 특성별 … 현행 감염병 분" / "류체계를 …",
    a note), not a title over its body."""
    body = list(itertools.takewhile(lambda r: pattern_marker(r) is None, rest))
    return len(line) >= _SHORT_LINE and bool(body) and len(line) >= _FULL_LINE * max(len(r) for r in body)


_LEGAL_TITLE = re.compile(r"^(제\s?\d+\s?[편장절관조](?:의\s?\d+)?\s?[(（【][^)）】]{0,40}[)）】])")
LABEL_LIMIT = 60


def heading_label(line: str, marker: Marker | None) -> str:
    """The text a header contributes to a heading path: an article's number and title, not its body."""
    if marker is not None and marker.family == "legal":
        if marker.rank == CLAUSE_RANK:
            return line[0]  # "②": the 항 is cited by its number, its text is body
        titled = _LEGAL_TITLE.match(line)
        if titled:
            return titled.group(1)
        number = _LEGAL.match(line)
        if number is not None and marker.rank == ARTICLE_RANK:
            return number.group(0)  # "제5조 직원은 …": an article without a title is cited by its number
    return line if len(line) <= LABEL_LIMIT else line[:LABEL_LIMIT].rstrip() + "…"


def count_markers(lines: Iterable[str]) -> dict[str, int]:
    """How many lines open with each family's marker (no context checks)."""
    counts: dict[str, int] = {}
    for line in lines:
        marker = pattern_marker(line.strip())
        if marker is not None:
            counts[marker.family] = counts.get(marker.family, 0) + 1
    return counts


#: A declared heading longer than this that ends in a full stop is a sentence in a heading's style.
_MAX_STATEMENT_TITLE = 40
_FULL_STOP = re.compile(r"[.。]$")


def reads_as_statement(line: str) -> bool:
    """Whether a line the file declares a heading reads as a finished sentence instead: long and
    ended by a full stop (a pledge paragraph styled "제목2" that would head the next 25 chunks, a
    pull quote set in large type). A question is a title ("Why not count co-occurrences?")."""
    return len(line) > _MAX_STATEMENT_TITLE and bool(_FULL_STOP.search(line))


def is_figure_row(line: str) -> bool:
    """A row of a table drawn without rules, read as a line: a label, then at least three figures
    (amounts of three digits or more, or with a separator: not "제 6 장의 2 … (1)") making up at
    least 40 % of its words ("○ 기능별 분류(합계) 230,556 230,556 230,556")."""
    words = line.split()
    figures = sum(1 for word in words[1:] if is_value(word) and _FIGURE.search(word))
    return figures >= 3 and figures >= 0.4 * len(words)


_TITLE_LINE = 60
LEAD_IN_WRAP = 2  # lines a lead-in sentence may wrap on to
#: A Korean sentence ended inside the line ("…예외로 한다. <개정 2022. 12. 22.>"): not a title.
_SENTENCE_INSIDE = re.compile(r"[다요]\.\s")
#: A title starts with a letter, a digit or an opening bracket or quote — not a bullet ("▶ …", "※ …").
_OPENERS = "([{<〈《「『【〔“‘\"'"


_CLOSERS = "\"'”’)]）」』"


def ends_sentence(line: str) -> bool:
    """Whether a line ends a sentence (a full stop, or a Korean report's "…함", "…임"), also inside
    closing quotes or brackets ("…you’re right.”", "(Cross-talk.)")."""
    return bool(SENTENCE_END.search(line.rstrip().rstrip(_CLOSERS)))


def is_title_line(text: str) -> bool:
    """Whether a block is one short line that names what follows it, though no header grammar
    knows it: a run-in heading ("Authority for This Rulemaking"), a caption ("<표 1> 연도별 실적"), a
    chapter divider's lines, a glossary's term. It has no marker, does not end a sentence, and is
    not a row of figures or a page number: it holds a letter (not "27.>", the wrapped end of an
    amendment note "<개정 2018. 12." / "27.>")."""
    line = text.strip()
    limit = 2 * _TITLE_LINE if line.isupper() else _TITLE_LINE  # "ITEM 7. MANAGEMENT’S DISCUSSION AND …"
    return (1 < len(line) <= limit and "\n" not in line and not ends_sentence(line)
            and not line.endswith((",", "，")) and not line[:1].islower() and "?" not in line
            and not _SENTENCE_INSIDE.search(line) and not (line.isupper() and TOC_PAGE.search(line))
            and (line[0].isalnum() or line[0] in _OPENERS)
            and pattern_marker(line) is None and not is_figure_row(line) and any(c.isalpha() for c in line)
            and not _PAGE_NUMBER.match(line))


#: The usual depth of Korean numbering, outermost first (Ⅰ. > 1. > 1.1 > 가. > 1) > 가) > (1) > ①): an
#: item titles the items after it only when theirs is deeper.
_ITEM_DEPTH = {family: depth for depth, family in enumerate(
    ("roman", "dec1", "dec2", "dec3", "ganada", "half_paren", "ganada_paren", "paren", "circled"))}


def titles_its_sublist(line: str, following: str) -> bool:
    """Whether a numbered item is the title of the items after it: ``5. 제안서 제출`` over
    ``가. 제안서 10부 …``. It is one short line that does not end a sentence, and the line after it
    opens an item numbered a level deeper (:data:`_ITEM_DEPTH`). A format that draws its headings as
    numbered list paragraphs (Hangul's outline numbering, Word's lists) marks such lines as list
    items, not headings, so no outline keeps them with what they name."""
    marker, after = pattern_marker(line.strip()), pattern_marker(following.strip())
    if marker is None or after is None or marker.family not in _ITEM_DEPTH or after.family not in _ITEM_DEPTH \
            or _ITEM_DEPTH[after.family] <= _ITEM_DEPTH[marker.family]:
        return False
    line = line.strip()
    return len(line) <= _TITLE_LINE and "\n" not in line and not ends_sentence(line) \
        and not _SENTENCE_INSIDE.search(line) and not line.endswith((",", "，", ":")) and not is_lead_in(line)


def is_lead_in(line: str) -> bool:
    """A line that introduces what follows it ("다음 각 호의 경우는 제외한다:", "as follows:")."""
    return bool(LIST_INTRO.search(line))


def is_title(line: str, label: str, family: str) -> bool:
    """Whether a header line is a title, not content: the label is the whole line, it does not read
    as a sentence, and its family titles sections ("□ 추진 배경", "제2장 총칙" — not "제3조(수집) ① 기관은…",
    nor a ``○``/``-`` item, which is content even when it ends in a noun, as 개조식 reports write)."""
    return family not in _ITEMS and label == line and not SENTENCE_END.search(line)
