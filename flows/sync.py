"""Incremental sync: decide from the manifest which files to cut, which are unchanged, which are gone.

Unchanged means: indexed from the same root under the same config fingerprint, and the same size
and mtime, or else the same content hash; such files are neither parsed nor embedded. Files whose
last attempt failed for a passing reason (timeout, a crash, unreadable) are tried again.

Deletion is cautious, because a file that cannot be reached now is not a deleted file:

- a root that is empty or missing while the manifest still lists files under it is refused
  rather than wiped (``allow_mass_delete`` overrides);
- files under a directory that cannot be listed are kept (neither cut nor deleted);
- a root that is a single file speaks for that file only, never for the rest of its folder.

A document id is the path relative to its root, so two roots of one run that hold the same
relative path would overwrite each other; that is refused with a :class:`ValueError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from flows.pipeline import FileRef, file_hash, scan

#: Error kinds worth another try on the next run even if the file did not change.
RETRY_KINDS = frozenset({"timeout", "error", "unreadable"})


@dataclass(frozen=True)
class Plan:
    to_cut: list[FileRef]
    unchanged: list[FileRef]
    deleted: list[str]
    refused: list[str]  # roots whose deletions were refused (empty or missing)
    hashes: dict[str, str]  # content hashes computed while planning (files whose mtime moved)
    unreachable: list[str]  # indexed files under directories that could not be listed: kept


def plan_sync(roots: Sequence[str], manifest: dict[str, dict], fingerprint: str, allow_mass_delete: bool) -> Plan:
    """Decide, from the manifest and the file system alone, what this run cuts, skips and removes."""
    to_cut: list[FileRef] = []
    unchanged: list[FileRef] = []
    deleted: list[str] = []
    refused: list[str] = []
    hashes: dict[str, str] = {}
    unreachable: list[str] = []
    owners: dict[str, str] = {}  # doc id -> the path that claimed it in this run
    present_before: set[str] = set()  # doc ids planned by an earlier root (a file passed with its folder)
    for root in dict.fromkeys(str(Path(r).resolve()) for r in roots):  # each root once, in order
        found = scan(root)
        files: list[FileRef] = []
        for ref in found.files:
            owner = owners.setdefault(ref.doc_id, ref.path)
            if owner != ref.path:
                raise ValueError(
                    f"{owner} and {ref.path} would both be indexed as {ref.doc_id!r} (ids are paths relative "
                    f"to each folder); index these folders into separate knowledge bases (--kb)")
            if ref.doc_id not in present_before:
                files.append(ref)
        present = {ref.doc_id for ref in found.files}
        if found.single_file:
            known = [ref.doc_id for ref in found.files if ref.doc_id in manifest]
        else:
            known = [doc_id for doc_id, row in manifest.items() if row["root"] == found.root]
        missing = [doc_id for doc_id in known if doc_id not in present]
        out_of_reach = {d for d in missing if any(_under(d, directory) for directory in found.unreadable)}
        unreachable.extend(d for d in missing if d in out_of_reach)
        gone = [d for d in missing if d not in out_of_reach]
        if gone and not found.files and not found.unreadable and not allow_mass_delete:
            refused.append(found.root)  # an emptied or unmounted root never wipes the index
        else:
            deleted.extend(gone)
        present_before.update(present)
        for ref in files:
            row = manifest.get(ref.doc_id)
            if (row is None or row["config"] != fingerprint or row["root"] != ref.root
                    or row["error_kind"] in RETRY_KINDS):
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
            hashes[ref.doc_id] = digest
            (unchanged if digest == row["content_hash"] else to_cut).append(ref)
    # A file that left one root for another root of this run is moved, not deleted.
    deleted = [doc_id for doc_id in deleted if doc_id not in owners]
    return Plan(to_cut, unchanged, deleted, refused, hashes, unreachable)


def _under(doc_id: str, directory: str) -> bool:
    return directory == "" or doc_id.startswith(directory + "/")
