"""The LanceDB store on real databases in temp dirs: one commit per batch, exact predicates, upkeep."""

from __future__ import annotations

import datetime as dt
import zlib

import numpy as np
import pyarrow as pa
import pytest

from flows.index.cache import cache_table_name
from flows.index.schema import (
    DERIVED_COLUMNS,
    INDEX_TEXT,
    ROW_COLUMNS,
    WRITE_BATCH_ROWS,
    chunk_schema,
    in_list,
    sql_string,
)
from flows.index.store import Store, now
from flows.index.upkeep import (
    PRUNE_VERSIONS,
    TOO_MANY_FRAGMENTS,
    VECTOR_INDEX,
    VECTOR_SEARCH_COLUMN,
    ensure_indexes,
)
from flows.settings import CACHE

DIM = 8

#: Names that break naive predicates: quotes, LIKE wildcards, backslashes, a newline, unicode, and
#: names that are prefixes or patterns of each other.
HOSTILE = ["it's.txt", "it''s.txt", "x' OR '1'='1", "100%.txt", "100_.txt", "1000.txt", "a_c.md", "abc.md",
           "back\\slash.txt", "back\\", "new\nline.txt", "한글 문서.md", "emoji 😀.txt", "\\'; --", "tab\there"]


def row(doc_id: str, ordinal: int, text: str = "", dim: int = DIM, seed: int = 0) -> dict:
    """A chunk row whose file path (``source``, what the store keys files by) is ``doc_id`` itself."""
    # Seeded from the names with crc32, not hash(): str hashes change per process (PYTHONHASHSEED), and a
    # test's vectors must be the same on every run. Centred vectors: all-positive ones have near-equal cosines
    vector = np.random.default_rng(zlib.crc32(f"{doc_id}#{ordinal}#{seed}".encode())).standard_normal(dim, dtype=np.float32)
    return {
        "chunk_id": f"{doc_id}#{ordinal}", "doc_id": doc_id, "source": doc_id, "root": "/docs",
        "content_hash": "h", "format": "txt", "strategy": "general", "rule": "default", "ordinal": ordinal,
        "text": text or f"chunk {ordinal} of {doc_id}", "embed_text": text or f"chunk {ordinal} of {doc_id}",
        "tokens": 5, "heading_path": "", "char_start": 0, "char_end": 5, "embedder": "test", "dim": dim,
        "config": "c", "indexed_at": now(), "vector": vector.tolist(), "passages": [vector.tolist(), vector[::-1].tolist()],
    }


def doc_rows(doc_id: str, count: int, seed: int = 0) -> list[dict]:
    return [row(doc_id, i, seed=seed) for i in range(count)]


def chunk_ids(store: Store) -> list[str]:
    return sorted(r["chunk_id"] for r in store.rows(["chunk_id"]))


def test_schema_has_every_field_the_index_promises():
    names = set(chunk_schema(DIM).names)
    assert names >= {"chunk_id", "doc_id", "source", "content_hash", "format", "strategy", "rule", "ordinal",
                     "text", "embed_text", "tokens", "page_start", "page_end", "sheet", "row_start", "row_end",
                     "slide_start", "slide_end", "heading_path", "char_start", "char_end", "embedder", "dim",
                     "config", "indexed_at", "vector", "passages"}
    assert chunk_schema(DIM).field("vector").type == pa.list_(pa.float32(), DIM)
    assert chunk_schema(DIM).field("passages").type == pa.list_(pa.list_(pa.float32(), DIM))


def test_rows_hits_and_rankings_use_the_one_schemas_columns():
    """The chunks table's columns are defined once, in chunk_schema: the rows ingest and evaluate
    build have exactly them (in order), search hits and the evaluation's rankings read some of them."""
    from classifiers import Decision
    from flows.embed import text_hash
    from flows.evaluate import runner
    from flows.index.search import HIT_KEYS
    from flows.ingest.pipeline import FileRef, Outcome
    from flows.ingest.rows import chunk_rows
    from flows.settings import Settings
    from splitters import Chunk

    chunk = Chunk("한 문단입니다.", 0, 8, 4, heading_path=("제1장",))
    outcome = Outcome(FileRef("/docs", "/docs/a.txt", "a.txt", 8, 0.0), "h", "txt",
                      Decision("general", "default", "no stronger signal"), (chunk,))
    settings = Settings(embedder="hashing")
    vectors = {text_hash(chunk.text): [0.0] * DIM, text_hash("제1장\n" + chunk.text): [0.0] * DIM}
    (built,) = chunk_rows(outcome, settings, vectors, DIM, now())
    assert tuple(built) == (*ROW_COLUMNS, INDEX_TEXT)
    assert ROW_COLUMNS == tuple(n for n in chunk_schema(DIM).names if n not in DERIVED_COLUMNS)
    assert set(HIT_KEYS) - {"score", "where"} <= set(ROW_COLUMNS)
    assert set(runner._COLUMNS) <= set(ROW_COLUMNS)


@pytest.mark.parametrize("name", HOSTILE)
def test_predicates_match_exactly_one_name(db_path, name):
    store = Store(db_path)
    store.replace_documents([r for n in HOSTILE for r in doc_rows(n, 2)], HOSTILE, DIM)
    table = store.chunks_table()
    assert table.count_rows(f"doc_id = {sql_string(name)}") == 2
    assert table.count_rows(in_list("source", [name])) == 2
    store.forget([name])
    left = {r["doc_id"] for r in store.rows(["doc_id"])}
    assert left == set(HOSTILE) - {name}, "a delete reached other files"


def test_replacing_a_batch_of_files_is_one_commit(db_path):
    store = Store(db_path)
    store.replace_documents(doc_rows("a", 3) + doc_rows("b", 2) + doc_rows("c", 2), ["a", "b", "c"], DIM)
    before = store.chunks_table().version
    # a shrinks to one chunk, b grows to four, c is emptied (its file now cuts to nothing), d is new
    written, deleted = store.replace_documents(doc_rows("a", 1, seed=1) + doc_rows("b", 4, seed=1) + doc_rows("d", 1),
                                               ["a", "b", "c", "d"], DIM)
    assert store.chunks_table().version == before + 1, "one merge_insert commit for the whole batch"
    assert (written, deleted) == (6, 4)  # a#1, a#2, c#0, c#1
    assert chunk_ids(store) == ["a#0", "b#0", "b#1", "b#2", "b#3", "d#0"]
    # the version before is intact: a reader saw every file as it was, then every file as it is
    reader = store.db.open_table("default__chunks")
    reader.checkout(before)
    assert sorted(reader.to_arrow().column("chunk_id").to_pylist()) == [
        "a#0", "a#1", "a#2", "b#0", "b#1", "c#0", "c#1"]


def test_a_batch_that_empties_every_file_deletes_them_in_one_commit(db_path):
    store = Store(db_path)
    store.replace_documents(doc_rows("a", 2) + doc_rows("b", 2), ["a", "b"], DIM)
    before = store.chunks_table().version
    assert store.replace_documents([], ["a"], DIM) == (0, 2)
    assert store.chunks_table().version == before + 1
    assert chunk_ids(store) == ["b#0", "b#1"]


def test_other_files_rows_are_not_rewritten(db_path):
    store = Store(db_path)
    store.replace_documents(doc_rows("a", 2) + doc_rows("b", 2), ["a", "b"], DIM)
    b_before = [r for r in store.rows() if r["doc_id"] == "b"]
    store.replace_documents(doc_rows("a", 3, seed=2), ["a"], DIM)
    assert [r for r in store.rows() if r["doc_id"] == "b"] == b_before


def test_a_different_vector_size_is_refused_before_writing(db_path):
    store = Store(db_path)
    store.replace_documents(doc_rows("a", 1), ["a"], DIM)
    with pytest.raises(ValueError, match="8-d vectors"):
        store.replace_documents([row("b", 0, dim=16)], ["b"], 16)
    assert chunk_ids(store) == ["a#0"]


def test_a_table_whose_creation_was_cut_short_is_healed(db_path, tmp_path):
    # A kill between creating the table folder and committing its first version leaves this.
    (tmp_path / "lancedb" / "default__chunks.lance").mkdir(parents=True)
    (tmp_path / "lancedb" / "default__manifest.lance").mkdir(parents=True)
    store = Store(db_path)
    assert store.manifest() == {} and store.count() == 0
    store.replace_documents(doc_rows("a", 2), ["a"], DIM)
    store.write_manifest([{"doc_id": "a", "root": "/docs", "path": "a", "status": "indexed"}])
    assert chunk_ids(store) == ["a#0", "a#1"] and set(store.manifest()) == {"a"}


def test_manifest_upsert_and_forget(db_path):
    store = Store(db_path)
    store.write_manifest([{"doc_id": n, "root": "/docs", "path": n, "status": "indexed", "chunks": 1} for n in HOSTILE])
    store.write_manifest([{"doc_id": "it's.txt", "root": "/docs", "path": "it's.txt", "status": "failed", "chunks": 0}])
    manifest = store.manifest()
    assert set(manifest) == set(HOSTILE) and manifest["it's.txt"]["status"] == "failed"
    store.forget(["it's.txt", "100%.txt"])
    assert set(store.manifest()) == set(HOSTILE) - {"it's.txt", "100%.txt"}


def test_embedding_cache_is_keyed_by_embedder_and_text_hash(db_path):
    store = Store(db_path)
    one, two = np.ones(4, dtype=np.float32), np.full(4, 2, dtype=np.float32)
    store.cache.save("e1", {"h1": one})
    store.cache.save("e2", {"h1": two})
    store.cache.save("e1", {"h1": two, "h2": two})  # an existing entry is never overwritten
    got = store.cache.vectors("e1", ["h1", "h2", "h3"])
    assert sorted(got) == ["h1", "h2"] and got["h1"].tolist() == one.tolist()
    assert store.cache.vectors("e2", ["h1"])["h1"].tolist() == two.tolist()


def test_two_processes_saving_to_a_new_cache_at_once_keep_both_their_vectors(db_path):
    """Two workers that each found no cache table and create it at once (the Dask runner's two
    processes did, losing two of eight vectors): the second's vectors are added, not dropped."""
    first, second = Store(db_path), Store(db_path)
    assert second.cache._open(cache_table_name("e")) is None  # the second looked before the first wrote
    first.cache.save("e", {"h1": np.ones(4, dtype=np.float32)})
    looked = second.cache._open
    second.cache._open = lambda name: None  # and acts on what it saw
    second.cache.save("e", {"h2": np.full(4, 2, dtype=np.float32), "h3": np.full(4, 3, dtype=np.float32)})
    second.cache._open = looked
    got = Store(db_path).cache.vectors("e", ["h1", "h2", "h3"])
    assert {h: float(v[0]) for h, v in got.items()} == {"h1": 1.0, "h2": 2.0, "h3": 3.0}


def test_maintain_builds_text_indexes_and_compacts_piled_up_commits(db_path):
    store = Store(db_path)
    for i in range(TOO_MANY_FRAGMENTS + 2):  # one small commit per file, as many small runs leave it
        store.replace_documents(doc_rows(f"f{i}", 1), [f"f{i}"], DIM)
    store.cache.save("e", {f"h{i}": np.ones(4, dtype=np.float32) for i in range(3)})
    table = store.chunks_table()
    assert table.stats()["fragment_stats"]["num_fragments"] >= TOO_MANY_FRAGMENTS
    done = store.maintain(changed_files=1)
    assert {"fts_text_idx", "fts_words_idx"} <= set(done) and "compact default__chunks" in done
    table = store.chunks_table()  # a handle sees other handles' commits once reopened
    assert {i.name for i in table.list_indices()} == {"fts_text_idx", "fts_words_idx"}
    assert table.stats()["fragment_stats"]["num_fragments"] == 1
    assert chunk_ids(store) == sorted(f"f{i}#0" for i in range(TOO_MANY_FRAGMENTS + 2))
    assert store.maintain(changed_files=1) == [], "nothing to do the second time"
    assert store.open_table(cache_table_name("e")) is not None


@pytest.mark.parametrize("count", [WRITE_BATCH_ROWS + 1, 3 * WRITE_BATCH_ROWS + 7])
def test_a_large_cache_write_keeps_every_text_with_its_own_vector(db_path, count):
    """A write of more than one record batch of new vectors (as an ingest or an evaluation saves
    4,096 at a time): every text reads back its own vector, into an existing cache and a new one."""
    store = Store(db_path)
    rng = np.random.default_rng(7)
    first = {f"first{i}": rng.standard_normal(512).astype(np.float32) for i in range(count)}
    more = {f"more{i}": rng.standard_normal(512).astype(np.float32) for i in range(count)}
    store.cache.save("e", first)  # creates the table
    store.cache.save("e", more)  # appends to it
    for items in (first, more):
        back = store.cache.vectors("e", list(items))
        wrong = [h for h, vector in items.items() if not np.array_equal(back[h], vector)]
        assert not wrong, f"{len(wrong)} of {len(items)} texts read another text's vector"


def test_an_embedding_cache_of_the_older_layout_is_dropped_not_read(db_path):
    store = Store(db_path)
    old = f"{CACHE}__e"  # the layout whose large writes stored other texts' vectors
    store.db.create_table(old, data=[{"key": "e:h1", "embedder": "e", "text_hash": "h1", "vector": [1.0, 0.0]}])
    assert store.cache.vectors("e", ["h1"]) == {}
    store.cache.save("e", {"h2": np.ones(2, dtype=np.float32)})
    assert store.cache.drop_stale() == [old]
    listed = store.db.list_tables()
    assert old not in getattr(listed, "tables", listed) and set(store.cache.vectors("e", ["h1", "h2"])) == {"h2"}
    assert store.cache.drop_stale() == []


def test_a_stale_embedding_cache_makes_every_knowledge_base_index_its_files_again(tmp_path):
    from flows.ingest.flow import Steps, run_ingest
    from flows.settings import Settings

    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text("# 개요\n\n첫 문서입니다.\n", encoding="utf-8")
    configs = [Settings(db=str(tmp_path / "db"), kb=kb, embedder="hashing", workers=0) for kb in ("one", "two")]
    for config in configs:
        assert run_ingest([str(root)], config, Steps()).count("added") == 1
    store = Store(str(tmp_path / "db"))
    store.db.create_table(f"{CACHE}__hashing", data=[{"key": "hashing:h", "embedder": "hashing", "text_hash": "h",
                                                      "vector": [0.0] * 512}])
    for config in configs:  # the first run drops the cache and both manifests; each KB re-indexes its file
        report = run_ingest([str(root)], config, Steps())
        assert report.count("unchanged") == 0 and report.failed == 0 and report.rows_written == 1
        assert run_ingest([str(root)], config, Steps()).count("unchanged") == 1


def test_embedding_caches_of_different_widths_live_side_by_side(db_path):
    """Switching the embedder on a database must not break the cache (LanceDB fixes a vector width)."""
    store = Store(db_path)
    store.cache.save("wide", {"h1": np.ones(512, dtype=np.float32)})
    store.cache.save("narrow", {"h1": np.full(384, 2.0, dtype=np.float32)})
    assert store.cache.vectors("wide", ["h1"])["h1"].shape == (512,)
    assert float(store.cache.vectors("narrow", ["h1"])["h1"][0]) == 2.0
    assert store.cache.vectors("narrow", ["h2"]) == {}


def test_vector_index_from_the_threshold_keeps_exact_top_hit(db_path):
    store = Store(db_path)
    rows = [r for i in range(60) for r in doc_rows(f"d{i}", 10)]  # 600 rows
    store.replace_documents(rows, sorted({r["doc_id"] for r in rows}), DIM)
    table = store.chunks_table()
    assert VECTOR_INDEX not in ensure_indexes(table, vector_min_rows=601)
    assert VECTOR_INDEX in store.maintain(changed_files=1, vector_min_rows=600)
    table = store.chunks_table()
    assert VECTOR_INDEX in {i.name for i in table.list_indices()}
    # Probing every partition, with exact re-ranking of the candidates, a stored passage finds its own
    # chunk. An approximate index may still miss a few of 172 (the index's training is random: over 150
    # trainings the worst found 98.8 %, while the default probes without re-ranking miss many more)
    queries = [(passage, probe["chunk_id"]) for probe in rows[::7] for passage in probe["passages"]]
    found = sum(table.search(passage, vector_column_name=VECTOR_SEARCH_COLUMN).metric("cosine").limit(1)
                .nprobes(256).refine_factor(10).to_list()[0]["chunk_id"] == chunk_id for passage, chunk_id in queries)
    assert found >= 0.95 * len(queries)


def _size(path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def test_old_versions_are_pruned_once_they_pile_up(db_path, tmp_path, monkeypatch):
    """Issue #16.5: every commit leaves a version with its data files; months of scheduled runs grew
    a database to 13x a fresh ingest's size, because versions were dropped only with compaction."""
    import flows.index.store
    import flows.index.upkeep

    store = Store(db_path)
    for i in range(PRUNE_VERSIONS):  # one file rewritten over and over: few fragments, many versions
        store.replace_documents(doc_rows("a", 20, seed=i), ["a"], DIM)
    table = store.chunks_table()
    assert not flows.index.upkeep.needs_compaction(table)
    assert "prune default__chunks" not in store.maintain(changed_files=1), "recent versions are kept"
    grown = _size(tmp_path / "lancedb" / "default__chunks.lance")

    for module in (flows.index.store, flows.index.upkeep):  # as if the retention had passed
        monkeypatch.setattr(module, "KEEP_VERSIONS", dt.timedelta(milliseconds=1))
    assert "prune default__chunks" in store.maintain(changed_files=1)
    table = store.chunks_table()
    assert len(table.list_versions()) <= 2
    assert _size(tmp_path / "lancedb" / "default__chunks.lance") < grown / 4
    assert chunk_ids(store) == sorted(f"a#{i}" for i in range(20)) and store.count() == 20
    assert "prune default__chunks" not in store.maintain(changed_files=1), "nothing left to prune"


def test_the_embedding_cache_forgets_texts_no_chunk_holds_once_it_outgrows_them(db_path):
    from flows.embed import text_hash

    store = Store(db_path)
    store.replace_documents(doc_rows("a", 3), ["a"], DIM)
    live = {text_hash(f"chunk {i} of a"): np.ones(4, dtype=np.float32) for i in range(3)}
    store.cache.save("e", live)
    assert "prune embedding cache" not in store.maintain(changed_files=1)
    edited_away = {text_hash(f"an old version {i}"): np.ones(4, dtype=np.float32) for i in range(3)}
    store.cache.save("e", edited_away)  # twice the chunks' texts: within the slack, kept
    assert "prune embedding cache" not in store.maintain(changed_files=1)
    assert store.cache.vectors("e", list(edited_away)).keys() == edited_away.keys()
    store.cache.save("e", {text_hash("one more"): np.ones(4, dtype=np.float32)})
    assert "prune embedding cache" in store.maintain(changed_files=1)
    assert store.cache.vectors("e", [*live, *edited_away, text_hash("one more")]).keys() == live.keys()
