"""OCR of scanned PDF pages and images (issue #34), with the real engine on real renders.

The scans are made here from the sample regulation's pages (pypdfium2 renders them, Pillow saves
them as an image-only PDF, a PNG or a TIFF), so nothing binary is committed and the text layer of
the original is the reference. Tests that run the engine skip, saying why, only where Tesseract
with Korean is not installed (``.ci/run`` installs it); the tests of a missing engine always run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES

from flows.app.cli import EXIT_OK, EXIT_SOME_FAILED, main
from parsers import parse
from parsers.errors import EmptyFile, NeedsOcr, TooLarge, UnsupportedFile
from parsers.ocr import OcrOptions, lines_from_tsv, unavailable_reason

REGULATION = EXAMPLES / "개인정보_보호_규정.pdf"
NO_ENGINE = unavailable_reason(OcrOptions())
needs_engine = pytest.mark.skipif(NO_ENGINE is not None, reason=f"OCR engine not available here: {NO_ENGINE}")
#: A resolution that keeps each page's OCR to a few seconds on a busy machine.
DPI = 200


def render(pages: list[int], dpi: int = DPI) -> list:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(REGULATION))
    try:
        return [pdf[index].render(scale=dpi / 72, grayscale=True).to_pil() for index in pages]
    finally:
        pdf.close()


def image_pdf(path: Path, pages: list[int]) -> Path:
    """The regulation's pages as page images only: a PDF with no text layer at all."""
    images = render(pages)
    images[0].save(path, save_all=True, append_images=images[1:], resolution=DPI)
    return path


@pytest.fixture(scope="module")
def scans(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("scans")
    image_pdf(folder / "규정_스캔.pdf", [0, 2])
    render([1])[0].save(folder / "규정_2쪽.png", dpi=(DPI, DPI))
    return folder


def ingest(folder: Path, db: Path, capsys, *flags: str) -> tuple[int, dict]:
    code = main(["ingest", str(folder), "--db", str(db), "--embedder", "hashing", "--json", *flags])
    return code, json.loads(capsys.readouterr().out)


def search(db: Path, question: str, capsys) -> list[dict]:
    assert main(["search", question, "--db", str(db), "-k", "5", "--json"]) == EXIT_OK
    return json.loads(capsys.readouterr().out)["hits"]


# ------------------------------------------------------------------------------ with the engine


@needs_engine
def test_an_image_only_pdf_and_a_png_are_read_indexed_and_found_once(scans, tmp_path, capsys):
    """Done-when of issue #34: the scans are indexed and `seams search` finds 개인정보 questions in them;
    a second run OCRs nothing (the unchanged-file rule)."""
    db = tmp_path / "db"
    code, report = ingest(scans, db, capsys)
    assert code == EXIT_OK, report
    files = {f["doc_id"]: f for f in report["files"]}
    assert files["규정_스캔.pdf"]["format"] == "pdf" and files["규정_2쪽.png"]["format"] == "image"
    assert all(f["status"] == "indexed" and f["chunks"] >= 1 for f in files.values())
    # Page 3 of the regulation (the scan's page 2) holds the breach notice; page 2 (the PNG) the
    # third-party provision.
    hits = search(db, "개인정보 유출 통지 72시간", capsys)
    assert hits[0]["doc_id"] == "규정_스캔.pdf" and "72시간" in hits[0]["text"], hits[0]
    assert hits[0]["page_end"] == 2
    hits = search(db, "개인정보 제3자 제공 대장", capsys)
    assert hits[0]["doc_id"] == "규정_2쪽.png" and hits[0]["page_start"] == 1, hits[0]
    code, again = ingest(scans, db, capsys)
    assert code == EXIT_OK and {f["action"] for f in again["files"]} == {"unchanged"}


@needs_engine
def test_each_page_read_by_ocr_is_shown_as_it_is_read_from_the_parser_workers(scans, tmp_path, capsys):
    """OCR takes seconds a page: the ingest says which page of which file it has read, from the
    parser worker processes (off a terminal, a line each)."""
    code = main(["ingest", str(scans), "--db", str(tmp_path / "db"), "--embedder", "hashing", "--workers", "2"])
    err = capsys.readouterr().err
    assert code == EXIT_OK, err
    for line in ("규정_스캔.pdf: OCR page 1/2", "규정_스캔.pdf: OCR page 2/2", "규정_2쪽.png: OCR page 1/1"):
        assert line in err, err
    # in process (no pool) the same lines come straight from the parser
    code = main(["ingest", str(scans), "--db", str(tmp_path / "db0"), "--embedder", "hashing", "--workers", "0"])
    err = capsys.readouterr().err
    assert code == EXIT_OK and "규정_스캔.pdf: OCR page 2/2" in err, err


@needs_engine
def test_a_mixed_pdf_keeps_its_text_pages_and_ocrs_only_the_scanned_one(tmp_path):
    import pypdfium2 as pdfium

    scanned = image_pdf(tmp_path / "scan.pdf", [0, 1, 2])
    mixed_path = tmp_path / "mixed.pdf"
    mixed = pdfium.PdfDocument(str(REGULATION))
    source = pdfium.PdfDocument(str(scanned))
    try:
        mixed.del_page(1)
        mixed.import_pages(source, [1], index=1)  # page 2 becomes a page image
        mixed.save(str(mixed_path))
    finally:
        mixed.close()
        source.close()
    original, document = parse(REGULATION), parse(mixed_path)
    assert [p.ocr is not None for p in document.properties.pages] == [False, True, False]
    assert document.properties.pages[1].ocr > 80  # mean word confidence of a clean render

    def on(doc, page):  # the blocks that start and end on the page
        return [b.text for b in doc.blocks if b.locator.page == page and (b.locator.page_end or page) == page]

    def touching(doc, page):
        return [b.text for b in doc.blocks if b.locator.page <= page <= (b.locator.page_end or b.locator.page)]

    # The text pages' blocks are the original's, character for character (a paragraph running over
    # a page break into the scanned page may be joined with its OCR'd rest, as in any PDF).
    texts = {b.text for b in document.blocks}
    joined = touching(document, 2)
    for page in (1, 3):
        assert on(original, page), page
        for text in on(original, page):
            assert text in texts or any(block.startswith(text + "\n") for block in joined), text
    ocr_text = "".join(" ".join(touching(document, 2)).split())
    assert "제6조" in ocr_text and "제3자" in ocr_text and "민감정보" in ocr_text


def cover_pdf(path: Path, drawn: str, over: str, apart: str) -> Path:
    """A scanned cover: the regulation's first page shrunk into the top of a page image, ``drawn``
    printed into the image below it, and an invisible text layer (as a scanner's own OCR writes) of two
    short lines: ``over`` at the very place of ``drawn``, ``apart`` on a blank part of the image."""
    from fixtures.files import FONT_FAMILY, FONT_PATH, _fpdf_class
    from fpdf.enums import TextMode
    from PIL import Image, ImageDraw, ImageFont

    width, height = round(210 / 25.4 * DPI), round(297 / 25.4 * DPI)
    page = Image.new("L", (width, height), 255)
    shown = render([0])[0]
    page.paste(shown.resize((round(shown.width * 0.75), round(shown.height * 0.75))), (0, 0))
    px = DPI / 25.4  # pixels per millimetre
    size_mm = 16 * 25.4 / 72  # 16 pt
    ImageDraw.Draw(page).text((30 * px, 240 * px), drawn, fill=0, font=ImageFont.truetype(str(FONT_PATH), round(size_mm * px)))
    image = path.with_suffix(".png")
    page.save(image, dpi=(DPI, DPI))
    pdf = _fpdf_class()(False, "", False)
    pdf.add_page()
    pdf.image(str(image), x=0, y=0, w=210, h=297)
    pdf.set_font(FONT_FAMILY, size=16)
    pdf.text_mode = TextMode.INVISIBLE
    pdf.text(30, 240 + size_mm * 0.85, over)  # its baseline: over the drawn line's glyphs
    pdf.set_font(FONT_FAMILY, size=10)
    pdf.text(30, 280, apart)
    pdf.output(str(path))
    return path


@needs_engine
def test_a_scanned_page_keeps_its_few_text_layer_lines_over_the_ocr_of_their_place(tmp_path):
    document = parse(cover_pdf(tmp_path / "cover.pdf", drawn="보고서 제12호", over="보고서 제12호", apart="발행 KISA"))
    assert document.properties.pages[0].ocr is not None  # next to no text layer, an image over it: a scan
    text = "".join(document.text.split())
    assert "제1조" in text or "목적" in text  # the image's own text is read by OCR
    assert "발행KISA" in text  # the layer's line where the image is blank: kept, though OCR sees nothing
    assert text.count("보고서제12호") == 1  # the layer's line and the OCR reading of its place: once


@needs_engine
def test_a_multi_page_tiff_is_a_page_per_frame_and_inspect_names_the_ocr_pages(tmp_path, capsys):
    tops = [image.crop((0, 0, image.width, image.height // 4)) for image in render([0, 2])]
    tiff = tmp_path / "frames.tif"
    tops[0].save(tiff, save_all=True, append_images=tops[1:], dpi=(DPI, DPI))
    assert main(["inspect", str(tiff), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "image"
    assert [p["page"] for p in data["ocr_pages"]] == [1, 2] and all(p["confidence"] > 50 for p in data["ocr_pages"])
    document = parse(tiff)
    first = "".join(" ".join(b.text for b in document.blocks if b.locator.page == 1).split())
    second = "".join(" ".join(b.text for b in document.blocks if b.locator.page == 2).split())
    assert "개인정보보호규정" in first and "제1조" in first
    assert "제11조" in second


def test_the_page_limit_is_reported_not_ignored(scans):
    """SEAMS_OCR_MAX_PAGES=0: no page is rendered; a PDF of scans only fails and says which limit."""
    with pytest.raises(TooLarge, match="SEAMS_OCR_MAX_PAGES"):
        parse(scans / "규정_스캔.pdf", ocr=OcrOptions(max_pages=0))
    with pytest.raises(TooLarge, match="SEAMS_FILE_TIMEOUT_S"):
        parse(scans / "규정_스캔.pdf", ocr=OcrOptions(time_budget_s=0.0))


# --------------------------------------------------------------------------- without the engine


def test_without_the_engine_scans_fail_with_the_install_hint_and_the_rest_is_indexed(scans, tmp_path, capsys,
                                                                                     monkeypatch):
    folder = tmp_path / "folder"
    folder.mkdir()
    for scan in scans.iterdir():
        (folder / scan.name).write_bytes(scan.read_bytes())
    (folder / "memo.md").write_text("# 회의록\n\n개인정보 보호 교육은 매년 1회 실시한다.\n", encoding="utf-8")
    monkeypatch.setenv("SEAMS_OCR_COMMAND", str(tmp_path / "no-such-tesseract"))
    db = tmp_path / "db"
    code, report = ingest(folder, db, capsys)
    assert code == EXIT_SOME_FAILED
    files = {f["doc_id"]: f for f in report["files"]}
    assert files["memo.md"]["status"] == "indexed"
    for name in ("규정_스캔.pdf", "규정_2쪽.png"):
        assert files[name]["status"] == "failed" and files[name]["error_kind"] == "no_ocr", files[name]
        assert "apt-get install tesseract-ocr tesseract-ocr-kor" in files[name]["error"]
    # A passing reason: the scans are tried again at the next run (installing the engine is enough),
    # the memo is not.
    code, again = ingest(folder, db, capsys)
    actions = {f["doc_id"]: f["action"] for f in again["files"]}
    assert code == EXIT_SOME_FAILED and actions["memo.md"] == "unchanged"
    assert all(f["error_kind"] == "no_ocr" for f in again["files"] if f["doc_id"] != "memo.md")


def test_without_the_engine_the_ingest_says_so_at_its_start(scans, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SEAMS_OCR_COMMAND", str(tmp_path / "no-such-tesseract"))
    main(["ingest", str(scans), "--db", str(tmp_path / "db"), "--embedder", "hashing"])
    err = capsys.readouterr().err
    assert "seams: note: 1 image file(s) found" in err and "apt-get install tesseract-ocr" in err


def test_a_pdf_with_text_pages_loses_nothing_without_the_engine(tmp_path, monkeypatch, capsys):
    import pypdfium2 as pdfium

    mixed_path = tmp_path / "mixed.pdf"
    mixed = pdfium.PdfDocument(str(REGULATION))
    source = pdfium.PdfDocument(str(image_pdf(tmp_path / "scan.pdf", [2])))
    try:
        mixed.del_page(2)
        mixed.import_pages(source, [0], index=2)
        mixed.save(str(mixed_path))
    finally:
        mixed.close()
        source.close()
    document = parse(mixed_path, ocr=OcrOptions(command=str(tmp_path / "none")))
    assert "제1조(목적)" in document.text and "제6조" in document.text
    assert any("scanned page 3 not read" in w and "apt-get install" in w for w in document.warnings)
    assert all(p.ocr is None for p in document.properties.pages)
    [(page, reason)] = document.properties.unread  # what a report says is missing, without parsing warnings
    assert page == 3 and "apt-get install" in reason
    monkeypatch.setenv("SEAMS_OCR_COMMAND", str(tmp_path / "none"))
    assert main(["inspect", str(mixed_path), "--json"]) == 0
    assert [p["page"] for p in json.loads(capsys.readouterr().out)["unread_pages"]] == [3]
    with pytest.raises(NeedsOcr, match="apt-get install"):
        parse(tmp_path / "scan.pdf", ocr=OcrOptions(command=str(tmp_path / "none")))


# ------------------------------------------------------------------------------- the engine's TSV

_HEADER = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"


def _word(line: int, number: int, left: int, width: int, conf: float, text: str, top: int = 100) -> str:
    return f"5\t1\t1\t1\t{line}\t{number}\t{left}\t{top + 40 * line}\t{width}\t30\t{conf}\t{text}\n"


def test_tsv_lines_join_hangul_syllables_by_their_gaps_and_leave_out_unsure_words():
    """Tesseract's Korean model spaces most syllables apart ("한 빛 지 역"): spaces between Hangul
    follow the gap between the boxes; Latin words keep theirs; words under the floor are left out."""
    tsv = _HEADER + "".join([
        _word(1, 1, 100, 30, 93, "한"), _word(1, 2, 138, 30, 91, "빛"), _word(1, 3, 172, 90, 95, "진흥원"),
        _word(1, 4, 292, 30, 96, "규"), _word(1, 5, 326, 30, 12, "#"),
        _word(2, 1, 100, 60, 90, "data"), _word(2, 2, 164, 60, 90, "set"),
    ])
    page = lines_from_tsv(tsv, 72 / 300, min_confidence=30)
    assert [line.text for line in page.lines] == ["한빛진흥원 규", "data set"]
    assert page.dropped == ("#",)
    first = page.lines[0]
    assert first.x0 == pytest.approx(100 * 72 / 300) and first.size == round(30 * 72 / 300)
    assert first.confidence == pytest.approx((93 + 91 + 95 + 96) / 4, abs=0.1)


def test_a_line_read_from_a_picture_is_left_out_and_said():
    """A decorative picture on a cover comes out of the engine as lines of marks, lone jamo and lone
    Latin letters, read unsurely: such a line is left out and named in the page's warning. A line of
    spaced syllables, a sure line of marks (a ruled table's ``| |``) and an unsure line of words stay."""
    from parsers.ocr import dropped_warning, is_noise

    tsv = _HEADER + "".join([
        _word(1, 1, 100, 30, 52, "ㄴㄴ"), _word(1, 2, 140, 30, 55, "So"), _word(1, 3, 180, 20, 50, "="),
        _word(1, 4, 210, 20, 53, "="), _word(1, 5, 240, 20, 51, "x"),
        _word(2, 1, 100, 30, 90, "인"), _word(2, 2, 180, 30, 88, "공"), _word(2, 3, 260, 90, 91, "산업의"),
        _word(3, 1, 100, 10, 80, "|"), _word(3, 2, 300, 10, 78, "|"),
        _word(4, 1, 100, 60, 50, "기술능력"), _word(4, 2, 200, 60, 48, "평가"), _word(4, 3, 300, 10, 52, "|"),
    ])
    page = lines_from_tsv(tsv, 72 / 300, min_confidence=30)
    assert [line.text for line in page.lines] == ["인 공 산업의", "| |", "기술능력 평가 |"]
    assert page.noise == ("ㄴㄴ So = = x",)
    assert dropped_warning(1, page, 30) == "page 1: 1 line(s) read from a picture, not text, left out ('ㄴㄴ So = = x')"
    assert not is_noise(["ㄴㄴ", "So", "=", "=", "x"], 65.0) and is_noise(["=", "x", "2"], 64.9)


def test_each_line_keeps_the_reading_the_engine_is_surer_of():
    """A Korean page is read twice (kor+eng, then kor alone): a line the English model took for
    Latin letters ("BAS" for 행위를) takes the Korean reading, a line of English keeps its own, and a
    line the second reading lacks stays."""
    from parsers.ocr import _lines, _page, fused

    first = _HEADER + "".join([
        _word(1, 1, 100, 120, 62, "BAS"), _word(1, 2, 240, 60, 70, "말한다"),
        _word(2, 1, 100, 80, 95, "data"), _word(2, 2, 190, 60, 94, "set"),
        _word(3, 1, 100, 90, 88, "제5조"),
    ])
    second = _HEADER + "".join([
        _word(1, 1, 100, 36, 90, "행"), _word(1, 2, 138, 36, 91, "위"), _word(1, 3, 176, 44, 92, "를"),
        _word(1, 4, 240, 60, 90, "말한다"),
        _word(2, 1, 100, 150, 40, "데이타셋"),
    ])
    lines = fused(_lines(first), _lines(second))
    assert [line.text for line in _page(lines, 72 / 300, 30, None).lines] == ["행위를 말한다", "data set", "제5조"]


@needs_engine
def test_a_korean_page_read_twice_has_half_the_errors_of_one_kor_eng_reading():
    """The sample regulation's third page at 200 dpi: one kor+eng reading misses 3.1 % of its
    characters (Korean words read as Latin letters), the second reading with Korean alone, line by
    line, 1.4 % (measured; bench/ocr.py measures the development set)."""
    import pypdfium2 as pdfium

    from parsers.ocr import read_image

    pdf = pdfium.PdfDocument(str(REGULATION))
    try:
        textpage = pdf[2].get_textpage()
        truth = "".join(textpage.get_text_range().split())
    finally:
        pdf.close()
    image = render([2])[0]

    def errors(options: OcrOptions) -> int:  # the edit distance to the text layer, spaces aside
        read = "".join(line.text for line in read_image(image, DPI, options).lines).replace(" ", "")
        previous = list(range(len(truth) + 1))
        for i, char in enumerate(read, start=1):
            current = [i]
            for j, other in enumerate(truth, start=1):
                current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other)))
            previous = current
        return previous[-1]

    once, twice = errors(OcrOptions(second_languages="")), errors(OcrOptions())
    assert twice < 0.7 * once, (twice, once, len(truth))


@needs_engine
def test_a_second_language_not_installed_costs_the_second_reading_not_ocr():
    """An English-only machine (no ``kor`` data) with the default second reading still reads."""
    from parsers.ocr import read_image

    assert unavailable_reason(OcrOptions(second_languages="xx_none")) is None
    image = render([2])[0]
    top = image.crop((0, 0, image.width, image.height // 4))
    missing = read_image(top, DPI, OcrOptions(second_languages="xx_none"))
    assert missing.lines and missing == read_image(top, DPI, OcrOptions(second_languages=""))


@needs_engine
def test_two_columns_are_read_one_after_the_other(tmp_path):
    """Read as one block, two columns came out line by line across the gutter (a two-column paper
    page: 74 % character errors, bench/ocr.py); the gutter found in the ink splits them."""
    from PIL import Image

    from parsers.ocr import column_regions

    left, right = (page.resize((page.width // 2, page.height // 2)) for page in render([1, 2], dpi=300))
    sheet = Image.new("L", (left.width + right.width, left.height), 255)
    sheet.paste(left, (0, 0))
    sheet.paste(right, (left.width, 0))
    regions = column_regions(sheet)
    assert len(regions) == 2 and regions[0][2] == regions[1][0], regions
    assert regions[0][0] == 0 and regions[1][2] == sheet.width
    path = tmp_path / "columns.png"
    sheet.save(path, dpi=(300, 300))
    text = "".join(parse(path).text.split())
    # The left column (the regulation's page 2) before the right (page 3: 제10조 on, 부칙 at its end).
    marks = [text.find(mark) for mark in ("정보주체에게알려야", "제3자에게제공", "비밀번호", "부칙")]
    assert -1 < marks[0] < marks[1] < marks[2] < marks[3], (marks, text)
    assert len(column_regions(render([1])[0])) == 1, "a page of one column stays whole"


def test_with_ocr_turned_off_images_are_skipped_and_scans_are_empty(scans):
    """SEAMS_OCR=0 is a choice, not a missing engine: nothing fails at every run for it."""
    off = OcrOptions(enabled=False)
    with pytest.raises(UnsupportedFile, match="SEAMS_OCR=0"):
        parse(scans / "규정_2쪽.png", ocr=off)
    with pytest.raises(EmptyFile, match="SEAMS_OCR=0"):
        parse(scans / "규정_스캔.pdf", ocr=off)


def test_a_crooked_page_is_turned_straight_and_a_straight_one_is_left_alone():
    import numpy as np
    from PIL import Image

    from parsers.ocr import deskewed

    page = render([1])[0]
    assert deskewed(page) is page
    crooked = page.rotate(-1.2, resample=Image.BICUBIC, fillcolor=255)
    straight = deskewed(crooked)
    assert straight is not crooked

    def sharpness(image) -> float:  # the variance of ink per row: highest when lines are level
        return float((np.asarray(image.convert("L")) < 128).sum(axis=1).var())

    assert sharpness(straight) > 1.5 * sharpness(crooked)


def test_ocr_settings_that_shape_the_text_change_the_fingerprint_and_no_other(monkeypatch):
    """Indexes built before OCR settings existed keep their fingerprint; a new language re-reads."""
    from flows.settings import Settings

    for name in Settings.model_fields:
        monkeypatch.delenv(f"SEAMS_{name.upper()}", raising=False)
    default = Settings().fingerprint()
    assert Settings(ocr_command="/opt/tesseract/bin/tesseract").fingerprint() == default
    assert Settings(ocr_languages="kor").fingerprint() != default
    assert Settings(ocr_max_pages=5).fingerprint() != default
    assert Settings(ocr_second_languages="").fingerprint() != default
