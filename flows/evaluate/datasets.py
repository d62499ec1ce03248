"""Evaluation data sets: documents, questions, and each question's evidence as spans of parsed text.

Two inputs, one model:

- **Chroma format** (:func:`load_chroma`): ``corpora/*.md`` + ``questions_df.csv`` whose
  ``references`` are exact character spans in the *raw* corpus files;
- **a folder + JSONL** (:func:`load_folder`): any files seams can parse, and lines of
  ``{"question": …, "file": …, "evidence": [strings]}`` (``"id"``, ``"kind"`` — where the answer
  sits: section, table, table_row, slide, … — and ``"language"`` optional; ``"evidence"`` may be
  one string). Reports break the scores down by format, and by kind and language when given.

seams chunks the *parsed* text of a file (``parsers.parse(path).text``: normalised whitespace,
Markdown markers dropped, tables rendered as ``a | b`` rows), so every gold excerpt is located in
that text by :class:`SpanLocator`: verbatim first, then whitespace-normalised, then "loose"
(letters and digits only, case-folded). Each step keeps an offset map back into the parsed text, so
an excerpt becomes ``(doc_id, start, end)`` in the same coordinates as the chunks. A Chroma
reference's raw offset is used only as a hint to pick the right occurrence when a passage repeats.
A question with any evidence that cannot be located is kept out of the scores and listed in
:attr:`Dataset.unlocated` — never dropped silently.
"""

from __future__ import annotations

import bisect
import csv
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from flows.errors import UsageError
from parsers import ParseError, parse
from parsers.model import Document

#: How an excerpt was found in the parsed text, strictest first.
METHODS = ("exact", "whitespace", "loose")
#: Characters the parsers drop; they are ignored on both sides when matching.
_DROPPED = frozenset("\u200b\ufeff\x00")


@dataclass(frozen=True)
class Excerpt:
    """A gold evidence span: ``documents[doc_id].text[start:end]``."""

    doc_id: str
    start: int
    end: int
    method: str = "exact"  # how it was located (one of METHODS)


@dataclass(frozen=True)
class Question:
    qid: str
    text: str
    excerpts: tuple[Excerpt, ...]
    group: str  # the break-down key: the corpus (Chroma) or the file format (folder)
    kind: str = ""  # what the answer sits in (section, table, table_row, slide, …), when the file says
    language: str = ""
    evidence: tuple[str, ...] = ()  # the evidence strings as given (peers are scored by containment)


@dataclass(frozen=True)
class Unlocated:
    """A question left out of the scores, and why."""

    qid: str
    text: str
    reason: str


@dataclass(frozen=True)
class Located:
    start: int
    end: int
    method: str  # one of METHODS
    occurrences: int  # how many places matched with that method (1 = unambiguous)


@dataclass(frozen=True)
class Dataset:
    name: str
    documents: Mapping[str, Document]  # doc_id -> parsed document (the whole collection)
    groups: Mapping[str, str]  # doc_id -> break-down key
    questions: tuple[Question, ...]
    unlocated: tuple[Unlocated, ...] = ()
    failed_documents: tuple[tuple[str, str], ...] = ()  # (doc_id, reason): files that did not parse
    group_by: str = "group"  # what Question.group names: "corpus" or "format"
    #: (doc_id, path) of every file of the collection, parsed or not: what a peer reads (flows.evaluate.peers)
    files: tuple[tuple[str, str], ...] = ()

    @property
    def excerpts(self) -> int:
        return sum(len(q.excerpts) for q in self.questions)

    @property
    def methods(self) -> dict[str, int]:
        """Excerpts of the scored questions per locating method."""
        return dict(Counter(e.method for q in self.questions for e in q.excerpts))

    def limited(self, count: int | None) -> Dataset:
        """The same collection with only the first ``count`` questions (a quick look)."""
        if count is None or count >= len(self.questions):
            return self
        questions = self.questions[:count]
        return Dataset(self.name, self.documents, self.groups, questions, self.unlocated,
                       self.failed_documents, self.group_by, self.files)


# -- locating evidence ----------------------------------------------------------------------------
def _normalised(text: str, loose: bool) -> tuple[str, list[int]]:
    """``text`` with whitespace runs collapsed to one space (or, loose: letters and digits only,
    lower-cased), and for every character kept, its index in ``text``."""
    out: list[str] = []
    where: list[int] = []
    in_space = False
    for index, char in enumerate(text):
        if char in _DROPPED:
            continue
        if loose:
            if char.isalnum():
                for folded in char.lower():
                    out.append(folded)
                    where.append(index)
            continue
        if char.isspace():
            if not in_space and out:
                out.append(" ")
                where.append(index)
            in_space = True
            continue
        in_space = False
        out.append(char)
        where.append(index)
    if out and out[-1] == " ":
        out.pop()
        where.pop()
    return "".join(out), where


def _occurrences(haystack: str, needle: str) -> list[int]:
    found = []
    position = haystack.find(needle)
    while position != -1:
        found.append(position)
        position = haystack.find(needle, position + 1)
    return found


@dataclass(frozen=True)
class SpanLocator:
    """Finds evidence strings in one document's text; the normalised forms are built once."""

    text: str

    @cached_property
    def _spaced(self) -> tuple[str, list[int]]:
        return _normalised(self.text, loose=False)

    @cached_property
    def _loose(self) -> tuple[str, list[int]]:
        return _normalised(self.text, loose=True)

    def alnum_before(self, offset: int) -> int:
        """How many letters and digits come before ``offset`` (an occurrence hint's currency)."""
        _, where = self._loose
        return bisect.bisect_left(where, offset)

    def loose_position(self, alnum_count: int) -> int:
        """Where the ``alnum_count``-th letter or digit of the text sits (for offset hints)."""
        _, where = self._loose
        if not where:
            return 0
        return where[min(max(alnum_count, 0), len(where) - 1)]

    def find(self, needle: str, hint: int | None = None) -> Located | None:
        """The span of ``needle`` in the text, or None. Among several occurrences the one nearest
        ``hint`` (a character offset in this text) wins, else the first."""
        if not needle.strip():
            return None
        starts = _occurrences(self.text, needle)
        if starts:
            start = _nearest(starts, hint)
            return Located(start, start + len(needle), "exact", len(starts))
        for method, (haystack, where) in (("whitespace", self._spaced), ("loose", self._loose)):
            pattern, _ = _normalised(needle, loose=method == "loose")
            if not pattern:
                continue
            positions = _occurrences(haystack, pattern)
            if positions:
                candidates = [where[p] for p in positions]
                start = _nearest(candidates, hint)
                first = positions[candidates.index(start)]
                return Located(start, where[first + len(pattern) - 1] + 1, method, len(positions))
        return None


def _nearest(starts: list[int], hint: int | None) -> int:
    if hint is None:
        return starts[0]
    return min(starts, key=lambda s: (abs(s - hint), s))




# -- Chroma format --------------------------------------------------------------------------------
def load_chroma(root: str | Path) -> Dataset:
    """Load a Chroma-format benchmark folder (``corpora/*.md`` + ``questions_df.csv``)."""
    root = Path(root)
    questions_csv = root / "questions_df.csv"
    corpora = root / "corpora"
    if not questions_csv.is_file() or not corpora.is_dir():
        raise UsageError(f"{root} is not a Chroma-format folder (needs corpora/ and questions_df.csv)")
    with open(questions_csv, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    corpus_ids = sorted({row["corpus_id"] for row in rows} | {p.stem for p in corpora.glob("*.md")})
    documents: dict[str, Document] = {}
    raws: dict[str, SpanLocator] = {}
    locators: dict[str, SpanLocator] = {}
    failed: list[tuple[str, str]] = []
    for corpus_id in corpus_ids:
        path = corpora / f"{corpus_id}.md"
        doc_id = path.name
        try:
            documents[doc_id] = parse(path)
        except ParseError as exc:
            failed.append((doc_id, f"{exc.kind}: {exc.message}"))
            continue
        raws[doc_id] = SpanLocator(path.read_text(encoding="utf-8"))
        locators[doc_id] = SpanLocator(documents[doc_id].text)
    questions: list[Question] = []
    unlocated: list[Unlocated] = []
    for number, row in enumerate(rows):
        qid = f"q{number:04d}"
        doc_id = f"{row['corpus_id']}.md"
        if doc_id not in documents:
            unlocated.append(Unlocated(qid, row["question"], f"corpus {doc_id} is missing or did not parse"))
            continue
        try:
            references = json.loads(row["references"])
        except json.JSONDecodeError as exc:
            raise UsageError(f"{questions_csv}: question {number + 1}: bad references JSON: {exc}") from exc
        excerpts, missing = [], []
        evidence = tuple(str(reference["content"]) for reference in references)
        for reference in references:
            # The raw offset, carried over as "so many letters and digits in", picks the occurrence.
            hint_count = raws[doc_id].alnum_before(int(reference["start_index"]))
            locator = locators[doc_id]
            found = locator.find(reference["content"], hint=locator.loose_position(hint_count))
            if found is None:
                missing.append(reference["content"])
                continue
            excerpts.append(Excerpt(doc_id, found.start, found.end, found.method))
        if missing or not excerpts:
            reason = "no references" if not missing else f"not found in the parsed text: {_short(missing[0])!r}"
            unlocated.append(Unlocated(qid, row["question"], reason))
            continue
        questions.append(Question(qid, row["question"], tuple(excerpts), row["corpus_id"], evidence=evidence))
    groups = {doc_id: Path(doc_id).stem for doc_id in documents}
    files = tuple((f"{corpus_id}.md", str(corpora / f"{corpus_id}.md")) for corpus_id in corpus_ids
                  if (corpora / f"{corpus_id}.md").is_file())
    return Dataset(root.name or "chroma", documents, groups, tuple(questions), tuple(unlocated),
                   tuple(failed), "corpus", files)


# -- a folder of files + a JSONL questions file -----------------------------------------------------
def read_questions(path: str | Path) -> list[dict]:
    """The JSONL questions file as dicts with ``id``, ``question``, ``file``, ``evidence`` (a list)."""
    items: list[dict] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise UsageError(f"{path}:{number}: not a JSON object: {exc}") from exc
            if not isinstance(item, dict):
                raise UsageError(f"{path}:{number}: not a JSON object")
            missing = [key for key in ("question", "file", "evidence") if not item.get(key)]
            if missing:
                raise UsageError(f"{path}:{number}: missing {', '.join(missing)}")
            evidence = item["evidence"]
            evidence = [evidence] if isinstance(evidence, str) else list(evidence)
            if not all(isinstance(e, str) for e in evidence):
                raise UsageError(f"{path}:{number}: evidence must be a string or a list of strings")
            items.append({"id": str(item.get("id") or f"line{number}"), "question": str(item["question"]),
                          "file": str(item["file"]), "evidence": evidence, "kind": str(item.get("kind") or ""),
                          "language": str(item.get("language") or "")})
    return items


def load_folder(root: str | Path, questions_path: str | Path) -> Dataset:
    """Parse every file under ``root`` (the collection) and locate each question's evidence."""
    from flows.ingest.pipeline import walk

    root_path = Path(root)
    if not root_path.is_dir():
        raise UsageError(f"no such folder: {root}")
    if not Path(questions_path).is_file():
        raise UsageError(f"no such questions file: {questions_path}")
    items = read_questions(questions_path)
    documents: dict[str, Document] = {}
    failed: list[tuple[str, str]] = []
    files: list[tuple[str, str]] = []
    for ref in walk(root_path):
        if Path(ref.path).resolve() == Path(questions_path).resolve():
            continue  # the questions file may live inside the folder; it is not a document
        files.append((ref.doc_id, ref.path))
        try:
            documents[ref.doc_id] = parse(ref.path)
        except ParseError as exc:
            failed.append((ref.doc_id, f"{exc.kind}: {exc.message}"))
    if not documents:
        why = f"; {len(failed)} failed to parse, e.g. {failed[0][0]} ({failed[0][1]})" if failed else \
            " (symbolic links are not followed, hidden files and .seamsignore'd ones are skipped)"
        raise UsageError(f"no document to evaluate in {root}{why}")
    failed_ids = dict(failed)
    locators = {doc_id: SpanLocator(doc.text) for doc_id, doc in documents.items()}
    questions: list[Question] = []
    unlocated: list[Unlocated] = []
    for item in items:
        doc_id = _doc_id(root_path, item["file"], documents)
        if doc_id is None:
            why = failed_ids.get(item["file"])
            reason = f"{item['file']} did not parse ({why})" if why else f"no file {item['file']} in {root}"
            unlocated.append(Unlocated(item["id"], item["question"], reason))
            continue
        excerpts, missing = [], []
        for evidence in item["evidence"]:
            found = locators[doc_id].find(evidence)
            if found is None:
                missing.append(evidence)
            else:
                excerpts.append(Excerpt(doc_id, found.start, found.end, found.method))
        if missing:
            unlocated.append(Unlocated(item["id"], item["question"],
                                       f"evidence not found in {doc_id}: {_short(missing[0])!r}"))
            continue
        questions.append(Question(item["id"], item["question"], tuple(excerpts), documents[doc_id].format,
                                  item["kind"], item["language"], tuple(item["evidence"])))
    groups = {doc_id: doc.format for doc_id, doc in documents.items()}
    return Dataset(root_path.resolve().name, documents, groups, tuple(questions), tuple(unlocated),
                   tuple(failed), "format", tuple(files))


def _doc_id(root: Path, name: str, documents: Iterable[str]) -> str | None:
    known = set(documents)
    if name in known:
        return name
    candidate = Path(name)
    for path in (candidate, root / candidate):
        try:
            relative = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
        if relative in known:
            return relative
    return None


def _short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"

