"""Materialise the development set of real public documents listed in manifest.json.

Each manifest entry pins one file in a public GitHub repository by repository,
commit and path, together with its SHA-256 and size.  This script never
downloads anything: it reads the files out of repository snapshots that are
already on this machine (brought in with the ``fetch`` tool), using

    git --git-dir=<gitdir> show <commit>:<path>

and writes them, hash-checked, to an output folder that is not tracked by git.

A snapshot of ``owner/name`` is looked for under the mirror root as
``<mirror>/owner+name/repo`` (the layout ``fetch`` produces) or as
``<mirror>/owner+name`` itself when that is a git directory.

Usage::

    python bench/devset/materialise.py                 # -> .seams/devset/files
    python bench/devset/materialise.py --out /tmp/dev  # elsewhere
    SEAMS_MIRROR=/path/to/mirror python bench/devset/materialise.py

Files already present with the right hash are left alone.  A missing snapshot
is reported as ``fetch github:owner/name`` and its files are skipped.  The exit
code is 1 if any file could not be materialised (missing snapshot, missing
object, hash mismatch), otherwise 0.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
DEFAULT_MANIFEST = HERE / "manifest.json"
DEFAULT_OUT = REPO_ROOT / ".seams" / "devset" / "files"
DEFAULT_MIRROR = Path("/work/.mirror")


@dataclass(frozen=True)
class Entry:
    """One pinned document from the manifest."""

    name: str
    repo: str
    commit: str
    path: str
    sha256: str
    bytes: int

    @classmethod
    def from_dict(cls, raw: dict[str, object]) -> Entry:
        return cls(
            name=str(raw["name"]),
            repo=str(raw["repo"]),
            commit=str(raw["commit"]),
            path=str(raw["path"]),
            sha256=str(raw["sha256"]).lower(),
            bytes=int(str(raw["bytes"])),
        )


def load_manifest(path: Path) -> list[Entry]:
    """Read the manifest and check that names are unique and safe as file names."""
    entries = [Entry.from_dict(raw) for raw in json.loads(path.read_text(encoding="utf-8"))]
    seen: set[str] = set()
    for entry in entries:
        if entry.name in seen:
            raise ValueError(f"duplicate name in manifest: {entry.name}")
        if "/" in entry.name or "\\" in entry.name or entry.name in {"", ".", ".."}:
            raise ValueError(f"unsafe name in manifest: {entry.name!r}")
        seen.add(entry.name)
    return entries


def is_git_dir(path: Path) -> bool:
    """True if ``path`` looks like a bare git directory."""
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def find_git_dir(mirror: Path, repo: str) -> Path | None:
    """Locate the fetched snapshot of ``owner/name`` under the mirror root."""
    base = mirror / repo.replace("/", "+")
    for candidate in (base / "repo", base):
        if is_git_dir(candidate):
            return candidate
    return None


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_matches(path: Path, expected_sha256: str) -> bool:
    """True if ``path`` exists and has the expected SHA-256."""
    if not path.is_file():
        return False
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest() == expected_sha256


def read_blob(git_dir: Path, commit: str, path: str) -> bytes | None:
    """Return the bytes of ``commit:path`` from ``git_dir``, or None if git cannot show it."""
    result = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"],
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        return None
    return result.stdout


def write_atomically(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` via a temporary file in the same folder."""
    tmp = target.with_name(f".{target.name}.part")
    tmp.write_bytes(data)
    os.replace(tmp, target)


def materialise(entries: list[Entry], out: Path, mirror: Path) -> int:
    """Write every entry to ``out``; return the number of entries that failed."""
    out.mkdir(parents=True, exist_ok=True)
    failures = 0
    missing_repos: set[str] = set()
    written = skipped = 0
    for entry in entries:
        target = out / entry.name
        if file_matches(target, entry.sha256):
            skipped += 1
            continue
        git_dir = find_git_dir(mirror, entry.repo)
        if git_dir is None:
            if entry.repo not in missing_repos:
                print(f"missing snapshot of {entry.repo}: fetch github:{entry.repo}", file=sys.stderr)
                missing_repos.add(entry.repo)
            print(f"  skipped {entry.name}", file=sys.stderr)
            failures += 1
            continue
        data = read_blob(git_dir, entry.commit, entry.path)
        if data is None:
            print(
                f"cannot read {entry.commit[:12]}:{entry.path} from {git_dir} "
                f"(snapshot too old, or the file is absent from it); skipped {entry.name}",
                file=sys.stderr,
            )
            failures += 1
            continue
        actual = sha256_of(data)
        if actual != entry.sha256 or len(data) != entry.bytes:
            print(
                f"hash mismatch for {entry.name}: expected {entry.sha256} ({entry.bytes} B), "
                f"got {actual} ({len(data)} B); not written",
                file=sys.stderr,
            )
            failures += 1
            continue
        write_atomically(target, data)
        written += 1
        print(f"wrote {entry.name} ({len(data):,} B)")
    print(f"{written} written, {skipped} already present, {failures} failed; folder: {out}")
    return failures


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(
            "Write the documents pinned in manifest.json out of locally fetched git snapshots "
            "and verify their SHA-256.  Never downloads anything."
        )
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help=f"output folder (default: {DEFAULT_OUT.relative_to(REPO_ROOT)} under the repository root)",
    )
    parser.add_argument(
        "--mirror",
        type=Path,
        default=Path(os.environ.get("SEAMS_MIRROR", DEFAULT_MIRROR)),
        help=f"root of fetched snapshots (default: $SEAMS_MIRROR or {DEFAULT_MIRROR})",
    )
    parser.add_argument(
        "--manifest",
        type=Path,
        default=DEFAULT_MANIFEST,
        help="manifest to read (default: manifest.json next to this script)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    entries = load_manifest(args.manifest)
    failures = materialise(entries, args.out, args.mirror)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
