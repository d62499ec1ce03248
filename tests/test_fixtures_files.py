"""The file generators in ``fixtures.files`` write files the parsers read, or fail the way they should.

Good makers: the parser returns the expected format, structure (tables, headings, slides, sheets) and
readable Korean. Bad makers: ``parsers.parse`` raises a ParseError of the expected kind.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.files import (
    FONT_PATH,
    KOREAN_REPORT_HEADER,
    Slide,
    make_csv,
    make_docx,
    make_empty,
    make_encrypted_pdf,
    make_encrypted_xlsx,
    make_korean_report_pdf,
    make_md,
    make_owner_password_pdf,
    make_pdf,
    make_pptx,
    make_regulation,
    make_truncated_pdf,
    make_xlsx,
    make_xml_bomb_docx,
    make_zip_bomb_xlsx,
)

from parsers import parse
from parsers.errors import ParseError


def test_font_subset_has_every_hangul_syllable_and_not_the_reserved_name() -> None:
    from fontTools.ttLib import TTFont

    font = TTFont(str(FONT_PATH))
    cmap = font.getBestCmap()
    assert all(code in cmap for code in range(0xAC00, 0xD7A4))
    assert all(ord(ch) in cmap for ch in "□○◦●·※▶①⑳「」")
    # The OFL forbids a modified font to be presented as "NanumGothic".
    assert all("Nanum" not in record.toUnicode() for record in font["name"].names if record.nameID in (1, 4, 6))
    assert (FONT_PATH.parent / "OFL.txt").read_text(encoding="utf-8").count("SIL OPEN FONT LICENSE") == 1


def test_make_pdf_pages_paragraphs_and_table(tmp_path: Path) -> None:
    table = [["구분", "2024년", "2025년"], ["예산", "112", "138"]]
    path = make_pdf(tmp_path / "a.pdf", [["첫 쪽 첫 문단입니다.", "둘째 문단"], ["둘째 쪽"]], table=table)
    doc = parse(path)
    assert doc.format == "pdf"
    assert doc.page_count == 2
    tables = [b for b in doc.blocks if b.kind == "table"]
    assert len(tables) == 1
    assert tables[0].table.rows == (("구분", "2024년", "2025년"), ("예산", "112", "138"))
    assert "첫 쪽 첫 문단입니다." in doc.text
    assert [b.locator.page for b in doc.blocks if "둘째 쪽" in b.text] == [2]


def test_make_pdf_landscape(tmp_path: Path) -> None:
    doc = parse(make_pdf(tmp_path / "wide.pdf", [["가로 방향 문서"]], landscape=True))
    assert doc.landscape_share() == 1.0


def test_make_pdf_is_deterministic(tmp_path: Path) -> None:
    first = make_pdf(tmp_path / "1.pdf", [["같은 입력"]]).read_bytes()
    assert make_pdf(tmp_path / "2.pdf", [["같은 입력"]]).read_bytes() == first


def test_korean_report_markers_table_and_furniture(tmp_path: Path) -> None:
    doc = parse(make_korean_report_pdf(tmp_path / "report.pdf"))
    assert doc.page_count == 3
    for marker_line in ("1. 개요", "□ 추진 배경", "○ 지역 산업 구조에 맞춘", "- 센터별 전담 컨설턴트", "※ 2025년"):
        assert marker_line in doc.text
    (table,) = [b for b in doc.blocks if b.kind == "table"]
    assert table.table.rows[0] == ("구분", "2023년", "2024년", "2025년")
    furniture = {b.text for b in doc.furniture}
    assert {KOREAN_REPORT_HEADER, "- 1 -", "- 2 -", "- 3 -"} <= furniture
    assert "- 2 -" not in doc.text, "furniture is kept beside the text, not in it"


@pytest.mark.parametrize("suffix", [".pdf", ".docx", ".txt"])
def test_regulation_in_every_format(tmp_path: Path, suffix: str) -> None:
    doc = parse(make_regulation(tmp_path / f"규정{suffix}"))
    for text in ("제1장 총칙", "제2조(정의)", "② 제1항에 따라", "제3조제1항에 따른", "3. \"정보주체\"란", "부칙"):
        assert text in doc.text


def test_make_xlsx_sheets_merged_header_and_hidden_sheet(tmp_path: Path) -> None:
    rows = [["기간", None, "실적", None], ["일자", "지역", "수량", "매출액"],
            ["2025-01-02", "서울", 3, 3600], ["2025-01-03", "부산", 5, 6000]]
    path = make_xlsx(tmp_path / "a.xlsx", {"월별": rows, "숨김": [["메모"], ["비밀"]]},
                     merges={"월별": ["A1:B1", "C1:D1"]}, hidden=["숨김"])
    doc = parse(path)
    assert doc.properties.sheets == ("월별", "숨김")
    assert doc.properties.hidden_sheets == ("숨김",)
    monthly = doc.blocks[0]
    assert monthly.table.header_rows == 2
    assert monthly.table.rows[0] == ("기간", "기간", "실적", "실적")
    assert monthly.table.rows[3] == ("2025-01-03", "부산", "5", "6000")
    assert make_xlsx(tmp_path / "b.xlsx", {"월별": rows}).read_bytes() == \
        make_xlsx(tmp_path / "c.xlsx", {"월별": rows}).read_bytes()


def test_make_pptx_titles_levels_table_notes(tmp_path: Path) -> None:
    slides = [
        Slide("분기 리뷰", subtitle="2025 Q4"),
        {"title": "Highlights", "bullets": ["매출 증가", (1, "온라인 비중 47%")], "notes": "발표자 메모"},
        Slide("권역별 매출", table=[["권역", "Q4"], ["수도권", "2,040"]]),
    ]
    doc = parse(make_pptx(tmp_path / "deck.pptx", slides))
    assert doc.properties.slides == 3
    assert [b.text for b in doc.blocks if b.kind == "title"] == ["분기 리뷰", "Highlights", "권역별 매출"]
    (item,) = [b for b in doc.blocks if b.kind == "list_item"]
    assert (item.text, item.level, item.locator.slide) == ("온라인 비중 47%", 1, 2)
    assert [b.text for b in doc.blocks if b.kind == "notes"] == ["발표자 메모"]
    (table,) = [b for b in doc.blocks if b.kind == "table"]
    assert table.table.rows == (("권역", "Q4"), ("수도권", "2,040"))


def test_make_docx_headings_lists_table(tmp_path: Path) -> None:
    items = [("title", "직원 안내서"), ("h1", "1. 근무 시간"), "핵심 근무 시간은 10시부터 16시까지입니다.",
             ("h2", "1.1 재택근무"), ("bullet", "VPN을 사용합니다."),
             ("table", [["유형", "일수"], ["연차", "15"]])]
    doc = parse(make_docx(tmp_path / "a.docx", items))
    kinds = [(b.kind, b.level) for b in doc.blocks]
    assert kinds == [("heading", 1), ("heading", 1), ("paragraph", 0), ("heading", 2), ("list_item", 0),
                     ("table", 0)]
    assert doc.blocks[-1].table.rows == (("유형", "일수"), ("연차", "15"))


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "cp949"])
def test_make_csv_encodings(tmp_path: Path, encoding: str) -> None:
    rows = [["역명", "노선", "승차"], ["서울역", "1호선", 61174], ["강남", "2호선", 98000]]
    doc = parse(make_csv(tmp_path / "stations.csv", rows, encoding=encoding))
    assert doc.blocks[0].table.rows == (("역명", "노선", "승차"), ("서울역", "1호선", "61174"),
                                        ("강남", "2호선", "98000"))


def test_make_md_headings_and_table(tmp_path: Path) -> None:
    doc = parse(make_md(tmp_path / "readme.md"))
    assert doc.format == "md"
    assert "데이터 등록 절차" in [b.text for b in doc.blocks if b.kind == "heading"]
    assert doc.table_count == 1


def test_owner_password_pdf_opens_without_a_password(tmp_path: Path) -> None:
    doc = parse(make_owner_password_pdf(tmp_path / "owner.pdf"))
    assert "암호로 보호된 시험용 문서" in doc.text


@pytest.mark.parametrize(("maker", "name", "kind"), [
    (make_encrypted_pdf, "locked.pdf", "encrypted"),
    (make_truncated_pdf, "cut.pdf", "corrupt"),
    (make_encrypted_xlsx, "locked.xlsx", "encrypted"),
    (make_zip_bomb_xlsx, "bomb.xlsx", "too_large"),
    (make_empty, "empty.pdf", "empty"),
    (make_empty, "empty.docx", "empty"),
])
def test_bad_files_raise_the_right_kind(tmp_path: Path, maker, name: str, kind: str) -> None:
    path = maker(tmp_path / name)
    with pytest.raises(ParseError) as caught:
        parse(path)
    assert caught.value.kind == kind, caught.value.message


def test_zip_bomb_stays_small_on_disk(tmp_path: Path) -> None:
    assert make_zip_bomb_xlsx(tmp_path / "bomb.xlsx").stat().st_size < 200_000


def test_xml_bomb_is_refused_or_left_unexpanded(tmp_path: Path) -> None:
    path = make_xml_bomb_docx(tmp_path / "laughs.docx")
    try:
        doc = parse(path)
    except ParseError as exc:
        assert exc.kind in ("corrupt", "too_large")
    else:
        assert len(doc.text) < 10_000  # 10⁹ "lol"s were not expanded
