"""seams beside what users would pick instead, on one folder and its questions, in one run.

    python bench/peers.py --folder examples/ --questions examples/questions.jsonl
    python bench/peers.py --folder .seams/devset/files --questions bench/devset/questions.jsonl --embedder hashing
    python bench/peers.py --chroma ../shared/bench/chroma --embedder hashing

Each peer (``flows/evaluate/peers.py``: LangChain, LlamaIndex, Unstructured, chonkie) parses and chunks the
files its own way, with its documented defaults, in a child process; seams does the same (its parser,
its default cut) for the cost ratios. Then ``seams evaluate`` embeds every configuration's chunks with
the same embedder, writes them to the same LanceDB tables and searches them in the same three modes,
so only parsing and chunking differ. Every configuration is scored by containment — hit@5: every
evidence string of the question inside one of the top 5 chunks' texts, letters and digits compared —
because a peer's chunks have no offsets in seams' text. Printed, and written to ``--out`` as Markdown:

- hit@5 per mode, the share of evidence strings held (recall), mean tokens per retrieved chunk;
- hit@5 per question kind (and per format) in each mode;
- files each could not read, by format; evidence strings no chunk holds (lost) or holds only with
  punctuation and spacing ignored (altered);
- parse + chunk seconds (imports excluded) and peak RSS of the child, and their ratios to seams'.

Needs the extra: ``pip install 'seams[peers]'``. Docling is reported, not run (flows.evaluate.peers.NOT_RUNNABLE).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from flows.environment import apply_defaults  # noqa: E402

apply_defaults()

MODES = ("fts", "vector", "hybrid")


def _table(headers: list[str], rows: list[list[str]], numbers: bool = True) -> str:
    """A Markdown table; the first column left, the others right-aligned when they hold numbers."""
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---" if i == 0 or not numbers else "---:" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _fmt(doc_id: str) -> str:
    return Path(doc_id).suffix.lstrip(".").lower() or "(none)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    data = parser.add_mutually_exclusive_group(required=True)
    data.add_argument("--folder", help="a folder of files (with --questions)")
    data.add_argument("--chroma", help="a Chroma-format benchmark folder (corpora/ + questions_df.csv)")
    parser.add_argument("--questions", help="JSONL questions for --folder")
    parser.add_argument("--peers", default="langchain,llamaindex,unstructured,chonkie")
    parser.add_argument("--embedder", default=None, help="default: SEAMS_EMBEDDER or use-multilingual")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--db", default=".seams/evaluate")
    parser.add_argument("--out", default=None, help="Markdown file (default reports/peers-PARENT-FOLDER-EMBEDDER.md)")
    args = parser.parse_args(argv)
    if args.folder and not args.questions:
        parser.error("--folder needs --questions")

    from flows.app.evaluation import run_evaluate
    from flows.evaluate.peers import NOT_RUNNABLE, PEERS, SEAMS, missing_modules, run_peer
    from flows.ingest.pipeline import walk
    from flows.settings import Settings

    peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    skipped = {p: NOT_RUNNABLE[p] for p in peers if p in NOT_RUNNABLE}
    skipped |= {p: f"needs {', '.join(missing_modules(p))} (pip install 'seams[peers]')"
                for p in peers if p in PEERS and missing_modules(p)}
    unknown = [p for p in peers if p not in PEERS and p not in NOT_RUNNABLE]
    if unknown:
        parser.error(f"unknown peer {', '.join(unknown)}; known: {', '.join(PEERS)}")
    runnable = [p for p in peers if p not in skipped]
    for name in NOT_RUNNABLE:
        skipped.setdefault(name, NOT_RUNNABLE[name])

    settings = Settings(db=args.db, **({"embedder": args.embedder} if args.embedder else {}))
    source, path = ("chroma", args.chroma) if args.chroma else ("folder", args.folder)
    if args.chroma:
        files = [(p.name, str(p)) for p in sorted((Path(path) / "corpora").glob("*.md"))]
    else:  # what load_folder reads: every file seams walks, the questions file left out
        files = [(r.doc_id, r.path) for r in walk(path) if Path(r.path).resolve() != Path(args.questions).resolve()]
    print(f"seams: parsing and cutting {len(files)} files in a child process", file=sys.stderr)
    seams_run = run_peer(SEAMS, files)

    configs = ["seams", *[f"peer:{p}" for p in runnable]]
    # the folder and its parent name the report: .seams/devset/files and .seams/heldout2/files differ
    label = "-".join(Path(path).resolve().parts[-2:])
    out_dir = Path("reports") / f"peers-{label}-{settings.embedder}"
    evaluation = run_evaluate(source, path, args.questions, configs, None, args.k, args.modes.split(","),
                              settings, str(out_dir), None)
    modes = list(evaluation.options.modes)
    names = [c.name for c in evaluation.configurations]
    costs = {c.configuration: c for c in evaluation.costs}
    questions = {q.qid: q for q in evaluation.dataset.questions}
    scores: dict[tuple[str, str], list] = defaultdict(list)
    for score in evaluation.scores:
        scores[(score.configuration, score.mode)].append(score)

    seams_unread = tuple(evaluation.dataset.failed_documents)
    run_of = {"seams": (seams_run.seconds, seams_run.peak_rss, seams_unread)}
    for name in names:
        cost = costs[name]
        if cost.peak_rss is not None:
            run_of[name] = (cost.cut_seconds, cost.peak_rss, cost.unread)

    k = evaluation.options.k
    lines: list[str] = []
    data = evaluation.dataset
    lines.append(f"# seams beside its peers — {data.name}\n")
    lines.append(f"{len(files)} files, {len(data.questions)} questions scored ({len(data.unlocated)} left out: "
                 f"evidence not found in seams' parsed text); embedder **{evaluation.options.embedder}**, k = {k}; "
                 f"hit@{k} by containment (every evidence string inside one of the top {k} chunks, letters and "
                 "digits compared), for seams too.\n")
    headers = ["configuration", *[f"hit@{k} {m}" for m in modes], *[f"recall {m}" for m in modes],
               "tokens / retrieved chunk", "chunks", "files unread", "evidence lost / altered",
               "parse + chunk s", "× seams", "peak RSS MiB", "× seams"]
    rows = []
    seams_seconds, seams_rss, _ = run_of["seams"]
    for name in names:
        cost = costs[name]
        hits = [_pct(_mean([float(s.text_hit) for s in scores[(name, m)]])) for m in modes]
        recalls = [_pct(_mean([s.text_recall for s in scores[(name, m)]])) for m in modes]
        retrieved = _mean([s.retrieved_tokens for m in modes for s in scores[(name, m)]])
        seconds, rss, unread = run_of[name]
        by_format = Counter(_fmt(d) for d, _ in unread)
        unread_text = ", ".join(f"{n} {f}" for f, n in sorted(by_format.items())) or "0"
        rows.append([name, *hits, *recalls, f"{retrieved or 0:.0f}", f"{cost.chunks:,}", unread_text,
                     f"{cost.evidence_lost} / {cost.evidence_altered} of {cost.evidence}",
                     f"{seconds:.1f}", f"{seconds / seams_seconds:.2f}" if seams_seconds else "–",
                     f"{rss / 2**20:.0f}", f"{rss / seams_rss:.2f}" if seams_rss else "–"])
    lines.append(_table(headers, rows) + "\n")
    if skipped:
        lines.append("Not run: " + "; ".join(f"**{n}**: {why}" for n, why in skipped.items()) + ".\n")

    for by, title in (("kind", "question kind"), ("group", data.group_by)):
        groups = Counter(getattr(q, by) for q in data.questions if getattr(q, by))
        if len(groups) < 2:
            continue
        for mode in modes:
            lines.append(f"## hit@{k} per {title} — {mode}\n")
            body = []
            for name in names:
                cells = []
                for group in sorted(groups):
                    picked = [float(s.text_hit) for s in scores[(name, mode)] if getattr(questions[s.qid], by) == group]
                    cells.append(_pct(_mean(picked)))
                body.append([name, *cells])
            lines.append(_table(["configuration", *[f"{g} ({groups[g]})" for g in sorted(groups)]], body) + "\n")

    unread_rows = [[name, d, why] for name in names for d, why in run_of[name][2]]
    if unread_rows:
        lines.append("## Files not read\n")
        lines.append(_table(["configuration", "file", "why"], unread_rows, numbers=False) + "\n")
    lines.append(f"Parse + chunk: seconds in the child after its imports (seams {seams_run.import_seconds:.1f} s "
                 "of imports); peak RSS: the child's VmHWM, imports included. seams' row is its own child run; "
                 f"its chunks in the tables come from the evaluation's in-process cut (the same cut). Full report: "
                 f"{out_dir / 'report.md'}.\n")
    text = "\n".join(lines)
    print("\n" + text)
    out = Path(args.out or f"{out_dir}.md")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"written: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
