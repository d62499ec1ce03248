"""Markdown tables for the reports seams writes (evaluation reports, Prefect artifacts)."""

from __future__ import annotations

from collections.abc import Sequence


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], right: Sequence[bool] | None = None) -> str:
    """A Markdown table; ``right`` aligns columns right (default: all but the first). A ``|`` inside a
    cell is escaped."""
    right = right or [i > 0 for i in range(len(headers))]
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if r else "---" for r in right) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)
