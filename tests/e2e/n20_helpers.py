"""Helpers for the Napoleonic 20 browser tests: click a hex on the Bokeh map canvas, read through shadow roots."""
from __future__ import annotations

from functools import lru_cache

from playwright.sync_api import Page

# JavaScript that finds an element through Panel's shadow roots.
DEEP_QUERY = """
(sel) => {
  const walk = (root) => {
    const hit = root.querySelector(sel);
    if (hit) return hit;
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) { const h = walk(el.shadowRoot); if (h) return h; }
    }
    return null;
  };
  return walk(document);
}
"""

# Screen position of a data point on the figure named 'hexmap' (Bokeh's own scales, so it follows zoom/layout).
_TO_SCREEN = """
([x, y]) => {
  const views = [];
  const walk = (v) => {
    if (!v) return;
    views.push(v);
    const kids = v.child_views || [];
    for (const c of kids) walk(c);
  };
  for (const v of Object.values(window.Bokeh.index)) walk(v);
  const plot = views.find(v => v.model && v.model.name === 'hexmap' && v.frame);
  if (!plot) return null;
  let c = plot.canvas_view.el.getBoundingClientRect();
  const py = c.top + plot.frame.y_scale.compute(y), px = c.left + plot.frame.x_scale.compute(x);
  if (py < 0 || py > window.innerHeight || px < 0 || px > window.innerWidth) {
    plot.canvas_view.el.scrollIntoView({block: 'center', inline: 'center'});
    c = plot.canvas_view.el.getBoundingClientRect();
  }
  const qx = c.left + plot.frame.x_scale.compute(x), qy = c.top + plot.frame.y_scale.compute(y);
  if (qy < 0 || qy > window.innerHeight || qx < 0 || qx > window.innerWidth) return null;
  return [qx, qy];
}
"""


@lru_cache(maxsize=8)
def _grid(scenario: str):
    from engine.n20.game.scenario import load_scenario

    return load_scenario(scenario).board.grid


def click_hex(page: Page, scenario: str, label: str) -> None:
    """Click the centre of hex ``label`` on the page's map (a real mouse click on the canvas)."""
    x, y = _grid(scenario).center(label)
    page.wait_for_function("() => window.Bokeh && Object.keys(window.Bokeh.index).length > 0")
    # waits on the page until the map's frame gives the hex a screen position
    pos = page.wait_for_function(_TO_SCREEN, arg=[x, -y], timeout=30_000).json_value()
    assert pos, "no map on the page"
    page.mouse.click(pos[0], pos[1])


def wait_ready(page: Page, timeout: float = 30_000) -> None:
    """Wait until Bokeh has rendered the page's models (its websocket session is live, so clicks count).

    A served page's document comes over the websocket, so its views exist only once the session is live; the
    wait then asks for every document idle (all its views rendered) and two animation frames drawn."""
    page.wait_for_function("() => window.Bokeh && window.Bokeh.index && Object.keys(window.Bokeh.index).length > 0"
                           " && (window.Bokeh.documents || []).every((d) => d.is_idle)", timeout=timeout)
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())))")
