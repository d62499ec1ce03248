"""Flows: the only place that imports prefect or lancedb — store, ingest, search, CLI."""
