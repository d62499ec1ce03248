"""What the page reads: a seams database's knowledge bases, their files, chunks, searches and runs.

Everything goes through the store's tables (:class:`flows.index.store.Store`) with filters, orders and
limits LanceDB applies, so a page of the file list reads one page of rows and a few counts, however
many files the knowledge base holds. A file itself is opened only when its manifest row names it
(:meth:`Library.parsed`): to show what parsing set aside (page furniture), which pages OCR read, and to
cut it by another strategy on request.

Errors are :class:`NotFound` (no such database, knowledge base or file: the page says which exist)
and :class:`BadRequest` (a bad filter, mode, k or strategy); both are :class:`flows.errors.UsageError`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from flows.errors import UsageError
from flows.index.schema import sql_string
from flows.index.store import Store
from flows.settings import Settings
from splitters.chunk import HEADING_SEPARATOR

#: Files a page of the file list shows.
PAGE_FILES = 50
#: Files up to this size are parsed when their page opens (furniture and OCR'd pages); larger ones on
#: request, since parsing (and OCR) takes seconds per megabyte or per scanned page.
PARSE_ON_VIEW_BYTES = 5 << 20
#: The file list's status filter: its choices and what each selects.
STATUS_FILTERS = {"failed": "status = 'failed'", "indexed": "status <> 'failed'"}
#: The columns of a chunk the file view shows (no vectors, no index columns).
CHUNK_COLUMNS = ["chunk_id", "ordinal", "text", "tokens", "heading_path", "page_start", "page_end", "sheet",
                 "row_start", "row_end", "slide_start", "slide_end", "char_start", "char_end", "strategy", "rule"]
#: The manifest columns the file list shows.
FILE_COLUMNS = ["path", "doc_id", "root", "format", "strategy", "rule", "evidence", "chunks", "tokens", "status",
                "error_kind", "error", "indexed_at", "content_hash", "size"]


class NotFound(UsageError):
    """No such database, knowledge base or file."""


class BadRequest(UsageError):
    """A parameter the page cannot use (filter, mode, k, strategy)."""


@dataclass(frozen=True)
class KnowledgeBase:
    name: str
    embedder: str
    files: int
    failed: int
    chunks: int
    tokens: int
    last_ingest: object  # datetime or None


@dataclass(frozen=True)
class FilePage:
    rows: list[dict]
    total: int  # files matching the filters
    page: int
    pages: int
    formats: list[str]
    strategies: list[str]


@dataclass(frozen=True)
class Parsed:
    """What parsing the file again shows beside its stored chunks."""

    error: str = ""  # why the file could not be parsed (gone, unreadable, …)
    changed: bool = False  # its content differs from what was indexed
    furniture: list[dict] = field(default_factory=list)  # {"text", "page"}
    ocr_pages: list[dict] = field(default_factory=list)  # {"page", "confidence"}
    warnings: list[str] = field(default_factory=list)
    doc: object = None  # the parsed Document (for cutting it another way)


class Library:
    """A seams database, read-only, for the page. ``settings`` give the database, the default
    knowledge base and the cutting settings a file is cut again with."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.uri = settings.db
        if "://" not in self.uri and not Path(self.uri).expanduser().is_dir():
            # connecting would create the folder of a mistyped --db
            raise NotFound(f"no seams database at {self.uri} (index a folder first: seams ingest FOLDER --db {self.uri})")
        self._stores: dict[str, Store] = {}
        self._lock = threading.Lock()

    # -- knowledge bases -----------------------------------------------------------------------
    def names(self) -> list[str]:
        return self._store(self.settings.kb, check=False).knowledge_bases()

    def store(self, kb: str) -> Store:
        return self._store(kb)

    def _store(self, kb: str, check: bool = True) -> Store:
        with self._lock:
            store = self._stores.get(kb)
            if store is None:
                store = Store(self.uri, kb)
                if check and store.chunks_table() is None:
                    known = store.knowledge_bases()
                    raise NotFound(f"no knowledge base {kb!r} in {self.uri}; "
                                   + (f"it has: {', '.join(known)}" if known else "it has none yet"))
                self._stores[kb] = store
            return store

    def summaries(self) -> list[KnowledgeBase]:
        return [self.summary(name) for name in self.names()]

    def summary(self, kb: str) -> KnowledgeBase:
        import pyarrow.compute as pc

        store = self.store(kb)
        manifest = store.manifest_table()
        files = failed = tokens = 0
        last = None
        if manifest is not None:
            files = manifest.count_rows()
            failed = manifest.count_rows(STATUS_FILTERS["failed"])
            columns = manifest.search().select(["tokens", "indexed_at"]).limit(None).to_arrow()
            tokens = pc.sum(columns["tokens"]).as_py() or 0
            last = pc.max(columns["indexed_at"]).as_py()
        runs = store.runs.latest(1)
        if runs:
            last = runs[0]["finished_at"]
        return KnowledgeBase(kb, store.recorded_embedder(), files, failed, store.count(), tokens, last)

    # -- files ---------------------------------------------------------------------------------
    def files(self, kb: str, format_: str = "", strategy: str = "", status: str = "", page: int = 1,
              per_page: int = PAGE_FILES) -> FilePage:
        """One page of the knowledge base's files in path order, with the filters applied by LanceDB."""
        from lancedb.query import ColumnOrdering

        store = self.store(kb)
        manifest = store.manifest_table()
        if status and status not in STATUS_FILTERS:
            raise BadRequest(f"unknown status filter {status!r}; known: {', '.join(STATUS_FILTERS)}")
        if page < 1:
            raise BadRequest(f"page must be 1 or more, got {page}")
        if manifest is None:
            return FilePage([], 0, 1, 1, [], [])
        formats, strategies = self._facets(manifest)
        where = [f"format = {sql_string(format_)}" if format_ else "", f"strategy = {sql_string(strategy)}" if strategy else "",
                 STATUS_FILTERS.get(status, "")]
        predicate = " AND ".join(w for w in where if w) or None
        total = manifest.count_rows(predicate) if predicate else manifest.count_rows()
        pages = max(1, -(-total // per_page))
        query = manifest.search()
        if predicate:
            query = query.where(predicate)
        rows = (query.select(FILE_COLUMNS).order_by([ColumnOrdering(column_name="path")])
                .limit(per_page).offset((min(page, pages) - 1) * per_page).to_list())
        return FilePage(rows, total, min(page, pages), pages, formats, strategies)

    def _facets(self, manifest) -> tuple[list[str], list[str]]:
        """The formats and strategies the knowledge base holds (for the filters), per table version."""
        return _facets(manifest.name, manifest.version, manifest)

    def file(self, kb: str, path: str) -> dict:
        """The manifest row of the file at ``path`` (its full path, as indexed)."""
        manifest = self.store(kb).manifest_table()
        rows = [] if manifest is None else manifest.search().where(f"path = {sql_string(path)}").limit(1).to_list()
        if not rows:
            raise NotFound(f"no file {path!r} in knowledge base {kb!r}")
        return rows[0]

    def chunks(self, kb: str, path: str) -> list[dict]:
        """The file's stored chunks in document order, each with the reason it starts where it does."""
        table = self.store(kb).chunks_table()
        rows = (table.search().where(f"source = {sql_string(path)}").select(CHUNK_COLUMNS).limit(None).to_list()
                if table is not None else [])
        rows.sort(key=lambda row: row["ordinal"])
        strategy = rows[0]["strategy"] if rows else ""
        return with_boundaries(rows, strategy)

    # -- the file itself -----------------------------------------------------------------------
    def parsed(self, row: dict) -> Parsed:
        """The file of a manifest row parsed again (cached by path and content): its furniture, OCR'd
        pages and warnings, or why it cannot be."""
        from flows.ingest.pipeline import file_hash

        path = row["path"]
        try:
            current = file_hash(path)
        except OSError as exc:
            return Parsed(error=f"the file cannot be read now: {exc.strerror or exc}")
        return _parse(path, current, self._cut_config(None)) if current == row["content_hash"] else \
            _changed(_parse(path, current, self._cut_config(None)))

    def cut(self, doc, name: str, strategy: str) -> tuple[object, list[dict]]:
        """The document cut by ``strategy`` (e.g. ``tokens:800/400``): (decision, chunk rows with
        boundaries), in the same shape as :meth:`chunks`."""
        from flows.ingest.pipeline import cut_document

        decision, chunks = cut_document(doc, self._cut_config(strategy), name)
        rows = [chunk_row(ordinal, chunk) for ordinal, chunk in enumerate(chunks)]
        return decision, with_boundaries(rows, decision.strategy)

    def _cut_config(self, strategy: str | None):
        from pydantic import ValidationError

        from flows.ingest.pipeline import CutConfig

        try:
            # validated again with the strategy forced: an unknown name lists the known ones
            settings = self.settings if strategy is None else Settings(**{**self.settings.model_dump(), "strategy": strategy})
            return CutConfig.from_settings(settings)
        except (ValidationError, ValueError) as exc:
            raise BadRequest(_first_error(exc)) from None

    # -- search and runs -----------------------------------------------------------------------
    def search(self, kb: str, query: str, mode: str, k: int) -> list[dict]:
        from flows.index.search import search

        self.store(kb)  # a missing knowledge base is NotFound
        try:
            hits = search(self.settings.model_copy(update={"kb": kb}), query, k=k, mode=mode)
        except UsageError as exc:
            raise BadRequest(str(exc)) from None
        for hit in hits:
            hit["ordinal"] = int(hit["chunk_id"].rsplit("#", 1)[1])
        return hits

    def runs(self, kb: str, limit: int = 20) -> list[dict]:
        return self.store(kb).runs.latest(limit)


def _first_error(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        return "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in errors())
    return str(exc)


#: The facets of each manifest table version read so far (a new ingest makes a new version).
_FACETS: dict[tuple[str, int], tuple[list[str], list[str]]] = {}


def _facets(name: str, version: int, manifest) -> tuple[list[str], list[str]]:
    key = (name, version)
    if key not in _FACETS:
        if len(_FACETS) > 64:
            _FACETS.clear()
        _FACETS[key] = _read_facets(manifest)
    return _FACETS[key]


def _read_facets(manifest) -> tuple[list[str], list[str]]:
    import pyarrow.compute as pc

    columns = manifest.search().select(["format", "strategy"]).limit(None).to_arrow()
    return ([v for v in sorted(pc.unique(columns["format"]).to_pylist(), key=str) if v],
            [v for v in sorted(pc.unique(columns["strategy"]).to_pylist(), key=str) if v])


_PARSED: dict[tuple[str, str], Parsed] = {}
_PARSE_LOCK = threading.Lock()


def _parse(path: str, content_hash: str, config) -> Parsed:
    """Parse the file (OCR included, as the ingest did), at most a few kept."""
    from flows.ingest.pipeline import check_text_size
    from parsers import ParseError, parse

    key = (path, content_hash)
    with _PARSE_LOCK:
        if key in _PARSED:
            return _PARSED[key]
    try:
        doc = parse(path, max_bytes=config.max_bytes, ocr=config.ocr)
        check_text_size(doc, config.max_text_chars)
    except ParseError as exc:
        result = Parsed(error=f"{exc.kind}: {exc.message}")
    else:
        result = Parsed(furniture=[{"text": b.text, "page": b.locator.page} for b in doc.furniture],
                        ocr_pages=[{"page": p.number, "confidence": p.ocr} for p in doc.properties.pages
                                   if p.ocr is not None],
                        warnings=list(doc.warnings), doc=doc)
    with _PARSE_LOCK:
        while len(_PARSED) >= 4:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = result
    return result


def _changed(parsed: Parsed) -> Parsed:
    from dataclasses import replace

    return replace(parsed, changed=True)


def chunk_row(ordinal: int, chunk) -> dict:
    """A :class:`splitters.chunk.Chunk` in the shape of a stored chunk row (:data:`CHUNK_COLUMNS`)."""
    return {"chunk_id": f"#{ordinal}", "ordinal": ordinal, "text": chunk.text, "tokens": chunk.tokens,
            "heading_path": HEADING_SEPARATOR.join(chunk.heading_path), "page_start": chunk.page_start,
            "page_end": chunk.page_end, "sheet": chunk.sheet, "row_start": chunk.row_start, "row_end": chunk.row_end,
            "slide_start": chunk.slide_start, "slide_end": chunk.slide_end, "char_start": chunk.start,
            "char_end": chunk.end}


def locator(row: dict) -> str:
    """Where a chunk sits: pages, sheet and rows, slides (as a search hit says it), then characters."""
    from flows.index.search import where

    place = where(row)
    chars = f"chars {row['char_start']:,}-{row['char_end']:,}" if row.get("char_start") is not None else ""
    return ", ".join(part for part in (place if place != "whole file" else "", chars) if part)


def with_boundaries(rows: list[dict], strategy: str) -> list[dict]:
    """The rows, each with ``boundary``: why it starts where it does, read off its locator against the
    chunk before (the cut itself records no reason)."""
    previous = None
    for row in rows:
        row["boundary"] = boundary_reason(previous, row, strategy)
        row["locator"] = locator(row)
        previous = row
    return rows


def boundary_reason(before: dict | None, row: dict, strategy: str) -> str:
    """Why a chunk starts where it does, told from the chunk before it."""
    if before is None:
        return "start of the file"
    if strategy.startswith(("tokens:", "recursive:")) or strategy == "none":
        return f"fixed-size window ({strategy})"
    if row.get("sheet") != before.get("sheet"):
        return f"new sheet {row.get('sheet')!r}"
    if row.get("slide_start") is not None and row["slide_start"] != before.get("slide_end"):
        return f"slide {row['slide_start']}"
    path, path_before = row.get("heading_path") or "", before.get("heading_path") or ""
    if path != path_before and path:
        return f"heading: {path.split(HEADING_SEPARATOR)[-1]}"
    if row.get("row_start") is not None and before.get("row_end") is not None:
        return "rows continue: the previous chunk reached the pack size"
    if strategy == "page" and row.get("page_start") != before.get("page_end"):
        return f"page {row['page_start']}"
    if row.get("page_start") is not None and row["page_start"] != before.get("page_end"):
        return f"page {row['page_start']} (the section above was over the budget)"
    return "within a section over the budget: cut at a paragraph or line"
