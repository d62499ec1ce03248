"""The chunks table as other tools see it (issue #13), with LanceDB alone (no LangChain/LlamaIndex:
tests/test_interop.py runs those): the ``id`` and ``metadata`` columns they read, the upgrade of a
table written before them or before the full-text columns with the document's title, and seams'
full-text index surviving a foreign replacement."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_sync import write

from flows.index.schema import DERIVED_COLUMNS, METADATA_FIELDS, chunk_records, chunk_schema
from flows.index.search import search
from flows.index.store import Store
from flows.index.upkeep import text_indexes
from flows.ingest.flow import Steps, run_ingest
from flows.settings import Settings

DOCS = {
    "privacy.txt": "개인정보 보호 규정\n\n제8조(위탁) 진흥원은 수탁자를 누리집에 공개하여야 하며, 수탁자가 개인정보를 "
                   "안전하게 처리하는지를 점검하여야 한다.\n",
    "guide.md": "# Travel policy\n\n## Trains\n\nEmployees book trains for trips shorter than four hours.\n",
}
#: Korean words that appear only with particles attached ("수탁자를", "수탁자가"): seams' n-gram index
#: finds them, an English word index does not.
GLUED = ("수탁자", "진흥")


def settings(db: Path) -> Settings:
    return Settings(db=str(db), embedder="hashing", workers=0)


@pytest.fixture()
def kb(tmp_path) -> tuple[Settings, Path]:
    root = tmp_path / "docs"
    for name, text in DOCS.items():
        write(root / name, text)
    config = settings(tmp_path / "db")
    assert run_ingest([str(root)], config, Steps()).count("added") == len(DOCS)
    return config, root


def fts_docs(config: Settings, query: str) -> list[str]:
    return [hit["doc_id"] for hit in search(config, query, k=3, mode="fts")]


def test_chunks_have_the_id_and_metadata_struct_other_tools_read(kb):
    config, _ = kb
    table = Store(config.db).chunks_table()
    schema = table.schema
    assert {"id", "text", "vector", "metadata"} <= set(schema.names)
    assert [f.name for f in schema.field("metadata").type] == list(METADATA_FIELDS)
    assert {"source", "doc_id", "format", "heading_path", "page_start", "sheet", "row_start", "slide_start"} <= set(
        METADATA_FIELDS)
    rows = Store(config.db).rows()
    for row in rows:
        assert row["id"] == row["chunk_id"]
        assert row["metadata"] == {name: row[name] for name in METADATA_FIELDS}
    guide = next(r for r in rows if r["doc_id"] == "guide.md")
    assert guide["metadata"]["heading_path"] == "Travel policy > Trains" and guide["metadata"]["format"] == "md"
    # LanceDB filters on the struct's fields as other tools' filters do (LlamaIndex: metadata.KEY)
    assert table.count_rows("metadata.format = 'md'") == table.count_rows("format = 'md'") >= 1


def test_a_replaced_full_text_index_is_detected_and_rebuilt_by_search_and_maintain(kb, caplog):
    config, _ = kb
    for word in GLUED:
        assert fts_docs(config, word) == ["privacy.txt"]
    for repair in ("search", "maintain"):
        table = Store(config.db).chunks_table()
        table.create_fts_index("fts_text", replace=True)  # LanceDB's English word index in place of seams' n-grams
        assert [r["doc_id"] for r in table.search(GLUED[0], query_type="fts", fts_columns="fts_text").to_list()] == []
        caplog.clear()
        if repair == "search":
            assert [fts_docs(config, word) for word in GLUED] == [["privacy.txt"]] * len(GLUED)
        else:
            assert "fts_text_idx" in Store(config.db).maintain(changed_files=0)
        assert "fts_text_idx of default__chunks is not seams'" in caplog.text and "base_tokenizer simple" in caplog.text
        details = {i.name: i.index_details for i in Store(config.db).chunks_table().list_indices()}
        assert details["fts_text_idx"]["base_tokenizer"] == text_indexes()["fts_text"].base_tokenizer == "ngram"
        assert details["fts_text_idx"]["min_ngram_length"] == 2
        for word in GLUED:
            assert fts_docs(config, word) == ["privacy.txt"]
    caplog.clear()
    assert Store(config.db).maintain(changed_files=0) == []  # seams' own index is left alone
    assert "not seams'" not in caplog.text


def test_full_text_finds_a_chunk_by_its_documents_file_name_which_is_not_in_its_text(tmp_path):
    root = tmp_path / "docs"
    write(root / "출장여비규정.txt", "제3조(숙박비) 숙박비는 1박에 7만원을 넘지 않는다.\n")
    write(root / "회의록.txt", "숙박비 정산: 숙박비 영수증과 숙박비 카드 내역을 숙박비 항목으로 제출한다.\n")
    write(root / "travel-expenses policy.md", "# Lodging\n\nA night's lodging is capped at 120 dollars.\n")
    write(root / "minutes.md", "# Minutes\n\nLodging receipts, lodging costs and lodging cards were discussed.\n")
    config = settings(tmp_path / "db")
    run_ingest([str(root)], config, Steps())
    # the other file holds the question's words more often; the title decides
    assert fts_docs(config, "출장여비규정 숙박비")[0] == "출장여비규정.txt"
    assert fts_docs(config, "travel expenses lodging")[0] == "travel-expenses policy.md"
    hit = search(config, "출장여비규정 숙박비", k=1, mode="fts")[0]
    assert hit["text"].startswith("제3조") and "fts_text" not in hit  # shown as the document has it
    rows = {r["doc_id"]: r for r in Store(config.db).rows()}
    assert rows["출장여비규정.txt"]["fts_text"] == "출장여비규정\n" + rows["출장여비규정.txt"]["text"]
    assert rows["travel-expenses policy.md"]["fts_words"].startswith("travel expenses policy\n")
    assert rows["출장여비규정.txt"]["embed_text"] == rows["출장여비규정.txt"]["text"]  # embedded without it


def test_a_kb_written_before_titles_in_full_text_gains_them_in_place_and_loses_its_old_indexes(kb):
    config, root = kb
    table = Store(config.db).chunks_table()
    table.drop_columns(["fts_text", "fts_words"])  # the layout of seams before titles in full text
    for column, former in (("text", "fts_text"), ("embed_text", "fts_words")):
        table.create_index(column, config=text_indexes()[former], replace=True)  # its indexes then
    before = {r["chunk_id"]: r for r in Store(config.db).rows()}
    write(root / "new.txt", "새로 추가된 문서입니다.")
    report = run_ingest([str(root)], config, Steps())
    assert report.failed == 0 and report.count("unchanged") == len(DOCS) and report.count("added") == 1
    table = Store(config.db).chunks_table()
    assert [f.name for f in table.schema] == chunk_schema(512).names
    assert {i.name for i in table.list_indices()} == {"fts_text_idx", "fts_words_idx"}
    rows = {r["chunk_id"]: r for r in Store(config.db).rows()}
    assert rows.keys() == before.keys() | {str(root / "new.txt") + "#0"}
    for row in rows.values():  # derived in SQL as chunk_records derives them in Python
        (expected,) = chunk_records([{k: v for k, v in row.items() if k not in DERIVED_COLUMNS}])
        assert (row["fts_text"], row["fts_words"]) == (expected["fts_text"], expected["fts_words"])
    assert rows[str(root / "privacy.txt") + "#0"]["fts_text"].startswith("privacy\n")
    assert fts_docs(config, "privacy 수탁자")[0] == "privacy.txt"


def test_a_kb_written_before_titles_in_full_text_is_searchable_before_its_next_ingest(kb):
    config, _ = kb
    Store(config.db).chunks_table().drop_columns(["fts_text", "fts_words"])
    for mode in ("fts", "hybrid"):
        assert [hit["doc_id"] for hit in search(config, "수탁자", k=1, mode=mode)] == ["privacy.txt"]
    assert {"fts_text", "fts_words"} <= set(Store(config.db).chunks_table().schema.names)


def test_a_kb_written_before_the_metadata_columns_gains_them_in_place_at_the_next_ingest(kb):
    config, root = kb
    Store(config.db).chunks_table().drop_columns(list(DERIVED_COLUMNS))  # the layout of seams before issue #13
    old = Store(config.db).rows()
    assert "metadata" not in old[0]
    write(root / "new.txt", "새로 추가된 문서입니다.")
    report = run_ingest([str(root)], config, Steps())
    assert report.failed == 0 and report.count("unchanged") == len(DOCS) and report.count("added") == 1
    table = Store(config.db).chunks_table()
    assert [f.name for f in table.schema] == chunk_schema(512).names
    rows = Store(config.db).rows()
    assert len(rows) == len(old) + 1
    for row in rows:
        assert row["id"] == row["chunk_id"] and row["metadata"] == {n: row[n] for n in METADATA_FIELDS}
    assert fts_docs(config, GLUED[0]) == ["privacy.txt"]


def test_a_chunks_table_of_a_foreign_layout_is_re_created_and_every_file_indexed_again(kb):
    config, root = kb
    table = Store(config.db).chunks_table()
    table.drop_columns(["metadata"])
    table.add_columns({"metadata": "named_struct('note', chunk_id)"})  # e.g. a copy another tool rewrote
    report = run_ingest([str(root)], config, Steps())
    assert report.failed == 0 and report.count("added") == len(DOCS)
    assert [f.name for f in Store(config.db).chunks_table().schema] == chunk_schema(512).names
    assert fts_docs(config, GLUED[0]) == ["privacy.txt"]


def test_a_kb_written_before_passages_is_re_created_and_searched_by_passages(kb):
    """A table without the ``passages`` column (seams before vector search ranked by passages) cannot
    gain it in place (the vectors are new): it is re-created at the next ingest, every file indexed
    again, and vector search works on it."""
    config, root = kb
    Store(config.db).chunks_table().drop_columns(["passages"])
    report = run_ingest([str(root)], config, Steps())
    assert report.failed == 0 and report.count("added") == len(DOCS)
    assert [f.name for f in Store(config.db).chunks_table().schema] == chunk_schema(512).names
    assert [h["doc_id"] for h in search(config, "Employees book trains", k=1, mode="vector")] == ["guide.md"]
