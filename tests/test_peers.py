"""Peers (``peer:NAME``, flows/evaluate/peers.py) through ``seams-evaluate`` on three generated files: another
tool's own parsing and chunking in a child process, the same embedder, tables and modes as seams,
scored by evidence containment. Skips only when the ``peers`` extra is not installed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flows.evaluate import metrics
from flows.evaluate.peers import missing_modules

NEEDS_PEERS = pytest.mark.skipif(bool(missing_modules("langchain")),
                                 reason="the peers extra is not installed (pip install 'seams[peers]')")

#: One passage longer than LangChain's 1,000-character chunks: no chunk of that peer can hold it whole,
#: while seams (a section under its token budget) keeps it in one chunk.
LONG = " ".join(f"Clause {i} of the harbour charter binds the pilots of Orlen to guide every ship past the "
                "northern shoals before dusk." for i in range(14))
SHORT = "The night ferry to Velmar leaves at 23:40 and carries a sleeping cabin."


def _folder(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    (docs / "charter.md").write_text(f"# Harbour charter\n\n## Pilots\n\n{LONG}\n\n## Fees\n\nFees are paid monthly.\n",
                                     encoding="utf-8")
    (docs / "ferries.txt").write_text(f"Ferries\n\n{SHORT}\n\nThe day ferry leaves at noon.\n", encoding="utf-8")
    # A format LangChain's loaders (as the peer uses them) do not read; seams parses it (unstructured).
    (docs / "notice.eml").write_text("From: harbour@example.org\nTo: pilots@example.org\nSubject: Shoals\n"
                                     "Content-Type: text/plain\n\nThe northern shoals moved east this winter.\n",
                                     encoding="utf-8")
    lines = [{"id": "long", "question": "What binds the pilots of Orlen?", "file": "charter.md", "evidence": [LONG]},
             {"id": "short", "question": "When does the night ferry to Velmar leave?", "file": "ferries.txt",
              "evidence": [SHORT]}]
    questions = root / "questions.jsonl"
    questions.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    return questions


def test_containment_folds_and_can_fail():
    sentence = [metrics.pattern("The ferry leaves at 23:40, daily.")]
    assert metrics.held(sentence, [metrics.fold("x the FERRY leaves at 2340 daily y")]) == [True]
    assert metrics.held(sentence, [metrics.fold("The ferry leaves"), metrics.fold("at 23:40, daily.")]) == [False]
    row = [metrics.pattern("Zone EUR | 9,467 | 1,570")]
    assert metrics.held(row, [metrics.fold("zone eur\t9467\t1570 more")]) == [True]
    assert metrics.held(row, [metrics.fold("Zone: Zone EUR, Sales: 9467, Profit: 1570")]) == [True]  # named columns
    assert metrics.held(row, [metrics.fold("Zone EUR | 9,467"), metrics.fold("| 1,570")]) == [False]
    assert metrics.held(row, [metrics.fold("Zone EUR 1570 9467")]) == [False]  # cells out of order
    assert metrics.held(row, [metrics.fold("Zone EUR 9467 " + "x" * 400 + " 1570")]) == [False]  # too far apart
    assert metrics.first_holding_rank(row, ["other", metrics.fold("x Zone EUR 9467 1570")]) == 2
    assert metrics.first_holding_rank(row, ["other"]) is None
    assert metrics.held([metrics.pattern("")], ["anything"]) == [False]  # empty evidence is never held


@NEEDS_PEERS
def test_peer_configuration_end_to_end(tmp_path, prefect_harness):
    from flows.evaluate.runner import evaluate_flow
    from flows.index.store import Store
    from flows.settings import Settings

    questions = _folder(tmp_path)
    evaluation = evaluate_flow(source="folder", path=str(tmp_path / "docs"), questions=str(questions),
                               configs=["seams", "peer:langchain"], k=5,
                               settings=Settings(db=str(tmp_path / "db"), embedder="hashing"))
    assert [c.name for c in evaluation.configurations] == ["seams", "peer:langchain"]
    costs = {c.configuration: c for c in evaluation.costs}
    peer = costs["peer:langchain"]
    # The peer ran in its own process and read what it could: the mail is unread, with the reason.
    assert peer.peak_rss and peer.peak_rss > 10 * 2**20 and costs["seams"].peak_rss is None
    assert [d for d, _ in peer.unread] == ["notice.eml"] and "no LangChain loader" in peer.unread[0][1]
    # Its chunks are a real knowledge base, searched like seams' own.
    store = Store(evaluation.options.store_uri, evaluation.configurations[1].kb("hashing", evaluation.dataset.name))
    assert store.count() == peer.chunks >= 3
    # The long passage is cut apart by 1,000-character chunks: lost for the peer, held whole by seams.
    assert (peer.evidence, peer.evidence_lost) == (2, 1) and costs["seams"].evidence_lost == 0
    by = {(s.configuration, s.qid, s.mode): s for s in evaluation.scores}
    for mode in ("fts", "vector", "hybrid"):
        assert not by[("peer:langchain", "long", mode)].text_hit  # containment fails where it must
        assert by[("peer:langchain", "short", mode)].text_hit  # 4 chunks in all: the top 5 hold them
        assert by[("seams", "long", mode)].text_hit and by[("seams", "short", mode)].text_hit
        # a peer's precision and IoU are not defined (no offsets in seams' text); its hit is containment's
        score = by[("peer:langchain", "short", mode)]
        assert score.hit and score.iou != score.iou and score.recall == 1.0
