"""Completeness check of the HWP/HWPX parsers on real public files (bench/hangul/manifest.json).

The files are not committed (their licences vary); they are written out of fetched repository
snapshots by ``bench/devset/materialise.py`` (this script calls it). Each file is parsed with
``parsers.parse`` and its text compared with a reference extraction that shares no code with it:

- HWP: the file's own preview text, the ``PrvText`` stream (UTF-16LE, written by Hangul; it holds
  about the first thousand characters, table cells in ``<…>``), split into lines and cells;
- HWPX: every ``hp:p``'s own ``hp:t`` text, read with a plain XML walk (and ``Preview/PrvText.txt``).

A reference piece is *lost* when its characters (whitespace removed) are not in the parsed text,
furniture and notes included; numbering labels seams added between them do not count against it. A file listed as ``encrypted`` must raise that error kind. The table
printed has one row per file: paragraphs (reference pieces), lost pieces, tables, headings,
paragraphs per second.

Usage::

    python bench/hangul/check.py            # materialise into .seams/hangul/files, then check
    python bench/hangul/check.py --show 5   # also print up to 5 lost pieces per file
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "devset"))

from materialise import DEFAULT_MIRROR, load_manifest, materialise  # noqa: E402

from parsers import ParseError, parse  # noqa: E402

_SPACE = re.compile(r"[\s\x00-\x1f\u200b\ufeff]+")


#: A numbering or bullet label (``1.``, ``가.``, ``(1)``, ``①``, ``-``, ``•``): seams renders the labels
#: Hangul draws, which the references do not hold.
LABEL = r"(?:[-•○◦▪·①-⑳㉠-㉻]|\(?[0-9]{1,3}[.)]|\(?[가-힣ㄱ-ㅎ][.)]|\([0-9가-힣ㄱ-ㅎ]\))"


def squeeze(text: str) -> str:
    return _SPACE.sub("", text)


def contains(haystack: str, piece: str) -> bool:
    """Whether the squeezed ``piece`` is in the squeezed ``haystack``, allowing labels between its
    characters (where a table cell's paragraphs were joined, say)."""
    needle = squeeze(piece)
    if needle in haystack:
        return True
    return re.search(f"(?:{LABEL})?".join(map(re.escape, needle)), haystack) is not None


def hwp_reference(path: Path) -> list[str]:
    import olefile

    with olefile.OleFileIO(str(path)) as ole:
        if not ole.exists("PrvText"):
            return []
        text = ole.openstream("PrvText").read().decode("utf-16-le", "replace")
    pieces = [p for p in re.split(r"\r\n|\n|<|>", text) if squeeze(p)]
    return pieces[:-1]  # the preview is cut off at a fixed length: its last piece may be partial


def hwpx_reference(path: Path) -> list[str]:
    from lxml import etree

    pieces: list[str] = []
    with zipfile.ZipFile(path) as archive:
        for name in sorted(n for n in archive.namelist() if re.search(r"Contents/section\d+\.xml$", n)):
            root = etree.fromstring(archive.read(name), etree.XMLParser(resolve_entities=False, no_network=True))
            for p in root.iter("{*}p"):
                own = [t for run in p.iterchildren("{*}run") for t in run.iterchildren("{*}t")]
                text = "".join("".join(t.itertext()) for t in own)
                if squeeze(text):
                    pieces.append(text)
    return pieces


def check(path: Path, expected_kind: str, show: int) -> dict[str, object]:
    row: dict[str, object] = {"file": path.name}
    start = time.perf_counter()
    try:
        doc = parse(path)
    except ParseError as exc:
        row.update(result=exc.kind, ok=exc.kind == expected_kind, note=exc.message[:60])
        return row
    seconds = time.perf_counter() - start
    if expected_kind != "ok":
        row.update(result="ok", ok=False, note=f"expected {expected_kind}")
        return row
    reference = hwp_reference(path) if path.suffix.lower() == ".hwp" else hwpx_reference(path)
    haystack = squeeze("\n".join([doc.text, *(b.text for b in doc.furniture)]))
    lost = [piece for piece in reference if not contains(haystack, piece)]
    row.update(result="ok", ok=not lost, pieces=len(reference), lost=len(lost), blocks=len(doc.blocks),
               tables=doc.table_count, headings=sum(b.kind == "heading" for b in doc.blocks),
               per_second=round(len(doc.blocks) / seconds) if seconds else 0,
               note="; ".join([*doc.warnings, *(p.strip()[:40] for p in lost[:show])]))
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / ".seams" / "hangul" / "files")
    parser.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    parser.add_argument("--show", type=int, default=2, help="lost pieces to print per file")
    args = parser.parse_args(argv)
    manifest = HERE / "manifest.json"
    entries = load_manifest(manifest)
    materialise(entries, args.out, args.mirror)
    kinds = {raw["name"]: raw["kind"] for raw in json.loads(manifest.read_text(encoding="utf-8"))}
    rows = []
    for entry in entries:
        path = args.out / entry.name
        if path.is_file():
            rows.append(check(path, "encrypted" if kinds[entry.name] == "encrypted" else "ok", args.show))
    columns = ("file", "result", "pieces", "lost", "blocks", "tables", "headings", "per_second", "note")
    print(" | ".join(columns))
    for row in rows:
        print(" | ".join(str(row.get(c, "")) for c in columns))
    failed = [r["file"] for r in rows if not r["ok"]]
    print(f"{len(rows) - len(failed)}/{len(rows)} files as expected" + (f"; not: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
