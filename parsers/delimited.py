"""CSV/TSV: the delimiter is sniffed, the encoding detected, the header row found like a sheet's."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from parsers.detect import read_text
from parsers.errors import EmptyFile
from parsers.model import Document, Properties
from parsers.text import normalize_line
from parsers.xlsx import MAX_ROWS, table_block


def parse_csv(path: Path) -> Document:
    text = read_text(path)
    sample = text[:20_000]
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel_tab if path.suffix.lower() == ".tsv" else csv.excel
    numbered: list[tuple[int, tuple[str, ...]]] = []
    warnings: list[str] = []
    for number, row in enumerate(csv.reader(io.StringIO(text), dialect), start=1):
        if number > MAX_ROWS:
            warnings.append(f"rows after {MAX_ROWS:,} were not read")
            break
        cells = tuple(normalize_line(c) for c in row)
        if any(cells):
            numbered.append((number, cells))
    block = table_block(numbered, path.stem)
    if block is None:
        raise EmptyFile("the CSV file has no non-empty cells")
    return Document(str(path), "csv", (block,), Properties(sheets=(path.stem,)), tuple(warnings))
