"""The ingest flow: sync folders into a knowledge base, incrementally.

    plan ─▶ for each batch of changed files: cut (process pool) ─▶ embed ─▶ write ─▶ manifest
         ─▶ forget deleted files ─▶ artifacts

Task granularity is a batch of files, not a file or a chunk: Prefect adds milliseconds per task,
and LanceDB wants few large commits. Each file's outcome still appears in the run's artifact table.
CPU-bound cutting runs in worker processes with a per-file time limit; a file that hangs or kills
its worker fails alone.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE

from flows.embedders import get_embedder, text_hash
from flows.pipeline import KEEP_OLD_CHUNKS, CutConfig, FileRef, Outcome, cut_file, embed_text
from flows.settings import Settings
from flows.store import Store, now
from flows.sync import plan_sync


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

    def count(self, action: str) -> int:
        return sum(1 for f in self.files if f.action == action)

    @property
    def failed(self) -> int:
        return sum(1 for f in self.files if f.status == "failed")

    @property
    def chunks(self) -> int:
        return sum(f.chunks for f in self.files if f.action in ("added", "updated"))


#: Called with (FileReport, done, total) as files finish; the CLI sets it to draw its progress bar.
ProgressListener = Callable[[FileReport, int, int], None]
_listeners: list[ProgressListener] = []


def add_listener(listener: ProgressListener) -> None:
    _listeners.append(listener)


def remove_listener(listener: ProgressListener) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


def _mp_context():
    # forkserver/spawn: forking a process that runs Prefect's threads can deadlock the child.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


class Cutter:
    """A process pool that cuts files with a per-file time limit and survives crashed workers."""

    def __init__(self, workers: int, timeout: float) -> None:
        self.workers = max(1, workers)
        self.timeout = timeout
        self._pool: cf.ProcessPoolExecutor | None = None

    def _ensure(self) -> cf.ProcessPoolExecutor:
        if self._pool is None:
            self._pool = cf.ProcessPoolExecutor(self.workers, mp_context=_mp_context())
        return self._pool

    def _reset(self) -> None:
        if self._pool is not None:
            for process in list(getattr(self._pool, "_processes", {}).values()):
                process.kill()
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def cut(self, refs: Sequence[FileRef], config: CutConfig) -> list[Outcome]:
        outcomes: dict[int, Outcome] = {}
        pending = list(range(len(refs)))
        while pending:
            pool = self._ensure()
            futures = {index: pool.submit(cut_file, refs[index], config) for index in pending}
            pending = []
            for index, future in futures.items():
                if index in outcomes:
                    continue
                try:
                    outcomes[index] = future.result(timeout=self.timeout)
                except cf.TimeoutError:
                    outcomes[index] = Outcome(refs[index], "", error_kind="timeout",
                                              error=f"not cut within {self.timeout:.0f} s")
                    pending = [i for i in futures if i not in outcomes and not futures[i].done()]
                    for i, other in futures.items():
                        if i not in outcomes and other.done() and other.exception() is None:
                            outcomes[i] = other.result()
                    self._reset()
                    break
                except cf.process.BrokenProcessPool:
                    outcomes[index] = Outcome(refs[index], "", error_kind="error",
                                              error="the parser crashed its worker process")
                    pending = [i for i in futures if i not in outcomes]
                    self._reset()
                    break
        return [outcomes[i] for i in range(len(refs))]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


@task(name="cut-files", cache_policy=NO_CACHE)
def cut_files(cutter: Cutter, refs: list[FileRef], config: CutConfig) -> list[Outcome]:
    return cutter.cut(refs, config)


@task(name="embed-chunks", cache_policy=NO_CACHE)
def embed_chunks(outcomes: list[Outcome], settings: Settings, store: Store) -> tuple[dict[str, list[float]], int, int]:
    """Vectors for every chunk text to embed, from the cache where possible. Returns (vectors, new, reused)."""
    embedder = get_embedder(settings.embedder, settings.embed_threads)
    texts = {text_hash(t): t for o in outcomes for t in (embed_text(c, settings.embed_heading_path) for c in o.chunks)}
    cached = store.cached_vectors(embedder.name, list(texts))
    missing = [h for h in texts if h not in cached]
    fresh = {}
    for start in range(0, len(missing), settings.embed_batch):
        part = missing[start:start + settings.embed_batch]
        for h, vector in zip(part, embedder.encode([texts[h] for h in part]), strict=True):
            fresh[h] = vector
    store.cache_vectors(embedder.name, fresh)
    vectors = {h: v.tolist() for h, v in {**cached, **fresh}.items()}
    return vectors, len(fresh), len(cached)


@task(name="write-chunks", cache_policy=NO_CACHE, retries=2, retry_delay_seconds=2)
def write_chunks(store: Store, rows: list[dict], doc_ids: list[str], dim: int) -> tuple[int, int]:
    return store.replace_documents(rows, doc_ids, dim)


@task(name="write-manifest", cache_policy=NO_CACHE, retries=2, retry_delay_seconds=2)
def write_manifest(store: Store, entries: list[dict]) -> None:
    store.write_manifest(entries)


@task(name="forget-deleted", cache_policy=NO_CACHE, retries=2, retry_delay_seconds=2)
def forget_deleted(store: Store, doc_ids: list[str]) -> int:
    return store.forget(doc_ids)


def chunk_rows(outcome: Outcome, settings: Settings, vectors: dict[str, list[float]], dim: int, indexed_at) -> list[dict]:
    rows = []
    decision = outcome.decision
    for ordinal, chunk in enumerate(outcome.chunks):
        to_embed = embed_text(chunk, settings.embed_heading_path)
        rows.append({
            "chunk_id": f"{outcome.ref.doc_id}#{ordinal}",
            "doc_id": outcome.ref.doc_id,
            "source": outcome.ref.path,
            "root": outcome.ref.root,
            "content_hash": outcome.content_hash,
            "format": outcome.format,
            "strategy": decision.strategy if decision else "",
            "rule": decision.rule if decision else "",
            "ordinal": ordinal,
            "text": chunk.text,
            "embed_text": to_embed,
            "tokens": chunk.tokens,
            "page_start": chunk.page_start, "page_end": chunk.page_end,
            "sheet": chunk.sheet, "row_start": chunk.row_start, "row_end": chunk.row_end,
            "slide_start": chunk.slide_start, "slide_end": chunk.slide_end,
            "heading_path": " > ".join(chunk.heading_path),
            "char_start": chunk.start, "char_end": chunk.end,
            "embedder": settings.embedder, "dim": dim, "config": settings.fingerprint(),
            "indexed_at": indexed_at,
            "vector": vectors[text_hash(to_embed)],
        })
    return rows


def manifest_entry(outcome: Outcome, fingerprint: str, indexed_at) -> dict:
    decision = outcome.decision
    return {
        "doc_id": outcome.ref.doc_id, "root": outcome.ref.root, "path": outcome.ref.path,
        "size": outcome.ref.size, "mtime": outcome.ref.mtime, "content_hash": outcome.content_hash,
        "config": fingerprint, "status": outcome.status, "error_kind": outcome.error_kind,
        "error": outcome.error, "format": outcome.format,
        "strategy": decision.strategy if decision else "", "rule": decision.rule if decision else "",
        "evidence": decision.evidence if decision else "", "chunks": len(outcome.chunks),
        "tokens": outcome.tokens, "indexed_at": indexed_at,
    }


def _report(outcome: Outcome, known: bool) -> FileReport:
    decision = outcome.decision
    if outcome.error_kind:
        action = "skipped" if outcome.status == "skipped" else ("kept" if known and outcome.error_kind in KEEP_OLD_CHUNKS else "failed")
    else:
        action = "updated" if known else "added"
    return FileReport(
        doc_id=outcome.ref.doc_id, root=outcome.ref.root, action=action, status=outcome.status,
        format=outcome.format, strategy=decision.strategy if decision else "",
        rule=decision.rule if decision else "", evidence=decision.evidence if decision else "",
        chunks=len(outcome.chunks), tokens=outcome.tokens, error_kind=outcome.error_kind,
        error=outcome.error, warnings=outcome.warnings,
    )


def _notify(report: FileReport, done: int, total: int) -> None:
    for listener in list(_listeners):
        listener(report, done, total)


@flow(name="seams-ingest", log_prints=False)
def ingest_flow(paths: list[str], settings: Settings | None = None) -> IngestReport:
    """Sync the files under ``paths`` into the knowledge base: only what changed is re-cut."""
    settings = settings or Settings()
    started = time.perf_counter()
    store = Store(settings.db, settings.kb)
    fingerprint = settings.fingerprint()
    manifest = store.manifest()
    plan = plan_sync(paths, manifest, fingerprint, settings.allow_mass_delete)
    report = IngestReport(db=settings.db_location(), kb=settings.kb, refused=plan.refused)
    total = len(plan.to_cut) + len(plan.unchanged)
    done = 0
    for ref in plan.unchanged:
        row = manifest[ref.doc_id]
        done += 1
        file_report = FileReport(ref.doc_id, ref.root, "unchanged", row["status"], row["format"], row["strategy"],
                                 row["rule"], row["evidence"], row["chunks"], row["tokens"], row["error_kind"], row["error"])
        report.files.append(file_report)
        _notify(file_report, done, total)
    touched = [dict(manifest[r.doc_id], mtime=r.mtime, size=r.size) for r in plan.unchanged
               if manifest[r.doc_id]["mtime"] != r.mtime]
    if touched:
        write_manifest(store, touched)

    embedder = get_embedder(settings.embedder, settings.embed_threads) if plan.to_cut else None
    config = CutConfig(settings.budget, settings.strategy, dict(settings.overrides), settings.max_file_mb * 1024 * 1024)
    cutter = Cutter(min(settings.workers, max(1, len(plan.to_cut))), settings.file_timeout_s)
    try:
        for start in range(0, len(plan.to_cut), settings.batch_files):
            batch = plan.to_cut[start:start + settings.batch_files]
            outcomes = cut_files(cutter, batch, config)
            vectors, fresh, reused = embed_chunks(outcomes, settings, store)
            report.embedded += fresh
            report.reused_vectors += reused
            indexed_at = now()
            rows: list[dict] = []
            replace_ids: list[str] = []
            for outcome in outcomes:
                known = outcome.ref.doc_id in manifest
                if outcome.error_kind and known and outcome.error_kind in KEEP_OLD_CHUNKS:
                    continue  # cannot read it now: its old chunks stay
                replace_ids.append(outcome.ref.doc_id)
                rows.extend(chunk_rows(outcome, settings, vectors, embedder.dim, indexed_at))
            written, deleted = write_chunks(store, rows, replace_ids, embedder.dim)
            report.rows_written += written
            report.rows_deleted += deleted
            write_manifest(store, [manifest_entry(o, fingerprint, indexed_at) for o in outcomes])
            for outcome in outcomes:
                done += 1
                file_report = _report(outcome, outcome.ref.doc_id in manifest)
                report.files.append(file_report)
                _notify(file_report, done, total)
    finally:
        cutter.close()
    if plan.deleted:
        report.rows_deleted += forget_deleted(store, plan.deleted)
        for doc_id in plan.deleted:
            report.files.append(FileReport(doc_id, manifest[doc_id]["root"], "deleted", "deleted"))
    if len(plan.to_cut) >= 200 or len(plan.deleted) >= 200:
        store.optimize()
    report.seconds = time.perf_counter() - started
    _log_summary(report)
    return report


def _log_summary(report: IngestReport) -> None:
    try:
        logger = get_run_logger()
    except Exception:
        return
    logger.info(
        "%d added, %d updated, %d unchanged, %d deleted, %d failed; %d chunks in %.1f s",
        report.count("added"), report.count("updated"), report.count("unchanged"), report.count("deleted"),
        report.failed, report.chunks, report.seconds,
    )
    for root in report.refused:
        logger.warning("refused to delete every indexed file of %s (it is empty or missing)", root)
