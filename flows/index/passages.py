"""A knowledge base's passages: windows of each chunk's text that English full text ranks chunks by.

BM25 over a whole chunk weighs a question's words against the chunk's length, so a long chunk whose
one sentence answers ranks below short chunks that merely mention the words; English full text
therefore also ranks chunks by their best passage (:func:`flows.index.search.fts_ranking`). The
passages live in a table derived from the chunks (``KB__fts_passages``), which the upkeep after
every ingest brings in line by file path and content hash (:meth:`PassageIndex.sync`): a passage of
a file version since replaced or deleted never brings its chunk back.
"""

from __future__ import annotations

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

        Why passages: BM25 over a whole chunk weighs a question's words against the chunk's length, so
        a chunk of 900 tokens with the one sentence that answers ranks below short chunks that merely
        mention the words. English full text therefore also ranks chunks by their best passage
        (:func:`flows.index.search.fts_ranking`); see there for what was measured."""
        table = self.table()
        if chunks is None or PASSAGE_FTS_COLUMN not in chunks.schema.names:
            if table is not None:
                self.db.drop_table(self.name)
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
            self.db.drop_table(self.name)
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
                    self.db.create_table(self.name, pa.RecordBatchReader.from_batches(PASSAGE_SCHEMA, batches()),
                                         mode=mode)
                    break
                except ValueError:  # "create" of a table another ingest has just created
                    if mode == "overwrite" or self.table() is None:
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
