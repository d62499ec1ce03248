"""Search previews show the lines that hold the question's words (issue #37), on the example files."""

from __future__ import annotations

import pytest
from conftest import EXAMPLES

from flows.app.console import print_hits
from flows.app.excerpt import MAX_CHARS, excerpt, query_terms
from parsers import parse


@pytest.fixture(scope="module")
def handbook() -> str:
    return parse(EXAMPLES / "employee_handbook.docx").text


@pytest.fixture(scope="module")
def regulation() -> str:
    return parse(EXAMPLES / "개인정보_보호_규정.pdf").text


def test_the_answer_in_the_middle_of_a_long_chunk_is_shown(handbook, capsys):
    """The handbook's leave table was hidden in "… (62 more lines)" under its title and welcome."""
    question = "How many days of annual leave do new employees get?"
    assert query_terms(question) == ["days", "annual", "leave", "new", "employees", "get"]
    part = excerpt(handbook, question)
    assert "Annual leave | 연차 | 15–25" in part.text and "Welcome" not in part.text
    assert part.above > 10 and part.below > 10 and {"annual", "leave", "days"} <= set(part.terms)
    print_hits([{"doc_id": "employee_handbook.docx", "where": "whole file", "score": 0.5, "text": handbook}],
               query=question)
    out = capsys.readouterr().out
    assert f"… ({part.above} lines above)" in out and "15–25" in out and f"… ({part.below} more lines)" in out


def test_korean_words_with_particles_find_their_article(regulation):
    """보호책임자는 (with its particle) in the question, 보호책임자 in the article's title line."""
    part = excerpt(regulation, "개인정보 보호책임자는 누구인가")
    assert part.text.startswith("제4조(개인정보 보호책임자)"), part.text


def test_no_word_found_shows_the_first_lines_and_a_long_line_is_cut_around_the_match():
    text = "\n".join(f"line {i}" for i in range(20))
    assert excerpt(text, "nothing here matches").text == "\n".join(f"line {i}" for i in range(8))
    long = "filler words " * 200 + "the retention period is five years " + "more filler " * 200
    part = excerpt(long, "retention period")
    assert "retention period is five years" in part.text and part.text.startswith("…") and part.text.endswith("…")
    assert len(part.text) <= MAX_CHARS + 2


def test_a_long_window_is_cut_around_the_line_that_holds_most_of_the_question():
    """A table chunk: its header names the year asked for, long rows follow, and the row the question
    names comes last. The window was cut around the first word found (the year in the header), so
    the row was cut off; it is cut around the line holding most of the question's words."""
    rows = [f"{n}) Voce di bilancio numero {n} con una descrizione lunga " * 4 + f"| {n}.000 | {n}.100" for n in range(1, 4)]
    text = "\n".join(["CONTO ECONOMICO | 2016 | 2017", *rows, "9) Costi del personale | 9.791.000 | 8.524.000"])
    assert len(text) > MAX_CHARS
    part = excerpt(text, "Costi del personale 2017")
    assert part.text.endswith("9) Costi del personale | 9.791.000 | 8.524.000"), part.text[-120:]
