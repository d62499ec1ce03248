"""Scheduled folder indexing: serve the ingest flow as a deployment that runs on an interval or cron.

Each run is an ordinary incremental ingest, so a run re-cuts only what changed. Runs of one
knowledge base never overlap: the deployment's concurrency limit is 1 and a new run is cancelled
while one is still going, and every ingest also holds the global concurrency slot ``seams-kb-KB``.
"""

from __future__ import annotations

import datetime as dt
import logging
import multiprocessing
import re
import signal
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from flows.errors import UsageError
from flows.ingest.sources import is_uri
from flows.settings import Settings

if TYPE_CHECKING:
    from prefect import Flow

_EVERY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|hr|d|day)?\s*$", re.IGNORECASE)
_UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600, "d": 86400, "day": 86400}


def parse_every(text: str) -> dt.timedelta:
    """``"10m"`` → 10 minutes; units s, m, h, d (seconds when no unit)."""
    match = _EVERY.match(text)
    if not match:
        raise UsageError(f"--every wants a duration like 30s, 10m, 2h or 1d, got {text!r}")
    seconds = float(match.group(1)) * _UNITS[(match.group(2) or "s").lower()]
    if seconds < 5:
        raise UsageError("--every must be at least 5 seconds")
    return dt.timedelta(seconds=seconds)


def deployment_name(settings: Settings) -> str:
    return f"seams-{settings.kb}"


def ensure_kb_limit(kb: str) -> None:
    """Create (or keep) the global concurrency limit of 1 that serialises ingests of one KB."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate
    from prefect.exceptions import ObjectNotFound

    from flows.ingest.flow import kb_limit_name

    with get_client(sync_client=True) as client:
        try:
            client.read_global_concurrency_limit_by_name(kb_limit_name(kb))
        except ObjectNotFound:
            client.create_global_concurrency_limit(GlobalConcurrencyLimitCreate(name=kb_limit_name(kb), limit=1))


def run_parameters(paths: list[str], settings: Settings) -> tuple[dict, dict]:
    """The parameters of the scheduled runs and of the run started at once. They differ in
    ``retry_failed`` alone, which only the first run keeps: in every scheduled run, a file that failed
    for what it is (over the time limit, say) would cost that run its time again (flows/ingest/sync.py)."""
    folders = [p if is_uri(p) else str(Path(p).resolve()) for p in paths]  # s3://… as given
    scheduled = settings.model_copy(update={"retry_failed": False})
    return ({"paths": folders, "settings": scheduled.model_dump(mode="json")},
            {"paths": folders, "settings": settings.model_dump(mode="json")})


def deployment(paths: list[str], settings: Settings, every: dt.timedelta | None, cron: str | None) -> tuple[Flow, dict]:
    """What :func:`serve_folders` serves: the ingest flow with the settings' task runner, and the
    options of its deployment. A served run runs that flow object (Prefect hands it to the run's
    process; it does not import the flow again from its entry point), so the runner goes with it."""
    from prefect.client.schemas.objects import ConcurrencyLimitConfig, ConcurrencyLimitStrategy
    from prefect.deployments.runner import EntrypointType

    from flows.ingest.flow import flow_for

    parameters, _ = run_parameters(paths, settings)
    return flow_for(settings), {
        "name": deployment_name(settings),
        "interval": every,
        "cron": cron,
        "parameters": parameters,
        "tags": ["seams", f"kb-{settings.kb}"],
        "description": f"Index {', '.join(parameters['paths'])} into knowledge base {settings.kb!r}",
        "global_limit": ConcurrencyLimitConfig(limit=1, collision_strategy=ConcurrencyLimitStrategy.CANCEL_NEW),
        "entrypoint_type": EntrypointType.MODULE_PATH,
        "print_starting_message": False,
    }


def serve_folders(paths: list[str], settings: Settings, every: dt.timedelta | None, cron: str | None,
                  run_now: bool = True) -> None:
    """Serve the ingest deployment until interrupted (Ctrl-C)."""
    ensure_kb_limit(settings.kb)
    flow, options = deployment(paths, settings, every, cron)
    if run_now:
        _, first_run = run_parameters(paths, settings)
        threading.Thread(target=_trigger_first_run, args=(options["name"], first_run), daemon=True).start()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _interrupt_as_terminate)
    flow.serve(**options)


def _interrupt_as_terminate(signum: int, frame: object) -> None:
    """Ctrl-C stops ``serve`` the way SIGTERM does: Prefect's runner cancels the run in progress
    and returns. Left to Prefect, an interrupt that reaches ``serve`` alone (``kill -INT``, a
    supervisor) waited for the run in progress to end, however long the folder takes; a run stopped
    part-way loses nothing (the next run redoes what it had not saved). Before the runner has
    installed its handler, and at a second Ctrl-C, this is an ordinary KeyboardInterrupt."""
    handler = signal.getsignal(signal.SIGTERM)
    if not callable(handler) or getattr(handler, "__self__", None) is None or getattr(handler.__self__, "stopping", True):
        raise KeyboardInterrupt
    print("seams: stopping — the run in progress is cancelled; the next one redoes what it had not saved",
          file=sys.stderr, flush=True)
    cancelling = {child.pid for child in multiprocessing.active_children()}
    handler(signum, frame)
    threading.Thread(target=_stop_runs_left, args=(cancelling,), daemon=True).start()


def _stop_runs_left(cancelling: set[int | None], late: float = 20.0, until: float = 120.0) -> None:
    """Stop the run processes the runner's cancelling missed. A run whose process was being started
    when the interrupt came is not among the runs the runner cancels; it then ran to its end while
    ``serve`` waited for it (16 s in a loaded CI, a whole ingest on a large folder). Every run
    process (Prefect starts them with multiprocessing) that was not there at the interrupt is sent
    SIGTERM once, at once; one that was (the runner is cancelling it) only if still there after
    ``late`` seconds — a second SIGTERM during its own shutdown makes it print tracebacks. A run
    stopped so loses nothing, as one killed part-way."""
    started = time.monotonic()
    signalled: set[int | None] = set()
    while time.monotonic() - started < until:
        for child in multiprocessing.active_children():
            if child.pid not in signalled and (child.pid not in cancelling or time.monotonic() - started > late):
                child.terminate()
                signalled.add(child.pid)
        time.sleep(0.5)


def _trigger_first_run(name: str, parameters: dict, wait: float = 60.0) -> None:
    """Start one run right away, once the deployment exists, so indexing does not wait an interval.
    The run is given this serve's parameters: a deployment left by an earlier ``seams serve`` of
    the same knowledge base may still hold that one's folders and settings until ``serve`` has
    updated it."""
    from prefect.deployments import run_deployment
    from prefect.exceptions import ObjectNotFound

    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            run_deployment(f"seams-ingest/{name}", parameters=parameters, timeout=0)
            return
        except ObjectNotFound:  # the deployment is not registered yet
            time.sleep(1.0)
    logging.getLogger("seams").warning("the first run of deployment seams-ingest/%s was not started: the "
                                       "deployment was not registered within %.0f s; runs follow the schedule",
                                       name, wait)
