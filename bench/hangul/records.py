"""The records of a HWP 5 file's body, read with olefile and zlib only — no code shared with
seams' parser, so the benches can use it as an independent reference.

Each ``BodyText/SectionN`` stream (raw-deflate compressed when bit 0 of the ``FileHeader``
properties is set) is a run of records: a 32-bit header (tag 10 bits, level 10 bits, size 12 bits;
size ``0xFFF``: a 32-bit size follows), then the data.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

PARA_TEXT = 67
CTRL_HEADER = 71


def hwp_body_records(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """(tag, level, data) of every record of every body section, in stream order."""
    import olefile

    with olefile.OleFileIO(str(path)) as ole:
        compressed = struct.unpack_from("<I", ole.openstream("FileHeader").read(40), 36)[0] & 1
        for entry in ole.listdir():
            if entry[0] != "BodyText":
                continue
            data = ole.openstream(entry).read()
            data = zlib.decompress(data, -15) if compressed else data
            pos = 0
            while pos < len(data):
                header = struct.unpack_from("<I", data, pos)[0]
                size, pos = header >> 20, pos + 4
                if size == 0xFFF:
                    size, pos = struct.unpack_from("<I", data, pos)[0], pos + 4
                yield header & 0x3FF, (header >> 10) & 0x3FF, data[pos:pos + size]
                pos += size
