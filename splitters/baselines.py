"""Fixed-size baselines for the evaluation, as in Chroma's study (they skip the budget step).

- ``tokens:SIZE/OVERLAP``: windows of SIZE cl100k tokens, each starting SIZE-OVERLAP tokens after
  the previous one (Chroma's FixedTokenChunker);
- ``recursive:SIZE/OVERLAP``: recursive splitting on paragraph, line, sentence-ending punctuation,
  space and finally characters, packed up to SIZE tokens (Chroma's RecursiveTokenChunker with
  separators ``["\\n\\n", "\\n", ".", "?", "!", " ", ""]``);
- ``none``: the whole document as one chunk, a reference point.

Windows are cut on character boundaries: a token that ends inside a multi-byte character is
moved to the next window, so every chunk maps back to character offsets.
"""

from __future__ import annotations

import itertools
import re

from parsers.model import Document
from splitters.chunk import Budget, Chunk, TokenCounter, cl100k
from splitters.pieces import make_chunk


def token_windows(doc: Document, count: TokenCounter, budget: Budget, size: int = 250, overlap: int = 0) -> list[Chunk]:
    if not 0 <= overlap < size:
        raise ValueError(f"token windows need 0 <= overlap < size, got {size}/{overlap}")
    encoding = cl100k()
    text = doc.text
    tokens = encoding.encode(text, disallowed_special=())
    # Character offset at which each token starts (the byte->char map handles multi-byte text).
    byte_to_char = _byte_to_char(text)
    offsets = [0]
    position = 0
    for token in tokens:
        position += len(encoding.decode_single_token_bytes(token))
        offsets.append(position)
    char_at = [byte_to_char(b) for b in offsets]
    chunks = []
    step = size - overlap
    for first in range(0, len(tokens), step):
        last = min(first + size, len(tokens))
        start, end = char_at[first], char_at[last]
        if end > start:
            chunks.append(make_chunk(doc, start, end, count))
        if last == len(tokens):
            break
    return chunks


def _byte_to_char(text: str):
    boundaries = []
    position = 0
    for char in text:
        boundaries.append(position)
        position += len(char.encode("utf-8"))
    boundaries.append(position)
    import bisect

    def convert(byte_offset: int) -> int:
        # The character that contains this byte; a mid-character offset rounds down.
        return bisect.bisect_right(boundaries, byte_offset) - 1

    return convert


_SEPARATORS = ("\n\n", "\n", ".", "?", "!", " ", "")


def recursive_windows(doc: Document, count: TokenCounter, budget: Budget, size: int = 200, overlap: int = 0) -> list[Chunk]:
    text = doc.text
    spans = _recursive(text, 0, len(text), count, size, list(_SEPARATORS))
    chunks = []
    for start, end in spans:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            chunks.append(make_chunk(doc, start, end, count))
    if overlap:
        chunks = _with_overlap(doc, chunks, count, overlap)
    return chunks


def _recursive(text: str, start: int, end: int, count: TokenCounter, size: int, separators: list[str]) -> list[tuple[int, int]]:
    separator = separators[-1]
    rest: list[str] = []
    for index, candidate in enumerate(separators):
        if candidate == "" or candidate in text[start:end]:
            separator, rest = candidate, separators[index + 1:]
            break
    if separator:
        # Keep the separator at the start of the following piece, as LangChain's keep_separator does.
        cuts = [m.start() for m in re.finditer(re.escape(separator), text[start:end])]
        pieces = []
        previous = start
        for cut in cuts:
            if start + cut > previous:
                pieces.append((previous, start + cut))
            previous = start + cut
        pieces.append((previous, end))
    else:
        pieces = [(i, i + 1) for i in range(start, end)]
    result: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for s, e in pieces:
        if count(text[s:e]) > size:
            if current is not None:
                result.append(current)
                current = None
            if rest:
                result.extend(_recursive(text, s, e, count, size, rest))
            else:
                result.append((s, e))
            continue
        if current is None:
            current = (s, e)
        elif count(text[current[0]:e]) <= size:
            current = (current[0], e)
        else:
            result.append(current)
            current = (s, e)
    if current is not None:
        result.append(current)
    return result


def _with_overlap(doc: Document, chunks: list[Chunk], count: TokenCounter, overlap: int) -> list[Chunk]:
    """Extend each chunk backwards by up to ``overlap`` tokens of the previous chunk's tail."""
    out = [chunks[0]] if chunks else []
    for previous, chunk in itertools.pairwise(chunks):
        start = chunk.start
        while start > previous.start and count(doc.text[start - 1:chunk.start]) <= overlap:
            start -= 1
            if chunk.start - start > overlap * 8:
                break
        out.append(make_chunk(doc, start, chunk.end, count))
    return out


def no_chunking(doc: Document, count: TokenCounter, budget: Budget) -> list[Chunk]:
    return [make_chunk(doc, 0, len(doc.text), count)]
