"""Crash safety: ``seams ingest`` is SIGKILLed mid-run, then run again; the index must equal a fresh
ingest of the same folder — no duplicate, orphan or missing chunk, no stale manifest row.

The killed process is the real command line in a subprocess, reporting to this session's Prefect
test server (``PREFECT_API_URL``), so no server starts per process. Kill points are chosen at random
(seeded) among the commits: the process is killed right after the Nth commit of the chunks table
(between a batch's chunks and its manifest row), right after the Mth commit of the manifest (between
one batch and the next), and a random few milliseconds after the last batch (while deleting files
and compacting) — three kills in all.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, descendants, running
from test_sync import comparable_rows, manifest_by_doc, settings, write

from flows.index.store import Store
from flows.ingest.flow import ingest_flow

pytestmark = pytest.mark.slow

BATCH = 6  # files per commit in the killed runs, so a run has many commits to die between


def _versions(db: Path, table: str) -> int:
    folder = db / f"default__{table}.lance" / "_versions"
    try:
        return sum(1 for name in os.listdir(folder) if name.endswith(".manifest"))
    except FileNotFoundError:
        return 0


def _kill_after_commits(root: Path, db: Path, table: str, commits: int, jitter_s: float, log: Path) -> int:
    """Run ``seams ingest`` and SIGKILL it (and its parser workers) ``jitter_s`` after ``table``
    (chunks or manifest) got ``commits`` more versions. Returns the exit status (-9 when killed)."""
    from prefect.settings import PREFECT_API_URL

    env = dict(os.environ, PREFECT_API_URL=PREFECT_API_URL.value(), SEAMS_BATCH_FILES=str(BATCH))
    start = _versions(db, table)
    with open(log, "ab") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "flows.app.cli", "ingest", str(root), "--db", str(db), "--embedder", "hashing",
             "--workers", "1"],
            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        deadline = time.monotonic() + 120
        while process.poll() is None and _versions(db, table) < start + commits and time.monotonic() < deadline:
            time.sleep(0.001)
        time.sleep(jitter_s)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)  # the whole group: the CLI and its parser workers
        return process.wait()


def _assert_equals_fresh_ingest(root: Path, db: Path, fresh: Path) -> None:
    ingest_flow([str(root)], settings(fresh))
    rows = comparable_rows(str(db))
    ids = [r["chunk_id"] for r in rows]
    assert len(ids) == len(set(ids)), "duplicate chunks"
    files = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    assert {r["doc_id"] for r in rows} == files, "orphan or missing files"
    assert rows == comparable_rows(str(fresh))
    manifest = manifest_by_doc(str(db))
    assert set(manifest) == files
    fresh_manifest = manifest_by_doc(str(fresh))
    for doc_id, entry in manifest.items():
        assert (entry["content_hash"], entry["chunks"], entry["status"]) == (
            fresh_manifest[doc_id]["content_hash"], fresh_manifest[doc_id]["chunks"], fresh_manifest[doc_id]["status"])


def _text(i: int, version: int) -> str:
    body = f"Document {i}, version {version}. 문서 {i}의 {version}번째 판. " * (5 + i % 7)
    return f"# Title {i}\n\n{body}\n\n## Details\n\n" + "Details follow here. " * (i % 5 + 1) + "\n"


def test_killed_runs_leave_an_index_a_rerun_makes_exact(prefect_harness, tmp_path):
    rng = random.Random(20260302)
    root, db, log = tmp_path / "docs", tmp_path / "db", tmp_path / "killed.log"
    names = [f"{'sub/' if i % 4 == 0 else ''}doc {i:02d}{'.md' if i % 2 else '.txt'}" for i in range(48)]
    for i, name in enumerate(names):
        write(root / name, _text(i, 1))
    batches = -(-len(names) // BATCH)

    # 1. killed during the first ingest, right after the chunks of a random batch. The manifest's
    #    commit follows within milliseconds, so a kill can land after it: such a run is thrown away
    #    and the kill tried again from an empty database (a few tries always land; the poll is 1 ms)
    for _attempt in range(8):
        shutil.rmtree(db, ignore_errors=True)
        status = _kill_after_commits(root, db, "chunks", rng.randint(2, batches - 2), 0.0, log)
        assert status == -signal.SIGKILL, log.read_text(errors="replace")[-2000:]
        store = Store(str(db))
        unrecorded = sorted({r["source"] for r in store.rows(["source"])} - set(store.manifest()))
        if unrecorded:
            break
    assert unrecorded, "in eight tries no kill fell between a batch's chunks and its manifest rows"
    #    ... and the files whose chunks were written but not recorded are deleted (or renamed) before
    #    the next run: their rows must not stay behind
    (Path(unrecorded[0])).rename(root / "renamed after the kill.md")
    for path in unrecorded[1:]:
        Path(path).unlink()
        names.remove(Path(path).relative_to(root).as_posix())
    names[names.index(Path(unrecorded[0]).relative_to(root).as_posix())] = "renamed after the kill.md"
    ingest_flow([str(root)], settings(db))
    _assert_equals_fresh_ingest(root, db, tmp_path / "fresh1")

    # 2. killed while re-indexing modified, added, renamed files (before deleting others), right
    #    after the manifest rows of a random batch
    for i in rng.sample(range(len(names)), 12):
        write(root / names[i], _text(i, 2))
    for name in rng.sample(names, 6):
        (root / name).unlink()
        names.remove(name)
    for name in rng.sample(names, 4):
        (root / name).rename(root / f"renamed {name.replace('/', '-')}")
        names.remove(name)
    for i in range(6):
        write(root / f"new/added {i}.md", _text(100 + i, 1))
    status = _kill_after_commits(root, db, "manifest", rng.randint(1, 3), 0.0, log)
    assert status == -signal.SIGKILL, log.read_text(errors="replace")[-2000:]
    ingest_flow([str(root)], settings(db))
    _assert_equals_fresh_ingest(root, db, tmp_path / "fresh2")

    # 3. killed around the end: after the last batch, while deleting files and compacting
    changed = sorted(p for p in root.rglob("*") if p.is_file())
    for path in changed[:BATCH]:
        path.write_text(path.read_text("utf-8") + "\nOne more line.\n", "utf-8")
    for path in changed[-25:]:
        path.unlink()
    status = _kill_after_commits(root, db, "chunks", 1, rng.uniform(0, 0.03), log)
    assert status == -signal.SIGKILL, log.read_text(errors="replace")[-2000:]
    ingest_flow([str(root)], settings(db))
    _assert_equals_fresh_ingest(root, db, tmp_path / "fresh3")


def test_kill_9_of_an_ingest_leaves_no_process_behind(prefect_harness, tmp_path):
    """Issue #16.6: after ``kill -9`` of ``seams ingest``, its forkserver, parser workers and resource
    tracker (~185 MB) were still alive minutes later."""
    from prefect.settings import PREFECT_API_URL

    root = tmp_path / "docs"
    root.mkdir()
    for i in range(150):
        for example in ("개인정보_보호_규정.pdf", "정책보고서_2026.pdf"):
            (root / f"{i:03d} {example}").write_bytes((REPO / "examples" / example).read_bytes())
    env = dict(os.environ, PREFECT_API_URL=PREFECT_API_URL.value())
    process = subprocess.Popen(
        [sys.executable, "-m", "flows.app.cli", "ingest", str(root), "--db", str(tmp_path / "db"), "--embedder", "hashing",
         "--workers", "2"], cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while len(descendants(process.pid)) < 4 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)  # forkserver, resource tracker and two workers
        started = descendants(process.pid)
        assert len(started) >= 4, "the ingest never started its parser workers"
        process.kill()  # SIGKILL to the command alone, as `kill -9 PID` does
        process.wait()
        deadline = time.monotonic() + 15
        while any(running(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert [pid for pid in started if running(pid)] == [], "processes outlived the killed ingest"
    finally:
        if process.poll() is None:
            process.kill()
        for pid in started:  # what a failed check leaves
            if running(pid):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
