"""CSV/TSV, streamed: the encoding and delimiter are sniffed from the start, the header row found
like a sheet's (see :mod:`parsers.tables`).

Only the first :data:`parsers.xlsx.MAX_ROWS` records (or :data:`parsers.xlsx.MAX_CELLS` cells) are
read, so memory stays bounded whatever the file's size; the rest is reported as a warning.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

from parsers.detect import SNIFF_BYTES, sniff_encoding
from parsers.errors import CorruptFile, EmptyFile
from parsers.model import Document, Properties
from parsers.tables import SheetRows, normalize_cell
from parsers.xlsx import MAX_CELLS, MAX_ROWS, sheet_blocks

#: Longest field read: any (csv's own default, 128 KiB, raises on longer ones; the file's size is
#: bounded by the pipeline's per-file limit, and a long cell is cut into pieces like any long text).
MAX_FIELD = sys.maxsize


def parse_csv(path: Path) -> Document:
    rows = SheetRows()
    warnings: list[str] = []
    with path.open("rb") as raw:
        sample = raw.read(SNIFF_BYTES)
        encoding = sniff_encoding(sample, complete=len(sample) < SNIFF_BYTES)
        raw.seek(0)
        stream = io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline="")
        head = stream.read(20_000)
        try:
            dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(head, delimiters=",;\t|")
        except csv.Error:
            dialect = csv.excel_tab if path.suffix.lower() == ".tsv" else csv.excel
        stream.seek(0)
        csv.field_size_limit(MAX_FIELD)
        nuls = [0]

        def lines():  # csv refuses NUL bytes ("line contains NUL"); a few of them are stray bytes
            for line in stream:
                if "\x00" in line:
                    nuls[0] += line.count("\x00")
                    line = line.replace("\x00", "")
                yield line

        try:
            for number, row in enumerate(csv.reader(lines(), dialect), start=1):
                if len(rows) >= MAX_ROWS or rows.cells >= MAX_CELLS:
                    warnings.append(f"records after record {number - 1:,} were not read "
                                    f"(limit {MAX_ROWS:,} rows, {MAX_CELLS:,} cells)")
                    break
                values = [normalize_cell(c) for c in row]
                if any(values):
                    rows.add(number, values)
        except csv.Error as exc:
            raise CorruptFile(f"malformed CSV: {exc}") from exc
    if nuls[0]:
        warnings.append(f"{nuls[0]:,} NUL bytes were removed")
    blocks = sheet_blocks(rows, path.stem)
    if not blocks:
        raise EmptyFile("the CSV file has no non-empty cells")
    return Document(str(path), "csv", tuple(blocks), Properties(sheets=(path.stem,)), tuple(warnings))
