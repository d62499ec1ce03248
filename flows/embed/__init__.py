"""Embedders by specification (:mod:`flows.embed.spec`): ``use-multilingual`` (the default),
``minilm``, ``hashing`` and ``sentence-transformers:PATH`` (:mod:`flows.embed.local`), ``e5-small``
(:mod:`flows.embed.e5`), ``openai:MODEL`` against any OpenAI-compatible endpoint
(:mod:`flows.embed.openai`).

An :class:`Embedder` embeds documents as *passages* and questions as *queries*: asymmetric models
(e5, bge, ...) want a prefix or a request field telling one from the other, and a specification says
which. Every vector is float32 and L2-normalised. Register another kind by adding a factory to
:data:`EMBEDDERS` and its :class:`flows.embed.spec.Kind` to :data:`flows.embed.spec.KINDS`.
:func:`embed_cached` (:mod:`flows.embed.cache`) is the one cache-then-embed loop: ingest and
evaluate both get their vectors through it.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from flows.embed.spec import (
    DEFAULT_SPEC,
    KINDS,
    EmbedderSpec,
    parse_spec,
    public_url,
    recorded,
    split_recorded,
)
from flows.errors import EmbedderError, EmbedderUnavailable, UsageError

if TYPE_CHECKING:
    from flows.settings import Settings

__all__ = [
    "DEFAULT_SPEC", "EMBEDDERS", "KINDS", "EmbedConfig", "EmbedStats", "Embedder", "EmbedderError", "EmbedderSpec",
    "EmbedderUnavailable", "embed_cached", "embedder_for", "get_embedder", "parse_spec", "public_url", "recorded",
    "split_recorded", "text_hash",
]

Encode = Callable[[Sequence[str]], np.ndarray]  # texts -> (n, dim) float32, L2-normalised


@dataclass
class EmbedStats:
    """What an embedder had to do beyond embedding, counted since it was built (thread-safe): requests
    retried by reason (``429``, ``500``, ``timeout``, ``connection``), texts over the model's length."""

    retries: Counter = field(default_factory=Counter)
    over_length: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def retried(self, reason: str) -> None:
        with self._lock:
            self.retries[reason] += 1

    def long_inputs(self, count: int) -> None:
        with self._lock:
            self.over_length += count

    def snapshot(self) -> tuple[Counter, int]:
        with self._lock:
            return Counter(self.retries), self.over_length


@dataclass(frozen=True)
class Embedder:
    """``name``: what the knowledge base records and the cache is keyed by (:func:`recorded`:
    the specification, and a remote one's endpoint); ``spec``: the identity compared across runs."""

    name: str
    spec: EmbedderSpec
    dim: int
    passages: Encode
    queries: Encode
    symmetric: bool = True  # queries and passages are embedded alike (their cached vectors are shared)
    batch: int = 0  # texts per call it works best with (0: the caller's batch)
    stats: EmbedStats = field(default_factory=EmbedStats)

    @property
    def query_cache_name(self) -> str:
        return self.name if self.symmetric else f"{self.name}#query"


@dataclass(frozen=True)
class EmbedConfig:
    """How to reach and drive an embedder, beside its specification (not part of its identity)."""

    threads: int = 1
    url: str = ""
    key_env: str = "OPENAI_API_KEY"
    concurrency: int = 2
    batch_tokens: int = 4096
    timeout_s: float = 120.0
    retries: int = 5


def _local(spec: EmbedderSpec, config: EmbedConfig) -> Embedder:
    from flows.embed import local

    return local.FACTORIES[spec.kind](spec, config.threads)


def _e5(spec: EmbedderSpec, config: EmbedConfig) -> Embedder:
    from flows.embed.e5 import e5_small

    return e5_small(spec, config.threads)


def _openai(spec: EmbedderSpec, config: EmbedConfig) -> Embedder:
    from flows.embed.openai import openai_embedder

    return openai_embedder(spec, config)


#: Factories by kind (the first word of a specification).
EMBEDDERS: dict[str, Callable[[EmbedderSpec, EmbedConfig], Embedder]] = {
    "use-multilingual": _local,
    "minilm": _local,
    "hashing": _local,
    "sentence-transformers": _local,
    "e5-small": _e5,
    "openai": _openai,
}


def get_embedder(spec: str | EmbedderSpec, threads: int = 1, config: EmbedConfig | None = None) -> Embedder:
    """The embedder a specification names, built once per process and configuration (``config``;
    without one, local embedders on ``threads`` threads)."""
    parsed = spec if isinstance(spec, EmbedderSpec) else parse_spec(spec)
    config = config or EmbedConfig(threads=threads)
    if parsed.remote and not config.url:
        raise UsageError(f"embedder {parsed} needs an endpoint: --embed-url URL or SEAMS_EMBED_URL "
                         f"(e.g. http://127.0.0.1:8000/v1)")
    return _build(parsed, config)


@cache
def _build(spec: EmbedderSpec, config: EmbedConfig) -> Embedder:
    if spec.kind not in EMBEDDERS:
        raise UsageError(f"unknown embedder {spec.kind!r}; known: {', '.join(sorted(EMBEDDERS))}")
    return EMBEDDERS[spec.kind](spec, config)


get_embedder.cache_clear = _build.cache_clear  # type: ignore[attr-defined]
get_embedder.cache_info = _build.cache_info  # type: ignore[attr-defined]


def embed_config(settings: Settings) -> EmbedConfig:
    return EmbedConfig(threads=settings.embed_threads, url=settings.embed_url, key_env=settings.embed_key_env,
                       concurrency=settings.embed_concurrency, batch_tokens=settings.embed_batch_tokens,
                       timeout_s=settings.embed_timeout_s, retries=settings.embed_retries)


def embedder_for(settings: Settings) -> Embedder:
    """The embedder the settings name (the default when they name none), configured by them."""
    config = embed_config(settings)
    return get_embedder(settings.embedder or DEFAULT_SPEC, config.threads, config)


from flows.embed.cache import embed_cached, text_hash  # noqa: E402 - the loop uses Embedder
