"""Browser tests of the probability tree picture (issue 17 point 4): fold and unfold on a click of a node."""
from __future__ import annotations

from playwright.sync_api import Page, expect

# Screen position of a data point on the figure named 'tree-figure' (Bokeh's own scales, so it follows the
# layout and the ranges that a fold changes); scrolls the figure into view when needed.
_TO_SCREEN = """
([x, y]) => {
  const views = [];
  const walk = (v) => { if (!v) return; views.push(v); for (const c of (v.child_views || [])) walk(c); };
  for (const v of Object.values(window.Bokeh.index)) walk(v);
  const plot = views.find(v => v.model && v.model.name === 'tree-figure' && v.frame);
  if (!plot) return null;
  plot.canvas_view.el.scrollIntoView({block: 'center'});
  const c = plot.canvas_view.el.getBoundingClientRect();
  return [c.left + plot.frame.x_scale.compute(x), c.top + plot.frame.y_scale.compute(y)];
}
"""
# (x, y) of the start node, read from the figure's data source
_ROOT = """
() => {
  for (const doc of window.Bokeh.documents) {
    const src = doc.get_model_by_name('tree-nodes');
    if (src) return [src.data.x[0], src.data.y[0]];
  }
  return null;
}
"""
# true once the dots are drawn where the current ranges put them (a fold re-renders on the next frame)
_DRAWN = """
() => {
  const views = [];
  const walk = (v) => { if (!v || views.includes(v)) return; views.push(v);
    const kids = typeof v.children === 'function' ? [...v.children()] : (v.child_views || []);
    for (const c of kids) walk(c); };
  for (const v of Object.values(window.Bokeh.index)) walk(v);
  const plot = views.find(v => v.model && v.model.name === 'tree-figure' && v.frame);
  const dots = views.find(v => v.glyph && v.glyph.sy && v.model.data_source &&
                               v.model.data_source.name === 'tree-nodes' && v.glyph.sx0 === undefined);
  if (!plot || !dots) return false;
  const src = dots.model.data_source;
  return Math.abs(dots.glyph.sy[0] - plot.frame.y_scale.compute(src.data.y[0])) < 0.5 &&
         Math.abs(dots.glyph.sx[0] - plot.frame.x_scale.compute(src.data.x[0])) < 0.5;
}
"""


def _click_root(page: Page) -> None:
    page.wait_for_function(_DRAWN, timeout=10_000)
    xy = page.evaluate(_ROOT)
    assert xy is not None, "no tree on the page"
    pos = page.evaluate(_TO_SCREEN, xy)
    assert pos is not None, "the tree figure has no view"
    page.mouse.click(pos[0], pos[1])


def test_tree_picture_folds_and_unfolds_on_click(page: Page, app_url: str):
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(app_url + "/tree")
    shown = page.locator(".tree-shown").first
    # the worked example: 53 nodes, all 4 levels fit (30 rows), so all are shown at first
    expect(shown).to_have_attribute("data-shown", "53", timeout=30_000)
    expect(page.locator(".tree-outline").first).to_contain_text("3–4")
    _click_root(page)
    expect(shown).to_have_attribute("data-shown", "1", timeout=10_000)      # the start folded: only itself
    _click_root(page)
    expect(shown).to_have_attribute("data-shown", "53", timeout=10_000)
    expect(page.locator(".tree-outline").first).not_to_contain_text("inside this step")
