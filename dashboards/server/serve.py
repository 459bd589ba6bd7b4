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

What each browser parses is kept small (issues 12.3 and 17.1; most of a page load's CPU is BokehJS and Panel's
own scripts, which every page needs): no WebGL bundle, no Panel extension the page does not use, no
es-module-shims (``connection.js`` gives ``importShim`` as the browser's ``import()``), our ESM components sent
as plain JavaScript (no in-browser TypeScript pass), and Tabulator's scripts fetched after the first view when
only later tabs hold tables. Static files are versioned (``?v=``), so the server sends a long cache lifetime.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import signal
import sys
import threading
from pathlib import Path

from dashboards.server import storage

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
    from dashboards.server import background

    background.shutdown()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _stop_with_pool() -> None:
    """Make SIGTERM and SIGINT stop the calculation workers with the server (they also notice its death on
    their own, through a pipe, however it dies)."""
    signal.signal(signal.SIGTERM, _stop_single)
    signal.signal(signal.SIGINT, _stop_single)


#: BokehJS bundles a page loads only when one of its models needs them (issue 17.1: each one is parsed by
#: every browser that opens the page; ``bokeh-gl`` alone is ~190 KB for WebGL plots, which no page draws)
_OPTIONAL_BUNDLES = tuple(b for b in os.environ.get("VEDETTE_OPTIONAL_BUNDLES", "bokeh-gl").split(",") if b)


def _needed_bundles(objs) -> set[str]:
    """The optional BokehJS bundles the models ``objs`` use (WebGL plots; Bokeh DataTables). Panel's own
    bundle needs ``bokeh-tables`` on every page (its Tabulator model imports it), so only ``bokeh-gl`` is
    optional by default."""
    from bokeh.embed.bundle import _use_gl, _use_tables

    needed = set()
    if _use_gl(objs):
        needed.add("bokeh-gl")
    if _use_tables(objs):
        needed.add("bokeh-tables")
    return needed


def _own_extensions(objs) -> None:
    """A page that did not call ``pn.extension(...)`` gets the Panel extensions its models use, and no other:
    without this, once any session imported e.g. the Tabulator model, Panel lists its scripts (~550 KB) on
    every later page of every route. Pages that build such widgets later (lazy tabs) ask for them with
    ``pn.extension(...)`` in ``page()``."""
    from panel.config import panel_extension
    from panel.io.state import state

    doc = state.curdoc
    if doc is None or doc in state._extensions_:
        return
    modules = {module: ext for ext, module in panel_extension._imports.items()}
    state._extensions_[doc] = sorted({modules[type(o).__module__] for o in objs if type(o).__module__ in modules})


#: Panel's module loader for ESM components (es-module-shims, 38 KB): our ``connection.js`` gives the page a
#: ``window.importShim`` that is the browser's own ``import()``, enough for ESM components without an import map
_ESM_SHIMS = "es-module-shims"


def _import_maps_in_use() -> bool:
    """Whether an ESM component class loaded in this process names an import map (React components do):
    only those need es-module-shims' loader, and a page may build one after it has loaded (a lazy tab)."""
    from panel.custom import ReactiveESM

    todo, seen = [ReactiveESM], set()
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub in seen:
                continue
            seen.add(sub)
            todo.append(sub)
            if getattr(sub, "abstract", False):   # Panel's own base classes are never on a page
                continue
            try:
                imports = (sub._process_importmap() or {}).get("imports")
            except Exception:  # noqa: BLE001 - when in doubt, keep Panel's loader
                return True
            if imports:
                return True
    return False


#: Tabulator's scripts and theme (luxon + tabulator, ~480 KB of JS) on a page whose first view has no table: the
#: /tbf and /lob pages ask for them (``pn.extension("tabulator")``) for tabs built later. They are fetched once
#: the page's document has been drawn and is idle, not before it (issue 12.3: the Fatigue Check shows sooner),
#: and a table's view waits for them before it draws (``lazy_initialize``, which BokehJS awaits).
_LATER_PARTS = "/datatabulator/"
_LATER_JS = """
(function () {
  const js = %(js)s, css = %(css)s;
  let loading = null;
  function load() {
    if (loading) return loading;
    for (const href of css) {
      const l = document.createElement("link"); l.rel = "stylesheet"; l.href = href; document.head.append(l);
    }
    loading = Promise.all(js.map(function (src) {
      return new Promise(function (ok, fail) {
        const s = document.createElement("script");
        s.src = src; s.async = false;             // run in the listed order, as the page's own scripts do
        s.onload = ok; s.onerror = fail;
        document.head.append(s);
      });
    }));
    return loading;
  }
  const Model = window.Bokeh && Bokeh.Models.get("panel.models.tabulator.DataTabulator");
  const View = Model && Model.prototype.default_view;
  if (!View) { load(); return; }
  const before = View.prototype.lazy_initialize;
  View.prototype.lazy_initialize = async function () { await load(); return before.apply(this, arguments); };
  const idle = window.requestIdleCallback || function (f) { return setTimeout(f, 50); };
  const wait = setInterval(function () {
    const doc = Bokeh.documents && Bokeh.documents[0];
    if (doc && doc.is_idle) { clearInterval(wait); idle(load); }
  }, 100);
})();
"""


def _defer_later_parts(bundle, objs) -> None:
    """Move Tabulator's scripts and theme out of the page's head when no table is in its first view."""
    if any(type(o).__name__ == "DataTabulator" for o in objs):
        return
    js = [u for u in bundle.js_files if _LATER_PARTS in str(u)]
    if not js:
        return
    css = [u for u in bundle.css_files if _LATER_PARTS in str(u)]
    bundle.js_files = [u for u in bundle.js_files if u not in js]
    bundle.css_files = [u for u in bundle.css_files if u not in css]
    bundle.js_raw.append(_LATER_JS % {"js": json.dumps([str(u) for u in js]), "css": json.dumps([str(u) for u in css])})


def _plain_esm_components() -> None:
    """Send our ESM components (``dashboards.*``, plain JavaScript: no TypeScript, no JSX) with a ``bundle``
    name, so that BokehJS imports their code as it is. Without a bundle name Panel runs a TypeScript
    transform (sucrase) over each component's code in every browser that opens the page: about 0.2-0.3
    CPU-seconds per /odds load on a 2-core laptop, the largest single cost after BokehJS itself (issue 17.1)."""
    from panel.custom import ReactiveESM

    original = ReactiveESM._get_properties
    if getattr(original, "_vedette_plain", False):
        return

    def _get_properties(self, doc):
        props = original(self, doc)
        if (props.get("bundle") is None and not props.get("dev") and isinstance(props.get("esm"), str)
                and type(self).__module__.startswith("dashboards.")):
            props["bundle"] = "vedette-" + hashlib.sha256(props["esm"].encode("utf-8")).hexdigest()[:16]
        return props

    _get_properties._vedette_plain = True
    ReactiveESM._get_properties = _get_properties


def _lean_page_resources() -> None:
    """Make every served page leave out the optional BokehJS bundles its document does not use (Panel's
    page template otherwise lists them all for every page)."""
    import panel.io.server as pn_server
    from panel.io.resources import Resources

    original = pn_server.bundle_resources
    if getattr(original, "_vedette_lean", False):
        return

    def bundle_resources(roots, resources, *args, **kwargs):
        if resources is not None and not kwargs.get("reloading"):
            if not isinstance(resources, Resources):
                resources = Resources.from_bokeh(resources)
            objs = set()
            for root in roots or []:
                objs |= root.references()
            _own_extensions(objs)
            components = list(resources.components)
            unused = set(_OPTIONAL_BUNDLES) - _needed_bundles(objs)
            if unused & set(components):
                resources = resources.clone(components=[c for c in components if c not in unused])
            bundle = original(roots, resources, *args, **kwargs)
            if not _import_maps_in_use():
                bundle.js_files = [u for u in bundle.js_files if _ESM_SHIMS not in str(u)]
            _defer_later_parts(bundle, objs)
            return bundle
        return original(roots, resources, *args, **kwargs)

    bundle_resources._vedette_lean = True
    pn_server.bundle_resources = bundle_resources


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

    if args.num_threads:
        pn.config.nthreads = args.num_threads
    pn.config.exception_handler = _callback_failed
    # every page loads the connection-lost script (a banner when the websocket closes)
    pn.config.js_files = {**pn.config.js_files, "vedette_connection": CONNECTION_JS}
    _lean_page_resources()
    _plain_esm_components()
    if args.num_procs != 1:
        _supervise_workers()
    titles = {"/": "Vedette"} | {p.route: f"Vedette · {p.title}" for p in discover_pages()}
    origins = args.allow_websocket_origin
    if origins is None:
        origins = [f"localhost:{args.port}", f"127.0.0.1:{args.port}"] if args.port else ["*"]
    print(f"vedette-serve: saved games in {db}", flush=True)
    pn.serve(routes(), port=args.port, address=args.address, websocket_origin=origins, show=args.show,
             title=titles, num_procs=args.num_procs, start=True, verbose=True,
             static_dirs={"vedette-static": str(STATIC_DIR)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
