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

Outside a server (view-model tests, notebooks) :meth:`Background.start` runs the work at once, in the
caller's thread, and calls ``on_result`` or ``on_error`` before returning.
"""
from __future__ import annotations

import asyncio
import html
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import panel as pn
import param

from engine.core.errors import VedetteError

__all__ = ["Background", "Cancelled", "OverBudget", "POOL", "BUDGET_S", "run_now"]

log = logging.getLogger("vedette.dashboards")

WORKERS = max(1, int(os.environ.get("VEDETTE_WORKERS", "4") or 4))
BUDGET_S = float(os.environ.get("VEDETTE_BUDGET_S", "30") or 30)
POOL = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="vedette-calc")

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

    def cancel(self) -> None:
        """Give up the request in flight: its result will be dropped; the page is free at once."""
        if not self.busy:
            return
        self._generation += 1
        self._show(False, "cancelled: nothing changed")
        self._on_cancel and self._on_cancel(Cancelled("cancelled: nothing changed"))

    _on_cancel: Callable[[Exception], None] | None = None

    # -- running ---------------------------------------------------------------------------------------
    def start(self, fn: Callable[[], Any], on_result: Callable[[Any], None],
              on_error: Callable[[Exception], None], label: str = "computing…") -> None:
        """Compute ``fn()`` off the event loop, then call ``on_result(value)`` on it (``on_error(exc)`` for a
        VedetteError, the budget running out or a cancel)."""
        if not _on_server():
            run_now(fn, on_result, on_error)
            return
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

        async def waiter():
            loop = asyncio.get_running_loop()
            fut = loop.run_in_executor(POOL, _guarded, fn)
            try:
                ok, value = await asyncio.wait_for(asyncio.shield(fut), budget)
            except asyncio.TimeoutError:
                ok, value = False, OverBudget(f"stopped: this needs more than the page's time budget of "
                                              f"{budget:g} s; make the input smaller")
            except Exception:  # noqa: BLE001 - the waiting itself failed
                log.exception("a page computation could not be awaited")
                ok, value = False, VedetteError("this could not be computed (the details are in the server's log)")
            if ok:
                finish(result=value)
            else:
                finish(error=value)

        pn.state.execute(waiter)


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
