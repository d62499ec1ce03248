"""`seams ingest` with no Prefect server configured: the temporary server that seams starts itself.

Each test runs the real command in a subprocess with ``PREFECT_API_URL`` unset and ``PREFECT_HOME``
in a temp dir (so the server's SQLite database is the test's own), and tags the command's
environment with a marker that its child processes inherit, to find the server process.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from flows.ingest.report import artifact_key

pytestmark = pytest.mark.server


def _environment(tmp_path: Path, **extra: str) -> tuple[dict[str, str], str]:
    marker = f"seams-test-{uuid.uuid4().hex}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API_")}
    env.update(PREFECT_HOME=str(tmp_path / "prefect-home"), SEAMS_TEST_MARKER=marker, **extra)
    return env, marker


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if f"SEAMS_TEST_MARKER={marker}".encode() in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _command_line(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _folder(root: Path) -> Path:
    root.mkdir()
    (root / "보고서.md").write_text("# 개요\n\n예산 집행 현황을 점검한다.\n\n## 결과\n\n집행률은 92%이다.\n", "utf-8")
    (root / "notes.txt").write_text("Quarterly notes: the budget review is due in March.", "utf-8")
    return root


def _command(root: Path, db: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "flows.app.cli", "ingest", str(root), "--db", str(db), "--embedder", "hashing", *extra]


def _ingest(root: Path, db: Path, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(_command(root, db, *extra), env=env, capture_output=True, text=True, timeout=300,
                          check=False)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ingest_reports_to_its_own_temporary_server_and_stops_it(tmp_path):
    env, marker = _environment(tmp_path)
    root = _folder(tmp_path / "docs")
    result = _ingest(root, tmp_path / "db", env)
    assert result.returncode == 0, result.stderr
    assert "2 added" in result.stdout
    assert not _processes_with(marker), "the temporary server outlived the command"
    with sqlite3.connect(tmp_path / "prefect-home" / "prefect.db") as db:
        runs = db.execute("SELECT state_type, state_name FROM flow_run").fetchall()
        artifacts = {key for (key,) in db.execute("SELECT key FROM artifact")}
    assert runs == [("COMPLETED", "Completed")]
    db_location = str((tmp_path / "db").resolve())
    expected = {artifact_key("default", "files", db_location), artifact_key("default", "summary", db_location)}
    assert expected <= artifacts, "the last requests reached the server"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and uses PR_SET_PDEATHSIG")
def test_a_killed_ingest_takes_its_temporary_server_with_it(tmp_path):
    env, marker = _environment(tmp_path)
    root = _folder(tmp_path / "docs")
    command = subprocess.Popen(_command(root, tmp_path / "db"), env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    servers: list[int] = []
    while not servers and time.monotonic() < deadline:
        servers = [pid for pid in _processes_with(marker) if "uvicorn" in _command_line(pid)]
        time.sleep(0.2)
    assert servers, "no temporary server was started"
    command.send_signal(signal.SIGKILL)
    command.wait(timeout=30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(_command_line(pid) for pid in servers):
        time.sleep(0.2)
    assert not any(_command_line(pid) for pid in servers), "the server survived the command's SIGKILL"


def test_a_server_that_cannot_start_is_a_clear_error(tmp_path):
    env, _ = _environment(tmp_path, PREFECT_SERVER_DATABASE_CONNECTION_URL="sqlite+aiosqlite:////nonexistent/dir/x.db")
    root = _folder(tmp_path / "docs")
    result = _ingest(root, tmp_path / "db", env)
    assert result.returncode == 3, (result.returncode, result.stderr)
    assert "temporary server" in result.stderr and "PREFECT_API_URL" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_server_named_in_the_prefect_profile_is_used(prefect_harness, tmp_path):
    """The early server is started before Prefect reads its profile; when the profile names a
    server after all, the run goes there and the early server is stopped."""
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL

    env, marker = _environment(tmp_path)
    home = Path(env["PREFECT_HOME"])
    home.mkdir()
    (home / "profiles.toml").write_text(
        f'active = "team"\n\n[profiles.team]\nPREFECT_API_URL = "{PREFECT_API_URL.value()}"\n', "utf-8")
    root = _folder(tmp_path / "docs")
    kb = f"profile_{uuid.uuid4().hex[:8]}"
    result = _ingest(root, tmp_path / "db", env, "--kb", kb)
    assert result.returncode == 0, result.stderr
    assert not _processes_with(marker), "the early server outlived the command"
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(limit=200)
    ours = [run for run in runs if (run.parameters.get("settings") or {}).get("kb") == kb]
    assert len(ours) == 1 and ours[0].state.is_completed(), [run.parameters for run in runs]
