"""The LanceDB store: chunk rows, the manifest of indexed files, and an embedding cache.

A knowledge base ``KB`` is two tables, ``KB__chunks`` and ``KB__manifest``, and a third derived
from the chunks, ``KB__fts_passages`` (the passages English full text ranks by, which the upkeep
after every ingest brings in line: :meth:`Store.sync_passages`); one KB never reads or deletes
another's rows. A file is known by its path (``path`` in the manifest, ``source`` in the
chunks): two folders indexed into one KB keep their same-named files apart. The embedding cache (``embedding_cache``) is keyed by embedder and text
hash and holds no document rows, so all KBs share it.

Writes: a batch of files' chunks replaces those files' old chunks in one ``merge_insert`` commit
(keyed on chunk id, deleting the files' rows that are not in the new set), so a reader sees each
file either as it was or as it is now. A batch of files the knowledge base has never held — no
manifest row and no chunk row (:meth:`Store.sources`) — is appended with one ``add`` instead: a
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
before they existed gains them in place at the next ingest (:meth:`Store.upgrade`). Each row has two
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
import hashlib
import itertools
import logging
import re
from collections.abc import Iterable, Iterator, Sequence

import numpy as np
import pyarrow as pa

from flows.errors import UsageError

CHUNKS = "chunks"
MANIFEST = "manifest"
#: The table of each chunk's passages for English full text (:meth:`Store.sync_passages`).
PASSAGES = "fts_passages"
CACHE = "embedding_cache"


#: The embedding cache's layout. A cache written before it (``embedding_cache__EMBEDDER``) may hold
#: another text's vector for a text: each write of more than 1,024 new vectors went to LanceDB as
#: slices of one Arrow list array, and LanceDB stored the rows after the first slice with the
#: vectors of the first (found on 2026-12-02). Those caches are never read and are dropped
#: (:meth:`Store.drop_stale_caches`).
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

#: From this many chunk rows on, vector search goes through an IVF_PQ index (with exact re-ranking
#: of the candidates); below it, flat search is exact and takes milliseconds.
VECTOR_INDEX_MIN_ROWS = 50_000
#: The column vector search ranks chunks by (each chunk's whole and passage vectors) and its index.
VECTOR_SEARCH_COLUMN = "passages"
VECTOR_INDEX = f"{VECTOR_SEARCH_COLUMN}_idx"
#: A table is compacted once this many small fragments (one or more per commit) have piled up,
TOO_MANY_FRAGMENTS = 32
#: ... or after a run that changed at least this many files.
LARGE_RUN_FILES = 200
#: Versions older than this are removed by compaction and pruning (a reader holding one longer may fail).
KEEP_VERSIONS = dt.timedelta(minutes=10)
#: Rows are handed to LanceDB in record batches of at most this many, as a stream: given a whole
#: table, its write path held several copies of it (the cache's 57 MB of new vectors for a 3 MB CSV
#: peaked at +315 MB); streamed, it writes as it reads.
WRITE_BATCH_ROWS = 1024
#: The embedding cache is pruned to the texts the database's chunks hold once it has this many times
#: their number of rows (texts edited away or deleted leave their vectors behind).
CACHE_SLACK = 2
#: Old versions are pruned once a table has this many: every commit makes a version, and each keeps
#: the data files it needs, so a table written by months of scheduled runs would grow without bound.
PRUNE_VERSIONS = 12

log = logging.getLogger(__name__)


#: The chunk columns copied into the ``metadata`` struct, in its order: where a chunk comes from and
#: where it sits in its file. LangChain's and LlamaIndex's LanceDB stores return this struct as a
#: chunk's metadata (see docs/interop.md).
METADATA_FIELDS = ("source", "doc_id", "chunk_id", "format", "strategy", "rule", "ordinal", "tokens", "heading_path",
                   "page_start", "page_end", "sheet", "row_start", "row_end", "slide_start", "slide_end",
                   "char_start", "char_end", "embedder")


def chunk_schema(dim: int) -> pa.Schema:
    """The one row schema of the chunks table.

    The flat columns are what seams filters, deletes and searches on. ``id`` (the chunk id again) and
    ``metadata`` (a struct of :data:`METADATA_FIELDS`, derived from the flat columns by
    :func:`chunk_records`) are the layout other tools' LanceDB stores read: with ``id``, ``text``,
    ``vector`` and ``metadata`` a seams table opens in langchain-community's ``LanceDB`` and in
    LlamaIndex's ``LanceDBVectorStore`` as it is. They come last, so a table written before they
    existed gains them in place (:meth:`Store.upgrade`) with the same column order as a new one.
    """
    flat = [
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("source", pa.string()),  # absolute path when indexed
        pa.field("root", pa.string()),
        pa.field("content_hash", pa.string()),
        pa.field("format", pa.string()),
        pa.field("strategy", pa.string()),
        pa.field("rule", pa.string()),
        pa.field("ordinal", pa.int32()),
        pa.field("text", pa.string()),
        pa.field("embed_text", pa.string()),
        pa.field("tokens", pa.int32()),
        pa.field("page_start", pa.int32()),
        pa.field("page_end", pa.int32()),
        pa.field("sheet", pa.string()),
        pa.field("row_start", pa.int32()),
        pa.field("row_end", pa.int32()),
        pa.field("slide_start", pa.int32()),
        pa.field("slide_end", pa.int32()),
        pa.field("heading_path", pa.string()),
        pa.field("char_start", pa.int64()),
        pa.field("char_end", pa.int64()),
        pa.field("embedder", pa.string()),
        pa.field("dim", pa.int32()),
        pa.field("config", pa.string()),
        pa.field("indexed_at", pa.timestamp("us", tz="UTC")),
        pa.field("vector", pa.list_(pa.float32(), dim)),
        # The whole chunk's vector, then its passages' (flows.pipeline.embedded_texts): what vector
        # search ranks by, the best of them (LanceDB's multivector column, cosine).
        pa.field("passages", pa.list_(pa.list_(pa.float32(), dim))),
    ]
    types = {field.name: field.type for field in flat}
    return pa.schema([
        *flat,
        pa.field("id", pa.string(), nullable=False),
        pa.field("metadata", pa.struct([pa.field(name, types[name]) for name in METADATA_FIELDS])),
        # What the two full-text indexes search (text_indexes): the document's title on a line
        # before the text, and before the embedded text (search_text).
        pa.field("fts_text", pa.string()),
        pa.field("fts_words", pa.string()),
    ])


#: The columns :func:`chunk_records` derives, in the schema's order, last in it; a chunks table
#: written without some of them gains them in place (:meth:`Store.upgrade`).
DERIVED_COLUMNS = ("id", "metadata", "fts_text", "fts_words")
#: The key of a chunk row (:func:`flows.rows.chunk_rows`) that is not a column: the text the full-text
#: index holds for the chunk when it differs from ``text`` (table rows with their columns' labels,
#: :mod:`splitters.labels`); ``fts_text`` is derived from it. A row without it is indexed by its text.
INDEX_TEXT = "index_text"
#: The columns a chunk row is built with (:func:`flows.rows.chunk_rows`), in the schema's order: all
#: but the derived ones. Search hits and the evaluation's rankings read subsets of them.
ROW_COLUMNS = tuple(name for name in chunk_schema(1).names if name not in DERIVED_COLUMNS)


def chunk_records(rows: Iterable[dict]) -> list[dict]:
    """Chunk rows (the flat columns, as :func:`flows.rows.chunk_rows` builds them) with the derived
    columns added (:data:`DERIVED_COLUMNS`): the only place they are computed, but for
    :func:`derived_columns_sql`, which computes the same in SQL except that it keeps repeated table
    cells (:func:`cells_once` needs a back-reference, which DataFusion's regular expressions lack):
    a table upgraded in place ranks as before until its file is indexed again."""
    records = []
    for row in rows:
        title = document_title(row.get("source"))
        records.append(dict(row, id=row["chunk_id"], metadata={name: row.get(name) for name in METADATA_FIELDS},
                            fts_text=search_text(title, row.get(INDEX_TEXT) or row.get("text")),
                            fts_words=search_text(title, row.get("embed_text"))))
    return records


#: How :func:`document_title` cuts a path, written so that SQL (:func:`derived_columns_sql`,
#: DataFusion's ``regexp_replace``) and Python give the same title: the file name, its extension,
#: the runs of characters that are not letters or digits.
_TITLE_STEPS = ((r"^.*/", ""), (r"^(.+)\.[^.]*$", "${1}"), (r"[\W_]+", " "))


@functools.lru_cache(maxsize=1024)
def document_title(source: str | None) -> str:
    """The words of a file's name, without its extension: ``/docs/2024_개인정보-처리방침.v2.pdf`` →
    ``2024 개인정보 처리방침 v2``. Memoised: every chunk row of a file asks for its title."""
    title = source or ""
    for pattern, replacement in _TITLE_STEPS:
        title = re.sub(pattern, replacement.replace("${1}", r"\1"), title)
    return title.strip(" ")


def search_text(title: str, text: str | None) -> str:
    """What a full-text index holds for a chunk: the document's title on a line, then ``text``.

    Why: a question often names its document ("… 출장규칙에서 숙박비 한도는?") where the chunk that
    answers it does not; with the title in every chunk's index, BM25 counts those words for the
    document's chunks, and the question's other words still decide between them. Measured with full
    text alone (hit@5, every configuration indexed the same way): the development set 97.8 → 98.4 %,
    the held-out set 84.8 → 90.5 % (800/400 windows 81.0 → 86.7 %), Chroma 94.3 → 94.5 %. Only the
    indexes hold it: the text shown and embedded is the chunk's own (the vectors' cache is keyed by
    it), so vector search is unchanged."""
    return f"{title}\n{cells_once(text or '')}"


def cells_once(text: str) -> str:
    """``text`` with each run of identical neighbouring cells on a table line (cells joined by
    `` | ``) written once: ``구분 | 2024년 | 2024년 | 2024년`` → ``구분 | 2024년``.

    Why: a merged cell is read into every column it spans (the text shows the table that way, and
    a header row repeats in every chunk of the table), so BM25 counted a sheet's merged title four
    to eight times per chunk. The chunks of a table then outranked the one chunk that answers a
    question naming the same words once: a question about a company's code of ethics that names the
    company found, on the development set, ten chunks of the company's list of rules (its title
    merged over four columns) before the answer. Measured with full text alone, hit@5: the held-out
    set 92.4 → 94.3 % (two table rows), the third set (bench/heldout2, not used to choose) 97.7 →
    98.9 %, the development set and Chroma unchanged; the fixed-size windows unchanged on all four."""
    if " | " not in text:
        return text
    lines = text.split("\n")
    for number, line in enumerate(lines):
        if " | " in line:
            cells = line.split(" | ")
            kept = [cells[0], *(cell for before, cell in itertools.pairwise(cells) if cell != before or not cell.strip())]
            if len(kept) < len(cells):
                lines[number] = " | ".join(kept)
    return "\n".join(lines)


#: The vector columns, which :func:`chunk_table` builds from arrays rather than from Python values.
VECTOR_COLUMNS = ("vector", "passages")


def chunk_table(rows: Sequence[dict], dim: int) -> pa.Table:
    """Chunk rows as an Arrow table of :func:`chunk_schema`. The vectors (numpy arrays or lists) are
    copied once into one float32 buffer per column: built from Python values, each vector went
    through 512 Python floats (about 16 KB against its 2 KB), and a chunk holds about seven."""
    schema = chunk_schema(dim)
    scalars = pa.schema([field for field in schema if field.name not in VECTOR_COLUMNS])
    records = [{k: v for k, v in record.items() if k not in VECTOR_COLUMNS and k != INDEX_TEXT}
               for record in chunk_records(rows)]
    table = pa.Table.from_pylist(records, schema=scalars)
    del records
    whole = vector_array([row["vector"] for row in rows], dim)
    counts = np.fromiter((len(row["passages"]) for row in rows), dtype=np.int32, count=len(rows))
    offsets = pa.array(np.concatenate([[0], np.cumsum(counts, dtype=np.int32)]), pa.int32())
    passages = pa.ListArray.from_arrays(offsets, vector_array([v for row in rows for v in row["passages"]], dim),
                                        type=schema.field("passages").type)
    columns = {"vector": whole, "passages": passages}
    return pa.Table.from_arrays([columns[name] if name in columns else table.column(name) for name in schema.names],
                                schema=schema)


def vector_array(vectors: Sequence, dim: int) -> pa.FixedSizeListArray:
    """Vectors of ``dim`` floats (numpy arrays or lists) as one fixed-size-list array of float32."""
    matrix = np.empty((len(vectors), dim), dtype=np.float32)
    for i, vector in enumerate(vectors):
        matrix[i] = vector
    return pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1)), dim)


def derived_columns_sql() -> dict[str, str]:
    """The derived columns as SQL over the flat ones, to add them to a table written without them."""
    fields = ", ".join(f"'{name}', {name}" for name in METADATA_FIELDS)
    title = "source"
    for pattern, replacement in _TITLE_STEPS:
        title = f"regexp_replace({title}, '{pattern}', '{replacement}', 'g')"
    title = f"coalesce(trim({title}), '')"
    return {"id": "chunk_id", "metadata": f"named_struct({fields})",
            "fts_text": f"concat({title}, chr(10), text)", "fts_words": f"concat({title}, chr(10), embed_text)"}


MANIFEST_SCHEMA = pa.schema([
    pa.field("doc_id", pa.string(), nullable=False),
    pa.field("root", pa.string()),
    pa.field("path", pa.string()),
    pa.field("size", pa.int64()),
    pa.field("mtime", pa.float64()),
    pa.field("content_hash", pa.string()),
    pa.field("config", pa.string()),
    pa.field("status", pa.string()),
    pa.field("error_kind", pa.string()),
    pa.field("error", pa.string()),
    pa.field("format", pa.string()),
    pa.field("strategy", pa.string()),
    pa.field("rule", pa.string()),
    pa.field("evidence", pa.string()),
    pa.field("chunks", pa.int32()),
    pa.field("tokens", pa.int64()),
    pa.field("indexed_at", pa.timestamp("us", tz="UTC")),
])


def sql_string(value: str) -> str:
    """A SQL string literal: quotes doubled, so a file name can never widen a predicate."""
    return "'" + value.replace("'", "''") + "'"


def in_list(column: str, values: Iterable[str]) -> str:
    return f"{column} IN ({', '.join(sql_string(v) for v in values)})"


def text_indexes() -> dict[str, object]:
    """The full-text indexes of the chunks table, by column (LanceDB names each ``COLUMN_idx``)."""
    from lancedb.index import FTS

    return {
        # Character 2-3-grams: any script; a Korean query matches words with particles attached.
        "fts_text": FTS(base_tokenizer="ngram", ngram_min_length=2, ngram_max_length=3, lower_case=True,
                        stem=False, remove_stop_words=False, ascii_folding=True),
        # Whole words, stemmed, stop words dropped: sharper BM25 for English queries.
        "fts_words": FTS(base_tokenizer="simple", language="English", lower_case=True, stem=True,
                         remove_stop_words=True, ascii_folding=True),
    }


#: How :class:`lancedb.index.FTS` settings are named in the ``index_details`` LanceDB (0.40) reports
#: for a full-text index in ``list_indices()``; the n-gram lengths only matter to an n-gram tokenizer.
_FTS_DETAILS = {"base_tokenizer": "base_tokenizer", "language": "language", "lower_case": "lower_case",
                "stem": "stem", "remove_stop_words": "remove_stop_words", "ascii_folding": "ascii_folding",
                "with_position": "with_position", "max_token_length": "max_token_length",
                "prefix_only": "prefix_only", "ngram_min_length": "min_ngram_length",
                "ngram_max_length": "max_ngram_length"}

def foreign_settings(index, column: str, config) -> list[str]:
    """How the full-text index ``index`` (an entry of ``list_indices()``) differs from the one seams
    builds on ``column`` with ``config``, e.g. ``["base_tokenizer simple, not ngram"]``; [] when it is
    seams' own, or when this LanceDB does not report an index's settings (``index_details``)."""
    differences = []
    if list(index.columns) != [column]:
        differences.append(f"columns {list(index.columns)}, not [{column!r}]")
    details = getattr(index, "index_details", None)
    if not isinstance(details, dict) or "base_tokenizer" not in details:
        return differences
    for attribute, key in _FTS_DETAILS.items():
        if attribute.startswith("ngram") and not config.base_tokenizer == details["base_tokenizer"] == "ngram":
            continue
        wanted = getattr(config, attribute)
        if key in details and details[key] != wanted:
            differences.append(f"{key} {details[key]}, not {wanted}")
    return differences


def ensure_indexes(table, vector_min_rows: int | None = VECTOR_INDEX_MIN_ROWS) -> list[str]:
    """Create the chunks table's missing indexes (see the module docstring) and rebuild a full-text
    index something replaced with one of its own settings (see the module docstring), with a
    warning; ``vector_min_rows=None`` leaves the vector index out. Returns the names of the indexes
    created or rebuilt."""
    indexes = {index.name: index for index in table.list_indices()}
    rows = table.count_rows()
    created = []
    if rows == 0:
        return created
    for column, config in text_indexes().items():
        name = f"{column}_idx"
        if name in indexes:
            differences = foreign_settings(indexes[name], column, config)
            if not differences:
                continue
            log.warning("the full-text index %s of %s is not seams' (%s): something replaced it (a "
                        "create_fts_index or create_index call on %r); rebuilding it", name, table.name,
                        "; ".join(differences), column)
        table.create_index(column, config=config, replace=True)
        created.append(name)
    if vector_min_rows is not None and VECTOR_INDEX not in indexes and rows >= vector_min_rows:
        table.create_index(metric="cosine", vector_column_name=VECTOR_SEARCH_COLUMN, index_type="IVF_PQ", replace=True)
        created.append(VECTOR_INDEX)
    return created


#: The full-text column whose passages are indexed apart (:meth:`Store.sync_passages`), and the size
#: of a passage in cl100k tokens: full text's, and vector search's by default (``passage_tokens``).
PASSAGE_FTS_COLUMN = "fts_words"
PASSAGE_TOKENS = 128
PASSAGE_SCHEMA = pa.schema([("chunk_id", pa.string()), ("source", pa.string()), ("content_hash", pa.string()),
                            (PASSAGE_FTS_COLUMN, pa.string())])


def passage_records(rows: Iterable[dict], size: int = PASSAGE_TOKENS) -> Iterator[dict]:
    """The passage rows of chunk rows (each with ``chunk_id``, ``source``, ``content_hash`` and
    :data:`PASSAGE_FTS_COLUMN`): windows of ``size`` tokens over the indexed text, half a window apart
    (:func:`flows.pipeline.passages`), each after the title line the text starts with; a chunk no
    longer than one window is one passage, itself."""
    from flows.pipeline import passages

    for row in rows:
        text = row[PASSAGE_FTS_COLUMN] or ""
        title = text.split("\n", 1)[0]
        windows = passages(text, size)
        for index, window in enumerate(windows or [text]):
            yield {"chunk_id": row["chunk_id"], "source": row["source"], "content_hash": row["content_hash"],
                   PASSAGE_FTS_COLUMN: window if index == 0 else f"{title}\n{window}"}


#: The columns seams' full-text indexes were on before they moved to the columns with the document's
#: title (:func:`search_text`), with the column each moved to.
FORMER_TEXT_INDEXES = {"text": "fts_text", "embed_text": "fts_words"}


def drop_former_indexes(table) -> list[str]:
    """Drop the full-text indexes an older seams built on ``text`` and ``embed_text`` (its own
    settings only: an index another tool built on ``text`` is that tool's). Returns what it did."""
    done = []
    configs = text_indexes()
    for index in table.list_indices():
        column = next(iter(index.columns)) if len(index.columns) == 1 else None
        if column in FORMER_TEXT_INDEXES and not foreign_settings(index, column, configs[FORMER_TEXT_INDEXES[column]]):
            table.drop_index(index.name)
            done.append(f"dropped {index.name}")
    return done


class Store:
    def __init__(self, uri: str, kb: str = "default") -> None:
        import lancedb

        self.uri = uri
        self.kb = kb
        self.db = lancedb.connect(uri, session=session())

    # -- tables ------------------------------------------------------------------------------
    def _name(self, table: str) -> str:
        return f"{self.kb}__{table}"

    def _open(self, name: str):
        """The table, or None if it does not exist. A table whose creation was cut short (a folder
        without a committed version) counts as missing; creating it again with ``exist_ok`` heals it."""
        try:
            return self.db.open_table(name)
        except ValueError:  # LanceDB: "Table 'x' was not found"
            return None

    def chunks_table(self, dim: int | None = None):
        table = self._open(self._name(CHUNKS))
        if table is None and dim is not None:
            table = self.db.create_table(self._name(CHUNKS), schema=chunk_schema(dim), exist_ok=True)
        return table

    def upgrade(self) -> str:
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
        if self.drop_stale_caches():
            # Chunks written since may hold a vector the stale cache gave for another text: every
            # knowledge base of the database indexes (and embeds) each of its files again, once.
            for kb in self.knowledge_bases():
                if self._open(f"{kb}__{MANIFEST}") is not None:
                    self.db.drop_table(f"{kb}__{MANIFEST}")
            log.warning("every knowledge base in %s indexes its files again at its next ingest, so no chunk keeps "
                        "a vector from the dropped cache", self.uri)
        table = self.chunks_table()
        if table is None:
            return ""
        done = self.add_derived_columns()
        table = self.chunks_table()
        if _same_columns(table.schema, chunk_schema(table.schema.field("vector").type.list_size)):
            if done:
                log.warning("upgraded the chunks table of kb %s in %s: %s", self.kb, self.uri, "; ".join(done))
            return "; ".join(done)
        log.warning("the chunks table of kb %s in %s has an older or foreign layout; dropping it and its "
                    "manifest, so every file is indexed again", self.kb, self.uri)
        self.drop_chunks()
        if self.manifest_table() is not None:
            self.db.drop_table(self._name(MANIFEST))
        return "re-created"

    def add_derived_columns(self) -> list[str]:
        """The in-place part of :meth:`upgrade`, which a search runs too (a knowledge base written
        before the full-text columns is searchable before its next ingest): add the derived columns
        a chunks table lacks at the end of its layout, and drop the full-text indexes they replace.
        Returns what it did; [] when nothing was missing or the layout differs otherwise."""
        table = self.chunks_table()
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

    @property
    def chunks_table_name(self) -> str:
        """The LanceDB table of this knowledge base's chunks (``KB__chunks``)."""
        return self._name(CHUNKS)

    def drop_chunks(self) -> None:
        """Drop this knowledge base's chunks table and its passages, if there are (an evaluation writes
        them afresh)."""
        for name in (CHUNKS, PASSAGES):
            if self._open(self._name(name)) is not None:
                self.db.drop_table(self._name(name))

    def passages_table(self):
        """The table of the chunks' passages English full text ranks by (None until the first
        :meth:`sync_passages`)."""
        return self._open(self._name(PASSAGES))

    def sync_passages(self) -> int:
        """Bring the passages table in line with the chunks table: the passages of every file whose
        chunks changed since (by path and content hash) are written again, those of files gone are
        deleted. Returns the number of passage rows written. The table is derived: a run killed before
        this leaves it behind the chunks, and the next upkeep catches up; a search meanwhile ranks the
        chunks it lacks by their whole text alone.

        Why passages: BM25 over a whole chunk weighs a question's words against the chunk's length, so
        a chunk of 900 tokens with the one sentence that answers ranks below short chunks that merely
        mention the words. English full text therefore also ranks chunks by their best passage
        (:func:`flows.search.fts_ranking`); see there for what was measured."""
        chunks = self.chunks_table()
        table = self.passages_table()
        if chunks is None or PASSAGE_FTS_COLUMN not in chunks.schema.names:
            if table is not None:
                self.db.drop_table(self._name(PASSAGES))
            return 0

        def files(of) -> set[tuple[str, str]]:
            if of is None or of.count_rows() == 0:
                return set()
            pairs = of.search().select(["source", "content_hash"]).limit(None).to_arrow()
            unique = pa.table({"s": pairs["source"], "h": pairs["content_hash"]}).group_by(["s", "h"]).aggregate([])
            return set(zip(unique["s"].to_pylist(), unique["h"].to_pylist(), strict=True))

        wanted, held = files(chunks), files(table)
        changed = sorted({source for source, _ in wanted ^ held})
        if not changed:
            return 0
        if not wanted:
            self.db.drop_table(self._name(PASSAGES))
            return 0
        columns = ["chunk_id", "source", "content_hash", PASSAGE_FTS_COLUMN]
        written = 0
        if table is None or len(changed) * 2 > len(wanted):
            # Most files are new or changed (a first ingest, a re-index): one streamed scan of the
            # chunks writes the table afresh, where a scan per slice of files grows with the table
            def batches() -> Iterator[pa.RecordBatch]:
                nonlocal written
                for batch in chunks.search().select(columns).limit(None).to_batches(WRITE_BATCH_ROWS):
                    records = list(passage_records(batch.to_pylist()))
                    written += len(records)
                    yield from pa.Table.from_pylist(records, schema=PASSAGE_SCHEMA).to_batches()

            # "create" when there is no table: "overwrite" of a table not there yet has Lance log a
            # warning on stderr at every first ingest. Another ingest may create it meanwhile.
            for mode in ("create", "overwrite") if table is None else ("overwrite",):
                written = 0
                try:
                    self.db.create_table(self._name(PASSAGES), pa.RecordBatchReader.from_batches(PASSAGE_SCHEMA, batches()),
                                         mode=mode)
                    break
                except ValueError:  # "create" of a table another ingest has just created
                    if mode == "overwrite" or self.passages_table() is None:
                        raise
            return written
        for start in range(0, len(changed), 500):
            part = changed[start:start + 500]
            table.delete(in_list("source", part))
            rows = chunks.search().where(in_list("source", part)).select(columns).limit(None).to_arrow()
            if rows.num_rows:
                records = list(passage_records(rows.to_pylist()))
                table.add(pa.Table.from_pylist(records, schema=PASSAGE_SCHEMA))
                written += len(records)
        return written

    def update_passages(self) -> list[str]:
        """The passages' upkeep (after every ingest, and an evaluation's write): :meth:`sync_passages`,
        then the passages table's full-text index if it is missing. Returns what it did."""
        done = [f"passages of {self._name(CHUNKS)}"] if self.sync_passages() else []
        table = self.passages_table()
        name = f"{PASSAGE_FTS_COLUMN}_idx"
        if table is not None and table.count_rows() and name not in {index.name for index in table.list_indices()}:
            table.create_index(PASSAGE_FTS_COLUMN, config=text_indexes()[PASSAGE_FTS_COLUMN], replace=True)
            done.append(f"{PASSAGES} {name}")
        return done

    def manifest_table(self, create: bool = False):
        table = self._open(self._name(MANIFEST))
        if table is None and create:
            table = self.db.create_table(self._name(MANIFEST), schema=MANIFEST_SCHEMA, exist_ok=True)
        return table

    def _table_names(self) -> list[str]:
        """The names of every table in this database (LanceDB 0.40 returns them paged, in ``tables``)."""
        listed = self.db.list_tables()
        return list(getattr(listed, "tables", listed))

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

    def orphans(self, manifest: dict[str, dict]) -> list[str]:
        """Paths of files that have chunks but no manifest row (``manifest``, by path) and no longer
        exist: left by a run killed between a batch's chunk commit and its manifest commit, after
        which the file was deleted or renamed, so no run would look at them again.

        Rows of a file that still exists are left alone: the next run of its folder cuts it again
        (it is not in the manifest), and a concurrent run may be about to record it. The full scan
        of the ``source`` column runs only when the row count disagrees with the manifest's.
        """
        import os

        chunks = self.chunks_table()
        if chunks is None:
            return []
        if chunks.count_rows() == sum(row["chunks"] or 0 for row in manifest.values()):
            return []
        return sorted(s for s in self.sources() if s not in manifest and not os.path.lexists(s))

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
        for table in (self.chunks_table(), self.passages_table(), self.manifest_table(), *self._cache_tables()):
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
            done += self.update_passages()
            for table in (chunks, self.passages_table(), self.manifest_table(), *self._cache_tables()):
                if table is None:
                    continue
                if changed_files >= LARGE_RUN_FILES or _needs_compaction(table):
                    table.optimize(cleanup_older_than=KEEP_VERSIONS)
                    done.append(f"compact {table.name}")
                elif _needs_pruning(table):
                    table.optimize(cleanup_older_than=KEEP_VERSIONS)
                    done.append(f"prune {table.name}")
            if self.prune_cache():
                done.append("prune embedding cache")
        except Exception as exc:
            log.warning("LanceDB upkeep of %s (kb %s) failed, the data is committed: %s", self.uri, self.kb, exc)
        return done

    # -- embedding cache -----------------------------------------------------------------------
    def _cache_tables(self) -> list:
        return [self._open(name) for name in self._table_names() if name.startswith(f"{CACHE}__{CACHE_VERSION}__")]

    def drop_stale_caches(self) -> list[str]:
        """Drop the embedding caches of an older layout (:data:`CACHE_VERSION`): their vectors may
        belong to other texts. Returns the names dropped; the texts are embedded again as needed."""
        stale = [name for name in self._table_names()
                 if name.startswith(f"{CACHE}__") and not name.startswith(f"{CACHE}__{CACHE_VERSION}__")]
        for name in stale:
            self.db.drop_table(name)
            log.warning("dropped the embedding cache %s of %s: written by a seams whose large cache writes "
                        "stored some vectors under other texts; texts are embedded again as needed", name, self.uri)
        return stale

    def prune_cache(self) -> int:
        """Drop cached vectors that no chunk of any knowledge base in this database holds, once the
        cache has :data:`CACHE_SLACK` times as many rows as all chunk tables together (a vector that
        comes back later is embedded again). Returns the number of rows removed."""
        from flows.embed import text_hash

        caches = [t for t in self._cache_tables() if t is not None]
        if not caches:
            return 0
        chunk_tables = [self._open(f"{kb}__{CHUNKS}") for kb in self.knowledge_bases()]
        chunk_tables = [t for t in chunk_tables if t is not None]
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

    def cached_vectors(self, embedder: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        table = self._open(cache_table_name(embedder))
        if table is None or not hashes:
            return {}
        found: dict[str, np.ndarray] = {}
        unique = sorted(set(hashes))
        for start in range(0, len(unique), 500):
            part = unique[start:start + 500]
            where = f"embedder = {sql_string(embedder)} AND {in_list('text_hash', part)}"
            rows = table.search().where(where).select(["text_hash", "vector"]).limit(None).to_arrow()
            values, offsets = _vector_values(rows.column("vector").combine_chunks())
            for i, text_hash in enumerate(rows.column("text_hash").to_pylist()):
                if text_hash not in found:  # the first row cached for a text (rows are appended)
                    found[text_hash] = values[offsets[i]:offsets[i + 1]].astype(np.float32)  # a copy of its own
        return found

    def cache_vectors(self, embedder: str, items: dict[str, np.ndarray]) -> None:
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
        table = self._open(cache_table_name(embedder))
        if table is None:
            self.db.create_table(cache_table_name(embedder), data=data, exist_ok=True)
            return
        # Appended, not merged on ``key``: the callers cache only what :meth:`cached_vectors` did not
        # find, and a merge joins the batch against the whole cache. A key written twice (two runs
        # embedding the same text at once) keeps its first vector: lookups take the first row.
        table.add(data)


def _vector_values(vectors: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A list column of vectors as (its values as one numpy array, where each vector starts in it,
    with the end last), without a Python float per component. LanceDB stores a list column named
    ``vector`` as a fixed-size list when all its lists are as long."""
    values = vectors.flatten().to_numpy(zero_copy_only=False)
    if pa.types.is_fixed_size_list(vectors.type):
        return values, np.arange(len(vectors) + 1) * vectors.type.list_size
    offsets = vectors.offsets.to_numpy()
    return values, offsets - offsets[0]


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


def _needs_pruning(table) -> bool:
    """Versions have piled up, and some are older than the retention. Ages are measured from the
    table's newest commit (LanceDB's version timestamps carry no time zone), so a run that committed
    nothing never prunes, and pruning comes at most about once per retention period."""
    versions = table.list_versions()
    if len(versions) < PRUNE_VERSIONS:
        return False
    stamps = [v["timestamp"] for v in versions]
    return max(stamps) - min(stamps) > KEEP_VERSIONS


def _needs_compaction(table) -> bool:
    """Many small fragments (every commit adds some), or many rows an index does not cover yet."""
    if table.stats()["fragment_stats"]["num_small_fragments"] >= TOO_MANY_FRAGMENTS:
        return True
    rows = table.count_rows()
    return any((index.num_unindexed_rows or 0) > max(1_000, rows // 10) for index in table.list_indices())


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)
