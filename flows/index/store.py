"""The LanceDB store: chunk rows, the manifest of indexed files, and an embedding cache.

A knowledge base ``KB`` is two tables, ``KB__chunks`` and ``KB__manifest``, and a third derived
from the chunks, ``KB__fts_passages`` (the passages English full text ranks by, which the upkeep
after every ingest brings in line: :mod:`flows.index.passages`), and a log of its ingest runs,
``KB__runs`` (:mod:`flows.index.runs`, what ``seams ui`` lists); one KB never reads or deletes
another's rows. A file is known by its path (``path`` in the manifest, ``source`` in the
chunks): two folders indexed into one KB keep their same-named files apart. The embedding cache (``embedding_cache``) is keyed by embedder and text
hash and holds no document rows, so all KBs share it.

Writes: a batch of files' chunks replaces those files' old chunks in one ``merge_insert`` commit
(keyed on chunk id, deleting the files' rows that are not in the new set), so a reader sees each
file either as it was or as it is now. A batch of files the knowledge base has never held — no
manifest row and no chunk row (:meth:`Store.sources`) — is appended with one ``add`` instead, in a
local database, where the ingest lock (:mod:`flows.index.lock`) keeps another ingest from writing
the same files meanwhile (on object storage, with no lock, batches are always merged): a
``merge_insert`` joins the batch against the whole table, so its cost grew with the table (82 →
276 ms a batch of 256 files over the first 100,000 rows, and +230 MB), where ``add`` stays flat
(about 25 ms). The manifest row of a file is written after its chunks: if a run dies in between,
the next run sees the file as changed, finds its rows, and replaces them. Predicates are built
with :func:`sql_string`, so no file name can widen a delete.

LanceDB caches table metadata (every version's manifest) and index pages per process, by default
up to several GiB; seams opens every connection in one session with bounded caches
(:data:`METADATA_CACHE_BYTES`, :data:`INDEX_CACHE_BYTES`), so a run that commits hundreds of
batches does not grow with them.

The chunk rows carry, beside the flat columns seams filters on, an ``id`` and a ``metadata`` struct
(:func:`chunk_schema`): the layout LangChain's and LlamaIndex's LanceDB stores read. A table written
before they existed gains them in place at the next ingest (:func:`flows.index.upgrade.upgrade`). Each row has two
vector columns: ``vector``, the whole chunk's (what other tools search), and ``passages``, the whole
chunk's and its passages' (what seams' vector search ranks by, LanceDB's multivector type); a table
written before ``passages`` existed is re-created at the next ingest, its whole-chunk vectors taken
from the embedding cache.

Indexes and upkeep (:meth:`Store.maintain`, after every ingest): two BM25 full-text indexes —
character 2-3-grams over ``fts_text`` (any script; Korean words carry particles, so whole-word
tokens would miss them) and stemmed English words over ``fts_words`` (better ranking for English
queries). Those columns hold the chunk's text and embedded text after a line with the document's
title (:func:`search_text`), so the text shown and embedded stays the chunk's own. Other tools build
an English word index on ``text`` for their own full-text queries (langchain-community's ``LanceDB``
and LlamaIndex's ``LanceDBVectorStore`` with ``query_type="fts"`` or ``"hybrid"`` call LanceDB's
``create_fts_index("text", replace=True)``); it is theirs, and seams' indexes are on other columns.
Every ingest and full-text search compares seams' indexes' settings, as LanceDB reports them, with
seams' and rebuilds one that differs (``create_fts_index("fts_text", replace=True)`` by hand), with
a warning. From
:data:`VECTOR_INDEX_MIN_ROWS` rows, an IVF_PQ index on the ``passages`` column vector search ranks by
(below that, exact search is fast and exact). Searches also scan rows written since an index was last updated, so results
are current right after a write; compaction (``optimize``), run after large runs or once commits
have piled up, folds those rows into the indexes and removes old versions. Old versions are also
pruned on their own once :data:`PRUNE_VERSIONS` have piled up: every version older than
:data:`KEEP_VERSIONS` goes, with the data and index files only it used, so a database indexed on a
schedule for months stays near the size of a fresh ingest.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
from collections.abc import Callable, Sequence

import pyarrow as pa

from flows.errors import UsageError
from flows.index.cache import EmbeddingCache
from flows.index.passages import PassageIndex
from flows.index.runs import RunLog
from flows.index.schema import (
    CHUNKS,
    MANIFEST,
    MANIFEST_SCHEMA,
    PASSAGES,
    PRIMARY_KEY,
    WRITE_BATCH_ROWS,
    chunk_schema,
    chunk_table,
    in_list,
    open_table,
    table_names,
)
from flows.index.upkeep import (
    KEEP_VERSIONS,
    LARGE_RUN_FILES,
    VECTOR_INDEX_MIN_ROWS,
    ensure_indexes,
    needs_compaction,
    needs_pruning,
)

#: LanceDB's per-process caches (see the module docstring): table metadata, and index pages (what a
#: search reads again; a knowledge base's full-text and vector indexes fit it up to about a million
#: chunks).
METADATA_CACHE_BYTES = 64 << 20


INDEX_CACHE_BYTES = 256 << 20


@functools.cache
def session():
    """The one LanceDB session of this process, with bounded caches."""
    import lancedb

    return lancedb.Session(index_cache_size_bytes=INDEX_CACHE_BYTES, metadata_cache_size_bytes=METADATA_CACHE_BYTES)


log = logging.getLogger(__name__)


class Store:
    def __init__(self, uri: str, kb: str = "default") -> None:
        import lancedb

        self.uri = uri
        self.kb = kb
        self.db = lancedb.connect(uri, session=session())
        self.cache = EmbeddingCache(self.db, uri)
        self.passages = PassageIndex(self.db, kb)
        self.runs = RunLog(self.db, kb)
        self._keyed: set[str] = set()  # tables whose primary key this store has seen declared

    # -- tables ------------------------------------------------------------------------------
    def table_name(self, table: str) -> str:
        return f"{self.kb}__{table}"

    def open_table(self, name: str):
        """The table, or None if it does not exist (:func:`flows.index.schema.open_table`)."""
        return open_table(self.db, name)

    def chunks_table(self, dim: int | None = None):
        """This knowledge base's chunks table (None if it has none); ``dim``: to write to, created if
        missing."""
        table = self.open_table(self.table_name(CHUNKS))
        if table is None and dim is not None:
            table = self.db.create_table(self.table_name(CHUNKS), schema=chunk_schema(dim), exist_ok=True)
        elif table is not None and dim is not None:
            self._declare_key(table, CHUNKS, "chunk_id")
        return table

    @property
    def chunks_table_name(self) -> str:
        """The LanceDB table of this knowledge base's chunks (``KB__chunks``)."""
        return self.table_name(CHUNKS)

    def drop_chunks(self) -> None:
        """Drop this knowledge base's chunks table and its passages, if there are (an evaluation writes
        them afresh)."""
        for name in (CHUNKS, PASSAGES):
            if self.open_table(self.table_name(name)) is not None:
                self.db.drop_table(self.table_name(name))

    def manifest_table(self, create: bool = False):
        """This knowledge base's manifest table (None if it has none); ``create``: to write to, created
        if missing."""
        table = self.open_table(self.table_name(MANIFEST))
        if table is None and create:
            table = self.db.create_table(self.table_name(MANIFEST), schema=MANIFEST_SCHEMA, exist_ok=True)
        elif table is not None and create:
            self._declare_key(table, MANIFEST, "path")
        return table

    def _declare_key(self, table, name: str, column: str) -> None:
        """Declare ``column`` the table's primary key (:data:`flows.index.schema.PRIMARY_KEY`) in a table
        written before seams declared it, so concurrent merges of the same new keys leave them once (one
        metadata commit, once; looked at once per store, not at every batch). A column that may hold
        nulls (a manifest written before ``path`` was required) cannot be one: that table stays as it is."""
        if name in self._keyed:
            return
        wanted = {key.encode(): value.encode() for key, value in PRIMARY_KEY.items()}

        def declared() -> bool:
            field = table.schema.field(column)
            return field.nullable or wanted.items() <= (field.metadata or {}).items()

        if not declared():
            try:
                table.replace_field_metadata(column, PRIMARY_KEY)
            except RuntimeError:  # another writer declaring it at the same moment: its commit is as good
                table.checkout_latest()
                if not declared():
                    raise
        self._keyed.add(name)

    def _table_names(self) -> list[str]:
        return table_names(self.db)

    def _chunk_tables(self) -> list:
        """Every knowledge base's chunks table in this database."""
        tables = [self.open_table(f"{kb}__{CHUNKS}") for kb in self.knowledge_bases()]
        return [t for t in tables if t is not None]

    def knowledge_bases(self) -> list[str]:
        """The names of the knowledge bases in this database (those with a chunks table)."""
        return sorted(n.removesuffix(f"__{CHUNKS}") for n in self._table_names() if n.endswith(f"__{CHUNKS}"))

    # -- manifest ----------------------------------------------------------------------------
    def manifest(self) -> dict[str, dict]:
        """The manifest rows by file path."""
        table = self.manifest_table()
        if table is None:
            return {}
        return {row["path"]: row for row in table.to_arrow().to_pylist()}

    def write_manifest(self, entries: Sequence[dict], new: bool = False) -> None:
        """Record files (one commit); ``new``: none of them has a manifest row yet, so they are
        appended rather than merged on ``path``."""
        if not entries:
            return
        table = self.manifest_table(create=True)
        data = pa.Table.from_pylist(list(entries), schema=MANIFEST_SCHEMA)
        if new:
            table.add(data)
            return
        table.merge_insert("path").when_matched_update_all().when_not_matched_insert_all().execute(data)

    def forget(self, paths: Sequence[str]) -> int:
        """Remove files' chunks and manifest rows (files deleted from the folder)."""
        if not paths:
            return 0
        removed = 0
        chunks = self.chunks_table()
        for start in range(0, len(paths), 500):
            part = paths[start:start + 500]
            if chunks is not None:
                removed += chunks.delete(in_list("source", part)).num_deleted_rows
            manifest = self.manifest_table()
            if manifest is not None:
                manifest.delete(in_list("path", part))
        return removed

    def orphans(self, manifest: dict[str, dict], exists: Callable[[str], bool] | None = None) -> list[str]:
        """Paths of files that have chunks but no manifest row (``manifest``, by path) and no longer
        exist: left by a run killed between a batch's chunk commit and its manifest commit, after
        which the file was deleted or renamed, so no run would look at them again.

        Rows of a file that still exists are left alone: the next run of its folder cuts it again
        (it is not in the manifest), and a concurrent run may be about to record it. The full scan
        of the ``source`` column runs only when the row count disagrees with the manifest's. ``exists``
        tells whether a file is still there (a local one by default; the flow passes one that also asks
        the object store of an ``s3://`` source, where a local look-up would call every object gone
        and delete the rows another run is about to record).
        """
        import os

        exists = exists or os.path.lexists
        chunks = self.chunks_table()
        if chunks is None:
            return []
        if chunks.count_rows() == sum(row["chunks"] or 0 for row in manifest.values()):
            return []
        return sorted(s for s in self.sources() if s not in manifest and not exists(s))

    def sources(self) -> set[str]:
        """The paths of the files that have chunk rows (one read of the ``source`` column)."""
        import pyarrow.compute as pc

        chunks = self.chunks_table()
        if chunks is None or chunks.count_rows() == 0:
            return set()
        column = chunks.search().select(["source"]).limit(None).to_arrow()["source"]
        return {s for s in pc.unique(column).to_pylist() if s is not None}

    # -- chunks ------------------------------------------------------------------------------
    def replace_documents(self, rows: Sequence[dict], paths: Sequence[str], dim: int,
                          new: bool = False) -> tuple[int, int]:
        """Make the chunks of the files at ``paths`` exactly ``rows``, in one commit. Returns (written,
        deleted). ``new``: the table holds no row of these files (the caller checked with
        :meth:`sources`), so the rows are appended, not merged."""
        if not paths:
            return 0, 0
        table = self.chunks_table(dim)
        stored_dim = table.schema.field("vector").type.list_size
        if stored_dim != dim:
            raise UsageError(f"knowledge base {self.kb!r} holds {stored_dim}-d vectors, this embedder makes {dim}-d "
                             f"ones; index into another --kb (or delete this one) to change embedders")
        if new:
            if rows:  # streamed: the Arrow copy of the rows is made a record batch at a time
                batches = (batch for start in range(0, len(rows), WRITE_BATCH_ROWS)
                           for batch in chunk_table(rows[start:start + WRITE_BATCH_ROWS], dim).to_batches())
                table.add(pa.RecordBatchReader.from_batches(chunk_schema(dim), batches))
            return len(rows), 0
        data = chunk_table(rows, dim)  # a merge reads its new rows whole
        if data.num_rows == 0:
            return 0, table.delete(in_list("source", paths)).num_deleted_rows
        result = (
            table.merge_insert("chunk_id")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .when_not_matched_by_source_delete(in_list("source", paths))
            .execute(data)
        )
        return data.num_rows, result.num_deleted_rows

    def recorded_embedder(self) -> str:
        """The embedder the knowledge base was built with, as its rows record it
        (:func:`flows.embed.spec.recorded`); "" while it holds no chunk."""
        table = self.chunks_table()
        if table is None:
            return ""
        rows = table.search().select(["embedder"]).limit(1).to_list()
        return (rows[0]["embedder"] if rows else None) or ""

    def count(self, where: str | None = None) -> int:
        table = self.chunks_table()
        if table is None:
            return 0
        return table.count_rows(where) if where else table.count_rows()

    def rows(self, columns: Sequence[str] | None = None) -> list[dict]:
        table = self.chunks_table()
        if table is None:
            return []
        arrow = table.to_arrow()
        if columns:
            arrow = arrow.select(list(columns))
        return arrow.to_pylist()

    def optimize(self) -> None:
        """Compact every table of this KB and the embedding cache, and bring indexes up to date."""
        for table in (self.chunks_table(), self.passages.table(), self.manifest_table(), *self.cache.tables()):
            if table is not None:
                table.optimize(cleanup_older_than=KEEP_VERSIONS)

    def maintain(self, changed_files: int, vector_min_rows: int = VECTOR_INDEX_MIN_ROWS) -> list[str]:
        """Upkeep after a run that changed ``changed_files`` files: create missing indexes, then compact
        the tables that need it. Returns what it did, e.g. ``["text_idx", "compact default__chunks"]``.

        It is an optimisation, so a failure (say, a concurrent compaction of the shared embedding
        cache) is logged, not raised: the run's data is already committed.
        """
        done: list[str] = []
        chunks = self.chunks_table()
        try:
            if chunks is not None:
                done += ensure_indexes(chunks, vector_min_rows)
            done += self.passages.update(chunks)
            for table in (chunks, self.passages.table(), self.manifest_table(), self.runs.table(), *self.cache.tables()):
                if table is None:
                    continue
                if changed_files >= LARGE_RUN_FILES or needs_compaction(table):
                    table.optimize(cleanup_older_than=KEEP_VERSIONS)
                    done.append(f"compact {table.name}")
                elif needs_pruning(table):
                    table.optimize(cleanup_older_than=KEEP_VERSIONS)
                    done.append(f"prune {table.name}")
            if self.cache.prune(self._chunk_tables()):
                done.append("prune embedding cache")
        except Exception as exc:
            log.warning("LanceDB upkeep of %s (kb %s) failed, the data is committed: %s", self.uri, self.kb, exc)
        return done


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)

