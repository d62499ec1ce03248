"""What an evaluation is asked and what it produces: its options, each configuration's cost, each
query's scores, and the :class:`Evaluation` that holds them all (the runner builds it, the report
and the console read it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from flows.errors import UsageError
from flows.evaluate.configs import Configuration, embedder_slug
from flows.evaluate.datasets import Dataset
from flows.index.search import MODES
from flows.settings import Settings

#: How deep each ranking is read: ranks past k still tell how far a configuration missed.
DEPTH = 50
DEFAULT_DB = ".seams/evaluate"


@dataclass(frozen=True)
class Options:
    """What an evaluation is asked: k, the retrieval modes, and the command's settings, built as every
    command builds them (flags over ``SEAMS_*``): the embedder, the evaluation database (``db``) and
    the embedding threads and batch size come from there."""

    k: int = 5
    modes: tuple[str, ...] = MODES
    settings: Settings = field(default_factory=lambda: Settings(db=DEFAULT_DB))
    depth: int = DEPTH

    @property
    def embedder(self) -> str:
        return self.settings.embedder_spec

    @property
    def db(self) -> str:
        return self.settings.db

    @property
    def threads(self) -> int:
        return self.settings.embed_threads

    @property
    def batch(self) -> int:
        return self.settings.embed_batch

    @property
    def store_uri(self) -> str:
        """This embedder's LanceDB inside the evaluation database: one per embedder, because the
        store's embedding-cache table holds vectors of one size only."""
        name = embedder_slug(self.embedder)
        return f"{self.db.rstrip('/')}/{name}" if "://" in self.db else str(Path(self.db) / name)

    def __post_init__(self) -> None:
        unknown = [m for m in self.modes if m not in MODES]
        if unknown or not self.modes:
            raise UsageError(f"unknown retrieval mode {', '.join(unknown) or '(none)'}; known: {', '.join(MODES)}")
        if self.k < 1:
            raise UsageError("k must be at least 1")


@dataclass(frozen=True)
class Cost:
    """What one configuration costs, and its intrinsic checks."""

    configuration: str
    chunks: int
    tokens_mean: float
    tokens_median: float
    index_bytes: int | None  # the KB's chunks table on disk (vectors, text, full-text index)
    cut_seconds: float
    embed_seconds: float
    embedded: int  # chunk texts embedded in this run
    reused: int  # chunk texts whose vectors came from the cache
    write_seconds: float
    within_budget: float | None  # share of chunks with at most Configuration.size_limit tokens
    under_min: float | None  # share of chunks under the budget's min (document-aware only)
    tables_split: int  # chunks that start inside a table without its header rows
    headings_at_end: int  # chunks that end with a section header
    strategies: tuple[tuple[str, int], ...] = ()  # strategy -> files cut with it
    #: Evidence strings of the scored questions: how many, how many no chunk holds whole (letters and
    #: digits compared: text lost or cut apart), and how many a chunk holds only when punctuation and
    #: spacing are ignored (text altered: ``9467`` for ``9,467``, tabs for `` | ``).
    evidence: int = 0
    evidence_lost: int = 0
    evidence_altered: int = 0
    #: A peer's own parse + chunk in a child process: the files it could not read (doc_id, reason)
    #: and the child's peak resident memory in bytes (None for seams' configurations, cut in-process).
    unread: tuple[tuple[str, str], ...] = ()
    peak_rss: int | None = None
    #: Intrinsic measures (:mod:`splitters.quality`), each the mean over documents of the per-document
    #: value; None where not measured (a peer's chunks are not spans of seams' text). References
    #: completeness needs a coreference model that runs offline: never measured.
    size_compliance: float | None = None
    block_integrity: float | None = None
    cohesion: float | None = None
    coherence: float | None = None


@dataclass(frozen=True)
class QueryScore:
    qid: str
    group: str
    configuration: str
    mode: str
    rank: int | None  # first chunk holding evidence, within DEPTH
    recall: float
    precision: float
    iou: float
    omega: float
    hit: bool
    reciprocal_rank: float
    doc_recall: float
    dcg: float
    retrieved_tokens: float = 0.0  # mean tokens of the top-k chunks (what a reader of the results pays)
    #: Containment, for every configuration: every evidence string is inside one of the top-k chunks'
    #: texts (letters and digits compared), and the share of evidence strings that are. A peer's chunks
    #: have no offsets in seams' text, so for a peer these are its hit and recall.
    text_hit: bool = False
    text_recall: float = 0.0


@dataclass(frozen=True)
class Evaluation:
    dataset: Dataset
    configurations: tuple[Configuration, ...]
    options: Options
    costs: tuple[Cost, ...]
    scores: tuple[QueryScore, ...]
    parse_seconds: float = 0.0
    query_seconds: float = 0.0  # embedding the questions
    retrieval_seconds: float = 0.0
    seconds: float = 0.0
    fts_failures: int = 0  # questions the full-text index could not run (scored as empty rankings)
