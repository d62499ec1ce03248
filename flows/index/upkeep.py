"""Index upkeep: the full-text and vector indexes a chunks table needs, and when to compact and prune.

Two BM25 full-text indexes — character 2-3-grams over ``fts_text`` (any script; Korean words carry
particles, so whole-word tokens would miss them) and stemmed English words over ``fts_words``. Other
tools build an English word index on ``text`` for their own full-text queries; it is theirs, and
seams' indexes are on other columns. Every ingest and full-text search compares seams' indexes'
settings, as LanceDB reports them, with seams' and rebuilds one that differs, with a warning. From
:data:`VECTOR_INDEX_MIN_ROWS` rows, an IVF_PQ index on the ``passages`` column (below that, exact
search is fast and exact). Compaction, after large runs or once commits have piled up, folds new
rows into the indexes; old versions are pruned once :data:`PRUNE_VERSIONS` have piled up (every
version older than :data:`KEEP_VERSIONS` goes), so a database indexed on a schedule for months
stays near the size of a fresh ingest.
"""

from __future__ import annotations

import datetime as dt
import logging

#: From this many chunk rows on, vector search goes through an IVF_PQ index (with exact re-ranking
#: of the candidates); below it, flat search is exact and takes milliseconds.
VECTOR_INDEX_MIN_ROWS = 50_000

log = logging.getLogger(__name__)


#: The column vector search ranks chunks by (each chunk's whole and passage vectors) and its index.
VECTOR_SEARCH_COLUMN = "passages"


VECTOR_INDEX = f"{VECTOR_SEARCH_COLUMN}_idx"


#: A table is compacted once this many small fragments (one or more per commit) have piled up,
TOO_MANY_FRAGMENTS = 32


#: ... or after a run that changed at least this many files.
LARGE_RUN_FILES = 200


#: Versions older than this are removed by compaction and pruning (a reader holding one longer may fail).
KEEP_VERSIONS = dt.timedelta(minutes=10)


#: Old versions are pruned once a table has this many: every commit makes a version, and each keeps
#: the data files it needs, so a table written by months of scheduled runs would grow without bound.
PRUNE_VERSIONS = 12


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


def needs_pruning(table) -> bool:
    """Versions have piled up, and some are older than the retention. Ages are measured from the
    table's newest commit (LanceDB's version timestamps carry no time zone), so a run that committed
    nothing never prunes, and pruning comes at most about once per retention period."""
    versions = table.list_versions()
    if len(versions) < PRUNE_VERSIONS:
        return False
    stamps = [v["timestamp"] for v in versions]
    return max(stamps) - min(stamps) > KEEP_VERSIONS


def needs_compaction(table) -> bool:
    """Many small fragments (every commit adds some), or many rows an index does not cover yet."""
    if table.stats()["fragment_stats"]["num_small_fragments"] >= TOO_MANY_FRAGMENTS:
        return True
    rows = table.count_rows()
    return any((index.num_unindexed_rows or 0) > max(1_000, rows // 10) for index in table.list_indices())
