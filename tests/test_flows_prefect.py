"""The flows against Prefect itself: run states, artifacts, and a served schedule on a real server."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import descendants, running

from flows.app.server import HEARTBEAT_VARIABLES, one_off_run
from flows.index.store import Store
from flows.ingest.flow import ingest_flow, report_of
from flows.ingest.report import FAILURES_STATE, artifact_key
from flows.settings import Settings


def _folder(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "good.md").write_text("# 제목\n\n본문입니다. 예산 집행 현황.\n\n## 결론\n\n끝.\n", "utf-8")
    (root / "notes.txt").write_text("Plain notes about the quarterly budget.", "utf-8")
    (root / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\n% truncated here")
    return root


def _artifacts(flow_run_id, key: str):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId, ArtifactFilterKey

    with get_client(sync_client=True) as client:
        return client.read_artifacts(artifact_filter=ArtifactFilter(
            key=ArtifactFilterKey(any_=[key]), flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run_id])))


def _failed_or_crashed(flow_run_ids) -> int:
    """How many of these runs the dashboard's home page counts among "failed or crashed runs" (the
    same count by state type the page asks the API for)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterId,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType

    with get_client(sync_client=True) as client:
        return client.count_flow_runs(flow_run_filter=FlowRunFilter(
            id=FlowRunFilterId(any_=list(flow_run_ids)),
            state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.FAILED, StateType.CRASHED]))))


def test_failed_file_fails_the_run_after_the_others_are_written(prefect_harness, tmp_path):
    """Issue #37: a run in which a file failed ends Failed (the dashboard counts it among failed runs),
    its message naming the file, after the good files, the artifacts and the logs are all written; a
    second run in which the same broken file is unchanged is not failed (it is not red forever)."""
    root = _folder(tmp_path / "docs")
    (root / "random.bin").write_bytes(bytes(range(256)) * 4)  # skipped: a type seams does not read
    settings = Settings(db=str(tmp_path / "db"), kb="art_kb", embedder="hashing", workers=1)
    state = ingest_flow([str(root)], settings, return_state=True)
    assert state.is_failed() and state.name == "Failed", state
    assert state.message.startswith("1 file failed: broken.pdf (corrupt); 2 added"), state.message
    report = report_of(state)
    assert report.failed == 1 and report.count("added") == 2
    indexed = {row["doc_id"] for row in Store(settings.db, "art_kb").manifest().values() if row["status"] == "indexed"}
    assert indexed == {"good.md", "notes.txt"}
    db = settings.db_location()

    table = _artifacts(state.state_details.flow_run_id, artifact_key("art_kb", "files", db))
    assert len(table) == 1
    rows = json.loads(table[0].data) if isinstance(table[0].data, str) else table[0].data
    by_file = {row["file"]: row for row in rows}
    assert by_file["broken.pdf"]["status"] == "failed" and by_file["broken.pdf"]["error"].startswith("corrupt")
    assert by_file["good.md"]["action"] == "added" and by_file["good.md"]["chunks"] >= 1
    # the long error after the short columns (before, they scrolled out of sight behind it)
    assert list(rows[0]) == ["file", "status", "action", "format", "strategy", "rule", "chunks", "tokens", "error",
                             "folder"]

    summary = _artifacts(state.state_details.flow_run_id, artifact_key("art_kb", "summary", db))
    assert "| added | 2 |" in summary[0].data and "| failed | 1 |" in summary[0].data
    progress = _artifacts(state.state_details.flow_run_id, artifact_key("art_kb", "progress", db))
    assert progress and float(progress[0].data) == 100.0

    # every file has its line in the run's logs on the server, the failed one as a WARNING
    logs = _logs(state.state_details.flow_run_id, lambda found: any("broken.pdf" in m for _, m in found))
    assert any(level == logging.WARNING and m.startswith("broken.pdf: failed — corrupt") for level, m in logs), logs
    assert any(level == logging.INFO and m.startswith("good.md: added") for level, m in logs), logs
    # a skipped file keeps its reason (it read "random.bin: skipped ·  ·  () · 0 chunks")
    assert any(level == logging.INFO and m.startswith("random.bin: skipped — unsupported: ") for level, m in logs), logs
    assert any(m.startswith("2 added, 0 updated") and "1 failed" in m for _, m in logs), "the summary line"

    again = ingest_flow([str(root)], settings, return_state=True)  # broken.pdf unchanged since it failed
    assert again.is_completed() and again.name == FAILURES_STATE, again
    assert "1 failed (1 unchanged since they failed" in again.message
    retried = ingest_flow([str(root)], settings.model_copy(update={"retry_failed": True}), return_state=True)
    assert retried.is_failed(), "a file tried again at the user's asking, and failing again, fails the run"
    clean = ingest_flow([str(root / "good.md")], settings.model_copy(update={"kb": "clean"}), return_state=True)
    assert clean.is_completed() and clean.name == "Completed"

    runs = [s.state_details.flow_run_id for s in (state, again, retried, clean)]
    assert _failed_or_crashed(runs[:1]) == 1, "the dashboard's home page counts the run with a new failure"
    assert _failed_or_crashed(runs[1:2]) == 0, "and not the next one, whose broken file had not changed"
    assert _failed_or_crashed(runs) == 2


def _logs(flow_run_id, ready) -> list[tuple[int, str]]:
    """The run's log lines on the server (they are sent in batches: wait until ``ready``)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId
    from prefect.logging.handlers import APILogHandler

    APILogHandler().flush()
    deadline = time.monotonic() + 30
    while True:
        with get_client(sync_client=True) as client:
            found = [(log.level, log.message) for log in
                     client.read_logs(LogFilter(flow_run_id=LogFilterFlowRunId(any_=[flow_run_id])))]
        if ready(found) or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


def test_two_databases_with_one_knowledge_base_name_have_their_own_artifacts(tmp_path):
    """Issue #12: artifact keys were per knowledge base name only, so two databases that both use
    ``default`` overwrote each other's."""
    one, two = str(tmp_path / "one"), str(tmp_path / "two")
    assert artifact_key("default", "files", one) != artifact_key("default", "files", two)
    assert artifact_key("default", "files", one) == artifact_key("default", "files", one)


def _flow_run_events(flow_run_id) -> list[str]:
    from prefect.client.orchestration import get_client
    from prefect.events.filters import EventFilter, EventNameFilter, EventResourceFilter

    with get_client(sync_client=True) as client:
        page = client.read_events(EventFilter(event=EventNameFilter(prefix=["prefect.flow-run."]),
                                              resource=EventResourceFilter(id=[f"prefect.flow-run.{flow_run_id}"])),
                                  limit=50)
    return [event.event for event in page.events]


def test_one_off_runs_send_no_heartbeats_unless_asked(prefect_harness, tmp_path, monkeypatch):
    """`seams ingest` and `seams evaluate` run without Prefect's flow-run heartbeats (their thread
    holds up the end of every run by up to a second); a run with Prefect's defaults (a served
    deployment) sends them, and so does a one-off run when the user sets the heartbeat variable."""
    for name in HEARTBEAT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    root = _folder(tmp_path / "docs")

    def run(db: str) -> str:
        settings = Settings(db=str(tmp_path / db), kb="beats", embedder="hashing", workers=1)
        return ingest_flow([str(root)], settings, return_state=True).state_details.flow_run_id

    with one_off_run():
        quiet = run("one-off")
    default = run("default")
    monkeypatch.setenv(HEARTBEAT_VARIABLES[0], "60")
    with one_off_run():
        asked = run("asked")

    beat = "prefect.flow-run.heartbeat"
    deadline = time.monotonic() + 60
    while True:  # events reach the server's store asynchronously, in the order they were sent
        events = {run_id: _flow_run_events(run_id) for run_id in (quiet, default, asked)}
        if (beat in events[default] and beat in events[asked]) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert beat in events[default] and beat in events[asked], events
    assert "prefect.flow-run.Failed" in events[quiet] and beat not in events[quiet], events[quiet]


def test_artifact_keys_are_valid():
    assert artifact_key("My_KB.2", "files") == "seams-my-kb-2-files"
    assert re.fullmatch(r"seams-my-kb-2-[0-9a-f]{6}-files", artifact_key("My_KB.2", "files", "/data/lancedb"))


def _wait_for(predicate, timeout: float, every: float = 1.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(every)
    return False


def _interrupt_group(process: subprocess.Popen) -> None:
    """Ctrl-C to a ``seams serve`` started in its own session; killed if still there after 30 s."""
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _indexed(db: str) -> set[str]:
    try:
        return {row["doc_id"] for row in Store(db).manifest().values() if row["status"] == "indexed"}
    except Exception:  # the table is being created by the served run right now
        return set()


@pytest.mark.slow
@pytest.mark.server
def test_serve_fires_on_schedule_and_indexes_a_new_file(tmp_path):
    """`seams serve` starts a real local Prefect server; its schedule fires and picks up a new file."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("첫 번째 문서입니다.", "utf-8")
    db = str(tmp_path / "db")
    env = dict(os.environ, PREFECT_HOME=str(tmp_path / "prefect"), PREFECT_RUNNER_POLL_FREQUENCY="2")
    env.pop("PREFECT_API_URL", None)
    port = 4300 + os.getpid() % 500
    log = open(tmp_path / "serve.log", "w")
    process = subprocess.Popen(
        [sys.executable, "-m", "flows.app.cli", "serve", str(docs), "--every", "8s", "--db", db,
         "--embedder", "hashing", "--port", str(port), "--workers", "1"],
        stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        assert _wait_for(lambda: "a.txt" in _indexed(db), 150), (tmp_path / "serve.log").read_text()
        (docs / "b.txt").write_text("나중에 추가된 문서입니다.", "utf-8")
        assert _wait_for(lambda: "b.txt" in _indexed(db), 90), (tmp_path / "serve.log").read_text()
        assert "dashboard at http://127.0.0.1:" in (tmp_path / "serve.log").read_text()
    finally:
        _interrupt_group(process)
        log.close()


def test_dask_runner_with_a_local_cluster_of_processes(prefect_harness, tmp_path):
    """Scale-out path: the same flow with DaskTaskRunner (two worker processes) indexes the folder
    exactly as the local runner does, the workers cutting and embedding each batch (issue #38): the
    run's tasks are theirs, none embeds in the flow, and the workers filled the embedding cache."""
    pytest.importorskip("prefect_dask")
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    from flows.ingest.flow import flow_for

    root = _folder(tmp_path / "docs")
    for i in range(6):
        (root / f"extra-{i}.txt").write_text(f"문서 {i}. " + "내용 " * 50, "utf-8")
    local = Settings(db=str(tmp_path / "local"), embedder="hashing", workers=1, batch_files=2)
    dask = local.model_copy(update={"db": str(tmp_path / "dask"), "runner": "dask", "workers": 2})
    local_report = report_of(flow_for(local)([str(root)], local, return_state=True))
    dask_state = flow_for(dask)([str(root)], dask, return_state=True)
    dask_report = report_of(dask_state)
    assert dask_report.count("added") == local_report.count("added") == 8 and dask_report.failed == 1
    assert dask_report.embedded == local_report.embedded > 0
    with get_client(sync_client=True) as client:
        runs = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[
            dask_state.state_details.flow_run_id])))
    names = {run.name.rsplit("-", 1)[0] for run in runs}
    assert "cut-and-embed-files" in names and "embed-chunks" not in names, names
    cached = sum(t.count_rows() for t in Store(str(tmp_path / "dask")).cache.tables())
    assert cached == dask_report.embedded

    def rows(db):
        return sorted((r["chunk_id"], r["text"]) for r in Store(db).rows())

    assert rows(str(tmp_path / "dask")) == rows(str(tmp_path / "local"))


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:160]
    except OSError:
        return "(gone)"


def _serve(docs: Path, db: str, tmp_path: Path, port: int, log_name: str) -> tuple[subprocess.Popen, Path]:
    env = dict(os.environ, PREFECT_HOME=str(tmp_path / "prefect"), PREFECT_RUNNER_POLL_FREQUENCY="1")
    env.pop("PREFECT_API_URL", None)
    log = tmp_path / log_name
    with open(log, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "flows.app.cli", "serve", str(docs), "--every", "5s", "--db", db, "--embedder", "hashing",
             "--port", str(port), "--workers", "1"], stdout=out, stderr=subprocess.STDOUT, env=env)
    return process, log


def _stop(process: subprocess.Popen, how: int, log: Path) -> float:
    """Signal ``seams serve``; returns the seconds until it and everything it started were gone."""
    started_processes = descendants(process.pid)
    sent = time.monotonic()
    process.send_signal(how)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    _wait_for(lambda: not any(running(pid) for pid in started_processes), 30, every=0.2)
    gone_after = time.monotonic() - sent
    for pid in [process.pid, *started_processes]:
        if running(pid):
            os.kill(pid, signal.SIGKILL)
    return gone_after


def _finished(log: Path) -> int:
    return log.read_text(errors="replace").count("Finished in state")


@pytest.mark.slow
@pytest.mark.server
def test_serve_interrupted_alone_cancels_the_run_in_progress(tmp_path):
    """An interrupt that reaches ``seams serve`` alone (``kill -INT``, a supervisor; a terminal's
    Ctrl-C also reaches the run's process) cancelled nothing: Prefect's runner waited for the run in
    progress to end — on a large folder, the whole ingest. It stops the run, as SIGTERM does."""
    import random

    docs, db = tmp_path / "docs", str(tmp_path / "db")
    docs.mkdir()
    words = "문서 내용 기관 사업 계획 예산 지원 대상 신청 기간 결과 보고 분석 자료".split()
    rng = random.Random(7)
    lines = (" ".join(rng.choice(words) for _ in range(12)) + "." for _ in range(60_000))
    (docs / "large.txt").write_text("\n".join(lines), "utf-8")  # about 30 s to index here
    port = 4300 + (os.getpid() + 13) % 500
    process, log = _serve(docs, db, tmp_path, port, "serve.log")
    try:
        assert _wait_for(lambda: "Beginning flow run" in log.read_text(), 120), log.read_text()[-3000:]
        time.sleep(3.0)
        assert "Finished in state" not in log.read_text(), "the run ended before the interrupt: nothing tested"
    finally:
        _stop(process, signal.SIGINT, log)
    text = log.read_text()
    assert "Flow run was cancelled" in text, text[-3000:]
    assert "Finished in state Completed" not in text, text[-3000:]
    assert "Traceback" not in text, text[-3000:]


@pytest.mark.slow
@pytest.mark.server
def test_serve_soak_stays_flat_stops_on_signals_and_restarts_with_its_own_parameters(tmp_path):
    """Issue #12: every served run left its process (~400 MB) and parser workers behind; SIGTERM
    was ignored and Ctrl-C printed tracebacks; a restart with another folder ran the old one once."""
    from conftest import rss_kb

    docs, db = tmp_path / "docs", str(tmp_path / "db")
    docs.mkdir()
    (docs / "a.txt").write_text("첫 번째 문서입니다.", "utf-8")
    port = 4300 + (os.getpid() + 7) % 500
    process, log = _serve(docs, db, tmp_path, port, "serve1.log")
    samples: dict[int, dict[int, int]] = {}  # finished runs -> {pid: RSS in KiB} of the tree
    try:
        while (runs := _finished(log)) < 30:
            assert process.poll() is None, log.read_text()
            assert _wait_for(lambda: _finished(log) > runs, 90, every=0.2), log.read_text()[-3000:]
            time.sleep(1.0)  # the run's process exits after its last line
            seen = []
            for _ in range(8):
                seen.append({pid: rss_kb(pid) for pid in [process.pid, *descendants(process.pid)]})
                time.sleep(0.25)
            samples[_finished(log)] = min(seen, key=len)
            (docs / "a.txt").write_text(f"첫 번째 문서입니다. 수정 {runs}회.", "utf-8")  # the folder changes
            (docs / f"new{runs % 3}.txt").write_text(f"추가된 문서 {runs}", "utf-8")
        # A run's process lives about ten seconds and, on a loaded machine, the next run (every 5 s)
        # starts as soon as one ends: one may be in any sample. What stays is what a later sample, two
        # runs on or more, still holds: serve, its Prefect server and multiprocessing's resource
        # tracker — a leaked run, worker or forkserver would be among them.
        ordered = [samples[r] for r in sorted(samples) if r >= 3]
        stayed = {pid for i, sample in enumerate(ordered) for pid in sample
                  if any(pid in later for later in ordered[i + 2:])}
        assert len(stayed) <= 3, {pid: _command(pid) for pid in stayed}
        kept = lambda sample: sum(rss for pid, rss in sample.items() if pid in stayed)  # noqa: E731
        median = lambda values: sorted(values)[len(values) // 2]  # noqa: E731
        early = [kept(samples[r]) for r in samples if 3 <= r <= 8]
        late = [kept(samples[r]) for r in samples if r >= 25]
        assert median(late) <= 1.3 * median(early), samples
        assert "every 5s" in log.read_text()
        # the dashboard on this port talks to this port's API (Prefect's UI assumes 4200 otherwise)
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{port}/ui-settings", timeout=10) as response:
            assert json.loads(response.read())["api_url"] == f"http://127.0.0.1:{port}/api"
    finally:
        stop_seconds = _stop(process, signal.SIGTERM, log)
    assert stop_seconds < 15, f"SIGTERM took {stop_seconds:.0f} s"
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]

    # Restart with another folder and database for the same knowledge base (same deployment).
    docs2, db2 = tmp_path / "docs2", str(tmp_path / "db2")
    docs2.mkdir()
    (docs2 / "b.txt").write_text("두 번째 폴더의 문서입니다.", "utf-8")
    old_versions = sorted(os.listdir(Path(db) / "default__chunks.lance" / "_versions"))
    restarted = time.time()
    process, log2 = _serve(docs2, db2, tmp_path, port, "serve2.log")
    try:
        assert _wait_for(lambda: _finished(log2) >= 3, 150, every=0.5), log2.read_text()[-3000:]
        assert _indexed(db2) == {"b.txt"}
        assert sorted(os.listdir(Path(db) / "default__chunks.lance" / "_versions")) == old_versions, (
            "a run after the restart wrote into the old database")
        from prefect.client.orchestration import get_client
        from prefect.settings import PREFECT_API_URL, temporary_settings

        with temporary_settings({PREFECT_API_URL: f"http://127.0.0.1:{port}/api"}), \
                get_client(sync_client=True) as client:
            runs = [r for r in client.read_flow_runs() if r.start_time and r.start_time.timestamp() > restarted]
        assert runs and {r.parameters["settings"]["db"] for r in runs} == {db2}, [r.parameters for r in runs]
    finally:
        stop_seconds = _stop(process, signal.SIGINT, log2)
    assert stop_seconds < 15, f"Ctrl-C took {stop_seconds:.0f} s"
    assert "Traceback" not in log2.read_text(), log2.read_text()[-3000:]


def _emit(count: int) -> None:
    from prefect.events import emit_event

    for i in range(count):
        emit_event(event="seams.test.drain", resource={"prefect.resource.id": f"seams.test.{i}"})


def test_prefect_queues_are_drained_without_a_warning(prefect_harness, caplog):
    """Issue #37: ``EventsWorker - Still processing items: N items remaining...`` after most runs'
    summaries. Prefect logs it whenever its events (or logs) worker is stopped with items still queued;
    seams lets the queues empty first, then stops the workers."""
    from prefect.events.worker import EventsWorker

    from flows.app.server import _drain_prefect_workers

    caplog.set_level(logging.WARNING)
    _emit(2000)
    EventsWorker.drain_all(timeout=60)  # what Prefect does at exit: the check below can fail
    assert "Still processing items" in caplog.text, "the events were sent before the drain: emit more"
    caplog.clear()
    _emit(300)
    _drain_prefect_workers()
    assert "Still processing items" not in caplog.text


def test_an_error_in_a_run_is_not_chained_to_the_missing_concurrency_limit(prefect_harness):
    """Issue #37: a run's crash showed first a 404 for the knowledge base's concurrency limit (none
    exists outside ``seams serve``), as the cause of everything after it."""
    from flows.ingest.flow import kb_slot

    with pytest.raises(RuntimeError) as raised, kb_slot("no_limit_here"):
        raise RuntimeError("the run's own error")
    assert raised.value.__context__ is None and raised.value.__cause__ is None


@pytest.mark.slow
@pytest.mark.server
def test_serve_on_a_configured_server_names_its_dashboard_and_a_run_with_a_new_failure_fails(prefect_harness, tmp_path):
    """Issue #37: with PREFECT_API_URL set, ``seams serve`` printed the API's address (the dashboard
    is at the address without /api); its runs in which a file failed are Failed on the server, as
    one-off runs are."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName
    from prefect.settings import PREFECT_API_URL

    api_url = PREFECT_API_URL.value()
    root = _folder(tmp_path / "docs")
    env = dict(os.environ, PREFECT_API_URL=api_url, PREFECT_RUNNER_POLL_FREQUENCY="1")
    log_path = tmp_path / "serve.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "flows.app.cli", "serve", str(root), "--every", "1h", "--db", str(tmp_path / "db"),
             "--kb", "served_kb", "--embedder", "hashing", "--workers", "1"],
            stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)

    def finished_runs():
        with get_client(sync_client=True) as client:
            runs = client.read_flow_runs(deployment_filter=DeploymentFilter(name=DeploymentFilterName(any_=["seams-served_kb"])))
        return [run for run in runs if run.state and run.state.is_final()]

    done: list = []  # read before serve stops: at its stop, a run it had started since is Cancelled
    try:
        assert _wait_for(lambda: done.extend(finished_runs()) or done, 150), log_path.read_text()
    finally:
        _interrupt_group(process)
    text = log_path.read_text()
    first = text.splitlines()[0]
    assert first.startswith(f"seams: dashboard at {api_url.removesuffix('/api')} — indexing "), text
    run = done[0]
    assert run.state.type.value == "FAILED" and run.state.message.startswith("1 file failed: broken.pdf"), run.state
    assert "Traceback" not in text and "Still processing items" not in text, text


def test_ingest_exits_1_for_new_failures_and_0_when_only_old_ones_remain(prefect_harness, tmp_path, capsys):
    """The exit code follows the run's state: 1 when files failed in this run, 0 when the only failed
    files failed at an earlier run and have not changed since (the summary still counts them)."""
    from flows.app.cli import EXIT_OK, EXIT_SOME_FAILED, main

    root = _folder(tmp_path / "docs")
    base = [str(root), "--db", str(tmp_path / "db"), "--embedder", "hashing", "--workers", "1"]
    assert main(["ingest", *base]) == EXIT_SOME_FAILED
    capsys.readouterr()
    assert main(["ingest", *base, "--json"]) == EXIT_OK
    captured = capsys.readouterr()
    assert json.loads(captured.out)["counts"]["failed"] == 1
    assert "Still processing items" not in captured.err
    (root / "broken.pdf").write_bytes(b"%PDF-1.7\n% broken differently")
    assert main(["ingest", *base]) == EXIT_SOME_FAILED, "a changed file that fails again is a new failure"


def test_seams_ingest_with_the_dask_runner(prefect_harness, tmp_path, capsys):
    """``seams ingest --runner dask`` as a user runs it: the command's progress listener must not go
    with the tasks to the workers (it holds the terminal's lock; every batch failed to be sent)."""
    pytest.importorskip("prefect_dask")
    from flows.app.cli import main

    root = tmp_path / "docs"
    root.mkdir()
    for i in range(3):
        (root / f"note {i}.md").write_text(f"# Note {i}\n\nThe tugboat number {i} pushes barges.\n", "utf-8")
    db = str(tmp_path / "db")
    assert main(["ingest", str(root), "--db", db, "--embedder", "hashing", "--runner", "dask", "--workers", "1"]) == 0
    assert sorted(r["doc_id"] for r in Store(db).rows(["doc_id"])) == ["note 0.md", "note 1.md", "note 2.md"]


def test_the_flow_as_a_served_run_receives_it_shares_the_modules_state(tmp_path):
    """A served run's process gets the flow object pickled. The flow's function is not what its
    module's name holds (that is the ``Flow``), so cloudpickle sends it by value with copies of the
    globals it names: the progress listeners were such a copy, and a served run's per-file log
    lines went to it. Every global the received function names must be its module's own object."""
    import cloudpickle

    from flows.ingest.flow import flow_for

    code = (
        "import sys, types, cloudpickle\n"
        "received = cloudpickle.loads(sys.stdin.buffer.read())\n"
        "import flows.ingest.flow as module\n"
        "names = received.fn.__code__.co_names\n"
        "print([n for n in names if n in received.fn.__globals__ and hasattr(module, n)\n"
        "       and received.fn.__globals__[n] is not getattr(module, n)])\n"
    )
    for runner in ("local", "dask"):
        if runner == "dask":
            pytest.importorskip("prefect_dask")
        payload = cloudpickle.dumps(flow_for(Settings(runner=runner)))
        done = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        assert done.stdout.decode().strip() == "[]", (runner, done.stdout.decode())
