"""Browser test of the charts page (issue 17 point 5): type a printed value and a source, save the file."""
from __future__ import annotations

from pathlib import Path

import yaml
from playwright.sync_api import Page, expect

from engine import n20


def test_type_a_crt_cell_and_save_a_tables_file(page: Page, app_url: str, tmp_path: Path):
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(app_url + "/charts")
    crt_badge = page.locator(".charts-summary .charts-badge[data-block='crt']").first
    expect(crt_badge).to_have_attribute("data-kind", "provisional", timeout=30_000)
    # the CRT grid: die 1 on column +2 reads EX in the shipped provisional chart
    cell = page.locator(".charts-grid .tabulator-row").first.locator(".tabulator-cell[tabulator-field='+2']")
    expect(cell).to_have_text("EX", timeout=30_000)
    cell.click()
    editor = cell.locator("input")
    expect(editor).to_be_visible(timeout=10_000)
    editor.fill("DR")
    editor.press("Enter")
    expect(cell).to_have_text("DR")
    source = page.locator(".charts-source input").first
    source.fill("published chart, my player aid")
    source.press("Enter")
    expect(crt_badge).to_have_attribute("data-kind", "published chart", timeout=10_000)
    expect(page.locator(".charts-left").first).not_to_contain_text("crt")
    page.locator(".charts-check button").first.click()
    expect(page.locator(".charts-ok").first).to_be_visible(timeout=20_000)
    with page.expect_download(timeout=20_000) as dl:
        page.locator(".charts-download").first.click()
    saved = tmp_path / "mine.yaml"
    dl.value.save_as(saved)
    data = yaml.safe_load(saved.read_text(encoding="utf-8"))
    assert data["crt"]["rows"][1][6] == "DR" and data["crt"]["source"] == "published chart, my player aid"
    tables = n20.load_tables(saved)                   # the format --tables FILE reads
    assert tables.crt_result(2, 1) == "DR"


def test_the_bc_deck_is_a_table_of_cards_with_counts(page: Page, app_url: str):
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(app_url + "/charts")
    pick = page.locator(".charts-pick select").first
    expect(pick).to_be_visible(timeout=30_000)
    pick.select_option(label="Battle Commander event deck (Skill icons, Fire and Assault CRT rows)")
    cards = page.locator(".charts-cards").first
    expect(cards).to_be_visible(timeout=30_000)
    expect(page.locator(".prov-badge").first).to_be_visible()
    # one row per card: card 1's face first, then its Fire row per odds column
    expect(cards.locator(".tabulator-row").first.locator(".tabulator-cell[tabulator-field='name']")).to_have_text(
        "Shared event 6", timeout=30_000)
    page.locator(".charts-cards-view button", has_text="fire row").click()
    cell = cards.locator(".tabulator-row").first.locator(".tabulator-cell[tabulator-field='+2']")
    expect(cell).to_have_text("muskets_shot", timeout=30_000)
    # the counts: 16 of the 70 cards show Skull & Bones at +2 (the deck's notes; 8/35 on the BC page)
    skull = page.locator(".charts-count-fire tr[data-result='skull_bones'] td[data-column='+2']").first
    expect(skull).to_have_text("16")
