"""The embedding function the embedding-driven cuts take (``semantic``, ``cluster``, ``adaptive``):
the knowledge base's own embedder, so a cut is judged by the model that will search it.

Vectors are memoised in the process (the adaptive strategy embeds a document's pieces once for all
its candidates) and, given a store, kept in its embedding cache, so a second evaluation run cuts
without embedding again.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from flows.embed import Embedder
from flows.embed.cache import VectorCache, embed_cached, text_hash
from splitters import Embed

#: Memoised vectors kept per function before the memo is emptied (a long ingest must not grow without bound).
MEMO_LIMIT = 50_000


def cutting_embed(embedder: Embedder, store: VectorCache | None = None, batch: int = 64) -> Embed:
    """``texts -> vectors`` with ``embedder``'s passage encoder, through ``store``'s cache when given."""
    memo: dict[str, np.ndarray] = {}

    def embed(texts: Sequence[str]) -> np.ndarray:
        hashes = [text_hash(text) for text in texts]
        missing = {h: text for h, text in zip(hashes, texts, strict=True) if h not in memo}
        if len(memo) + len(missing) > MEMO_LIMIT:
            memo.clear()
            missing = dict(zip(hashes, texts, strict=True))
        if missing:
            if store is not None:
                vectors, _ = embed_cached(missing, embedder, store, batch)
            else:
                keys = list(missing)
                vectors = {}
                for start in range(0, len(keys), batch):
                    part = keys[start:start + batch]
                    vectors.update(zip(part, embedder.passages([missing[h] for h in part]), strict=True))
            memo.update(vectors)
        if not hashes:
            return np.zeros((0, embedder.dim), dtype=np.float32)
        return np.stack([np.asarray(memo[h], dtype=np.float32) for h in hashes])

    return embed
