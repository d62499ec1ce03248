"""Search over a real knowledge base: full text in Korean and English, vector, hybrid, --json, --kb."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures.files import make_docx
from test_sync import settings, write

from flows.app.cli import EXIT_USAGE, main
from flows.embed import text_hash
from flows.errors import UsageError
from flows.index.schema import cells_once, chunk_schema
from flows.index.search import HIT_KEYS, MODES, NOT_IN_HITS, fts_column, fts_query, search
from flows.index.store import Store, now
from flows.ingest.flow import ingest_flow

DOCS = {
    "privacy.txt": "개인정보 보호 규정\n\n제5조(파기) 보유기간이 지난 개인정보는 5일 이내에 파기하여야 한다.\n",
    "budget.txt": "예산 집행 현황\n\n올해 예산은 교육 사업에 집중하여 집행되었다.\n",
    "meeting.md": "# Meeting notes\n\nThe committee reviewed the budgets and approved the hiring plan.\n",
    "travel.md": "# Travel policy\n\nEmployees book trains for trips shorter than four hours.\n",
}


@pytest.fixture(scope="module")
def kb(prefect_harness, tmp_path_factory) -> tuple[str, Path]:
    root = tmp_path_factory.mktemp("search") / "docs"
    for name, text in DOCS.items():
        write(root / name, text)
    db = str(root.parent / "db")
    report = ingest_flow([str(root)], settings(db))
    assert report.count("added") == len(DOCS)
    return db, root


def docs(hits: list[dict]) -> list[str]:
    return [h["doc_id"] for h in hits]


def test_every_chunk_column_is_in_the_hits_or_left_out_by_name():
    """Issue #14: a hit's keys come from the one chunk schema. A column added to it is in every hit
    (in the schema's order) or named in NOT_IN_HITS; none is dropped silently or left out by a stale name."""
    columns = chunk_schema(8).names
    carried = [key for key in HIT_KEYS if key not in ("score", "where")]
    assert HIT_KEYS[-2:] == ("score", "where") and not {"score", "where"} & set(columns)
    assert sorted(carried + sorted(NOT_IN_HITS)) == sorted(columns), "each column carried or excluded, once"
    assert carried == [name for name in columns if name in carried]
    assert {"chunk_id", "doc_id", "text", "heading_path", "char_start", "char_end"} <= set(carried)
    assert {"vector", "metadata", "embed_text"} <= NOT_IN_HITS


def test_queries_go_to_the_index_that_suits_their_script():
    assert fts_column("budget review") == "fts_words"
    assert fts_column("Café, naïve résumé 2024") == "fts_words"
    assert fts_column("개인정보 파기") == "fts_text"
    assert fts_column("AI 윤리 가이드라인") == "fts_text"  # mixed: n-grams cover both
    assert fts_column("東京 会議") == "fts_text"
    assert fts_column("2024 / 7") == "fts_text"  # no letters: n-grams


def test_korean_query_finds_the_korean_chunk(kb):
    db, _ = kb
    for query in ("개인정보 파기", "파기하여야"):  # a particle-glued form, as Korean is written
        assert docs(search(settings(db), query, k=1, mode="fts")) == ["privacy.txt"]
    assert docs(search(settings(db), "예산 집행", k=1, mode="fts")) == ["budget.txt"]
    assert docs(search(settings(db), "개인정보 파기", k=1, mode="hybrid")) == ["privacy.txt"]


def test_english_query_matches_word_forms(kb):
    db, _ = kb
    # "budget" is stemmed to match "budgets"; "approve" matches "approved"
    assert docs(search(settings(db), "budget approve", k=1, mode="fts")) == ["meeting.md"]
    assert docs(search(settings(db), "train trip", k=1, mode="hybrid")) == ["travel.md"]


def test_every_mode_returns_stable_hits(kb):
    db, root = kb
    for mode in MODES:
        hits = search(settings(db), "budget 예산", k=3, mode=mode)
        assert 1 <= len(hits) <= 3
        for hit in hits:
            assert tuple(hit) == HIT_KEYS
            assert hit["source"] == str(root / hit["doc_id"]) and isinstance(hit["score"], float)
            assert hit["where"] == "whole file" and hit["text"]
        scores = [h["score"] for h in hits]
        assert scores == sorted(scores, reverse=True)


def test_the_query_uses_the_embedder_the_kb_was_built_with(kb):
    db, _ = kb
    # The KB holds hashing vectors: settings naming no embedder use its own (issue #32) ...
    hits = search(settings(db).model_copy(update={"embedder": ""}), "trains", k=1, mode="vector")
    assert docs(hits) == ["travel.md"]
    # ... and naming another one is refused, saying what to do, rather than comparing unlike vectors.
    with pytest.raises(UsageError, match=r"built with the embedder hashing, not e5-small.*new --kb"):
        search(settings(db).model_copy(update={"embedder": "e5-small"}), "trains", k=1, mode="vector")


def test_hostile_queries_do_not_break_full_text(kb):
    db, _ = kb
    for query in ['it\'s "quoted" (x) AND: y*', "NOT OR AND", "+-&&||!(){}[]^\"~*?:\\/", "a", "개", "x" * 3000]:
        for mode in ("fts", "hybrid"):
            assert isinstance(search(settings(db), query, k=2, mode=mode), list)
    assert search(settings(db), "   ", k=2) == []


def test_unknown_mode_and_missing_database(tmp_path):
    with pytest.raises(ValueError, match="vector, fts, hybrid"):
        search(settings(tmp_path / "db"), "q", mode="bm25")
    missing = tmp_path / "typo"
    with pytest.raises(UsageError, match="no seams database at"):
        search(settings(missing), "q")
    assert not missing.exists(), "a search never creates a database"


def test_full_text_sees_writes_after_the_index_was_built(tmp_path):
    """Rows written after the index (not yet folded in by compaction) are searched too; deleted
    rows are not."""
    db = str(tmp_path / "db")
    store = Store(db)
    dim = 512

    def rows(doc_id: str, text: str) -> list[dict]:
        return [{"chunk_id": f"{doc_id}#0", "doc_id": doc_id, "source": doc_id, "content_hash": text_hash(text),
                 "text": text, "embed_text": text, "ordinal": 0,
                 "indexed_at": now(), "embedder": "hashing", "vector": [0.0] * (dim - 1) + [1.0],
                 "passages": [[0.0] * (dim - 1) + [1.0]]}]

    store.replace_documents(rows("old", "초기 문서 the original zeppelin"), ["old"], dim)
    assert store.maintain(changed_files=1) == ["fts_text_idx", "fts_words_idx", "passages of default__chunks",
                                                "fts_passages fts_words_idx"]
    store.replace_documents(rows("new", "추가된 문서 a zeppelin appears"), ["new"], dim)
    store.replace_documents(rows("old", "바뀐 문서 no airships here"), ["old"], dim)
    # the passages still hold the old version's "the original zeppelin" under the same chunk id
    assert store.passages.table().count_rows() == 1
    assert sorted(docs(search(settings(db), "zeppelin", k=5, mode="fts"))) == ["new"]
    assert docs(search(settings(db), "추가된", k=5, mode="fts")) == ["new"]
    assert search(settings(db), "초기", k=5, mode="fts") == [], "the replaced text is gone"


def test_cli_json_is_stable_and_kbs_are_isolated(kb, capsys):
    db, _ = kb
    assert main(["search", "개인정보 파기", "--db", db, "-k", "2", "--mode", "fts", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["query", "mode", "kb", "hits"]
    assert out["query"] == "개인정보 파기" and out["mode"] == "fts" and out["kb"] == "default"
    assert [list(h) for h in out["hits"]] == [list(HIT_KEYS)] * len(out["hits"]) and out["hits"][0]["doc_id"] == "privacy.txt"

    assert main(["search", "개인정보 파기", "--db", db, "--kb", "empty", "--json"]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == "" and "no knowledge base 'empty'" in captured.err and "it has: default" in captured.err


def test_no_results_say_why(kb, capsys):
    """A query no chunk shares a word with is not an empty knowledge base."""
    db, _ = kb
    assert main(["search", "xylophones", "--db", db, "--mode", "fts"]) == 0
    out = capsys.readouterr().out
    assert "no results: none of the knowledge base's 4 chunks holds a word of the question" in out
    assert "empty" not in out


def test_search_errors_are_usage_errors_with_one_line(kb, tmp_path, capsys):
    """Issue #16.13: a mistyped or relative --db, a missing --kb: 0 hits and exit 0; a query of
    undecodable bytes echoed as invalid UTF-8."""
    db, _ = kb
    for args, message in [
        (["--db", str(tmp_path / "tpyo")], "no seams database at"),
        (["--db", "relative/typo"], "no seams database at relative/typo"),
        (["--db", db, "--kb", "nope"], "no knowledge base 'nope'"),
        (["--db", db, "--kb", "한국어"], "kb must be 1 to 64 ASCII letters"),
        (["--db", str(Path(db).parent / "a_file")], "is a file; a LanceDB database is a folder"),
    ]:
        (Path(db).parent / "a_file").touch()
        assert main(["search", "개인정보", *args]) == EXIT_USAGE, args
        captured = capsys.readouterr()
        assert captured.out == "" and message in captured.err and len(captured.err.splitlines()) == 1
    assert not (tmp_path / "tpyo").exists()
    # ingest: a --db that is a file failed at the first write, as an internal error with a traceback
    assert main(["ingest", str(Path(db).parent / "docs"), "--db", str(Path(db).parent / "a_file")]) == EXIT_USAGE
    assert "is a file" in capsys.readouterr().err
    undecodable = b"\xff\xfe caf\xe9".decode("utf-8", "surrogateescape")  # what Python makes of such argv bytes
    assert main(["search", undecodable, "--db", db, "--mode", "fts", "--json"]) == EXIT_USAGE
    assert "not valid text" in capsys.readouterr().err


def test_hybrid_weights_full_text_above_the_vector_ranking():
    """Measured on Chroma and the development set: the vector ranking only breaks near-ties."""
    from flows.index.search import DEFAULT_MODE, Fusion, fuse

    vector = [{"chunk_id": "a"}, {"chunk_id": "b"}]
    fts = [{"chunk_id": "b"}, {"chunk_id": "c"}]
    assert [r["chunk_id"] for r in fuse(vector, fts, 3)] == ["b", "c", "a"], "a full-text hit outranks a vector-only one"
    assert [r["chunk_id"] for r in fuse(vector, fts, 3, Fusion(vector_weight=1.0))] == ["b", "a", "c"], \
        "equal weights: plain RRF"
    assert DEFAULT_MODE == "hybrid"


def test_hybrid_seats_the_vector_rankings_best_chunk():
    """Issue #32: with e5-small, hybrid is full text's order with the vector ranking's best chunk moved up
    to third when full text ranks it lower or not at all (measured: docs/embedders.md); a weight of 0
    keeps full text's order and fills in with what only vector search found, in its order."""
    from flows.index.search import Fusion, fuse

    def ids(*names: str) -> list[dict]:
        return [{"chunk_id": name} for name in names]

    def fused(vector, fts, k, fusion) -> str:
        return "".join(row["chunk_id"] for row in fuse(ids(*vector), ids(*fts), k, fusion))

    seat = Fusion(vector_weight=0.0, vector_seat=3)
    assert fused("ex", "abcde", 5, seat) == "abecd", "full text's fifth moves up to third"
    assert fused("bx", "abcde", 5, seat) == "abcde", "already above its seat: nothing moves"
    assert fused("cx", "abcde", 5, seat) == "abcde", "at its seat: nothing moves"
    assert fused("zy", "abcde", 5, seat) == "abzcd", "found by vector search only: seated, full text's fifth out"
    assert fused("zy", "abcde", 2, seat) == "ab", "a seat past k shows nothing of it"
    assert fused("zyx", "ab", 5, seat) == "abzyx", "full text runs out: the vector ranking fills in, in its order"
    assert fused("zy", "abcde", 5, Fusion(vector_weight=0.0)) == "abcde", "no seat: full text's order"
    assert fused("zy", "abcde", 5, Fusion(vector_weight=0.02, vector_seat=1)) == "zabcd", "a seat with a weight"
    scores = [row["_score"] for row in fuse(ids("e"), ids(*"abcde"), 5, seat)]
    assert scores == sorted(scores, reverse=True) and scores[2] == scores[3], "the seated hit takes the moved one's score"


def test_the_vector_weight_sets_how_much_hybrid_follows_the_vector_ranking(kb, capsys):
    """Issue #32: a team whose embedder earns more weight in hybrid sets it (--vector-weight,
    SEAMS_VECTOR_WEIGHT); search and seams evaluate fuse with it. At 0 hybrid is the full-text order,
    at 1,000 the vector order; the default (0.02) keeps full text ahead."""
    db, _ = kb
    query = "budget plan 예산 집행"
    vector = docs(search(settings(db), query, k=4, mode="vector"))
    fts = docs(search(settings(db), query, k=4, mode="fts"))
    assert len(fts) >= 2 and vector[:len(fts)] != fts, "the two rankings differ, or the test proves nothing"

    def hybrid(*flags: str) -> list[str]:
        assert main(["search", query, "--db", db, "-k", "4", "--json", *flags]) == 0
        return docs(json.loads(capsys.readouterr().out)["hits"])

    assert hybrid("--vector-weight", "1000") == vector
    assert hybrid("--vector-weight", "0")[:len(fts)] == fts
    assert hybrid()[:len(fts)] == fts
    assert hybrid("--vector-weight", "0", "--vector-seat", "1")[0] == vector[0], "the vector ranking's best seated first"
    assert main(["search", query, "--db", db, "--vector-seat", "-1"]) == EXIT_USAGE
    capsys.readouterr()
    assert main(["search", query, "--db", db, "--vector-weight", "-1"]) == EXIT_USAGE
    # the error names the flag and the variable that set it, and the value given
    assert "vector_weight (--vector-weight, SEAMS_VECTOR_WEIGHT): Input should be greater than or equal to 0 " \
           "(got -1.0)" in capsys.readouterr().err


def test_hybrid_weighs_the_vector_rank_as_measured_for_the_kbs_embedder(tmp_path):
    """Issue #32: fusion re-chosen per embedder by measurement. A knowledge base built with e5-small
    fuses as measured for it without being told (full text's order, the vector ranking's best seated
    third: docs/embedders.md); every other embedder at 0.02 with no seat; --vector-weight and
    --vector-seat still decide when given."""
    from flows.index.search import FUSIONS, VECTOR_WEIGHT, Fusion, hybrid_fusion

    untold = settings(str(tmp_path)).model_copy(update={"embedder": ""})
    assert hybrid_fusion(untold) == Fusion(VECTOR_WEIGHT, 0) == Fusion(0.02, 0)
    e5 = untold.with_recorded_embedder("e5-small")  # what search() does with the KB's recorded embedder
    assert hybrid_fusion(e5) == FUSIONS["e5-small"] == Fusion(0.0, 3)
    assert hybrid_fusion(untold.with_recorded_embedder("hashing")) == Fusion(0.02, 0)
    assert hybrid_fusion(e5.model_copy(update={"vector_weight": 0.3})) == Fusion(0.3, 3)
    assert hybrid_fusion(e5.model_copy(update={"vector_seat": 0})) == Fusion(0.0, 0)
    assert hybrid_fusion(untold.model_copy(update={"vector_seat": 2})) == Fusion(0.02, 2)
    assert str(hybrid_fusion(e5)) == "vector weight 0.0, vector's best seated 3"


def test_vector_search_ranks_a_long_chunk_by_its_best_passage(prefect_harness, tmp_path):
    """One vector for a chunk of several hundred tokens blurs the one sentence a question asks
    about: a short chunk sharing a word with the question outranked the long chunk holding the
    answer. Vector search ranks each chunk by the best of its whole vector and its passages'."""
    answer = ("The zeppelin hangar doors are inspected by the night crew every ninth Tuesday. "
              "The night crew logs each hangar door inspection.")
    filler = " ".join(f"Section {i} describes procurement rules, invoices, audits and supplier contracts." for i in range(60))
    root = tmp_path / "docs"
    write(root / "manual.md", f"# Operations manual\n\n{filler}\n\n{answer}\n\n{filler}\n")
    write(root / "note.md", "The canteen opens at noon and closes at two.\n")  # shares only "the"
    db = str(tmp_path / "db")
    ingest_flow([str(root)], settings(db))
    rows = Store(db).rows(["chunk_id", "tokens", "vector", "passages"])
    long_chunk = max(rows, key=lambda r: r["tokens"])
    assert long_chunk["tokens"] > 400 and len(long_chunk["passages"]) > 5
    assert list(long_chunk["passages"][0]) == list(long_chunk["vector"]), "the whole chunk's vector comes first"
    question = "When does the night crew inspect the zeppelin hangar doors?"
    assert docs(search(settings(db), question, k=1, mode="vector")) == ["manual.md"]
    whole_only = settings(str(tmp_path / "whole")).model_copy(update={"passage_tokens": 0})
    ingest_flow([str(root)], whole_only)
    assert docs(search(whole_only, question, k=1, mode="vector")) == ["note.md"], "the case this guards"


def test_vector_search_lifts_the_chunks_of_the_document_a_question_names(prefect_harness, tmp_path):
    """A question that names its document ("what does the ethics code say …") finds that document's
    passage first, though the passage itself does not say which document it is in: vector search adds
    the question's similarity with each document's title (its file name's words), less the mean over
    the candidates' titles, to its chunks' similarity. Both files here hold the same sentence, so
    without the titles the two questions rank the two files alike."""
    rule = "Gifts worth more than fifty dollars must be declared to the compliance office within a week.\n"
    root = tmp_path / "docs"
    write(root / "ethics_code.md", rule)
    write(root / "travel_policy.md", rule)
    db = str(tmp_path / "db")
    ingest_flow([str(root)], settings(db))
    asked = {"What does the ethics code say about declaring gifts?": "ethics_code.md",
             "What does the travel policy say about declaring gifts?": "travel_policy.md"}
    for question, document in asked.items():
        assert docs(search(settings(db), question, k=2, mode="vector"))[0] == document, question
        assert docs(search(settings(db), question, k=2, mode="hybrid"))[0] == document, question
    untitled = {docs(search(settings(db, title_weight=0), q, k=2, mode="vector"))[0] for q in asked}
    assert len(untitled) == 1, "the case this guards: without the titles both questions find one file first"
    # the title vectors were cached by the first search: later searches embed nothing new
    store = Store(db)
    from flows.embed import embedder_for
    from flows.index.schema import document_title
    cached = store.cache.vectors(embedder_for(settings(db)).name, [text_hash(document_title(f)) for f in asked.values()])
    assert len(cached) == 2


def test_a_document_without_a_title_neither_gains_nor_loses_by_the_titles():
    import numpy as np

    from flows.index.search import with_titles

    rows = [{"chunk_id": "a", "source": "/d/a.md", "_distance": 0.30}, {"chunk_id": "b", "source": "/d/__.md", "_distance": 0.31},
            {"chunk_id": "c", "source": "/d/c.md", "_distance": 0.32}]
    titles = {"/d/a.md": np.array([1.0, 0.0]), "/d/c.md": np.array([0.0, 1.0])}
    ranked = with_titles([dict(r) for r in rows], np.array([0.0, 2.0]), titles, 0.2)
    assert [r["chunk_id"] for r in ranked] == ["c", "b", "a"]
    assert ranked[1]["_score"] == pytest.approx(0.69), "no title: its similarity alone"
    assert ranked[0]["_score"] == pytest.approx(0.68 + 0.2 * 0.5) and ranked[2]["_score"] == pytest.approx(0.70 - 0.2 * 0.5)
    assert [r["chunk_id"] for r in with_titles([dict(r) for r in rows], np.array([0.0, 2.0]), titles, 0.0)] == ["a", "b", "c"]


def test_passages_cover_the_text_in_half_overlapping_windows():
    from splitters.chunk import cl100k, passages

    encoding = cl100k()
    text = "개인정보 보호 규정은 수탁자를 점검한다. " * 40 + "The end."
    tokens = encoding.encode(text)
    windows = passages(text, 64)
    assert len(windows) == -(-(len(tokens) - 64) // 32) + 1
    assert all(len(encoding.encode(w)) <= 64 for w in windows)
    assert windows[-1].endswith("The end.") and text.startswith(windows[0])
    assert passages("짧은 글.", 64) == [] and passages(text, 0) == []


def test_a_date_in_words_finds_the_row_a_table_dates_in_digits(prefect_harness, tmp_path):
    """Open data exports date rows ``20180315``; people ask for "2018년 3월 15일". Full text now also
    looks for the other written forms of a date the query names, so the chunk holding that day's row
    ranks first in full-text and hybrid search (the development set's daily CSV questions)."""
    import datetime as dt

    districts = ("종로구", "중구", "용산구", "성동구")
    lines = ["측정일자,측정소명,이산화질소,오존,초미세먼지"]
    day = dt.date(2018, 1, 1)
    for i in range(150):
        for j, district in enumerate(districts):
            lines.append(f"{day:%Y%m%d},{district},0.0{(i + j) % 9 + 1},0.0{(i * 3 + j) % 9 + 1},{(i * 7 + j) % 60 + 5}")
        day += dt.timedelta(days=1)
    root = tmp_path / "docs"
    write(root / "대기오염도_2018.csv", "\n".join(lines) + "\n")
    db = str(tmp_path / "db")
    ingest_flow([str(root)], settings(db))
    assert len(Store(db).rows(["chunk_id"])) > 10, "the sheet is cut into many row groups"
    for query in ("2018년 3월 15일 종로구 초미세먼지 농도", "2018. 3. 15. 종로구 초미세먼지"):
        for mode in ("fts", "hybrid"):
            top = search(settings(db), query, k=1, mode=mode)[0]
            assert "20180315,종로구".replace(",", " | ") in top["text"], (query, mode)


def test_full_text_counts_a_merged_cell_once(prefect_harness, tmp_path):
    """A merged header cell reads into every column it spans, and the header repeats in each chunk of
    its table; BM25 counted it that many times per chunk, so a table's chunks outranked the one
    chunk that names the same words once. The full-text indexes now hold each run of identical
    neighbouring cells once; the text shown keeps them, under their columns."""
    import openpyxl

    root = tmp_path / "docs"
    root.mkdir()
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["구분", "2024년", None, None, None, "2025년", None])
    sheet.append([None, "1분기", "2분기", "3분기", "4분기", "1분기", "2분기"])
    for cell_range in ("A1:A2", "B1:E1", "F1:G1"):
        sheet.merge_cells(cell_range)
    for n in range(200):
        sheet.append([f"지역{n:03d}", *(n * 10 + q for q in range(6))])
    book.save(root / "해외투자.xlsx")
    db = str(tmp_path / "db")
    ingest_flow([str(root)], settings(db))
    rows = Store(db).rows(["text", "fts_text"])
    assert len(rows) > 2
    for row in rows:
        assert "2024년 | 2024년 | 2024년 | 2024년 | 2025년 | 2025년" in row["text"], "shown under its columns"
        assert "2024년 | 2025년" in row["fts_text"] and "2024년 | 2024년" not in row["fts_text"]
        assert row["fts_text"].count("분기") == row["text"].count("분기"), "different neighbours all stay"
    assert cells_once("구분 | 2024년 | 2024년 |  |  | 합계 | 합계") == "구분 | 2024년 |  |  | 합계"
    assert cells_once("a | b | a | b\nx | x") == "a | b | a | b\nx"
    assert cells_once("2024년 2024년 보고서") == "2024년 2024년 보고서", "only cells of a table line"


def test_full_text_queries_carry_every_written_form_of_their_dates():
    assert fts_query("2018년 3월 15일 종로구") == "2018년 3월 15일 종로구 20180315 2018-03-15 2018.03.15"
    assert fts_query("readings of 2018-03-15") == "readings of 2018-03-15 20180315 2018.03.15 2018년 3월 15일"
    assert fts_query("20180315") == "20180315 2018-03-15 2018.03.15 2018년 3월 15일"
    assert fts_query("2024년 7월 예산") == "2024년 7월 예산 202407 2024-07 2024.07"
    for unchanged in ("version 3.2.1", "2018년 13월 1일", "pi 3.14159265", "개인정보 파기", "12345678"):
        assert fts_query(unchanged) == unchanged


def test_english_full_text_ranks_a_long_chunk_by_its_best_passage(prefect_harness, tmp_path):
    """BM25 over a whole chunk weighs the question's words against the chunk's length: short notes
    that repeat one of them outranked the long chunk whose one sentence holds them all. English full
    text also ranks each chunk by its best passage (the passages table the ingest keeps), fused with
    the whole-chunk ranking."""
    answer = "The night crew inspects the zeppelin hangar doors every ninth Tuesday."
    filler = " ".join(f"Clause {i} covers procurement rules, invoices, audits and supplier contracts." for i in range(70))
    root = tmp_path / "docs"
    write(root / "manual.md", f"# Operations manual\n\n{filler}\n\n{answer}\n")
    for i in range(10):
        word = ["night", "crew", "inspect", "hangar", "doors"][i % 5]
        write(root / f"memo{i}.md", f"Memo {i}: {word}, {word} and {word} again.\n")
    db = str(tmp_path / "db")
    ingest_flow([str(root)], settings(db))
    store = Store(db)
    long_chunk = max(store.rows(["chunk_id", "tokens"]), key=lambda r: r["tokens"])
    assert long_chunk["tokens"] > 800
    assert store.passages.table().count_rows() > 10, "the long chunk's passages are indexed"
    question = "When does the night crew inspect the hangar doors?"
    assert "manual.md" in docs(search(settings(db), question, k=10, mode="fts"))
    assert "manual.md" in docs(search(settings(db), question, k=10, mode="hybrid"))
    store.db.drop_table("default__fts_passages")  # a KB whose passages are not built yet: whole chunks only
    assert "manual.md" not in docs(search(settings(db), question, k=10, mode="fts")), "the case this guards"


def test_passages_follow_the_files_they_come_from(prefect_harness, tmp_path):
    """The passages table is derived from the chunks: the ingest's upkeep writes a changed file's
    passages again and deletes those of a deleted file."""
    root = tmp_path / "docs"
    write(root / "a.md", "# Alpha\n\nThe first version speaks of zeppelins.\n")
    write(root / "b.md", "# Bravo\n\nA file about trains.\n")
    for name in ("c", "d", "e"):  # so that two files of five changing are synced file by file
        write(root / f"{name}.md", f"# {name}\n\nA file about {name}.\n")
    db = str(tmp_path / "db")
    ingest_flow([str(root)], settings(db))  # the first sync writes the table in one scan

    def held() -> dict[str, str]:
        rows = Store(db).passages.table().to_arrow().to_pylist()
        return {r["source"].rsplit("/", 1)[-1]: r["fts_words"] for r in rows}

    assert set(held()) == {"a.md", "b.md", "c.md", "d.md", "e.md"} and "zeppelins" in held()["a.md"]
    write(root / "a.md", "# Alpha\n\nThe second version speaks of airships.\n")
    (root / "b.md").unlink()
    ingest_flow([str(root)], settings(db))
    assert set(held()) == {"a.md", "c.md", "d.md", "e.md"} and "airships" in held()["a.md"]
    assert "zeppelins" not in held()["a.md"] and Store(db).passages.table().count_rows() == 4
    assert docs(search(settings(db), "zeppelins", k=5, mode="fts")) == []
    # a run that died between writing the passages and indexing them: LanceDB searches them unindexed
    Store(db).passages.table().drop_index("fts_words_idx")
    assert docs(search(settings(db), "airships", k=5, mode="fts")) == ["a.md"]
    assert "passages of" not in " ".join(Store(db).maintain(changed_files=0))
    assert "fts_words_idx" in {i.name for i in Store(db).passages.table().list_indices()}, "the next upkeep indexes them"


def test_a_hit_that_opens_with_its_own_heading_does_not_print_it_twice():
    """A new user saw `출장 여비 규정` printed above a chunk whose text opens with it."""
    from flows.app.console import _path_above

    assert _path_above("부칙", "부칙\n\n제1조(시행일) …") == ""
    assert _path_above("제2장 처리 > 제5조(수집)", "제5조(수집) ① …") == "제2장 처리"
    assert _path_above("제2장 처리 > 제5조(수집)", "제2장 처리\n\n제5조(수집) ① …") == "제2장 처리 > 제5조(수집)"
    assert _path_above("", "본문") == ""


def test_a_code_in_a_korean_question_finds_the_row_it_keys(prefect_harness, tmp_path):
    """Character n-grams cut ``0222`` into pieces every neighbouring code shares, so the code book's
    row a question names ranked below prose that shares the question's other words (a survey's code
    book, held-out set). A Korean query's codes are now also looked up as whole words, and that
    ranking is fused with the n-gram one."""
    import openpyxl

    jobs = ("관리자", "연구원", "교사", "간호사", "요리사", "운전원", "상담원", "설계사", "분석가", "조리원")
    root = tmp_path / "docs"
    root.mkdir()
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "직종코드"
    sheet.append(["code_job", "job"])
    for n in range(1, 900):
        sheet.append([f"{n:04d}", "컴퓨터 시스템 및 소프트웨어 전문가" if n == 222 else f"{jobs[n % 10]} {n % 7 + 1}급"])
    book.save(root / "codebook.xlsx")
    for i in range(6):
        write(root / f"안내{i}.txt", f"직업 안내 {i}\n\n직종별 코드는 직업 분류에 따라 부여되며, 어떤 직업인가요 하는 문의는 "
                                     f"직종 코드 담당 부서가 답합니다. 코드 {i}0{i}2 번은 폐지되었습니다.\n")
    db = str(tmp_path / "db")
    ingest_flow([str(root)], settings(db))
    assert len(Store(db).rows(["chunk_id"])) > 10, "the code book is cut into many row groups"
    for mode in ("fts", "hybrid"):
        top = search(settings(db), "직종코드 0222는 어떤 직업인가요?", k=1, mode=mode)[0]
        assert "0222 | 컴퓨터 시스템" in top["text"], mode


def test_codes_are_runs_of_letters_and_digits_but_not_years():
    from flows.index.search import query_codes

    assert query_codes("직종코드 0222는 어떤 직업인가요?") == ["0222"]
    assert query_codes("모델 A1023과 a1023, 2024년 X5 보고서") == ["A1023", "a1023"]
    assert query_codes("2018년 3월 15일, 20180315") == ["20180315"]
    assert query_codes("개인정보 파기 기한 KISA") == []


def test_a_question_that_names_a_sheet_finds_that_sheets_rows(prefect_harness, tmp_path):
    """A workbook names its tables by their sheets; a question names the sheet ("혼잡도 테이블의
    count 컬럼") where the rows do not. Two sheets hold the same table definition here, so only the
    sheet's name, indexed beside the file's title, tells full text which one is meant."""
    import openpyxl

    root = tmp_path / "docs"
    root.mkdir()
    book = openpyxl.Workbook()
    for index, name in enumerate(("혼잡도", "유동인구")):
        sheet = book.active if index == 0 else book.create_sheet()
        sheet.title = name
        sheet.append(["No.", "COLUMN NAME", "Type"])
        for n, column in enumerate(("sta_no", "time", "count"), start=1):
            sheet.append([n, column, "int64"])
    book.save(root / "테이블정의서.xlsx")
    db = str(tmp_path / "db")
    ingest_flow([str(root)], settings(db))
    for sheet_name in ("혼잡도", "유동인구"):
        for mode in ("fts", "hybrid"):
            top = search(settings(db), f"{sheet_name} 테이블의 count 컬럼 타입은?", k=1, mode=mode)[0]
            assert top["sheet"] == sheet_name, (sheet_name, mode)


def test_a_question_naming_a_rows_key_and_a_columns_header_finds_that_table(prefect_harness, tmp_path):
    """A question about a table's cell names its row (``미국``) and its column (``2024년``). BM25
    over character n-grams weighs the question's long word (``해외직접투자액은``) many times the
    two-letter row key, so prose that repeats the long word ranked above the table (a ministry's
    press release, held-out and table sets). The cell the question names now lifts the table."""
    root = tmp_path / "docs"
    root.mkdir()
    for i in range(4):
        write(root / f"동향_{i}.txt", f"동향 {i}\n\n2024년 해외직접투자액은 전년보다 줄었다. 감소는 고금리와 지정학적 위험 "
                                      "때문이며, 회복은 하반기로 예상된다.\n")
    for i, topic in enumerate(("출장 여비", "개인정보 파기", "예산 편성", "회의록 작성", "민원 처리", "보안 점검")):
        write(root / f"규정_{i}.txt", f"{topic} 규정\n\n{topic}에 관한 사항은 담당 부서가 정한다. 세부 기준은 별표를 따른다.\n")
    rows = [("구분", "2022년", "2023년", "2024년"), ("미국", "295.0", "278.4", "61.2"), ("중국", "18.2", "17.9", "3.1"),
            ("베트남", "27.7", "26.0", "6.7"), ("룩셈부르크", "60.1", "40.2", "16.4")]
    make_docx(root / "해외직접투자_국가별_현황.docx", ["국가별 현황 (억 달러)", ("table", rows)])
    db = str(tmp_path / "db")
    ingest_flow([str(root)], settings(db))
    for mode in ("fts", "hybrid"):
        top = search(settings(db), "2024년 미국 해외직접투자액은?", k=1, mode=mode)[0]
        assert "미국 | 295.0 | 278.4 | 61.2" in top["text"], mode
    # a question that names no column of the table leaves the prose first
    top = search(settings(db), "2024년 해외직접투자액 감소 이유는?", k=1, mode="fts")[0]
    assert "고금리" in top["text"]


def test_a_cell_share_is_the_part_of_the_question_a_rows_key_and_its_headers_name():
    from flows.index.cells import CELL_WEIGHT, by_cells, cell_share

    table = "국가별 현황\n\n구분 | 2023년 | 2024년\n미국 | 278.4 | 61.2\n | (△5.2) | (△29.8)\n중국 | 17.9 | 3.1"
    assert cell_share("2024년 미국 투자액은?", table) == pytest.approx(2 / 3)
    assert cell_share("미국 투자액은?", table) == 0.0, "no column named"
    assert cell_share("2024년 투자액은?", table) == 0.0, "no row named"
    assert cell_share("2024년 미국 투자액은?", "2024년 미국 투자액은 61.2억 달러") == 0.0, "no table"
    # the key over a merged label's second line, the corner label 구분 names no column
    assert cell_share("구분 미국 증감률", table) == 0.0
    # a year is a row key to the word that holds it; a row number is not
    years = "구분 | 합계 | 부동산교부세\n2019 | 1,000 | 57,709\n2020 | 1,100 | 60,000\n3 | 9 | 9"
    assert cell_share("2019년 부동산교부세 교부액은?", years) == pytest.approx(2 / 3)
    assert cell_share("3번째 부동산교부세 교부액은?", years) == 0.0
    # a Latin cell must be the whole word: US is not use
    latin = "Region | 2023 | 2024\nUS | 278.4 | 61.2\nEU | 40.2 | 37.0"
    assert cell_share("what did the US invest in 2024", latin) == pytest.approx(2 / 7)
    assert cell_share("how to use 2024 funds", latin) == 0.0
    # a quarter as statistics tables key it (‘24.1Q) is the year and the quarter a question names
    quarters = "구분 | 제조업 | 정보통신업\n‘24.2Q | 38.8 | 13.2\n‘25.2Q | 35.3 | 7.5"
    assert cell_share("2025년 2분기 정보통신업 투자액은?", quarters) == pytest.approx(3 / 4)
    assert cell_share("2025년 정보통신업 투자액은?", quarters) == 0.0, "the year alone is not the quarter"
    assert cell_share("2023년 2분기 정보통신업 투자액은?", quarters) == 0.0
    ranked = by_cells([{"text": "해외직접투자액 해외직접투자액", "_score": 3.0}, {"text": table, "_score": 2.0}],
                      "2024년 미국 투자액은?")
    assert ranked[0]["text"] == table and ranked[0]["_score"] == pytest.approx(2.0 * (1 + CELL_WEIGHT * 2 / 3))


def test_a_cell_is_one_row_under_one_column_and_a_word_inside_a_compound_names_no_row():
    """Three ways the cell lookup lifted the wrong table, found on real statistics releases (two
    quarterly ones side by side, a budget table keyed in its second column): the headers of different
    columns were counted together, a row key inside a long compound word counted as named, and a
    table whose first column is empty had no key at all."""
    from flows.index.cells import cell_share

    # 2024년 heads one column and 3분기 others: no column is the third quarter of 2024
    older = ("구 분 | 2023년 | 2023년 | 2024년\n구 분 | 1분기 | 3분기 | 1분기\n"
             "미국 | 87.1 | 68.2 | 61.2\n중국 | 4.1 | 3.2 | 2.9")
    newer = ("구 분 | 2023년 | 2024년 | 2024년\n구 분 | 3분기 | 1분기 | 3분기\n"
             "미국 | 68.2 | 61.2 | 38.0\n중국 | 3.2 | 2.9 | 1.8")
    question = "2024년 3분기 미국 투자액은?"
    assert cell_share(question, older) == pytest.approx(2 / 4)
    assert cell_share(question, newer) == pytest.approx(3 / 4)
    # a key after a particle is named (미국에, 아시아에서); inside a compound it is not (투자액 in 해외직접투자액은)
    totals = "구 분 | 2020년 | 2021년\n투자액 | 582.0 | 769.1\n아시아 | 191.8 | 186.3"
    assert cell_share("2020년 아시아에서 해외직접투자액은?", totals) == pytest.approx(2 / 3)
    assert cell_share("2020년 해외직접투자액은?", totals) == 0.0
    # the key stands in the second column when the first is empty (a budget's merged group label)
    budget = (" |  | 2018 | 2019\n | 구 분 | 예산액 | 예산액\n | 계 | 2,106,784 | 2,310,152\n"
              " | 자체수입 | 1,006,057 | 1,044,104")
    assert cell_share("2018년 자체수입 규모는?", budget) == pytest.approx(2 / 3)
    # a row with nothing under the named column holds no such cell
    gaps = "구분 | 2023년 | 2024년\n미국 | 278.4 | \n중국 | 17.9 | 3.1"
    assert cell_share("2024년 미국 투자액은?", gaps) == 0.0
    assert cell_share("2024년 중국 투자액은?", gaps) == pytest.approx(2 / 3)


def test_a_hit_in_a_file_without_pages_says_which_part_of_how_many_it_is(prefect_harness, tmp_path):
    """A DOCX, HTML or Markdown file has no pages to locate a hit by; a hit in one cut into several
    chunks said "whole file", as if it were all of it. It now says which part of how many."""
    root = tmp_path / "docs"
    root.mkdir()
    items = []
    for number, topic in enumerate(("출장 여비", "개인정보 파기", "예산 편성", "회의록 작성", "민원 처리"), start=1):
        items.append(("h1", f"제{number}장 {topic}"))
        items += [f"{topic}에 관한 세부 사항 {line}: 담당 부서는 {topic} 기준을 매년 점검하고 결과를 기록하여 보관하며, "
                  "필요한 경우 관련 부서와 협의하여 기준을 고친다." for line in range(12)]
    make_docx(root / "규정집.docx", items)
    write(root / "메모.txt", "메모\n\n민원 처리 결과는 다음 회의에서 보고한다.\n")
    db = str(tmp_path / "db")
    ingest_flow([str(root)], settings(db))
    parts = len([row for row in Store(db).rows(["doc_id"]) if row["doc_id"] == "규정집.docx"])
    assert parts >= 3, "the fixture is cut into several chunks"
    for mode in MODES:
        hits = search(settings(db), "개인정보 파기 담당 부서", k=10, mode=mode)
        book = [hit for hit in hits if hit["doc_id"] == "규정집.docx"]
        assert book and all(hit["where"].startswith("part ") and hit["where"].endswith(f" of {parts}") for hit in book)
        assert all(hit["where"] == "whole file" for hit in hits if hit["doc_id"] == "메모.txt")
    top = search(settings(db), "개인정보 파기 담당 부서", k=1, mode="fts")[0]
    assert "개인정보 파기" in top["text"] and top["where"] != f"part 1 of {parts}"


def test_a_label_spaced_out_to_fill_its_cell_is_found_by_its_word(prefect_harness, tmp_path):
    """Korean forms space short labels out to fill their cells (``사 업 비``, ``수 행 자``); the
    n-gram index read them as lone syllables, so a question naming ``사업비`` found nothing of the
    row. The full-text index holds such a label as its word; the text shown keeps it spaced."""
    from flows.index.schema import spaced_labels_joined

    root = tmp_path / "docs"
    root.mkdir()
    rows = [("구 분", "2019년", "2020년", "2021년"), ("사 업 비", "6.3 억", "4.6 억", "4.8 억"),
            ("수 행 자", "나날에스엠아이", "티오21", "다이퀘스트"), ("참 여 인 력", "12명", "9명", "11명")]
    make_docx(root / "착수보고.docx", ["연차별 추진 현황", ("table", rows)])
    for i in range(5):
        write(root / f"안내_{i}.txt", f"안내 {i}\n\n2020년 사업 계획은 연차별로 세우며 사업의 비용과 인력은 매년 점검한다.\n")
    db = str(tmp_path / "db")
    ingest_flow([str(root)], settings(db))
    row = next(r for r in Store(db).rows(["doc_id", "text", "fts_text"]) if r["doc_id"] == "착수보고.docx")
    assert "사 업 비 | 6.3 억" in row["text"] and "사업비 | 6.3 억" in row["fts_text"]
    for mode in ("fts", "hybrid"):
        assert search(settings(db), "2020년 사업비는 얼마인가요?", k=1, mode=mode)[0]["doc_id"] == "착수보고.docx", mode
    assert spaced_labels_joined("구 분 | 내 용\n이 곳 저 곳") == "구분 | 내용\n이 곳 저 곳", "table cells only"
    assert spaced_labels_joined("사 업 비 | 6.3 억 | 나 | Q 1") == "사업비 | 6.3 억 | 나 | Q 1"
