"""The PyPI readers of HWP/HWPX against seams' own, on the real files of bench/hangul/manifest.json.

None of these packages is a dependency of seams: install the ones to compare in a throwaway
environment of the same Python version and point ``--site`` at its site-packages; they are looked
up after seams' own environment (whatever is not installed is skipped)::

    python3 -m venv /tmp/hwpcand
    /tmp/hwpcand/bin/pip install python-hwpx hwp-hwpx-parser gethwp extract-hwp hwpkit dochan \\
        libhwp hwplib-py pyhwp
    python bench/hangul/check.py       # writes the files
    python bench/hangul/compare.py --site /tmp/hwpcand/lib/python3.11/site-packages

For each reader and format, over the readable (not encrypted) files: how many of the reference
pieces of :mod:`check` (``PrvText`` for HWP, every paragraph's ``hp:t`` text for HWPX) are missing
from its text, how many are out of order, tables found against the tables the files hold (``hp:tbl``
elements / ``tbl `` controls outside other tables; only for readers that return tables), files that
failed, and seconds for all the files (one warm run, in this process). The HWP files that have an
HWPX twin (same document saved twice) are also checked against the twin's paragraphs, a reference
that covers the whole body rather than the preview's first thousand characters.

Left out: helper-hwp (0.5.6), whose import asks for the Playwright browser and tries to download
it, and fails without the network.
"""

from __future__ import annotations

import argparse
import bisect
import io
import json
import re
import signal
import sys
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from check import LABEL, hwp_reference, hwpx_reference, squeeze  # noqa: E402
from records import CTRL_HEADER, hwp_body_records  # noqa: E402

#: What a reader gives for one file: its text, and its tables (None when it has no table API).
Result = tuple[str, int | None]


@dataclass(frozen=True)
class Candidate:
    name: str
    licence: str
    native: bool  # compiled code in the wheel
    formats: tuple[str, ...]
    read: Callable[[Path], Result]


def _seams(path: Path) -> Result:
    from parsers import parse

    doc = parse(path)
    return "\n".join([doc.text, *(b.text for b in doc.furniture)]), doc.table_count


def _python_hwpx(path: Path) -> Result:
    from hwpx import HwpxDocument
    from hwpx.tools.exporter import export_text

    document = HwpxDocument.open(str(path))
    return export_text(document, notes=True), None


def _hwp_hwpx_parser(path: Path) -> Result:
    from hwp_hwpx_parser import Reader

    with Reader(str(path)) as reader:
        return reader.text, len(reader.tables)


def _gethwp(path: Path) -> Result:
    import gethwp

    return (gethwp.read_hwpx(str(path)) if path.suffix == ".hwpx" else gethwp.read_hwp(str(path))), None


def _extract_hwp(path: Path) -> Result:
    from extract_hwp import extract_text_from_hwp

    text, error = extract_text_from_hwp(str(path))
    if error:
        raise RuntimeError(error)
    return text, None


def _hwpkit(path: Path) -> Result:
    from hwpkit import extract_text_from_file

    return extract_text_from_file(str(path)), None


def _dochan(path: Path) -> Result:
    from dochan import Dochan

    reader = Dochan(str(path))
    return reader.to_plain_text(), len(reader.find_all("table"))


def _libhwp(path: Path) -> Result:
    from libhwp import HWPReader

    reader = HWPReader(str(path))
    return "\n".join(str(p) for p in reader.find_all("paragraph")), len(reader.find_all("table"))


def _hwplib_py(path: Path) -> Result:
    from hwplib.hwp5.api import load

    return load(str(path)).get_text(), None


def _pyhwp(path: Path) -> Result:
    from contextlib import closing

    from hwp5.hwp5txt import TextTransform
    from hwp5.xmlmodel import Hwp5File

    out = io.BytesIO()
    with closing(Hwp5File(str(path))) as document:
        TextTransform().transform_hwp5_to_text(document, out)
    return out.getvalue().decode("utf-8"), None


CANDIDATES = (
    Candidate("seams (olefile+zlib / lxml)", "MIT (this project)", False, ("hwp", "hwpx"), _seams),
    Candidate("python-hwpx 6.9", "Apache-2.0", False, ("hwpx",), _python_hwpx),
    Candidate("hwp-hwpx-parser 1.0", "Apache-2.0", False, ("hwp", "hwpx"), _hwp_hwpx_parser),
    Candidate("gethwp 1.1", "MIT", False, ("hwp", "hwpx"), _gethwp),
    Candidate("extract-hwp 0.2", "BSD-3-Clause", False, ("hwp", "hwpx"), _extract_hwp),
    Candidate("hwpkit 1.0", "MIT", False, ("hwp", "hwpx"), _hwpkit),
    Candidate("dochan 1.15", "MIT", False, ("hwp", "hwpx"), _dochan),
    Candidate("libhwp 0.2 (Rust)", "Apache-2.0", True, ("hwp",), _libhwp),
    Candidate("hwplib-py 1.0", "Apache-2.0", False, ("hwp",), _hwplib_py),
    Candidate("pyhwp 0.1b15 (hwp5txt)", "AGPL-3.0+", False, ("hwp",), _pyhwp),
)


# ------------------------------------------------------------------------------------ references


def table_count(path: Path) -> int:
    """Tables the file holds outside other tables, read without seams' parser. (A table inside a
    cell is part of that cell's text in seams, and a table of its own in some readers.)"""
    if path.suffix == ".hwpx":
        from lxml import etree

        count = 0
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                if re.search(r"Contents/section\d+\.xml$", name):
                    root = etree.fromstring(archive.read(name), etree.XMLParser(resolve_entities=False))
                    count += sum(not any(etree.QName(up).localname == "tc" for up in table.iterancestors())
                                 for table in root.iter("{*}tbl"))
        return count
    count = 0
    for tag, level, data in hwp_body_records(path):
        # the CTRL_HEADER of a table anchored in a body paragraph (level 1; deeper: in a cell)
        count += tag == CTRL_HEADER and level == 1 and data[:4] == b" lbt"
    return count


def score(text: str, reference: list[str]) -> tuple[int, int]:
    """(pieces missing from ``text``, pieces found out of order). Each piece is looked for after the
    previous one (else anywhere); the out-of-order ones are those off the longest increasing run of
    positions, so one block moved elsewhere (notes gathered at the end) counts once, not for all
    that follows it."""
    haystack = squeeze(text)
    missing = 0
    cursor = 0
    positions: list[int] = []
    for piece in reference:
        needle = squeeze(piece)
        at = haystack.find(needle, cursor)
        if at < 0:
            at = haystack.find(needle)
        if at < 0 and needle:  # labels a reader drew between the piece's characters (joined cell paragraphs)
            loose = re.compile(f"(?:{LABEL})?".join(map(re.escape, needle)))
            match = loose.search(haystack, cursor) or loose.search(haystack)
            at = match.start() if match else -1
        if at < 0:
            missing += 1
            continue
        positions.append(at)
        cursor = at + len(needle)
    tails: list[int] = []  # longest non-decreasing subsequence, patience style
    for at in positions:
        index = bisect.bisect_right(tails, at)
        tails[index:index + 1] = [at]
    return missing, len(positions) - len(tails)


class _Timeout(BaseException):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Timeout


def run(candidate: Candidate, files: list[Path], references: dict[Path, list[str]], tables: dict[Path, int],
        limit: int) -> dict[str, object]:
    row: dict[str, object] = {"missing": 0, "order": 0, "tables": 0, "failed": [], "seconds": 0.0}
    with_tables = True
    signal.signal(signal.SIGALRM, _alarm)
    for path in files:
        started = time.perf_counter()
        signal.alarm(limit)
        try:
            text, found = candidate.read(path)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # a failing reader is a result here; Rust panics are BaseException
            row["failed"].append(f"{path.name}: {type(exc).__name__}: {str(exc)[:80]}")
            row["missing"] += len(references[path])
            continue
        finally:
            signal.alarm(0)
            row["seconds"] += time.perf_counter() - started
        missing, order = score(text, references[path])
        row["missing"] += missing
        row["order"] += order
        if found is None:
            with_tables = False
        else:
            row["tables"] += min(found, tables[path])
    if not with_tables:
        row["tables"] = None
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=Path, default=ROOT / ".seams" / "hangul" / "files")
    parser.add_argument("--timeout", type=int, default=60, help="seconds one reader may take on one file")
    parser.add_argument("--show", action="store_true", help="print each reader's failures")
    parser.add_argument("--site", type=Path, action="append", default=[],
                        help="a site-packages folder holding the candidates (searched last)")
    args = parser.parse_args(argv)
    sys.path.extend(str(site) for site in args.site)
    manifest = json.loads((HERE / "manifest.json").read_text(encoding="utf-8"))
    readable = [args.files / raw["name"] for raw in manifest if raw["kind"] != "encrypted"]
    readable = [path for path in readable if path.is_file()]
    if not readable:
        print(f"no files in {args.files}: run bench/hangul/check.py first (it writes them)")
        return 1
    references = {p: hwp_reference(p) if p.suffix == ".hwp" else hwpx_reference(p) for p in readable}
    tables = {p: table_count(p) for p in readable}
    twins = [(p, p.with_suffix(".hwpx")) for p in readable if p.suffix == ".hwp" and p.with_suffix(".hwpx").is_file()]
    groups = [(f"{fmt} ({sum(p.suffix == '.' + fmt for p in readable)} files)", fmt,
               [p for p in readable if p.suffix == "." + fmt], references) for fmt in ("hwp", "hwpx")]
    if twins:
        groups.append((f"hwp vs its hwpx twin ({len(twins)} files)", "hwp", [hwp for hwp, _ in twins],
                       {hwp: hwpx_reference(twin) for hwp, twin in twins}))
    columns = f"{'reader':30} {'licence':18} {'missing':>12} {'order':>6} {'tables':>9} {'failed':>6} {'seconds':>8}"
    for title, fmt, files, refs in groups:
        pieces = sum(len(refs[p]) for p in files)
        print(f"\n{title}: {pieces} reference pieces, {sum(tables[p] for p in files)} tables")
        print(columns)
        print("-" * len(columns))
        for candidate in CANDIDATES:
            if fmt not in candidate.formats:
                continue
            row = run(candidate, files[:1], refs, tables, args.timeout)  # warm-up: imports, caches
            if "ModuleNotFoundError" in str(row["failed"]):
                print(f"{candidate.name:30} not importable ({row['failed'][0].split(': ', 1)[1]})")
                continue
            row = run(candidate, files, refs, tables, args.timeout)
            share = f"{row['missing']} ({100 * row['missing'] / max(pieces, 1):.0f}%)"
            found = "—" if row["tables"] is None else f"{row['tables']}/{sum(tables[p] for p in files)}"
            licence = candidate.licence + (" *" if candidate.native else "")
            print(f"{candidate.name:30} {licence:18} {share:>12} {row['order']:>6} {found:>9} "
                  f"{len(row['failed']):>6} {row['seconds']:8.2f}")
            if args.show and row["failed"]:
                print("    failed: " + "; ".join(row["failed"]))
    print("\nmissing: reference pieces not in the reader's text (a failed file counts all its pieces);"
          " order: found, but out of the reference's order; tables: found/held (— no table API); * compiled code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
