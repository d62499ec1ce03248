"""A knowledge base's tables and their columns: the chunk rows, the manifest, the passages.

A knowledge base ``KB`` is two tables, ``KB__chunks`` and ``KB__manifest``, and a third derived
from the chunks, ``KB__fts_passages`` (:mod:`flows.index.passages`). The chunk rows carry, beside
the flat columns seams filters on, an ``id`` and a ``metadata`` struct (:func:`chunk_schema`): the
layout LangChain's and LlamaIndex's LanceDB stores read. Each row has two vector columns: ``vector``,
the whole chunk's (what other tools search), and ``passages``, the whole chunk's and its passages'
(what seams' vector search ranks by, LanceDB's multivector type). The full-text columns hold the
chunk's text after a line with the document's title (:func:`search_text`). Predicates are built with
:func:`sql_string`, so no file name can widen a delete.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence

import numpy as np
import pyarrow as pa

from flows.settings import PASSAGE_TOKENS

CHUNKS = "chunks"


MANIFEST = "manifest"


#: The table of each chunk's passages for English full text (:meth:`flows.index.passages.PassageIndex.sync`).
PASSAGES = "fts_passages"


#: Rows are handed to LanceDB in record batches of at most this many, as a stream: given a whole
#: table, its write path held several copies of it (the cache's 57 MB of new vectors for a 3 MB CSV
#: peaked at +315 MB); streamed, it writes as it reads.
WRITE_BATCH_ROWS = 1024


#: The chunk columns copied into the ``metadata`` struct, in its order: where a chunk comes from and
#: where it sits in its file. LangChain's and LlamaIndex's LanceDB stores return this struct as a
#: chunk's metadata (see docs/interop.md).
METADATA_FIELDS = ("source", "doc_id", "chunk_id", "format", "strategy", "rule", "ordinal", "tokens", "heading_path",
                   "page_start", "page_end", "sheet", "row_start", "row_end", "slide_start", "slide_end",
                   "char_start", "char_end", "embedder")


#: The field metadata that declares a column the table's (unenforced) primary key. Lance then fails, and
#: retries, a ``merge_insert`` that inserts keys a concurrent one has just inserted; without it two
#: merges of the same new rows both inserted them (seen against S3: 41 rows for 21 in 6 runs of 6; with
#: it, 21 in 6 of 6). Lance wants the column not nullable.
PRIMARY_KEY = {"lance-schema:unenforced-primary-key": "true"}


def chunk_schema(dim: int) -> pa.Schema:
    """The one row schema of the chunks table.

    The flat columns are what seams filters, deletes and searches on. ``id`` (the chunk id again) and
    ``metadata`` (a struct of :data:`METADATA_FIELDS`, derived from the flat columns by
    :func:`chunk_records`) are the layout other tools' LanceDB stores read: with ``id``, ``text``,
    ``vector`` and ``metadata`` a seams table opens in langchain-community's ``LanceDB`` and in
    LlamaIndex's ``LanceDBVectorStore`` as it is. They come last, so a table written before they
    existed gains them in place (:func:`flows.index.upgrade.upgrade`) with the same column order as a new one.
    """
    flat = [
        pa.field("chunk_id", pa.string(), nullable=False, metadata=PRIMARY_KEY),
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
        # The whole chunk's vector, then its passages' (flows.ingest.pipeline.embedded_texts): what vector
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
#: written without some of them gains them in place (:func:`flows.index.upgrade.upgrade`).
DERIVED_COLUMNS = ("id", "metadata", "fts_text", "fts_words")


#: The key of a chunk row (:func:`flows.ingest.rows.chunk_rows`) that is not a column: the text the full-text
#: index holds for the chunk when it differs from ``text`` (table rows with their columns' labels,
#: :mod:`splitters.labels`); ``fts_text`` is derived from it. A row without it is indexed by its text.
INDEX_TEXT = "index_text"


#: The columns a chunk row is built with (:func:`flows.ingest.rows.chunk_rows`), in the schema's order: all
#: but the derived ones. Search hits and the evaluation's rankings read subsets of them.
ROW_COLUMNS = tuple(name for name in chunk_schema(1).names if name not in DERIVED_COLUMNS)


def chunk_records(rows: Iterable[dict]) -> list[dict]:
    """Chunk rows (the flat columns, as :func:`flows.ingest.rows.chunk_rows` builds them) with the derived
    columns added (:data:`DERIVED_COLUMNS`): the only place they are computed, but for
    :func:`derived_columns_sql`, which computes the same in SQL except that it keeps repeated table
    cells (:func:`cells_once` needs a back-reference, which DataFusion's regular expressions lack)
    and leaves out the sheet's name: a table upgraded in place ranks as before until its file is
    indexed again.

    A sheet's chunks have its name after the title (``2025 예산 요약``; not when the title already
    holds it, as a CSV's does): a workbook names its tables by their sheets (``혼잡도``, ``Main``), and
    a question names the sheet where the rows do not. Measured with full text alone on the five sets
    (`bench/sheets` too): its questions ranked higher six times and lower none, no hit@5 moved, and the
    four other sets did not move a rank."""
    records = []
    for row in rows:
        title = _index_title(row.get("source"), row.get("sheet"))
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


@functools.lru_cache(maxsize=1024)
def _index_title(source: str | None, sheet: str | None) -> str:
    """The title line the full-text indexes hold for a chunk (:func:`chunk_records`): the
    document's title, then its sheet's words (cut as the file name's are) when the title does not
    hold them. Memoised: every chunk row of a sheet asks for it."""
    title = document_title(source)
    words = re.sub(_TITLE_STEPS[-1][0], " ", sheet or "").strip()
    return f"{title} {words}" if words and words not in title else title


def search_text(title: str, text: str | None) -> str:
    """What a full-text index holds for a chunk: the document's title on a line, then ``text``.

    Why: a question often names its document ("… 출장규칙에서 숙박비 한도는?") where the chunk that
    answers it does not; with the title in every chunk's index, BM25 counts those words for the
    document's chunks, and the question's other words still decide between them. Measured with full
    text alone (hit@5, every configuration indexed the same way): the development set 97.8 → 98.4 %,
    the held-out set 84.8 → 90.5 % (800/400 windows 81.0 → 86.7 %), Chroma 94.3 → 94.5 %. Only the
    indexes hold it: the text shown and embedded is the chunk's own (the vectors' cache is keyed by
    it), so vector search is unchanged."""
    return f"{title}\n{spaced_labels_joined(cells_once(text or ''))}"


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


#: A table cell of single Hangul syllables set apart to fill its width: ``구 분``, ``사 업 비``.
_SPACED_LABEL = re.compile(r"[가-힣](?: [가-힣])+")


def spaced_labels_joined(text: str) -> str:
    """``text`` with each table cell that is a label spaced out to fill its cell (``사 업 비``,
    ``구 분``: Korean forms justify short labels so) written as the word (``사업비``), on table lines.

    Why: the n-gram index reads ``사 업 비`` as three lone syllables, so a question asking for
    ``사업비`` found nothing of the row it labels."""
    if " | " not in text:
        return text
    lines = text.split("\n")
    for number, line in enumerate(lines):
        if " | " in line:
            lines[number] = " | ".join(
                cell.replace(" ", "") if _SPACED_LABEL.fullmatch(cell) else cell for cell in line.split(" | "))
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
    pa.field("path", pa.string(), nullable=False, metadata=PRIMARY_KEY),
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


def open_table(db, name: str):
    """The table, or None if it does not exist. A table whose creation was cut short (a folder
    without a committed version) counts as missing; creating it again with ``exist_ok`` heals it."""
    try:
        return db.open_table(name)
    except ValueError:  # LanceDB: "Table 'x' was not found"
        return None


def table_names(db) -> list[str]:
    """The names of every table in a database (LanceDB 0.40 returns them paged, in ``tables``)."""
    listed = db.list_tables()
    return list(getattr(listed, "tables", listed))


def in_list(column: str, values: Iterable[str]) -> str:
    return f"{column} IN ({', '.join(sql_string(v) for v in values)})"


#: The full-text column whose passages are indexed apart (:meth:`flows.index.passages.PassageIndex.sync`); a
#: passage is :data:`flows.settings.PASSAGE_TOKENS` long.
PASSAGE_FTS_COLUMN = "fts_words"


#: ``passage_id``: the chunk id and the window's ordinal (``CHUNK_ID@N``), what the passages of a file
#: are merged on. It is declared the table's primary key (:data:`PRIMARY_KEY`), so two writers
#: bringing one file's passages in line at once leave them once.
PASSAGE_SCHEMA = pa.schema([pa.field("passage_id", pa.string(), nullable=False, metadata=PRIMARY_KEY),
                            ("chunk_id", pa.string()), ("source", pa.string()),
                            ("content_hash", pa.string()), (PASSAGE_FTS_COLUMN, pa.string())])


def passage_records(rows: Iterable[dict], size: int = PASSAGE_TOKENS) -> Iterator[dict]:
    """The passage rows of chunk rows (each with ``chunk_id``, ``source``, ``content_hash`` and
    :data:`PASSAGE_FTS_COLUMN`): windows of ``size`` tokens over the indexed text, half a window apart
    (:func:`flows.ingest.pipeline.passages`), each after the title line the text starts with; a chunk no
    longer than one window is one passage, itself."""
    from splitters.chunk import passages

    for row in rows:
        text = row[PASSAGE_FTS_COLUMN] or ""
        title = text.split("\n", 1)[0]
        windows = passages(text, size)
        for index, window in enumerate(windows or [text]):
            yield {"passage_id": f"{row['chunk_id']}@{index}", "chunk_id": row["chunk_id"], "source": row["source"],
                   "content_hash": row["content_hash"], PASSAGE_FTS_COLUMN: window if index == 0 else f"{title}\n{window}"}


def vector_values(vectors: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A list column of vectors as (its values as one numpy array, where each vector starts in it,
    with the end last), without a Python float per component. LanceDB stores a list column named
    ``vector`` as a fixed-size list when all its lists are as long."""
    values = vectors.flatten().to_numpy(zero_copy_only=False)
    if pa.types.is_fixed_size_list(vectors.type):
        return values, np.arange(len(vectors) + 1) * vectors.type.list_size
    offsets = vectors.offsets.to_numpy()
    return values, offsets - offsets[0]
