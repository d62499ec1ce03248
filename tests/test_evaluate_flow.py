"""End to end: ``seams-evaluate`` on a tiny generated folder with the ``hashing`` embedder, as a real
Prefect flow writing real LanceDB tables; then the cache on a second run, and the CLI's checks."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from flows.app.cli import EXIT_USAGE, main
from flows.embed import embedder_for
from flows.evaluate.runner import evaluate_flow, rank_chunks
from flows.index.search import MODES, Fusion
from flows.index.store import Store
from flows.index.upkeep import VECTOR_INDEX
from flows.settings import Settings

TOPICS = {
    "rivers": "The river Orlen floods every spring and farmers plant rice along its banks.",
    "mountains": "Mount Kestrel is climbed from the north ridge because the south face is unstable.",
    "trains": "The night train to Velmar leaves at 23:40 and carries a sleeping car.",
    "coffee": "Roasters in Dunmore buy beans from three farms and roast them on Tuesdays.",
}


def _corpus(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir(parents=True)
    for number, (topic, fact) in enumerate(TOPICS.items()):
        filler = " ".join(f"Paragraph {i} about {topic} repeats general remarks on {topic} history." for i in range(12))
        body = f"# {topic.title()}\n\n{filler}\n\n## Key fact\n\n{fact}\n\n## More\n\n{filler}\n"
        suffix = ".md" if number % 2 == 0 else ".txt"
        (docs / f"{topic}{suffix}").write_text(body, encoding="utf-8")
    lines = [{"id": topic, "question": f"What is the key fact about {topic}? {fact.split()[1]} {fact.split()[2]}",
              "file": f"{topic}{'.md' if n % 2 == 0 else '.txt'}", "evidence": [fact]}
             for n, (topic, fact) in enumerate(TOPICS.items())]
    lines.append({"id": "lost", "question": "Where is the lighthouse?", "file": "rivers.md",
                  "evidence": ["The lighthouse stands on the cape."]})
    questions = root / "questions.jsonl"
    questions.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    return questions


def test_evaluate_flow_end_to_end(tmp_path, prefect_harness):
    questions = _corpus(tmp_path)
    db, out = str(tmp_path / "db"), tmp_path / "report"
    kwargs = dict(source="folder", path=str(tmp_path / "docs"), questions=str(questions),
                  configs=["seams", "tokens:40/0", "none"], variants=["max=60"], k=3,
                  settings=Settings(db=db, embedder="hashing"))
    evaluation = evaluate_flow(**kwargs, out=str(out))

    names = [c.name for c in evaluation.configurations]
    assert names == ["seams", "tokens:40/0", "none", "seams max=60"]
    assert len(evaluation.dataset.questions) == 4 and [u.qid for u in evaluation.dataset.unlocated] == ["lost"]
    assert len(evaluation.scores) == 4 * 4 * 3  # questions × configurations × modes
    # Every configuration is a real KB: its table holds its chunks.
    for config, cost in zip(evaluation.configurations, evaluation.costs, strict=True):
        store = Store(evaluation.options.store_uri, config.kb("hashing", evaluation.dataset.name))
        assert store.count() == cost.chunks > 0
        assert VECTOR_INDEX not in {i.name for i in store.chunks_table().list_indices()}  # exact search
        assert cost.index_bytes and cost.embedded + cost.reused > 0
    none = next(c for c in evaluation.costs if c.configuration == "none")
    assert none.chunks == 4 and none.within_budget is None
    # The facts use rare words: full-text search finds each within the top 3 for the small chunks.
    fts = [s for s in evaluation.scores if s.mode == "fts" and s.configuration == "tokens:40/0"]
    assert all(s.rank is not None and s.rank <= 3 for s in fts)
    assert all(s.recall > 0 and s.doc_recall == 1.0 for s in fts)
    # Every question gets its own vector ranking (all four documents, so each one's evidence is in it).
    assert all(s.rank is not None for s in evaluation.scores if s.mode == "vector" and s.configuration == "none")
    for score in evaluation.scores:
        assert 0.0 <= score.iou <= min(score.recall, score.precision) + 1e-9
        assert score.hit == (score.recall == 1.0)

    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## Summary — vector" in report and "## Loss sets" in report and "lighthouse" in report
    assert "per format" in report and "(vector: title weight 0.2; hybrid: vector weight 0.02)" in report
    with open(out / "ranks.csv", encoding="utf-8") as handle:
        assert len(list(csv.DictReader(handle))) == len(evaluation.scores)
    assert (out / "summary.csv").exists() and (out / "losses.csv").exists() and (out / "costs.csv").exists()

    # A second run embeds nothing new: every vector comes from the cache in the evaluation DB.
    again = evaluate_flow(**dict(kwargs, configs=["tokens:40/0"], variants=None), modes=["vector"], out=None)
    assert again.costs[0].embedded == 0 and again.costs[0].reused > 0
    first = [s.recall for s in evaluation.scores if s.configuration == "tokens:40/0" and s.mode == "vector"]
    assert [s.recall for s in again.scores] == first
    # Hybrid fuses with the settings' vector weight (issue #32): the run says which, and weighed a
    # thousand times a full-text rank the vector ranking decides the order; at 0.02 full text does.
    evaluate_flow(**dict(kwargs, configs=["tokens:40/0"], variants=None,
                         settings=Settings(db=db, embedder="hashing", vector_weight=1000)),
                  modes=["hybrid"], out=str(tmp_path / "weighed"))
    weighed = (tmp_path / "weighed" / "report.md").read_text(encoding="utf-8")
    assert "; hybrid: vector weight 1000.0)" in weighed and "here with vector weight 1000.0:" in weighed
    store = Store(evaluation.options.store_uri, evaluation.configurations[1].kb("hashing", evaluation.dataset.name))
    questions = evaluation.dataset.questions
    vectors = np.asarray(embedder_for(Settings(embedder="hashing")).queries([q.text for q in questions]), np.float32)
    for weight, leader in ((1000, "vector"), (0.02, "fts")):
        spans, _ = rank_chunks(store.chunks_table(), questions, vectors, MODES, 20, store.passages.table(),
                               Fusion(weight))
        assert spans["vector"] != spans["fts"]
        assert [ranked[:3] for ranked in spans["hybrid"]] == [ranked[:3] for ranked in spans[leader]], weight
    # ... and with its seat: the vector ranking's best chunk at the place given, full text's order around it
    spans, _ = rank_chunks(store.chunks_table(), questions, vectors, MODES, 20, store.passages.table(), Fusion(0.0, 2))
    for vector, fts, hybrid in zip(spans["vector"], spans["fts"], spans["hybrid"], strict=True):
        rest = [span for span in fts if span != vector[0]][:5]
        assert vector[0] in hybrid[:2] and [span for span in hybrid if span != vector[0]][:len(rest)] == rest


def test_evaluate_takes_its_settings_from_flags_and_environment_as_every_command_does(tmp_path, prefect_harness,
                                                                                     monkeypatch, capsys):
    """Issue #14: ``seams evaluate`` built its settings by hand — SEAMS_EMBEDDER, SEAMS_EMBED_THREADS and
    SEAMS_EMBED_BATCH were ignored (use-multilingual, every core and batches of 128 instead)."""
    from prefect.client.orchestration import get_client

    questions = _corpus(tmp_path)
    db = str(tmp_path / "db")
    for name, value in {"SEAMS_EMBEDDER": "hashing", "SEAMS_EMBED_THREADS": "1", "SEAMS_EMBED_BATCH": "7",
                        "SEAMS_EARLY_SERVER": "0"}.items():
        monkeypatch.setenv(name, value)
    assert main(["evaluate", "--folder", str(tmp_path / "docs"), "--questions", str(questions), "--configs",
                 "tokens:40/0", "--modes", "vector", "--db", db, "--out", str(tmp_path / "report")]) == 0
    assert "· hashing · vector" in capsys.readouterr().out
    assert (tmp_path / "db" / "hashing").is_dir()  # the hashing embedder's database in the evaluation's
    with get_client(sync_client=True) as client:
        runs = [run for run in client.read_flow_runs(limit=200)
                if (run.parameters.get("settings") or {}).get("db") == db]
    assert len(runs) == 1
    settings = runs[0].parameters["settings"]
    assert (settings["embedder"], settings["embed_threads"], settings["embed_batch"]) == ("hashing", 1, 7)


def test_cli_usage_errors(tmp_path, capsys):
    assert main(["evaluate", "--folder", str(tmp_path)]) == EXIT_USAGE
    assert "--questions" in capsys.readouterr().err
    assert main(["evaluate", "--chroma", str(tmp_path / "nope")]) == EXIT_USAGE
    (tmp_path / "q.jsonl").write_text("", encoding="utf-8")
    assert main(["evaluate", "--folder", str(tmp_path), "--questions", str(tmp_path / "q.jsonl"),
                 "--configs", "seams,tokens:x"]) == EXIT_USAGE
    assert "unknown configuration" in capsys.readouterr().err
    assert main(["evaluate", "--folder", str(tmp_path), "--questions", str(tmp_path / "q.jsonl"),
                 "--modes", "vector,psychic"]) == EXIT_USAGE


@pytest.mark.parametrize("argv", [["evaluate", "--help"]])
def test_cli_help_lists_the_options(argv, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    text = capsys.readouterr().out
    assert "--chroma" in text and "--variant" in text and "--modes" in text


def test_no_cohesion_skips_embedding_the_pieces_and_leaves_the_scores(tmp_path, prefect_harness):
    """``--no-cohesion``: the documents' ~50-token pieces are not embedded (with a paid or slow
    embedder they are most of what an evaluation embeds), cohesion and coherence are not measured,
    and nothing else changes."""
    questions = _corpus(tmp_path)
    measured = {}
    for flag in ([], ["--no-cohesion"]):
        name = "without" if flag else "with"
        db, out = tmp_path / f"db-{name}", tmp_path / f"report-{name}"
        assert main(["evaluate", "--folder", str(tmp_path / "docs"), "--questions", str(questions), "--configs",
                     "seams", "--embedder", "hashing", "--db", str(db), "--out", str(out), *flag]) == 0
        with open(out / "costs.csv", encoding="utf-8") as handle:
            cost = next(csv.DictReader(handle))
        with open(out / "ranks.csv", encoding="utf-8") as handle:
            ranks = [(r["qid"], r["mode"], r["rank"]) for r in csv.DictReader(handle)]
        cached = sum(t.count_rows() for t in Store(str(db / "hashing"), "eval").cache.tables())
        measured[name] = (cost, ranks, cached)
    (with_cost, with_ranks, with_cached), (without_cost, without_ranks, without_cached) = measured.values()
    assert with_cost["cohesion"] and with_cost["coherence"] and not without_cost["cohesion"]
    assert not without_cost["coherence"]
    assert with_cost["size_compliance"] == without_cost["size_compliance"]
    assert with_ranks == without_ranks
    assert without_cached < with_cached
