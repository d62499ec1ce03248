"""How to fuse the vector and full-text rankings: measured on the knowledge bases ``seams evaluate`` wrote.

    python bench/fusion.py --chroma ../shared/bench/chroma
    python bench/fusion.py --folder .seams/devset/files --questions bench/devset/questions.jsonl

Run ``seams evaluate`` on the same data set first (same ``--db``, default ``.seams/evaluate``): this
reads its tables and cached question vectors, ranks every question once per retrieval mode as
``seams search`` does (with their scores), then scores fusions of the two rankings against the single
modes. A table cut from other texts than the files read as today (a parser changed, or Tesseract
was installed, since the evaluation) is refused: run ``seams evaluate`` again.

- ``rrf w=W``: reciprocal-rank fusion, full text weighted 1 and the vector ranking W;
- ``pool w=W``: the same, but the vector ranking only re-orders what full text found (it adds no
  chunk of its own);
- ``seat N``: full text's order, with the vector ranking's best chunk moved up to place N when
  full text ranks it lower or not at all (``rrf w=W seat N``: the same after reciprocal-rank fusion);
- ``mix a=A``: scores instead of ranks — BM25 over the query's best BM25, cosine over the best
  cosine, mixed A × vector + (1 − A) × full text.

Prints one table per configuration: hit@k, recall and MRR@k for each (MRR tells apart fusions that
tie on hit@k), and hit@k per question language.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flows.embed import embedder_for, text_hash
from flows.evaluate import metrics
from flows.evaluate.configs import configurations
from flows.evaluate.results import Options
from flows.evaluate.runner import embed_texts, load_dataset, ranked_rows, table_titles
from flows.index.search import Fusion, fuse
from flows.index.store import Store
from flows.settings import Settings

Scored = list[tuple[metrics.Span, float]]  # a ranking, best first, with each chunk's score


def rankings(table, passages, questions, vectors: np.ndarray, depth: int, titles=None, title_weight: float = 0.0,
             ) -> tuple[list[Scored], list[Scored]]:
    """Each question's vector and full-text rankings, ``depth`` deep, ranked by the function
    ``seams evaluate`` ranks with (:func:`flows.evaluate.runner.ranked_rows`), each chunk with its
    score (cosine, plus the document title's lift with ``titles``; BM25, or reciprocal rank where
    full text fused two rankings)."""
    def span(row: dict) -> metrics.Span:
        return metrics.Span(row["doc_id"], row["char_start"], row["char_end"])

    ranked, _ = ranked_rows(table, questions, vectors, ("vector", "fts"), depth, passages, titles=titles,
                            title_weight=title_weight)
    vector = [[(span(row), float(row["_score"]) if titles is not None else 1.0 - float(row["_distance"]))
               for row in rows] for rows in ranked["vector"]]
    fts = [[(span(row), float(row["_score"])) for row in rows] for rows in ranked["fts"]]
    return vector, fts


def stale_documents(table, dataset) -> list[str]:
    """The data set's documents whose text today is not what ``table``'s chunks were cut from (a
    parser changed, or OCR became available, since ``seams evaluate`` wrote it): scores on a stale
    table compare spans of two different texts."""
    stored = table.search().select(["doc_id", "content_hash"]).limit(None).to_arrow()
    hashes = dict(zip(stored["doc_id"].to_pylist(), stored["content_hash"].to_pylist(), strict=True))
    return sorted(doc_id for doc_id, doc in dataset.documents.items()
                  if doc_id in hashes and hashes[doc_id] != text_hash(doc.text))


def rrf(vector: Scored, fts: Scored, weight: float, seat: int = 0) -> list[metrics.Span]:
    """The fusion ``seams search --mode hybrid`` runs (:func:`flows.index.search.fuse`), at ``weight``,
    the vector ranking's best chunk seated at ``seat``."""
    def rows(ranking: Scored) -> list[dict]:
        return [{"chunk_id": f"{span.doc_id}\x00{span.start:012d}", "span": span} for span, _ in ranking]

    return [row["span"] for row in fuse(rows(vector), rows(fts), len(vector) + len(fts), Fusion(weight, seat))]


def pool(vector: Scored, fts: Scored, weight: float) -> list[metrics.Span]:
    """Like :func:`rrf`, but the vector ranking only re-orders what full text found."""
    found = {span for span, _ in fts}
    return rrf([(span, score) for span, score in vector if span in found], fts, weight)


def mix(vector: Scored, fts: Scored, alpha: float) -> list[metrics.Span]:
    scores: dict[metrics.Span, float] = {}
    top_fts = max((s for _, s in fts), default=1.0) or 1.0
    top_vec = max((s for _, s in vector), default=1.0) or 1.0
    for span, score in fts:
        scores[span] = (1 - alpha) * score / top_fts
    for span, score in vector:
        scores[span] = scores.get(span, 0.0) + alpha * score / top_vec
    return sorted(scores, key=lambda s: (-scores[s], s.doc_id, s.start))


def fusions() -> dict[str, Callable[[Scored, Scored], list[metrics.Span]]]:
    out: dict[str, Callable[[Scored, Scored], list[metrics.Span]]] = {
        "vector": lambda v, f: [s for s, _ in v],
        "fts": lambda v, f: [s for s, _ in f],
    }
    for weight in (0.02, 0.05, 0.1, 0.25, 0.5, 1.0):
        out[f"rrf w={weight}"] = lambda v, f, w=weight: rrf(v, f, w)
        out[f"pool w={weight}"] = lambda v, f, w=weight: pool(v, f, w)
    for seat in (1, 3, 5):
        out[f"seat {seat}"] = lambda v, f, s=seat: rrf(v, f, 0.0, s)
    out["rrf w=0.02 seat 3"] = lambda v, f: rrf(v, f, 0.02, 3)
    for alpha in (0.1, 0.2, 0.3, 0.5):
        out[f"mix a={alpha}"] = lambda v, f, a=alpha: mix(v, f, a)
    return out


def evaluated_tables_parser(description: str) -> argparse.ArgumentParser:
    """The options of a bench that reads the tables a ``seams evaluate`` run wrote: the data set,
    the configurations evaluated, their database and k (also used by bench/korean_fts.py)."""
    parser = argparse.ArgumentParser(description=description)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--chroma")
    source.add_argument("--folder")
    parser.add_argument("--questions")
    parser.add_argument("--configs", default="seams", help="comma-separated configurations already evaluated")
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--db", default=".seams/evaluate")
    parser.add_argument("-k", type=int, default=5)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = evaluated_tables_parser(__doc__.split("\n\n")[0]).parse_args(argv)
    dataset = load_dataset("chroma" if args.chroma else "folder", args.chroma or args.folder, args.questions)
    options = Options(k=args.k, settings=Settings(db=args.db))
    embedder = embedder_for(options.settings)
    texts = {text_hash(q.text): q.text for q in dataset.questions}
    cached, _, _ = embed_texts(texts, embedder, Store(options.store_uri, "eval"), options.batch, "questions",
                                 queries=True)
    vectors = np.stack([cached[text_hash(q.text)] for q in dataset.questions]).astype(np.float32)
    languages = sorted({q.language for q in dataset.questions} - {""})
    for config in configurations(args.configs.split(","), args.variant):
        store = Store(options.store_uri, config.kb(options.embedder, dataset.name))
        table = store.chunks_table()
        if table is None:
            print(f"{config.name}: no table in {options.store_uri}; run seams evaluate first")
            continue
        stale = stale_documents(table, dataset)
        if stale:
            print(f"{config.name}: the table in {options.store_uri} was cut from other texts of "
                  f"{len(stale)} document(s) ({', '.join(stale[:3])}{' …' if len(stale) > 3 else ''}) than they "
                  "read as today; run seams evaluate again first")
            return 1
        vector, fts = rankings(table, store.passages.table(), dataset.questions, vectors, options.depth,
                               table_titles(store, table, options.settings), options.settings.title_weight)
        print(f"\n{dataset.name} · {config.name} · k={args.k} · {len(dataset.questions)} questions")
        print(f"{'ranking':<18} {'hit@k %':>8} {'recall %':>9} {'MRR@k':>6}"
              + "".join(f" {'hit ' + g:>8}" for g in languages))
        for name, ranking in fusions().items():
            hits, recalls, reciprocal, by_language = [], [], [], {g: [] for g in languages}
            for question, v, f in zip(dataset.questions, vector, fts, strict=True):
                excerpts = [metrics.Span(e.doc_id, e.start, e.end) for e in question.excerpts]
                ranked = ranking(v, f)
                scores = metrics.overlap_scores(excerpts, ranked[:args.k])
                reciprocal.append(metrics.reciprocal_rank(metrics.first_evidence_rank(excerpts, ranked), args.k))
                hits.append(scores.hit)
                recalls.append(scores.recall)
                if question.language:
                    by_language[question.language].append(scores.hit)
            print(f"{name:<18} {100 * statistics.fmean(hits):8.1f} {100 * statistics.fmean(recalls):9.1f}"
                  f" {statistics.fmean(reciprocal):6.3f}"
                  + "".join(f" {100 * statistics.fmean(by_language[g]):8.1f}" for g in languages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
