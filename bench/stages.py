"""Overlap: a folder's whole ``seams ingest`` against its two big stages measured alone, in one run.

Issue #17 asks that parsing and cutting (in the worker pool) run while the main process embeds and
writes, so that an ingest takes at most 1.15 times its slowest stage alone, not their sum. Three
measurements of the same folder, one after the other on an otherwise idle machine:

1. parse + cut: every file through the worker pool, as the ingest does (``flows.ingest.workers.cut_batch``
   with the settings' workers and time limit), in batches of 16 files;
2. embed: every text the ingest embeds for those chunks (chunk texts and passages, deduplicated, as
   ``flows.ingest.pipeline.embedded_texts`` makes them), with the settings' embedder, threads and batch
   size, after a warm-up of eight texts (the model's loading is not counted);
3. ``seams ingest`` of the folder into a fresh database in a new process (so with no embedding
   cache), as a user runs it: its temporary Prefect server, writes and index builds included.

Usage: python bench/stages.py FOLDER [--embedder use-multilingual]
(e.g. the development set after ``python bench/devset/materialise.py``: ``.seams/devset/files``)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from scale import ingest  # noqa: E402  (one seams ingest in a fresh process: seconds, peak RSS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="the folder to ingest")
    parser.add_argument("--embedder", default=None, help="embedder (default: seams' default)")
    args = parser.parse_args()

    from flows.environment import apply_defaults

    apply_defaults()
    from flows.embed import embedder_for
    from flows.ingest.pipeline import CutConfig, embedded_texts, walk
    from flows.ingest.workers import close_cutters, cut_batch
    from flows.settings import Settings

    settings = Settings(**({"embedder": args.embedder} if args.embedder else {}))
    refs = walk(args.folder)
    started = time.perf_counter()
    outcomes = []
    for i in range(0, len(refs), 16):
        outcomes += cut_batch(refs[i:i + 16], CutConfig.from_settings(settings), settings.workers,
                              settings.file_timeout_s)
    close_cutters()
    cut_seconds = time.perf_counter() - started
    chunks = [chunk for outcome in outcomes for chunk in outcome.chunks]
    texts = list(dict.fromkeys(text for chunk in chunks for text in embedded_texts(
        chunk, settings.embed_heading_path, settings.embed_plain_cells, settings.passage_tokens,
        settings.label_rows != "off")))

    embedder = embedder_for(settings)
    embedder.passages(texts[:8])
    started = time.perf_counter()
    for i in range(0, len(texts), settings.embed_batch):
        embedder.passages(texts[i:i + settings.embed_batch])
    embed_seconds = time.perf_counter() - started

    with tempfile.TemporaryDirectory() as db:
        ingest_seconds, _ = ingest(Path(args.folder), Path(db), settings.embedder_spec)

    slowest = max(cut_seconds, embed_seconds)
    print(f"{len(refs)} files, {len(chunks):,} chunks, {len(texts):,} texts embedded ({settings.embedder}, "
          f"{settings.embed_threads} threads, batches of {settings.embed_batch}; {settings.workers} parser workers)")
    print("| stage | wall s | against the slowest stage |")
    print("|---|---|---|")
    print(f"| parse + cut alone (worker pool) | {cut_seconds:.1f} | {cut_seconds / slowest:.2f}× |")
    print(f"| embed alone | {embed_seconds:.1f} | {embed_seconds / slowest:.2f}× |")
    print(f"| `seams ingest` (all stages, server, writes, indexes) | {ingest_seconds:.1f} | "
          f"**{ingest_seconds / slowest:.2f}×** (their sum: {ingest_seconds / (cut_seconds + embed_seconds):.2f}×) |")


if __name__ == "__main__":
    main()
