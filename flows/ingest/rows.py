"""The rows the store writes, built from cut files: a chunk row per chunk, a manifest entry per file.

The ingest flow and the evaluation both build their chunks tables here, so an evaluation's
knowledge base is a real one. The columns are those of :func:`flows.index.store.chunk_schema` and
:data:`flows.index.schema.MANIFEST_SCHEMA`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

import numpy as np

from flows.embed import text_hash
from flows.index.schema import INDEX_TEXT
from flows.ingest.pipeline import Outcome, embedded_texts, full_text
from flows.settings import Settings
from splitters.chunk import HEADING_SEPARATOR


def chunk_rows(outcome: Outcome, settings: Settings, vectors: Mapping[str, np.ndarray], dim: int,
               indexed_at: dt.datetime) -> list[dict]:
    """The chunk rows of one cut file, each with exactly :data:`flows.index.schema.ROW_COLUMNS` in their order
    and then :data:`flows.index.schema.INDEX_TEXT` (what the full-text index holds, which is not stored);
    ``vectors`` maps the hash of each text embedded for a chunk (:func:`flows.ingest.pipeline.embedded_texts`)
    to its vector."""
    rows = []
    decision = outcome.decision
    fingerprint = settings.fingerprint()
    embedder = settings.recorded_embedder()  # the specification, and a remote one's endpoint without secrets
    for ordinal, chunk in enumerate(outcome.chunks):
        texts = embedded_texts(chunk, settings.embed_heading_path, settings.embed_plain_cells, settings.passage_tokens,
                               settings.label_rows != "off")
        to_embed = texts[0]
        rows.append({
            "chunk_id": f"{outcome.ref.path}#{ordinal}",
            "doc_id": outcome.ref.doc_id,
            "source": outcome.ref.path,
            "root": outcome.ref.root,
            "content_hash": outcome.content_hash,
            "format": outcome.format,
            "strategy": decision.strategy if decision else "",
            "rule": decision.rule if decision else "",
            "ordinal": ordinal,
            "text": chunk.text,
            "embed_text": to_embed,
            "tokens": chunk.tokens,
            "page_start": chunk.page_start, "page_end": chunk.page_end,
            "sheet": chunk.sheet, "row_start": chunk.row_start, "row_end": chunk.row_end,
            "slide_start": chunk.slide_start, "slide_end": chunk.slide_end,
            "heading_path": HEADING_SEPARATOR.join(chunk.heading_path),
            "char_start": chunk.start, "char_end": chunk.end,
            "embedder": embedder, "dim": dim, "config": fingerprint,
            "indexed_at": indexed_at,
            "vector": vectors[text_hash(to_embed)],
            "passages": [vectors[text_hash(text)] for text in texts],
            # not a column: what the full-text index holds in place of the text (flows.index.store.chunk_records)
            INDEX_TEXT: full_text(chunk, settings.label_rows),
        })
    return rows


def manifest_entry(outcome: Outcome, fingerprint: str, indexed_at: dt.datetime) -> dict:
    """The manifest row of one cut file (or one that failed: its error kind and message)."""
    decision = outcome.decision
    return {
        "doc_id": outcome.ref.doc_id, "root": outcome.ref.root, "path": outcome.ref.path,
        "size": outcome.ref.size, "mtime": outcome.ref.mtime, "content_hash": outcome.content_hash,
        "config": fingerprint, "status": outcome.status, "error_kind": outcome.error_kind,
        "error": outcome.error, "format": outcome.format,
        "strategy": decision.strategy if decision else "", "rule": decision.rule if decision else "",
        "evidence": decision.evidence if decision else "", "chunks": len(outcome.chunks),
        "tokens": outcome.tokens, "indexed_at": indexed_at,
    }
