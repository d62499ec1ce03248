"""One ingest of a knowledge base at a time: overlapping ingests of one folder used to write every
file twice (flows/index/lock.py)."""

from __future__ import annotations

import collections
import logging
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from flows.errors import KnowledgeBaseBusy
from flows.index.lock import ingest_lock, lock_path
from flows.index.store import Store


def _folder(root):
    root.mkdir()
    (root / "규정.md").write_text("# 제1장 총칙\n\n제1조(목적) 이 규정은 출장 여비를 정한다.\n\n"
                                 "제2조(정의) 시내출장은 12km 미만의 출장을 말한다.\n", encoding="utf-8")
    (root / "notes.txt").write_text("Quarterly notes.\n\nThe budget review is due in March.\n", encoding="utf-8")
    return root


def _settings(tmp_path, **changes):
    from flows.settings import Settings

    return Settings(db=str(tmp_path / "db"), embedder="hashing", workers=0, **changes)


def _rows(tmp_path):
    store = Store(str(tmp_path / "db"), "default")
    chunk_ids = store.chunks_table().to_arrow().column("chunk_id").to_pylist()
    return chunk_ids, list(store.manifest())


def test_overlapping_ingests_of_one_folder_write_each_chunk_once(tmp_path):
    """The first ingest is slow to embed; the second starts meanwhile. Without the lock both planned
    every file as new and both wrote it (two rows per chunk, two manifest entries per file)."""
    from flows.ingest.flow import Steps, embed_outcomes, run_ingest

    root = _folder(tmp_path / "docs")
    embedding = threading.Event()

    def slow_embed(group, settings, store):
        embedding.set()
        time.sleep(2)
        return embed_outcomes(group, settings, store)

    reports = {}
    first = threading.Thread(target=lambda: reports.setdefault(
        "first", run_ingest([str(root)], _settings(tmp_path), Steps(embed=slow_embed))))
    first.start()
    assert embedding.wait(60), "the first ingest never reached its embedding"
    reports["second"] = run_ingest([str(root)], _settings(tmp_path), Steps())
    first.join(60)
    assert reports["first"].count("added") == 2
    assert reports["second"].count("unchanged") == 2 and reports["second"].rows_written == 0
    chunk_ids, manifest = _rows(tmp_path)
    assert chunk_ids and not [i for i, n in collections.Counter(chunk_ids).items() if n > 1]
    assert sorted(manifest) == sorted(str(path) for path in root.iterdir())


def test_an_ingest_waits_for_the_lock_and_says_who_holds_it(tmp_path, caplog):
    from flows.ingest.flow import Steps, run_ingest

    root = _folder(tmp_path / "docs")
    settings = _settings(tmp_path)
    done = threading.Event()
    with caplog.at_level(logging.WARNING, logger="flows.ingest.flow"):
        with ingest_lock(settings.db, settings.kb, wait_s=0):
            waiting = threading.Thread(target=lambda: (run_ingest([str(root)], settings, Steps()), done.set()))
            waiting.start()
            time.sleep(1.5)
            assert not done.is_set(), "the ingest ran while another held the knowledge base"
        waiting.join(60)
    assert done.is_set()
    said = [r.getMessage() for r in caplog.records]
    assert any("is writing knowledge base 'default'; waiting" in m for m in said)
    assert any("finished after" in m and "indexing what is still to do" in m for m in said)
    assert len(_rows(tmp_path)[1]) == 2


def test_an_ingest_that_waited_too_long_changes_nothing_and_names_the_holder(tmp_path):
    """The holder is another process; the command exits 5 with one line naming it."""
    root = _folder(tmp_path / "docs")
    db = tmp_path / "db"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from flows.index.lock import ingest_lock
        with ingest_lock({str(db)!r}, "default", wait_s=0):
            print("held", flush=True)
            time.sleep(120)
        """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        result = subprocess.run([sys.executable, "-m", "flows.app.cli", "ingest", str(root), "--db", str(db),
                                 "--embedder", "hashing"], capture_output=True, text=True, timeout=300,
                                env={**_env(), "SEAMS_LOCK_WAIT_S": "1"})
    finally:
        holder.kill()
        holder.wait()
    assert result.returncode == 5, (result.returncode, result.stderr)
    assert f"process {holder.pid}" in result.stderr and "SEAMS_LOCK_WAIT_S" in result.stderr
    assert result.stderr.count("Run again when it has finished") == 1, "said once, by the command"
    assert "Traceback" not in result.stderr
    assert Store(str(db), "default").chunks_table() is None  # nothing was written


def test_a_killed_holder_leaves_no_stale_lock(tmp_path):
    db = tmp_path / "db"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from flows.index.lock import ingest_lock
        with ingest_lock({str(db)!r}, "default", wait_s=0):
            print("held", flush=True)
            time.sleep(120)
        """)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(KnowledgeBaseBusy), ingest_lock(str(db), "default", wait_s=0.5):
        pass
    holder.kill()  # SIGKILL: no chance to let go; the kernel does
    holder.wait()
    with ingest_lock(str(db), "default", wait_s=5):
        pass


def test_object_storage_has_no_lock_file():
    assert lock_path("s3://bucket/seams", "default") is None
    assert lock_path("/data/lancedb", "kb").name == ".seams-ingest-kb.lock"


def _env():
    import os

    return {key: value for key, value in os.environ.items() if not key.startswith("SEAMS_")}
