"""Per-format behaviour the goldens do not show: encodings, routing, warnings, numbering, limits.

Every file is written into ``tmp_path`` by the test.
"""

from __future__ import annotations

import codecs
import io
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fixtures.files import (
    Slide,
    make_astral_pdf,
    make_csv,
    make_docx,
    make_pdf,
    make_pptx,
    make_report_pdf,
    make_txt,
    make_xlsx,
    raw_pdf,
)

from flows.ingest.pipeline import CutConfig, cut_document
from parsers import detect_format, parse
from parsers.tables import Span, detect_header_rows, is_value, make_table
from parsers.text import normalize_line
from splitters import Budget

KOREAN = "제1조(목적) 이 규정은 개인정보 보호에 필요한 사항을 정한다.\n\n부칙 - 이 규정은 2026년 1월 1일부터 시행한다. Effective 2026."

# ------------------------------------------------------------------------------------------- text


@pytest.mark.parametrize("encoding", [
    "utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be",
    "cp949", "euc-kr",
])
def test_text_encodings_come_out_the_same(tmp_path: Path, encoding: str) -> None:
    path = make_txt(tmp_path / "규정.txt", KOREAN, encoding=encoding)
    doc = parse(path)
    assert doc.format == "txt"
    assert [b.text for b in doc.blocks] == KOREAN.split("\n\n")


def test_boms_are_not_text(tmp_path: Path) -> None:
    for bom, encoding in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le")):
        path = tmp_path / "bom.md"
        path.write_bytes(bom + "# 제목\n\n본문".encode(encoding))
        doc = parse(path)
        assert [(b.kind, b.text) for b in doc.blocks] == [("heading", "제목"), ("paragraph", "본문")]


def test_latin_text_is_not_read_as_korean(tmp_path: Path) -> None:
    path = make_txt(tmp_path / "menu.txt", "Crème brûlée, café au lait et pâté — très bon.", encoding="cp1252")
    assert parse(path).text == "Crème brûlée, café au lait et pâté — très bon."


@pytest.mark.parametrize(("encoding", "delimiter", "suffix"), [
    ("utf-16", ",", ".csv"), ("cp949", ",", ".csv"), ("utf-8-sig", ";", ".csv"), ("utf-8", "\t", ".tsv"),
])
def test_csv_encodings_and_delimiters(tmp_path: Path, encoding: str, delimiter: str, suffix: str) -> None:
    rows = [["역명", "노선", "승차"], ["서울역", "1호선", 61174], ["강남", "2호선", 98000]]
    doc = parse(make_csv(tmp_path / f"stations{suffix}", rows, encoding=encoding, delimiter=delimiter))
    block = doc.blocks[0]
    assert block.table.rows == (("역명", "노선", "승차"), ("서울역", "1호선", "61174"), ("강남", "2호선", "98000"))
    assert block.table.header_rows == 1 and block.row_numbers == (1, 2, 3)
    assert block.locator.sheet == "stations"


def test_csv_is_streamed_to_the_row_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import parsers.delimited

    monkeypatch.setattr(parsers.delimited, "MAX_ROWS", 100)
    doc = parse(make_csv(tmp_path / "long.csv", [["id", "값"]] + [[i, f"값 {i}"] for i in range(5000)]))
    assert len(doc.blocks[0].table.rows) == 100
    assert doc.warnings and "were not read" in doc.warnings[0]


def test_utf16_without_bom_and_email_are_detected(tmp_path: Path) -> None:
    wide = tmp_path / "notes"
    wide.write_bytes("메모: meeting at 10:00\n".encode("utf-16-le"))
    assert detect_format(wide) == "txt"
    assert "meeting at 10:00" in parse(wide).text


def test_markdown_structure(tmp_path: Path) -> None:
    text = "Title\n=====\n\n- one\n  more\n- two\n  1. nested\n\n| a | b \\| c |\n|---|---|\n| 1 | 2 |\n\n---\nend\n"
    doc = parse(make_txt(tmp_path / "a.md", text))
    assert [(b.kind, b.level, b.text) for b in doc.blocks] == [
        ("heading", 1, "Title"), ("list_item", 0, "- one\nmore"), ("list_item", 0, "- two"),
        ("list_item", 1, "1. nested"), ("table", 0, "a | b | c\n1 | 2"), ("paragraph", 0, "end"),
    ]
    assert doc.blocks[4].table.rows[0] == ("a", "b | c")


def test_markdown_reads_a_number_a_line_break_left_at_a_line_start_as_text(tmp_path: Path) -> None:
    """Issue #14: Markdown is parsed by markdown-it-py. The hand-written splitter took a number left
    at the start of a line by a line break (``(k\n13) are small``) for an ordered list item and cut
    the sentence there — five times in Chroma's pubmed corpus; in CommonMark only a list that starts
    at 1 interrupts a paragraph. Rows of cells under ``- |`` are still a table."""
    text = ("The two rate constants (k\n11 and k\n13) are also small.\n\nSteps:\n1. first\n2. second\n\n"
            "- | 2018 | 2017\nsales | 1 | 2\ncost | 3 | 4\n")
    doc = parse(make_txt(tmp_path / "a.md", text))
    assert [(b.kind, b.text) for b in doc.blocks] == [
        ("paragraph", "The two rate constants (k\n11 and k\n13) are also small."), ("paragraph", "Steps:"),
        ("list_item", "1. first"), ("list_item", "2. second"), ("table", "- | 2018 | 2017\nsales | 1 | 2\ncost | 3 | 4"),
    ]


# ------------------------------------------------------------------------------------------ tables


def test_header_detection_rules() -> None:
    assert detect_header_rows([["이름", "값"], ["가", "1"]]) == 1
    assert detect_header_rows([["Stanley Cups", "", ""], ["Team", "City", "Cups"], ["Blues", "STL", "1"]]) == 2
    assert detect_header_rows([["이름", "설명"], ["가", "나"], ["다", "라"]]) == 1  # text-only table
    # A merged year over quarter columns is a header even though "2025" looks like a number.
    grid = [["권역", "2025", "", "비고"], ["", "Q1", "Q2", ""], ["수도권", "1,820", "2,040", "잠정"]]
    assert detect_header_rows(grid, [Span(0, 0, 1, 0), Span(0, 1, 0, 2), Span(0, 3, 1, 3)]) == 2
    assert all(is_value(v) for v in ("1,820", "12.5%", "₩3,000", "2025-01-04", "2025. 3.", "10:30", "#N/A", "-3",
                                     "124.504.000", "-38.584.000", "1.234,50"))  # as Europe writes amounts
    assert not any(is_value(v) for v in ("2025년", "1월", "Q1", "제1조", "서울"))


def test_merged_cells_fill_headers_and_categories_not_rows() -> None:
    grid = [["기간", "", "실적", ""], ["일자", "지역", "수량", "금액"], ["1월", "서울", "3", "3600"],
            ["", "부산", "5", "6000"], ["합계", "", "8", "9600"]]
    spans = [Span(0, 0, 0, 1), Span(0, 2, 0, 3), Span(2, 0, 3, 0), Span(4, 0, 4, 1)]
    table = make_table(grid, spans)
    assert table.header_rows == 2
    assert table.rows[0] == ("기간", "기간", "실적", "실적")
    assert table.rows[3] == ("1월", "부산", "5", "6000")  # a category merged down repeats in its rows
    assert table.rows[4] == ("합계", "", "8", "9600")  # a label merged across data cells is kept once
    assert table.row_text(4) == "합계 |  | 8 | 9600"


def test_long_merged_notes_and_titles_are_not_repeated() -> None:
    note = "음주운전 징계 기준은 혈중알코올농도와 횟수에 따라 정하며, 사고를 낸 경우에는 한 단계 무겁게 정한다."
    title = "3. Analyses by segment — six months to 30 June 2023"
    grid = [[title, "", ""], ["구분", "기준", "비고"], ["1회", "정직", note], ["2회", "해임", ""], ["3회", "파면", ""]]
    table = make_table(grid, [Span(0, 0, 0, 1), Span(2, 2, 4, 2)], header_rows=2)
    assert table.rows[0] == (title, "", ""), "a long merged title is kept once"
    assert [row[2] for row in table.rows[2:]] == [note, "", ""], "a long merged note is read once"


def test_a_title_over_the_table_does_not_hide_its_column_labels() -> None:
    """A requirements sheet as a team wrote it: a merged title, a group row, a label row, then
    categories merged down over their data rows. Continued chunks repeated only the title."""
    grid = [["요구사항 정의서", "", "", ""], ["분류", "요구사항명", "", "비고"], ["", "대분류", "요구사항 ID", ""],
            ["인증", "회원가입", "REQ-001", "UI"], ["", "로그인", "REQ-002", "기능"], ["", "탈퇴", "REQ-003", "기능"]]
    spans = [Span(0, 0, 0, 3), Span(1, 0, 2, 0), Span(1, 1, 1, 2), Span(1, 3, 2, 3), Span(3, 0, 5, 0)]
    assert make_table(grid, spans).header_rows == 3
    # A lone title above a table of text only: the title and the label row.
    grid = [["회의 안건", "", ""], ["번호", "안건", "담당"], ["일", "예산 검토", "기획팀"], ["이", "일정 조율", "운영팀"]]
    assert make_table(grid, []).header_rows == 2


def test_a_label_merged_over_some_columns_heads_the_row_below_only_when_that_row_is_labels() -> None:
    # A 10-K's table: "2021" over the "$" and amount columns, then data.
    grid = [["", "2021", "", "2020", ""], ["Licensing fees", "$", "19,984,378", "$", "9,104,000"],
            ["Product sales", "", "1,234,000", "", "987,000"]]
    spans = [Span(0, 1, 0, 2), Span(0, 3, 0, 4)]
    assert make_table(grid, spans).header_rows == 1
    # Its price table: "2021" over High and Low, which are the row below.
    grid = [["", "2021", "", "2020", ""], ["Quarter Ended", "High ($)", "Low ($)", "High ($)", "Low ($)"],
            ["March 31,", "3.02", "1.72", "1.95", "0.70"]]
    assert make_table(grid, spans).header_rows == 2
    # "구분" over two columns of a Korean brief, then rows of long text: data.
    grid = [["구분", "", "주요 기준", "설명"],
            ["", "행정규칙", "「국가회계기준에 관한 규칙」(중앙) 「지방자치단체 회계기준에 관한 규칙」(지방)",
             "이에 따라 중앙·지방정부가 인식하고, 결산 보고서에 주석으로 공시한다"],
            ["", "회계기준", "한국채택국제회계기준(K-IFRS) 국제공공부문회계기준(IPSAS)", "국제회계기준은 전세계 민간기업의 기준이다"]]
    assert make_table(grid, [Span(0, 0, 0, 1)]).header_rows == 1
    # A range merged past the last column that holds text (a sheet's merge reaching empty columns).
    grid = [["구분", "", "", "기간", ""], ["가", "나", "다", "", ""], ["1,000", "2,000", "3,000", "4,000", "5,000"]]
    assert make_table(grid, [Span(0, 3, 0, 6)]).header_rows == 2  # (the label rows), and no IndexError


def test_a_title_merged_over_part_of_the_width_is_kept_once_and_group_labels_still_spread() -> None:
    # A sheet's title merged over the first three of four columns: the fourth holds a period label
    # further down, so the title does not reach the table's last column.
    grid = [["3. Analyses by segment", "", "", ""], ["In millions of CHF", "", "", "January–June 2023"],
            ["", "Sales", "Profit", "Margin"], ["Zone NA", "12553", "2713", "21.6%"]]
    table = make_table(grid, [Span(0, 0, 0, 2)])
    assert table.rows[0] == ("3. Analyses by segment", "", "", ""), "a title is read once, not three times"
    # Two labels side by side are column groups, each spread over its own columns.
    grid = [["평가정보 목록", "", "", "지니데이타", ""], ["구분", "No", "제목", "제목", "비고"], ["조직", "1", "정관", "정관", "조직_1"]]
    table = make_table(grid, [Span(0, 0, 0, 2), Span(0, 3, 0, 4)])
    assert table.rows[0] == ("평가정보 목록",) * 3 + ("지니데이타",) * 2


def test_a_form_on_a_fine_grid_reads_a_label_merged_across_columns_once() -> None:
    """A Hangul R&D item sheet is a form laid out on a grid of 27 columns: its second row,
    "개발형태 … 의약바이오", was read as the last header row and its value repeated in the seven
    columns it spans, on every chunk of the form (26,628 tokens in 85 chunks for 13,992 characters).
    A label in the last header row is repeated only over columns the rows below use one by one."""
    grid = [["품목번호", "2026-1차-01", "", "", "산업기술분류", "", "중분류Ⅰ", "중분류Ⅱ"],
            ["개발형태", "", "", "", "", "", "의약바이오", ""],
            ["품목명", "나노산소운반체 기반 항암제 병용치료 증강제 개발", "", "", "", "", "", ""],
            ["예산", "’26년 7.5억원 이내", "", "", "", "", "", ""],
            ["기간", "56개월 이내", "", "", "", "", "", ""]]
    spans = [Span(0, 1, 0, 3), Span(0, 4, 1, 5), Span(1, 1, 1, 3), Span(1, 6, 1, 7),
             *(Span(row, 1, row, 7) for row in (2, 3, 4))]
    table = make_table(grid, spans)
    assert table.header_rows == 2
    assert table.rows[1].count("의약바이오") == 1 and table.rows[0].count("2026-1차-01") == 1
    # A 10-K's years over the "$" and amount columns its rows fill one by one are still spread.
    grid = [["", "2021", "", "2020", ""], ["Licensing fees", "$", "19,984,378", "$", "9,104,000"],
            ["Product sales", "", "1,234,000", "", "987,000"]]
    assert make_table(grid, [Span(0, 1, 0, 2), Span(0, 3, 0, 4)]).rows[0] == ("", "2021", "2021", "2020", "2020")


# -------------------------------------------------------------------------------------------- xlsx


def test_formula_without_cached_value_is_reported(tmp_path: Path) -> None:
    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "계산"
    sheet.append(["품목", "수량", "단가", "금액"])
    for row in range(2, 5):
        sheet.append([f"품목 {row}", row, 100, f"=B{row}*C{row}"])
    path = tmp_path / "formulas.xlsm"  # any name: the content decides
    workbook.save(path)
    doc = parse(path)
    (warning,) = doc.warnings
    assert "3 formula cell(s) have no cached value" in warning and "D2, D3, D4" in warning
    assert doc.blocks[0].table.rows[1] == ("품목 2", "2", "100", "")


def test_cached_formula_values_are_read(tmp_path: Path) -> None:
    path = make_xlsx(tmp_path / "cached.xlsx", {"S": [["a", "b"], [1, 2]]})
    sheet_xml = ('<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
                 '<row r="1"><c r="A1" t="inlineStr"><is><t>합계</t></is></c><c r="B1"><f>SUM(1,2)</f><v>3</v></c>'
                 '<c r="C1" t="str"><f>IF(1,"","x")</f><v></v></c></row>'
                 '<row r="3"><c r="A3" t="b"><v>1</v></c><c r="B3" t="e"><v>#DIV/0!</v></c>'
                 '<c r="C3" t="inlineStr"><is><r><t>서</t></r><r><t>울</t></r><rPh><t>ソウル</t></rPh></is></c></row>'
                 "</sheetData></worksheet>")
    with zipfile.ZipFile(path) as source:
        members = [(info, source.read(info)) for info in source.infolist()]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as target:
        for info, data in members:
            target.writestr(info, sheet_xml.encode() if info.filename == "xl/worksheets/sheet1.xml" else data)
    path.write_bytes(buffer.getvalue())
    doc = parse(path)
    assert doc.warnings == ()  # an empty string result is a cached value, not a missing one
    assert doc.blocks[0].table.rows == (("합계", "3", ""), ("TRUE", "#DIV/0!", "서울"))
    assert doc.blocks[0].row_numbers == (1, 3)


def _side_by_side_and_stacked() -> list[list[object]]:
    """A sheet like a reviewer's: a 지역 table in A1:D9, a second table beside it in G5:I9 (its header
    level with the first one's data), and a third below both in C14:E18 after empty rows."""
    rows: list[list[object]] = [["지역", "1분기", "2분기", "3분기"]]
    rows += [[f"지역 {r}", r, 2 * r, 3 * r] for r in range(1, 9)]
    for r, values in enumerate([["품목", "수량", "단가"]] + [[f"품목 {k}", k, 100 * k] for k in range(1, 5)], start=4):
        rows[r] += ["", "", *values]
    rows += [[], [], [], []]
    rows += [["", "", "col-1", "col-2", "col-3"]] + [["", "", k, 2 * k, 3 * k] for k in range(1, 5)]
    return rows


def test_tables_side_by_side_and_stacked_on_a_sheet_are_tables_of_their_own(tmp_path: Path) -> None:
    doc = parse(make_xlsx(tmp_path / "tables.xlsx", {"시트": _side_by_side_and_stacked()}))
    located = [(b.locator.row_start, b.locator.row_end, b.locator.column_start, b.locator.column_end)
               for b in doc.blocks]
    assert located == [(1, 9, 1, 4), (5, 9, 7, 9), (14, 18, 3, 5)]
    first, beside, below = (b.table for b in doc.blocks)
    assert first.rows[0] == ("지역", "1분기", "2분기", "3분기") and first.rows[5] == ("지역 5", "5", "10", "15")
    assert beside.rows[0] == ("품목", "수량", "단가") and beside.rows[-1] == ("품목 4", "4", "400")
    assert below.rows[0] == ("col-1", "col-2", "col-3") and len(below.rows) == 5
    assert [t.header_rows for t in (first, beside, below)] == [1, 1, 1]
    assert doc.blocks[1].row_numbers == (5, 6, 7, 8, 9) and doc.blocks[2].row_numbers == (14, 15, 16, 17, 18)
    # Cut small, every chunk of the second table starts with its own header, never the first's.
    tall = _side_by_side_and_stacked()[:9] + [[f"지역 {r}", r, r, r, "", "", f"품목 {r}", r, r] for r in range(9, 60)]
    doc = parse(make_xlsx(tmp_path / "tall.xlsx", {"시트": tall}))
    _, chunks = cut_document(doc, CutConfig(Budget(min_tokens=2, max_tokens=80, merge_ceiling=82, pack=60)), "tall.xlsx")
    starts = [chunk.text.split("\n")[0] for chunk in chunks]
    assert "지역 | 1분기 | 2분기 | 3분기" in starts and "품목 | 수량 | 단가" in starts
    assert all(line in ("지역 | 1분기 | 2분기 | 3분기", "품목 | 수량 | 단가") for line in starts)


def test_a_report_sheet_with_header_rows_set_off_by_an_empty_row_holds_one_table_per_period(tmp_path: Path) -> None:
    """Two periods' tables stacked on a sheet, each header set off from its rows by an empty row
    (a real half-year report's layout): the second period's rows are not read under the first's header."""
    period = [["단위: 억원", "", "{}"], ["", "매출", "이익"], [], ["서울", 10, 2], ["부산", 8, 1]]
    rows = [[cell.format("2026년 상반기") if isinstance(cell, str) else cell for cell in row] for row in period]
    rows += [[], []] + [[cell.format("2025년 상반기") if isinstance(cell, str) else cell for cell in row] for row in period]
    doc = parse(make_xlsx(tmp_path / "report.xlsx", {"실적": rows}))
    assert [(b.locator.row_start, b.locator.row_end) for b in doc.blocks] == [(1, 5), (8, 12)]
    assert [b.table.rows[0][-1] for b in doc.blocks] == ["2026년 상반기", "2025년 상반기"]
    assert [b.table.header_rows for b in doc.blocks] == [2, 2]


def _api_spec() -> tuple[list[list[object]], list[str]]:
    """An open-data API guide's sheet (a real one's layout): the service's facts as key/value rows,
    then a request table under its merged title, then a response table of text only under its own
    title, whose labels reach a column the request table leaves empty."""
    rows: list[list[object]] = [["서비스명(영문)", "perDay"], ["서비스명(국문)", "일별 도매 가격정보"],
                                ["오퍼레이션명", "price"], ["Method", "GET"], [], []]
    rows += [["요청 메세지 명세"], ["항목명(영문)", "항목명(국문)", "항목크기", "필수여부", "항목설명"]]
    rows += [[f"param{k}", f"요청 항목 {k}", 10 * k, "필수", f"설명 {k}"] for k in range(1, 21)]
    rows += [[], [], ["응답 메세지 명세"], ["구분", "항목명(영문)", "", "항목명(국문)", "데이터타입", "비고"]]
    rows += [["body", f"field{k}", "", f"응답 항목 {k}", "문자열"] for k in range(1, 21)]
    return rows, ["A7:E7", f"A{len(rows) - 21}:F{len(rows) - 21}"]


def test_tables_stacked_under_their_titles_below_key_value_rows_are_tables_of_their_own(tmp_path: Path) -> None:
    """The key/value rows were read as the header of one table holding both of the sheet's tables:
    each piece of the response table repeated ``서비스명(영문) | perDay`` and never its own labels."""
    rows, merges = _api_spec()
    doc = parse(make_xlsx(tmp_path / "api.xlsx", {"API 명세": rows}, merges={"API 명세": merges}))
    assert [(b.locator.row_start, b.locator.row_end) for b in doc.blocks] == [(1, 4), (7, 28), (31, 52)]
    facts, request, response = (b.table for b in doc.blocks)
    assert facts.rows[-1] == ("Method", "GET")
    assert request.rows[:2] == (("요청 메세지 명세", "", "", "", ""),
                                ("항목명(영문)", "항목명(국문)", "항목크기", "필수여부", "항목설명"))
    assert response.rows[1] == ("구분", "항목명(영문)", "", "항목명(국문)", "데이터타입", "비고")
    assert [request.header_rows, response.header_rows] == [2, 2]
    _, chunks = cut_document(doc, CutConfig(Budget(min_tokens=2, max_tokens=120, merge_ceiling=125, pack=100)), "api.xlsx")
    last = next(chunk for chunk in chunks if "field20" in chunk.text)
    assert "구분 | 항목명(영문) |  | 항목명(국문) | 데이터타입 | 비고" in last.header + last.text
    assert "서비스명(영문)" not in last.header + last.text and "항목크기" not in last.header + last.text


def test_a_text_table_continued_after_an_empty_row_under_its_own_columns_stays_one_table(tmp_path: Path) -> None:
    """A requirements list set apart in groups by empty rows and group titles: the rows after a
    title fill the columns the header above names, so they are read under that header."""
    rows: list[list[object]] = [["요구사항 ID", "요구사항명", "설명"], ["SFR-001", "로그인", "아이디로 로그인한다"]]
    rows += [[], ["보안 요구사항"], ["SER-001", "암호화", "비밀번호를 암호화한다"], ["SER-002", "감사 기록", "접속을 기록한다"]]
    doc = parse(make_xlsx(tmp_path / "req.xlsx", {"요구사항": rows}))
    assert len(doc.blocks) == 1 and doc.blocks[0].table.rows[0] == ("요구사항 ID", "요구사항명", "설명")


@pytest.mark.parametrize("rows, merges", [
    # An empty column under a header cell is inside the table.
    ([["이름", "비고", "점수"], ["가", "", 1], ["나", "", 2]], ()),
    # A column set off by an empty one, level with the header ("Topic | Period | | Page").
    ([["Financial performance"], ["Topic", "Period", "", "Page"], ["Revenue", "FY 22", "", 1],
      ["Cash flow", "FY 23", "", 2]], ()),
    # A header merged across the empty column.
    ([["", "", "", ""], ["구분", "실적", "", ""], ["서울", 1, "", 3], ["부산", 2, "", 4]], ("B2:D2",)),
    # An empty row inside a table, then a total; then a group label over data.
    ([["지역", "인구"], ["서울", 10], ["부산", 5], [], ["합계", 15], [], ["광역시"], ["대구", 3]], ()),
    # A title, an empty row, then the table.
    ([["2026년 예산 현황"], [], ["사업", "예산"], ["도로", 100], ["교량", 50]], ()),
    # Two blocks of text only: nothing shows where a header is.
    ([["가", "나", "", "다"], ["라", "마", "", ""], ["", "", "", "바"]], ()),
])
def test_one_table_with_empty_cells_stays_one_table(tmp_path: Path, rows, merges) -> None:
    doc = parse(make_xlsx(tmp_path / "one.xlsx", {"표": rows}, merges={"표": list(merges)}))
    assert len(doc.blocks) == 1


def test_csv_tables_stacked_after_an_empty_line_are_tables_of_their_own(tmp_path: Path) -> None:
    rows = [["구분", "금액"], ["인건비", 100], ["운영비", 50], [], ["항목", "수량", "비고"], ["의자", 3, "회의실"]]
    doc = parse(make_csv(tmp_path / "two.csv", rows))
    assert [b.table.rows[0] for b in doc.blocks] == [("구분", "금액"), ("항목", "수량", "비고")]
    assert [(b.locator.row_start, b.locator.row_end) for b in doc.blocks] == [(1, 3), (5, 6)]


def test_a_row_of_years_over_a_row_of_labels_is_a_two_row_header(tmp_path: Path) -> None:
    """A statistics office's CSV puts the year over every column and the labels under it. The year
    row alone was read as the header and the label row as data, so a chunk past the first said
    ``2017 | 2017 | …`` above its rows and no column's name."""
    years = ["행정구역별(읍면동)"] + ["2017"] * 4
    labels = ["행정구역별(읍면동)", "총인구 (명)", "남자 (명)", "아파트 (호)", "일반가구 (가구)"]
    rows = [years, labels] + [[f"구{i}", 1000 + i, 500 + i, 70 + i, 300 + i] for i in range(400)]
    doc = parse(make_csv(tmp_path / "인구.csv", rows))
    table = doc.blocks[0].table
    assert table.header_rows == 2
    _, chunks = cut_document(doc, CutConfig(Budget(max_tokens=200, min_tokens=50)), "인구.csv")
    last = chunks[-1]
    assert "구399 | 1399" in last.text and "아파트 (호)" in last.header + last.text
    # Years over data rows are still not a header of labels: one header row, the years.
    assert detect_header_rows([["구분", "2019", "2020"], ["인구", "100", "200"], ["가구", "40", "50"]]) == 1


def test_a_title_row_is_counted_apart_from_three_header_rows(tmp_path: Path) -> None:
    """A sheet's merged title over three rows of labels (year, half, sex). The title took one of the
    three header rows, so the last row of labels (``남 | 여``) was read as data, and a piece past the
    first repeated the title and two label rows, without saying which column is which sex."""
    title = ["표 3. 지역별 인구 현황 (단위: 명)"] + [""] * 8
    years = ["지역", "2023년", "", "", "", "2024년", "", "", ""]
    halves = ["", "상반기", "", "하반기", "", "상반기", "", "하반기", ""]
    sexes = ["", "남", "여", "남", "여", "남", "여", "남", "여"]
    data = [[f"지역{i}", *(1000 + i * 10 + c for c in range(8))] for i in range(120)]
    merges = ["A1:I1", "A2:A4", "B2:E2", "F2:I2", "B3:C3", "D3:E3", "F3:G3", "H3:I3"]
    doc = parse(make_xlsx(tmp_path / "인구.xlsx", {"인구": [title, years, halves, sexes, *data]}, merges={"인구": merges}))
    table = doc.blocks[0].table
    assert (table.header_rows, table.title_rows) == (4, 1)
    assert table.header_text.splitlines()[-1].startswith("지역 | 남 | 여 | 남 | 여")
    assert "표 3." not in table.header_text, "the title is not one of the column label rows"
    _, chunks = cut_document(doc, CutConfig(Budget(max_tokens=300, min_tokens=50)), "인구.xlsx")
    last = chunks[-1]
    assert "지역119 |" in last.text
    assert "지역 | 남 | 여" in last.header, "a piece inside the table repeats the last row of labels"
    assert last.header.count("표 3. 지역별 인구 현황") == 1, "and the title once, as its caption"


# -------------------------------------------------------------------------------------------- docx


def test_docx_numbering_labels() -> None:
    from parsers.docx import _format_number, _Level, _Numbering

    numbering = _Numbering(
        nums={"1": ("0", {}), "2": ("0", {0: 5})},
        levels={"0": {0: _Level(1, "ganada", "%1."), 1: _Level(1, "decimalEnclosedCircle", "%2"),
                      2: _Level(1, "bullet", "\uf0b7")}},
    )
    assert [numbering.label("1", 0), numbering.label("1", 1), numbering.label("1", 1),
            numbering.label("1", 2), numbering.label("1", 0), numbering.label("1", 1)] == \
        ["가.", "①", "②", "•", "나.", "①"]
    assert numbering.label("2", 0) == "마."  # a list instance that restarts at 5
    assert [_format_number(4, f) for f in ("upperRoman", "lowerLetter", "chosung", "decimalZero")] == \
        ["IV", "d", "ㄹ", "04"]


def test_docx_a_frame_is_read_as_its_content_and_a_nested_table_keeps_its_rows(tmp_path: Path) -> None:
    """Word documents box text in a table of one cell of content too, and nest tables in cells (the real
    ``docx-tables.docx`` of ../shared/samples has a 2×2 table in a cell). Read into the cell's text, a
    nested table's cells ran into the outer row's columns (``d | e | f g&t | h | i``: five in a row of
    three). A frame is its content in place; a nested table is a table of its own after its table,
    titled with its column's label when the header row is declared."""
    import docx
    from docx.oxml import OxmlElement

    document = docx.Document()
    document.add_table(rows=1, cols=3).cell(0, 1).text = "적격심사 세부기준"  # a title boxed between empty margins
    document.add_paragraph("□ 기술능력 평가")
    frame = document.add_table(rows=1, cols=1).cell(0, 0)
    frame.paragraphs[0].text = "가. 기술등급"
    scores = frame.add_table(rows=2, cols=2)
    for (r, c), text in zip([(0, 0), (0, 1), (1, 0), (1, 1)], ["등급", "평점", "T1", "10"], strict=True):
        scores.cell(r, c).text = text
    frame.add_paragraph("※ 최근 등급으로 평가한다")
    outer = document.add_table(rows=2, cols=3)
    repeat = OxmlElement("w:tblHeader")  # "repeat as header row": the file declares the header
    outer.rows[0]._tr.get_or_add_trPr().append(repeat)
    for (r, c), text in zip([(0, 0), (0, 1), (0, 2), (1, 0), (1, 2)], ["구분", "현행", "개정", "본봉표", "삭제"],
                            strict=True):
        outer.cell(r, c).text = text
    outer.cell(1, 1).text = "2023년 기준"
    inner = outer.cell(1, 1).add_table(rows=2, cols=2)
    for (r, c), text in zip([(0, 0), (0, 1), (1, 0), (1, 1)], ["직급", "제1호봉", "1급", "10,941,230"], strict=True):
        inner.cell(r, c).text = text
    document.add_paragraph("○ 끝")
    path = tmp_path / "기준.docx"
    document.save(str(path))
    doc = parse(path)
    shown = [(b.kind, b.text) for b in doc.blocks]
    assert shown[:6] == [("paragraph", "적격심사 세부기준"), ("paragraph", "□ 기술능력 평가"), ("paragraph", "가. 기술등급"),
                         ("table", "등급 | 평점\nT1 | 10"), ("paragraph", "※ 최근 등급으로 평가한다"),
                         ("table", "구분 | 현행 | 개정\n본봉표 | 2023년 기준 | 삭제")]
    assert shown[6:] == [("table", "현행\n직급 | 제1호봉\n1급 | 10,941,230"), ("paragraph", "○ 끝")]


def test_docx_footnotes_and_macro_enabled_type(tmp_path: Path) -> None:
    path = make_docx(tmp_path / "a.docm", ["본문 문단입니다."])
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    footnotes = (f'<?xml version="1.0" encoding="UTF-8"?><w:footnotes xmlns:w="{w}">'
                 '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
                 '<w:footnote w:id="1"><w:p><w:r><w:t>각주 내용 footnote</w:t></w:r></w:p></w:footnote></w:footnotes>')
    with zipfile.ZipFile(path) as source:
        members = [(info, source.read(info)) for info in source.infolist()]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for info, data in members:
            if info.filename == "[Content_Types].xml":
                data = data.replace(b"wordprocessingml.document.main+xml", b"x").replace(
                    b'ContentType="application/vnd.openxmlformats-officedocument.x"',
                    b'ContentType="application/vnd.ms-word.document.macroEnabled.main+xml"').replace(
                    b"</Types>", b'<Override PartName="/word/footnotes.xml" ContentType="application/'
                                 b'vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/></Types>')
            if info.filename == "word/_rels/document.xml.rels":
                data = data.replace(b"</Relationships>", b'<Relationship Id="rIdFn" Type="http://schemas.'
                                    b'openxmlformats.org/officeDocument/2006/relationships/footnotes" '
                                    b'Target="footnotes.xml"/></Relationships>')
            target.writestr(info, data)
        target.writestr("word/footnotes.xml", footnotes)
    path.write_bytes(buffer.getvalue())
    doc = parse(path)
    assert [b.text for b in doc.blocks] == ["본문 문단입니다.", "Footnote 1: 각주 내용 footnote"]


def _word_toc(path: Path, mark: str) -> Path:
    """A Word document whose table of contents is marked one of Word's ways (``style``: entries
    styled ``toc N``, or ``Contents N`` as LibreOffice writes them; ``field``: the result of a
    ``TOC`` field spanning paragraphs; ``control``: a "Table of Contents" content control),
    followed by the sections it lists."""
    import docx
    from docx.enum.style import WD_STYLE_TYPE
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    document = docx.Document()
    entries = [(1, "1. 개요\t3"), (2, "가. 추진 배경\t3"), (2, "나. 목적\t4"), (1, "2. 세부 계획\t5"),
               (1, "Ⅲ. Budget\t7")]
    style = {"style": "toc {}", "libreoffice": "Contents {}"}.get(mark)
    if style:
        for level in (1, 2):
            document.styles.add_style(style.format(level), WD_STYLE_TYPE.PARAGRAPH)
    document.add_paragraph("목차")
    paragraphs = []
    for level, text in entries:
        paragraphs.append(document.add_paragraph(text, style=style.format(level) if style else None))
    if mark == "field":
        begin = parse_xml(f'<w:r {nsdecls("w")}><w:fldChar w:fldCharType="begin"/></w:r>')
        instr = parse_xml(f'<w:r {nsdecls("w")}><w:instrText xml:space="preserve"> TOC \\o "1-3" \\h </w:instrText></w:r>')
        separate = parse_xml(f'<w:r {nsdecls("w")}><w:fldChar w:fldCharType="separate"/></w:r>')
        for run in (separate, instr, begin):
            paragraphs[0]._p.insert(1, run)
        paragraphs[-1]._p.append(parse_xml(f'<w:r {nsdecls("w")}><w:fldChar w:fldCharType="end"/></w:r>'))
    if mark == "control":
        sdt = parse_xml(f'<w:sdt {nsdecls("w")}><w:sdtPr><w:docPartObj><w:docPartGallery w:val="Table of Contents"/>'
                        '<w:docPartUnique/></w:docPartObj></w:sdtPr><w:sdtContent/></w:sdt>')
        paragraphs[0]._p.addprevious(sdt)
        content = sdt[1]
        for paragraph in paragraphs:
            content.append(paragraph._p)
    document.add_paragraph("1. 개요", style="Heading 1")
    document.add_paragraph("가. 추진 배경", style="Heading 2")
    document.add_paragraph("본문 문단입니다. The body of the first section.")
    document.add_paragraph("2. 세부 계획", style="Heading 1")
    document.add_paragraph("계획 문단입니다.")
    document.save(str(path))
    return path


@pytest.mark.parametrize("mark", ["style", "libreoffice", "field", "control"])
def test_a_word_table_of_contents_is_a_list_and_never_heads_a_section(tmp_path: Path, mark: str) -> None:
    """Word marks its TOC by style, field or content control: its entries are list items (level
    from the style) kept in the text with their page numbers, and no heading path holds one."""
    from classifiers.headings import find_headings

    doc = parse(_word_toc(tmp_path / f"toc-{mark}.docx", mark))
    entries = [b for b in doc.blocks if b.kind == "list_item"]
    assert [b.text for b in entries] == ["1. 개요 3", "가. 추진 배경 3", "나. 목적 4", "2. 세부 계획 5", "Ⅲ. Budget 7"]
    if mark in ("style", "libreoffice"):
        assert [b.level for b in entries] == [0, 1, 1, 0, 0]
    assert [h.text for h in find_headings(doc)] == ["1. 개요", "가. 추진 배경", "2. 세부 계획"]
    assert [b.kind for b in doc.blocks][-5:] == ["heading", "heading", "paragraph", "heading", "paragraph"]


def test_a_typed_table_of_contents_with_fused_page_numbers_is_a_list(tmp_path: Path) -> None:
    """A TOC without Word's marks (a Google Docs export: entries are plain paragraphs, the tab before
    the page number lost, "I. DEBTOR EDUCATION5-9") is found by its title and its run of page numbers;
    it ends at its last entry, before the chapter divider page that follows it. A page number fused
    to a word is set apart from it; one after a space is left as it is ("CHAPTER 133-4")."""
    from classifiers.headings import find_headings

    toc = ["CHAPTER 1 - INTRODUCTION", "A. PURPOSE1-1", "B. 역할과 책임1-2", "CHAPTER 3 – ADMINISTRATION",
           "4. ELIGIBILITY FOR CHAPTER 133-4", "5. VERIFICATION OF DEBTOR IDENTITY AND SOCIAL SECURITY",
           "NUMBER3-9", "I. DEBTOR EDUCATION5-9", "2. REMEDIAL AND ENFORCEMENT ACTIONS7-4"]
    body = ["CHAPTER 1", "INTRODUCTION", ("h1", "CHAPTER 1 – INTRODUCTION"), ("h2", "A. PURPOSE"),
            "The United States Trustee appoints and supervises standing trustees.", "1. 본문의 첫 항목입니다.",
            ("h2", "I. DEBTOR EDUCATION"), "교육에 관한 본문입니다."]
    doc = parse(make_docx(tmp_path / "handbook.docx", ["Handbook", "Table of Contents", *toc, *body]))
    kinds = {b.text: b.kind for b in doc.blocks}
    assert [b.text for b in doc.blocks if b.kind == "list_item"] == [
        "CHAPTER 1 - INTRODUCTION", "A. PURPOSE 1-1", "B. 역할과 책임 1-2", "CHAPTER 3 – ADMINISTRATION",
        "4. ELIGIBILITY FOR CHAPTER 133-4", "5. VERIFICATION OF DEBTOR IDENTITY AND SOCIAL SECURITY",
        "NUMBER 3-9", "I. DEBTOR EDUCATION 5-9", "2. REMEDIAL AND ENFORCEMENT ACTIONS 7-4"]
    assert kinds["Table of Contents"] == "paragraph" and kinds["CHAPTER 1"] == "paragraph"
    assert [h.text for h in find_headings(doc)] == ["CHAPTER 1 – INTRODUCTION", "A. PURPOSE", "I. DEBTOR EDUCATION"]
    # A regulation's TOC: its chapters and articles, read as list items, still match the regulation's
    # own headers; set apart from their page numbers, they read as the TOC they are.
    toc = ["제1장 총칙1", "제1조(목적)1", "제2장 조직3", "제5조(구성)3", "제3장 운영5"]
    body = [("h1", "제1장 총칙"), "제1조(목적) 이 규정은 목적을 정한다.", "제2조(정의) 정의는 다음과 같다.",
            ("h1", "제2장 조직"), "제5조(구성) 위원회를 둔다.", ("h1", "제3장 운영"), "제7조(운영) 운영한다."]
    doc = parse(make_docx(tmp_path / "규정.docx", ["규정", "목차", *toc, *body]))
    assert [h.text for h in find_headings(doc)] == ["제1장 총칙", "제1조(목적)", "제2조(정의)", "제2장 조직",
                                                    "제5조(구성)", "제3장 운영", "제7조(운영)"]
    # Without a title, or with too few page numbers, the lines are left as they are.
    doc = parse(make_docx(tmp_path / "plain.docx", ["목차", "A. PURPOSE1-1", "본문입니다.", *toc[:2]]))
    assert {b.kind for b in doc.blocks} == {"paragraph"}


# -------------------------------------------------------------------------------------------- pptx


def test_a_soft_line_break_in_a_slide_keeps_the_words_apart(tmp_path: Path) -> None:
    """PowerPoint's soft line break (Shift+Enter, ``<a:br/>``) reaches python-pptx as a vertical
    tab; read as a control character it glued "Bullant" to "6주차"."""
    from pptx import Presentation

    path = make_pptx(tmp_path / "deck.pptx", [Slide("제목", ["본문"])])
    deck = Presentation(str(path))
    title = deck.slides[0].shapes.title.text_frame.paragraphs[0]
    title.text = "Bullant"
    title.add_line_break()
    title.add_run().text = "6주차 주간 발표"
    cell = deck.slides[0].shapes.add_table(2, 2, 0, 0, 100, 100).table.cell(1, 0).text_frame.paragraphs[0]
    cell.text = "전화번호"
    cell.add_line_break()
    cell.add_run().text = "알림 설정"
    deck.save(str(path))
    text = parse(path).text
    assert "Bullant 6주차 주간 발표" in text
    assert "전화번호 알림 설정" in text


def test_hidden_slide_and_chart_are_read(tmp_path: Path) -> None:
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    path = make_pptx(tmp_path / "deck.pptx", [Slide("공개 슬라이드", ["본문"]), Slide("숨긴 슬라이드", ["비밀"])])
    deck = Presentation(str(path))
    deck.slides[1]._element.set("show", "0")
    data = CategoryChartData()
    data.categories = ["Q1", "Q2"]
    data.add_series("매출 Revenue", (1820, 2040.5))
    chart = deck.slides[0].shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(4), Inches(4),
                                            Inches(2), data).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = "분기 매출"
    deck.save(str(path))
    doc = parse(path)
    assert doc.warnings == ("slide 2 is hidden; indexed anyway",)
    (table,) = [b for b in doc.blocks if b.kind == "table"]
    assert table.table.rows == (("", "매출 Revenue"), ("Q1", "1820"), ("Q2", "2040.5"))
    assert "분기 매출" in doc.text and "비밀" in doc.text


# --------------------------------------------------------------------------------------------- pdf


def test_text_pages_never_reach_the_table_finder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pdfplumber.table

    def refuse(*_args, **_kwargs):
        raise AssertionError("the table finder ran on a page without ruled lines")

    path = make_pdf(tmp_path / "text.pdf", [["첫 쪽 문단입니다."], ["둘째 쪽 문단입니다."]], header="머리말",
                    page_numbers=True)
    monkeypatch.setattr(pdfplumber.table, "TableFinder", refuse)
    doc = parse(path)
    assert "둘째 쪽 문단입니다." in doc.text and doc.warnings == ()


def test_pdf_tables_are_found_without_pdfminer_reading_the_page(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The grid comes from pdfium's path objects: pdfplumber never opens the file (its pdfminer
    page parse was 95 % of the parse time on real notices)."""
    import pdfplumber

    def refuse(*_args, **_kwargs):
        raise AssertionError("pdfplumber opened the file")

    monkeypatch.setattr(pdfplumber, "open", refuse)
    table = [["구분", "2024년", "2025년"], ["예산", "112", "138"]]
    doc = parse(make_pdf(tmp_path / "t.pdf", [["표 위 문단입니다."]], table=table))
    tables = [b.table for b in doc.blocks if b.table is not None]
    assert [list(row) for row in tables[0].rows] == table and doc.warnings == ()


def test_the_pdfium_grid_is_the_grid_pdfplumber_finds(tmp_path: Path) -> None:
    """Edges made from pdfium's paths the way pdfplumber makes them from pdfminer's objects give
    the same cells as ``page.find_tables()``, on generated tables and on the real PDFs of
    ``../shared/samples`` (when present)."""
    import pdfplumber
    import pypdfium2 as pdfium
    from fixtures.files import make_scrambled_table_pdf

    from parsers.pdf.page import Transform
    from parsers.pdf.ruled import _EdgePage, _ruling_edges, may_have_table

    files = [make_pdf(tmp_path / "t.pdf", [["표 위 문단입니다."], ["둘째 쪽"]],
                      table=[["구분", "2024년", "2025년"], ["예산", "112", "138"], ["인원", "3", "4"]]),
             make_scrambled_table_pdf(tmp_path / "s.pdf", [["구분", "일정"], ["제1회", "1.20(월)"]])]
    samples = Path(__file__).resolve().parents[2] / "shared" / "samples"
    files += sorted(p for p in samples.rglob("*") if p.suffix.lower() == ".pdf") if samples.is_dir() else []
    compared = 0
    for path in files:
        try:
            plumber, document = pdfplumber.open(str(path)), pdfium.PdfDocument(str(path))
        except Exception:  # a broken or encrypted sample: nothing to compare
            continue
        with plumber:
            for index, page in enumerate(document):
                if not may_have_table(page):
                    continue
                width, height = page.get_size()
                edges = _ruling_edges(page, Transform.of(page, width, height))
                mine = pdfplumber.table.TableFinder(_EdgePage(edges, (0.0, 0.0, width, height))).tables
                theirs = plumber.pages[index].find_tables()
                crop, media = plumber.pages[index].cropbox, plumber.pages[index].mediabox
                shift = (crop[0] - media[0], crop[1] - media[1])  # pdfium's origin is the CropBox's
                assert len(mine) == len(theirs), (path.name, index)
                for a, b in zip(mine, theirs, strict=True):
                    cells_a = [c for row in a.rows for c in row.cells]
                    cells_b = [c for row in b.rows for c in row.cells]
                    assert [c is None for c in cells_a] == [c is None for c in cells_b], (path.name, index)
                    for box_a, box_b in zip(cells_a, cells_b, strict=True):
                        if box_a is not None:
                            expected = (box_b[0] - shift[0], box_b[1] - shift[1], box_b[2] - shift[0], box_b[3] - shift[1])
                            assert max(abs(float(u) - float(v)) for u, v in zip(box_a, expected, strict=True)) < 0.1
                compared += len(theirs)
    assert compared >= 2


def test_pdf_table_pages_use_pdfplumber_and_keep_text_out_of_tables(tmp_path: Path) -> None:
    table = [["구분", "2024년", "2025년"], ["예산", "112", "138"]]
    doc = parse(make_pdf(tmp_path / "t.pdf", [["표 위 문단입니다."], ["둘째 쪽"]], table=table))
    kinds = [(b.kind, b.locator.page) for b in doc.blocks]
    assert kinds == [("paragraph", 1), ("table", 1), ("paragraph", 2)]
    assert "112" not in doc.blocks[0].text


def test_pdf_when_the_table_finder_fails_keeps_text_and_warns(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import pdfplumber.table

    def broken(*_args, **_kwargs):
        raise ValueError("odd drawing")

    monkeypatch.setattr(pdfplumber.table, "TableFinder", broken)
    doc = parse(make_pdf(tmp_path / "t.pdf", [["표 위 문단입니다."]], table=[["a", "b"], ["1", "2"]]))
    assert "표 위 문단입니다." in doc.text
    assert any("tables not detected" in w for w in doc.warnings)


def test_pdf_table_cells_read_in_visual_order(tmp_path: Path) -> None:
    """Cell glyphs drawn out of order ("제", "회", then "1") read as shown, with word spaces where
    the gaps are and none where a later glyph fills the gap."""
    from fixtures.files import make_scrambled_table_pdf

    rows = [["구분", "일정", "비고"], ["제1회", "1.20(월)", "① 신청 접수"], ["제2회", "2.3(화)", "선택 과목"]]
    doc = parse(make_scrambled_table_pdf(tmp_path / "t.pdf", rows))
    tables = [b.table for b in doc.blocks if b.table is not None]
    assert len(tables) == 1
    assert [list(row) for row in tables[0].rows] == rows


def _table_over_two_pages(path: Path, repeat_header: bool) -> Path:
    """A ruled table of 60 rows that fpdf breaks over two pages, its header row repeated on the
    second page or not, with a paragraph after it."""
    from fixtures.files import FONT_FAMILY, _fpdf_class
    from fpdf import FontFace

    pdf = _fpdf_class()(False, "", True)
    pdf.add_page()
    pdf.set_font(FONT_FAMILY, size=10)
    with pdf.table(col_widths=(2, 1, 1), line_height=7, headings_style=FontFace(emphasis=None),
                   repeat_headings=1 if repeat_header else 0) as table:
        for cells in [("항목", "2024년", "2025년")] + [(f"사업 {n}", f"{n * 10:,}", f"{n * 11:,}") for n in range(1, 61)]:
            row = table.row()
            for cell in cells:
                row.cell(cell)
    pdf.set_font(FONT_FAMILY, size=11)
    pdf.multi_cell(0, 6, "표가 끝난 뒤의 문단입니다.")
    pdf.output(str(path))
    return path


@pytest.mark.parametrize("repeat_header", [True, False])
def test_pdf_a_table_that_goes_on_over_a_page_break_is_one_table(tmp_path: Path, repeat_header: bool) -> None:
    """Read page by page, the rest of a table on the next page was a table of its own: its first
    data row was taken for its header (when the page did not repeat the header) and repeated above
    every chunk of the rest, which never said which column is 2024년 and which 2025년."""
    doc = parse(_table_over_two_pages(tmp_path / "table.pdf", repeat_header))
    tables = [b for b in doc.blocks if b.table is not None]
    assert len(tables) == 1
    table = tables[0].table
    assert (tables[0].locator.page, tables[0].locator.page_end) == (1, 2)
    assert table.header_rows == 1 and table.rows[0] == ("항목", "2024년", "2025년")
    assert [row[0] for row in table.rows[1:]] == [f"사업 {n}" for n in range(1, 61)]  # the header once
    _, chunks = cut_document(doc, CutConfig(Budget(min_tokens=20, max_tokens=150, merge_ceiling=160, pack=120)), "t.pdf")
    last = next(chunk for chunk in chunks if "사업 60" in chunk.text)
    assert "항목 | 2024년 | 2025년" in last.header + last.text


def test_pdf_a_table_of_other_labels_at_the_top_of_the_next_page_stays_apart(tmp_path: Path) -> None:
    from fixtures.files import FONT_FAMILY, _fpdf_class
    from fpdf import FontFace

    pdf = _fpdf_class()(False, "", True)
    for header, key in ((("구분", "예산", "비고"), "가"), (("항목", "인원", "기간"), "나")):
        pdf.add_page()
        pdf.set_font(FONT_FAMILY, size=10)
        with pdf.table(line_height=7, headings_style=FontFace(emphasis=None)) as table:
            for cells in [header] + [(f"{key} {n}", str(n), "-") for n in range(1, 4)]:
                row = table.row()
                for cell in cells:
                    row.cell(cell)
    pdf.output(str(tmp_path / "two.pdf"))
    doc = parse(tmp_path / "two.pdf")
    assert [b.table.rows[0] for b in doc.blocks if b.table is not None] == [("구분", "예산", "비고"), ("항목", "인원", "기간")]


def _ruled_table_with_turned_header(pdf: Any, x: float, y: float, headers: Sequence[str],
                                    rows: Sequence[Sequence[str]], header_height: float = 32.0) -> None:
    """A ruled table whose column headers (after the first) are set up the page (turned 90°, read
    bottom to top), as manuals set narrow columns of marks."""
    from fixtures.files import FONT_FAMILY

    widths = [60.0] + [12.0] * (len(headers) - 1)
    pdf.set_font(FONT_FAMILY, size=9)
    pdf.set_line_width(0.3)
    left = x
    for column, (width, header) in enumerate(zip(widths, headers, strict=True)):
        pdf.rect(left, y, width, header_height)
        if column == 0:
            pdf.text(left + 2, y + header_height - 3, header)
        else:
            with pdf.rotation(90, left + 8, y + header_height - 2):
                pdf.text(left + 8, y + header_height - 2, header)
        for r, row in enumerate(rows):
            pdf.rect(left, y + header_height + 7 * r, width, 7)
            pdf.text(left + 2, y + header_height + 7 * r + 5, row[column])
        left += width


def test_pdf_a_title_boxed_with_a_rule_through_its_last_word_is_a_line_not_a_table(tmp_path: Path) -> None:
    """Hangul's PDFs box section titles with a rule that can fall inside the last word; read as a
    one-row table, "3. 세부 제안 요건" was "3. 세부 제안 요 | 건": no heading, and the word gone."""
    from fixtures.files import FONT_FAMILY, _new_pdf

    pdf = _new_pdf(page_numbers=False)
    pdf.add_page()
    pdf.set_font(FONT_FAMILY, size=14)
    pdf.set_line_width(0.4)
    title = "3. 세부 제안 요건"
    width = pdf.get_string_width(title)
    last = pdf.get_string_width("건")
    pdf.text(22, 36, title)
    rule = 22 + width - 0.8 * last  # inside the last syllable, left of its middle
    pdf.rect(20, 28, rule - 20, 11)
    pdf.rect(rule, 28, 30, 11)
    pdf.set_font(FONT_FAMILY, size=11)
    for n in range(3):
        pdf.text(20, 52 + 6 * n, f"제안사는 요구사항 {n + 1}을 충족하여야 한다.")
    # A real table of two rows stays a table.
    for r, row in enumerate((("구분", "내용"), ("기간", "6개월"))):
        for c, cell in enumerate(row):
            pdf.rect(20 + 40 * c, 80 + 8 * r, 40, 8)
            pdf.text(22 + 40 * c, 86 + 8 * r, cell)
    path = tmp_path / "boxed.pdf"
    pdf.output(str(path))
    doc = parse(path)
    assert title in doc.text.split("\n")
    assert [b.table.rows for b in doc.blocks if b.table is not None] == [(("구분", "내용"), ("기간", "6개월"))]


def test_pdf_a_table_of_short_labels_beside_long_wrapped_cells_is_a_table(tmp_path: Path) -> None:
    """A Korean 구분 | 주요내용 table: a label of a line or two beside a cell of many ❍ lines. Most of
    its cells hold three lines or more, which the reader took for a grid coarser than its text (a
    booktabs table whose row rules were not found), so the table was read as loose lines and a
    label ended one chunk while its content opened the next."""
    from fixtures.files import FONT_FAMILY, _new_pdf
    from fpdf import FontFace

    pdf = _new_pdf(page_numbers=False)
    pdf.add_page()
    pdf.set_font(FONT_FAMILY, size=10)
    rows = [("구 분", "주 요 내 용")] + [
        (f"{label}\n관리\n기능", "\n".join(f"❍ {label} 기능 {n}을 제공" for n in range(1, 9)))
        for label in ("오퍼", "고객", "캠페인", "채널")]
    with pdf.table(col_widths=(1, 4), line_height=6, headings_style=FontFace(emphasis=None)) as table:
        for cells in rows:
            row = table.row()
            for cell in cells:
                row.cell(cell)
    path = tmp_path / "labels.pdf"
    pdf.output(str(path))
    tables = [b.table for b in parse(path).blocks if b.table is not None]
    assert len(tables) == 1 and len(tables[0].rows) == 5
    label, content = tables[0].rows[1]
    assert "오퍼" in label and "관리" in label and "오퍼 기능 8" in content


def _header_over_ruled_columns(pdf: Any, y: float, header: Sequence[tuple[str, float]], rows: Sequence[Sequence[str]]) -> None:
    """A ruled table whose header row has no rules between its value columns: ``header`` is the
    corner label, then (text, x) pairs written where they sit over the columns."""
    widths = [50.0, 30.0, 30.0, 30.0]
    pdf.rect(20, y, widths[0], 8)
    pdf.rect(20 + widths[0], y, sum(widths[1:]), 8)  # one box over the value columns
    pdf.text(22, y + 6, header[0][0])
    for text, x in header[1:]:
        pdf.text(x, y + 6, text)
    for r, row in enumerate(rows, start=1):
        left = 20.0
        for width, cell in zip(widths, row, strict=True):
            pdf.rect(left, y + 8 * r, width, 8)
            pdf.text(left + 2, y + 8 * r + 6, cell)
            left += width


def test_pdf_years_over_columns_without_rules_between_them_label_each_column(tmp_path: Path) -> None:
    """An income statement's header row had no rules between its years, so the years were one cell
    merged over the four columns, repeated in each (``2015 2016 2017 2018 | 2015 2016 2017 2018 |
    …``): no column said which year it was. Figures that sit one over each column label their own;
    words centred over columns stay one merged label."""
    from fixtures.files import FONT_FAMILY, _new_pdf

    pdf = _new_pdf(page_numbers=False)
    pdf.add_page()
    pdf.set_font(FONT_FAMILY, size=10)
    data = [["매출액", "1.200", "1.350", "1.410"], ["영업이익", "210", "180", "260"]]
    _header_over_ruled_columns(pdf, 30, [("구분", 0), ("2022", 82), ("2023", 112), ("2024", 142)], data)
    _header_over_ruled_columns(pdf, 90, [("구분", 0), ("연도별 실적 추이", 95)], data)
    path = tmp_path / "years.pdf"
    pdf.output(str(path))
    years, words = (b.table for b in parse(path).blocks if b.table is not None)
    assert years.rows[0] == ("구분", "2022", "2023", "2024")
    assert years.rows[2] == ("영업이익", "210", "180", "260")
    assert words.rows[0] == ("구분", "연도별 실적 추이", "연도별 실적 추이", "연도별 실적 추이")


def test_pdf_rotated_column_headers_read_as_words(tmp_path: Path) -> None:
    """Column headers turned up the page came out reversed and letter-spaced, "L T C B O J *" for
    "*JOBCTL" (the cell reader sorted the glyphs as if they lay on one line): rotated text is read
    in pdfium's content order, bottom to top, with its word spaces — inside cells and on the page."""
    from fixtures.files import FONT_FAMILY, _new_pdf

    pdf = _new_pdf(page_numbers=False)
    pdf.add_page()
    pdf.set_font(FONT_FAMILY, size=11)
    pdf.text(20, 30, "표 2-2 기능 사용 ID와 권한 비교 Comparison of function usage IDs")
    headers = ["User action 사용자 작업", "*JOBCTL", "QIBM_DB_SECADM", "권한 없음"]
    _ruled_table_with_turned_header(pdf, 20, 40, headers, [["SET CURRENT DEGREE", "X", "", "X"],
                                                           ["CHGQRYA 명령", "X", "X", ""]])
    # A label set up the page among the body's text (not in the margin) is text, read as words.
    pdf.set_font(FONT_FAMILY, size=11)
    for n in range(6):
        pdf.text(20, 120 + 6 * n, f"본문 {n + 1}번째 줄입니다. Body line {n + 1} of the page.")
    with pdf.rotation(90, 150, 150):
        pdf.text(150, 150, "세로 제목 Vertical label")
    path = tmp_path / "turned.pdf"
    pdf.output(str(path))
    doc = parse(path)
    tables = [b.table for b in doc.blocks if b.table is not None]
    assert len(tables) == 1
    assert list(tables[0].rows[0]) == headers
    assert list(tables[0].rows[1]) == ["SET CURRENT DEGREE", "X", "", "X"]
    assert "세로 제목 Vertical label" in doc.text.split("\n")
    assert not doc.furniture


def test_pdf_a_table_nested_in_a_cell_is_read_once(tmp_path: Path) -> None:
    """A table drawn inside a cell of another (a survey report's "모집단" row holding its own
    table) was read twice: flattened into the outer cell, its numbers run together, and again as
    a table of its own. The outer cell keeps its own text; the nested table is a table, once."""
    from fixtures.files import FONT_FAMILY, _new_pdf

    pdf = _new_pdf(page_numbers=False)
    pdf.add_page()
    pdf.set_font(FONT_FAMILY, size=10)
    pdf.set_line_width(0.3)
    outer = [("구분", "내용", 9.0), ("표본규모", "560개사 이상", 9.0), ("모집단", "", 52.0), ("조사방법", "온라인 및 전화조사", 9.0)]
    y = 30.0
    for label, text, height in outer:
        pdf.rect(20, y, 40, height)
        pdf.rect(60, y, 120, height)
        pdf.text(22, y + 6, label)
        if text:
            pdf.text(62, y + 6, text)
        else:
            pdf.text(62, y + 6, "주요 매체별 사업체 수는 다음과 같음 (단위, 개사)")
            inner = [["매체", "100억 이상", "합계"], ["지상파 TV", "123", "1,151"], ["라디오", "1", "419"],
                     ["신문", "34", "2,378"]]
            for r, row in enumerate(inner):
                for c, cell in enumerate(row):
                    pdf.rect(66 + 36 * c, y + 11 + 9 * r, 36, 9)
                    pdf.text(68 + 36 * c, y + 17 + 9 * r, cell)
        y += height
    path = tmp_path / "nested.pdf"
    pdf.output(str(path))
    doc = parse(path)
    tables = [b.table for b in doc.blocks if b.table is not None]
    assert len(tables) == 2
    outer_rows = {row[0]: row[1] for row in tables[0].rows}
    assert outer_rows["모집단"] == "주요 매체별 사업체 수는 다음과 같음 (단위, 개사)"
    assert outer_rows["조사방법"] == "온라인 및 전화조사"
    assert [list(row) for row in tables[1].rows] == inner
    assert doc.text.count("2,378") == 1 and doc.text.count("지상파 TV") == 1


def test_pdf_rotated_text_in_the_margin_is_furniture(tmp_path: Path) -> None:
    """A printer's slug set up the left edge ("… with PROPOSALS") and a figure's file tag down the
    right one leaked into the text as fragments ("OP", "OSAL", "S", "/GPH>"): rotated text in the
    margin, clear of the body's lines, is furniture — kept with its page, not in the text."""
    from fixtures.files import FONT_FAMILY, _new_pdf

    pdf = _new_pdf(page_numbers=False)
    for page in range(1, 4):
        pdf.add_page()
        pdf.set_font(FONT_FAMILY, size=11)
        for n in range(8):
            pdf.text(25, 40 + 7 * n, f"{page}쪽 본문 {n + 1}번째 줄: the proposed rule applies to operators.")
        pdf.set_font(FONT_FAMILY, size=7)
        with pdf.rotation(90, 8, 250):
            pdf.text(8, 250, "jbell on DSKJLSW7X2PROD with PROPOSALS 제안")
        if page == 2:
            with pdf.rotation(-90, 204, 60):
                pdf.text(204, 60, "EP06AU20.017</GPH> 그림")
    # A page of landscape text set on a portrait page, its page number upright: its first line is
    # in the margin band and clear of the page number, but it is the page's body.
    pdf.add_page()
    pdf.set_font(FONT_FAMILY, size=11)
    landscape = [f"가로 쪽 {n + 1}번째 줄: landscape text line {n + 1}" for n in range(5)]
    for n, line in enumerate(landscape):
        with pdf.rotation(90, 15 + 8 * n, 250):
            pdf.text(15 + 8 * n, 250, line)
    pdf.text(100, 285, "- 4 -")
    path = tmp_path / "slug.pdf"
    pdf.output(str(path))
    doc = parse(path)
    assert all(line in doc.text for line in landscape)
    slug = "jbell on DSKJLSW7X2PROD with PROPOSALS 제안"
    assert [(b.text, b.locator.page) for b in doc.furniture] == [
        (slug, 1), ("EP06AU20.017</GPH> 그림", 2), (slug, 2), (slug, 3), ("- 4 -", 4)], "the tag is in the top half"
    assert "PROPOS" not in doc.text and "GPH" not in doc.text
    assert doc.text.count("the proposed rule applies to operators.") == 24


def test_a_page_printed_twice_keeps_its_text(tmp_path: Path) -> None:
    """A three-page report whose last two pages are the same page: every line at their top repeated
    on two of three pages, and was set aside as a running header."""
    first = "Reliance Industries Limited is a Fortune 500 company."
    page = [first, "Its businesses span energy, retail and digital services across the country."]
    doc = parse(make_pdf(tmp_path / "twice.pdf", [["Corporate overview of the year under review."], page, page]))
    assert doc.text.count(first) == 2
    assert not doc.furniture


def test_a_title_set_with_wide_leading_is_one_heading_when_its_next_line_goes_on(tmp_path: Path) -> None:
    """A white paper's section title over two lines, set far apart: the second line starts in lower
    case, so it goes on; two titles stacked the same way stay two."""
    body = "Agents use tools to reach the outside world, and the orchestration layer decides which tool to call next."
    items = [("body", body)] * 8 + [("display", "Enhancing model performance with"), ("display", "targeted learning"),
                                    ("body", body), ("display", "Summary"), ("display", "Next steps")] + [("body", body)] * 16
    doc = parse(make_report_pdf(tmp_path / "paper.pdf", items))
    assert [b.text for b in doc.blocks if b.kind == "heading"] == [
        "Enhancing model performance with targeted learning", "Summary", "Next steps"]


def _one_line_pdf(path: Path, objects: bytes) -> Path:
    """A page whose content stream is ``objects`` (text objects), with Helvetica as /F1 and as /F2
    — the second with its code for "8" (56) mapped to "Z", as a subset font reuses codes."""
    content = b"BT /F1 12 Tf 1 0 0 1 50 100 Tm (Article ) Tj ET " + objects + \
        b" BT /F1 12 Tf 1 0 0 1 110 100 Tm ((Leave)) Tj ET"
    path.write_bytes(raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Differences [56 /Z] >> >>",
    ]))
    return path


def test_a_glyph_pdfium_takes_for_a_duplicate_of_its_neighbour_is_read(tmp_path: Path) -> None:
    """Hangul's PDF printer draws each glyph as its own text object, in per-font subsets that reuse
    codes. pdfium drops a text object with the same codes as the one before it, overlapping it —
    its guard against words drawn twice for a bold look — so "제8조(전보)" read "제8 (전보)" in real
    regulations and the article lost its header. Here "8" in /F1 and "Z" in /F2 share code 56."""
    path = _one_line_pdf(tmp_path / "subsets.pdf", b"BT /F1 12 Tf 1 0 0 1 90 100 Tm (8) Tj ET "
                                                   b"BT /F2 12 Tf 1 0 0 1 93 100 Tm (8) Tj ET")
    assert parse(path).text == "Article 8Z (Leave)"
    # A word drawn twice, half a point apart, is still read once.
    path = _one_line_pdf(tmp_path / "bold.pdf", b"BT /F1 12 Tf 1 0 0 1 90 100 Tm (8) Tj ET "
                                                b"BT /F1 12 Tf 1 0 0 1 90.5 100 Tm (8) Tj ET")
    assert parse(path).text == "Article 8 (Leave)"


def test_pdf_two_columns_and_a_title_drawn_last(tmp_path: Path) -> None:
    """As a layout program writes a page: the left column, then the right one, then the title on
    top. Content order alone would read the title last."""
    from fixtures.files import FONT_FAMILY, _new_pdf

    pdf = _new_pdf(page_numbers=False)
    pdf.add_page()
    left = [f"왼쪽 단 {n}번째 줄입니다. Left column line {n}." for n in range(1, 9)]
    right = [f"오른쪽 단 {n}번째 줄입니다. Right line {n}." for n in range(1, 9)]
    pdf.set_font(FONT_FAMILY, size=10)
    for x, lines in ((20, left), (110, right)):
        for index, line in enumerate(lines):
            pdf.set_xy(x, 60 + index * 5.5)
            pdf.cell(80, 5.5, line)
    pdf.set_font(FONT_FAMILY, size=18)
    pdf.set_xy(20, 30)
    pdf.cell(170, 10, "두 단 문서의 제목 Two-column title")
    path = tmp_path / "columns.pdf"
    pdf.output(str(path))
    doc = parse(path)
    assert [b.text.split("\n")[0] for b in doc.blocks] == ["두 단 문서의 제목 Two-column title", left[0], right[0]]
    assert doc.text.index(left[-1]) < doc.text.index(right[0])


def test_pdf_a_section_badge_beside_the_other_column_does_not_join_its_line(tmp_path: Path) -> None:
    """A Korean policy brief (FIS 이슈&포커스): page 2's left column ends section 3 with a table's
    caption, its right column opens section 4 under a badge "04" set four times the body size. The
    layout program wrote the caption and the right column first, and drew the badge right after the
    left column's first line; pdfium joined the badge's tall glyphs to that line ("…Left 2. 04"),
    whose box then bridged the gutter, so the page read section 4 before the end of section 3. The
    badges count the sections (03, 04) in one large style: furniture, not text."""
    from fixtures.files import FONT_FAMILY, _new_pdf

    pdf = _new_pdf(page_numbers=False)
    pdf.add_page()
    pdf.set_font(FONT_FAMILY, size=15)
    pdf.set_xy(52, 48)
    pdf.cell(100, 8, "재정사업 자율평가 결과")
    pdf.set_font(FONT_FAMILY, size=10)
    for n in range(1, 21):
        pdf.set_xy(20, 64 + n * 5.5)
        pdf.cell(170, 5.5, f"자율평가 결과 {n}번째 문장으로 부처별 성과를 설명합니다. Section three line {n}.")
    pdf.set_font(FONT_FAMILY, size=40)
    pdf.set_xy(20, 40)
    pdf.cell(30, 16, "03")
    pdf.add_page()
    left = [f"평가 결과 {n}번째 줄은 셋째 절에 속합니다. Left {n}." for n in range(1, 25)]
    right = [f"주요 현안 {n}번째 줄은 넷째 절입니다. Right {n}." for n in range(1, 23)]
    caption = "<표 7> 2021년도 주요 부처의 평가 결과"
    pdf.set_font(FONT_FAMILY, size=10)
    pdf.set_xy(20, 40 + 25 * 5.5)
    pdf.cell(80, 5.5, caption)
    pdf.set_font(FONT_FAMILY, size=15)
    pdf.set_xy(130, 44)
    pdf.cell(60, 8, "주요 현안")
    pdf.set_font(FONT_FAMILY, size=10)
    for index, line in enumerate(right):
        pdf.set_xy(110, 58 + index * 5.5)
        pdf.cell(80, 5.5, line)
    for index, line in enumerate(left):
        pdf.set_xy(20, 40 + index * 5.5)
        pdf.cell(80, 5.5, line)
        if index == 0:
            pdf.set_font(FONT_FAMILY, size=40)
            pdf.set_xy(110, 38)
            pdf.cell(20, 16, "04")
            pdf.set_font(FONT_FAMILY, size=10)
    path = tmp_path / "brief.pdf"
    pdf.output(str(path))
    doc = parse(path)
    text = doc.text
    assert text.index(left[-1]) < text.index(caption) < text.index("주요 현안\n") < text.index(right[0])
    assert "\n".join(left) in text, "the left column reads as one paragraph, the badge out of its sentence"
    assert [b.text for b in doc.furniture] == ["03", "04"]
    assert [b.text for b in doc.blocks if b.kind == "heading"] == ["재정사업 자율평가 결과", "주요 현안"]


def test_pdf_furniture_and_page_geometry(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "a.pdf", [["첫 쪽"], ["둘째 쪽"], ["셋째 쪽"]], header="Annual report 2025",
                    page_numbers=True, landscape=True)
    doc = parse(path)
    furniture = [(b.text, b.locator.page) for b in doc.furniture]
    assert furniture == [("Annual report 2025", 1), ("- 1 -", 1), ("Annual report 2025", 2), ("- 2 -", 2),
                         ("Annual report 2025", 3), ("- 3 -", 3)], "kept beside the text, with its pages"
    assert "Annual report" not in doc.text and "- 2 -" not in doc.text, "running headers and page numbers are not text"
    assert not [b for b in doc.blocks if b.kind == "furniture"]
    assert doc.landscape_share() == 1.0 and doc.page_count == 3
    assert [p.number for p in doc.properties.pages] == [1, 2, 3]



def test_pdf_a_table_header_printed_on_every_page_is_text_not_a_running_header(tmp_path: Path) -> None:
    """A long table without rules prints its header row again at the top of every page; it was set
    aside as a running header, and no chunk said what the columns were (a real 52-page reference of
    actions and their parameter sets). A line that sits tight above the next one, in its size,
    heads the body and stays text; the running header above it, set apart, stays furniture."""
    head = "동작 ID 파라미터셋 ID 설명 비고"
    pages = [["\n".join([head, *(f"Action{page}{n:02d} Set{n % 4} 동작 {page}-{n} 설명" for n in range(14))])]
             for page in range(1, 5)]
    doc = parse(make_pdf(tmp_path / "actions.pdf", pages, header="한컴 액션 테이블", page_numbers=True))
    assert doc.text.count(head) == 4, "the table's header stays above its rows on each page"
    furniture = {b.text for b in doc.furniture}
    assert "한컴 액션 테이블" in furniture and head not in furniture
    assert "Action302 Set2 동작 3-2 설명" in doc.text

# ------------------------------------------------------------------------------------------- html


def test_html_hidden_elements_are_not_text(tmp_path: Path) -> None:
    page = ("<html><body><div style='display:none'><ix:header>0000013156 us-gaap:CommonStockMember P5Y"
            "</ix:header></div><p hidden>숨긴 문단</p><span aria-hidden='true'>★</span>"
            "<h1>연차 보고서</h1><p>본문입니다. Visible text.</p></body></html>")
    path = tmp_path / "filing.html"
    path.write_text(page, "utf-8")
    doc = parse(path)
    assert [(b.kind, b.text) for b in doc.blocks] == [("heading", "연차 보고서"), ("paragraph", "본문입니다. Visible text.")]


@pytest.mark.parametrize("footer, kept", [
    ("<address>서울특별시 종로구 세종대로 209 (우) 03171</address><p>대표전화 02-2100-1234</p>", True),
    ("<p>민원 상담 <a href='tel:110'>110</a> · 평일 09:00~18:00</p>", True),
    ("<p>Questions? Write to help.desk@example.go.kr</p>", True),
    ("<p>© 2019-2025 시청. All rights reserved.</p>", False),
])
def test_an_html_footer_with_contact_details_is_content_and_other_chrome_is_furniture(tmp_path: Path, footer: str,
                                                                                      kept: bool) -> None:
    """Issue #33: a page's footer that states an address, a phone number or an e-mail address was
    set aside with the navigation, so a question about them had no chunk to find. Such a footer is
    content now; its own navigation links, the page's header and a copyright line stay furniture."""
    from bs4 import BeautifulSoup

    page = ("<html><body><header><p>시청 로고 · 누리집</p></header><nav><a href='/'>홈</a> <a href='/m'>메뉴</a></nav>"
            "<main><h1>여권 발급 안내</h1><p>여권은 구청 민원실에서 발급합니다. 수수료는 5만 원입니다.</p></main>"
            f"<footer><nav><a href='/privacy'>개인정보처리방침</a> <a href='/terms'>이용약관</a></nav>{footer}</footer>"
            "</body></html>")
    path = tmp_path / "page.html"
    path.write_text(page, "utf-8")
    doc = parse(path)
    body = [b.text for b in doc.blocks]
    furniture = [b.text for b in doc.furniture]
    assert body[:2] == ["여권 발급 안내", "여권은 구청 민원실에서 발급합니다. 수수료는 5만 원입니다."], body
    assert furniture[:3] == ["시청 로고 · 누리집", "홈 메뉴", "개인정보처리방침 이용약관"], furniture
    footer_text = normalize_line(BeautifulSoup(footer, "html.parser").get_text(" "))
    shown = body[2:] if kept else furniture[3:]
    assert normalize_line(" ".join(shown)) == footer_text, (body, furniture)
    assert len(body) == (2 + len(shown) if kept else 2), body
    chunks = cut_document(doc, CutConfig(Budget()), "page.html")[1]
    indexed = " ".join(c.text for c in chunks)
    assert all(line in indexed for line in body), indexed
    assert ("All rights reserved" in indexed) is False


def test_pdf_running_footers_whose_text_changes_by_chapter_are_furniture(tmp_path: Path) -> None:
    """A manual's right-hand pages end "Chapter 3. Row and Column Access Control 27", its front matter
    "© Copyright … iii": the chapter title changes, so the footer repeats on too few pages to be
    taken for a running footer, and it stayed in the text. A line at the page's edge, set off from
    the body, that carries a page number which follows the pages (roman, then arabic) is one."""
    from fixtures.files import FONT_FAMILY, _new_pdf

    chapters = {1: "Chapter 1. 개요 Introduction", 3: "Chapter 1. 개요 Introduction", 5: "Chapter 2. 보안 설정 Security",
                7: "Chapter 2. 보안 설정 Security", 9: "Chapter 3. 부록 Appendix"}
    footers = ["© Copyright 2026 국회입법조사처. All rights reserved. i",
               "© Copyright 2026 국회입법조사처. All rights reserved. ii"]
    for printed in range(1, 10):
        footers.append(f"{chapters[printed]} {printed}" if printed % 2 else f"{printed} 연차 보고서 Annual Report")
    pdf = _new_pdf(page_numbers=False)
    for page, footer in enumerate(footers, start=1):
        pdf.add_page()
        pdf.set_font(FONT_FAMILY, size=10.5)
        for n in range(6):
            pdf.text(20, 40 + 6 * n, f"{page}쪽 {n + 1}번째 줄: 행과 열의 접근 제어 rules apply to table {n + 1}")
        pdf.set_font(FONT_FAMILY, size=8.5)
        pdf.text(20 if footer[0].isdigit() else 110, 285, footer)
    path = tmp_path / "manual.pdf"
    pdf.output(str(path))
    doc = parse(path)
    assert [b.text for b in doc.furniture] == footers
    assert "Chapter" not in doc.text and "Copyright" not in doc.text
    assert doc.text.count("rules apply to table") == 6 * len(footers)


def test_pdf_numbered_lines_at_the_page_edge_that_do_not_repeat_stay_text(tmp_path: Path) -> None:
    """Headings numbered 1, 2, 3 atop pages 1, 2, 3 follow the pages like page numbers would, and a
    page that ends on a sentence ending in a year is a number at the edge: neither repeats any text,
    so neither is a running header or footer."""
    from fixtures.files import FONT_FAMILY, _new_pdf

    headings = ["1 서론 Introduction", "2 연구 방법 Methods", "3 결과 Results", "4 논의 Discussion"]
    endings = ["예산은 2024", "집행률은 2025", "평가는 2026", "계획은 2027"]
    pdf = _new_pdf(page_numbers=False)
    for heading, ending in zip(headings, endings, strict=True):
        pdf.add_page()
        pdf.set_font(FONT_FAMILY, size=10.5)
        pdf.text(20, 15, heading)
        for n in range(6):
            pdf.text(20, 40 + 6 * n, f"{n + 1}번째 줄: 행과 열의 접근 제어 rules apply to table {n + 1}")
        pdf.text(20, 285, ending)
    path = tmp_path / "paper.pdf"
    pdf.output(str(path))
    doc = parse(path)
    assert not doc.furniture
    for line in headings + endings:
        assert line in doc.text


def test_pdf_lines_ending_in_a_space_do_not_break_their_paragraph(tmp_path: Path) -> None:
    """A line whose middle and last characters are spaces was measured by its first glyph alone, so
    the next line — indented under the article's number, as regulations set them — seemed to stand
    beside it, and a blank line was put inside the sentence."""
    from fixtures.files import FONT_FAMILY, _new_pdf

    first = "제1조(목적) 이 규정은 진흥원의 운영과 관리에 "
    assert first[len(first) // 2] == first[-1] == " ", "the middle and the last character are spaces"
    lines = [first, "필요한 사항을 정함을 목적으로 한다."]
    pdf = _new_pdf(page_numbers=False)
    pdf.add_page()
    pdf.set_font(FONT_FAMILY, size=11)
    pdf.text(20, 40, lines[0])
    pdf.text(20 + pdf.get_string_width("제1"), 46, lines[1])
    path = tmp_path / "trailing.pdf"
    pdf.output(str(path))
    doc = parse(path)
    assert [b.text for b in doc.blocks] == [first.rstrip() + "\n" + lines[1]]


def test_pdf_line_that_runs_on_to_the_next_is_split_where_the_page_line_changes() -> None:
    """Some producers write a new line's first word right after the previous line's last one, with
    no line break in the text; where the glyphs jump back to the margin and down, a line begins."""
    from parsers.pdf.text import _visual_lines

    text = "출연할 수 있다. 제39조(제규정) 원장이 정한다.\r\n다음 줄"
    second = text.index("제39조")

    def box(i: int) -> tuple[float, float, float, float]:
        if i < second:
            return (100 + 10 * i, 543, 110 + 10 * i, 553)  # the first page line
        if i < text.index("\r"):
            return (85 + 10 * (i - second), 562, 95 + 10 * (i - second), 572)  # the next, back at the margin
        return (85 + 10 * (i - second), 600, 95 + 10 * (i - second), 610)

    spans = _visual_lines(text, box)
    assert [text[s:e].strip() for s, e in spans] == ["출연할 수 있다.", "제39조(제규정) 원장이 정한다.", "다음 줄"]


def test_pdf_centred_heading_run_on_after_a_short_line_is_a_line_of_its_own() -> None:
    """The same run-on, where the next page line is a centred chapter title that starts right of
    where the short last line of an article ended ("…관리하여야 한다. 제2장 출장신청･복명 등"); letters
    set one under the other (a vertical "CONTENTS") stay one line."""
    from parsers.pdf.text import _visual_lines

    text = "관리하여야 한다. 제2장 출장신청 등 CONTENTS"
    chapter, vertical = text.index("제2장"), text.index("CONTENTS")

    def box(i: int) -> tuple[float, float, float, float]:
        if i < chapter:
            return (85 + 10 * i, 543, 95 + 10 * i, 553)  # ends near x = 185
        if i < vertical:
            return (250 + 10 * (i - chapter), 580, 260 + 10 * (i - chapter), 590)  # centred, a line further down
        return (500, 580 + 12 * (i - vertical), 510, 590 + 12 * (i - vertical))  # one letter under the other

    spans = _visual_lines(text, box)
    assert [text[s:e].strip() for s, e in spans] == ["관리하여야 한다.", "제2장 출장신청 등 CONTENTS"]


def test_pipe_rows_without_a_rule_line_are_a_table(tmp_path: Path) -> None:
    """Tables exported as text (``a | b | c`` a row, no ``---`` line under the header) are tables:
    their header row repeats when they are split, and their cells are embedded without the pipes.
    Pipes in prose, or rows of unequal widths, stay text."""
    path = tmp_path / "notes.md"
    path.write_text(
        "# 재무 현황\n\n장기 부채는 다음과 같다.\n\n"
        "($ in millions) | december 31 2017 | december 31 2016\n"
        "senior notes due 2021 | 2014 | 600\n"
        "senior notes due 2025 | 600 | 600\n"
        "total long-term debt | 1279 | 1278\n\n"
        "Use a | b to pipe output.\nThen c | d | e works too.\nOr not | at all.\n\n"
        "이름 | 값\n가 | 1\n", "utf-8")
    doc = parse(path)
    tables = [b for b in doc.blocks if b.table is not None]
    assert len(tables) == 1
    table = tables[0].table
    assert table.header_rows == 1 and len(table.rows) == 4
    assert table.rows[0][0] == "($ in millions)" and table.rows[3] == ("total long-term debt", "1279", "1278")
    assert "Use a | b to pipe output." in doc.text and "이름 | 값" in doc.text

    gfm = tmp_path / "links.md"  # a GFM rule of single dashes is a rule, not a row
    gfm.write_text("| Section | Description |\n|-|-|\n| 문서 | 설명 |\n| Docs | API |\n\nTitle\n-\n", "utf-8")
    doc = parse(gfm)
    table = next(b.table for b in doc.blocks if b.table is not None)
    assert table.rows == (("Section", "Description"), ("문서", "설명"), ("Docs", "API"))
    assert any(b.kind == "heading" and b.text == "Title" for b in doc.blocks)


def test_mediawiki_heading_lines_are_headings_in_text_and_markdown(tmp_path: Path) -> None:
    """Wiki dumps mark sections with ``= Title =`` / ``== Section ==`` lines, also spaced out
    (``= = Plot = =``) and glued to the paragraph under them: those lines are headings, so
    sections are cut at them and carry a heading path. Equations and unbalanced lines stay text."""
    body = (" = 발키리아 크로니클 III = \n 전장의 발키리아 3 은 전술 롤플레잉 게임이다 . \n"
            " = = Plot = = \n The Nameless are a penal unit . \n"
            " = = = Music = = = \n"
            "The score was composed by Hitoshi Sakimoto .\n= 3 + 4 = 7 =\n== unbalanced =\n")
    for name in ("wiki.txt", "wiki.md"):
        path = tmp_path / name
        path.write_text(body, "utf-8")
        doc = parse(path)
        headings = [(b.text, b.level) for b in doc.blocks if b.kind == "heading"]
        assert headings == [("발키리아 크로니클 III", 1), ("Plot", 2), ("Music", 3)], name
        assert "= 3 + 4 = 7 =" in doc.text and "== unbalanced =" in doc.text
        decision, chunks = cut_document(doc, CutConfig(Budget(min_tokens=2, max_tokens=40, merge_ceiling=42, pack=10)), name)
        music = next(c for c in chunks if "Sakimoto" in c.text)
        assert decision.rule == "declared-headings"
        assert music.heading_path[:2] == ("발키리아 크로니클 III", "Plot")


def test_pdf_characters_beyond_the_bmp_are_read_whole(tmp_path):
    """pdfium gives an emoji (or a private-use glyph beyond the BMP) two character indexes; read one
    index at a time they were two lone surrogates, which no store takes: the file's text, then the
    whole folder's run, failed at the first write."""
    line = "\U0001f99c LangSmith \U000f0854이슈와 논점\U000f0855 추적"
    doc = parse(make_astral_pdf(tmp_path / "astral.pdf", line))
    assert doc.text == line
    doc.text.encode("utf-8")  # no surrogate left


def test_a_parser_returning_lone_surrogates_fails_its_file_only(tmp_path, monkeypatch):
    """The parse boundary refuses text no store takes, as that file's error, not the run's."""
    import parsers
    from parsers.errors import CorruptFile
    from parsers.model import Block, Document

    monkeypatch.setitem(parsers.PARSERS, "txt", lambda path: Document(str(path), "txt", (Block("paragraph", "a \ud83e b"),)))
    with pytest.raises(CorruptFile, match="surrogate"):
        parse(make_txt(tmp_path / "a.txt", "a b"))


def test_a_glyph_boxed_wider_than_it_advances_is_centred_on_its_advance():
    """pdfium boxes each digit of some fonts 11 pt wide where it advances 5.5 pt: the last digit of
    "△9.96", set flush with a table's right rule (x = 535.03), had its box centred outside the table
    and became a stray "6" above it, the cell reading "△9.9". A glyph is centred on its advance (to
    the next glyph of its line, or the previous glyph's for the last one); a glyph boxed no wider
    than it advances (Hangul, or one alone) keeps its box's centre."""
    from parsers.pdf.page import ink_centre

    text = "9.96 가나"
    boxes = {0: (515.96, 311.1, 526.99, 324.4), 1: (521.36, 311.1, 532.39, 324.4), 2: (524.12, 311.1, 535.15, 324.4),
             3: (529.63, 311.1, 540.67, 324.4), 5: (100.0, 311.1, 112.0, 324.4), 6: (112.0, 311.1, 124.0, 324.4)}
    box = boxes.__getitem__
    assert ink_centre(text, box, 3) < 535.03 < (529.63 + 540.67) / 2, "the 6 is inside the table now"
    assert ink_centre(text, box, 0) == pytest.approx(515.96 + (521.36 - 515.96) / 2)
    assert ink_centre(text, box, 5) == pytest.approx(106.0), "a glyph as wide as its advance keeps its centre"
    assert ink_centre(text, box, 6) == pytest.approx(118.0)
