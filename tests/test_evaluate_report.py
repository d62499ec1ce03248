"""Report aggregation on a hand-made evaluation: means, loss sets, the Markdown and the files."""

from __future__ import annotations

import csv

from flows.evaluate.configs import configuration
from flows.evaluate.datasets import Dataset, Excerpt, Question
from flows.evaluate.report import loss_sets, markdown, summary_rows, write_report
from flows.evaluate.results import Cost, Evaluation, Options, QueryScore

CONFIGS = (configuration("seams"), configuration("tokens:200/0"), configuration("none"))


def _score(qid: str, config: str, mode: str, rank: int | None, recall: float) -> QueryScore:
    return QueryScore(qid, "g1" if qid == "a" else "g2", config, mode, rank, recall, recall / 10, recall / 12,
                      0.5, recall == 1.0, 1 / rank if rank and rank <= 5 else 0.0, 1.0, 1.0)


def _evaluation(seams_b: tuple[int | None, float] = (None, 0.0)) -> Evaluation:
    questions = (Question("a", "first question?", (Excerpt("d.md", 0, 5),), "g1"),
                 Question("b", "second question?", (Excerpt("d.md", 10, 15),), "g2"))
    dataset = Dataset("tiny", {}, {}, questions, group_by="corpus")
    ranks = {  # (qid, config) -> (rank, recall)
        ("a", "seams"): (1, 1.0), ("a", "tokens:200/0"): (3, 0.5), ("a", "none"): (1, 1.0),
        ("b", "seams"): seams_b, ("b", "tokens:200/0"): (2, 1.0), ("b", "none"): (1, 1.0),
    }
    scores = tuple(_score(q, c, "vector", *v) for (q, c), v in ranks.items())
    costs = tuple(Cost(c.name, 3, 100.0, 100.0, 1000, 0.1, 0.2, 3, 0, 0.1, 1.0, 0.0, 0, 0) for c in CONFIGS)
    return Evaluation(dataset, CONFIGS, Options(modes=("vector",)), costs, scores)


def test_summary_means_per_configuration_and_mode():
    rows = {r["configuration"]: r for r in summary_rows(_evaluation())}
    assert rows["seams"]["recall"] == 0.5 and rows["tokens:200/0"]["recall"] == 0.75
    assert rows["seams"]["hit"] == 0.5 and rows["none"]["reference"] and not rows["seams"]["reference"]


def test_loss_sets_compare_with_the_best_non_reference_configuration():
    losses = loss_sets(_evaluation(), "vector")
    assert [(loss.qid, loss.rank, loss.best_rank) for loss in losses["tokens:200/0"]] == [("a", 3, 1)]
    assert [(loss.qid, loss.rank, loss.best) for loss in losses["seams"]] == [("b", None, ("tokens:200/0",))]
    assert losses["seams"][0].lost_from_top(5) and not losses["tokens:200/0"][0].lost_from_top(5)
    assert losses["none"] == []  # rank 1 everywhere, and never the one that sets the best


def test_markdown_and_files(tmp_path):
    evaluation = _evaluation()
    text = markdown(evaluation)
    assert "## Summary — vector" in text and "none (reference)" in text
    assert "best recall **tokens:200/0**" in text  # the reference's 100 % is not a headline
    assert "## recall % per corpus — vector" in text and "second question?" in text
    paths = write_report(evaluation, tmp_path / "out")
    with open(paths["ranks"], encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 6 and {r["rank"] for r in rows} == {"1", "2", "3", ""}
    assert paths["markdown"].read_text(encoding="utf-8").startswith("# seams evaluate — tiny")


def test_headlines_say_when_configurations_are_level():
    """A new user read "best recall tokens:200/0 (89.7 %)" and "higher recall than 1 of 6" where seams
    had the same recall as most baselines: a tie is named as one."""
    text = markdown(_evaluation(seams_b=(2, 0.5)))  # seams 1.0 and 0.5, tokens:200/0 0.5 and 1.0
    assert "level on recall with seams" in text or "level on recall with tokens:200/0" in text
    assert "higher recall than 0 of 1 fixed-size baselines, level with 1." in text
    assert "level" not in "".join(line for line in markdown(_evaluation()).splitlines() if line.startswith("- "))


def test_the_report_says_what_ocr_read_and_what_it_could_not():
    """The same files score differently on a machine with an OCR engine and one without (image-only
    pages are text only where it ran): the report says which it was, and a data set with no scan
    says nothing."""
    from dataclasses import replace

    from parsers.model import Document, PageInfo, Properties

    assert "OCR:" not in markdown(_evaluation())
    scanned = Document("a.pdf", "pdf", (), Properties(pages=(PageInfo(1, 595, 842, 0, ocr=88.0),
                                                            PageInfo(2, 595, 842, 900), PageInfo(3, 595, 842, 0, ocr=71.5))))
    unread = Document("b.pdf", "pdf", (), Properties(pages=(PageInfo(1, 595, 842, 0),),
                                                     unread=((1, "no OCR engine (install Tesseract)"),)))
    evaluation = _evaluation()
    evaluation = replace(evaluation, dataset=replace(evaluation.dataset, documents={"a.pdf": scanned, "b.pdf": unread}))
    text = markdown(evaluation)
    assert "OCR: 2 scanned page(s) of 1 file(s) read by OCR; scanned pages of 1 file(s) not read (`b.pdf`: no OCR " \
           "engine (install Tesseract))" in text
