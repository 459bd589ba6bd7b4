"""Browser test of the Lines of Battle page: the map-based combat and its tree, a bad upload, a custom combat.
The page is opened once: the first tab's result, the refused upload (the result stays), the combat's tree,
then the Any combat tab, whose edits come last."""
from __future__ import annotations

from playwright.sync_api import Page, expect


def test_lob_combat_odds_bad_upload_tree_and_custom_combat(page: Page, app_url: str, tmp_path):
    page.goto(app_url + "/lob")
    res = page.locator(".lob-result").first
    expect(res).to_be_visible(timeout=30_000)
    # the page's example: Brayer and Veilande (strength 3 each) from 16 assault the KGL (2) in Albuera town;
    # the engine's exact chance that the French take the town, both sides staying (about 43.7 %)
    expect(res).to_have_attribute("data-taken", "410689497377/940369969152")
    expect(page.locator(".prov-badge").first).to_be_visible()
    expect(page.locator("canvas").first).to_be_visible()
    # a bad tables file: refused, the result stays
    bad = tmp_path / "bad.yaml"
    bad.write_text("combat: {source: rulebook 5.2.1}\n")
    page.locator(".upload input[type=file]").first.set_input_files(str(bad))
    expect(page.locator(".upload-error").first).to_be_visible(timeout=10_000)
    expect(page.locator(".lob-result").first).to_have_attribute("data-taken", "410689497377/940369969152")

    # the combat's tree
    page.locator(".lob-tree-card .card-header").first.click()
    expect(page.locator(".lob-tree-total").first).to_have_text("1/1", timeout=30_000)
    expect(page.locator(".lob-tree .tree-shown").first).to_be_visible(timeout=30_000)   # the picture

    # any combat
    page.locator(".bk-tab").filter(has_text="Any combat").first.click()
    out = page.locator(".lob-custom-out .lob-result").first
    expect(out).to_be_visible(timeout=30_000)
    # infantry 3 vs infantry 3 on the approach, both stay: a fixed exact number from the engine
    expect(out).to_have_attribute("data-taken", "95188895/725594112")
    # a cell of the defenders' table typed in: the result follows, no button (issue 17.6)
    cell = page.locator(".lob-custom-def .tabulator-row").first.locator(".tabulator-cell[tabulator-field='rating']")
    expect(cell).to_have_text("3", timeout=30_000)
    cell.click()
    editor = cell.locator("input")
    expect(editor).to_be_visible(timeout=10_000)
    editor.fill("1")
    editor.press("Enter")
    expect(out).not_to_have_attribute("data-taken", "95188895/725594112", timeout=30_000)
    # the advanced box: a typed combat the engine refuses shows one line, naming what is wrong
    page.locator(".lob-custom-advanced .card-header").first.click()
    box = page.locator(".lob-custom-text textarea").first
    box.fill("target: '16'\norigin: Albuera\nattackers: [{uid: A, kind: inf, rating: 3}]\n"
             "defenders: [{uid: D, kind: inf, rating: 3, approach: Albuera}]\n")
    box.press("Tab")
    expect(page.locator(".lob-error").first).to_be_visible(timeout=20_000)
