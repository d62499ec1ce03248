"""Peak memory of parsing and cutting one large file, per format, against the same process before
it reads the file (imports and tokenizer loaded: the baseline, measured in the same run).

Each file is parsed and cut (``parsers.parse`` + ``flows.pipeline.cut_document``, what a parser
worker does) in a fresh child process. The child first parses and cuts a tiny file of the same format,
as a worker that has read one file would have done: the format's libraries are loaded (openpyxl alone
is 23 MB, python-pptx 14 MB, BeautifulSoup 12 MB) and belong to the idle process, not to the file.
Then it notes its resident memory, resets the kernel's
peak counter (``/proc/self/clear_refs``, Linux), does the work and reads the peak (``VmHWM``). The
table shows what the file added and that addition against the size of the text the file holds — the number that says
how many bytes of memory each byte of text costs while it is parsed and cut (the file's own size
says little for zipped formats).

Usage: python bench/memory.py [--scale 1.0] [--keep DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # the file writers live in tests/fixtures/files.py

CHILD = """
import sys
from flows.environment import apply_defaults
apply_defaults()
from flows.pipeline import CutConfig, cut_document
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


def make_files(folder: Path, scale: float) -> dict[str, Path]:
    from fixtures.files import Slide, make_csv, make_docx, make_pdf, make_pptx, make_xlsx

    n = lambda base: max(1, int(base * scale))  # noqa: E731
    files: dict[str, Path] = {}
    files["pdf"] = make_pdf(folder / "big.pdf", [[sentence(p * 9 + i, 40) for i in range(9)] for p in range(n(300))])
    rows = [[f"열{c}" for c in range(10)]] + [[f"값 {r}-{c}" for c in range(10)] for r in range(n(60_000))]
    files["xlsx"] = make_xlsx(folder / "big.xlsx", {"data": rows})
    files["csv"] = make_csv(folder / "big.csv", rows * 4)
    files["docx"] = make_docx(folder / "big.docx", [sentence(i, 40) for i in range(n(8_000))])
    files["pptx"] = make_pptx(folder / "big.pptx", [Slide(f"슬라이드 {i}", [sentence(i), sentence(i + 1)])
                                                     for i in range(n(400))])
    table = "".join(f"<tr><td>{r}</td><td>{sentence(r, 6)}</td></tr>" for r in range(n(20_000)))
    body = "".join(f"<h2>절 {i}</h2><p>{sentence(i, 40)}</p>" for i in range(n(20_000)))
    (folder / "big.html").write_text(f"<html><body>{body}<table>{table}</table></body></html>", "utf-8")
    files["html"] = folder / "big.html"
    (folder / "big.md").write_text("".join(f"## 절 {i}\n\n{sentence(i, 60)}\n\n" for i in range(n(60_000))), "utf-8")
    files["md"] = folder / "big.md"
    return files


def peak_rss_mb(path: str, warm: str) -> tuple[float, float, float]:
    """(RSS before reading the file, after a tiny file of its format, peak RSS while parsing and
    cutting it, its text), in MB."""
    out = subprocess.run([sys.executable, "-c", CHILD, path, warm], cwd=REPO, capture_output=True, text=True,
                         check=True)
    before, peak, text = (int(v) for v in out.stdout.split())
    return before / 1024, peak / 1024, text / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the generated files' sizes")
    parser.add_argument("--keep", help="write the files here instead of a temporary folder")
    args = parser.parse_args()
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
