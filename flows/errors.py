"""The errors seams reports on the command line, each as one line with its own exit code.

:class:`UsageError` — bad arguments, missing paths, unknown names, a database or knowledge base
that does not exist — is raised where the problem is found and printed by ``flows.cli`` with exit
code 2. It subclasses :class:`ValueError`, so library callers that catch ``ValueError`` keep working.
:class:`flows.server.ServerError` — Prefect's server did not start or answer — is printed as one
line too.
Anything else that escapes a command is an internal error (exit code 4): one line with the
exception, and the traceback only with ``SEAMS_DEBUG=1``.
"""

from __future__ import annotations


class SeamsError(Exception):
    """Root of seams' own errors."""


class UsageError(SeamsError, ValueError):
    """The command cannot run as asked: what was given is wrong or missing. Nothing was changed."""
