"""Peers: what users would pick instead of seams, each parsing and chunking a folder its own way.

A peer is a configuration ``seams evaluate`` accepts beside its baselines (``peer:langchain``):
the peer's own loaders and its own chunker, with their documented defaults, turn every file into
chunk texts; the evaluation then embeds them with the same embedder, writes them to the same
LanceDB tables and searches them in the same modes as seams' chunks, so only parsing and chunking
differ.

    langchain     per format, the loader LangChain's docs name (PyPDFLoader, Docx2txtLoader,
                  UnstructuredPowerPointLoader, UnstructuredExcelLoader, CSVLoader, BSHTMLLoader,
                  TextLoader), then RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)
    llamaindex    SimpleDirectoryReader (its default file readers, llama-index-readers-file), then
                  SentenceSplitter() with its defaults (1,024 tokens, 200 overlap)
    unstructured  partition() (the auto partitioner), then chunk_by_title() with its defaults
                  (500 characters); it reads no PDF here: partition_pdf imports
                  unstructured-inference (torch, OpenCV) even with strategy="fast"
    chonkie       the LangChain loaders' text, then chonkie's RecursiveChunker() with its defaults
                  (2,048 characters)

Docling is not a peer here: ``docling.document_converter`` imports torch when it is imported (its
speech pipeline), even in ``docling-slim``, and its PDF pipeline loads layout models from the
Hugging Face hub; neither is allowed offline without torch (:data:`NOT_RUNNABLE`).

A peer runs in a child process (``python -m flows.evaluate.peers``) so that its parse + chunk time
and its peak resident memory are its own: the child reports its ``VmHWM`` (the high-water mark of
its resident set since its ``exec``; the parent's own ``os.wait4`` figure would also count the
parent's memory, which a spawned child shares until it execs). ``seams`` runs the same way (its parser and its default cut) to give the ratios.
A file a peer cannot read (no loader for the format, a missing optional dependency, an exception)
is recorded with its reason and loses nothing else: the peer goes on with the next file.

Peers' chunks do not map to offsets in seams' parsed text, so they are scored by containment:
an evidence string is held by a chunk when the chunk's text contains it, compared on letters and
digits only, case-folded (:func:`flows.evaluate.metrics.fold`), which forgives the table separators and number formats a
peer renders differently from the text the evidence was copied from.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from flows.errors import UsageError

PREFIX = "peer:"


@dataclass(frozen=True)
class Peer:
    name: str
    summary: str  # the loaders and the chunker, with the settings used
    modules: tuple[str, ...]  # what must be importable (the ``peers`` extra)


PEERS: dict[str, Peer] = {p.name: p for p in (
    Peer("langchain", "LangChain loaders per format + RecursiveCharacterTextSplitter(1000, 200)",
         ("langchain_community", "langchain_text_splitters", "docx2txt")),
    Peer("llamaindex", "SimpleDirectoryReader + SentenceSplitter() defaults (1024 tokens, 200 overlap)",
         ("llama_index.core", "llama_index.readers.file")),
    Peer("unstructured", "unstructured partition() + chunk_by_title() defaults (500 characters)",
         ("unstructured.partition.auto", "unstructured.chunking.title")),
    Peer("chonkie", "LangChain loaders' text + chonkie RecursiveChunker() defaults (2048 characters)",
         ("chonkie", "langchain_community")),
)}
#: Peers the issue names that cannot run offline without torch, and why.
NOT_RUNNABLE = {
    "docling": "docling.document_converter imports torch at import time (its ASR pipeline), also in "
               "docling-slim, and its PDF pipeline downloads layout models: not runnable offline without torch",
}
#: The child's name for seams' own parse + cut (for the ratios; not a peer configuration).
SEAMS = "seams"


def peer_name(config: str) -> str:
    """``peer:NAME`` -> NAME, checked against the registry."""
    name = config[len(PREFIX):].strip()
    if name in NOT_RUNNABLE:
        raise UsageError(f"peer {name!r} is not runnable here: {NOT_RUNNABLE[name]}")
    if name not in PEERS:
        raise UsageError(f"unknown peer {name!r}; known: {', '.join(PEERS)}")
    return name


def missing_modules(name: str) -> list[str]:
    """The modules a peer needs that are not installed (``pip install 'seams[peers]'``)."""
    import importlib.util

    missing = []
    for module in PEERS[name].modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            missing.append(module)
    return missing


# -- what a child returns ----------------------------------------------------------------------------
@dataclass(frozen=True)
class PeerRun:
    """One peer's (or seams') parse + chunk of a collection."""

    name: str
    chunks: tuple[tuple[str, str], ...]  # (doc_id, chunk text), in file order
    failed: tuple[tuple[str, str], ...]  # (doc_id, reason): files it could not read
    seconds: float  # parsing + chunking, imports excluded (measured in the child)
    import_seconds: float
    peak_rss: int  # bytes, the child's peak resident set (imports included)
    wall_seconds: float  # the child's whole life, as the parent saw it


def run_peer(name: str, files: Sequence[tuple[str, str]], timeout: float = 3600) -> PeerRun:
    """Parse and chunk ``files`` ((doc_id, path) pairs) with peer ``name`` (or ``seams``) in a child
    process, which reports its own time and peak RSS."""
    if name != SEAMS and missing_modules(name):
        raise UsageError(f"peer {name!r} needs {', '.join(missing_modules(name))}: pip install 'seams[peers]'")
    with tempfile.TemporaryDirectory(prefix="seams-peer-") as tmp:
        request, result = Path(tmp) / "files.json", Path(tmp) / "chunks.json"
        request.write_text(json.dumps([list(f) for f in files]), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[2]),
                                                                         os.environ.get("PYTHONPATH")]))}
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "flows.evaluate.peers", name, str(request), str(result)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        stderr = _drain(child, timeout)
        child.wait()
        wall = time.perf_counter() - started
        if child.returncode != 0 or not result.exists():
            tail = stderr.decode("utf-8", "replace").strip().splitlines()[-5:]
            raise RuntimeError(f"peer {name} failed (exit {child.returncode}): " + " / ".join(tail))
        data = json.loads(result.read_text(encoding="utf-8"))
    return PeerRun(name, tuple((d, t) for d, t in data["chunks"]), tuple((d, r) for d, r in data["failed"]),
                   data["seconds"], data["import_seconds"], data["peak_rss"], wall)


def _drain(child: subprocess.Popen, timeout: float) -> bytes:
    """The child's stderr, read until it closes; the child is killed past ``timeout`` seconds."""
    import threading

    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(child.stderr.read()), daemon=True)
    reader.start()
    reader.join(timeout)
    if reader.is_alive():
        child.kill()
        reader.join()
    return b"".join(chunks)


# -- the peers (run in the child) ---------------------------------------------------------------------
ChunkFile = Callable[[Path], list[str]]


#: Peers whose loaders call unstructured (LangChain's PowerPoint and Excel loaders, and chonkie through
#: them): it is made offline before they start, as seams makes it (its spaCy model from a package).
_USE_UNSTRUCTURED = frozenset({"langchain", "unstructured", "chonkie"})


def _offline(name: str) -> None:
    """Offline and quiet: no telemetry, no model downloads."""
    from flows.environment import apply_defaults

    apply_defaults()
    if name in _USE_UNSTRUCTURED:
        from parsers.other import prepare_unstructured

        prepare_unstructured()


def _langchain_documents(path: Path) -> list:
    """The loader LangChain's docs name for the file's format; its Documents."""
    from langchain_community import document_loaders as loaders

    suffix = path.suffix.lower()
    if suffix == ".pdf":
        loader = loaders.PyPDFLoader(str(path))
    elif suffix == ".docx":
        loader = loaders.Docx2txtLoader(str(path))
    elif suffix == ".pptx":
        loader = loaders.UnstructuredPowerPointLoader(str(path))
    elif suffix in (".xlsx", ".xls"):
        loader = loaders.UnstructuredExcelLoader(str(path))
    elif suffix == ".csv":
        loader = loaders.CSVLoader(str(path))
    elif suffix in (".html", ".htm"):
        loader = loaders.BSHTMLLoader(str(path))
    elif suffix in (".md", ".txt", ".markdown", ".rst"):
        loader = loaders.TextLoader(str(path))
    else:
        raise ValueError(f"no LangChain loader for {suffix or 'files without a suffix'}")
    return loader.load()


def _langchain(path: Path) -> list[str]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)
    return [d.page_content for d in splitter.split_documents(_langchain_documents(path))]


def _llamaindex(path: Path) -> list[str]:
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.node_parser import SentenceSplitter

    documents = SimpleDirectoryReader(input_files=[str(path)]).load_data()
    return [node.get_content() for node in SentenceSplitter().get_nodes_from_documents(documents)]


def _unstructured(path: Path) -> list[str]:
    from unstructured.chunking.title import chunk_by_title
    from unstructured.partition.auto import partition

    return [element.text for element in chunk_by_title(partition(filename=str(path)))]


def _chonkie(path: Path) -> list[str]:
    from chonkie import RecursiveChunker

    text = "\n\n".join(d.page_content for d in _langchain_documents(path))
    return [chunk.text for chunk in RecursiveChunker().chunk(text)]


def _seams(path: Path) -> list[str]:
    from flows.ingest.pipeline import CutConfig, cut_document
    from parsers import parse
    from splitters import Budget

    _, chunks = cut_document(parse(path), CutConfig(Budget()), path.name)
    return [c.text for c in chunks]


CHUNKERS: dict[str, ChunkFile] = {"langchain": _langchain, "llamaindex": _llamaindex,
                                  "unstructured": _unstructured, "chonkie": _chonkie, SEAMS: _seams}
#: What each chunker imports before its first file, so the child's parse + chunk time leaves imports out.
_WARM = {
    "langchain": ("langchain_community.document_loaders", "langchain_text_splitters"),
    "llamaindex": ("llama_index.core", "llama_index.core.node_parser", "llama_index.readers.file"),
    "unstructured": ("unstructured.partition.auto", "unstructured.chunking.title"),
    "chonkie": ("chonkie", "langchain_community.document_loaders"),
    SEAMS: ("parsers", "flows.ingest.pipeline"),
}


def _peak_rss() -> int:
    """This process's peak resident set in bytes: VmHWM, or (no /proc) getrusage's maximum."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _child(name: str, request: Path, result: Path) -> int:
    import importlib
    import logging

    started = time.perf_counter()
    logging.disable(logging.WARNING)
    _offline(name)
    for module in _WARM[name]:
        importlib.import_module(module)
    imported = time.perf_counter()
    chunker = CHUNKERS[name]
    chunks: list[tuple[str, str]] = []
    failed: list[tuple[str, str]] = []
    for doc_id, path in json.loads(request.read_text(encoding="utf-8")):
        try:
            texts = chunker(Path(path))
        except Exception as exc:  # a peer's failure on one file is that file's, never the run's
            failed.append((doc_id, f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"))
            continue
        chunks.extend((doc_id, t) for t in texts if t and t.strip())
    seconds = time.perf_counter() - imported
    result.write_text(json.dumps({"chunks": chunks, "failed": failed, "seconds": seconds,
                                  "import_seconds": imported - started, "peak_rss": _peak_rss()}), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])))
