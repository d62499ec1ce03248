"""Evaluation: score chunking configurations × retrieval modes on questions with known evidence.

    datasets  Chroma-format benchmarks and folder + JSONL questions, evidence located in parsed text
    configs   the configurations compared (seams' default, variants, fixed-size baselines)
    metrics   Chroma's character-range metrics, rank metrics, intrinsic checks (pure functions)
    results   what a run is asked and produces: options, costs, per-query scores, the Evaluation
    runner    the ``seams-evaluate`` Prefect flow: cut, embed (cached), write a KB each, retrieve, score
    report    Markdown, CSV, PNG and Prefect artifacts
    console   what ``seams evaluate`` prints

The public API is :func:`evaluate_flow` and the loaders; ``seams evaluate`` is the command.
"""

from __future__ import annotations

from flows.evaluate.configs import DEFAULT_CONFIGS, Configuration, configurations
from flows.evaluate.datasets import Dataset, Excerpt, Question, SpanLocator, load_chroma, load_folder
from flows.evaluate.results import Evaluation, Options
from flows.evaluate.runner import evaluate_flow
from flows.index.search import MODES

__all__ = [
    "DEFAULT_CONFIGS", "MODES", "Configuration", "Dataset", "Evaluation", "Excerpt", "Options", "Question",
    "SpanLocator", "configurations", "evaluate_flow", "load_chroma", "load_folder",
]
