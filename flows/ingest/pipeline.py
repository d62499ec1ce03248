"""The path of one file, as plain functions (the Prefect tasks in :mod:`flows.ingest.flow` call these).

    path ──parse──▶ Document ──classify──▶ Decision ──split──▶ [Chunk] ──fit_to_budget──▶ [Chunk]

:func:`cut_file` runs those steps and never raises: a file that cannot be read comes back as an
outcome with an error kind. Embedding and writing happen per batch, across files.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import logging
import os
import re
import stat
import time
from collections import deque
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from classifiers import DEFAULT_RULES, Decision, build_rules, classify, gather_facts
from flows.embed import EmbedConfig, embed_config, get_embedder
from flows.embed.cutting import cutting_embed
from flows.embed.spec import DEFAULT_SPEC
from flows.ingest.sources import FileRef, RootWalk, is_uri, local_copy, object_hash
from flows.ingest.sources import scan as scan_objects
from flows.settings import MAX_TEXT_CHARS
from parsers import ParseError, parse
from parsers.errors import TooLarge
from parsers.model import CELL_SEPARATOR, Document
from parsers.ocr import OcrOptions
from splitters import (
    ADAPTIVE,
    Budget,
    Chunk,
    Embed,
    TokenCounter,
    cl100k_counter,
    cut_adaptive,
    get_strategy,
    split_document,
)
from splitters.adaptive import explain
from splitters.chunk import HEADING_SEPARATOR, cl100k_floor, counts_cl100k, passages
from splitters.labels import PAIR_SEPARATOR, join_spaced

log = logging.getLogger(__name__)

#: Error kinds after which the file's previous chunks stay in the index (the file may come back).
KEEP_OLD_CHUNKS = frozenset({"corrupt", "encrypted", "timeout", "too_large", "error", "unreadable", "no_ocr"})
#: The share of the per-file time limit a file's OCR may take: pages past it are reported, not read,
#: so a long scan is indexed in part rather than lost to the limit.
OCR_TIME_SHARE = 0.8




@dataclass(frozen=True)
class CutConfig:
    budget: Budget
    strategy: str | None = None
    overrides: dict[str, str] = field(default_factory=dict)
    max_bytes: int = 512 * 1024 * 1024
    disabled_rules: tuple[str, ...] = ()
    rule_strategies: dict[str, str] = field(default_factory=dict)
    max_text_chars: int = MAX_TEXT_CHARS
    ocr: OcrOptions = field(default_factory=OcrOptions)
    #: Write the chunks' table rows with their columns' labels (Settings.label_rows not "off"): a
    #: third of a tall sheet's cutting time, so skipped when nothing indexes them.
    label_rows: bool = True
    #: The knowledge base's embedder, for the cuts that embed (semantic, cluster, adaptive): built in
    #: the process that cuts, only when such a cut is asked for.
    embedder: str = DEFAULT_SPEC
    embed_config: EmbedConfig = field(default_factory=EmbedConfig)
    #: Strategies with sizes of their own (Settings.budgets); the others are cut with ``budget``.
    budgets: dict[str, Budget] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, settings) -> CutConfig:
        # OCR may take most of the file's time limit; the rest is for parsing, cutting and the pool.
        ocr = settings.ocr_options(OCR_TIME_SHARE * settings.file_timeout_s)
        return cls(settings.budget, settings.strategy, dict(settings.overrides), settings.max_file_mb * 1024 * 1024,
                   tuple(settings.disabled_rules), dict(settings.rule_strategies), settings.max_text_chars, ocr,
                   settings.label_rows != "off", settings.embedder or DEFAULT_SPEC, embed_config(settings),
                   settings.strategy_budgets)

    def rules(self) -> tuple:
        if not self.disabled_rules and not self.rule_strategies:
            return DEFAULT_RULES
        return _rules(self.disabled_rules, tuple(sorted(self.rule_strategies.items())))


@dataclass(frozen=True)
class Outcome:
    ref: FileRef
    content_hash: str
    format: str = ""
    decision: Decision | None = None
    chunks: tuple[Chunk, ...] = ()
    warnings: tuple[str, ...] = ()
    error_kind: str = ""
    error: str = ""
    seconds: float = 0.0  # reading, parsing and cutting it, where it was cut (:func:`cut_file`)

    @property
    def status(self) -> str:
        if not self.error_kind:
            return "indexed"
        return "skipped" if self.error_kind == "unsupported" else "failed"

    @property
    def tokens(self) -> int:
        return sum(c.tokens for c in self.chunks)


def file_hash(path: str | Path) -> str:
    if is_uri(str(path)):
        return object_hash(str(path))
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def decide(doc: Document, tokens: int, config: CutConfig, name: str) -> Decision:
    if config.strategy:
        return Decision(config.strategy, "forced", f"--strategy {config.strategy}")
    facts = gather_facts(doc, tokens, config.budget.max_tokens, name)
    return classify(facts, rules=config.rules(), overrides=config.overrides)


def cut_document(doc: Document, config: CutConfig, name: str, embed: Embed | None = None) -> tuple[Decision, list[Chunk]]:
    """The document classified and cut. ``embed``: the embedding function for the strategies that
    need one (the evaluation passes one that caches); without it, the config's embedder is built."""
    count = _counter()
    # The classifier only compares the count with the max (the short-document rule). A document
    # that is over it by a bound found without tokenising (a tall sheet: one token a cell at least)
    # is not counted here; it is given the bound, which no rule quotes when it is over the max.
    floor = cl100k_floor(doc.text)
    tokens = count(doc.text) if floor <= config.budget.max_tokens else None
    decision = decide(doc, floor if tokens is None else tokens, config, name)
    counter = _knowing(count, doc.text, tokens)
    if get_strategy(decision.strategy).embeds and embed is None:
        embed = _embed_function(config.embedder, config.embed_config)
    if decision.strategy == ADAPTIVE:
        # The classifier's own choice is the first candidate (an override or --strategy chose adaptive).
        unforced = replace(config, strategy=None,
                           overrides={k: v for k, v in config.overrides.items() if v != ADAPTIVE})
        first = decide(doc, floor if tokens is None else tokens, unforced, name).strategy
        winner, scored = cut_adaptive(doc, counter, config.budget, embed, first, config.label_rows)
        return Decision(winner.strategy, ADAPTIVE, f"{decision.evidence}: {explain(winner, scored)}"), list(winner.chunks)
    budget = config.budgets.get(decision.strategy, config.budget)
    return decision, split_document(doc, decision.strategy, counter, budget, config.label_rows, embed)


@lru_cache(maxsize=4)
def _embed_function(spec: str, config: EmbedConfig) -> Embed:
    """One embedding function per embedder and process (a worker builds the model once)."""
    return cutting_embed(get_embedder(spec, config.threads, config))


def _knowing(count: TokenCounter, text: str, tokens: int | None) -> TokenCounter:
    """``count``, but the document's text (a strategy may count it as its whole unit) is tokenised at
    most once: ``tokens`` when the classifier had it counted, else the first count. The counter
    memoises only short texts, so that a document's text does not outlive the document in its memo.
    The wrapper counts as ``count`` does (:func:`splitters.chunk.counts_cl100k`)."""
    known_tokens = tokens

    def known(candidate: str) -> int:
        nonlocal known_tokens
        if candidate is not text:
            return count(candidate)
        if known_tokens is None:
            known_tokens = count(candidate)
        return known_tokens

    known.cl100k = counts_cl100k(count)
    return known


def cut_file(ref: FileRef, config: CutConfig) -> Outcome:
    """Parse, classify and split one file. Never raises: errors become the outcome's error kind. An
    object on object storage is read here, by the process that cuts it, into a temporary copy
    (:func:`flows.ingest.sources.local_copy`). The outcome keeps the seconds this took."""
    started = time.perf_counter()
    return replace(_cut_file(ref, config), seconds=time.perf_counter() - started)


def _cut_file(ref: FileRef, config: CutConfig) -> Outcome:
    if is_uri(ref.path) and ref.size > config.max_bytes:  # not downloaded only to be refused
        return Outcome(ref, "", error_kind=TooLarge.kind, error=f"{ref.size:,} bytes (limit {config.max_bytes:,})")
    with contextlib.ExitStack() as stack:
        try:
            local = stack.enter_context(local_copy(ref.path))
            content_hash = file_hash(local)
        except OSError as exc:
            return Outcome(ref, "", error_kind="unreadable", error=f"cannot read the file: {exc.strerror or exc}")
        try:
            doc = parse(local, max_bytes=config.max_bytes, ocr=config.ocr)
            check_text_size(doc, config.max_text_chars)
            decision, chunks = cut_document(doc, config, ref.doc_id)
        except ParseError as exc:
            return Outcome(ref, content_hash, exc.format, error_kind=exc.kind, error=exc.message)
        except Exception as exc:  # a bug in a stage must not stop the folder; report it as this file's error
            return Outcome(ref, content_hash, error_kind="error", error=f"{type(exc).__name__}: {exc}")
    return Outcome(ref, content_hash, doc.format, decision, tuple(chunks), doc.warnings)


def check_text_size(doc: Document, max_chars: int) -> None:
    """Raise ``too_large`` for a document whose text is over ``max_chars`` characters (see
    :data:`MAX_TEXT_CHARS`)."""
    if len(doc.text) > max_chars:
        raise TooLarge(f"its text is {len(doc.text):,} characters, over the limit of {max_chars:,} "
                       f"(SEAMS_MAX_TEXT_CHARS; raise it and run with --retry-failed to index it)")


@lru_cache(maxsize=16)
def _rules(disabled: tuple[str, ...], strategies: tuple[tuple[str, str], ...]) -> tuple:
    return build_rules(disabled, dict(strategies), check_strategy=get_strategy)


_COUNTER = None


def _counter():
    global _COUNTER
    if _COUNTER is None:
        _COUNTER = cl100k_counter()
    return _COUNTER


def index_text(chunk: Chunk, label_rows: bool) -> str:
    """What the indexes hold for a chunk: its text, or with ``label_rows`` its table rows written
    with their columns' labels (:attr:`Chunk.index_text`, :mod:`splitters.labels`)."""
    return chunk.index_text or chunk.text if label_rows else chunk.text


def full_text(chunk: Chunk, label_rows: str) -> str:
    """What the full-text index holds for a chunk under the ``label_rows`` setting: with ``all`` its
    :func:`index_text`, else its text.

    Why not by default: measured on the held-out sets, full text over the labelled rows lost
    table-row questions (held-out set 90.3 → 87.1 % hit@5, the third set 96.6 → 93.1 %): every row
    of a table repeating its header words makes the table's chunks alike to BM25. Writing spaced-out
    labels as words alone (``구 분`` → ``구분``) lost two as well (90.3 → 83.9 %); writing them joined
    *beside* the spaced form (a last line of the indexed text) gained a staff-count row of the table
    set (95.1 → 96.1 %) but lost one of the held-out set's rows (94.3 → 93.3 %), the longer text of
    every table chunk with a spaced label pushing it down a rank. The text embedded keeps both
    (:func:`embed_text`)."""
    return index_text(chunk, True) if label_rows == "all" else chunk.text


#: A table cell that is a date written as numbers: ``20180315``, ``2018-03-15``, ``2018.03.15``,
#: ``2018/3/15`` (a year 1900-2099); the whole cell, up to a line end or a cell separator, or a
#: labelled row's value (``측정일시 20180315 · 측정소명 …``, :mod:`splitters.labels`).
_DATE_CELL = re.compile(r"(?:^|(?<= ))((?:19|20)\d\d)([-./]?)(\d{1,2})\2(\d{1,2})"
                        rf"(?={re.escape(CELL_SEPARATOR.rstrip())}|{re.escape(PAIR_SEPARATOR.rstrip())}|$)", re.M)
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def spoken_dates(text: str) -> str:
    """``text`` with each table cell that is a date written as numbers (:data:`_DATE_CELL`) written
    as Korean says it (``20180315`` → ``2018년 3월 15일``), when the text is Korean; else ``text``.

    Why: a question names a date as people say it ("2018년 3월 15일 종로구 초미세먼지"); a daily
    record keys its rows by the date a system exported (``20180315``), which an embedder does not
    read as that date. Full text finds the row by the query's date forms (:func:`flows.index.search.fts_query`);
    this is the same bridge for vectors, in the text embedded only (what is stored and shown keeps
    the document's form). On the development set's daily air-quality sheet, among its chunks of the
    questions' weeks and 100 others, the four row questions' evidence chunks ranked 9, 122, 252, 115
    by the default embedder and 1, 45, 34, 99 with the dates written so (e5-small: 59, 47, 81, 73 and
    22, 2, 6, 48); written ``2018-03-15`` they gained less or lost. English text is left as it is:
    no question set here asks an English table for a day."""
    if not _HANGUL.search(text):
        return text

    def spoken(match: re.Match) -> str:
        year, month, day = int(match[1]), int(match[3]), int(match[4])
        if not (1 <= month <= 12 and 1 <= day <= 31) or (not match[2] and len(match[0]) != 8):
            return match[0]
        return f"{year}년 {month}월 {day}일"

    return _DATE_CELL.sub(spoken, text)


def embed_text(chunk: Chunk, with_heading_path: bool, plain_cells: bool = False, label_rows: bool = False) -> str:
    """What the embedder sees: the chunk text (:func:`index_text`) with its table's dates as Korean
    says them in Korean text (:func:`spoken_dates`), optionally after its heading path, optionally
    with table cells separated by spaces instead of ``" | "``."""
    text = spoken_dates(index_text(chunk, label_rows))
    text = text.replace(CELL_SEPARATOR, " ") if plain_cells else text
    if with_heading_path and chunk.heading_path:
        return HEADING_SEPARATOR.join(chunk.heading_path) + "\n" + text
    return text


def embedded_texts(chunk: Chunk, with_heading_path: bool, plain_cells: bool, passage_tokens: int,
                   label_rows: bool = False) -> list[str]:
    """Every text embedded for one chunk: its whole :func:`embed_text` first, then its passages
    (:func:`passages`). The chunk's ``vector`` is the first one's; vector search ranks the chunk by
    the best of them all (the ``passages`` column).

    The passages of a chunk that repeats its table's header rows (:attr:`Chunk.header`: a tall
    sheet's row groups) are cut from its rows alone; the whole chunk's vector keeps the header. Why:
    the header is the same in every chunk of the table, so the passages over it were near-copies in
    every chunk — embedding work for nothing new, and vectors that matched a question naming the
    columns in every chunk alike. Measured with the default embedder (hit@5 in vector search; full
    text and hybrid unchanged on every set): the table set 64.7 → 67.6 %, the development set 77.4 →
    78.0, the third set 81.6 → 82.8, the held-out set 67.6 → 66.7 (one row lost); the texts embedded
    fell by 37 % on the table set and 25 % on the development set (its two tall sheets alone: 22,474
    → 15,236, and their 9 questions 2 → 1 in the top 5)."""
    whole = embed_text(chunk, with_heading_path, plain_cells, label_rows)
    body = _without_header(chunk)
    rows = whole if body is chunk else embed_text(body, with_heading_path, plain_cells, label_rows)
    return [whole, *passages(rows, passage_tokens)]


def _without_header(chunk: Chunk) -> Chunk:
    """``chunk`` without the table header rows repeated before its text (and before its labelled
    rows, :func:`index_text`); ``chunk`` itself when it repeats none."""
    if not chunk.header or not chunk.text.startswith(chunk.header):
        return chunk
    index = chunk.index_text
    if index:
        prefix = join_spaced(chunk.header)
        if not index.startswith(prefix):
            return chunk
        index = index[len(prefix):]
    return replace(chunk, text=chunk.text[len(chunk.header):], header="", index_text=index)


def scan_root(root: str | Path) -> RootWalk:
    """Files under ``root`` in a stable order, and the directories that could not be read.

    Hidden entries are skipped, and so are files matching a glob in the root's ``.seamsignore`` (one
    pattern a line, ``#`` comments; matched against the relative path and the name). Symlinks are
    followed only while their target stays inside the root, and every real directory and file is
    taken once, so symlink loops end and a linked file is not indexed twice. Real paths are walked
    before linked ones, so a file reachable both ways keeps its real path as its id whatever the
    links are called. A root given as a URI (``s3://bucket/prefix``) is listed on its object store
    (:func:`flows.ingest.sources.scan`).
    """
    if is_uri(str(root)):
        return scan_objects(str(root))
    root_path = Path(root).resolve()
    ignored = _ignore_patterns(root_path)
    if root_path.is_file():
        info = root_path.stat()
        ref = FileRef(str(root_path.parent), str(root_path), root_path.name, info.st_size, info.st_mtime)
        return RootWalk(str(root_path.parent), [ref], [], single_file=True)
    if not root_path.is_dir():
        return RootWalk(str(root_path), [], [])
    files: dict[str, FileRef] = {}  # by real path
    unreadable: list[str] = []
    seen_dirs = {str(root_path)}
    # (path, path relative to the root, real path): real directories first, then linked ones
    queue: deque[tuple[str, str, str]] = deque([(str(root_path), "", str(root_path))])
    linked_dirs: deque[tuple[str, str]] = deque()
    linked_files: list[tuple[str, str]] = []

    def inside(target: str) -> bool:
        return Path(target).is_relative_to(root_path)

    def add_file(path: str, relative: str, real: str) -> None:
        name = relative.rsplit("/", 1)[-1]
        if any(fnmatch.fnmatch(relative, p) or fnmatch.fnmatch(name, p) for p in ignored):
            return
        info = os.stat(path)
        files.setdefault(real, FileRef(str(root_path), path, relative, info.st_size, info.st_mtime))

    while queue or linked_dirs:
        if not queue:  # every real directory is done: now the linked ones not reached otherwise
            path, relative = linked_dirs.popleft()
            real = os.path.realpath(path)
            if real not in seen_dirs:
                seen_dirs.add(real)
                queue.append((path, relative, real))
            continue
        directory, relative_dir, real_dir = queue.popleft()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            unreadable.append(relative_dir)
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            relative = f"{relative_dir}/{entry.name}" if relative_dir else entry.name
            try:
                if entry.is_symlink():
                    target = os.path.realpath(entry.path)
                    if not inside(target):
                        continue  # a link that leaves the root
                    if os.path.isdir(target):
                        linked_dirs.append((entry.path, relative))
                    elif os.path.isfile(target):
                        linked_files.append((entry.path, relative))
                elif entry.is_dir(follow_symlinks=False):
                    real = os.path.join(real_dir, entry.name)
                    if real not in seen_dirs:
                        seen_dirs.add(real)
                        queue.append((entry.path, relative, real))
                elif entry.is_file(follow_symlinks=False):
                    add_file(entry.path, relative, os.path.join(real_dir, entry.name))
            except OSError:
                continue  # vanished or unreadable between listing and stat
    for path, relative in linked_files:  # after the real files, so a file's real path wins
        try:
            add_file(path, relative, os.path.realpath(path))
        except OSError:
            continue
    return RootWalk(str(root_path), sorted(files.values(), key=lambda r: r.doc_id), sorted(unreadable))


def walk(root: str | Path) -> list[FileRef]:
    """Files under ``root`` in a stable order (see :func:`scan_root`)."""
    return scan_root(root).files


IGNORE_FILE = ".seamsignore"


#: A ``.seamsignore`` is read up to this size; patterns past it are not used (with a warning).
IGNORE_MAX_BYTES = 1 << 20


def _ignore_patterns(root: Path) -> list[str]:
    """The root's ignore globs. Only a regular file is read (opened without blocking, so a FIFO
    cannot hang the run, and never a device such as ``/dev/zero``), and only its first MiB."""
    path = root / IGNORE_FILE
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return []
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            log.warning("%s is not a regular file: not read, nothing is ignored", path)
            return []
        data = handle.read(IGNORE_MAX_BYTES + 1)
    if len(data) > IGNORE_MAX_BYTES:
        log.warning("%s is over %d bytes: only the patterns in its first %d bytes are used", path,
                    IGNORE_MAX_BYTES, IGNORE_MAX_BYTES)
        data = data[:IGNORE_MAX_BYTES].rsplit(b"\n", 1)[0]
    lines = data.decode("utf-8", "replace").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
