"""What ``seams evaluate`` shows: progress lines while it runs, then the summary table per mode."""

from __future__ import annotations

import re
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from flows.evaluate.report import METRICS, best_mode, summary_rows
from flows.settings import Settings


def _console(stderr: bool = False) -> Console:
    console = Console(stderr=stderr, highlight=False, soft_wrap=True)
    if not console.is_terminal:
        console.width = 200
    return console


def default_out(dataset_path: str, embedder: str) -> str:
    name = Path(dataset_path).resolve().name or "dataset"
    return str(Path("reports") / f"evaluate-{name}-{embedder}")


def run_recommend(path: str, questions: str, k: int, modes: list[str], settings: Settings, out: str | None,
                  limit: int | None, cohesion: bool = True):
    """``seams evaluate --recommend``: the default and the sizes swept per strategy, scored on the
    questions of each strategy's files; prints the winners as ``seams ingest`` flags."""
    from flows.evaluate.recommend import choose, file_strategies, ingest_flags

    evaluation = run_evaluate("folder", path, questions, ["seams"], None, k, modes, settings, out, limit, sweep=True,
                              cohesion=cohesion)
    mode = "hybrid" if "hybrid" in evaluation.options.modes else evaluation.options.modes[0]
    choices = choose(evaluation, file_strategies(evaluation.dataset), mode)
    stdout = _console()
    table = Table(title=f"sizes per strategy · {mode} · hit@{k} % / recall % on the questions of its files")
    for column in ("strategy", "files", "questions", "default", "tried", "best"):
        table.add_column(column)
    for choice in choices:
        spec, hit, recall = choice.best
        default = choice.scores[0]
        tried = ", ".join(f"{s}: {100 * h:.1f} / {100 * r:.1f}" for s, h, r in choice.scores[1:])
        table.add_row(choice.strategy, str(choice.files), str(choice.questions),
                      f"{100 * default[1]:.1f} / {100 * default[2]:.1f}", tried,
                      f"{spec or 'the default'} ({100 * hit:.1f} / {100 * recall:.1f})")
    stdout.print(table)
    flags = ingest_flags(choices)
    if flags:
        stdout.print(f"recommended: seams ingest {path} {flags}", markup=False)
        stdout.print("check them on questions about other files: seams evaluate --folder … --questions … "
                     f"--configs seams {flags}", markup=False)
    else:
        stdout.print("recommended: the default sizes (no size tried did better on these questions)")
    return evaluation, choices


def run_evaluate(source: str, path: str, questions: str | None, configs: list[str] | None,
                 variants: list[str] | None, k: int, modes: list[str], settings: Settings,
                 out: str | None, limit: int | None, sweep: bool = False, cohesion: bool = True):
    """Run the evaluation flow with progress on stderr; print the summary; return the Evaluation."""
    from flows.app.server import one_off_run, wait_for_api
    from flows.evaluate.runner import evaluate_flow, progress

    err = _console(stderr=True)
    started = time.perf_counter()
    out = out or default_out(path, re.sub(r"[^\w.-]+", "_", settings.embedder_spec))

    def on_progress(message: str) -> None:
        err.print(f"[dim]{time.perf_counter() - started:6.0f}s[/] {message}", markup=True)

    wait_for_api()
    with progress.listening(on_progress), one_off_run():
        evaluation = evaluate_flow(source, path, questions, configs, variants, k, modes, settings, out, limit, sweep,
                                   cohesion)
    print_summary(evaluation)
    stdout = _console()
    data = evaluation.dataset
    if data.unlocated:
        stdout.print(f"[yellow]{len(data.unlocated)} questions not scored (evidence not found in the parsed text):[/]")
        for item in data.unlocated[:10]:
            stdout.print(f"  {item.qid}: {item.reason}", markup=False)
    stdout.print(f"{len(data.questions)} questions × {len(evaluation.configurations)} configurations × "
                 f"{len(evaluation.options.modes)} modes in {evaluation.seconds:.0f} s · report: "
                 f"[bold]{Path(out) / 'report.md'}[/] · LanceDB: {evaluation.options.store_uri}")
    return evaluation


def print_summary(evaluation) -> None:
    out = _console()
    rows = summary_rows(evaluation)
    if not rows:
        out.print("nothing to score (no located questions)")
        return
    for mode in evaluation.options.modes:
        picked = [r for r in rows if r["mode"] == mode]
        table = Table(title=f"{evaluation.dataset.name} · {evaluation.options.embedder} · {mode} · k={evaluation.options.k}")
        table.add_column("configuration")
        for _, header, share in METRICS:
            table.add_column(header + (" %" if share else ""), justify="right")
        table.add_column("chunks", justify="right")
        table.add_column("mean tok", justify="right")
        for row in picked:
            cells = ["–" if row[key] != row[key] else f"{100 * row[key]:.1f}" if share else f"{row[key]:.3f}"
                     for key, _, share in METRICS]  # NaN (a peer's precision, IoU): not defined
            table.add_row(row["configuration"], *cells, f"{row['chunks']:,}", f"{row['tokens_mean']:.0f}")
        out.print(table)
    out.print(f"best mode by mean recall: [bold]{best_mode(rows, evaluation.options.modes)}[/]")
