"""Knowledge bases written by an older seams: their tables brought to today's layout before a run.

An embedding cache of an older layout is dropped, and with it every knowledge base's manifest, so
each indexes its files again; a chunks table without the derived columns gains them in place
(nothing re-cut or re-embedded); one whose columns still differ is dropped with its manifest.
"""

from __future__ import annotations

import logging

import pyarrow as pa

from flows.index.schema import DERIVED_COLUMNS, MANIFEST, chunk_schema, derived_columns_sql
from flows.index.store import Store
from flows.index.upkeep import drop_former_indexes

log = logging.getLogger(__name__)


def upgrade(store: Store) -> str:
    """Bring a chunks table written by an older seams to :func:`chunk_schema`, before a run writes
    to it. Returns what was done ("" for nothing).

    An embedding cache of an older layout (:data:`CACHE_VERSION`) is dropped first, and with it
    the manifest of every knowledge base in the database, so each indexes its files again.

    A table without the last of the derived columns (:data:`DERIVED_COLUMNS`: ``id`` and
    ``metadata`` from issue #13, ``fts_text`` and ``fts_words`` from the document titles in full
    text) gains them in place, computed from its flat columns by LanceDB (``add_columns``, with
    :func:`derived_columns_sql`): nothing is re-cut or re-embedded. A table whose
    columns still differ (a layout this code cannot derive, or one another tool changed) is
    dropped with the KB's manifest, so the run indexes every file again; the embedding cache
    spares the embedding.
    """
    if store.cache.drop_stale():
        # Chunks written since may hold a vector the stale cache gave for another text: every
        # knowledge base of the database indexes (and embeds) each of its files again, once.
        for kb in store.knowledge_bases():
            if store.open_table(f"{kb}__{MANIFEST}") is not None:
                store.db.drop_table(f"{kb}__{MANIFEST}")
        log.warning("every knowledge base in %s indexes its files again at its next ingest, so no chunk keeps "
                    "a vector from the dropped cache", store.uri)
    table = store.chunks_table()
    if table is None:
        return ""
    done = add_derived_columns(store)
    table = store.chunks_table()
    if _same_columns(table.schema, chunk_schema(table.schema.field("vector").type.list_size)):
        if done:
            log.warning("upgraded the chunks table of kb %s in %s: %s", store.kb, store.uri, "; ".join(done))
        return "; ".join(done)
    log.warning("the chunks table of kb %s in %s has an older or foreign layout; dropping it and its "
                "manifest, so every file is indexed again", store.kb, store.uri)
    store.drop_chunks()
    if store.manifest_table() is not None:
        store.db.drop_table(store.table_name(MANIFEST))
    return "re-created"


def add_derived_columns(store: Store) -> list[str]:
    """The in-place part of :func:`upgrade`, which a search runs too (a knowledge base written
    before the full-text columns is searchable before its next ingest): add the derived columns
    a chunks table lacks at the end of its layout, and drop the full-text indexes they replace.
    Returns what it did; [] when nothing was missing or the layout differs otherwise."""
    table = store.chunks_table()
    if table is None:
        return []
    done: list[str] = []
    wanted = chunk_schema(table.schema.field("vector").type.list_size).names
    missing = [name for name in DERIVED_COLUMNS if name not in table.schema.names]
    if missing and table.schema.names == wanted[:len(wanted) - len(missing)] == [
            name for name in wanted if name not in missing]:
        sql = derived_columns_sql()
        try:
            for name in missing:  # one at a time, so they come in the schema's order
                table.add_columns({name: sql[name]})
            done.append(f"added {', '.join(missing)}")
            done.extend(drop_former_indexes(table))
        except Exception as exc:  # a flat column the derivation needs is missing or of another type
            log.warning("could not add %s to %s: %s", ", ".join(missing), table.name, exc)
    return done


def _same_columns(stored: pa.Schema, wanted: pa.Schema) -> bool:
    """The same column names, in order, of the same types (nullability aside: LanceDB may report a
    derived column either way)."""
    def shape(schema: pa.Schema) -> list[tuple[str, str]]:
        return [(field.name, _type_name(field.type)) for field in schema]

    return shape(stored) == shape(wanted)


def _type_name(type_: pa.DataType) -> str:
    if pa.types.is_struct(type_):
        return "struct<" + ", ".join(f"{f.name}: {_type_name(f.type)}" for f in type_) + ">"
    return str(type_)
