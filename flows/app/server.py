"""Prefect servers that seams starts: a temporary one for a one-off run, a local one for schedules.

With no ``PREFECT_API_URL`` configured, a flow run starts Prefect's temporary server when it first
calls the API, and waits for it: seconds of importing the whole server into this process, then
seconds more while the server process boots. :func:`one_off_api` starts the same server (same
command, same database, services and UI off as Prefect's own) as soon as a command knows it will
run a flow, so it boots while seams imports its libraries and loads the embedder;
:func:`wait_for_api` is called just before the flow.

That server lives only as long as one process and does not run schedules: ``serve`` on it warns
"Cannot schedule flows on an ephemeral server" and nothing ever fires. So ``seams serve`` and
``seams dashboard`` start a real local server (``prefect server start``, SQLite under
``PREFECT_HOME``) unless one is configured, wait until it answers, and point this process at it.

:func:`one_off_run` holds the Prefect settings of a flow run in this process (no heartbeats).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

from flows.errors import SeamsError

DEFAULT_PORT = 4200


class ServerError(SeamsError, RuntimeError):
    """Prefect's server did not start or answer (printed by ``flows.app.cli`` as one line)."""


def api_healthy(api_url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(api_url.rstrip("/") + "/health", timeout=timeout) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def free_port(preferred: int = DEFAULT_PORT) -> int:
    with socket.socket() as sock:
        if sock.connect_ex(("127.0.0.1", preferred)) != 0:
            return preferred
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def local_server(port: int | None = None, startup_timeout: float = 120.0, log_path: str | None = None) -> Iterator[str]:
    """Start ``prefect server start`` on loopback, yield its API URL, stop it on exit.

    If a server already answers on the port (say, from ``seams dashboard`` in another terminal),
    it is reused and left running.
    """
    port = port or DEFAULT_PORT
    api_url = f"http://127.0.0.1:{port}/api"
    if api_healthy(api_url):
        yield api_url
        return
    port = free_port(port)
    api_url = f"http://127.0.0.1:{port}/api"
    env = dict(os.environ)
    env.pop("PREFECT_API_URL", None)
    # The dashboard's own API address: Prefect's UI assumes port 4200 unless told, and then shows
    # "Can't connect to Server API" on any other port.
    env.setdefault("PREFECT_UI_API_URL", api_url)
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL
    process = subprocess.Popen(
        [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port),
         "--analytics-off", "--no-prompt"],
        stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env, start_new_session=True,
    )
    try:
        _await_health(process, api_url, startup_timeout, "the Prefect server",
                      lambda: f"see {log_path}" if log_path else "")
        yield api_url
    finally:
        _stop(process, grace=20)
        if log_path:
            log.close()


def _await_health(process: subprocess.Popen, api_url: str, timeout: float, name: str,
                  explain: Callable[[], str], interval: float = 0.1) -> None:
    """Poll ``api_url`` until it answers; :class:`ServerError` if ``process`` exits or time runs out."""
    deadline = time.monotonic() + timeout
    while not api_healthy(api_url, timeout=1.0):
        if process.poll() is not None:
            detail = explain()
            raise ServerError(f"{name} exited with code {process.returncode} before answering"
                              + (f": {detail}" if detail else ""))
        if time.monotonic() > deadline:
            raise ServerError(f"{name} did not answer within {timeout:.0f} s")
        time.sleep(interval)


def _stop(process: subprocess.Popen, grace: float) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def dashboard_url(api_url: str) -> str:
    return api_url[: -len("/api")] if api_url.endswith("/api") else api_url


# -- the temporary server of a one-off run ------------------------------------------------------

def _death_signal() -> Callable[[], None] | None:
    """What the server's process runs before it starts, on Linux: ask for SIGTERM when seams'
    process dies, even by SIGKILL, so no server is left behind. libc is loaded here, in the parent:
    the forked child then only makes the call (loading a library after a fork can deadlock)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def request() -> None:
        prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG

    return request


class TemporaryServer:
    """Prefect's temporary API server (the command Prefect runs for it), in a child process.

    The command and its environment are a copy of Prefect's own (``SubprocessASGIServer`` in
    ``prefect.server.api.server``), private variables included: ``PREFECT__SERVER_EPHEMERAL`` (no UI,
    only the services meant for temporary servers) and ``PREFECT__SERVER_FINAL`` (the process's last
    app: routes are not copied) are read by the server's ``create_app`` and have no public setting.
    Prefect's class has no public way to start the server without importing all of it first, the
    seconds this class exists to save. ``tests/test_library_internals.py``
    compares the two commands and fails, naming Prefect's version, when they part.
    """

    def __init__(self, env: dict[str, str]) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.api_url = f"http://127.0.0.1:{self.port}/api"
        self._log = tempfile.TemporaryFile()
        spec = importlib.util.find_spec("prefect")  # where it is, without the second or two of importing it
        site = Path(spec.submodule_search_locations[0]).parent if spec and spec.submodule_search_locations else None
        self.process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "--app-dir", str(site or Path.cwd()),
             "--factory", "prefect.server.api.server:create_app", "--host", "127.0.0.1", "--port", str(self.port),
             "--log-level", "error", "--lifespan", "on"],
            env={**env, "PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1", "PREFECT__SERVER_FINAL": "1"},
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            preexec_fn=_death_signal(),
        )
        self.ready = False  # answered once

    def wait(self, timeout: float) -> None:
        if not self.ready:
            try:
                _await_health(self.process, self.api_url, timeout, "Prefect's temporary server", self._log_tail)
            except ServerError as exc:
                raise ServerError(f"{exc}; check the PREFECT_SERVER_* settings (the time limit is "
                                  "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS), or set PREFECT_API_URL to "
                                  "use a server of your own") from None
            self.ready = True

    def _log_tail(self) -> str:
        self._log.seek(0)
        lines = self._log.read().decode("utf-8", "replace").strip().splitlines()
        return " / ".join(lines[-3:])

    def stop(self) -> None:
        _stop(self.process, grace=10)
        self._log.close()


_EARLY: list[TemporaryServer] = []  # started by start_early(), adopted or stopped by one_off_api()
_STARTING: list[TemporaryServer] = []


def start_early() -> None:
    """Start the temporary server before Prefect is imported (that import alone takes a second or
    two), unless the environment names a server or Prefect is loaded already. Prefect's other
    sources of settings (profiles, ``prefect.toml``) are read by :func:`one_off_api`, which stops
    this server again if they name a server of their own."""
    if os.environ.get("PREFECT_API_URL") or os.environ.get("SEAMS_EARLY_SERVER") == "0" or "prefect" in sys.modules:
        return
    _EARLY.append(TemporaryServer(dict(os.environ)))


def stop_early() -> None:
    """Stop an early server that no :func:`one_off_api` adopted (the command ended before)."""
    while _EARLY:
        _EARLY.pop().stop()


@contextlib.contextmanager
def one_off_api() -> Iterator[None]:
    """Make sure the flow runs of this block have an API: the configured one, or a temporary server
    (started early, or now, in the background) stopped when the block ends, after Prefect has sent
    it the run's last logs and events. Call :func:`wait_for_api` before the first flow run."""
    from prefect.settings import PREFECT_API_URL, get_current_settings, temporary_settings

    early = _EARLY.pop() if _EARLY else None
    current = get_current_settings()
    if current.api.url or not current.server.ephemeral.enabled or os.environ.get("SEAMS_EARLY_SERVER") == "0":
        if early is not None:
            early.stop()
        try:
            yield  # the configured server; or (SEAMS_EARLY_SERVER=0) Prefect starts its own when first called
        finally:
            _drain_prefect_workers()  # now, quietly, rather than at the interpreter's exit
        return
    server = early or TemporaryServer({**os.environ, **current.to_environment_variables(exclude_unset=True)})
    _STARTING.append(server)
    try:
        with temporary_settings({PREFECT_API_URL: server.api_url}):
            try:
                yield
            finally:
                if server.ready:
                    _drain_prefect_workers()
    finally:
        _STARTING.remove(server)
        server.stop()


def wait_for_api() -> None:
    """Block until the temporary server of :func:`one_off_api` answers (no-op without one)."""
    if _STARTING:
        from prefect.settings import PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS

        _STARTING[-1].wait(float(PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS.value()))


def _drain_prefect_workers(timeout: float = 10.0) -> None:
    """Send what Prefect still queues (logs, events) before its server goes away or the process ends.

    Prefect's queue services log ``<Service> - Still processing items: N items remaining...`` as a
    WARNING whenever one is stopped with items still queued — after most runs' summaries, since a
    run's last task and artifact events are queued as it ends, and at the interpreter's exit too, where
    Prefect drains them itself. Nothing is lost: the warning only says the drain has work to do. So
    each service is first let empty its queue (``wait_until_empty``, bounded by ``timeout``), then
    stopped; a service still holding items then (a server gone, say) warns as before."""
    import threading

    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    deadline = time.monotonic() + timeout
    services = (APILogWorker, EventsWorker)
    # The running instances: Prefect keeps them in one class-level dict for all its services (so
    # either class's ``drain_all`` stops both: every queue is waited for first). ``service.instance()``
    # would start one, and a temporary server with it. tests/test_library_internals.py checks the dict.
    running = [s for s in tuple(getattr(APILogWorker, "_instances", {}).values()) if isinstance(s, services)]
    for instance in running:
        waiter = threading.Thread(target=instance.wait_until_empty, daemon=True, name="seams-drain")
        waiter.start()
        waiter.join(max(0.0, deadline - time.monotonic()))
    for service in services:
        with contextlib.suppress(Exception):
            service.drain_all(timeout=max(0.1, deadline - time.monotonic()))


#: Set either (Prefect's current name or its legacy one) to keep flow-run heartbeats in one-off runs.
HEARTBEAT_VARIABLES = ("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "PREFECT_RUNNER_HEARTBEAT_FREQUENCY")


@contextlib.contextmanager
def one_off_run() -> Iterator[None]:
    """Prefect settings for a flow run in this process (``seams ingest``, ``seams evaluate``).

    Flow-run heartbeats are turned off. Prefect 3.9 sends one every 180 s from a thread that sleeps
    in one-second steps and joins that thread when the run ends, so every run waits up to a second
    after its work is done — on 1,000 small files that was most of the flow's overhead
    (bench/orchestrate.py). Heartbeats let an automation spot runs whose process died; a one-off
    run's process is the user's own command, which reports its own end. Served deployments
    (``seams serve``, ``prefect.yaml`` workers) keep Prefect's default, and a user who sets the
    heartbeat frequency (:data:`HEARTBEAT_VARIABLES`, in the environment or a Prefect profile)
    keeps heartbeats here too.
    """
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, get_current_settings, temporary_settings

    configured = "heartbeat_frequency" in get_current_settings().flows.model_fields_set  # env, profile, toml
    if configured or any(os.environ.get(name) for name in HEARTBEAT_VARIABLES):
        yield
        return

    with temporary_settings({PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield
