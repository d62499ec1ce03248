"""Every real sample file from other tools is parsed with its text and tables, or reported with the
right error kind."""

from __future__ import annotations

import pytest
from conftest import SAMPLES

from parsers import ParseError, parse

EXPECTED_ERRORS = {
    "password.pdf": "encrypted",
    "password_protected.xlsx": "encrypted",
    "empty.xlsx": "empty",
}
EXPECTED_TEXT = {
    "copy-protected.pdf": "LayoutParser: A Unified Toolkit for Deep",  # owner password only: parses
    "korean-text-with-tables.pdf": "할인점 이마트, 이마트 트레이더스, 롯데마트, 홈플러스",
    "layout-parser-paper-with-table.pdf": "LayoutParser",
    "invalid-pdf-structure-pdfminer-one-page.pdf": "Cybersecurity: Launching",
    "stanley-cups.xlsx": "Stanley Cups",
    "stanley-cups-utf-16.csv": "Maple Leafs",
    "fake-html-cp1252.html": "L'été était très chaud cette année.",
    "docx-tables.docx": "Header Col 1",
    "tables-with-incomplete-rows.docx": "WTF?",
    "fake-power-point-table.pptx": "Tangerine",
    "fake-power-point-malformed.pptx": "Test Slide",
    "emoji.xlsx": "🤠😅",
}
SAMPLE_FILES = sorted(p.name for p in SAMPLES.glob("*") if p.name not in ("LICENSE", "README.md")) \
    if SAMPLES.exists() else []
needs_samples = pytest.mark.skipif(not SAMPLES.exists(), reason="../shared/samples missing")


@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_sample_parses_or_reports(name):
    path = SAMPLES / name
    if name in EXPECTED_ERRORS:
        with pytest.raises(ParseError) as info:
            parse(path)
        assert info.value.kind == EXPECTED_ERRORS[name]
        return
    doc = parse(path)
    assert doc.text.strip()
    assert EXPECTED_TEXT[name] in doc.text


@needs_samples
def test_sample_tables_are_tables():
    stanley = parse(SAMPLES / "stanley-cups.xlsx")
    assert [b.kind for b in stanley.blocks] == ["table", "table"]
    first = stanley.blocks[0]
    # A title merged across the sheet sits above the header: both are header rows, the title once.
    assert first.table.header_rows == 2
    assert first.table.rows[:2] == (("Stanley Cups", "", ""), ("Team", "Location", "Stanley Cups"))
    assert first.table.rows[-1] == ("Maple Leafs", "TOR", "13")
    assert (first.locator.sheet, first.locator.row_start, first.locator.row_end) == ("Stanley Cups", 1, 5)
    csv = parse(SAMPLES / "stanley-cups-utf-16.csv")
    assert csv.blocks[0].table.rows[1] == ("Team", "Location", "Stanley Cups")
    deck = parse(SAMPLES / "fake-power-point-table.pptx")
    (table,) = [b for b in deck.blocks if b.kind == "table"]
    assert table.table.rows[0] == ("Column 1", "Column 2", "Column 3") and table.locator.slide == 1


@needs_samples
def test_word_tables_keep_merged_cells_and_ragged_rows():
    word = parse(SAMPLES / "docx-tables.docx")
    tables = [b.table for b in word.blocks if b.kind == "table"]
    assert tables[0].rows == (("Header Col 1", "Header Col 2"), ("Lorem ipsum", "A link example"))
    # The nested table's text stays in its cell.
    assert any("a | >b< | c" in b.text for b in word.blocks)
    # a (merged down) | b (merged across two columns) / c | d (merged down) / e (across two)
    assert tables[-1].rows == (("a", "b", "b"), ("a", "c", "d"), ("e", "", "d"))
    ragged = parse(SAMPLES / "tables-with-incomplete-rows.docx")
    rows = [b.table.rows for b in ragged.blocks if b.kind == "table"]
    assert rows[0] == (("a", "b"), ("c", "d"))
    assert rows[1] == (("a", ""), ("b", "c"))  # a row missing its last cell is padded, not shifted


@needs_samples
def test_pdf_reading_order_and_spacing():
    paper = parse(SAMPLES / "layout-parser-paper-with-table.pdf")
    assert paper.blocks[0].locator.page == 1
    # The booktabs table (rules across only) reads as lines with their word spaces kept.
    assert "PubLayNet [38] F / M M Layouts of modern scientific documents" in paper.text
    # A framed one-column code listing is text, not a table.
    assert paper.table_count == 0 and "import layoutparser as lp" in paper.text
    gao = parse(SAMPLES / "invalid-pdf-structure-pdfminer-one-page.pdf")
    assert gao.page_count == 2
    text = gao.text
    # The title, drawn last by the layout program, reads before the body; furniture is set aside.
    assert text.index("Cybersecurity: Launching") < text.index("Federal agencies and our nation")
    assert {"U.S. GOVERNMENT ACCOUNTABILITY OFFICE", "Page 1 GAO-23-106826 | National Cybersecurity Strategy"} \
        <= {b.text for b in gao.furniture}
    assert "U.S. GOVERNMENT ACCOUNTABILITY OFFICE" not in text


@needs_samples
def test_korean_two_column_pdf_is_readable():
    doc = parse(SAMPLES / "korean-text-with-tables.pdf")
    text = doc.text
    # Columns are read one after the other, not interleaved line by line.
    assert "커피전문점 스타벅스, 투썸플레이스, 카페베네, 탐앤탐스," in text
    assert "할인점 이마트, 이마트 트레이더스, 롯데마트, 홈플러스 커피전문점" not in text
    left, right = text.index("전월 이용금액 제외 대상"), text.index("적립 제외 대상\n무이자할부")
    assert text.index("서비스 제공 기준") < text.index("전월 이용금액 기준") < left < right < text.index("기타\n")
    assert "\ufffd" not in text
