"""Rule-based boundary choice: ordered rules, strongest and cheapest signal first.

    extension/format → file name and properties → page geometry and components
    → first-lines patterns → default

A rule is data: a name, the strategy it picks and a test that returns its evidence (a short
sentence with the numbers it looked at) or ``None``. The first rule that fires decides. Users can
force a strategy for paths matching a glob, and can reorder, drop or add rules in code.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from classifiers.headings import is_header_line, pattern_marker
from parsers.model import Document


@dataclass(frozen=True)
class Facts:
    """Cheap facts about a document, computed once for all rules."""

    name: str
    format: str
    tokens: int
    pages: int
    chars_per_page: float
    landscape_share: float
    table_share: float  # share of the text that sits in tables
    declared_headings: int
    markers: dict[str, int]  # header-line families seen in the first lines
    max_tokens: int


@dataclass(frozen=True)
class Decision:
    strategy: str
    rule: str
    evidence: str


@dataclass(frozen=True)
class Rule:
    name: str
    strategy: str
    test: Callable[[Facts], str | None]


FIRST_LINES = 400
_SLIDE_NAMES = re.compile(r"(slides?|deck|presentation|발표|슬라이드|ppt)", re.IGNORECASE)


def gather_facts(doc: Document, tokens: int, max_tokens: int, relative_name: str | None = None) -> Facts:
    text = doc.text
    table_chars = sum(len(b.text) for b in doc.blocks if b.kind == "table")
    markers: dict[str, int] = {}
    seen = 0
    for block in doc.blocks:
        if block.kind not in ("paragraph", "list_item"):
            continue
        previous = None
        for index, line in enumerate(block.text.split("\n")):
            stripped = line.strip()
            marker = pattern_marker(stripped)
            if marker is not None and is_header_line(stripped, marker, previous, index == 0):
                family = "legal_article" if marker.family == "legal" and marker.rank == 5 else marker.family
                markers[family] = markers.get(family, 0) + 1
            previous = stripped
            seen += 1
        if seen >= FIRST_LINES:
            break
    return Facts(
        name=relative_name or PurePath(doc.path).name,
        format=doc.format,
        tokens=tokens,
        pages=doc.page_count,
        chars_per_page=doc.chars_per_page(),
        landscape_share=doc.landscape_share(),
        table_share=table_chars / len(text) if text else 0.0,
        declared_headings=sum(1 for b in doc.blocks if b.kind == "heading"),
        markers=markers,
        max_tokens=max_tokens,
    )


def _when(condition: Callable[[Facts], bool], evidence: Callable[[Facts], str]) -> Callable[[Facts], str | None]:
    return lambda f: evidence(f) if condition(f) else None


def _section_markers(f: Facts) -> int:
    return sum(n for family, n in f.markers.items() if family not in ("dash",))


DEFAULT_RULES: tuple[Rule, ...] = (
    Rule("spreadsheet-format", "sheet", _when(
        lambda f: f.format in ("xlsx", "csv"), lambda f: f"format is {f.format}: sheets and rows")),
    Rule("presentation-format", "slide", _when(
        lambda f: f.format == "pptx", lambda f: "format is pptx: one slide a unit")),
    Rule("short-document", "whole", _when(
        lambda f: f.tokens <= f.max_tokens,
        lambda f: f"{f.tokens} tokens fit in one chunk (max {f.max_tokens})")),
    Rule("slide-name", "page", _when(
        lambda f: f.format == "pdf" and bool(_SLIDE_NAMES.search(f.name)) and f.chars_per_page < 1500,
        lambda f: f"PDF named like a slide deck ({f.name}), {f.chars_per_page:.0f} chars/page")),
    Rule("slide-like-pages", "page", _when(
        lambda f: f.format == "pdf" and f.landscape_share >= 0.5 and f.chars_per_page < 1200,
        lambda f: f"{f.landscape_share:.0%} landscape pages with {f.chars_per_page:.0f} chars/page")),
    Rule("sparse-pages", "page", _when(
        lambda f: f.format == "pdf" and f.chars_per_page < 400,
        lambda f: f"{f.chars_per_page:.0f} chars/page: little text per page")),
    Rule("legal-articles", "section", _when(
        lambda f: f.markers.get("legal_article", 0) >= 2,
        lambda f: f"{f.markers['legal_article']} article headers (제N조) in the first lines")),
    Rule("table-heavy", "page", _when(
        lambda f: f.format == "pdf" and f.table_share >= 0.6,
        lambda f: f"{f.table_share:.0%} of the text is in tables: pages keep them whole")),
    Rule("declared-headings", "section", _when(
        lambda f: f.declared_headings >= 2,
        lambda f: f"{f.declared_headings} headings declared by the {f.format} file")),
    Rule("section-markers", "section", _when(
        lambda f: _section_markers(f) >= 3,
        lambda f: "section markers in the first lines: "
        + ", ".join(f"{k}×{v}" for k, v in sorted(f.markers.items())))),
    Rule("pdf-pages", "page", _when(
        lambda f: f.format == "pdf", lambda f: "PDF without section markers: pages are its seams")),
    Rule("default", "general", lambda f: "no stronger signal: paragraphs, then sentences"),
)


def classify(
    facts: Facts,
    rules: Sequence[Rule] = DEFAULT_RULES,
    overrides: dict[str, str] | None = None,
) -> Decision:
    """The first override whose glob matches the file, else the first rule that fires."""
    for pattern, strategy in (overrides or {}).items():
        if fnmatch.fnmatch(facts.name, pattern) or fnmatch.fnmatch(PurePath(facts.name).name, pattern):
            return Decision(strategy, f"override:{pattern}", f"forced by the override {pattern!r}")
    for rule in rules:
        evidence = rule.test(facts)
        if evidence is not None:
            return Decision(rule.strategy, rule.name, evidence)
    raise ValueError("no rule fired: the rule list must end with a default rule")
