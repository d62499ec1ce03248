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


def run_evaluate(source: str, path: str, questions: str | None, configs: list[str] | None,
                 variants: list[str] | None, k: int, modes: list[str], settings: Settings,
                 out: str | None, limit: int | None):
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
        evaluation = evaluate_flow(source, path, questions, configs, variants, k, modes, settings, out, limit)
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
