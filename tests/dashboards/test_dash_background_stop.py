"""A cancelled request leaves no worker busy (issue 26, bad input), and a worker whose work stops when told
stays warm (issue 26 point 3: warm workers that hold positions).

Work that looks at :func:`~dashboards.server.background.stop_requested` (an exact enumeration given
``stop=``) is told to stop: it ends at its next look and its worker serves the next request; work that has
looked but does not end is killed once the grace is over; work that never looks is killed at once
(tests/dashboards/test_dash_background_pool.py). In a pool thread ``stop_requested`` answers for that
thread's request. The waiting for an answer stops its job however it ends, the waiting task cancelled
included. The tests wait on the workers' state, never on a fixed sleep."""
from __future__ import annotations

import asyncio
import os
import pickle
import threading
import time
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import pytest

from dashboards.server import background as bg
from tests.dashboards.stoppable_work import count_until_stopped, look_once_then_sleep

linux_only = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")



def _run(coro):
    """Run ``coro`` on a loop of its own in a thread: the test process may already run an event loop in this
    thread (the browser tests' sync Playwright leaves one), where asyncio.run refuses to start."""
    import threading
    out: dict = {}

    def go() -> None:
        try:
            out["value"] = asyncio.run(coro)
        except BaseException as exc:  # noqa: BLE001 - raised again in the test's thread
            out["error"] = exc
    t = threading.Thread(target=go)
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out.get("value")

def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait(pred, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.02)
    return pred()


@pytest.fixture
def pool():
    yield bg._pool()
    bg.shutdown()


def _start(fn, job):
    """Run ``fn`` through ``_in_process`` in a thread of its own; returns the thread and its answer list."""
    answer: list = []
    owner = SimpleNamespace(last_mode="")
    t = threading.Thread(target=lambda: answer.append(bg._in_process(fn, job, lambda: False, owner)))
    t.start()
    return t, answer


@linux_only
def test_work_that_looks_is_told_to_stop_and_its_worker_stays(pool):
    job = bg._Job(grace_s=120)          # the grace is not what ends it: if the look did not work, nothing would
    t, answer = _start(count_until_stopped, job)
    assert _wait(lambda: job.worker is not None and job.worker.asks())
    w = job.worker
    job.stop()                          # what cancel, the budget or a newer request does
    t.join(120)
    assert not t.is_alive(), "the stopped request is still running"
    ok, value = answer[0]
    assert not ok and isinstance(value, bg.Cancelled)
    assert not job.killed and _alive(w.pid)
    if not w.retired:                   # (a request past QUICK_S steps aside and retires by design)
        owner = SimpleNamespace(last_mode="")
        ok, pid = bg._in_process(os.getpid, bg._Job(), lambda: False, owner)
        assert ok and pid == w.pid       # the same warm worker serves the next request


@linux_only
def test_the_worker_answers_the_stop_by_ending_its_work(pool):
    """At the worker's level: told to stop, the work itself ends (its one-line error), the worker is not
    killed, and its flags are cleared for the next request."""
    w = pool.acquire(lambda: False)
    try:
        job = bg._Job(grace_s=120)
        with job.lock:
            w.ready()
            job.worker = w
        got: list = []
        t = threading.Thread(target=lambda: got.append(w.run(pickle.dumps(count_until_stopped))))
        t.start()
        assert _wait(w.asks)
        job.stop()
        t.join(120)
        with job.lock:
            job.worker = None
        ok, value = got[0]
        assert not ok and f"stopped in worker {w.pid}" in str(value) and not job.killed and w.alive()
        w.ready()
        assert not w.asks() and not w.flags[bg._STOP]
    finally:
        pool.release(w, w.alive())


@linux_only
def test_work_that_looked_but_does_not_end_is_killed_after_the_grace(pool):
    job = bg._Job(grace_s=0.2)
    t, answer = _start(look_once_then_sleep, job)
    assert _wait(lambda: job.worker is not None and job.worker.asks())
    pid = job.worker.pid
    job.stop()
    t.join(120)
    assert not t.is_alive() and job.killed
    assert _wait(lambda: not _alive(pid)), "the worker that did not stop is still running"
    ok, value = answer[0]
    assert not ok and isinstance(value, bg.Cancelled)


def test_in_a_pool_thread_stop_requested_answers_for_that_threads_request():
    owner = SimpleNamespace(last_mode="")
    assert bg.stop_requested() is False                           # outside any request
    assert bg._in_thread(bg.stop_requested, owner, None, lambda: False) == (True, False)
    assert bg._in_thread(bg.stop_requested, owner, None, lambda: True) == (True, True)
    assert bg.stop_requested() is False                           # the thread's request is over
    # a thread request told to stop ends at its next look, freeing the pool thread
    flag = threading.Event()
    done: list = []
    t = threading.Thread(target=lambda: done.append(bg._in_thread(partial(count_until_stopped, 10**12), owner,
                                                                  None, flag.is_set)))
    t.start()
    flag.set()
    t.join(60)
    assert not t.is_alive() and done and not done[0][0] and "stopped" in str(done[0][1])


class _FakeWorker:
    """A worker as ``_Job`` sees it: whether its request has looked, and what was done to it."""

    def __init__(self, asks: bool):
        self._asks, self.stopped, self.killed = asks, False, False

    def asks(self):
        return self._asks

    def request_stop(self):
        self.stopped = True

    def kill(self):
        self.killed = True


def test_a_job_kills_at_once_work_that_never_looked_and_gives_work_that_looked_its_grace():
    never = bg._Job(grace_s=60)
    never.worker = _FakeWorker(asks=False)
    never.stop()
    assert never.worker.killed and never.killed
    looked = bg._Job(grace_s=0.05)
    w = looked.worker = _FakeWorker(asks=True)
    looked.stop()
    assert w.stopped and not w.killed
    looked.timer.join()                   # the grace is over, the work still running: killed
    assert w.killed and looked.killed
    answered = bg._Job(grace_s=0.05)
    w2 = answered.worker = _FakeWorker(asks=True)
    answered.stop()
    with answered.lock:
        answered.worker = None            # it answered within the grace (what _in_process does)
    answered.timer.join()                 # the grace is over: a worker that answered is not killed
    assert w2.stopped and not w2.killed and not answered.killed


def test_the_waiting_cancelled_stops_its_job():
    """A page's waiting task cancelled (its session closed, the server stopping): the job is stopped, not
    left to run in its worker until it ends."""
    job = bg._Job(grace_s=60)
    w = job.worker = _FakeWorker(asks=False)

    async def main():
        fut = asyncio.get_running_loop().create_future()         # an answer that never comes
        task = asyncio.create_task(bg._answer(fut, job, 600))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    _run(main())
    assert job.stopped and w.killed


def test_the_waiting_past_its_budget_stops_its_job_and_says_so():
    job = bg._Job(grace_s=60)
    w = job.worker = _FakeWorker(asks=False)

    async def main():
        fut = asyncio.get_running_loop().create_future()
        return await bg._answer(fut, job, 0.01)
    ok, value = _run(main())
    assert not ok and isinstance(value, bg.OverBudget) and "time budget" in str(value)
    assert job.stopped and w.killed


def test_a_session_that_ends_stops_its_request(monkeypatch):
    """The tab closed while a request runs: the runner, watching its session once (on the session's Bokeh
    document), stops the job (its worker is not left on it until the answer or the budget) and drops the
    answer."""
    from bokeh.document import Document

    doc = Document()
    monkeypatch.setattr(bg.pn.state, "curdoc", doc)
    runner = bg.Background()
    runner._watch_session()
    runner._watch_session()                   # once per runner, however many requests it starts
    assert doc.session_destroyed_callbacks == {runner._session_gone}
    job = runner._job = bg._Job(grace_s=60)
    w = job.worker = _FakeWorker(asks=False)
    gen = runner._generation
    for callback in doc.session_destroyed_callbacks:
        callback(None)                        # what Bokeh does with the session's context
    assert job.stopped and w.killed and runner._job is None and runner._generation == gen + 1
