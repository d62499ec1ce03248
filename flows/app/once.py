"""One run of the ingest flow from the command line: the flow, started while Prefect's server boots.

:func:`ingest_once` is what ``seams ingest`` runs: it waits for the API (Prefect's temporary server,
or the one ``PREFECT_API_URL`` names), and meanwhile :class:`EarlyCut` plans the run and starts its
first batch in the parser pool and loads the embedder.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Sequence

from flows.embed import embedder_for
from flows.index.store import Store
from flows.ingest.flow import file_batches, flow_for, kb_settings, report_of
from flows.ingest.pipeline import CutConfig
from flows.ingest.report import IngestReport
from flows.ingest.sync import plan_sync
from flows.ingest.workers import cut_ahead
from flows.settings import Settings

log = logging.getLogger(__name__)


def ingest_once(paths: Sequence[str], settings: Settings) -> IngestReport:
    """One run of the ingest flow in this process, with the runner the settings ask for."""
    import lancedb  # noqa: F401 - seconds of import, done while a temporary server may still be booting

    from flows.app.server import one_off_run, wait_for_api

    early = EarlyCut(paths, settings)
    try:
        wait_for_api()
    finally:
        early.stop()
    with one_off_run():
        return report_of(flow_for(settings)(list(paths), settings, return_state=True))


class EarlyCut:
    """Start a run's work while the command waits for Prefect's temporary server (a few seconds in
    which nothing else runs): a thread plans the run as the flow will, starts its first batch in the
    parser pool (:func:`flows.ingest.workers.cut_ahead`), which the flow's first cut of the same files
    collects, and loads the embedder (seconds for the default model). The flow plans again under
    its knowledge base's lock, so a plan that differs by then (a file changed, another run wrote)
    only costs the early work. :meth:`stop`, before the flow starts, keeps a plan that finished too
    late from starting anything, and waits for an embedder being loaded (the flow needs it next)."""

    def __init__(self, paths: Sequence[str], settings: Settings) -> None:
        self._lock = threading.Lock()
        self._late = False
        self._thread: threading.Thread | None = None
        self._loading = False
        if settings.runner == "local" and settings.workers > 0:
            self._thread = threading.Thread(target=self._start, args=(list(paths), settings), name="seams-early-cut",
                                            daemon=True)
            self._thread.start()

    def _start(self, paths: list[str], settings: Settings) -> None:
        try:
            store = Store(settings.db, settings.kb)
            settings = kb_settings(store, settings)
            plan = plan_sync(paths, store.manifest(), settings.fingerprint(), settings.allow_mass_delete,
                             settings.retry_failed)
        except Exception:  # the flow meets the same problem and reports it
            return
        if not plan.to_cut:
            return
        with self._lock:
            if self._late:
                return
            cut_ahead(file_batches(plan.to_cut, settings)[0], CutConfig.from_settings(settings), settings.workers,
                      settings.file_timeout_s)
            self._loading = True
        with contextlib.suppress(Exception):  # the flow loads it again and reports what fails
            embedder_for(settings).passages(["seams"])

    def stop(self) -> None:
        with self._lock:
            self._late = True
            loading = self._loading
        if loading and self._thread is not None:
            self._thread.join()
