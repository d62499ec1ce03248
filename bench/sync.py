"""Incremental sync and the store's write path, on a folder of many small generated files.

1. Sync: a first ingest, an unchanged re-run and a re-run after one file changed, into one
   database. The re-runs should cost a small fraction of the first: unchanged files are skipped on
   size and mtime (no reading, parsing or embedding), a changed file is cut and written alone.
2. Writes: the rows of that first ingest written again into fresh tables, the two ways seams writes
   them — one ``merge_insert`` commit per batch of files (``Store.replace_documents``: files the
   knowledge base already holds) and one ``add`` per batch (``new=True``: files it never held, as
   in a first ingest) — and as one bulk ``table.add``, the floor for getting those rows into LanceDB.

Everything runs ``flows.ingest.flow.run_ingest`` with the plain step functions, i.e. the flow's data path
without Prefect (``bench/orchestrate.py`` measures what Prefect adds), with the ``hashing``
embedder so the numbers are about parsing, syncing and the store rather than a model.

Usage: python bench/sync.py [--files 1000] [--batch 32] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from pathlib import Path

from flows.environment import apply_defaults

apply_defaults()

WORDS = ("예산 집행 현황 점검 지역 디지털 전환 지원 사업 계획 개인정보 파기 기한 budget review quarterly "
         "growth region data policy report travel station hiring plan 회의 결과 다음 분기 목표").split()


def make_files(root: Path, count: int, seed: int = 11) -> int:
    """``count`` small Markdown and text files in a few sub-folders. Returns their total size."""
    rng = random.Random(seed)
    total = 0
    for i in range(count):
        words = lambda n: " ".join(rng.choice(WORDS) for _ in range(n))  # noqa: E731
        folder = root / f"team{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        if i % 2:
            path, text = folder / f"memo {i:05d}.md", f"# 메모 {i}\n\n{words(50)}.\n\n## 결정\n\n{words(40)}.\n"
        else:
            path, text = folder / f"note {i:05d}.txt", f"{words(70)}.\n\n{words(30)}."
        path.write_text(text, "utf-8")
        total += path.stat().st_size
    return total


def timed(function, *args, **kwargs):
    started = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=32, help="files per commit (SEAMS_BATCH_FILES)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="parser processes")
    args = parser.parse_args()

    import pyarrow as pa

    from flows.index.schema import chunk_schema
    from flows.index.store import Store
    from flows.ingest.flow import run_ingest
    from flows.ingest.workers import close_cutters
    from flows.settings import Settings

    with tempfile.TemporaryDirectory() as tmp:
        root, db = Path(tmp) / "docs", str(Path(tmp) / "db")
        size = make_files(root, args.files)
        settings = Settings(db=db, embedder="hashing", workers=args.workers, batch_files=args.batch)

        runs = []
        first, seconds = timed(run_ingest, [str(root)], settings)
        runs.append(("first ingest", first, seconds))
        again, seconds = timed(run_ingest, [str(root)], settings)
        runs.append(("unchanged re-run", again, seconds))
        changed = sorted(root.rglob("*.md"))[len(sorted(root.rglob("*.md"))) // 2]
        changed.write_text(changed.read_text("utf-8") + "\n추가된 문단입니다. One more paragraph.\n", "utf-8")
        one, seconds = timed(run_ingest, [str(root)], settings)
        runs.append(("1 file changed re-run", one, seconds))
        close_cutters()
        assert again.count("unchanged") == args.files and again.embedded == 0
        assert one.count("updated") == 1 and one.count("unchanged") == args.files - 1

        rows = Store(db).rows()
        dim = len(rows[0]["vector"])
        by_file: dict[str, list[dict]] = {}
        for row in rows:
            by_file.setdefault(row["source"], []).append(row)
        doc_ids = sorted(by_file)

        def seams_writes(folder: str, new: bool) -> int:
            store = Store(str(Path(tmp) / folder))
            for start in range(0, len(doc_ids), args.batch):
                part = doc_ids[start:start + args.batch]
                store.replace_documents([r for d in part for r in by_file[d]], part, dim, new)
            return store.chunks_table().version

        def bulk_add() -> int:
            import lancedb

            table = lancedb.connect(str(Path(tmp) / "w2")).create_table("t", schema=chunk_schema(dim))
            table.add(pa.Table.from_pylist(rows, schema=chunk_schema(dim)))
            return table.version

        seams_version, seams_s = timed(seams_writes, "w1", False)
        new_version, new_s = timed(seams_writes, "w3", True)
        bulk_version, bulk_s = timed(bulk_add)
        store = Store(str(Path(tmp) / "w1"))
        fragments = store.chunks_table().stats()["fragment_stats"]["num_fragments"]
        _, maintain_s = timed(store.maintain, changed_files=len(doc_ids))

    print(f"\n{args.files:,} files ({size / 1e6:.1f} MB), {len(rows):,} chunks, embedder hashing, "
          f"{args.workers} parser processes, {args.batch} files a commit; plain run_ingest (no Prefect)\n")
    print(f"| {'sync run':24} | {'seconds':>8} | {'of first':>8} | {'cut':>5} | {'embedded':>8} | {'rows written':>12} |")
    print(f"|{'-' * 26}|{'-' * 10}|{'-' * 10}|{'-' * 7}|{'-' * 10}|{'-' * 14}|")
    base = runs[0][2]
    for name, report, seconds in runs:
        cut = report.count("added") + report.count("updated") + report.failed
        print(f"| {name:24} | {seconds:8.2f} | {seconds / base:8.1%} | {cut:5} | {report.embedded:8} | "
              f"{report.rows_written:12} |")
    print(f"\n| {'write path, same ' + format(len(rows), ',') + ' rows':42} | {'commits':>7} | {'seconds':>8} | {'rows/s':>8} |")
    print(f"|{'-' * 44}|{'-' * 9}|{'-' * 10}|{'-' * 10}|")
    print(f"| {'seams replace_documents (merge_insert)':42} | {seams_version - 1:7} | {seams_s:8.2f} | "
          f"{len(rows) / seams_s:8,.0f} |")
    print(f"| {'seams replace_documents, new files (add)':42} | {new_version - 1:7} | {new_s:8.2f} | "
          f"{len(rows) / new_s:8,.0f} |")
    print(f"| {'one bulk table.add':42} | {bulk_version - 1:7} | {bulk_s:8.2f} | {len(rows) / bulk_s:8,.0f} |")
    print(f"\nafter the batched writes: {fragments} fragments; Store.maintain (text indexes + compaction) "
          f"{maintain_s:.2f} s")


if __name__ == "__main__":
    main()
