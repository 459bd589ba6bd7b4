"""Layouts that fit (issue 17): at 1024 (tablet), 1280 and 1920 px wide no control overlaps another and no
result is clipped, on every page and in the page states that used to go wrong (odds compare mode, the map's
attack plan, the play page in play and replay mode).

Each case saves a screenshot (``$VEDETTE_SCREENSHOTS`` or pytest's tmp folder) and checks, through Panel's
shadow roots:

* overlap: the bounding boxes of the visible controls (inputs, selects, buttons, textareas, widget labels) and
  of the result panels and tables intersect pairwise by no more than 2 px (a control and the label around it
  are one control);
* clipping: no result or text pane, table holder, row or column is wider inside than its box
  (``scrollWidth <= clientWidth``), so nothing is cut off or scrolls sideways, and the page itself does not
  scroll sideways; no button label, table cell or column title is cut short either.

The checks wait on page state (the odds panel, the map, the status line), never on time.
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

# Collects what the checks need, descending into every shadow root.
COLLECT = r"""
() => {
  const all = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      all.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  const parentOf = (n) => n.parentNode && n.parentNode.host && n.parentNode instanceof ShadowRoot
      ? n.parentNode.host : n.parentNode;
  const shown = (el) => {
    for (let n = el; n && n.nodeType === 1; n = parentOf(n)) {
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


def _shots(tmp_path_factory) -> Path:
    d = os.environ.get("VEDETTE_SCREENSHOTS")
    return Path(d) if d else tmp_path_factory.mktemp("layouts")


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    p = _shots(tmp_path_factory)
    p.mkdir(parents=True, exist_ok=True)
    return p


def check_layout(page: Page, shots: Path, name: str, min_controls: int = 1) -> dict:
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
    found = page.evaluate(COLLECT)
    assert found["controls"] >= min_controls, f"{name}: no controls found (the page did not render?)"
    assert not found["overlaps"], f"{name}: controls overlap:\n" + "\n".join(found["overlaps"][:10])
    assert not found["clipped"], f"{name}: clipped:\n" + "\n".join(found["clipped"][:10])
    return found


def _open(page: Page, url: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": HEIGHT})
    page.goto(url)


# -- every page, as it first opens ---------------------------------------------------------------------------
FIRST_VIEW = {
    "/": ".tool-card",
    "/odds": ".odds-results",
    "/map": ".goto-hex",
    "/play": ".status-line",
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("route", list(FIRST_VIEW))
def test_every_page_fits(page: Page, app_url: str, shots: Path, route: str, width: int):
    _open(page, app_url + route, width)
    expect(page.locator(FIRST_VIEW[route]).first).to_be_visible(timeout=60_000)
    wait_ready(page)
    check_layout(page, shots, f"{route.strip('/') or 'index'}-{width}", min_controls=0 if route == "/" else 1)


@pytest.mark.parametrize("width", WIDTHS)
def test_odds_compare_mode_fits(page: Page, app_url: str, shots: Path, width: int):
    _open(page, app_url + "/odds", width)
    expect(page.locator(".odds-results").first).to_be_visible(timeout=60_000)
    wait_ready(page)
    page.locator(".compare-toggle button").click()
    expect(page.locator(".plan-b .odds-results")).to_be_visible(timeout=30_000)
    check_layout(page, shots, f"odds-compare-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_map_attack_plan_fits(page: Page, app_url: str, shots: Path, width: int):
    _open(page, app_url + "/map", width)
    expect(page.locator(".goto-hex input")).to_be_visible(timeout=60_000)
    wait_ready(page)
    page.locator(".map-mode button", has_text="plan an attack").click()
    expect(page.locator(".map-odds")).to_contain_text("Click your attacking units", timeout=30_000)
    check_layout(page, shots, f"map-attack-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_play_page_in_play_and_replay_fits(page: Page, app_url: str, shots: Path, width: int):
    _open(page, app_url + "/play", width)
    expect(page.locator(".status-line")).to_contain_text("No game", timeout=60_000)
    wait_ready(page)
    page.locator(".seed-input input").fill("1")
    page.locator(".seed-input input").press("Enter")
    page.locator(".start-game button").click()
    expect(page.locator(".status-line")).to_contain_text("phase: movement", timeout=60_000)
    check_layout(page, shots, f"play-{width}")
    page.locator(".play-mode button", has_text="replay").click()
    expect(page.locator(".replay-controls")).to_be_visible(timeout=30_000)
    check_layout(page, shots, f"play-replay-{width}")


def test_a_page_says_connection_lost_when_the_server_goes_away(page: Page, app_server):
    """The server stops: the open page shows "Connection lost — reload" (dashboards/static/connection.js)."""
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


# -- the other systems' pages, every tab (issue 17.3) -----------------------------------------------------------
#: page -> (what shows once it has rendered, the tabs to open in turn and what each shows once computed)
SYSTEM_PAGES = {
    "/lob": (".lob-result", [("Any combat", ".lob-custom-out .lob-result"), ("Artillery fire", ".lob-fire-effect"),
                             ("Command points", ".lob-cp-french")]),
    "/tbf": (".tbf-check-result", [("Charge", ".tbf-total"), ("Fire", ".tbf-fire-bars"), ("Melee", ".tbf-melee-bars"),
                                   ("Map and LOS", ".tbf-los"), ("Situation", ".tbf-piece")]),
    "/bc": (".bc-results", [("Skill checks", ".bc-check-table"), ("Cube cup", ".bc-cup"),
                            ("Demonstration battle", ".bc-tally"), ("Deck and files", ".bc-deck")]),
}


def _open_tab(page: Page, tab: str, ready: str) -> None:
    page.locator(".bk-tab").filter(has_text=tab).first.click()
    expect(page.locator(ready).first).to_be_visible(timeout=60_000)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("route", list(SYSTEM_PAGES))
def test_every_tab_of_the_system_pages_fits(page: Page, app_url: str, shots: Path, route: str, width: int):
    first, tabs = SYSTEM_PAGES[route]
    _open(page, app_url + route, width)
    expect(page.locator(first).first).to_be_visible(timeout=60_000)
    wait_ready(page)
    name = route.strip("/")
    check_layout(page, shots, f"{name}-first-{width}")
    for tab, ready in tabs:
        _open_tab(page, tab, ready)
        check_layout(page, shots, f"{name}-{tab.replace(' ', '_').lower()}-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_charts_page_fits_for_every_chart_file(page: Page, app_url: str, shots: Path, width: int):
    _open(page, app_url + "/charts", width)
    pick = page.locator(".charts-pick select").first
    expect(pick).to_be_visible(timeout=60_000)
    expect(page.locator(".charts-summary .charts-badge").first).to_be_visible(timeout=60_000)
    wait_ready(page)
    for value in pick.locator("option").evaluate_all("(os) => os.map(o => o.value)"):
        pick.select_option(value)
        expect(page.locator(".charts-tabs .bk-tab").first).to_be_visible(timeout=30_000)
        expect(page.locator(".charts-tabs .tabulator").first).to_be_visible(timeout=30_000)
        check_layout(page, shots, f"charts-{value}-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_tree_and_balance_pages_fit(page: Page, app_url: str, shots: Path, width: int):
    _open(page, app_url + "/tree", width)
    expect(page.locator(".tree-shown").first).to_be_attached(timeout=60_000)
    wait_ready(page)
    check_layout(page, shots, f"tree-{width}")
    _open(page, app_url + "/balance", width)
    expect(page.locator(".run-study button")).to_be_visible(timeout=60_000)
    wait_ready(page)
    check_layout(page, shots, f"balance-{width}")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("system", ["lob", "tbf", "bc"])
def test_play_page_of_every_system_fits(page: Page, app_url: str, shots: Path, system: str, width: int):
    _open(page, f"{app_url}/play?system={system}", width)
    start = page.locator(".start-game button")
    expect(start).to_be_visible(timeout=60_000)
    wait_ready(page)
    check_layout(page, shots, f"play-{system}-before-{width}")
    start.click()
    expect(page.locator(".status-line [data-state='ready'][data-events='0']")).to_be_attached(timeout=90_000)
    expect(page.locator(".action-list select option").first).to_be_attached(timeout=30_000)
    check_layout(page, shots, f"play-{system}-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_advanced_boxes_open_fit(page: Page, app_url: str, shots: Path, width: int):
    """The forms' "advanced" boxes (the same set-up as YAML or text lines), opened: nothing overlaps the form."""
    _open(page, app_url + "/lob", width)
    expect(page.locator(".lob-result").first).to_be_visible(timeout=60_000)
    wait_ready(page)
    _open_tab(page, "Any combat", ".lob-custom-out .lob-result")
    page.locator(".lob-custom-advanced .card-header").first.click()
    expect(page.locator(".lob-custom-text textarea").first).to_be_visible(timeout=30_000)
    check_layout(page, shots, f"lob-any_combat-advanced-{width}")
    _open(page, app_url + "/tbf", width)
    expect(page.locator(".tbf-check-result").first).to_be_visible(timeout=60_000)
    wait_ready(page)
    _open_tab(page, "Charge", ".tbf-total")
    page.locator(".tbf-charge-advanced .card-header").first.click()
    expect(page.locator(".tbf-charge-text textarea").first).to_be_visible(timeout=30_000)
    check_layout(page, shots, f"tbf-charge-advanced-{width}")
    _open_tab(page, "Fire", ".tbf-fire-bars")
    page.locator(".card-header", has_text="Advanced").filter(visible=True).first.click()
    expect(page.locator(".tbf-firers textarea").first).to_be_visible(timeout=30_000)
    check_layout(page, shots, f"tbf-fire-advanced-{width}")
