"""Classifiers: choose where a document may be cut, by rules, and say which rule decided and why.

``classify(gather_facts(doc, tokens, max_tokens, name), rules=build_rules(...), overrides=...)``
returns a :class:`Decision`. :mod:`classifiers.markers` holds the header-line grammar and
:mod:`classifiers.headings` applies it to a whole document; the rules and the splitters share both.
"""

from __future__ import annotations

from classifiers.headings import Heading, find_headings
from classifiers.markers import count_markers, is_header_line, pattern_marker
from classifiers.rules import (
    DEFAULT_RULES,
    Decision,
    Facts,
    Rule,
    build_rules,
    classify,
    gather_facts,
    rule_names,
)

__all__ = [
    "DEFAULT_RULES", "Decision", "Facts", "Heading", "Rule", "build_rules", "classify", "count_markers",
    "find_headings", "gather_facts", "is_header_line", "pattern_marker", "rule_names",
]
