"""The per-file time limit: a file that stalls its parser times out alone; the rest are cut."""

from __future__ import annotations

import os
import time

from flows.pipeline import CutConfig, FileRef
from flows.workers import Cutter
from splitters import Budget


def _ref(path) -> FileRef:
    return FileRef(str(path.parent), str(path), path.name, 0, 0.0)


def test_a_stalled_file_times_out_and_the_others_are_cut(tmp_path):
    stalled = tmp_path / "stalled.txt"
    os.mkfifo(stalled)  # reading a FIFO nobody writes to blocks forever, like a parser stuck on a page
    good = []
    for i in range(3):
        path = tmp_path / f"good{i}.txt"
        path.write_text(f"문서 {i}: 예산 집행 현황을 점검했다.", "utf-8")
        good.append(path)
    cutter = Cutter(workers=2, timeout=3)
    started = time.monotonic()
    try:
        outcomes = cutter.cut([_ref(good[0]), _ref(stalled), _ref(good[1]), _ref(good[2])], CutConfig(Budget()))
    finally:
        cutter.close()
    assert time.monotonic() - started < 60
    kinds = [o.error_kind for o in outcomes]
    assert kinds == ["", "timeout", "", ""], [(o.ref.doc_id, o.error_kind, o.error) for o in outcomes]
    assert all(o.chunks for o in outcomes if not o.error_kind)
    assert "within 3 s" in outcomes[1].error
