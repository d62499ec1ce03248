"""The evaluation's outputs: a Markdown report, CSV files, a recall-vs-IoU plot, Prefect artifacts.

Files written to the report folder:

- ``report.md`` — headlines, a summary table per retrieval mode, per-group (corpus / format)
  tables, cost and intrinsic checks, loss sets, unlocated questions, and how the metrics are defined;
- ``summary.csv`` — one row per configuration × mode (means);
- ``ranks.csv`` — one row per question × configuration × mode: rank of the first chunk holding
  evidence and every per-query metric;
- ``losses.csv`` — every query a configuration ranks worse than the query's best configuration;
- ``costs.csv`` — per configuration: chunks, tokens, index size, times, intrinsic checks;
- ``recall_iou.png`` — recall against IoU per configuration and mode (needs matplotlib; skipped
  with a note in the report when it is missing).
"""

from __future__ import annotations

import csv
import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from flows.evaluate.results import Evaluation, QueryScore
from flows.index.search import hybrid_fusion
from flows.markdown import table as markdown_table

#: Summary columns: (key, header, is a share shown in %).
METRICS = (
    ("recall", "recall", True), ("precision", "precision", True), ("omega", "precision-Ω", True),
    ("iou", "IoU", True), ("hit", "hit@k", True), ("text_hit", "text hit@k", True), ("reciprocal_rank", "MRR@k", False),
    ("doc_recall", "doc recall@k", True), ("dcg", "doc DCG@k", False),
)
LISTED_LOSSES = 5  # per configuration, in the Markdown report (all of them are in losses.csv)


@dataclass(frozen=True)
class Loss:
    qid: str
    group: str
    mode: str
    configuration: str
    rank: int | None
    best_rank: int
    best: tuple[str, ...]  # the configurations that reach best_rank

    def lost_from_top(self, k: int) -> bool:
        return self.best_rank <= k and (self.rank is None or self.rank > k)


# -- aggregation (pure) --------------------------------------------------------------------------
def mean_of(scores: Sequence[QueryScore], key: str) -> float:
    """The mean over the scores; NaN (a peer's precision or IoU: not defined) when every value is."""
    if not scores:
        return 0.0
    values = [float(getattr(s, key)) for s in scores]
    finite = [v for v in values if not math.isnan(v)]
    return statistics.fmean(finite) if finite else math.nan


def _finite(value: float) -> float:
    """A value for comparisons: NaN (not defined) ranks below everything."""
    return -1.0 if math.isnan(value) else value


def summary_rows(evaluation: Evaluation) -> list[dict]:
    """One row per configuration × mode with the mean of every metric (shares in 0..1)."""
    by_key: dict[tuple[str, str], list[QueryScore]] = defaultdict(list)
    for score in evaluation.scores:
        by_key[(score.configuration, score.mode)].append(score)
    costs = {c.configuration: c for c in evaluation.costs}
    rows = []
    for mode in evaluation.options.modes:
        for config in evaluation.configurations:
            scores = by_key.get((config.name, mode), [])
            cost = costs.get(config.name)
            row = {"configuration": config.name, "mode": mode, "reference": config.reference,
                   "questions": len(scores)}
            row.update({key: mean_of(scores, key) for key, _, _ in METRICS})
            row["chunks"] = cost.chunks if cost else 0
            row["tokens_mean"] = round(cost.tokens_mean, 1) if cost else 0.0
            row["retrieved_tokens"] = round(mean_of(scores, "retrieved_tokens"), 1)
            rows.append(row)
    return rows


#: Break-downs of the scores: the attribute of a question each one groups by, and its title.
BREAKDOWNS = (("group", ""), ("kind", "kind"), ("language", "language"))


def group_means(evaluation: Evaluation, mode: str, key: str,
                by: str = "group") -> tuple[list[str], dict[str, dict[str, float]]]:
    """Mean ``key`` per configuration per group (corpus / format, or a question's ``by`` attribute
    such as its kind), for one mode."""
    of = {q.qid: getattr(q, by) for q in evaluation.dataset.questions}
    groups = sorted({of.get(s.qid, "") for s in evaluation.scores} - {""})
    cells: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for score in evaluation.scores:
        if score.mode == mode and of.get(score.qid):
            cells[score.configuration][of[score.qid]].append(float(getattr(score, key)))
    means = {config: {g: statistics.fmean(v) for g, v in per.items()} for config, per in cells.items()}
    return groups, means


def loss_sets(evaluation: Evaluation, mode: str) -> dict[str, list[Loss]]:
    """For each configuration, the queries it ranks worse than their best configuration. ``none``
    (whole documents) is shown but never sets the best: any query ranks its document first."""
    ranks: dict[str, dict[str, int | None]] = defaultdict(dict)
    groups: dict[str, str] = {}
    for score in evaluation.scores:
        if score.mode == mode:
            ranks[score.qid][score.configuration] = score.rank
            groups[score.qid] = score.group
    contenders = [c.name for c in evaluation.configurations if not c.reference] or \
                 [c.name for c in evaluation.configurations]
    losses: dict[str, list[Loss]] = {c.name: [] for c in evaluation.configurations}
    for qid, per_config in ranks.items():
        reached = [per_config[c] for c in contenders if per_config.get(c) is not None]
        if not reached:
            continue
        best = min(reached)
        best_configs = tuple(c for c in contenders if per_config.get(c) == best)
        for config, rank in per_config.items():
            if rank is None or rank > best:
                losses[config].append(Loss(qid, groups[qid], mode, config, rank, best, best_configs))
    return losses


def best_mode(rows: list[dict], modes: Sequence[str]) -> str:
    """The mode with the highest recall averaged over the configurations, the whole-document
    reference left out (ties: IoU)."""
    def key(mode: str) -> tuple[float, float]:
        picked = [r for r in rows if r["mode"] == mode and not r["reference"]] or [r for r in rows if r["mode"] == mode]
        ious = [r["iou"] for r in picked if not math.isnan(r["iou"])] or [0.0]
        return (statistics.fmean(r["recall"] for r in picked), statistics.fmean(ious))
    return max(modes, key=key)


# -- Markdown --------------------------------------------------------------------------------------
def _pct(value: float | None) -> str:
    return "–" if value is None or math.isnan(value) else f"{100 * value:.1f}"


def _num(value: float, digits: int = 3) -> str:
    return "–" if math.isnan(value) else f"{value:.{digits}f}"


def _summary_table(evaluation: Evaluation, rows: list[dict], mode: str) -> str:
    picked = [r for r in rows if r["mode"] == mode]
    contenders = _contenders(evaluation, picked)
    best = {key: max((_finite(r[key]) for r in contenders), default=0.0) for key, _, _ in METRICS}
    references = {c.name for c in evaluation.configurations if c.reference}
    body = []
    for row in picked:
        name = row["configuration"]
        cells = [f"{name} (reference)" if name in references else name]
        for key, _, share in METRICS:
            text = _pct(row[key]) if share else _num(row[key])
            bold = row in contenders and row[key] == best[key] and len(contenders) > 1
            cells.append(f"**{text}**" if bold else text)
        cells += [f"{row['chunks']:,}", f"{row['tokens_mean']:.0f}", f"{row['retrieved_tokens']:.0f}"]
        body.append(cells)
    headers = ["configuration", *[h + (" %" if s else "") for _, h, s in METRICS], "chunks", "mean tokens",
               "tokens / retrieved"]
    return markdown_table(headers, body)


def _contenders(evaluation: Evaluation, rows: list[dict]) -> list[dict]:
    """Rows that may be called best: not the whole-document reference (it trivially holds all evidence)."""
    return [r for r in rows if not r["reference"]] or rows


def _size(value: int | None) -> str:
    if value is None:
        return "–"
    return f"{value / 1e6:.1f} MB" if value >= 1e5 else f"{value / 1e3:.0f} kB"


def _weights(modes, settings) -> str:
    """The search weights the run ranked with, for the modes that use them: `` (vector: title weight
    0.2; hybrid: vector weight 0.02)``, or nothing."""
    parts = []
    if {"vector", "hybrid"} & set(modes):
        parts.append(f"vector: title weight {settings.title_weight}")
    if "hybrid" in modes:
        parts.append(f"hybrid: {hybrid_fusion(settings)}")
    return f" ({'; '.join(parts)})" if parts else ""


def ocr_summary(data) -> str:
    """What OCR read of the data set, or could not: a scan is text only where an OCR engine ran, so
    two machines (one with Tesseract, one without) cut the same files differently and score
    differently. "" when the data set has no scanned page."""
    read = [sum(page.ocr is not None for page in doc.properties.pages) for doc in data.documents.values()]
    unread = [(doc_id, doc.properties.unread) for doc_id, doc in data.documents.items() if doc.properties.unread]
    parts = []
    if any(read):
        parts.append(f"{sum(read)} scanned page(s) of {sum(1 for n in read if n)} file(s) read by OCR")
    if unread:
        doc_id, pages = unread[0]
        parts.append(f"scanned pages of {len(unread)} file(s) not read (`{doc_id}`: {pages[0][1]}), "
                     "so their text is not in the collection")
    return ("OCR: " + "; ".join(parts) + ".") if parts else ""


def markdown(evaluation: Evaluation, png: str | None = None, png_note: str = "") -> str:
    data = evaluation.dataset
    options = evaluation.options
    rows = summary_rows(evaluation)
    modes = list(options.modes)
    primary = best_mode(rows, modes) if rows else modes[0]
    out: list[str] = []
    out.append(f"# seams evaluate — {data.name}\n")
    method_text = ", ".join(f"{n} {m}" for m, n in sorted(data.methods.items())) or "none"
    out.append(
        f"{len(data.documents)} documents, {len(data.questions)} questions scored, {len(data.unlocated)} unlocated; "
        f"{data.excerpts} evidence excerpts located in the parsed text ({method_text}). "
        f"Embedder **{options.embedder}**, k = {options.k}, retrieval from the whole collection, "
        f"modes {', '.join(modes)}"
        f"{_weights(modes, options.settings)}. Run time {evaluation.seconds:.0f} s (parse {evaluation.parse_seconds:.1f} s, "
        f"question embedding {evaluation.query_seconds:.1f} s, retrieval {evaluation.retrieval_seconds:.1f} s).\n")
    scans = ocr_summary(data)
    if scans:
        out.append(scans + "\n")
    if data.failed_documents:
        out.append("Files that did not parse (left out of the collection): "
                   + "; ".join(f"`{d}` ({why})" for d, why in data.failed_documents) + "\n")
    if rows:
        out.append("## Headlines\n")
        out += _headlines(evaluation, rows, modes)
    for mode in modes:
        out.append(f"## Summary — {mode}\n")
        out.append(_summary_table(evaluation, rows, mode) + "\n")
    if png:
        out.append(f"![recall vs IoU]({png})\n")
    elif png_note:
        out.append(f"_{png_note}_\n")
    for by, title in BREAKDOWNS:
        groups_label = title or data.group_by
        counts = Counter(getattr(question, by) for question in data.questions)
        shown = (("recall", "recall"), ("iou", "IoU")) if by == "group" else (("hit", "hit@k"), ("recall", "recall"))
        for mode in modes:
            for key, label in shown:
                groups, means = group_means(evaluation, mode, key, by)
                if len(groups) < 1 or (by != "group" and len(groups) < 2):
                    continue
                out.append(f"## {label} % per {groups_label} — {mode}\n")
                body = [[c.name, *[_pct(means.get(c.name, {}).get(g)) for g in groups]]
                        for c in evaluation.configurations]
                out.append(markdown_table(["configuration", *[f"{g} ({counts[g]})" for g in groups]], body) + "\n")
    out.append("## Cost and intrinsic checks\n")
    body = []
    for cost in evaluation.costs:
        strategies = ", ".join(f"{s} ×{n}" for s, n in cost.strategies)
        body.append([cost.configuration, f"{cost.chunks:,}", f"{cost.tokens_mean:.0f}", f"{cost.tokens_median:.0f}",
                     _size(cost.index_bytes), f"{cost.cut_seconds:.1f}", f"{cost.embed_seconds:.1f}",
                     f"{cost.embedded:,} / {cost.reused:,}", f"{cost.write_seconds:.1f}", _pct(cost.within_budget),
                     _pct(cost.under_min), str(cost.tables_split), str(cost.headings_at_end), strategies])
    out.append(markdown_table(["configuration", "chunks", "mean tok", "median tok", "index", "cut s", "embed s",
                       "embedded / cached", "write s", "within budget %", "under min %", "tables split w/o header",
                       "headers at chunk end", "strategies (files)"], body,
                      right=[False, *[True] * 12, False]) + "\n")
    out.append("Tokens are cl100k. *Within budget*: chunks of at most the merge ceiling (document-aware) or "
               "SIZE (baselines). *Tables split w/o header*: chunks that start inside a table past its header "
               "rows without repeating them. *Headers at chunk end*: chunks whose last line is a section header "
               "(glued to the previous section). Embed time counts only texts not already in the cache.\n")
    out.append("## Intrinsic measures\n")
    body = [[c.configuration, _pct(c.size_compliance), _pct(c.block_integrity), _pct(c.cohesion), _pct(c.coherence),
             "not measured"] for c in evaluation.costs]
    out.append(markdown_table(["configuration", "size compliance %", "block integrity %", "cohesion %",
                               "coherence %", "references completeness"], body,
                              right=[False, True, True, True, True, False]) + "\n")
    out.append("As the \"Adaptive Chunking\" study defines them, each the mean over documents: *size "
               "compliance*, chunks between the min and the configuration's max; *block integrity*, tables, "
               "lists and heading-body pairs that fit the max and that a chunk holds whole; *cohesion*, the "
               "cosine of a chunk's ~50-token pieces with the chunk; *coherence*, the cosine of a chunk with "
               "the text around it (both with the evaluation's embedder; \"–\" when `--no-cohesion` skipped "
               "them). References completeness needs a coreference model; none runs offline here.\n")
    peers = [c for c in evaluation.costs if c.peak_rss is not None]
    if peers:
        out.append("## Peers: what they read and what they hold\n")
        body = [[c.configuration, f"{c.cut_seconds:.1f}", f"{c.peak_rss / 2**20:.0f}", str(len(c.unread)),
                 "; ".join(f"`{d}` ({why})" for d, why in c.unread[:5]) + (" …" if len(c.unread) > 5 else "")]
                for c in peers]
        out.append(markdown_table(["peer", "parse + chunk s", "peak RSS MiB", "files unread", "which (why)"], body,
                                  right=[False, True, True, True, False]) + "\n")
    body = [[c.configuration, str(c.evidence), str(c.evidence_lost), str(c.evidence_altered)] for c in evaluation.costs]
    if any(c.evidence for c in evaluation.costs):
        out.append("Evidence strings no chunk holds whole (*lost*: not even with only letters and digits "
                   "compared — text dropped, or cut between two chunks; *altered*: held only when "
                   "punctuation and spacing are ignored):\n")
        out.append(markdown_table(["configuration", "evidence strings", "lost", "altered"], body) + "\n")
    out += _loss_section(evaluation, modes, primary)
    if data.unlocated:
        out.append(f"## Unlocated questions ({len(data.unlocated)})\n")
        out.append("Not scored: their evidence could not be found in the parsed text.\n")
        out.append(markdown_table(["id", "question", "reason"], [[u.qid, _short(u.text, 90), u.reason] for u in data.unlocated],
                          right=[False, False, False]) + "\n")
    if evaluation.fts_failures:
        out.append(f"_{evaluation.fts_failures} full-text queries failed and were scored as empty rankings._\n")
    out.append(_DEFINITIONS.format(k=options.k, depth=options.depth, fusion=hybrid_fusion(options.settings)))
    return "\n".join(out)


def _headlines(evaluation: Evaluation, rows: list[dict], modes: Sequence[str]) -> list[str]:
    lines = []
    for mode in modes:
        picked = _contenders(evaluation, [r for r in rows if r["mode"] == mode])
        top = max(picked, key=lambda r: (r["recall"], _finite(r["iou"])))
        top_iou = max((r for r in picked if r["recall"] > 0), key=lambda r: _finite(r["iou"]), default=top)
        level = [r["configuration"] for r in picked if r is not top and _pct(r["recall"]) == _pct(top["recall"])]
        tied = f", level on recall with {', '.join(level)}" if level else ""
        lines.append(f"- **{mode}**: best recall **{top['configuration']}** ({_pct(top['recall'])} %, IoU "
                     f"{_pct(top['iou'])} %{tied}); best IoU **{top_iou['configuration']}** ({_pct(top_iou['iou'])} %, "
                     f"recall {_pct(top_iou['recall'])} %); mean recall over configurations "
                     f"{_pct(statistics.fmean(r['recall'] for r in picked))} %.")
    primary = best_mode(rows, modes)
    lines.append(f"- Best retrieval mode on this data set (mean recall over configurations): **{primary}**.")
    aware = [c.name for c in evaluation.configurations if not c.baseline]
    baselines = [c.name for c in evaluation.configurations if c.baseline and not c.reference and c.peer is None]
    if aware and baselines:
        picked = {r["configuration"]: r for r in rows if r["mode"] == primary}
        for name in aware:
            beaten = [b for b in baselines if picked[name]["recall"] > picked[b]["recall"]]
            level = [b for b in baselines if b not in beaten and _pct(picked[name]["recall"]) == _pct(picked[b]["recall"])]
            lines.append(f"- {name} ({primary}): recall {_pct(picked[name]['recall'])} %, IoU "
                         f"{_pct(picked[name]['iou'])} % — higher recall than {len(beaten)} of {len(baselines)} "
                         f"fixed-size baselines" + (f", level with {len(level)}." if level else "."))
    return [*lines, ""]


def _loss_section(evaluation: Evaluation, modes: Sequence[str], primary: str) -> list[str]:
    k = evaluation.options.k
    questions = {q.qid: q for q in evaluation.dataset.questions}
    out = ["## Loss sets\n",
           "A configuration's loss set: the queries whose first evidence chunk it ranks lower than the query's "
           "best configuration does (`none` is shown but never sets the best). *Lost from top k*: the best "
           f"configuration has evidence within the top {k} and this one does not.\n"]
    body = []
    for mode in modes:
        losses = loss_sets(evaluation, mode)
        for config in evaluation.configurations:
            lost = losses.get(config.name, [])
            body.append([mode, config.name, str(len(lost)), str(sum(loss.lost_from_top(k) for loss in lost))])
    out.append(markdown_table(["mode", "configuration", "ranked worse than best", f"lost from top {k}"], body,
                      right=[False, False, True, True]) + "\n")
    out.append(f"### Queries lost from the top {k} — {primary}\n")
    for config in evaluation.configurations:
        lost = [loss for loss in loss_sets(evaluation, primary)[config.name] if loss.lost_from_top(k)]
        if not lost:
            continue
        lost.sort(key=lambda loss: (-(loss.rank or 10**6), loss.qid))
        out.append(f"**{config.name}** — {len(lost)} {'query' if len(lost) == 1 else 'queries'}"
                   + (f" (the {LISTED_LOSSES} ranked lowest)" if len(lost) > LISTED_LOSSES else "") + "\n")
        rows = [[loss.qid, loss.group, _short(questions[loss.qid].text, 80), _rank(loss.rank, evaluation.options.depth),
                 str(loss.best_rank), ", ".join(loss.best[:3]) + ("…" if len(loss.best) > 3 else "")]
                for loss in lost[:LISTED_LOSSES]]
        out.append(markdown_table(["id", "group", "question", "rank", "best rank", "best configurations"], rows,
                          right=[False, False, False, True, True, False]) + "\n")
    return out


def _rank(rank: int | None, depth: int) -> str:
    return str(rank) if rank is not None else f">{depth}"


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


_DEFINITIONS = """## How the numbers are computed

- **recall, precision, precision-Ω, IoU** follow the reference code of Chroma's study
  (`chunking_evaluation/evaluation_framework/base_evaluation.py`), which measures **characters**
  of excerpt and chunk ranges (the study's prose says tokens): recall = covered excerpt characters /
  excerpt characters; precision = covered excerpt characters / the summed length of the {k} retrieved
  chunks, so text inside two overlapping retrieved chunks counts twice; IoU = covered /
  (retrieved length + uncovered excerpt length); precision-Ω = precision when exactly the chunks
  holding excerpt text are retrieved (ranges closed, as in the code: a chunk that only touches an
  excerpt counts). Chunk ranges are spans of the parsed text; a table header repeated in a chunk
  is not part of its span.
- Gold excerpts are located in each document's parsed text (verbatim, else whitespace-normalised,
  else letters-and-digits only); the counts per method are above.
- **hit@k**: every excerpt character is inside the top {k}. **MRR@k**: 1 / rank of the first chunk
  sharing a character with an excerpt (0 past k). **doc recall@k**: share of the documents holding
  evidence that appear in the top {k}; **doc DCG@k**: Σ over those documents of 1 / log2(1 + rank of
  their first chunk). Ranks in `ranks.csv` are read {depth} deep.
- **text hit@k** (containment, for every configuration): every evidence string, as the questions
  give it, is inside one of the top {k} chunks' texts, compared on letters and digits only,
  case-folded. A peer (`peer:NAME`: another tool's parsing and chunking) is scored only so: its
  chunks have no offsets in seams' parsed text, so its hit@k, recall (share of evidence strings held)
  and MRR@k are containment's, and its precision, IoU and precision-Ω are not defined (–).
- Retrieval: every configuration is its own LanceDB table over the whole collection. Vector search
  is exact (cosine, no ANN index); full-text is BM25 as `seams search` runs it (stemmed words for
  queries in Latin letters, character 2–3-grams otherwise, e.g. Korean); hybrid fuses the two
  top-{depth} lists as `seams search` does, here with {fusion}: reciprocal-rank fusion, a vector rank
  weighted that much against a full-text rank (0: full text's order), and where a seat is given the
  vector ranking's best chunk moved up to that place.
"""


# -- files ---------------------------------------------------------------------------------------------
def _write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        if not rows:
            return
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def rank_rows(evaluation: Evaluation) -> list[dict]:
    questions = {q.qid: q for q in evaluation.dataset.questions}
    return [{
        "qid": s.qid, "group": s.group, "kind": questions[s.qid].kind, "language": questions[s.qid].language,
        "question": questions[s.qid].text, "configuration": s.configuration,
        "mode": s.mode, "rank": "" if s.rank is None else s.rank, "recall": round(s.recall, 4),
        "precision": round(s.precision, 4), "precision_omega": round(s.omega, 4), "iou": round(s.iou, 4),
        "hit": int(s.hit), "text_hit": int(s.text_hit), "text_recall": round(s.text_recall, 4),
        "reciprocal_rank": round(s.reciprocal_rank, 4), "doc_recall": round(s.doc_recall, 4),
        "doc_dcg": round(s.dcg, 4), "retrieved_tokens": round(s.retrieved_tokens, 1),
    } for s in evaluation.scores]


def cost_rows(evaluation: Evaluation) -> list[dict]:
    return [{
        "configuration": c.configuration, "chunks": c.chunks, "tokens_mean": round(c.tokens_mean, 1),
        "tokens_median": c.tokens_median, "index_bytes": c.index_bytes, "cut_seconds": round(c.cut_seconds, 2),
        "embed_seconds": round(c.embed_seconds, 2), "embedded": c.embedded, "reused": c.reused,
        "write_seconds": round(c.write_seconds, 2), "within_budget": c.within_budget, "under_min": c.under_min,
        "tables_split_without_header": c.tables_split, "headers_at_chunk_end": c.headings_at_end,
        "strategies": "; ".join(f"{s}={n}" for s, n in c.strategies),
        "evidence": c.evidence, "evidence_lost": c.evidence_lost, "evidence_altered": c.evidence_altered,
        "files_unread": len(c.unread), "peak_rss_bytes": c.peak_rss,
        "size_compliance": c.size_compliance, "block_integrity": c.block_integrity, "cohesion": c.cohesion,
        "coherence": c.coherence,
    } for c in evaluation.costs]


def plot(evaluation: Evaluation, path: Path) -> str:
    """Recall vs IoU per configuration and mode as a PNG. Returns "" or why it was skipped."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "No plot: matplotlib is not installed (pip install matplotlib)."
    rows = summary_rows(evaluation)
    modes = list(evaluation.options.modes)
    figure, axes_list = plt.subplots(1, len(modes), figsize=(5.5 * len(modes), 5.5), dpi=110, sharey=True,
                                     squeeze=False)
    colours = plt.get_cmap("tab10")
    configs = {c.name: (number, c) for number, c in enumerate(evaluation.configurations)}
    for axes, mode in zip(axes_list[0], modes, strict=True):
        for row in (r for r in rows if r["mode"] == mode):
            number, config = configs[row["configuration"]]
            colour = colours(number % 10)
            marker = "x" if config.reference else ("s" if config.baseline else "o")
            axes.scatter(100 * row["iou"], 100 * row["recall"], color=colour, marker=marker, s=50)
            axes.annotate(row["configuration"], (100 * row["iou"], 100 * row["recall"]), fontsize=7,
                          xytext=(4, 3), textcoords="offset points")
        axes.set_title(mode)
        axes.set_xlabel("IoU %")
        axes.grid(True, alpha=0.3)
    axes_list[0][0].set_ylabel(f"recall % at k = {evaluation.options.k}")
    figure.suptitle(f"{evaluation.dataset.name} · {evaluation.options.embedder}: recall vs IoU "
                    "(circles: seams, squares: baselines, x: whole documents)")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return ""


def write_report(evaluation: Evaluation, out: str | Path) -> dict[str, Path]:
    """Write every report file into ``out``; returns their paths by kind."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"markdown": folder / "report.md", "summary": folder / "summary.csv", "ranks": folder / "ranks.csv",
             "losses": folder / "losses.csv", "costs": folder / "costs.csv", "plot": folder / "recall_iou.png"}
    rows = summary_rows(evaluation)
    _write_csv(paths["summary"], [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()} for r in rows])
    _write_csv(paths["ranks"], rank_rows(evaluation))
    _write_csv(paths["costs"], cost_rows(evaluation))
    questions = {q.qid: q.text for q in evaluation.dataset.questions}
    losses = [{"mode": loss.mode, "configuration": loss.configuration, "qid": loss.qid, "group": loss.group,
               "question": questions[loss.qid], "rank": "" if loss.rank is None else loss.rank,
               "best_rank": loss.best_rank, "best_configurations": "; ".join(loss.best),
               "lost_from_top_k": int(loss.lost_from_top(evaluation.options.k))}
              for mode in evaluation.options.modes for lost in loss_sets(evaluation, mode).values() for loss in lost]
    _write_csv(paths["losses"], losses)
    note = plot(evaluation, paths["plot"])
    if note:
        paths.pop("plot")
    paths["markdown"].write_text(markdown(evaluation, png=None if note else paths["plot"].name, png_note=note),
                                 encoding="utf-8")
    return paths


def publish_artifacts(evaluation: Evaluation) -> None:
    """The report and the summary table as artifacts of the current Prefect flow run."""
    from prefect.artifacts import create_markdown_artifact, create_table_artifact

    note = "" if _has_matplotlib() else "No plot in artifacts."
    create_markdown_artifact(markdown(evaluation, png_note=note), key="seams-evaluate-report",
                             description=f"seams evaluate — {evaluation.dataset.name} · {evaluation.options.embedder}")
    table = [{k: (round(100 * v, 1) if isinstance(v, float) and k not in ("reciprocal_rank", "dcg", "tokens_mean")
                  else (round(v, 3) if isinstance(v, float) else v)) for k, v in r.items()}
             for r in summary_rows(evaluation)]
    create_table_artifact(table, key="seams-evaluate-summary", description="means per configuration × mode (% for shares)")
    create_table_artifact(cost_rows(evaluation), key="seams-evaluate-cost", description="cost and intrinsic checks")


def _has_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True
