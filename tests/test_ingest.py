"""End-to-end ingest through the real Prefect flow (test harness) into a real LanceDB."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import EXAMPLES

from flows.index.store import Store
from flows.ingest.flow import ingest_flow, report_of
from flows.settings import Settings


def _settings(db_path: str, **kw) -> Settings:
    return Settings(db=db_path, workers=1, **kw)


def _table(db_path: str, kb: str = "default") -> list[dict]:
    rows = Store(db_path, kb).rows()
    return sorted(({k: v for k, v in r.items() if k not in ("indexed_at", "vector", "passages")} for r in rows),
                  key=lambda r: r["chunk_id"])


@pytest.mark.skipif(not any(EXAMPLES.glob("*")), reason="examples/ not generated yet")
def test_examples_folder_end_to_end(prefect_harness, db_path):
    report = ingest_flow([str(EXAMPLES)], _settings(db_path))
    files = sorted(p.name for p in EXAMPLES.iterdir()
                   if p.is_file() and not p.name.startswith(".") and p.suffix not in (".py", ".jsonl"))
    indexed = {f.doc_id: f for f in report.files}
    assert sorted(indexed) == files
    assert all(f.action == "added" and f.chunks > 0 for f in indexed.values()), [
        (f.doc_id, f.error) for f in indexed.values() if f.action != "added"]
    rows = Store(db_path).rows()
    by_doc: dict[str, list[dict]] = {}
    for row in rows:
        by_doc.setdefault(row["doc_id"], []).append(row)
    assert sorted(by_doc) == files
    for doc_id, doc_rows in by_doc.items():
        for row in doc_rows:
            assert row["source"].endswith(doc_id) and row["format"] and row["strategy"] and row["rule"]
            assert row["tokens"] > 0 and len(row["vector"]) == 512
            fmt = row["format"]
            if fmt == "pdf":
                assert row["page_start"] is not None
            if fmt in ("xlsx", "csv"):
                assert row["sheet"] and row["row_start"] is not None
            if fmt == "pptx":
                assert row["slide_start"] is not None
    formats = {r["format"] for r in rows}
    assert {"pdf", "xlsx", "pptx", "docx", "md", "csv"} <= formats

    before = _table(db_path)
    again = ingest_flow([str(EXAMPLES)], _settings(db_path))
    assert again.count("unchanged") == len(files) and again.embedded == 0 and again.rows_written == 0
    assert _table(db_path) == before, "a second run leaves the same rows"


def _write_folder(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "notes.md").write_text("# 회의록\n\n예산 집행 현황을 점검했다.\n\n## 결정\n\n다음 분기 계획을 확정했다.\n", "utf-8")
    (root / "it's quoted.txt").write_text("A file whose name has a quote.\n\nIt must not widen a delete.", "utf-8")
    (root / "table.csv").write_text("지역,매출\n서울,100\n부산,80\n", "utf-8")
    (root / "sub").mkdir(exist_ok=True)
    (root / "sub" / "deep.txt").write_text("깊은 폴더의 문서입니다. " * 20, "utf-8")


def test_incremental_sync_equals_fresh_ingest(prefect_harness, tmp_path):
    root = tmp_path / "docs"
    _write_folder(root)
    db = str(tmp_path / "db")
    first = ingest_flow([str(root)], _settings(db, embedder="hashing"))
    assert first.count("added") == 4 and first.failed == 0

    # modify, delete (the quoted name), rename, add
    (root / "notes.md").write_text("# 회의록\n\n예산 집행 현황을 다시 점검했다.\n", "utf-8")
    (root / "it's quoted.txt").unlink()
    (root / "sub" / "deep.txt").rename(root / "sub" / "moved.txt")
    (root / "new.txt").write_text("새 문서", "utf-8")
    second = ingest_flow([str(root)], _settings(db, embedder="hashing"))
    actions = {f.doc_id: f.action for f in second.files}
    assert actions == {"notes.md": "updated", "it's quoted.txt": "deleted", "sub/deep.txt": "deleted",
                       "sub/moved.txt": "added", "new.txt": "added", "table.csv": "unchanged"}

    fresh = str(tmp_path / "fresh")
    ingest_flow([str(root)], _settings(fresh, embedder="hashing"))
    strip = lambda rows: [{k: v for k, v in r.items() if k != "source"} for r in rows]  # noqa: E731
    assert strip(_table(db)) == strip(_table(fresh))


def test_unreadable_file_keeps_its_chunks_and_empty_root_refuses_mass_delete(prefect_harness, tmp_path):
    root = tmp_path / "docs"
    _write_folder(root)
    db = str(tmp_path / "db")
    ingest_flow([str(root)], _settings(db, embedder="hashing"))
    before = _table(db)

    target = root / "notes.md"
    target.write_bytes(b"%PDF-1.7\n% truncated")  # now a broken PDF in place of the notes
    # the run fails (a file failed in it): its report is its final state's data
    report = report_of(ingest_flow([str(root)], _settings(db, embedder="hashing"), return_state=True))
    notes = next(f for f in report.files if f.doc_id == "notes.md")
    assert notes.action == "kept" and notes.error_kind == "corrupt"
    assert notes.format == "pdf", "a failed file's report says the type it was read as"
    assert [r for r in _table(db) if r["doc_id"] == "notes.md"] == [r for r in before if r["doc_id"] == "notes.md"]
    manifest = {row["doc_id"]: row for row in Store(db).manifest().values()}
    assert manifest["notes.md"]["error_kind"] == "corrupt" and manifest["notes.md"]["format"] == "pdf"

    shutil.rmtree(root)
    root.mkdir()
    refused = ingest_flow([str(root)], _settings(db, embedder="hashing"))
    assert refused.refused and Store(db).count() == len(before)
    allowed = ingest_flow([str(root)], _settings(db, embedder="hashing", allow_mass_delete=True))
    assert allowed.count("deleted") == 4 and Store(db).count() == 0


def test_knowledge_bases_are_separate(prefect_harness, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    _write_folder(a)
    b.mkdir()
    (b / "only.txt").write_text("only in b", "utf-8")
    db = str(tmp_path / "db")
    ingest_flow([str(a)], _settings(db, kb="alpha", embedder="hashing"))
    ingest_flow([str(b)], _settings(db, kb="beta", embedder="hashing"))
    assert {r["doc_id"] for r in _table(db, "beta")} == {"only.txt"}
    assert "only.txt" not in {r["doc_id"] for r in _table(db, "alpha")}
