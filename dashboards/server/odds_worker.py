"""The play page's odds at the speed of a pick (issue 26.3): warm worker processes of the server process
that already hold the games' positions, so a pick sends a position key and an action, never a state.

The worker
----------
A long-lived child process (one, and a second while the first is busy: :data:`PROCESSES`; forked from the fork server of :mod:`dashboards.server.background`, so it
starts with the engine, the page modules and every shipped game's scenarios already read) keeps an
:class:`~engine.core.quick_odds.OddsDesk`. It is started on the first question, and again on the next
question after it died (killed, or a bug): nothing it held is needed again, as every question that finds
its position missing sends it once more. It answers one question at a time, in the order asked:

* ``hold``: a position (its JSON, as the protocol writes it) kept under its key: sent once per commit, by
  the first page that asks about that position (every page of the server shares the worker's positions);
* ``odds``: the exact odds of one action in a held position, as small plain data
  (:func:`engine.core.quick_odds.quick_odds`), worked out from what the asking side may see;
* ``declared``: the odds of each attack a declaration leads to (Napoleonic 20 declares every battle of a
  combat phase in one action, 9.1-9.2): the declaration made in the side's position, then each attack of
  the position it leads to, as ``odds`` answers it;
* ``ahead``: the odds of the attacks a page lists, worked out while the player looks at the position, each
  given up as soon as any other question arrives (the page's pick is then answered first); the answers are
  kept as a pick's would be, so the pick that follows is shown at once;
* ``tree``: the probability tree of one action, drawn as the tree page draws it
  (:func:`dashboards.render.tree_view.tree_html`), only when the player opens it.

A question still in the queue or under way can be **cancelled** (the player picked another action, pressed
*cancel*, or the page's time budget ran out): the enumeration stops at its next check (every 256 steps,
``stop=``) and the worker goes on with the next question. A worker that has not let go of a cancelled
question :data:`GRACE_S` seconds later is killed, and a fresh one started for the next question: no
cancelled question keeps the worker busy. At most :data:`MAX_QUEUE` questions wait at once; past it a
question is refused at once ("busy"), never queued without bound.

In the server
-------------
:func:`odds_worker` is the server process's :class:`OddsWorker` (its processes); :meth:`OddsWorker.ask` is called from a
thread (never the event loop: it waits for the answer). The answers are kept in :data:`ANSWERS`, by
position key, question, action and side, so the same pick on any page of this server is answered at once
(:func:`known`). Every input is bounded before it is sent: the key (``MAX_KEY_CHARS``), the action
(``MAX_ACTION_CHARS``), the position (:data:`MAX_STATE_CHARS`); the work by the page's bounds.
"""
from __future__ import annotations

import itertools
import json
import logging
import os
import pickle
import queue
import signal
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future
from typing import Any, Callable

from engine.core.errors import VedetteError
from engine.core.odds import MAX_STEPS

__all__ = ["OddsWorker", "LocalOdds", "Ticket", "Refusal", "Refused", "MAX_AHEAD", "AHEAD_BUDGET_S", "odds_worker", "known", "remember", "ANSWERS", "MAX_QUEUE", "GRACE_S", "WorkerBusy",
           "PAGE_MAX_OUTCOMES", "PAGE_MAX_STEPS", "HIDDEN", "MAX_STATE_CHARS", "MAX_DECLARED", "shutdown"]

log = logging.getLogger("vedette.dashboards")

#: odds worker processes per server process (``$VEDETTE_ODDS_PROCESSES``): a second one answers the other pages'
#: picks while one works out a long enumeration
PROCESSES = int(os.environ.get("VEDETTE_ODDS_PROCESSES", "2") or 2)
#: questions that may wait for the worker at once (one per page part in flight; the rest are refused)
MAX_QUEUE = int(os.environ.get("VEDETTE_ODDS_QUEUE", "16") or 16)
#: seconds a cancelled question may keep the worker before the worker is killed (and started again)
GRACE_S = float(os.environ.get("VEDETTE_ODDS_GRACE_S", "2") or 2)


def _bound(name: str, default: int, most: int) -> int:
    """A whole number from ``$name`` between 1 and ``most`` (the default when unset or not a number)."""
    text = os.environ.get(name, "").strip().replace("_", "").replace(",", "")
    if not text.isdigit():
        return default
    return min(max(int(text), 1), most)


#: the end positions an odds request from the page may reach (docs/limits.md; ``$VEDETTE_ODDS_MAX_OUTCOMES``,
#: at most 2,000,000): wider than the engine's default, as a Battle Commander assault ends in about 10,000
#: positions; the page's budget guards the time
PAGE_MAX_OUTCOMES = _bound("VEDETTE_ODDS_MAX_OUTCOMES", 20_000, 2_000_000)
#: the enumeration steps an odds request from the page may take (``$VEDETTE_ODDS_MAX_STEPS``, at most 100 times
#: the engine's default, which it is unless set): a club whose server is fast may let the page work out longer odds
PAGE_MAX_STEPS = _bound("VEDETTE_ODDS_MAX_STEPS", MAX_STEPS, 100 * MAX_STEPS)
#: the longest position JSON the worker is sent (a shipped game's position is about 10,000 characters)
MAX_STATE_CHARS = 2_000_000
#: the most attacks a declaration's odds are worked out for (a combat phase's battles, 9.1)
MAX_DECLARED = 12
#: the most attacks of a position worked out ahead of the player's pick (:meth:`OddsWorker.ask` ``ahead``)
MAX_AHEAD = 12
#: seconds of work ahead per position at most: the quick attacks are ready before they are picked, a long
#: enumeration is left for the pick that wants it (its busy line and cancel); 0: no work ahead
AHEAD_BUDGET_S = float(os.environ.get("VEDETTE_ODDS_AHEAD_S", "3") or 3)
#: positions the worker keeps (a few per open game: the last commits of each)
HELD = 64
#: the refusal, in a player's words, of odds a side may not be shown (16.1 fog of war, 15.0 hands)
HIDDEN = ("this game hides part of the position from you (16.1 fog of war, 15 hands): its odds are not shown "
          "before the action is made")
_INTERNAL = "the odds could not be worked out (an internal error; the details are in the server's log)"
#: how ``seen_by`` travels: ("whole",) for the whole position, ("side", side or None) for a side's view
WHOLE_TAG = ("whole",)


class WorkerBusy(VedetteError):
    """Too many questions wait for the odds worker already."""


class Refused(VedetteError):
    """The worker's refusal of a question (an illegal action, a bound passed, odds the side may not see),
    in a player's words: the same question gets the same refusal."""


class _NotHeld(Exception):
    """The worker does not hold that position (it was started again, or dropped it): send it again."""


class _Gone(Exception):
    """The worker died before it answered (killed: a cancel it ignored, or a crash)."""


# ---------------------------------------------------------------------------------------------------
# In the worker process
# ---------------------------------------------------------------------------------------------------
def _seen(tag: Any) -> Any:
    from engine.core.quick_odds import WHOLE
    if tag == WHOLE_TAG:
        return WHOLE
    return tag[1]


def _words(exc: Exception) -> str:
    from engine.core.odds import OddsLimitError, bound_words
    from engine.core.quick_odds import OddsHidden
    if isinstance(exc, OddsHidden):     # said in our words: the engine's message names the action's pieces
        return HIDDEN
    if isinstance(exc, OddsLimitError):     # the same: the bound and how far it got, in a player's words
        return bound_words(exc)
    return str(exc)[:400]


class _Desk:
    """What the worker process does with each question (one at a time)."""

    def __init__(self) -> None:
        from engine.core.quick_odds import OddsDesk
        import engine.systems  # noqa: F401 - registers the shipped systems
        self.desk = OddsDesk(positions=HELD, max_outcomes=PAGE_MAX_OUTCOMES, max_steps=PAGE_MAX_STEPS)
        self.rules: dict[str, Any] = {}

    def rules_of(self, system: str) -> Any:
        from engine.core.game import system_of
        r = self.rules.get(system)
        if r is None:
            r = self.rules[system] = system_of(system)
        return r

    def hold(self, key: str, system: str, state_json: Any, tables: Any = None) -> None:
        """Keep the position ``key``; ``tables``: the player's own tables its game plays with (their record
        form, ``GameTables.to_json``; None: the shipped charts), so the odds use the same rules as the game
        (:func:`engine.core.tables.rules_for`; the page's key differs for other tables)."""
        rules = self.rules_of(system)
        if tables is not None:
            from engine.core.tables import tables_from_json
            rules = rules.with_tables(tables_from_json(rules, tables))
        self.desk.hold(rules, rules.state_from_json(state_json), key)

    def odds(self, key: str, action: Any, seen: Any, stop: Callable[[], bool]) -> dict[str, Any]:
        if not self.desk.holds(key):
            raise _NotHeld()
        return self.desk.odds(key, action, seen_by=_seen(seen), stop=stop)

    def declared(self, key: str, action: Any, seen: Any, stop: Callable[[], bool]) -> list[dict[str, Any]]:
        """The odds of each attack of the position ``action`` (a declaration) leads to, in the side's
        position (:func:`engine.core.quick_odds.odds_position`: refused where the side may not see them)."""
        from engine.core.quick_odds import WHOLE, odds_position, quick_odds, read_action
        if not self.desk.holds(key):
            raise _NotHeld()
        rules, state = self.desk.position(key)
        act = read_action(rules, action)
        rules.check(state, act)
        position = odds_position(rules, state, act, _seen(seen))
        after, _ = rules.apply(position, act)          # a declaration rolls no die: the position it leads to
        attacks = list(rules.attack_candidates(after))[:MAX_DECLARED]
        return [quick_odds(rules, after, a, max_outcomes=PAGE_MAX_OUTCOMES, max_steps=PAGE_MAX_STEPS, stop=stop,
                           seen_by=WHOLE)
                for a in attacks]

    def ahead(self, key: str, actions: Any, seen: Any, stop: Callable[[], bool]) -> list[tuple[Any, bool, Any]]:
        """The odds of each of ``actions`` worked out ahead of the player's pick, until a question arrives
        (``stop``): ``(action, True, data)`` or ``(action, False, refusal)`` for each one done."""
        from engine.core.odds import OddsCancelled
        if not self.desk.holds(key):
            raise _NotHeld()
        out: list[tuple[Any, bool, Any]] = []
        for a in list(actions)[:MAX_AHEAD]:
            if stop():
                break
            try:
                out.append((a, True, self.desk.odds(key, a, seen_by=_seen(seen), stop=stop)))
            except OddsCancelled:
                break
            except VedetteError as exc:
                out.append((a, False, _words(exc)))
        return out

    def tree(self, key: str, action: Any, seen: Any, stop: Callable[[], bool]) -> str:
        from engine.core.quick_odds import action_tree
        from dashboards.render.tree_view import tree_html
        if not self.desk.holds(key):
            raise _NotHeld()
        rules, state = self.desk.position(key)
        tree = action_tree(rules, state, action, max_outcomes=PAGE_MAX_OUTCOMES, max_steps=PAGE_MAX_STEPS, stop=stop,
                           seen_by=_seen(seen))
        return tree_html(tree, fmt_result=str, open_depth=1)


_HANDLERS: dict[str, Callable[..., Any]] = {
    "odds": _Desk.odds,
    "declared": _Desk.declared,
    "tree": _Desk.tree,
    "ahead": _Desk.ahead,
}


def _worker_main(conn, lifeline) -> None:
    """The worker: a reader thread takes every message off the pipe at once (a cancel must reach the
    question under way), the main thread answers the questions in order, ``(id, ok, value)``."""
    from dashboards.server.worker_pool import watch_lifeline
    from engine.core.odds import OddsCancelled

    signal.signal(signal.SIGINT, signal.SIG_IGN)       # Ctrl-C reaches the server, which stops the worker
    threading.Thread(target=watch_lifeline, args=(lifeline,), name="vedette-lifeline", daemon=True).start()
    desk = _Desk()
    inbox: queue.Queue = queue.Queue()
    cancelled: set[int] = set()

    def read() -> None:
        while True:
            try:
                msg = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):
                inbox.put(None)
                return
            if msg[0] == "cancel":
                cancelled.add(msg[1])
            else:
                inbox.put(msg)
    threading.Thread(target=read, name="vedette-odds-inbox", daemon=True).start()

    def stop_of(rid: int, give_way: bool = False) -> Callable[[], bool]:
        """Whether question ``rid`` is to stop now: cancelled, or (``give_way``) another question waits."""
        def stop() -> bool:
            return rid in cancelled or (give_way and not inbox.empty())
        return stop

    while True:
        msg = inbox.get()
        if msg is None:
            return
        op, rid, *args = msg
        if rid in cancelled:
            out: tuple = (rid, False, ("cancelled", "cancelled"))
        else:
            try:
                if op == "hold":
                    desk.hold(*args)
                    out = (rid, True, None)
                elif op == "pid":
                    out = (rid, True, os.getpid())
                elif op == "ahead":         # gives way to any question that arrives meanwhile
                    key, actions, seen = args
                    out = (rid, True, desk.ahead(key, actions, seen, stop=stop_of(rid, give_way=True)))
                else:
                    out = (rid, True, _HANDLERS[op](desk, *args, stop=stop_of(rid)))
            except _NotHeld:
                out = (rid, False, ("notheld", ""))
            except OddsCancelled:
                out = (rid, False, ("cancelled", "cancelled"))
            except VedetteError as exc:
                out = (rid, False, ("error", _words(exc)))
            except Exception:  # noqa: BLE001 - a bug: logged here, a short line to the page
                log.exception("the odds worker failed on a question")
                out = (rid, False, ("error", _INTERNAL))
        cancelled.discard(rid)
        try:
            conn.send_bytes(pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))
        except (EOFError, OSError):
            return
        except Exception:  # noqa: BLE001 - an answer that does not pickle (a bug)
            log.exception("the odds worker's answer could not be sent")
            conn.send_bytes(pickle.dumps((rid, False, ("error", _INTERNAL))))


# ---------------------------------------------------------------------------------------------------
# In the server
# ---------------------------------------------------------------------------------------------------
class _Process:
    """One worker process: its pipe, its lifeline, and the thread that reads its answers."""

    def __init__(self, owner: "OddsWorker") -> None:
        from dashboards.server.worker_pool import context
        ctx = context()
        conn, child = ctx.Pipe(duplex=True)
        life_r, life_w = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_worker_main, args=(child, life_r), name="vedette-odds", daemon=True)
        self.proc.start()
        child.close()
        life_r.close()
        self.conn, self.lifeline = conn, life_w
        self.send_lock = threading.Lock()
        self.pending: dict[int, Future] = {}
        self.held: OrderedDict[str, None] = OrderedDict()      # the keys this process was sent (newest last)
        self.dead = False
        self.reader = threading.Thread(target=owner._read, args=(self,), name="vedette-odds-answers", daemon=True)
        self.reader.start()

    def send(self, msg: tuple) -> None:
        data = pickle.dumps(msg, protocol=pickle.HIGHEST_PROTOCOL)
        with self.send_lock:
            self.conn.send_bytes(data)

    def kill(self) -> None:
        self.dead = True
        try:
            self.proc.kill()
        except (OSError, ValueError, AttributeError):
            pass

    def close(self) -> None:
        from dashboards.server.worker_pool import end_process
        self.dead = True
        end_process(self.proc, self.conn, self.lifeline)


class Ticket:
    """One question in flight, as its asker holds it: :meth:`cancel` from any thread (the page moved on)."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


class OddsWorker:
    """The server process's warm odds workers (module docstring): ``size`` processes at most, started as
    needed. A question goes to an idle process that holds its position, else to any idle one (which is sent
    the position), else to a new one while fewer than ``size`` run, else it waits behind the fewest
    questions: one long enumeration never holds up every other page's picks. Thread-safe; :meth:`ask`
    blocks."""

    def __init__(self, size: int = PROCESSES, max_queue: int = MAX_QUEUE, grace_s: float = GRACE_S) -> None:
        self.size, self.max_queue, self.grace_s = max(1, size), max_queue, grace_s
        self._lock = threading.Lock()
        self._procs: list[_Process] = []
        self._ids = itertools.count(1)
        self._closed = False
        self._pid = os.getpid()
        self.holds_sent = 0          # positions sent to a worker (for tests and the benchmarks)
        self.restarts = 0

    # -- the processes -----------------------------------------------------------------------------------
    def _route(self, key: str | None) -> _Process:
        """The process to ask about position ``key`` (see the class docstring)."""
        with self._lock:
            if os.getpid() != self._pid:          # forked from the server: not this process's workers
                self._pid, self._procs = os.getpid(), []
            for p in [p for p in self._procs if p.dead or not p.proc.is_alive()]:
                self.restarts += 1
                self._fail_all(p)
                self._procs.remove(p)
                threading.Thread(target=p.close, daemon=True).start()
            idle = [p for p in self._procs if not p.pending]
            pick = next((p for p in idle if key in p.held), None) or (idle[0] if idle else None)
            if pick is None and len(self._procs) < self.size:
                pick = _Process(self)
                self._procs.append(pick)
            if pick is None:
                pick = min(self._procs, key=lambda p: (key not in p.held, len(p.pending)))
            return pick

    def _fail_all(self, p: _Process) -> None:
        p.dead = True
        for fut in list(p.pending.values()):
            if not fut.done():
                fut.set_exception(_Gone())
        p.pending.clear()

    def _read(self, p: _Process) -> None:
        """The answers of ``p``, each to its question's future; EOF: the process is gone."""
        while True:
            try:
                rid, ok, value = pickle.loads(p.conn.recv_bytes())
            except (EOFError, OSError):
                with self._lock:
                    self._fail_all(p)
                return
            except Exception:  # noqa: BLE001 - an answer that does not unpickle (a bug)
                log.exception("an answer of the odds worker could not be read")
                continue
            with self._lock:
                fut = p.pending.pop(rid, None)
            if fut is not None and not fut.done():
                fut.set_result((ok, value))

    def warm(self) -> None:
        """Start a worker now if none runs (a play page is shown: its first pick need not wait for one)."""
        if not self._closed and not self.pids():
            self._route(None)

    def pid(self) -> int | None:
        """The process id of the worker the next question would go to (started if need be)."""
        return self._ask_raw(self._route(None), "pid", (), Ticket(), 30.0)

    def pids(self) -> list[int]:
        with self._lock:
            return [p.proc.pid for p in self._procs if not p.dead and p.proc.pid is not None]

    def kill(self) -> None:
        """Kill the worker processes now (a test); the next question starts one."""
        with self._lock:
            procs = list(self._procs)
        for p in procs:
            p.kill()

    def shutdown(self) -> None:
        self._closed = True
        with self._lock:
            procs, self._procs = list(self._procs), []
        if os.getpid() == self._pid:
            for p in procs:
                p.close()

    # -- questions ---------------------------------------------------------------------------------------
    def _send(self, p: _Process, op: str, args: tuple) -> tuple[int, Future]:
        rid = next(self._ids)
        fut: Future = Future()
        with self._lock:
            if p.dead:
                raise _Gone()
            if len(p.pending) >= self.max_queue:
                raise WorkerBusy(f"the odds are busy with {len(p.pending)} other questions: pick the action again "
                                 f"in a moment")
            p.pending[rid] = fut
        try:
            p.send((op, rid, *args))
        except (OSError, ValueError, EOFError):
            p.kill()
            with self._lock:
                p.pending.pop(rid, None)
            raise _Gone() from None
        return rid, fut

    def _cancel(self, p: _Process, rid: int, fut: Future) -> None:
        """Tell the worker to drop question ``rid``; kill it if it has not let go within the grace."""
        try:
            p.send(("cancel", rid))
        except (OSError, ValueError, EOFError):
            return

        def watch() -> None:
            if not fut.done():
                log.warning("the odds worker did not let go of a cancelled question within %.1f s: started again",
                            self.grace_s)
                p.kill()
        t = threading.Timer(self.grace_s, watch)
        t.daemon = True
        t.start()

    def _ask_raw(self, p: _Process, op: str, args: tuple, ticket: Ticket, budget_s: float) -> Any:
        from dashboards.server.background import Cancelled, OverBudget
        rid, fut = self._send(p, op, args)
        end = time.monotonic() + budget_s
        while True:
            try:
                ok, value = fut.result(timeout=0.05)
                break
            except TimeoutError:
                pass
            if ticket.cancelled:
                self._cancel(p, rid, fut)
                raise Cancelled("cancelled: nothing changed")
            if time.monotonic() > end:
                self._cancel(p, rid, fut)
                raise OverBudget(f"stopped: these odds need more than the page's time budget of {budget_s:g} s")
        if ok:
            return value
        kind, text = value
        if kind == "notheld":
            raise _NotHeld()
        if kind == "cancelled":
            raise Cancelled("cancelled: nothing changed")
        raise Refused(text)

    def _hold(self, p: _Process, key: str, system: str, state_json: Callable[[], Any], tables: Any = None) -> Future:
        """Send the position to ``p`` without waiting: the worker answers in order, so the question sent next
        finds it held (or this future says why it could not be)."""
        data = state_json()
        size = len(json.dumps(data, separators=(",", ":"), default=str))
        if tables is not None:
            size += len(json.dumps(tables, separators=(",", ":"), default=str))
        if size > MAX_STATE_CHARS:
            from engine.core.errors import LimitError
            raise LimitError("position: characters", MAX_STATE_CHARS, size)
        _, fut = self._send(p, "hold", (key, system, data, tables))
        with self._lock:
            p.held[key] = None
            p.held.move_to_end(key)
            while len(p.held) > HELD:
                p.held.popitem(last=False)
        self.holds_sent += 1
        return fut

    def ask(self, op: str, key: str, system: str, state_json: Callable[[], Any], action_json: Any,
            seen_by: Any, ticket: Ticket | None = None, budget_s: float = 30.0, tables: Any = None) -> Any:
        """The worker's answer to ``op`` (``odds``, ``declared``, ``tree``) about ``action_json`` in the
        position ``key`` (of ``system``), as ``seen_by`` may see it. The position is sent (``state_json()``)
        only to a worker that was not sent it yet, or no longer holds it. Raises the refusal (a
        VedetteError in a player's words), ``Cancelled`` when ``ticket`` is cancelled meanwhile,
        ``OverBudget`` past ``budget_s`` seconds, :class:`WorkerBusy` when too many questions wait.
        ``tables``: the game's own tables (record form) sent with the position, None for the shipped ones."""
        from engine.core.quick_odds import MAX_ACTION_CHARS, MAX_KEY_CHARS, WHOLE
        if op not in _HANDLERS:
            raise VedetteError(f"odds: no question {op[:20]!r}")
        if not isinstance(key, str) or not key or len(key) > MAX_KEY_CHARS:
            raise VedetteError("odds: the position's key is missing or too long")
        most = MAX_ACTION_CHARS * (MAX_AHEAD if op == "ahead" else 1)
        if len(json.dumps(action_json, separators=(",", ":"), default=str)) > most:
            raise VedetteError(f"odds: the action is longer than {most} characters")
        seen = WHOLE_TAG if seen_by is WHOLE else ("side", seen_by)
        ticket = ticket or Ticket()
        for _ in range(3):
            p = self._route(key)
            held = None
            try:
                if key not in p.held:
                    held = self._hold(p, key, system, state_json, tables)
                return self._ask_raw(p, op, (key, action_json, seen), ticket, budget_s)
            except _NotHeld:
                with self._lock:
                    p.held.pop(key, None)
                if held is not None and held.done() and held.exception() is None:
                    ok, value = held.result()
                    if not ok and value[0] == "error":      # the position itself was refused: say why
                        raise Refused(value[1]) from None
            except _Gone:
                if ticket.cancelled:
                    from dashboards.server.background import Cancelled
                    raise Cancelled("cancelled: nothing changed") from None
        raise VedetteError("the odds could not be worked out: the odds worker stopped; pick the action again")


class LocalOdds:
    """The same questions answered in this process, in the asking thread (a notebook, ``process=False``):
    no worker process, the cancel checked by the enumeration itself."""

    def __init__(self) -> None:
        self._desk: _Desk | None = None
        self._lock = threading.Lock()
        self.holds_sent = 0

    def ask(self, op: str, key: str, system: str, state_json: Callable[[], Any], action_json: Any,
            seen_by: Any, ticket: Ticket | None = None, budget_s: float = 30.0, tables: Any = None) -> Any:
        from engine.core.odds import OddsCancelled, OddsLimitError
        from engine.core.quick_odds import OddsHidden, WHOLE
        from dashboards.server.background import Cancelled, OverBudget
        if op not in _HANDLERS:
            raise VedetteError(f"odds: no question {op[:20]!r}")
        with self._lock:
            if self._desk is None:
                self._desk = _Desk()
            desk = self._desk
        if not desk.desk.holds(key):
            desk.hold(key, system, state_json(), tables)
            self.holds_sent += 1
        ticket = ticket or Ticket()
        end = time.monotonic() + budget_s
        seen = WHOLE_TAG if seen_by is WHOLE else ("side", seen_by)
        try:
            return _HANDLERS[op](desk, key, action_json, seen, stop=lambda: ticket.cancelled or time.monotonic() > end)
        except OddsCancelled:
            if ticket.cancelled:
                raise Cancelled("cancelled: nothing changed") from None
            raise OverBudget(f"stopped: these odds need more than the page's time budget of {budget_s:g} s") from None
        except (OddsHidden, OddsLimitError) as exc:
            raise VedetteError(_words(exc)) from None


_WORKER: OddsWorker | None = None
_WORKER_LOCK = threading.Lock()


def odds_worker() -> OddsWorker:
    """This server process's odds worker (made on first use; its process starts with the first question)."""
    global _WORKER
    with _WORKER_LOCK:
        if _WORKER is None or _WORKER._closed:
            _WORKER = OddsWorker()
            import atexit
            atexit.register(_WORKER.shutdown)
        return _WORKER


def shutdown() -> None:
    """Stop this process's odds worker (``vedette-serve`` at exit)."""
    with _WORKER_LOCK:
        w = _WORKER
    if w is not None:
        w.shutdown()


# ---------------------------------------------------------------------------------------------------
# The server's answers, shared by every page of the process
# ---------------------------------------------------------------------------------------------------
class _Answers:
    """At most ``size`` answers by (position key, question, action, side), least recently used dropped."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._d: OrderedDict[tuple, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0

    def get(self, k: tuple) -> Any:
        with self._lock:
            v = self._d.get(k)
            if v is not None:
                self._d.move_to_end(k)
                self.hits += 1
            return v

    def put(self, k: tuple, v: Any) -> None:
        with self._lock:
            self._d[k] = v
            self._d.move_to_end(k)
            while len(self._d) > self.size:
                self._d.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._d.clear()


#: the answers of this server process: odds and declarations' odds as data (a few kilobytes each) ...
ANSWERS = _Answers(512)
#: ... and trees as drawn (up to a megabyte each: fewer of them)
TREES = _Answers(16)


class Refusal(str):
    """A refusal kept as an answer (an illegal action, a bound passed, hidden odds): the same pick again is
    refused at once, in the same words."""


def answer_key(op: str, key: str, action_json: Any, seen_by: Any) -> tuple:
    from engine.core.quick_odds import WHOLE
    side = WHOLE_TAG if seen_by is WHOLE else ("side", seen_by)
    return (key, op, json.dumps(action_json, sort_keys=True, separators=(",", ":"), default=str), side)


def known(op: str, key: str, action_json: Any, seen_by: Any) -> Any:
    """The answer kept for this question, or None."""
    return (TREES if op == "tree" else ANSWERS).get(answer_key(op, key, action_json, seen_by))


def remember(op: str, key: str, action_json: Any, seen_by: Any, value: Any) -> None:
    (TREES if op == "tree" else ANSWERS).put(answer_key(op, key, action_json, seen_by), value)
