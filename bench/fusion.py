"""How to fuse the vector and full-text rankings: measured on the knowledge bases ``seams evaluate`` wrote.

    python bench/fusion.py --chroma ../shared/bench/chroma
    python bench/fusion.py --folder .seams/devset/files --questions bench/devset/questions.jsonl

Run ``seams evaluate`` on the same data set first (same ``--db``, default ``.seams/evaluate``): this
reads its tables and cached question vectors, ranks every question once per retrieval mode, then
scores several fusions of the two rankings — reciprocal-rank fusion with the vector ranking
weighted 0 (full text alone) to 1 (equal weights), and full text alone — against the best single
mode. Prints one table per configuration: hit@k and recall for each fusion, and which is best.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flows.embedders import get_embedder, text_hash
from flows.evaluate import metrics
from flows.evaluate.configs import configurations
from flows.evaluate.runner import Options, embed_texts, load_dataset, rank_chunks
from flows.search import RRF_K
from flows.store import Store

WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.75, 1.0)


def fuse(vector: list, fts: list, weight: float, depth: int) -> list:
    """Weighted reciprocal-rank fusion: full text counts 1, the vector ranking ``weight``."""
    scores: dict = {}
    for rank, span in enumerate(fts, start=1):
        scores[span] = scores.get(span, 0.0) + 1.0 / (RRF_K + rank)
    for rank, span in enumerate(vector, start=1):
        scores[span] = scores.get(span, 0.0) + weight / (RRF_K + rank)
    return sorted(scores, key=lambda s: (-scores[s], s.doc_id, s.start))[:depth]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--chroma")
    source.add_argument("--folder")
    parser.add_argument("--questions")
    parser.add_argument("--configs", default="seams", help="comma-separated configurations already evaluated")
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--db", default=".seams/evaluate")
    parser.add_argument("-k", type=int, default=5)
    args = parser.parse_args(argv)
    dataset = load_dataset("chroma" if args.chroma else "folder", args.chroma or args.folder, args.questions)
    options = Options(k=args.k, db=args.db)
    embedder = get_embedder(options.embedder, options.threads)
    texts = {text_hash(q.text): q.text for q in dataset.questions}
    vectors, _, _ = embed_texts(texts, embedder, Store(options.store_uri, "eval"), options.batch, "questions")
    import numpy as np

    query_vectors = np.stack([vectors[text_hash(q.text)] for q in dataset.questions]).astype(np.float32)
    for config in configurations(args.configs.split(","), args.variant):
        table = Store(options.store_uri, config.kb(options.embedder, dataset.name)).chunks_table()
        if table is None:
            print(f"{config.name}: no table in {options.store_uri}; run seams evaluate first")
            continue
        rankings, _ = rank_chunks(table, dataset.questions, query_vectors, ("vector", "fts"), options.depth)
        candidates = {"vector": rankings["vector"], "fts": rankings["fts"]}
        for weight in WEIGHTS[1:]:
            candidates[f"rrf w={weight}"] = [fuse(v, f, weight, options.depth)
                                              for v, f in zip(rankings["vector"], rankings["fts"], strict=True)]
        groups = sorted({q.language for q in dataset.questions} - {""})
        print(f"\n{dataset.name} · {config.name} · k={args.k} · {len(dataset.questions)} questions")
        print(f"{'ranking':<14} {'hit@k %':>8} {'recall %':>9}" + "".join(f" {'hit ' + g:>8}" for g in groups))
        for name, ranked in candidates.items():
            hits, recalls, by_group = [], [], {g: [] for g in groups}
            for question, spans in zip(dataset.questions, ranked, strict=True):
                excerpts = [metrics.Span(e.doc_id, e.start, e.end) for e in question.excerpts]
                scores = metrics.overlap_scores(excerpts, spans[:args.k])
                hits.append(scores.hit)
                recalls.append(scores.recall)
                if question.language:
                    by_group[question.language].append(scores.hit)
            print(f"{name:<14} {100 * statistics.fmean(hits):8.1f} {100 * statistics.fmean(recalls):9.1f}"
                  + "".join(f" {100 * statistics.fmean(by_group[g]):8.1f}" for g in groups))
    return 0


if __name__ == "__main__":
    sys.exit(main())
