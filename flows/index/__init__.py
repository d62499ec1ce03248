"""The index: a knowledge base's LanceDB tables (chunks, manifest, passages, the embedding cache),
their schema and upkeep (:mod:`~flows.index.store`), search in each mode (:mod:`~flows.index.search`),
and the columns other tools read (:mod:`~flows.index.interop`)."""
