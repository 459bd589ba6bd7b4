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
