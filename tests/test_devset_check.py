"""The development set's checker: every evidence string must occur exactly once in its file's text."""

from __future__ import annotations

import importlib.util
from pathlib import Path

CHECK = Path(__file__).resolve().parent.parent / "bench" / "devset" / "check.py"


def _checker():
    spec = importlib.util.spec_from_file_location("devset_check", CHECK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_checker_finds_missing_repeated_and_altered_evidence(tmp_path):
    check = _checker()
    (tmp_path / "규정.txt").write_text(
        "제1조(목적) 이 규정은 휴가의 기준을 정한다.\n\n제2조(휴가) 연차휴가는 15일로 한다.\n연차휴가는 15일로 한다.\n", "utf-8")
    base = {"file": "규정.txt", "kind": "section", "language": "ko", "question": "연차휴가는 며칠인가?"}
    questions = [
        {**base, "id": "good", "evidence": ["이 규정은 휴가의\n기준을 정한다."]},  # whitespace folds
        {**base, "id": "twice", "evidence": ["연차휴가는 15일로 한다."]},
        {**base, "id": "absent", "evidence": ["병가는 30일로 한다."]},
        {**base, "id": "altered", "evidence": ["제2조 휴가 연차휴가는"]},  # only letters-only would match
        {**base, "id": "kind", "kind": "chapter", "evidence": ["휴가의 기준을"]},
    ]
    problems, methods = check.check(questions, tmp_path, {"규정.txt"})
    flagged = {line.split(":")[0] for line in problems}
    assert flagged == {"twice", "absent", "altered", "kind"}
    assert methods["whitespace"] == 1
