"""Incremental sync: decide from the manifest which files to cut, which are unchanged, which are gone.

Unchanged means same size and mtime, or else same content hash, under the same config
fingerprint; such files are neither parsed nor embedded. A root that is empty or missing while the
manifest still lists files under it is refused rather than wiped (``allow_mass_delete`` overrides).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from flows.pipeline import FileRef, file_hash, walk


@dataclass(frozen=True)
class Plan:
    to_cut: list[FileRef]
    unchanged: list[FileRef]
    deleted: list[str]
    refused: list[str]
    hashes: dict[str, str]


def plan_sync(roots: Sequence[str], manifest: dict[str, dict], fingerprint: str, allow_mass_delete: bool) -> Plan:
    """Decide, from the manifest alone, which files to cut, which are unchanged and which are gone."""
    to_cut: list[FileRef] = []
    unchanged: list[FileRef] = []
    deleted: list[str] = []
    refused: list[str] = []
    hashes: dict[str, str] = {}
    for root in roots:
        refs = walk(root)
        root_abs = refs[0].root if refs else str(Path(root).resolve())
        present = {r.doc_id for r in refs}
        known = [doc_id for doc_id, row in manifest.items() if row["root"] == root_abs]
        gone = [doc_id for doc_id in known if doc_id not in present]
        if gone and not refs and not allow_mass_delete:
            refused.append(root_abs)  # an emptied or unmounted root never wipes the index
        else:
            deleted.extend(gone)
        for ref in refs:
            row = manifest.get(ref.doc_id)
            retry = row is not None and row["error_kind"] in ("timeout", "error", "unreadable")
            if row is None or row["config"] != fingerprint or retry:
                to_cut.append(ref)
                continue
            if row["size"] == ref.size and row["mtime"] == ref.mtime:
                unchanged.append(ref)
                continue
            try:
                digest = file_hash(ref.path)
            except OSError:
                to_cut.append(ref)
                continue
            hashes[ref.doc_id] = digest
            (unchanged if digest == row["content_hash"] else to_cut).append(ref)
    return Plan(to_cut, unchanged, deleted, refused, hashes)


