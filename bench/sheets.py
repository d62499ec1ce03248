"""Sheet cutting against sheet parsing, as the row count grows: cutting should stay linear in the
rows (time per 1,000 rows flat) and close to the cost of parsing the same file.

A CSV of N rows × 10 columns (Korean header, short cells) is parsed (``parsers.parse``) and cut
(``flows.ingest.pipeline.cut_document``, the ``sheet`` strategy the rules choose for it) with the default
budget; each size runs once after a warm-up. Parsing is the same-run baseline.

Usage: python bench/sheets.py [--rows 2500,5000,10000,40000] [--columns 10]
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time
from pathlib import Path

from flows.environment import apply_defaults

apply_defaults()


def make_sheet(path: Path, rows: int, columns: int) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([f"열{c}" for c in range(columns)])
        for r in range(rows):
            writer.writerow([f"값 {r}-{c}" for c in range(columns)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="2500,5000,10000,40000")
    parser.add_argument("--columns", type=int, default=10)
    args = parser.parse_args()

    from flows.ingest.pipeline import CutConfig, cut_document
    from parsers import parse
    from splitters import Budget

    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm.csv"
        make_sheet(warm, 200, args.columns)
        cut_document(parse(warm), CutConfig(Budget()), warm.name)  # loads the tokenizer
        print(f"| rows | parse s | cut s | cut s per 1k rows | cut / parse | chunks |  ({args.columns} columns)")
        print("|---|---|---|---|---|---|")
        for rows in (int(n) for n in args.rows.split(",")):
            path = Path(tmp) / f"sheet{rows}.csv"
            make_sheet(path, rows, args.columns)
            started = time.perf_counter()
            doc = parse(path)
            parsed = time.perf_counter() - started
            started = time.perf_counter()
            _, chunks = cut_document(doc, CutConfig(Budget()), path.name)
            cut = time.perf_counter() - started
            print(f"| {rows:,} | {parsed:.2f} | {cut:.2f} | {1000 * cut / rows:.3f} | {cut / parsed:.1f}× | {len(chunks):,} |",
                  flush=True)


if __name__ == "__main__":
    main()
