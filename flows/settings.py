"""Settings: one pydantic-settings class, read from ``SEAMS_*`` environment variables and flags.

Every setting that changes what ends up in the index (budget, strategy, overrides, embedder,
heading prefix) is part of :meth:`Settings.fingerprint`; a changed fingerprint re-indexes the files
it affects.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from flows.embed.spec import DEFAULT_SPEC, parse_spec, recorded, split_recorded
from flows.errors import UsageError
from parsers.ocr import OcrOptions
from splitters import STRATEGIES, Budget, get_strategy

#: Bump when a change in parsing/splitting code should re-index everything: every file's fingerprint
#: changes, so the next ingest cuts each file again once (the embedding cache spares the embedding of
#: the chunk texts that came out the same). 4 (2026-12-07), after 3 (2026-12-01): scans read by OCR
#: (lines of picture noise left out), spreadsheet numbers and dates as their formats show them,
#: tables nested in cells read apart (PDF, HWP, HWPX, DOCX) and one-cell frames as their content,
#: title rows apart from header rows, HTML contact footers kept, back matter packed within its
#: heading family, a Korean table's date cells embedded as Korean says them. 5 (2026-12-07, later):
#: a Hangul (HWP, HWPX) table's caption read on its side, before the table when set above it; a
#: document whose articles only start in its second half (an annex's clauses) is not a regulation.
#: 6 (2026-12-07, evening): a sheet's tables stacked under key/value rows or their own titles read
#: apart, each with its own header rows; a PDF table going on over a page break read as one table;
#: amounts written as Europe writes them (124.504.000) read as figures; a sheet's name indexed for
#: full text beside the file's title; PDF tables of short labels beside long wrapped cells read as
#: tables, titles boxed with a rule through their last word as lines, and figures merged over
#: columns (years over amounts) given one to each column; the pieces of a row too long for one
#: repeat its key. 7 (2026-12-07, night): table labels spaced out to fill their cells (``사 업 비``)
#: indexed for full text as the word (``사업비``); a PDF table's header row printed again at the top
#: of every page kept as text, not set aside as a running header. 8 (2026-12-07, late): a label
#: merged across columns in a table's last header row repeated in each only when the rows below have
#: a cell of their own in each (a form laid out on a fine grid reads its labels once).
PIPELINE_VERSION = "8"
#: The longest knowledge base name: its tables' folder names (``KB__manifest.lance``) must fit in
#: the file system's 255 bytes with room to spare.
KB_MAX_LENGTH = 64
_DEFAULT_OCR = OcrOptions()


def _ocr_shaping(ocr: OcrOptions) -> list:
    """What of the OCR options shapes the text read (not the command's path, not its time)."""
    return [ocr.enabled, ocr.languages, ocr.dpi, ocr.psm, ocr.max_pages, ocr.min_confidence, ocr.second_languages]


#: A file whose extracted text is longer than this is refused (``too_large``) before it is cut: the
#: ingest holds a file's vectors at once (its rows replace its old ones in one commit), about 2 KB
#: for every 64 tokens of its text, so this bounds the memory one file can take (SEAMS_MAX_TEXT_CHARS).
#: 100 million characters, not less: issue #16 asks that a CSV with a 20 MB field and a sheet of a
#: million rows be indexed, not refused; at the 31-62 bytes of memory per byte of text bench/memory.py
#: measured, a file at the limit takes a few GB.
MAX_TEXT_CHARS = 100_000_000
#: The size of a passage in cl100k tokens: full text ranks English chunks by their best passage of
#: this size (:mod:`flows.index.passages`), and vector search by default too (``passage_tokens``).
PASSAGE_TOKENS = 128
#: In vector search, how much a question's similarity with a document's title adds to each of its
#: chunks' similarity (:func:`flows.index.search.with_titles`, where the weight was measured).
TITLE_WEIGHT = 0.2
#: The embedding cache's tables are named from this (:mod:`flows.index.cache`): no knowledge base may be.
CACHE = "embedding_cache"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SEAMS_", extra="ignore")

    db: str = Field(default=".seams/lancedb", description="LanceDB directory or object-store URI")
    kb: str = Field(default="default", description="knowledge base: a separate pair of tables")
    embedder: str = Field(default="", description="embedder specification (flows.embed.spec): use-multilingual, "
                          "minilm, hashing, e5-small, openai:MODEL, sentence-transformers:PATH; empty: the knowledge "
                          "base's own, use-multilingual for a new one")
    embed_url: str = Field(default="", description="the endpoint of an openai:MODEL embedder (e.g. "
                           "http://127.0.0.1:8000/v1); empty: the one the knowledge base recorded")
    embed_key_env: str = Field(default="OPENAI_API_KEY", description="the environment variable holding the "
                               "endpoint's key (the key itself is never a setting)")
    embed_concurrency: int = Field(default=2, ge=1, description="embedding requests in flight (a server that "
                                   "embeds one request at a time only queues more: raise it for hosted APIs)")
    embed_batch_tokens: int = Field(default=4096, ge=1, description="tokens per embedding request at most")
    embed_timeout_s: float = Field(default=120.0, gt=0, description="seconds an embedding request may take, "
                                   "its wait in the server's queue included")
    embed_retries: int = Field(default=5, ge=0, description="times a failed embedding request is sent again")
    embed_threads: int = Field(default_factory=lambda: os.cpu_count() or 1)
    lock_wait_s: float = Field(default=3600.0, ge=0, description="seconds an ingest waits for another ingest "
                               "of the same knowledge base to finish before it gives up (exit 5)")
    embed_batch: int = 64
    min_tokens: int = 100
    max_tokens: int = 1100
    merge_ceiling: int | None = Field(default=None, description="merges stop at this size (default: 1150 for "
                                      "the default max, scaled with another max)")
    pack_tokens: int = Field(default=500, description="pack whole sibling sections and split pieces up to this (0: the max)")
    strategy: str | None = Field(default=None, description="force one strategy for every file")
    budgets: dict[str, str] = Field(default_factory=dict, description="strategy -> its own sizes, e.g. "
                                    "{\"sheet\": \"pack=250\"} (keys min, max, ceiling, pack); the others keep the "
                                    "budget above")
    overrides: dict[str, str] = Field(default_factory=dict, description="glob -> strategy")
    disabled_rules: list[str] = Field(default_factory=list, description="classifier rules to skip, by name")
    rule_strategies: dict[str, str] = Field(default_factory=dict, description="rule name -> strategy it picks")
    embed_heading_path: bool = Field(default=False, description="prefix the heading path to the text to embed")
    embed_plain_cells: bool = Field(default=True, description="embed table cells separated by spaces, not ' | '")
    label_rows: Literal["all", "embed", "off"] = Field(
        default="off", description="write each table row with the header of each value beside it in what is indexed: "
        "all (the text embedded and full text), embed (the text embedded only) or off; the text shown stays as the "
        "document has it")
    passage_tokens: int = Field(default=PASSAGE_TOKENS, ge=0, description="also embed each chunk's windows of this many tokens "
                                "(half-overlapping); vector search ranks a chunk by its best one (0: by the whole "
                                "chunk only)")
    vector_weight: float | None = Field(default=None, ge=0, description="in hybrid search, how much a vector rank "
                                        "counts against a full-text rank (reciprocal-rank fusion; 1: equal weights); "
                                        "empty: 0.02, 0 for e5-small, measured (flows.index.search)")
    vector_seat: int | None = Field(default=None, ge=0, description="in hybrid search, the place the vector ranking's "
                                    "best chunk is moved up to when the fusion ranks it lower (0: none); empty: 3 "
                                    "for e5-small, else 0, measured (flows.index.search)")
    title_weight: float = Field(default=TITLE_WEIGHT, ge=0, description="in vector search (and hybrid's vector ranking), "
                                "how much the question's similarity with a document's title (its file name's words) "
                                "adds to each of its chunks' similarity; 0: none (flows.index.search)")
    embed_group_vectors: int = Field(default=8192, ge=1, description="a batch's files are embedded and written in "
                                     "runs of about this many vectors (2 KB each), so the ingest holds one run's at a "
                                     "time; a file with more is a run of its own")
    max_file_mb: int = 512
    max_text_chars: int = Field(default=MAX_TEXT_CHARS, ge=1, description="a file whose extracted text is longer is "
                                "refused (too_large): it bounds the memory one file's vectors take")
    file_timeout_s: float = 300.0
    ocr: bool = Field(default=True, description="read scanned PDF pages and images by OCR (Tesseract), when installed")
    ocr_command: str = Field(default="tesseract", description="the Tesseract command (a name on PATH or a path)")
    ocr_languages: str = Field(default="kor+eng", description="Tesseract languages, joined by '+'")
    ocr_second_languages: str = Field(default=_DEFAULT_OCR.second_languages, description="pages whose first reading "
                                      "holds Hangul are read again with these languages, each line keeping the surer "
                                      "reading (empty: one reading)")
    ocr_dpi: int = Field(default=300, ge=70, le=600, description="resolution scanned PDF pages are rendered at for OCR")
    ocr_psm: int = Field(default=6, ge=0, le=13, description="Tesseract page segmentation mode (6: one block of "
                         "text, measured best on Korean documents; 3: automatic)")
    ocr_max_pages: int = Field(default=50, ge=0, description="scanned pages (or image frames) read by OCR per file "
                               "at most; the others are reported in the file's warnings")
    ocr_min_confidence: float = Field(default=30.0, ge=0, le=100, description="OCR words read with less confidence "
                                      "(0-100) are left out of the text and reported")
    workers: int = Field(default_factory=lambda: max(1, (os.cpu_count() or 1)))
    batch_files: int = Field(default=0, description="files per batch; 0 sizes batches to the run")
    allow_mass_delete: bool = False
    retry_failed: bool = Field(default=False, description="try files that failed again even if unchanged")
    runner: str = Field(default="local", description="local, dask (a local cluster) or dask:ADDRESS")

    @field_validator("runner")
    @classmethod
    def _known_runner(cls, value: str) -> str:
        if value != "local" and value != "dask" and not value.startswith("dask:"):
            raise ValueError("runner must be local, dask or dask:ADDRESS (e.g. dask:tcp://scheduler:8786)")
        return value

    @field_validator("db")
    @classmethod
    def _db_folder(cls, value: str) -> str:
        # A LanceDB database is a folder; an existing file there failed only at the first write,
        # as an internal error with a traceback
        if "://" not in value and Path(value).expanduser().exists() and not Path(value).expanduser().is_dir():
            raise ValueError(f"{value} is a file; a LanceDB database is a folder (give a folder, or a new path)")
        return value

    @field_validator("kb")
    @classmethod
    def _kb_name(cls, value: str) -> str:
        # LanceDB table names are ASCII letters, digits, '_', '-' and '.'; a KB is three tables
        # (KB__chunks, KB__manifest, KB__fts_passages), each a folder whose name must fit the file
        # system's 255 bytes.
        if len(value) > KB_MAX_LENGTH or not re.fullmatch(r"[A-Za-z0-9_-]+", value):
            raise ValueError(f"kb must be 1 to {KB_MAX_LENGTH} ASCII letters, digits, '-' or '_', got {value[:80]!r}")
        if value.startswith(CACHE):
            raise ValueError(f"kb may not start with {CACHE!r}: the embedding cache's tables are named so")
        return value

    @field_validator("embedder")
    @classmethod
    def _known_embedder(cls, value: str) -> str:
        return str(parse_spec(value)) if value.strip() else ""  # canonical; unknown names raise with the known

    @field_validator("embed_url")
    @classmethod
    def _no_secret_in_url(cls, value: str) -> str:
        # Settings travel as the flow run's parameters (stored by Prefect's server) and the URL is
        # recorded in the knowledge base: a key in it would be stored in both.
        parts = urlsplit(value.strip())
        if parts.username or parts.password or parts.query:
            raise ValueError("the embedding endpoint's URL may not carry a user, password or query string: put "
                             "the key in OPENAI_API_KEY (or the variable SEAMS_EMBED_KEY_ENV names)")
        return value.strip()

    @property
    def embedder_spec(self) -> str:
        """The embedder's specification: the one given, else the default."""
        return self.embedder or DEFAULT_SPEC

    def with_recorded_embedder(self, recorded_by_kb: str) -> Settings:
        """These settings with the embedder a knowledge base recorded (:func:`recorded`; "" for a new
        one): taken when they name none, its endpoint when they give none; a :class:`UsageError`
        (exit 2) when they name another, since vectors of two embedders cannot be compared."""
        if not recorded_by_kb:
            return self
        spec, url = split_recorded(recorded_by_kb)
        if self.embedder and self.embedder != str(spec):
            raise UsageError(
                f"knowledge base {self.kb!r} was built with the embedder {spec}, not {self.embedder}: vectors of "
                f"two embedders cannot be compared. Unset SEAMS_EMBEDDER (and leave out --embedder) to use its own, "
                f"or ingest into a new --kb to use {self.embedder} (its documents are embedded again)")
        return self.model_copy(update={"embedder": str(spec), "embed_url": self.embed_url or url})

    def recorded_embedder(self) -> str:
        """What the knowledge base records of its embedder (:func:`flows.embed.spec.recorded`)."""
        return recorded(parse_spec(self.embedder_spec), self.embed_url)

    @field_validator("strategy")
    @classmethod
    def _known_strategy(cls, value: str | None) -> str | None:
        if value is not None:
            get_strategy(value)  # raises with the list of known names
        return value

    @field_validator("overrides")
    @classmethod
    def _known_overrides(cls, value: dict[str, str]) -> dict[str, str]:
        for strategy in value.values():
            get_strategy(strategy)
        return value

    @field_validator("budgets")
    @classmethod
    def _known_budgets(cls, value: dict[str, str]) -> dict[str, str]:
        for strategy, spec in value.items():
            if strategy not in STRATEGIES:
                raise ValueError(f"a budget is for one of the strategies {', '.join(sorted(STRATEGIES))}, "
                                 f"got {strategy!r}")
            Budget().adjusted(spec)
        return value

    @model_validator(mode="after")
    def _ceiling(self) -> Settings:
        # From a flag or SEAMS_MAX_TOKENS alike: a max given without a ceiling brings its own.
        if self.merge_ceiling is None:
            self.merge_ceiling = Budget.ceiling_for(self.max_tokens)
        return self

    @model_validator(mode="after")
    def _known_rules(self) -> Settings:
        from classifiers import build_rules

        build_rules(self.disabled_rules, self.rule_strategies, check_strategy=get_strategy)
        return self

    @property
    def budget(self) -> Budget:
        return Budget(self.min_tokens, self.max_tokens, self.merge_ceiling, self.pack_tokens)

    @property
    def strategy_budgets(self) -> dict[str, Budget]:
        """The strategies with sizes of their own (``budgets``), each over the common budget."""
        try:
            return {strategy: self.budget.adjusted(spec) for strategy, spec in self.budgets.items()}
        except ValueError as exc:
            raise UsageError(f"budgets: {exc}") from None

    def fingerprint(self) -> str:
        """A short hash of everything that shapes the stored chunks and vectors."""
        shaping = {
            "pipeline": PIPELINE_VERSION,
            "budget": [self.min_tokens, self.max_tokens, self.merge_ceiling, self.pack_tokens],
            "strategy": self.strategy,
            "overrides": sorted(self.overrides.items()),
            "rules": [sorted(self.disabled_rules), sorted(self.rule_strategies.items())],
            "embedder": self.embedder_spec,  # the identity: an endpoint that moved re-indexes nothing
            "embed_heading_path": self.embed_heading_path,
            "embed_plain_cells": self.embed_plain_cells,
            "passage_tokens": self.passage_tokens,
        }
        if self.budgets:  # only when given: the indexes built before keep their fingerprint
            shaping["budgets"] = sorted(self.budgets.items())
        if self.label_rows != "off":  # only when asked for: the indexes built before keep their fingerprint
            shaping["label_rows"] = self.label_rows
        ocr = _ocr_shaping(self.ocr_options())
        if ocr != _ocr_shaping(_DEFAULT_OCR):  # only when changed: the indexes built before keep their fingerprint
            shaping["ocr"] = ocr
        return hashlib.sha256(json.dumps(shaping, sort_keys=True).encode()).hexdigest()[:16]

    def ocr_options(self, time_budget_s: float | None = None) -> OcrOptions:
        """How the parsers read scans; ``time_budget_s``: the seconds of OCR one file may take."""
        return OcrOptions(self.ocr, self.ocr_command, self.ocr_languages, self.ocr_dpi, self.ocr_psm,
                          self.ocr_min_confidence, self.ocr_max_pages, time_budget_s, self.ocr_second_languages)

    def db_location(self) -> str:
        """The database location as the user should see it (absolute for local paths)."""
        if "://" in self.db:
            return self.db
        return str(Path(self.db).expanduser().resolve())
