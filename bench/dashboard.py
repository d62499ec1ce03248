"""What the Prefect dashboard shows of seams' runs, in a real browser (headless Chromium).

Starts a local Prefect server (its own PREFECT_HOME in a temporary folder), runs ``seams ingest``
three times against it — a clean folder, one with a broken PDF, and that one again with the PDF
unchanged — and saves screenshots: the home page (it should count one failed run), the runs list
(the run with the broken file reads ``Failed``, the clean one ``Completed``, the re-run
``CompletedWithFailures``) and the logs of the failed run (a WARNING line for the broken file, an
INFO line per file). It prints the runs' states and the home page's sentence about failed runs, as
the browser rendered it. Look at the PNGs.

Needs a Chromium (``apt-get install chromium``, or set ``CHROMIUM``).

Usage: python bench/dashboard.py [--out reports/dashboard] [--port 4477]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from flows.environment import apply_defaults

apply_defaults()

REPO = Path(__file__).resolve().parents[1]


def chromium() -> str:
    for name in (os.environ.get("CHROMIUM", ""), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    raise SystemExit("no Chromium found: apt-get install chromium, or set CHROMIUM=/path/to/chrome")


def screenshot(browser: str, url: str, path: Path) -> None:
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=1600,1000", "--virtual-time-budget=20000", f"--screenshot={path}", url],
                   check=True, capture_output=True, timeout=120)
    print(f"saved {path}")


def rendered_text(browser: str, url: str) -> str:
    """The page's DOM once its scripts have run, as text (tags dropped)."""
    import re

    result = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=20000",
                             "--dump-dom", url], check=True, capture_output=True, text=True, timeout=120)
    return " ".join(re.sub(r"<[^>]+>", " ", result.stdout).split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(REPO / "reports" / "dashboard"))
    parser.add_argument("--port", type=int, default=4477)
    args = parser.parse_args()
    browser = chromium()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PREFECT_HOME"] = str(Path(tmp) / "prefect")
        from flows.app.server import dashboard_url, local_server

        with local_server(args.port) as api_url:
            env = dict(os.environ, PREFECT_API_URL=api_url)
            clean, broken = Path(tmp) / "clean", Path(tmp) / "with-a-broken-file"
            for folder in (clean, broken):
                shutil.copytree(REPO / "examples", folder, ignore=shutil.ignore_patterns("*.py", "*.jsonl"))
            (broken / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\n% truncated here")
            for folder in (clean, broken, broken):  # the third: the broken file unchanged since it failed
                result = subprocess.run([sys.executable, "-m", "flows.app.cli", "ingest", str(folder), "--db",
                                         str(Path(tmp) / "db"), "--kb", folder.name.replace("-", "_"),
                                         "--embedder", "hashing"], env=env, capture_output=True, text=True)
                print(f"seams ingest {folder.name}: exit {result.returncode}")

            from prefect.client.orchestration import get_client
            from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId
            from prefect.settings import PREFECT_API_URL, temporary_settings

            time.sleep(3)  # logs arrive in batches
            with temporary_settings({PREFECT_API_URL: api_url}), get_client(sync_client=True) as client:
                runs = client.read_flow_runs()
                for run in sorted(runs, key=lambda r: r.expected_start_time or r.created):
                    print(f"run {run.name}: state {run.state.name} ({run.state.type.value}) — {run.state.message}")
                failed = next(r for r in runs if r.state.is_failed())
                logs = client.read_logs(LogFilter(flow_run_id=LogFilterFlowRunId(any_=[failed.id])))
                for log in logs:
                    print(f"  log {log.level:2} {log.message[:110]}")
            base = dashboard_url(api_url)
            home = rendered_text(browser, f"{base}/dashboard")
            # With no failed run the page says "You currently have 0 failed or crashed runs"; with some,
            # its Flow Runs panel counts them in its first tab (failed, running, completed, scheduled, cancelled)
            sentence = next((part.strip() + "." for part in home.split(".") if "failed or crashed" in part), "")
            panel = home[home.find("Flow Runs"):][:60]
            print(f"home page: {sentence or panel + ' (tabs: failed, running, completed, scheduled, cancelled)'}")
            screenshot(browser, f"{base}/dashboard", out / "home.png")
            screenshot(browser, f"{base}/runs", out / "runs.png")
            screenshot(browser, f"{base}/runs/flow-run/{failed.id}?tab=Logs", out / "failed-run-logs.png")


if __name__ == "__main__":
    main()
