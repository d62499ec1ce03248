"""Locating gold evidence in parsed text, and the two data-set loaders (Chroma format, folder + JSONL)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from conftest import CHROMA, EXAMPLES

from flows.evaluate.configs import configuration, configurations, variant
from flows.evaluate.datasets import SpanLocator, load_chroma, load_folder, read_questions

# -- the span locator -------------------------------------------------------------------------------


def test_exact_match_wins():
    found = SpanLocator("alpha beta gamma").find("beta")
    assert (found.start, found.end, found.method, found.occurrences) == (6, 10, "exact", 1)


def test_whitespace_normalised_match_maps_back_to_the_original_offsets():
    text = "Intro.\n\nThe quick   brown\nfox jumps.\n\nEnd."
    found = SpanLocator(text).find("quick brown fox\tjumps.")
    assert found.method == "whitespace"
    assert text[found.start:found.end] == "quick   brown\nfox jumps."


def test_loose_match_ignores_markup_and_case():
    text = "Sales\n\nregion | q1 | q2\nNorth | 10 | 12"
    found = SpanLocator(text).find("## SALES region q1")
    assert found.method == "loose"
    assert text[found.start:found.end] == "Sales\n\nregion | q1"


def test_the_hint_picks_the_nearest_occurrence():
    text = "same words here. other. same words here. more. same words here."
    locator = SpanLocator(text)
    assert locator.find("same words").start == 0
    assert locator.find("same words", hint=30).start == text.index("same words", 10)
    assert locator.find("same words", hint=len(text)).start == text.rindex("same words")
    assert locator.find("same words").occurrences == 3


def test_missing_evidence_is_none():
    locator = SpanLocator("alpha beta")
    assert locator.find("gamma") is None
    assert locator.find("   ") is None


# -- Chroma format ----------------------------------------------------------------------------------
def _chroma_folder(root: Path) -> tuple[Path, str]:
    (root / "corpora").mkdir(parents=True)
    raw = ("# Report\n\nThe  first   paragraph talks about rivers.\n\n"
           "Repeated line.\n\nMiddle part.\n\nRepeated line.\n\n- a list item about lakes\n")
    (root / "corpora" / "doc.md").write_text(raw, encoding="utf-8")
    second = raw.rindex("Repeated line.")
    refs = [
        [{"content": "The  first   paragraph", "start_index": raw.index("The"), "end_index": raw.index("The") + 22}],
        [{"content": "Repeated line.", "start_index": second, "end_index": second + 14}],
        [{"content": "not in the text at all", "start_index": 0, "end_index": 22}],
    ]
    with open(root / "questions_df.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "references", "corpus_id"])
        for number, ref in enumerate(refs):
            writer.writerow([f"question {number}?", json.dumps(ref), "doc"])
    return root, raw


def test_chroma_references_are_mapped_into_the_parsed_text(tmp_path):
    root, _ = _chroma_folder(tmp_path / "bench")
    data = load_chroma(root)
    text = data.documents["doc.md"].text
    assert "# Report" not in text  # the parser dropped the Markdown marker: offsets moved
    first, second = data.questions
    assert text[first.excerpts[0].start:first.excerpts[0].end] == "The first paragraph"
    assert first.excerpts[0].method == "whitespace"
    # The raw offset of the second "Repeated line." picks the second occurrence in the parsed text.
    assert second.excerpts[0].start == text.rindex("Repeated line.")
    assert [u.qid for u in data.unlocated] == ["q0002"]
    assert data.methods == {"whitespace": 1, "exact": 1}
    assert data.group_by == "corpus" and first.group == "doc"


@pytest.mark.skipif(not CHROMA.exists(), reason="../shared/bench/chroma missing")
def test_every_chroma_reference_is_located():
    data = load_chroma(CHROMA)
    assert len(data.questions) == 472 and not data.unlocated
    assert sum(data.methods.values()) == data.excerpts
    assert data.methods["exact"] > 0.9 * data.excerpts


# -- folder + JSONL -----------------------------------------------------------------------------------
def _folder(root: Path) -> Path:
    root.mkdir()
    (root / "notes.md").write_text("# Notes\n\nThe cafeteria opens at  8 am.\n\n| item | price |\n|---|---|\n"
                                   "| tea | 2 |\n", encoding="utf-8")
    (root / "plain.txt").write_text("Parking is free on Sundays.\nBikes go in the yard.\n", encoding="utf-8")
    lines = [
        {"id": "cafe", "question": "When does the cafeteria open?", "file": "notes.md",
         "evidence": "The cafeteria opens at 8 am."},
        {"question": "Where do bikes go?", "file": "plain.txt", "evidence": ["Bikes go in the yard."]},
        {"question": "What does tea cost?", "file": "notes.md", "evidence": ["tea | 2"]},
        {"id": "ghost", "question": "Is there a gym?", "file": "notes.md", "evidence": ["The gym is open."]},
        {"id": "nofile", "question": "?", "file": "missing.pdf", "evidence": ["x"]},
    ]
    questions = root.parent / "questions.jsonl"
    questions.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    return questions


def test_folder_questions_are_located_and_unlocatable_ones_reported(tmp_path):
    questions = _folder(tmp_path / "docs")
    data = load_folder(tmp_path / "docs", questions)
    assert set(data.documents) == {"notes.md", "plain.txt"}
    assert [q.qid for q in data.questions] == ["cafe", "line2", "line3"]
    cafe = data.questions[0].excerpts[0]
    assert data.documents["notes.md"].text[cafe.start:cafe.end] == "The cafeteria opens at 8 am."
    assert {q.group for q in data.questions} == {"md", "txt"}
    reasons = {u.qid: u.reason for u in data.unlocated}
    assert set(reasons) == {"ghost", "nofile"}
    assert "evidence not found" in reasons["ghost"] and "The gym is open." in reasons["ghost"]
    assert "missing.pdf" in reasons["nofile"]


def test_bad_jsonl_lines_name_their_line(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"question": "a", "file": "f", "evidence": "e"}\nnot json\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"q.jsonl:2"):
        read_questions(path)
    path.write_text('{"question": "a", "file": "f"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="missing evidence"):
        read_questions(path)


# -- configurations -------------------------------------------------------------------------------------
def test_configurations_by_name_and_variants():
    names = [c.name for c in configurations()]
    assert names[0] == "seams" and "tokens:250/125" in names and names[-1] == "none"
    assert configuration("tokens:250/125").baseline and configuration("none").reference
    assert not configuration("seams").baseline and configuration("seams").size_limit == 1150
    small = variant("max=400,heading=on")
    assert small.name == "seams max=400,heading=on"
    assert (small.budget.max_tokens, small.budget.min_tokens, small.heading_path) == (400, 100, True)
    assert small.kb("use-multilingual") == "eval_seams-max-400-heading-on_use-multilingual"
    assert small.kb("use-multilingual", "files") == "eval_files_seams-max-400-heading-on_use-multilingual", \
        "two data sets evaluated into one database keep their tables apart"
    assert configuration("seams").label_rows == "off"
    assert [variant(f"rows={rows}").label_rows for rows in ("labelled", "embedded", "plain")] == ["all", "embed", "off"]
    with pytest.raises(ValueError, match="rows=labelled"):
        variant("rows=some")
    with pytest.raises(ValueError, match="known: max"):
        variant("size=3")
    with pytest.raises(ValueError, match="unknown configuration"):
        configuration("tokens:abc")


def test_a_variant_for_one_strategy_cuts_only_the_files_given_that_strategy(tmp_path):
    """``only=sheet,pack=…`` measures a budget for one strategy: sheets get it, the rest the default."""
    from flows.evaluate.runner import cut_configuration

    header = "지역,품목,수량,단가,비고"
    rows = [f"{region},품목{n:03d},{n * 7},{n * 1300},비고 {n} 납품 완료" for n in range(400)
            for region in ("서울", "부산")[n % 2:n % 2 + 1]]
    (tmp_path / "sales.csv").write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    sections = "\n\n".join(f"## 제{n}조 (목적)\n\n" + "이 규정은 직원의 출장에 관한 사항을 정한다. " * 30 for n in range(1, 9))
    (tmp_path / "rules.md").write_text("# 출장 규정\n\n" + sections, encoding="utf-8")
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"question": "q", "file": "sales.csv", "evidence": ["품목007"]}) + "\n",
                         encoding="utf-8")
    data = load_folder(tmp_path, questions)

    sheets_small = variant("only=sheet,pack=120")
    assert (sheets_small.name, sheets_small.only, sheets_small.strategy) == ("seams pack=120,only=sheet", "sheet", None)
    default, _ = cut_configuration(data, configuration("seams"))
    varied, _ = cut_configuration(data, sheets_small)
    sheet, rules = (next(d for d in data.documents if d.endswith(name)) for name in ("sales.csv", "rules.md"))
    assert default[sheet][0].strategy == varied[sheet][0].strategy == "sheet"
    assert len(varied[sheet][1]) > 2 * len(default[sheet][1]), "the sheet is cut with the variant's pack"
    assert max(c.tokens for c in varied[sheet][1]) < 200
    assert [c.text for c in varied[rules][1]] == [c.text for c in default[rules][1]], "other files keep the default"
    with pytest.raises(ValueError, match="give one of them"):
        variant("only=sheet,strategy=page")
    with pytest.raises(ValueError):
        variant("only=spreadsheet")


# -- the bundled examples -----------------------------------------------------------------------------
EXAMPLE_QUESTIONS = EXAMPLES / "questions.jsonl"


@pytest.mark.skipif(not EXAMPLE_QUESTIONS.exists(), reason="examples/questions.jsonl missing")
def test_every_example_question_locates_in_its_file():
    data = load_folder(EXAMPLES, EXAMPLE_QUESTIONS)
    assert not data.unlocated, [u.reason for u in data.unlocated]
    assert len(data.questions) >= 20 and len({q.group for q in data.questions}) >= 5
    assert "questions.jsonl" not in data.documents and "make_examples.py" not in data.documents


def test_a_folder_with_no_document_is_a_usage_error_not_a_crash(tmp_path):
    """A folder of symbolic links only (ingest does not follow them) gave evaluate nothing to index,
    and it crashed on the empty table (exit 4); it is a usage error that says why."""
    from flows.errors import UsageError

    questions = _folder(tmp_path / "real")
    links = tmp_path / "links"
    links.mkdir()
    for path in (tmp_path / "real").iterdir():
        (links / path.name).symlink_to(path)
    with pytest.raises(UsageError, match=r"no document to evaluate in .*links \(symbolic links are not followed"):
        load_folder(links, questions)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "bad.pdf").write_bytes(b"%PDF-1.7\nnot a pdf")
    with pytest.raises(UsageError, match=r"1 failed to parse, e\.g\. bad\.pdf"):
        load_folder(tmp_path / "broken", questions)
