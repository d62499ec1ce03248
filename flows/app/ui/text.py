"""Text on the page: escaped first, then marked up — query terms highlighted, a hit's best passage.

Everything a page shows from a file (its name, its chunks) is untrusted: it is escaped here with
:func:`markupsafe.escape` before any ``<mark>`` is put around it, and the templates escape the rest
(Jinja2 autoescape).
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

#: English words too common to highlight (they would mark most of every chunk).
_STOP_WORDS = frozenset("a an and are as at be by can do does for from has have how i in is it its may must "
                        "of on or so the this to was what when where which who why will with".split())
_WORD = re.compile(r"\w+")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def query_terms(query: str) -> list[str]:
    """The words of ``query`` worth highlighting, longest first, lowercased."""
    terms = {word.lower() for word in _WORD.findall(query) if word.lower() not in _STOP_WORDS and
             (len(word) > 1 or _HANGUL.match(word))}
    return sorted(terms, key=len, reverse=True)


def _forms(term: str, text: str) -> list[str]:
    """The forms of ``term`` to look for in ``text``: itself when it occurs; else, since Korean glues
    particles to words ('개인정보를') and English inflects ('passwords'), its longest prefix found
    (at least two Hangul syllables, or four letters otherwise)."""
    if term in text:
        return [term]
    shortest = 2 if _HANGUL.match(term) else 4
    for end in range(len(term) - 1, shortest - 1, -1):
        if term[:end] in text:
            return [term[:end]]
    return []


def match_spans(text: str, query: str) -> list[tuple[int, int]]:
    """Where the query's words (:func:`query_terms`) occur in ``text``: sorted, non-overlapping spans."""
    lowered = text.lower()
    spans = []
    for term in query_terms(query):
        for form in _forms(term, lowered):
            spans += [(m.start(), m.end()) for m in re.finditer(re.escape(form), lowered)]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def highlight(text: str, query: str, spans: list[tuple[int, int]] | None = None) -> Markup:
    """``text`` escaped, with the query's words in ``<mark>``."""
    spans = match_spans(text, query) if spans is None else spans
    parts, at = [], 0
    for start, end in spans:
        parts += [escape(text[at:start]), Markup("<mark>"), escape(text[start:end]), Markup("</mark>")]
        at = end
    parts.append(escape(text[at:]))
    return Markup("").join(parts)


def best_window(text: str, query: str, width: int = 400) -> tuple[int, int]:
    """The ``width`` characters of ``text`` holding the most matched characters (the start of the
    text when nothing matches), widened to line or word breaks."""
    spans = match_spans(text, query)
    if len(text) <= width or not spans:
        return 0, min(len(text), width)
    best, best_start = -1, 0
    for first, _ in spans:  # windows that start a little before a match
        start = max(0, first - width // 4)
        covered = sum(min(e, start + width) - max(s, start) for s, e in spans if s < start + width and e > start)
        if covered > best:
            best, best_start = covered, start
    start = best_start
    if start > 0:  # begin at a line or word break near the start
        newline = text.rfind("\n", max(0, start - 80), start)
        space = text.rfind(" ", max(0, start - 20), start)
        start = newline + 1 if newline >= 0 else (space + 1 if space >= 0 else start)
    end = min(len(text), start + width)
    if end < len(text):
        space = text.rfind(" ", end - 40, end)
        end = space if space > start else end
    return start, end


def passage(text: str, query: str, width: int = 400) -> Markup:
    """The part of ``text`` that best matches ``query`` (:func:`best_window`), highlighted, with '…'
    where it was cut."""
    start, end = best_window(text, query, width)
    piece = text[start:end]
    body = highlight(piece, query)
    return Markup("").join([Markup("… ") if start > 0 else Markup(""), body, Markup(" …") if end < len(text) else Markup("")])
