"""Browser test of the These Brave Fellows page: a bad upload, a charge tree, line of sight, piece fates, the
fire form, the recovery phase and check odds that follow a change. The page is opened once and its tabs
visited in turn: the checks that change nothing come first, then the edits, each on its own tab; the leaders'
CVs (which other tabs may read) are changed last."""
from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

REPO = Path(__file__).resolve().parents[2]


def _tab(page: Page, name: str) -> None:
    page.locator(".bk-tab").filter(has_text=name).first.click()


def test_tbf_page_every_tab_a_bad_upload_and_the_forms(page: Page, app_url: str, tmp_path):
    page.set_viewport_size({"width": 1400, "height": 1000})     # the fire form's table at full width
    page.goto(app_url + "/tbf")
    res = page.locator(".tbf-check-result").first
    expect(res).to_be_visible(timeout=30_000)
    # Being Charged, FV 4, one CV 1 leader: pass on 1-5 (4.2.2 C)
    expect(res).to_have_attribute("data-pass", "5/6")
    expect(page.locator(".prov-badge").first).to_be_visible()

    # a bad tables file: refused, the check odds stay
    bad = tmp_path / "bad.yaml"
    bad.write_text("fatigue: {checks: 3}\n")
    page.locator(".upload input[type=file]").first.set_input_files(str(bad))
    expect(page.locator(".upload-error").first).to_be_visible(timeout=10_000)
    expect(page.locator(".tbf-check-result").first).to_have_attribute("data-pass", "5/6")

    # the charge tree
    _tab(page, "Charge")
    total = page.locator(".tbf-total").first
    expect(total).to_have_text("1/1", timeout=30_000)
    expect(page.locator(".tbf-charge-tree .tree-shown").first).to_be_visible()      # the picture
    expect(page.locator(".tbf-charge-tree .tree-outline").first).to_contain_text("Fatigue Check")
    expect(page.locator(".tbf-charge-ends tr[data-label='attempt failed']").first).to_have_attribute("data-fraction", "1/3")

    # the map draws the line of sight: 1514 -> 1511 through Level 1 (4.4 B)
    _tab(page, "Map and LOS")
    expect(page.locator(".tbf-los").first).to_have_attribute("data-clear", "false", timeout=30_000)

    # the situation: 4l-1 fires at ci-1 placed in 2114 facing SW; column 3 leaves it untouched on 1-6 (3/5)
    _tab(page, "Situation")
    piece = page.locator(".tbf-piece-ci-1 tr[data-label='normal in 2114']").first
    expect(piece).to_have_attribute("data-fraction", "3/5", timeout=30_000)

    # the fire form: the first firer's FF from 3 to 1, typed into the form's table (no YAML, no button)
    _tab(page, "Fire")
    bars = page.locator(".tbf-fire-bars").first
    expect(bars).to_be_visible(timeout=30_000)
    before = bars.inner_text()
    cell = page.locator(".tbf-fire-form .tabulator-row").first.locator(".tabulator-cell[tabulator-field='ff']")
    expect(cell).to_have_text("3", timeout=30_000)
    cell.click()
    editor = cell.locator("input")
    expect(editor).to_be_visible(timeout=10_000)
    editor.fill("1")
    editor.press("Enter")
    expect(cell).to_have_text("1")
    expect(page.locator(".tbf-fire-bars").first).not_to_have_text(before, timeout=15_000)

    # the situation in the recovery phase (7.0): 1/100 fatigued (FV 3) with Campana (CV 1): Remove Fatigue
    # d6 - 1 <= 3 on 1-4 -> 2/3
    _tab(page, "Situation")
    expect(page.locator(".tbf-piece-ci-1").first).to_be_visible(timeout=30_000)
    page.locator(".tbf-places textarea").first.fill("100-1=1616:N:fatigued")
    page.locator(".tbf-situation-what button").filter(has_text="recovery").first.click()
    row = page.locator(".tbf-piece-100-1 tr[data-label='normal in 1616']").first
    expect(row).to_have_attribute("data-fraction", "2/3", timeout=30_000)

    # the check odds follow a change of the leaders' CVs: none left, pass on 1-4 = 2/3
    _tab(page, "Fatigue Checks")
    cvs = page.locator(".tbf-cvs input").first
    cvs.fill("")
    cvs.press("Enter")
    expect(page.locator(".tbf-check-result").first).to_have_attribute("data-pass", "2/3", timeout=10_000)
