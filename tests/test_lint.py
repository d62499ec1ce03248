"""ruff runs as part of the test suite, so the README's one test command also lints."""

from __future__ import annotations

import shutil
import subprocess

from conftest import REPO


def test_ruff_clean():
    ruff = shutil.which("ruff")
    assert ruff, "ruff is part of the [test] extra"
    result = subprocess.run([ruff, "check", "."], cwd=REPO, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
