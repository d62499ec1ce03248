"""Using a seams knowledge base from LangChain and LlamaIndex: seams' embedders behind their
embedding interfaces, and an export for the one store that cannot read the table as it is.

A chunks table (``KB__chunks``, see :func:`flows.index.store.chunk_schema`) has the ``id``, ``text``,
``vector`` and ``metadata`` columns LangChain's and LlamaIndex's LanceDB stores read, so
langchain-community's ``LanceDB`` and llama-index's ``LanceDBVectorStore`` open it as it is. What they
need from seams is the query embedded by the knowledge base's own embedder:
:func:`langchain_embeddings` and :func:`llamaindex_embedding`. They search the ``vector`` column (the
whole chunk's vector), not seams' ``passages``. langchain-lancedb (0.1.0) reads ``metadata`` as a
JSON string, which no struct column can be, and names no vector column, where a seams table has two:
:func:`export_for_langchain_lancedb` writes it a copy.

LangChain and LlamaIndex are imported only when these functions are called (optional extra
``seams[interop]``); the rest of seams never imports this module.
"""

from __future__ import annotations

import json
import os
from functools import cache
from typing import Any

import pyarrow as pa

from flows.embed import EmbedConfig, Embedder, get_embedder, split_recorded
from flows.errors import UsageError
from flows.index.schema import CHUNKS
from flows.index.store import Store

DEFAULT_EMBEDDER = "use-multilingual"


def chunks_table_name(kb: str = "default") -> str:
    """The LanceDB table holding a knowledge base's chunks: what to give another tool as its table."""
    return f"{kb}__{CHUNKS}"


def _embedder(name: str, threads: int) -> Embedder:
    """``name`` as a specification, or as a knowledge base records it (``SPEC @ URL``, the ``embedder``
    column): a remote embedder's endpoint comes from there unless ``SEAMS_EMBED_URL`` says another."""
    spec, url = split_recorded(name)
    threads = threads or os.cpu_count() or 1
    return get_embedder(spec, threads, EmbedConfig(threads=threads, url=os.environ.get("SEAMS_EMBED_URL") or url))


@cache
def _langchain_class() -> type:
    from langchain_core.embeddings import Embeddings

    class SeamsEmbeddings(Embeddings):
        """A seams embedder as LangChain ``Embeddings``: documents as passages, questions as queries,
        as seams embeds them."""

        def __init__(self, embedder: str = DEFAULT_EMBEDDER, threads: int = 0) -> None:
            self.embedder = _embedder(embedder, threads)

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return self.embedder.passages(list(texts)).tolist()

        def embed_query(self, text: str) -> list[float]:
            return self.embedder.queries([text])[0].tolist()

    return SeamsEmbeddings


@cache
def _llamaindex_class() -> type:
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.bridge.pydantic import PrivateAttr

    class SeamsEmbedding(BaseEmbedding):
        """A seams embedder as a LlamaIndex embedding model."""

        _embedder: Any = PrivateAttr()

        def __init__(self, embedder: str = DEFAULT_EMBEDDER, threads: int = 0, **kwargs: Any) -> None:
            super().__init__(model_name=f"seams:{embedder}", **kwargs)
            self._embedder = _embedder(embedder, threads)

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._embedder.queries([query])[0].tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._embedder.passages([text])[0].tolist()

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return self._embedder.passages(list(texts)).tolist()

    return SeamsEmbedding


def _missing_extra(exc: ImportError) -> UsageError:
    return UsageError(f"{exc.name} is not installed: pip install 'seams[interop]'")


def langchain_embeddings(embedder: str = DEFAULT_EMBEDDER, threads: int = 0):
    """LangChain ``Embeddings`` that embed as seams does with ``embedder`` (use the knowledge base's
    own: ``seams search --json`` does not say it, the ``embedder`` column and ``metadata.embedder`` do,
    and their value can be given as it is: documents as passages, questions as queries)."""
    try:
        return _langchain_class()(embedder, threads)
    except ImportError as exc:
        raise _missing_extra(exc) from exc


def llamaindex_embedding(embedder: str = DEFAULT_EMBEDDER, threads: int = 0, **kwargs: Any):
    """A LlamaIndex ``BaseEmbedding`` that embeds as seams does with ``embedder``."""
    try:
        return _llamaindex_class()(embedder, threads, **kwargs)
    except ImportError as exc:
        raise _missing_extra(exc) from exc


def export_for_langchain_lancedb(db: str, kb: str = "default", table_name: str | None = None) -> str:
    """Write a copy of the knowledge base's chunks for langchain-lancedb: ``id``, ``text``, ``vector``
    and ``metadata`` as a JSON string (that package ``json.loads`` it and then sets ``source`` to the
    database's path, so the file's path is also under ``file``). A snapshot: export again after an
    ingest. Returns the table's name (default ``KB__langchain``)."""
    store = Store(db, kb)
    table = store.chunks_table()
    if table is None:
        raise UsageError(f"no knowledge base {kb!r} in {db}")
    chunks = table.search().select(["id", "text", "vector", "metadata"]).limit(None).to_arrow()
    metadata = [json.dumps(dict(m, file=m["source"]), ensure_ascii=False) for m in chunks["metadata"].to_pylist()]
    name = table_name or f"{kb}__langchain"
    data = pa.table({"id": chunks["id"], "text": chunks["text"], "vector": chunks["vector"],
                     "metadata": pa.array(metadata, pa.string())})
    store.db.create_table(name, data=data, mode="overwrite")
    return name
