"""A local Prefect server for schedules and the dashboard.

Prefect's temporary server (what a run uses when ``PREFECT_API_URL`` is unset) lives only as long
as one process and does not run schedules: ``serve`` on it warns "Cannot schedule flows on an
ephemeral server" and nothing ever fires. So ``seams serve`` and ``seams dashboard`` start a real
local server (``prefect server start``, SQLite under ``PREFECT_HOME``) unless one is configured,
wait until it answers, and point this process at it.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

DEFAULT_PORT = 4200


class ServerError(RuntimeError):
    pass


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
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL
    process = subprocess.Popen(
        [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port),
         "--analytics-off", "--no-prompt"],
        stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + startup_timeout
        while not api_healthy(api_url):
            if process.poll() is not None:
                raise ServerError(f"the Prefect server exited with code {process.returncode}"
                                  + (f"; see {log_path}" if log_path else ""))
            if time.monotonic() > deadline:
                raise ServerError(f"the Prefect server did not answer within {startup_timeout:.0f} s")
            time.sleep(0.5)
        yield api_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if log_path:
            log.close()


def dashboard_url(api_url: str) -> str:
    return api_url[: -len("/api")] if api_url.endswith("/api") else api_url
