"""The Korean section grammar on real-looking documents, with its traps.

Cross-references and in-paragraph list items are not headers; a table of contents is body; a
header is never left at the end of a chunk whose next chunk holds its body; every chunk carries
the heading path of what it holds.
"""

from __future__ import annotations

import pytest
from test_splitters_invariants import glued_headers

from classifiers.headings import find_headings, is_legal_text
from classifiers.markers import (
    is_figure_row,
    is_title_line,
    is_toc_line,
    legal_marker,
    pattern_marker,
)
from parsers.model import Block, Document, Locator, PageInfo, Properties, Table
from splitters import Budget, split_document

REGULATION = """제1장 총칙
제1조(목적) 이 규정은 개인정보의 처리 및 보호에 관한 사항을 정함을 목적으로 한다.
제2조(정의) 이 규정에서 사용하는 용어의 뜻은 다음과 같다.
1. "개인정보"란 살아 있는 개인에 관한 정보를 말한다.
2. "처리"란 개인정보의 수집, 생성, 기록을 말한다.
제2장 개인정보의 처리
제3조(수집) ① 기관은 다음 각 호의 경우에 개인정보를 수집할 수 있다.
② 제1항에 따라 수집한 정보는 목적 외로 이용할 수 없다.
제3조에 따라 수집된 정보는 안전하게 보관하여야 한다.
제4조(제공) 기관은 제3조 제1항에 따른 정보를 제3자에게 제공할 수 없다.
제5조(파기) 보유기간이 지난 개인정보는 지체 없이 파기한다."""

REPORT = """지역 디지털 전환 지원사업 추진계획
□ 추진 배경
○ 지역 간 디지털 격차가 확대되고 있음
- 수도권 대비 비수도권의 디지털 역량 지수는 78% 수준
○ 중소기업의 디지털 전환 수요가 증가
□ 추진 방향
○ 지역 거점을 중심으로 단계적 지원
1.2의 기준에 따라 우선순위를 정한다."""

TOC = """목 차
제1장 총칙 ··························· 1
제2장 개인정보의 처리 ················· 3
제3장 안전조치 ························ 7
1. 개요 .................................. 9
부칙 …… 12"""

LOOSE_TOC = """차례
1. 개요 3
2. 추진 현황 5
3. 추진 계획 8
4. 기대 효과 12"""


#: A budget under which each small section is its own chunk once its parent does not fit: the max
#: is small and nothing is packed (pieces of at most one token would only come from a section with
#: no subsections over the max, which these documents do not have).
UNITS = Budget(0, 100, 100, pack=1)


def _doc(text: str, fmt: str = "txt") -> Document:
    return Document(f"x.{fmt}", fmt, tuple(Block("paragraph", p) for p in text.split("\n\n")))


def _lines_doc(lines: list[str]) -> Document:
    """One block per line, as a PDF parser gives a report whose lines are spaced apart."""
    return Document("x.pdf", "pdf", tuple(Block("paragraph", line, Locator(page=1)) for line in lines),
                    Properties(pages=(PageInfo(1, 595, 842, 1000),)))


def _glued(doc: Document, chunk) -> bool:
    """The chunk ends with a header line whose body (or a deeper header) is not in it."""
    return bool(glued_headers(doc, [chunk]))


# -------------------------------------------------------------------------------------- the lines


@pytest.mark.parametrize("line", [
    "제3조에 따라 수집된 정보는", "제3조 제1항에 따른 정보", "제3조(수집)에 따라 수집된", "제3조제1항에 따른",
    "제3조 각 호의 어느 하나에 해당하는", "제3조 및 제4조에 따른", "제2장의 규정은 준용한다", "제5조 또는 제6조에",
])
def test_cross_references_are_not_headers(line):
    assert legal_marker(line) is None


@pytest.mark.parametrize(("line", "rank"), [
    ("제3조(수집) 기관은", 5), ("제10조의2(특례) 다만", 5), ("제1장 총칙", 2), ("제2절 개인정보의 처리", 3),
    # a header whose body cites another article is still a header (the citation is further on)
    ("제4조(제공) 기관은 제3조 제1항에 따른 정보를 제3자에게 제공할 수 없다.", 5),
    ("제12조(교육) 보호책임자는 제4조제2항제4호에 따른 교육을 실시한다.", 5),
    ("제3조 삭제 <2020. 1. 1.>", 5), ("부칙", 2), ("부칙 <제123호, 2026. 1. 1.>", 2),
    # an article of the 부칙 as a notice quotes it: an article (dropped outside legal text), not the 부칙
    ("부칙 제6조(아동수당 추가지급 금액에 관한 특례) 제4조제5항의 개정규정에도 불구하고", 5),
])
def test_legal_headers(line, rank):
    marker = legal_marker(line)
    assert marker is not None and marker.rank == rank


def test_numbered_cross_references_and_page_numbers_are_not_headers():
    assert pattern_marker("1.2의 기준에 따라") is None
    assert pattern_marker("1.2 추진 체계") is not None
    assert pattern_marker("- 3 -") is None, "a page number, not a dash item"
    for marker in ("- 끝 -", "- 이하 여백 -", "- 본 페이지 이하 여백 -", "– 3 –"):
        assert pattern_marker(marker) is None, f"{marker}: a marker set between dashes, not a dash item"
    assert pattern_marker("- 수도권 대비 78% 수준") is not None


def test_a_title_line_holds_a_letter():
    assert is_title_line("<표 1> 연도별 실적") and is_title_line("Authority for This Rulemaking")
    for line in ("27.>", "(2019. 6. 30.)", "12,345 | 6,789"):
        assert not is_title_line(line), line


def test_korean_item_markers_are_the_counting_syllables_not_any_syllable():
    """가) … 하) count items; a line a wrap starts with "금) 등으로 구분" (of "…지원금) 등으로
    구분") is not one: a range 가-하 holds nearly every Hangul syllable."""
    for line in ("가) 추진 배경", "나. 사업 내용", "하) 기타 사항"):
        assert pattern_marker(line) is not None, line
    for line in ("금) 등으로 구분7)", "원. 이하 같다", "률) 제3조에 따른", "청) 소관 사업"):
        assert pattern_marker(line) is None, line


@pytest.mark.parametrize("line", [
    "제1장 총칙 ······ 3", "1. 개요 .... 5", "제2장 개인정보의 처리 ··········· 12", "부칙 …… 20",
    "Introduction . . . . . 1", "가. 추진 배경 ・・・・ 4",
])
def test_table_of_contents_lines(line):
    assert is_toc_line(line)
    assert pattern_marker(line) is None


@pytest.mark.parametrize("line", ["제1장 총칙", "1. 개요", "매출은 3.5% 증가했다", "1.1 배경 ... 그리고 3"])
def test_not_table_of_contents_lines(line):
    assert not is_toc_line(line)


@pytest.mark.parametrize("line", ["붙임 1. 권역별 센터 운영 계획", "[별표 1] 수수료", "[별지 제1호서식] 동의서",
                                  "부록 A 용어 정리", "Appendix B: Data"])
def test_attachments_are_headers(line):
    marker = pattern_marker(line)
    assert marker is not None and marker.family == "attachment"


@pytest.mark.parametrize("line", ["별표 1에 따른 기준", "부록에 수록된 자료", "첨부된 파일은", "별표 1 및 별표 2의",
                                  # a bracketed citation wrapped to the start of a line, in a real regulation
                                  "[별지 제2호]를 작성하여 출장승인권자의 승인을 거쳐 시내출장을 행한다.",
                                  "[별표 1]에 따른 금액"])
def test_attachment_references_are_not_headers(line):
    assert pattern_marker(line) is None


# ---------------------------------------------------------------------------------- the documents


def test_regulation_heading_paths(counter):
    doc = _doc(REGULATION)
    headings = find_headings(doc)
    texts = [h.text for h in headings]
    assert texts[0] == "제1장 총칙"
    assert not any(t.startswith("제3조에 따라") for t in texts)
    assert not any(t.startswith(("1. ", "2. ")) for t in texts), "호 inside an article are not sections"
    assert "제4조(제공)" in texts, "a header citing another article further on is still a header"
    assert "②" in texts, "① ② are 항: a level under their article"
    assert len(split_document(doc, "section", counter, Budget(0, 1100, 1150))) == 1, "a document that fits is whole"
    chunks = split_document(doc, "section", counter, UNITS)
    article3 = next(c for c in chunks if "제3조(수집)" in c.text)
    assert article3.heading_path == ("제2장 개인정보의 처리", "제3조(수집)")
    assert article3.text.startswith("제2장 개인정보의 처리\n제3조(수집)"), "a body-less chapter title opens its first article"
    for chunk in chunks:
        assert not chunk.text.rstrip().endswith(("제2장 개인정보의 처리", "제1장 총칙"))
        assert not _glued(doc, chunk)
    cross = next(c for c in chunks if "제3조에 따라 수집된" in c.text)
    assert cross.heading_path[:2] == ("제2장 개인정보의 처리", "제3조(수집)")
    article4 = next(c for c in chunks if c.text.startswith("제4조(제공)"))
    assert article4.heading_path == ("제2장 개인정보의 처리", "제4조(제공)")


def test_clauses_on_their_own_lines_are_sections_under_their_article(counter):
    doc = _doc("제1장 총칙\n제1조(목적) 이 규정은 목적을 정한다.\n제2조(수집)\n① 기관은 정보를 수집할 수 있다.\n"
               "② 제1항에 따라 수집한 정보는 목적 외로 이용할 수 없다.\n1. 법령에 근거가 있는 경우\n"
               "2. 정보주체의 동의를 받은 경우")
    chunks = split_document(doc, "section", counter, Budget(0, 60, 60, pack=20))
    paths = [c.heading_path for c in chunks]
    assert ("제1장 총칙", "제2조(수집)", "①") in paths
    clause2 = next(c for c in chunks if c.text.startswith("②"))
    assert clause2.heading_path == ("제1장 총칙", "제2조(수집)", "②")
    assert "2. 정보주체의 동의를 받은 경우" in clause2.text, "호 stay in their 항"
    merged = split_document(doc, "section", counter, Budget(100, 1100, 1150))
    assert [c.heading_path for c in merged] == [("제1장 총칙",)], "a chapter that fits is one chunk"
    whole = split_document(doc, "section", counter, Budget(0, 90, 90, pack=30))
    assert [c.text.split("\n")[0] for c in whole] == ["제1장 총칙", "제2조(수집)"], \
        "an article that fits stays whole, its 항 with it"


def test_report_markers_nest(counter):
    doc = _doc(REPORT)
    chunks = split_document(doc, "section", counter, Budget(0, 60, 70, pack=30))
    paths = [c.heading_path for c in chunks]
    # A "○" sentence with "-" details under it is one section: the details are its body.
    first = next(c for c in chunks if c.text.startswith("□ 추진 배경"))
    assert first.heading_path == ("□ 추진 배경", "○ 지역 간 디지털 격차가 확대되고 있음")
    assert "- 수도권 대비" in first.text
    assert ("□ 추진 배경", "○ 중소기업의 디지털 전환 수요가 증가") in paths, "a sibling pops the deeper level"
    last = next(c for c in chunks if c.text.startswith("□ 추진 방향"))
    assert last.heading_path == ("□ 추진 방향", "○ 지역 거점을 중심으로 단계적 지원")
    assert "1.2의 기준에 따라" in last.text, "a cross-reference is body"
    assert all(not _glued(doc, c) for c in chunks)


def test_sections_stay_whole_where_they_fit(counter):
    doc = _doc(REPORT)
    chunks = split_document(doc, "section", counter, Budget(0, 100, 100, pack=60))
    # The document does not fit: its preamble, □ 추진 배경 (fits the max: whole, its ○ items with
    # it) and □ 추진 방향 (fits, but the pack is full).
    assert [c.text.split("\n")[0] for c in chunks] == ["지역 디지털 전환 지원사업 추진계획", "□ 추진 배경", "□ 추진 방향"]
    assert chunks[0].heading_path == ()
    assert chunks[1].heading_path == ("□ 추진 배경",), "a section of two ○ items carries its own path"
    packed = split_document(doc, "section", counter, Budget(0, 170, 170))
    assert [c.text.split("\n")[0] for c in packed] == ["지역 디지털 전환 지원사업 추진계획"], \
        "what fits the max is one chunk"


def test_short_top_level_sections_join_neighbours_whole(counter):
    """A regulation of articles without chapters: short articles join their neighbours, each whole,
    instead of standing alone under the min; an article that has to be split keeps its pieces to
    itself, so the short article after it stays alone."""
    short = [f"제{i}조(기준{i}) 이 규정은 업무 처리 기준 {i}을 정한다." for i in range(1, 13)]
    long = "제13조(세부 기준) " + " ".join(["기관은 정보를 안전하게 보관하고 매년 점검 결과를 보고한다."] * 60)
    doc = _doc("\n\n".join([*short, long, "제14조(시행) 이 규정은 공포한 날부터 시행한다."]))
    chunks = split_document(doc, "section", counter, Budget(100, 300, 320))
    before = [c for c in chunks if c.end <= doc.text.index("제13조")]
    assert 1 < len(before) < len(short), "short articles are joined"
    assert all(c.text.startswith("제") and c.text.endswith("정한다.") for c in before), "each article whole"
    assert all(c.tokens >= 100 for c in before[:-1])
    pieces = [c for c in chunks if c.heading_path == ("제13조(세부 기준)",)]
    assert len(pieces) > 1 and all("제12조" not in c.text for c in pieces)
    assert chunks[-1].text.endswith("\n\n제14조(시행) 이 규정은 공포한 날부터 시행한다."), \
        "a short article after a long one joins its last piece rather than stand alone under the min"


def test_report_families_keep_their_order_whatever_comes_first(counter):
    doc = _lines_doc(["○ 서문에 먼저 나오는 항목이 있음", "□ 추진 배경", "○ 격차가 확대되고 있음", "- 세부 내용이 있음",
                      "□ 추진 방향", "○ 거점 중심으로 지원함"])
    levels = {h.text[0]: h.level for h in find_headings(doc)}
    assert levels["□"] < levels["○"] < levels["-"]


def test_chapters_without_articles_keep_numbered_sections(counter):
    doc = _doc("제1장 서론\n1. 연구 배경\n연구의 배경은 다음과 같이 정리된다.\n2. 연구 목적\n목적은 두 가지이다.\n"
               "제2장 본론\n1. 현황\n현황을 살펴본다.")
    texts = [h.text for h in find_headings(doc)]
    assert texts == ["제1장 서론", "1. 연구 배경", "2. 연구 목적", "제2장 본론", "1. 현황"]
    chunks = split_document(doc, "section", counter, Budget(0, 25, 35, pack=10))
    assert chunks[-1].heading_path == ("제2장 본론", "1. 현황")


def test_numbered_lines_after_a_list_intro_or_in_a_list_are_items(counter):
    doc = _doc("1. 개요\n1.1 배경\n지원 대상은 다음과 같다:\n1. 중소기업\n2. 소상공인\n1.2 목적\n목적은 격차 해소이다.")
    texts = [h.text for h in find_headings(doc)]
    assert texts == ["1. 개요", "1.1 배경", "1.2 목적"], "a numbered header after another family's header counts"
    md = Document("x.md", "md", (Block("heading", "설치", level=1), Block("list_item", "1. 내려받기\n2. 설치하기"),
                                 Block("list_item", "- 옵션 하나\n- 옵션 둘")))
    assert [h.text for h in find_headings(md)] == ["설치"], "a format's own list items are not sections"


def test_dash_items_are_sections_only_in_reports():
    plain = _doc("회의 결과\n- 예산안 확정\n- 일정 조정")
    assert find_headings(plain) == []
    report = _doc("□ 회의 결과\n- 예산안 확정\n- 일정 조정")
    assert [h.text for h in find_headings(report)] == ["□ 회의 결과", "- 예산안 확정", "- 일정 조정"]


def test_table_of_contents_is_body(counter):
    doc = _doc(TOC + "\n\n" + REGULATION)
    texts = [h.text for h in find_headings(doc)]
    assert texts.count("제1장 총칙") == 1 and texts.count("제2장 개인정보의 처리") == 1
    assert not any("···" in t or "...." in t or "……" in t for t in texts)
    chunks = split_document(doc, "section", counter, Budget(0, 1100, 1150))
    assert chunks[0].text.startswith("목 차") and chunks[0].heading_path == ()
    assert "부칙 …… 12" in chunks[0].text, "the whole table of contents is one preamble"


def test_table_of_contents_without_leaders_is_body():
    doc = _doc(LOOSE_TOC + "\n\n1. 개요\n본문이다.\n2. 추진 현황\n현황이다.")
    texts = [h.text for h in find_headings(doc)]
    assert texts == ["1. 개요", "2. 추진 현황"], "page-numbered lines in a run are a table of contents"


def test_contents_entries_without_a_page_number_are_contents_too():
    """A government plan's contents page (Hangul, one paragraph per entry) lists its tasks ①–⑥ under
    a chapter without page numbers; the last one, "⑥ …", headed 46 of the plan's 48 chunks."""
    contents = ["순 서", "Ⅰ. 개요 1", "Ⅱ. 추진계획 2", "1. 우선 추진과제 2", "① 서비스 혁신", "② 마이데이터 활성화",
                "③ 플랫폼 고도화", "2. 중장기 로드맵 수립 4", "Ⅲ. 추진체계 및 일정 4", "[붙임] 추진과제(상세) 8"]
    body = ["Ⅰ. 개요", "□ 추진 배경", "○ 전자정부를 구축·운영하였다.", "□ 문제점 진단", "○ 서비스 혁신이 미흡하다."]
    doc = Document("plan.hwp", "hwp", tuple(Block("paragraph", line) for line in contents + body), Properties())
    texts = [h.text for h in find_headings(doc)]
    assert texts == ["Ⅰ. 개요", "□ 추진 배경", "○ 전자정부를 구축·운영하였다.", "□ 문제점 진단", "○ 서비스 혁신이 미흡하다."]


def test_contents_printed_without_page_numbers_are_contents_not_headers():
    """An RFP lists its sections with no page numbers, then prints the same headers over the body;
    read as headers, the list's last entry ("첨부1 : …", an attachment) became the parent of every
    section of the body."""
    contents = ["제 안 요 청 서", "1. 제안공모요강", "1.1. 일반사항", "1.2. 제안참가안내", "2. 제안자를 위한 정보",
                "2.1. 일반정보", "첨부1 : 제안서 평가기준 및 작성양식(별도첨부)"]
    body = ["1. 제안공모요강", "1.1. 일반사항", "가. 개요", "본 사업은 플랫폼을 구축하는 사업이다.", "1.2. 제안참가안내",
            "제안 참가 신청서를 제출하여야 한다.", "2. 제안자를 위한 정보", "2.1. 일반정보", "공사는 1967년에 설립되었다."]
    doc = Document("rfp.hwp", "hwp", tuple(Block("paragraph", line) for line in contents + body), Properties())
    headings = find_headings(doc)
    body_start = doc.spans[len(contents)][0]
    assert [h.text for h in headings] == ["1. 제안공모요강", "1.1. 일반사항", "가. 개요", "1.2. 제안참가안내",
                                          "2. 제안자를 위한 정보", "2.1. 일반정보"]
    assert all(h.offset >= body_start for h in headings)
    # the same lines with a body of other headers: no line of the run is printed again, so headers
    other = Document("plan.hwp", "hwp", tuple(Block("paragraph", line) for line in contents[1:4] + body[3:4]),
                     Properties())
    assert [h.text for h in find_headings(other)] == contents[1:4]


def _box(*cells: str) -> Block:
    return Block("table", " | ".join(cells), table=Table((cells,), header_rows=0))


def test_titles_set_in_boxes_head_a_plans_parts_and_tasks(counter):
    """A Hangul plan sets its parts ("Ⅰ. 개 요"), tasks ("1 | | …") and annexes ("참고 1 | | …") in
    one-row tables; without them the plan's last □ before a part headed every chunk after it."""
    blocks = (_box("Ⅰ. 개 요"), Block("paragraph", "□ 추진 배경"), Block("paragraph", "○ 전자정부를 구축하였다."),
              _box("Ⅱ. 추진계획"), _box("1", "", "선제적 서비스 혁신"), Block("paragraph", "○ 맞춤형 안내를 구현한다."),
              _box("2", "", "마이데이터 활성화"), Block("paragraph", "○ 전자증명서를 발급한다."),
              _box("참고 1", "", "추진전략"), Block("paragraph", "○ 비전과 원칙."),
              # not titles: a footnote set in a table, a bullet row of an HTML list, a two-cell header row
              _box("1", "이 표의 수치는 2019년 결산 기준이며 추정치를 포함하고 있음."), _box("•", "Expand our portfolio"),
              _box("구분", "설명"), Block("paragraph", "끝."))
    doc = Document("plan.hwp", "hwp", blocks, Properties())
    headings = find_headings(doc)
    assert [(h.text, h.level) for h in headings if h.family == "declared"] == [
        ("Ⅰ. 개 요", 1), ("Ⅱ. 추진계획", 1), ("1 선제적 서비스 혁신", 2), ("2 마이데이터 활성화", 2), ("참고 1 추진전략", 1)]
    chunks = split_document(doc, "section", counter, Budget(0, 30, 30))
    path = {line: c.heading_path[:2] for c in chunks for line in ("○ 전자증명서를", "○ 비전과") if line in c.text}
    assert path == {"○ 전자증명서를": ("Ⅱ. 추진계획", "2 마이데이터 활성화"), "○ 비전과": ("참고 1 추진전략", "○ 비전과 원칙.")}


def test_a_pdf_covers_headings_do_not_head_its_sections():
    """An IBM Redpaper's cover sets its series logo "Redpaper" larger than any heading inside; it
    headed every chunk of the paper. Headings of the first page set larger than every heading after
    it are the cover's; a cover heading at a level used inside stays."""
    def page(number: int, *blocks: Block) -> tuple[Block, ...]:
        return tuple(Block(b.kind, b.text, Locator(page=number), b.level) for b in blocks)

    blocks = (page(1, Block("heading", "Access Control in DB2", level=2), Block("paragraph", "Jim Bainbridge"),
                   Block("heading", "Redpaper", level=1))
              + page(2, Block("heading", "Contents", level=3), Block("paragraph", "Notices . . . . 1"))
              + page(3, Block("heading", "Securing DB2 data", level=2), Block("paragraph", "Security matters."),
                     Block("heading", "Roles", level=3), Block("paragraph", "Separation of duties.")))
    doc = Document("x.pdf", "pdf", blocks, Properties(pages=tuple(PageInfo(n, 595, 842, 100) for n in (1, 2, 3))))
    assert [h.text for h in find_headings(doc)] == ["Access Control in DB2", "Contents", "Securing DB2 data", "Roles"]


def test_a_table_row_read_as_a_line_is_not_a_header():
    """A budget table drawn without rules reaches the text as lines; its rows keep their markers."""
    doc = _lines_doc(["□ 예산 내역", "○ 기능별 분류(합계) 230,556 230,556 323,996", "- 민간경상보조 190,963 190,963 279,508",
                      "○ 지원 대상을 115만 세대로 늘림"])
    assert [h.text for h in find_headings(doc)] == ["□ 예산 내역", "○ 지원 대상을 115만 세대로 늘림"]
    # Small numbers are part of a title, not figures of a row (a real regulation's chapter).
    assert legal_marker("제 6 장의 2 영업비밀의 사용 (1)") is not None
    assert not is_figure_row("제 6 장의 2 영업비밀의 사용 (1)")


def test_a_sentence_in_a_heading_style_does_not_head_what_follows():
    """A Word pledge paragraph styled as a heading ("제목2") headed the next 25 chunks of a real
    regulation; a question set as a slide title is still a title."""
    pledge = "본인은 종전 근무회사의 영업비밀을 무단으로 유출한 사실이 없으며, 이를 위반할 경우 민형사상 책임을 지겠습니다."
    blocks = (Block("heading", "제3자 영업비밀 미보유 확인서", level=1), Block("heading", pledge, level=2),
              Block("paragraph", "제1조(목적) 이 서약은 영업비밀의 보호를 목적으로 한다."),
              Block("heading", "Why not count co-occurrences directly?", level=2), Block("paragraph", "Because."))
    doc = Document("r.docx", "docx", blocks, Properties())
    assert [h.text for h in find_headings(doc)] == ["제3자 영업비밀 미보유 확인서", "Why not count co-occurrences directly?"]


def test_an_annex_label_opens_the_annex_whose_title_is_set_larger(counter):
    """A regulation's annexes as Hangul prints them: "[별표 N]" with its amendment note (wrapped
    over two lines), then the annex's title in large type — a heading the file declares, ranked
    above the label. The labels ended the chunk before their annex, which had no path."""
    article = "제{n}조(기준) 여비는 별표에 따른 금액으로 하되, 원장이 필요하다고 인정하는 경우 달리 정할 수 있다."
    blocks = [Block("heading", "출장 규칙", level=1), Block("paragraph", "제1장 총칙"),
              *(Block("paragraph", article.format(n=n)) for n in range(1, 4))]
    for n, title in ((1, "국내 여비 지급표"), (2, "국외 여비 정액표")):
        blocks += [Block("paragraph", f"[별표 {n}] <개정 2010.3.19., 2012.9.14., 2014.7.21.,\n2022. 5. 27.>"),
                   Block("heading", title, level=1),
                   Block("paragraph", "구분 | 운임 | 일비 | 숙박비\n" + "\n".join(f"{g}급 | 실비 | 25,000 | 70,000"
                                                                          for g in range(1, 6)))]
    doc = Document("r.pdf", "pdf", tuple(blocks), Properties())
    chunks = split_document(doc, "section", counter, Budget(0, 200, 210, pack=100))
    for n, title in ((1, "국내 여비 지급표"), (2, "국외 여비 정액표")):
        opening = next(c for c in chunks if f"[별표 {n}]" in c.text)
        assert opening.text.startswith(f"[별표 {n}]"), opening.text[:60]
        assert title in opening.text and opening.heading_path == (title,)
    assert all(not _glued(doc, c) for c in chunks)


@pytest.mark.parametrize("strategy", ["general", "section", "page"])
def test_a_lead_in_line_stays_with_the_list_it_introduces(strategy, counter):
    """A paragraph whose last line introduces a list, the list in blocks of its own: the cut falls
    before the lead-in, not after it ("… 경우는 다음과 같다:" ended a chunk of a real regulation)."""
    body = "정부는 지역 디지털 전환을 지원하기 위하여 거점 센터를 확충하고 전문 인력을 양성한다. " * 5
    lead = "다만, 지원 대상에서 제외되는 경우는 다음과 같다:"
    blocks = (Block("paragraph", f"{body.strip()}\n{lead}", Locator(page=1)),
              *(Block("list_item", f"{n}. {text}", Locator(page=1)) for n, text in
                enumerate(["휴업 중인 기업", "국세를 체납한 기업", "같은 사업으로 지원을 받은 기업"], start=1)))
    doc = Document("x.pdf", "pdf", blocks, Properties(pages=(PageInfo(1, 595, 842, 900),)))
    chunks = split_document(doc, strategy, counter, Budget(0, 150, 160, pack=120))
    assert len(chunks) > 1
    assert not [c.text[-30:] for c in chunks if c.text.rstrip().endswith(lead)]
    assert lead in next(c for c in chunks if "1. 휴업" in c.text).text


def test_attachment_opens_a_top_level_part(counter):
    doc = _lines_doc(["1. 개요", "□ 추진 배경", "○ 격차가 확대되고 있음", "붙임 1. 센터 운영 계획", "□ 기존 센터",
                      "○ 5개소를 운영하고 있음"])
    chunks = split_document(doc, "section", counter, Budget(0, 20, 30, pack=10))
    last = chunks[-1]
    assert last.heading_path == ("붙임 1. 센터 운영 계획", "□ 기존 센터", "○ 5개소를 운영하고 있음")
    assert not any(c.text.rstrip().endswith("붙임 1. 센터 운영 계획") for c in chunks)


def test_header_at_the_foot_of_a_page_moves_to_the_next_page(counter):
    lines = [("□ 추진 배경", 1), ("○ 지역 간 디지털 격차가 확대되고 있음 " * 3, 1), ("□ 추진 방향", 1),
             ("- 1 -", 1), ("○ 거점 중심으로 단계적으로 지원함 " * 3, 2)]
    blocks = tuple(Block("furniture" if text == "- 1 -" else "paragraph", text.strip(), Locator(page=page))
                   for text, page in lines)
    doc = Document("r.pdf", "pdf", blocks, Properties(pages=(PageInfo(1, 595, 842, 900), PageInfo(2, 595, 842, 900))))
    chunks = split_document(doc, "page", counter, Budget(0, 1100, 1150))
    assert len(chunks) == 2
    assert chunks[0].text.endswith("확대되고 있음")
    assert chunks[1].text.startswith("□ 추진 방향") and (chunks[1].page_start, chunks[1].page_end) == (1, 2)
    assert chunks[1].heading_path[0] == "□ 추진 방향" and chunks[1].heading_path[1].startswith("○ 거점")


def test_split_pieces_never_end_with_a_header(counter):
    body = "정부는 지역 디지털 전환을 지원하기 위하여 거점 센터를 확충한다. " * 6
    doc = _doc("\n".join(f"{n}. 제목 {n}\n{body.strip()}" for n in range(1, 13)))
    for budget in (Budget(0, 60, 60), Budget(0, 75, 80), Budget(20, 90, 100)):
        for strategy in ("section", "general", "whole", "page"):
            chunks = split_document(doc, strategy, counter, budget)
            assert all(c.tokens <= budget.merge_ceiling for c in chunks)
            assert not [c.text[-30:] for c in chunks if _glued(doc, c)], (strategy, budget)


# ------------------------------------------------------------------------------------ real files


def test_korean_report_pdf(tmp_path, counter):
    files = pytest.importorskip("fixtures.files")
    from classifiers import classify, gather_facts
    from parsers import parse

    doc = parse(files.make_korean_report_pdf(tmp_path / "report.pdf"))
    decision = classify(gather_facts(doc, counter(doc.text), 300, "report.pdf"))  # not short at 300
    assert decision.strategy == "section"
    texts = [h.text for h in find_headings(doc)]
    assert texts.count("2026년 지역 디지털 전환 지원사업 추진계획") <= 1, "the running header is not a section"
    chunks = split_document(doc, "section", counter, Budget(0, 200, 220, pack=100))
    task = next(c for c in chunks if "(과제1)" in c.text)
    assert task.heading_path[:2] == ("3. 추진 계획", "□ 세부 추진 과제")
    table = next(c for c in chunks if "지원 기업 수" in c.text)
    assert table.heading_path[:2] == ("2. 추진 현황", "□ 연도별 지원 실적")
    assert all(not _glued(doc, c) for c in chunks)
    assert len(split_document(doc, "section", counter, Budget())) == 1, "a report that fits the max is whole"


def test_regulation_pdf(tmp_path, counter):
    files = pytest.importorskip("fixtures.files")
    from classifiers import classify, gather_facts
    from parsers import parse

    doc = parse(files.make_regulation(tmp_path / "규정.pdf"))
    decision = classify(gather_facts(doc, counter(doc.text), 300, "규정.pdf"))
    assert (decision.strategy, decision.rule) == ("section", "legal-articles")
    chunks = split_document(doc, "section", counter, Budget(0, 200, 220, pack=100))
    assert sum("제4조(수집·이용)" in c.text for c in chunks) == 1, "an article that fits the max stays whole"
    article = next(c for c in chunks if "제4조(수집·이용)" in c.text)
    assert article.heading_path[:2] == ("제2장 개인정보의 처리", "제4조(수집·이용)")
    assert article.text.startswith("제2장 개인정보의 처리")
    assert "1. 정보주체의 동의를 받은 경우" in "".join(c.text for c in chunks if c.heading_path[1:2] == ("제4조(수집·이용)",))
    assert all(not _glued(doc, c) for c in chunks)


# ------------------------------------------------------------ defects seen on real documents
# Each of these failed before the outline cut (seams 0.1, pipeline version 2), on documents built to
# show what real notices and regulations do.


def test_an_article_that_fits_is_one_chunk_whatever_its_clauses(counter):
    """An article of five long 항 (about 600 tokens) used to become five chunks."""
    clause = "진흥원은 개인정보의 안전한 처리를 위하여 내부 관리계획을 수립하고 접근 권한을 관리하며 접속 기록을 보관하여야 한다. "
    article = "제7조(안전조치) " + "\n".join(f"{'①②③④⑤'[i]} {clause * 3}" for i in range(5))
    doc = _doc("\n\n".join(["제6조(목적) 이 규정은 안전조치의 기준을 정한다.", article,
                            "제8조(점검) 보호책임자는 매년 점검한다."]))
    chunks = split_document(doc, "section", counter, Budget())
    holding = [c for c in chunks if "①" in c.text or "⑤" in c.text]
    assert len(holding) == 1 and "제7조(안전조치)" in holding[0].text and "⑤" in holding[0].text


def test_an_article_across_a_page_break_is_one_chunk_without_the_page_furniture(tmp_path, counter):
    files = pytest.importorskip("fixtures.files")
    from parsers import parse

    body = "직원은 관계 법령과 규정을 준수하고 맡은 직무를 성실하게 수행하여야 하며, 직무상 알게 된 비밀을 누설해서는 아니 된다. "
    items = [("chapter", "제1장 총칙"), ("article", "제1조(목적) " + body * 3)]
    items += [("article", f"제{n}조(의무 {n}) " + body * 8) for n in range(2, 6)]
    path = files.make_report_pdf(tmp_path / "규정.pdf", items, header="복무 규정")
    doc = parse(path)
    assert doc.page_count >= 2 and "복무 규정" not in doc.text and "- 1 -" not in doc.text
    joined = [b for b in doc.blocks if b.locator.page_end is not None]
    assert joined and joined[0].locator.page_end == joined[0].locator.page + 1, \
        "a paragraph that runs on over the page break is one block, on both pages"
    chunks = split_document(doc, "section", counter, Budget(100, 700, 720))
    for n in range(2, 6):
        holding = [c for c in chunks if f"제{n}조(의무 {n})" in c.text]
        assert len(holding) == 1, f"제{n}조 starts one chunk"
        assert holding[0].text.count("누설해서는") >= 8, f"제{n}조 is whole, across its page break"
    assert all("- 1 -" not in c.text and "- 2 -" not in c.text for c in chunks)


def test_a_lead_in_stays_with_all_its_items(counter):
    item = "국세 또는 지방세를 체납하고 있거나 최근 3년 이내에 정부 지원사업에서 부정하게 지원금을 받아 제재를 받은 기업"
    doc = _doc("\n".join(["□ 지원 대상", "○ 도내 중소기업으로서 디지털 전환을 추진하는 기업", "○ 다음의 경우는 지원 대상에서 제외",
                          *[f"- {item} ({n})" for n in range(1, 6)], "□ 지원 내용", "○ 컨설팅과 솔루션 도입 비용을 지원함"]))
    chunks = split_document(doc, "section", counter, Budget())
    lead = next(c for c in chunks if "다음의 경우는" in c.text)
    assert all(f"({n})" in lead.text for n in range(1, 6)), "the lead-in and every item it introduces"
    assert lead.text.startswith("□ 지원 대상"), "a heading starts its chunk"


def test_a_wrapped_numbered_note_is_not_a_heading(counter):
    doc = _doc("□ 신청 자격\n1. 분류번호, 업종명 및 품목명은 「통계법」에 따른\n한국표준산업분류를 따른다.\n"
               "2. 신청 방법\n온라인으로 신청한다.\n3. 운영위원회 회의\n위원회는 매년 연다.")
    texts = [h.text for h in find_headings(doc)]
    assert texts == ["□ 신청 자격", "2. 신청 방법", "3. 운영위원회 회의"]


def test_an_untitled_article_is_cited_by_its_number():
    doc = _doc("제1조(목적) 이 규정은 목적을 정한다.\n제2조 직원은 맡은 바 직무를 성실하게 수행하여야 하며 품위를 유지하여야 한다.")
    assert [h.text for h in find_headings(doc)] == ["제1조(목적)", "제2조"]


def test_a_numbered_line_on_a_slide_is_not_the_heading_of_the_next_slides(counter):
    blocks = [Block("title", "발표 평가 기준", Locator(slide=1)), Block("paragraph", "6) 발표력 (10%)", Locator(slide=1)),
              Block("paragraph", "전달력과 시간 준수를 본다.", Locator(slide=1)),
              Block("paragraph", "팀 구성: 기획 2명, 개발 3명", Locator(slide=2)),
              Block("title", "일정", Locator(slide=3)), Block("paragraph", "3월 착수, 6월 완료", Locator(slide=3))]
    doc = Document("deck.pptx", "pptx", tuple(blocks))
    assert [h.text for h in find_headings(doc)] == ["발표 평가 기준", "일정"]
    chunks = split_document(doc, "slide", counter, Budget(0, 1100, 1150))
    assert [(c.slide_start, c.heading_path) for c in chunks] == [(1, ("발표 평가 기준",)), (2, ()), (3, ("일정",))]


def test_a_plan_that_quotes_a_law_is_not_a_regulation(counter):
    """Two articles quoted in a programme description ("근거 법령") used to put the whole document in
    legal mode, where 1. 2. are 호 of an article and no section."""
    doc = _doc("1. 사업 목적\n노인의 소득 보전을 지원한다.\n2. 법령상 근거\n"
               "제23조의2(노인일자리전담기관의 설치) 국가는 전담기관을 설치할 수 있다.\n"
               "제24조(지원) 국가는 예산의 범위에서 비용을 지원할 수 있다.\n3. 사업 내용\n공익활동과 사회서비스형 일자리를 운영한다.")
    texts = [h.text for h in find_headings(doc)]
    assert "1. 사업 목적" in texts and "3. 사업 내용" in texts
    assert not is_legal_text(["제23조의2(노인일자리전담기관의 설치) …", "제24조(지원) …"])
    assert is_legal_text(["제1조(목적) …", "제2조(정의) …"]) and is_legal_text(["제7조", "제8조", "제8조의2", "제9조"])
    quoting = _doc("□ 관리 수단\n(예산서) 조세지출예산서는 다음 조항에 근거한다.\n제34조(예산안의 첨부서류)\n"
                   "(연혁) 1996년부터 작성하였다.\n□ 연계 관리\n재정지출과 함께 관리한다.")
    assert [h.text for h in find_headings(quoting)] == ["□ 관리 수단", "□ 연계 관리"], "a quoted article is body"


def test_a_statement_of_work_whose_last_annex_holds_contract_clauses_is_not_a_regulation():
    """A real 과업지시서 carries a security contract's 제1조–제12조 in its last annex ([별표4], page 17
    of 18). Read as a regulation, its own 1.–13. were 호 of an article, no section, and a bare ``④``
    headed its last chunks. Articles that only start in the second half of a document are an
    annex's, not its sections; a regulation's articles open its body."""
    from classifiers import gather_facts

    body = "".join(f"{n}. {title}\n○ {title}의 세부 내용은 과업 범위와 수행 방법을 정하며 감독관과 협의하여 조정할 수 있다.\n"
                   f"① {title}에 필요한 인력과 장비를 투입한다.\n② 결과는 보고서로 제출한다.\n"
                   for n, title in enumerate(("과업명", "과업 기간", "과업 범위", "수행 방법", "보고서 작성", "기타사항"), 1))
    annex = "[별표4] 용역사업 보안특약 조항\n" + "".join(f"제{n}조(보안 의무 {n}) 사업자는 보안 의무를 지킨다.\n" for n in range(1, 6))
    sow = _doc((body + annex).strip().replace("\n", "\n\n"))
    texts = [h.text for h in find_headings(sow)]
    assert "6. 기타사항" in texts and "1. 과업명" in texts, texts
    assert not any(text in ("①", "②") for text in texts)
    assert gather_facts(sow, 900, 1100).markers.get("legal_article", 0) == 0
    regulation = _doc((annex.split("\n", 1)[1] + body).strip().replace("\n", "\n\n"))  # articles first
    assert "제1조(보안 의무 1)" in [h.text for h in find_headings(regulation)]
    assert gather_facts(regulation, 900, 1100).markers["legal_article"] == 5


def test_a_pdf_title_set_larger_than_everything_is_not_a_section(tmp_path, counter):
    files = pytest.importorskip("fixtures.files")
    from parsers import parse

    doc = parse(files.make_regulation(tmp_path / "규정.pdf"))
    title = next(b for b in doc.blocks if b.kind == "heading")
    assert title.text == "개인정보 보호 규정" and title.level == 1, "the title's type size makes it a heading block"
    texts = [h.text for h in find_headings(doc)]
    assert "개인정보 보호 규정" not in texts and texts[0] == "제1장 총칙", "but it heads no section: it is the title"


def test_lettered_subsections_in_a_run_are_headings_and_initials_are_not():
    """``A.``, ``B.``, ``C.`` under ``I.``/``II.`` (papers, manuals) open subsections; a letter that
    does not go on a run from ``A.`` is an initial at a line start ("J. Smith")."""
    doc = _doc("I. INTRODUCTION\n\nMachine learning can be creative.\n\nA. Google DeepDream\n\nThe gradient "
               "ascent on an image.\n\nB. Artistic Style Imitation\n\nStyle transfer of a photograph.\n\n"
               "J. Smith\n\nwrote the first survey.\n\nII. TEXT DATA\n\nDigital text.\n\nA. 문장 생성\n\nCharacter RNNs.")
    headings = [(h.text, h.level) for h in find_headings(doc)]
    assert [t for t, _ in headings] == ["I. INTRODUCTION", "A. Google DeepDream", "B. Artistic Style Imitation",
                                        "II. TEXT DATA", "A. 문장 생성"]
    levels = dict(headings)
    assert levels["A. Google DeepDream"] > levels["I. INTRODUCTION"], "letters nest under roman numerals"


@pytest.mark.parametrize("block", [
    "■ 2. The FAA amends § 39.13 by\nremoving Airworthiness Directive (AD)\n2018–23–51.",
    "• Hand Delivery: Deliver to Mail\naddress above between 9 a.m. and 5\np.m., Monday through Friday.",
    "(1) In the Certificate Limitations and\nOperating Procedures chapters, remove the\ninformation.",
])
def test_a_marked_line_whose_sentence_wraps_on_is_not_a_heading(block):
    """A line that stops inside its sentence (the next line starts in lower case, or it ends on
    "and", "by") is the start of a paragraph, whatever marker opens it: in a rule printed in
    columns every bullet and amendment instruction had become a heading over the pages after it."""
    doc = _doc(f"□ 개요\n\nBackground of the rule.\n\n{block}\n\nThe rest of the text.")
    assert [h.text for h in find_headings(doc)] == ["□ 개요"]


def test_a_numbered_note_as_long_as_its_lines_is_not_a_heading():
    """A note (or any paragraph) whose first line opens with a number and fills the column like the
    lines under it is a paragraph, not a title over them: footnotes of a two-column brief had become
    five levels of its heading paths."""
    note = ("3) 개정 이유는 질환의 특성별 ‘군(群)’별로 구분되어 있는 현행 감염병 분\n"
            "류체계를 감염병의 심각도ㆍ전파력ㆍ격리수준ㆍ신고시기 등을 중심으\n"
            "로 한 ‘급(級)’별 분류체계로 개편하려는 것임.\n"
            "7) 제5조(약관의 해석) ① 약관은 신의성실의 원칙에 따라 공정하게 해석\n"
            "되어야 하며 고객에 따라 다르게 해석되어서는 아니 된다.\n"
            "② 약관의 뜻이 명백하지 아니한 경우에는 고객에게 유리하게 해석되어\n"
            "야 한다.")
    doc = _doc(f"(1) 감염병예방법 개정\n\n개정 법률이 시행되었다.\n\n{note}\n\n1) 추진 배경\n"
               "지역 간 디지털 격차가 확대되고 있어 현장 밀착형 지원이 필요하다는 의견이 많았음")
    assert [h.text for h in find_headings(doc)] == ["(1) 감염병예방법 개정", "1) 추진 배경"]


def test_references_and_an_appendix_open_top_level_parts(counter):
    """A paper's ``REFERENCES`` and ``APPENDIX A`` (its capital A is a label, not the article "a")
    open parts of their own: the reference list is not the body of the last section."""
    body = "The network learns representations of its input, layer by layer, and reuses them. " * 4
    doc = _doc(f"I. INTRODUCTION\n\n{body}\n\nII. DISCUSSION\n\n{body}\n\nREFERENCES\n\n"
               f"[1] A. Author, A title, 2015. {body}\n\nAPPENDIX A\nAUTOMATICALLY GENERATED TEXTS\n\n{body}")
    headings = find_headings(doc)
    assert [h.text for h in headings] == ["I. INTRODUCTION", "II. DISCUSSION", "REFERENCES", "APPENDIX A"]
    assert headings[2].level == headings[3].level < headings[0].level
    chunks = split_document(doc, "section", counter, UNITS)
    reference = next(c for c in chunks if "[1] A. Author" in c.text)
    assert reference.heading_path == ("REFERENCES",)


@pytest.mark.parametrize("strategy", ["general", "page"])
def test_a_title_line_no_grammar_knows_never_ends_a_chunk(strategy, counter):
    """A one-line block that names what follows it (a run-in heading, a caption, a 10-K's
    "SUPPLIERS") goes with what it names, though no header family knows it: cutting after it left
    it at the end of the chunk before."""
    body = "Our long-term business strategy focuses on increasing the number of casinos served. " * 5
    titles = ["STRATEGY", "Authority for This Rulemaking", "<표 1> 연도별 지원 실적", "ITEM 7. MANAGEMENT’S DISCUSSION "
              "AND ANALYSIS OF FINANCIAL CONDITION AND RESULTS OF OPERATIONS", "SUPPLIERS"]
    blocks = []
    for page, title in enumerate(titles, start=1):
        blocks += [Block("paragraph", body, Locator(page=page)), Block("paragraph", title, Locator(page=page))]
    blocks.append(Block("paragraph", body, Locator(page=len(titles) + 1)))
    doc = Document("x.pdf", "pdf", tuple(blocks))
    chunks = split_document(doc, strategy, counter, Budget(20, 120, 130))
    assert len(chunks) >= len(titles)
    for chunk in chunks:
        assert not chunk.text.rstrip().endswith(tuple(titles)), chunk.text[-60:]
    starts = [c.text for c in chunks]
    assert all(any(s.startswith(t) for s in starts) for t in titles)


def test_a_run_in_title_line_inside_a_block_moves_to_what_it_names(counter):
    """A PDF's run-in heading is a line of the paragraph block it ends ("…affected operators." /
    "Authority for This Rulemaking"), its body on the next page: it goes to that page's chunk. A
    short last line of a wrapped sentence ("reducing the cost impact on" / "operators.") does not."""
    body = "The agency estimates the following costs to comply with this proposed rule for operators. " * 6
    doc = Document("x.pdf", "pdf", (
        Block("paragraph", f"{body}\nreducing the cost impact on\naffected operators.\nAuthority for This Rulemaking",
              Locator(page=1)),
        Block("paragraph", f"Title 49 of the United States Code specifies the authority. {body}", Locator(page=2)),
        Block("paragraph", f"{body}\nwhich the agency will consider\nfor the final rule.", Locator(page=3)),
        Block("paragraph", f"Regulatory Findings. {body}", Locator(page=4)),
    ))
    chunks = split_document(doc, "page", counter, Budget(20, 200, 210))
    assert [c.text.splitlines()[0] for c in chunks][1] == "Authority for This Rulemaking"
    assert chunks[0].text.endswith("affected operators.")
    assert chunks[2].text.endswith("for the final rule.")


def test_unstructured_text_is_packed_by_whole_entries_of_a_glossary(counter):
    """A glossary with no heading styles (a term line, then "Definition:", "Example:" and "Related
    Keywords:" paragraphs): packs are cut before a term, never between a definition and its
    example; the repeated "Related Keywords:" field is not a title."""
    entries = []
    for n in range(12):
        entries += [f"Term Number {n}", f"Definition: term {n} is a method that ranks documents by relevance to a query.",
                    f"Example: a search engine uses term {n} to order the results it returns for a user.",
                    f"Related Keywords: Ranking, Retrieval {n}, Search Engine"]
    doc = _doc("\n\n".join(entries))
    chunks = split_document(doc, "general", counter, Budget(20, 200, 210, pack=150))
    assert len(chunks) > 3
    for chunk in chunks:
        assert chunk.text.startswith("Term Number"), chunk.text[:40]
        assert chunk.text.rstrip().split("\n")[-1].startswith("Related Keywords:"), chunk.text[-60:]


@pytest.mark.parametrize("line", ["(Applause.)", "And they all said, “I think you’re right.”", "what was it in 2010? 64.48",
                                  "and the rest of the year", "1.", "- 3 -", "되는 경우는 예외로 한다. <개정 2022. 12. 22.>",
                                  "▶ 개인정보보호 종합포털 → 민원마당", "ACKNOWLEDGEMENTS 23"])
def test_not_title_lines(line):
    from classifiers.markers import is_title_line

    assert not is_title_line(line)


@pytest.mark.parametrize("line", ["SUPPLIERS", "Authority for This Rulemaking", "<표 1> 연도별 지원 실적", "Materials and Methods"])
def test_title_lines(line):
    from classifiers.markers import is_title_line

    assert is_title_line(line)


def test_back_matter_is_never_packed_with_the_body(counter):
    """A regulation's last article is not packed with its 부칙 (a run of "이 규정은 … 시행한다"), nor a
    paper's last section with its references: packed together, the article was lost among them."""
    articles = "\n\n".join(f"제{n}조(조항{n}) " + "직원은 규정에 따라 업무를 처리하고 그 결과를 기록하여야 한다. " * 6
                           for n in range(1, 8))
    supplements = "\n\n".join(f"부 칙\n\n제1조(시행일) 이 규정은 20{n:02d}년 1월 1일부터 시행한다." for n in range(2, 14))
    doc = _doc(f"제1장 총칙\n\n{articles}\n\n제2장 보칙\n\n제8조(규정의 개정) 이 규정의 개정은 이사회의 결의를 거쳐야 한다."
               f"\n\n{supplements}")
    chunks = split_document(doc, "section", counter, Budget(100, 1100, 1150, pack=500))
    last_article = next(c for c in chunks if "제8조(규정의 개정)" in c.text)
    assert "시행한다" not in last_article.text
    assert all(c.group.startswith("back matter") for c in chunks if "시행한다" in c.text)


def test_back_matter_packs_only_within_its_heading_family(counter, tmp_path):
    """A regulation in Word ends with its 부칙 and then its forms ([별지 제1호 서식], each a table).
    All back matter was one pack group, so the last 부칙 and the first form were packed into a chunk
    with no heading, the form's rows among effective dates; a question about the form's field found
    the forms after it first."""
    from fixtures.files import make_docx

    from parsers import parse

    items: list = [("h1", "제1장 총칙")]
    items += [f"제{n}조(조항{n}) " + "직원은 재해가 나면 규정에 따라 업무를 처리하고 그 결과를 기록하여야 한다. " * 5
              for n in range(1, 6)]
    for year in range(2018, 2024):
        items += ["부 칙", f"제1조(시행일) 이 지침은 {year}년 1월 1일부터 시행한다."]
    for number, name in ((1, "재해상황 보고서"), (2, "재해선언 의결서")):
        items += [f"[별지 제{number}호 서식] {name}", name,
                  ("table", [["제 목", ""], ["재해발생 일시", ""], ["재해유형", "□자연재해 □화재 □테러 □기타"],
                             ["조치 현황", ""], ["복구예상시간", ""]])]
    doc = parse(make_docx(tmp_path / "지침.docx", items))
    chunks = split_document(doc, "section", counter, Budget(100, 400, 450, pack=400))
    form = next(c for c in chunks if "재해상황 보고서" in c.text)
    assert "시행한다" not in form.text, "the first form is not packed with the 부칙 before it"
    assert form.text.startswith("[별지 제1호 서식]"), "the form opens its chunk"
    assert any("2023년 1월 1일부터 시행한다" in c.text for c in chunks)


def test_a_title_set_in_a_one_row_table_opens_the_section_after_it(counter):
    """Korean plans set each task's title in a box — a table of one row — over its ○ items: the box
    opens the task's section instead of ending the chunk before it."""
    from parsers.model import Table

    items = "\n\n".join(f"○ 과제 {n}의 세부 내용으로 각 부처와 지자체가 함께 서비스를 단계적으로 확대하고 제도를 정비함" * 3
                        + "\n* 수요가 많은 증명서부터 순차 발급" for n in range(3))
    blocks: list[Block] = [Block("paragraph", "□ 추진 과제")]
    for n in range(1, 5):
        box = Table(((f"과제 {n}. 전자증명서 발급·유통 (20년말 100종)", "행안부"),), header_rows=0)
        blocks += [Block("table", box.render(), table=box), *(Block("paragraph", p) for p in items.split("\n\n"))]
    doc = Document("x.hwp", "hwp", tuple(blocks))
    chunks = split_document(doc, "section", counter, Budget(50, 300, 320, pack=200))
    assert chunks[0].text.startswith("□ 추진 과제\n\n과제 1. 전자증명서")
    for n in range(2, 5):
        assert any(c.text.startswith(f"과제 {n}. 전자증명서") for c in chunks), n
    assert not any(c.text.rstrip().endswith("행안부") for c in chunks)


def test_a_wrapped_lead_in_keeps_its_list(counter):
    """A lead-in whose sentence wraps on ("…다음 각 호의 직종에 대한 원활한 인력수급을" / "위하여 …
    실시할 수 있다.") is followed by its items, not by sections: they neither head chunks nor leave
    the lead-in at the end of the chunk before."""
    body = "국가와 지방자치단체는 직업능력개발훈련을 실시하고 그 결과를 평가하여 공개하여야 한다. " * 8
    block = ("② 국가와 지방자치단체는\n다음 각 호의 직종에 대한 원활한 인력수급을\n위하여 필요한 훈련을 실시할 수 있다.\n"
             "1. 국가경제의 기간이 되는 산업 중 인력이 부족한 직종\n2. 국가전략산업 중 인력이 부족한 직종\n"
             "3. 그 밖에 대통령령으로 정하는 직종")
    doc = _doc(f"1. 사업근거\n\n① 법령상 근거\n\n{body}\n\n{block}\n\n{body}")
    assert not [h.text for h in find_headings(doc) if h.text.startswith(("1. 국가", "2. 국가", "3. 그"))]
    chunks = split_document(doc, "section", counter, Budget(20, 150, 160, pack=100))
    assert not any(c.text.rstrip().endswith("실시할 수 있다.") for c in chunks)


def test_a_table_piece_never_ends_with_a_group_label_row(counter):
    """A row that only names the group of rows under it ("6. 계약의 체결 … 위반한 자", its sanction rows
    below) goes with its first row when a table is cut: a piece ending with it left the rows under
    it without their group."""
    from parsers.model import Table

    rows = [("제재대상", "제재기간")]
    for group in range(1, 7):
        rows.append((f"{group}. 계약 위반 {group}군",) * 2)
        rows += [(f"- 계약상의 주요조건 {group}-{n}을 위반하여 회사에 손해를 끼친 자", f"{n}년") for n in range(1, 3)]
    table = Table(tuple(rows))
    doc = Document("x.docx", "docx", (Block("table", table.render(), table=table),))
    chunks = split_document(doc, "whole", counter, Budget(20, 120, 130, pack=90))
    assert len(chunks) > 3
    for chunk in chunks:
        last = chunk.text.rstrip().split("\n")[-1]
        assert not last.startswith(tuple(f"{g}. 계약 위반" for g in range(1, 7))), last
