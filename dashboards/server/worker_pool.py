"""The worker processes behind :class:`dashboards.server.background.Background`: their settings (sizes,
priorities, budgets, read from ``$VEDETTE_*``), the fork server's context, the code a worker process runs
(:func:`worker_main`, :func:`stop_requested`, :func:`step_aside`) and the server's pool of them
(:class:`WorkerPool`, :func:`get_pool`, :func:`warm_up`, :func:`shutdown`). See
:mod:`dashboards.server.background` for how a page's request uses them."""
from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import pickle
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from engine.core.errors import VedetteError

log = logging.getLogger("vedette.dashboards")



def _env_int(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, "") or default))
    except ValueError:
        return default


#: worker processes per server process: half the CPUs, at least 2 and at most 4 (a laptop's share)
PROCESSES = _env_int("VEDETTE_PROCESSES", min(4, max(2, (os.cpu_count() or 2) // 2)))
#: threads that wait on the workers (one per worker) and run the work that cannot go to a process
WORKERS = _env_int("VEDETTE_WORKERS", 4)
#: how much lower the workers' CPU priority is than the server's (``nice``; 0 = the same)
NICE = int(os.environ.get("VEDETTE_WORKER_NICE", "0") or 0)
BUDGET_S = float(os.environ.get("VEDETTE_BUDGET_S", "30") or 30)
#: seconds after which a request counts as long: its worker then steps aside (:func:`step_aside`)
QUICK_S = float(os.environ.get("VEDETTE_QUICK_S", "0.3") or 0)
#: the niceness of a worker running a long request (19: the lowest priority)
LONG_NICE = int(os.environ.get("VEDETTE_LONG_NICE", "19") or 19)
#: whether a worker running a long request also leaves the server's scheduling group (autogroup) for one of
#: its own at :data:`LONG_NICE`: it then gives way to a browser on the same desktop too, but on a machine
#: busy with other work it may hardly run at all (measured: a 2 s cube cup took 34 s), so it is off unless
#: ``VEDETTE_LONG_AUTOGROUP=1``
LONG_AUTOGROUP = os.environ.get("VEDETTE_LONG_AUTOGROUP", "0") not in ("0", "", "no")
#: whether every request's hop times (see :func:`_hops`) go to the server's log (``VEDETTE_LOG_HOPS=1``)
LOG_HOPS = os.environ.get("VEDETTE_LOG_HOPS", "0") not in ("0", "", "no")
#: whether a worker running a long request keeps to one CPU ("0" to let it use them all)
LONG_PIN = os.environ.get("VEDETTE_LONG_PIN", "1") not in ("0", "", "no")
#: seconds a worker whose request asked :func:`stop_requested` is given to end it once stopped, before it is killed
GRACE_S = float(os.environ.get("VEDETTE_GRACE_S", "1") or 1)
POOL = ThreadPoolExecutor(max_workers=PROCESSES + WORKERS, thread_name_prefix="vedette-calc")
#: what the fork server imports once (each worker then starts with it loaded)
PRELOAD = ["dashboards.server.calc_preload"]
_CTX = None
_CTX_LOCK = threading.Lock()

INTERNAL = "this could not be computed (an internal error; the details are in the server's log)"


def context():
    global _CTX
    with _CTX_LOCK:
        if _CTX is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(PRELOAD)
            _CTX = ctx
        return _CTX


# ---------------------------------------------------------------------------------------------------
# In a worker process
# ---------------------------------------------------------------------------------------------------
#: in a worker process: its two shared flags (``[0]`` stop requested, ``[1]`` the request asked), set by
#: :func:`worker_main`; ``None`` in the server
_FLAGS = None
#: in a pool thread running a request: ``given_up`` of that request (see :func:`_in_thread`)
HERE = threading.local()

#: the flags' places
STOP, ASKED = 0, 1


def stop_requested() -> bool:
    """Whether the request this code runs for has been given up (cancelled, past its budget, replaced by a
    newer one): pass it as ``stop=`` to work that can end early. In a worker process it reads the stop
    flag the server sets, and tells the server this request asks (so it is stopped, not killed); in a pool
    thread it asks that thread's request; elsewhere (outside a server) it is False."""
    flags = _FLAGS
    if flags is not None:
        flags[ASKED] = 1
        return bool(flags[STOP])
    given_up = getattr(HERE, "given_up", None)
    return bool(given_up is not None and given_up())


def watch_lifeline(lifeline) -> None:
    """A worker's watchdog thread: the server holds the other end of this pipe; EOF means it is gone."""
    try:
        lifeline.recv_bytes()
    except (EOFError, OSError):
        pass
    os._exit(0)


def lower_priority() -> None:
    """Run at ``NICE`` (unless lower already): a long enumeration gives way to the server's own work (page
    builds, callbacks). The fork server calls it before it loads the modules, its workers inherit it."""
    if NICE and hasattr(os, "nice"):
        try:
            now = os.nice(0)
            if now < NICE:
                os.nice(NICE - now)
        except OSError:
            pass


def _threads() -> list[int]:
    """The thread ids of this process (Linux: priority and CPU affinity are per thread)."""
    try:
        return [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        return [0]


def step_aside() -> list[str]:
    """Make this worker give way to everything else on the machine, for the rest of its (long) request:

    * ``nice`` :data:`LONG_NICE` on every thread (Linux keeps a niceness per thread);
    * with ``VEDETTE_LONG_AUTOGROUP=1``, its own scheduling group at that niceness: on Linux with
      autogroups (most desktops), ``nice`` only ranks processes of one session, and a browser on the same
      laptop is in another session, so the worker leaves the server's session (``setsid``) and lowers its
      new group's weight (``/proc/self/autogroup``); off by default, as a machine busy with other work then
      starves the request;
    * one CPU only (the last one it may use) when there are several: the other CPUs stay free for the
      server and the browsers, whatever the worker does.

    Each step is best effort (another system, a container that forbids it). Returns the steps taken."""
    done = []
    if hasattr(os, "setpriority"):
        for tid in _threads():
            try:
                if os.getpriority(os.PRIO_PROCESS, tid) < LONG_NICE:
                    os.setpriority(os.PRIO_PROCESS, tid, LONG_NICE)
                done.append("nice")
            except OSError:
                pass
    if LONG_AUTOGROUP and hasattr(os, "setsid") and os.path.exists("/proc/self/autogroup"):
        try:
            if os.getsid(0) != os.getpid():
                os.setsid()
            with open("/proc/self/autogroup", "w") as f:
                f.write(str(LONG_NICE))
            done.append("autogroup")
        except OSError:
            pass
    if LONG_PIN and hasattr(os, "sched_setaffinity"):
        try:
            cpus = sorted(os.sched_getaffinity(0))
            if len(cpus) >= 2:
                for tid in _threads():
                    try:
                        os.sched_setaffinity(tid, {cpus[-1]})
                    except OSError:
                        pass
                done.append(f"cpu {cpus[-1]}")
        except OSError:
            pass
    return sorted(set(done))


def worker_state(wait_s: float = 0.0) -> dict:
    """What a worker's priority is now, after ``wait_s`` seconds of work (for tests and the load script):
    pid, niceness of the calling thread, session id, the CPUs it may use."""
    if wait_s > 0:
        time.sleep(wait_s)
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    return {"pid": os.getpid(), "nice": os.getpriority(os.PRIO_PROCESS, 0) if hasattr(os, "getpriority") else 0,
            "sid": os.getsid(0) if hasattr(os, "getsid") else 0, "cpus": cpus}


def worker_main(conn, lifeline, flags=None) -> None:
    """A worker process: run the jobs that arrive on ``conn``, one at a time, answering ``(ok, value,
    retire)``. A job still running after :data:`QUICK_S` is a long one: the worker steps aside
    (:func:`step_aside`) and, once it has answered, ends (``retire``): a fresh worker at the normal worker
    priority serves the next request, so a quick request never waits behind a demoted one."""
    global _FLAGS
    _FLAGS = flags
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C reaches the server, which stops the workers
    lower_priority()    # (the fork server has done it already: then this changes nothing)
    threading.Thread(target=watch_lifeline, args=(lifeline,), name="vedette-lifeline", daemon=True).start()
    aside: list[str] = []

    def long_request():
        aside[:] = step_aside() or ["tried"]

    while True:
        try:
            payload = conn.recv_bytes()
        except (EOFError, OSError):
            return
        timer = threading.Timer(QUICK_S, long_request) if QUICK_S > 0 else None
        if timer is not None:
            timer.daemon = True
            timer.start()
        took = 0.0
        try:
            fn = pickle.loads(payload)
        except Exception:  # noqa: BLE001 - e.g. a module that fails to import here
            log.exception("a page computation could not be unpickled in its worker")
            ok, value = False, VedetteError(INTERNAL)
        else:
            c0 = time.perf_counter()
            ok, value = guarded(fn)
            took = time.perf_counter() - c0
        if timer is not None:
            timer.cancel()
            timer.join()
        retire = bool(aside)
        try:
            answer = pickle.dumps((ok, value, retire, took), protocol=pickle.HIGHEST_PROTOCOL)
            pickle.loads(answer)        # an exception whose constructor takes other arguments does not unpickle
        except Exception:  # noqa: BLE001
            if ok:
                log.exception("a page computation's result could not be sent back")
                answer = pickle.dumps((False, VedetteError(INTERNAL), retire))
            else:
                answer = pickle.dumps((False, VedetteError(str(value)), retire))
        try:
            conn.send_bytes(answer)
        except (EOFError, OSError):
            return
        if retire:
            return


# ---------------------------------------------------------------------------------------------------
# In the server: the pool of workers
# ---------------------------------------------------------------------------------------------------
class Worker:
    """One worker process, its job pipe and its lifeline (the server's end)."""

    def __init__(self, ctx):
        conn, child_conn = ctx.Pipe(duplex=True)
        life_r, life_w = ctx.Pipe(duplex=False)
        #: shared with the worker: [stop requested, its request asked stop_requested()] (see stop_requested)
        self.flags = ctx.RawArray("b", 2)
        self.proc = ctx.Process(target=worker_main, args=(child_conn, life_r, self.flags), name="vedette-calc",
                                daemon=True)
        self.proc.start()
        child_conn.close()
        life_r.close()
        self.conn, self._lifeline = conn, life_w

    @property
    def pid(self) -> int | None:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.is_alive()

    retired = False      # it stepped aside for a long request and ends after answering it
    last_compute_s: float | None = None     # how long its last job computed, as the worker measured it

    def run(self, payload: bytes) -> tuple[bool, Any]:
        """Send a job and wait for its answer (EOFError/OSError when the worker was killed meanwhile)."""
        self.conn.send_bytes(payload)
        ok, value, *rest = pickle.loads(self.conn.recv_bytes())
        self.retired = bool(rest and rest[0])
        self.last_compute_s = rest[1] if len(rest) > 1 else None
        return ok, value

    def ready(self) -> None:
        """Clear the flags for a new request (the worker is idle: nothing reads them meanwhile)."""
        self.flags[STOP] = 0
        self.flags[ASKED] = 0

    def asks(self) -> bool:
        """Whether its request has asked :func:`stop_requested` (then it can be stopped, not killed)."""
        return bool(self.flags[ASKED])

    def request_stop(self) -> None:
        self.flags[STOP] = 1

    def kill(self) -> None:
        try:
            self.proc.kill()
        except (OSError, ValueError, AttributeError):
            pass

    def close(self) -> None:
        end_process(self.proc, self.conn, self._lifeline)


def end_process(proc: Any, *pipes: Any) -> None:
    """Stop a worker process for good: kill it, close its pipes and reap it (any step may be done already)."""
    try:
        proc.kill()
    except (OSError, ValueError, AttributeError):
        pass
    for c in pipes:
        try:
            c.close()
        except OSError:
            pass
    try:
        proc.join(5)
    except (OSError, ValueError, AssertionError):
        pass


class WorkerPool:
    """At most ``size`` worker processes, started on demand; one job per worker at a time."""

    def __init__(self, size: int):
        self.size = size
        self._lock = threading.Lock()
        self._slots = threading.Semaphore(size)
        self._idle: list[Worker] = []
        self._all: list[Worker] = []
        self._closed = False
        self._pid = os.getpid()

    def _mine(self) -> bool:
        """False in a process forked from the one that made the pool (its workers are not ours to use)."""
        if os.getpid() != self._pid:
            with self._lock:
                self._pid, self._idle, self._all = os.getpid(), [], []
                self._slots = threading.Semaphore(self.size)
        return not self._closed

    def _spawn(self) -> Worker:
        w = Worker(context())
        with self._lock:
            self._all.append(w)
        return w

    def start(self) -> None:
        """Start every worker now (warm-up), so the first requests do not wait for them."""
        self._mine()
        with self._lock:
            missing = self.size - len(self._all)
        for _ in range(max(0, missing)):
            w = self._spawn()
            with self._lock:
                self._idle.append(w)

    def acquire(self, given_up: Callable[[], bool]) -> Worker | None:
        """A free worker (started if need be), waiting for one while all are busy; None if ``given_up()``
        turns true (cancelled, replaced) or the pool is shut down meanwhile."""
        if not self._mine():
            return None
        slots = self._slots
        while not slots.acquire(timeout=0.1):
            if given_up() or self._closed:
                return None
        if given_up() or self._closed:
            slots.release()
            return None
        with self._lock:
            w = self._idle.pop() if self._idle else None
        if w is not None and not w.alive():
            self._discard(w)
            w = None
        if w is None:
            try:
                w = self._spawn()
            except BaseException:
                slots.release()
                raise
        return w

    def release(self, w: Worker, healthy: bool) -> None:
        if healthy and not w.retired and not self._closed and w.alive():
            with self._lock:
                self._idle.append(w)
        else:
            self._discard(w)
            self._refill_soon()
        self._slots.release()

    def _refill_soon(self) -> None:
        """A worker that retired (a long request) or was killed (cancel, budget) is replaced now, in a
        thread of its own, so the next quick request finds a warm idle worker instead of waiting for a
        fresh one to start (issue 12.3); the answer that freed it is not held up meanwhile."""
        threading.Thread(target=self._refill, name="vedette-refill", daemon=True).start()

    def _refill(self) -> None:
        with self._lock:
            if self._closed or os.getpid() != self._pid or len(self._all) >= self.size:
                return
        try:
            w = self._spawn()
        except Exception:  # noqa: BLE001 - the next request starts one (and reports the error) itself
            log.debug("a worker could not be started ahead of the next request", exc_info=True)
            return
        with self._lock:
            extra = self._closed or len(self._all) > self.size    # (a request started one meanwhile)
            if not extra:
                self._idle.append(w)
        if extra:
            self._discard(w)

    def _discard(self, w: Worker) -> None:
        with self._lock:
            if w in self._all:
                self._all.remove(w)
            if w in self._idle:
                self._idle.remove(w)
        w.close()

    def pids(self) -> list[int]:
        with self._lock:
            return [w.pid for w in self._all if w.pid is not None]

    def shutdown(self) -> None:
        self._closed = True
        if os.getpid() != self._pid:
            return
        with self._lock:
            workers, self._all, self._idle = list(self._all), [], []
        for w in workers:
            w.kill()
        for w in workers:
            w.close()


_POOL_LOCK = threading.Lock()
_PROCESS_POOL: WorkerPool | None = None
_AT_EXIT: list = []


def get_pool() -> WorkerPool:
    """The pool of this process, created on first use (again after :func:`shutdown`)."""
    global _PROCESS_POOL
    with _POOL_LOCK:
        if _PROCESS_POOL is None or _PROCESS_POOL._closed:
            _PROCESS_POOL = WorkerPool(PROCESSES)
            if os.getpid() not in _AT_EXIT:
                _AT_EXIT.append(os.getpid())
                atexit.register(shutdown)
        return _PROCESS_POOL



#: what the server itself loads at start for the requests it answers inline (the dice library, else
#: loaded by the first die rolled: 50 ms on the first visitor's odds)
WARM_HERE = ("icepool",)
#: whether the warm-up sets aside, for the garbage collector, every object the server holds once started
#: (``gc.freeze``; ``VEDETTE_GC_FREEZE=0`` to keep them). Panel runs a full collection on the event loop
#: 5 s after a page is closed: measured, 110 ms of CPU over the 177,000 objects of the loaded modules
#: (every other session's callbacks wait meanwhile, 0.5 s on a busy machine), 2 ms once they are set aside
GC_FREEZE = os.environ.get("VEDETTE_GC_FREEZE", "1") not in ("0", "", "no")


def warm_up() -> None:
    """Start the fork server and the workers now (``vedette-serve`` does it at start, in a thread), load
    :data:`WARM_HERE` in the server, and then (:data:`GC_FREEZE`) leave the objects loaded so far out of
    the garbage collector's full collections (they live as long as the server does)."""
    import gc
    import importlib

    for name in WARM_HERE:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an optimisation only
            log.exception("could not preload %s", name)
    try:
        get_pool().start()
    except Exception:  # noqa: BLE001 - processes are an optimisation: threads still work
        log.exception("the worker processes for page computations could not be started")
    if GC_FREEZE:
        gc.collect()        # what is garbage already goes first, so none of it is kept for good
        gc.freeze()


def shutdown() -> None:
    """Stop every worker process (at exit, and when ``vedette-serve`` is told to stop)."""
    pool = _PROCESS_POOL
    if pool is not None:
        pool.shutdown()


def worker_pids() -> list[int]:
    """The pids of the worker processes running now (for tests and the load script)."""
    pool = _PROCESS_POOL
    return pool.pids() if pool is not None else []


def guarded(fn: Callable[[], Any]) -> tuple[bool, Any]:
    """(True, value), or (False, a VedetteError to show); bugs are logged here."""
    try:
        return True, fn()
    except VedetteError as exc:
        return False, exc
    except Exception:
        log.exception("a page computation failed")
        return False, VedetteError(INTERNAL)
