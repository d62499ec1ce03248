"""The chunking configurations an evaluation compares, by name.

- ``seams``: the document-aware default — the classifier picks each file's strategy, default budget;
- any strategy name (``section``, ``page``, …): forced for every file, with the default budget;
- the baselines ``tokens:SIZE/OVERLAP``, ``recursive:SIZE/OVERLAP`` and ``none`` (whole documents);
- the embedding-driven cuts of the studies: ``semantic:MAX`` (Kamradt), ``cluster:MAX`` (Chroma's
  ClusterSemanticChunker) and ``adaptive`` (the best of several cuts per document by intrinsic
  measures), cut with the evaluation's embedder;
- peers, ``peer:NAME`` (``peer:langchain``, ``peer:llamaindex``, ``peer:unstructured``,
  ``peer:chonkie``): another tool's own parsing and chunking of the files (:mod:`flows.evaluate.peers`),
  embedded, stored and searched as seams' chunks are, scored by evidence containment;
- variants of the default named by their settings (``--variant max=400``,
  ``--variant heading=on``, ``--variant strategy=section,max=600``); keys: ``max``, ``min``,
  ``ceiling``, ``pack``, ``heading`` (embed the heading path before the text), ``cells``
  (``plain``: embed table cells separated by spaces, as ingest does; ``piped``: as the text shows
  them), ``rows`` (``embedded``: table rows with their columns' labels in the text embedded, as
  ingest does; ``labelled``: in the full-text index too; ``plain``: as the text shows them), ``strategy`` (forced for every file), ``only`` (the variant's budget for the files the
  classifier gives that strategy, the default budget for the rest: ``--variant only=sheet,pack=250``).

Each configuration becomes its own knowledge base (a pair of LanceDB tables) in the evaluation
database; :attr:`Configuration.kb` is that name.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from flows.errors import UsageError
from flows.evaluate.peers import PEERS, PREFIX, peer_name
from splitters import Budget, get_strategy

DEFAULT = "seams"
#: What ``seams evaluate`` compares when no ``--configs`` are given.
DEFAULT_CONFIGS = (DEFAULT, "tokens:200/0", "tokens:250/125", "tokens:400/0", "tokens:800/400",
                   "recursive:200/0", "recursive:400/0", "none")
VARIANT_KEYS = ("max", "min", "ceiling", "pack", "heading", "cells", "rows", "strategy", "only")
#: ``--variant rows=…``: where table rows are written with their columns' labels (Settings.label_rows)
ROWS = {"labelled": "all", "embedded": "embed", "plain": "off"}
_ON = {"on": True, "true": True, "yes": True, "1": True, "off": False, "false": False, "no": False, "0": False}


@dataclass(frozen=True)
class Configuration:
    name: str  # as the report shows it
    strategy: str | None = None  # None: the classifier decides per file
    budget: Budget = field(default_factory=Budget)
    heading_path: bool = False  # embed "heading path + text" instead of the text
    plain_cells: bool = True  # embed table cells separated by spaces instead of " | " (as ingest does)
    label_rows: str = "off"  # table rows with their columns' labels in what is indexed: all, embed or off (Settings)
    only: str | None = None  # the budget is for files the classifier cuts with this strategy; the rest: default
    peer: str | None = None  # another tool parses and chunks the files (flows.evaluate.peers)
    #: Strategies with sizes of their own (``seams evaluate --budget``, as ``seams ingest --budget``)
    budgets: tuple[tuple[str, Budget], ...] = ()

    @property
    def baseline(self) -> bool:
        """A fixed-size baseline, ``none`` or a peer: seams' budget step does not run."""
        if self.peer is not None:
            return True
        return self.strategy is not None and not get_strategy(self.strategy).document_aware

    @property
    def reference(self) -> bool:
        """``none`` (whole documents) is a reference point, not a contender for a query's best."""
        return self.strategy == "none"

    @property
    def size_limit(self) -> int | None:
        """The most tokens a chunk should have: the merge ceiling, a baseline's SIZE, or None."""
        if self.strategy == "none" or self.peer is not None:
            return None
        match = re.match(r"^(?:tokens|recursive|semantic|cluster):(\d+)", self.strategy or "")
        return int(match.group(1)) if match else self.budget.merge_ceiling

    def kb(self, embedder: str, dataset: str = "") -> str:
        """The knowledge-base name of this configuration's table on a data set (letters, digits,
        '-', '_'): data sets evaluated into one database keep their tables apart."""
        slug = re.sub(r"[^A-Za-z0-9]+", "-", self.name).strip("-").lower()
        prefix = f"eval_{_slug(dataset)}_" if _slug(dataset) else "eval_"
        return f"{prefix}{slug}_{embedder_slug(embedder)}"


def embedder_slug(embedder: str) -> str:
    """An embedder specification as a short name (letters, digits, '-'): itself up to 24 characters,
    else its start and a hash (options and endpoints make long specifications)."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", embedder)
    if len(slug) <= 24:
        return slug
    return f"{slug[:15].strip('-')}-{hashlib.sha1(embedder.encode()).hexdigest()[:8]}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def configuration(name: str) -> Configuration:
    """``seams``, a strategy, a baseline or a peer by name; raises UsageError listing what is known."""
    name = name.strip()
    if name == DEFAULT:
        return Configuration(DEFAULT)
    if name.startswith(PREFIX):
        return Configuration(f"{PREFIX}{peer_name(name)}", peer=peer_name(name))
    try:
        strategy = get_strategy(name).name
    except ValueError as exc:
        raise UsageError(f"unknown configuration {name!r}: use {DEFAULT!r}, a strategy ({exc}) "
                         f"or a peer ({', '.join(PREFIX + p for p in PEERS)})") from None
    return Configuration(strategy, strategy=strategy)


def variant(spec: str) -> Configuration:
    """A variant of the default from ``key=value[,key=value…]``, named ``seams <spec>``."""
    values: dict[str, str] = {}
    for part in spec.split(","):
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not value:
            raise UsageError(f"--variant wants KEY=VALUE[,KEY=VALUE…], got {spec!r}")
        if key not in VARIANT_KEYS:
            raise UsageError(f"unknown variant key {key!r}; known: {', '.join(VARIANT_KEYS)}")
        values[key] = value
    try:
        numbers = {k: int(values[k]) for k in ("max", "min", "ceiling", "pack") if k in values}
    except ValueError:
        raise UsageError(f"--variant {spec!r}: max, min, ceiling and pack are token counts") from None
    maximum = numbers.get("max", Budget().max_tokens)
    minimum = numbers.get("min", min(Budget().min_tokens, maximum // 4))
    ceiling = numbers.get("ceiling", Budget.ceiling_for(maximum))
    heading = values.get("heading", "off").lower()
    if heading not in _ON:
        raise UsageError(f"--variant heading=on|off, got {values['heading']!r}")
    cells = values.get("cells", "plain").lower()
    if cells not in ("plain", "piped"):
        raise UsageError(f"--variant cells=plain|piped, got {values['cells']!r}")
    rows = values.get("rows", "embedded").lower()
    if rows not in ROWS:
        raise UsageError(f"--variant rows={'|'.join(ROWS)}, got {values['rows']!r}")
    strategy = values.get("strategy")
    if strategy is not None:
        get_strategy(strategy)
    only = values.get("only")
    if only is not None:
        if strategy is not None:
            raise UsageError(f"--variant {spec!r}: strategy forces one strategy for every file, only= picks files "
                             "by the classifier's strategy; give one of them")
        only = get_strategy(only).name
    name = f"{DEFAULT} " + ",".join(f"{k}={values[k]}" for k in VARIANT_KEYS if k in values)
    budget = Budget(minimum, maximum, ceiling, numbers.get("pack", Budget().pack))
    return Configuration(name, strategy=strategy, budget=budget, heading_path=_ON[heading],
                         plain_cells=cells == "plain", label_rows=ROWS[rows], only=only)


def with_budgets(budgets: dict[str, str], base: Budget | None = None) -> Configuration:
    """The default with sizes per strategy (``{"sheet": "pack=250"}``), named ``seams budgets=…``."""
    base = base or Budget()
    try:
        sized = tuple((strategy, base.adjusted(spec)) for strategy, spec in sorted(budgets.items()))
    except ValueError as exc:
        raise UsageError(f"--budget: {exc}") from None
    name = f"{DEFAULT} budgets=" + " ".join(f"{strategy}:{spec}" for strategy, spec in sorted(budgets.items()))
    return Configuration(name, budget=base, budgets=sized)


def configurations(names: list[str] | None = None, variants: list[str] | None = None,
                   budgets: dict[str, str] | None = None) -> list[Configuration]:
    """The configurations to compare, in order, without duplicates; ``budgets``: also the default
    with those sizes per strategy (:func:`with_budgets`)."""
    chosen = [configuration(n) for n in (names or DEFAULT_CONFIGS)] + [variant(v) for v in variants or ()]
    if budgets:
        chosen.append(with_budgets(budgets))
    unique: dict[str, Configuration] = {}
    for config in chosen:
        unique.setdefault(config.name, config)
    return list(unique.values())
