"""The evaluation flow: every configuration cut, embedded and written to its own knowledge base, then
queried in every retrieval mode and scored against the gold excerpts.

    load data set ─▶ embed questions ─▶ for each configuration:
        cut ─▶ embed (cache by text hash) ─▶ write KB + full-text index ─▶ retrieve × modes ─▶ score
    ─▶ report (Markdown, CSV, PNG) ─▶ Prefect artifacts

It reads what it writes: rankings come from the LanceDB tables, the same store ``seams search``
uses — vector search is exact (no ANN index is ever built on these tables), full-text search is
BM25 as :mod:`flows.index.search` runs it (the stemmed word index for queries in Latin letters, the
character n-gram index otherwise) and hybrid is its reciprocal-rank fusion. The
evaluation database (default ``.seams/evaluate``, one LanceDB folder per embedder in it) keeps the
embedding cache between runs, so a second run, or a new configuration, embeds only chunk texts it
has not seen. Each run rewrites its configurations' tables from scratch (from cached vectors), so
they always hold this data set.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

from classifiers import Decision
from flows.embed import Embedder, embed_cached, embedder_for, text_hash
from flows.embed.cutting import cutting_embed
from flows.errors import UsageError
from flows.evaluate import metrics, report
from flows.evaluate.configs import Configuration, configurations
from flows.evaluate.datasets import Dataset, Question, load_chroma, load_folder
from flows.evaluate.peers import PEERS, PeerRun, run_peer
from flows.evaluate.results import DEFAULT_DB, Cost, Evaluation, Options, QueryScore
from flows.index.search import (
    DEFAULT_FUSION,
    MODES,
    TITLE_POOL,
    Fusion,
    ensure_fts_index,
    fts_ranking,
    fuse,
    hybrid_fusion,
    title_vectors,
    with_titles,
)
from flows.index.store import Store, now
from flows.index.upkeep import VECTOR_SEARCH_COLUMN
from flows.ingest.pipeline import CutConfig, FileRef, Outcome, cut_document, embedded_texts
from flows.ingest.rows import chunk_rows
from flows.progress import Listeners
from flows.settings import Settings
from splitters import Budget, Chunk, Embed
from splitters import quality as intrinsic
from splitters.chunk import cl100k, cl100k_counter
from splitters.semantic import piece_spans, piece_vectors

_COLUMNS = ["chunk_id", "doc_id", "char_start", "char_end"]  # what scoring reads of a ranked chunk (flows.index.schema.ROW_COLUMNS)

#: Called with a line of progress ("embedding tokens:250/125: 1,024/2,611 chunks"); the CLI prints it.
ProgressListener = Callable[[str], None]
progress = Listeners()


def _say(message: str) -> None:
    progress.notify(message)


# -- steps (plain functions; the flow wraps them as tasks) -------------------------------------------
def load_dataset(source: str, path: str, questions: str | None = None) -> Dataset:
    if source == "chroma":
        return load_chroma(path)
    if source == "folder":
        if not questions:
            raise UsageError("--folder needs --questions FILE.jsonl")
        return load_folder(path, questions)
    raise UsageError(f"unknown data set kind {source!r}; known: chroma, folder")


def embed_texts(texts: dict[str, str], embedder: Embedder, store: Store, batch: int, label: str,
                queries: bool = False) -> tuple[dict[str, np.ndarray], int, float]:
    """Vectors for ``{hash: text}`` (passages; ``queries``: questions), from the cache where possible,
    with progress lines. Returns (vectors, new, seconds)."""
    started = time.perf_counter()
    last_report = [started]

    def on_progress(done: int, total: int) -> None:
        if done == 0:
            _say(f"{label}: embedding {total:,} new texts with {embedder.name} ({len(texts) - total:,} from the cache)")
        elif time.perf_counter() - last_report[0] > 10 or done == total:
            last_report[0] = time.perf_counter()
            _say(f"{label}: embedded {done:,}/{total:,} ({last_report[0] - started:.0f} s)")

    vectors, new = embed_cached(texts, embedder, store, batch, on_progress, queries)
    return vectors, new, time.perf_counter() - started if new else 0.0


def cut_configuration(dataset: Dataset, config: Configuration, embed: Embed | None = None
                      ) -> tuple[dict[str, tuple[Decision, list[Chunk]]], float]:
    """Every document of the collection cut with the configuration (``embed``: for the cuts that
    embed, :func:`cut_embedder`). Returns (doc_id -> cut, seconds)."""
    started = time.perf_counter()
    labels = config.label_rows != "off"
    cut_config = CutConfig(config.budget, config.strategy, label_rows=labels, budgets=dict(config.budgets))
    if config.only is None:
        cuts = {doc_id: cut_document(doc, cut_config, doc_id, embed) for doc_id, doc in dataset.documents.items()}
        return cuts, time.perf_counter() - started
    # only=STRATEGY: the default cut, except for the files the classifier gives STRATEGY
    default = CutConfig(Budget(), label_rows=labels)
    cuts = {}
    for doc_id, doc in dataset.documents.items():
        cuts[doc_id] = cut_document(doc, default, doc_id)
        if cuts[doc_id][0].strategy == config.only:
            cut = cut_document(doc, cut_config, doc_id, embed)
            if cut[0].strategy == config.only:
                cuts[doc_id] = cut
    return cuts, time.perf_counter() - started


def cut_peer(dataset: Dataset, config: Configuration) -> tuple[dict[str, tuple[Decision, list[Chunk]]], float, PeerRun]:
    """The collection's files parsed and chunked by a peer in a child process (:mod:`flows.evaluate.peers`).
    Each file's chunk texts become :class:`Chunk` objects laid end to end in a text of their own
    (a peer's chunks have no offsets in seams' parsed text): the store and the rankings need a
    span per chunk; scoring reads the chunks' texts. Returns (doc_id -> cut, seconds, the run)."""
    files = dataset.files or tuple((doc_id, doc.path) for doc_id, doc in dataset.documents.items())
    _say(f"{config.name}: {PEERS[config.peer].summary}, in a child process")
    run = run_peer(config.peer, files)
    count = cl100k()
    decision = Decision(config.name, config.peer, PEERS[config.peer].summary)
    texts: dict[str, list[str]] = {}
    for doc_id, text in run.chunks:
        texts.setdefault(doc_id, []).append(text)
    cuts: dict[str, tuple[Decision, list[Chunk]]] = {}
    for doc_id, chunk_texts in texts.items():
        chunks, offset = [], 0
        for text in chunk_texts:
            chunks.append(Chunk(text, offset, offset + len(text), len(count.encode(text, disallowed_special=()))))
            offset += len(text) + 1
        cuts[doc_id] = (decision, chunks)
    return cuts, run.seconds, run


def cut_embedder(options: Options) -> Embed:
    """The embedding function the embedding-driven cuts and the intrinsic measures use: the
    evaluation's embedder, through its embedding cache."""
    return cutting_embed(embedder_for(options.settings), Store(options.store_uri, "eval"), options.batch)


#: doc_id -> (piece spans, their unit vectors): the pieces every cut of a document is measured with.
Pieces = dict[str, tuple[list[tuple[int, int]], np.ndarray | None]]


def document_pieces(dataset: Dataset, embed: Embed | None) -> Pieces:
    """Each document's ~50-token pieces and, with ``embed``, their vectors (once per data set)."""
    count = cl100k_counter()
    pieces: Pieces = {}
    for doc_id, doc in dataset.documents.items():
        spans = piece_spans(doc, count)
        pieces[doc_id] = (spans, piece_vectors(doc, spans, embed) if embed is not None and spans else None)
    return pieces


def intrinsic_measures(dataset: Dataset, config: Configuration, cuts: dict[str, tuple[Decision, list[Chunk]]],
                       pieces: Pieces) -> dict[str, float | None]:
    """The configuration's intrinsic measures (:mod:`splitters.quality`), each the mean over the
    documents that have it."""
    count = cl100k_counter()
    values: dict[str, list[float]] = {"size_compliance": [], "block_integrity": [], "cohesion": [], "coherence": []}
    for doc_id, (_, chunks) in cuts.items():
        doc = dataset.documents.get(doc_id)
        if doc is None or not chunks:
            continue
        spans, vectors = pieces.get(doc_id, ([], None))
        measured = intrinsic.measure(doc, chunks, count, config.budget.min_tokens, config.size_limit, spans, vectors)
        for name in values:
            value = getattr(measured, name)
            if value is not None:
                values[name].append(value)
    return {name: statistics.fmean(v) if v else None for name, v in values.items()}


def evidence_lost(dataset: Dataset, cuts: dict[str, tuple[Decision, list[Chunk]]]) -> tuple[int, int, int]:
    """(evidence strings, held by no chunk even with only letters and digits compared (a table row: its
    cells in order), held only so)."""
    total = lost = altered = 0
    loose: dict[str, list[str]] = {}
    strict: dict[str, list[str]] = {}
    for question in dataset.questions:
        doc_id = question.excerpts[0].doc_id if question.excerpts else ""
        if doc_id not in loose:
            chunks = cuts.get(doc_id, (None, []))[1]
            loose[doc_id] = [metrics.fold(c.text) for c in chunks]
            strict[doc_id] = [metrics.fold_spaces(c.text) for c in chunks]
        for evidence in _evidence(question, dataset):
            total += 1
            if not metrics.held([metrics.pattern(evidence)], loose[doc_id])[0]:
                lost += 1
            elif not any(metrics.fold_spaces(evidence) in text for text in strict[doc_id]):
                altered += 1
    return total, lost, altered


def _evidence(question: Question, dataset: Dataset) -> tuple[str, ...]:
    """The question's evidence strings as given, or (a data set built without them) as located."""
    if question.evidence:
        return question.evidence
    return tuple(dataset.documents[e.doc_id].text[e.start:e.end] for e in question.excerpts
                 if e.doc_id in dataset.documents)


def config_settings(config: Configuration, options: Options, dataset: str = "") -> Settings:
    """The settings of a configuration's knowledge base: the command's, with the configuration's own
    cut and its table in the embedder's database."""
    budget = config.budget
    return Settings(**{
        **options.settings.model_dump(), "db": options.store_uri, "kb": config.kb(options.embedder, dataset),
        "strategy": config.strategy, "min_tokens": budget.min_tokens, "max_tokens": budget.max_tokens,
        "merge_ceiling": budget.merge_ceiling, "pack_tokens": budget.pack, "embed_heading_path": config.heading_path,
        "embed_plain_cells": config.plain_cells, "label_rows": config.label_rows,
    })


def index_configuration(dataset: Dataset, config: Configuration, cuts: dict[str, tuple[Decision, list[Chunk]]],
                        cut_seconds: float, options: Options, run: PeerRun | None = None,
                        pieces: Pieces | None = None) -> Cost:
    """Embed the configuration's chunks (cache first) and write them as a fresh KB with its
    full-text index. Returns the configuration's cost and intrinsic checks."""
    settings = config_settings(config, options, dataset.name)
    embedder = embedder_for(options.settings)
    store = Store(options.store_uri, settings.kb)
    store.cache.drop_stale()
    texts = {text_hash(text): text for _, chunks in cuts.values() for c in chunks
             for text in embedded_texts(c, config.heading_path, config.plain_cells, settings.passage_tokens,
                                            config.label_rows != "off")}
    vectors, embedded, embed_seconds = embed_texts(texts, embedder, store, options.batch, config.name)
    started = time.perf_counter()
    store.drop_chunks()
    indexed_at = now()
    rows: list[dict] = []
    paths: list[str] = []
    file_paths = dict(dataset.files)
    for doc_id, (decision, chunks) in cuts.items():
        doc = dataset.documents.get(doc_id)  # a peer may read a file seams did not
        path = doc.path if doc else file_paths.get(doc_id, doc_id)
        text = doc.text if doc else "\n".join(c.text for c in chunks)
        fmt = doc.format if doc else Path(path).suffix.lstrip(".").lower()
        ref = FileRef(root=dataset.name, path=path, doc_id=doc_id, size=len(text), mtime=0.0)
        outcome = Outcome(ref, text_hash(text), fmt, decision, tuple(chunks))
        rows.extend(chunk_rows(outcome, settings, vectors, embedder.dim, indexed_at))
        paths.append(path)
    store.replace_documents(rows, paths, embedder.dim)
    ensure_fts_index(store.chunks_table())
    store.passages.update(store.chunks_table())
    write_seconds = time.perf_counter() - started

    all_chunks = [c for _, chunks in cuts.values() for c in chunks]
    tokens = [c.tokens for c in all_chunks] or [0]
    limit = config.size_limit
    strategies: dict[str, int] = {}
    for decision, _ in cuts.values():
        strategies[decision.strategy] = strategies.get(decision.strategy, 0) + 1
    evidence, lost, altered = evidence_lost(dataset, cuts)
    peer = config.peer is not None  # a peer's chunks are not spans of seams' text: no intrinsic checks
    measures = {} if peer or pieces is None else intrinsic_measures(dataset, config, cuts, pieces)
    return Cost(
        configuration=config.name,
        chunks=len(all_chunks),
        tokens_mean=statistics.fmean(tokens),
        tokens_median=statistics.median(tokens),
        index_bytes=_disk_size(Path(options.store_uri) / f"{store.chunks_table_name}.lance"),
        cut_seconds=cut_seconds,
        embed_seconds=embed_seconds,
        embedded=embedded,
        reused=len(texts) - embedded,
        write_seconds=write_seconds,
        within_budget=None if limit is None else sum(t <= limit for t in tokens) / len(tokens),
        under_min=None if config.baseline else sum(t < config.budget.min_tokens for t in tokens) / len(tokens),
        tables_split=0 if peer else sum(metrics.tables_split_without_header(dataset.documents[d], ch)
                                        for d, (_, ch) in cuts.items()),
        headings_at_end=0 if peer else sum(metrics.headings_at_chunk_end(dataset.documents[d], ch)
                                           for d, (_, ch) in cuts.items()),
        strategies=tuple(sorted(strategies.items())),
        evidence=evidence, evidence_lost=lost, evidence_altered=altered,
        unread=run.failed if run else (), peak_rss=run.peak_rss if run else None,
        **measures,
    )


def _disk_size(path: Path) -> int | None:
    if not path.exists():
        return None
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def ranked_rows(table, questions: Sequence[Question], query_vectors: np.ndarray, modes: Sequence[str],
                depth: int, passages=None, fusion: Fusion = DEFAULT_FUSION,
                titles: Mapping[str, np.ndarray] | None = None, title_weight: float = 0.0,
                ) -> tuple[dict[str, list[list[dict]]], int]:
    """For every mode, each question's ranked rows (``depth`` deep), as ``seams search`` ranks them:
    vector rows carry ``_distance`` (cosine; ties by chunk id), re-ranked with ``title_weight`` by
    their documents' ``titles`` (:func:`flows.index.search.with_titles`, which sets ``_score``);
    full-text rows ``_score`` (BM25, or reciprocal rank where :func:`flows.index.search.fts_ranking`
    fused two rankings); ``hybrid`` fuses the two by ``fusion`` (:func:`hybrid_fusion`).
    Returns (rankings, fts failures)."""
    rankings: dict[str, list[list[dict]]] = {}
    failures = 0
    if "vector" in modes or "hybrid" in modes:
        # An exact (flat) search per question; the table has no vector index. (Several vectors given
        # to one search of a multivector column are one query, scored by the sum of their best
        # matches, not a batch of queries.)
        weight = title_weight if titles is not None else 0.0
        pool = max(depth, TITLE_POOL) if weight else depth
        per_query = [table.search(vector, vector_column_name=VECTOR_SEARCH_COLUMN).metric("cosine").limit(pool)
                     .select([*_COLUMNS, "source", "_distance"]).to_arrow().to_pylist() for vector in query_vectors]
        rankings["vector"] = [with_titles(rows, vector, titles, weight)[:depth] if weight
                              else sorted(rows, key=lambda r: (r["_distance"], r["chunk_id"]))
                              for rows, vector in zip(per_query, query_vectors, strict=True)]
    if "fts" in modes or "hybrid" in modes:
        ensure_fts_index(table)
        rankings["fts"] = []
        for question in questions:
            try:
                rows = fts_ranking(table, question.text, depth, passages, _COLUMNS)
            except (ValueError, RuntimeError, OSError):
                rows, failures = [], failures + 1
            rankings["fts"].append(rows)
    if "hybrid" in modes:
        rankings["hybrid"] = [fuse(v, f, depth, fusion) for v, f in zip(rankings["vector"], rankings["fts"], strict=True)]
    return {mode: rankings[mode] for mode in modes}, failures


def rank_chunks(table, questions: Sequence[Question], query_vectors: np.ndarray, modes: Sequence[str],
                depth: int, passages=None, fusion: Fusion = DEFAULT_FUSION,
                titles: Mapping[str, np.ndarray] | None = None, title_weight: float = 0.0,
                ) -> tuple[dict[str, list[list[metrics.Span]]], int]:
    """For every mode, each question's ranked chunk spans (:func:`ranked_rows`). Returns (rankings, fts failures)."""
    rankings, failures = ranked_rows(table, questions, query_vectors, modes, depth, passages, fusion,
                                     titles, title_weight)
    spans = {mode: [[metrics.Span(r["doc_id"], r["char_start"], r["char_end"]) for r in rows] for rows in ranked]
             for mode, ranked in rankings.items()}
    return spans, failures


def score_configuration(questions: Sequence[Question], config: Configuration, cuts: dict[str, tuple[Decision, list[Chunk]]],
                        rankings: dict[str, list[list[metrics.Span]]], k: int) -> list[QueryScore]:
    """Per-query scores of one configuration in every mode it was ranked in. Every configuration is
    also scored by containment (``text_hit``, ``text_recall``); a peer only so: its chunks are not
    spans of seams' text, so its rank, hit and recall are containment's and its precision, IoU and
    precision-Ω are not defined (NaN)."""
    chunk_spans = {doc_id: [metrics.Span(doc_id, c.start, c.end) for c in chunks] for doc_id, (_, chunks) in cuts.items()}
    tokens = {(doc_id, c.start, c.end): c.tokens for doc_id, (_, chunks) in cuts.items() for c in chunks}
    texts = {(doc_id, c.start, c.end): c.text for doc_id, (_, chunks) in cuts.items() for c in chunks}
    folded: dict[tuple[str, int, int], str] = {}

    def folded_text(span: metrics.Span) -> str:
        key = (span.doc_id, span.start, span.end)
        if key not in folded:
            folded[key] = metrics.fold(texts.get(key, ""))
        return folded[key]

    peer = config.peer is not None
    scores: list[QueryScore] = []
    for index, question in enumerate(questions):
        excerpts = [metrics.Span(e.doc_id, e.start, e.end) for e in question.excerpts]
        docs = {e.doc_id for e in excerpts}
        # no evidence strings (a question built in code, not loaded): no containment score
        evidence = [metrics.pattern(e) for e in question.evidence]
        candidates = [s for doc_id in docs for s in chunk_spans.get(doc_id, ())]
        omega = math.nan if peer else metrics.precision_omega(excerpts, candidates)
        for mode, ranked in rankings.items():
            top = ranked[index][:k]
            # containment counts only chunks of the question's file, as overlap counts only its spans
            ranked_texts = [folded_text(s) if s.doc_id in docs else "" for s in ranked[index]]
            contained = metrics.held(evidence, ranked_texts[:k])
            text_recall = sum(contained) / len(contained) if contained else 0.0
            text_hit = bool(contained) and all(contained)
            if peer:
                rank = metrics.first_holding_rank(evidence, ranked_texts)
                recall, precision, iou, hit = text_recall, math.nan, math.nan, text_hit
            else:
                overlap = metrics.overlap_scores(excerpts, top)
                rank = metrics.first_evidence_rank(excerpts, ranked[index])
                recall, precision, iou, hit = overlap.recall, overlap.precision, overlap.iou, overlap.hit
            scores.append(QueryScore(
                qid=question.qid, group=question.group, configuration=config.name, mode=mode, rank=rank,
                recall=recall, precision=precision, iou=iou, omega=omega,
                hit=hit, reciprocal_rank=metrics.reciprocal_rank(rank, k),
                doc_recall=metrics.document_recall(excerpts, top), dcg=metrics.document_dcg(excerpts, top),
                retrieved_tokens=statistics.fmean(tokens.get((s.doc_id, s.start, s.end), 0) for s in top) if top else 0.0,
                text_hit=text_hit, text_recall=text_recall,
            ))
    return scores



# -- the flow --------------------------------------------------------------------------------------
_load = task(name="load-dataset", cache_policy=NO_CACHE)(load_dataset)
_cut = task(name="cut-configuration", cache_policy=NO_CACHE)(cut_configuration)
_cut_peer = task(name="cut-peer", cache_policy=NO_CACHE)(cut_peer)
_index = task(name="index-configuration", cache_policy=NO_CACHE)(index_configuration)
_score = task(name="score-configuration", cache_policy=NO_CACHE)(score_configuration)
_pieces = task(name="embed-pieces", cache_policy=NO_CACHE)(document_pieces)


@task(name="embed-questions", cache_policy=NO_CACHE)
def _embed_questions(questions: Sequence[Question], options: Options) -> tuple[np.ndarray, float]:
    embedder = embedder_for(options.settings)
    started = time.perf_counter()
    texts = {text_hash(q.text): q.text for q in questions}
    vectors, _, _ = embed_texts(texts, embedder, Store(options.store_uri, "eval"), options.batch, "questions",
                                 queries=True)
    matrix = np.stack([vectors[text_hash(q.text)] for q in questions]) if questions else np.zeros((0, embedder.dim))
    return matrix.astype(np.float32), time.perf_counter() - started


@task(name="retrieve", cache_policy=NO_CACHE)
def _retrieve(config: Configuration, questions: Sequence[Question], query_vectors: np.ndarray,
              options: Options, dataset: str = "") -> tuple[dict[str, list[list[metrics.Span]]], int]:
    store = Store(options.store_uri, config.kb(options.embedder, dataset))
    table = store.chunks_table()
    titles = table_titles(store, table, options.settings) if {"vector", "hybrid"} & set(options.modes) else None
    return rank_chunks(table, questions, query_vectors, options.modes, options.depth,
                       store.passages.table(), hybrid_fusion(options.settings), titles, options.settings.title_weight)


def table_titles(store: Store, table, settings: Settings) -> dict[str, np.ndarray] | None:
    """The title vectors of every document ``table`` holds (:func:`flows.index.search.title_vectors`),
    for vector rankings with the settings' ``title_weight``; None when it is 0."""
    if not settings.title_weight:
        return None
    sources = table.search().select(["source"]).limit(None).to_arrow().column("source").unique().to_pylist()
    return title_vectors(store, embedder_for(settings), sources)


@flow(name="seams-evaluate", log_prints=False)
def evaluate_flow(source: str, path: str, questions: str | None = None, configs: list[str] | None = None,
                  variants: list[str] | None = None, k: int = 5, modes: list[str] | None = None,
                  settings: Settings | None = None, out: str | None = None, limit: int | None = None,
                  sweep: bool = False, cohesion: bool = True) -> Evaluation:
    """Score chunking configurations × retrieval modes on questions with known evidence spans.

    ``settings`` name the embedder, the evaluation database (``db``, default ``.seams/evaluate``) and
    the embedding threads and batch size; without them, ``SEAMS_*`` does. ``sweep``: also the variants
    ``--recommend`` compares (:mod:`flows.evaluate.recommend`), for the strategies the classifier
    picks on this data set. ``cohesion`` False: the cohesion and coherence measures are not taken, and
    the documents' ~50-token pieces they need are not embedded (with a slow or paid embedder, most of
    the evaluation's embedding); retrieval scores do not change."""
    started = time.perf_counter()
    options = Options(k=k, modes=tuple(modes or MODES), settings=settings or Settings(db=DEFAULT_DB))
    chosen = configurations(configs, variants, options.settings.budgets)
    embedder_for(options.settings)  # an unknown or missing embedder fails before any work
    _say(f"loading the {source} data set from {path}")
    dataset = _load(source, path, questions).limited(limit)
    parse_seconds = time.perf_counter() - started
    if sweep:
        from flows.evaluate.recommend import file_strategies, sweep_variants

        swept = sweep_variants(file_strategies(dataset), dataset)
        chosen = configurations(configs, [*(variants or ()), *swept], options.settings.budgets)
        _say(f"--recommend: {len(swept)} variants for the strategies the classifier picks here")
    _say(f"{len(dataset.documents)} documents, {len(dataset.questions)} questions "
         f"({len(dataset.unlocated)} unlocated), {dataset.excerpts} excerpts located "
         f"({', '.join(f'{n} {m}' for m, n in sorted(dataset.methods.items()))})")
    query_vectors, query_seconds = _embed_questions(quote(dataset.questions), options)
    embed = cut_embedder(options)
    if cohesion:
        _say("embedding each document's ~50-token pieces (cohesion and coherence are measured on them; "
             "--no-cohesion skips it)")
    pieces = _pieces(quote(dataset), quote(embed if cohesion else None))
    costs: list[Cost] = []
    scores: list[QueryScore] = []
    retrieval_seconds, fts_failures = 0.0, 0
    for number, config in enumerate(chosen, start=1):
        if config.peer:
            _say(f"[{number}/{len(chosen)}] {config.name}: parsing and chunking {len(dataset.files)} files")
            cuts, cut_seconds, run = _cut_peer(quote(dataset), config)
        else:
            _say(f"[{number}/{len(chosen)}] {config.name}: cutting {len(dataset.documents)} documents")
            (cuts, cut_seconds), run = _cut(quote(dataset), config, quote(embed)), None
        cost = _index(quote(dataset), config, quote(cuts), cut_seconds, options, quote(run), quote(pieces))
        costs.append(cost)
        _say(f"[{number}/{len(chosen)}] {config.name}: {cost.chunks:,} chunks (mean {cost.tokens_mean:.0f} tokens), "
             f"{cost.embedded:,} embedded, {cost.reused:,} from the cache; querying {', '.join(options.modes)}")
        retrieval_started = time.perf_counter()
        rankings, failures = _retrieve(config, quote(dataset.questions), quote(query_vectors), options, dataset.name)
        retrieval_seconds += time.perf_counter() - retrieval_started
        fts_failures += failures
        scores.extend(_score(quote(dataset.questions), config, quote(cuts), quote(rankings), options.k))
    evaluation = Evaluation(dataset, tuple(chosen), options, tuple(costs), tuple(scores), parse_seconds,
                            query_seconds, retrieval_seconds, time.perf_counter() - started, fts_failures)
    if out:
        written = report.write_report(evaluation, out)
        _say(f"report: {written['markdown']}")
    report.publish_artifacts(evaluation)
    return evaluation
