"""Run a page's heavy computation off the server's event loop, in a worker process, with a time budget, a
busy line and a cancel button.

The served app runs every session's callbacks on one event loop: a charge tree that takes seconds would
hold up every other visitor's page. :class:`Background` hands the work to a small pool of **worker
processes** shared by all sessions of one server process and awaits the answer, so the loop keeps serving
other sessions meanwhile; the page shows a spinner, what is being computed and a *cancel* button.

* The pool (:data:`PROCESSES` workers, ``$VEDETTE_PROCESSES``; by default half the CPUs, 2 to 4, sized for
  a laptop) is created on the first request, or by :func:`warm_up` when ``vedette-serve`` starts. The
  workers are forked from a fork server that has the engine and page modules loaded
  (:mod:`dashboards.server.calc_preload`); they stay up between requests (so the engine's caches
  stay warm) and do not share the server's interpreter lock, so a pure-Python enumeration slows no
  other session's callbacks.
* A request that runs past its budget (``VEDETTE_BUDGET_S`` seconds, default 30), is cancelled, or is
  replaced by a newer request of the same page part **kills** the worker running it; a fresh worker
  takes its place on the next request. A worker starts a request at the server's CPU priority
  (``$VEDETTE_WORKER_NICE`` to lower it), so a quick answer is not kept waiting behind other work; a
  long enumeration gives way to page builds and callbacks of the other sessions: a request still running after ``VEDETTE_QUICK_S`` seconds (0.3) is a
  long one: its worker steps aside further (:func:`step_aside`: ``nice`` 19 and one CPU only, so the other
  CPU stays free for the server and a browser on the same laptop) and ends once it has
  answered, so quick requests (a Fatigue Check, a fire) keep their fresh worker at the normal priority. :func:`shutdown` (at exit, and on SIGTERM/SIGINT in
  ``vedette-serve``) stops them all, and each worker also watches a pipe to its server: when the server
  goes away, however it dies, the worker ends.
* Work that can stop early (an exact enumeration: :func:`engine.core.quick_odds.quick_odds` and
  ``OddsDesk.odds`` take ``stop=``) passes ``stop=``:func:`stop_requested`. Once it has asked, a cancel,
  the budget or a newer request sets the worker's stop flag instead of killing it at once: the work ends
  at its next look (every 256 enumeration steps), the worker answers and stays warm for the next request
  (a desk's held positions, the engine's caches); one that has not ended within :data:`GRACE_S` seconds is
  killed all the same. Work that never asks is killed at once, as before. In a pool thread (work that
  does not pickle, ``process=False``) :func:`stop_requested` answers for that thread's request, so a
  cancelled request leaves no worker, process or thread, busy.
* The work is sent to the worker pickled: a module-level function, or a ``functools.partial`` of one, with
  picklable arguments and a picklable result. Work that does not pickle (a closure or a lambda) runs in a
  pool thread instead (it then holds the interpreter lock while it runs pure Python, and cancel can only
  drop its result); so does ``process=False``. Inputs are bounded before they are sent (the callers'
  limits), so a worker never gets an unbounded job.

The work function must not touch the page (widgets, panes): it computes and returns plain values (strings
of HTML, distributions); ``on_result`` then puts them on the page, on the event loop.

Outside a server (view-model tests, notebooks) :meth:`Background.start` runs the work at once, in the
caller's thread, and calls ``on_result`` or ``on_error`` before returning.
"""
from __future__ import annotations

import asyncio
import html
import logging
import pickle
import threading
import time
from functools import partial
from typing import Any, Callable, cast

import panel as pn
import param

from engine.core import game_loop as _core_game   # where play_game reads STEADY_HEAP
from engine.core.errors import VedetteError
from dashboards.server.worker_pool import (  # noqa: F401 - the settings and the pool, named here too
    BUDGET_S, GC_FREEZE, GRACE_S, HERE, INTERNAL, LOG_HOPS, LONG_AUTOGROUP, LONG_NICE, LONG_PIN, NICE, POOL, PRELOAD,
    PROCESSES, QUICK_S, WARM_HERE, WORKERS, Worker, WorkerPool, get_pool, guarded, lower_priority, shutdown,
    step_aside, stop_requested, warm_up, worker_pids, worker_state)
# the names the tests of the pool reach through this module
from dashboards.server.worker_pool import STOP as _STOP  # noqa: F401
from dashboards.server.worker_pool import get_pool as _pool  # noqa: F401

__all__ = ["Background", "Cancelled", "OverBudget", "POOL", "PROCESSES", "BUDGET_S", "QUICK_S", "GRACE_S", "run_now",
           "warm_up", "shutdown", "worker_pids", "step_aside", "stop_requested", "run_in_worker"]

log = logging.getLogger("vedette.dashboards")

# a page server keeps the open sessions collectable: its games (a study game replayed, a bot's game) do not
# set the heap aside as a study worker's do (engine.core.game.steady_heap)
_core_game.STEADY_HEAP = False


STYLESHEET = """
.busy-line {color:#2f4f6f;font-style:italic}
.busy-spin {display:inline-block;width:12px;height:12px;margin:0 6px -2px 0;border:2px solid #c5d3e0;
  border-top-color:#2f4f6f;border-radius:50%;animation:busy-turn .8s linear infinite}
@keyframes busy-turn {to {transform:rotate(360deg)}}
"""


class Cancelled(VedetteError):
    """The visitor pressed *cancel*."""


class OverBudget(VedetteError):
    """The computation ran past the page's time budget."""


def run_now(fn: Callable[[], Any], on_result: Callable[[Any], None], on_error: Callable[[Exception], None]) -> None:
    """Run ``fn`` here and now; a VedetteError goes to ``on_error``; any other error is logged with its
    traceback and reported to ``on_error`` as a short message."""
    try:
        result = fn()
    except VedetteError as exc:
        on_error(exc)
        return
    except Exception:  # a bug: the traceback goes to the server's log, the page gets one line
        log.exception("a page computation failed")
        on_error(VedetteError(INTERNAL))
        return
    on_result(result)


def on_server() -> bool:
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class _Job:
    """One request in flight: the worker running it, so that cancel or the budget can stop it. A request
    that asks :func:`stop_requested` is told to stop and given :data:`GRACE_S` seconds to end before its
    worker is killed; any other is killed at once. ``killed``: whether its worker was."""

    def __init__(self, grace_s: float | None = None):
        self.lock = threading.Lock()
        self.worker: Worker | None = None
        self.stopped = False
        self.killed = False
        self.grace_s = GRACE_S if grace_s is None else grace_s
        self.timer: threading.Timer | None = None      # the grace's end, once stopped with a grace

    def stop(self) -> None:
        with self.lock:         # under the lock: the worker cannot be handed to another request meanwhile
            first = not self.stopped
            self.stopped = True
            w = self.worker
            if w is None:
                return
            if first and w.asks() and self.grace_s > 0:
                w.request_stop()
                self.timer = threading.Timer(self.grace_s, self._kill_if_running, args=(w,))
                self.timer.daemon = True
                self.timer.start()
                return
            self.killed = True
            w.kill()

    def _kill_if_running(self, w: Worker) -> None:
        """The grace is over: a worker still on this request is killed."""
        with self.lock:
            if self.worker is w:
                self.killed = True
                w.kill()


class Background(param.Parameterized):
    """One page part's off-loop runner: at most one request in flight (a new one replaces the last)."""

    busy = param.Boolean(default=False)
    label = param.String(default="")

    def __init__(self, budget_s: float | None = None, **params):
        super().__init__(**params)
        self.budget_s = BUDGET_S if budget_s is None else float(budget_s)
        self._generation = 0
        self._job: _Job | None = None
        self.last_seconds: float | None = None
        self.last_hops: dict = {}      # milliseconds per hop of the last request (see _hops)
        self.last_mode: str = ""       # "process", "thread" or "here": where the last request ran
        # the spinner is drawn by CSS inside the note: one model fewer per busy line and session; the note
        # and its button are made when first shown (a page that draws its own busy line watches busy/label)
        self._views: list = []
        self._own = None
        self._session_watched = False

    def _first_view(self):
        if self._own is None:
            self._own = self._parts()
            self._views.insert(0, self._own)
        return self._own

    @property
    def note(self) -> pn.pane.HTML:
        return self._first_view()[0]

    @property
    def cancel_button(self) -> pn.widgets.Button:
        return self._first_view()[1]

    def _parts(self):
        note = pn.pane.HTML(self._note_html(self.busy, self.label), css_classes=["busy-note"],
                            stylesheets=[STYLESHEET], margin=(4, 4))
        button = pn.widgets.Button(label="cancel", color="warning", visible=self.busy, width=80,
                                   css_classes=["busy-cancel"])
        button.on_click(lambda _: self.cancel())
        return note, button

    def panel(self) -> pn.Row:
        """The busy line: what is being computed, a spinner and a *cancel* button while it runs."""
        return pn.Row(self.note, self.cancel_button, css_classes=["busy-box"], margin=0)

    def view(self) -> pn.Row:
        """Another busy line for the same runner (own widgets: a page that shows the same results in two
        layouts gets one each)."""
        note, button = self._parts()
        self._views.append((note, button))
        return pn.Row(note, button, css_classes=["busy-box"], margin=0)

    # -- state shown on the page -----------------------------------------------------------------------
    @staticmethod
    def _note_html(busy: bool, text: str) -> str:
        state = "busy" if busy else "idle"
        spin = "<span class='busy-spin' aria-hidden='true'></span>" if busy else ""
        return (f"<span class='busy-line' data-state='{state}'>{spin}{html.escape(text)}</span>"
                if text else f"<span data-state='{state}'></span>")

    def _show(self, busy: bool, text: str = "") -> None:
        self.busy = busy
        self.label = text if busy else ""
        for note, button in self._views:
            button.visible = busy
            note.object = self._note_html(busy, text)

    def _stop_job(self) -> None:
        job, self._job = self._job, None
        if job is not None:
            job.stop()

    def cancel(self) -> None:
        """Give up the request in flight: its worker is stopped and its result dropped; the page is free."""
        if not self.busy:
            return
        self._generation += 1
        self._stop_job()
        self._show(False, "cancelled: nothing changed")
        self._on_cancel and self._on_cancel(Cancelled("cancelled: nothing changed"))

    _on_cancel: Callable[[Exception], None] | None = None

    def drop(self) -> None:
        """Forget the request in flight without a word (the page has its answer already, e.g. from a shared
        cache): its worker is stopped, its result will be ignored, the busy line is cleared."""
        if not self.busy:
            return
        self._generation += 1
        self._stop_job()
        self._show(False, "")

    def _watch_session(self) -> None:
        """Once per runner, on a server: when its session ends (the tab closed, the server stopping), the
        request in flight is stopped, as a cancel stops it, instead of running on in its worker until its
        answer or its budget."""
        if self._session_watched:
            return
        self._session_watched = True
        try:
            pn.state.on_session_destroyed(self._session_gone)
        except Exception:  # noqa: BLE001 - no session to watch: the budget still ends the request
            log.debug("no session to watch for a page computation", exc_info=True)

    def _session_gone(self, session_context) -> None:
        self._generation += 1             # nobody is there to show the answer to
        self._stop_job()

    # -- running ---------------------------------------------------------------------------------------
    def _run_inline(self, fn, on_result, on_error, label: str) -> None:
        marks, epoch = {"start": time.perf_counter()}, time.time()
        self._generation += 1             # a result still coming from a worker is not wanted any more
        self._stop_job()
        if self.busy:
            self._show(False, "")
        self.last_mode = "inline"

        def computed():
            marks["compute"] = time.perf_counter() - marks["start"]
            marks["loop"] = time.perf_counter()

        def result(value):
            computed()
            on_result(value)

        def error(exc):
            computed()
            on_error(exc)

        run_now(fn, result, error)
        marks["shown"] = time.perf_counter()
        self.last_seconds = marks["shown"] - marks["start"]
        self.last_hops = _hops(marks)
        if LOG_HOPS:
            log.info("request %r inline at %.3f: %s ms", label, epoch,
                     " ".join(f"{k} {v:.1f}" for k, v in self.last_hops.items()))

    def start(self, fn: Callable[[], Any], on_result: Callable[[Any], None],
              on_error: Callable[[Exception], None], label: str = "computing…", process: bool | None = None,
              inline: bool = False) -> None:
        """Compute ``fn()`` off the event loop, then call ``on_result(value)`` on it (``on_error(exc)`` for a
        VedetteError, the budget running out or a cancel). ``process``: None (the default) or True, in a
        worker process when ``fn`` pickles, else in a pool thread; False, in a pool thread.

        ``inline=True``: the caller has bounded this request to a few milliseconds of work (its inputs'
        limits give a cost estimate, e.g. a Fatigue Check of the shipped tables: some 60 d6 rolls, 15 ms at
        most): it runs at once, in the callback, with no busy line and no trip to a worker (which would
        cost more than the work itself: the thread and process hops, the busy line drawn and cleared). A
        request in flight is dropped, as a newer request replaces it."""
        if not on_server():
            self.last_mode = "here"
            run_now(fn, on_result, on_error)
            return
        if inline:
            self._run_inline(fn, on_result, on_error, label)
            return
        self._stop_job()               # a newer request replaces the one in flight (its worker is stopped)
        self._watch_session()
        self._generation += 1
        gen = self._generation
        job = self._job = _Job()
        self._on_cancel = on_error
        self._show(True, label)
        t0 = time.monotonic()
        marks = {"start": time.perf_counter()}
        epoch = time.time()
        budget = self.budget_s
        use_process = process is not False

        def finish(result=None, error=None):
            if gen != self._generation:      # cancelled, or a newer request replaced this one
                return
            self.last_seconds = time.monotonic() - t0
            if self._job is job:
                self._job = None
            marks["loop"] = time.perf_counter()
            self._show(False, "")
            if error is not None:
                on_error(error)
            else:
                on_result(result)
            marks["shown"] = time.perf_counter()
            self.last_hops = _hops(marks)
            if LOG_HOPS:
                log.info("request %r at %.3f: %s ms", label, epoch,
                         " ".join(f"{k} {v:.1f}" for k, v in self.last_hops.items()))

        def given_up() -> bool:
            return job.stopped or gen != self._generation

        async def waiter():
            loop = asyncio.get_running_loop()
            marks["waiter"] = time.perf_counter()
            if use_process:
                work = partial(_in_process, fn, job, given_up, self, marks)
            else:
                work = partial(_in_thread, fn, self, marks, given_up)
            fut = loop.run_in_executor(POOL, work)
            ok, value = await _answer(fut, job, budget)
            if ok:
                finish(result=value)
            else:
                finish(error=value)

        if pn.state.loaded:
            pn.state.execute(waiter)
        else:   # built with the page: start once the browser is connected, so the result is not lost
            pn.state.onload(waiter)


async def _answer(fut, job: _Job, budget: float) -> tuple[bool, Any]:
    """Await the answer of ``job`` (``fut``, in a pool thread) for at most ``budget`` seconds. However the
    waiting ends -- an answer, the budget, an error, or the waiting task itself cancelled (a session
    closed, the server stopping) -- the job is stopped: no worker stays on a request nobody waits for (a
    no-op once it has answered)."""
    try:
        return await asyncio.wait_for(asyncio.shield(fut), budget)
    except asyncio.TimeoutError:
        return False, OverBudget(f"stopped: this needs more than the page's time budget of "
                                 f"{budget:g} s; make the input smaller")
    except Exception:  # noqa: BLE001 - the waiting itself failed
        log.exception("a page computation could not be awaited")
        return False, VedetteError("this could not be computed (the details are in the server's log)")
    finally:
        job.stop()


def _hops(marks: dict) -> dict:
    """Milliseconds spent in each hop of one request, from the marks ``Background.start`` and the pool
    thread took (``perf_counter`` seconds): ``to_loop`` (the callback until the waiting coroutine runs),
    ``to_thread`` (until a pool thread takes it), ``to_worker`` (pickling and getting a free worker, one
    started if need be), ``compute`` (the work itself, as the worker timed it), ``ipc`` (the rest of the
    round trip to the worker: pipes, unpickling, the worker waiting for a CPU), ``back`` (the answer until
    the event loop runs the page's part), ``show`` (putting it on the page), ``total``."""
    order = ["start", "waiter", "thread", "worker", "answer", "loop", "shown"]
    got = [k for k in order if k in marks]
    out = {}
    names = {"waiter": "to_loop", "thread": "to_thread", "worker": "to_worker", "answer": "round_trip",
             "loop": "back", "shown": "show"}
    for a, b in zip(got, got[1:]):
        out[names[b]] = (marks[b] - marks[a]) * 1000
    if "compute" in marks:
        out["compute"] = marks["compute"] * 1000
        if "round_trip" in out:
            out["ipc"] = out.pop("round_trip") - out["compute"]
        elif "back" in out and "waiter" not in marks:      # inline: the work is all there is before ``loop``
            out.pop("back")
    out["total"] = (marks[got[-1]] - marks["start"]) * 1000
    return out


def _in_thread(fn: Callable[[], Any], owner: Background, marks: dict | None = None,
               given_up: Callable[[], bool] | None = None) -> tuple[bool, Any]:
    """In a pool thread: run ``fn`` here; while it runs :func:`stop_requested` answers ``given_up()``."""
    owner.last_mode = "thread"
    HERE.given_up = given_up
    c0 = time.perf_counter() if marks is None else marks.setdefault("thread", time.perf_counter())
    try:
        return guarded(fn)
    finally:
        HERE.given_up = None
        if marks is not None:
            marks["compute"] = time.perf_counter() - c0
            marks["answer"] = time.perf_counter()


def _in_process(fn: Callable[[], Any], job: _Job, given_up: Callable[[], bool],
                owner: Background, marks: dict | None = None) -> tuple[bool, Any]:
    """In a pool thread: send ``fn`` to a free worker process and wait for its answer. Work that does not
    pickle runs here, in this thread; a worker killed meanwhile (cancel, budget) answers as cancelled.
    ``marks``: where the request's hop times go (see :func:`_hops`)."""
    marks = {} if marks is None else marks
    marks["thread"] = time.perf_counter()
    try:
        payload = pickle.dumps(fn, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - a closure or a lambda: this thread will do
        log.debug("page computation %r does not pickle (%s); it runs in a thread", fn, exc)
        return _in_thread(fn, owner, marks, given_up)
    try:
        pool = get_pool()
        w = pool.acquire(given_up)
    except Exception:  # noqa: BLE001 - no worker could be started: a thread still gives the answer
        log.exception("no worker process could be started for a page computation; it runs in a thread")
        return _in_thread(fn, owner, marks, given_up)
    marks["worker"] = time.perf_counter()
    if w is None:
        return False, Cancelled("stopped: nothing changed")
    with job.lock:
        stopped = job.stopped
        if not stopped:
            w.ready()
            job.worker = w
    healthy = False
    try:
        if stopped:
            healthy = True          # given up before the worker got it: the worker did nothing
            return False, Cancelled("stopped: nothing changed")
        owner.last_mode = "process"
        ok, value = w.run(payload)
        marks["answer"] = time.perf_counter()
        if w.last_compute_s is not None:
            marks["compute"] = w.last_compute_s
        healthy = True
        if job.stopped:             # it ended early when told to (stop_requested): its answer is not wanted
            return False, Cancelled("stopped: nothing changed")
        return ok, value
    except (EOFError, OSError):
        return False, Cancelled("stopped: nothing changed")
    except Exception:  # noqa: BLE001 - an answer that does not unpickle here
        log.exception("a page computation's answer could not be read")
        return False, VedetteError(INTERNAL)
    finally:
        with job.lock:
            job.worker = None
            if job.killed:          # stop() may have killed it just as it answered: not to be reused
                healthy = False
        pool.release(w, healthy)


class _NoOwner:
    """Stands in for a page part's runner where no page asked (a bot's move)."""

    last_mode = ""


def run_in_worker(fn: Callable[[], Any], budget_s: float, process: bool = True) -> Any:
    """``fn()`` in a worker process, from a thread that is not the event loop (a live game's bot runner),
    waiting at most ``budget_s`` seconds: past it the worker is killed and :class:`OverBudget` raised. Work
    that does not pickle, or ``process=False``, runs in this thread (the budget is then not enforced). A
    VedetteError of the work is raised here; a bug is logged and raised as a short VedetteError."""
    if not process:
        ok, value = guarded(fn)
    else:
        job = _Job()
        timer = threading.Timer(budget_s, job.stop)
        timer.daemon = True
        timer.start()
        try:
            ok, value = _in_process(fn, job, lambda: job.stopped, cast(Background, _NoOwner()))
        finally:
            timer.cancel()
        if not ok and job.stopped:
            raise OverBudget(f"stopped: past its budget of {budget_s:g} s")
    if not ok:
        raise value
    return value
