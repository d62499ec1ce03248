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
    "copy-protected.pdf": None,  # owner password only: opens and parses normally
    "korean-text-with-tables.pdf": "한",
    "layout-parser-paper-with-table.pdf": "LayoutParser",
    "stanley-cups.xlsx": "Stanley Cups",
    "stanley-cups-utf-16.csv": "Maple Leafs",
    "fake-html-cp1252.html": "",
    "docx-tables.docx": "Header Col 1",
    "fake-power-point-table.pptx": "",
    "emoji.xlsx": "",
}
SAMPLE_FILES = sorted(p.name for p in SAMPLES.glob("*")) if SAMPLES.exists() else []


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
    expected = EXPECTED_TEXT.get(name)
    if expected:
        assert expected in doc.text


@pytest.mark.skipif(not SAMPLES.exists(), reason="../shared/samples missing")
def test_sample_tables_are_tables():
    stanley = parse(SAMPLES / "stanley-cups.xlsx")
    assert [b.kind for b in stanley.blocks] == ["table", "table"]
    assert stanley.blocks[0].table.rows[stanley.blocks[0].table.header_rows - 1] == ("Team", "Location", "Stanley Cups")
    word = parse(SAMPLES / "docx-tables.docx")
    assert word.table_count >= 1
    paper = parse(SAMPLES / "layout-parser-paper-with-table.pdf")
    assert paper.table_count >= 1 and paper.blocks[0].locator.page == 1
