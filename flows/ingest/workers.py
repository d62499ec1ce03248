"""Parser worker processes: a pool that cuts files with a per-file time limit.

CPU-bound cutting runs in worker processes; a file that hangs or kills its worker fails alone, as an
outcome with an error kind, and the pool is rebuilt for the rest. One pool per worker count is kept
for the next batches of the run (starting workers costs seconds) and closed when the run ends.

This module imports only the parsing path, not Prefect: each worker imports it for its initializer.
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import multiprocessing
import multiprocessing.queues
import os
import threading
import time
from collections.abc import Sequence

from flows.ingest.pipeline import CutConfig, FileRef, Outcome, cut_file
from flows.progress import Listeners
from parsers.ocr import set_page_listener

#: Told ``(file, page, pages)`` as a parser reads a page by OCR, in a worker or in this process:
#: the CLI shows it beside the files' bar, the flow logs it (an OCR'd page takes seconds, a file of
#: scans minutes).
ocr_pages = Listeners()


def _mp_context():
    # forkserver/spawn: forking a process that runs Prefect's threads can deadlock the child.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


class Cutter:
    """A process pool that cuts files with a per-file time limit and survives crashed workers.

    One batch may be started ahead (:meth:`start`): its files are cut while the caller embeds and
    writes the batch before, and the :meth:`cut` of the same files collects them. Only one batch is
    ever in the pool at a time (a batch is started ahead once the one before is collected), so a
    crash is still blamed within its own batch and a pool rebuilt for one batch loses no other's work.
    """

    def __init__(self, workers: int, timeout: float) -> None:
        self.workers = max(1, workers)
        self.timeout = timeout
        self._pool: cf.ProcessPoolExecutor | None = None
        self._ahead: tuple[tuple[FileRef, ...], CutConfig, cf.ProcessPoolExecutor, dict[int, cf.Future]] | None = None
        self._lock = threading.Lock()  # start() may come from another thread (the command's early start)
        self._pages: multiprocessing.queues.Queue | None = None  # the workers' OCR pages, see ocr_pages
        self._relay: threading.Thread | None = None  # moves them from self._pages to ocr_pages

    def _ensure(self) -> cf.ProcessPoolExecutor:
        if self._pool is None:
            if self._pages is None:
                self._pages = _mp_context().Queue()
                self._relay = threading.Thread(target=_relay_pages, args=(self._pages,), name="seams-ocr-pages",
                                               daemon=True)
                self._relay.start()
            self._pool = cf.ProcessPoolExecutor(self.workers, mp_context=_mp_context(), initializer=start_worker,
                                                initargs=(os.getpid(), self._pages, dict(os.environ)))
        return self._pool

    def _reset(self) -> None:
        if self._pool is not None:
            kill_workers(self._pool)
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def start(self, refs: Sequence[FileRef], config: CutConfig) -> None:
        """Start cutting ``refs`` now, for the next :meth:`cut` of the same files and config to
        collect; ignored while another batch started ahead is not collected."""
        with self._lock:
            if self._ahead is None and refs:
                pool = self._ensure()
                self._ahead = (tuple(refs), config, pool,
                               {index: pool.submit(cut_file, ref, config) for index, ref in enumerate(refs)})

    def _started(self, refs: Sequence[FileRef], config: CutConfig) -> dict[int, cf.Future] | None:
        """The futures of ``refs`` if they were started ahead (else None); a batch started ahead
        that is not this one is dropped (its files not yet running are cancelled)."""
        with self._lock:
            ahead, self._ahead = self._ahead, None
        if ahead is None:
            return None
        started_refs, started_config, pool, futures = ahead
        if started_refs == tuple(refs) and started_config == config and pool is self._pool:
            return futures
        self._drop(futures)
        return None

    def _drop(self, futures: dict[int, cf.Future]) -> None:
        """Let go of files started ahead and not collected: those not running yet are cancelled; a
        file still being cut (or stuck) gets the pool rebuilt, so it holds no worker from what comes
        next and is not waited for."""
        for future in futures.values():
            future.cancel()
        if not all(future.done() for future in futures.values()):
            self._reset()

    def cut(self, refs: Sequence[FileRef], config: CutConfig) -> list[Outcome]:
        outcomes: dict[int, Outcome] = {}
        pending = list(range(len(refs)))
        started = self._started(refs, config)
        while pending:
            pool = self._ensure()
            if started is not None:
                futures, started = started, None
            else:
                futures = {index: pool.submit(cut_file, refs[index], config) for index in pending}
            pending = []
            for index, future in futures.items():
                try:
                    outcomes[index] = future.result(timeout=self.timeout)
                except cf.TimeoutError:
                    outcomes[index] = Outcome(refs[index], "", error_kind="timeout",
                                              error=f"not cut within {self.timeout:g} s (SEAMS_FILE_TIMEOUT_S)")
                except cf.process.BrokenProcessPool:
                    outcomes[index] = Outcome(refs[index], "", error_kind="error",
                                              error="the parser crashed its worker process")
                else:
                    continue
                # The pool is stuck or broken: keep what finished, kill it, redo the rest.
                for other_index, other in futures.items():
                    if other_index not in outcomes and other.done() and not other.cancelled() and other.exception() is None:
                        outcomes[other_index] = other.result()
                pending = [i for i in futures if i not in outcomes]
                self._reset()
                break
        return [outcomes[i] for i in range(len(refs))]

    def close(self) -> None:
        with self._lock:
            ahead, self._ahead = self._ahead, None
        if ahead is not None:
            self._drop(ahead[3])  # started ahead and never collected: the run stopped
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._pages is not None:
            pages, relay, self._pages, self._relay = self._pages, self._relay, None, None
            pages.put(None)  # ends the relay thread
            # Wait for it before the queue is closed: at exit multiprocessing's finalizer closes the
            # queue's pipe, and a relay thread still reading it died with a traceback on stderr.
            if relay is not None:
                relay.join(timeout=10)
            pages.close()
            pages.join_thread()


def _relay_pages(pages: multiprocessing.queues.Queue) -> None:
    while (item := pages.get()) is not None:
        ocr_pages.notify(*item)


def kill_workers(pool: cf.ProcessPoolExecutor) -> None:
    """Kill the pool's worker processes at once: a worker stuck in a parser never returns, and
    ``shutdown`` only waits for it or, with ``wait=False``, leaves it running. Python 3.14 has
    ``kill_workers()`` for this; before it, the only way to the workers is the pool's private
    ``_processes`` (pid -> Process), which those Python versions no longer change.
    ``tests/test_library_internals.py`` fails, naming Python, if neither is there."""
    if hasattr(pool, "kill_workers"):
        pool.kill_workers()
        return
    for process in list((pool._processes or {}).values()):
        process.kill()


_CUTTERS: dict[tuple[int, float], Cutter] = {}


def _cutter(workers: int, timeout: float) -> Cutter:
    """One pool per process, built on first use and kept for the next batches of the run (starting
    worker processes costs seconds); the flow closes it when the run ends."""
    key = (workers, timeout)
    if key not in _CUTTERS:
        _CUTTERS[key] = Cutter(workers, timeout)
    return _CUTTERS[key]


def close_cutters() -> None:
    while _CUTTERS:
        _CUTTERS.popitem()[1].close()


atexit.register(close_cutters)


def cut_ahead(refs: list[FileRef], config: CutConfig, workers: int, timeout: float) -> None:
    """Start cutting a batch in the pool (:meth:`Cutter.start`) for the next :func:`cut_batch` of
    it; nothing without a pool (``workers <= 0``)."""
    if workers > 0:
        _cutter(workers, timeout).start(refs, config)


def cut_batch(refs: list[FileRef], config: CutConfig, workers: int, timeout: float) -> list[Outcome]:
    if workers <= 0:  # in-process: no pool, no time limit (used where processes are not allowed)
        set_page_listener(ocr_pages.notify)
        try:
            return [cut_file(ref, config) for ref in refs]
        finally:
            set_page_listener(None)
    return _cutter(workers, timeout).cut(refs, config)


# -- the worker's side ----------------------------------------------------------------------------

#: How often a parser worker checks that the process that started it is still there.
ORPHAN_CHECK_S = 1.0


def start_worker(owner: int, pages: multiprocessing.queues.Queue, environ: dict[str, str]) -> None:
    """The initializer of each parser worker: it takes the environment the flow's process has now
    (a forkserver's children inherit the forkserver's, frozen when the first pool started, so
    credentials or settings set since — ``AWS_*`` for an ``s3://`` folder — would be missing), OCR'd
    pages are sent to the flow's process (:data:`ocr_pages`), and the worker dies with that process
    (:func:`die_with`)."""
    os.environ.clear()
    os.environ.update(environ)
    set_page_listener(lambda path, page, count: pages.put((path, page, count)))
    die_with(owner)


def die_with(owner: int) -> None:
    """Exit once the ingest process (``owner``) is gone — also
    when it was killed with SIGKILL and had no chance to stop its pool. The worker's parent is the
    forkserver, which exits when the ingest process does, so a changed parent says so at once; checking
    the owner itself covers the spawn start method and a forkserver that is still winding down."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(ORPHAN_CHECK_S)
            if os.getppid() != parent or not _alive(owner):
                os._exit(1)

    threading.Thread(target=watch, name="seams-orphan-watch", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else (the pid was reused): the owner is gone
        return False
    return True
