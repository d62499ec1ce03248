"""The ingest flow: sync folders into a knowledge base, incrementally.

    plan ─▶ for each batch of changed files: cut (process pool) ─▶ embed ─▶ write ─▶ manifest
         ─▶ forget deleted files ─▶ artifacts

With a Dask runner the workers cut *and* embed each batch, reading the embedding cache of the
database and filling it (:func:`cut_and_embed`); the flow plans, writes and keeps the manifest.

Task granularity is a batch of files, not a file or a chunk: Prefect adds milliseconds per task,
and LanceDB wants few large commits. Each file's outcome still appears in the run's artifact table.
CPU-bound cutting runs in worker processes with a per-file time limit (:mod:`flows.ingest.workers`); a file
that hangs or kills its worker fails alone. Retries are on the store writes only (I/O); a failed file
never stops the run — the others are written — but the run then ends ``Failed``, its message naming the
files (:func:`flows.ingest.report.final_state`).

The data path is written once, in :func:`run_ingest`, over a set of :class:`Steps`: the flow passes
Prefect tasks, ``bench/orchestrate.py`` passes the same functions bare to measure the overhead. Its
bookkeeping (batching, the report and progress, which rows replace which) is in the helpers below it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

from flows.embed import embed_cached, embedder_for, text_hash
from flows.errors import EmbedderError, KnowledgeBaseBusy, UsageError
from flows.index.lock import ingest_lock, lock_path
from flows.index.store import Store, now
from flows.index.upgrade import upgrade
from flows.ingest.pipeline import KEEP_OLD_CHUNKS, CutConfig, FileRef, Outcome, embedded_texts
from flows.ingest.report import (
    FileReport,
    IngestReport,
    cut_report,
    deleted_report,
    embedder_failed,
    file_logger,
    final_state,
    page_logger,
    progress_artifact,
    publish,
    server_logger,
    unchanged_report,
    unlisted_reports,
)
from flows.ingest.rows import chunk_rows, manifest_entry
from flows.ingest.sources import exists
from flows.ingest.sync import Plan, plan_sync
from flows.ingest.workers import close_cutters, cut_ahead, cut_batch, ocr_pages
from flows.progress import Listeners
from flows.settings import Settings
from splitters.chunk import passage_count

log = logging.getLogger(__name__)


#: Called with (FileReport, done, total) as files finish; the CLI sets it to draw its progress.
ProgressListener = Callable[[FileReport, int, int], None]


progress = Listeners()


def embed_outcomes(outcomes: list[Outcome], settings: Settings, store: Store) -> tuple[dict[str, np.ndarray], int, int]:
    """Vectors for every chunk text to embed (as passages), from the cache where possible. Returns
    (vectors, new, reused); an embedder that fails raises :class:`flows.errors.EmbedderError`."""
    embedder = embedder_for(settings)
    texts = {text_hash(t): t for o in outcomes for c in o.chunks
             for t in embedded_texts(c, settings.embed_heading_path, settings.embed_plain_cells, settings.passage_tokens,
                                 settings.label_rows != "off")}
    vectors, new = embed_cached(texts, embedder, store, settings.embed_batch)
    return vectors, new, len(texts) - new  # float32 arrays: a list of Python floats is 8 times the size


def write_rows(store: Store, rows: list[dict], paths: list[str], dim: int, new: bool = False) -> tuple[int, int]:
    """Replace the batch's chunks in one commit (``new``: files the knowledge base holds no row of,
    appended). Its own task: a retry redoes only this commit, which either happened whole or not at
    all — an append retried after the manifest had failed would write the rows twice."""
    return store.replace_documents(rows, paths, dim, new)


def write_manifest_rows(store: Store, entries: list[dict], new: bool = False) -> None:
    store.write_manifest(entries, new)


def forget_files(store: Store, paths: list[str]) -> int:
    return store.forget(paths)


@dataclass(frozen=True)
class Steps:
    """The I/O and CPU steps of an ingest; the flow runs them as Prefect tasks."""

    cut: Callable = cut_batch
    cut_all: Callable | None = None  # (batches, config, workers, timeout, settings) -> iterator of outcome lists
    embed: Callable = embed_outcomes
    write: Callable = write_rows
    manifest: Callable = write_manifest_rows
    forget: Callable = forget_files
    on_batch: Callable[[int, int], None] = lambda done, total: None
    ahead: Callable = cut_ahead  # (refs, config, workers, timeout): start cutting the next batch
    #: With ``cut_all`` embedding elsewhere: the seconds spent embedding there so far, and where.
    embedded_elsewhere: Callable[[], tuple[float, str]] | None = None


cut_task = task(cut_batch, name="cut-files", cache_policy=NO_CACHE)


def cut_and_embed(refs: list[FileRef], config: CutConfig, workers: int, timeout: float,
                  settings: Settings, own_threads: bool = False,
                  ) -> tuple[list[Outcome], tuple[dict[str, np.ndarray], int, float, int] | EmbedderError]:
    """A batch cut and its chunk texts embedded, where the task runs (a Dask worker): the vectors come
    from the database's embedding cache where it has them, the others are embedded here and saved to
    it (:func:`flows.embed.embed_cached`), so workers sharing a database share the cache. With
    ``own_threads`` a local embedder runs on the worker's own threads (:func:`dask_worker_threads`).
    Returns the outcomes and (vectors by text hash, how many were embedded, seconds embedding, the
    embedder's threads), or the embedder's error."""
    outcomes = cut_batch(refs, config, workers, timeout)
    if own_threads and (threads := dask_worker_threads()):
        settings = settings.model_copy(update={"embed_threads": threads})
    started = time.perf_counter()
    try:
        vectors, fresh, _reused = embed_outcomes(outcomes, settings, Store(settings.db, settings.kb))
    except EmbedderError as exc:
        return outcomes, exc
    return outcomes, (vectors, fresh, time.perf_counter() - started, settings.embed_threads)


def dask_worker_threads() -> int:
    """The threads of the Dask worker this runs on (``dask worker --nthreads N``), 0 outside one.

    Why a worker embeds on its own threads rather than ``SEAMS_EMBED_THREADS``' default, the flow
    machine's core count: Dask gives each worker its share of a machine's cores (``--nworkers 2
    --nthreads 1`` on two cores), and a local embedder that took every core in every worker ran them
    over each other: two single-thread workers on one 2-core machine spent 50.9 s embedding 1,000
    files (21.3 files/s) with two threads each, 21.9 s (32.0 files/s) with their own one
    (bench/dask_scale.py, one run). ``SEAMS_EMBED_THREADS`` set where the flow runs still decides."""
    try:
        from distributed import get_worker

        return int(get_worker().state.nthreads)
    except (ImportError, ValueError, AttributeError):
        return 0


cut_embed_task = task(cut_and_embed, name="cut-and-embed-files", cache_policy=NO_CACHE)


class WorkerEmbedding:
    """Steps for a Dask runner that embeds on the workers: :meth:`cut_all` submits each batch to be cut
    *and embedded* there (:func:`cut_and_embed`), up to ``ahead`` batches in advance, and keeps the
    vectors of the batch being written; :meth:`embed`, the flow's embed step, hands a group of that
    batch its vectors. The flow only plans, writes and keeps the manifest."""

    def __init__(self, ahead: int) -> None:
        self.ahead = ahead
        self.vectors: dict[str, np.ndarray] = {}
        self.fresh = 0  # texts the workers embedded for this batch not yet counted in a group
        self.error: EmbedderError | None = None
        self.seconds = 0.0  # the workers' time embedding, over the batches handed so far
        self.threads: set[int] = set()  # the workers' embedders' threads
        # a worker's embedder takes the worker's threads unless the flow's environment sets them
        self.own_threads = "SEAMS_EMBED_THREADS" not in os.environ

    def cut_all(self, batches, config, workers, timeout, settings):
        # the database as an absolute location: a worker's working folder is not the flow's
        settings = settings.model_copy(update={"db": settings.db_location()})
        window: deque = deque()
        for batch in batches:
            window.append(cut_embed_task.submit(batch, config, workers, timeout, settings, self.own_threads))
            if len(window) > self.ahead:
                yield self._hand(window.popleft().result())
        while window:
            yield self._hand(window.popleft().result())

    def _hand(self, result) -> list[Outcome]:
        outcomes, embedded = result
        self.vectors, self.fresh, self.error = {}, 0, None  # the batch before is written by now
        if isinstance(embedded, EmbedderError):
            self.error = embedded
        else:
            self.vectors, self.fresh, seconds, threads = embedded
            self.seconds += seconds
            self.threads.add(threads)
        return outcomes

    def elsewhere(self) -> tuple[float, str]:
        """The workers' seconds embedding so far, and where: ``dask workers, 1 embedding thread each``."""
        counts = sorted(self.threads)
        if not counts:
            return self.seconds, "dask workers"
        threads = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
        return self.seconds, f"dask workers, {threads} embedding thread{'' if threads == '1' else 's'} each"

    def embed(self, group: list[Outcome], settings: Settings, store: Store):
        """The group's vectors as :func:`embed_outcomes` returns them, or the workers' embedder error."""
        if self.error is not None:
            return self.error
        hashes = {text_hash(t) for o in group for c in o.chunks
                  for t in embedded_texts(c, settings.embed_heading_path, settings.embed_plain_cells,
                                          settings.passage_tokens, settings.label_rows != "off")}
        if not hashes <= self.vectors.keys():  # cannot happen but by a bug: embed them here rather than fail
            return embed_or_error(group, settings, store)
        fresh = min(self.fresh, len(hashes))  # the batch's new vectors, counted once across its groups
        self.fresh -= fresh
        return {h: self.vectors[h] for h in hashes}, fresh, len(hashes) - fresh


def quoted(task_) -> Callable:
    """Call a task with its arguments in ``quote()``: Prefect then skips walking them for upstream
    futures. Unquoted, that walk over a batch's rows (each with a 512-float vector) cost several
    times the work itself."""
    def call(*args):
        return task_(*(quote(arg) for arg in args))

    return call


def embed_or_error(outcomes: list[Outcome], settings: Settings, store: Store):
    """:func:`embed_outcomes`, an embedder's failure returned rather than raised: the flow's task then
    ends as it should (Prefect would log a raised one as a crash, with its traceback), and the
    files fail with it, one line each (:func:`run_ingest`)."""
    try:
        return embed_outcomes(outcomes, settings, store)
    except EmbedderError as exc:
        return exc


embed_task = task(embed_or_error, name="embed-chunks", cache_policy=NO_CACHE)


write_task = task(write_rows, name="write-batch", cache_policy=NO_CACHE, retries=2, retry_delay_seconds=2)


manifest_task = task(write_manifest_rows, name="write-manifest", cache_policy=NO_CACHE, retries=2, retry_delay_seconds=2)


forget_task = task(forget_files, name="forget-deleted", cache_policy=NO_CACHE, retries=2, retry_delay_seconds=2)


def run_ingest(paths: Sequence[str], settings: Settings, steps: Steps = Steps()) -> IngestReport:
    """Sync the files under ``paths`` into the knowledge base; only what changed is cut again. One
    ingest of a knowledge base at a time: another one waits (:mod:`flows.index.lock`)."""
    with ingest_lock(settings.db, settings.kb, settings.lock_wait_s, note=log.warning):
        return _sync(paths, settings, steps)


def _sync(paths: Sequence[str], settings: Settings, steps: Steps) -> IngestReport:
    started = time.perf_counter()
    store = Store(settings.db, settings.kb)
    upgrade(store)  # a chunks table of an older layout: columns added in place, or re-created
    settings = kb_settings(store, settings)  # the knowledge base's own embedder; another one is refused
    manifest, fingerprint = store.manifest(), settings.fingerprint()
    plan = plan_sync(paths, manifest, fingerprint, settings.allow_mass_delete, settings.retry_failed)
    report = IngestReport(db=settings.db_location(), kb=settings.kb, refused=plan.refused,
                          embedder=settings.recorded_embedder())
    report.timed("plan", "flow", time.perf_counter() - started)  # with opening the KB and reading its manifest
    tally = _Tally(report, len(plan.to_cut) + len(plan.unchanged), steps.on_batch)

    tally.files_done(unchanged_report(ref, manifest[ref.path]) for ref in plan.unchanged)
    report.files += unlisted_reports(plan, manifest)
    if touched := _touched_entries(plan.unchanged, manifest):
        with _timed(report, "write"):
            steps.manifest(store, touched)
    tally.batch_done()

    if plan.to_cut:
        try:
            embedder = embedder_for(settings)  # a remote one answers once here: its dimension
        except EmbedderError as exc:
            # Nothing to embed with: no file is cut, each fails with the error and keeps its old chunks
            tally.files_done(embedder_failed(ref, ref.path in manifest, exc) for ref in plan.to_cut)
            tally.batch_done()
        else:
            before = embedder.stats.snapshot()
            _cut_embed_write(plan, settings, store, steps, manifest, fingerprint, embedder.dim, tally, report)
            after = embedder.stats.snapshot()
            report.embed_retries = dict(after[0] - before[0])
            report.over_length = after[1] - before[1]

    cleaning = time.perf_counter()
    if plan.deleted:
        report.rows_deleted += steps.forget(store, plan.deleted)
        report.files += [deleted_report(manifest[path]) for path in plan.deleted]
    orphans = store.orphans(store.manifest() if plan.to_cut or plan.deleted else manifest, exists)
    if orphans:
        report.rows_deleted += _forget_orphans(store, orphans, steps.forget)
    store.maintain(len(plan.to_cut) + len(plan.deleted) + len(orphans))  # indexes; compaction when commits piled up
    report.timed("clean", "flow", time.perf_counter() - cleaning)
    report.seconds = time.perf_counter() - started
    _record_run(store, report, paths)
    return report


def _record_run(store: Store, report: IngestReport, paths: Sequence[str]) -> None:
    """The run's row in the knowledge base's runs table (:mod:`flows.index.runs`), with its Prefect
    flow run and API, so ``seams ui`` can link to it in Prefect's dashboard."""
    from prefect.runtime import flow_run
    from prefect.settings import get_current_settings

    run_id = flow_run.get_id() or ""
    store.runs.record(report, list(paths), run_id, (get_current_settings().api.url or "") if run_id else "")


def _cut_embed_write(plan: Plan, settings: Settings, store: Store, steps: Steps, manifest: dict[str, dict],
                     fingerprint: str, dim: int, tally: _Tally, report: IngestReport) -> None:
    """Cut the plan's files batch by batch, embed and write them group by group. Once the embedder
    fails (:class:`flows.errors.EmbedderError`: its endpoint stayed down through the retries, or
    refused), the group being embedded and every later one fail with that error without asking it
    again: nothing of theirs is written, so they keep their old chunks and no manifest row says they
    were indexed (the next run tries them again)."""
    held = _held_paths(store, plan.to_cut, manifest)
    down: EmbedderError | None = None
    done: set[str] = set()
    where = _where_cut(settings, steps)
    for outcomes in _timed_batches(_cut_batches(plan.to_cut, settings, steps), report, where):
        for group in embedding_groups(outcomes, settings.embed_group_vectors, settings.passage_tokens):
            if down is None:
                try:
                    _embed_and_write(group, settings, store, steps, manifest, fingerprint, dim, held, report)
                except EmbedderError as exc:
                    down = exc
            if down is not None:
                tally.files_done(embedder_failed(o.ref, o.ref.path in manifest, down, o.format) for o in group)
            else:
                tally.files_done(cut_report(outcome, outcome.ref.path in manifest) for outcome in group)
            done.update(outcome.ref.path for outcome in group)
        tally.batch_done()
        if down is not None:
            break  # the files not cut yet are not cut for nothing (a batch started ahead is dropped)
    if down is not None and len(done) < len(plan.to_cut):
        tally.files_done(embedder_failed(ref, ref.path in manifest, down) for ref in plan.to_cut
                         if ref.path not in done)
        tally.batch_done()
    if steps.embedded_elsewhere is not None and "embed" in report.stages:
        report.stages["embed"].seconds, report.stages["embed"].where = steps.embedded_elsewhere()


def _where_cut(settings: Settings, steps: Steps) -> str:
    """Where files are cut: on Dask workers, in the parser pool's processes, or in the flow's."""
    if steps.cut_all is not None:
        return "dask workers"
    if settings.workers > 0:
        return f"{settings.workers} parser worker{'s' if settings.workers > 1 else ''}"
    return "flow"


def _timed_batches(batches: Iterator[list[Outcome]], report: IngestReport, where: str) -> Iterator[list[Outcome]]:
    """The cut batches as they come, their time added to the report's ``cut`` stage: the files'
    own seconds (measured where they were cut) and the flow's wait for each batch."""
    while True:
        started = time.perf_counter()
        try:
            outcomes = next(batches)
        except StopIteration:
            return
        report.timed("cut", where, sum(o.seconds for o in outcomes),
                     waited=time.perf_counter() - started if where != "flow" else 0.0)
        yield outcomes


@contextlib.contextmanager
def _timed(report: IngestReport, stage: str, where: str = "flow") -> Iterator[None]:
    """Add the block's time to the report's ``stage``, done in the flow's process (``where`` names where
    the flow waited for it to be done, if elsewhere)."""
    started = time.perf_counter()
    try:
        yield
    finally:
        elapsed = time.perf_counter() - started
        if where == "flow":
            report.timed(stage, where, elapsed)
        else:
            report.timed(stage, where, waited=elapsed)


def kb_settings(store: Store, settings: Settings) -> Settings:
    """The settings with the knowledge base's own embedder (:meth:`Settings.with_recorded_embedder`)."""
    return settings.with_recorded_embedder(store.recorded_embedder())


def _embed_and_write(group: list[Outcome], settings: Settings, store: Store, steps: Steps, manifest: dict[str, dict],
                     fingerprint: str, dim: int, held: set[str], report: IngestReport) -> None:
    """Embed one group of a batch's files and replace their rows, then their manifest rows. Its own
    function so that the group's vectors and rows are let go when it returns, before the next group
    is embedded."""
    with _timed(report, "embed", "dask workers" if steps.embedded_elsewhere is not None else "flow"):
        result = steps.embed(group, settings, store)
    if isinstance(result, EmbedderError):  # the flow's task returns it (embed_or_error)
        raise result
    vectors, fresh, reused = result
    rows, replaced, entries = _batch_rows(group, manifest, settings, fingerprint, vectors, dim)
    del vectors  # the rows hold the vectors they use
    # Appended only under the ingest lock: with none (object storage), another ingest of the same files
    # may have planned them as new too, and a merge on the keys makes its commit and this one the same.
    new = lock_path(settings.db, settings.kb) is not None and not any(outcome.ref.path in held for outcome in group)
    with _timed(report, "write"):
        written, deleted = steps.write(store, rows, replaced, dim, new)
        del rows
        steps.manifest(store, entries, new)
    report.count_batch(embedded=fresh, reused_vectors=reused, rows_written=written, rows_deleted=deleted)


def embedding_groups(outcomes: list[Outcome], budget: int, passage_tokens: int) -> Iterator[list[Outcome]]:
    """A batch's files in runs, in order, each to be embedded as at most about ``budget`` vectors (a
    chunk's whole text and its passages, :func:`flows.ingest.pipeline.passage_count`); a file over the budget
    alone is a run of its own, since a file's rows are replaced in one commit. The main process holds
    one run's vectors at a time — two to three times 2 KB each (512 float32) — however many files a
    batch has; before, a batch's 256 files held all of theirs at once."""
    group: list[Outcome] = []
    held = 0
    for outcome in outcomes:
        count = sum(1 + passage_count(chunk.tokens, passage_tokens) for chunk in outcome.chunks)
        if group and held + count > budget:
            yield group
            group, held = [], 0
        group.append(outcome)
        held += count
    if group:
        yield group


@dataclass
class _Tally:
    """Files done out of ``total``: each file's report goes into the run's report and to the progress
    listeners as it is made; ``on_batch`` hears the count as each batch ends."""

    report: IngestReport
    total: int
    on_batch: Callable[[int, int], None]
    done: int = 0

    def files_done(self, files: Iterable[FileReport]) -> None:
        for file in files:
            self.done += 1
            self.report.files.append(file)
            progress.notify(file, self.done, self.total)

    def batch_done(self) -> None:
        self.on_batch(self.done, self.total)


#: Files in the first batch of a run whose batches are sized automatically.
FIRST_BATCH_FILES = 4


def batch_size(configured: int, files: int) -> int:
    """Files per batch: as configured, or (0, the default) about an eighth of the run, between 16 and
    256 — each batch costs a few Prefect task runs and LanceDB commits, so small files go in big
    batches, while a run of a few files still gets progress and pipelining."""
    if configured > 0:
        return configured
    return max(16, min(256, -(-files // 8)))


def file_batches(refs: list[FileRef], settings: Settings) -> list[list[FileRef]]:
    """The files to cut in batches, in order (see :func:`batch_size`)."""
    size = batch_size(settings.batch_files, len(refs))
    # A small first batch makes the first files searchable (and safe from an interrupt) early.
    first = size if settings.batch_files > 0 else min(size, FIRST_BATCH_FILES)
    return [refs[:first]] + [refs[i:i + size] for i in range(first, len(refs), size)]


def _cut_batches(refs: list[FileRef], settings: Settings, steps: Steps) -> Iterator[list[Outcome]]:
    """The files cut batch by batch, in order: by the steps' ``cut_all`` where it submits batches
    ahead, else one ``cut`` a batch, the next batch started in the pool (``ahead``) before this one
    is handed on, so its files are parsed while this one is embedded and written."""
    config = CutConfig.from_settings(settings)
    workers = max(settings.workers, 0)  # one pool per worker count, reused across runs
    batches = file_batches(refs, settings)
    if steps.cut_all:
        yield from steps.cut_all(batches, config, workers, settings.file_timeout_s, settings)
        return
    for index, batch in enumerate(batches):
        outcomes = steps.cut(batch, config, workers, settings.file_timeout_s)
        if index + 1 < len(batches):
            steps.ahead(batches[index + 1], config, workers, settings.file_timeout_s)
        yield outcomes


def _batch_rows(outcomes: list[Outcome], manifest: dict[str, dict], settings: Settings, fingerprint: str,
                vectors: dict[str, np.ndarray], dim: int) -> tuple[list[dict], list[str], list[dict]]:
    """A batch's chunk rows, the paths whose rows they replace, and every file's manifest entry."""
    indexed_at = now()
    rows: list[dict] = []
    replaced: list[str] = []
    for outcome in outcomes:
        known = outcome.ref.path in manifest
        if outcome.error_kind and known and outcome.error_kind in KEEP_OLD_CHUNKS:
            continue  # cannot read it now: its old chunks stay
        replaced.append(outcome.ref.path)
        rows.extend(chunk_rows(outcome, settings, vectors, dim, indexed_at))
    return rows, replaced, [manifest_entry(o, fingerprint, indexed_at) for o in outcomes]


def _held_paths(store: Store, refs: list[FileRef], manifest: dict[str, dict]) -> set[str]:
    """The paths the knowledge base already holds something of — a manifest row, or chunk rows a run
    killed before recording them left — so a batch of files outside it can be appended. The chunk
    table is read (its ``source`` column, once) only when some file to cut has no manifest row."""
    if all(ref.path in manifest for ref in refs):
        return set(manifest)
    return set(manifest) | store.sources()


def _touched_entries(unchanged: list[FileRef], manifest: dict[str, dict]) -> list[dict]:
    """The manifest rows of unchanged files whose modification time moved (same content, told by its
    hash), with the new time and size, so the next run need not hash them again."""
    return [dict(manifest[r.path], mtime=r.mtime, size=r.size) for r in unchanged
            if manifest[r.path]["mtime"] != r.mtime]


def _forget_orphans(store: Store, orphans: list[str], forget: Callable[[Store, list[str]], int]) -> int:
    """Remove the chunks of files deleted after a run died before recording them; returns rows deleted."""
    log.warning("removing the chunks of %d files that are gone and were never recorded (a run was "
                "interrupted): %s", len(orphans), ", ".join(orphans[:5]))
    return forget(store, orphans)


def kb_limit_name(kb: str) -> str:
    return f"seams-kb-{kb}"


@contextlib.contextmanager
def kb_slot(kb: str) -> Iterator[None]:
    """Hold the KB's global concurrency slot if the server has that limit (``seams serve`` creates
    it), so two ingests of one knowledge base never overlap; without it, run unguarded."""
    from prefect.client.orchestration import get_client
    from prefect.concurrency.sync import concurrency
    from prefect.exceptions import ObjectNotFound

    with get_client(sync_client=True) as client:
        try:
            client.read_global_concurrency_limit_by_name(kb_limit_name(kb))
            limited = True
        except ObjectNotFound:
            limited = False
    if not limited:
        # yielded outside the except: an error in the run is not chained to that 404 in its traceback
        yield
        return
    with concurrency(kb_limit_name(kb), occupy=1, strict=True):
        yield


def _served_runs_leave_interrupts_to_serve() -> None:
    """A served run (a run of a deployment) ignores Ctrl-C. Prefect starts it as a process in the
    terminal's process group, so a Ctrl-C given to ``seams serve`` reaches it too; ``serve`` stops it
    with SIGTERM (flows/app/serve.py), and the interrupt on top only broke its shutdown — a run that
    was just ending printed a KeyboardInterrupt traceback from its exit handlers. One-off runs
    (``seams ingest``) keep Ctrl-C."""
    from prefect.runtime import deployment

    if deployment.id and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@flow(name="seams-ingest", log_prints=False, validate_parameters=True)
def ingest_flow(paths: list[str], settings: Settings | None = None):
    """Sync folders into a seams knowledge base: parse, classify, cut, embed and write what changed."""
    return run_flow(paths, settings or Settings())


def run_flow(paths: list[str], settings: Settings):
    """The body of :func:`ingest_flow`. Its own module-level function: a served run gets the flow
    object pickled, and the flow's function, which is not what its module's name holds (that is the
    ``Flow``), travels by value with copies of the globals it names — the progress listeners among
    them, so its per-file lines went to a copy no one notified. This function travels by reference."""
    _served_runs_leave_interrupts_to_serve()
    distributed = settings.runner != "local"
    # With Dask, the workers cut and embed each batch; the flow writes (WorkerEmbedding).
    workers_embed = WorkerEmbedding(4) if distributed else None
    steps = Steps(quoted(cut_task), workers_embed.cut_all if workers_embed else None,
                  workers_embed.embed if workers_embed else quoted(embed_task), quoted(write_task),
                  quoted(manifest_task), quoted(forget_task), progress_artifact(settings.kb, settings.db_location()),
                  embedded_elsewhere=workers_embed.elsewhere if workers_embed else None)
    if distributed:
        # Dask workers are daemon processes (no child pools): each cuts its batch in-process.
        settings = settings.model_copy(update={"workers": 0})
    server_log = server_logger()
    try:
        with kb_slot(settings.kb), progress.listening(file_logger(server_log)), \
                ocr_pages.listening(page_logger(server_log)):
            report = run_ingest(paths, settings, steps)
    except KnowledgeBaseBusy as exc:
        # Nothing was done: one line in the run's log, not the traceback Prefect logs for an error
        from prefect.states import Failed

        server_log.error("%s", exc)  # the command prints it to the terminal itself
        return Failed(message=str(exc), data=exc)
    finally:
        # The parser workers go with the run: a served run's process would otherwise keep them
        # (and itself) alive waiting for them at exit, and idle workers hold memory between runs.
        close_cutters()
    publish(report)
    logger = get_run_logger()
    for root in report.refused:
        logger.warning("refused to delete every indexed file of %s (it is empty or missing)", root)
    message = f"{report.summary()}; {report.chunks} chunks in {report.seconds:.1f} s"
    # The summary line: to the terminal and the server where run logs show INFO (``seams serve``),
    # else to the server alone.
    (logger if logger.isEnabledFor(logging.INFO) else server_log).info(message)
    if report.stages:
        server_log.info("time by stage: %s", report.stage_line())
    # Every good file is written by now. Files that failed in this run fail the run (the dashboard
    # shows it red and counts it); files unchanged since an earlier run failed them do not.
    return final_state(report, message)


def report_of(state) -> IngestReport:
    """The report of a finished ingest run, given its final state (``ingest_flow(..., return_state=True)``):
    a run in which files failed ends failed, and calling the flow without ``return_state`` would
    raise instead of returning it. An exception the run raised is raised again."""
    result = state.result(raise_on_failure=False)
    if isinstance(result, BaseException):
        raise result
    return result


def flow_for(settings: Settings):
    """The ingest flow with the task runner the settings ask for (Dask needs the ``dask`` extra)."""
    if settings.runner == "local":
        return ingest_flow
    try:
        from prefect_dask import DaskTaskRunner
    except ImportError as exc:
        raise UsageError("the dask runner needs the optional extra: pip install 'seams[dask]'") from exc
    if settings.runner == "dask":
        runner = DaskTaskRunner(cluster_kwargs={"n_workers": max(1, settings.workers), "threads_per_worker": 1,
                                                "processes": True, "dashboard_address": None})
    else:
        runner = DaskTaskRunner(address=settings.runner.removeprefix("dask:"))
    return ingest_flow.with_options(task_runner=runner)
