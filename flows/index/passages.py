"""A knowledge base's passages: windows of each chunk's text that English full text ranks chunks by.

BM25 over a whole chunk weighs a question's words against the chunk's length, so a long chunk whose
one sentence answers ranks below short chunks that merely mention the words; English full text
therefore also ranks chunks by their best passage (:func:`flows.index.search.fts_ranking`). The
passages live in a table derived from the chunks (``KB__fts_passages``), which the upkeep after
every ingest brings in line by file path and content hash (:meth:`PassageIndex.sync`): a passage of
a file version since replaced or deleted never brings its chunk back.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pyarrow as pa

from flows.index.schema import (
    PASSAGE_FTS_COLUMN,
    PASSAGE_SCHEMA,
    PASSAGES,
    WRITE_BATCH_ROWS,
    in_list,
    open_table,
    passage_records,
)
from flows.index.upkeep import text_indexes

#: The chunk columns a passage is made from.
_COLUMNS = ["chunk_id", "source", "content_hash", PASSAGE_FTS_COLUMN]
#: Times a sync compares and writes at most (see :meth:`PassageIndex.sync`).
SYNC_ROUNDS = 3


def _files(table) -> set[tuple[str, str]]:
    """The (path, content hash) pairs ``table`` holds rows of."""
    if table is None or table.count_rows() == 0:
        return set()
    pairs = table.search().select(["source", "content_hash"]).limit(None).to_arrow()
    unique = pa.table({"s": pairs["source"], "h": pairs["content_hash"]}).group_by(["s", "h"]).aggregate([])
    return set(zip(unique["s"].to_pylist(), unique["h"].to_pylist(), strict=True))


class PassageIndex:
    """The passages table of one knowledge base."""

    def __init__(self, db, kb: str) -> None:
        self.db = db
        self.name = f"{kb}__{PASSAGES}"

    def _open(self):
        return open_table(self.db, self.name)

    def table(self):
        """The table of the chunks' passages English full text ranks by (None until the first
        :meth:`sync`)."""
        return self._open()

    def sync(self, chunks) -> int:
        """Bring the passages table in line with ``chunks``, the knowledge base's chunks table: the passages of every file whose
        chunks changed since (by path and content hash) are written again, those of files gone are
        deleted. Returns the number of passage rows written. The table is derived: a run killed before
        this leaves it behind the chunks, and the next upkeep catches up; a search meanwhile ranks the
        chunks it lacks by their whole text alone.

        Several writers may sync one knowledge base at once (ingests of different folders into a KB on
        shared storage). A file's passages are therefore merged on their ids, its old ones deleted in the
        same commit, so two writers syncing one file leave its passages once (deleted and then added by
        each, they were there twice, and no later sync saw it: it compares files, not rows); and after
        writing, the sync compares again and catches up with what another writer's rewrite of the whole
        table, made from an older view of the chunks, left out (at most :data:`SYNC_ROUNDS` times).

        Why passages: BM25 over a whole chunk weighs a question's words against the chunk's length, so
        a chunk of 900 tokens with the one sentence that answers ranks below short chunks that merely
        mention the words. English full text therefore also ranks chunks by their best passage
        (:func:`flows.index.search.fts_ranking`); see there for what was measured."""
        table = self.table()
        if chunks is None or PASSAGE_FTS_COLUMN not in chunks.schema.names:
            self._drop()
            return 0
        if table is not None and "passage_id" not in table.schema.names:
            self._drop()  # written before passages had ids: written afresh below
            table = None
        written = 0
        for _round in range(SYNC_ROUNDS):
            chunks = open_table(self.db, chunks.name) or chunks  # as it is now, with other writers' commits
            wanted, held = _files(chunks), _files(table)
            changed = sorted({source for source, _ in wanted ^ held})
            if not changed:
                break
            if not wanted:
                self._drop()
                break
            if table is None or len(changed) * 2 > len(wanted):
                try:
                    written += self._write_all(chunks, create=table is None)
                except RuntimeError as exc:
                    if "commit conflict" not in str(exc).lower():
                        raise
                    # another writer rewrote the table meanwhile: the next round compares with its
                    # version (LanceDB raises a plain RuntimeError, "Retryable commit conflict")
            else:
                written += self._merge(chunks, table, changed)
            table = self.table()
        return written

    def _drop(self) -> None:
        if self.table() is not None:
            with contextlib.suppress(ValueError, FileNotFoundError):  # another writer dropped it first
                self.db.drop_table(self.name)

    def _write_all(self, chunks, create: bool) -> int:
        """The table written afresh from one streamed scan of the chunks (a first ingest, a re-index),
        where a merge per slice of files grows with the table."""
        written = 0

        def batches() -> Iterator[pa.RecordBatch]:
            nonlocal written
            for batch in chunks.search().select(_COLUMNS).limit(None).to_batches(WRITE_BATCH_ROWS):
                records = list(passage_records(batch.to_pylist()))
                written += len(records)
                yield from pa.Table.from_pylist(records, schema=PASSAGE_SCHEMA).to_batches()

        # "create" when there is no table: "overwrite" of a table not there yet has Lance log a
        # warning on stderr at every first ingest. Another ingest may create it meanwhile.
        for mode in ("create", "overwrite") if create else ("overwrite",):
            written = 0
            try:
                self.db.create_table(self.name, pa.RecordBatchReader.from_batches(PASSAGE_SCHEMA, batches()), mode=mode)
                break
            except ValueError:  # "create" of a table another ingest has just created
                if mode == "overwrite" or self.table() is None:
                    raise
        return written

    def _merge(self, chunks, table, changed: list[str]) -> int:
        """The passages of the files at ``changed`` made exactly those of their chunks now: one merge on
        ``passage_id`` per slice of files, deleting in the same commit the files' passages not in it."""
        written = 0
        for start in range(0, len(changed), 500):
            part = changed[start:start + 500]
            rows = chunks.search().where(in_list("source", part)).select(_COLUMNS).limit(None).to_arrow()
            records = list(passage_records(rows.to_pylist()))
            if not records:
                table.delete(in_list("source", part))
                continue
            (table.merge_insert("passage_id").when_matched_update_all().when_not_matched_insert_all()
             .when_not_matched_by_source_delete(in_list("source", part))
             .execute(pa.Table.from_pylist(records, schema=PASSAGE_SCHEMA)))
            written += len(records)
        return written

    def update(self, chunks) -> list[str]:
        """The passages' upkeep (after every ingest, and an evaluation's write): :meth:`sync`,
        then the passages table's full-text index if it is missing. Returns what it did."""
        done = [f"passages of {chunks.name}"] if chunks is not None and self.sync(chunks) else []
        table = self.table()
        name = f"{PASSAGE_FTS_COLUMN}_idx"
        if table is not None and table.count_rows() and name not in {index.name for index in table.list_indices()}:
            table.create_index(PASSAGE_FTS_COLUMN, config=text_indexes()[PASSAGE_FTS_COLUMN], replace=True)
            done.append(f"{PASSAGES} {name}")
        return done
