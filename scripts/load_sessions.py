"""Small, bounded load test: N concurrent browser-like sessions asking the served app for pages.

    python scripts/load_sessions.py                      # starts its own server on a free loopback port
    python scripts/load_sessions.py --url http://127.0.0.1:5006 --sessions 10 --rounds 5

Each session is a thread that, ``rounds`` times, requests each page in ``--pages`` (default the index and
the four Napoleonic 20 tools). A Panel page request creates a server-side session and builds the page's
document before answering, so the response time covers the page's own Python work. Prints JSON with
the count, median, p95 and max in milliseconds. Loopback only; requests are bounded
(sessions x rounds x pages), so it cannot run away.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PAGES = ["/", "/odds", "/tree", "/map", "/play"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: str, num_procs: int = 1) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m", "dashboards.serve", "--port", str(port), "--address", "127.0.0.1",
                             "--db", db, "--num-procs", str(num_procs)], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, PYTHONPATH=str(REPO)), start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/", timeout=5):
                return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the app did not start")


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    if not s:
        return float("nan")
    k = max(0, min(len(s) - 1, int(round(q * (len(s) - 1)))))
    return s[k]


def run_load(url: str, sessions: int = 10, rounds: int = 3, pages: list[str] | None = None,
             warmup: bool = True) -> dict:
    pages = pages or DEFAULT_PAGES
    if warmup:  # first request of each page imports its modules; not what a club member waits for
        for p in pages:
            with urllib.request.urlopen(url + p, timeout=60) as r:
                r.read()
    times: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(sessions)

    def session(i: int) -> None:
        start.wait()
        for _ in range(rounds):
            for p in pages:
                t0 = time.perf_counter()
                try:
                    with urllib.request.urlopen(url + p, timeout=60) as r:
                        r.read()
                        ok = r.status == 200
                except OSError as exc:
                    ok = False
                    with lock:
                        errors.append(f"{p}: {exc}")
                dt = (time.perf_counter() - t0) * 1000
                if ok:
                    with lock:
                        times.append(dt)

    threads = [threading.Thread(target=session, args=(i,)) for i in range(sessions)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {"sessions": sessions, "rounds": rounds, "pages": pages, "requests": len(times), "errors": errors,
            "median_ms": round(statistics.median(times), 1) if times else None,
            "p95_ms": round(percentile(times, 0.95), 1) if times else None,
            "max_ms": round(max(times), 1) if times else None, "wall_s": round(wall, 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", help="base URL of a running app (default: start one)")
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pages", nargs="*", default=None)
    ap.add_argument("--num-procs", type=int, default=1, help="server worker processes when starting our own server")
    args = ap.parse_args(argv)
    if args.sessions > 50 or args.rounds > 20:
        ap.error("keep it small: at most 50 sessions and 20 rounds")
    proc = None
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url
        if url is None:
            proc, url = start_server(os.path.join(tmp, "games.sqlite3"), args.num_procs)
        try:
            out = run_load(url, args.sessions, args.rounds, args.pages)
            out["num_procs"] = args.num_procs if args.url is None else None
            out["load_average"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
            out["cpus"] = os.cpu_count()
            print(json.dumps(out, indent=1))
        finally:
            if proc is not None:  # the server and the workers it forked (--num-procs) form one process group
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
