"""One-off command wall time: ``seams ingest DIR`` as a user runs it, with no Prefect server set up.

Runs the real command in fresh processes (``PREFECT_API_URL`` unset, ``PREFECT_HOME`` in a temp dir
whose database is migrated once before timing), a first ingest into a new database and an unchanged
re-run, two ways:

- seams' early temporary server (the default): started as the command begins, booting while seams
  loads its libraries;
- Prefect's own (``SEAMS_EARLY_SERVER=0``): started by Prefect when the flow first calls the API.

Usage: python bench/cli.py [--folder examples] [--repeats 3] [--embedder use-multilingual]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(folder: str, db: Path, env: dict[str, str], embedder: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "flows.app.cli", "ingest", folder, "--db", str(db), "--embedder", embedder],
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", default="examples")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--embedder", default="use-multilingual")
    args = parser.parse_args()

    ways = {"seams' early server": "1", "Prefect's own (SEAMS_EARLY_SERVER=0)": "0"}
    times: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API_")}
        base["PREFECT_HOME"] = str(Path(tmp) / "prefect-home")
        run(args.folder, Path(tmp) / "warm", base, args.embedder)  # migrates the server database once
        for repeat in range(args.repeats):
            for way, flag in ways.items():
                env = dict(base, SEAMS_EARLY_SERVER=flag)
                db = Path(tmp) / f"db-{flag}-{repeat}"
                times.setdefault((way, "first ingest"), []).append(run(args.folder, db, env, args.embedder))
                times.setdefault((way, "unchanged re-run"), []).append(run(args.folder, db, env, args.embedder))

    baseline = "Prefect's own (SEAMS_EARLY_SERVER=0)"
    print(f"\nseams ingest {args.folder} (embedder {args.embedder}), medians of {args.repeats} runs\n")
    print(f"| {'temporary server':38} | {'run':16} | {'wall s':>7} | {'vs Prefect':>10} |")
    print(f"|{'-' * 40}|{'-' * 18}|{'-' * 9}|{'-' * 12}|")
    for (way, kind), values in times.items():
        median = statistics.median(values)
        ratio = median / statistics.median(times[(baseline, kind)])
        print(f"| {way:38} | {kind:16} | {median:7.2f} | {ratio:9.2f}x |")


if __name__ == "__main__":
    main()
