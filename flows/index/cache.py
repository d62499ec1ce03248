"""The embedding cache: vectors by embedder and text hash, shared by every knowledge base of a database.

One table per embedder (``embedding_cache__v2__NAME``), keyed by the embedder's full name and the
text's hash, holding no document rows: every knowledge base of the database reads and fills it, and
:func:`flows.embed.embed_cached` embeds only what it lacks. Rows are appended, never merged; a text
cached twice keeps its first vector. The cache is pruned to the texts the database's chunks hold
once it has :data:`CACHE_SLACK` times their rows.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterator, Sequence

import numpy as np
import pyarrow as pa

from flows.index.schema import WRITE_BATCH_ROWS, in_list, open_table, sql_string, table_names, vector_values
from flows.settings import CACHE

log = logging.getLogger(__name__)



#: The embedding cache's layout. A cache written before it (``embedding_cache__EMBEDDER``) may hold
#: another text's vector for a text: each write of more than 1,024 new vectors went to LanceDB as
#: slices of one Arrow list array, and LanceDB stored the rows after the first slice with the
#: vectors of the first (found on 2026-12-02). Those caches are never read and are dropped
#: (:meth:`EmbeddingCache.drop_stale`).
CACHE_VERSION = "v2"


def cache_table_name(embedder: str) -> str:
    """One cache table per embedder (its full name: specification and endpoint, ``flows.embed.spec``).
    A name that is not a plain word (options, an endpoint) gets a hash of itself, so two specifications
    never share a table by their look-alike spelling and the table name stays short; the rows are
    keyed by the full name as well."""
    plain = re.sub(r"[^A-Za-z0-9_-]", "_", embedder)
    if plain != embedder or len(plain) > 48:
        plain = f"{plain[:40]}_{hashlib.sha1(embedder.encode()).hexdigest()[:10]}"
    return f"{CACHE}__{CACHE_VERSION}__" + plain


#: The embedding cache is pruned to the texts the database's chunks hold once it has this many times
#: their number of rows (texts edited away or deleted leave their vectors behind).
CACHE_SLACK = 2


class EmbeddingCache:
    """The embedding cache tables of one LanceDB database."""

    def __init__(self, db, uri: str) -> None:
        self.db = db
        self.uri = uri

    def _open(self, name: str):
        return open_table(self.db, name)

    def _table_names(self) -> list[str]:
        return table_names(self.db)

    def tables(self) -> list:
        return [self._open(name) for name in self._table_names() if name.startswith(f"{CACHE}__{CACHE_VERSION}__")]

    def drop_stale(self) -> list[str]:
        """Drop the embedding caches of an older layout (:data:`CACHE_VERSION`): their vectors may
        belong to other texts. Returns the names dropped; the texts are embedded again as needed."""
        stale = [name for name in self._table_names()
                 if name.startswith(f"{CACHE}__") and not name.startswith(f"{CACHE}__{CACHE_VERSION}__")]
        for name in stale:
            self.db.drop_table(name)
            log.warning("dropped the embedding cache %s of %s: written by a seams whose large cache writes "
                        "stored some vectors under other texts; texts are embedded again as needed", name, self.uri)
        return stale

    def prune(self, chunk_tables: Sequence) -> int:
        """Drop cached vectors that no chunk of any knowledge base in this database holds, once the
        cache has :data:`CACHE_SLACK` times as many rows as all chunk tables together (a vector that
        comes back later is embedded again). ``chunk_tables``: every knowledge base's chunks table.
        Returns the number of rows removed."""
        from flows.embed import text_hash

        caches = [t for t in self.tables() if t is not None]
        if not caches:
            return 0
        live_rows = sum(t.count_rows() for t in chunk_tables)
        if sum(t.count_rows() for t in caches) <= CACHE_SLACK * live_rows:
            return 0
        live: set[str] = set()
        for table in chunk_tables:
            for batch in table.search().select(["embed_text"]).limit(None).to_batches():
                live.update(text_hash(text) for text in batch.column("embed_text").to_pylist() if text is not None)
        removed = 0
        for cache in caches:
            hashes = cache.search().select(["text_hash"]).limit(None).to_arrow().column("text_hash").to_pylist()
            dead = [h for h in hashes if h not in live]
            for start in range(0, len(dead), 500):
                removed += cache.delete(in_list("text_hash", dead[start:start + 500])).num_deleted_rows
        return removed

    def vectors(self, embedder: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        table = self._open(cache_table_name(embedder))
        if table is None or not hashes:
            return {}
        found: dict[str, np.ndarray] = {}
        unique = sorted(set(hashes))
        for start in range(0, len(unique), 500):
            part = unique[start:start + 500]
            where = f"embedder = {sql_string(embedder)} AND {in_list('text_hash', part)}"
            rows = table.search().where(where).select(["text_hash", "vector"]).limit(None).to_arrow()
            values, offsets = vector_values(rows.column("vector").combine_chunks())
            for i, text_hash in enumerate(rows.column("text_hash").to_pylist()):
                if text_hash not in found:  # the first row cached for a text (rows are appended)
                    found[text_hash] = values[offsets[i]:offsets[i + 1]].astype(np.float32)  # a copy of its own
        return found

    def save(self, embedder: str, items: dict[str, np.ndarray]) -> None:
        if not items:
            return
        schema = pa.schema([
            pa.field("key", pa.string()), pa.field("embedder", pa.string()), pa.field("text_hash", pa.string()),
            pa.field("vector", pa.list_(pa.float32())),
        ])
        # The vectors go to Arrow as one float32 buffer per record batch: as Python lists (``tolist``)
        # they took 16 KB each. Each batch is built from its own arrays, never as a slice of a larger
        # list array: LanceDB (0.40) stores the rows of such a slice with the first slice's vectors
        # (see CACHE_VERSION).
        hashes = list(items)

        def batches() -> Iterator[pa.RecordBatch]:
            for start in range(0, len(hashes), WRITE_BATCH_ROWS):
                part = hashes[start:start + WRITE_BATCH_ROWS]
                flat = np.concatenate([np.asarray(items[h], dtype=np.float32).reshape(-1) for h in part])
                lengths = np.fromiter((np.size(items[h]) for h in part), dtype=np.int32, count=len(part))
                offsets = pa.array(np.concatenate([[0], np.cumsum(lengths, dtype=np.int32)]), pa.int32())
                yield pa.RecordBatch.from_arrays([
                    pa.array([f"{embedder}:{h}" for h in part]), pa.array([embedder] * len(part), pa.string()),
                    pa.array(part, pa.string()), pa.ListArray.from_arrays(offsets, pa.array(flat)),
                ], schema=schema)

        data = pa.RecordBatchReader.from_batches(schema, batches())
        name = cache_table_name(embedder)
        table = self._open(name)
        if table is None:
            # Created empty, then appended to: ``create_table(data=..., exist_ok=True)`` opens a table
            # another process created meanwhile and drops the data it was given (two Dask workers
            # filling a new cache at once lost vectors that way).
            try:
                table = self.db.create_table(name, schema=schema, exist_ok=True)
            except Exception:  # the other process's create committed first
                table = self._open(name)
                if table is None:
                    raise
        # Appended, not merged on ``key``: the callers cache only what :meth:`vectors` did not
        # find, and a merge joins the batch against the whole cache. A key written twice (two runs
        # embedding the same text at once) keeps its first vector: lookups take the first row.
        table.add(data)
