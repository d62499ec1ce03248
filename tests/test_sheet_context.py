"""What a chunk of a sheet needs to be read on its own, on generated workbooks (openpyxl).

- group columns: a sheet that names a group once and leaves its column blank below (not merged)
  has the group's value repeated after the header rows on a chunk that starts inside the group;
  a leading column whose blanks mean empty is left as it is;
- dates: a date cell reads as its number format shows it (``2023년 7월 5일``, ``2023.07.05``), ISO
  where the format is the reader's locale's;
- numbers: a number reads as its number format shows it (``$65.80``, ``1,234,567``, ``12.3%``,
  ``1,234원``) for the common formats, as the number where a format is unusual (scientific,
  fractions, conditions);
- merged header labels: above the last header row, a label merged across columns is repeated in
  each only over two or more different sub-labels (which year a column belongs to), so a form's
  fields merged across the top are read once; in the last header row each column keeps its label.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from fixtures.files import make_xlsx

from flows.ingest.pipeline import CutConfig, cut_document
from parsers import parse
from splitters import Budget

BUDGET = Budget(min_tokens=20, max_tokens=200, merge_ceiling=220)


def _requirements() -> list[list[str]]:
    """A 요구사항정의서: 대분류 and 중분류 filled on the first row of their group only."""
    rows = [["대분류", "중분류", "요구사항 ID", "요구사항 명", "설명"]]
    number = 0
    for group in ("회원관리", "게시판", "결제"):
        for sub in ("등록", "조회"):
            for item in range(6):
                number += 1
                first_of_group, first_of_sub = sub == "등록" and item == 0, item == 0
                rows.append([group if first_of_group else "", sub if first_of_sub else "",
                             f"REQ-{number:03d}", f"기능 {number}", f"사용자가 화면에서 항목 {number}을(를) 처리한다"])
    return rows


def test_a_chunk_starting_inside_a_group_repeats_the_group_values(tmp_path: Path) -> None:
    rows = _requirements()
    doc = parse(make_xlsx(tmp_path / "요구사항정의서.xlsx", {"요구사항": rows}))
    _, chunks = cut_document(doc, CutConfig(BUDGET), "요구사항정의서.xlsx")
    assert len(chunks) > 3
    group_of = {}
    group = sub = ""
    for row in rows[1:]:
        group, sub = row[0] or group, row[1] or (sub if not row[0] else row[1])
        group_of[row[2]] = (group, sub)
    starting_inside = 0
    for chunk in chunks:
        assert chunk.text == chunk.header + doc.text[chunk.start:chunk.end]
        assert chunk.text.startswith("대분류 | 중분류 | 요구사항 ID")
        body = doc.text[chunk.start:chunk.end].split("\n")
        ids = re.findall(r"REQ-\d{3}", "\n".join(body))
        for requirement in ids:
            group, sub = group_of[requirement]
            assert group in chunk.text, (requirement, chunk.text)
            assert sub in chunk.text, (requirement, chunk.text)
        if body[0].startswith("|"):  # a row whose group cells are blank (the span starts at its text)
            starting_inside += 1
            carried = chunk.header.split("\n")[1]
            assert carried in {f"{g} | {s}" for g, s in group_of.values()} | {g for g, _ in group_of.values()}
    assert starting_inside, "the budget cuts inside a group"
    assert doc.text.count("회원관리") == 1, "the document's text is not altered"


def test_a_leading_column_of_marks_is_not_a_group(tmp_path: Path) -> None:
    # "O" on some rows, blank on the others: the blanks mean "not marked", not "as above".
    rows = [["선택", "품목", "수량", "비고"]]
    rows += [["O" if i % 3 == 0 else "", f"품목 {i} 설명 문구", str(i), "확인 필요 항목"] for i in range(90)]
    doc = parse(make_xlsx(tmp_path / "주문.xlsx", {"주문": rows}))
    _, chunks = cut_document(doc, CutConfig(BUDGET), "주문.xlsx")
    assert len(chunks) > 3
    for chunk in chunks[1:]:
        assert chunk.header == "선택 | 품목 | 수량 | 비고\n"


def test_dates_read_as_the_sheet_shows_them(tmp_path: Path) -> None:
    day = dt.datetime(2023, 7, 5)
    shown = {  # number format -> what Excel shows
        'yyyy"년" m"월" d"일"': "2023년 7월 5일",
        "yyyy.mm.dd": "2023.07.05",
        'm"월"\\ d"일"': "7월 5일",
        "m/d/yyyy": "7/5/2023",
        'yyyy"-"m"-"d': "2023-7-5",
        "mmmm\\ yyyy": "July 2023",
        "yyyy-mm-dd (aaa)": "2023-07-05 (수)",
        "yyyy/mm/dd;@": "2023/07/05",
        "yyyy.mm.dd h:mm": "2023.07.05 9:30",
        "yyyy-mm-dd h:mm:ss": "2023-07-05",  # ISO already (openpyxl's default): as before
        "mm-dd-yy": "2023-07-05",  # built-in 14: the reader's locale decides; ISO stays
        "[$-F800]dddd, mmmm dd, yyyy": "2023-07-05",  # the system's long date: the locale's, so ISO
    }
    rows = [["서식", "일자"]]
    rows += [[code, day.replace(hour=9, minute=30) if "h:mm" in code and "." in code else day] for code in shown]
    formats = {f"B{index}": code for index, code in enumerate(shown, start=2)}
    doc = parse(make_xlsx(tmp_path / "일정.xlsx", {"일정": rows}, number_formats={"일정": formats}))
    lines = doc.blocks[0].text.split("\n")[1:]
    assert [line.split(" | ")[1] for line in lines] == list(shown.values())


def test_a_form_block_merged_across_the_top_is_read_once_above_the_last_header_row(tmp_path: Path) -> None:
    # A 테이블명세서: a title, then fields whose values are merged over three columns, each over the
    # same merged layout in the row below (one label under it, not sub-columns).
    rows = [["테이블 명세서"] + [""] * 7,
            ["시스템명", "학사행정 정보시스템", "", "", "작성자", "홍길동", "", ""],
            ["테이블명", "TB_STDNT (학생 기본정보)", "", "", "작성일", "2024년 3월 4일", "", ""],
            ["No", "컬럼명", "속성명", "타입", "길이", "NULL", "KEY", "비고"]]
    rows += [[i, f"COL_{i:02d}", f"학생 속성 {i}", "VARCHAR2", 20, "N", "PK" if i == 1 else "", "학생 정보 항목"]
             for i in range(1, 40)]
    merges = ["A1:H1", "B2:D2", "F2:H2", "B3:D3", "F3:H3"]
    doc = parse(make_xlsx(tmp_path / "테이블명세서.xlsx", {"명세": rows}, merges={"명세": merges}))
    # The title is a row of its own (not one of the three header rows: the column labels under the
    # two field rows are header rows too); over the column labels, each value is spread over the
    # columns it covers, as they hold different labels.
    table = doc.blocks[0].table
    assert (table.title_text, table.header_rows) == ("테이블 명세서", 4)
    assert table.header_text == (
        "시스템명 | 학사행정 정보시스템 |  |  | 작성자 | 홍길동\n"
        "테이블명 | TB_STDNT (학생 기본정보) | TB_STDNT (학생 기본정보) | TB_STDNT (학생 기본정보) | 작성일 | "
        "2024년 3월 4일 | 2024년 3월 4일 | 2024년 3월 4일\nNo | 컬럼명 | 속성명 | 타입 | 길이 | NULL | KEY | 비고")
    _, chunks = cut_document(doc, CutConfig(BUDGET), "테이블명세서.xlsx")
    assert len(chunks) > 3
    for chunk in chunks:
        assert chunk.text.count("학사행정 정보시스템") == chunk.text.count("홍길동") == 1, chunk.text


def test_a_merged_label_spreads_over_its_sub_columns_only(tmp_path: Path) -> None:
    # Years and 담당 over two different sub-labels each: repeated, so each column says which it is.
    # 구분 merged down the two header rows: in both. 비고 merged across and down to the last header
    # row: the last header row, where each column keeps its label.
    rows = [["구분", "2019", "", "2020", "", "담당", "", "비고", ""],
            ["", "예산액", "전년 대비", "예산액", "전년 대비", "부서", "연락처", "", ""],
            ["교육", 1200, "3.5%", 1300, "8.3%", "교육정책과", "044-200-6100", "신규 사업 포함", "잠정"],
            ["복지", 2200, "1.5%", 2300, "4.5%", "복지정책과", "044-202-2700", "", "확정"]]
    merges = ["A1:A2", "B1:C1", "D1:E1", "F1:G1", "H1:I2"]
    doc = parse(make_xlsx(tmp_path / "예산.xlsx", {"예산": rows}, merges={"예산": merges}))
    assert doc.blocks[0].table.header_text == (
        "구분 | 2019 | 2019 | 2020 | 2020 | 담당 | 담당 | 비고 | 비고\n"
        "구분 | 예산액 | 전년 대비 | 예산액 | 전년 대비 | 부서 | 연락처 | 비고 | 비고")
    # One header row: labels merged over two columns of data each label both (a period's start and end).
    rows = [["기간", "", "지역", "", "건수"], ["2024.01.01", "2024.01.31", "서울", "강남구", 12],
            ["2024.02.01", "2024.02.29", "부산", "해운대구", 7]]
    doc = parse(make_xlsx(tmp_path / "건수.xlsx", {"건수": rows}, merges={"건수": ["A1:B1", "C1:D1"]}))
    assert doc.blocks[0].table.header_text == "기간 | 기간 | 지역 | 지역 | 건수"


def test_numbers_read_as_the_sheet_shows_them(tmp_path: Path) -> None:
    shown = {  # number format, value -> what Excel shows
        ('"$"#,##0.00', 65.8049919749433): "$65.80",
        ("#,##0", 1234567): "1,234,567",
        ("0.0%", 0.1234): "12.3%",
        ("0.00", 3.14159): "3.14",
        ("0.00", 2.675): "2.68",  # half away from zero on the shown digits, not the float's 2.67499…
        ('#,##0"원"', 1250000): "1,250,000원",
        ("[$₩-412]#,##0", 5000): "₩5,000",
        ("#,##0_);[Red](#,##0)", -1234.4): "(1,234)",  # the negative section, without a minus
        ("#,##0.00", -1234.567): "-1,234.57",  # one section: a minus
        ("00000", 4527): "04527",
        ("0.00E+00", 12345): "12345",  # scientific: the number as it is
        ("# ?/?", 0.5): "0.5",  # a fraction: the number as it is
        ("[>=100]#,##0;0.0", 7.25): "7.25",  # a condition: the number as it is
    }
    rows = [["서식", "값"]] + [[code, value] for code, value in shown]
    formats = {f"B{index}": code for index, (code, _) in enumerate(shown, start=2)}
    doc = parse(make_xlsx(tmp_path / "금액.xlsx", {"금액": rows}, number_formats={"금액": formats}))
    lines = doc.blocks[0].text.split("\n")[1:]
    assert [line.split(" | ")[1] for line in lines] == list(shown.values())


def test_the_passages_of_a_row_group_are_cut_from_its_rows_not_its_repeated_header(tmp_path: Path) -> None:
    """Every row group of a tall sheet repeats the header rows; its passages that held only header
    text were the same vector in every chunk, so a question naming the columns found all of them tied.
    The passages now come from the rows; the whole chunk's text (its first embedded text) keeps the
    header."""
    from flows.ingest.pipeline import embedded_texts

    header = ["도서관명", "시도명", "시군구명", "도서관유형", "휴관일", "평일운영시작시각", "평일운영종료시각",
              "토요일운영시작시각", "토요일운영종료시각", "열람좌석수", "자료수(도서)", "소재지도로명주소", "운영기관명",
              "도서관전화번호"]
    rows = [header] + [[f"작은도서관{n:03d}", "서울특별시", "은평구", "작은도서관", "일요일,법정공휴일", "10:00", "18:00",
                        "10:00", "17:00", str(20 + n), str(5000 + n), f"서울특별시 은평구 진관{n}로 {n}",
                        f"은평구 도서관재단 {n}지부", f"02-351-{1000 + n}"] for n in range(60)]
    doc = parse(make_xlsx(tmp_path / "도서관.xlsx", {"도서관": rows}))
    _, chunks = cut_document(doc, CutConfig(Budget(min_tokens=20, max_tokens=300, merge_ceiling=320)), "도서관.xlsx")
    repeated = [chunk for chunk in chunks if chunk.header]
    assert len(repeated) > 3, "the sheet is cut into row groups that repeat the header"
    for chunk in repeated:
        for label_rows in (False, True):
            whole, *parts = embedded_texts(chunk, False, True, 64, label_rows)
            assert whole.startswith("도서관명 시도명 시군구명"), "the whole chunk keeps the header"
            assert parts, "a chunk over one passage has passages"
            assert not any(part.startswith("도서관명 시도명") for part in parts), parts[0]
            assert all("평일운영시작시각 평일운영종료시각" not in part for part in parts), "no header text in a passage"


def test_a_daily_record_keyed_by_compact_dates_is_embedded_with_its_dates_as_korean_says_them(tmp_path: Path) -> None:
    """A daily record exported with its dates as ``20180315``: the texts embedded for its chunks say
    ``2018년 3월 15일`` (as a question does), the stored text keeps the document's form, a number that
    is no date stays as it is, and an English record is embedded as it is written."""
    from flows.ingest.pipeline import embedded_texts

    days = [dt.date(2018, 3, 1) + dt.timedelta(days=n) for n in range(40)]
    korean = tmp_path / "대기오염도.csv"
    korean.write_text("측정일시,측정소명,미세먼지,관리번호\n" + "".join(
        f"{day:%Y%m%d},{site},{30 + n % 7},20181332\n" for n, day in enumerate(days) for site in ("종로구", "중구")),
        "cp949")
    english = tmp_path / "air.csv"
    english.write_text("date,site,pm10\n" + "".join(f"{day:%Y%m%d},Central,{30 + n % 7}\n" for n, day in enumerate(days)),
                       "utf-8")
    config = CutConfig(Budget(min_tokens=20, max_tokens=200, merge_ceiling=220))
    _, chunks = cut_document(parse(korean), config, korean.name)
    assert len(chunks) > 3 and all(re.search(r"^20180\d{3} \| ", c.text, re.M) for c in chunks), "stored as written"
    for label_rows, key in ((False, "2018년 3월 15일 종로구"), (True, "측정일시 2018년 3월 15일 · 측정소명 종로구")):
        texts = "\n".join(t for c in chunks for t in embedded_texts(c, False, True, 64, label_rows))
        assert key in texts and "2018년 4월 9일" in texts
        assert not re.search(r"\b20180\d{3}\b", texts), "every date cell is said as a date"
        assert "20181332" in texts, "a number that is no date (month 13) stays as it is"
    _, chunks = cut_document(parse(english), config, english.name)
    texts = "\n".join(t for c in chunks for t in embedded_texts(c, False, True, 64, True))
    assert "date 20180315 · site Central" in texts and "년" not in texts
