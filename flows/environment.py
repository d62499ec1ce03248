"""Process-wide defaults applied before prefect or unstructured is imported.

They make a run offline and quiet: no telemetry pings (Prefect's server analytics, unstructured's
Scarf ping), Prefect's own logs at WARNING so the terminal shows seams' one line per file instead
of a line per task state, and the temporary server's shutdown chatter silenced. Users can override
each of them by setting the variable themselves.
"""

from __future__ import annotations

import os

DEFAULTS = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_LOGGING_LEVEL": "WARNING",
    "PREFECT_SERVER_LOGGING_LEVEL": "CRITICAL",
    "PREFECT_LOGGING_LOG_PRINTS": "false",
    "PREFECT_CLI_PROMPT": "false",
    # The temporary server needs ~5 s on an idle 2-core machine, more under load; Prefect's 20 s
    # default then fails the run before any work starts.
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180",
    "DO_NOT_TRACK": "1",
    "SCARF_NO_ANALYTICS": "true",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def apply_defaults() -> None:
    for key, value in DEFAULTS.items():
        os.environ.setdefault(key, value)
