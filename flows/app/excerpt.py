"""The part of a hit's text worth showing: the lines where the question's words are, not the first ones.

A chunk can be a whole short file of seventy lines; its first lines are often a title and an
introduction while the answer sits in the middle. :func:`excerpt` picks the window of lines that
holds the most of the question's words (rare words in the chunk weigh more, a few common English
words not at all), and within a very long line the stretch around the first match. Words are
matched as the full-text search matches them, loosely: lower case, and for scripts written without
spaces between a word and its particles (Korean, e.g. 책임자는 in the question, 책임자 in the text) the
longest leading part of at least two characters that the text holds.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

#: Question words that say nothing about where the answer is.
STOP_WORDS = frozenset(
    "a an and are as at be by can do does for from how i in is it many much of on or the this that to was "
    "what when where which who why will with you your".split())
#: Characters shown of one long window; the rest is cut around the first match.
MAX_CHARS = 600


@dataclass(frozen=True)
class Excerpt:
    text: str  # the lines shown (cut to MAX_CHARS around the first match)
    above: int  # lines of the chunk before them
    below: int  # lines after them
    terms: tuple[str, ...]  # the forms of the question's words found in the text, longest first


def query_terms(query: str) -> list[str]:
    """The question's words, lower-cased, without stop words and one-letter Latin words."""
    words = re.findall(r"\w+", query.lower())
    return list(dict.fromkeys(w for w in words if w not in STOP_WORDS and (len(w) > 1 or not w.isascii())))


def _form_in(term: str, line: str) -> str | None:
    """The longest form of ``term`` that ``line`` (lower-cased) holds: the word itself, or for a
    non-Latin word its longest leading part of two characters or more (particles attach to words)."""
    if term in line:
        return term
    if term.isascii():
        return None
    for end in range(len(term) - 1, 1, -1):
        if term[:end] in line:
            return term[:end]
    return None


def excerpt(text: str, query: str, lines: int = 8) -> Excerpt:
    """The ``lines`` consecutive lines of ``text`` holding the most weight of the question's words
    (the first lines when none is found)."""
    split = text.split("\n")
    lowered = [line.lower() for line in split]
    terms = query_terms(query)
    # credit[term][i]: how much of the word line i holds (1 for the whole word, less for a leading part)
    forms = {term: [_form_in(term, line) for line in lowered] for term in terms}
    credit = {term: [len(f) / len(term) if f else 0.0 for f in found] for term, found in forms.items()}
    # A word on few lines tells more than one on many (idf over the chunk's lines)
    weight = {term: math.log(1 + len(split) / held) for term, c in credit.items() if (held := sum(1 for x in c if x))}

    def covered(first: int) -> float:
        return sum(w * max(credit[term][first:first + lines]) for term, w in weight.items())

    def score(i: int) -> float:
        return sum(w * credit[term][i] for term, w in weight.items())

    start = 0
    if weight and len(split) > lines:
        starts = range(len(split) - lines + 1)
        best = max(covered(first) for first in starts)
        start = next(first for first in starts if covered(first) == best)
        # The earliest such window can end at the match: start one line above its best line (the
        # most weight of words on one line) instead, when the window then still holds as much
        best_line = max(range(start, start + lines), key=lambda i: (score(i), -i))
        later = min(max(0, best_line - 1), len(split) - lines)
        if covered(later) == best:
            start = later
    shown = split[start:start + lines]
    while len(shown) > 1 and not shown[0].strip():  # a blank line above the match says nothing
        shown, start = shown[1:], start + 1
    found = {f for term in weight for f in forms[term][start:start + len(shown)] if f}
    body = "\n".join(shown)
    ordered = tuple(sorted(found, key=len, reverse=True))
    # Cut a long window around its line that holds the most of the question's words, not around
    # the first word found: a table's header names the year asked for, its row is further down.
    best = max(range(len(shown)), key=lambda i: (score(start + i), -i)) if weight else 0
    anchor = sum(len(line) + 1 for line in shown[:best])
    return Excerpt(_cut(body, ordered, anchor), start, max(0, len(split) - start - len(shown)), ordered)


def _cut(body: str, forms: tuple[str, ...], anchor: int = 0) -> str:
    """``body`` cut to about :data:`MAX_CHARS` around the first match at or after ``anchor`` (the
    start of the line that matters most), on spaces, '…' where cut."""
    if len(body) <= MAX_CHARS:
        return body
    lowered = body.lower()
    hits = [lowered.find(form, anchor) for form in forms if form in lowered[anchor:]]
    at = min(hits) if hits else anchor
    begin = max(0, min(at - MAX_CHARS // 3, len(body) - MAX_CHARS))
    end = min(len(body), begin + MAX_CHARS)  # before the start moves back to a space: a window that
    # reaches the end of the text keeps it, a few characters over MAX_CHARS at most
    if begin > 0:
        space = body.rfind(" ", 0, begin + 1)
        begin = space + 1 if space > begin - 40 else begin
    if end < len(body):
        space = body.rfind(" ", begin, end)
        end = space if space > end - 40 else end
    return ("…" if begin > 0 else "") + body[begin:end] + ("…" if end < len(body) else "")
