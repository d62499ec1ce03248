"""Retrieval from scans: the development set's PDFs as page images only, beside the text originals.

    python bench/ocr_retrieval.py                       # the short Korean PDFs (about 40 pages of OCR)
    python bench/ocr_retrieval.py --files a.pdf b.pdf   # chosen files of the development set

Each chosen PDF of ``bench/devset`` (materialised) is rendered at 300 dpi in grayscale and saved as
an image-only PDF (Pillow): no text layer at all. Both folders — the originals and the scans — are
indexed with ``seams ingest`` (default settings, default embedder) into knowledge bases of one
database in a temporary folder, and the files' questions (``bench/devset/questions.jsonl``) are
asked in every mode. A question is a hit at 5 when one of the five chunks returned is of its file
and spans the page its evidence starts on (found in the original's text layer, whitespace and
compatibility forms ignored): a page-level hit, since OCR'd text cannot hold the evidence verbatim
(``seams evaluate`` locates evidence by its characters, so it cannot score scans fairly). The same
rule scores the originals, so the two columns compare. Scanned pages the ingest could not read (the
file's time limit, ``SEAMS_FILE_TIMEOUT_S``, on a busy machine) are printed: their questions miss.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DEFAULT_FILES = ("fis_이슈포커스_22-3_재정융자사업.pdf", "fis_이슈포커스_23-3_조세지출연계관리.pdf",
                 "kisa_정관_240715.pdf", "국토부_행복주택출자_사업설명.pdf", "복지부_노인일자리_사업설명.pdf")
MODES = ("fts", "vector", "hybrid")
DPI = 300


def squeeze(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


def rasterise(source: Path, target: Path) -> int:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(source))
    try:
        images = [pdf[i].render(scale=DPI / 72, grayscale=True).to_pil() for i in range(len(pdf))]
    finally:
        pdf.close()
    images[0].save(target, save_all=True, append_images=images[1:], resolution=DPI)
    return len(images)


def evidence_page(path: Path, evidence: str) -> int | None:
    import pypdfium2 as pdfium

    probe = squeeze(evidence)[:24]
    pdf = pdfium.PdfDocument(str(path))
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            text = squeeze(textpage.get_text_range())
            textpage.close()
            page.close()
            if probe and probe in text:
                return index + 1
    finally:
        pdf.close()
    return None


def ingest(folder: Path, db: Path, kb: str) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "flows.app.cli", "ingest", str(folder), "--db", str(db), "--kb", kb,
                           "--json"], check=False, cwd=REPO, capture_output=True)
    # A page the file's time limit left unread (a busy machine) loses its questions: say so, or the
    # hit rates fall for no reason the table shows.
    try:
        files = json.loads(done.stdout)["files"]
    except (ValueError, KeyError, TypeError):
        files = []
        print(f"  {kb}: seams ingest exited {done.returncode} without a report")
    for file in files:
        for warning in file.get("warnings") or ():
            if "not read" in warning:
                print(f"  {kb}: {file['doc_id']}: {warning[:160]}")
        if file.get("error"):
            print(f"  {kb}: {file['doc_id']}: {file.get('error_kind')}: {str(file['error'])[:160]}")
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default=str(REPO / ".seams" / "devset" / "files"))
    parser.add_argument("--files", nargs="*", default=list(DEFAULT_FILES))
    args = parser.parse_args()
    from flows.index.search import search
    from flows.settings import Settings

    folder = Path(args.folder)
    questions = [json.loads(line) for line in (REPO / "bench/devset/questions.jsonl").read_text().splitlines() if line]
    questions = [q for q in questions if q["file"] in args.files]
    located = []
    for question in questions:
        page = evidence_page(folder / question["file"], question["evidence"][0])
        if page is not None:
            located.append((question, page))
    print(f"{len(args.files)} files, {len(questions)} questions, {len(located)} with their evidence's page found")
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        originals, scans = root / "originals", root / "scans"
        originals.mkdir()
        scans.mkdir()
        pages = 0
        for name in args.files:
            (originals / name).write_bytes((folder / name).read_bytes())
            pages += rasterise(folder / name, scans / name)
        db = root / "db"
        seconds = {kb: ingest(path, db, kb) for kb, path in (("originals", originals), ("scans", scans))}
        print(f"ingest: originals {seconds['originals']:.0f} s, scans {seconds['scans']:.0f} s for {pages} pages "
              f"({(seconds['scans'] - seconds['originals']) / pages:.1f} s of OCR a page, the parser pool on 2 cores)")
        print(f"{'mode':8} {'originals hit@5':>16} {'scans hit@5':>12} {'difference':>11}")
        for mode in MODES:
            hits = {}
            for kb in ("originals", "scans"):
                settings = Settings(db=str(db), kb=kb)
                hits[kb] = sum(
                    any(h["doc_id"] == q["file"] and (h["page_start"] or 0) <= page <= (h["page_end"] or h["page_start"] or 0)
                        for h in search(settings, q["question"], k=5, mode=mode))
                    for q, page in located) / max(len(located), 1)
            print(f"{mode:8} {hits['originals']:>16.1%} {hits['scans']:>12.1%} "
                  f"{100 * (hits['scans'] - hits['originals']):>+10.1f}pt")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
