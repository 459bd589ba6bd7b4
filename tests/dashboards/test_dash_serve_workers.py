"""``vedette-serve --num-procs N`` for a club: the workers stop with the main process (issue 17).

A real server in a subprocess; the test waits on process state (``/proc`` and ``waitpid``), never on a fixed
sleep. Linux only (``/proc``), as the club laptop of the issue.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            out |= {int(x) for x in (task / "children").read_text().split()}
    except OSError:
        pass
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"   # a zombie has stopped


def _start(tmp_path: Path, procs: int) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1")
    log = open(tmp_path / "server.log", "ab")
    # its own session, as a club laptop's terminal would be; the test signals the main process only
    proc = subprocess.Popen([sys.executable, "-m", "dashboards.server.serve", "--port", str(port), "--address", "127.0.0.1",
                             "--db", str(tmp_path / "games.sqlite3"), "--num-procs", str(procs)],
                            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert proc.poll() is None, (tmp_path / "server.log").read_text()[-2000:]
        try:
            with urllib.request.urlopen(url + "/", timeout=5) as r:
                if r.status == 200:
                    return proc, url
        except OSError:
            pass
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    raise AssertionError("the server did not answer")


def _workers(proc: subprocess.Popen, n: int) -> set[int]:
    """The main process's worker children that answer HTTP (the fork server of page computations, which runs
    its own interpreter, is a child too: the test asks for at least ``n``)."""
    deadline = time.monotonic() + 60
    kids: set[int] = set()
    while time.monotonic() < deadline:
        kids = {k for k in _children(proc.pid) if _alive(k)}
        if len(kids) >= n:
            return kids
        time.sleep(0.1)
    raise AssertionError(f"expected {n} workers, found {sorted(kids)}")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_to_the_main_process_stops_every_worker(tmp_path, sig):
    proc, url = _start(tmp_path, procs=2)
    try:
        kids = _workers(proc, 2)
        os.kill(proc.pid, sig)                 # the main process only, as `kill PID` or a service manager does
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(k) for k in kids):
            time.sleep(0.1)
        left = sorted(k for k in kids if _alive(k))
        assert not left, f"workers {left} outlived the main process"
        with pytest.raises(OSError):           # and nothing answers on the port any more
            urllib.request.urlopen(url + "/", timeout=3)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_every_page_loads_the_connection_lost_script(tmp_path):
    proc, url = _start(tmp_path, procs=1)
    try:
        with urllib.request.urlopen(url + "/", timeout=30) as r:
            page = r.read().decode()
        assert 'src="vedette-static/connection.js?v=' in page   # relative to the page; versioned: cached long
        src = page.split('src="vedette-static/connection.js', 1)[1].split('"', 1)[0]
        with urllib.request.urlopen(url + "/vedette-static/connection.js" + src, timeout=30) as r:
            js = r.read().decode()
            cache = r.headers.get("Cache-Control", "")
        assert "vedette-connection-lost" in js and "reload" in js
        assert "max-age=" in cache and int(cache.split("max-age=")[1].split(",")[0]) > 86400   # versioned: kept
        assert "es-module-shims" not in page   # connection.js stands in for its importShim
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)
