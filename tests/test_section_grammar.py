"""The Korean section grammar on real-looking documents, with its traps."""

from __future__ import annotations

from classifiers.headings import legal_marker, pattern_marker
from parsers.model import Block, Document
from splitters import Budget, split_document
from splitters.section import find_headings

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


def _doc(text: str) -> Document:
    return Document("x.txt", "txt", tuple(Block("paragraph", p) for p in text.split("\n\n")))


def test_cross_references_are_not_headers():
    assert legal_marker("제3조에 따라 수집된 정보는") is None
    assert legal_marker("제3조 제1항에 따른 정보") is None
    assert legal_marker("제3조(수집) 기관은") is not None
    assert legal_marker("제10조의2(특례) 다만") is not None
    assert pattern_marker("1.2의 기준에 따라") is None
    assert pattern_marker("1.2 추진 체계") is not None


def test_regulation_heading_paths(counter):
    doc = _doc(REGULATION)
    headings = find_headings(doc)
    texts = [h.text for h in headings]
    assert texts[0] == "제1장 총칙"
    assert not any(t.startswith("제3조에 따라") for t in texts)
    assert not any(t.startswith("1. ") for t in texts), "items inside an article are not sections"
    chunks = split_document(doc, "section", counter, Budget(0, 1100, 1150))
    article3 = next(c for c in chunks if "제3조(수집)" in c.text)
    assert article3.heading_path == ("제2장 개인정보의 처리", "제3조(수집)")
    assert article3.text.startswith("제2장 개인정보의 처리\n제3조(수집)"), "a body-less chapter title opens its first article"
    # the chapter title is kept with the first article after it, never at the end of a chunk
    for chunk in chunks:
        assert not chunk.text.rstrip().endswith(("제2장 개인정보의 처리", "제1장 총칙"))
    cross = next(c for c in chunks if "제3조에 따라 수집된" in c.text)
    assert cross.heading_path[-1].startswith("제3조(수집)")


def test_report_markers_nest(counter):
    doc = _doc(REPORT)
    chunks = split_document(doc, "section", counter, Budget(0, 1100, 1150))
    paths = [c.heading_path for c in chunks]
    assert ("□ 추진 배경", "○ 지역 간 디지털 격차가 확대되고 있음", "- 수도권 대비 비수도권의 디지털 역량 지수는 78% 수준") in paths
    assert ("□ 추진 배경", "○ 중소기업의 디지털 전환 수요가 증가") in paths, "a sibling pops the deeper level"
    assert ("□ 추진 방향", "○ 지역 거점을 중심으로 단계적 지원") in paths
    assert all(not c.text.rstrip().endswith("□ 추진 방향") for c in chunks)


def test_small_sections_merge_within_their_top_level_section(counter):
    doc = _doc(REPORT)
    chunks = split_document(doc, "section", counter, Budget(100, 1100, 1150))
    assert len(chunks) == 3  # title preamble, □ 추진 배경, □ 추진 방향: siblings merged, tops kept apart
    assert chunks[1].text.startswith("□ 추진 배경") and chunks[2].text.startswith("□ 추진 방향")
