"""Browser test of the probability tree page (issue 17 point 4): the picture (drawn in the browser, issue 17.1)
folds and unfolds on a click of a node, zooms, shows a node's rule on hover, and the battle's inputs open
on their button."""
from __future__ import annotations

from playwright.sync_api import Page, expect

from n20_helpers import wait_ready


def test_tree_picture_folds_zooms_and_shows_rules(page: Page, app_url: str):
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(app_url + "/tree")
    shown = page.locator(".tree-shown").first
    # the worked example: 53 nodes, all 4 levels fit (30 rows), so all are shown at first
    expect(shown).to_have_attribute("data-shown", "53", timeout=30_000)
    expect(shown).to_have_attribute("data-rows", "30")
    expect(page.locator(".tree-outline").first).to_contain_text("3–4")
    wait_ready(page)
    root = page.locator(".tree-node[data-node='0'] .tree-dot")
    # hover: the start node's question and its rule with our summary (9.0 F, the CRT roll)
    root.hover()
    expect(page.locator(".tree-tip")).to_be_visible()
    expect(page.locator(".tree-tip")).to_contain_text("rule 9.0")
    root.click()
    expect(shown).to_have_attribute("data-shown", "1", timeout=10_000)      # the start folded: only itself
    expect(root).to_have_attribute("data-folded", "1")
    root.click()
    expect(shown).to_have_attribute("data-shown", "53", timeout=10_000)
    # zoom in: the nodes move apart from the middle of the picture; "whole tree" puts them back
    before = page.locator(".tree-node[data-node='1']").get_attribute("transform")
    page.locator(".tree-zoom-in").click()
    expect(page.locator(".tree-node[data-node='1']")).not_to_have_attribute("transform", before)
    page.locator(".tree-reset").click()
    expect(page.locator(".tree-node[data-node='1']")).to_have_attribute("transform", before)
    expect(page.locator(".tree-outline").first).not_to_contain_text("inside this step")
    # the battle's inputs are made on the first press of their button
    page.locator(".tree-battle-toggle").click()
    expect(page.locator(".tree-battle-toggle")).to_contain_text("Hide")
    expect(page.locator(".plan-view").first).to_be_attached(timeout=30_000)


_LABEL_RECTS = """(els) => els.filter((g) => g.style.display !== 'none').map((g) => {
  const r = [...g.querySelectorAll('text')].map((t) => t.getBoundingClientRect()).filter((b) => b.width > 0);
  return [+g.getAttribute('data-node'), Math.min(...r.map((b) => b.left)), Math.min(...r.map((b) => b.top)),
          Math.max(...r.map((b) => b.right)), Math.max(...r.map((b) => b.bottom))];
})"""


def test_tree_labels_do_not_overlap_at_the_first_zoom(page: Page, app_url: str):
    """Issue 25: the labels of the picture as it first shows the worked example (every level unfolded), as the
    browser lays the text out, meet nowhere; nor after a zoom out with the − button (all is scaled alike)."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(app_url + "/tree")
    expect(page.locator(".tree-shown").first).to_have_attribute("data-shown", "53", timeout=30_000)
    wait_ready(page)
    for step in ("first view", "zoomed out"):
        rects = page.locator(".tree-node").evaluate_all(_LABEL_RECTS)
        assert len(rects) == 53
        hits = [(a[0], b[0]) for i, a in enumerate(rects) for b in rects[i + 1:]
                if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]]
        assert not hits, f"{step}: the labels of nodes {hits[:5]} overlap"
        page.locator(".tree-zoom-out").click()
