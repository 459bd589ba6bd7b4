"""The calculation worker processes of the served pages (issue 12.3, issue 17.2).

Work that pickles runs in a worker process of a small shared pool (so a pure-Python enumeration does not
hold the server's interpreter lock); cancel or the budget kills that worker and a fresh one serves the next
request; SIGTERM to ``vedette-serve`` leaves no worker behind, and neither does a server killed hard (each
worker watches a pipe to its server). The tests wait on process state (``/proc``), never on a fixed sleep.
"""
from __future__ import annotations

import operator
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import pytest

from dashboards.server import background as bg
from dashboards.calculators.tbf.views import MAX_CHARGE_TEXT, parse_charge_text
from engine.core.errors import VedetteError

REPO = Path(__file__).resolve().parents[2]
linux_only = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"   # a zombie has stopped


def _descendants(pid: int) -> set[int]:
    out: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            for task in Path(f"/proc/{p}/task").iterdir():
                kids = {int(x) for x in (task / "children").read_text().split()}
                todo += list(kids - out)
                out |= kids
        except OSError:
            continue
    return out


def _wait(pred, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def _run(fn, job=None):
    owner = SimpleNamespace(last_mode="")
    ok, value = bg._in_process(fn, job or bg._Job(), lambda: False, owner)
    return ok, value, owner.last_mode


@pytest.fixture
def pool():
    yield bg._pool()
    bg.shutdown()


def test_work_that_pickles_runs_in_a_worker_process_which_stays_for_the_next_request(pool):
    ok, pid, mode = _run(os.getpid)
    assert ok and mode == "process" and pid != os.getpid() and pid in bg.worker_pids()
    ok, again, _ = _run(os.getpid)        # one request at a time here: the same (idle) worker answers
    assert ok and again == pid


def test_the_workers_run_at_their_set_cpu_priority_never_above_the_server(pool):
    ok, niceness, mode = _run(partial(os.nice, 0))       # os.nice(0) reads the niceness
    assert ok and mode == "process" and niceness == min(max(bg.NICE, os.nice(0)), 19)


def test_a_closure_does_not_pickle_and_runs_in_a_pool_thread(pool):
    here = os.getpid()
    ok, pid, mode = _run(lambda: os.getpid())
    assert ok and mode == "thread" and pid == here


def test_errors_come_back_as_one_line(pool):
    # a rules/input error: its own message, unchanged
    ok, exc, _ = _run(partial(parse_charge_text, "#" * (MAX_CHARGE_TEXT + 1)))
    assert not ok and isinstance(exc, VedetteError) and f"at most {MAX_CHARGE_TEXT} characters" in str(exc)
    # a bug (1 / 0): a short line pointing to the server's log, no traceback on the page
    ok, exc, _ = _run(partial(operator.truediv, 1, 0))
    assert not ok and "server's log" in str(exc) and "ZeroDivisionError" not in str(exc)


@linux_only
def test_cancel_kills_the_worker_and_a_fresh_one_serves_the_next_request(pool):
    job = bg._Job()
    answer: list = []
    t = threading.Thread(target=lambda: answer.append(_run(partial(time.sleep, 120), job)))
    t.start()
    assert _wait(lambda: job.worker is not None)
    busy_pid = job.worker.pid
    job.stop()                              # what cancel, the budget or a newer request does
    t.join(30)
    assert answer and not answer[0][0] and isinstance(answer[0][1], bg.Cancelled)
    assert _wait(lambda: not _alive(busy_pid)), "the cancelled computation is still running"
    ok, pid, mode = _run(os.getpid)
    assert ok and mode == "process" and pid != busy_pid


@linux_only
def test_shutdown_stops_every_worker():
    bg.warm_up()
    pids = bg.worker_pids()
    assert len(pids) == bg.PROCESSES and all(_alive(p) for p in pids)
    bg.shutdown()
    assert _wait(lambda: not any(_alive(p) for p in pids))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(tmp_path: Path) -> subprocess.Popen:
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "dashboards.server.serve", "--port", str(port), "--address", "127.0.0.1",
                             "--db", str(tmp_path / "games.sqlite3")], cwd=REPO, env=env,
                            stdout=open(tmp_path / "server.log", "ab"), stderr=subprocess.STDOUT,
                            start_new_session=True)

    def up() -> bool:
        assert proc.poll() is None, (tmp_path / "server.log").read_text()[-2000:]
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                return r.status == 200
        except OSError:
            return False

    assert _wait(up, 90), "the server did not answer"
    return proc


@linux_only
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_the_calculation_workers_stop_with_the_server(tmp_path, sig):
    proc = _serve(tmp_path)
    try:
        # the fork server and the pool's workers, started by the warm-up while the server starts
        assert _wait(lambda: len(_descendants(proc.pid)) >= 1 + bg.PROCESSES, 90), sorted(_descendants(proc.pid))
        kids = _descendants(proc.pid)
        os.kill(proc.pid, sig)              # the main process only, as `kill PID` or the OOM killer would
        proc.wait(timeout=30)
        assert _wait(lambda: not any(_alive(k) for k in kids)), \
            f"{sorted(k for k in kids if _alive(k))} outlived the server"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_the_warm_up_leaves_the_loaded_objects_out_of_full_collections():
    """Panel runs a full garbage collection on the event loop after a page closes; the objects the server
    holds from its start (modules, tables) are set aside first, so it only goes over the sessions' own."""
    import gc

    try:
        bg.warm_up()
        if bg.GC_FREEZE:
            assert gc.get_freeze_count() > 1000
    finally:
        bg.shutdown()
        gc.unfreeze()
