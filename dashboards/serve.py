"""``vedette-serve``: serve the index and every dashboard page with Panel's server.

    vedette-serve                       # http://localhost:5006/
    vedette-serve --port 8080 --address 0.0.0.0 --allow-websocket-origin club-laptop.local:8080
    vedette-serve --db ~/club/games.sqlite3 --num-threads 4

Routes: ``/`` (index) and ``/<page>`` for every module in ``dashboards/pages`` (``/odds``, ``/tree``,
``/map``, ``/play``, ``/lob``, ``/tbf``, ``/bc``, ...). Saved games go to ``--db`` (or ``$VEDETTE_DB``, or
a per-user data folder).
"""
from __future__ import annotations

import argparse
import logging
import os
import sys

from dashboards import storage

__all__ = ["main", "build_parser"]


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
        from dashboards.components.access import game_link

        for g in store.list():
            key = store.keys(g.id).get(storage.OWNER)
            page = PLAY_PAGES.get(g.system, "/")
            print(f"{g.system}\t{g.title}\t{game_link(page, g.id, key)}")
        return 0
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    import threading

    from dashboards.components import background

    # the fork server for heavy page computations starts while Panel starts
    threading.Thread(target=background.warm_up, name="vedette-warm-up", daemon=True).start()

    import panel as pn

    from dashboards.app import discover_pages, routes

    if args.num_threads:
        pn.config.nthreads = args.num_threads
    titles = {"/": "Vedette"} | {p.route: f"Vedette · {p.title}" for p in discover_pages()}
    origins = args.allow_websocket_origin
    if origins is None:
        origins = [f"localhost:{args.port}", f"127.0.0.1:{args.port}"] if args.port else ["*"]
    print(f"vedette-serve: saved games in {db}", flush=True)
    pn.serve(routes(), port=args.port, address=args.address, websocket_origin=origins, show=args.show,
             title=titles, num_procs=args.num_procs, start=True, verbose=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
