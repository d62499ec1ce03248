"""Dask scale-out: ``seams ingest`` with the local runner against a real ``dask scheduler`` and 1, 2, …
``dask worker`` processes, which cut *and* embed each batch (issue #38).

For each mode a fresh database is written from one folder of N small mixed files (the generator of
``bench/orchestrate.py``), or from the files of ``--folder``, by ``seams ingest`` in its own process
reporting to one Prefect server started first. The table shows wall time, files/s, chunks/s, and
the flow process's own CPU share (its user+system seconds over the wall time; the local runner's
parser workers are its children and counted apart, the Dask workers are other processes). The
machine's cores are printed: with fewer cores than workers, the workers share them.

Usage: python bench/dask_scale.py [--files 1000] [--workers 1,2] [--embedder NAME] [--folder DIR]
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

from orchestrate import make_files  # noqa: E402

from flows.app.server import free_port  # noqa: E402

# Runs one command; prints its wall time and its own CPU seconds (RUSAGE_CHILDREN of this wrapper:
# the command and the children it waited for, i.e. the local runner's parser workers).
CHILD = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
if done.returncode not in (0, 1):
    sys.exit(done.stderr[-3000:])
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": time.perf_counter() - started, "cpu": usage.ru_utime + usage.ru_stime,
                  "report": json.loads(done.stdout)}))
"""


def ingest(folder: Path, db: Path, embedder: str, runner: str, env: dict[str, str]) -> dict:
    """One ``seams ingest`` in a fresh process (``embedder`` "": its default)."""
    command = [sys.executable, "-m", "flows.app.cli", "ingest", str(folder), "--db", str(db), "--runner", runner,
               "--json", *(["--embedder", embedder] if embedder else [])]
    out = subprocess.run([sys.executable, "-c", CHILD, *command], cwd=REPO, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit(f"seams ingest failed: {out.stderr or out.stdout}")
    return json.loads(out.stdout)


@contextlib.contextmanager
def dask_cluster(workers: int, env: dict[str, str], logs: Path):
    """A ``dask scheduler`` and ``workers`` single-threaded ``dask worker`` processes; yields its address."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = str(Path(sys.executable).parent / "dask")
    processes = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                   "--dashboard-address", ":0"], env=env, cwd=REPO,
                                  stdout=subprocess.DEVNULL, stderr=open(logs / "scheduler.log", "ab"))]
    try:
        time.sleep(3)
        for i in range(workers):
            processes.append(subprocess.Popen(
                [dask, "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard"], env=env, cwd=REPO,
                stdout=subprocess.DEVNULL, stderr=open(logs / f"worker{i}.log", "ab")))
        from distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(workers, timeout=120)
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()


@contextlib.contextmanager
def prefect_server(env: dict[str, str], logs: Path):
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--port", str(port)],
                               env=env, stdout=open(logs / "prefect.log", "ab"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/api"
    try:
        import urllib.request

        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                urllib.request.urlopen(f"{url}/health", timeout=2)
                break
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        process.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--workers", default="1,2", help="Dask worker counts, comma-separated")
    parser.add_argument("--embedder", default="", help="default: seams' default embedder")
    parser.add_argument("--folder", help="index this folder instead of generated files")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="seams-dask-bench-") as tmp:
        tmp_path = Path(tmp)
        folder = Path(args.folder) if args.folder else tmp_path / "docs"
        if not args.folder:
            make_files(folder, args.files)
        files = sum(1 for p in folder.rglob("*") if p.is_file())
        env = dict(os.environ, PYTHONPATH=str(REPO), PREFECT_HOME=str(tmp_path / "prefect"))
        embedder = args.embedder or "default"
        rows = []
        with prefect_server(env, tmp_path) as api:
            env["PREFECT_API_URL"] = api
            modes = [("local", None)] + [(f"dask x{n}", n) for n in map(int, args.workers.split(","))]
            for name, workers in modes:
                db = tmp_path / f"db-{name.replace(' ', '')}"
                if workers is None:
                    result = ingest(folder, db, args.embedder, "local", env)
                else:
                    with dask_cluster(workers, env, tmp_path) as address:
                        result = ingest(folder, db, args.embedder, f"dask:{address}", env)
                report = result["report"]
                chunks = sum(f.get("chunks") or 0 for f in report["files"])
                rows.append((name, result["seconds"], files / result["seconds"], chunks / result["seconds"],
                             result["cpu"] / result["seconds"], report.get("stages") or {}))
                print(f"  {name}: {result['seconds']:.1f} s", file=sys.stderr, flush=True)
    print(f"{files} files, embedder {embedder}, {os.cpu_count()} cores; flow CPU share: the flow process's "
          "(and its parser workers', local runner) CPU seconds over the wall time\n")
    print("| mode | wall s | files/s | chunks/s | flow CPU share |")
    print("|---|---:|---:|---:|---:|")
    for name, seconds, fps, cps, share, _ in rows:
        print(f"| {name} | {seconds:.1f} | {fps:.1f} | {cps:.1f} | {share:.0%} |")
    print("\nWhere the time goes (the run's own time by stage: seconds of work where the stage ran; for work "
          "done outside the flow, the seconds the flow waited for it)\n")
    print("| mode | plan s | cut s (where) | flow waited on cut | embed s (where) | flow waited on embed "
          "| write s | clean s |")
    print("|---|---:|---|---:|---|---:|---:|---:|")
    for name, *_, stages in rows:
        print(f"| {name} | {_stage(stages, 'plan')} | {_stage(stages, 'cut', where=True)} "
              f"| {_stage(stages, 'cut', 'waited')} | {_stage(stages, 'embed', where=True)} "
              f"| {_stage(stages, 'embed', 'waited')} | {_stage(stages, 'write')} | {_stage(stages, 'clean')} |")


def _stage(stages: dict, stage: str, key: str = "seconds", where: bool = False) -> str:
    """One cell of the time-by-stage table: the stage's seconds (and where it ran), or – if it did not run."""
    if stage not in stages:
        return "–"
    cell = f"{stages[stage][key]:.1f}"
    return f"{cell} ({stages[stage]['where']})" if where else cell


if __name__ == "__main__":
    main()
