"""Bad input: every case gives exactly one clear ParseError kind, or parses when it should, with
bounded time and memory. Every file is written into ``tmp_path`` by the test itself.

Kinds: empty, corrupt, encrypted, unsupported, too_large (and timeout, which belongs to the flow's
process pool: ``parse`` has no clock of its own; see the note in ``parsers/pdf/__init__.py``).
"""

from __future__ import annotations

import io
import struct
import time
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import pytest
from fixtures.files import (
    Slide,
    make_csv,
    make_docx,
    make_empty,
    make_encrypted_pdf,
    make_encrypted_xlsx,
    make_md,
    make_owner_password_pdf,
    make_pdf,
    make_pptx,
    make_truncated_pdf,
    make_txt,
    make_xlsx,
    make_xml_bomb_docx,
    make_zip_bomb_xlsx,
    raw_pdf,
)

import parsers.containers
import parsers.detect
import parsers.pdf
import parsers.xlsx
from parsers import ERROR_KINDS, ParseError, parse

# ----------------------------------------------------------------------------------------- helpers


def kind_of(path: Path, **kwargs) -> str:
    """The error kind parsing ``path`` raises, or "ok"."""
    try:
        parse(path, **kwargs)
    except ParseError as exc:
        assert exc.kind in ERROR_KINDS, exc.kind
        assert exc.message, "every error says why"
        return exc.kind
    return "ok"


def replace_member(path: Path, member: str, data: bytes) -> Path:
    """Rewrite one member of a zip container in place."""
    with zipfile.ZipFile(path) as source:
        members = [(info, source.read(info)) for info in source.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for info, content in members:
            target.writestr(info, data if info.filename == member else content)
    return path


def encrypt_ooxml(path: Path, password: str = "seams") -> Path:
    """Password-protect an OOXML file as Office does (agile encryption in an OLE2 container)."""
    from msoffcrypto.format.ooxml import OOXMLFile

    encrypted = io.BytesIO()
    with path.open("rb") as plain:
        OOXMLFile(plain).encrypt(password, encrypted)
    path.write_bytes(encrypted.getvalue())
    return path


LAUGHS = ('<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">' + "".join(
    f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8)) + "]>")


def png_header(width: int, height: int) -> bytes:
    """A valid PNG that declares ``width`` x ``height`` pixels (decoding it would need ~30 GB)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 1024))
            + chunk(b"IEND", b""))


def stream(dictionary: bytes, data: bytes) -> bytes:
    return dictionary[:-2] + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def pdf_with_huge_image(path: Path) -> Path:
    """One page: a sentence, a ruled 2x2 grid (so pdfplumber looks at the page too) and an image
    XObject that declares 60000 x 60000 RGB pixels (10.8 GB decoded) from 1 MB of compressed data."""
    content = (b"BT /F1 12 Tf 72 720 Td (Huge image page) Tj ET\n"
               b"0.5 w 72 600 100 40 re S 172 600 100 40 re S 72 560 100 40 re S 172 560 100 40 re S\n"
               b"BT /F1 10 Tf 80 615 Td (left) Tj 100 0 Td (right) Tj ET\n"
               b"BT /F1 10 Tf 80 575 Td (one) Tj 100 0 Td (two) Tj ET\n"
               b"q 200 0 0 200 72 300 cm /Im1 Do Q\n")
    image = zlib.compress(b"\x00" * 1_000_000, 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> /XObject << /Im1 6 0 R >> >> >>",
        stream(b"<< >>", content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        stream(b"<< /Type /XObject /Subtype /Image /Width 60000 /Height 60000 /ColorSpace /DeviceRGB "
               b"/BitsPerComponent 8 /Filter /FlateDecode >>", image),
    ]
    path.write_bytes(raw_pdf(objects))
    return path


def million_row_xlsx(path: Path, rows: int = 1_000_000, dimension: bool = True) -> Path:
    """A workbook whose one sheet has ``rows`` rows (id, value), streamed straight into the zip,
    with a dimension claiming the whole sheet (or none) and a merged header range after the rows."""
    make_xlsx(path, {"Sheet1": [["placeholder"]]})
    with zipfile.ZipFile(path) as source:
        members = [(info, source.read(info)) for info in source.infolist()]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as target:
        for info, data in members:
            if info.filename != "xl/worksheets/sheet1.xml":
                target.writestr(info, data)
                continue
            with target.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as member:
                member.write(b'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns='
                             b'"http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                             + (b'<dimension ref="A1:XFD1048576"/>' if dimension else b"") + b'<sheetData>'
                             b'<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c>'
                             b'<c r="B1" t="inlineStr"><is><t>value</t></is></c></row>')
                batch: list[bytes] = []
                for r in range(2, rows + 1):
                    batch.append(b'<row r="%d"><c r="A%d"><v>%d</v></c><c r="B%d"><v>%d.5</v></c></row>'
                                 % (r, r, r, r, r))
                    if len(batch) == 20_000:
                        member.write(b"".join(batch))
                        batch = []
                member.write(b"".join(batch))
                member.write(b'</sheetData><mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells>'
                             b"</worksheet>")
    path.write_bytes(buffer.getvalue())
    return path


# ------------------------------------------------------------------------------------------ empty


@pytest.mark.parametrize("name", ["empty.pdf", "empty.docx", "empty.xlsx", "empty.pptx", "empty.txt",
                                  "empty.csv", "empty", "empty.eml"])
def test_zero_byte_files_are_empty(tmp_path: Path, name: str) -> None:
    assert kind_of(make_empty(tmp_path / name)) == "empty"


def test_files_without_text_are_empty(tmp_path: Path) -> None:
    assert kind_of(make_pdf(tmp_path / "blank.pdf", [])) == "empty"  # a page with nothing on it
    assert kind_of(make_txt(tmp_path / "spaces.txt", "  \n\n\t \n")) == "empty"
    assert kind_of(make_xlsx(tmp_path / "blank.xlsx", {"Sheet1": []})) == "empty"
    assert kind_of(make_csv(tmp_path / "blank.csv", [[], ["", ""]])) == "empty"
    assert kind_of(make_docx(tmp_path / "blank.docx", [])) == "empty"


# ---------------------------------------------------------------------------------------- corrupt


@pytest.mark.parametrize("keep", [0.1, 0.5, 0.9])
def test_truncated_pdf_is_corrupt(tmp_path: Path, keep: float) -> None:
    assert kind_of(make_truncated_pdf(tmp_path / "cut.pdf", keep=keep)) == "corrupt"


def test_pdf_header_then_garbage_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "garbage.pdf"
    path.write_bytes(b"%PDF-1.7\n" + b"\x00\x13garbage" * 500)
    assert kind_of(path) == "corrupt"


def test_broken_zip_containers_are_corrupt(tmp_path: Path) -> None:
    good = make_docx(tmp_path / "good.docx", ["문단"]).read_bytes()
    half = tmp_path / "half.docx"
    half.write_bytes(good[: len(good) // 2])
    junk = tmp_path / "junk.xlsx"
    junk.write_bytes(b"PK\x03\x04" + b"not a zip" * 100)
    assert kind_of(half) == "corrupt"
    assert kind_of(junk) == "corrupt"


def test_malformed_part_xml_is_corrupt(tmp_path: Path) -> None:
    docx = replace_member(make_docx(tmp_path / "a.docx", ["문단"]), "word/document.xml", b"<w:document><open>")
    deck = replace_member(make_pptx(tmp_path / "a.pptx", [Slide("제목", ["본문"])]), "ppt/slides/slide1.xml",
                          b"<p:sld>")
    book = replace_member(make_xlsx(tmp_path / "a.xlsx", {"S": [["a"]]}), "xl/workbook.xml", b"<workbook")
    assert kind_of(docx) == "corrupt"
    assert kind_of(book) == "corrupt"
    # One broken slide must not lose the deck; but this deck has only that slide, so nothing is left.
    assert kind_of(deck) in ("corrupt", "empty")


# -------------------------------------------------------------------------------------- encrypted


def test_user_password_pdf_is_encrypted(tmp_path: Path) -> None:
    assert kind_of(make_encrypted_pdf(tmp_path / "locked.pdf")) == "encrypted"


def test_owner_password_pdf_parses_normally(tmp_path: Path) -> None:
    doc = parse(make_owner_password_pdf(tmp_path / "owner.pdf"))
    assert "암호로 보호된 시험용 문서" in doc.text
    assert "This document is protected." in doc.text


@pytest.mark.parametrize("name", ["locked.xlsx", "locked.docx", "locked.pptx", "locked.bin"])
def test_password_protected_office_files_are_encrypted(tmp_path: Path, name: str) -> None:
    if name.endswith(".xlsx"):
        path = make_encrypted_xlsx(tmp_path / name)
    elif name.endswith(".pptx"):
        path = encrypt_ooxml(make_pptx(tmp_path / name, [Slide("기밀", ["내용"])]))
    else:  # .docx, and a docx whose name says nothing
        path = encrypt_ooxml(make_docx(tmp_path / name, ["기밀 문서입니다."]))
    assert kind_of(path) == "encrypted"


# ---------------------------------------------------------------------------------- unsupported


def test_unknown_and_unreadable_types_are_unsupported(tmp_path: Path) -> None:
    binary = tmp_path / "blob.dat"
    binary.write_bytes(bytes(range(256)) * 16)
    image = tmp_path / "scan.pdf"  # a GIF named .pdf: the bytes decide (PNG, JPEG, TIFF are read by OCR)
    image.write_bytes(b"GIF89a\x0a\x00\x0a\x00\x00\x00\x00;")
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("a.txt", "hello")
    for path in (binary, image, archive):
        assert kind_of(path) == "unsupported", path.name


def test_formats_needing_a_missing_converter_are_unsupported(tmp_path: Path) -> None:
    import shutil

    if shutil.which("pandoc"):
        pytest.skip("pandoc is installed here, so RTF is supported")
    rtf = tmp_path / "memo.rtf"
    rtf.write_bytes(b"{\\rtf1\\ansi{\\fonttbl\\f0\\fswiss Helvetica;}\\f0\\pard Hello RTF.\\par}")
    assert kind_of(rtf) == "unsupported"


def test_content_decides_the_type(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "really-a-pdf.docx", [["PDF named docx"]])
    book = make_xlsx(tmp_path / "export.dat", {"시트": [["이름", "값"], ["가", 1]]})
    deck = make_pptx(tmp_path / "deck.bin", [Slide("슬라이드 제목", ["본문"])])
    assert parse(pdf).format == "pdf"
    assert parse(book).format == "xlsx"
    assert parse(deck).format == "pptx"


# ------------------------------------------------------------------------------ too large: bombs


def test_zip_bomb_by_ratio_is_too_large(tmp_path: Path) -> None:
    assert kind_of(make_zip_bomb_xlsx(tmp_path / "bomb.xlsx")) == "too_large"


def test_zip_bomb_by_total_size_is_too_large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The rule reads the sizes the central directory declares (zipfile never inflates past them),
    # so a small limit and an ordinary file exercise it without writing a gigabyte.
    monkeypatch.setattr(parsers.containers, "MAX_UNCOMPRESSED", 10_000)
    path = make_docx(tmp_path / "big.docx", ["긴 문단입니다. " * 2000])
    assert kind_of(path) == "too_large"


def test_oversized_xml_part_is_too_large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsers.containers, "MAX_LOADED_PART", 50_000)
    path = make_docx(tmp_path / "big.docx", ["긴 문단입니다. " * 5000])
    assert kind_of(path) == "too_large"
    # Worksheets are streamed, so the same limit does not apply to them.
    book = make_xlsx(tmp_path / "big.xlsx", {"S": [[f"행 {i}", i] for i in range(3000)]})
    assert kind_of(book) == "ok"


def test_xml_bomb_docx_is_refused_quickly(tmp_path: Path) -> None:
    path = make_xml_bomb_docx(tmp_path / "laughs.docx")
    started = time.perf_counter()
    assert kind_of(path) == "corrupt"
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize(("suffix", "member"), [
    (".xlsx", "xl/workbook.xml"),
    (".xlsx", "xl/worksheets/sheet1.xml"),
    (".pptx", "ppt/slides/slide1.xml"),
    (".docx", "docProps/core.xml"),
])
def test_xml_bombs_in_any_part_are_refused(tmp_path: Path, suffix: str, member: str) -> None:
    path = tmp_path / f"bomb{suffix}"
    if suffix == ".xlsx":
        make_xlsx(path, {"S": [["a", "b"]]})
    elif suffix == ".pptx":
        make_pptx(path, [Slide("제목", ["본문"])])
    else:
        make_docx(path, ["본문"], title="제목")
    with zipfile.ZipFile(path) as archive:
        original = archive.read(member).decode("utf-8")
    declaration, _, rest = original.partition("?>")
    bomb = f"{declaration}?>{LAUGHS}{rest}".replace("</", "&i;</", 1)
    replace_member(path, member, bomb.encode("utf-8"))
    started = time.perf_counter()
    assert kind_of(path) == "corrupt"
    assert time.perf_counter() - started < 5


def test_external_entities_are_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET", encoding="utf-8")
    path = make_docx(tmp_path / "xxe.docx", ["placeholder"])
    xxe = (f'<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY x SYSTEM "file://{secret}">]>'
           '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
           "<w:p><w:r><w:t>&x;</w:t></w:r></w:p></w:body></w:document>")
    replace_member(path, "word/document.xml", xxe.encode())
    assert kind_of(path) == "corrupt"


def test_utf16_part_with_dtd_is_refused(tmp_path: Path) -> None:
    path = make_docx(tmp_path / "wide.docx", ["placeholder"])
    with zipfile.ZipFile(path) as archive:
        original = archive.read("word/document.xml").decode("utf-8")
    declaration, _, rest = original.partition("?>")
    bomb = (declaration.replace("UTF-8", "UTF-16") + "?>" + LAUGHS + rest).encode("utf-16")
    replace_member(path, "word/document.xml", bomb)
    assert kind_of(path) == "corrupt"


# ---------------------------------------------------------------------- too large: limits, rows


def test_file_over_the_size_limit_is_too_large(tmp_path: Path) -> None:
    path = make_md(tmp_path / "readme.md")
    assert kind_of(path, max_bytes=100) == "too_large"


def test_pdf_over_the_page_limit_is_too_large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsers.pdf, "MAX_PAGES", 2)
    assert kind_of(make_pdf(tmp_path / "three.pdf", [["1"], ["2"], ["3"]])) == "too_large"


def test_text_read_whole_over_its_limit_is_too_large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsers.detect, "MAX_TEXT_BYTES", 1000)
    assert kind_of(make_txt(tmp_path / "long.txt", "가나다 " * 1000)) == "too_large"
    # CSV is streamed instead: it is read up to the row limit, not refused.
    assert kind_of(make_csv(tmp_path / "long.csv", [["a", "b"]] + [[i, i] for i in range(500)])) == "ok"


def test_million_row_sheet_is_streamed_and_truncation_reported(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    path = million_row_xlsx(tmp_path / "million.xlsx")
    monkeypatch.setattr(parsers.xlsx, "MAX_ROWS", 20_000)
    tracemalloc.start()
    try:
        doc = parse(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    table = doc.blocks[0].table
    assert len(table.rows) == 20_000
    assert table.rows[0] == ("id", "value") and table.rows[1] == ("2", "2.5")
    assert doc.blocks[0].row_numbers[-1] == 20_000
    assert any("rows after row 20,000 were not read" in w for w in doc.warnings), doc.warnings
    # 1M rows x 2 cells would take hundreds of MB as Python objects; streaming keeps ~20k rows.
    assert peak < 60_000_000, f"peak {peak:,} bytes"


def test_a_sheet_without_a_dimension_is_not_scanned_when_the_workbook_opens(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # openpyxl's read-only worksheet looks for <dimension> when it is created and, when there is
    # none (openpyxl's write-only mode, pandas), parses the whole sheet to its end: 84 s of a
    # million-row sheet's profile, before seams reads a row.
    from openpyxl.worksheet._read_only import ReadOnlyWorksheet
    from openpyxl.worksheet._reader import WorkSheetParser

    scans: list[object] = []
    original = WorkSheetParser.parse_dimensions
    monkeypatch.setattr(WorkSheetParser, "parse_dimensions", lambda self: scans.append(self) or original(self))
    size_scan = ReadOnlyWorksheet._get_size
    doc = parse(million_row_xlsx(tmp_path / "no-dimension.xlsx", rows=5_000, dimension=False))
    assert scans == []
    assert len(doc.blocks[0].table.rows) == 5_000
    assert doc.blocks[0].table.rows[-1] == ("5000", "5000.5")
    assert ReadOnlyWorksheet._get_size is size_scan  # put back once the workbook is open


def test_wide_rows_are_cut_at_the_column_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsers.xlsx, "MAX_COLUMNS", 5)
    path = make_xlsx(tmp_path / "wide.xlsx", {"S": [[f"c{i}" for i in range(10)], list(range(10))]})
    doc = parse(path)
    assert doc.blocks[0].table.rows[0] == ("c0", "c1", "c2", "c3", "c4")
    assert any("wider than 5 columns" in w for w in doc.warnings)


@pytest.mark.slow
def test_million_row_sheet_at_the_default_limit(tmp_path: Path) -> None:
    doc = parse(million_row_xlsx(tmp_path / "million.xlsx"))
    assert len(doc.blocks[0].table.rows) == parsers.xlsx.MAX_ROWS
    assert any("were not read" in w for w in doc.warnings)


# ------------------------------------------------------------------------ images are never decoded


def test_huge_images_are_never_decoded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import PIL.Image
    from docx.shared import Inches
    from pptx.util import Inches as SlideInches

    # python-pptx/python-docx ask Pillow for the picture's size while *writing* the files; Pillow's
    # own bomb guard would refuse. Reading them back never touches Pillow.
    monkeypatch.setattr(PIL.Image, "MAX_IMAGE_PIXELS", None)

    picture = tmp_path / "huge.png"
    picture.write_bytes(png_header(100_000, 100_000))
    deck_path = make_pptx(tmp_path / "deck.pptx", [Slide("큰 그림", ["그림 아래 설명"])])
    from pptx import Presentation

    deck = Presentation(str(deck_path))
    deck.slides[0].shapes.add_picture(str(picture), SlideInches(1), SlideInches(3), SlideInches(2))
    deck.save(str(deck_path))
    import docx

    word_path = make_docx(tmp_path / "doc.docx", ["그림 앞 문단"])
    word = docx.Document(str(word_path))
    word.add_picture(str(picture), width=Inches(1))
    word.add_paragraph("그림 뒤 문단")
    word.save(str(word_path))
    pdf_path = pdf_with_huge_image(tmp_path / "image.pdf")
    monkeypatch.setattr(PIL.Image, "MAX_IMAGE_PIXELS", 1)  # any decode while parsing would now fail

    tracemalloc.start()
    started = time.perf_counter()
    try:
        texts = [parse(p).text for p in (deck_path, word_path, pdf_path)]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 20
    assert peak < 100_000_000, f"peak {peak:,} bytes"
    assert "그림 아래 설명" in texts[0] and "그림 뒤 문단" in texts[1] and "Huge image page" in texts[2]


# ------------------------------------------------------------------------------- a mixed folder


def test_a_folder_of_bad_files_beside_good_ones(tmp_path: Path) -> None:
    """Each bad file gets its one kind; the good files in the same folder parse."""
    expected = {
        make_empty(tmp_path / "empty.pdf"): "empty",
        make_truncated_pdf(tmp_path / "cut.pdf"): "corrupt",
        make_encrypted_pdf(tmp_path / "locked.pdf"): "encrypted",
        make_encrypted_xlsx(tmp_path / "locked.xlsx"): "encrypted",
        make_zip_bomb_xlsx(tmp_path / "bomb.xlsx"): "too_large",
        make_xml_bomb_docx(tmp_path / "laughs.docx"): "corrupt",
        make_owner_password_pdf(tmp_path / "owner.pdf"): "ok",
        make_pdf(tmp_path / "report.pdf", [["정상 문서입니다."]]): "ok",
        make_xlsx(tmp_path / "sales.xlsx", {"매출": [["월", "매출"], ["1월", 100]]}): "ok",
        make_md(tmp_path / "readme.md"): "ok",
    }
    blob = tmp_path / "blob.bin"
    blob.write_bytes(bytes(range(256)) * 4)
    expected[blob] = "unsupported"
    assert {path.name: kind_of(path) for path in expected} == {path.name: kind for path, kind in expected.items()}


# -- content that can be kept is kept (issue #16.4) -----------------------------------------------

def test_html_nested_deeper_than_the_recursion_limit_is_read_flat(tmp_path: Path) -> None:
    """It was reported ``corrupt`` (a RecursionError in the tree walk)."""
    path = tmp_path / "nested.html"
    path.write_text("<html><body><h1>제목</h1>" + "<div>" * 5000 + "깊은 곳의 본문 deep body text"
                    + "</div>" * 5000 + "<p>after the depths</p><script>var x = 1;</script></body></html>", "utf-8")
    doc = parse(path)
    assert "깊은 곳의 본문 deep body text" in doc.text and "after the depths" in doc.text and "제목" in doc.text
    assert "var x" not in doc.text
    assert any("nested over" in w for w in doc.warnings)


def test_a_csv_with_a_few_stray_nul_bytes_is_read(tmp_path: Path) -> None:
    """It was skipped as binary; Python's csv module refuses NUL bytes too."""
    rows = ["name,value"] + [f"항목{i},{i}" for i in range(300)]
    rows[7], rows[120] = "항\x00목6,6", "항목119,1\x0019"
    path = tmp_path / "export.csv"
    path.write_text("\n".join(rows), "utf-8")
    doc = parse(path)
    assert "항목6 | 6" in doc.text and "항목119 | 119" in doc.text and "\x00" not in doc.text
    assert "2 NUL bytes were removed" in doc.warnings
    (tmp_path / "blob.csv").write_bytes(b"\x00\x01\x02" * 500)  # mostly NULs: still binary
    with pytest.raises(ParseError) as info:
        parse(tmp_path / "blob.csv")
    assert info.value.kind == "unsupported"


def test_one_huge_csv_field_does_not_lose_the_file(tmp_path: Path) -> None:
    """A 20 MB field failed the whole file (csv's field size limit)."""
    path = tmp_path / "notes.csv"
    path.write_text("name,value\nalpha,1\nbig," + "x" * 20_000_000 + "\ngamma,3\n", "utf-8")
    doc = parse(path)
    assert "alpha | 1" in doc.text and "gamma | 3" in doc.text and "x" * 20_000_000 in doc.text


def test_a_parse_error_says_the_type_the_file_was_read_as(tmp_path):
    """A failed file's row in the run's report said nothing of its type; the error now carries it
    when it was known (the bytes named a type), and none when the type itself could not be told."""
    from parsers.errors import CorruptFile, UnsupportedFile

    cases = {"broken.pdf": (b"%PDF-1.7\n% truncated", CorruptFile, "pdf"),
             "broken.xlsx": (b"PK\x03\x04" + b"\x00" * 40, CorruptFile, ""),
             "blank.txt": (b"   \n\n  ", ParseError, "txt"),
             "blob.bin": (bytes(range(256)) * 8, UnsupportedFile, "")}
    for name, (data, error, fmt) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(error) as raised:
            parse(tmp_path / name)
        assert raised.value.format == fmt, name
