"""OCR accuracy and time: real text PDFs rendered to page images, read back by seams' OCR, compared
with their own text layer.

    python bench/ocr.py                           # the development set's PDFs (bench/devset, materialised)
    python bench/ocr.py --folder examples         # or any folder of text PDFs
    python bench/ocr.py --settings                # also page segmentation modes and languages, 300 dpi

For each PDF, one page is taken: the first after the cover whose text layer holds at least
:data:`MIN_CHARS` characters (the cover when no other has). It is rendered with pypdfium2 in
grayscale at 150 and 300 dpi, and at 300 dpi once more with mild damage — Gaussian noise (sigma
:data:`NOISE_SIGMA` of 255) and a skew of :data:`SKEW_DEGREES` degrees, as a page fed crooked
through a scanner — and each image is read by :func:`parsers.ocr.read_image` with seams' settings
(``kor+eng``, ``--psm 6``, words under confidence 30 left out). The character error rate is the
edit distance between the OCR text and the text layer, both NFKC-normalised with all whitespace
removed (spacing and line breaks do not count), divided by the text layer's length; reading order
counts: the text compared is the page's blocks as seams lays them out (a two-column page read
across the columns scores badly). Seconds per page are the engine's
wall time for the page (the gutter search included) (one thread: ``OMP_THREAD_LIMIT=1``, as in the parser pool), rendering
excluded. "bag err" is the same comparison with the order not counted (the characters one side
has and the other lacks): where it is far below the CER, the page is read in another order than
its text layer holds (a spread of two pages, boxes the layout program drew last). The last lines sum each variant over all pages, with its ratio to 300 dpi clean measured
in the same run.
"""

from __future__ import annotations

import argparse
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
#: Page segmentation modes and languages compared with --settings (300 dpi, clean).
SETTINGS = ((6, "kor+eng"), (6, "kor"), (4, "kor+eng"), (3, "kor+eng"))


def squeeze(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


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


def measure(image, dpi: float, options: OcrOptions, reference: str) -> tuple[float, float, float, float]:
    started = time.perf_counter()
    page = read_image(image, dpi, options)
    seconds = time.perf_counter() - started
    truth = squeeze(reference)
    text = squeeze(ocr_text(page, image.width * 72 / dpi, image.height * 72 / dpi))
    return distance(text, truth) / max(len(truth), 1), bag_error(text, truth), seconds, page.confidence


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default=str(REPO / ".seams" / "devset" / "files"), help="folder of text PDFs")
    parser.add_argument("--limit", type=int, help="the first N PDFs only (by name)")
    parser.add_argument("--only", nargs="*", help="these PDFs only (names in the folder)")
    parser.add_argument("--settings", action="store_true", help="also compare page segmentation modes and languages")
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
    rows: list[tuple[str, int, str, int, float, float, float, float]] = []
    print(f"{'document':44} {'page':>4} {'chars':>6} {'variant':20} {'CER':>7} {'bag err':>7} {'conf':>5} "
          f"{'s/page':>7}")
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
        chars = len(squeeze(reference))
        variants = [(name, dpi, options, damage(images[dpi]) if damaged else images[dpi])
                    for name, dpi, damaged in VARIANTS]
        if args.settings:
            variants += [(f"300 psm {psm} {langs}", 300, OcrOptions(languages=langs, psm=psm), images[300])
                         for psm, langs in SETTINGS if (psm, langs) != (options.psm, options.languages)]
        for name, dpi, variant_options, image in variants:
            cer, bag, seconds, confidence = measure(image, dpi, variant_options, reference)
            rows.append((path.name, index + 1, name, chars, cer, seconds, confidence, bag))
            print(f"{path.name[:44]:44} {index + 1:>4} {chars:>6} {name:20} {cer:>7.1%} {bag:>7.1%} {confidence:>5.1f} "
                  f"{seconds:>7.1f}", flush=True)
    print()
    print(f"{'variant':24} {'pages':>5} {'CER (chars)':>12} {'median CER':>11} {'bag err':>8} {'median bag':>11} "
          f"{'s/page':>7} {'time x':>7}")
    base = [r for r in rows if r[2] == "300 dpi"]
    base_seconds = statistics.fmean(r[5] for r in base)
    for name in dict.fromkeys(r[2] for r in rows):
        chosen = [r for r in rows if r[2] == name]
        pooled = sum(r[4] * r[3] for r in chosen) / sum(r[3] for r in chosen)
        bag = sum(r[7] * r[3] for r in chosen) / sum(r[3] for r in chosen)
        seconds = statistics.fmean(r[5] for r in chosen)
        print(f"{name:24} {len(chosen):>5} {pooled:>12.1%} {statistics.median(r[4] for r in chosen):>11.1%} "
              f"{bag:>8.1%} {statistics.median(r[7] for r in chosen):>11.1%} {seconds:>7.1f} {seconds / base_seconds:>6.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
