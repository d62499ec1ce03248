"""The command line: help on every subcommand, usage errors, inspect on real files."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import SAMPLES

from flows.cli import EXIT_INTERNAL, EXIT_USAGE, build_parser, main

SUBCOMMANDS = [name for name in build_parser()._subparsers._group_actions[0].choices]


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_help_on_every_subcommand(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    assert "usage: seams" in capsys.readouterr().out


def test_usage_errors_exit_2(tmp_path, capsys):
    assert main(["ingest", str(tmp_path / "missing")]) == EXIT_USAGE
    assert "no such file or folder" in capsys.readouterr().err
    (tmp_path / "a.txt").write_text("x")
    assert main(["ingest", str(tmp_path), "--strategy", "bogus", "--db", str(tmp_path / "db")]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "unknown strategy 'bogus'" in err and "section" in err


@pytest.mark.parametrize("kb", ["한국어", "k" * 300, "embedding_cache", "embedding_cache__x"])
def test_knowledge_base_names_lancedb_cannot_hold_are_refused_before_any_work(tmp_path, capsys, kb):
    """Issue #16.12: such names failed only at the first write, after parsing and embedding (or, for
    ``embedding_cache``, collided with the shared cache's tables)."""
    (tmp_path / "a.txt").write_text("본문")
    assert main(["ingest", str(tmp_path / "a.txt"), "--db", str(tmp_path / "db"), "--kb", kb]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "kb" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "db").exists()


def test_a_crash_is_one_line_with_its_own_exit_code(tmp_path, capsys, monkeypatch):
    """Issue #16.11: a MemoryError (or a failed write) exited 1, the code for "some files failed",
    with a long traceback."""
    import flows.console

    def out_of_memory(*args, **kwargs):
        raise MemoryError("cannot allocate 2 GiB")

    monkeypatch.setattr(flows.console, "ingest_with_progress", out_of_memory)
    (tmp_path / "a.txt").write_text("x")
    assert main(["ingest", str(tmp_path), "--db", str(tmp_path / "db"), "--embedder", "hashing"]) == EXIT_INTERNAL
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "seams: internal error: MemoryError: cannot allocate 2 GiB (SEAMS_DEBUG=1 shows the traceback)"
    assert not any("Traceback" in line for line in err)
    monkeypatch.setenv("SEAMS_DEBUG", "1")
    assert main(["ingest", str(tmp_path), "--db", str(tmp_path / "db"), "--embedder", "hashing"]) == EXIT_INTERNAL
    assert "Traceback" in capsys.readouterr().err


def test_inspect_prints_decision_and_chunks(tmp_path, capsys):
    doc = tmp_path / "규정.txt"
    doc.write_text("제1장 총칙\n제1조(목적) 이 규정은 목적을 정한다.\n제2조(정의) 용어의 뜻은 다음과 같다.\n"
                   "제2장 운영\n제3조(운영) 제1조에 따라 운영한다.\n" * 30, "utf-8")
    assert main(["inspect", str(doc), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["decision"]["strategy"] == "section" and data["decision"]["rule"] == "legal-articles"
    assert data["chunks"] and all(c["text"].startswith("제") for c in data["chunks"]), "every chunk starts at a header"


@pytest.mark.skipif(not SAMPLES.exists(), reason="../shared/samples missing")
def test_inspect_reports_encrypted_file(capsys):
    assert main(["inspect", str(SAMPLES / "password.pdf")]) == 1
    assert "encrypted" in capsys.readouterr().out


def test_console_script_installed():
    result = subprocess.run([sys.executable, "-m", "flows.cli", "--help"], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and "ingest" in result.stdout


def test_the_max_from_the_environment_and_from_the_flag_agree(tmp_path, capsys, monkeypatch):
    """Issue #14: ``SEAMS_MAX_TOKENS=2000 seams inspect`` failed (the ceiling stayed 1,150) where
    ``--max-tokens 2000`` worked."""
    doc = tmp_path / "notes.md"
    doc.write_text("# 제목\n\n" + "본문 문장입니다. " * 50, "utf-8")
    assert main(["inspect", str(doc), "--max-tokens", "2000", "--json"]) == 0
    by_flag = json.loads(capsys.readouterr().out)
    monkeypatch.setenv("SEAMS_MAX_TOKENS", "2000")
    assert main(["inspect", str(doc), "--json"]) == 0
    by_env = json.loads(capsys.readouterr().out)
    assert by_env == by_flag
    from flows.settings import Settings

    assert Settings().merge_ceiling == Settings(max_tokens=2000, merge_ceiling=None).merge_ceiling == 2091
    monkeypatch.delenv("SEAMS_MAX_TOKENS")
    assert Settings().merge_ceiling == 1150
