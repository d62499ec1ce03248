"""The command line: help on every subcommand, usage errors, inspect on real files."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import SAMPLES

from flows.app.cli import EXIT_INTERNAL, EXIT_USAGE, build_parser, main

SUBCOMMANDS = [name for name in build_parser()._subparsers._group_actions[0].choices]


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_help_on_every_subcommand(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    assert "usage: seams" in capsys.readouterr().out


def test_usage_errors_exit_2(tmp_path, capsys):
    for command in (["ingest"], ["serve", "--every", "1h"]):
        assert main([*command, str(tmp_path / "missing")]) == EXIT_USAGE
        assert "no such file or folder" in capsys.readouterr().err
    (tmp_path / "a.txt").write_text("x")
    assert main(["ingest", str(tmp_path), "--strategy", "bogus", "--db", str(tmp_path / "db")]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "unknown strategy 'bogus'" in err and "section" in err


def test_a_database_where_none_can_be_made_is_a_usage_error(tmp_path, capsys):
    """Issue #37: ``--db /dev/null/db`` ran the flow, which crashed at its first step: exit 4 and a
    50-line traceback chained to a concurrency limit's 404. Now one line and exit 2, before any run."""
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / "file").write_text("x")
    for db in ("/dev/null/db", str(tmp_path / "file" / "sub" / "db")):
        for command in (["ingest", str(tmp_path / "a.txt")], ["serve", str(tmp_path), "--every", "1m"]):
            assert main([*command, "--db", db, "--embedder", "hashing"]) == EXIT_USAGE, (command, db)
            err = capsys.readouterr().err
            assert err.startswith(f"seams: error: cannot make a database at {db}: ") and "is not a folder" in err
            assert len(err.splitlines()) == 1, err
    assert main(["inspect", str(tmp_path / "a.txt")]) == 0, "inspect writes no database: it is not checked"


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
    import flows.app.console

    def out_of_memory(*args, **kwargs):
        raise MemoryError("cannot allocate 2 GiB")

    monkeypatch.setattr(flows.app.console, "ingest_with_progress", out_of_memory)
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
    result = subprocess.run([sys.executable, "-m", "flows.app.cli", "--help"], capture_output=True, text=True, check=False)
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


#: The arguments of the commands that build Settings that are not settings.
NOT_SETTINGS = {"help", "paths", "file", "query", "json", "full", "chunk", "k", "mode", "every", "cron", "no_run_now", "embedded",
                "port"}


def test_every_setting_has_a_flag_of_its_name_or_is_named_environment_only():
    """Issue #14: the CLI reads each Settings field from the flag of its name, so a new setting needs
    such a flag (on ``seams ingest``) or a place in ENV_ONLY_SETTINGS; a flag that names no setting
    would be ignored, and fails here."""
    from flows.app import cli
    from flows.settings import Settings

    fields = set(Settings.model_fields)
    commands = build_parser()._subparsers._group_actions[0].choices
    flagged = {name for name in fields if cli._FLAG_OF.get(name, name) in {a.dest for a in commands["ingest"]._actions}}
    assert flagged | cli.ENV_ONLY_SETTINGS | cli.SEARCH_SETTINGS == fields and not flagged & cli.ENV_ONLY_SETTINGS
    assert not cli.SEARCH_SETTINGS & (flagged | cli.ENV_ONLY_SETTINGS)
    for command in ("search", "evaluate"):
        assert cli.SEARCH_SETTINGS <= {a.dest for a in commands[command]._actions}, command
    assert set(cli._FLAG_OF) <= fields
    setting_flags = {cli._FLAG_OF.get(name, name) for name in fields}
    # Each run of `seams serve` is an ingest: it takes every flag of one.
    served = {a.dest for a in commands["serve"]._actions} & setting_flags
    assert served == {a.dest for a in commands["ingest"]._actions} & setting_flags
    for command in ("ingest", "inspect", "search", "serve"):
        for action in commands[command]._actions:
            assert action.dest in setting_flags | NOT_SETTINGS, f"seams {command}: --{action.dest} is no setting"
            if action.dest in setting_flags:
                assert action.default is None, f"seams {command}: --{action.dest} not given would override SEAMS_*"


def test_every_flag_of_a_setting_reaches_the_settings(tmp_path, monkeypatch):
    from classifiers import DEFAULT_RULES
    from flows.app import cli
    from flows.settings import Settings

    for name in Settings.model_fields:
        monkeypatch.delenv(f"SEAMS_{name.upper()}", raising=False)
    rule = DEFAULT_RULES[0].name
    args = build_parser().parse_args([
        "ingest", str(tmp_path), "--db", str(tmp_path / "db"), "--kb", "other", "--embedder", "hashing",
        "--embed-url", "http://127.0.0.1:9/v1", "--strategy", "page", "--override", "*.md=section", "--disable-rule", rule, "--rule-strategy",
        f"{rule}=whole", "--min-tokens", "50", "--max-tokens", "600", "--merge-ceiling", "650", "--pack-tokens",
        "300", "--embed-heading-path", "--workers", "97", "--runner", "dask", "--allow-mass-delete", "--retry-failed",
        "--budget", "sheet:pack=250",
    ])
    settings, defaults = cli._settings(args), Settings()
    changed = {name for name in Settings.model_fields if getattr(settings, name) != getattr(defaults, name)}
    assert changed == set(Settings.model_fields) - cli.ENV_ONLY_SETTINGS - cli.SEARCH_SETTINGS
    searching = cli._settings(build_parser().parse_args(["search", "q", "--vector-weight", "0.5", "--title-weight", "0",
                                                         "--vector-seat", "2"]))
    assert {name for name in Settings.model_fields if getattr(searching, name) != getattr(defaults, name)} == {
        "vector_weight", "vector_seat", "title_weight"} == cli.SEARCH_SETTINGS
    assert searching.vector_weight == 0.5 and searching.title_weight == 0 and searching.vector_seat == 2
    assert settings.overrides == {"*.md": "section"} and settings.rule_strategies == {rule: "whole"}
    assert settings.budgets == {"sheet": "pack=250"}
    monkeypatch.setenv("SEAMS_ALLOW_MASS_DELETE", "1")
    assert cli._settings(build_parser().parse_args(["ingest", str(tmp_path)])).allow_mass_delete


def test_serve_gives_its_runs_the_settings_of_its_flags(tmp_path, monkeypatch):
    """Issue #14: ``seams serve`` had no --runner, --allow-mass-delete or --retry-failed. Scheduled runs
    take them all but ``retry_failed``, which only the run started at once keeps: every scheduled run
    would otherwise spend a slow file's time limit on it again."""
    from flows.app import cli
    from flows.app.serve import run_parameters
    from flows.settings import Settings

    for name in Settings.model_fields:
        monkeypatch.delenv(f"SEAMS_{name.upper()}", raising=False)
    args = build_parser().parse_args([
        "serve", str(tmp_path), "--every", "10m", "--runner", "dask:tcp://scheduler:8786", "--allow-mass-delete",
        "--retry-failed", "--workers", "3"])
    scheduled, first = run_parameters(args.paths, cli._settings(args))
    assert scheduled["paths"] == first["paths"] == [str(tmp_path.resolve())]
    for parameters in (scheduled, first):
        settings = Settings(**parameters["settings"])  # as the served flow validates them
        assert (settings.runner, settings.allow_mass_delete, settings.workers) == ("dask:tcp://scheduler:8786", True, 3)
    assert first["settings"]["retry_failed"] and not scheduled["settings"]["retry_failed"]
    assert {k: v for k, v in first["settings"].items() if k != "retry_failed"} == {
        k: v for k, v in scheduled["settings"].items() if k != "retry_failed"}


def test_serve_refuses_to_retry_failed_files_without_a_first_run(tmp_path, capsys):
    assert main(["serve", str(tmp_path), "--every", "10m", "--retry-failed", "--no-run-now"]) == EXIT_USAGE
    assert "--retry-failed" in capsys.readouterr().err


def test_serve_serves_the_flow_with_the_runner_of_its_settings(tmp_path):
    """A served run runs the flow object ``seams serve`` hands Prefect: with ``--runner dask`` that
    object must carry the Dask task runner, or the runs cut without Dask."""
    pytest.importorskip("prefect_dask")
    from prefect_dask import DaskTaskRunner

    from flows.app import cli
    from flows.app.serve import deployment, run_parameters
    from flows.ingest.flow import ingest_flow

    args = build_parser().parse_args(["serve", str(tmp_path), "--every", "10m", "--runner", "dask", "--workers", "3"])
    settings = cli._settings(args)
    flow, options = deployment(args.paths, settings, None, None)
    assert isinstance(flow.task_runner, DaskTaskRunner) and flow.name == ingest_flow.name
    assert flow.task_runner.cluster_kwargs["n_workers"] == 3
    assert options["parameters"] == run_parameters(args.paths, settings)[0]
    local, _ = deployment(args.paths, settings.model_copy(update={"runner": "local"}), None, None)
    assert local is ingest_flow


@pytest.mark.parametrize("command", ["ingest", "serve"])
def test_a_runner_whose_extra_is_missing_fails_before_any_server_or_file(command, tmp_path, monkeypatch, capsys):
    """``--runner dask`` without the dask extra is a usage error at once: not after ``serve`` has
    started a Prefect server, nor after ``ingest`` has waited for one."""
    from flows.app import server

    monkeypatch.setitem(sys.modules, "prefect_dask", None)  # as if the extra were not installed
    monkeypatch.delenv("PREFECT_API_URL", raising=False)

    def no_server(*args, **kwargs):
        raise AssertionError("a server was asked for")

    monkeypatch.setattr(server, "local_server", no_server)
    monkeypatch.setattr(server, "one_off_api", no_server)
    monkeypatch.setattr(server, "start_early", lambda: None)
    (tmp_path / "a.md").write_text("# 제목\n\n본문", encoding="utf-8")
    when = ["--every", "10m"] if command == "serve" else []
    code = main([command, str(tmp_path), *when, "--runner", "dask", "--db", str(tmp_path / "db")])
    assert code == EXIT_USAGE
    assert "pip install 'seams[dask]'" in capsys.readouterr().err
    assert not (tmp_path / "db").exists()


def test_seams_own_errors_share_one_root_and_reports_one_table_writer():
    """Issue #14: the server's error sat outside the root of seams' errors, and two Markdown table
    writers (evaluation report, ingest artifact) were written apart."""
    from flows.app.server import ServerError
    from flows.errors import SeamsError, UsageError
    from flows.markdown import table

    assert issubclass(ServerError, SeamsError) and issubclass(UsageError, SeamsError)
    assert table(["action", "files"], [("added", 2), ("a|b", 0)]).splitlines() == [
        "| action | files |", "|---|---:|", "| added | 2 |", "| a\\|b | 0 |"]


@pytest.mark.parametrize(("argv", "usage", "hint"), [
    (["ingest", ".", "--dbb", "x"], "usage: seams ingest ", "unrecognized arguments: --dbb x; did you mean --db?"),
    (["ingest", ".", "--embeder=hashing"], "usage: seams ingest ", "did you mean --embedder?"),
    (["search", "q", "--workers", "2"], "usage: seams search ", "--workers is a flag of ingest, serve"),
    # another command's flag is named as such, not taken for a typo of a near one (--embed-url)
    (["search", "q", "--embedder", "e5-small"], "usage: seams search ",
     "--embedder is a flag of ingest, serve, evaluate (search embeds the question with the embedder the knowledge base"),
    (["ingset", "."], "usage: seams [-h] COMMAND", "invalid choice: 'ingset'"),
])
def test_a_mistyped_flag_or_command_gets_a_suggestion_and_its_command_usage(argv, usage, hint, capsys):
    """Issue #37: a mistyped flag printed the top-level usage ("seams [-h] COMMAND ...") and no hint."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == EXIT_USAGE and err.startswith(usage) and hint in err, err
    if argv[0] == "ingset":
        assert err.rstrip().endswith("did you mean 'ingest'?"), err


def test_a_budget_that_cannot_hold_is_a_usage_error(tmp_path, capsys):
    """--max-tokens under the default --min-tokens crashed the run at its first cut (exit 4, tracebacks)."""
    (tmp_path / "a.txt").write_text("x")
    assert main(["ingest", str(tmp_path), "--max-tokens", "5", "--db", str(tmp_path / "db")]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "budget must satisfy" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "db").exists()
