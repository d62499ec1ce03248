"""The command line: help on every subcommand, usage errors, inspect on real files."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import SAMPLES

from flows.cli import EXIT_USAGE, build_parser, main

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
