"""Folders on object storage as sources: ``seams ingest s3://bucket/prefix/``.

A root given as a URI (``s3://…``; any scheme fsspec knows, with its package installed) is listed
with fsspec instead of walked on disk, and each object is read by the process that cuts it — a
parser worker, a Dask worker — into a temporary file of its own name, which the parsers read as any
other file (:func:`local_copy`); the flow never holds the objects' bytes.

Identity and change detection are those of a local folder: a file's path is its full URI, its
``doc_id`` the key relative to the prefix (so a changed object replaces its own rows), and the
manifest's size and modification time (the object's ``LastModified``) decide it is unchanged without
reading it; when they moved, its content hash (of the bytes, as for a local file) decides. Keys with
a hidden part (``.cache/x``, ``.seamsignore``) are skipped, and so are keys matching a glob in the
prefix's ``.seamsignore``. A listing that fails (no permission, the network) is reported as an
unreadable root, so the files indexed from it are kept, never deleted; a bucket or prefix that does
not exist is an empty root, whose deletions are refused as for a missing folder.

S3 needs the optional extra (``pip install 'seams[s3]'``, s3fs); credentials and the endpoint come
from the usual AWS environment variables (``AWS_ENDPOINT_URL`` for an S3-compatible server).
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import logging
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from flows.errors import UsageError


@dataclass(frozen=True)
class FileRef:
    """A file found under an indexed root; ``doc_id`` is its path relative to the root."""

    root: str
    path: str
    doc_id: str
    size: int
    mtime: float


@dataclass(frozen=True)
class RootWalk:
    """What one walk of an indexed root found.

    ``unreadable`` lists the directories (relative to the root, ``""`` for the root itself) that
    could not be listed: their files are not gone, only out of reach for now. ``single_file`` is
    set when the root was a file: then that file is all the walk speaks for, not its folder.
    """

    root: str
    files: list[FileRef]
    unreadable: list[str]
    single_file: bool = False


log = logging.getLogger(__name__)

#: The optional extra that brings each scheme's fsspec implementation.
EXTRAS = {"s3": "s3", "s3a": "s3"}

IGNORE_FILE = ".seamsignore"


def is_uri(path: str) -> bool:
    """A source given as a URI (``s3://…``), not a local path (``file://`` is a local path)."""
    return "://" in path and not path.startswith("file://")


def scheme(uri: str) -> str:
    return uri.split("://", 1)[0].lower()


def normalize(uri: str) -> str:
    """A root URI as the manifest records it: no trailing slash."""
    return uri.rstrip("/")


@lru_cache(maxsize=8)
def filesystem(protocol: str):
    """The fsspec file system of a scheme; its listings are not cached, so a long-lived process (``seams
    serve``) sees what changed since its last run. A missing implementation is a usage error naming
    the extra that brings it."""
    try:
        import fsspec

        return fsspec.filesystem(protocol, use_listings_cache=False, skip_instance_cache=True)
    except (ImportError, ValueError) as exc:
        extra = EXTRAS.get(protocol)
        hint = f"pip install 'seams[{extra}]'" if extra else f"install fsspec's implementation of {protocol}://"
        raise UsageError(f"reading {protocol}:// folders needs the optional extra: {hint}") from exc


def require(uri: str) -> None:
    """Check, before a command starts a run, that ``uri`` can be read here: its scheme's extra is
    installed, and it names an object or a prefix with objects, reachable with the credentials at
    hand (raises :class:`UsageError`, as a local folder that is not there is)."""
    fs = filesystem(scheme(uri))
    try:
        found = fs.exists(_key(normalize(uri)))
    except Exception as exc:  # no credentials, no permission, no endpoint: botocore's own errors
        raise UsageError(f"cannot read {uri}: {exc}") from exc
    if not found:
        raise UsageError(f"no such file or folder: {uri} (no object under that prefix)")


def _key(uri: str) -> str:
    """``bucket/key`` of ``s3://bucket/key`` (what fsspec lists)."""
    return uri.split("://", 1)[1]


def scan(root: str):
    """The objects under the prefix ``root`` as a :class:`RootWalk`, in key order."""
    protocol, root = scheme(root), normalize(root)
    fs = filesystem(protocol)
    base = _key(root)
    try:
        info = fs.info(base)
        if info.get("type") == "file" and not base.endswith("/"):
            parent, _, name = root.rpartition("/")
            ref = FileRef(parent, root, name, int(info.get("size") or 0), _mtime(info))
            return RootWalk(parent, [ref], [], single_file=True)
    except FileNotFoundError:
        pass  # not an object: a prefix, or nothing
    except Exception as exc:  # permission, network, credentials (botocore's errors are not OSErrors)
        log.warning("cannot read %s: %s; the files indexed from it are kept", root, exc)
        return RootWalk(root, [], [""])
    try:
        found = fs.find(base, detail=True)
    except FileNotFoundError:
        return RootWalk(root, [], [])
    except Exception as exc:  # permission, network, credentials: out of reach, not gone
        log.warning("cannot list %s: %s; the files indexed from it are kept", root, exc)
        return RootWalk(root, [], [""])
    ignored = _ignore_patterns(fs, base)
    files = []
    for key, item in found.items():
        relative = key[len(base):].lstrip("/")
        if not relative or key.endswith("/") or item.get("type") == "directory":
            continue  # the prefix itself, or a folder marker
        name = relative.rsplit("/", 1)[-1]
        if any(part.startswith(".") for part in relative.split("/")):
            continue
        if any(fnmatch.fnmatch(relative, p) or fnmatch.fnmatch(name, p) for p in ignored):
            continue
        files.append(FileRef(root, f"{protocol}://{key}", relative, int(item.get("size") or 0), _mtime(item)))
    return RootWalk(root, sorted(files, key=lambda r: r.doc_id), [])


def _mtime(info: dict) -> float:
    modified = info.get("LastModified") or info.get("mtime") or info.get("last_modified")
    if modified is None:
        return 0.0
    return modified.timestamp() if hasattr(modified, "timestamp") else float(modified)


def _ignore_patterns(fs, base: str) -> list[str]:
    try:
        data = fs.cat_file(f"{base}/{IGNORE_FILE}", start=0, end=1 << 20)
    except (FileNotFoundError, OSError):
        return []
    lines = data.decode("utf-8", "replace").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def object_hash(uri: str) -> str:
    """The content hash of an object (as :func:`flows.ingest.pipeline.file_hash` of a local copy)."""
    digest = hashlib.blake2b(digest_size=16)
    with filesystem(scheme(uri)).open(_key(uri), "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@contextlib.contextmanager
def local_copy(path: str) -> Iterator[str]:
    """A local path to read ``path`` from: itself, or for a URI a temporary copy under the object's own
    name (parsers and the OCR progress go by it), removed afterwards. Errors reading the object are
    raised as :class:`OSError`."""
    if not is_uri(path):
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="seams-object-") as folder:
        local = os.path.join(folder, path.rstrip("/").rsplit("/", 1)[-1] or "object")
        try:
            filesystem(scheme(path)).get_file(_key(path), local)
        except OSError:
            raise
        except Exception as exc:  # botocore's and aiohttp's errors are not OSErrors
            raise OSError(f"cannot read {path}: {exc}") from exc
        yield local


def exists(path: str) -> bool:
    """The file or object is there (a symlink counts, as a file the walk would see)."""
    if not is_uri(path):
        return os.path.lexists(path)
    try:
        return filesystem(scheme(path)).exists(_key(path))
    except Exception:  # cannot tell: say it exists, so that nothing of it is deleted
        return True
