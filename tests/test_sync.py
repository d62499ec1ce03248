"""Incremental sync: the walk (links, loops, ignores, unreadable folders), the plan, and what re-runs
of the real flow do (Prefect test harness, real LanceDB, the ``hashing`` embedder)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from flows.index.store import Store
from flows.ingest.flow import ingest_flow
from flows.ingest.pipeline import scan_root, walk
from flows.ingest.sync import plan_sync
from flows.settings import Settings

#: Columns that differ between two correct ingests of the same files: when and from where.
VOLATILE = ("indexed_at", "source", "root")


def comparable_rows(db: str, kb: str = "default") -> list[dict]:
    """The chunks table as sorted plain rows, without the columns two equal ingests may differ in
    (chunk ids start with the file's path: compared relative to the root)."""
    rows = [dict(r, chunk_id=f"{r['doc_id']}#{r['ordinal']}", id=f"{r['doc_id']}#{r['ordinal']}",
                 metadata={k: v for k, v in r["metadata"].items() if k not in ("source", "chunk_id")})
            for r in Store(db, kb).rows()]
    return sorted(({k: v for k, v in r.items() if k not in VOLATILE} for r in rows), key=lambda r: r["chunk_id"])


def manifest_by_doc(db: str, kb: str = "default") -> dict[str, dict]:
    """The manifest by path relative to the root (the store keys it by full path)."""
    return {row["doc_id"]: row for row in Store(db, kb).manifest().values()}


def settings(db: str | Path, **kw) -> Settings:
    return Settings(db=str(db), embedder="hashing", workers=1, **kw)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def paragraphs(*items: str) -> str:
    return "\n\n".join(items) + "\n"


# -- the walk -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["fifo", "device link", "huge"])
def test_an_ignore_file_that_is_not_a_small_regular_file_cannot_hang_or_exhaust_the_walk(tmp_path, kind, caplog):
    """Issue #16.7: a FIFO named .seamsignore hung the ingest forever; a link to /dev/zero read
    until MemoryError."""
    import threading

    write(tmp_path / "a.txt", "a")
    write(tmp_path / "b.tmp", "b")
    ignore = tmp_path / ".seamsignore"
    if kind == "fifo":
        os.mkfifo(ignore)
    elif kind == "device link":
        ignore.symlink_to("/dev/zero")
    else:
        ignore.write_bytes(b"*.tmp\n" + b"#" * (2 << 20) + b"\n*.txt\n")
    found: list = []
    walker = threading.Thread(target=lambda: found.append(walk(tmp_path)), daemon=True)
    walker.start()
    walker.join(timeout=20)
    assert not walker.is_alive(), "the walk hung on the ignore file"
    names = [r.doc_id for r in found[0]]
    assert names == (["a.txt"] if kind == "huge" else ["a.txt", "b.tmp"])
    assert ".seamsignore" in caplog.text


def test_walk_skips_hidden_and_ignored_files(tmp_path):
    write(tmp_path / "a.txt", "a")
    write(tmp_path / ".hidden.txt", "h")
    write(tmp_path / ".git" / "config", "c")
    write(tmp_path / "drafts" / "x.tmp", "t")
    write(tmp_path / "drafts" / "keep.md", "k")
    write(tmp_path / ".seamsignore", "# scratch files\n*.tmp\n\ndrafts/old*\n")
    write(tmp_path / "drafts" / "old-notes.md", "o")
    assert [r.doc_id for r in walk(tmp_path)] == ["a.txt", "drafts/keep.md"]


def test_symlinks_leaving_the_root_are_not_followed(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    write(root / "in.txt", "in")
    write(outside / "secret.txt", "secret")
    (root / "dir-link").symlink_to(outside, target_is_directory=True)
    (root / "file-link.txt").symlink_to(outside / "secret.txt")
    (root / "relative-escape").symlink_to("../outside", target_is_directory=True)
    assert [r.doc_id for r in walk(root)] == ["in.txt"]


def test_symlink_loops_end_and_each_file_is_taken_once_under_its_real_path(tmp_path):
    write(tmp_path / "a" / "b" / "deep.txt", "deep")
    write(tmp_path / "top.txt", "top")
    (tmp_path / "a" / "b" / "loop").symlink_to(tmp_path, target_is_directory=True)  # back to the root
    (tmp_path / "a" / "self").symlink_to(tmp_path / "a", target_is_directory=True)
    (tmp_path / "z-link").symlink_to(tmp_path / "a", target_is_directory=True)  # sorts after a/, still loses
    (tmp_path / "alias.txt").symlink_to(tmp_path / "top.txt")
    assert [r.doc_id for r in walk(tmp_path)] == ["a/b/deep.txt", "top.txt"]


def test_a_link_to_a_hidden_folder_inside_the_root_is_followed(tmp_path):
    write(tmp_path / ".store" / "kept.txt", "kept")
    (tmp_path / "shelf").symlink_to(tmp_path / ".store", target_is_directory=True)
    assert [r.doc_id for r in walk(tmp_path)] == ["shelf/kept.txt"]


def test_unreadable_folders_are_reported_not_dropped(tmp_path, monkeypatch):
    write(tmp_path / "ok" / "a.txt", "a")
    write(tmp_path / "locked" / "b.txt", "b")
    real_scandir = os.scandir

    def scandir(path):  # as root, chmod cannot lock a folder; the OS error is what matters
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = scan_root(tmp_path)
    assert [r.doc_id for r in found.files] == ["ok/a.txt"] and found.unreadable == ["locked"]
    manifest = _manifest(str(tmp_path), "ok/a.txt", "locked/b.txt", "gone.txt")
    plan = plan_sync([str(tmp_path)], manifest, "fp", allow_mass_delete=False)
    assert plan.deleted == [f"{tmp_path}/gone.txt"] and plan.unreachable == [f"{tmp_path}/locked/b.txt"]


def _manifest(root: str, *doc_ids: str) -> dict[str, dict]:
    """Manifest rows as the store gives them: by path."""
    return {f"{root}/{d}": {"doc_id": d, "root": root, "path": f"{root}/{d}", "size": -1, "mtime": 0.0,
                            "content_hash": "", "config": "fp", "error_kind": ""} for d in doc_ids}


def test_a_missing_or_emptied_root_is_refused_not_wiped(tmp_path):
    manifest = _manifest(str(tmp_path / "gone"), "a.txt", "b/c.txt")
    plan = plan_sync([str(tmp_path / "gone")], manifest, "fp", allow_mass_delete=False)
    assert plan.refused == [str(tmp_path / "gone")] and plan.deleted == []
    (tmp_path / "gone").mkdir()
    plan = plan_sync([str(tmp_path / "gone")], manifest, "fp", allow_mass_delete=True)
    assert plan.refused == [] and sorted(plan.deleted) == sorted(manifest)


def test_two_roots_holding_one_relative_path_are_two_documents(tmp_path):
    write(tmp_path / "a" / "notes.md", "a")
    write(tmp_path / "b" / "notes.md", "b")
    plan = plan_sync([str(tmp_path / "a"), str(tmp_path / "b")], {}, "fp", allow_mass_delete=False)
    assert [(r.doc_id, Path(r.root).name) for r in plan.to_cut] == [("notes.md", "a"), ("notes.md", "b")]
    # the same folder twice, or a file together with its folder, is one claim
    plan = plan_sync([str(tmp_path / "a"), str(tmp_path / "a" / "notes.md"), str(tmp_path / "a")], {}, "fp", False)
    assert [r.doc_id for r in plan.to_cut] == ["notes.md"]
    # a folder and its subfolder: the file is taken once, by the first root
    write(tmp_path / "a" / "sub" / "deep.md", "d")
    plan = plan_sync([str(tmp_path / "a"), str(tmp_path / "a" / "sub")], {}, "fp", False)
    assert sorted(r.doc_id for r in plan.to_cut) == ["notes.md", "sub/deep.md"]


@pytest.mark.parametrize("one_run", [True, False], ids=["one run", "two runs"])
def test_two_folders_in_one_knowledge_base_keep_their_same_named_files(prefect_harness, tmp_path, capsys, one_run):
    """Issue #16.1: ``seams ingest B`` after ``seams ingest A`` replaced A's notes.md with B's."""
    from flows.app.cli import main

    write(tmp_path / "A" / "notes.md", "ALPHA is the first folder's note.")
    write(tmp_path / "B" / "notes.md", "BRAVO is the second folder's note.")
    db = str(tmp_path / "db")
    base = ["--db", db, "--embedder", "hashing"]
    if one_run:
        assert main(["ingest", str(tmp_path / "A"), str(tmp_path / "B"), *base]) == 0
    else:
        assert main(["ingest", str(tmp_path / "A"), *base]) == 0
        capsys.readouterr()
        assert main(["ingest", str(tmp_path / "B"), *base, "--json"]) == 0
        assert [f["action"] for f in json.loads(capsys.readouterr().out)["files"]] == ["added"]
    capsys.readouterr()
    assert main(["search", "ALPHA", "--db", db, "--mode", "fts", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert [Path(h["source"]).parent.name for h in hits] == ["A"]
    assert sorted(Path(r["source"]).parent.name for r in Store(db).rows()) == ["A", "B"]
    assert {Path(p).parent.name: row["doc_id"] for p, row in Store(db).manifest().items()} == {
        "A": "notes.md", "B": "notes.md"}

    # B's file deleted: B's run removes only B's document; A's stays
    (tmp_path / "B" / "notes.md").unlink()
    write(tmp_path / "B" / "other.md", "Something else.")
    assert main(["ingest", str(tmp_path / "B"), *base]) == 0
    assert sorted(Path(r["source"]).name for r in Store(db).rows()) == ["notes.md", "other.md"]
    capsys.readouterr()
    assert main(["search", "ALPHA", "--db", db, "--mode", "fts", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["hits"]) == 1


# -- re-runs of the flow ------------------------------------------------------------------------

def test_rerun_is_idempotent_and_unchanged_files_are_not_parsed(prefect_harness, tmp_path):
    root, db = tmp_path / "docs", tmp_path / "db"
    write(root / "a.md", paragraphs("# 제목", "본문입니다."))
    write(root / "b.txt", "Plain text about the budget.")
    first = ingest_flow([str(root)], settings(db))
    assert first.count("added") == 2
    rows = comparable_rows(str(db))

    again = ingest_flow([str(root)], settings(db))
    assert (again.count("unchanged"), again.count("added"), again.count("deleted")) == (2, 0, 0)
    assert (again.embedded, again.rows_written, again.rows_deleted) == (0, 0, 0)
    assert comparable_rows(str(db)) == rows

    # Same size and mtime: the file is not even read. Prove it with bytes that cannot be parsed.
    target = root / "b.txt"
    stat = target.stat()
    target.write_bytes(b"%PDF-1.7\n" + b"x" * (stat.st_size - 9))
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    blind = ingest_flow([str(root)], settings(db))
    assert blind.count("unchanged") == 2 and blind.failed == 0

    # A new mtime with the same bytes: hashed, found equal, still not parsed or embedded.
    write(root / "a.md", paragraphs("# 제목", "본문입니다."))
    os.utime(root / "a.md", (stat.st_atime + 100, stat.st_mtime + 100))
    touched = ingest_flow([str(root)], settings(db))
    assert touched.count("unchanged") == 2 and touched.embedded == 0 and touched.rows_written == 0
    assert manifest_by_doc(str(db))["a.md"]["mtime"] == (root / "a.md").stat().st_mtime


def test_a_new_pipeline_version_cuts_every_file_again_once_and_embeds_nothing_it_had(prefect_harness, tmp_path,
                                                                                    monkeypatch):
    """After an upgrade whose parsers read files differently (flows.settings.PIPELINE_VERSION), the
    next ingest cuts every file again, once; chunk texts that came out the same take their vectors
    from the embedding cache."""
    import flows.settings

    root, db = tmp_path / "docs", tmp_path / "db"
    write(root / "a.md", "# A\n\nThe committee reviewed the budget.\n")
    write(root / "b.txt", "짧은 글.")
    ingest_flow([str(root)], settings(db))
    monkeypatch.setattr(flows.settings, "PIPELINE_VERSION", "upgraded")
    upgraded = ingest_flow([str(root)], settings(db))
    assert upgraded.count("updated") == 2 and upgraded.embedded == 0 and upgraded.reused_vectors > 0
    assert {r["config"] for r in comparable_rows(str(db))} == {settings(db).fingerprint()}
    again = ingest_flow([str(root)], settings(db))
    assert again.count("unchanged") == 2 and again.rows_written == 0


def test_a_changed_setting_reindexes_every_file(prefect_harness, tmp_path):
    root, db = tmp_path / "docs", tmp_path / "db"
    long_text = paragraphs(*(f"Section {i}. " + "The committee reviewed the budget line by line. " * 6
                             for i in range(6)))
    write(root / "long.txt", long_text)
    write(root / "short.txt", "short")
    ingest_flow([str(root)], settings(db))
    before = comparable_rows(str(db))

    smaller = settings(db, min_tokens=20, max_tokens=60, merge_ceiling=70)
    report = ingest_flow([str(root)], smaller)
    assert report.count("updated") == 2 and report.count("unchanged") == 0
    after = comparable_rows(str(db))
    assert {r["config"] for r in after} == {smaller.fingerprint()}
    assert len(after) > len(before)
    fresh = tmp_path / "fresh"
    ingest_flow([str(root)], settings(fresh, min_tokens=20, max_tokens=60, merge_ceiling=70))
    assert after == comparable_rows(str(fresh))


def test_recutting_a_file_embeds_only_the_chunks_that_changed(prefect_harness, tmp_path):
    root, db = tmp_path / "docs", tmp_path / "db"
    sections = [f"## Part {i}\n\n" + f"Part {i} covers topic number {i} in detail. " * 12 for i in range(8)]
    write(root / "manual.md", paragraphs("# Manual", *sections))
    budget = {"min_tokens": 20, "max_tokens": 120, "merge_ceiling": 130}
    first = ingest_flow([str(root)], settings(db, **budget))
    chunks = first.files[0].chunks
    assert chunks >= 6

    sections[3] = "## Part 3\n\nThis part was rewritten from scratch. " * 3
    write(root / "manual.md", paragraphs("# Manual", *sections))
    second = ingest_flow([str(root)], settings(db, **budget))
    assert second.count("updated") == 1
    assert 1 <= second.embedded <= 2 and second.reused_vectors >= chunks - 2
    fresh = tmp_path / "fresh"
    ingest_flow([str(root)], settings(fresh, **budget))
    assert comparable_rows(str(db)) == comparable_rows(str(fresh))


def test_a_single_file_ingest_leaves_its_siblings_alone(prefect_harness, tmp_path):
    root, db = tmp_path / "docs", tmp_path / "db"
    write(root / "a.txt", "alpha")
    write(root / "b.txt", "beta")
    ingest_flow([str(root)], settings(db))
    write(root / "a.txt", "alpha, revised")
    report = ingest_flow([str(root / "a.txt")], settings(db))
    assert [(f.doc_id, f.action) for f in report.files] == [("a.txt", "updated")]
    assert {r["doc_id"] for r in comparable_rows(str(db))} == {"a.txt", "b.txt"}
    assert set(manifest_by_doc(str(db))) == {"a.txt", "b.txt"}


def test_hostile_file_names_are_synced_exactly(prefect_harness, tmp_path):
    root, db = tmp_path / "docs", tmp_path / "db"
    names = ["it's.txt", "x' OR '1'='1.txt", "100%.txt", "100_.txt", "1000.txt", "back\\slash.txt",
             "new\nline.txt", "한글 문서.md", "sub/it's here.md"]
    for i, name in enumerate(names):
        write(root / name, f"Document {i} is called {name!r}.")
    assert ingest_flow([str(root)], settings(db)).count("added") == len(names)
    for name in ("it's.txt", "100%.txt", "new\nline.txt"):
        (root / name).unlink()
    write(root / "100_.txt", "changed")
    report = ingest_flow([str(root)], settings(db))
    assert sorted(f.doc_id for f in report.files if f.action == "deleted") == ["100%.txt", "it's.txt", "new\nline.txt"]
    assert [f.doc_id for f in report.files if f.action == "updated"] == ["100_.txt"]
    fresh = tmp_path / "fresh"
    ingest_flow([str(root)], settings(fresh))
    assert comparable_rows(str(db)) == comparable_rows(str(fresh))
    assert set(manifest_by_doc(str(db))) == set(manifest_by_doc(str(fresh)))


def test_deleting_in_one_knowledge_base_never_touches_another(prefect_harness, tmp_path):
    root, db = tmp_path / "docs", tmp_path / "db"
    write(root / "shared.txt", "in both knowledge bases")
    write(root / "other.txt", "also in both")
    ingest_flow([str(root)], settings(db, kb="alpha"))
    ingest_flow([str(root)], settings(db, kb="beta"))
    beta_rows, beta_manifest = comparable_rows(str(db), "beta"), Store(str(db), "beta").manifest()

    (root / "shared.txt").unlink()
    report = ingest_flow([str(root)], settings(db, kb="alpha"))
    assert [f.doc_id for f in report.files if f.action == "deleted"] == ["shared.txt"]
    assert {r["doc_id"] for r in comparable_rows(str(db), "alpha")} == {"other.txt"}
    assert comparable_rows(str(db), "beta") == beta_rows
    assert Store(str(db), "beta").manifest() == beta_manifest


def test_files_the_knowledge_base_never_held_are_appended_and_the_others_merged(tmp_path, monkeypatch):
    """A merge_insert joins a batch against the whole table (its cost grows with the knowledge base);
    a batch of files it holds nothing of is appended instead — and a file left with chunk rows but
    no manifest row by a killed run is merged, not appended twice."""
    import lancedb.table

    from flows.ingest.flow import Steps, run_ingest, write_rows

    merged: list[str] = []
    real_merge_insert = lancedb.table.LanceTable.merge_insert

    def merge_insert(self, on):
        if not self.name.endswith("__fts_passages"):  # the passages are merged by their own upkeep
            merged.append(on)
        return real_merge_insert(self, on)

    monkeypatch.setattr(lancedb.table.LanceTable, "merge_insert", merge_insert)
    root = tmp_path / "docs"
    for n in range(5):
        write(root / f"doc{n}.txt", f"문서 {n}번의 내용입니다. Document number {n}.")
    config = Settings(db=str(tmp_path / "db"), embedder="hashing", workers=0, batch_files=2)
    assert run_ingest([str(root)], config, Steps()).count("added") == 5
    assert merged == []
    store = Store(config.db)
    assert store.count() == 5 and len(store.manifest()) == 5

    write(root / "doc0.txt", "바뀐 문서입니다. A changed document.")
    write(root / "late.txt", "새 문서입니다. A new one.")
    report = run_ingest([str(root)], config, Steps())
    assert (report.count("updated"), report.count("added")) == (1, 1)
    assert sorted(merged) == ["chunk_id", "path"]  # one batch: the changed file and the new one
    assert store.count() == 6

    def killed_after_the_chunks(store, rows, paths, dim, new=False):
        write_rows(store, rows, paths, dim, new)
        raise KeyboardInterrupt

    write(root / "unrecorded.txt", "기록되지 않은 문서입니다.")
    with pytest.raises(KeyboardInterrupt):
        run_ingest([str(root)], config, Steps(write=killed_after_the_chunks))
    merged.clear()
    run_ingest([str(root)], config, Steps())
    assert merged == ["chunk_id", "path"]
    assert sorted(r["doc_id"] for r in store.rows(["doc_id"])) == sorted([f"doc{n}.txt" for n in range(5)]
                                                                         + ["late.txt", "unrecorded.txt"])


def test_files_of_an_unreadable_folder_show_as_kept_in_the_report(tmp_path, monkeypatch):
    from flows.index.store import Store
    from flows.ingest.flow import Steps, run_ingest
    from flows.settings import Settings

    root = tmp_path / "docs"
    write(root / "ok" / "a.txt", "첫 문서입니다.")
    write(root / "locked" / "b.txt", "잠긴 폴더의 문서입니다.")
    settings = Settings(db=str(tmp_path / "db"), embedder="hashing", workers=0)
    run_ingest([str(root)], settings, Steps())
    real_scandir = os.scandir

    def scandir(path):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    report = run_ingest([str(root)], settings, Steps())
    kept = {f.doc_id: f for f in report.files if f.action == "kept"}
    assert list(kept) == ["locked/b.txt"] and kept["locked/b.txt"].error_kind == "unreadable"
    assert report.failed == 1
    assert {r["doc_id"] for r in Store(settings.db).rows()} == {"ok/a.txt", "locked/b.txt"}


def test_chunks_of_a_file_gone_before_its_manifest_row_was_written_are_removed(tmp_path):
    """Issue #16.3: a run killed between a batch's chunk commit and its manifest commit, then the
    file deleted: its chunks stayed searchable forever, since no run looked at the file again."""
    from flows.ingest.flow import Steps, run_ingest, write_rows

    root = tmp_path / "docs"
    write(root / "kept.txt", "이 문서는 그대로 남습니다.")
    write(root / "doomed.txt", "Zeppelin notes that are deleted before they were recorded.")
    config = Settings(db=str(tmp_path / "db"), embedder="hashing", workers=0)

    def killed_after_the_chunks(store, rows, paths, dim, new=False):
        write_rows(store, rows, paths, dim, new)
        raise KeyboardInterrupt  # dies before the manifest commit

    with pytest.raises(KeyboardInterrupt):
        run_ingest([str(root)], config, Steps(write=killed_after_the_chunks))
    store = Store(config.db)
    assert store.count() == 2 and store.manifest() == {}

    (root / "doomed.txt").unlink()
    write(root / "renamed.txt", "A file that arrived meanwhile.")
    report = run_ingest([str(root)], config, Steps(write=write_rows))
    assert sorted(f.doc_id for f in report.files) == ["kept.txt", "renamed.txt"]
    assert sorted(r["doc_id"] for r in store.rows(["doc_id"])) == ["kept.txt", "renamed.txt"]
    assert report.rows_deleted == 1
    # an unchanged re-run finds nothing to remove, and a file that exists is never taken for an orphan
    again = run_ingest([str(root)], config)
    assert again.rows_deleted == 0 and again.count("unchanged") == 2
    assert store.orphans({}) == []


def test_a_file_that_timed_out_waits_for_a_change_or_a_request(tmp_path):
    """Issue #16.8: a file over the time limit was parsed again on every run, so every scheduled
    no-op run paid the whole limit again."""
    write(tmp_path / "huge.xlsx", "x" * 10)
    write(tmp_path / "flaky.txt", "y")
    manifest = _manifest(str(tmp_path), "huge.xlsx", "flaky.txt")
    for doc_id, kind in (("huge.xlsx", "timeout"), ("flaky.txt", "error")):
        info = (tmp_path / doc_id).stat()
        manifest[f"{tmp_path}/{doc_id}"].update(size=info.st_size, mtime=info.st_mtime, error_kind=kind)
    plan = plan_sync([str(tmp_path)], manifest, "fp", allow_mass_delete=False)
    assert [r.doc_id for r in plan.unchanged] == ["huge.xlsx"] and [r.doc_id for r in plan.to_cut] == ["flaky.txt"]
    plan = plan_sync([str(tmp_path)], manifest, "fp", allow_mass_delete=False, retry_failed=True)
    assert sorted(r.doc_id for r in plan.to_cut) == ["flaky.txt", "huge.xlsx"]
    write(tmp_path / "huge.xlsx", "x" * 11)
    plan = plan_sync([str(tmp_path)], manifest, "fp", allow_mass_delete=False)
    assert sorted(r.doc_id for r in plan.to_cut) == ["flaky.txt", "huge.xlsx"]


def test_a_rerun_counts_each_failed_file_once(tmp_path):
    """Issue #12: a re-run of 6 files, 2 of them broken, said "6 unchanged … 2 failed"."""
    from flows.ingest.flow import Steps, run_ingest

    for i in range(4):
        write(tmp_path / "docs" / f"ok{i}.txt", f"문서 {i}")
    for i in range(2):
        (tmp_path / "docs" / f"broken{i}.pdf").write_bytes(b"%PDF-1.7\n% truncated")
    config = Settings(db=str(tmp_path / "db"), embedder="hashing", workers=0)
    assert run_ingest([str(tmp_path / "docs")], config, Steps()).summary().startswith("4 added, 0 updated, 0 unchanged")
    again = run_ingest([str(tmp_path / "docs")], config, Steps())
    assert again.summary().startswith("0 added, 0 updated, 4 unchanged, 0 deleted, 2 failed (2 unchanged since they failed")
    # ``seams ingest --json`` counts them the same way (it said 6 unchanged, 0 failed)
    from flows.app.console import _report_json

    counts = _report_json(again)["counts"]
    assert (counts["unchanged"], counts["failed"], counts["added"]) == (4, 2, 0)


def test_an_interrupt_keeps_the_vectors_embedded_so_far(tmp_path, monkeypatch):
    """Issue #16.10: vectors were cached only once a whole batch was embedded, so an interrupt
    before that lost all the embedding done."""
    import dataclasses

    import flows.embed.cache
    import flows.ingest.flow
    from flows.embed import get_embedder
    from flows.ingest.flow import Steps, run_ingest

    root = tmp_path / "docs"
    for i in range(6):
        write(root / f"doc{i}.txt", "\n\n".join(f"문서 {i}의 {j}번째 문단입니다. " * 30 for j in range(8)))
    config = Settings(db=str(tmp_path / "db"), embedder="hashing", workers=0, embed_batch=4, batch_files=100)
    real = get_embedder("hashing", 1)
    calls = [0]

    def passages(texts):
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt
        return real.passages(texts)

    interrupted = dataclasses.replace(real, passages=passages)
    monkeypatch.setattr(flows.ingest.flow, "embedder_for", lambda *args: interrupted)
    monkeypatch.setattr(flows.embed.cache, "CACHE_SAVE_EVERY_S", 0.0)
    with pytest.raises(KeyboardInterrupt):
        run_ingest([str(root)], config, Steps())
    monkeypatch.undo()
    again = run_ingest([str(root)], config, Steps())
    assert again.reused_vectors == 8, "the two sub-batches embedded before the interrupt are reused"
    assert again.count("added") == 6


def test_a_folder_that_cannot_be_listed_is_in_the_first_runs_report(tmp_path, monkeypatch):
    """Issue #16.13: a folder deeper than PATH_MAX (or without permission) was missing from the
    first run's report: nothing said its files were not indexed."""
    import errno

    from flows.ingest.flow import Steps, run_ingest

    root = tmp_path / "docs"
    write(root / "ok" / "a.txt", "첫 문서입니다.")
    write(root / "deep" / "b.txt", "너무 깊은 폴더의 문서입니다.")
    real_scandir = os.scandir

    def scandir(path):
        if str(path).endswith("deep"):
            raise OSError(errno.ENAMETOOLONG, "File name too long", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    report = run_ingest([str(root)], Settings(db=str(tmp_path / "db"), embedder="hashing", workers=0), Steps())
    by_name = {f.doc_id: f for f in report.files}
    assert by_name["ok/a.txt"].action == "added"
    assert by_name["deep/"].status == "failed" and by_name["deep/"].error_kind == "unreadable"
    assert "not indexed" in by_name["deep/"].error and report.failed == 1


def test_a_run_reports_its_time_by_stage_and_where_each_ran(prefect_harness, tmp_path):
    """Issue #38: where the time of a run goes. Cutting in the parser pool counts the files' own
    seconds, measured in the workers; embedding and writing run in the flow; a run with nothing to
    cut has no cut, embed or write stage at all."""
    root = tmp_path / "docs"
    for i in range(4):
        write(root / f"규정{i}.md", paragraphs(f"# 제{i}장 총칙", f"제{i}조(목적) 이 규정은 예산 집행을 정한다.", "본문 " * 300))
    report = ingest_flow([str(root)], Settings(db=str(tmp_path / "db"), embedder="hashing", workers=2))
    stages = report.stages
    assert list(stages) == ["plan", "cut", "embed", "write", "clean"], stages
    assert stages["cut"].where == "2 parser workers" and stages["cut"].seconds > 0, stages
    assert stages["embed"].where == stages["write"].where == "flow" and stages["embed"].seconds > 0, stages
    assert report.stage_line().startswith("plan "), report.stage_line()
    assert "cut " in report.stage_line() and "in 2 parser workers (the flow waited" in report.stage_line()
    again = ingest_flow([str(root)], Settings(db=str(tmp_path / "db"), embedder="hashing", workers=2))
    assert set(again.stages) == {"plan", "clean"}, again.stages
