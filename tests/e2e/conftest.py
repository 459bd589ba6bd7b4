"""Browser-test fixtures: a served app in a subprocess and Debian's chromium for pytest-playwright.

* ``app_server`` (session): starts the app as the README's command does (``vedette-serve``, or
  ``python -m dashboards.server.serve`` when the console script is not installed) on a free port with a
  throw-away saved-games file, waits until it answers, and stops it at the end.
* ``app_url`` (session): the base URL of that server, e.g. ``http://127.0.0.1:40123``.
* ``restart_server`` (function): a callable that kills the server hard (as a crash would) and starts it
  again on the same port and with the same saved-games file; returns the base URL.
* ``browser_type_launch_args``: pytest-playwright launches ``/usr/bin/chromium`` (playwright's own browser
  download does not work here) with the flags a headless CI container needs.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("VEDETTE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
START_TIMEOUT = 60.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_up(url: str, proc: subprocess.Popen, log: Path, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited with code {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/", timeout=5) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the app did not answer within {timeout:.0f} s:\n{log.read_text()[-3000:]}")


class AppServer:
    """A ``vedette-serve`` subprocess on a fixed port and saved-games file."""

    def __init__(self, workdir: Path, env: dict[str, str] | None = None):
        self.extra_env = dict(env or {})   # the server's settings for one test (e.g. the page's odds bounds)
        self.port = _free_port()
        self.db = workdir / "games.sqlite3"
        self.log = workdir / "server.log"
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> str:
        # the README's command; `python -m dashboards.server.serve` is the same entry point when not installed
        exe = shutil.which("vedette-serve")
        base = [exe] if exe else [sys.executable, "-m", "dashboards.server.serve"]
        cmd = base + ["--port", str(self.port), "--address", "127.0.0.1",
                      "--allow-websocket-origin", f"127.0.0.1:{self.port}", "--db", str(self.db)]
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        env.setdefault("VEDETTE_LOG_HOPS", "1")   # each calculation's time per hop in the log (test_stall_load)
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        env.update(self.extra_env)
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT,
                                     start_new_session=True)
        _wait_until_up(self.url, self.proc, self.log)
        return self.url

    def stop(self, hard: bool = False) -> None:
        if self.proc is None:
            return
        sig = signal.SIGKILL if hard else signal.SIGTERM
        try:  # the server and anything it forked share one process group
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=15)
        self.proc = None

    def restart(self) -> str:
        self.stop(hard=True)
        return self.start()


@pytest.fixture(scope="session")
def app_server(tmp_path_factory):
    server = AppServer(tmp_path_factory.mktemp("vedette-app"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def app_url(app_server) -> str:
    return app_server.url


@pytest.fixture
def restart_server(app_server):
    """Call it to kill the served app (no clean shutdown) and start it again; returns the base URL."""
    return app_server.restart


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no chromium at {CHROMIUM}: install Debian's chromium package (apt-get install chromium)")
    return {**browser_type_launch_args, "executable_path": CHROMIUM,
            "args": [*browser_type_launch_args.get("args", []), *CHROMIUM_ARGS]}
