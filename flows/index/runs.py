"""A knowledge base's ingest runs: one row per run in ``KB__runs``, what ``seams ui`` lists under Runs.

The manifest says how each file stands now; it forgets a run as soon as a later one touches the same
files. The runs table keeps each run's counts (added, updated, unchanged, deleted, failed, skipped,
kept), the files that failed in it (the first :data:`FAILED_KEPT`), when it ran, and the Prefect flow run
with the API it reported to, so the page can link a run to Prefect's dashboard when that server is
still the one configured (a one-off run's temporary server is gone with its process).

It is a log, not a source of truth: only the newest :data:`RUNS_KEPT` rows are kept, and a failure to
write it is logged, never raised (the run's data is committed by then).
"""

from __future__ import annotations

import datetime as dt
import json
import logging

import pyarrow as pa

from flows.index.schema import open_table, sql_string

RUNS = "runs"
#: Rows kept per knowledge base: the older ones are deleted as new runs are recorded.
RUNS_KEPT = 200
#: Failed files named per run (the count is always whole).
FAILED_KEPT = 100
#: The outcomes counted per run, in the order shown (:meth:`flows.ingest.report.IngestReport.counts`).
COUNTS = ("added", "updated", "unchanged", "deleted", "failed", "skipped", "kept")

RUN_SCHEMA = pa.schema([
    pa.field("finished_at", pa.timestamp("us", tz="UTC")),
    pa.field("seconds", pa.float64()),
    pa.field("paths", pa.string()),  # JSON list of the folders and files given
    *(pa.field(name, pa.int32()) for name in COUNTS),
    pa.field("chunks", pa.int64()),
    pa.field("embedded", pa.int64()),
    pa.field("failed_files", pa.string()),  # JSON list of {"file", "error_kind", "error"}
    pa.field("flow_run_id", pa.string()),  # "" outside a Prefect flow run (bench/orchestrate.py)
    pa.field("api_url", pa.string()),  # the Prefect API the run reported to
])

log = logging.getLogger(__name__)


class RunLog:
    """The runs table of one knowledge base."""

    def __init__(self, db, kb: str) -> None:
        self.db = db
        self.name = f"{kb}__{RUNS}"

    def table(self):
        return open_table(self.db, self.name)

    def record(self, report, paths: list[str], flow_run_id: str = "", api_url: str = "") -> None:
        """Add the row of a finished run (``report``: a :class:`flows.ingest.report.IngestReport`)."""
        counts = report.counts()
        failed = [{"file": f.doc_id, "root": f.root, "error_kind": f.error_kind, "error": f.error}
                  for f in report.files if f.status == "failed"][:FAILED_KEPT]
        row = {"finished_at": dt.datetime.now(dt.UTC), "seconds": report.seconds,
               "paths": json.dumps([_absolute(str(p)) for p in paths], ensure_ascii=False),
               **{name: counts.get(name, 0) for name in COUNTS}, "chunks": report.chunks,
               "embedded": report.embedded, "failed_files": json.dumps(failed, ensure_ascii=False),
               "flow_run_id": flow_run_id or "", "api_url": api_url or ""}
        try:
            table = self.table()
            if table is None:
                table = self.db.create_table(self.name, schema=RUN_SCHEMA, exist_ok=True)
            table.add(pa.Table.from_pylist([row], schema=RUN_SCHEMA))
            if table.count_rows() > RUNS_KEPT:
                oldest = self.latest(RUNS_KEPT)[-1]["finished_at"]
                table.delete(f"finished_at < timestamp {sql_string(oldest.isoformat())}")
        except Exception as exc:  # a log of runs: the run's data is committed whatever happens here
            log.warning("could not record the run in %s: %s", self.name, exc)

    def latest(self, limit: int = 20) -> list[dict]:
        """The newest ``limit`` runs, newest first, with ``paths`` and ``failed_files`` as lists."""
        table = self.table()
        if table is None:
            return []
        rows = table.to_arrow().sort_by([("finished_at", "descending")]).slice(0, limit).to_pylist()
        for row in rows:
            row["paths"] = json.loads(row["paths"] or "[]")
            row["failed_files"] = json.loads(row["failed_files"] or "[]")
        return rows


def _absolute(path: str) -> str:
    """A local path as an absolute one (what the manifest records); a URI as it is."""
    import os

    return path if "://" in path else os.path.abspath(path)
