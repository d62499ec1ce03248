"""The one cache-then-embed loop (:func:`embed_cached`): ingest and evaluate both get their
vectors through it, from the store's embedding cache where it has them."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from flows.errors import EmbedderError

if TYPE_CHECKING:
    from flows.embed import Embedder


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class VectorCache(Protocol):
    """Where embedded vectors are kept by embedder and text hash: :class:`flows.index.store.Store`."""

    def cached_vectors(self, embedder: str, hashes: Sequence[str]) -> dict[str, np.ndarray]: ...

    def cache_vectors(self, embedder: str, items: dict[str, np.ndarray]) -> None: ...


#: While texts are embedded, the new vectors are saved to the cache at least this often,
CACHE_SAVE_EVERY_S = 30.0
#: ... and whenever this many are waiting: LanceDB's write buffers several times what it is given
#: (20,000 new vectors, 42 MB, took +130 MB at once), so a large file's are saved in parts.
CACHE_SAVE_VECTORS = 4096


def embed_cached(texts: Mapping[str, str], embedder: Embedder, store: VectorCache, batch: int,
                 on_progress: Callable[[int, int], None] | None = None,
                 queries: bool = False) -> tuple[dict[str, np.ndarray], int]:
    """Vectors for ``{text hash: text}``, embedded as passages (``queries``: as questions): from the
    store's embedding cache where it has them, the others embedded ``batch`` at a time (or as many as
    the embedder asks for, :attr:`Embedder.batch`), shortest first (less padding in a batch). Returns
    (vectors, how many were embedded). The cache is keyed by the embedder's full name, and questions
    apart from passages unless the embedder embeds both alike.

    New vectors are saved to the cache as they come, at least every :data:`CACHE_SAVE_EVERY_S` and
    every :data:`CACHE_SAVE_VECTORS`, so an interrupted run keeps what it embedded.
    ``on_progress(done, total)`` is called with 0 before the
    first batch and after each one, ``total`` being the texts not in the cache.
    """
    key = embedder.query_cache_name if queries else embedder.name
    encode = embedder.queries if queries else embedder.passages
    batch = embedder.batch or batch
    vectors = store.cache.vectors(key, list(texts))
    missing = sorted((h for h in texts if h not in vectors), key=lambda h: len(texts[h]))
    if not missing:
        return vectors, 0
    if on_progress:
        on_progress(0, len(missing))
    unsaved: dict[str, np.ndarray] = {}
    saved_at = time.monotonic()
    try:
        for start in range(0, len(missing), batch):
            part = missing[start:start + batch]
            for h, vector in zip(part, encode([texts[h] for h in part]), strict=True):
                vectors[h] = unsaved[h] = vector
            if len(unsaved) >= CACHE_SAVE_VECTORS or time.monotonic() - saved_at >= CACHE_SAVE_EVERY_S:
                store.cache.save(key, unsaved)
                unsaved, saved_at = {}, time.monotonic()
            if on_progress:
                on_progress(min(start + batch, len(missing)), len(missing))
    except EmbedderError:  # an endpoint gone part way: what it embedded is kept for the next run
        store.cache.save(key, unsaved)
        raise
    store.cache.save(key, unsaved)
    return vectors, len(missing)
