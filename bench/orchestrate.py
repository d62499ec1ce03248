"""Orchestration overhead: the ingest flow under Prefect against the same pipeline as plain Python.

Generates N small mixed files (Markdown, text, CSV; Korean and English), then indexes them three
ways into fresh databases and prints wall times and per-file costs:

- plain: ``run_ingest`` with the bare step functions (no Prefect at all);
- flow: ``ingest_flow`` on a Prefect test server that is already up (the steady state of
  ``seams serve`` or a dashboard server), batches submitted as tasks;
- flow+start: the same, counting the temporary server's start-up as a one-off `seams ingest` does.

Usage: python bench/orchestrate.py [--files 1000] [--embedder use-multilingual] [--batch 32]
"""

from __future__ import annotations

import argparse
import random
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--embedder", default="use-multilingual")
    parser.add_argument("--copies-of", metavar="DIR", help="instead of small generated files, index N copies "
                        "of the files in DIR (e.g. examples) for a workload of real documents")
    parser.add_argument("--batch", type=int, default=0, help="files per batch (0: seams' automatic size)")
    args = parser.parse_args()

    from prefect.testing.utilities import prefect_test_harness

    from flows.ingest import Steps, close_cutters, ingest_flow, run_ingest
    from flows.settings import Settings

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "docs"
        if args.copies_of:
            sources = [p for p in sorted(Path(args.copies_of).iterdir())
                       if p.is_file() and not p.name.startswith(".") and p.suffix not in (".py", ".jsonl")]
            root.mkdir()
            for i in range(args.files):
                source = sources[i % len(sources)]
                (root / f"{i:05d}-{source.name}").write_bytes(source.read_bytes() + b"" if source.suffix != ".md"
                                                             else source.read_bytes() + f"\n\ncopy {i}\n".encode())
        else:
            make_files(root, args.files)

        def settings(name: str) -> Settings:
            return Settings(db=str(Path(tmp) / name), embedder=args.embedder, batch_files=args.batch)

        # Warm-up: imports, embedder weights, worker pool (all three runs share this process).
        run_ingest([str(root)], settings("warm"), Steps())

        started = time.perf_counter()
        plain = run_ingest([str(root)], settings("plain"), Steps())
        plain_s = time.perf_counter() - started

        started = time.perf_counter()
        with prefect_test_harness(server_startup_timeout=120):
            server_s = time.perf_counter() - started
            started = time.perf_counter()
            flowed = ingest_flow([str(root)], settings("flow"))
            flow_s = time.perf_counter() - started
        close_cutters()

    n = args.files
    assert plain.count("added") == flowed.count("added") == n, (plain.summary(), flowed.summary())
    workload = f"copies of {args.copies_of}" if args.copies_of else "small generated files"
    rows = [
        ("plain Python (run_ingest)", plain_s, 0.0),
        ("Prefect flow, server up", flow_s, (flow_s - plain_s) / plain_s),
        ("Prefect flow + server start", flow_s + server_s, (flow_s + server_s - plain_s) / plain_s),
    ]
    print(f"\n{n} {workload}, embedder {args.embedder}, batches of {args.batch or 'auto'}, 2 parser processes\n")
    print(f"| {'run':30} | {'wall s':>8} | {'ms/file':>8} | {'overhead':>9} |")
    print(f"|{'-' * 32}|{'-' * 10}|{'-' * 10}|{'-' * 11}|")
    for name, seconds, overhead in rows:
        print(f"| {name:30} | {seconds:8.2f} | {1000 * seconds / n:8.2f} | {overhead:+9.1%} |")
    print(f"\nserver start-up alone: {server_s:.1f} s; chunks: {plain.chunks}")


if __name__ == "__main__":
    main()
