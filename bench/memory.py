"""Peak memory of parsing and cutting one large file, per format, against the same process before
it reads the file (imports and tokenizer loaded: the baseline, measured in the same run).

Each file is parsed and cut (``parsers.parse`` + ``flows.ingest.pipeline.cut_document``, what a parser
worker does) in a fresh child process. The child first parses and cuts a tiny file of the same format,
as a worker that has read one file would have done: the format's libraries are loaded (openpyxl alone
is 23 MB, python-pptx 14 MB, BeautifulSoup 12 MB) and belong to the idle process, not to the file.
Then it notes its resident memory, resets the kernel's
peak counter (``/proc/self/clear_refs``, Linux), does the work and reads the peak (``VmHWM``). The
table shows what the file added and that addition against the size of the text the file holds — the number that says
how many bytes of memory each byte of text costs while it is parsed and cut (the file's own size
says little for zipped formats).

``--ingest`` measures a whole ``seams ingest`` instead, as a user runs it: for each format, a folder
holding the one large file is indexed into a fresh database while this script samples ``/proc``
every 20 ms: the peak of the ingest process itself (``VmHWM``, exact) and the peak of its whole process
tree (the sum of ``VmRSS`` over it and its descendants — parser workers, forkserver, resource
tracker — sampled). The idle baseline, in the same run, is the same command on a folder holding a
tiny file of that format: start-up, the Prefect server, the embedder and the format's libraries. The
ratio is (peak − idle) / the file's size, against issue #17's target of 5× (and, since a zipped file
holds several times its size in text, the main process's addition per byte of text too).

Usage: python bench/memory.py [--scale 1.0] [--keep DIR]
       python bench/memory.py --ingest [--scale 1.0] [--embedder hashing] [--formats csv,md]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # the file writers live in tests/fixtures/files.py

CHILD = """
import sys
from flows.environment import apply_defaults
apply_defaults()
from flows.ingest.pipeline import CutConfig, cut_document
from parsers import parse
from splitters import Budget, cl100k_counter
cl100k_counter()("warm up the tokenizer")
cut_document(parse(sys.argv[2]), CutConfig(Budget()), sys.argv[2])  # the format's libraries, loaded


def status(field):
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith(field + ":"))


before = status("VmRSS")
with open("/proc/self/clear_refs", "w") as handle:  # reset the peak (VmHWM) to the current RSS
    handle.write("5")
doc = parse(sys.argv[1])
cut_document(doc, CutConfig(Budget()), sys.argv[1])
print(before, status("VmHWM"), len(doc.text.encode("utf-8")))
"""

WORDS = ("예산 집행 현황 점검 지역 디지털 전환 지원 사업 계획 개인정보 파기 기한 budget review quarterly "
         "growth region data policy report travel station hiring plan 회의 결과 다음 분기 목표").split()


def sentence(i: int, n: int = 14) -> str:
    return " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(n)) + "."


def make_files(folder: Path, scale: float | dict[str, float], formats: list[str] | None = None) -> dict[str, Path]:
    """One generated file per format (all of them, or ``formats``) under ``folder``; ``scale`` multiplies
    their sizes, one factor for all or one per format."""
    from fixtures.files import Slide, make_csv, make_docx, make_pdf, make_pptx, make_xlsx

    folder.mkdir(parents=True, exist_ok=True)

    def n(name: str, base: int) -> int:
        return max(1, int(base * (scale.get(name, 1.0) if isinstance(scale, dict) else scale)))

    def sheet_rows(name: str, height: int) -> list[list[str]]:
        return [[f"열{c}" for c in range(10)]] + [[f"값 {r}-{c}" for c in range(10)] for r in range(n(name, height))]

    def html(path: Path) -> Path:
        table = "".join(f"<tr><td>{r}</td><td>{sentence(r, 6)}</td></tr>" for r in range(n("html", 20_000)))
        body = "".join(f"<h2>절 {i}</h2><p>{sentence(i, 40)}</p>" for i in range(n("html", 20_000)))
        path.write_text(f"<html><body>{body}<table>{table}</table></body></html>", "utf-8")
        return path

    def markdown(path: Path) -> Path:
        path.write_text("".join(f"## 절 {i}\n\n{sentence(i, 60)}\n\n" for i in range(n("md", 60_000))), "utf-8")
        return path

    writers = {
        "pdf": lambda path: make_pdf(path, [[sentence(p * 9 + i, 40) for i in range(9)] for p in range(n("pdf", 300))]),
        "xlsx": lambda path: make_xlsx(path, {"data": sheet_rows("xlsx", 60_000)}),
        "csv": lambda path: make_csv(path, sheet_rows("csv", 240_000)),
        "docx": lambda path: make_docx(path, [sentence(i, 40) for i in range(n("docx", 8_000))]),
        "pptx": lambda path: make_pptx(path, [Slide(f"슬라이드 {i}", [sentence(i), sentence(i + 1)])
                                              for i in range(n("pptx", 400))]),
        "html": html,
        "md": markdown,
    }
    return {name: write(folder / f"big.{name}") for name, write in writers.items() if formats is None or name in formats}


#: ``--ingest`` sizes each format's file to hold about 2–3 MB of text (times ``--scale``): a whole
#: ingest embeds every chunk and its passages, so the sizes of the parse-only table would take minutes.
INGEST_SCALE = {"pdf": 3.0, "xlsx": 0.3, "csv": 0.1, "docx": 1.0, "pptx": 5.0, "html": 0.4, "md": 0.1}


def peak_rss_mb(path: str, warm: str) -> tuple[float, float, float]:
    """(RSS before reading the file, after a tiny file of its format, peak RSS while parsing and
    cutting it, its text), in MB."""
    out = subprocess.run([sys.executable, "-c", CHILD, path, warm], cwd=REPO, capture_output=True, text=True,
                         check=True)
    before, peak, text = (int(v) for v in out.stdout.split())
    return before / 1024, peak / 1024, text / 2**20


def _status_kb(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as handle:
        return next((int(line.split()[1]) for line in handle if line.startswith(field + ":")), 0)


def _tree(pid: int) -> list[int]:
    """``pid`` and every process below it (one pass over /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    parents[int(entry)] = int(handle.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [pid], [pid]
    while frontier:
        frontier = [child for child, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def ingest_peaks(folder: Path, db: Path, embedder: str) -> tuple[float, float, float]:
    """(peak RSS of the ``seams ingest`` process, peak of its process tree, seconds), MB and s."""
    command = [sys.executable, "-m", "flows.app.cli", "ingest", str(folder), "--db", str(db), "--embedder", embedder]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    main_peak = tree_peak = 0
    while process.poll() is None:
        total = 0
        for pid in _tree(process.pid):
            try:
                total += _status_kb(pid, "VmRSS")
                if pid == process.pid:
                    main_peak = max(main_peak, _status_kb(pid, "VmHWM"))
            except OSError:
                continue  # the process ended between the listing and the read
        tree_peak = max(tree_peak, total)
        time.sleep(0.02)
    seconds = time.perf_counter() - started
    errors = process.stderr.read()
    if process.returncode != 0:
        raise SystemExit(f"seams ingest {folder} exited {process.returncode}: {errors[-2000:]}")
    return main_peak / 1024, tree_peak / 1024, seconds


def main_ingest(args: argparse.Namespace, folder: Path) -> None:
    formats = args.formats.split(",") if args.formats else None
    for earlier in ("run", "idle", "db", "db-idle"):  # a --keep folder of an earlier run: start afresh
        shutil.rmtree(folder / earlier, ignore_errors=True)
    files = make_files(folder / "big", {name: args.scale * f for name, f in INGEST_SCALE.items()}, formats)
    tiny = make_files(folder / "tiny", 0.0001, formats)
    print(f"embedder {args.embedder}; peaks in MB; ratio = (peak − idle) / file size, target ≤ 5×")
    print("| format | file MB | text MB | idle main | peak main | main ratio | main / text | idle tree | peak tree "
          "| tree ratio | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, path in files.items():
        from parsers import parse

        text = len(parse(path).text.encode("utf-8")) / 2**20
        size = path.stat().st_size / 2**20
        alone, idle_alone = folder / "run" / name, folder / "idle" / name
        for target, source in ((alone, path), (idle_alone, tiny[name])):
            target.mkdir(parents=True, exist_ok=True)
            os.link(source, target / source.name)
        idle_main, idle_tree, _ = ingest_peaks(idle_alone, folder / "db-idle" / name, args.embedder)
        peak_main, peak_tree, seconds = ingest_peaks(alone, folder / "db" / name, args.embedder)
        print(f"| {name} | {size:.1f} | {text:.1f} | {idle_main:.0f} | {peak_main:.0f} | "
              f"{(peak_main - idle_main) / size:.1f}× | {(peak_main - idle_main) / text:.0f}× | {idle_tree:.0f} | "
              f"{peak_tree:.0f} | "
              f"{(peak_tree - idle_tree) / size:.1f}× | {seconds:.0f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the generated files' sizes "
                        "(default 1.0; with --ingest, of the sizes in INGEST_SCALE)")
    parser.add_argument("--keep", help="write the files here instead of a temporary folder")
    parser.add_argument("--ingest", action="store_true", help="measure whole `seams ingest` runs (see above)")
    parser.add_argument("--embedder", default="hashing", help="the embedder of --ingest runs")
    parser.add_argument("--formats", help="only these formats, comma-separated (csv,xlsx,pdf,docx,pptx,html,md)")
    args = parser.parse_args()
    if args.ingest:
        with tempfile.TemporaryDirectory(prefix="seams-memory-") as tmp:
            folder = Path(args.keep or tmp)
            folder.mkdir(parents=True, exist_ok=True)
            main_ingest(args, folder)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        files = make_files(folder, args.scale)
        (folder / "tiny").mkdir(exist_ok=True)
        tiny = make_files(folder / "tiny", 0.0001)
        print("| format | file MB | its text MB | RSS before MB | peak while parsing and cutting MB | added MB "
              "| added / text |")
        print("|---|---|---|---|---|---|---|")
        for name, path in files.items():
            size = path.stat().st_size / 2**20
            before, peak, text = peak_rss_mb(str(path), str(tiny[name]))
            print(f"| {name} | {size:.1f} | {text:.1f} | {before:.0f} | {peak:.0f} | {peak - before:.0f} | "
                  f"{(peak - before) / text:.0f}× |", flush=True)


if __name__ == "__main__":
    main()
