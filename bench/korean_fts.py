"""Korean full text: a morphological analyser (Kiwi) against seams' character 2-3-gram index.

    python bench/korean_fts.py --folder .seams/devset/files --questions bench/devset/questions.jsonl \
        --db .seams/evaluate --configs seams,tokens:800/400

Run ``seams evaluate`` on the same data set first (same ``--db``; any ``--embedder``: full text does
not use it): this reads the chunk tables it wrote and, for every configuration, ranks each question
with BM25 three ways over the same chunks —

- ``ngram``: today's index (``fts_text``: the document's title, then the chunk, as character
  2-3-grams; a question in Latin letters only goes to the word index ``fts_words``, as in search);
- ``kiwi``: the same text cut into morphemes by Kiwi (``pip install kiwipiepy``; its model ships in
  ``kiwipiepy_model`` on PyPI, nothing is downloaded), content morphemes only (nouns, verb and
  adjective stems, roots, numbers, Latin words, hanja; particles, endings and punctuation dropped),
  indexed as whitespace-separated words; the question cut the same way;
- ``+kiwi w=W``: reciprocal-rank fusion of the two rankings, n-grams weighted 1 and Kiwi W;

and prints hit@k, recall and MRR@k per ranking, per question kind and per language, then the
questions each ranking finds in the top k that the n-grams miss, or misses where they find. Nothing in the
knowledge bases changes: the Kiwi index is built in a temporary LanceDB beside them.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fusion import evaluated_tables_parser

from flows.evaluate import metrics
from flows.evaluate.configs import configurations
from flows.evaluate.results import Options
from flows.evaluate.runner import load_dataset
from flows.index.search import ensure_fts_index, fts_column, fts_query
from flows.index.store import Store
from flows.settings import Settings

#: Kiwi's part-of-speech tags kept as index words (the Sejong tag set Kiwi uses): nouns, pronouns,
#: numerals, verb and adjective stems, adverbs, determiners, roots, Latin words, hanja, numbers, and
#: the kinds of text Kiwi recognises whole (URLs, e-mail addresses, hashtags, mentions).
CONTENT_TAGS = ("NNG", "NNP", "NNB", "NR", "NP", "VV", "VA", "VX", "MM", "MAG", "XR", "SL", "SH", "SN",
                "W_URL", "W_EMAIL", "W_HASHTAG", "W_MENTION", "W_SERIAL")
COLUMNS = ["doc_id", "char_start", "char_end"]
RRF_K = 60
WEIGHTS = (0.25, 0.5, 1.0)  # Kiwi's ranking against the n-grams' in the fused rankings


class Morphemes:
    """Text as the space-joined content morphemes Kiwi finds in it."""

    def __init__(self) -> None:
        from kiwipiepy import Kiwi

        self.kiwi = Kiwi(num_workers=2)

    def __call__(self, texts: list[str]) -> list[str]:
        out = []
        for tokens in self.kiwi.tokenize(texts):
            out.append(" ".join(t.form.lower() for t in tokens if t.tag.split("-")[0] in CONTENT_TAGS) or "_")
        return out


def kiwi_table(rows: list[dict], words: Morphemes, folder: str):
    """A LanceDB table of the chunks' spans and their text as morphemes, with a word BM25 index."""
    import lancedb
    from lancedb.index import FTS

    db = lancedb.connect(folder)
    texts = words([row["fts_text"] or "" for row in rows])
    table = db.create_table("kiwi", [dict({c: row[c] for c in COLUMNS}, fts_kiwi=text)
                                     for row, text in zip(rows, texts, strict=True)], mode="overwrite")
    table.create_index("fts_kiwi", config=FTS(base_tokenizer="whitespace", lower_case=True, stem=False,
                                              remove_stop_words=False, ascii_folding=True), replace=True)
    return table


def ranking(table, column: str, query: str, depth: int) -> list[metrics.Span]:
    try:
        rows = (table.search(query, query_type="fts", fts_columns=column).limit(depth)
                .select([*COLUMNS, "_score"]).to_arrow().to_pylist())
    except (ValueError, RuntimeError, OSError):
        rows = []
    return [metrics.Span(row["doc_id"], row["char_start"], row["char_end"]) for row in rows]


def fused(ngram: list[metrics.Span], kiwi: list[metrics.Span], weight: float) -> list[metrics.Span]:
    """Reciprocal-rank fusion, the n-gram ranking weighted 1 and Kiwi's ``weight``."""
    scores: dict[metrics.Span, float] = defaultdict(float)
    for ranked, w in ((ngram, 1.0), (kiwi, weight)):
        for rank, span in enumerate(ranked):
            scores[span] += w / (RRF_K + rank + 1)
    return sorted(scores, key=lambda s: (-scores[s], s.doc_id, s.start))


def main(argv: list[str] | None = None) -> int:
    parser = evaluated_tables_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", default="hashing", help="the embedder the evaluation ran with (names its tables)")
    args = parser.parse_args(argv)
    dataset = load_dataset("chroma" if args.chroma else "folder", args.chroma or args.folder, args.questions)
    options = Options(k=args.k, settings=Settings(db=args.db, embedder=args.embedder))
    words = Morphemes()
    questions = dataset.questions
    asked = words([fts_query(q.text) for q in questions])
    for config in configurations(args.configs.split(","), args.variant):
        table = Store(options.store_uri, config.kb(options.embedder, dataset.name)).chunks_table()
        if table is None:
            print(f"{config.name}: no table in {options.store_uri}; run seams evaluate first")
            continue
        ensure_fts_index(table)
        rows = table.to_arrow().select([*COLUMNS, "fts_text"]).to_pylist()
        with tempfile.TemporaryDirectory() as folder:
            kiwi = kiwi_table(rows, words, folder)
            ranked: dict[str, list[list[metrics.Span]]] = defaultdict(list)
            for question, morphs in zip(questions, asked, strict=True):
                ngram = ranking(table, fts_column(question.text), fts_query(question.text), options.depth)
                latin = fts_column(question.text) == "fts_words"
                by_kiwi = ngram if latin else ranking(kiwi, "fts_kiwi", morphs, options.depth)
                ranked["ngram"].append(ngram)
                ranked["kiwi"].append(by_kiwi)
                for weight in WEIGHTS:
                    ranked[f"+kiwi w={weight}"].append(ngram if latin else fused(ngram, by_kiwi, weight))
        report(dataset.name, config.name, questions, ranked, args.k)
    return 0


def report(name: str, config: str, questions, ranked: dict[str, list[list[metrics.Span]]], k: int) -> None:
    kinds = sorted({q.kind for q in questions} - {""})
    languages = sorted({q.language for q in questions} - {""})
    groups = [*(f"kind {kind}" for kind in kinds), *(f"lang {lang}" for lang in languages)]
    print(f"\n{name} · {config} · k={k} · {len(questions)} questions")
    print(f"{'ranking':<14} {'hit@k %':>8} {'recall %':>9} {'MRR@k':>6}"
          + "".join(f" {g + f' ({sum(1 for q in questions if g.split()[1] in (q.kind, q.language))})':>22}"
                    for g in groups))
    for ranking_name, rankings in ranked.items():
        hits, recalls, reciprocal = [], [], []
        by: dict[str, list[int]] = defaultdict(list)
        for question, spans in zip(questions, rankings, strict=True):
            excerpts = [metrics.Span(e.doc_id, e.start, e.end) for e in question.excerpts]
            scores = metrics.overlap_scores(excerpts, spans[:k])
            hits.append(scores.hit)
            recalls.append(scores.recall)
            reciprocal.append(metrics.reciprocal_rank(metrics.first_evidence_rank(excerpts, spans), k))
            by[f"kind {question.kind}"].append(scores.hit)
            by[f"lang {question.language}"].append(scores.hit)
        print(f"{ranking_name:<14} {100 * statistics.fmean(hits):8.1f} {100 * statistics.fmean(recalls):9.1f}"
              f" {statistics.fmean(reciprocal):6.3f}"
              + "".join(f" {100 * statistics.fmean(by[g]):22.1f}" for g in groups))
    base = [hit(q, spans, k) for q, spans in zip(questions, ranked["ngram"], strict=True)]
    for ranking_name, rankings in ranked.items():
        now = [hit(q, spans, k) for q, spans in zip(questions, rankings, strict=True)]
        gained = [q.qid for q, a, b in zip(questions, base, now, strict=True) if b and not a]
        lost = [q.qid for q, a, b in zip(questions, base, now, strict=True) if a and not b]
        if gained or lost:
            print(f"  {ranking_name}: gains {', '.join(gained) or '-'}; loses {', '.join(lost) or '-'}")


def hit(question, spans: list[metrics.Span], k: int) -> bool:
    return bool(metrics.overlap_scores([metrics.Span(e.doc_id, e.start, e.end) for e in question.excerpts], spans[:k]).hit)


if __name__ == "__main__":
    sys.exit(main())
