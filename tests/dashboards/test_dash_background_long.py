"""Long requests step aside (issue 12.3): a worker still busy after ``QUICK_S`` lowers itself to nice 19 on one
CPU, answers, and ends; the next quick request gets a fresh worker at the
normal worker priority. The tests wait on the answers, never on a fixed sleep of their own."""
from __future__ import annotations

import os
import time
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import pytest

from dashboards.server import background as bg

linux_only = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")


def _run(fn):
    owner = SimpleNamespace(last_mode="")
    return bg._in_process(fn, bg._Job(), lambda: False, owner)


@pytest.fixture
def pool():
    yield bg._pool()
    bg.shutdown()


@linux_only
def test_a_long_request_steps_aside_and_its_worker_retires(pool):
    ok, quick = _run(bg.worker_state)
    start_nice = min(max(bg.NICE, os.nice(0)), 19)        # workers start at NICE, never above this process
    assert ok and quick["nice"] == start_nice and quick["pid"] in bg.worker_pids()
    # a request that lasts twice the quick limit: its worker has stepped aside by the time it answers
    ok, slow = _run(partial(bg.worker_state, 2 * bg.QUICK_S))
    assert ok and slow["nice"] == bg.LONG_NICE
    if bg.LONG_AUTOGROUP:
        assert slow["sid"] == slow["pid"]                # its own session, so its own scheduling group
    if len(os.sched_getaffinity(0)) >= 2:
        assert len(slow["cpus"]) == 1                    # one CPU only: the others stay free
    assert slow["pid"] not in bg.worker_pids()           # retired once it had answered
    ok, fresh = _run(bg.worker_state)                   # a fresh worker, at the normal worker priority
    assert ok and fresh["pid"] != slow["pid"] and fresh["nice"] == start_nice
    assert len(fresh["cpus"]) == len(os.sched_getaffinity(0))


@linux_only
def test_step_aside_in_a_child_lowers_every_thread():
    import multiprocessing
    import threading

    def child(q):
        t = threading.Thread(target=lambda: None)
        t.start()
        t.join()
        steps = bg.step_aside()
        q.put((steps, os.getpriority(os.PRIO_PROCESS, 0)))

    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=child, args=(q,))
    p.start()
    steps, nice = q.get(timeout=60)
    p.join(30)
    assert "nice" in steps and nice == bg.LONG_NICE


@linux_only
def test_a_retired_worker_is_replaced_before_the_next_request(pool):
    ok, slow = _run(partial(bg.worker_state, 2 * bg.QUICK_S))
    assert ok and slow["pid"] not in bg.worker_pids()
    # a fresh worker is started in the background, idle, so the next quick request need not start one
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not bg.worker_pids():
        time.sleep(0.05)
    ready = bg.worker_pids()
    assert len(ready) == 1 and slow["pid"] not in ready
    ok, quick = _run(bg.worker_state)
    assert ok and quick["pid"] == ready[0]


def test_a_worker_reports_how_long_its_job_computed(pool):
    w = pool.acquire(lambda: False)
    try:
        import pickle
        ok, value = w.run(pickle.dumps(partial(bg.worker_state, 0.05)))
        assert ok and w.last_compute_s is not None and w.last_compute_s >= 0.05   # it slept 50 ms
    finally:
        pool.release(w, True)
