"""The per-file time limit: a file that stalls its parser times out alone; the rest are cut."""

from __future__ import annotations

import os
import threading
import time

from flows.ingest.pipeline import CutConfig, FileRef
from flows.ingest.workers import Cutter
from splitters import Budget


def _ref(path) -> FileRef:
    return FileRef(str(path.parent), str(path), path.name, 0, 0.0)


def test_a_stalled_file_times_out_and_the_others_are_cut(tmp_path):
    stalled = tmp_path / "stalled.txt"
    os.mkfifo(stalled)  # reading a FIFO nobody writes to blocks forever, like a parser stuck on a page
    good = []
    for i in range(3):
        path = tmp_path / f"good{i}.txt"
        path.write_text(f"문서 {i}: 예산 집행 현황을 점검했다.", "utf-8")
        good.append(path)
    cutter = Cutter(workers=2, timeout=3)
    started = time.monotonic()
    try:
        outcomes = cutter.cut([_ref(good[0]), _ref(stalled), _ref(good[1]), _ref(good[2])], CutConfig(Budget()))
    finally:
        cutter.close()
    assert time.monotonic() - started < 60
    kinds = [o.error_kind for o in outcomes]
    assert kinds == ["", "timeout", "", ""], [(o.ref.doc_id, o.error_kind, o.error) for o in outcomes]
    assert all(o.chunks for o in outcomes if not o.error_kind)
    assert "within 3 s" in outcomes[1].error


def _files(tmp_path, count: int) -> list:
    paths = []
    for i in range(count):
        path = tmp_path / f"문서{i}.txt"
        path.write_text(f"제{i}조(목적) 이 규정은 예산 집행 현황의 점검 절차를 정한다.\n\n세부 사항 {i}.", "utf-8")
        paths.append(path)
    return paths


def _wait_started(cutter: Cutter, timeout: float = 60) -> None:
    """Until every file of the batch started ahead is cut (the test reads the pool's futures)."""
    deadline = time.monotonic() + timeout
    while not all(future.done() for future in cutter._ahead[3].values()):
        assert time.monotonic() < deadline, "the batch started ahead was not cut"
        time.sleep(0.05)


def test_a_batch_started_ahead_is_cut_meanwhile_and_collected_by_its_cut(tmp_path):
    paths = _files(tmp_path, 3)
    refs = [_ref(path) for path in paths]
    cutter = Cutter(workers=2, timeout=30)
    try:
        cutter.start(refs, CutConfig(Budget()))
        _wait_started(cutter)
        for path in paths:  # cut already: cut() must not read them again
            path.unlink()
        outcomes = cutter.cut(refs, CutConfig(Budget()))
        assert [o.error_kind for o in outcomes] == ["", "", ""], [o.error for o in outcomes]
        assert [o.ref for o in outcomes] == refs
        assert all("예산 집행" in o.chunks[0].text for o in outcomes)
        # Collected once: the next cut of the same files reads them (now gone) again.
        again = cutter.cut(refs, CutConfig(Budget()))
        assert all(o.error_kind for o in again)
    finally:
        cutter.close()


def test_a_batch_started_ahead_that_is_not_asked_for_is_dropped(tmp_path):
    first, second = _files(tmp_path, 2)
    cutter = Cutter(workers=1, timeout=30)
    try:
        cutter.start([_ref(first)], CutConfig(Budget()))
        outcomes = cutter.cut([_ref(second)], CutConfig(Budget()))
        assert [o.ref.path for o in outcomes] == [str(second)] and not outcomes[0].error_kind
        assert cutter._ahead is None
        # Another config is another batch too.
        cutter.start([_ref(first)], CutConfig(Budget()))
        other = CutConfig(Budget(), strategy="whole")
        assert cutter.cut([_ref(first)], other)[0].decision.strategy == "whole"
    finally:
        cutter.close()


def test_a_dropped_batch_stuck_in_the_pool_does_not_hold_up_the_batch_asked_for(tmp_path):
    stalled = tmp_path / "stalled.txt"
    os.mkfifo(stalled)  # its parser never returns
    good, = _files(tmp_path, 1)
    cutter = Cutter(workers=1, timeout=5)
    try:
        cutter.start([_ref(stalled)], CutConfig(Budget()))
        time.sleep(1)  # the only worker is stuck on it
        outcomes = cutter.cut([_ref(good)], CutConfig(Budget()))
        assert [o.error_kind for o in outcomes] == [""], [o.error for o in outcomes]
    finally:
        cutter.close()


def test_closing_does_not_wait_for_a_batch_started_ahead_and_never_collected(tmp_path):
    stalled = tmp_path / "stalled.txt"
    os.mkfifo(stalled)  # its parser never returns
    cutter = Cutter(workers=1, timeout=30)
    cutter.start([_ref(stalled)], CutConfig(Budget()))
    time.sleep(1)  # the worker is reading it
    closing = threading.Thread(target=cutter.close, daemon=True)
    started = time.monotonic()
    closing.start()
    closing.join(20)
    assert not closing.is_alive(), "close() waited for a file nobody will collect"
    assert time.monotonic() - started < 20


def _pending_batch(settings) -> tuple | None:
    from flows.ingest.workers import _cutter

    return _cutter(settings.workers, settings.file_timeout_s)._ahead


def test_an_ingest_starts_each_next_batch_before_handing_on_the_one_cut(tmp_path):
    from flows.ingest.flow import Steps, run_ingest
    from flows.ingest.workers import close_cutters, cut_ahead
    from flows.settings import Settings

    root = tmp_path / "docs"
    root.mkdir()
    _files(root, 5)
    settings = Settings(db=str(tmp_path / "db"), embedder="hashing", workers=1, batch_files=2)
    events = []

    def embed(group, settings_, store):
        events.append(("embed", [o.ref.doc_id for o in group]))
        return embed_outcomes(group, settings_, store)

    def ahead(refs, *args):
        events.append(("ahead", [ref.doc_id for ref in refs]))
        cut_ahead(refs, *args)

    from flows.ingest.flow import embed_outcomes

    try:
        report = run_ingest([str(root)], settings, Steps(embed=embed, ahead=ahead))
        assert report.count("added") == 5 and report.chunks >= 5
        assert _pending_batch(settings) is None  # every batch started ahead was collected
    finally:
        close_cutters()
    names = sorted(path.name for path in root.iterdir())
    # Batch n+1 is in the pool before batch n is embedded.
    assert events == [("ahead", names[2:4]), ("embed", names[0:2]), ("ahead", names[4:]), ("embed", names[2:4]),
                      ("embed", names[4:])], events


def test_the_command_starts_the_first_batch_while_the_server_boots(tmp_path):
    from flows.app.once import EarlyCut
    from flows.embed import get_embedder
    from flows.ingest.flow import Steps, run_ingest
    from flows.ingest.workers import close_cutters
    from flows.settings import Settings

    root = tmp_path / "docs"
    root.mkdir()
    _files(root, 6)
    settings = Settings(db=str(tmp_path / "db"), embedder="hashing", workers=1)
    get_embedder.cache_clear()
    try:
        early = EarlyCut([str(root)], settings)
        deadline = time.monotonic() + 60
        while _pending_batch(settings) is None:
            assert time.monotonic() < deadline, "no batch was started early"
            time.sleep(0.05)
        early.stop()
        assert get_embedder.cache_info().currsize == 1  # the embedder was loaded too, before stop() returned
        started = [ref.doc_id for ref in _pending_batch(settings)[0]]
        assert started == sorted(path.name for path in root.iterdir())[:4]  # the run's first batch
        report = run_ingest([str(root)], settings, Steps())
        assert report.count("added") == 6
        assert _pending_batch(settings) is None
    finally:
        close_cutters()


def test_an_early_plan_that_ends_after_the_flow_began_starts_nothing(tmp_path):
    from flows.app.once import EarlyCut
    from flows.ingest.workers import close_cutters
    from flows.settings import Settings

    root = tmp_path / "docs"
    root.mkdir()
    _files(root, 2)
    settings = Settings(db=str(tmp_path / "db"), embedder="hashing", workers=1)
    early = EarlyCut([str(root)], settings.model_copy(update={"workers": 0}))  # no thread of its own
    early.stop()
    try:
        early._start([str(root)], settings)  # the plan finishing after stop()
        assert _pending_batch(settings) is None
    finally:
        close_cutters()


def test_workers_of_a_pool_started_after_the_environment_changed_see_the_change(tmp_path, monkeypatch):
    """Workers come from a forkserver that keeps the environment of the moment it started: without
    handing the flow's environment over, credentials set after a first ingest (``AWS_*`` for an
    ``s3://`` folder, in a notebook or a long-lived process) were missing in the workers."""
    first = Cutter(workers=1, timeout=30)
    try:
        first.cut([_ref(_files(tmp_path, 1)[0])], CutConfig(Budget()))  # the forkserver is up now
    finally:
        first.close()
    monkeypatch.setenv("SEAMS_TEST_SET_LATER", "보인다")
    second = Cutter(workers=1, timeout=30)
    try:
        pool = second._ensure()
        assert pool.submit(os.getenv, "SEAMS_TEST_SET_LATER").result(timeout=60) == "보인다"
    finally:
        second.close()


def test_closing_ends_the_page_relay_before_its_queue_is_closed(tmp_path):
    """CI once printed a traceback from the relay thread as a command exited: multiprocessing's
    exit finalizer closed the pages queue while the thread still read it. close() now waits for the
    thread, then closes the queue itself."""
    good = tmp_path / "good.txt"
    good.write_text("□ 개요\n" + "본문 " * 200, "utf-8")
    cutter = Cutter(workers=1, timeout=60)
    try:
        assert [o.error_kind for o in cutter.cut([_ref(good)], CutConfig(Budget()))] == [""]
        relays = [t for t in threading.enumerate() if t.name == "seams-ocr-pages"]
        assert relays, "the pool runs without its page relay"
    finally:
        cutter.close()
    assert not any(t.is_alive() for t in relays), "close() returned while the relay thread still reads its queue"
