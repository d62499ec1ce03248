"""Orchestration overhead: the ingest flow under Prefect against the same pipeline as plain Python.

Generates N small mixed files (Markdown, text, CSV; Korean and English), then indexes them into
fresh databases several ways and prints wall times, per-file costs and the overhead of each:

- plain: ``run_ingest`` with the bare step functions (no Prefect at all);
- flow: ``ingest_once`` — what ``seams ingest`` runs — on a Prefect server that is already up and
  has served a run before (the steady state of ``seams serve`` or a dashboard server);
- flow, heartbeats on: the same with Prefect's default flow-run heartbeats, which ``seams ingest``
  turns off (see ``flows.app.server.one_off_run``);
- first flow run after the server starts, and that plus the start-up itself, as a one-off
  ``seams ingest`` with no server pays them.

Plain and flow runs alternate, ``--repeats`` times each, so a machine that gets busier or quieter
during the bench shifts both; the table shows medians.

Usage: python bench/orchestrate.py [--files 1000] [--repeats 3] [--embedder use-multilingual] [--batch 0]
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import tempfile
import time
from pathlib import Path

from flows.environment import apply_defaults

apply_defaults()

WORDS = ("예산 집행 현황 점검 지역 디지털 전환 지원 사업 계획 budget review quarterly growth region "
         "data policy report 회의 결과 다음 분기 목표").split()


def make_files(root: Path, count: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        kind = i % 3
        words = lambda n: " ".join(rng.choice(WORDS) for _ in range(n))  # noqa: E731
        if kind == 0:
            text = f"# 문서 {i}\n\n{words(40)}.\n\n## 세부\n\n{words(60)}.\n"
            (root / f"doc{i:05d}.md").write_text(text, "utf-8")
        elif kind == 1:
            (root / f"note{i:05d}.txt").write_text(f"{words(80)}.\n\n{words(30)}.", "utf-8")
        else:
            rows = "\n".join(f"{rng.choice(WORDS)},{rng.randint(1, 999)}" for _ in range(20))
            (root / f"table{i:05d}.csv").write_text("항목,값\n" + rows + "\n", "utf-8")


def _copy_folder(source_dir: str, root: Path, count: int) -> None:
    sources = [p for p in sorted(Path(source_dir).iterdir())
               if p.is_file() and not p.name.startswith(".") and p.suffix not in (".py", ".jsonl")]
    root.mkdir(parents=True)
    for i in range(count):
        source = sources[i % len(sources)]
        data = source.read_bytes()
        if source.suffix == ".md":  # distinct texts, so the embedding cache does not shortcut copies
            data += f"\n\ncopy {i}\n".encode()
        (root / f"{i:05d}-{source.name}").write_bytes(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each kind (medians are shown)")
    parser.add_argument("--embedder", default="use-multilingual")
    parser.add_argument("--copies-of", metavar="DIR", help="instead of small generated files, index N copies "
                        "of the files in DIR (e.g. examples) for a workload of real documents")
    parser.add_argument("--batch", type=int, default=0, help="files per batch (0: seams' automatic size)")
    args = parser.parse_args()

    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings
    from prefect.testing.utilities import prefect_test_harness

    from flows.app.once import ingest_once
    from flows.ingest.flow import Steps, run_ingest
    from flows.ingest.workers import close_cutters
    from flows.settings import Settings

    n = args.files
    times: dict[str, list[float]] = {"plain": [], "flow": [], "heartbeats": []}
    with tempfile.TemporaryDirectory() as tmp:
        root, warm_root = Path(tmp) / "docs", Path(tmp) / "warm"
        if args.copies_of:
            _copy_folder(args.copies_of, root, n)
            _copy_folder(args.copies_of, warm_root, 20)
        else:
            make_files(root, n)
            make_files(warm_root, 20, seed=8)
        runs = itertools.count()

        def settings() -> Settings:
            return Settings(db=str(Path(tmp) / f"db{next(runs)}"), embedder=args.embedder, batch_files=args.batch)

        def timed(kind: str, run) -> None:
            started = time.perf_counter()
            report = run()
            times[kind].append(time.perf_counter() - started)
            assert report.count("added") == n, report.summary()

        # Warm-up: imports, embedder weights, worker pool (every run shares this process).
        plain = run_ingest([str(root)], settings(), Steps())

        started = time.perf_counter()
        with prefect_test_harness(server_startup_timeout=120):
            server_s = time.perf_counter() - started
            started = time.perf_counter()
            ingest_once([str(root)], settings())
            first_s = time.perf_counter() - started
            ingest_once([str(warm_root)], settings())  # the server has now served a run or two
            for _ in range(args.repeats):
                timed("plain", lambda: run_ingest([str(root)], settings(), Steps()))
                timed("flow", lambda: ingest_once([str(root)], settings()))
                with temporary_settings({PREFECT_FLOWS_HEARTBEAT_FREQUENCY: 180}):
                    timed("heartbeats", lambda: ingest_once([str(root)], settings()))
        close_cutters()

    plain_s = statistics.median(times["plain"])
    workload = f"copies of {args.copies_of}" if args.copies_of else "small generated files"
    rows = [
        ("plain Python (run_ingest)", plain_s),
        ("Prefect flow, server up", statistics.median(times["flow"])),
        ("  same, Prefect heartbeats on", statistics.median(times["heartbeats"])),
        ("first flow run after start", first_s),
        ("  + the server's start-up", first_s + server_s),
    ]
    print(f"\n{n} {workload}, embedder {args.embedder}, batches of {args.batch or 'auto'}, "
          f"medians of {args.repeats} runs (first run: one)\n")
    print(f"| {'run':30} | {'wall s':>8} | {'ms/file':>8} | {'overhead':>9} | {'ms/file over':>12} |")
    print(f"|{'-' * 32}|{'-' * 10}|{'-' * 10}|{'-' * 11}|{'-' * 14}|")
    for name, seconds in rows:
        print(f"| {name:30} | {seconds:8.2f} | {1000 * seconds / n:8.2f} | {(seconds - plain_s) / plain_s:+9.1%} "
              f"| {1000 * (seconds - plain_s) / n:+12.2f} |")
    spread = {kind: f"{min(v):.2f}–{max(v):.2f} s" for kind, v in times.items()}
    print(f"\nrange of the repeated runs: plain {spread['plain']}, flow {spread['flow']}, "
          f"heartbeats on {spread['heartbeats']}; server start-up alone: {server_s:.1f} s; chunks: {plain.chunks}")


if __name__ == "__main__":
    main()
