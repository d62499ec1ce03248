"""Search a knowledge base: vector, full-text (BM25 over character n-grams, so Korean works) or
hybrid (reciprocal-rank fusion of the two).

Results are plain dicts with a stable set of keys (the ``--json`` output).
"""

from __future__ import annotations

from flows.embedders import get_embedder
from flows.settings import Settings
from flows.store import Store

RRF_K = 60
_CANDIDATES = 50
_KEYS = ("chunk_id", "doc_id", "source", "format", "strategy", "text", "tokens", "heading_path",
         "page_start", "page_end", "sheet", "row_start", "row_end", "slide_start", "slide_end",
         "char_start", "char_end")


def ensure_fts_index(table) -> None:
    """An n-gram full-text index on the chunk text (built once; kept current by optimize())."""
    indices = {getattr(i, "name", "") for i in table.list_indices()}
    if "text_idx" in indices:
        return
    from lancedb.index import FTS

    table.create_index("text", config=FTS(base_tokenizer="ngram", ngram_min_length=2, ngram_max_length=3,
                                          lower_case=True, stem=False, remove_stop_words=False,
                                          ascii_folding=True), replace=True)


def _where(row: dict) -> str:
    parts = []
    if row.get("page_start") is not None:
        parts.append(f"p. {row['page_start']}" + (f"-{row['page_end']}" if row["page_end"] != row["page_start"] else ""))
    if row.get("sheet"):
        parts.append(f"sheet {row['sheet']}")
    if row.get("row_start") is not None:
        parts.append(f"rows {row['row_start']}-{row['row_end']}")
    if row.get("slide_start") is not None:
        parts.append(f"slide {row['slide_start']}")
    return ", ".join(parts) or "whole file"


def vector_ranking(table, settings: Settings, query: str, limit: int) -> list[dict]:
    embedder = get_embedder(settings.embedder, settings.embed_threads)
    vector = embedder.encode([query])[0]
    rows = table.search(vector, vector_column_name="vector").metric("cosine").limit(limit).to_list()
    for row in rows:
        row["_score"] = 1.0 - float(row.get("_distance", 0.0))
    return rows


def fts_ranking(table, query: str, limit: int) -> list[dict]:
    ensure_fts_index(table)
    return table.search(query, query_type="fts", fts_columns="text").limit(limit).to_list()


def fuse(rankings: list[list[dict]], k: int) -> list[dict]:
    """Reciprocal-rank fusion: score = sum over rankings of 1 / (RRF_K + rank)."""
    scores: dict[str, float] = {}
    rows: dict[str, dict] = {}
    for ranking in rankings:
        for rank, row in enumerate(ranking, start=1):
            scores[row["chunk_id"]] = scores.get(row["chunk_id"], 0.0) + 1.0 / (RRF_K + rank)
            rows.setdefault(row["chunk_id"], row)
    ordered = sorted(scores, key=lambda cid: (-scores[cid], cid))[:k]
    return [dict(rows[cid], _score=scores[cid]) for cid in ordered]


def search(settings: Settings, query: str, k: int = 5, mode: str = "hybrid") -> list[dict]:
    store = Store(settings.db, settings.kb)
    table = store.chunks_table()
    if table is None or table.count_rows() == 0:
        return []
    if mode == "vector":
        ranked = vector_ranking(table, settings, query, k)
    elif mode == "fts":
        ranked = fts_ranking(table, query, k)
    elif mode == "hybrid":
        ranked = fuse([vector_ranking(table, settings, query, _CANDIDATES),
                       fts_ranking(table, query, _CANDIDATES)], k)
    else:
        raise ValueError(f"unknown search mode {mode!r}; known: vector, fts, hybrid")
    hits = []
    for row in ranked[:k]:
        hit = {key: row.get(key) for key in _KEYS}
        hit["score"] = float(row.get("_score", 0.0))
        hit["where"] = _where(row)
        hits.append(hit)
    return hits
