"""Run a page's heavy computation off the server's event loop, with a time budget, a busy line and a cancel button.

The served app runs every session's callbacks on one event loop: a charge tree that takes seconds would
hold up every other visitor's page. :class:`Background` hands the work to a thread pool shared by all
sessions (``VEDETTE_WORKERS`` threads, default 4) and awaits it, so the loop keeps serving other sessions
meanwhile; the page shows a spinner, what is being computed and a *cancel* button. A request that runs
past its budget (``VEDETTE_BUDGET_S`` seconds, default 30) is given up with a message saying so.

The work function must not touch the page (widgets, panes): it computes and returns plain values (strings
of HTML, distributions); ``on_result`` then puts them on the page, on the event loop. A Python thread
cannot be stopped from outside, so *cancel* and the budget drop the result (the page is free at once);
the thread itself ends when its computation does, and the input bounds keep that short.

``process=True`` runs the work in a child process instead (forked from a small fork server that has the
engine and page modules loaded): it does not share the server's interpreter lock, so it slows no other
session at all, and *cancel* or the budget ends it at once. The work must then be picklable: a
module-level function (or a ``functools.partial`` of one) with picklable arguments and result.

Outside a server (view-model tests, notebooks) :meth:`Background.start` runs the work at once, in the
caller's thread, and calls ``on_result`` or ``on_error`` before returning.
"""
from __future__ import annotations

import asyncio
import html
import logging
import multiprocessing
import os
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, Callable

import panel as pn
import param

from engine.core.errors import VedetteError

__all__ = ["Background", "Cancelled", "OverBudget", "POOL", "BUDGET_S", "run_now"]

log = logging.getLogger("vedette.dashboards")

WORKERS = max(1, int(os.environ.get("VEDETTE_WORKERS", "4") or 4))
BUDGET_S = float(os.environ.get("VEDETTE_BUDGET_S", "30") or 30)
POOL = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="vedette-calc")
#: modules the fork server loads once, so a child process starts with them already imported
PRELOAD = ["engine.core.procedure", "dashboards.components.tbf_views", "dashboards.components.bc_views",
           "dashboards.components.lob_views"]
_CTX = None


def _context():
    global _CTX
    if _CTX is None:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        _CTX = ctx
    return _CTX


def warm_up() -> None:
    """Start the fork server now (``vedette-serve`` does it at start), so the first request does not wait."""
    try:
        ctx = _context()
        p = ctx.Process(target=_noop, daemon=True)
        p.start()
        p.join(120)
    except Exception:  # noqa: BLE001 - processes are an optimisation: threads still work
        log.exception("the fork server for page computations could not be started")


def _noop() -> None:
    return None


def _child_main(conn, fn) -> None:
    """In the child process: run ``fn`` and send ``(ok, value)`` back (errors as plain VedetteErrors)."""
    ok, value = _guarded(fn)
    if not ok:
        value = VedetteError(str(value))    # subclasses with other constructors do not all unpickle
    try:
        conn.send((ok, value))
    except Exception:  # noqa: BLE001 - e.g. a result that does not pickle
        log.exception("a page computation's result could not be sent back")
        conn.send((False, VedetteError("this could not be computed (the details are in the server's log)")))
    finally:
        conn.close()

STYLESHEET = """
.busy-line {color:#2f4f6f;font-style:italic}
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
        on_error(VedetteError("this could not be computed (an internal error; the details are in the server's log)"))
        return
    on_result(result)


def _on_server() -> bool:
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class Background(param.Parameterized):
    """One page part's off-loop runner: at most one request in flight (a new one replaces the last)."""

    busy = param.Boolean(default=False)
    label = param.String(default="")

    def __init__(self, budget_s: float | None = None, **params):
        super().__init__(**params)
        self.budget_s = BUDGET_S if budget_s is None else float(budget_s)
        self._generation = 0
        self.last_seconds: float | None = None
        self.spinner = pn.indicators.LoadingSpinner(value=False, size=18, visible=False, width=18, height=18,
                                                    margin=(4, 6))
        self.note = pn.pane.HTML("", css_classes=["busy-note"], stylesheets=[STYLESHEET], margin=(4, 4))
        self.cancel_button = pn.widgets.Button(label="cancel", color="warning", visible=False, width=80,
                                               css_classes=["busy-cancel"])
        self.cancel_button.on_click(lambda _: self.cancel())

    def panel(self) -> pn.Row:
        return pn.Row(self.spinner, self.note, self.cancel_button, css_classes=["busy-box"], margin=0)

    # -- state shown on the page -----------------------------------------------------------------------
    def _show(self, busy: bool, text: str = "") -> None:
        self.busy = busy
        self.spinner.value = busy
        self.spinner.visible = busy
        self.cancel_button.visible = busy
        state = "busy" if busy else "idle"
        self.note.object = (f"<span class='busy-line' data-state='{state}'>{html.escape(text)}</span>"
                            if text else f"<span data-state='{state}'></span>")

    _proc = None

    def _stop_process(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.is_alive():
            proc.kill()

    def cancel(self) -> None:
        """Give up the request in flight: its result will be dropped; the page is free at once."""
        if not self.busy:
            return
        self._generation += 1
        self._stop_process()
        self._show(False, "cancelled: nothing changed")
        self._on_cancel and self._on_cancel(Cancelled("cancelled: nothing changed"))

    _on_cancel: Callable[[Exception], None] | None = None

    # -- running ---------------------------------------------------------------------------------------
    def start(self, fn: Callable[[], Any], on_result: Callable[[Any], None],
              on_error: Callable[[Exception], None], label: str = "computing…", process: bool = False) -> None:
        """Compute ``fn()`` off the event loop, then call ``on_result(value)`` on it (``on_error(exc)`` for a
        VedetteError, the budget running out or a cancel). ``process``: in a child process (see above)."""
        if not _on_server():
            run_now(fn, on_result, on_error)
            return
        self._stop_process()           # a newer request replaces the one in flight
        self._generation += 1
        gen = self._generation
        self._on_cancel = on_error
        self._show(True, label)
        t0 = time.monotonic()
        budget = self.budget_s

        def finish(result=None, error=None):
            if gen != self._generation:      # cancelled, or a newer request replaced this one
                return
            self.last_seconds = time.monotonic() - t0
            self._show(False, "")
            if error is not None:
                on_error(error)
            else:
                on_result(result)

        procs: list = []        # the child process, once the pool thread has started it

        async def waiter():
            loop = asyncio.get_running_loop()
            job = partial(_in_child, fn, procs, self, gen) if process else partial(_guarded, fn)
            fut = loop.run_in_executor(POOL, job)
            try:
                ok, value = await asyncio.wait_for(asyncio.shield(fut), budget)
            except asyncio.TimeoutError:
                ok, value = False, OverBudget(f"stopped: this needs more than the page's time budget of "
                                              f"{budget:g} s; make the input smaller")
            except Exception:  # noqa: BLE001 - the waiting itself failed
                log.exception("a page computation could not be awaited")
                ok, value = False, VedetteError("this could not be computed (the details are in the server's log)")
            for proc in procs:
                if proc.is_alive():
                    proc.kill()
            if ok:
                finish(result=value)
            else:
                finish(error=value)

        if pn.state.loaded:
            pn.state.execute(waiter)
        else:   # built with the page: start once the browser is connected, so the result is not lost
            pn.state.onload(waiter)


def _in_child(fn: Callable[[], Any], procs: list, owner: "Background", gen: int) -> tuple[bool, Any]:
    """Run in a pool thread: start a child process for ``fn`` (starting the fork server the first time, so
    never on the event loop) and wait for its answer; a killed child answers as cancelled."""
    if owner._generation != gen:            # replaced or cancelled while it waited for a pool thread
        return False, Cancelled("stopped: nothing changed")
    ctx = _context()
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child_main, args=(child, fn), daemon=True)
    proc.start()
    child.close()
    procs.append(proc)
    if owner._generation == gen:
        owner._proc = proc
    else:
        proc.kill()
    try:
        return parent.recv()
    except (EOFError, OSError):
        return False, Cancelled("stopped: nothing changed")
    finally:
        parent.close()
        proc.join(5)
        if owner._proc is proc:
            owner._proc = None


def _guarded(fn: Callable[[], Any]) -> tuple[bool, Any]:
    """Run in a pool thread: (True, value), or (False, a VedetteError to show); bugs are logged here."""
    try:
        return True, fn()
    except VedetteError as exc:
        return False, exc
    except Exception:
        log.exception("a page computation failed")
        return False, VedetteError("this could not be computed (an internal error; the details are in the "
                                   "server's log)")
