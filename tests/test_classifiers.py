"""The rule-based classifier: rules as data, settings that drop or re-point rules, overrides by
glob, and sensible decisions on the sample folder and the shared sample documents."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import EXAMPLES, SAMPLES

from classifiers import DEFAULT_RULES, Decision, Facts, Rule, build_rules, classify, gather_facts, rule_names
from parsers.model import Block, Document, Locator, PageInfo, Properties


def facts(**changes) -> Facts:
    base = {"name": "a.pdf", "format": "pdf", "tokens": 5000, "pages": 10, "chars_per_page": 2000.0,
            "landscape_share": 0.0, "table_share": 0.0, "declared_headings": 0, "markers": {},
            "max_tokens": 1100}
    return Facts(**{**base, **changes})


def test_rules_are_ordered_data_ending_with_a_default():
    names = rule_names()
    assert len(names) == len(set(names)), "rule names are unique"
    assert names[0] == "spreadsheet-format" and names[-1] == "default"
    assert DEFAULT_RULES[-1].test(facts()) is not None, "the default always fires"
    assert names.index("section-markers") < names.index("sparse-pages"), "structure found beats sparse pages"


@pytest.mark.parametrize(("changes", "strategy", "rule"), [
    ({"format": "xlsx"}, "sheet", "spreadsheet-format"),
    ({"format": "pptx"}, "slide", "presentation-format"),
    ({"tokens": 800}, "whole", "short-document"),
    ({"landscape_share": 1.0, "chars_per_page": 300.0}, "page", "slide-like-pages"),
    ({"name": "kickoff_slides.pdf", "chars_per_page": 900.0}, "page", "slide-name"),
    ({"markers": {"legal_article": 12, "legal": 3}}, "section", "legal-articles"),
    ({"format": "docx", "declared_headings": 9}, "section", "declared-headings"),
    ({"markers": {"box": 4, "circle": 9}, "chars_per_page": 300.0}, "section", "section-markers"),
    ({"toc_lines": 12}, "section", "table-of-contents"),
    ({"chars_per_page": 300.0}, "page", "sparse-pages"),
    ({"table_share": 0.8}, "page", "table-heavy"),
    ({}, "page", "pdf-pages"),
    ({"format": "txt", "markers": {"dash": 40}}, "general", "default"),
])
def test_first_rule_that_fires_decides(changes, strategy, rule):
    decision = classify(facts(**changes))
    assert (decision.strategy, decision.rule) == (strategy, rule)
    assert decision.evidence, "every decision says why"


def test_build_rules_drops_and_repoints_rules():
    rules = build_rules(disabled=["sparse-pages"], strategies={"pdf-pages": "general", "default": "whole"})
    assert "sparse-pages" not in rule_names(rules)
    assert classify(facts(chars_per_page=300.0), rules) == Decision(
        "general", "pdf-pages", "PDF without section markers: pages are its seams")
    assert classify(facts(format="txt"), rules).strategy == "whole"
    assert rule_names(DEFAULT_RULES)[-1] == "default" and DEFAULT_RULES[-1].strategy == "general", "defaults untouched"


def test_build_rules_checks_strategy_names_with_the_splitters():
    from splitters import get_strategy

    assert build_rules(strategies={"pdf-pages": "tokens:250/125"}, check_strategy=get_strategy)
    with pytest.raises(ValueError, match=r"unknown strategy 'pages'; known: .*general, page"):
        build_rules(strategies={"pdf-pages": "pages"}, check_strategy=get_strategy)


def test_build_rules_adds_rules_before_the_default():
    minutes = Rule("meeting-minutes", "general",
                   lambda f: "minutes" if "회의록" in f.name else None)
    rules = build_rules(extra=[minutes])
    assert rule_names(rules)[-2:] == ("meeting-minutes", "default")
    assert classify(facts(name="회의록.txt", format="txt"), rules).rule == "meeting-minutes"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"disabled": ["sparse_pages"]}, "unknown rule name(s) 'sparse_pages'; known: spreadsheet-format"),
    ({"strategies": {"nope": "page"}}, "unknown rule name(s) 'nope'"),
    ({"disabled": ["default"]}, "cannot be disabled"),
    ({"strategies": {"default": ""}}, "empty strategy"),
    ({"extra": [Rule("default", "page", lambda f: None)]}, "already used"),
])
def test_build_rules_rejects_unknown_names(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        build_rules(**kwargs)


def test_overrides_match_the_relative_path_or_the_name():
    decision = classify(facts(name="slides/q4.pdf"), overrides={"slides/*.pdf": "page"})
    assert (decision.strategy, decision.rule) == ("page", "override:slides/*.pdf")
    assert classify(facts(name="deep/dir/q4.pdf"), overrides={"q4.*": "whole"}).strategy == "whole"
    assert classify(facts(name="other.pdf"), overrides={"slides/*.pdf": "page"}).rule == "pdf-pages"


def test_gather_facts_counts_header_families_and_toc_lines(counter):
    toc = "목 차\n제1장 총칙 ········ 1\n제2장 운영 ········ 4\n제3장 보칙 ········ 9"
    body = "\n".join(f"제{n}조(조문{n}) 이 규정은 제{n - 1}조에 따라 운영한다." for n in range(2, 8))
    doc = Document("규정.txt", "txt", (Block("paragraph", toc), Block("paragraph", "제1장 총칙\n" + body)))
    found = gather_facts(doc, counter(doc.text), 1100)
    assert found.toc_lines == 3
    assert found.markers == {"legal": 1, "legal_article": 6}, "TOC lines and cross-references are not counted"


def test_report_with_page_breaks_is_cut_at_sections_not_pages(counter):
    lines = ["□ 추진 배경", "○ 지역 간 격차가 확대되고 있음", "□ 추진 목적", "○ 생산성을 20% 높임", "□ 향후 일정",
             "○ 3월 공고"] * 4
    blocks = tuple(Block("paragraph", line, Locator(page=1 + i // 3)) for i, line in enumerate(lines))
    pages = tuple(PageInfo(n, 595, 842, 60) for n in range(1, 9))
    doc = Document("보고서.pdf", "pdf", blocks, Properties(pages=pages))
    decision = classify(gather_facts(doc, counter(doc.text), 100))
    assert (decision.strategy, decision.rule) == ("section", "section-markers")


EXPECTED = {  # file → (strategy, rule) the default rules should choose
    "sales_2025.xlsx": ("sheet", "spreadsheet-format"),
    "stations.csv": ("sheet", "spreadsheet-format"),
    "quarterly_review.pptx": ("slide", "presentation-format"),
    "개인정보_보호_규정.pdf": ("section", "legal-articles"),
    "정책보고서_2026.pdf": ("section", "declared-headings"),
    "README_project.md": ("whole", "short-document"),
    "employee_handbook.docx": ("whole", "short-document"),
}


def _decide(path: Path, counter) -> Decision:
    from parsers import parse

    doc = parse(path)
    return classify(gather_facts(doc, counter(doc.text), 1100, path.name))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_folder_decisions(name, counter):
    path = EXAMPLES / name
    if not path.exists():
        pytest.skip(f"{path} not generated")
    decision = _decide(path, counter)
    assert (decision.strategy, decision.rule) == EXPECTED[name], decision.evidence


SHARED_EXPECTED = {
    "stanley-cups.xlsx": "sheet", "stanley-cups-utf-16.csv": "sheet", "emoji.xlsx": "sheet",
    "fake-power-point-table.pptx": "slide", "docx-tables.docx": "whole", "fake-html-cp1252.html": "whole",
    "copy-protected.pdf": "page", "korean-text-with-tables.pdf": "page",
}


@pytest.mark.parametrize("name", sorted(SHARED_EXPECTED))
def test_shared_sample_decisions(name, counter):
    path = SAMPLES / name
    if not path.exists():
        pytest.skip(f"{path} missing")
    assert _decide(path, counter).strategy == SHARED_EXPECTED[name]


# ------------------------------------------------------------------------------------ seams inspect

REGULATION = ("제1장 총칙\n제1조(목적) 이 규정은 목적을 정한다.\n제2조(정의) 용어의 뜻은 다음과 같다.\n"
              "제2장 운영\n제3조(운영) 제1조에 따라 운영한다.\n") * 30


def test_inspect_shows_decision_facts_and_chunks(tmp_path, capsys):
    from flows.app.console import inspect_file
    from flows.settings import Settings

    path = tmp_path / "규정.txt"
    path.write_text(REGULATION, "utf-8")
    assert inspect_file(path, Settings()) == 0
    out = capsys.readouterr().out
    assert "strategy section — rule legal-articles" in out
    assert "facts:" in out and "legal_article×" in out
    first = re.search(r"#0 · (\d+) tokens · chars 0-(\d+)", out)
    assert first, "chunk rules carry tokens and locator"
    assert 100 <= int(first.group(1)) <= 1150, "whole chapters of short articles pack up to the max"
    assert re.search(r"#1 · \d+ tokens · chars \d+-\d+", out)


def test_inspect_counts_the_furniture_lines_and_the_distinct_ones_it_shows(capsys):
    """A running header and page numbers on three pages: six lines set aside, four distinct texts
    shown (it said "6 lines —" and listed four)."""
    from conftest import EXAMPLES

    from flows.app.console import inspect_file
    from flows.settings import Settings

    assert inspect_file(EXAMPLES / "개인정보_보호_규정.pdf", Settings()) == 0
    out = capsys.readouterr().out
    assert "furniture set aside (not in any chunk): 6 lines, 4 distinct — '한빛지역정보진흥원 개인정보 보호 규정', " \
           "'- 1 -', '- 2 -', '- 3 -'" in out


def test_inspect_one_chunk_in_full(tmp_path, capsys):
    from flows.app.console import inspect_file
    from flows.settings import Settings

    path = tmp_path / "규정.txt"
    path.write_text(REGULATION, "utf-8")
    assert inspect_file(path, Settings(), as_json=True) == 0
    everything = json.loads(capsys.readouterr().out)
    assert set(everything) == {"file", "format", "blocks", "chars", "warnings", "ocr_pages", "unread_pages", "furniture", "decision",
                               "chunks"}, \
        "stable keys"
    last = len(everything["chunks"]) - 1
    assert inspect_file(path, Settings(), as_json=True, chunk=-1) == 0
    one = json.loads(capsys.readouterr().out)
    assert one["chunk"] == last and one["chunks"] == everything["chunks"][-1:]
    assert inspect_file(path, Settings(), chunk=last) == 0
    out = capsys.readouterr().out
    assert f"#{last} ·" in out and "#0 ·" not in out
    assert everything["chunks"][-1]["text"].splitlines()[-1] in out, "the chosen chunk is printed in full"
    assert inspect_file(path, Settings(), chunk=last + 1) == 2
    assert "out of range" in capsys.readouterr().out
