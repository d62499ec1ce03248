"""The application: the ``seams`` command line, its terminal console, ``seams serve`` and the Prefect
servers it starts. It reads settings, calls the ingest flow, search and the evaluation, and prints."""
