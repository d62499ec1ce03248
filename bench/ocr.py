"""OCR accuracy and time: real text PDFs rendered to page images, read back by seams' OCR, compared
with their own text layer.

    python bench/ocr.py                           # the development set's PDFs (bench/devset, materialised)
    python bench/ocr.py --folder examples         # or any folder of text PDFs
    python bench/ocr.py --settings                # also one kor+eng reading and kor alone, 300 dpi
    python bench/ocr.py --settings psm3 psm4      # or other settings (names in SETTINGS)

For each PDF, one page is taken: the first after the cover whose text layer holds at least
:data:`MIN_CHARS` characters (the cover when no other has). It is rendered with pypdfium2 in
grayscale at 150 and 300 dpi, and at 300 dpi once more with mild damage — Gaussian noise (sigma
:data:`NOISE_SIGMA` of 255) and a skew of :data:`SKEW_DEGREES` degrees, as a page fed crooked
through a scanner — and each image is read by :func:`parsers.ocr.read_image` with seams' settings
(``kor+eng``, on pages with Hangul the lines with Latin letters read again with ``kor``, ``--psm 6``,
words under confidence 30 left out). The character error rate is the edit distance between the OCR
text and the text layer, both NFKC-normalised with all whitespace removed (spacing and line breaks
do not count), divided by the text layer's length; reading order counts: the text compared is the
page's blocks as seams lays them out (a two-column page read across the columns scores badly).
Seconds per page are the wall time of :func:`~parsers.ocr.read_image` for the page (straightening
and the gutter search included, rendering excluded; one thread: ``OMP_THREAD_LIMIT=1``, as in the
parser pool); "cpu s" is the CPU time it took, the engine's included, which a machine busy with
other work does not inflate as it does the wall time. "bag err" is the same comparison with the
order not counted (the characters one side has and the other lacks): where it is far below the
CER, the page is read in another order than its text layer holds (a spread of two pages, boxes the
layout program drew last). The last lines sum each variant over all pages, with its ratio to 300 dpi
clean measured in the same run.

"fair" is the same CER after folding, on both sides, what a page image cannot tell apart or a
reader and a search take for the same mark (:func:`fair`): a run of three or more leader dots is one (a contents page's text layer holds 40
dots where the eye sees a dotted line, and the engine reads some number of them); the middle dots
Korean text sets (·, ㆍ, ․, ‧, ・ and their kin) are one; curly quotes are straight ones; the text
layer's hyphen of a word broken at a line's end (U+FFFE in pdfium's text) is the hyphen the page
prints. Nothing else is folded: a misread letter, digit or Hanja counts in both.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from parsers.ocr import OcrOptions, OcrPage, read_image, unavailable_reason  # noqa: E402
from parsers.pdf.scans import ocr_document  # noqa: E402

MIN_CHARS = 400
NOISE_SIGMA = 12.0
SKEW_DEGREES = 0.8
#: (name, dpi, damaged)
VARIANTS = (("150 dpi", 150, False), ("300 dpi", 300, False), ("300 dpi noisy+skew", 300, True))
#: Settings compared with --settings (300 dpi, clean): name -> options.
SETTINGS = {
    "one reading": OcrOptions(second_languages=""),  # kor+eng only, as before the second reading
    "kor": OcrOptions(languages="kor", second_languages=""),
    "psm4": OcrOptions(psm=4),
    "psm3": OcrOptions(psm=3),
}
#: Compared by --settings when it names none.
DEFAULT_SETTINGS = ("one reading", "kor")


def squeeze(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


#: What a page image cannot tell apart (see the module docstring).
_DOTS = str.maketrans(dict.fromkeys("\u00b7\u2024\u2027\u2219\u22c5\u30fb\u318d\u119e\uff65", "\u00b7"))
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
_LEADERS = re.compile(r"[.\u00b7\u2026]{3,}")


def fair(text: str) -> str:
    """:func:`squeeze` after folding leader runs, middle dots, curly quotes and the text layer's
    broken-word hyphen, on either side alike."""
    return _LEADERS.sub("\u2026", squeeze(text.replace("\ufffe", "-").translate(_DOTS).translate(_QUOTES)))


def distance(a: str, b: str) -> int:
    try:
        from rapidfuzz.distance import Levenshtein
    except ImportError:  # a plain dynamic programme: slower, same number
        previous = list(range(len(b) + 1))
        for i, ca in enumerate(a, start=1):
            current = [i]
            for j, cb in enumerate(b, start=1):
                current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
            previous = current
        return previous[-1]
    return Levenshtein.distance(a, b)


def bag_error(text: str, truth: str) -> float:
    """The characters one text has and the other lacks, as a share of the reference: character errors
    with the order not counted (a reading order that differs from the text layer's costs nothing)."""
    from collections import Counter

    ours, theirs = Counter(text), Counter(truth)
    return max(sum((ours - theirs).values()), sum((theirs - ours).values())) / max(len(truth), 1)


def pick_page(pdf) -> tuple[int, str]:
    texts = []
    for index in range(len(pdf)):
        page = pdf[index]
        textpage = page.get_textpage()
        texts.append(textpage.get_text_range())
        textpage.close()
        page.close()
        if index >= 1 and len(squeeze(texts[-1])) >= MIN_CHARS:
            return index, texts[-1]
    best = max(range(len(texts)), key=lambda i: len(squeeze(texts[i])))
    return best, texts[best]


def damage(image):
    import numpy as np
    from PIL import Image

    pixels = np.asarray(image, dtype=np.float32)
    noisy = pixels + np.random.default_rng(7).normal(0.0, NOISE_SIGMA, pixels.shape)
    damaged = Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8))
    return damaged.rotate(SKEW_DEGREES, resample=Image.BILINEAR, expand=True, fillcolor=255)


def ocr_text(page: OcrPage, width: float, height: float) -> str:
    """What seams indexes of the page: its lines laid out as blocks (reading order included), the
    running header and page number kept (the text layer has them too)."""
    document = ocr_document("page", "pdf", [(width, height, page)])
    return "\n".join(block.text for block in document.blocks)


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the engine), user and system."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(image, dpi: float, options: OcrOptions, reference: str) -> dict[str, float]:
    started, cpu = time.perf_counter(), cpu_seconds()
    page = read_image(image, dpi, options)
    seconds, cpu = time.perf_counter() - started, cpu_seconds() - cpu
    read = ocr_text(page, image.width * 72 / dpi, image.height * 72 / dpi)
    out = {"seconds": seconds, "cpu": cpu, "confidence": page.confidence}
    for name, norm in (("", squeeze), ("fair ", fair)):
        truth, text = norm(reference), norm(read)
        out[f"{name}chars"] = len(truth)
        out[f"{name}cer"] = distance(text, truth) / max(len(truth), 1)
        out[f"{name}bag"] = bag_error(text, truth)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default=str(REPO / ".seams" / "devset" / "files"), help="folder of text PDFs")
    parser.add_argument("--limit", type=int, help="the first N PDFs only (by name)")
    parser.add_argument("--only", nargs="*", help="these PDFs only (names in the folder)")
    parser.add_argument("--settings", nargs="*", choices=list(SETTINGS),
                        help=f"also these settings at 300 dpi (none named: {', '.join(DEFAULT_SETTINGS)})")
    args = parser.parse_args()
    import pypdfium2 as pdfium

    reason = unavailable_reason(OcrOptions())
    if reason is not None:
        print(f"bench/ocr.py: {reason}", file=sys.stderr)
        return 2
    files = sorted(Path(args.folder).glob("*.pdf"))[: args.limit]
    if args.only:
        files = [f for f in files if f.name in args.only]
    if not files:
        print(f"bench/ocr.py: no PDF in {args.folder} (materialise the development set: bench/devset/README.md)",
              file=sys.stderr)
        return 2
    options = OcrOptions()
    settings = [] if args.settings is None else (args.settings or list(DEFAULT_SETTINGS))
    rows: list[tuple[str, str, dict[str, float]]] = []
    print(f"{'document':44} {'page':>4} {'chars':>6} {'variant':20} {'CER':>7} {'fair':>7} {'bag err':>7} "
          f"{'fair':>7} {'conf':>5} {'s/page':>7} {'cpu s':>6}")
    for path in files:
        pdf = pdfium.PdfDocument(str(path))
        try:
            index, reference = pick_page(pdf)
            images = {}
            for dpi in sorted({v[1] for v in VARIANTS}):
                page = pdf[index]
                images[dpi] = page.render(scale=dpi / 72, grayscale=True).to_pil()
                page.close()
        finally:
            pdf.close()
        variants = [(name, dpi, options, damage(images[dpi]) if damaged else images[dpi])
                    for name, dpi, damaged in VARIANTS]
        variants += [(f"300 {name}", 300, SETTINGS[name], images[300]) for name in settings]
        for name, dpi, variant_options, image in variants:
            m = measure(image, dpi, variant_options, reference)
            rows.append((path.name, name, m))
            print(f"{path.name[:44]:44} {index + 1:>4} {m['chars']:>6} {name:20} {m['cer']:>7.1%} {m['fair cer']:>7.1%} "
                  f"{m['bag']:>7.1%} {m['fair bag']:>7.1%} {m['confidence']:>5.1f} {m['seconds']:>7.1f} {m['cpu']:>6.1f}", flush=True)
    print()
    print(f"{'variant':24} {'pages':>5} {'CER (chars)':>12} {'median CER':>11} {'median fair':>12} {'bag err':>8} "
          f"{'median bag':>11} {'median fair':>12} {'s/page':>7} {'time x':>7} {'cpu s':>6} {'cpu x':>6}")
    base_seconds = statistics.fmean(m["seconds"] for _, name, m in rows if name == "300 dpi")
    base_cpu = statistics.fmean(m["cpu"] for _, name, m in rows if name == "300 dpi")
    for variant in dict.fromkeys(name for _, name, _ in rows):
        chosen = [m for _, name, m in rows if name == variant]

        def median(key: str, chosen=chosen) -> float:
            return statistics.median(m[key] for m in chosen)

        def pooled(key: str, chars: str, chosen=chosen) -> float:
            return sum(m[key] * m[chars] for m in chosen) / sum(m[chars] for m in chosen)

        seconds, cpu = statistics.fmean(m["seconds"] for m in chosen), statistics.fmean(m["cpu"] for m in chosen)
        print(f"{variant:24} {len(chosen):>5} {pooled('cer', 'chars'):>12.1%} {median('cer'):>11.1%} "
              f"{median('fair cer'):>12.1%} {pooled('bag', 'chars'):>8.1%} {median('bag'):>11.1%} "
              f"{median('fair bag'):>12.1%} {seconds:>7.1f} {seconds / base_seconds:>6.2f}x {cpu:>6.1f} {cpu / base_cpu:>5.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
