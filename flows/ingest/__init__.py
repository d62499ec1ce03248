"""The ingest flow and the path of one file through it.

:mod:`~flows.ingest.flow` is the Prefect flow: plan what changed (:mod:`~flows.ingest.sync`), cut
the files in a pool of processes (:mod:`~flows.ingest.workers`, each file through
:mod:`~flows.ingest.pipeline`: parse → classify → split → fit to budget), embed the chunks
(:mod:`flows.embed`), make their rows (:mod:`~flows.ingest.rows`) and write them
(:mod:`flows.index`), then keep the indexes up.
"""
