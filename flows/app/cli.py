"""The ``seams`` command line.

Exit codes: 0 all good (files that failed at an earlier run and did not change since are counted in
the summary, not in the code); 1 files failed in this run (the rest were indexed; the run is
``Failed`` in Prefect too), or the embedder's endpoint failed a search; 2 usage error (bad arguments,
missing paths, unknown names, no such database or knowledge base); 3 no Prefect server could be
started (nothing was run); 4 internal error (a crash: out of memory, a failed write, a bug — one line,
the traceback with ``SEAMS_DEBUG=1``); 5 another ingest of the knowledge base kept it longer than
``SEAMS_LOCK_WAIT_S`` (nothing was changed); 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from flows.environment import apply_defaults
from flows.errors import EmbedderError, KnowledgeBaseBusy, UsageError

if TYPE_CHECKING:
    from flows.settings import Settings

EXIT_OK, EXIT_SOME_FAILED, EXIT_USAGE, EXIT_NO_SERVER, EXIT_INTERNAL, EXIT_BUSY = 0, 1, 2, 3, 4, 5
#: The exit codes as this module's docstring gives them, for ``seams ingest --help``.
_EXIT_CODES = " ".join((__doc__ or "\n\n").split("\n\n")[1].split()).replace("``", "")  # none under -OO
#: Commands that run a flow in this process (and so need a Prefect API).
FLOW_COMMANDS = ("ingest", "evaluate")


def _settings(args: argparse.Namespace):
    """Settings from the environment, overridden by each flag given: every Settings field is read from
    the flag of its name (``--max-tokens`` sets ``max_tokens``) or the one :data:`_FLAG_OF` names."""
    from flows.settings import Settings

    overrides = {}
    for name in Settings.model_fields:
        flag = _FLAG_OF.get(name, name)
        value = getattr(args, flag, None)
        if value is not None:  # a flag not given leaves the environment's value (SEAMS_*) or the default
            overrides[name] = _SHAPE[flag](value) if flag in _SHAPE else value
    settings = Settings(**overrides)
    try:
        settings.budget  # noqa: B018 - min < max <= merge ceiling: else the run crashed at its first cut
    except ValueError as exc:
        raise UsageError(f"{exc} (--min-tokens, --max-tokens, --merge-ceiling)") from None
    return settings


def _glob_strategies(items: list[str]) -> dict[str, str]:
    pairs = {}
    for item in items:
        glob, _, strategy = item.partition("=")
        if not strategy:
            raise UsageError(f"--override wants GLOB=STRATEGY, got {item!r}")
        pairs[glob] = strategy
    return pairs


#: The flags whose name is not the setting's: a repeatable flag is singular, its setting plural.
_FLAG_OF = {"disabled_rules": "disable_rule", "rule_strategies": "rule_strategy", "overrides": "override",
            "budgets": "budget"}
#: How a repeatable flag's list of values becomes its setting.
_SHAPE = {
    "disable_rule": list,
    "rule_strategy": lambda items: dict(_pair(item, "--rule-strategy", "RULE=STRATEGY") for item in items),
    "override": _glob_strategies,
    "budget": lambda items: dict(_strategy_budget(item) for item in items),
}


def _strategy_budget(item: str) -> tuple[str, str]:
    strategy, sep, spec = item.partition(":")
    if not sep or not strategy.strip() or not spec.strip():
        raise UsageError(f"--budget wants STRATEGY:KEY=VALUE[,KEY=VALUE] (e.g. sheet:pack=250), got {item!r}")
    return strategy.strip(), spec.strip()
#: The settings with no flag: their ``SEAMS_*`` environment variables set them.
ENV_ONLY_SETTINGS = frozenset({"embed_threads", "embed_batch", "embed_group_vectors", "embed_plain_cells", "label_rows",
                               "embed_key_env", "embed_concurrency", "embed_batch_tokens", "embed_timeout_s",
                               "embed_retries",
                               "passage_tokens", "max_file_mb", "max_text_chars", "file_timeout_s", "batch_files",
                               "ocr", "ocr_command", "ocr_languages", "ocr_second_languages", "ocr_dpi", "ocr_psm",
                               "ocr_max_pages", "ocr_min_confidence", "lock_wait_s"})
#: Settings of searching, not of indexing: flags of ``seams search`` and ``seams evaluate``, not of ``ingest``.
SEARCH_SETTINGS = frozenset({"vector_weight", "vector_seat", "title_weight"})
TITLE_WEIGHT_HELP = ("in vector search, how much the question's similarity with a document's title (its file "
                     "name's words) adds to each of its chunks' (default 0.2, measured; 0: none; env "
                     "SEAMS_TITLE_WEIGHT)")
VECTOR_WEIGHT_HELP = ("in hybrid, how much a vector rank counts against a full-text rank (default 0.02, 0 for "
                      "e5-small: full text leads, measured; 1: equal weights; env SEAMS_VECTOR_WEIGHT)")
VECTOR_SEAT_HELP = ("in hybrid, the place the vector ranking's best chunk is moved up to when ranked lower (default 0: "
                    "none, 3 for e5-small, measured; --vector-weight does not change it; env SEAMS_VECTOR_SEAT)")


def _pair(item: str, flag: str, shape: str) -> tuple[str, str]:
    key, _, value = item.partition("=")
    if not key or not value:
        raise UsageError(f"{flag} wants {shape}, got {item!r}")
    return key, value


EMBEDDER_HELP = ("embedder specification: use-multilingual (default), e5-small, minilm, hashing, openai:MODEL, "
                 "sentence-transformers:PATH, options after '?', e.g. openai:MODEL?input_type=query,passage "
                 "(env SEAMS_EMBEDDER); a knowledge base remembers its own, so leave it out after the first ingest")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", help="LanceDB directory or URI (default: .seams/lancedb, env SEAMS_DB)")
    parser.add_argument("--kb", help="knowledge base name (default: default, env SEAMS_KB)")
    parser.add_argument("--embedder", help=EMBEDDER_HELP)
    parser.add_argument("--embed-url", help="endpoint of an openai:MODEL embedder, e.g. http://127.0.0.1:8000/v1 "
                        "(env SEAMS_EMBED_URL; the key comes from OPENAI_API_KEY or the variable SEAMS_EMBED_KEY_ENV "
                        "names)")


def _cutting(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strategy", help="force a strategy for every file: page, section, sheet, slide, "
                        "whole, general, or a baseline tokens:SIZE/OVERLAP, recursive:SIZE/OVERLAP, none (each "
                        "file one chunk); strategies that embed to cut, with the knowledge base's embedder: "
                        "semantic:MAX, cluster:MAX, adaptive (the best-scoring of several cuts)")
    parser.add_argument("--override", action="append", metavar="GLOB=STRATEGY",
                        help="force a strategy for files matching GLOB (repeatable)")
    parser.add_argument("--disable-rule", action="append", metavar="RULE",
                        help="skip a classifier rule (repeatable; `seams rules` lists them)")
    parser.add_argument("--rule-strategy", action="append", metavar="RULE=STRATEGY",
                        help="make a classifier rule pick another strategy (repeatable)")
    parser.add_argument("--min-tokens", type=int, help="merge chunks under this (default 100)")
    parser.add_argument("--max-tokens", type=int, help="split chunks over this (default 1100)")
    parser.add_argument("--merge-ceiling", type=int, help="merges stop at this size (default 1150)")
    parser.add_argument("--pack-tokens", type=int,
                        help="put whole sibling sections, paragraphs, sheet rows and the pieces of what is over "
                        "the max together up to this (default 500)")
    parser.add_argument("--budget", action="append", metavar="STRATEGY:KEY=VALUE[,KEY=VALUE]",
                        help="sizes for the files cut with one strategy, e.g. sheet:pack=250 or "
                        "section:max=800,pack=600 (keys min, max, ceiling, pack; repeatable; `seams evaluate "
                        "--recommend` measures them)")
    parser.add_argument("--embed-heading-path", action=argparse.BooleanOptionalAction, default=None,
                        help="prefix the heading path to the text that is embedded")


def _running(parser: argparse.ArgumentParser, retry_failed: str) -> None:
    """The flags of an ingest run: ``seams ingest`` and each run of ``seams serve``."""
    parser.add_argument("--workers", type=int, help="parallel parser processes (default: CPU cores)")
    parser.add_argument("--runner", help="task runner: local (default), dask (a local cluster of processes) "
                        "or dask:ADDRESS (an existing Dask scheduler); needs the dask extra")
    # default None, like every flag of a setting: a flag not given leaves SEAMS_ALLOW_MASS_DELETE etc. in force
    parser.add_argument("--allow-mass-delete", action="store_true", default=None,
                        help="let an empty or missing folder remove all of its indexed files")
    parser.add_argument("--retry-failed", action="store_true", default=None, help=retry_failed)


class _Parser(argparse.ArgumentParser):
    """argparse with a suggestion for a mistyped command or flag (Python 3.14's ``suggest_on_error``
    covers choices only; this Python may be older): the usage printed is the subcommand's own."""

    def error(self, message: str):
        import difflib
        import re

        found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if found and "maybe you meant" not in message:
            choices = re.findall(r"'([^']*)'", found.group(2))
            close = difflib.get_close_matches(found.group(1), choices, n=1, cutoff=0.5)
            message += f"; did you mean {close[0]!r}?" if close else ""
        super().error(message)

    def parse_args(self, args=None, namespace=None):
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = self._subcommands().get(getattr(parsed, "command", None) or "", self)
            command.error(f"unrecognized arguments: {' '.join(extras)}{self._flag_hint(command, extras)}")
        return parsed

    def _subcommands(self) -> dict[str, argparse.ArgumentParser]:
        return next((dict(a.choices) for a in self._actions if isinstance(a, argparse._SubParsersAction)), {})

    def _flag_hint(self, command: argparse.ArgumentParser, extras: list[str]) -> str:
        """For the first unknown flag: the commands that take it when it is another command's flag
        (checked first: ``search --embedder`` is no typo of ``--embed-url``), else '; did you mean
        --db?' when it is close to one of the command's."""
        import difflib

        flags = [s for a in command._actions for s in a.option_strings]
        for extra in (e.split("=", 1)[0] for e in extras if e.startswith("-")):
            elsewhere = [name for name, other in self._subcommands().items()
                         if any(extra in a.option_strings for a in other._actions)]
            if elsewhere:
                why = _NOT_HERE.get((command.prog.split()[-1], extra), "")
                return f"; {extra} is a flag of {', '.join(elsewhere)}{why}"
            close = difflib.get_close_matches(extra, flags, n=1, cutoff=0.6)
            if close:
                return f"; did you mean {close[0]}?"
        return ""


#: Why a command lacks another command's flag, where a user would expect it.
_NOT_HERE = {("search", "--embedder"): " (search embeds the question with the embedder the knowledge base was "
                                       "built with; another one needs its own --kb, ingested with it)"}


def build_parser() -> _Parser:
    parser = _Parser(
        prog="seams",
        description="Cut documents at their own seams (pages, sections, sheets, slides) and load the "
        "chunks into LanceDB, as Prefect flows.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ingest = sub.add_parser("ingest", help="index folders/files into a knowledge base (incremental)",
                            description="Index folders of mixed files. Re-running only re-indexes what changed. "
                            "One ingest of a knowledge base at a time: another one waits for it (up to "
                            "SEAMS_LOCK_WAIT_S seconds, default 3600), then indexes what is still to do.",
                            epilog=_EXIT_CODES)
    ingest.add_argument("paths", nargs="+", help="folders or files to index")
    _common(ingest)
    _cutting(ingest)
    _running(ingest, retry_failed="try files that failed again even if they did not change (e.g. after raising "
             "SEAMS_FILE_TIMEOUT_S); otherwise a failed file is retried once it changes")
    ingest.add_argument("--json", action="store_true", help="print the report as JSON")
    ingest.set_defaults(run=cmd_ingest)

    inspect = sub.add_parser("inspect", help="show how one file is classified and cut (writes nothing)",
                             description="Show how one file is read, classified and cut: the strategy and the rule "
                             "that chose it, the facts it saw, and each chunk with its tokens, locator and rows. "
                             "Writes nothing.")
    inspect.add_argument("file", help="the file to inspect (any format seams reads)")
    _cutting(inspect)
    inspect.add_argument("--full", action="store_true", help="print whole chunk texts")
    inspect.add_argument("--chunk", type=int, metavar="N", help="print chunk N in full (negative counts from the end)")
    inspect.add_argument("--json", action="store_true", help="print the decision and chunks as JSON")
    inspect.add_argument("--embedded", action="store_true", help="show each chunk as it is embedded (table rows "
                         "with their columns' labels, SEAMS_LABEL_ROWS) rather than as a search shows it, and "
                         "the passages embedded beside it (SEAMS_PASSAGE_TOKENS)")
    inspect.set_defaults(run=cmd_inspect)

    search = sub.add_parser(
        "search", help="query a knowledge base",
        description="Rank a knowledge base's chunks for a question. The question is embedded with the "
        "embedder the knowledge base was built with (it records it); SEAMS_EMBEDDER naming another is refused.")
    search.add_argument("query", help="the question or words to look for (Korean, English or mixed)")
    search.add_argument("-k", type=int, default=5, help="how many chunks (default 5)")
    search.add_argument("--mode", help="hybrid (default: the full-text order, the vector ranking breaking near-ties and "
                        "filling in; with e5-small, its best chunk seated third), fts (BM25 full text: words for "
                        "Latin-script queries, character n-grams otherwise, e.g. Korean) or vector (embeddings)")
    search.add_argument("--vector-weight", type=float, metavar="W", help=VECTOR_WEIGHT_HELP)
    search.add_argument("--vector-seat", type=int, metavar="N", help=VECTOR_SEAT_HELP)
    search.add_argument("--title-weight", type=float, metavar="W", help=TITLE_WEIGHT_HELP)
    search.add_argument("--db", help="LanceDB directory or URI (default: .seams/lancedb, env SEAMS_DB)")
    search.add_argument("--kb", help="knowledge base name (default: default, env SEAMS_KB)")
    search.add_argument("--embed-url", help="the endpoint of its openai:MODEL embedder, when it moved since the "
                        "knowledge base recorded it (env SEAMS_EMBED_URL)")
    search.add_argument("--json", action="store_true", help="stable machine-readable output")
    search.set_defaults(run=cmd_search)
    serve = sub.add_parser(
        "serve", help="index folders on a schedule (a Prefect deployment; starts a local server if needed)",
        description="Serve the ingest flow on a schedule. Each run re-indexes only what changed. With no "
        "PREFECT_API_URL set, a local Prefect server is started (its dashboard comes with it).")
    serve.add_argument("paths", nargs="+", help="folders or files to index")
    when = serve.add_mutually_exclusive_group(required=True)
    when.add_argument("--every", help="interval, e.g. 30s, 10m, 2h, 1d")
    when.add_argument("--cron", help='cron schedule, e.g. "*/15 * * * *"')
    serve.add_argument("--no-run-now", action="store_true", help="wait for the schedule instead of running at once")
    serve.add_argument("--port", type=int, default=4200, help="port of the local Prefect server (default 4200)")
    _common(serve)
    _cutting(serve)
    _running(serve, retry_failed="in the run started at once, try files that failed again even if they did not "
             "change (e.g. after raising SEAMS_FILE_TIMEOUT_S); scheduled runs retry a failed file once it changes")
    serve.set_defaults(run=cmd_serve)

    dashboard = sub.add_parser("dashboard", help="start the Prefect server and dashboard in the foreground",
                               description="Start a local Prefect server with its dashboard. Then, in other "
                               "terminals, export PREFECT_API_URL=http://127.0.0.1:PORT/api and every seams run "
                               "(ingest, serve, evaluate) shows up there.")
    dashboard.add_argument("--port", type=int, default=4200)
    dashboard.set_defaults(run=cmd_dashboard)

    ui = sub.add_parser("ui", help="a local read-only web page: knowledge bases, files, chunks, search, runs",
                        description="Serve a read-only page over a seams database: each knowledge base's files "
                        "with how they were cut, a file's chunks (and another strategy's cut beside them), search in "
                        "one or two modes, the last ingests.")
    ui.add_argument("--db", help="LanceDB directory (default: .seams/lancedb, env SEAMS_DB)")
    ui.add_argument("--kb", help="knowledge base opened first (default: default, env SEAMS_KB)")
    ui.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    ui.add_argument("--port", type=int, default=8300, help="port (default 8300)")
    ui.set_defaults(run=cmd_ui)

    rules = sub.add_parser("rules", help="list the classifier rules in the order they are tried",
                           description="The rules that choose a file's boundary strategy, strongest signal first. "
                           "Use their names with --disable-rule and --rule-strategy.")
    rules.set_defaults(run=cmd_rules)

    evaluate = sub.add_parser(
        "evaluate", help="score chunking configurations × retrieval modes on questions with known evidence",
        description="Cut a collection with seams' document-aware default, your variants and fixed-size "
        "baselines; write each into its own LanceDB table; retrieve every question (vector, full-text, "
        "hybrid) and score against the gold excerpts. Writes report.md, CSVs and a plot.")
    data = evaluate.add_mutually_exclusive_group(required=True)
    data.add_argument("--chroma", metavar="DIR", help="a Chroma-format benchmark (corpora/*.md + questions_df.csv)")
    data.add_argument("--folder", metavar="DIR", help="a folder of files (needs --questions)")
    evaluate.add_argument("--questions", metavar="JSONL",
                          help='with --folder: lines of {"question": ..., "file": ..., "evidence": [...]}')
    evaluate.add_argument("--k", "-k", type=int, default=5, help="chunks retrieved per question (default 5)")
    evaluate.add_argument("--modes", help="comma-separated retrieval modes (default: all, vector,fts,hybrid)")
    evaluate.add_argument("--configs", help="comma-separated configurations (default: seams and the baselines "
                          "tokens:200/0, tokens:250/125, tokens:400/0, tokens:800/400, recursive:200/0, "
                          "recursive:400/0, none); also semantic:MAX, cluster:MAX, adaptive, cut with the embedder; "
                          "peers, each parsing and chunking its own way: peer:langchain, "
                          "peer:llamaindex, peer:unstructured, peer:chonkie (pip install 'seams[peers]')")
    evaluate.add_argument("--variant", action="append", metavar="KEY=VALUE[,KEY=VALUE]",
                          help="a variant of seams' default, e.g. max=400 or heading=on or strategy=section,max=600 "
                          "(forced for every file) or only=sheet,pack=250 (the budget only for the files the "
                          "classifier cuts as sheets) (keys: max, min, ceiling, pack, heading, cells=plain|piped, "
                          "strategy, only; repeatable)")
    evaluate.add_argument("--budget", action="append", metavar="STRATEGY:KEY=VALUE[,KEY=VALUE]",
                          help="also score seams' default with these sizes for one strategy's files, as "
                          "`seams ingest --budget` takes them (repeatable)")
    evaluate.add_argument("--recommend", action="store_true",
                          help="sweep the sizes of each strategy the classifier picks on this folder, score them on "
                          "the questions of that strategy's files, and print the winners as `seams ingest` flags")
    evaluate.add_argument("--out", help="report folder (default reports/evaluate-DATASET-EMBEDDER)")
    # A default of its own, unlike every other flag of a setting: the evaluation never writes into SEAMS_DB.
    evaluate.add_argument("--db", default=".seams/evaluate",
                          help="evaluation LanceDB directory, keeps the embedding cache (default .seams/evaluate)")
    evaluate.add_argument("--embedder", help="embedder for every configuration: " + EMBEDDER_HELP.split(": ", 1)[1])
    evaluate.add_argument("--embed-url", help="endpoint of an openai:MODEL embedder (env SEAMS_EMBED_URL)")
    evaluate.add_argument("--vector-weight", type=float, metavar="W", help=VECTOR_WEIGHT_HELP)
    evaluate.add_argument("--vector-seat", type=int, metavar="N", help=VECTOR_SEAT_HELP)
    evaluate.add_argument("--title-weight", type=float, metavar="W", help=TITLE_WEIGHT_HELP)
    evaluate.add_argument("--limit", type=int, help="score only the first N questions (a quick look)")
    evaluate.add_argument("--no-cohesion", dest="cohesion", action="store_false",
                          help="do not measure cohesion and coherence: they embed every document's ~50-token "
                          "pieces, with a slow or paid embedder most of the evaluation's embedding (retrieval "
                          "scores do not change)")
    evaluate.set_defaults(run=cmd_evaluate)
    return parser


def main(argv: list[str] | None = None) -> int:
    from pydantic import ValidationError

    from flows.app.server import ServerError, start_early, stop_early

    apply_defaults()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in FLOW_COMMANDS:
        start_early()  # a temporary Prefect server, if one will be needed, boots while the command loads
    try:
        return args.run(args)
    except ServerError as exc:
        print(f"seams: error: {exc}", file=sys.stderr)
        return EXIT_NO_SERVER
    except ValidationError as exc:
        print(f"seams: error: {_validation_message(exc, parser)}", file=sys.stderr)
        return EXIT_USAGE
    except UsageError as exc:
        print(f"seams: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KnowledgeBaseBusy as exc:
        print(f"seams: error: {exc}", file=sys.stderr)
        return EXIT_BUSY
    except EmbedderError as exc:  # a search or evaluation whose embedder failed (an ingest fails its files)
        hint = " (is its server running? full-text search needs no embedder: --mode fts)" if args.command == "search" else ""
        print(f"seams: error: the embedder failed: {exc}{hint}", file=sys.stderr)
        return EXIT_SOME_FAILED
    except KeyboardInterrupt:
        print("seams: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        return _internal_error(exc)
    finally:
        stop_early()


def _internal_error(exc: BaseException) -> int:
    import os
    import traceback

    if os.environ.get("SEAMS_DEBUG", "") not in ("", "0"):
        traceback.print_exception(exc)
    message = " ".join(str(exc).split())[:300] or "(no message)"
    hint = "" if os.environ.get("SEAMS_DEBUG", "") not in ("", "0") else " (SEAMS_DEBUG=1 shows the traceback)"
    print(f"seams: internal error: {type(exc).__name__}: {message}{hint}", file=sys.stderr)
    return EXIT_INTERNAL


def _require_runner(settings: Settings) -> None:
    """A runner whose optional extra is missing is a usage error before any server starts or file
    is read. Only looked up, not imported: importing Prefect's modules before ``serve`` has set
    ``PREFECT_API_URL`` would fix their settings on no server."""
    import importlib.util

    if settings.runner == "local":
        return
    try:
        found = importlib.util.find_spec("prefect_dask") is not None
    except (ImportError, ValueError):  # ValueError: a module in sys.modules without a spec
        found = False
    if not found:
        raise UsageError("the dask runner needs the optional extra: pip install 'seams[dask]'")


def _require_db_location(db: str) -> None:
    """A new database is made with its missing parent folders by the run's first step: under a file
    (``--db /dev/null/db``) or in a folder seams may not write, that was a crash with a traceback.
    Checked by the commands that write (``inspect`` and ``search`` only read, and may run where
    the default ``.seams/`` cannot be made)."""
    import os

    if "://" in db or Path(db).expanduser().exists():
        return
    above = Path(db).expanduser().absolute().parent
    while not above.exists():
        above = above.parent
    if not above.is_dir():
        raise UsageError(f"cannot make a database at {db}: {above} is not a folder")
    if not os.access(above, os.W_OK | os.X_OK):
        raise UsageError(f"cannot make a database at {db}: no permission to write in {above}")


def _require_same_embedder(settings: Settings) -> None:
    """An ingest naming another embedder than the knowledge base's is a usage error before any server
    starts or file is read (the flow checks again, under the knowledge base's lock)."""
    if "://" not in settings.db and not Path(settings.db).expanduser().is_dir():
        return  # a new database: connecting would create it before the run
    from flows.index.store import Store

    settings.with_recorded_embedder(Store(settings.db, settings.kb).recorded_embedder())


def _require_paths(paths: list[str]) -> None:
    """Every local path exists and every URI's scheme has its extra installed (s3:// needs ``s3``)."""
    from flows.ingest.sources import is_uri, require

    missing = [p for p in paths if not is_uri(p) and not Path(p).exists()]
    if missing:
        raise UsageError(f"no such file or folder: {', '.join(missing)}")
    for uri in (p for p in paths if is_uri(p)):
        require(uri)


def cmd_ingest(args: argparse.Namespace) -> int:
    from flows.app import console

    _require_paths(args.paths)
    settings = _settings(args)  # a bad setting is a usage error, said by main()
    from flows.app.server import one_off_api

    _require_runner(settings)
    _require_db_location(settings.db)
    _require_same_embedder(settings)
    _ocr_note(args.paths, settings)
    with one_off_api():
        report = console.ingest_with_progress([str(p) for p in args.paths], settings, as_json=args.json)
    return EXIT_SOME_FAILED if report.new_failures else EXIT_OK  # as the run's state: stale failures are not new


#: Image names the OCR note at the start of ``seams ingest`` looks for, and how many entries it looks at.
_IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".webp"})
_NOTE_SCAN_LIMIT = 20_000


def _ocr_note(paths: list[str], settings) -> None:
    """Say at the start, once, when the folder holds images and OCR cannot read them (each such file
    also fails with kind ``no_ocr`` and the same hint). Scanned PDFs are known only once parsed."""
    import itertools
    import os

    from parsers.ocr import unavailable_reason

    reason = unavailable_reason(settings.ocr_options())
    if reason is None or not settings.ocr:  # turned off on purpose: nothing to tell
        return

    def names():
        for path in paths:
            if os.path.isfile(path):
                yield path
            for _, _, files in os.walk(path):
                yield from files

    images = sum(1 for name in itertools.islice(names(), _NOTE_SCAN_LIMIT) if Path(name).suffix.lower() in _IMAGE_SUFFIXES)
    if images:
        print(f"seams: note: {images} image file(s) found, but {reason}. Images and scanned PDF pages are not "
              "read until then (they fail with kind no_ocr)", file=sys.stderr)


def cmd_inspect(args: argparse.Namespace) -> int:
    from flows.app import console

    path = Path(args.file)
    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    return console.inspect_file(path, _settings(args), full=args.full, as_json=args.json, chunk=args.chunk,
                                embedded=args.embedded)


def cmd_search(args: argparse.Namespace) -> int:
    from flows.app import console
    from flows.index.search import DEFAULT_MODE, search

    settings = _settings(args)
    mode = args.mode or DEFAULT_MODE
    hits = search(settings, args.query, k=args.k, mode=mode)  # an unknown mode is a usage error there
    if args.json:
        print(json.dumps({"query": args.query, "mode": mode, "kb": settings.kb, "hits": hits},
                         ensure_ascii=False, indent=2, default=str))
    else:
        from flows.index.store import Store

        console.print_hits(hits, None if hits else Store(settings.db, settings.kb).count(), query=args.query)
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    import os

    from flows.app.serve import parse_every, serve_folders
    from flows.app.server import dashboard_url, local_server

    _require_paths(args.paths)
    every = parse_every(args.every) if args.every else None
    if args.retry_failed and args.no_run_now:
        raise UsageError("--retry-failed is for the run started at once; it cannot go with --no-run-now")
    settings = _settings(args)
    _require_runner(settings)
    _require_db_location(settings.db)
    # Served runs happen in the background: show their start/finish and summary lines (not task states).
    os.environ.setdefault("PREFECT_LOGGING_LOGGERS_PREFECT_FLOW_RUNS_LEVEL", "INFO")
    schedule = f"every {args.every.strip()}" if every else f"on cron {args.cron!r}"
    if os.environ.get("PREFECT_API_URL"):
        from prefect.settings import get_current_settings

        # The dashboard's address (PREFECT_UI_URL, else the API's without /api), not the API's
        ui_url = get_current_settings().ui_url or dashboard_url(os.environ["PREFECT_API_URL"])
        print(f"seams: dashboard at {ui_url} — indexing {', '.join(args.paths)} {schedule} into "
              f"{settings.db_location()} (kb {settings.kb}); Ctrl-C stops", file=sys.stderr)
        serve_folders(args.paths, settings, every, args.cron, run_now=not args.no_run_now)
        return EXIT_OK
    log_path = str(Path(settings.db_location()).parent / "prefect-server.log") if "://" not in settings.db else None
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    print("seams: starting a local Prefect server (schedules do not run on a temporary one)…", file=sys.stderr)
    with local_server(args.port, log_path=log_path) as api_url:
        os.environ["PREFECT_API_URL"] = api_url
        print(f"seams: dashboard at {dashboard_url(api_url)} — indexing {', '.join(args.paths)} {schedule} "
              f"into {settings.db_location()} (kb {settings.kb}); Ctrl-C stops", file=sys.stderr)
        serve_folders(args.paths, settings, every, args.cron, run_now=not args.no_run_now)
    return EXIT_OK


def cmd_dashboard(args: argparse.Namespace) -> int:
    import os

    from flows.app.server import api_healthy

    api_url = f"http://127.0.0.1:{args.port}/api"
    if api_healthy(api_url):
        print(f"seams: a Prefect server already answers at {api_url}; dashboard: http://127.0.0.1:{args.port}")
        return EXIT_OK
    print(f"seams: starting the Prefect server; dashboard at http://127.0.0.1:{args.port}\n"
          f"       in other terminals: export PREFECT_API_URL={api_url}", file=sys.stderr)
    os.environ.setdefault("PREFECT_UI_API_URL", api_url)  # the UI assumes port 4200 unless told
    os.execv(sys.executable, [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1",
                              "--port", str(args.port), "--analytics-off", "--no-prompt"])
    return EXIT_OK  # pragma: no cover - execv does not return


def cmd_evaluate(args: argparse.Namespace) -> int:
    from flows.app.evaluation import run_evaluate
    from flows.evaluate.configs import configurations

    source, path = ("chroma", args.chroma) if args.chroma else ("folder", args.folder)
    if not Path(path).is_dir():
        raise UsageError(f"no such folder: {path}")
    if source == "folder" and not args.questions:
        raise UsageError("--folder needs --questions FILE.jsonl")
    if args.questions and not Path(args.questions).is_file():
        raise UsageError(f"no such questions file: {args.questions}")
    configs = [c for c in args.configs.split(",") if c.strip()] if args.configs else None
    from flows.evaluate.results import Options
    from flows.index.search import MODES

    configurations(configs, args.variant)  # unknown names are usage errors, before any work
    if args.recommend and source != "folder":
        raise UsageError("--recommend needs --folder and --questions: it sweeps the strategies the classifier "
                         "picks on your own files")
    modes = list(MODES) if args.modes is None else [m.strip() for m in args.modes.split(",") if m.strip()]
    settings = _settings(args)
    Options(k=args.k, modes=tuple(modes), settings=settings)
    from flows.app.server import one_off_api

    _require_runner(settings)
    _require_db_location(settings.db)
    with one_off_api():
        if args.recommend:
            from flows.app.evaluation import run_recommend

            run_recommend(path, args.questions, args.k, modes, settings, args.out, args.limit, args.cohesion)
        else:
            run_evaluate(source, path, args.questions, configs, args.variant, args.k, modes, settings, args.out,
                         args.limit, cohesion=args.cohesion)
    return EXIT_OK


def cmd_ui(args: argparse.Namespace) -> int:
    from flows.app.ui import serve

    serve(_settings(args), args.host, args.port)
    return EXIT_OK


def cmd_rules(args: argparse.Namespace) -> int:
    from classifiers import DEFAULT_RULES

    width = max(len(rule.name) for rule in DEFAULT_RULES)
    for number, rule in enumerate(DEFAULT_RULES, start=1):
        print(f"{number:2}. {rule.name:{width}}  -> {rule.strategy}")
    return EXIT_OK


def _validation_message(exc, parser: _Parser) -> str:
    """A setting's validation error as a user can act on it: the setting, the flag (one of ``parser``'s
    commands') and environment variable that set it, pydantic's reason and the value given, e.g.
    ``vector_weight (--vector-weight, SEAMS_VECTOR_WEIGHT): Input should be greater than or equal to 0
    (got -1.0)``."""
    from flows.settings import Settings

    flags = {flag for command in parser._subcommands().values() for action in command._actions
             for flag in action.option_strings}
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        field = str(error["loc"][0]) if error["loc"] else ""
        flag = f"--{_FLAG_OF.get(field, field).replace('_', '-')}"
        names = [flag] if flag in flags else []
        if field in Settings.model_fields:
            names.append(f"SEAMS_{field.upper()}")
        given = error.get("input")
        got = f" (got {given!r})" if isinstance(given, (int, float, str)) and not isinstance(given, bool) else ""
        label = f"{where} ({', '.join(names)})" if names else where
        parts.append(f"{label}: {message}{got}" if where else message)
    return "; ".join(parts)


if __name__ == "__main__":
    raise SystemExit(main())
