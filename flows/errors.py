"""The errors seams reports on the command line, each as one line with its own exit code.

    SeamsError
    ├── UsageError            bad arguments, unknown names, a mismatched embedder: exit 2, nothing changed
    ├── KnowledgeBaseBusy     another ingest kept the knowledge base longer than one would wait: exit 5
    └── EmbedderError         an embedder refused a request (a 4xx answer, a wrong dimension): the
        │                     files being embedded fail (exit 1) and keep their old chunks
        └── EmbedderUnavailable   an embedding endpoint did not answer after its retries

:class:`UsageError` — bad arguments, missing paths, unknown names, a database or knowledge base
that does not exist — is raised where the problem is found and printed by ``flows.app.cli`` with exit
code 2. It subclasses :class:`ValueError`, so library callers that catch ``ValueError`` keep working.
:class:`EmbedderError` is raised by the embedders (``flows.embed``), third-party errors (httpx)
converted at that boundary; the ingest turns it into a per-file error, a search prints it as one line.
:class:`flows.app.server.ServerError` — Prefect's server did not start or answer — is printed as one
line too.
Anything else that escapes a command is an internal error (exit code 4): one line with the
exception, and the traceback only with ``SEAMS_DEBUG=1``.
"""

from __future__ import annotations


class SeamsError(Exception):
    """Root of seams' own errors."""


class UsageError(SeamsError, ValueError):
    """The command cannot run as asked: what was given is wrong or missing. Nothing was changed."""


class EmbedderError(SeamsError):
    """The embedder could not embed what it was given (the endpoint refused it, or answered wrongly)."""

    kind = "embedder_error"


class EmbedderUnavailable(EmbedderError):
    """An embedding endpoint stayed down (connection refused or dropped, timeouts, 429 or 5xx answers)
    through every retry."""

    kind = "embedder_unavailable"


class KnowledgeBaseBusy(SeamsError):
    """Another ingest held the knowledge base for longer than this one would wait (``SEAMS_LOCK_WAIT_S``,
    :mod:`flows.index.lock`). Nothing was changed."""
