"""Golden files: generated Korean + English files per format, parsed, compared with tests/golden/*.json.
HWP 5, which no library writes, is two small real files (``tests/fixtures/hwp``, Apache-2.0; its
README says where they come from).

Each golden pins the blocks (kind, level, text), the tables (rows and header rows), the locators
(page, sheet + row range, slide), the file properties and the warnings. The files are written by
``fixtures.files`` (and small builders here for what those makers do not cover: merged PDF table
cells, grouped slide shapes, Word page headers and localized style names), so they are the same
on every machine.

Regenerate after an intended change with ``GEN_TEST_DATA=1 pytest tests/test_parsers_golden.py``
and review the diff of ``tests/golden/``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from fixtures.files import (
    FONT_FAMILY,
    Slide,
    _new_pdf,
    _write_line,
    make_csv,
    make_docx,
    make_korean_report_pdf,
    make_md,
    make_pptx,
    make_regulation,
    make_xlsx,
)

from parsers import parse
from parsers.model import BLOCK_SEPARATOR, Document

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = os.environ.get("GEN_TEST_DATA") == "1"


def snapshot(doc: Document) -> dict[str, Any]:
    """The parts of a Document a golden pins, as plain JSON values."""
    props = doc.properties
    blocks = []
    for block in doc.blocks:
        item: dict[str, Any] = {"kind": block.kind}
        if block.level:
            item["level"] = block.level
        locator = {k: v for k, v in asdict(block.locator).items() if v is not None}
        if locator:
            item["locator"] = locator
        if block.table is not None:
            item["header_rows"] = block.table.header_rows
            item["rows"] = [list(row) for row in block.table.rows]
            if block.row_numbers:
                item["row_numbers"] = [block.row_numbers[0], block.row_numbers[-1], len(block.row_numbers)]
        else:
            item["text"] = block.text
        blocks.append(item)
    return {
        "format": doc.format,
        "properties": {
            "title": props.title, "author": props.author, "subject": props.subject,
            "pages": [[p.number, round(p.width, 1), round(p.height, 1), p.chars] for p in props.pages],
            "sheets": list(props.sheets), "hidden_sheets": list(props.hidden_sheets), "slides": props.slides,
        },
        "warnings": list(doc.warnings),
        "blocks": blocks,
        "furniture": [{"text": b.text, **{k: v for k, v in asdict(b.locator).items() if v is not None}}
                      for b in doc.furniture],
    }


# -------------------------------------------------------------------------------------- builders


def build_pdf_spans(path: Path) -> Path:
    """Two pages (the second landscape), a running header, page numbers, and a table whose header
    has a cell merged down (rowspan) and one merged across (colspan)."""
    from fpdf import FontFace

    pdf = _new_pdf(header="Regional results 2025 · 권역별 실적", page_numbers=True, title="Regional results",
                   author="Planning Team")
    pdf.add_page()
    _write_line(pdf, "h1", "1. Quarterly results by region (권역별 분기 실적)")
    _write_line(pdf, "body", "Revenue grew in every region; the capital area grew fastest. "
                             "수도권 매출이 가장 빠르게 늘었습니다.")
    pdf.ln(4)
    pdf.set_font(FONT_FAMILY, size=10)
    with pdf.table(line_height=7, text_align="CENTER", headings_style=FontFace(emphasis=None),
                   num_heading_rows=2) as table:
        row = table.row()
        row.cell("권역 Region", rowspan=2)
        row.cell("2025 (억원)", colspan=2)
        row.cell("비고 Note", rowspan=2)
        row = table.row()
        row.cell("Q1")
        row.cell("Q2")
        for values in (("수도권 Capital", "1,820", "2,040", "잠정"), ("동남권 Southeast", "870", "905", ""),
                       ("충청권 Central", "640", "702", "세종 포함")):
            row = table.row()
            for value in values:
                row.cell(value)
    pdf.ln(4)
    _write_line(pdf, "note", "※ Q2 figures are preliminary. 2분기 수치는 잠정치입니다.")
    pdf.add_page(orientation="L")
    _write_line(pdf, "h1", "2. Outlook (전망)")
    _write_line(pdf, "body", "The second half depends on the B2B contracts signed in June. "
                             "하반기 실적은 6월에 체결한 기업 계약에 달려 있습니다.")
    pdf.output(str(path))
    return path


XLSX_SHEETS = {
    "매출 Sales": [
        ["2025 분기별 매출 (Quarterly sales)", None, None, None, None],
        ["구분", "상반기 H1", None, "하반기 H2", None],
        ["Region", "Q1", "Q2", "Q3", "Q4"],
        ["서울 Seoul", 1820, 2040, 2210.5, 2380],
        ["부산 Busan", 870, 905, 1010, None],
        ["합계 Total", 2690, 2945, 3220.5, 2380],
    ],
    "일정 Schedule": [
        ["날짜 Date", "행사 Event", "완료 Done"],
        [__import__("datetime").datetime(2026, 3, 2), "사업 공고 Announcement", True],
        [__import__("datetime").datetime(2026, 4, 15, 14, 30), "선정 평가 Review", False],
    ],
    "메모 Notes": [["내부 메모: 수치는 잠정치입니다."], ["Internal: figures are preliminary."]],
}


def build_xlsx(path: Path) -> Path:
    return make_xlsx(path, XLSX_SHEETS, merges={"매출 Sales": ["A1:E1", "B2:C2", "D2:E2", "A2:A3"]},
                     hidden=["메모 Notes"], title="2025 매출", author="재무팀 Finance")


def build_pptx(path: Path) -> Path:
    """Title slide, bullets with levels and notes, a table with merged cells, and two grouped text
    boxes placed so that reading order must come from slide positions, not group offsets."""
    from pptx import Presentation
    from pptx.util import Inches, Pt

    make_pptx(path, [
        Slide("2025 Q4 리뷰 Review", subtitle="영업본부 Sales · 2026-01-15"),
        Slide("핵심 성과 Highlights", ["매출 48.2억원 Revenue", (1, "온라인 비중 47% Online share"),
                                       (2, "모바일 31% Mobile"), "NPS 52 → 58"], notes="성장의 절반은 온라인.\nHalf of growth was online."),
        Slide("권역별 매출 Revenue by region", table=[["권역 Region", "Q3", "Q4", "비고 Note"],
                                                ["수도권 Capital", "1,820", "2,040", "잠정"],
                                                ["동남권 Southeast", "870", "905", ""]]),
        Slide("두 개의 열 Two columns"),
    ], title="2025 Q4 Review", author="Sales")
    deck = Presentation(str(path))
    table = next(s for s in deck.slides[2].shapes if s.has_table).table
    table.cell(1, 3).merge(table.cell(2, 3))  # "잠정" merged down over both data rows
    slide = deck.slides[3]
    for left, texts in ((Inches(5.2), ["오른쪽 열 Right column", "둘째 줄 second line"]),
                        (Inches(0.5), ["왼쪽 열 Left column", "첫째 줄 first line"])):
        group = slide.shapes.add_group_shape()
        for index, text in enumerate(texts):
            box = group.shapes.add_textbox(Inches(0), Inches(index * 0.6), Inches(4), Inches(0.5))
            box.text_frame.text = text
            box.text_frame.paragraphs[0].runs[0].font.size = Pt(18)
        group.left, group.top = left, Inches(2)  # moves the group; its children keep their offsets
    deck.save(str(path))
    return path


def build_docx(path: Path) -> Path:
    """Headings (built-in and a localized style name), numbered and bulleted lists, a table with
    a merged header and a cell merged down, page header and footer."""
    import docx
    from docx.enum.style import WD_STYLE_TYPE

    make_docx(path, [
        ("title", "직원 안내서 Employee Handbook"),
        ("h1", "근무 시간 Working hours"),
        "핵심 근무 시간은 10시부터 16시까지입니다. Core hours are 10:00 to 16:00.",
        ("number", "출근 기록을 남깁니다. Record your arrival."),
        ("number", "퇴근 기록을 남깁니다. Record your departure."),
        ("h2", "재택근무 Remote work"),
        ("bullet", "VPN을 사용합니다. Use the VPN."),
        ("bullet2", "공용 와이파이 금지 No public Wi-Fi"),
    ], title="직원 안내서", author="인사팀 HR")
    document = docx.Document(str(path))
    localized = document.styles.add_style("제목 2", WD_STYLE_TYPE.PARAGRAPH)
    localized.base_style = document.styles["Normal"]
    document.add_paragraph("휴가 Leave", style=localized)
    document.add_paragraph("연차는 입사 첫해 15일입니다. Annual leave starts at 15 days.")
    table = document.add_table(rows=4, cols=3)
    table.style = "Table Grid"
    values = [["유형 Type", "일수 Days", ""], ["", "최소 Min", "최대 Max"], ["연차 Annual", "15", "25"],
              ["병가 Sick", "10", ""]]
    for r, row in enumerate(values):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    table.cell(0, 1).merge(table.cell(0, 2))  # "일수 Days" over Min | Max
    table.cell(0, 0).merge(table.cell(1, 0))  # "유형 Type" down over both header rows
    section = document.sections[0]
    section.header.paragraphs[0].text = "한빛 애널리틱스 · 사내 전용 Internal"
    section.footer.paragraphs[0].text = "문의 HR: hr@hanbit.example"
    document.save(str(path))
    return path


HTML = """<!doctype html><html lang="ko"><head><meta charset="euc-kr"><title>데이터 포털 Data portal</title>
<style>body { font-family: sans-serif }</style><script>var tracking = 1;</script></head>
<body><nav><a href="/">홈 Home</a> · <a href="/data">데이터 Data</a></nav>
<main><h1>데이터 등록 절차 Registration</h1>
<p>담당 부서가 신청서를 제출합니다.<br>The owning team submits a request.</p>
<div>검토는 <b>5일</b> 안에 끝납니다. Reviews take five days.</div>
<ol><li>신청 Request</li><li>검토 Review<ul><li>품질 Quality</li><li>개인정보 Privacy</li></ul></li><li>게시 Publish</li></ol>
<h2>공개 등급 Access levels</h2>
<table><caption>등급표 Levels</caption>
<tr><th rowspan="2">등급 Level</th><th colspan="2">예시 Examples</th></tr>
<tr><th>데이터 Data</th><th>형식 Format</th></tr>
<tr><td>공개 Open</td><td>버스 정류장 Bus stops</td><td>CSV</td></tr>
<tr><td>비공개 Closed</td><td>연락처 Contacts</td><td>-</td></tr></table>
</main><footer>(c) 2026 한빛도 Hanbit</footer></body></html>
"""


def build_html(path: Path) -> Path:
    path.write_bytes(HTML.encode("euc-kr"))
    return path


def build_csv(path: Path) -> Path:
    return make_csv(path, [["역명 Station", "노선 Line", "일평균 승차 Daily boardings"],
                           ["서울역 Seoul Station", "1호선", 61174], ["강남 Gangnam", "2호선", 98000],
                           ["시청 City Hall", "2호선", ""]], encoding="cp949")


HWP_FILES = Path(__file__).parent / "fixtures" / "hwp"


def real_hwp(name: str) -> Callable[[Path], Path]:
    """A builder that copies the committed real HWP file ``name``."""

    def build(path: Path) -> Path:
        path.write_bytes((HWP_FILES / name).read_bytes())
        return path

    return build


CASES: dict[str, tuple[str, Callable[[Path], Path]]] = {
    "pdf_korean_report": ("report.pdf", make_korean_report_pdf),
    "pdf_spans_landscape": ("regional.pdf", build_pdf_spans),
    "pdf_regulation": ("규정.pdf", make_regulation),
    "xlsx_merged_hidden": ("sales.xlsx", build_xlsx),
    "pptx_deck": ("deck.pptx", build_pptx),
    "docx_handbook": ("handbook.docx", build_docx),
    "html_euc_kr": ("portal.html", build_html),
    "md_readme": ("readme.md", make_md),
    "txt_regulation_cp949": ("규정.txt", lambda p: p.write_bytes(make_regulation(p).read_text(
        encoding="utf-8").encode("cp949")) and p),
    "csv_cp949": ("stations.csv", build_csv),
    "hwp_hwplib_source": ("source.hwp", real_hwp("source.hwp")),
    "hwp_hwplib_clickhere": ("getting_clickhere_text.hwp", real_hwp("getting_clickhere_text.hwp")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(tmp_path: Path, name: str) -> None:
    filename, build = CASES[name]
    path = build(tmp_path / filename)
    doc = parse(path)
    assert doc.text == BLOCK_SEPARATOR.join(b.text for b in doc.blocks)
    got = snapshot(doc)
    golden = GOLDEN / f"{name}.json"
    if REGENERATE:
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(json.dumps(got, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    if not golden.exists():
        pytest.fail(f"no golden file {golden.name}; run with GEN_TEST_DATA=1 to write it")
    assert got == json.loads(golden.read_text(encoding="utf-8"))
