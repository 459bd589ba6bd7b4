"""``vedette-serve``: serve the index and every dashboard page with Panel's server.

    vedette-serve                       # http://localhost:5006/
    vedette-serve --port 8080 --address 0.0.0.0 --allow-websocket-origin club-laptop.local:8080
    vedette-serve --db ~/club/games.sqlite3 --num-threads 4

Routes: ``/`` (index) and ``/<page>`` for every module in ``dashboards/pages`` (``/odds``, ``/tree``,
``/map``, ``/play``, ``/lob``, ``/tbf``, ``/bc``, ...). Saved games go to ``--db`` (or ``$VEDETTE_DB``, or
a per-user data folder).

Heavy computations (exact odds, trees, charges, cups) run in a small pool of calculation worker processes
(:mod:`dashboards.server.background`): they stop with the server (SIGTERM or SIGINT stops them first;
each also ends on its own when its server is gone, however it died).

With ``--num-procs N`` the main process forks N workers that share the port; they stop with it (SIGTERM or
SIGINT to the main process stops every worker: on Linux each worker also asks the kernel for a SIGTERM when
the main process dies, whatever kills it). Every page carries a small script that shows "connection lost —
reload" when the page's websocket to the server closes.

What each browser parses is kept small (issues 12.3 and 17.1) by the patches to Panel and Bokeh in
:mod:`dashboards.server.patches`, installed before serving. Static files are versioned (``?v=``), so the
server sends a long cache lifetime.
"""
from __future__ import annotations

import argparse
import hashlib
import logging
import os
import signal
import sys
import threading
from pathlib import Path

from dashboards.server import storage
from dashboards.server import patches

__all__ = ["main", "build_parser", "STATIC_DIR", "CONNECTION_JS"]

#: files served under ``/vedette-static/`` (the connection-lost script)
STATIC_DIR = Path(__file__).resolve().parent / "static"


def _versioned(name: str) -> str:
    """``/vedette-static/<name>?v=<hash of the file>``: with a version in the URL the server sends a ten-year
    ``Cache-Control`` (Tornado's static handler), so a returning browser reuses its copy (and V8's compiled
    code for it) until the file changes."""
    digest = hashlib.sha256((STATIC_DIR / name).read_bytes()).hexdigest()[:16]
    return f"/vedette-static/{name}?v={digest}"


CONNECTION_JS = _versioned("connection.js")
_SUPERVISOR: dict = {}


def _after_fork_in_child() -> None:
    """In a worker just forked by the main process: die with it (Linux ``PR_SET_PDEATHSIG``)."""
    pid, ident = _SUPERVISOR.get("pid"), _SUPERVISOR.get("thread")
    # only the workers the server forks from the main thread (not e.g. a fork server started from another thread)
    if pid is None or os.getppid() != pid or threading.get_ident() != ident:
        return
    _SUPERVISOR.clear()   # this process is a worker now; its own children are not workers
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGTERM, 0, 0, 0)   # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != pid:   # the main process died between the fork and the prctl call
        os._exit(0)
    signal.signal(signal.SIGTERM, _stop_worker)
    signal.signal(signal.SIGINT, _stop_worker)


def _stop_worker(signum, frame) -> None:
    raise SystemExit(0)


def _worker_pids(parent: int) -> list[int]:
    """The direct children of ``parent`` (Linux /proc; psutil elsewhere when installed)."""
    try:
        pids = []
        for task in Path(f"/proc/{parent}/task").iterdir():
            pids += [int(x) for x in (task / "children").read_text().split()]
        return pids
    except OSError:
        pass
    try:
        import psutil

        return [c.pid for c in psutil.Process(parent).children()]
    except Exception:
        return []


def _stop_supervisor(signum, frame) -> None:
    """SIGTERM/SIGINT to the main process of ``--num-procs N``: pass it on to every worker, then leave."""
    for pid in _worker_pids(os.getpid()):
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    raise SystemExit(0)


def _supervise_workers() -> None:
    """Before the server forks its workers: make them stop with this process."""
    _SUPERVISOR.update(pid=os.getpid(), thread=threading.get_ident())
    os.register_at_fork(after_in_child=_after_fork_in_child)
    signal.signal(signal.SIGTERM, _stop_supervisor)
    signal.signal(signal.SIGINT, _stop_supervisor)


def _stop_single(signum, frame) -> None:
    """SIGTERM/SIGINT to a single-process server: stop the calculation workers, then end as the signal
    would have ended it."""
    from dashboards.server import background, odds_worker

    background.shutdown()
    odds_worker.shutdown()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _stop_with_pool() -> None:
    """Make SIGTERM and SIGINT stop the calculation workers with the server (they also notice its death on
    their own, through a pipe, however it dies)."""
    signal.signal(signal.SIGTERM, _stop_single)
    signal.signal(signal.SIGINT, _stop_single)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vedette-serve", description="Serve the Vedette dashboards (Panel).")
    p.add_argument("--port", type=int, default=5006, help="port to listen on (default 5006; 0 = any free port)")
    p.add_argument("--address", default=None, help="address to bind (default: all local addresses)")
    p.add_argument("--allow-websocket-origin", action="append", default=None, metavar="HOST[:PORT]",
                   help="host allowed to open the page's websocket (repeatable; default: localhost)")
    p.add_argument("--num-procs", type=int, default=1, help="worker processes (0 = one per CPU; default 1)")
    p.add_argument("--num-threads", type=int, default=None,
                   help="threads per process for session callbacks (default: none, callbacks run on the event loop)")
    p.add_argument("--db", default=None, metavar="PATH",
                   help=f"saved-games SQLite file (default ${storage.ENV_VAR} or a per-user data folder)")
    p.add_argument("--show", action="store_true", help="open a browser tab")
    p.add_argument("--links", action="store_true",
                   help="print every saved game's owner link (path part) and exit: to reach games saved by an "
                        "older version, or from a browser that lost its cookie")
    return p


def _callback_failed(exc: BaseException) -> None:
    """A page callback raised: the traceback goes to the server's log; the visitor gets one short line."""
    logging.getLogger("vedette.dashboards").error("a page callback failed", exc_info=exc)
    try:
        import panel as pn

        if pn.state.notifications is not None:
            pn.state.notifications.error("Something went wrong here; the details are in the server's log.",
                                         duration=6000)
    except Exception:  # noqa: BLE001 - reporting must never raise in its turn
        pass


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.db:
        os.environ[storage.ENV_VAR] = os.path.abspath(os.path.expanduser(args.db))
    db = storage.default_db_path()
    try:
        store = storage.GameStore(db)  # create it (and fail now, not in a session, if it cannot be used)
        store.check_writable()
    except storage.StorageError as exc:
        print(f"vedette-serve: cannot use the {exc}", file=sys.stderr)
        return 2
    if args.links:
        from dashboards.app import PLAY_PAGES
        from dashboards.server.access import game_link

        for g in store.list():
            key = store.keys(g.id).get(storage.OWNER)
            page = PLAY_PAGES.get(g.system, "/")
            print(f"{g.system}\t{g.title}\t{game_link(page, g.id, key)}")
        return 0
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from dashboards.server import background

    if args.num_procs == 1:
        # the worker processes for heavy page computations start while Panel starts; with --num-procs each
        # server worker starts its own pool on its first heavy request (a pool is not shared across a fork)
        threading.Thread(target=background.warm_up, name="vedette-warm-up", daemon=True).start()
        _stop_with_pool()

    import panel as pn

    from dashboards.app import discover_pages, routes
    from dashboards.play import live
    from dashboards.server import security
    from dashboards.server.access import KEYS_ROUTE, KeysHandler

    live.SERVING = True        # bots think in worker processes; the live games watch the file for other processes
    security.install()         # CSP and frame-ancestors on every response; no game key in the log

    if args.num_threads:
        pn.config.nthreads = args.num_threads
    pn.config.exception_handler = _callback_failed
    # every page loads the connection-lost script (a banner when the websocket closes)
    pn.config.js_files = {**pn.config.js_files, "vedette_connection": CONNECTION_JS}
    patches.apply()
    if args.num_procs != 1:
        _supervise_workers()
    titles = {"/": "Vedette"} | {p.route: f"Vedette · {p.title}" for p in discover_pages()}
    origins = args.allow_websocket_origin
    if origins is None:
        origins = [f"localhost:{args.port}", f"127.0.0.1:{args.port}"] if args.port else ["*"]
    print(f"vedette-serve: saved games in {db}", flush=True)
    pn.serve(routes(), port=args.port, address=args.address, websocket_origin=origins, show=args.show,
             title=titles, num_procs=args.num_procs, start=True, verbose=True,
             static_dirs={"vedette-static": str(STATIC_DIR)}, extra_patterns=[(KEYS_ROUTE, KeysHandler)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
