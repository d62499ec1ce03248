"""Sizes per strategy (issue #39): ``--budget STRATEGY:KEY=VALUE`` in the settings, the cut, the CLI,
and ``seams evaluate --recommend`` choosing them on the bundled examples' questions."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from flows.app.cli import EXIT_USAGE, main
from flows.evaluate.configs import configurations, variant
from flows.evaluate.recommend import SWEEP, Choice, choose, file_strategies, ingest_flags
from flows.evaluate.runner import evaluate_flow
from flows.ingest.pipeline import CutConfig, cut_document
from flows.settings import Settings
from parsers import parse
from splitters import Budget

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_a_budget_names_a_strategy_and_its_sizes():
    settings = Settings(budgets={"sheet": "pack=250", "section": "max=800"})
    sheet, section = settings.strategy_budgets["sheet"], settings.strategy_budgets["section"]
    assert (sheet.min_tokens, sheet.max_tokens, sheet.pack) == (100, 1100, 250)
    assert section.max_tokens == 800 and section.merge_ceiling == Budget.ceiling_for(800) and section.pack == 500
    assert settings.fingerprint() != Settings().fingerprint()
    for bad in ({"sheets": "pack=250"}, {"sheet": "pak=250"}, {"sheet": "pack=lots"}, {"sheet": "min=900,max=800"}):
        with pytest.raises(ValidationError):
            Settings(budgets=bad)


def test_only_the_files_of_that_strategy_are_cut_with_its_budget():
    sheet = parse(str(EXAMPLES / "sales_2025.xlsx"))
    report = parse(str(EXAMPLES / "README_project.md"))
    small = CutConfig(Budget(), budgets={"sheet": Budget().adjusted("pack=250")})
    decision, chunks = cut_document(sheet, small, "sales_2025.xlsx")
    _, default_chunks = cut_document(sheet, CutConfig(Budget()), "sales_2025.xlsx")
    assert decision.strategy == "sheet"
    assert max(c.tokens for c in chunks) <= 250 < max(c.tokens for c in default_chunks)
    assert cut_document(report, small, "README_project.md") == cut_document(report, CutConfig(Budget()), "README_project.md")


def test_the_cli_refuses_a_budget_it_cannot_read(tmp_path, capsys):
    for bad in ("sheet", "sheet:", "sheets:pack=250", "sheet:pack=-"):
        assert main(["inspect", str(EXAMPLES / "sales_2025.xlsx"), "--budget", bad]) == EXIT_USAGE
    assert "--budget" in capsys.readouterr().err


def test_evaluate_scores_the_default_with_the_budgets_given():
    names = [c.name for c in configurations(["seams"], None, {"sheet": "pack=250"})]
    assert names == ["seams", "seams budgets=sheet:pack=250"]


def test_a_choice_keeps_the_default_unless_a_size_does_better():
    tie = Choice("sheet", 2, 3, (("", 1.0, 0.9), ("pack=250", 1.0, 0.9), ("pack=800", 0.5, 1.0)))
    better = Choice("section", 2, 3, (("", 0.5, 0.5), ("pack=800", 1.0, 0.6)))
    assert tie.best[0] == "" and better.best[0] == "pack=800"
    assert ingest_flags([tie, better]) == "--budget section:pack=800"


def test_recommend_sweeps_the_strategies_the_classifier_picks(tmp_path, prefect_harness):
    settings = Settings(db=str(tmp_path / "db"), embedder="hashing")
    evaluation = evaluate_flow("folder", str(EXAMPLES), str(EXAMPLES / "questions.jsonl"), ["seams"], k=5,
                               modes=["fts"], settings=settings, sweep=True)
    strategies = file_strategies(evaluation.dataset)
    names = {c.name for c in evaluation.configurations}
    assert {variant(f"only=sheet,{spec}").name for spec in SWEEP} <= names
    assert {variant(f"only=section,{spec}").name for spec in SWEEP} <= names
    choices = choose(evaluation, strategies, "fts")
    assert {c.strategy for c in choices} >= {"section", "sheet"}
    for choice in choices:
        assert [s for s, _, _ in choice.scores] == ["", *SWEEP]
        assert choice.questions == sum(1 for q in evaluation.dataset.questions
                                       if strategies[q.excerpts[0].doc_id] == choice.strategy)
