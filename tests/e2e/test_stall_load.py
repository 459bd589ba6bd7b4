"""Issue 12 point 3, measured in the browser: while one browser runs the heaviest request a page allows,
another browser's page loads and its odds update (the goal: under 1 s and under 300 ms).

What is measured, in the page itself (``performance.now()``, so neither the test's own round trips nor
Playwright's polling steps are counted):

* **page load**: from the navigation's start (the page's time origin) to the first frame in which the TBF
  page shows its main content, the Fatigue Check result with its odds (``data-pass='5/6'``);
* **odds update**: from the input's change (the leaders' CVs typed anew, in the page) to the first frame
  in which the new odds are on the page; each input is a new one for the server, so the odds are worked
  out in a worker, not taken from the results shared between sessions.

Each figure comes with its parts: for a load, the HTML's last byte (the server has built the session's
page) and the arrival of the page's models over the websocket (the server has sent the document); for an
update, the arrival of the server's answer (the last message before the odds show), the server's own time
per hop for it (from its log: ``VEDETTE_LOG_HOPS=1``, which the browser tests' server sets; ``mode`` says
whether it was answered inline or in a worker) and the browser's drawing after it.

The tests wait on page state only (no fixed sleep). Their figures are printed and written as JSON under the
test's tmp dir (the path is printed), with the load average of the machine and whether the heavy request
was still running when B's update had been measured (when it was not, the figures do not measure "during"
and say so). Only generous bounds are asserted: timings belong in the benchmarks.
"""
from __future__ import annotations

import json
import os

import pytest
import yaml
from playwright.sync_api import Browser, Page, expect

from n20_helpers import DEEP_QUERY

pytestmark = pytest.mark.e2e

#: the first element matching a selector, looking inside the open shadow roots Panel draws into; its
#: rectangle must be non-empty (shown, not only attached)
_DEEP = """
(sel) => {
  const el = (""" + DEEP_QUERY + """)(sel);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 ? el : null;
}
"""
#: milliseconds from the navigation's start to the frame that first shows ``sel``
_SHOWN_SINCE_NAVIGATION = "(sel) => (" + _DEEP + ")(sel) ? performance.now() : false"
#: empty the leaders' CVs box and fire its change, noting the moment in the page
_CHANGE_CVS = """
(value) => {
  const deep = """ + _DEEP + """;
  const host = deep('.tbf-cvs');              // the widget; its input is inside the widget's shadow root
  if (!host) return false;
  const el = (host.shadowRoot && host.shadowRoot.querySelector('input')) || host.querySelector('input');
  if (!el) return false;
  el.focus();
  el.value = value;
  window.__vedette_t0 = performance.now();
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return true;
}
"""
#: when the odds show: [ms since the change, ms from the change to the last server message received before]
_SHOWN_SINCE_CHANGE = ("(sel) => { if (!(" + _DEEP + ")(sel)) return false; const t0 = window.__vedette_t0;"
                       " const got = (window.__vedette_ws || []).filter(m => m[0] >= t0);"
                       " return [performance.now() - t0, got.length ? got[got.length - 1][0] - t0 : null]; }")
#: in every page of B, before its own scripts: the arrival time and size of each message from the server
#: (the websocket Bokeh opens), so an update's time splits into the server's part and the browser's
_WS_TIMES = """
(() => {
  window.__vedette_ws = [];
  const on = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'onmessage');
  Object.defineProperty(WebSocket.prototype, 'onmessage', {
    get() { return on.get.call(this); },
    set(f) { on.set.call(this, (e) => {
      window.__vedette_ws.push([performance.now(), (e.data && (e.data.length || e.data.byteLength)) || 0]);
      return f(e); }); }});
})();
"""
#: after a page load: [ms from the navigation's start to the HTML's last byte (the server built the session's
#: page), to the arrival of the page's models over the websocket (the largest message: the server sent the
#: document)]
_LOAD_PARTS = """
() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const ws = window.__vedette_ws || [];
  const doc = ws.reduce((a, m) => (m[1] > a[1] ? m : a), [null, 0]);
  return [nav ? nav.responseEnd : null, doc[0]];
}
"""
_POLL_MS = 16            # about one frame

_READY = ".tbf-check-result[data-pass='5/6']"


def _load_ms(p: Page, url: str) -> float:
    p.goto(url, wait_until="commit")
    return float(p.wait_for_function(_SHOWN_SINCE_NAVIGATION, arg=_READY, polling=_POLL_MS,
                                     timeout=60_000).json_value())


#: leaders' CVs typed for each measured update, and the odds they give (Being Charged, FV 4, 4.2.2 C: a pass
#: on d6 <= 4 + the CVs): each value is asked once per server, so every update is worked out afresh in a
#: worker (none is answered from the shared results)
_UPDATES = {"charge_idle": ("", "2/3"), "charge_heavy": ("2", "1/1"),     # 1-4 pass: 4/6; 1-6 pass: 1
            "cup_idle": ("0", "2/3"), "cup_heavy": ("1, 1", "1/1"),
            "study_idle": ("0", "2/3"), "study_heavy": ("1, 1", "1/1")}


def _update_ms(p: Page, which: str) -> tuple[float, float | None]:
    """ms from the change to the new odds on the page, and to the server's last message before them."""
    value, expected = _UPDATES[which]
    assert p.evaluate(_CHANGE_CVS, value), "no leaders' CVs box on the page"
    shown, received = p.wait_for_function(_SHOWN_SINCE_CHANGE, arg=f".tbf-check-result[data-pass='{expected}']",
                                          polling=_POLL_MS, timeout=60_000).json_value()
    return float(shown), received


def _server_hops(server, label: str = "working out the check") -> dict:
    """The server's time per hop of its last request with this busy label, by default a Fatigue Check (its
    log, ``VEDETTE_LOG_HOPS=1``; see ``background._hops``), e.g. {"mode": "inline", "compute": 12.1, "show":
    3.0, "total": 15.2}; {} if none."""
    try:
        lines = [l for l in server.log.read_text(errors="replace").splitlines() if f"'{label}" in l]
    except OSError:
        return {}
    if not lines:
        return {}
    head, _, hops = lines[-1].rpartition(": ")
    words = hops.removesuffix(" ms").split()
    out = {"mode": "inline" if " inline at " in head else "worker"}
    out.update({k: float(v) for k, v in zip(words[::2], words[1::2])})
    return out


def _busy(p: Page, where: str = "") -> bool:
    """Whether a busy line (with its cancel button) shows on the page (inside ``where``)."""
    return p.locator(f"{where} .busy-cancel >> visible=true".strip()).count() > 0


def _report(tmp_path, name: str, figures: dict) -> None:
    figures = {"case": name, "loadavg_1min": round(os.getloadavg()[0], 2), "cpus": os.cpu_count(), **figures}
    out = tmp_path / f"issue12_{name}.json"
    out.write_text(json.dumps(figures, indent=1))
    print(f"\n[issue 12 figures] {json.dumps(figures)} ({out})")


def _heavy_charge() -> str:
    """The page's example charge with as many defenders as the page allows: its heaviest request."""
    from dashboards.calculators.tbf.views import EXAMPLE_CHARGE, MAX_DEFENDERS, MAX_UNITS_PER_TARGET

    spec = yaml.safe_load(EXAMPLE_CHARGE)
    spec["targets"][0]["units"] = [{"name": f"bn {i}", "fv": 3, "mf": 4} for i in range(MAX_UNITS_PER_TARGET)]
    spec["targets"][1]["units"] = [{"name": f"sq {i}", "fv": 3, "mf": 4}
                                   for i in range(MAX_DEFENDERS - MAX_UNITS_PER_TARGET)]
    return yaml.safe_dump(spec, sort_keys=False)


def _b_figures(b: Page, url: str, which: str, server) -> dict:
    """B's page load and odds update, with their parts: the load's HTML (the server built the page) and
    models (the server sent the document) and the rest (the browser); the update until the server's answer
    arrived, the server's own hops (its log) and the browser's drawing after the answer."""
    load = _load_ms(b, url)
    html_ms, doc_ms = b.evaluate(_LOAD_PARTS)
    update, received = _update_ms(b, which)
    return {"load_ms": round(load), "load_html_ms": html_ms and round(html_ms), "load_doc_ms": doc_ms and round(doc_ms),
            "update_ms": round(update), "update_answer_in_ms": received and round(received),
            "update_drawn_after_answer_ms": received and round(update - received),
            "update_server_hops_ms": _server_hops(server)}


def _b_page(browser: Browser) -> Page:
    ctx = browser.new_context()
    ctx.add_init_script(_WS_TIMES)
    return ctx.new_page()


def _a_and_idle_b(browser: Browser, app_server, which: str) -> tuple[Page, Page, str, dict]:
    """A's page (to start the heavy work), B's /tbf page loaded once, and B's figures with nobody computing."""
    a = browser.new_context().new_page()
    b = _b_page(browser)
    url = app_server.url + "/tbf"
    _load_ms(b, url)
    return a, b, url, _b_figures(b, url, which, app_server)


def _report_during(tmp_path, name: str, idle: dict, during: dict, **more) -> None:
    """Report B's idle and during figures; only a generous bound is asserted (a stalled loop took 13 s)."""
    _report(tmp_path, name, {**{f"idle_{k}": v for k, v in idle.items()}, **during, **more})
    assert during["load_ms"] < 15_000 and during["update_ms"] < 10_000


def test_while_a_heavy_charge_runs_another_page_loads_and_updates(browser: Browser, app_server, tmp_path):
    app_url = app_server.url
    a = browser.new_context().new_page()
    b = _b_page(browser)
    url = app_url + "/tbf"
    for p in (a, b):                     # each page once, so the figures below are not first-import times
        _load_ms(p, url)
    idle = _b_figures(b, url, "charge_idle", app_server)   # nobody computing, for comparison
    a.locator(".bk-tab").filter(has_text="Charge").first.click()
    expect(a.locator(".tbf-total").first).to_have_text("1/1", timeout=60_000)
    a.locator(".tbf-charge-advanced .card-header").first.click()
    box = a.locator(".tbf-charge-text textarea").first
    box.fill(_heavy_charge())
    box.press("Tab")                     # leaving the box starts the computation
    expect(a.locator(".tbf-charge-results .busy-cancel").first).to_be_visible(timeout=10_000)
    during = _b_figures(b, url, "charge_heavy", app_server)
    still = _busy(a, ".tbf-charge-results")
    figures = {**{f"idle_{k}": v for k, v in idle.items()}, **during, "heavy_still_running_after": still}
    _report(tmp_path, "heavy_charge", figures)
    assert during["load_ms"] < 15_000 and during["update_ms"] < 10_000   # generous: a stalled loop took 13 s once
    expect(a.locator(".tbf-total").first).to_have_text("1/1", timeout=120_000)   # A gets its tree in the end
    expect(a.locator(".tbf-charge-results .busy-cancel").first).to_be_hidden()
    # the event loop's part when A's tree arrived (``back``: until the loop ran it; ``show``: putting it on
    # the page, the time another session's request waits behind it)
    _report(tmp_path, "heavy_charge", {**figures, "heavy_result_server_hops_ms":
                                       _server_hops(app_server, "computing the charge tree")})
    a.context.close()
    b.context.close()


def test_while_a_long_cube_cup_runs_another_page_loads_and_updates(browser: Browser, app_server, tmp_path):
    """The cup with 15 blue cubes (28 in all) and a pass on every blue cube (18.0): every order of the cubes."""
    app_url = app_server.url
    a, b, url, idle = _a_and_idle_b(browser, app_server, "cup_idle")
    a.goto(app_url + "/bc")
    expect(a.locator(".bc-results").first).to_be_visible(timeout=60_000)
    a.locator(".bk-tab").filter(has_text="Cube cup").first.click()
    expect(a.locator(".bc-cup").first).to_have_attribute("data-size", "19", timeout=60_000)
    a.locator(".bc-cup-form select[multiple]").first.select_option(["blue"])
    expect(a.locator(".bc-cup").first).to_be_visible(timeout=60_000)
    handle = a.locator(".bc-cup-form .noUi-handle").nth(0)
    handle.focus()                        # the Blue slider to its maximum (15)
    handle.press("End")
    try:                                  # the request under way (it may also have answered already)
        expect(a.locator(".busy-cancel >> visible=true").first).to_be_visible(timeout=5_000)
    except AssertionError:
        pass
    started = _busy(a)
    during = _b_figures(b, url, "cup_heavy", app_server)
    still = _busy(a)
    _report_during(tmp_path, "cube_cup", idle, during, heavy_seen_running=started, heavy_still_running_after=still)
    if _busy(a):                          # cancel stops the worker at once
        a.locator(".busy-cancel >> visible=true").first.locator("button").click()
        expect(a.locator(".busy-note", has_text="cancelled").first).to_be_visible(timeout=10_000)
    expect(a.locator(".busy-cancel >> visible=true")).to_have_count(0, timeout=120_000)
    a.context.close()
    b.context.close()


def test_while_a_long_study_runs_another_page_loads_and_updates(browser: Browser, app_server, tmp_path):
    """The longest work a browser can start: a Scenario balance study of the most games a request may ask
    for (minutes of bot games in the study's worker). It is still running while B is measured, so these
    figures are "during" by construction; then A cancels it."""
    from dashboards.calculators.study_view import MAX_BROWSER_GAMES

    app_url = app_server.url
    a, b, url, idle = _a_and_idle_b(browser, app_server, "study_idle")
    a.goto(app_url + "/balance")
    run = a.locator(".run-study button")
    expect(run).to_be_visible(timeout=60_000)
    games = a.locator(".study-games input")
    games.fill(str(MAX_BROWSER_GAMES))
    games.press("Enter")
    run.click()
    expect(a.locator(".study-status [data-state='running']")).to_be_attached(timeout=30_000)
    during = _b_figures(b, url, "study_heavy", app_server)
    still = a.locator(".study-status [data-state='running']").count() > 0
    _report_during(tmp_path, "study", idle, during, heavy_still_running_after=still)
    assert still, "the study should outlast B's measurement"
    a.locator(".cancel-study button").click()
    expect(a.locator(".study-status [data-state='done']")).to_be_attached(timeout=60_000)
    a.context.close()
    b.context.close()
