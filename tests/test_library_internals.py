"""Where seams leans on a library's private parts, and why each still holds.

Each test names the library, its version and what changed, so that an upgrade that breaks one of
these fails here, loudly, instead of in a user's run: a temporary server that will not start, a
parser worker stuck for good, or unstructured downloading a model in an offline install.
"""

from __future__ import annotations

import concurrent.futures as cf
import errno
import os
import sys
import time
import uuid

import pytest

from flows.ingest.pipeline import CutConfig, FileRef
from flows.ingest.workers import Cutter
from splitters import Budget


def _recorder(calls: list[tuple[list[str], dict[str, str]]]):
    """Stands in for ``subprocess.Popen``: keeps each command and environment, starts nothing."""

    class Recorder:
        def __init__(self, *args, **kwargs) -> None:
            calls.append((list(args[0] if args else kwargs["args"]), dict(kwargs.get("env") or os.environ)))

        def poll(self) -> int | None:
            return None

    return Recorder


def _with_port(command: list[str]) -> list[str]:
    at = command.index("--port") + 1
    return [*command[:at], "PORT", *command[at + 1:]]


def test_the_temporary_server_starts_as_prefect_starts_it(monkeypatch):
    """flows/app/server.py starts Prefect's temporary server itself, with Prefect's private
    ``PREFECT__SERVER_EPHEMERAL`` and ``PREFECT__SERVER_FINAL``: the command must stay Prefect's own."""
    import prefect
    from prefect.server.api import server as prefect_server
    from prefect.settings import get_current_settings

    from flows.app import server as seams_server

    calls: list[tuple[list[str], dict[str, str]]] = []
    monkeypatch.setattr("subprocess.Popen", _recorder(calls))
    base = {**os.environ, **get_current_settings().to_environment_variables(exclude_unset=True)}
    theirs = prefect_server.SubprocessASGIServer(port=8999)  # its own instance: Prefect keeps one per port
    start = getattr(theirs, "_run_uvicorn_command", None)
    if start is None:
        pytest.fail(f"Prefect {prefect.__version__}: SubprocessASGIServer._run_uvicorn_command is gone; "
                    "compare how Prefect now starts its temporary server with flows/app/server.py:TemporaryServer")
    try:
        start()
    finally:
        theirs.stop()  # nothing was started; this forgets the instance
    ours = seams_server.TemporaryServer(base)
    ours._log.close()
    assert len(calls) == 2, (
        f"Prefect {prefect.__version__} no longer starts its temporary server with subprocess.Popen: "
        "compare with flows/app/server.py:TemporaryServer")
    (their_command, their_env), (our_command, our_env) = calls
    assert _with_port(our_command[1:]) == _with_port(their_command[1:]), (
        f"Prefect {prefect.__version__} starts its temporary server with another command than "
        f"flows/app/server.py:TemporaryServer:\n  Prefect: {their_command[1:]}\n  seams:   {our_command[1:]}")
    their_own = {key: value for key, value in their_env.items() if base.get(key) != value}
    our_own = {key: value for key, value in our_env.items() if base.get(key) != value}
    assert our_own == their_own, (
        f"Prefect {prefect.__version__} sets other variables for its temporary server than "
        f"flows/app/server.py:TemporaryServer (its private PREFECT__SERVER_*): Prefect {their_own}, seams {our_own}")


def test_a_process_pool_still_lets_seams_kill_its_workers():
    """flows/ingest/workers.py kills a stuck parser through ``ProcessPoolExecutor.kill_workers()`` (Python
    3.14) or, before it, the pool's private ``_processes``."""
    with cf.ProcessPoolExecutor(1) as pool:
        pool.submit(int).result(timeout=60)
        if not hasattr(pool, "kill_workers"):
            processes = getattr(pool, "_processes", None)
            assert isinstance(processes, dict) and all(hasattr(p, "kill") for p in processes.values()), (
                f"Python {sys.version.split()[0]}: ProcessPoolExecutor has neither kill_workers() nor its "
                "private _processes (pid -> Process); flows/ingest/workers.py:kill_workers cannot stop a stuck parser")


def _held_open_for_reading(fifo, writers: list[int]) -> bool:
    """Whether a process has the FIFO open to read it (or waits in its open). The write end opened to
    ask is kept open in ``writers``: closing it would hand the reader an end of file and free it."""
    try:
        writers.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # no reader
            return False
        raise
    return True


def test_a_worker_stuck_on_a_file_is_killed_not_left_behind(tmp_path):
    stalled = tmp_path / "stalled.txt"
    os.mkfifo(stalled)  # reading a FIFO nobody writes to blocks forever, like a parser stuck on a page
    good = tmp_path / "good.txt"
    good.write_text("예산 집행 현황을 점검했다.", "utf-8")
    refs = [FileRef(str(tmp_path), str(path), path.name, 0, 0.0) for path in (stalled, good)]
    cutter = Cutter(workers=1, timeout=3)
    writers: list[int] = []
    try:
        outcomes = cutter.cut(refs, CutConfig(Budget()))
        assert [o.error_kind for o in outcomes] == ["timeout", ""]
        deadline = time.monotonic() + 10
        while _held_open_for_reading(stalled, writers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _held_open_for_reading(stalled, writers), "the worker stuck on the file still runs after its time limit"
    finally:
        for fd in writers:
            os.close(fd)
        cutter.close()


@pytest.mark.slow
def test_unstructured_asks_seams_for_its_spacy_model():
    """parsers/other.py replaces private functions of ``unstructured.nlp.tokenize`` so that no spaCy
    model is ever downloaded: unstructured's pipeline must still load its model through them."""
    from importlib.metadata import version

    from parsers.other import offline_spacy_model, prepare_unstructured

    prepare_unstructured()
    from unstructured.nlp import tokenize

    before = offline_spacy_model.cache_info()
    text = f"Seams cuts documents {uuid.uuid4().hex}. At their seams."  # never in unstructured's caches
    assert len(tokenize.sent_tokenize(text)) == 2
    after = offline_spacy_model.cache_info()
    assert after.hits + after.misses > before.hits + before.misses, (
        f"unstructured {version('unstructured')} no longer loads its spaCy model through "
        "unstructured.nlp.tokenize._get_nlp, which parsers/other.py replaces: it may download one")


def test_a_release_of_unstructured_without_the_replaced_functions_is_an_error(monkeypatch):
    from parsers.other import prepare_unstructured

    prepare_unstructured()
    from unstructured.nlp import tokenize

    monkeypatch.delattr(tokenize, "_install_spacy_model")
    with pytest.raises(RuntimeError, match=r"unstructured \S+ has no unstructured\.nlp\.tokenize\._install_spacy_model"):
        prepare_unstructured()


def test_prefect_keeps_its_queue_services_where_the_quiet_drain_finds_them():
    """flows/app/server.py:_drain_prefect_workers waits for Prefect's log and event queues to empty
    before stopping them (else Prefect warns ``Still processing items``); it finds the running
    services in the class-level ``_instances`` dict that Prefect's services share."""
    import prefect
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    for service in (APILogWorker, EventsWorker):
        assert isinstance(getattr(service, "_instances", None), dict), (
            f"Prefect {prefect.__version__}: {service.__name__}._instances is gone; see how its queue services are "
            "kept now and update flows/app/server.py:_drain_prefect_workers")
        assert callable(getattr(service, "wait_until_empty", None)), f"Prefect {prefect.__version__}"
    assert APILogWorker._instances is EventsWorker._instances, "one dict for all services: the drain waits for all first"
