"""What an ingest run reports: a line per file, the run's summary, Prefect artifacts and log lines.

:class:`IngestReport` holds a :class:`FileReport` per file (added, updated, unchanged, deleted, failed or
skipped, with its type, strategy, rule, chunks, tokens and error); the run publishes it as artifacts
(a table of files, failed ones first, and the counts) and logs a line per file on the Prefect server.
A run in which files failed ends in a state of Prefect's failed type (:func:`final_state`), so the
dashboard counts it among failed runs; a run whose only failed files failed at an earlier run and have
not changed since ends completed, in the state :data:`FAILURES_STATE`.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from prefect import get_run_logger

from flows.errors import EmbedderError
from flows.ingest.pipeline import KEEP_OLD_CHUNKS, FileRef, Outcome
from flows.ingest.sync import Plan
from flows.markdown import table as markdown_table

log = logging.getLogger(__name__)


@dataclass
class FileReport:
    doc_id: str
    root: str
    action: str  # added | updated | unchanged | deleted | failed | skipped | kept
    status: str
    format: str = ""
    strategy: str = ""
    rule: str = ""
    evidence: str = ""
    chunks: int = 0
    tokens: int = 0
    error_kind: str = ""
    error: str = ""
    warnings: tuple[str, ...] = ()


@dataclass
class StageTime:
    """Where a stage of the run ran and its time: ``seconds`` of its work (summed over the files or
    groups, so work done in parallel can exceed the run's time) and, for work done outside the flow's
    process, ``waited``: how long the flow stood waiting for it."""

    where: str
    seconds: float = 0.0
    waited: float = 0.0


#: The stages of a run, in order: finding what changed, reading and cutting, embedding, writing
#: rows and manifest, and removing deleted files' rows with the table's upkeep.
STAGES = ("plan", "cut", "embed", "write", "clean")


@dataclass
class IngestReport:
    db: str
    kb: str
    files: list[FileReport] = field(default_factory=list)
    embedded: int = 0
    reused_vectors: int = 0
    rows_written: int = 0
    rows_deleted: int = 0
    seconds: float = 0.0
    refused: list[str] = field(default_factory=list)  # roots whose deletions were refused
    embedder: str = ""  # as the knowledge base records it (flows.embed.spec.recorded)
    embed_retries: dict[str, int] = field(default_factory=dict)  # embedding requests sent again, by reason
    over_length: int = 0  # texts over the embedder's input length (embedded by its stated rule)
    stages: dict[str, StageTime] = field(default_factory=dict)  # by stage (:data:`STAGES`), those that ran

    def timed(self, stage: str, where: str, seconds: float = 0.0, waited: float = 0.0) -> None:
        """Add to a stage's time (:class:`StageTime`)."""
        time_ = self.stages.setdefault(stage, StageTime(where))
        time_.where = where
        time_.seconds += seconds
        time_.waited += waited

    def stage_line(self) -> str:
        """The time by stage in one line: ``plan 0.1 s · cut 12.0 s in 2 parser workers (the flow waited
        1.2 s) · embed …``."""
        parts = []
        for stage in STAGES:
            if (time_ := self.stages.get(stage)) is None:
                continue
            part = f"{stage} {time_.seconds:.1f} s"
            if time_.where != "flow":
                part += f" in {time_.where} (the flow waited {time_.waited:.1f} s)"
            parts.append(part)
        return " · ".join(parts)

    def count(self, action: str) -> int:
        return sum(1 for f in self.files if f.action == action)

    def count_batch(self, embedded: int, reused_vectors: int, rows_written: int, rows_deleted: int) -> None:
        self.embedded += embedded
        self.reused_vectors += reused_vectors
        self.rows_written += rows_written
        self.rows_deleted += rows_deleted

    @property
    def failed(self) -> int:
        return sum(1 for f in self.files if f.status == "failed")

    @property
    def chunks(self) -> int:
        return sum(f.chunks for f in self.files if f.action in ("added", "updated"))

    def counts(self) -> dict[str, int]:
        """Files per outcome, each file counted once: a file that failed before and has not changed
        since is among the failed, not the unchanged (the summary line and ``--json`` both say so)."""
        stale = self.stale_failures
        counts = {action: self.count(action) for action in ("added", "updated", "unchanged", "deleted", "failed",
                                                             "skipped", "kept")}
        return dict(counts, unchanged=counts["unchanged"] - stale, failed=self.failed)

    @property
    def new_failures(self) -> list[FileReport]:
        """The files that failed in this run (tried and failed, or kept their old chunks because this
        run could not replace them), not those unchanged since an earlier run failed them."""
        return [f for f in self.files if f.status == "failed" and f.action != "unchanged"]

    @property
    def stale_failures(self) -> int:
        """Files that failed at an earlier run and have not changed since (not parsed again)."""
        return sum(1 for f in self.files if f.action == "unchanged" and f.status == "failed")

    def summary(self) -> str:
        """The counts (:meth:`counts`), each file counted once."""
        counts, stale = self.counts(), self.stale_failures
        since = f" ({stale} unchanged since they failed; --retry-failed tries again)" if stale else ""
        retried = ""
        if self.embed_retries:
            reasons = ", ".join(f"{reason}: {n}" for reason, n in sorted(self.embed_retries.items()))
            retried = f"; {sum(self.embed_retries.values())} embedding requests retried ({reasons})"
        if self.over_length:
            retried += f"; {self.over_length} texts over the embedder's input length (its rule: README, Embedders)"
        return (f"{counts['added']} added, {counts['updated']} updated, {counts['unchanged']} unchanged, "
                f"{counts['deleted']} deleted, {counts['failed']} failed{since}, {counts['skipped']} skipped{retried}")


def embedder_failed(ref: FileRef, known: bool, error: EmbedderError, format_: str = "") -> FileReport:
    return FileReport(ref.doc_id, ref.root, "kept" if known else "failed", "failed", format_, error_kind=error.kind,
                      error=f"{error}; nothing of it was written" + (", its chunks indexed before are kept"
                                                                     if known else ""))


def cut_report(outcome: Outcome, known: bool) -> FileReport:
    decision = outcome.decision
    if outcome.error_kind:
        keeps = known and outcome.error_kind in KEEP_OLD_CHUNKS
        action = "skipped" if outcome.status == "skipped" else ("kept" if keeps else "failed")
    else:
        action = "updated" if known else "added"
    return FileReport(
        doc_id=outcome.ref.doc_id, root=outcome.ref.root, action=action, status=outcome.status,
        format=outcome.format, strategy=decision.strategy if decision else "",
        rule=decision.rule if decision else "", evidence=decision.evidence if decision else "",
        chunks=len(outcome.chunks), tokens=outcome.tokens, error_kind=outcome.error_kind,
        error=outcome.error, warnings=outcome.warnings,
    )


def unchanged_report(ref: FileRef, row: dict) -> FileReport:
    return FileReport(ref.doc_id, ref.root, "unchanged", row["status"], row["format"], row["strategy"],
                      row["rule"], row["evidence"], row["chunks"], row["tokens"], row["error_kind"], row["error"])


def unlisted_reports(plan: Plan, manifest: dict[str, dict]) -> list[FileReport]:
    """The files under folders that could not be listed: an indexed file keeps its chunks; a folder
    that held no indexed file is reported as one skipped entry, so its files are not silently missing."""
    kept = [FileReport(row["doc_id"], row["root"], "kept", "failed", row["format"], row["strategy"], row["rule"],
                       row["evidence"], row["chunks"], row["tokens"], "unreadable",
                       "its folder could not be listed; the chunks indexed before are kept")
            for row in (manifest[path] for path in plan.unreachable)]
    skipped = [FileReport(f"{directory}/" if directory else "./", root, "skipped", "failed",
                          error_kind="unreadable", error="this folder could not be listed (no "
                          "permission, or its path is too long): the files in it were not indexed")
               for root, directory in plan.unlisted]
    return kept + skipped


def deleted_report(row: dict) -> FileReport:
    return FileReport(row["doc_id"], row["root"], "deleted", "deleted")


def artifact_key(kb: str, what: str, db: str = "") -> str:
    """``seams-KB-DBTAG-WHAT``: DBTAG, six hex digits of the database's location, keeps two databases
    that both have a knowledge base ``default`` apart. Keys allow lowercase letters, digits and dashes."""
    tag = f"-{hashlib.sha1(db.encode()).hexdigest()[:6]}" if db else ""
    return re.sub(r"[^a-z0-9-]+", "-", f"seams-{kb}{tag}-{what}".lower()).strip("-")


def publish(report: IngestReport) -> None:
    from prefect.artifacts import create_markdown_artifact, create_table_artifact

    # Failed files first; the short columns before the error, whose long text would push them out of
    # sight in the dashboard's table (it scrolls sideways), and the folder last.
    ordered = sorted(report.files, key=lambda f: f.status != "failed")
    rows = [{
        "file": f.doc_id, "status": f.status, "action": f.action, "format": f.format, "strategy": f.strategy,
        "rule": f.rule, "chunks": f.chunks, "tokens": f.tokens,
        "error": f"{f.error_kind}: {f.error}" if f.error_kind else "", "folder": f.root,
    } for f in ordered]
    create_table_artifact(rows, key=artifact_key(report.kb, "files", report.db),
                          description=f"Files of this ingest of knowledge base {report.kb!r} in {report.db}")
    counts = markdown_table(["action", "files"], [(action, report.count(action)) for action in
                                         ("added", "updated", "unchanged", "deleted", "failed", "skipped", "kept")])
    refused = "".join(f"\n\n**Refused** to delete the indexed files of `{root}`: it is empty or missing."
                      for root in report.refused)
    create_markdown_artifact(
        f"# seams ingest — {report.kb}\n\n{counts}\n\n"
        f"{report.chunks} chunks written ({report.rows_written} rows, {report.rows_deleted} deleted), "
        f"{report.embedded} texts embedded, {report.reused_vectors} vectors reused, {report.seconds:.1f} s.\n\n"
        f"{stage_table(report)}"
        f"Database: `{report.db}`{refused}",
        key=artifact_key(report.kb, "summary", report.db), description="Counts of the last ingest",
    )


def stage_table(report: IngestReport) -> str:
    """The time by stage as a Markdown table (with a blank line after), or nothing when no stage ran."""
    rows = [(stage, t.where, f"{t.seconds:.1f}", f"{t.waited:.1f}" if t.where != "flow" else "")
            for stage in STAGES if (t := report.stages.get(stage))]
    return markdown_table(["stage", "ran in", "seconds of work", "the flow waited (s)"], rows) + "\n\n" if rows else ""


PROGRESS_EVERY_S = 2.0


def progress_artifact(kb: str, db: str) -> Callable[[int, int], None]:
    from prefect.artifacts import create_progress_artifact, update_progress_artifact

    artifact_id = create_progress_artifact(0.0, key=artifact_key(kb, "progress", db),
                                           description="Files processed in this ingest")

    last = [0.0]

    def update(done: int, total: int) -> None:
        # An API call each: at most one every PROGRESS_EVERY_S seconds, and always the last one.
        if done < total and time.monotonic() - last[0] < PROGRESS_EVERY_S:
            return
        last[0] = time.monotonic()
        update_progress_artifact(artifact_id, 100.0 * done / total if total else 100.0)

    return update


#: The name of a completed run's state when files failed at an earlier run and have not changed since
#: (CamelCase like Prefect's own names, e.g. ``AwaitingRetry``; the run's events are named after it:
#: ``prefect.flow-run.CompletedWithFailures``). Nothing failed *in* that run, so it is not red; the
#: dashboard's run list still tells it from a clean ``Completed``.
FAILURES_STATE = "CompletedWithFailures"
#: Failed files named in a failed run's state message; the files artifact lists them all.
NAMED_FAILURES = 5


def final_state(report: IngestReport, summary: str):
    """The run's final state: ``Failed`` (Prefect's failed type: the dashboard's home page counts it,
    and automations on ``prefect.flow-run.Failed`` fire) when files failed in this run, its message
    naming them; else ``Completed``, named :data:`FAILURES_STATE` when only files that failed at an
    earlier run and did not change since are failed. Either way every good file was written and the
    artifacts published before; the state carries the report as its data."""
    from prefect.states import Completed, Failed

    new = report.new_failures
    if not new:
        return Completed(message=summary, data=report, name=FAILURES_STATE if report.failed else "Completed")
    named = ", ".join(f"{f.doc_id} ({f.error_kind})" for f in new[:NAMED_FAILURES])
    more = f" and {len(new) - NAMED_FAILURES} more" if len(new) > NAMED_FAILURES else ""
    noun = "file" if len(new) == 1 else "files"
    return Failed(message=f"{len(new)} {noun} failed: {named}{more}; {summary}", data=report, name="Failed")


def server_logger() -> logging.LoggerAdapter:
    """The run's logger for lines meant for the run's logs on the server and not the terminal (which
    shows its own progress): its only handler is Prefect's API log handler."""
    from prefect.logging.handlers import APILogHandler
    from prefect.logging.loggers import PrefectLogAdapter

    files = logging.getLogger("seams.files")
    if not any(isinstance(h, APILogHandler) for h in files.handlers):
        files.addHandler(APILogHandler())
        files.propagate = False
    files.setLevel(logging.INFO)
    return PrefectLogAdapter(files, extra=get_run_logger().extra)


def page_logger(logger: logging.LoggerAdapter) -> Callable[[str, int, int], None]:
    """A line per page read by OCR in the run's logs on the server (seconds a page: a file of scans
    would otherwise show nothing for minutes)."""

    def log_page(path: str, page: int, pages: int) -> None:
        logger.info("%s: page %d of %d read by OCR", Path(path).name, page, pages)

    return log_page


def file_logger(logger: logging.LoggerAdapter) -> Callable[[FileReport, int, int], None]:
    """A line per file in the run's logs on the server: INFO for each file indexed or skipped (with
    the reason), WARNING for each that failed."""

    def log_file(report: FileReport, done: int, total: int) -> None:
        if report.status == "failed":
            logger.warning("%s: %s — %s: %s", report.doc_id, report.action, report.error_kind, report.error)
        elif report.error_kind and report.action != "unchanged":  # skipped: a type seams does not read
            logger.info("%s: %s — %s: %s", report.doc_id, report.action, report.error_kind, report.error)
        elif report.action != "unchanged":
            logger.info("%s: %s · %s · %s (%s) · %d chunks, %d tokens", report.doc_id, report.action, report.format,
                        report.strategy, report.rule, report.chunks, report.tokens)

    return log_file
