"""A seams knowledge base read by LangChain and LlamaIndex with their real LanceDB stores (issue #13):
langchain-community ``LanceDB``, llama-index ``LanceDBVectorStore``, and langchain-lancedb through
its export. Needs the optional extra (``pip install -e '.[interop]'``); skipped without it.

The knowledge base is written by the real ingest (``run_ingest``, hashing embedder) from two sample
files: a Korean regulation (PDF: pages, article headings) and a Markdown README.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("langchain_community.vectorstores")
pytest.importorskip("langchain_lancedb")
pytest.importorskip("llama_index.vector_stores.lancedb")

import lancedb
from conftest import EXAMPLES

from flows.app.cli import main
from flows.index.interop import (
    chunks_table_name,
    export_for_langchain_lancedb,
    langchain_embeddings,
    llamaindex_embedding,
)
from flows.ingest.flow import Steps, run_ingest
from flows.settings import Settings

PDF = "개인정보_보호_규정.pdf"
MD = "README_project.md"
#: Korean words the regulation holds only with particles attached (수탁자를, 정보주체의, 진흥원은):
#: seams' character n-gram index finds them; the English word index other tools build loses hits.
GLUED = ("수탁자", "정보주체", "진흥원")


@pytest.fixture()
def kb(tmp_path) -> Settings:
    root = tmp_path / "docs"
    root.mkdir()
    for name in (PDF, MD):
        shutil.copy(EXAMPLES / name, root / name)
    config = Settings(db=str(tmp_path / "db"), embedder="hashing", workers=0)
    report = run_ingest([str(root)], config, Steps())
    assert report.count("added") == 2 and report.failed == 0
    return config


def community_store(config: Settings):
    from langchain_community.vectorstores import LanceDB

    return LanceDB(connection=lancedb.connect(config.db), embedding=langchain_embeddings("hashing"),
                   table_name=chunks_table_name(config.kb))


def llama_index(config: Settings):
    from llama_index.core import VectorStoreIndex
    from llama_index.vector_stores.lancedb import LanceDBVectorStore

    store = LanceDBVectorStore(uri=config.db, table_name=chunks_table_name(config.kb))
    return store, VectorStoreIndex.from_vector_store(store, embed_model=llamaindex_embedding("hashing"))


def seams_fts(config: Settings, query: str, capsys) -> list[str]:
    """``seams search --mode fts --json``: the documents of the top 3 hits."""
    capsys.readouterr()
    assert main(["search", query, "--db", config.db, "--kb", config.kb, "--mode", "fts", "-k", "3", "--json"]) == 0
    return [hit["doc_id"] for hit in json.loads(capsys.readouterr().out)["hits"]]


def raw_fts(config: Settings, query: str) -> list[str]:
    """A full-text query straight to LanceDB on ``text``, the column other tools index."""
    table = lancedb.connect(config.db).open_table(chunks_table_name(config.kb))
    return [r["doc_id"] for r in table.search(query, query_type="fts", fts_columns="text").limit(3).to_list()]


def test_langchain_community_retrieves_chunks_with_file_page_and_heading(kb):
    store = community_store(kb)
    docs = store.as_retriever(search_kwargs={"k": 3}).invoke("개인정보 수탁자 점검")
    assert docs and all(d.page_content for d in docs)
    for doc in docs:
        assert Path(doc.metadata["source"]).name in (PDF, MD)
        assert {"doc_id", "format", "page_start", "page_end", "heading_path", "strategy", "rule"} <= set(doc.metadata)
    pdf = [d for d in docs if d.metadata["format"] == "pdf"]
    assert pdf and all(d.metadata["page_start"] >= 1 for d in pdf)
    assert any(d.metadata["heading_path"].startswith("제2장") for d in store.similarity_search("수탁자", k=8))
    # filters: a dict on seams' flat columns, or SQL on the metadata struct
    assert {d.metadata["format"] for d in store.similarity_search("data portal", k=5, filter={"format": "md"})} == {"md"}
    sql = store.similarity_search("data portal", k=5, filter="metadata.format = 'pdf'")
    assert sql and {d.metadata["format"] for d in sql} == {"pdf"}


def test_llamaindex_retrieves_nodes_with_file_page_and_heading_and_filters_by_format(kb):
    from llama_index.core.vector_stores import MetadataFilter, MetadataFilters

    _, index = llama_index(kb)
    nodes = index.as_retriever(similarity_top_k=3).retrieve("개인정보 수탁자 점검")
    assert nodes
    for hit in nodes:
        meta = hit.node.metadata
        assert Path(meta["source"]).name in (PDF, MD) and hit.node.ref_doc_id in (PDF, MD)
        assert hit.node.node_id == meta["chunk_id"] and hit.node.get_content()
        assert {"format", "page_start", "heading_path"} <= set(meta)
    only_md = MetadataFilters(filters=[MetadataFilter(key="format", value="md")])
    filtered = index.as_retriever(similarity_top_k=5, filters=only_md).retrieve("개인정보")
    assert filtered and {n.node.metadata["format"] for n in filtered} == {"md"}


def test_langchain_lancedb_reads_the_export_not_the_struct(kb):
    from langchain_lancedb import LanceDB

    embeddings = langchain_embeddings("hashing")
    # It json.loads the metadata column, and it names no vector column where the table has two
    with pytest.raises((TypeError, ValueError), match=r"JSON object must be str|more than one vector column"):
        LanceDB(embedding_function=embeddings, uri=kb.db, table_name=chunks_table_name()).similarity_search("x")
    name = export_for_langchain_lancedb(kb.db, kb.kb)
    docs = LanceDB(embedding_function=embeddings, uri=kb.db, table_name=name).similarity_search("수탁자 점검", k=3)
    assert docs
    for doc in docs:
        assert doc.metadata["source"] == kb.db  # langchain-lancedb overwrites it with the database
        assert Path(doc.metadata["file"]).name in (PDF, MD)
        assert {"page_start", "heading_path", "format"} <= set(doc.metadata)


def foreign_fts_query(config: Settings, tool: str) -> None:
    """A full-text query through another tool: both replace the index on ``text`` first."""
    if tool == "langchain-community":
        community_store(config).similarity_search_with_score(GLUED[-1], k=3, query_type="fts")
    else:
        from llama_index.core.vector_stores import VectorStoreQuery

        store, _ = llama_index(config)
        store.query(VectorStoreQuery(query_str=GLUED[-1], similarity_top_k=3), query_type="fts")


@pytest.mark.parametrize("tool", ["langchain-community", "llama-index"])
def test_korean_full_text_and_the_other_tools_index_live_side_by_side(kb, tool, capsys):
    before = {word: seams_fts(kb, word, capsys) for word in GLUED}
    assert all(PDF in docs for docs in before.values())

    foreign_fts_query(kb, tool)  # builds its English word index on ``text``
    theirs = {word: raw_fts(kb, word) for word in GLUED}
    assert theirs != before, "the tool's English word index does not find Korean words with particles"
    assert {word: seams_fts(kb, word, capsys) for word in GLUED} == before  # seams' n-grams are untouched
    report = run_ingest([str(Path(kb.db).parent / "docs")], kb, Steps())  # nor does seams touch theirs
    assert report.count("unchanged") == 2
    indexes = {i.name: i for i in lancedb.connect(kb.db).open_table(chunks_table_name(kb.kb)).list_indices()}
    assert {"text_idx", "fts_text_idx", "fts_words_idx"} <= indexes.keys()
    assert indexes["text_idx"].index_details["base_tokenizer"] == "simple"
    assert {word: raw_fts(kb, word) for word in GLUED} == theirs
    assert {word: seams_fts(kb, word, capsys) for word in GLUED} == before
