"""Classifiers: choose where a document may be cut, by rules, and say which rule decided and why."""

from __future__ import annotations

from classifiers.headings import count_markers, is_header_line, pattern_marker
from classifiers.rules import DEFAULT_RULES, Decision, Facts, Rule, classify, gather_facts

__all__ = [
    "DEFAULT_RULES", "Decision", "Facts", "Rule", "classify", "count_markers", "gather_facts",
    "is_header_line", "pattern_marker",
]
