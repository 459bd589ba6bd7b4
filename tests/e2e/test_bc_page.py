"""Browser tests of the Battle Commander page: exact combat odds, discards, skill checks, cup, bad uploads."""
from __future__ import annotations

from playwright.sync_api import Page, expect


def test_bc_combat_odds_and_bad_discards(page: Page, app_url: str):
    page.goto(app_url + "/bc")
    # default: a Steady Artillery (2 guns) fires at an Infantry in clear terrain: column +2, no shift.
    # Provisional deck: 16 of 70 cards show Skull & Bones at +2 -> 8/35.
    row = page.locator(".bc-results tr[data-label='skull bones']").first
    expect(row).to_have_attribute("data-fraction", "8/35", timeout=30_000)
    expect(page.locator(".bc-tally").first).to_have_attribute("data-column", "2")
    expect(page.locator(".prov-badge").first).to_be_visible()
    # a discard pile naming a card twice: an error, and the last result stays
    box = page.locator(".bc-discards input").first
    box.fill("3, 3")
    box.press("Enter")                      # no button: the result follows the input
    expect(page.locator(".bc-error").first).to_be_visible(timeout=15_000)
    expect(page.locator(".bc-results tr[data-label='skull bones']").first).to_have_attribute("data-fraction", "8/35")


def test_bc_skill_check_table(page: Page, app_url: str):
    page.goto(app_url + "/bc")
    expect(page.locator(".bc-results").first).to_be_visible(timeout=30_000)
    page.locator(".bk-tab").filter(has_text="Skill checks").first.click()
    # general table, skill 2 with a Steady HQ (3): 54 of 70 cards succeed = 27/35
    row = page.locator(".bc-check-table tr[data-skill='2']").first
    expect(row).to_have_attribute("data-hq", "27/35", timeout=30_000)
    expect(row).to_have_attribute("data-plain", "43/70")


def test_bc_cup_tab(page: Page, app_url: str):
    page.goto(app_url + "/bc")
    expect(page.locator(".bc-results").first).to_be_visible(timeout=30_000)
    page.locator(".bk-tab").filter(has_text="Cube cup").first.click()
    expect(page.locator(".bc-cup").first).to_have_attribute("data-size", "19", timeout=30_000)
    expect(page.locator(".bc-cup-end tr").last).to_have_attribute("data-fraction", "1/1")


def test_bc_bad_deck_upload_shows_error(page: Page, app_url: str, tmp_path):
    page.goto(app_url + "/bc")
    expect(page.locator(".bc-results").first).to_be_visible(timeout=30_000)
    page.locator(".bk-tab").filter(has_text="Deck and files").first.click()
    expect(page.locator(".bc-deck").first).to_have_attribute("data-cards", "70", timeout=30_000)
    bad = tmp_path / "deck.yaml"
    bad.write_text("source: provisional\ncards:\n  - {number: 31, name: x, side: shared, reshuffle: true}\n")
    page.locator(".upload input[type=file]").first.set_input_files(str(bad))
    expect(page.locator(".upload-error").first).to_be_visible(timeout=10_000)
    expect(page.locator(".upload-error").first).to_contain_text("70 event cards")
    expect(page.locator(".bc-deck").first).to_have_attribute("data-cards", "70")


def test_bc_demo_battle_tab(page: Page, app_url: str):
    page.goto(app_url + "/bc")
    expect(page.locator(".bc-results").first).to_be_visible(timeout=30_000)
    page.locator(".bk-tab").filter(has_text="Demonstration battle").first.click()
    expect(page.locator(".bc-zone[data-zone='M2']").first).to_have_attribute("data-blocks", "F1 F2", timeout=30_000)
    # M2 assaults E2: 2 (Long Infantry) + 1 (second line) = 3 against 2 (Long Infantry) + 1 (Artillery support)
    # + 1 (woods) + 1 (stream) = 5: -2, the bottom column (23.4)
    expect(page.locator(".bc-tally[data-column='-2']").first).to_be_visible(timeout=30_000)


def test_bc_demo_bombardment_27_5(page: Page, app_url: str):
    page.goto(app_url + "/bc")
    expect(page.locator(".bc-results").first).to_be_visible(timeout=30_000)
    page.locator(".bk-tab").filter(has_text="Demonstration battle").first.click()
    expect(page.locator(".bc-zone[data-zone='M2']").first).to_be_visible(timeout=30_000)
    page.locator(".bk-input-group").filter(has_text="Attacking Zone").locator("select").first.select_option("M1")
    page.locator(".bk-input-group").filter(has_text="Target Zone").locator("select").first.select_option("E1")
    page.locator("select").filter(has_text="bombardment").first.select_option("bombardment (27.5)")
    # F3 (Artillery, 2 Fire CPs, 10.0) bombards C3 in clear E1 (0 CPs; the stream gives no Fire CP): column +2,
    # and the Bombardment's one left shift (27.5): net -1
    expect(page.locator(".bc-tally[data-column='2'][data-net='-1']").first).to_be_visible(timeout=30_000)
