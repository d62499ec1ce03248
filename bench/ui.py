"""``seams ui`` on a large knowledge base: the file list and search pages over HTTP.

A knowledge base of ``--files`` generated files of ``--chunks`` chunks each (default 100,000 files of one
chunk: 100,000 manifest rows and 100,000 chunk rows, the worst case for the file list) is written
straight into LanceDB with the ``hashing`` embedder's vectors (no parsing), then brought to the state an
ingest leaves it in (``Store.maintain``: full-text indexes, the IVF_PQ vector index from 50,000 rows,
the passages). The page is served by uvicorn on 127.0.0.1 and each page is fetched ``--repeat`` times
(the median is reported, and the first fetch apart: cold caches). Baselines, in the same run: the
same page of manifest rows read by one LanceDB query, and the same search through
``flows.index.search.search`` (what ``seams search`` calls) without HTTP or HTML.

Usage: python bench/ui.py [--files 100000] [--chunks 1] [--repeat 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import socket
import statistics
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

from flows.environment import apply_defaults

apply_defaults()

WORDS = ("예산 집행 현황 점검 지역 디지털 전환 지원 사업 계획 개인정보 보호 처리 기록 보관 budget review quarterly "
         "growth region data policy report travel station hiring plan 회의 결과 다음 분기 목표 교육 안전").split()
FORMATS = ("pdf", "docx", "xlsx", "md", "txt", "pptx")
STRATEGIES = {"pdf": "section", "docx": "section", "xlsx": "sheet", "md": "section", "txt": "general", "pptx": "slide"}


def build(db: str, files: int, chunks: int, seed: int = 7) -> float:
    """Write the knowledge base; returns the seconds it took."""
    from flows.embed import get_embedder
    from flows.index.schema import MANIFEST_SCHEMA
    from flows.index.store import Store

    started = time.perf_counter()
    rng = random.Random(seed)
    embedder = get_embedder("hashing")
    store = Store(db)
    now = dt.datetime.now(dt.UTC)
    batch_files = max(1, 20_000 // chunks)
    for first in range(0, files, batch_files):
        rows, entries = [], []
        for i in range(first, min(files, first + batch_files)):
            fmt = FORMATS[i % len(FORMATS)]
            path = f"/data/team{i % 50:02d}/doc {i:06d}.{fmt}"
            failed = i % 97 == 0
            texts = [] if failed else [f"제{n + 1}조 " + " ".join(rng.choice(WORDS) for _ in range(60)) + f" 문서 {i}"
                                       for n in range(chunks)]
            vectors = embedder.passages(texts) if texts else []
            for n, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
                rows.append({"chunk_id": f"{path}#{n}", "doc_id": path[6:], "source": path, "root": "/data",
                             "content_hash": f"{i:032x}", "format": fmt, "strategy": STRATEGIES[fmt], "rule": "bench",
                             "ordinal": n, "text": text, "embed_text": text, "tokens": 90,
                             "page_start": n + 1 if fmt == "pdf" else None, "page_end": n + 1 if fmt == "pdf" else None,
                             "sheet": None, "row_start": None, "row_end": None, "slide_start": None, "slide_end": None,
                             "heading_path": f"제{n + 1}조", "char_start": 0, "char_end": len(text),
                             "embedder": "hashing", "dim": embedder.dim, "config": "bench", "indexed_at": now,
                             "vector": vector, "passages": [vector]})
            entries.append({"doc_id": path[6:], "root": "/data", "path": path, "size": 1000, "mtime": 0.0,
                            "content_hash": f"{i:032x}", "config": "bench", "status": "failed" if failed else "indexed",
                            "error_kind": "corrupt" if failed else "", "error": "generated failure" if failed else "",
                            "format": fmt, "strategy": "" if failed else STRATEGIES[fmt], "rule": "" if failed else "bench",
                            "evidence": "" if failed else "generated", "chunks": len(texts), "tokens": 90 * len(texts),
                            "indexed_at": now})
        store.replace_documents(rows, [e["path"] for e in entries], embedder.dim, new=True)
        store.write_manifest(entries, new=True)
        assert set(entries[0]) == set(MANIFEST_SCHEMA.names)
    store.maintain(files)
    return time.perf_counter() - started


def serve(db: str) -> tuple[str, object]:
    import uvicorn

    from flows.app.ui import create_app
    from flows.settings import Settings

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(Settings(db=db)), host="127.0.0.1", port=port,
                                           log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server


def timings(function, repeat: int) -> tuple[float, float]:
    """(first, median of the rest) seconds."""
    seconds = []
    for _ in range(repeat + 1):
        started = time.perf_counter()
        function()
        seconds.append(time.perf_counter() - started)
    return seconds[0], statistics.median(seconds[1:])


def fetch(url: str) -> None:
    with urllib.request.urlopen(url) as response:
        assert response.status == 200, url
        body = response.read()
        assert b'id="error"' not in body, url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--chunks", type=int, default=1, help="chunks per file")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--db", help="reuse (or keep) the knowledge base here")
    args = parser.parse_args()

    from lancedb.query import ColumnOrdering

    from flows.index.search import search
    from flows.index.store import Store
    from flows.settings import Settings

    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or str(Path(tmp) / "db")
        store = Store(db)
        if store.count() == 0:
            print(f"building {args.files:,} files x {args.chunks} chunks ...", flush=True)
            print(f"built in {build(db, args.files, args.chunks):.0f} s", flush=True)
        chunks, files = store.count(), store.manifest_table().count_rows()
        base, server = serve(db)
        manifest = store.manifest_table()
        settings = Settings(db=db)
        pages = -(-files // 50)
        cases = [
            ("file list, page 1", "/kb/default/files",
             lambda: manifest.search().select(["path", "format", "strategy", "chunks", "status"])
             .order_by([ColumnOrdering(column_name="path")]).limit(50).to_list()),
            (f"file list, page {pages // 2:,}", f"/kb/default/files?page={pages // 2}",
             lambda: manifest.search().select(["path", "format", "strategy", "chunks", "status"])
             .order_by([ColumnOrdering(column_name="path")]).limit(50).offset((pages // 2 - 1) * 50).to_list()),
            ("file list, failed, type pdf", "/kb/default/files?status=failed&format=pdf",
             lambda: manifest.search().where("status = 'failed' AND format = 'pdf'").select(["path"])
             .order_by([ColumnOrdering(column_name="path")]).limit(50).to_list()),
        ]
        for mode, query in (("fts", "개인정보 보관 기록"), ("hybrid", "개인정보 보관 기록"), ("vector", "quarterly budget review"),
                            ("hybrid", "quarterly budget review")):
            cases.append((f"search {mode}, k 5: {query}", "/kb/default/search?" + urllib.parse.urlencode(
                {"q": query, "mode": mode, "k": 5}), lambda m=mode, q=query: search(settings, q, 5, m)))
        cases.append(("search fts beside hybrid", "/kb/default/search?" + urllib.parse.urlencode(
            {"q": "개인정보 보관 기록", "mode": "fts", "mode2": "hybrid", "k": 5}),
            lambda: (search(settings, "개인정보 보관 기록", 5, "fts"), search(settings, "개인정보 보관 기록", 5, "hybrid"))))
        sample = manifest.search().where("status = 'indexed'").limit(1).to_list()[0]["path"]
        cases.append(("a file's chunks", "/kb/default/file?" + urllib.parse.urlencode({"path": sample}),
                      lambda: store.chunks_table().search().where(f"source = '{sample}'").limit(None).to_list()))

        print(f"\n{files:,} files, {chunks:,} chunks; median of {args.repeat} fetches after a first one\n")
        print(f"| {'page':44} | {'first s':>7} | {'page s':>7} | {'baseline s':>10} | {'page / baseline':>15} |")
        print(f"|{'-' * 46}|{'-' * 9}|{'-' * 9}|{'-' * 12}|{'-' * 17}|")
        for name, path, baseline in cases:
            first, page = timings(lambda p=path: fetch(base + p), args.repeat)
            _, direct = timings(baseline, args.repeat)
            print(f"| {name:44} | {first:7.3f} | {page:7.3f} | {direct:10.3f} | {page / direct:14.1f}x |", flush=True)
        server.should_exit = True


if __name__ == "__main__":
    main()
