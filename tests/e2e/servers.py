"""Helpers of the browser tests: a Streamlit server on 127.0.0.1, Debian's chromium."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(log: Path, *, env: dict | None = None, port: int | None = None):
    """Run ``python app.py`` (the launcher: Streamlit on 127.0.0.1, headless); yields its URL;
    stops it on exit."""
    port = port or free_port()
    full_env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false", **(env or {}))
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / "app.py"),  # the launcher README's make app runs
             "--server.port", str(port), "--browser.gatherUsageStats", "false"],
            cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT, env=full_env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(url + "/_stcore/health", timeout=2).status == 200:
                    break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail(f"streamlit did not start: {log.read_text()[-2000:]}")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def app_nav(page, *, timeout: float = 90_000):
    """The sidebar navigation once the app's first script run has declared it
    (``st.navigation`` in app.py; its links have lowercase addresses such as ``/trade-off``)."""
    nav = page.locator('[data-testid="stSidebarNav"]')
    nav.locator('a[href$="/trade-off"]').wait_for(timeout=timeout)
    return nav
