"""What the terminal shows: one line per file while an ingest runs, then a summary table."""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from flows.settings import Settings
from splitters.chunk import HEADING_SEPARATOR
from splitters.table_rows import ROW_GOES_ON

_STYLE = {"added": "green", "updated": "cyan", "unchanged": "dim", "deleted": "magenta",
          "failed": "red", "skipped": "yellow", "kept": "yellow"}


def _console(stderr: bool = False) -> Console:
    console = Console(stderr=stderr, highlight=False, soft_wrap=True)
    if not console.is_terminal:
        console.width = 200  # a log file or a pipe: do not fold the table into 80 columns
    return console


TABLE_ROWS = 40


def ingest_with_progress(paths: list[str], settings: Settings, as_json: bool = False):
    """Run the ingest flow with a progress bar (or one line per file when not on a terminal)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from flows.app.once import ingest_once
    from flows.ingest.flow import progress as ingest_progress
    from flows.ingest.workers import ocr_pages

    err = _console(stderr=True)
    out = _console()
    err.print(f"seams: indexing {', '.join(paths)} into [bold]{settings.db_location()}[/] (kb {settings.kb})")
    progress = Progress(TextColumn("[bold]files"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[chunks]} chunks · {task.fields[errors]} errors · {task.fields[rate]}"),
                        TimeElapsedColumn(), TextColumn("{task.fields[ocr]}"), console=err, transient=True,
                        disable=not err.is_terminal or as_json)
    bar = progress.add_task("ingest", total=None, chunks=0, errors=0, rate="", ocr="")
    counts = {"chunks": 0, "errors": 0}
    started = time.perf_counter()

    def on_file(report, done: int, total: int) -> None:
        counts["chunks"] += report.chunks if report.action in ("added", "updated") else 0
        counts["errors"] += report.status == "failed" and report.action != "unchanged"
        elapsed = max(time.perf_counter() - started, 1e-6)
        progress.update(bar, completed=done, total=total, chunks=counts["chunks"], errors=counts["errors"],
                        rate=f"{done / elapsed:.1f} files/s", ocr="")
        if report.action == "unchanged" or as_json:
            return
        style = _STYLE.get(report.action, "")
        detail = (f"{report.format} · {report.strategy} ({report.rule}: {report.evidence}) · "
                  f"{report.chunks} chunks, {report.tokens} tokens"
                  if not report.error_kind else f"{report.error_kind}: {report.error}")
        progress.console.print(f"[{done}/{total}] [{style}]{report.action:9}[/] {report.doc_id}  {detail}")

    def on_page(path: str, page: int, pages: int) -> None:
        # a scan takes seconds a page: say which page, on the bar or (not a terminal) on a line
        text = f"{escape(Path(path).name)}: OCR page {page}/{pages}"
        if progress.disable:
            if not as_json:
                err.print(f"      {text}", highlight=False)
        else:
            progress.update(bar, ocr=f"· {text}")

    with ingest_progress.listening(on_file), ocr_pages.listening(on_page), progress:
        report = ingest_once(paths, settings)
    if as_json:
        print(json.dumps(_report_json(report), ensure_ascii=False, indent=2, default=str))
        return report
    print_summary(out, report)
    return report


def print_summary(out: Console, report) -> None:
    """The closing table (changed and failed files first, capped) and the counts."""
    shown = [f for f in report.files if f.action != "unchanged" or f.status == "failed"]
    shown.sort(key=lambda f: (f.status != "failed", f.doc_id))
    if shown:
        table = Table(title=f"seams ingest — {len(report.files)} files", show_lines=False)
        for column in ("file", "action", "type", "strategy", "rule", "chunks", "tokens", "error"):
            table.add_column(column, overflow="fold", justify="right" if column in ("chunks", "tokens") else "left")
        several_roots = len({f.root for f in shown}) > 1  # then a file's folder tells same-named files apart
        for f in shown[:TABLE_ROWS]:
            error = f"{f.error_kind}: {f.error}" if f.error_kind else ""
            table.add_row(f"{Path(f.root).name}/{f.doc_id}" if several_roots else f.doc_id, f"[{_STYLE.get(f.action, '')}]{f.action}[/]", f.format, f.strategy, f.rule,
                          str(f.chunks) if f.format else "", str(f.tokens) if f.format else "", error)
        out.print(table)
        if len(shown) > TABLE_ROWS:
            out.print(f"… and {len(shown) - TABLE_ROWS} more files (seams ingest --json lists them all)")
    else:
        out.print(f"all {len(report.files)} files unchanged: nothing parsed, nothing embedded")
    out.print(
        f"{report.summary()} · {report.chunks} chunks written, {report.embedded} embedded "
        f"({report.reused_vectors} reused) · {report.seconds:.1f} s"
    )
    if report.stages:
        out.print(f"time by stage: {report.stage_line()}", style="dim")
    for root in report.refused:
        out.print(f"[yellow]refused to remove the indexed files of {root}: it is empty or missing "
                  f"(use --allow-mass-delete if that is intended)[/]")
    out.print(f"LanceDB: [bold]{report.db}[/] (tables {report.kb}__chunks, {report.kb}__manifest, "
              f"{report.kb}__fts_passages)")
    out.print(f'Next: seams search "your question" --db {report.db} --kb {report.kb}')


def _report_json(report) -> dict:
    data = asdict(report)
    data["counts"] = report.counts()
    return data


def inspect_file(path: Path, settings: Settings, full: bool = False, as_json: bool = False,
                 chunk: int | None = None, embedded: bool = False) -> int:
    """Show how one file is cut and why: the decision (strategy, rule, evidence), the facts the rules
    looked at, then every chunk with its locator, token count and heading path — or, with ``chunk``
    (an ordinal as listed; negative counts from the end), that one chunk in full.

    JSON keeps its keys: file, format, blocks, chars, warnings, ocr_pages (the pages read by OCR, with
    their mean word confidence), unread_pages (scanned pages OCR did not read, with why), furniture
    (the running headers, footers and page numbers set aside, with their pages), decision, chunks
    (each chunk's fields but its merge group; ``index_text`` is its table rows with their columns'
    labels). With ``chunk``, ``chunks`` holds that chunk alone and ``chunk`` its ordinal. With
    ``embedded``, each chunk is shown as the embedder reads it
    (:func:`flows.ingest.pipeline.embed_text`), then the passages embedded beside it
    (:func:`flows.ingest.pipeline.embedded_texts`: counted, and printed in full with ``full`` or
    ``chunk``); JSON adds each chunk's ``embedded`` text and ``passages``.
    Returns 0, 1 when the file cannot be read, 2 for a chunk ordinal out of range.
    """
    from flows.ingest.pipeline import CutConfig, check_text_size, cut_document
    from parsers import ParseError, parse

    out = _console()
    config = CutConfig.from_settings(settings)
    try:
        doc = parse(path, max_bytes=config.max_bytes, ocr=config.ocr)
        check_text_size(doc, config.max_text_chars)
    except ParseError as exc:
        if as_json:
            print(json.dumps({"file": str(path), "error_kind": exc.kind, "error": exc.message}, ensure_ascii=False))
        else:
            out.print(f"[red]{escape(str(path))}: {exc.kind}: {escape(exc.message)}[/]")
        return 1
    decision, chunks = cut_document(doc, config, path.name)
    selected = _inspect_ordinals(len(chunks), chunk)
    if selected is None:
        message = f"chunk {chunk} out of range: {path} has {len(chunks)} chunks (0..{len(chunks) - 1})"
        if as_json:
            print(json.dumps({"file": str(path), "error_kind": "usage", "error": message}, ensure_ascii=False))
        else:
            out.print(f"[red]{escape(message)}[/]")
        return 2
    if as_json:
        data = {
            "file": str(path), "format": doc.format, "blocks": len(doc.blocks), "chars": len(doc.text),
            "warnings": list(doc.warnings),
            "ocr_pages": [{"page": p.number, "confidence": p.ocr} for p in doc.properties.pages if p.ocr is not None],
            "unread_pages": [{"page": page, "reason": reason} for page, reason in doc.properties.unread],
            "furniture": [{"text": b.text, "page": b.locator.page} for b in doc.furniture],
            "decision": asdict(decision),
            "chunks": [{k: v for k, v in asdict(chunks[i]).items() if k != "group"} for i in selected],
        }
        if embedded:
            for shown, i in zip(data["chunks"], selected, strict=True):
                whole, *parts = _embedded(chunks[i], settings)
                shown.update(embedded=whole, passages=parts)
        if chunk is not None:
            data["chunk"] = selected[0]
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    out.print(f"[bold]{escape(str(path))}[/]: {doc.format}, {len(doc.blocks)} blocks, {len(doc.text):,} characters")
    for warning in doc.warnings:
        out.print(f"[yellow]warning:[/] {escape(warning)}")
    if ocr_line := _inspect_ocr(doc):
        out.print(ocr_line)
    if doc.furniture:
        distinct = list(dict.fromkeys(b.text for b in doc.furniture))
        shown = ", ".join(repr(t) for t in distinct[:4]) + (f" and {len(distinct) - 4} more" if len(distinct) > 4 else "")
        counted = f"{len(doc.furniture)} lines" + (f", {len(distinct)} distinct" if len(distinct) < len(doc.furniture) else "")
        out.print(f"[dim]furniture set aside (not in any chunk): {counted} — {escape(shown)}[/]")
    out.print(f"strategy [bold]{escape(decision.strategy)}[/] — rule [bold]{escape(decision.rule)}[/]: "
              f"{escape(decision.evidence)}")
    out.print(f"[dim]{escape(_inspect_facts(doc, settings, path.name))}[/]")
    out.print(_inspect_sizes(chunks, settings, decision.strategy))
    for ordinal in selected:
        _inspect_chunk(out, ordinal, chunks[ordinal], full or chunk is not None, settings if embedded else None)
    return 0


def _inspect_ocr(doc) -> str:
    """Which pages were read by OCR, with their mean word confidence ('' when none was)."""
    read = [p for p in doc.properties.pages if p.ocr is not None]
    if not read:
        return ""
    pages = ", ".join(f"page {p.number} (confidence {p.ocr:.0f})" for p in read[:20]) + (" …" if len(read) > 20 else "")
    return f"OCR: {len(read)} of {len(doc.properties.pages)} pages read by OCR — {pages}"


def _inspect_ordinals(total: int, chunk: int | None) -> list[int] | None:
    """The chunk ordinals to show: all, or the one asked for (``None`` if it does not exist)."""
    if chunk is None:
        return list(range(total))
    ordinal = chunk + total if chunk < 0 else chunk
    return [ordinal] if 0 <= ordinal < total else None


def _inspect_facts(doc, settings: Settings, name: str) -> str:
    """The numbers the rules looked at, so a surprising decision can be read off them."""
    from classifiers import gather_facts
    from splitters import cl100k_counter

    facts = gather_facts(doc, cl100k_counter()(doc.text), settings.budget.max_tokens, name)
    parts = [f"{facts.tokens:,} tokens"]
    if facts.pages:
        parts.append(f"{facts.pages} page{'s' if facts.pages != 1 else ''}, {facts.chars_per_page:,.0f} chars/page, "
                     f"{facts.landscape_share:.0%} landscape")
    parts.append(f"{facts.table_share:.0%} of the text in tables")
    if facts.declared_headings:
        parts.append(f"{facts.declared_headings} declared headings")
    if facts.markers:
        parts.append("markers " + " ".join(f"{k}×{v}" for k, v in sorted(facts.markers.items())))
    if facts.toc_lines:
        parts.append(f"{facts.toc_lines} table-of-contents lines")
    return "facts: " + " · ".join(parts)


def _inspect_sizes(chunks: list, settings: Settings, strategy: str = "") -> str:
    budget = settings.strategy_budgets.get(strategy, settings.budget)
    sizes = sorted(c.tokens for c in chunks)
    if not sizes:
        return "no chunks"
    middle = sizes[len(sizes) // 2]
    return (f"{len(chunks)} chunks, {sum(sizes):,} tokens (smallest {sizes[0]}, median {middle}, largest "
            f"{sizes[-1]}; budget min {budget.min_tokens} / max {budget.max_tokens} / packs up to "
            f"{budget.pack_tokens} / merges up to "
            f"{budget.merge_ceiling})")


def _inspect_chunk(out: Console, ordinal: int, chunk, full: bool, embedded: Settings | None = None) -> None:
    """One chunk: its title line, then its text — or, given the settings as ``embedded``, the text
    embedded for it."""
    path_text = HEADING_SEPARATOR.join(chunk.heading_path)
    title = f"#{ordinal} · {chunk.tokens} tokens · {locator_text(chunk)}" + (f" · {path_text}" if path_text else "")
    out.rule(escape(title))
    if chunk.header:
        what = "caption, header rows and the key of the row it goes on with" if chunk.header.endswith(ROW_GOES_ON) \
            else "caption and header rows"
        out.print(f"[dim](the first {chunk.header.count(chr(10))} line(s) repeat the table's {what})[/]")
    text, *parts = [chunk.text] if embedded is None else _embedded(chunk, embedded)
    out.print(text if full else _preview(text), markup=False)
    if not parts:
        return
    out.print(f"[dim]… and {len(parts)} passage(s) of {embedded.passage_tokens} tokens, embedded beside it (vector "
              f"search ranks the chunk by the best of them and the whole){':' if full else ''}[/]")
    for number, part in enumerate(parts if full else []):
        out.print(f"[dim]passage {number}[/]")
        out.print(part, markup=False)


def _embedded(chunk, settings: Settings) -> list[str]:
    """What is embedded for a chunk: its whole text as the embedder reads it, then its passages."""
    from flows.ingest.pipeline import embedded_texts

    return embedded_texts(chunk, settings.embed_heading_path, settings.embed_plain_cells, settings.passage_tokens,
                          settings.label_rows != "off")


def locator_text(chunk) -> str:
    parts = []
    if chunk.page_start is not None:
        parts.append(f"p. {chunk.page_start}" + (f"-{chunk.page_end}" if chunk.page_end != chunk.page_start else ""))
    if chunk.sheet is not None:
        parts.append(f"sheet {chunk.sheet}")
    if chunk.row_start is not None:
        parts.append(f"rows {chunk.row_start}-{chunk.row_end}")
    if chunk.slide_start is not None:
        parts.append(f"slide {chunk.slide_start}" + (f"-{chunk.slide_end}" if chunk.slide_end != chunk.slide_start else ""))
    parts.append(f"chars {chunk.start}-{chunk.end}")
    return ", ".join(parts)


def _preview(text: str, lines: int = 6) -> str:
    split = text.split("\n")
    head = "\n".join(split[:lines])
    if len(head) > 600:
        head = head[:600] + "…"
    return head + (f"\n… ({len(split) - lines} more lines)" if len(split) > lines else "")


def _path_above(path: str, text: str) -> str:
    """The heading path to print above a hit's text: without its last heading when the text opens
    with it (a chunk that starts at its own title showed the title twice)."""
    *parents, last = path.split(HEADING_SEPARATOR) if path else [""]
    if last and text.lstrip().startswith(last):
        return HEADING_SEPARATOR.join(parents)
    return path


def print_hits(hits: list[dict], chunks: int | None = None, query: str = "") -> None:
    """Print search hits, each by the lines of its text that hold the ``query``'s words
    (:func:`flows.app.excerpt.excerpt`), those words in bold; with none, why (``chunks``: how many
    the knowledge base holds)."""
    out = _console()
    if not hits:
        if chunks:
            out.print(f"no results: none of the knowledge base's {chunks:,} chunks holds a word of the question "
                      "(full text); --mode vector ranks them by meaning instead")
        else:
            out.print("no results: the knowledge base is empty (index a folder with `seams ingest FOLDER`)")
        return
    for rank, hit in enumerate(hits, start=1):
        out.rule(f"{rank}. {hit['doc_id']} · {hit['where']} · score {hit['score']:.4f}")
        if path := _path_above(hit.get("heading_path") or "", hit["text"]):
            out.print(f"[dim]{path}[/]", highlight=False)
        out.print(_hit_excerpt(hit["text"], query))


def _hit_excerpt(text: str, query: str, lines: int = 8):
    """The lines of a hit's text around the question's words, with how many are left out."""
    from rich.text import Text

    from flows.app.excerpt import excerpt

    part = excerpt(text, query, lines)
    shown = Text()
    if part.above:
        shown.append(f"… ({part.above} lines above)\n", style="dim")
    body = Text(part.text)
    body.highlight_words(part.terms, style="bold", case_sensitive=False)
    shown.append_text(body)
    if part.below:
        shown.append(f"\n… ({part.below} more lines)", style="dim")
    return shown
