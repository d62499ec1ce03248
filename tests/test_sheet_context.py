"""What a chunk of a sheet needs to be read on its own, on generated workbooks (openpyxl).

- group columns: a sheet that names a group once and leaves its column blank below (not merged)
  has the group's value repeated after the header rows on a chunk that starts inside the group;
  a leading column whose blanks mean empty is left as it is;
- dates: a date cell reads as its number format shows it (``2023년 7월 5일``, ``2023.07.05``), ISO
  where the format is the reader's locale's.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from fixtures.files import make_xlsx

from flows.pipeline import CutConfig, cut_document
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
