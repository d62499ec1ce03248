"""Same chunks, same answers: a folder's chunk ids and every question's top 5, saved and compared.

A change meant to keep behaviour (moving code between modules, renaming, a refactor of the budget)
must leave every chunk and every search result as it was. This script indexes a folder the way a
user does (``seams ingest`` in a new process, into a fresh database, with the ``hashing`` embedder:
no model, deterministic), then records

- every chunk: its id and a hash of its text, heading path and locators;
- every question's top 5 chunk ids in each mode (full text, vector, hybrid).

``--save FILE`` writes that snapshot; ``--compare FILE`` prints what differs from a saved one (chunks
added, removed or changed; questions whose top 5 changed, per mode) and exits 1 when anything does.

Usage (the development set, after ``python bench/devset/materialise.py``)::

    git stash; python bench/snapshot.py .seams/devset/files bench/devset/questions.jsonl --save /tmp/before.json
    git stash pop; python bench/snapshot.py .seams/devset/files bench/devset/questions.jsonl --compare /tmp/before.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODES = ("fts", "vector", "hybrid")
KB = "snapshot"


def take(folder: Path, questions: Path, db: Path) -> dict:
    """Index ``folder`` into ``db`` with ``seams ingest`` and read back its chunks and top-5 lists."""
    env = {**os.environ, "SEAMS_EMBEDDER": "hashing", "PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "flows.app.cli", "ingest", str(folder), "--db", str(db), "--kb", KB,
                           "--json"], env=env, capture_output=True, text=True, cwd=REPO)
    if done.returncode not in (0, 1):
        raise SystemExit(f"seams ingest failed ({done.returncode}):\n{done.stderr[-2000:]}")
    ingest_s = time.perf_counter() - started

    import lancedb

    from flows.index.search import search
    from flows.settings import Settings

    table = lancedb.connect(str(db)).open_table(f"{KB}__chunks")
    columns = ["chunk_id", "text", "heading_path", "page_start", "page_end", "sheet", "row_start", "row_end",
               "slide_start", "slide_end", "char_start", "char_end", "strategy", "rule"]
    chunks = {}
    for row in table.to_arrow().select(columns).to_pylist():
        body = json.dumps({key: row[key] for key in columns[1:]}, ensure_ascii=False, sort_keys=True, default=str)
        chunks[row["chunk_id"]] = hashlib.sha256(body.encode()).hexdigest()[:16]
    settings = Settings(db=str(db), kb=KB, embedder="hashing")
    top5: dict[str, dict[str, list[str]]] = {}
    for line in questions.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        question = json.loads(line)
        top5[question["id"]] = {mode: [hit["chunk_id"] for hit in search(settings, question["question"], 5, mode)]
                                for mode in MODES}
    return {"folder": str(folder), "questions": str(questions), "ingest_s": round(ingest_s, 1),
            "chunks": chunks, "top5": top5}


def compare(now: dict, before: dict) -> list[str]:
    """Lines naming every difference between two snapshots (none: the same behaviour)."""
    lines = []
    old, new = before["chunks"], now["chunks"]
    for label, ids in (("removed", sorted(old.keys() - new.keys())), ("added", sorted(new.keys() - old.keys())),
                       ("changed", sorted(k for k in old.keys() & new.keys() if old[k] != new[k]))):
        if ids:
            lines.append(f"{len(ids)} chunks {label}: " + ", ".join(ids[:5]) + (" …" if len(ids) > 5 else ""))
    for qid, modes in sorted(before["top5"].items()):
        for mode, ranked in modes.items():
            current = now["top5"].get(qid, {}).get(mode)
            if current != ranked:
                lines.append(f"{qid} [{mode}]: {ranked} -> {current}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("questions", type=Path)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", type=Path, help="write the snapshot here")
    group.add_argument("--compare", type=Path, help="compare with a snapshot saved before")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from flows.environment import apply_defaults

    apply_defaults()
    with tempfile.TemporaryDirectory(prefix="seams-snapshot-") as tmp:
        now = take(args.folder, args.questions, Path(tmp) / "db")
    print(f"{len(now['chunks'])} chunks, {len(now['top5'])} questions × {len(MODES)} modes "
          f"(ingest {now['ingest_s']} s)")
    if args.save:
        args.save.write_text(json.dumps(now, ensure_ascii=False, indent=1, sort_keys=True), encoding="utf-8")
        print(f"saved {args.save}")
        return
    differences = compare(now, json.loads(args.compare.read_text(encoding="utf-8")))
    for line in differences:
        print(line)
    print("identical: same chunks, same top 5 in every mode" if not differences
          else f"{len(differences)} differences")
    raise SystemExit(1 if differences else 0)


if __name__ == "__main__":
    main()
