"""The section-header grammar: which lines open a section, and how deep.

Families, each a pattern on the start of a line:
- legal: ``제N편`` > ``제N장`` > ``제N절`` > ``제N관`` > ``제N조`` (``제N조의M`` too) and ``부칙``;
- report markers: ``□``/``■`` > ``○``/``◦`` > ``-``/``·`` (the usual order of Korean government reports);
- numbered: ``1.``, ``1.1``, ``1.1.1``, ``가.``, ``(1)``, ``1)``, ``가)``, ``①``, ``I.``.

A family's depth is fixed for legal text and otherwise the order in which the family first appears
in the document, which is how numbering schemes nest in practice. Cross-references are not headers
("제3조에 따라", "제3조 제1항에 따른", "1.2의 기준"): a header's number must be followed by a space, a
bracket or the end of the line, and a legal header must not read as a reference right after it.
Numbered lines inside a running paragraph (a list after "다음과 같다:") are not headers either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LEGAL = re.compile(r"^제\s?(\d+)\s?(편|장|절|관|조)(?:의\s?\d+)?(?=$|[\s(（【\[<])")
_LEGAL_RANK = {"편": 1, "장": 2, "절": 3, "관": 4, "조": 5}
_APPENDIX = re.compile(r"^부\s?칙(?=$|[\s(（<])")
_REFERENCE_AFTER = re.compile(r"^\s*(제\s?\d+\s?[항호조]|에\s|에서|의\s?규정|을|를|과|와|및|부터|까지|·|,)")
_REFERENCE_WORDS = ("에 따라", "에 따른", "에 의한", "에 의하여", "을 준용", "를 준용", "의 규정")

FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("box", re.compile(r"^[□■◆◇▣](?=\s|$)")),
    ("circle", re.compile(r"^[○◦❍●◎](?=\s|$)")),
    ("dash", re.compile(r"^[-·∙•▪‐–](?=\s)")),
    ("dec3", re.compile(r"^\d{1,2}\.\d{1,2}\.\d{1,2}\.?\s+\S")),
    ("dec2", re.compile(r"^\d{1,2}\.\d{1,2}\.?\s+\S")),
    ("dec1", re.compile(r"^\d{1,2}\.\s+\S")),
    ("roman", re.compile(r"^(?:[IVX]{1,4}|[ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩ])\.\s*\S")),
    ("ganada", re.compile(r"^[가-하]\.\s+\S")),
    ("paren", re.compile(r"^\(\d{1,2}\)\s*\S")),
    ("half_paren", re.compile(r"^\d{1,2}\)\s+\S")),
    ("ganada_paren", re.compile(r"^[가-하]\)\s+\S")),
    ("circled", re.compile(r"^[①-⑳]\s*\S")),
)
#: Families that number items; inside legal text they are 항/호/목 of an article, not sections.
NUMBERED = frozenset({"dec3", "dec2", "dec1", "roman", "ganada", "paren", "half_paren", "ganada_paren", "circled"})
_MAX_NUMBERED_HEADER = 60
_SENTENCE_END = re.compile(r"[.。!?！？:;]$|다\.?$|음\.?$|함\.?$")
_LIST_INTRO = re.compile(r"(:|다음과 같다\.?|다음 각 호.*|as follows\.?|following:?)\s*$")


@dataclass(frozen=True)
class Marker:
    family: str
    rank: int  # depth within the family scheme: legal ranks are fixed; others are set per document


def legal_marker(line: str) -> Marker | None:
    match = _LEGAL.match(line)
    if match:
        rest = line[match.end():]
        if _REFERENCE_AFTER.match(rest) or any(w in rest[:24] for w in _REFERENCE_WORDS[:4]):
            return None
        return Marker("legal", _LEGAL_RANK[match.group(2)])
    if _APPENDIX.match(line):
        return Marker("legal", 2)
    return None


def pattern_marker(line: str) -> Marker | None:
    """The family of a candidate header line, before context checks."""
    legal = legal_marker(line)
    if legal is not None:
        return legal
    for family, pattern in FAMILIES:
        if pattern.match(line):
            return Marker(family, 0)
    return None


def is_header_line(line: str, marker: Marker, previous_line: str | None, first_in_block: bool) -> bool:
    """Context checks that keep list items and wrapped sentences from reading as headers."""
    if marker.family not in NUMBERED:
        return True
    if len(line) > _MAX_NUMBERED_HEADER or _SENTENCE_END.search(line):
        return False
    if previous_line is not None and _LIST_INTRO.search(previous_line):
        return False
    return first_in_block or previous_line is None or bool(_SENTENCE_END.search(previous_line))


_LEGAL_TITLE = re.compile(r"^(제\s?\d+\s?[편장절관조](?:의\s?\d+)?\s?[(（【][^)）】]{0,40}[)）】])")
LABEL_LIMIT = 60


def heading_label(line: str, marker: Marker | None) -> str:
    """The text a header contributes to a heading path: an article's number and title, not its body."""
    if marker is not None and marker.family == "legal":
        titled = _LEGAL_TITLE.match(line)
        if titled:
            return titled.group(1)
    return line if len(line) <= LABEL_LIMIT else line[:LABEL_LIMIT].rstrip() + "…"


def count_markers(lines: list[str]) -> dict[str, int]:
    """How many lines open with each family's marker (for the classifier's first-lines rule)."""
    counts: dict[str, int] = {}
    for line in lines:
        marker = pattern_marker(line.strip())
        if marker is not None:
            counts[marker.family] = counts.get(marker.family, 0) + 1
    return counts
