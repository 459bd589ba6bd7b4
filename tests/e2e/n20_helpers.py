"""Helpers for the Napoleonic 20 browser tests: click a hex on the SVG board, read through shadow roots."""
from __future__ import annotations

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

# Screen position of a data point on a Bokeh figure named 'hexmap' (the TBF board; Bokeh's own scales, so it
# follows zoom/layout).
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


#: a hex of the page's board (dashboards/render/hexboard.py: one SVG polygon a hex, ``data-hex`` its label)
HEX = ".hexboard-svg polygon.hx[data-hex='{label}']"


def click_hex(page: Page, scenario: str, label: str) -> None:
    """Click the centre of hex ``label`` on the page's board (a real mouse click where the hex is drawn).

    ``scenario`` names the map the test expects; the board's hexes carry their labels, so it is not needed
    to find the hex (kept so that callers read the same)."""
    hexel = page.locator(HEX.format(label=label)).first
    hexel.wait_for(state="attached", timeout=30_000)     # waits on the page until the board is drawn
    hexel.scroll_into_view_if_needed()
    box = hexel.bounding_box()
    assert box, f"hex {label} is not on the map"
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def wait_ready(page: Page, timeout: float = 30_000) -> None:
    """Wait until Bokeh has rendered the page's models (its websocket session is live, so clicks count).

    A served page's document comes over the websocket, so its views exist only once the session is live; the
    wait then asks for every document idle (all its views rendered) and two animation frames drawn."""
    page.wait_for_function("() => window.Bokeh && window.Bokeh.index && Object.keys(window.Bokeh.index).length > 0"
                           " && (window.Bokeh.documents || []).every((d) => d.is_idle)", timeout=timeout)
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())))")
