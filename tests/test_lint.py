"""ruff runs as part of the test suite, so the README's one test command also lints."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def test_ruff_clean():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=REPO, capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
