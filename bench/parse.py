"""Parser throughput and peak memory: seams' parsers against the plain libraries, in one run.

    python bench/parse.py            # writes its inputs to a temp dir, prints a table (~1 minute
                                     # for the generated inputs, several more for the real PDFs)

Inputs (generated, Korean + English, deterministic): a 50-page A4 report whose every tenth page
carries a ruled table, and the same report written as HWPX; a 50,000-cell workbook (5,000 rows x
10 columns); a 50-slide deck with bullets, notes and a table on every fifth slide. Real Hangul
files: the readable (not encrypted) HWP and HWPX files of ``bench/hangul/manifest.json``, written
out of the fetched repository snapshots when those are on this machine (skipped with a message
otherwise); each format's files are parsed one after the other in one measurement. Real documents
of other formats: the development set's PDFs (Korean regulations, notices and briefs, English
reports: ``pdf-real``) and workbooks (``xlsx-real``) from ``bench/devset/manifest.json``, the
same way; those folders are measured once, without a warm-up run.

Each measurement runs in a forked child so that its peak memory is its own: "peak MB" is the
child's peak resident set size above what it started with (the libraries are imported before
forking). Rates are units per second of wall time for one parse of the file; "seams ×" compares wall
times on the same input.

Competitors: for PDF, pdfplumber's ``extract_text`` on every page and pypdfium2's
``get_text_range`` on every page (text only, no structure), plus pdfplumber's line-and-table pass
on every page (pdfminer parsing each page; seams finds the same grids from pdfium's paths); for XLSX, openpyxl's
read-only ``iter_rows(values_only=True)``; for PPTX, python-pptx walking every shape's text; for
HWPX, lxml parsing every section part and joining every paragraph's ``hp:t`` text; for HWP, olefile
opening the container, zlib inflating every ``BodyText`` section and walking its records to decode
each ``PARA_TEXT``. Those two are the bare extractions under seams' own readers (which use the same
libraries). The Hangul rows count paragraphs: the bare extraction's non-empty paragraphs (table
cells' paragraphs included), and the seams row of the same input is credited with that count, so
both rows divide the same number.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # the file writers live in tests/fixtures/files.py
sys.path.insert(0, str(REPO / "bench" / "hangul"))  # the bare HWP record walk: records.py


# ------------------------------------------------------------------------------------------- inputs


def write_inputs(folder: Path) -> dict[str, Path]:
    from fixtures.files import Slide, make_hwpx, make_pptx, make_report_pdf, make_xlsx

    items: list[tuple[str, object]] = []
    sentence = ("○ 지역 중소기업의 디지털 전환을 지원하여 생산성을 높이고, 성과를 점검한다. "
                "The programme funds diagnosis, adoption and follow-up for regional firms. ")
    for page in range(1, 51):
        items.append(("h1", f"{page}. 추진 과제 Section {page}"))
        if page % 10 == 0:
            items.append(("table", [["구분 Item", "2024년", "2025년", "2026년"]]
                          + [[f"지표 {r} Metric", str(100 + r), str(120 + r), str(140 + r)] for r in range(8)]))
        for _ in range(6 if page % 10 else 2):
            items.append(("p", sentence * 2))
        items.append(("pagebreak", ""))
    pdf = make_report_pdf(folder / "report.pdf", items[:-1], header="Benchmark report 벤치마크 보고서")
    hwpx = make_hwpx(folder / "report.hwpx", items[:-1], header="Benchmark report 벤치마크 보고서", section_size=100)

    rows: list[list[object]] = [["일자 Date", "지역 Region", "제품 Product", "채널 Channel", "수량 Qty",
                                 "단가 Price", "매출 Revenue", "반품 Returns", "순매출 Net", "비고 Note"]]
    regions = ["서울 Seoul", "부산 Busan", "대구 Daegu", "광주 Gwangju", "대전 Daejeon"]
    for r in range(1, 5000):
        qty, price = r % 97 + 1, 1000 + (r * 37) % 9000
        rows.append([f"2025-{r % 12 + 1:02d}-{r % 28 + 1:02d}", regions[r % 5], f"제품 {r % 40}", "온라인 Online",
                     qty, price, qty * price, (r % 7) * 100, qty * price - (r % 7) * 100, "정상" if r % 9 else "확인"])
    xlsx = make_xlsx(folder / "sales.xlsx", {"매출 Sales": rows})

    slides = []
    for n in range(1, 51):
        table = ([["권역 Region", "Q3", "Q4"], ["수도권", "1,820", "2,040"], ["동남권", "870", "905"]]
                 if n % 5 == 0 else None)
        slides.append(Slide(f"{n}. 분기 리뷰 Review", ["매출 증가 Revenue up", (1, "온라인 비중 47%"),
                                                     "리스크 Risks", (1, "부품 단가 상승")],
                            table=table, notes=f"발표자 메모 {n}: 강조할 점."))
    pptx = make_pptx(folder / "deck.pptx", slides)
    return {"pdf": pdf, "hwpx-gen": hwpx, "xlsx": xlsx, "pptx": pptx, **hangul_inputs(folder),
            **devset_inputs(folder)}


def real_inputs(folder: Path, manifest: Path, store: Path, formats: dict[str, str],
                skip_kinds: tuple[str, ...] = ()) -> dict[str, Path]:
    """Folders of real public files pinned by ``manifest`` (materialised into ``store`` from the
    repository snapshots on this machine), one per input name: ``formats`` maps the input name to
    the file extension it takes. An input none of whose files could be written is skipped, saying so."""
    import json

    sys.path.insert(0, str(REPO / "bench" / "devset"))
    from materialise import DEFAULT_MIRROR, file_matches, load_manifest, materialise

    wanted = {raw["name"] for raw in json.loads(manifest.read_text(encoding="utf-8"))
              if raw.get("kind") not in skip_kinds}
    entries = [entry for entry in load_manifest(manifest) if entry.name in wanted]
    if any(not file_matches(store / entry.name, entry.sha256) for entry in entries):
        materialise(entries, store, DEFAULT_MIRROR)  # says which snapshots are missing
    found: dict[str, Path] = {}
    for name, ext in formats.items():
        present = [entry.name for entry in entries if entry.name.lower().endswith(f".{ext}")
                   and file_matches(store / entry.name, entry.sha256)]
        if not present:
            print(f"no real .{ext} files for {name} (their snapshots are not on this machine): rows skipped")
            continue
        found[name] = folder / name
        found[name].mkdir()
        for file_name in present:
            (found[name] / file_name).symlink_to(store / file_name)
    return found


def hangul_inputs(folder: Path) -> dict[str, Path]:
    """The real readable HWP and HWPX files of ``bench/hangul/manifest.json``."""
    return real_inputs(folder, REPO / "bench" / "hangul" / "manifest.json", REPO / ".seams" / "hangul" / "files",
                       {"hwp": "hwp", "hwpx": "hwpx"}, skip_kinds=("encrypted",))


def devset_inputs(folder: Path) -> dict[str, Path]:
    """The development set's real PDFs and workbooks (``bench/devset/manifest.json``)."""
    return real_inputs(folder, REPO / "bench" / "devset" / "manifest.json", REPO / ".seams" / "devset" / "files",
                       {"pdf-real": "pdf", "xlsx-real": "xlsx"})


def _files(path: Path) -> list[Path]:
    return sorted(path.iterdir()) if path.is_dir() else [path]


# ------------------------------------------------------------------------------------------- tasks


def seams_parse(path: Path) -> int:
    from parsers import parse

    if path.is_dir() and path.name not in ("hwp", "hwpx"):  # a folder of real PDFs or workbooks
        return sum(seams_parse(one) for one in _files(path))
    if path.is_dir() or path.suffix == ".hwpx":  # Hangul inputs: credited with the bare paragraph count
        return sum(len(parse(one).blocks) for one in _files(path))
    doc = parse(path)
    if doc.format == "pdf":
        return doc.page_count
    if doc.format == "xlsx":
        return sum(len(b.table.rows) * len(b.table.rows[0]) for b in doc.blocks if b.table)
    return doc.properties.slides


def _each_file(task: Callable[[Path], int]) -> Callable[[Path], int]:
    """``task`` over every file of a folder input (summed), or over a single file."""

    def run(path: Path) -> int:
        return sum(task(one) for one in _files(path))

    run.__name__ = task.__name__
    return run


@_each_file
def pdfplumber_text(path: Path) -> int:
    import pdfplumber

    with pdfplumber.open(str(path)) as pdf:
        for page in pdf.pages:
            page.extract_text()
            page.close()
        return len(pdf.pages)


@_each_file
def pdfplumber_lines_and_tables(path: Path) -> int:
    import pdfplumber

    with pdfplumber.open(str(path)) as pdf:
        for page in pdf.pages:
            page.find_tables()
            page.extract_text_lines(return_chars=False)
            page.close()
        return len(pdf.pages)


@_each_file
def pypdfium2_text(path: Path) -> int:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    for index in range(len(pdf)):
        page = pdf[index]
        textpage = page.get_textpage()
        textpage.get_text_range()
        textpage.close()
        page.close()
    count = len(pdf)
    pdf.close()
    return count


@_each_file
def openpyxl_values(path: Path) -> int:
    import openpyxl

    workbook = openpyxl.load_workbook(str(path), read_only=True, data_only=True)
    cells = 0
    for sheet in workbook.worksheets:
        for row in sheet.iter_rows(values_only=True):
            cells += sum(1 for _ in row)
    workbook.close()
    return cells


def python_pptx_text(path: Path) -> int:
    from pptx import Presentation

    deck = Presentation(str(path))
    for slide in deck.slides:
        for shape in slide.shapes:
            if shape.has_text_frame:
                _ = shape.text_frame.text
            elif getattr(shape, "has_table", False) and shape.has_table:
                _ = [cell.text for row in shape.table.rows for cell in row.cells]
        if slide.has_notes_slide:
            _ = slide.notes_slide.notes_text_frame.text
    return len(deck.slides)


def lxml_hwpx_text(path: Path) -> int:
    import re
    import zipfile

    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    paragraphs = 0
    for one in _files(path):
        with zipfile.ZipFile(one) as archive:
            for name in archive.namelist():
                if not re.search(r"Contents/section\d+\.xml$", name):
                    continue
                root = etree.fromstring(archive.read(name), parser)
                for p in root.iter("{*}p"):
                    text = "".join("".join(t.itertext()) for run in p.iterchildren("{*}run")
                                   for t in run.iterchildren("{*}t"))
                    paragraphs += bool(text.strip())
    return paragraphs


def olefile_hwp_text(path: Path) -> int:
    from records import PARA_TEXT, hwp_body_records

    paragraphs = 0
    for one in _files(path):
        for tag, _, data in hwp_body_records(one):
            if tag == PARA_TEXT:
                paragraphs += any(ch >= " " for ch in data.decode("utf-16-le", "replace"))
    return paragraphs


# ------------------------------------------------------------------------------------- measuring


def _memory_kb(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _child(task: Callable[[Path], int], path: Path, queue: mp.Queue) -> None:
    start_rss = _memory_kb("VmRSS")
    started = time.perf_counter()
    units = task(path)
    seconds = time.perf_counter() - started
    queue.put((units, seconds, max(_memory_kb("VmHWM") - start_rss, 0) / 1024))


def measure(task: Callable[[Path], int], path: Path) -> tuple[int, float, float]:
    """(units, seconds, peak MB above the start) of one run of ``task`` in a forked child."""
    context = mp.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=_child, args=(task, path, queue))
    process.start()
    result = queue.get(timeout=3600)  # the real PDFs take minutes on a loaded machine
    process.join()
    return result


_UNIT = {"pages": "p", "cells": "c", "slides": "s", "paragraphs": "¶"}


def main() -> None:
    # Import every library before forking, so children measure parsing, not imports.
    import lxml.etree  # noqa: F401
    import olefile  # noqa: F401
    import openpyxl  # noqa: F401
    import pdfplumber  # noqa: F401
    import pptx  # noqa: F401
    import pypdfium2  # noqa: F401

    import parsers  # noqa: F401

    with tempfile.TemporaryDirectory(prefix="seams-bench-") as tmp:
        started = time.perf_counter()
        inputs = write_inputs(Path(tmp))
        print(f"inputs written in {time.perf_counter() - started:.1f} s: "
              + ", ".join(f"{p.name} ({sum(f.stat().st_size for f in _files(p)) / 1e6:.1f} MB"
                         + (f" in {len(_files(p))} files)" if p.is_dir() else ")") for p in inputs.values()))
        runs = [
            ("pdf", "pages", "seams parse (pdfium text + ruled tables)", seams_parse),
            ("pdf", "pages", "pypdfium2 get_text_range", pypdfium2_text),
            ("pdf", "pages", "pdfplumber extract_text", pdfplumber_text),
            ("pdf", "pages", "pdfplumber lines + find_tables", pdfplumber_lines_and_tables),
            ("pdf-real", "pages", "seams parse (pdfium text + ruled tables)", seams_parse),
            ("pdf-real", "pages", "pypdfium2 get_text_range", pypdfium2_text),
            ("pdf-real", "pages", "pdfplumber extract_text", pdfplumber_text),
            ("pdf-real", "pages", "pdfplumber lines + find_tables", pdfplumber_lines_and_tables),
            ("hwpx-gen", "paragraphs", "seams parse (lxml)", seams_parse),
            ("hwpx-gen", "paragraphs", "lxml hp:t walk", lxml_hwpx_text),
            ("hwpx", "paragraphs", "seams parse (lxml)", seams_parse),
            ("hwpx", "paragraphs", "lxml hp:t walk", lxml_hwpx_text),
            ("hwp", "paragraphs", "seams parse (olefile + zlib records)", seams_parse),
            ("hwp", "paragraphs", "olefile + zlib PARA_TEXT walk", olefile_hwp_text),
            ("xlsx", "cells", "seams parse (lxml stream)", seams_parse),
            ("xlsx", "cells", "openpyxl read-only iter_rows", openpyxl_values),
            ("xlsx-real", "cells", "seams parse (lxml stream)", seams_parse),
            ("xlsx-real", "cells", "openpyxl read-only iter_rows", openpyxl_values),
            ("pptx", "slides", "seams parse", seams_parse),
            ("pptx", "slides", "python-pptx text walk", python_pptx_text),
        ]
        results = []
        for fmt, unit, name, task in runs:
            if fmt not in inputs:
                continue
            if not fmt.endswith("-real"):  # the real folders take minutes: measured once
                measure(task, inputs[fmt])  # warm the page cache and lazy imports in the parent's view
            units, seconds, peak = measure(task, inputs[fmt])
            results.append((fmt, unit, name, units, seconds, peak))
    bare = {fmt: units for fmt, unit, name, units, _, _ in results if unit == "paragraphs" and not name.startswith("seams")}
    results = [(fmt, unit, name, bare.get(fmt, units) if unit == "paragraphs" else units, seconds, peak)
               for fmt, unit, name, units, seconds, peak in results]
    seams_seconds = {fmt: seconds for fmt, _, name, _, seconds, _ in results if name.startswith("seams")}
    header = f"{'input':9} {'parser':48} {'units':>8} {'seconds':>8} {'units/s':>10} {'peak MB':>8} {'seams ×':>8}"
    print(header)
    print("-" * len(header))
    for fmt, unit, name, units, seconds, peak in results:
        rate = units / seconds
        ratio = seconds / seams_seconds[fmt]  # the same input: how much longer the other took
        print(f"{fmt:9} {name:48} {units:>6} {_UNIT[unit]} {seconds:8.3f} {rate:10,.0f} {peak:8.1f} {ratio:8.2f}")
    print("\nseams × = how many times faster seams is than that parser (below 1: slower);"
          " units: p = pages, c = cells, s = slides, ¶ = paragraphs")
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
