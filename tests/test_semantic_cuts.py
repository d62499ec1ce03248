"""The research's other chunkers (issue #39): ``cluster:MAX``, ``semantic:MAX`` and ``adaptive``,
cut with a real embedder (``hashing``: no model, deterministic), the intrinsic measures, and the
three through the ingest path, the evaluation and the CLI."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from flows.embed import get_embedder
from flows.embed.cutting import cutting_embed
from flows.evaluate.configs import configuration
from flows.evaluate.datasets import load_folder
from flows.evaluate.runner import cut_configuration, document_pieces, intrinsic_measures
from flows.ingest.pipeline import CutConfig, cut_document
from parsers import parse
from parsers.model import Block, Document, Table
from splitters import Budget, cl100k_counter, get_strategy, split_document
from splitters.adaptive import candidates_for
from splitters.quality import block_integrity, block_units, measure
from splitters.semantic import cluster_runs

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
COUNT = cl100k_counter()


@pytest.fixture(scope="module")
def embed():
    return cutting_embed(get_embedder("hashing"))


@pytest.fixture(scope="module")
def handbook():
    return parse(str(EXAMPLES / "employee_handbook.docx"))


def _reference_runs(vectors: np.ndarray, longest: int) -> float:
    """The best total of Chroma's objective by brute-force dynamic programming on the full matrix."""
    n = len(vectors)
    similarity = vectors @ vectors.T
    similarity = similarity - similarity[np.triu_indices(n, k=1)].mean()
    np.fill_diagonal(similarity, 0.0)
    best = [0.0] + [-np.inf] * n
    for end in range(1, n + 1):
        for size in range(1, min(longest, end) + 1):
            first = end - size
            best[end] = max(best[end], best[first] + similarity[first:end, first:end].sum())
    return best[n]


def _objective(vectors: np.ndarray, runs: list[tuple[int, int]]) -> float:
    n = len(vectors)
    similarity = vectors @ vectors.T
    similarity = similarity - similarity[np.triu_indices(n, k=1)].mean()
    np.fill_diagonal(similarity, 0.0)
    return sum(similarity[a:b + 1, a:b + 1].sum() for a, b in runs)


def test_cluster_runs_find_the_best_segmentation_within_the_longest_run():
    rng = np.random.default_rng(7)
    for _ in range(60):
        n, longest = int(rng.integers(2, 30)), int(rng.integers(1, 9))
        vectors = rng.normal(size=(n, 6))
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        runs = cluster_runs(vectors, longest)
        assert runs[0][0] == 0 and runs[-1][1] == n - 1
        assert all(b + 1 == c for (_, b), (c, _) in itertools.pairwise(runs))  # in order, no gap
        assert all(b - a + 1 <= longest for a, b in runs)
        assert _objective(vectors, runs) == pytest.approx(_reference_runs(vectors, longest))


def test_cluster_runs_group_similar_neighbours():
    topic_a, topic_b = np.eye(4)[0], np.eye(4)[1]
    vectors = np.stack([topic_a] * 3 + [topic_b] * 3)
    assert cluster_runs(vectors, 4) == [(0, 2), (3, 5)]


@pytest.mark.parametrize("name", ["cluster:200", "cluster:400", "semantic:300", "semantic"])
def test_semantic_cuts_keep_every_word_in_order_and_within_their_max(name, embed, handbook):
    chunks = split_document(handbook, name, COUNT, Budget(), embed=embed)
    size = int(get_strategy(name).name.split(":")[1])
    text = handbook.text
    assert all(a.end <= b.start for a, b in itertools.pairwise(chunks))
    covered = "".join(text[c.start:c.end] for c in chunks)
    assert "".join(covered.split()) == "".join(text.split())  # no text lost: only whitespace between chunks
    assert all(c.text == text[c.start:c.end] for c in chunks)
    # a run of pieces of at most 50 tokens each: the joins may add a token or two per piece
    assert max(c.tokens for c in chunks) <= size + size // 50 * 2
    assert split_document(handbook, name, COUNT, Budget(), embed=embed) == chunks  # deterministic


def test_strategies_that_embed_say_so_without_an_embedding_function(handbook):
    for name in ("cluster:200", "semantic:400", "adaptive"):
        with pytest.raises(ValueError, match="embedding function"):
            split_document(handbook, name, COUNT, Budget())
    with pytest.raises(ValueError, match="at least 50"):
        get_strategy("cluster:20")
    with pytest.raises(ValueError, match="adaptive"):
        get_strategy("semantik:400")


def _table_doc() -> Document:
    rows = tuple((f"item {i}", f"{i * 7}") for i in range(6))
    table = Table(rows=(("name", "value"), *rows), header_rows=1)
    return Document("t.md", "md", (
        Block("heading", "Prices"),
        Block("paragraph", "The prices below hold for the whole year."),
        Block("table", table.render(), table=table),
        Block("list_item", "- first"),
        Block("list_item", "- second"),
    ))


def test_block_integrity_counts_the_units_a_chunk_holds_whole():
    doc = _table_doc()
    units = block_units(doc)
    assert len(units) == 3  # heading + its paragraph, the table, the list
    whole = split_document(doc, "none", COUNT, Budget())
    assert block_integrity(doc, whole, COUNT, None) == 1.0
    table_start, table_end = doc.spans[2]
    middle = (table_start + table_end) // 2
    from splitters.pieces import make_chunk
    halves = [make_chunk(doc, 0, middle, COUNT), make_chunk(doc, middle, len(doc.text), COUNT)]
    assert block_integrity(doc, halves, COUNT, None) == pytest.approx(2 / 3)
    quality = measure(doc, halves, COUNT, 100, 1000)
    assert quality.cohesion is None and quality.size_compliance == 0.0  # both halves under the min


def test_adaptive_keeps_the_best_scored_cut_and_says_why(embed, handbook):
    decision, chunks = cut_document(handbook, CutConfig(Budget(), "adaptive", embedder="hashing"), "handbook.docx")
    assert decision.rule == "adaptive"
    for candidate in candidates_for("section", Budget()):
        assert candidate in decision.evidence
    assert decision.strategy in decision.evidence.split(":", 2)[-1].split(";")[0]  # the winner is listed first
    again = split_document(handbook, decision.strategy, COUNT, Budget(), labels=True, embed=embed)
    assert [(c.start, c.end) for c in again] == [(c.start, c.end) for c in chunks]


def test_an_override_can_choose_a_semantic_cut_in_ingest(tmp_path):
    from flows.app.cli import main
    from flows.index.store import Store

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text("# Notes\n\n" + " ".join(f"Sentence {i} on rivers and rain." for i in range(200)),
                                     encoding="utf-8")
    (folder / "other.md").write_text("# Other\n\nA short note on trains.", encoding="utf-8")
    db = str(tmp_path / "db")
    assert main(["ingest", str(folder), "--db", db, "--embedder", "hashing", "--workers", "1",
                 "--override", "notes.md=cluster:200"]) == 0
    rows = Store(db, "default").chunks_table().to_arrow().to_pylist()
    strategies = {r["doc_id"]: r["strategy"] for r in rows}
    assert strategies == {"notes.md": "cluster:200", "other.md": "whole"}
    assert max(r["tokens"] for r in rows if r["doc_id"] == "notes.md") <= 208


def test_evaluate_cuts_and_measures_the_semantic_configurations(embed, tmp_path):
    dataset = load_folder(str(EXAMPLES), str(EXAMPLES / "questions.jsonl")).limited(3)
    pieces = document_pieces(dataset, embed)
    measured = {}
    for name in ("seams", "cluster:200", "adaptive"):
        config = configuration(name)
        cuts, _ = cut_configuration(dataset, config, embed)
        assert cuts and all(chunks for _, chunks in cuts.values())
        measured[name] = intrinsic_measures(dataset, config, cuts, pieces)
    for values in measured.values():
        assert all(v is not None and 0.0 <= v <= 1.0 + 1e-9 for k, v in values.items() if k != "block_integrity")
    # 50-token pieces grouped by similarity are more cohesive than seams' sections, and far less often
    # between the min and the max
    assert measured["cluster:200"]["cohesion"] > measured["seams"]["cohesion"]
    assert measured["cluster:200"]["size_compliance"] < measured["seams"]["size_compliance"]
