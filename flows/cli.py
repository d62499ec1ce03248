"""The ``seams`` command line.

Exit codes: 0 all good; 1 some files failed (the rest were indexed); 2 usage error (bad arguments,
missing paths, unknown names).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from flows.environment import apply_defaults

EXIT_OK, EXIT_SOME_FAILED, EXIT_USAGE = 0, 1, 2


def _settings(args: argparse.Namespace):
    from flows.settings import Settings

    overrides = {}
    for name in ("db", "kb", "embedder", "strategy", "min_tokens", "max_tokens", "merge_ceiling", "workers"):
        value = getattr(args, name, None)
        if value is not None:
            overrides[name] = value
    if getattr(args, "allow_mass_delete", False):
        overrides["allow_mass_delete"] = True
    if getattr(args, "embed_heading_path", None) is not None:
        overrides["embed_heading_path"] = args.embed_heading_path
    if getattr(args, "override", None):
        pairs = {}
        for item in args.override:
            glob, _, strategy = item.partition("=")
            if not strategy:
                raise ValueError(f"--override wants GLOB=STRATEGY, got {item!r}")
            pairs[glob] = strategy
        overrides["overrides"] = pairs
    if getattr(args, "max_tokens", None) is not None and getattr(args, "merge_ceiling", None) is None:
        overrides["merge_ceiling"] = max(args.max_tokens, round(args.max_tokens * 1150 / 1100))
    return Settings(**overrides)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", help="LanceDB directory or URI (default: .seams/lancedb, env SEAMS_DB)")
    parser.add_argument("--kb", help="knowledge base name (default: default, env SEAMS_KB)")
    parser.add_argument("--embedder", help="embedder name: use-multilingual (default), minilm, hashing")


def _cutting(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strategy", help="force a strategy for every file: page, section, sheet, slide, "
                        "whole, general, or a baseline tokens:SIZE/OVERLAP, recursive:SIZE/OVERLAP, none")
    parser.add_argument("--override", action="append", metavar="GLOB=STRATEGY",
                        help="force a strategy for files matching GLOB (repeatable)")
    parser.add_argument("--min-tokens", type=int, help="merge chunks under this (default 100)")
    parser.add_argument("--max-tokens", type=int, help="split chunks over this (default 1100)")
    parser.add_argument("--merge-ceiling", type=int, help="merges stop at this size (default 1150)")
    parser.add_argument("--embed-heading-path", action=argparse.BooleanOptionalAction, default=None,
                        help="prefix the heading path to the text that is embedded")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="seams",
        description="Cut documents at their own seams (pages, sections, sheets, slides) and load the "
        "chunks into LanceDB, as Prefect flows.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ingest = sub.add_parser("ingest", help="index folders/files into a knowledge base (incremental)",
                            description="Index folders of mixed files. Re-running only re-indexes what changed.")
    ingest.add_argument("paths", nargs="+", help="folders or files to index")
    _common(ingest)
    _cutting(ingest)
    ingest.add_argument("--workers", type=int, help="parallel parser processes (default: CPU cores)")
    ingest.add_argument("--allow-mass-delete", action="store_true",
                        help="let an empty or missing folder remove all of its indexed files")
    ingest.add_argument("--json", action="store_true", help="print the report as JSON")
    ingest.set_defaults(run=cmd_ingest)

    inspect = sub.add_parser("inspect", help="show how one file is classified and cut (writes nothing)")
    inspect.add_argument("file")
    _cutting(inspect)
    inspect.add_argument("--full", action="store_true", help="print whole chunk texts")
    inspect.add_argument("--json", action="store_true", help="print the decision and chunks as JSON")
    inspect.set_defaults(run=cmd_inspect)

    search = sub.add_parser("search", help="query a knowledge base")
    search.add_argument("query")
    search.add_argument("-k", type=int, default=5, help="how many chunks (default 5)")
    search.add_argument("--mode", choices=("vector", "fts", "hybrid"), default="hybrid")
    _common(search)
    search.add_argument("--json", action="store_true", help="stable machine-readable output")
    search.set_defaults(run=cmd_search)
    return parser


def main(argv: list[str] | None = None) -> int:
    apply_defaults()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"seams: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("seams: interrupted", file=sys.stderr)
        return 130


def cmd_ingest(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from flows import console

    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        raise FileNotFoundError(f"no such file or folder: {', '.join(missing)}")
    try:
        settings = _settings(args)
    except ValidationError as exc:
        raise ValueError(_validation_message(exc)) from None
    report = console.run_ingest([str(p) for p in args.paths], settings, as_json=args.json)
    return EXIT_SOME_FAILED if report.failed else EXIT_OK


def cmd_inspect(args: argparse.Namespace) -> int:
    from flows import console

    path = Path(args.file)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    return console.inspect_file(path, _settings(args), full=args.full, as_json=args.json)


def cmd_search(args: argparse.Namespace) -> int:
    from flows import console
    from flows.search import search

    settings = _settings(args)
    hits = search(settings, args.query, k=args.k, mode=args.mode)
    if args.json:
        print(json.dumps({"query": args.query, "mode": args.mode, "kb": settings.kb, "hits": hits},
                         ensure_ascii=False, indent=2, default=str))
    else:
        console.print_hits(hits)
    return EXIT_OK


def _validation_message(exc) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())


if __name__ == "__main__":
    raise SystemExit(main())
