"""Scale: the cost per file of ``seams ingest`` as the folder grows, the unchanged re-run, and the
main process's peak memory, at several folder sizes in one run.

For each size N (default 1,000 and 10,000; ``--sizes 1000,10000,100000`` for the issue's
100,000), N small mixed files (Markdown, text, CSV; Korean and English — the generator of
``bench/orchestrate.py``), or N copies of a folder's files (``--copies-of DIR``: real-sized
documents, a Markdown copy changed by a line so that the embedding cache does not shortcut it), are
indexed into a fresh database with ``seams ingest`` as a user runs it (its own temporary Prefect
server included), then indexed again unchanged. The table shows wall times, files per second, the
re-run against the first ingest, and the peak resident memory of the ``seams ingest`` process
(``ru_maxrss``; its parser workers are separate processes and not counted).

Targets (issue #17): cost per file flat across sizes, the re-run at most 2 % of the first ingest,
peak memory independent of the folder's size.

With ``--server``, every ingest runs against one Prefect server started first (as ``seams serve``
and a configured ``PREFECT_API_URL`` do): the re-run of a scheduled index, without the one-off
server's start-up.

Usage: python bench/scale.py [--sizes 1000,10000] [--embedder hashing] [--copies-of DIR] [--server]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from orchestrate import _copy_folder, make_files  # noqa: E402

from flows.app.server import free_port  # noqa: E402

# Runs one command and prints its wall time and the peak RSS (KiB) of the largest child it waited for.
CHILD = """
import resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
if done.returncode not in (0, 1):
    sys.exit(done.stderr[-2000:])
print(time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def ingest(folder: Path, db: Path, embedder: str, env: dict[str, str] | None = None) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one ``seams ingest`` in a fresh process (``env``: its environment)."""
    command = [sys.executable, "-m", "flows.app.cli", "ingest", str(folder), "--db", str(db), "--embedder", embedder]
    out = subprocess.run([sys.executable, "-c", CHILD, *command], cwd=REPO, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit(f"seams ingest failed: {out.stderr or out.stdout}")
    seconds, peak_kb = out.stdout.split()
    return float(seconds), int(peak_kb) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="folder sizes, comma-separated")
    parser.add_argument("--embedder", default="hashing", help="hashing (default: the pipeline, not the model) "
                                                              "or use-multilingual")
    parser.add_argument("--copies-of", metavar="DIR", help="copies of this folder's files instead of small "
                                                           "generated ones")
    parser.add_argument("--server", action="store_true", help="run every ingest against one Prefect server started "
                                                              "first, as scheduled runs do (seams serve), instead "
                                                              "of each command's temporary server")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON lines too")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="seams-scale-") as tmp, contextlib.ExitStack() as stack:
        env = None
        if args.server:
            from flows.app.server import local_server

            os.environ["PREFECT_HOME"] = str(Path(tmp) / "prefect")  # a database of its own
            env = {**os.environ, "PREFECT_API_URL": stack.enter_context(local_server(port=free_port()))}
        ingest_ = lambda folder, db: ingest(folder, db, args.embedder, env)  # noqa: E731
        one = Path(tmp) / "one"  # the start-up every ingest pays, whatever the folder's size
        make_files(one, 1)
        startup, startup_peak = ingest_(one, Path(tmp) / "db-one")
        print(f"start-up (a one-file folder): {startup:.1f} s, peak {startup_peak:.0f} MB", flush=True)
        for size in sizes:
            folder, db = Path(tmp) / f"files-{size}", Path(tmp) / f"db-{size}"
            started = time.perf_counter()
            if args.copies_of:
                _copy_folder(args.copies_of, folder, size)
            else:
                make_files(folder, size)
            written = time.perf_counter() - started
            first, first_peak = ingest_(folder, db)
            again, again_peak = ingest_(folder, db)
            rows.append({"files": size, "written_s": written, "first_s": first, "first_peak_mb": first_peak,
                         "rerun_s": again, "rerun_peak_mb": again_peak})
            print(f"{size:,} files: written in {written:.1f} s, ingested in {first:.1f} s, re-run {again:.1f} s",
                  flush=True)
    base = rows[0]
    per_file = lambda row: max(row["first_s"] - startup, 0.0) / row["files"] * 1000  # noqa: E731
    print()
    print("| files | first ingest s | files/s | ms per file after start-up | × the smallest's | unchanged re-run s "
          "| re-run / first | peak RSS MB (first, re-run) |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['files']:,} | {row['first_s']:.1f} | {row['files'] / row['first_s']:.0f} | {per_file(row):.1f} "
              f"| {per_file(row) / per_file(base):.2f} | {row['rerun_s']:.1f} | {row['rerun_s'] / row['first_s']:.1%} "
              f"| {row['first_peak_mb']:.0f}, {row['rerun_peak_mb']:.0f} |")
    what = "a flow run on the server already up" if args.server else "a temporary Prefect server"
    print(f"\nembedder {args.embedder}; each time includes the command's start-up ({startup:.1f} s with a "
          f"one-file folder: {what}), which the ms per file leave out")
    if args.json:
        for row in rows:
            print(json.dumps(row))


if __name__ == "__main__":
    main()
