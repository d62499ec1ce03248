"""Check the development set's questions against the documents, and dump the documents' text.

    python bench/devset/check.py                    # every question: fields, file, evidence found once
    python bench/devset/check.py --dump DIR         # also write each document's parsed text to DIR

A question is a line of ``questions.jsonl``::

    {"id": "...", "question": "...", "file": "<manifest name>", "evidence": ["verbatim", ...],
     "kind": "section|table|table_row|slide|short_doc|page_span", "language": "ko|en"}

Every evidence string must occur exactly once in the text seams parses out of its file
(``parsers.parse(path).text``), verbatim or with whitespace runs folded — the same locator
``seams evaluate`` uses, without its last, letters-only fallback: evidence that matches only that
loosely means the parser altered the text, which is a defect to fix, not to hide. The exit code is
1 when any question fails a check.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from flows.evaluate.datasets import SpanLocator  # noqa: E402
from parsers import ParseError, parse  # noqa: E402

KINDS = ("section", "table", "table_row", "slide", "short_doc", "page_span")
LANGUAGES = ("ko", "en")
DEFAULT_FILES = HERE.parent.parent / ".seams" / "devset" / "files"


def check(questions: list[dict], files: Path, manifest: set[str]) -> tuple[list[str], Counter]:
    """Problems found (one line each) and how the evidence was located."""
    problems: list[str] = []
    methods: Counter = Counter()
    locators: dict[str, SpanLocator | None] = {}
    seen: set[str] = set()
    for item in questions:
        qid = item.get("id", "?")
        missing = [k for k in ("id", "question", "file", "evidence", "kind", "language") if not item.get(k)]
        if missing:
            problems.append(f"{qid}: missing {', '.join(missing)}")
            continue
        if qid in seen:
            problems.append(f"{qid}: duplicate id")
        seen.add(qid)
        if item["kind"] not in KINDS:
            problems.append(f"{qid}: kind {item['kind']!r} is not one of {', '.join(KINDS)}")
        if item["language"] not in LANGUAGES:
            problems.append(f"{qid}: language {item['language']!r} is not one of {', '.join(LANGUAGES)}")
        name = item["file"]
        if name not in manifest:
            problems.append(f"{qid}: {name} is not in the manifest")
            continue
        if name not in locators:
            try:
                locators[name] = SpanLocator(parse(files / name).text)
            except (ParseError, OSError) as exc:
                locators[name] = None
                problems.append(f"{name}: cannot parse ({exc}); materialise the set first")
        locator = locators[name]
        if locator is None:
            continue
        evidence = [item["evidence"]] if isinstance(item["evidence"], str) else item["evidence"]
        for text in evidence:
            found = locator.find(text)
            if found is None or found.method == "loose":
                how = "only letters-only" if found else "not"
                problems.append(f"{qid}: evidence {how} found in {name}: {text[:60]!r}")
            elif found.occurrences != 1:
                problems.append(f"{qid}: evidence occurs {found.occurrences} times in {name}: {text[:60]!r}")
            else:
                methods[found.method] += 1
    return problems, methods


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=Path, default=HERE / "questions.jsonl")
    parser.add_argument("--files", type=Path, default=DEFAULT_FILES, help="the materialised documents")
    parser.add_argument("--manifest", type=Path, default=HERE / "manifest.json", help="the documents' manifest")
    parser.add_argument("--dump", type=Path, help="write each document's parsed text to DIR/<name>.txt")
    args = parser.parse_args(argv)
    manifest = {entry["name"] for entry in json.loads(args.manifest.read_text("utf-8"))}
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
        for name in sorted(manifest):
            try:
                (args.dump / f"{name}.txt").write_text(parse(args.files / name).text, "utf-8")
            except (ParseError, OSError) as exc:
                print(f"{name}: cannot parse ({exc})", file=sys.stderr)
    if not args.questions.is_file():
        print(f"no questions file at {args.questions}")
        return 0 if args.dump else 1
    questions = [json.loads(line) for line in args.questions.read_text("utf-8").splitlines() if line.strip()]
    problems, methods = check(questions, args.files, manifest)
    for line in problems:
        print(line)
    kinds = Counter(q.get("kind") for q in questions)
    languages = Counter(q.get("language") for q in questions)
    print(f"{len(questions)} questions in {len({q.get('file') for q in questions})} files; "
          f"kinds {dict(sorted(kinds.items()))}; languages {dict(sorted(languages.items()))}; "
          f"evidence located {dict(methods)}; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
