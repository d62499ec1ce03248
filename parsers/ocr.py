"""OCR: the Tesseract command reads page images into lines with boxes and confidences.

Scanned pages and images carry no text layer; :func:`read_image` runs ``tesseract`` (Debian:
``apt-get install tesseract-ocr tesseract-ocr-kor``) on one page image and turns its TSV output into
:class:`OcrLine` objects (text, box in points, glyph size, mean confidence) that the PDF and image
parsers lay out as they lay out a text layer's lines (paragraphs by gaps, headings by size, items by
marker), so a scan is cut like a text PDF.

Why the command and not a binding: pytesseract is itself a wrapper around this command (it writes
temporary files), and tesserocr needs the library's headers and a compiler to install; the command
reads the image on stdin and writes TSV to stdout, with no temporary file and nothing to build.

Settings matter more than the engine (``bench/ocr.py``): on the sample regulation rendered at
300 dpi, automatic page segmentation (``--psm 3``) breaks the lines into fragments (character error
rate 19-88 % a page) while one uniform block (``--psm 6``) reads 1.9-3.3 %, so 6 is the default
(:attr:`OcrOptions.psm`). One block reads two columns across the gutter, though, so the page is
first turned straight (:func:`deskewed`) and cut at a column gutter found in its ink
(:func:`column_regions`); the regions go to the engine stacked in reading order, in one call.
Tesseract's Korean model also puts a space between most syllables
("한 빛 지 역"); spaces between Hangul are therefore decided by the gap between the word boxes
(:data:`SPACE_GAP`), as a reader sees them.

Two languages in one reading cost the Korean text: with ``kor+eng`` the engine reads each word
with both models and keeps the surer one, and the English model is sure of "BAS" for 행위를, of
"AES" for 업무를. On a page whose reading holds Hangul (:data:`SECOND_READING_HANGUL`), the lines
that came out with Latin letters are therefore read again with Korean alone
(:attr:`OcrOptions.second_languages`; :func:`_read_again`), and each keeps the reading whose words
the engine is surer of (:func:`fused`). On the development set's pages at 300 dpi the median
character error rate fell from 7.2 to 5.2 %, the Korean regulations' from 3.7-7.2 to 3.3-5.2 %
(``bench/ocr.py``), for a fifth more of the engine's time on those pages; English pages are read
once. Reading the whole page again gained no more at two thirds more time; a binarised (Otsu,
Sauvola) or doubled image, ``--oem 1`` and other confidence floors gained nothing.

Words read with a confidence under :attr:`OcrOptions.min_confidence` are left out of the text and
counted in the page's warning: a guess is not invented into the index. The engine's absence is
:class:`OcrUnavailable`, whose message says how to install it; callers decide what it costs (a PDF
keeps its text pages; an image fails with kind ``no_ocr``).
"""

from __future__ import annotations

import io
import itertools
import os
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

#: What to tell a user whose folder holds scans and whose machine has no OCR engine.
INSTALL_HINT = ("install Tesseract with Korean and English (Debian/Ubuntu: apt-get install tesseract-ocr "
                "tesseract-ocr-kor tesseract-ocr-eng; macOS: brew install tesseract tesseract-lang), then run "
                "seams ingest again")
#: Two words of a line whose boxes are closer than this share of the line's glyph height are one
#: word when either side of the gap is Hangul (measured on the sample regulation: 6 % of the
#: syllable gaps misjudged at 0.35, against most of them with Tesseract's own spaces).
SPACE_GAP = 0.35


class OcrUnavailable(Exception):
    """The OCR engine (or its language data) is not installed, or it failed on every try."""


@dataclass(frozen=True)
class OcrOptions:
    """How scans are read (``SEAMS_OCR_*`` settings, see ``flows/settings.py``)."""

    enabled: bool = True
    command: str = "tesseract"
    languages: str = "kor+eng"
    dpi: int = 300
    psm: int = 6  # one uniform block of text; see the module docstring
    #: Words under this confidence (0-100) are left out of the text and counted in a warning.
    min_confidence: float = 30.0
    #: Scanned pages OCR'd per file at most; the others are reported in a warning.
    max_pages: int = 50
    #: Seconds of OCR a file may spend (the per-file time limit leaves room for the rest): the pages
    #: after it are reported, not read, and one call of the engine is stopped there. None: no limit.
    time_budget_s: float | None = None
    #: Pages whose first reading holds Hangul are read again with these languages, and each line
    #: keeps the surer reading (see the module docstring); empty: one reading.
    second_languages: str = "kor"


@dataclass(frozen=True)
class OcrLine:
    """One line as the engine read it, in points from the page's top left corner."""

    text: str
    top: float
    bottom: float
    x0: float
    x1: float
    size: float  # median glyph height, in points (a heading is set larger than the body)
    confidence: float  # mean confidence (0-100) of the words kept


@dataclass(frozen=True)
class OcrPage:
    lines: tuple[OcrLine, ...]
    confidence: float  # mean word confidence of the page (0 when nothing was read)
    dropped: tuple[str, ...] = ()  # words under the confidence floor, left out
    noise: tuple[str, ...] = ()  # lines read from a picture, not from text (:func:`is_noise`), left out


#: Told ``(file, page, pages)`` as each page is read by OCR, the slowest step of all (seconds a
#: page): whoever shows progress sets it (:func:`set_page_listener`; the ingest's parser workers
#: send it to the flow). A process-wide hook rather than a parameter, since a parser runs one file
#: at a time in its worker and the parse functions keep one signature.
_page_listener: Callable[[str, int, int], None] | None = None


def set_page_listener(listener: Callable[[str, int, int], None] | None) -> None:
    global _page_listener
    _page_listener = listener


def page_read(path: str, page: int, pages: int) -> None:
    """Tell the listener, if any, that ``page`` of ``pages`` of ``path`` was read by OCR. A listener
    that fails never fails the parse."""
    if _page_listener is not None:
        try:
            _page_listener(path, page, pages)
        except Exception:  # progress is a courtesy: a closed queue at shutdown must not lose a file
            pass


def unavailable_reason(options: OcrOptions) -> str | None:
    """Why OCR cannot run with these options (with how to install it), or None when it can."""
    if not options.enabled:
        return "OCR is turned off (SEAMS_OCR=0)"
    return _missing(options.command, options.languages)


@lru_cache(maxsize=8)
def _missing(command: str, languages: str) -> str | None:
    path = shutil.which(command)
    if path is None:
        return f"the OCR engine ({command!r}) is not installed: {INSTALL_HINT}"
    try:
        listed = subprocess.run([path, "--list-langs"], capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"the OCR engine ({path}) does not run ({exc}): {INSTALL_HINT}"
    # Tesseract 5 lists its languages on stdout, older releases on stderr: read both.
    output = (listed.stdout + b"\n" + listed.stderr).decode("utf-8", "replace")
    known = {line.strip() for line in output.splitlines() if line.strip() and not line.startswith("List of")}
    lacking = [lang for lang in languages.split("+") if lang and lang not in known]
    if lacking:
        return (f"the OCR engine has no data for {', '.join(lacking)} "
                f"(Debian/Ubuntu: apt-get install {' '.join('tesseract-ocr-' + lang for lang in lacking)})")
    return None


def read_image(image: Any, dpi: float, options: OcrOptions, timeout: float | None = None) -> OcrPage:
    """OCR one page image (a PIL image) scanned at ``dpi``; raise :class:`OcrUnavailable` when the
    engine cannot run, or ``TimeoutError`` when it takes longer than ``timeout`` seconds."""
    reason = unavailable_reason(options)
    if reason is not None:
        raise OcrUnavailable(reason)
    image = deskewed(image)
    regions = column_regions(image)
    sheet, placed = _stacked(image, regions) if len(regions) > 1 else (image, [])
    buffer = io.BytesIO()
    sheet.save(buffer, "PNG")
    started = time.monotonic()
    lines = _lines(_tesseract(buffer.getvalue(), dpi, options, options.languages, timeout))
    # A second language not installed (an English-only machine) costs the second reading, not OCR.
    if options.second_languages and options.second_languages != options.languages \
            and _missing(options.command, options.second_languages) is None \
            and _hangul_share(lines) >= SECOND_READING_HANGUL:
        left = None if timeout is None else timeout - (time.monotonic() - started)
        try:
            lines = _read_again(sheet, lines, dpi, options, left)
        except TimeoutError:
            pass  # the file's time ran out: the first reading is a reading still
    return _page(lines, 72.0 / dpi, options.min_confidence, _back(placed) if placed else None)


#: A first reading with at least this share of Hangul among its letters and digits has its lines
#: with Latin letters read again with :attr:`OcrOptions.second_languages`. English pages misread a
#: few specks as Hangul (up to 8 % on the development set) and gain nothing from a second reading
#: (no line changed when every page was read twice), so they are spared its time.
SECOND_READING_HANGUL = 0.15
#: A line read again is cut out with this share of its height around it, above and below ...
LINE_MARGIN = 0.25
#: ... and its height left and right.
LINE_SIDES = 1.0


def _read_again(sheet: Any, first: list[list[_Word]], dpi: float, options: OcrOptions,
                timeout: float | None) -> list[list[_Word]]:
    """The first reading with its lines that hold Latin letters read again with the second
    languages alone, each keeping the surer reading (:func:`fused`).

    Only those lines: where the English model took Korean words for Latin letters, the line holds
    Latin letters; a line of Hangul alone reads the same either way (on the development set, reading
    every line again changed no more than reading these). They are cut out, stacked and read in one
    call: a fifth of the page's time, where reading the whole page again took two thirds more."""
    if timeout is not None and timeout <= 0:
        raise TimeoutError
    mixed = [index for index, words in enumerate(first) if any(_latin(w.text) for w in words)]
    if not mixed:
        return first
    regions = []
    for index in mixed:
        left, top, right, bottom = _box(first[index])
        height = bottom - top
        regions.append((max(0, round(left - LINE_SIDES * height)), max(0, round(top - LINE_MARGIN * height)),
                        min(sheet.width, round(right + LINE_SIDES * height)),
                        min(sheet.height, round(bottom + LINE_MARGIN * height))))
    crops, placed = _stacked(sheet, regions)
    buffer = io.BytesIO()
    crops.save(buffer, "PNG")
    back = _back(placed)
    second = []
    for words in _lines(_tesseract(buffer.getvalue(), dpi, options, options.second_languages, timeout)):
        moved = []
        for w in words:
            dx, dy = back(w.left, w.top)
            moved.append(_Word(w.text, w.left + dx, w.top + dy, w.width, w.height, w.confidence))
        second.append(moved)
    return fused(first, second, mixed)


def _tesseract(png: bytes, dpi: float, options: OcrOptions, languages: str, timeout: float | None) -> str:
    """The engine's TSV for one page image, read with ``languages``."""
    # One thread per call: the parser pool already runs a file per core, and Tesseract's OpenMP
    # threads on a busy machine make it slower, not faster.
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    command = [options.command, "stdin", "stdout", "-l", languages, "--psm", str(options.psm),
               "--dpi", str(round(dpi)), "tsv"]
    try:
        done = subprocess.run(command, input=png, capture_output=True, env=env, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise TimeoutError(f"OCR took longer than {timeout:g} s") from exc
    except OSError as exc:
        raise OcrUnavailable(f"the OCR engine could not be started ({exc}): {INSTALL_HINT}") from exc
    if done.returncode != 0:
        message = " ".join(done.stderr.decode("utf-8", "replace").split())[:300]
        raise OcrUnavailable(f"the OCR engine failed (exit {done.returncode}): {message}")
    return done.stdout.decode("utf-8", "replace")


# ------------------------------------------------------------------------------------------- skew

#: Skews tried (degrees either way, in steps of SKEW_STEP); a page turned less than SKEW_MIN stays.
SKEW_RANGE = 3.0
SKEW_STEP = 0.2
SKEW_MIN = 0.3


def deskewed(image: Any) -> Any:
    """The page turned straight: the angle whose rows of ink are sharpest (the largest variance of
    ink per row, measured on a quarter-size copy). A page fed crooked through a scanner has its lines
    slanted across the column gutter and the engine's line finder; 0.8 degrees put a two-column page
    read across its columns (bench/ocr.py). Coordinates stay the turned page's: a fraction of a
    degree moves nothing the layout could notice."""
    import numpy as np
    from PIL import Image

    gray = image.convert("L")
    small = gray.reduce(4) if min(gray.size) >= 400 else gray
    ink = small.point(lambda value: 255 if value < INK else 0)

    def sharpness(angle: float) -> float:
        rows = np.asarray(ink.rotate(angle, resample=Image.NEAREST, fillcolor=0), dtype=np.float32).sum(axis=1)
        return float(rows.var())

    steps = round(SKEW_RANGE / SKEW_STEP)
    angles = [step * SKEW_STEP for step in range(-steps, steps + 1)]
    best = max(angles, key=lambda angle: (sharpness(angle), -abs(angle)))
    if abs(best) < SKEW_MIN:
        return image
    return gray.rotate(best, resample=Image.BICUBIC, fillcolor=255)


# ---------------------------------------------------------------------------------------- columns

#: Pixels darker than this are ink.
INK = 128
#: A gutter is at least this share of the page's width of white, down the lines beside it ...
GUTTER_WIDTH = 0.015
#: ... in the middle of the page (this share of the width from either edge) ...
GUTTER_ZONE = 0.25
#: ... and it parts at least this many lines with text on both sides, and this share of all lines.
GUTTER_LINES = 6
GUTTER_SHARE = 0.3
#: White pixels between the regions stacked for the engine.
STACK_GAP = 80

#: A region of the page image: (left, top, right, bottom) pixels.
Region = tuple[int, int, int, int]


def column_regions(image: Any) -> list[Region]:
    """The page's regions in reading order: the whole page, or — when a white gutter runs down the
    middle of a run of lines — full-width bands and, between them, the left then the right column.

    Why: with ``--psm 6`` the engine reads the page as one block, so two columns come out line by
    line across the gutter (a paper page: 74 % character errors). Its automatic segmentation
    (``--psm 3``) reads columns but breaks Korean lines apart and drops some (24-88 %). So the page
    is cut here, by its ink: lines are the runs of rows with ink; the gutter is the white vertical
    band in the middle that parts the most lines with ink on both sides; a run of at least three
    such lines, none crossing the gutter, is two columns. A title across the columns, or a table
    ruled across them, ends the run."""
    import numpy as np

    gray = np.asarray(image.convert("L"))
    ink = gray < INK
    height, width = ink.shape
    rows = ink.sum(axis=1) >= 3  # a speck of noise is no line
    bands: list[tuple[int, int]] = []
    start = None
    for y, inked in enumerate(rows):
        if inked and start is None:
            start = y
        elif not inked and start is not None:
            bands.append((start, y))
            start = None
    if start is not None:
        bands.append((start, height))
    gap = max(int(GUTTER_WIDTH * width), 4)
    low, high = int(GUTTER_ZONE * width), int((1 - GUTTER_ZONE) * width)
    if len(bands) < GUTTER_LINES or high - low <= gap:
        return [(0, 0, width, height)]
    # Per line: which columns hold ink; then, per x, whether a gutter of ``gap`` white pixels centred
    # there parts the line (white there, ink on both sides).
    inked = np.array([ink[top:bottom].any(axis=0) for top, bottom in bands])
    cumulative = np.concatenate([np.zeros((len(bands), 1), dtype=np.int64), np.cumsum(inked, axis=1)], axis=1)
    xs = np.arange(low, high)
    white = (cumulative[:, xs + gap // 2] - cumulative[:, xs - gap // 2]) == 0
    left_ink = cumulative[:, xs - gap // 2] > 0
    right_ink = (cumulative[:, -1:] - cumulative[:, xs + gap // 2]) > 0
    parts = white & left_ink & right_ink
    counts = parts.sum(axis=0)
    best = int(counts.argmax())
    if counts[best] < max(GUTTER_LINES, GUTTER_SHARE * len(bands)):
        return [(0, 0, width, height)]
    # The middle of the widest run of best positions: the gutter's centre, not its edge.
    run_end = best
    while run_end + 1 < len(counts) and counts[run_end + 1] == counts[best]:
        run_end += 1
    x = int(xs[(best + run_end) // 2])
    split, crossing = parts[:, (best + run_end) // 2], ~white[:, (best + run_end) // 2]
    regions: list[Region] = []
    index = 0
    while index < len(bands):
        if crossing[index]:
            regions.append((0, bands[index][0], width, bands[index][1]))
            index += 1
            continue
        end = index
        while end < len(bands) and not crossing[end]:
            end += 1
        top, bottom = bands[index][0], bands[end - 1][1]
        if split[index:end].sum() >= 3:
            regions += [(0, top, x, bottom), (x, top, width, bottom)]
        else:
            regions.append((0, top, width, bottom))
        index = end
    return _merged(regions, width)


def _merged(regions: list[Region], width: int) -> list[Region]:
    """Consecutive full-width regions as one (fewer seams for the engine to read across)."""
    out: list[Region] = []
    for region in regions:
        if out and out[-1][0] == 0 and out[-1][2] == width and region[0] == 0 and region[2] == width:
            out[-1] = (0, out[-1][1], width, region[3])
        else:
            out.append(region)
    return out


def _stacked(image: Any, regions: list[Region]) -> tuple[Any, list[tuple[int, Region]]]:
    """The regions pasted one under the other, in reading order, on a white sheet, with where each
    starts on the sheet (its top) — so the engine reads them in one call, column after column."""
    from PIL import Image

    width = max(r[2] - r[0] for r in regions)
    height = sum(r[3] - r[1] for r in regions) + STACK_GAP * (len(regions) + 1)
    sheet = Image.new("L", (width, height), 255)
    placed = []
    y = STACK_GAP
    for region in regions:
        sheet.paste(image.convert("L").crop(region), (0, y))
        placed.append((y, region))
        y += region[3] - region[1] + STACK_GAP
    return sheet, placed


def _back(placed: list[tuple[int, Region]]):
    """Where a word read on the stacked sheet sits on the page: (dx, dy) for its (left, top)."""
    tops = [y for y, _ in placed]

    def shift(left: int, top: int) -> tuple[int, int]:
        import bisect

        index = max(bisect.bisect_right(tops, top) - 1, 0)
        y, region = placed[index]
        return region[0], region[1] - y

    return shift


@dataclass(frozen=True)
class _Word:
    text: str
    left: int
    top: int
    width: int
    height: int
    confidence: float


def lines_from_tsv(tsv: str, scale: float, min_confidence: float,
                   shift: Callable[[int, int], tuple[int, int]] | None = None) -> OcrPage:
    """Tesseract's TSV (level 5 rows are words, keyed by block, paragraph and line) -> lines in
    points (pixels times ``scale``), words under ``min_confidence`` left out; ``shift`` moves a
    word read at (left, top) of a stacked sheet back to its place on the page."""
    return _page(_lines(tsv), scale, min_confidence, shift)


def _lines(tsv: str) -> list[list[_Word]]:
    """The words of each line of Tesseract's TSV, lines in the engine's order."""
    lines: dict[tuple[str, str, str], list[_Word]] = {}
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) != 12 or cells[0] != "5" or not cells[11].strip():
            continue
        try:
            word = _Word(cells[11].strip(), *(int(c) for c in cells[6:10]), float(cells[10]))
        except ValueError:
            continue
        lines.setdefault((cells[2], cells[3], cells[4]), []).append(word)
    return list(lines.values())


#: Two readings' lines are the same line when their boxes share this much of the smaller box.
SAME_LINE = 0.6


def fused(first: list[list[_Word]], second: list[list[_Word]], only: list[int] | None = None) -> list[list[_Word]]:
    """The first reading's lines (those at the indexes ``only``, or all), each replaced by the
    second reading's same line (the one whose box overlaps it most) where the engine was surer of
    that one (a higher mean word confidence).

    Both readings come from the same image, so their lines are the same lines (the words within may
    be cut differently: the Korean model splits syllables apart); the engine's own confidence
    decides, line by line, which language model read a line better."""
    boxes = [_box(words) for words in second]
    chosen = set(range(len(first)) if only is None else only)
    out = []
    for index, words in enumerate(first):
        if index not in chosen:
            out.append(words)
            continue
        box = _box(words)
        overlaps = [_overlap(box, other) for other in boxes]
        best = max(range(len(boxes)), key=overlaps.__getitem__, default=None)
        if best is not None and overlaps[best] >= SAME_LINE and _surety(second[best]) > _surety(words):
            out.append(second[best])
        else:
            out.append(words)
    return out


def _box(words: list[_Word]) -> Region:
    return (min(w.left for w in words), min(w.top for w in words),
            max(w.left + w.width for w in words), max(w.top + w.height for w in words))


def _overlap(a: Region, b: Region) -> float:
    """The area two boxes share, as a share of the smaller one."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return width * height / max(smaller, 1)


def _surety(words: list[_Word]) -> float:
    return statistics.fmean(w.confidence for w in words)


def _hangul_share(lines: list[list[_Word]]) -> float:
    """The share of Hangul among the letters and digits read."""
    chars = [char for words in lines for word in words for char in word.text if char.isalnum()]
    return sum(map(_hangul, chars)) / len(chars) if chars else 0.0


#: A line the engine is this unsure of (mean word confidence) ...
NOISE_CONFIDENCE = 65.0
#: ... with at least this share of its words noise (no letter or digit, or one lone jamo, Latin
#: letter or symbol) was read from a picture, not from text: see :func:`is_noise`.
NOISE_WORDS = 0.5


def _noise_word(text: str) -> bool:
    core = [char for char in text if char.isalnum()]
    return not core or (len(core) == 1 and not ("\uac00" <= core[0] <= "\ud7a3" or core[0].isdigit()))


def is_noise(words: Sequence[str], confidence: float) -> bool:
    """Whether a line of ``words`` read with a mean ``confidence`` is what the engine made of a
    picture rather than of text: unsure (under :data:`NOISE_CONFIDENCE`) and at least
    :data:`NOISE_WORDS` of its words noise — marks without a letter or digit, lone jamo, lone Latin
    letters (``ㄴㄴ So = = = =``, ``: . 는 수 a @``).

    Why: a report's decorative cover picture came out as two dozen such lines, in the chunk that
    opens the report. Read on every scanned page of the four question sets, the rule leaves out 22
    lines of the development set's cover (11 stay, among them its title and date), one of a ruled
    form's page (``Tee x``) and 3 of a report's section dividers (``22. ^``); no line of clean text:
    a line of spaced syllables (``인 공 지 능 산업의``) has no noise word, and the engine is sure of
    clean text. At 40 % of noise words it also left out lines holding real figures of rendered text
    pages (``떨 7 > 2024 Q``, ``800 | | 삐리 07``); ``bench/ocr.py`` measures what it costs there
    (docs/parsing.md)."""
    return confidence < NOISE_CONFIDENCE and sum(map(_noise_word, words)) >= NOISE_WORDS * len(words)


def _page(lines: list[list[_Word]], scale: float, min_confidence: float,
          shift: Callable[[int, int], tuple[int, int]] | None) -> OcrPage:
    """Lines of words (in pixels of the sheet the engine read) -> the page's lines in points."""
    out: list[OcrLine] = []
    dropped: list[str] = []
    noise: list[str] = []
    confidences: list[float] = []
    for line in lines:
        words = []
        for word in line:
            if shift is not None:
                dx, dy = shift(word.left, word.top)
                word = _Word(word.text, word.left + dx, word.top + dy, word.width, word.height, word.confidence)
            if word.confidence < min_confidence:
                dropped.append(word.text)
            else:
                words.append(word)
        if not words:
            continue
        if is_noise([w.text for w in words], statistics.fmean(w.confidence for w in words)):
            noise.append(" ".join(w.text for w in sorted(words, key=lambda w: w.left)))
            continue
        words.sort(key=lambda w: w.left)
        height = statistics.median(w.height for w in words)
        text = words[0].text
        for before, word in itertools.pairwise(words):
            gap = word.left - (before.left + before.width)
            joined = gap < SPACE_GAP * height and (_hangul(before.text[-1]) or _hangul(word.text[0]))
            text += ("" if joined else " ") + word.text
        confidences.extend(w.confidence for w in words)
        out.append(OcrLine(
            text=text, top=min(w.top for w in words) * scale, bottom=max(w.top + w.height for w in words) * scale,
            x0=words[0].left * scale, x1=max(w.left + w.width for w in words) * scale,
            # Whole points: glyph boxes are ink, and ink heights vary by a pixel or two a line.
            size=float(round(height * scale)), confidence=round(statistics.fmean(w.confidence for w in words), 1),
        ))
    confidence = round(statistics.fmean(confidences), 1) if confidences else 0.0
    return OcrPage(tuple(out), confidence, tuple(dropped), tuple(noise))


def _latin(text: str) -> bool:
    return any("a" <= char.lower() <= "z" for char in text)


def _hangul(char: str) -> bool:
    return "\uac00" <= char <= "\ud7a3" or "\u3131" <= char <= "\u318e"


def dropped_warning(page: int, ocr: OcrPage, floor: float) -> str | None:
    """The warning for what the OCR of a page left out: words under the confidence floor, lines of
    picture noise (:func:`is_noise`)."""
    parts = []
    if ocr.dropped:
        shown = ", ".join(repr(w) for w in ocr.dropped[:5]) + (", …" if len(ocr.dropped) > 5 else "")
        parts.append(f"{len(ocr.dropped)} OCR word(s) under confidence {floor:g} left out ({shown})")
    if ocr.noise:
        shown = ", ".join(repr(line) for line in ocr.noise[:2]) + (", …" if len(ocr.noise) > 2 else "")
        parts.append(f"{len(ocr.noise)} line(s) read from a picture, not text, left out ({shown})")
    return f"page {page}: {'; '.join(parts)}" if parts else None
