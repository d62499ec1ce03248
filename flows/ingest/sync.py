"""Incremental sync: decide from the manifest which files to cut, which are unchanged, which are gone.

Unchanged means: indexed from the same root under the same config fingerprint, and the same size
and mtime, or else the same content hash; such files are neither parsed nor embedded. Files whose
last attempt failed for a passing reason (a crash, unreadable) are tried again; a file that failed
for what it is (corrupt, encrypted, over the time limit, …) only once it changes, or when asked
(``retry_failed``) — a file that needs longer than the time limit would otherwise cost every
scheduled run that long again.

Deletion is cautious, because a file that cannot be reached now is not a deleted file:

- a root that is empty or missing while the manifest still lists files under it is refused
  rather than wiped (``allow_mass_delete`` overrides);
- files under a directory that cannot be listed are kept (neither cut nor deleted);
- a root that is a single file speaks for that file only, never for the rest of its folder.

A file's identity in the index is its path (its root joined with its path relative to the root):
two folders that both hold ``notes.md`` are two documents, whether indexed in one run or in two
(``doc_id``, the relative path, is what reports show). A run speaks only for its own roots: it never
deletes what another root indexed. A file reached from two roots of one run (a folder and a
subfolder of it) is taken once, by the first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from flows.ingest.pipeline import FileRef, file_hash, scan_root
from flows.ingest.sources import is_uri, normalize

#: Error kinds worth another try on the next run even if the file did not change.
#: ``no_ocr``: a scan met no OCR engine; retried so that installing the engine is enough (cheap: no
#: page is rendered while the engine is missing).
RETRY_KINDS = frozenset({"error", "unreadable", "no_ocr"})


@dataclass(frozen=True)
class Plan:
    to_cut: list[FileRef]
    unchanged: list[FileRef]
    deleted: list[str]  # paths (the manifest's keys) of files gone from their root
    refused: list[str]  # roots whose deletions were refused (empty or missing)
    hashes: dict[str, str]  # content hashes computed while planning (files whose mtime moved), by path
    unreachable: list[str]  # paths of indexed files under directories that could not be listed: kept
    unlisted: list[tuple[str, str]] = ()  # (root, folder relative to it) that could not be listed and
    # hold no file indexed before: reported, so what they hold is not silently missing


def plan_sync(roots: Sequence[str], manifest: dict[str, dict], fingerprint: str, allow_mass_delete: bool,
              retry_failed: bool = False) -> Plan:
    """Decide, from the manifest (rows by path) and the file system alone, what this run cuts, skips
    and removes."""
    to_cut: list[FileRef] = []
    unchanged: list[FileRef] = []
    deleted: list[str] = []
    refused: list[str] = []
    hashes: dict[str, str] = {}
    unreachable: list[str] = []
    unlisted: list[tuple[str, str]] = []
    claimed: set[str] = set()  # paths planned by an earlier root (a file passed with its folder)
    for root in dict.fromkeys(normalize(r) if is_uri(r) else str(Path(r).resolve()) for r in roots):  # each once
        found = scan_root(root)
        files = [ref for ref in found.files if ref.path not in claimed]
        present = {ref.path for ref in found.files}
        if found.single_file:
            known = [ref.path for ref in found.files if ref.path in manifest]
        else:
            known = [path for path, row in manifest.items() if row["root"] == found.root]
        missing = [path for path in known if path not in present]
        out_of_reach = {p for p in missing
                        if any(_under(manifest[p]["doc_id"], directory) for directory in found.unreadable)}
        unreachable.extend(d for d in missing if d in out_of_reach)
        unlisted.extend((found.root, directory) for directory in found.unreadable
                        if not any(_under(manifest[p]["doc_id"], directory) for p in known))
        gone = [d for d in missing if d not in out_of_reach]
        if gone and not found.files and not found.unreadable and not allow_mass_delete:
            refused.append(found.root)  # an emptied or unmounted root never wipes the index
        else:
            deleted.extend(gone)
        claimed.update(present)
        for ref in files:
            row = manifest.get(ref.path)
            if (row is None or row["config"] != fingerprint or row["root"] != ref.root
                    or row["error_kind"] in RETRY_KINDS or (retry_failed and row["error_kind"])):
                to_cut.append(ref)
                continue
            if row["size"] == ref.size and row["mtime"] == ref.mtime:
                unchanged.append(ref)
                continue
            try:
                digest = file_hash(ref.path)
            except OSError:
                to_cut.append(ref)  # cutting will record why it cannot be read (and keep its chunks)
                continue
            hashes[ref.path] = digest
            (unchanged if digest == row["content_hash"] else to_cut).append(ref)
    # A file indexed under one root and reached from another root of this run is kept.
    deleted = [path for path in deleted if path not in claimed]
    return Plan(to_cut, unchanged, deleted, refused, hashes, unreachable, unlisted)


def _under(doc_id: str, directory: str) -> bool:
    return directory == "" or doc_id.startswith(directory + "/")
