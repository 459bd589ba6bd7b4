"""Small, bounded load test: N concurrent browser-like sessions asking the served app for pages.

    python scripts/load_sessions.py                      # starts its own server on a free loopback port
    python scripts/load_sessions.py --url http://127.0.0.1:5006 --sessions 10 --rounds 5
    python scripts/load_sessions.py --browsers 10              # 10 real browsers open /odds at once

Each session is a thread that, ``rounds`` times, requests each page in ``--pages`` (default the index and
the four Napoleonic 20 tools). A Panel page request creates a server-side session and builds the page's
document before answering, so the response time covers the page's own Python work. Prints JSON with
the count, median, p95 and max in milliseconds. Loopback only; requests are bounded
(sessions x rounds x pages), so it cannot run away.

``--profile PAGE`` builds that page (e.g. ``/odds``) in this process as a request does (the page function,
its Bokeh models, the document's JSON, then the work it put off until the browser connects: ``onload``),
``--rounds`` times, and prints the CPU milliseconds per build (``cpu_ms_median`` includes the onload work,
also given apart), the models it makes by kind, and the functions that cost most (cProfile): where a
session's server time goes.

``--browsers N`` instead opens ``--browser-page`` (default ``/odds``) in N browser contexts of one headless
chromium at the same moment (playwright; ``$VEDETTE_CHROMIUM`` or ``/usr/bin/chromium``) and reports, per
context, the seconds until the page shows ``--wait-for`` (default the odds panel): the page's request, its
scripts, the websocket session and the first render, as a club member waits for them.

``--play lob --browsers 10`` has N browsers play games in pairs (one side each, by its link) on the play
page, ``--actions`` actions in all (144 by default): each page makes the first action its list offers when
it is its move. For each action, the time from the press on one page to the frame in which the other
side's page shows it (both pages' clocks: ``performance.timeOrigin + now()``); meanwhile the index is
loaded once a second by another client. Reports p50, p95 and max, the page errors in the server's log
("a page callback failed") when the script started the server, and the index's load times.
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


def start_server(db: str, num_procs: int = 1, log: str | None = None) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    out = open(log, "ab") if log else subprocess.DEVNULL
    proc = subprocess.Popen([sys.executable, "-m", "dashboards.server.serve", "--port", str(port), "--address", "127.0.0.1",
                             "--db", db, "--num-procs", str(num_procs)], cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
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


def server_cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system) used so far by the server process and its workers (Linux /proc)."""
    total, seen = 0.0, False
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
            seen = True
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(x) for x in (task / "children").read_text().split()]
        except (OSError, ValueError, IndexError):
            continue
    return total if seen else None


def settle(pid: int, idle_s: float = 0.05, timeout_s: float = 90.0) -> None:
    """Wait until the server and its children are idle (less than ``idle_s`` of CPU over one second): the
    calculation workers preload the engine at start, which is not what a page costs."""
    deadline = time.monotonic() + timeout_s
    last = server_cpu_s(pid)
    while last is not None and time.monotonic() < deadline:
        time.sleep(1.0)
        now = server_cpu_s(pid)
        if now is None or now - last < idle_s:
            return
        last = now


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


def run_browsers(url: str, n: int = 10, page: str = "/odds", wait_for: str = ".odds-results",
                 timeout_s: float = 120.0) -> dict:
    """Open ``url + page`` in ``n`` browser contexts at once; seconds until ``wait_for`` is visible in each."""
    import asyncio

    from playwright.async_api import async_playwright

    chromium = os.environ.get("VEDETTE_CHROMIUM", "/usr/bin/chromium")

    async def go() -> list[float]:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            try:
                contexts = [await browser.new_context() for _ in range(n)]
                tabs = [await c.new_page() for c in contexts]

                async def one(tab) -> float:
                    t0 = time.perf_counter()
                    await tab.goto(url + page, timeout=timeout_s * 1000)
                    await tab.locator(wait_for).first.wait_for(state="visible", timeout=timeout_s * 1000)
                    return time.perf_counter() - t0

                cpu0 = _chromium_cpu_s()
                secs = list(await asyncio.gather(*(one(t) for t in tabs)))
                cpu["s"] = _chromium_cpu_s() - cpu0 if cpu0 is not None else None
                return secs
            finally:
                await browser.close()

    cpu: dict = {}
    secs = asyncio.run(go())
    out = {"browsers": n, "page": page, "wait_for": wait_for, "median_s": round(statistics.median(secs), 2),
           "max_s": round(max(secs), 2), "each_s": [round(x, 2) for x in sorted(secs)]}
    if cpu.get("s") is not None:   # chromium's own processes (browser, renderers, GPU, network), until the last shows
        out["browser_cpu_s"] = round(cpu["s"], 2)
        out["browser_cpu_s_per_page"] = round(cpu["s"] / n, 2)
    return out


_STATUS_JS = """(function f(root) {
  const h = root.querySelector(".status-line .status[data-events]"); if (h) return h;
  for (const e of root.querySelectorAll("*")) if (e.shadowRoot) { const x = f(e.shadowRoot); if (x) return x; }
  return null; })(document)"""
_READ = "() => { const s = " + _STATUS_JS + "; return s ? [+s.dataset.events, s.dataset.mine, s.dataset.toAct] : null; }"


def run_play(url: str, system: str = "lob", n: int = 10, actions: int = 144, timeout_s: float = 60.0) -> dict:
    """N browsers playing ``system`` in pairs on the play page (see the module's docstring)."""
    import asyncio
    import re as _re

    from playwright.async_api import async_playwright

    chromium = os.environ.get("VEDETTE_CHROMIUM", "/usr/bin/chromium")
    lat: list[float] = []
    lost = {"n": 0}
    index_s: list[float] = []
    done = {"flag": False}

    def index_loader() -> None:
        while not done["flag"]:
            t0 = time.perf_counter()
            try:
                with urllib.request.urlopen(url + "/", timeout=60) as r:
                    r.read()
                index_s.append(time.perf_counter() - t0)
            except OSError:
                pass
            time.sleep(1.0)

    async def go() -> None:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            try:
                async def read(page):
                    try:
                        return await page.evaluate(_READ)
                    except Exception:  # noqa: BLE001 - a page between two documents
                        return None

                async def shown_since(page, events: int, since: float):
                    """When ``page`` first showed ``events`` actions or more, at or after ``since`` (None: not yet)."""
                    log = await page.evaluate("() => window.__vedette_events_seen || []")
                    hits = [t for t, e in log if e >= events and t >= since - 1]
                    return hits[0] if hits else None

                async def pair(i: int, quota: int) -> None:
                    a = await (await browser.new_context()).new_page()
                    b = await (await browser.new_context()).new_page()
                    await a.goto(f"{url}/play?system={system}", timeout=timeout_s * 1000)
                    await a.locator(".status-line [data-state='no-game']").wait_for(state="attached", timeout=timeout_s * 1000)
                    await a.wait_for_function("() => window.Bokeh && (Bokeh.documents || []).length && "
                                              "Bokeh.documents.every((d) => d.is_idle)", timeout=timeout_s * 1000)
                    await a.locator(".seed-input input").fill(str(100 + i))
                    await a.locator(".start-game button").click()
                    await a.locator(".game-links a.link-owner").wait_for(state="attached", timeout=timeout_s * 1000)
                    links = {}
                    for el in await a.locator(".game-links a").all():
                        role = (await el.get_attribute("class") or "").removeprefix("link-")
                        links[role] = _re.sub(r"^https?://[^/]+", "", await el.get_attribute("href") or "")
                    sides = [r for r in links if r != "owner"]
                    for page, side in ((a, sides[0]), (b, sides[1])):
                        await page.goto(url + links[side], timeout=timeout_s * 1000)
                        await page.locator(".status-line .status[data-events]").wait_for(state="attached",
                                                                                        timeout=timeout_s * 1000)
                    made, idle, behind = 0, 0, 0
                    while made < quota and idle < 60:
                        ra, rb = await read(a), await read(b)
                        if not ra or not rb:
                            idle += 1
                            await a.wait_for_timeout(500)
                            continue
                        if ra[0] != rb[0]:        # one page has not shown the last action yet: wait for it
                            behind += 1
                            if behind * 0.05 > timeout_s:      # never shown: a lost update, said so (not a hang)
                                lost["behind"] = lost.get("behind", 0) + 1
                                print("BEHIND", i, ra, rb, file=sys.stderr)
                                break
                            await a.wait_for_timeout(50)
                            continue
                        behind = 0
                        actor, other, n0 = (a, b, ra[0]) if ra[1] == "yes" else (b, a, rb[0]) if rb[1] == "yes" \
                            else (None, None, 0)
                        if actor is None:         # neither page may act now (a page not yet drawn, or the end)
                            idle += 1
                            await a.wait_for_timeout(500)
                            continue
                        choice = actor.locator(".pending[data-state='yours'] .choice button").first
                        opt = actor.locator(".action-list option:not(.attack)").first
                        try:
                            if await choice.count():
                                await choice.click(timeout=5000)
                                await a.wait_for_timeout(200)
                                continue
                            if not await opt.count():
                                opt = actor.locator(".action-list option").first
                            if not await opt.count():
                                idle += 1
                                await a.wait_for_timeout(300)
                                continue
                            await actor.locator(".action-list select").select_option(
                                value=await opt.get_attribute("value", timeout=5000), timeout=5000)
                            t0 = await actor.evaluate("() => performance.timeOrigin + performance.now()")
                            await actor.locator(".do-action button").click(timeout=5000)
                        except Exception:  # noqa: BLE001 - the list changed under the press: look again
                            idle += 1
                            continue
                        t1 = None
                        for _ in range(int(timeout_s * 10)):       # the other page's own record of the change
                            t1 = await shown_since(other, n0 + 1, t0)
                            if t1 is not None:
                                break
                            r = await read(actor)
                            if r and r[0] <= n0 and await actor.locator(".refusal-box [data-state='refused']").count():
                                break                              # refused (a list that changed): look again
                            await a.wait_for_timeout(100)
                        if t1 is None:
                            r = await read(actor)
                            if r and r[0] > n0:
                                lost["n"] += 1                     # made, but not shown on the other page in time
                                if os.environ.get("VEDETTE_LOAD_DEBUG"):
                                    print("MISS", n0, r, await read(other),
                                          (await other.evaluate("() => window.__vedette_events_seen || []"))[-3:],
                                          t0, file=sys.stderr)
                            idle += 1
                            continue
                        lat.append(t1 - t0)
                        made, idle = made + 1, 0
                    await a.context.close()
                    await b.context.close()

                pairs = max(1, n // 2)
                quotas = [actions // pairs + (1 if k < actions % pairs else 0) for k in range(pairs)]
                await asyncio.gather(*(pair(k, q) for k, q in enumerate(quotas)))
            finally:
                await browser.close()

    loader = threading.Thread(target=index_loader, daemon=True)
    loader.start()
    try:
        asyncio.run(go())
    finally:
        done["flag"] = True
    out = {"browsers": n, "system": system, "actions": len(lat), "not_seen_in_time": lost["n"],
           "pages_left_behind": lost.get("behind", 0)}
    if lat:
        out.update(update_ms_p50=round(statistics.median(lat)), update_ms_p95=round(percentile(lat, 95)),
                   update_ms_max=round(max(lat)))
    if index_s:
        out.update(index_s_median=round(statistics.median(index_s), 2), index_s_max=round(max(index_s), 2))
    return out


def _chromium_cpu_s() -> float | None:
    """CPU seconds used so far by the chromium processes this process started (psutil; None without it)."""
    try:
        import psutil
    except ImportError:
        return None
    total = 0.0
    for p in psutil.Process().children(recursive=True):
        try:
            if "chrom" in p.name() or "headless" in p.name():
                t = p.cpu_times()
                total += t.user + t.system
        except psutil.Error:
            continue
    return total


def profile_page(route: str, rounds: int = 5, top: int = 25) -> dict:
    """Build ``route`` ``rounds`` times in this process (page function, Bokeh models, document JSON)."""
    import cProfile
    import collections
    import io
    import pstats

    sys.path.insert(0, str(REPO))
    import panel as pn
    from bokeh.document import Document

    from dashboards.app import discover_pages, index, page_view

    infos = {p.route: p for p in discover_pages()}
    if route != "/" and route not in infos:
        raise SystemExit(f"load_sessions: no page {route!r}; pages: {', '.join(sorted(infos))}")

    import asyncio

    onload_ms: list[float] = []

    def build() -> Document:
        doc = Document()
        pn.state.curdoc = doc
        try:
            view = index() if route == "/" else page_view(infos[route])
            view.server_doc(doc)
            doc.to_json()
            # what the page put off until the browser connects (pn.state.onload, defer_load) is part of what a
            # session costs: run it here too, and count it apart
            t0 = time.process_time()
            while doc in pn.state._onload:
                for cb, _threaded in pn.state._onload.pop(doc):
                    out = cb()
                    if asyncio.iscoroutine(out):
                        asyncio.run(out)
            onload_ms.append((time.process_time() - t0) * 1000)
        finally:
            pn.state.curdoc = None
        return doc

    doc = build()                     # imports and per-process caches: not what a session costs
    cpu = []
    prof = cProfile.Profile()
    for i in range(rounds):
        t0 = time.process_time()
        if i == rounds - 1:
            prof.enable()
        build()
        if i == rounds - 1:
            prof.disable()
        cpu.append((time.process_time() - t0) * 1000)
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    kinds = collections.Counter(type(m).__name__ for m in doc.models)
    return {"page": route, "rounds": rounds, "cpu_ms_median": round(statistics.median(cpu), 1),
            "onload_cpu_ms_median": round(statistics.median(onload_ms[1:] or [0.0]), 1),
            "cpu_ms_min": round(min(cpu), 1), "models": len(doc.models), "models_by_kind": dict(kinds.most_common()),
            "profile_last_build": out.getvalue()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", help="base URL of a running app (default: start one)")
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pages", nargs="*", default=None)
    ap.add_argument("--num-procs", type=int, default=1, help="server worker processes when starting our own server")
    ap.add_argument("--browsers", type=int, default=0, help="open the page in N browser contexts at once instead")
    ap.add_argument("--browser-page", default="/odds")
    ap.add_argument("--wait-for", default=".odds-results", help="CSS selector that shows the page is ready")
    ap.add_argument("--profile", metavar="PAGE", help="profile building PAGE in this process instead (no server)")
    ap.add_argument("--play", metavar="SYSTEM", help="N browsers (--browsers) play SYSTEM in pairs on /play instead")
    ap.add_argument("--actions", type=int, default=144, help="with --play: the actions made in all")
    args = ap.parse_args(argv)
    if args.profile:
        res = profile_page(args.profile, max(1, args.rounds))
        text = res.pop("profile_last_build")
        print(json.dumps(res, indent=1))
        print(text)
        return 0
    if args.browsers > 20:
        ap.error("keep it small: at most 20 browsers")
    if args.sessions > 50 or args.rounds > 20:
        ap.error("keep it small: at most 50 sessions and 20 rounds")
    if args.actions > 1000:
        ap.error("keep it small: at most 1000 actions")
    proc = None
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url
        log = os.path.join(tmp, "server.log")
        if url is None:
            proc, url = start_server(os.path.join(tmp, "games.sqlite3"), args.num_procs, log=log)
        try:
            load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
            if args.play:
                with urllib.request.urlopen(url + "/play", timeout=60) as r:
                    r.read()
                if proc:
                    settle(proc.pid)
                cpu0 = server_cpu_s(proc.pid) if proc else None
                out = run_play(url, args.play, args.browsers or 10, args.actions)
                n = out["actions"]
                if proc:
                    text = Path(log).read_text(errors="replace")
                    out["page_errors"] = text.count("a page callback failed")
                    out["pending_writes_errors"] = text.count("_pending_writes should be non-None")
            elif args.browsers:
                with urllib.request.urlopen(url + args.browser_page, timeout=60) as r:   # imports, as in run_load
                    r.read()
                if proc:
                    settle(proc.pid)
                cpu0 = server_cpu_s(proc.pid) if proc else None
                out = run_browsers(url, args.browsers, args.browser_page, args.wait_for)
                n = args.browsers
            else:
                if proc:   # the warm-up requests of run_load are not counted
                    for pg in args.pages or DEFAULT_PAGES:
                        with urllib.request.urlopen(url + pg, timeout=60) as r:
                            r.read()
                    settle(proc.pid)
                cpu0 = server_cpu_s(proc.pid) if proc else None
                out = run_load(url, args.sessions, args.rounds, args.pages, warmup=proc is None)
                n = out["requests"]
            if cpu0 is not None:
                cpu1 = server_cpu_s(proc.pid)
                out["server_cpu_s"] = round(cpu1 - cpu0, 2)
                out["server_cpu_ms_per_session"] = round(1000 * (cpu1 - cpu0) / max(n, 1), 1)
            out["num_procs"] = args.num_procs if args.url is None else None
            out["load_average_before"] = load_before
            out["load_average"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else None   # after the run
            out["cpus"] = os.cpu_count()
            print(json.dumps(out, indent=1))
        finally:
            if proc is not None:  # the server and the workers it forked (--num-procs) form one process group
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
