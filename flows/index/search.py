"""Search a knowledge base: ``hybrid`` (the default), ``fts`` (BM25 full text) or ``vector``.

How ``hybrid`` fuses, and why (measured with ``bench/fusion.py`` on Chroma's English corpora and on
the development set of real Korean and English documents, ``bench/devset``, with the default
embedder, USE multilingual): full text alone puts the evidence in the top 5 far more often than the
vector ranking (Chroma 93 vs 75 %, dev set 96 vs 69 % hit@5 on seams' chunks), and reciprocal-rank
fusion with equal weights — the usual hybrid — loses 5–8 points to full text alone; every weight of
the vector ranking from 0.05 up lost on one set or the other, and score mixes and re-ranking only
what full text found did no better. So ``hybrid`` is reciprocal-rank fusion with the vector rank
weighted :data:`VECTOR_WEIGHT` (0.02) against a full-text rank: the full-text order stands, the
vector ranking breaks near-ties and fills the list when full text finds fewer than ``k`` chunks
(a question that shares no words with the text). On both sets it is at least as good as full text
alone (dev set 95.7 = 95.7 %, Chroma 93.6 vs 93.4 %). The fusion is chosen per embedder
(:data:`FUSIONS`): with ``e5-small``, a much better vector ranking (dev set 90.3 against 79.0 %
hit@5), no weight beat full text alone on the development set or Chroma's, but full text's order
with the vector ranking's best chunk seated third (:class:`Fusion`) does on both (98.9 against
98.4 %, 96.0 against 95.6 %) and loses no question on the other sets measured (docs/embedders.md).

Full text has two indexes (see :mod:`flows.index.store`) and a query goes to the one that suits its
script: a query written only in Latin letters uses the stemmed word index (on the chunk's embedded
text), anything else — Korean, Chinese, Japanese, mixed — the character n-gram index on the text.
Both index the document's title (the words of its file name) on a line before the chunk's text
(:func:`flows.index.store.search_text`), so a question that names its document ranks that document's
chunks first among those holding its other words. An English query also ranks chunks by their best
passage, fused with the whole-chunk ranking (:func:`fts_ranking`).
On the Chroma English benchmark the word index finds more of the evidence in the top 5 (recall
86 % vs 82 % for n-grams) and answers several times faster; n-grams are what make Korean work,
where particles are glued to the words.

A date in a full-text query is also looked for as the other ways tables and text write it
(:func:`fts_query`): "2018년 3월 15일" finds a row dated ``20180315`` or ``2018-03-15``. Measured on
the development set's daily air-quality CSV, whose questions name dates in words, full text and
hybrid went from 95.7 to 97.8 % hit@5 (four table-row questions, none lost); Chroma's questions hold
no such dates. The codes a Korean query names (``0222``, ``A1023``) are also looked up as whole words
and that ranking fused with the n-gram one (:func:`query_codes`).

The query is embedded, as a question, by the embedder the knowledge base was built with (its rows
record its specification and endpoint: :mod:`flows.embed.spec`); ``--embedder`` naming another one
is refused (exit 2). Vector search ranks a chunk by the best of its vectors (the whole chunk and its
passages), lifted by its document title's similarity with the question (:func:`with_titles`). It is
exact below :data:`flows.index.upkeep.VECTOR_INDEX_MIN_ROWS` rows; above, it uses the IVF_PQ index
and re-ranks its candidates by exact distance.

Results are plain dicts with a stable set of keys (:data:`HIT_KEYS`; the ``--json`` output).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from flows.embed import Embedder, embedder_for, text_hash
from flows.errors import UsageError
from flows.index.cells import CELL_POOL, by_cells
from flows.index.schema import DERIVED_COLUMNS, PASSAGE_FTS_COLUMN, chunk_schema, document_title, in_list
from flows.index.store import Store
from flows.index.upgrade import add_derived_columns
from flows.index.upkeep import VECTOR_INDEX, VECTOR_SEARCH_COLUMN, ensure_indexes, text_indexes
from flows.settings import Settings

log = logging.getLogger(__name__)

MODES = ("vector", "fts", "hybrid")
DEFAULT_MODE = "hybrid"
RRF_K = 60
#: In ``hybrid``, a vector rank counts this much against a full-text rank (see the module docstring).
VECTOR_WEIGHT = 0.02
#: Where ``hybrid`` seats the vector ranking's best chunk when full text ranks it lower (0: nowhere).
VECTOR_SEAT = 0


@dataclass(frozen=True)
class Fusion:
    """How ``hybrid`` fuses the two rankings: reciprocal-rank fusion with a vector rank weighted
    ``vector_weight`` against a full-text rank, then the vector ranking's best chunk placed at
    position ``vector_seat`` when the fusion ranks it lower (0: no seat). Chunks only vector search
    found follow full text's in vector order when the weight is 0."""

    vector_weight: float = VECTOR_WEIGHT
    vector_seat: int = VECTOR_SEAT

    def __str__(self) -> str:
        seat = f", vector's best seated {self.vector_seat}" if self.vector_seat else ""
        return f"vector weight {self.vector_weight}{seat}"


#: The fusion measured for a knowledge base built with one of these embedders (others: :class:`Fusion`'s
#: defaults). ``e5-small``: full text's order with the vector ranking's best chunk seated third. Against full text
#: alone, on six sets, it won a question on the development set and on each held-out set, three on Chroma's (one
#: lost there) and changed nothing on the table set and the sheets, where reciprocal-rank fusion at 0.05 (its
#: fusion before) won none on the first three and lost two table rows (docs/embedders.md, "Hybrid's fusion").
FUSIONS = {"e5-small": Fusion(vector_weight=0.0, vector_seat=3)}
#: Every other embedder's.
DEFAULT_FUSION = Fusion()
_CANDIDATES = 50  # per ranking, before fusion
_REFINE = 10  # with an IVF_PQ index, re-rank this many times k candidates by exact distance
#: The chunk columns a hit leaves out: the index's bookkeeping (root, content hash, ordinal, embedder,
#: dimension, config fingerprint, time indexed), the text as embedded and as indexed for full text,
#: its vectors, and the derived interop columns, which repeat the others. Every other column of the
#: one schema is in every hit.
NOT_IN_HITS = frozenset({"root", "content_hash", "ordinal", "embed_text", "fts_text", "fts_words", "embedder", "dim",
                         "config", "indexed_at", "vector", "passages", *DERIVED_COLUMNS})
#: The chunk columns a hit carries, in the schema's order (:func:`flows.index.store.chunk_schema`).
_ROW_KEYS = tuple(name for name in chunk_schema(1).names if name not in NOT_IN_HITS)
#: Every hit has exactly these keys, in this order (``--json`` consumers rely on them).
HIT_KEYS = (*_ROW_KEYS, "score", "where")


def ensure_fts_index(table) -> None:
    """The full-text indexes on the chunks table (created once; :meth:`Store.maintain` keeps them current)."""
    ensure_indexes(table, vector_min_rows=None)


def fts_column(query: str) -> str:
    """``fts_words`` (word index) for a query in Latin letters only, else ``fts_text`` (n-gram index)."""
    letters = [c for c in query if c.isalpha()]
    if letters and all(unicodedata.name(c, "").startswith("LATIN") for c in letters):
        return "fts_words"
    return "fts_text"


#: Dates a query may name: "2018년 3월 15일" (also "2018년 3월"), "2018-03-15", "2018.3.15",
#: "2018. 3. 15.", "2018/03/15" and "20180315" (a year 1900-2099 with a valid month and day).
_DATE_PATTERNS = (
    re.compile(r"(?<!\d)((?:19|20)\d\d)\s*년\s*(\d{1,2})\s*월(?:\s*(\d{1,2})\s*일)?"),
    re.compile(r"(?<![\d.])((?:19|20)\d\d)([-./])\s?(\d{1,2})\2\s?(\d{1,2})(?![\d])"),
    re.compile(r"(?<!\d)((?:19|20)\d\d)(\d\d)(\d\d)(?!\d)"),
)


def _dates(query: str) -> list[tuple[int, int, int | None]]:
    """(year, month, day or None) for every date :data:`_DATE_PATTERNS` find in ``query``."""
    found = []
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(query):
            groups = [g for g in match.groups() if g not in ("-", ".", "/")]
            year, month = int(groups[0]), int(groups[1])
            day = int(groups[2]) if len(groups) > 2 and groups[2] else None
            if 1 <= month <= 12 and (day is None or 1 <= day <= 31):
                found.append((year, month, day))
    return found


def date_forms(year: int, month: int, day: int | None) -> list[str]:
    """How documents write a date (or a month): compact, ISO, dotted and in Korean words."""
    if day is None:
        return [f"{year}{month:02d}", f"{year}-{month:02d}", f"{year}.{month:02d}", f"{year}년 {month}월"]
    return [f"{year}{month:02d}{day:02d}", f"{year}-{month:02d}-{day:02d}", f"{year}.{month:02d}.{day:02d}",
            f"{year}년 {month}월 {day}일"]


def fts_query(query: str) -> str:
    """The full-text query for ``query``: itself, then every other written form of each date it names.

    Why: a question names a date the way people say it ("2018년 3월 15일 종로구 초미세먼지") while a
    table holds it the way a system exported it (``20180315``, ``2018-03-15``); neither full-text
    index (words, or character n-grams) relates the two. The query only gains terms; ranking is still
    BM25 over the chunk text, which is unchanged."""
    extra = [form for date in dict.fromkeys(_dates(query)) for form in date_forms(*date) if form not in query]
    return " ".join([query, *dict.fromkeys(extra)])


#: A code a question names: a run of three or more ASCII letters and digits with a digit in it
#: (``0222``, ``A1023``, ``20180315``), other than a year (``2024``, which names everything of that year).
_CODE = re.compile(r"[0-9A-Za-z]{3,}")
_YEAR = re.compile(r"(?:19|20)\d\d")
#: The weight of the whole-code ranking against the n-gram ranking (:func:`fts_ranking`).
CODE_WEIGHT = 1.0


def query_codes(query: str) -> list[str]:
    """The codes ``query`` names (:data:`_CODE`), each once, in order.

    Why: character n-grams cut a code into pieces that its neighbours share, so in a code book
    ``0222`` matches ``0220``, ``0221``, ``1022``… nearly as well as itself, and the one row it keys
    ranks below chunks that repeat the question's other words. A Korean query's full-text ranking is
    therefore fused (reciprocal rank, :data:`CODE_WEIGHT`) with a ranking by its codes as whole words
    in the word index. Measured with full text on four sets of real documents (hit@5, seams / 800-400
    windows): the held-out set 99 → 100 / 93 → 95 of 105 (questions naming a code book's occupation
    codes), the table set, the development set and the second held-out set unchanged; with years
    counted as codes it lost 2 to 13 questions on three sets."""
    return list(dict.fromkeys(code for code in _CODE.findall(query)
                              if any(c.isdigit() for c in code) and not _YEAR.fullmatch(code)))


def where(row: dict, parts: int | None = None) -> str:
    """Where a chunk row sits, as a hit's ``where`` says it: pages, sheet and rows, slides; in a file
    with none of those (HTML, Markdown, DOCX, text), which part of how many (``parts``: the file's
    chunk count, with the row's ``ordinal``), or the whole file when it is one chunk."""
    places = []
    if row.get("page_start") is not None:
        places.append(f"p. {row['page_start']}" + (f"-{row['page_end']}" if row["page_end"] != row["page_start"] else ""))
    if row.get("sheet"):
        places.append(f"sheet {row['sheet']}")
    if row.get("row_start") is not None:
        places.append(f"rows {row['row_start']}-{row['row_end']}")
    if row.get("slide_start") is not None:
        places.append(f"slide {row['slide_start']}" + (f"-{row['slide_end']}" if row["slide_end"] != row["slide_start"] else ""))
    if places:
        return ", ".join(places)
    if parts and parts > 1 and row.get("ordinal") is not None:
        return f"part {row['ordinal'] + 1} of {parts}"
    return "whole file"


def vector_ranking(table, settings: Settings, query: str, limit: int, store: Store | None = None) -> list[dict]:
    """The ``limit`` chunks nearest the query, embedded by ``settings``' embedder (the knowledge
    base's: :func:`search` sets it), each chunk's similarity raised by its document title's
    (:func:`with_titles`, the settings' ``title_weight``, :data:`flows.settings.TITLE_WEIGHT`; the
    titles' vectors come from ``store``'s embedding cache)."""
    embedder = embedder_for(settings)
    vector = embedder.queries([query])[0]
    weight = settings.title_weight if store is not None else 0.0
    builder = (table.search(vector, vector_column_name=VECTOR_SEARCH_COLUMN).metric("cosine")
               .limit(max(limit, TITLE_POOL) if weight else limit))
    if any(index.name == VECTOR_INDEX for index in table.list_indices()):
        builder = builder.refine_factor(_REFINE)
    rows = builder.to_list()
    if weight:
        titles = title_vectors(store, embedder, {row["source"] for row in rows})
        return with_titles(rows, vector, titles, weight)[:limit]
    for row in rows:
        row["_score"] = 1.0 - float(row.get("_distance", 0.0))
    return rows


#: With a title weight, the vector candidates re-ranked by it (per question, before the cut to ``k``).
TITLE_POOL = 50


def title_vectors(store: Store, embedder: Embedder, sources: Iterable[str]) -> dict[str, np.ndarray]:
    """The unit vectors of the titles of ``sources`` (:func:`document_title`; sources without one are
    left out), embedded as passages: from the database's embedding cache, the others embedded now and
    saved to it (a database that cannot be written to only misses the saving)."""
    titles = {source: title for source in sources if source and (title := document_title(source))}
    hashes = {text_hash(title): title for title in titles.values()}
    vectors = store.cache.vectors(embedder.name, list(hashes))
    missing = [h for h in hashes if h not in vectors]
    if missing:
        fresh = dict(zip(missing, embedder.passages([hashes[h] for h in missing]), strict=True))
        vectors.update(fresh)
        try:
            store.cache.save(embedder.name, fresh)
        except (OSError, RuntimeError, ValueError) as exc:  # read-only storage: the vectors still serve
            log.warning("could not cache %d title vector(s): %s", len(fresh), exc)
    return {source: _unit(vectors[text_hash(title)]) for source, title in titles.items()}


def _unit(vector) -> np.ndarray:
    vector = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def with_titles(rows: list[dict], query_vector, titles: Mapping[str, np.ndarray], weight: float) -> list[dict]:
    """Vector rows (with ``_distance``, cosine, and ``source``) ranked by their similarity plus
    ``weight`` times the cosine of the question with their document's title (``titles``: unit
    vectors by source, :func:`title_vectors`), less the mean of that cosine over the rows' titles, so
    a document without a title neither gains nor loses; ``_score`` holds the sum. Ties by chunk id.

    Why: a question often names its document ("NICE평가정보 윤리강령에서 …", "Galaxy Gaming's
    10-K …") where the passage that answers does not, and full text already indexes the title beside
    every chunk. Measured with ``seams evaluate`` (vector hit@5, weight 0 → 0.2, seams' chunks):
    default embedder, development set 78.0 → 78.0 (2 won, 2 lost), held-out 66.7 → 68.6, held-out 2
    85.1 → 87.4, tables 67.6 → 70.6, Chroma 79.7 → 80.3; ``e5-small`` 89.2 → 90.9, 80.0 → 81.0,
    94.3 → 94.3, 88.2 → 89.2, 93.9 → 93.9; hybrid unchanged on every set (docs/search.md,
    "Document titles")."""
    query = _unit(query_vector)
    cosines = {source: float(vector @ query) for source, vector in titles.items()}
    present = [cosines[row["source"]] for row in rows if row.get("source") in cosines]
    mean = sum(present) / len(present) if present else 0.0
    for row in rows:
        lift = cosines.get(row.get("source"), mean) - mean
        row["_score"] = 1.0 - float(row.get("_distance", 0.0)) + weight * lift
    return sorted(rows, key=lambda row: (-row["_score"], row["chunk_id"]))


#: Passage rows read per chunk wanted when ranking by passages (a chunk has several passages).
_PASSAGES_PER_CHUNK = 4


def fts_ranking(table, query: str, limit: int, passages=None, columns: Sequence[str] | None = None) -> list[dict]:
    """The ``limit`` best chunks for ``query`` by BM25 (rows with ``columns``, all if None).

    A query for the word index (English, :func:`fts_column`) is ranked twice when the knowledge base
    has a passages table (``passages``, :meth:`flows.index.passages.PassageIndex.sync`): by each chunk's
    whole text and by its best passage of 128 tokens; the two rankings are fused with equal weights
    (reciprocal rank). Why: BM25 over a whole chunk weighs the question's words against the chunk's
    length, so a long chunk holding the one sentence that answers ranks below short chunks that merely
    mention the words; windows of one size all share that length. Measured with full text alone
    (hit@5 / recall %, every configuration searched the same way): Chroma's English questions, seams
    94.8 / 95.4 → 96.1 / 96.8, 800/400 windows 95.2 / 95.9 → 95.9 / 96.4; the development set's
    English questions 100 % before and after (400/0 windows 94.4 → 96.3 %). On the n-gram index
    (Korean) the same fusion lost a question of 132 on the development set and 2 of 80 on the
    held-out set, so it is English only.

    Last, for a query of the n-gram index, the best :data:`flows.index.cells.CELL_POOL` candidates
    are re-ranked by the table cells the question names (:func:`flows.index.cells.by_cells`: a chunk
    holding a cell whose row key names one of the question's words and whose column's headers name
    another scores up to four times its BM25) and cut to ``limit``: n-grams weigh a long word many times a short row key,
    the word index weighs each word once (on Chroma's English questions the rule lost one). A row
    returned carries ``text`` only if ``columns`` asked for it."""
    if fts_column(query) != "fts_text":
        return _fts_candidates(table, query, limit, passages, columns)
    wanted = [*columns, "text"] if columns else None  # the cells are read from the chunk's text
    ranked = by_cells(_fts_candidates(table, query, max(limit, CELL_POOL), passages, wanted), query)[:limit]
    if columns and "text" not in columns:
        for row in ranked:
            row.pop("text", None)
    return ranked


def _fts_candidates(table, query: str, limit: int, passages, columns: Sequence[str] | None) -> list[dict]:
    """:func:`fts_ranking` before the table cells (:func:`flows.index.cells.by_cells`)."""
    ensure_fts_index(table)
    column = fts_column(query)
    text = fts_query(query)

    columns = [*dict.fromkeys([*columns, "content_hash"])] if columns else None
    search = table.search(text, query_type="fts", fts_columns=column).limit(limit)
    ranked = (search.select([*columns, "_score"]) if columns else search).to_list()
    codes = query_codes(query) if column == "fts_text" else []
    if codes:
        by_code = table.search(" ".join(codes), query_type="fts", fts_columns="fts_words").limit(limit)
        by_code = (by_code.select([*columns, "_score"]) if columns else by_code).to_list()
        ranked = reciprocal_rank_fusion([(ranked, 1.0), (by_code, CODE_WEIGHT)], limit)
    if passages is None or column != PASSAGE_FTS_COLUMN or passages.count_rows() == 0:
        return ranked
    best: dict[str, str] = {}  # chunk id -> the content hash of the file version its passage is from
    for row in (passages.search(text, query_type="fts", fts_columns=column).select(["chunk_id", "content_hash", "_score"])
                .limit(limit * _PASSAGES_PER_CHUNK).to_list()):
        best.setdefault(row["chunk_id"], row["content_hash"])
        if len(best) == limit:
            break
    rows = {row["chunk_id"]: row for row in ranked}
    missing = [chunk_id for chunk_id in best if chunk_id not in rows]
    if missing:
        fetch = table.search().where(in_list("chunk_id", missing)).limit(len(missing))
        rows.update((row["chunk_id"], row) for row in (fetch.select(columns) if columns else fetch).to_list())
    # Passages not synced since a file changed or went: a chunk deleted since finds no row, and one
    # whose id now holds another version of the file has another content hash; both drop out
    by_passage = [rows[chunk_id] for chunk_id, content in best.items()
                  if chunk_id in rows and rows[chunk_id]["content_hash"] == content]
    return reciprocal_rank_fusion([(ranked, 1.0), (by_passage, 1.0)], limit)


def reciprocal_rank_fusion(rankings: Sequence[tuple[list[dict], float]], k: int) -> list[dict]:
    """Weighted reciprocal-rank fusion of (ranking, weight) pairs: a chunk's score is the sum of
    weight / (RRF_K + its rank) over the rankings it is in; the ``k`` best, ties by chunk id."""
    scores: dict[str, float] = {}
    rows: dict[str, dict] = {}
    for ranking, weight in rankings:
        for rank, row in enumerate(ranking, start=1):
            scores[row["chunk_id"]] = scores.get(row["chunk_id"], 0.0) + weight / (RRF_K + rank)
            rows.setdefault(row["chunk_id"], row)
    ordered = sorted(scores, key=lambda cid: (-scores[cid], cid))[:k]
    return [dict(rows[cid], _score=scores[cid]) for cid in ordered]


def hybrid_fusion(settings: Settings) -> Fusion:
    """How ``hybrid`` fuses for a knowledge base built with the settings' embedder: the fusion measured
    for it (:data:`FUSIONS`, else :class:`Fusion`'s defaults), with the settings' ``vector_weight``
    (``--vector-weight``, ``SEAMS_VECTOR_WEIGHT``) and ``vector_seat`` (``--vector-seat``,
    ``SEAMS_VECTOR_SEAT``) where given: a team whose own questions (``seams evaluate``,
    ``bench/fusion.py``) show that another fusion finds more sets it there."""
    measured = FUSIONS.get(settings.embedder_spec, DEFAULT_FUSION)
    return Fusion(measured.vector_weight if settings.vector_weight is None else settings.vector_weight,
                  measured.vector_seat if settings.vector_seat is None else settings.vector_seat)


def fuse(vector: list[dict], fts: list[dict], k: int, fusion: Fusion = DEFAULT_FUSION) -> list[dict]:
    """``hybrid`` (:class:`Fusion`): weighted reciprocal-rank fusion, score = 1 / (RRF_K + full-text rank)
    + vector_weight / (RRF_K + vector rank), summed over the rankings a chunk is in; then the vector
    ranking's best chunk moved up to ``vector_seat`` if it ranks lower, with the score of the hit it
    moves down (the scores stay in order)."""
    if fusion.vector_weight:
        ranked = reciprocal_rank_fusion([(fts, 1.0), (vector, fusion.vector_weight)], len(fts) + len(vector))
    else:  # full text's order; what only vector search found fills in, in its order
        ranked = reciprocal_rank_fusion([(fts, 1.0)], len(fts))
        found = {row["chunk_id"] for row in ranked}
        ranked += [dict(row, _score=0.0) for row in vector if row["chunk_id"] not in found]
    if fusion.vector_seat and vector:
        best = next(index for index, row in enumerate(ranked) if row["chunk_id"] == vector[0]["chunk_id"])
        if best >= fusion.vector_seat:  # it takes the place, and the score, of the hit it moves down
            seated = dict(ranked.pop(best), _score=ranked[fusion.vector_seat - 1]["_score"])
            ranked.insert(fusion.vector_seat - 1, seated)
    return ranked[:k]


def search(settings: Settings, query: str, k: int = 5, mode: str = DEFAULT_MODE) -> list[dict]:
    """The ``k`` best chunks for ``query`` in the settings' knowledge base ([] if it is empty)."""
    if mode not in MODES:
        raise UsageError(f"unknown search mode {mode!r}; known: {', '.join(MODES)}")
    if k < 1:
        raise UsageError(f"k must be at least 1, got {k}")
    if any("\udc80" <= c <= "\udcff" for c in query):  # bytes the terminal's encoding could not decode
        raise UsageError("the query is not valid text in this terminal's encoding (UTF-8 expected)")
    if "://" not in settings.db and not Path(settings.db).expanduser().is_dir():
        # connecting would create the folder of a mistyped --db
        raise UsageError(f"no seams database at {settings.db} (index a folder first: seams ingest FOLDER --db "
                         f"{settings.db})")
    store = Store(settings.db, settings.kb)
    table = store.chunks_table()
    if table is None:
        known = store.knowledge_bases()
        raise UsageError(f"no knowledge base {settings.kb!r} in {settings.db}; "
                         + (f"it has: {', '.join(known)}" if known else "it has none yet"))
    settings = settings.with_recorded_embedder(store.recorded_embedder())  # its own; another is refused
    if not query.strip() or table.count_rows() == 0:
        return []
    if mode != "vector" and any(column not in table.schema.names for column in text_indexes()):
        # written by a seams before the full-text columns: add them now rather than at the next ingest
        add_derived_columns(store)
        table = store.chunks_table()
    depth = max(k, _CANDIDATES)
    columns = [*_ROW_KEYS, "ordinal"]
    if mode == "vector":
        ranked = vector_ranking(table, settings, query, k, store)
    elif mode == "fts":
        ranked = fts_ranking(table, query, depth, store.passages.table(), columns)[:k]
    else:
        ranked = fuse(vector_ranking(table, settings, query, depth, store),
                      fts_ranking(table, query, depth, store.passages.table(), columns), k, hybrid_fusion(settings))
    ranked = ranked[:k]
    parts = _chunk_counts(table, {row["doc_id"] for row in ranked if where(row) == "whole file"})
    return [_hit(row, parts.get(row["doc_id"])) for row in ranked]


def _chunk_counts(table, doc_ids: set[str]) -> dict[str, int]:
    """How many chunks each of ``doc_ids`` has in ``table`` (asked only for hits that no page, sheet
    or slide locates, so a search of paged files reads nothing more)."""
    if not doc_ids:
        return {}
    rows = table.search().where(in_list("doc_id", sorted(doc_ids))).select(["doc_id"]).limit(None).to_list()
    return Counter(row["doc_id"] for row in rows)


def _hit(row: dict, parts: int | None = None) -> dict:
    hit = {key: row.get(key) for key in _ROW_KEYS}
    hit["score"] = float(row.get("_score", 0.0))
    hit["where"] = where(row, parts)
    return hit
