"""Layouts that fit (issue 17): at 1024 (tablet), 1280 and 1920 px wide no control overlaps another and no
result is clipped, on every page and in the page states that used to go wrong (odds compare mode, the map's
attack plan, the play page in play and replay mode).

Each page state is opened once and checked at each width in turn (the viewport resized, then the checks wait
until the layout has settled). Each check saves a screenshot into ``$VEDETTE_SCREENSHOTS`` when that names a
folder, and a failing check always saves one (there, or in pytest's tmp folder); it checks, through Panel's
shadow roots:

* overlap: the bounding boxes of the visible controls (inputs, selects, buttons, textareas, widget labels) and
  of the result panels and tables intersect pairwise by no more than 2 px (a control and the label around it
  are one control);
* clipping: no result or text pane, table holder, row or column is wider inside than its box
  (``scrollWidth <= clientWidth``), so nothing is cut off or scrolls sideways, and the page itself does not
  scroll sideways; no button label, table cell or column title is cut short either.

The checks wait on page state (the odds panel, the map, the status line; the boxes of the measured elements
unchanged over a few animation frames, stylesheets and images loaded), never on time. A failure at one width
does not hide the others: the test reports every width that failed.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from n20_helpers import wait_ready

pytestmark = pytest.mark.e2e

WIDTHS = [1024, 1280, 1920]
HEIGHT = 900

# Every element of the page, descending into every shadow root.
ALL_ELEMENTS = r"""
() => {
  const all = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      all.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  return all;
}
"""

# Collects what the checks need, descending into every shadow root.
COLLECT = r"""
() => {
  const all = (""" + ALL_ELEMENTS + r""")();
  const parentOf = (n) => n.parentNode && n.parentNode.host && n.parentNode instanceof ShadowRoot
      ? n.parentNode.host : n.parentNode;
  const shown = (el) => {
    // the content of a folded <details> keeps its boxes in Chromium but is not drawn (its summary is)
    for (let n = el, prev = null; n && n.nodeType === 1; prev = n, n = parentOf(n)) {
      if (n.tagName === 'DETAILS' && !n.open && !(prev && prev.tagName === 'SUMMARY')) return false;
      const cs = getComputedStyle(n);
      if (cs.display === 'none' || cs.visibility === 'hidden' || cs.opacity === '0') return false;
    }
    const r = el.getBoundingClientRect();
    return r.width > 1 && r.height > 1;
  };
  const path = (el) => {
    const out = [];
    for (let n = el; n && n.nodeType === 1 && out.length < 6; n = parentOf(n)) {
      const cls = (n.className && typeof n.className === 'string') ? '.' + n.className.trim().split(/\s+/).slice(0, 2).join('.') : '';
      out.push(n.tagName.toLowerCase() + cls);
    }
    return out.join(' < ');
  };
  const inBokehPlot = (el) => {
    for (let n = el; n && n.nodeType === 1; n = parentOf(n)) {
      if (n.classList && (n.classList.contains('bk-Figure') || n.classList.contains('bk-Toolbar')
          || n.classList.contains('bk-Canvas'))) return true;
    }
    return false;
  };
  const isBlock = (el) => el.classList && (el.classList.contains('odds-results') || el.classList.contains('tabulator')
      || el.classList.contains('dice-log') || el.classList.contains('retreat-list')
      || el.classList.contains('units-edit'));
  const controls = all.filter((el) => {
    if (isBlock(el)) return shown(el);    // results and tables: nothing may lie over them either
    const tag = el.tagName.toLowerCase();
    if (!['input', 'select', 'button', 'textarea', 'label'].includes(tag)) return false;
    if (tag === 'input' && (el.type === 'hidden' || el.type === 'file')) return false;
    if (inBokehPlot(el)) return false;
    if (el.closest && el.closest('.tabulator')) return false;    // a table's own cells and editors
    return shown(el);
  });
  const boxes = controls.map((el, i) => {
    el.__vedetteIdx = i;
    const r = el.getBoundingClientRect();
    return {i, x: r.left, y: r.top, w: r.width, h: r.height, what: path(el),
            text: (el.innerText || el.value || el.getAttribute('aria-label') || '').slice(0, 40)};
  });
  const related = (a, b) => {
    for (let n = a; n; n = parentOf(n)) if (n === b) return true;
    for (let n = b; n; n = parentOf(n)) if (n === a) return true;
    // a label and the control it names (for=..., or the same widget)
    const wa = a.closest && a.closest('.bk-input-group'), wb = b.closest && b.closest('.bk-input-group');
    return !!(wa && wa === wb);
  };
  const overlaps = [];
  for (let i = 0; i < controls.length; i++) {
    for (let j = i + 1; j < controls.length; j++) {
      const a = boxes[i], b = boxes[j];
      const dx = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
      const dy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
      if (dx > 2 && dy > 2 && !related(controls[i], controls[j])) {
        overlaps.push(`${a.what} "${a.text}" over ${b.what} "${b.text}" (${dx.toFixed(0)}x${dy.toFixed(0)} px)`);
      }
    }
  }
  // clipping: result and text panes, tables, rows and columns that are wider inside than their box
  const clipped = [];
  for (const el of all) {
    const cls = el.classList;
    if (!cls) continue;
    const pane = cls.contains('bk-panel-models-markup-HTML') || cls.contains('bk-Row') || cls.contains('bk-Column')
        || cls.contains('tabulator-tableholder') || cls.contains('odds-results') || cls.contains('bk-Card');
    if (!pane || !shown(el) || inBokehPlot(el)) continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      clipped.push(`${path(el)}: scrollWidth ${el.scrollWidth} > clientWidth ${el.clientWidth}`);
    }
  }
  // labels cut short: a button's label, a table cell or column title wider than its box (an ellipsis)
  for (const el of all) {
    const tag = el.tagName.toLowerCase();
    const cls = el.classList;
    const label = tag === 'button' || (cls && (cls.contains('tabulator-cell') || cls.contains('tabulator-col-title')));
    if (!label || !shown(el) || inBokehPlot(el)) continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      clipped.push(`${path(el)} "${(el.innerText || '').slice(0, 40)}": label cut (${el.scrollWidth} > ${el.clientWidth})`);
    }
  }
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth + 1) clipped.push(`the page scrolls sideways: ${doc.scrollWidth} > ${window.innerWidth}`);
  return {controls: boxes.length, overlaps, clipped};
}
"""


# Waits until the layout has settled: fonts, stylesheets (also those in shadow roots) and images loaded, every
# Bokeh document rendered, and the boxes of the elements the checks measure unchanged over `still` animation
# frames in a row. Gives up after `most` frames (the checks then judge what is shown) and says whether it settled.
SETTLE = r"""
async ([still, most]) => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  await document.fonts.ready;
  const measured = (el) => {
    const tag = el.tagName.toLowerCase();
    if (['input', 'select', 'button', 'textarea', 'label'].includes(tag)) return true;
    const c = el.classList;
    return !!c && (c.contains('bk-Row') || c.contains('bk-Column') || c.contains('bk-Card')
        || c.contains('bk-panel-models-markup-HTML') || c.contains('odds-results') || c.contains('tabulator')
        || c.contains('tabulator-tableholder') || c.contains('tabulator-cell') || c.contains('tabulator-col-title'));
  };
  const state = () => {
    const all = (""" + ALL_ELEMENTS + r""")();
    let loading = 0;
    const out = [];
    for (const el of all) {
      const tag = el.tagName.toLowerCase();
      if (tag === 'link' && el.rel === 'stylesheet' && !el.sheet) loading++;
      else if (tag === 'img' && !el.complete) loading++;
      else if (measured(el)) {
        const r = el.getBoundingClientRect();
        out.push(`${Math.round(r.left)},${Math.round(r.top)},${Math.round(r.width)},${Math.round(r.height)},`
                 + `${el.scrollWidth},${el.clientWidth}`);
      }
    }
    const docs = (window.Bokeh && window.Bokeh.documents) || [];
    if (!docs.every((d) => d.is_idle)) loading++;
    return {loading, print: out.join(';') + `|${document.documentElement.scrollWidth}`};
  };
  let last = null, same = 0;
  for (let i = 0; i < most; i++) {
    await frame();
    const s = state();
    if (s.loading) { last = null; same = 0; continue; }
    if (s.print === last) { if (++same >= still) return true; } else { last = s.print; same = 0; }
  }
  return false;
}
"""


ALWAYS_SHOOT = bool(os.environ.get("VEDETTE_SCREENSHOTS"))


def _shots(tmp_path_factory) -> Path:
    d = os.environ.get("VEDETTE_SCREENSHOTS")
    return Path(d) if d else tmp_path_factory.mktemp("layouts")


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    p = _shots(tmp_path_factory)
    p.mkdir(parents=True, exist_ok=True)
    return p


def settle(page: Page) -> bool:
    """Wait until the page's layout has settled (see SETTLE): 3 frames alike, at most 600 frames."""
    return page.evaluate(SETTLE, [3, 600])


def check_layout(page: Page, shots: Path, name: str, min_controls: int = 1) -> dict:
    settled = settle(page)
    found = page.evaluate(COLLECT)
    ok = found["controls"] >= min_controls and not found["overlaps"] and not found["clipped"]
    if ALWAYS_SHOOT or not ok:   # a picture costs about half a second: only when asked for, or to show a failure
        page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
    note = "" if settled else " (the layout was still moving)"
    assert found["controls"] >= min_controls, f"{name}: no controls found (the page did not render?){note}"
    assert not found["overlaps"], f"{name}: controls overlap{note}:\n" + "\n".join(found["overlaps"][:10])
    assert not found["clipped"], f"{name}: clipped{note}:\n" + "\n".join(found["clipped"][:10])
    return found


def check_widths(page: Page, shots: Path, name: str, min_controls: int = 1) -> None:
    """The layout checks at every width of WIDTHS, the viewport resized in turn; every failing width is reported."""
    failures = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": HEIGHT})
        try:
            check_layout(page, shots, f"{name}-{width}", min_controls)
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, "\n\n".join(failures)


def _open(page: Page, url: str) -> None:
    page.set_viewport_size({"width": WIDTHS[0], "height": HEIGHT})
    page.goto(url)


# -- every page, as it first opens, and the page states that used to go wrong ----------------------------------
def test_index_page_fits(page: Page, app_url: str, shots: Path):
    _open(page, app_url + "/")
    expect(page.locator(".tool-card").first).to_be_visible(timeout=60_000)
    wait_ready(page)
    check_widths(page, shots, "index", min_controls=0)


def test_odds_page_and_its_compare_mode_fit(page: Page, app_url: str, shots: Path):
    _open(page, app_url + "/odds")
    expect(page.locator(".odds-results").first).to_be_visible(timeout=60_000)
    wait_ready(page)
    check_widths(page, shots, "odds")
    page.locator(".compare-toggle button").click()
    expect(page.locator(".plan-b .odds-results")).to_be_visible(timeout=30_000)
    check_widths(page, shots, "odds-compare")


def test_map_page_and_its_attack_plan_fit(page: Page, app_url: str, shots: Path):
    _open(page, app_url + "/map")
    expect(page.locator(".goto-hex").first).to_be_visible(timeout=60_000)
    expect(page.locator(".goto-hex input")).to_be_visible(timeout=60_000)
    wait_ready(page)
    check_widths(page, shots, "map")
    page.locator(".map-mode button", has_text="plan an attack").click()
    expect(page.locator(".map-odds")).to_contain_text("Click your attacking units", timeout=30_000)
    check_widths(page, shots, "map-attack")


def test_play_page_first_in_play_and_in_replay_fits(page: Page, app_url: str, shots: Path):
    _open(page, app_url + "/play")
    expect(page.locator(".status-line").first).to_be_visible(timeout=60_000)
    expect(page.locator(".status-line")).to_contain_text("No game", timeout=60_000)
    wait_ready(page)
    check_widths(page, shots, "play-first")
    page.locator(".seed-input input").fill("1")
    page.locator(".seed-input input").press("Enter")
    page.locator(".start-game button").click()
    expect(page.locator(".status-line")).to_contain_text("phase: movement", timeout=60_000)
    check_widths(page, shots, "play")
    page.locator(".play-mode button", has_text="replay").click()
    expect(page.locator(".replay-controls")).to_be_visible(timeout=30_000)
    check_widths(page, shots, "play-replay")


def test_a_page_says_connection_lost_when_the_server_goes_away(page: Page, app_server):
    """The server stops: the open page shows "Connection lost — reload" (dashboards/server/static/connection.js)."""
    page.set_viewport_size({"width": 1280, "height": HEIGHT})
    page.goto(app_server.url + "/odds")
    expect(page.locator(".odds-results").first).to_be_visible(timeout=60_000)
    wait_ready(page)
    expect(page.locator("#vedette-connection-lost")).to_have_count(0)
    app_server.stop()
    try:
        banner = page.locator("#vedette-connection-lost")
        expect(banner).to_be_visible(timeout=30_000)
        expect(banner).to_contain_text("Connection lost — reload")
    finally:
        app_server.start()   # the other browser tests of this session go on with a running server


# -- the other systems' pages, every tab (issue 17.3), and the forms' "advanced" boxes opened -------------------
#: page -> (what shows once it has rendered, the tabs to open in turn with what each shows once computed and,
#: for a form with an "advanced" box (the same set-up as YAML or text lines), how to open it and what it shows)
SYSTEM_PAGES = {
    "/lob": (".lob-result", [("Any combat", ".lob-custom-out .lob-result",
                              (".lob-custom-advanced .card-header", ".lob-custom-text textarea")),
                             ("Artillery fire", ".lob-fire-effect", None),
                             ("Command points", ".lob-cp-french", None)]),
    "/tbf": (".tbf-check-result", [("Charge", ".tbf-total",
                                    (".tbf-charge-advanced .card-header", ".tbf-charge-text textarea")),
                                   ("Fire", ".tbf-fire-bars", ("Advanced", ".tbf-firers textarea")),
                                   ("Melee", ".tbf-melee-bars", None),
                                   ("Map and LOS", ".tbf-los", None), ("Situation", ".tbf-piece", None)]),
    "/bc": (".bc-results", [("Skill checks", ".bc-check-table", None), ("Cube cup", ".bc-cup", None),
                            ("Demonstration battle", ".bc-tally", None), ("Deck and files", ".bc-deck", None)]),
}


#: tabs that show results and no control of their own
RESULTS_ONLY = {"Command points"}


def _open_tab(page: Page, tab: str, ready: str) -> None:
    page.locator(".bk-tab").filter(has_text=tab).first.click()
    expect(page.locator(ready).first).to_be_visible(timeout=60_000)


def _open_advanced(page: Page, header: str, shown: str) -> None:
    if header.startswith("."):
        page.locator(header).first.click()
    else:   # the visible card whose header says so (the tab shown)
        page.locator(".card-header", has_text=header).filter(visible=True).first.click()
    expect(page.locator(shown).first).to_be_visible(timeout=30_000)


@pytest.mark.parametrize("route", list(SYSTEM_PAGES))
def test_every_tab_of_the_system_pages_fits(page: Page, app_url: str, shots: Path, route: str):
    first, tabs = SYSTEM_PAGES[route]
    _open(page, app_url + route)
    expect(page.locator(first).first).to_be_visible(timeout=60_000)
    wait_ready(page)
    name = route.strip("/")
    check_widths(page, shots, f"{name}-first")
    for tab, ready, advanced in tabs:
        _open_tab(page, tab, ready)
        tab_name = f"{name}-{tab.replace(' ', '_').lower()}"
        # a tab of results only (LoB's command points) has no control of its own: the page's tables upload
        # above the tabs is a plain file input, which the checks leave out
        check_widths(page, shots, tab_name, min_controls=0 if tab in RESULTS_ONLY else 1)
        if advanced:
            _open_advanced(page, *advanced)
            check_widths(page, shots, f"{tab_name}-advanced")


def test_charts_page_fits_for_every_chart_file(page: Page, app_url: str, shots: Path):
    _open(page, app_url + "/charts")
    pick = page.locator(".charts-pick select").first
    expect(pick).to_be_visible(timeout=60_000)
    expect(page.locator(".charts-summary .charts-badge").first).to_be_visible(timeout=60_000)
    wait_ready(page)
    for value in pick.locator("option").evaluate_all("(os) => os.map(o => o.value)"):
        pick.select_option(value)
        expect(page.locator(".charts-tabs .bk-tab").first).to_be_visible(timeout=30_000)
        expect(page.locator(".charts-tabs .tabulator").first).to_be_visible(timeout=30_000)
        check_widths(page, shots, f"charts-{value}")


@pytest.mark.parametrize("route, ready", [("/tree", ".tree-shown"), ("/balance", ".run-study button")])
def test_tree_and_balance_pages_fit(page: Page, app_url: str, shots: Path, route: str, ready: str):
    _open(page, app_url + route)
    if route == "/tree":
        expect(page.locator(ready).first).to_be_attached(timeout=60_000)
    else:
        expect(page.locator(ready)).to_be_visible(timeout=60_000)
    wait_ready(page)
    check_widths(page, shots, route.strip("/"))


@pytest.mark.parametrize("system", ["lob", "tbf", "bc"])
def test_play_page_of_every_system_fits(page: Page, app_url: str, shots: Path, system: str):
    _open(page, f"{app_url}/play?system={system}")
    start = page.locator(".start-game button")
    expect(start).to_be_visible(timeout=60_000)
    wait_ready(page)
    check_widths(page, shots, f"play-{system}-before")
    start.click()
    expect(page.locator(".status-line [data-state='ready'][data-events='0']")).to_be_attached(timeout=90_000)
    expect(page.locator(".action-list select option").first).to_be_attached(timeout=30_000)
    check_widths(page, shots, f"play-{system}")
