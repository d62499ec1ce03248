"""Rule-based boundary choice: ordered rules, strongest and cheapest signal first.

    extension/format → size → file name and page geometry of slides → first-lines patterns and
    declared headings → sparse or table-heavy pages → default

Geometry that identifies slides (landscape pages with little text, a deck's name) is certain and
comes before the patterns. Geometry that only says pages are sparse or tabular does not say where
a document's seams are: a report with page breaks has few characters per page and clear □/○
sections. So it decides only when no section structure was found.

The page geometry rules are for PDFs only. HWP and HWPX declare their page sizes, but their pages
are derived from breaks and saved line positions, not laid out: a table taller than a page stays on
the page it starts on (a real data standard, 99 % tables, reads as a single page of 6,800
characters), and their tables and outline levels are declared, so structure, not pages, is where
they are cut. (Had the table-heavy rule applied to them, two real table documents of bench/hangul
would have gone from ``general`` to ``page``.)

Declared headings are a format's own (Word heading styles, Markdown ``#``, HTML ``<h1>``) or, in a
PDF, titles set in a larger size than the body; the latter count only when there are at least
three and one for every three pages, so a one-page flyer with two large lines stays on its page.

A rule is data: a name, the strategy it picks and a test that returns its evidence (a short
sentence with the numbers it looked at) or ``None``. The first rule that fires decides. Users can
force a strategy for paths matching a glob (``classify(..., overrides=)``), and settings can drop
rules or change the strategy a rule picks without code (:func:`build_rules`); code can add rules.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath

from classifiers.headings import is_regulation, scan
from classifiers.markers import ARTICLE_RANK
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
    toc_lines: int = 0  # table-of-contents lines in the first lines (dot leaders + page numbers)


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
    first = scan(doc, max_lines=FIRST_LINES)
    # Articles that do not run as a regulation's do (제1조 on, or in sequence), or that only start in
    # the second half of the document (an annex's contract clauses), are quoted, not its sections.
    article_family = "legal_article" if is_regulation(text, first.candidates) else "article_quoted"
    markers: dict[str, int] = {}
    for candidate in first.candidates:
        marker = candidate.marker
        if marker is None or not candidate.plausible:
            continue  # declared headings are counted from the blocks below
        family = article_family if marker.family == "legal" and marker.rank == ARTICLE_RANK else marker.family
        markers[family] = markers.get(family, 0) + 1
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
        toc_lines=first.toc_lines,
    )


def _when(condition: Callable[[Facts], bool], evidence: Callable[[Facts], str]) -> Callable[[Facts], str | None]:
    return lambda f: evidence(f) if condition(f) else None


def _section_markers(f: Facts) -> int:
    # A dash is a bullet as often as a report level, and one attachment line says little.
    return sum(n for family, n in f.markers.items() if family not in ("dash", "attachment", "article_quoted"))


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
    Rule("legal-articles", "section", _when(
        lambda f: f.markers.get("legal_article", 0) >= 2,
        lambda f: f"{f.markers['legal_article']} article headers (제N조) in the first lines")),
    Rule("declared-headings", "section", _when(
        lambda f: f.declared_headings >= 2 and (f.format != "pdf" or f.declared_headings >= max(3, f.pages / 3)),
        lambda f: f"{f.declared_headings} headings declared by the {f.format} file")),
    Rule("section-markers", "section", _when(
        lambda f: _section_markers(f) >= 3,
        lambda f: "section markers in the first lines: "
        + ", ".join(f"{k}×{v}" for k, v in sorted(f.markers.items())))),
    Rule("table-of-contents", "section", _when(
        lambda f: f.toc_lines >= 3,
        lambda f: f"{f.toc_lines} table-of-contents lines: the document lists its own sections")),
    Rule("sparse-pages", "page", _when(
        lambda f: f.format == "pdf" and f.chars_per_page < 400,
        lambda f: f"{f.chars_per_page:.0f} chars/page: little text per page")),
    Rule("table-heavy", "page", _when(
        lambda f: f.format == "pdf" and f.table_share >= 0.6,
        lambda f: f"{f.table_share:.0%} of the text is in tables: pages keep them whole")),
    Rule("pdf-pages", "page", _when(
        lambda f: f.format == "pdf", lambda f: "PDF without section markers: pages are its seams")),
    Rule("default", "general", lambda f: "no stronger signal: paragraphs, then sentences"),
)


def build_rules(
    disabled: Sequence[str] = (),
    strategies: Mapping[str, str] | None = None,
    extra: Sequence[Rule] = (),
    base: Sequence[Rule] = DEFAULT_RULES,
    check_strategy: Callable[[str], object] | None = None,
) -> tuple[Rule, ...]:
    """The rule list from settings: ``base`` without the ``disabled`` rules, with the strategy of the
    rules named in ``strategies`` changed, and ``extra`` rules tried just before the last (default).

    Unknown rule names raise a ``ValueError`` listing the known ones. The default rule cannot be
    disabled (something must decide); change its strategy instead. Classifiers do not know the
    splitters, so strategy names are checked only by ``check_strategy`` when given — pass
    ``splitters.get_strategy``, which raises a ``ValueError`` listing the known strategies.

    Settings need only two plain values: a list of rule names to drop (``["sparse-pages"]``) and a
    mapping of rule name to strategy (``{"pdf-pages": "general"}``).
    """
    strategies = dict(strategies or {})
    known = [rule.name for rule in base]
    unknown = sorted({*disabled, *strategies} - set(known))
    if unknown:
        raise ValueError(f"unknown rule name(s) {', '.join(map(repr, unknown))}; known: {', '.join(known)}")
    if not base or base[-1].name in disabled:
        raise ValueError(f"the last rule ({base[-1].name if base else 'none'}) decides when no other fires: "
                         "it cannot be disabled; change its strategy instead")
    for name, strategy in strategies.items():
        if not strategy:
            raise ValueError(f"rule {name!r}: empty strategy name")
        if check_strategy is not None:
            check_strategy(strategy)
    rules = [replace(rule, strategy=strategies.get(rule.name, rule.strategy)) for rule in base
             if rule.name not in disabled]
    clash = sorted({rule.name for rule in extra} & set(known))
    if clash:
        raise ValueError(f"extra rule name(s) {', '.join(map(repr, clash))} already used by a default rule")
    return (*rules[:-1], *extra, rules[-1])


def rule_names(rules: Sequence[Rule] = DEFAULT_RULES) -> tuple[str, ...]:
    return tuple(rule.name for rule in rules)


def classify(
    facts: Facts,
    rules: Sequence[Rule] = DEFAULT_RULES,
    overrides: Mapping[str, str] | None = None,
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
