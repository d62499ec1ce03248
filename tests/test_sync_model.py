"""A model-based test of incremental sync: Hypothesis adds, modifies, touches, deletes, renames and
corrupts files and changes the token budget, and after every ingest the index must equal what a
fresh ingest would give.

"What a fresh ingest would give" follows the sync rules: a file that cannot be parsed now but was
indexed before keeps the chunks of its last good version (cut with the settings of that time), and
an emptied folder is refused, not wiped. The model tracks exactly that, writes the expected files to
fresh folders — one per budget — ingests those into fresh databases and compares rows (all columns
but the indexing time and the source paths; vectors included, which checks the embedding cache).

The system under test is :func:`flows.ingest.flow.run_ingest`, the flow's whole data path, with plain
steps — Prefect adds about a second a run, which would leave Hypothesis a handful of sequences; the
slow variant runs the same machine through the Prefect flow itself.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from test_sync import comparable_rows, manifest_by_doc

from flows.index.store import Store
from flows.ingest.flow import ingest_flow, report_of, run_ingest
from flows.settings import Settings

NAMES = ["a.txt", "b.md", "it's.txt", "100%_done.md", "back\\slash.txt", "new\nline.txt", "한글 문서.md",
         "sub/c.txt", "sub/deep/d.md", "sub/it's here.md"]
PARAGRAPHS = [
    "The committee reviewed the annual budget and approved the hiring plan for the next quarter.",
    "예산 집행 현황을 점검하고 다음 분기 계획을 확정했다. 담당 부서는 결과를 보고한다.",
    "Employees book trains for trips shorter than four hours, and flights otherwise.",
    "제1조(목적) 이 규정은 개인정보의 처리 및 보호에 관한 사항을 정함을 목적으로 한다.",
    "Short line.",
    "Data retention: personal data is destroyed within five days after its retention period ends.",
    "회의는 매주 월요일 오전 10시에 열린다. 참석자는 안건을 미리 읽고 온다.",
    "Appendix: the tables below list every station with its line, district and opening year.",
]
BUDGETS = [(10, 40, 45), (20, 90, 100)]  # (min, max, merge ceiling): small, so files cut into several chunks
CORRUPT = b"%PDF-1.7\n% truncated: a broken PDF in place of the text\n"

contents = st.lists(st.sampled_from(PARAGRAPHS), min_size=1, max_size=6).map(
    lambda ps: ("# Heading\n\n" if len(ps) > 2 else "") + "\n\n".join(ps) + "\n")


class SyncModel(RuleBasedStateMachine):
    """Files on disk (``files``), and what the index should hold for each (``indexed``): the bytes and
    budget of its last good ingest."""

    through_flow = False

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="seams-model-"))
        self.root = self.tmp / "docs"
        self.root.mkdir()
        self.db = str(self.tmp / "db")
        self.files: dict[str, bytes] = {}
        self.indexed: dict[str, tuple[bytes, tuple[int, int, int]]] = {}
        self.known: set[str] = set()  # the files the manifest lists
        self.budget = BUDGETS[0]
        self.runs = 0

    def teardown(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def settings_for(self, db: str, budget: tuple[int, int, int]) -> Settings:
        low, high, ceiling = budget
        return Settings(db=db, embedder="hashing", workers=0, min_tokens=low, max_tokens=high, merge_ceiling=ceiling)

    def _write(self, name: str, data: bytes) -> None:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.files[name] = data

    # -- changes to the folder ------------------------------------------------------------------
    @initialize(names=st.sets(st.sampled_from(NAMES), min_size=1, max_size=4), data=st.data())
    def start(self, names, data) -> None:
        for name in sorted(names):
            self._write(name, data.draw(contents).encode())

    @precondition(lambda self: len(self.files) < len(NAMES))
    @rule(data=st.data())
    def add(self, data) -> None:
        name = data.draw(st.sampled_from([n for n in NAMES if n not in self.files]))
        self._write(name, data.draw(contents).encode())

    @precondition(lambda self: self.files)
    @rule(data=st.data())
    def modify(self, data) -> None:
        name = data.draw(st.sampled_from(sorted(self.files)))
        self._write(name, data.draw(contents).encode())

    @precondition(lambda self: any(data != CORRUPT for data in self.files.values()))
    @rule(data=st.data())
    def edit_in_place(self, data) -> None:
        """Other bytes of the same size (a typo fixed): only the content hash can tell."""
        name = data.draw(st.sampled_from(sorted(n for n, d in self.files.items() if d != CORRUPT)))
        text = bytearray(self.files[name])
        spots = [i for i, b in enumerate(text) if chr(b).isascii() and (chr(b).isalpha() or chr(b) in ".!")]
        at = data.draw(st.sampled_from(spots))  # every paragraph ends with "." (or "!" after an edit)
        text[at] = {ord("."): ord("!"), ord("!"): ord("."), ord("x"): ord("y")}.get(text[at], ord("x"))
        self._write(name, bytes(text))

    @precondition(lambda self: self.files)
    @rule(data=st.data())
    def touch(self, data) -> None:
        """A new mtime, the same bytes: hashed, found unchanged."""
        name = data.draw(st.sampled_from(sorted(self.files)))
        stat = (self.root / name).stat()
        os.utime(self.root / name, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))

    @precondition(lambda self: self.files)
    @rule(data=st.data())
    def corrupt(self, data) -> None:
        self._write(data.draw(st.sampled_from(sorted(self.files))), CORRUPT)

    @precondition(lambda self: self.files)
    @rule(data=st.data())
    def delete(self, data) -> None:
        name = data.draw(st.sampled_from(sorted(self.files)))
        (self.root / name).unlink()
        del self.files[name]

    @precondition(lambda self: self.files and len(self.files) < len(NAMES))
    @rule(data=st.data())
    def rename(self, data) -> None:
        old = data.draw(st.sampled_from(sorted(self.files)))
        new = data.draw(st.sampled_from([n for n in NAMES if n not in self.files]))
        (self.root / new).parent.mkdir(parents=True, exist_ok=True)
        (self.root / old).rename(self.root / new)
        self.files[new] = self.files.pop(old)

    @rule(budget=st.sampled_from(BUDGETS))
    def change_budget(self, budget) -> None:
        self.budget = budget

    # -- the run and the check ------------------------------------------------------------------
    @rule()
    def ingest(self) -> None:
        self.runs += 1
        run_settings = self.settings_for(self.db, self.budget)
        if self.through_flow:
            report = report_of(ingest_flow([str(self.root)], run_settings, return_state=True))
        else:
            report = run_ingest([str(self.root)], run_settings)
        if not self.files:
            assert report.refused == ([str(self.root.resolve())] if self.known else [])
        else:
            self.known = set(self.files)
            self.indexed = {
                name: (data, self.budget) if data != CORRUPT else self.indexed[name]
                for name, data in self.files.items() if data != CORRUPT or name in self.indexed
            }
            manifest = manifest_by_doc(self.db)
            assert set(manifest) == set(self.files)
            assert {d for d, row in manifest.items() if row["status"] == "failed"} == {
                n for n, data in self.files.items() if data == CORRUPT}
        assert comparable_rows(self.db) == self.fresh_rows()

    def fresh_rows(self) -> list[dict]:
        """Fresh ingests of the expected files, one folder and database per budget."""
        rows: list[dict] = []
        for budget in BUDGETS:
            group = {name: data for name, (data, b) in self.indexed.items() if b == budget}
            if not group:
                continue
            folder = self.tmp / f"expected-{self.runs}-{budget[1]}"
            for name, data in group.items():
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                (folder / name).write_bytes(data)
            db = str(self.tmp / f"fresh-{self.runs}-{budget[1]}")
            run_ingest([str(folder)], self.settings_for(db, budget))
            rows += comparable_rows(db)
        return sorted(rows, key=lambda r: r["chunk_id"])

    @invariant()
    def chunk_ids_are_unique(self) -> None:
        ids = [r["chunk_id"] for r in Store(self.db).rows(["chunk_id"])]
        assert len(ids) == len(set(ids))


def test_sync_matches_a_fresh_ingest_after_every_run():
    run_state_machine_as_test(SyncModel, settings=settings(
        max_examples=30, stateful_step_count=14, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]))


class SyncModelThroughFlow(SyncModel):
    through_flow = True


@pytest.mark.slow
def test_sync_through_the_prefect_flow_matches_a_fresh_ingest(prefect_harness):
    run_state_machine_as_test(SyncModelThroughFlow, settings=settings(
        max_examples=4, stateful_step_count=10, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]))
