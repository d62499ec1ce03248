"""One ingest at a time per knowledge base: an exclusive lock file beside a local database.

Why: an ingest plans from the manifest (which files are new or changed), then cuts, embeds and
writes. Two ingests of one folder into one knowledge base that overlap — a scheduled run and a
manual one, or two schedules — both planned every file as new and both wrote it: measured on an
11-file folder, 525 chunks became 1,050 rows and the manifest 22 entries, and later runs saw every
file unchanged, so the duplicates stayed. Under this lock the second ingest waits, then plans again
and finds the files indexed.

The lock is ``flock`` on ``.seams-ingest-KB.lock`` in the database folder: the kernel releases it
when its holder exits, killed or not, so a crashed run never leaves a stale lock. The file names the
holder (process, host, start) for the message of an ingest that waits; a holder killed with
``kill -9`` leaves its details in the file, but only the kernel's lock counts, and the next ingest
takes it at once. A database on object storage
(``s3://…``) has no such file; there ``seams serve`` serialises the ingests of each knowledge base
with Prefect's concurrency slot (:func:`flows.ingest.flow.kb_slot`); two one-off ingests of the same
folder that overlap there both cut and embed every file, but their writes are merges on the rows'
keys (chunk id, manifest path: the tables' declared primary keys, :data:`flows.index.schema.PRIMARY_KEY`)
rather than appends, so the second commit replaces what the first wrote and each chunk is there once.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from flows.errors import KnowledgeBaseBusy

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock; ingests there are not serialised
    fcntl = None  # type: ignore[assignment]

#: How often a waiting ingest says it is still waiting.
NOTE_EVERY_S = 60.0


def lock_path(db: str, kb: str) -> Path | None:
    """The lock file of ``kb`` in a local database ``db``; None for a database on object storage."""
    if "://" in db and not db.startswith("file://"):
        return None
    return Path(db.removeprefix("file://")).expanduser() / f".seams-ingest-{kb}.lock"


def _holder(handle: IO[str]) -> str:
    """Who holds the lock, as its file says (written by the holder once it has the lock)."""
    handle.seek(0)
    try:
        holder = json.loads(handle.read() or "{}")
    except ValueError:
        holder = {}
    if not holder:
        return "another ingest"
    return f"an ingest (process {holder.get('pid')} on {holder.get('host')}, since {holder.get('since')})"


@contextlib.contextmanager
def ingest_lock(db: str, kb: str, wait_s: float, note: Callable[[str], None] | None = None,
                poll_s: float = 0.5) -> Iterator[None]:
    """Hold ``kb``'s ingest lock in the local database ``db`` for the block, waiting up to ``wait_s``
    seconds for another ingest to let it go (``note`` is told at once and every
    :data:`NOTE_EVERY_S`); raises :class:`KnowledgeBaseBusy` past that. Nothing on object storage."""
    path = lock_path(db, kb)
    if path is None or fcntl is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as handle:
        started, noted = time.monotonic(), None
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                waited = time.monotonic() - started
                if waited >= wait_s:
                    raise KnowledgeBaseBusy(
                        f"{_holder(handle)} is writing knowledge base {kb!r} in {db}; waited {waited:.0f} s "
                        f"(SEAMS_LOCK_WAIT_S={wait_s:g}). Run again when it has finished.") from None
                if note is not None and (noted is None or waited - noted >= NOTE_EVERY_S):
                    so_far = f"{waited:.0f} s so far, " if noted is not None else ""
                    note(f"{_holder(handle)} is writing knowledge base {kb!r}; waiting for it to finish "
                         f"({so_far}up to {wait_s:g} s, SEAMS_LOCK_WAIT_S)")
                    noted = waited
                time.sleep(poll_s)
        if noted is not None and note is not None:
            note(f"the other ingest of knowledge base {kb!r} finished after {time.monotonic() - started:.0f} s; "
                 "indexing what is still to do")
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                 "since": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}))
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            handle.flush()
            fcntl.flock(handle, fcntl.LOCK_UN)
