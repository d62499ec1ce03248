"""The web application of ``seams ui``: Starlette routes rendering Jinja2 templates, GET only.

Pages: ``/`` (the knowledge bases), ``/kb/KB/files`` (filters ``format``, ``strategy``, ``status``;
``page``), ``/kb/KB/file?path=PATH`` (its chunks; ``compare=STRATEGY`` cuts it again beside them;
``parse=1`` parses a large file for its furniture and OCR'd pages), ``/kb/KB/search?q=…&mode=…&k=…``
(``mode2`` puts a second mode beside the first) and ``/kb/KB/runs``.

Safety: templates are autoescaped (a file named ``<script>…`` renders as text), and every response
carries a Content-Security-Policy that allows no script at all, so markup that slipped through would
still be inert. Nothing is written; only files a manifest names are opened (:mod:`flows.app.ui.library`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from flows.app.ui.library import PARSE_ON_VIEW_BYTES, BadRequest, Library, NotFound
from flows.app.ui.text import highlight, passage
from flows.errors import UsageError
from flows.settings import Settings

TEMPLATES = Path(__file__).parent / "templates"
#: No script, no frame, no form posting elsewhere: the page is HTML and one stylesheet.
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
MODES = ("hybrid", "fts", "vector")
#: The most chunks a search may ask for.
MAX_K = 50
#: What the file view offers to cut a file by, beside seams' own choice (any strategy name works).
COMPARE_CHOICES = ("tokens:800/400", "tokens:400/0", "recursive:400/0", "page", "section", "general", "whole")


def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True,
                      default_for_string=True), trim_blocks=True, lstrip_blocks=True)
    env.filters["highlight"] = highlight
    env.filters["passage"] = passage
    env.filters["thousands"] = lambda n: f"{n or 0:,}"
    env.filters["when"] = lambda t: t.strftime("%Y-%m-%d %H:%M:%S UTC") if t else ""
    env.filters["name"] = lambda path: Path(path).name if path else ""
    env.globals["url"] = _url
    return env


def _url(route: str, /, **params) -> str:
    """A link within the page: ``route`` with the non-empty query parameters (URL-encoded)."""
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return f"{route}?{query}" if query else route


def _int(request: Request, name: str, default: int) -> int:
    raw = request.query_params.get(name, "")
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise BadRequest(f"{name} must be a number, got {raw!r}") from None


def prefect_api() -> str:
    """The Prefect API configured for this process ("" when none: runs then had temporary servers)."""
    url = os.environ.get("PREFECT_API_URL", "")
    if url:
        return url.rstrip("/")
    try:
        from prefect.settings import get_current_settings

        return (get_current_settings().api.url or "").rstrip("/")
    except Exception:  # a broken profile must not stop the page: no links then
        return ""


def create_app(settings: Settings) -> Callable:
    """The application over ``settings``' database; ``settings.kb`` is the knowledge base opened first."""
    library = Library(settings)  # NotFound for a missing database, before anything is served
    library.summaries()  # LanceDB's and Arrow's first reads (seconds of loading) before the first page, not in it
    env = _environment()
    api = prefect_api()

    def render(request: Request, template: str, status: int = 200, **context) -> HTMLResponse:
        context.setdefault("kb", None)
        started = request.scope.get("seams.started", time.perf_counter())
        html = env.get_template(template).render(db=library.uri, default_kb=settings.kb, request=request,
                                                 elapsed=time.perf_counter() - started, **context)
        return HTMLResponse(html, status_code=status, headers=HEADERS)

    def home(request: Request) -> Response:
        summaries = library.summaries()
        if len(summaries) == 1 and not request.query_params.get("all"):
            return RedirectResponse(_url(f"/kb/{summaries[0].name}/files"), headers=HEADERS)
        return render(request, "home.html", summaries=summaries)

    def kb_home(request: Request) -> Response:
        return RedirectResponse(_url(f"/kb/{request.path_params['kb']}/files"), headers=HEADERS)

    def files(request: Request) -> Response:
        kb = request.path_params["kb"]
        params = request.query_params
        filters = {"format": params.get("format", ""), "strategy": params.get("strategy", ""),
                   "status": params.get("status", "")}
        listing = library.files(kb, filters["format"], filters["strategy"], filters["status"], _int(request, "page", 1))
        return render(request, "files.html", kb=kb, summary=library.summary(kb), listing=listing, filters=filters,
                      tab="files")

    def file(request: Request) -> Response:
        kb = request.path_params["kb"]
        path = request.query_params.get("path", "")
        row = library.file(kb, path)  # only a path the manifest names goes further
        chunks = library.chunks(kb, path)
        compare = request.query_params.get("compare", "").strip()
        wants_parse = bool(compare) or request.query_params.get("parse") == "1" or (row["size"] or 0) <= PARSE_ON_VIEW_BYTES
        parsed = library.parsed(row) if wants_parse and row["status"] != "failed" else None
        other, decision = None, None
        if compare and parsed is not None and parsed.doc is not None:
            decision, other = library.cut(parsed.doc, Path(path).name, compare)
        ocr_pages = {p["page"] for p in parsed.ocr_pages} if parsed else set()
        return render(request, "file.html", kb=kb, row=row, chunks=chunks, parsed=parsed, compare=compare,
                      other=other, decision=decision, ocr_pages=ocr_pages, choices=COMPARE_CHOICES, tab="files",
                      parse_limit=PARSE_ON_VIEW_BYTES)

    def search(request: Request) -> Response:
        kb = request.path_params["kb"]
        params = request.query_params
        query = params.get("q", "")
        mode, mode2 = params.get("mode", "hybrid"), params.get("mode2", "")
        k = _int(request, "k", 5)
        for name in (mode, mode2):
            if name and name not in MODES:
                raise BadRequest(f"unknown search mode {name!r}; known: {', '.join(MODES)}")
        if not 1 <= k <= MAX_K:
            raise BadRequest(f"k must be between 1 and {MAX_K}, got {k}")
        library.store(kb)
        columns = []
        if query.strip():
            columns = [(m, library.search(kb, query, m, k)) for m in dict.fromkeys((mode, mode2)) if m]
        return render(request, "search.html", kb=kb, query=query, mode=mode, mode2=mode2, k=k, columns=columns,
                      modes=MODES, tab="search")

    def runs(request: Request) -> Response:
        kb = request.path_params["kb"]
        rows = library.runs(kb)
        for run in rows:
            run["link"] = (f"{_dashboard(api)}/runs/flow-run/{run['flow_run_id']}"
                           if api and run["flow_run_id"] and run["api_url"].rstrip("/") == api else "")
        return render(request, "runs.html", kb=kb, runs=rows, api=api, tab="runs")

    def stylesheet(request: Request) -> Response:
        return Response((TEMPLATES / "style.css").read_text(encoding="utf-8"), media_type="text/css", headers=HEADERS)

    async def timed(scope, receive, send):
        scope["seams.started"] = time.perf_counter()
        await inner(scope, receive, send)

    def failure(status: int):
        def handle(request: Request, exc: Exception) -> Response:
            kb = request.path_params.get("kb")
            return render(request, "error.html", status=status, message=str(exc),
                          kb=kb if kb and kb in library.names() else None)
        return handle

    def crash(request: Request, exc: Exception) -> Response:
        return render(request, "error.html", status=500, message=f"{type(exc).__name__}: {exc}")

    inner = Starlette(routes=[
        Route("/", home), Route("/style.css", stylesheet), Route("/kb/{kb}", kb_home), Route("/kb/{kb}/files", files),
        Route("/kb/{kb}/file", file), Route("/kb/{kb}/search", search), Route("/kb/{kb}/runs", runs),
    ], exception_handlers={NotFound: failure(404), BadRequest: failure(400), Exception: crash})
    inner.state.library = library
    return timed  # an ASGI app: the routes, with the time each page took to build


def _dashboard(api_url: str) -> str:
    from flows.app.server import dashboard_url

    return dashboard_url(api_url)


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8300) -> None:
    """Serve the page until interrupted."""
    import socket

    import uvicorn

    app = create_app(settings)
    with socket.socket() as probe:  # uvicorn would log the error and exit 1; a taken port is the user's to change
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc} (choose another --port)") from None
    print(f"seams: the page of {settings.db_location()} is at http://{host}:{port}/ (Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
