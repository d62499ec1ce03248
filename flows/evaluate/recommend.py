"""``seams evaluate --recommend``: sizes per strategy, chosen by the user's own questions.

The classifier picks a strategy for each file of the folder (sections, sheets, slides, pages,
general). For each strategy it picks, the evaluation adds variants of the default that change the
sizes of that strategy's files only (``--variant only=STRATEGY,…``, :data:`SWEEP`); each is scored
on the questions about those files, in one retrieval mode (hybrid, the default, when it was run).
A variant replaces the default only when it puts more questions' evidence in the top k, or as many
with more recall; the winners print as ``seams ingest --budget STRATEGY:…`` flags.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from flows.evaluate.configs import DEFAULT, variant
from flows.evaluate.datasets import Dataset
from flows.evaluate.results import Evaluation
from flows.ingest.pipeline import CutConfig, decide
from splitters import Budget, cl100k_counter

#: The sizes tried for each strategy (``seams ingest --budget STRATEGY:SPEC`` takes the same form).
SWEEP = ("pack=250", "pack=800", "max=600,pack=300")
#: Strategies whose sizes change anything (``whole`` keeps a short file as one chunk).
TUNABLE = ("general", "page", "section", "sheet", "slide")


def file_strategies(dataset: Dataset) -> dict[str, str]:
    """doc_id -> the strategy the classifier picks for it with the default settings."""
    count = cl100k_counter()
    config = CutConfig(Budget())
    return {doc_id: decide(doc, count(doc.text), config, doc_id).strategy for doc_id, doc in dataset.documents.items()}


def sweep_variants(strategies: dict[str, str], dataset: Dataset) -> list[str]:
    """The ``--variant`` specifications to run: :data:`SWEEP` for each tunable strategy that some
    scored question's file is given."""
    asked = {strategies.get(e.doc_id) for q in dataset.questions for e in q.excerpts}
    return [f"only={kind},{spec}" for kind in TUNABLE if kind in asked for spec in SWEEP]


@dataclass(frozen=True)
class Choice:
    strategy: str
    files: int
    questions: int
    #: (specification, or "" for the default; hit@k; recall) for every size tried, the default first
    scores: tuple[tuple[str, float, float], ...]

    @property
    def best(self) -> tuple[str, float, float]:
        return max(self.scores, key=lambda s: (round(s[1], 9), round(s[2], 9)))  # max keeps the first of equals


def choose(evaluation: Evaluation, strategies: dict[str, str], mode: str) -> list[Choice]:
    """For each strategy swept, the default's and every variant's hit@k and recall on the questions
    whose evidence is in that strategy's files."""
    by_config: dict[str, dict[str, tuple[float, float]]] = {}
    for score in evaluation.scores:
        if score.mode == mode:
            by_config.setdefault(score.configuration, {})[score.qid] = (float(score.hit), score.recall)
    choices = []
    for kind in TUNABLE:
        qids = [q.qid for q in evaluation.dataset.questions
                if q.excerpts and strategies.get(q.excerpts[0].doc_id) == kind]
        names = [(spec, variant(f"only={kind},{spec}").name) for spec in SWEEP]
        if not qids or not all(name in by_config for _, name in names):
            continue
        rows = []
        for spec, name in [("", DEFAULT), *names]:
            values = [by_config[name][q] for q in qids if q in by_config[name]]
            rows.append((spec, statistics.fmean(v[0] for v in values), statistics.fmean(v[1] for v in values)))
        files = sum(1 for s in strategies.values() if s == kind)
        choices.append(Choice(kind, files, len(qids), tuple(rows)))
    return choices


def ingest_flags(choices: Sequence[Choice]) -> str:
    """The winners as ``seams ingest`` flags ("" when the default wins everywhere)."""
    return " ".join(f"--budget {c.strategy}:{c.best[0]}" for c in choices if c.best[0])
