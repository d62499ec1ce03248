"""Months of scheduled indexing, compressed: many runs over a folder that changes between runs, and
what the database weighs on disk against a fresh ingest of the same files.

Every run edits, adds and deletes a few files, then runs ``flows.ingest.flow.run_ingest`` (the flow's data
path without Prefect, the ``hashing`` embedder) into one database. Every ``--every`` runs the table
prints that database's size per table and a fresh ingest's size of the folder as it is then: the
ratio shows whether old table versions and indexes are pruned (``Store.maintain``). Old versions
are kept for :data:`flows.index.upkeep.KEEP_VERSIONS`; ``--keep-seconds`` shortens it so that a short
soak shows the steady state a long schedule reaches.

Usage: python bench/soak.py [--runs 200] [--files 40] [--every 25] [--keep-seconds 0]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import tempfile
import time
from pathlib import Path

from flows.environment import apply_defaults

apply_defaults()

WORDS = ("예산 집행 현황 점검 지역 디지털 전환 지원 사업 계획 개인정보 파기 기한 budget review quarterly "
         "growth region data policy report travel station hiring plan 회의 결과 다음 분기 목표").split()


def size_of(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def by_table(db: Path) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for table in db.glob("*.lance"):
        kind = table.name.removesuffix(".lance").split("__")[-1 if "__" in table.name else 0]
        key = "cache" if table.name.startswith("embedding_cache") else kind
        sizes[key] = sizes.get(key, 0) + size_of(table)
    return sizes


def text(rng: random.Random, i: int) -> str:
    words = lambda n: " ".join(rng.choice(WORDS) for _ in range(n))  # noqa: E731
    sections = "\n\n".join(f"## {j}. {words(4)}\n\n{words(rng.randint(40, 160))}." for j in range(rng.randint(1, 6)))
    return f"# 문서 {i}\n\n{sections}\n"


def change(root: Path, rng: random.Random, counter: list[int]) -> None:
    """Edit three files, add one, delete one (the folder stays about the same size)."""
    files = sorted(root.glob("*.md"))
    for path in rng.sample(files, min(3, len(files))):
        path.write_text(text(rng, counter[0]), "utf-8")
        counter[0] += 1
    (root / f"new {counter[0]:05d}.md").write_text(text(rng, counter[0]), "utf-8")
    counter[0] += 1
    if len(files) > 3:
        rng.choice(files).unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--every", type=int, default=25)
    parser.add_argument("--keep-seconds", type=float, default=None,
                        help="version retention for this soak (default: seams' own, KEEP_VERSIONS)")
    args = parser.parse_args()

    import flows.index.store
    import flows.index.upkeep
    from flows.ingest.flow import Steps, run_ingest
    from flows.settings import Settings

    if args.keep_seconds is not None:
        flows.index.store.KEEP_VERSIONS = flows.index.upkeep.KEEP_VERSIONS = dt.timedelta(seconds=args.keep_seconds)
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        root, db = Path(tmp) / "folder", Path(tmp) / "db"
        root.mkdir()
        counter = [0]
        for i in range(args.files):
            (root / f"doc {i:05d}.md").write_text(text(rng, i), "utf-8")
        counter[0] = args.files
        settings = Settings(db=str(db), embedder="hashing", workers=0)
        print(f"soak: {args.runs} runs over a folder of {args.files} files (3 edited, 1 added, 1 deleted per run); "
              f"versions kept {flows.index.store.KEEP_VERSIONS}")
        print("| runs | seconds | db KB | chunks | manifest | cache | fresh KB | ratio |")
        print("|---|---|---|---|---|---|---|---|")
        started = time.perf_counter()
        for run in range(1, args.runs + 1):
            change(root, rng, counter)
            run_ingest([str(root)], settings, Steps())
            if run % args.every == 0 or run == args.runs:
                fresh = Path(tmp) / f"fresh{run}"
                run_ingest([str(root)], Settings(db=str(fresh), embedder="hashing", workers=0), Steps())
                sizes, total, fresh_total = by_table(db), size_of(db), size_of(fresh)
                print(f"| {run} | {time.perf_counter() - started:.0f} | {total / 1024:.0f} | "
                      f"{sizes.get('chunks', 0) / 1024:.0f} | {sizes.get('manifest', 0) / 1024:.0f} | "
                      f"{sizes.get('cache', 0) / 1024:.0f} | {fresh_total / 1024:.0f} | {total / fresh_total:.1f}× |",
                      flush=True)


if __name__ == "__main__":
    main()
