"""Table rows indexed with their columns' labels (splitters.labels): what the indexes hold beside
what a search shows."""

from __future__ import annotations

import json
from pathlib import Path

from test_sync import settings, write

from flows.index.store import Store
from flows.ingest.flow import ingest_flow
from parsers import parse
from parsers.model import Block, Document
from parsers.tables import Span, make_table
from splitters import Budget, split_document
from splitters.chunk import cl100k_counter
from splitters.labels import PAIR_SEPARATOR, column_labels, join_spaced, label_rows, labelled_row

STATIONS = ("강남구", "서대문구", "종로구", "중랑구", "서초구", "영등포구", "강변북로")


def air_csv(path: Path, days: int = 40) -> Path:
    lines = ["측정일시,측정소명,이산화질소농도(ppm),오존농도(ppm),미세먼지(㎍/㎥),초미세먼지(㎍/㎥)"]
    for day in range(days):
        for number, station in enumerate(STATIONS):
            lines.append(f"2015{1 + day // 28:02d}{1 + day % 28:02d},{station},0.0{number},0.01{day % 10},"
                         f"{40 + day + number},{10 + number}")
    return write(path, "\n".join(lines) + "\n")


def table_doc(*tables) -> Document:
    blocks = []
    for table in tables:
        blocks.append(Block("paragraph", "표 앞의 문단입니다."))
        blocks.append(Block("table", table.render(), table=table))
    return Document("t.hwp", "hwp", tuple(blocks))


def test_each_row_of_a_tall_sheet_carries_its_columns_labels_in_every_chunk(tmp_path):
    doc = parse(air_csv(tmp_path / "air.csv"))
    chunks = split_document(doc, "sheet", cl100k_counter(), Budget(min_tokens=50, max_tokens=300,
                                                                     merge_ceiling=320, pack=250))
    assert len(chunks) > 5
    seen = 0
    for chunk in chunks:
        # what a search shows is untouched: the header rows, then the span of the document
        assert chunk.text == chunk.header + doc.text[chunk.start:chunk.end]
        assert chunk.index_text.startswith("측정일시 | 측정소명 | 이산화질소농도(ppm)")
        for line in chunk.text.splitlines()[1:]:
            date, station, *_ = line.split(" | ")
            assert f"측정일시 {date}{PAIR_SEPARATOR}측정소명 {station}{PAIR_SEPARATOR}이산화질소농도(ppm)" \
                in chunk.index_text
            seen += 1
    assert seen == 40 * len(STATIONS)
    assert "미세먼지(㎍/㎥) 41 · 초미세먼지(㎍/㎥) 11" in chunks[0].index_text


def test_labels_join_header_rows_and_skip_titles_values_and_pairs():
    budget = make_table([["사업명", "2022년 결산", "2024년", "2024년"],
                         ["사업명", "2022년 결산", "정부안", "확정(B)"],
                         ["부모급여 지원", "341,751", "2,888,694", "2,888,694"]],
                        spans=[Span(0, 0, 1, 0), Span(0, 1, 1, 1), Span(0, 2, 0, 3)])
    assert budget.header_rows == 2
    assert column_labels(budget) == ("사업명", "2022년 결산", "2024년 정부안", "2024년 확정(B)")
    assert labelled_row(budget.rows[2], column_labels(budget)) == \
        "사업명 부모급여 지원 · 2022년 결산 341,751 · 2024년 정부안 2,888,694 · 2024년 확정(B) 2,888,694"
    titled = make_table([["경부선 (단위:원)", "", ""], ["역", "서울", "부산"], ["행신", "8,100", "49,100"]],
                        spans=[Span(0, 0, 0, 2)], header_rows=2)
    assert column_labels(titled) == ("역", "서울", "부산")  # the title labels no column
    # A unit caption set in a header row's corner is the whole table's: it labels no column.
    scored = make_table([["심사항목", "평가요소", "(단위 : 점)"], ["심사항목", "평가요소", "세부항목 및 등급"],
                         ["기술인증", "고도기술 인증", "A. 신기술 인증 3.0"]], header_rows=2)
    assert column_labels(scored) == ("심사항목", "평가요소", "세부항목 및 등급")
    pairs = make_table([["표본크기", "187명"], ["조사방법", "전화조사"]], header_rows=1)
    assert column_labels(pairs) == ()  # label | value lines name their values already
    numbers = make_table([["행신", "8,100", "14,100"], ["서울", "8,100", "12,700"]], header_rows=1)
    assert column_labels(numbers) == ()  # a first row of values is no header


def test_a_chunk_without_whole_data_rows_is_indexed_as_it_is():
    table = make_table([["구분", "당초", "추경"], ["공공요금", "1,932,000", "1,932,000"]])
    doc = table_doc(table)
    head, rows = doc.spans[0], doc.spans[1]
    from splitters.chunk import Chunk

    prose = Chunk(doc.text[head[0]:head[1]], head[0], head[1], 5)
    header_only = Chunk(doc.text[rows[0]:rows[0] + 10], rows[0], rows[0] + 10, 5)
    whole = Chunk(doc.text[head[0]:rows[1]], head[0], rows[1], 20)
    labelled = label_rows(doc, [prose, header_only, whole])
    assert [c.index_text for c in labelled[:2]] == ["", ""]
    assert labelled[2].index_text == "표 앞의 문단입니다.\n\n구분 | 당초 | 추경\n구분 공공요금 · 당초 1,932,000 · 추경 1,932,000"


def test_the_index_holds_the_labelled_rows_and_the_hit_shows_the_document(prefect_harness, tmp_path):
    air_csv(tmp_path / "docs" / "air.csv", days=3)
    write(tmp_path / "docs" / "staff.md", "# 인원 현황\n\n| 구 분 | 정 원 | 현 원 |\n|---|---|---|\n| 합 계 | 8,491 | 8,667 |\n")
    db = tmp_path / "db"
    ingest_flow([str(tmp_path / "docs")], settings(db, label_rows="embed"))  # labels in the text embedded
    rows = Store(str(db), "default").rows(["source", "text", "embed_text", "fts_text"])
    (staff,) = [row for row in rows if row["source"].endswith("staff.md")]
    # full text: the text, its spaced-out labels as words (flows.index.schema.spaced_labels_joined)
    assert "합 계 | 8,491" in staff["text"] and "합계 | 8,491" in staff["fts_text"]
    assert "구분 합계 · 정원 8,491" in staff["embed_text"]
    rows = [row for row in rows if row["source"].endswith("air.csv")]
    assert rows
    for row in rows:
        assert "20150101 | 강남구 | 0.00 | 0.010 | 40 | 10" in row["text"]
        assert "측정소명 강남구 · 이산화질소농도(ppm) 0.00" in row["embed_text"]
        assert "측정소명 강남구" not in row["fts_text"] and "20150101 | 강남구 |" in row["fts_text"]
    db_all = tmp_path / "all"
    ingest_flow([str(tmp_path / "docs")], settings(db_all, label_rows="all"))
    for row in Store(str(db_all), "default").rows(["source", "text", "fts_text"]):
        if row["source"].endswith("staff.md"):
            continue
        assert "20150101 | 강남구 | 0.00 | 0.010 | 40 | 10" in row["text"]
        assert "측정소명 강남구 · 이산화질소농도(ppm) 0.00" in row["fts_text"]
    # switched off, the indexes hold the text as it is (but for its spaced-out labels, as words)
    db_plain = tmp_path / "plain"
    ingest_flow([str(tmp_path / "docs")], settings(db_plain, label_rows="off"))
    for row in Store(str(db_plain), "default").rows(["source", "fts_text", "embed_text"]):
        if row["source"].endswith("staff.md"):
            assert "합계 | 8,491" in row["fts_text"] and "합 계" not in row["fts_text"]
            continue
        assert "측정소명 강남구" not in row["fts_text"] and "20150101 | 강남구 |" in row["fts_text"]
        assert "측정소명 강남구" not in row["embed_text"]


def test_spaced_out_labels_are_indexed_as_words_but_sentences_are_not():
    assert join_spaced("구 분 | 2024년 | 합 계\n사 업 명") == "구분 | 2024년 | 합계\n사업명"
    assert join_spaced("그 중 두 번째는 | 전 체") == "그 중 두 번째는 | 전체"
    assert join_spaced("이 법은 공포한 날부터 시행한다.") == "이 법은 공포한 날부터 시행한다."
    table = make_table([["구 분", "정 원", "현 원"], ["합 계", "8,491", "8,667"]])
    doc = table_doc(table)
    (chunk,) = split_document(doc, "whole", cl100k_counter(), Budget())
    assert chunk.text.endswith("구 분 | 정 원 | 현 원\n합 계 | 8,491 | 8,667")  # shown as the document has it
    assert chunk.index_text.endswith("구분 | 정원 | 현원\n구분 합계 · 정원 8,491 · 현원 8,667")


def test_inspect_shows_what_is_embedded(tmp_path, capsys, monkeypatch):
    from flows.app.cli import main

    monkeypatch.setenv("SEAMS_LABEL_ROWS", "embed")

    path = air_csv(tmp_path / "air.csv", days=2)
    assert main(["inspect", str(path), "--chunk", "0"]) == 0
    shown = capsys.readouterr().out
    assert "20150101 | 강남구 |" in shown and "측정소명 강남구" not in shown
    assert main(["inspect", str(path), "--chunk", "0", "--embedded"]) == 0
    assert "측정일시 2015년 1월 1일 · 측정소명 강남구 ·" in capsys.readouterr().out  # its date as Korean says it


def test_inspect_shows_the_passages_embedded_beside_a_chunk(tmp_path, capsys, monkeypatch):
    """``--embedded`` also shows the passages vector search ranks a chunk by: counted in the listing,
    in full for one chunk and in JSON — cut from a row group's rows, not from its repeated header."""
    from flows.app.cli import main

    monkeypatch.setenv("SEAMS_PASSAGE_TOKENS", "64")
    path = air_csv(tmp_path / "air.csv", days=40)
    assert main(["inspect", str(path), "--embedded"]) == 0
    listing = capsys.readouterr().out
    assert "passage(s) of 64 tokens, embedded beside it" in listing
    assert main(["inspect", str(path), "--chunk", "1", "--embedded"]) == 0
    one = capsys.readouterr().out
    assert "passage 0\n" in one and "passage 1\n" in one
    assert main(["inspect", str(path), "--chunk", "1", "--embedded", "--json"]) == 0
    (chunk,) = json.loads(capsys.readouterr().out)["chunks"]
    assert chunk["header"].startswith("측정일시 | 측정소명")  # the row group repeats the header row
    assert chunk["embedded"].startswith("측정일시 측정소명")  # and so does its whole embedded text
    assert len(chunk["passages"]) > 2
    assert not any("측정소명" in part for part in chunk["passages"])  # its passages are cut from its rows
    assert main(["inspect", str(path), "--chunk", "1", "--json"]) == 0
    assert "passages" not in json.loads(capsys.readouterr().out)["chunks"][0]
