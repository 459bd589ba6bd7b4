"""Browser test of the Battle Commander page: exact combat odds, skill checks, cup, the demonstration battle,
a bad deck upload and bad discards. The page is opened once and its tabs visited in turn: the checks that
change nothing come first, then the refused upload and the refused discard pile (each leaves the results as
they were)."""
from __future__ import annotations

from playwright.sync_api import Page, expect


def _tab(page: Page, name: str) -> None:
    page.locator(".bk-tab").filter(has_text=name).first.click()


def test_bc_page_every_tab_a_bad_deck_upload_and_bad_discards(page: Page, app_url: str, tmp_path):
    page.goto(app_url + "/bc")
    # combat: a Steady Artillery (2 guns) fires at an Infantry in clear terrain: column +2, no shift.
    # Provisional deck: 16 of 70 cards show Skull & Bones at +2 -> 8/35.
    row = page.locator(".bc-results tr[data-label='skull bones']").first
    expect(row).to_have_attribute("data-fraction", "8/35", timeout=30_000)
    expect(page.locator(".bc-tally").first).to_have_attribute("data-column", "2")
    expect(page.locator(".prov-badge").first).to_be_visible()

    # skill checks: general table, skill 2 with a Steady HQ (3): 54 of 70 cards succeed = 27/35
    _tab(page, "Skill checks")
    check = page.locator(".bc-check-table tr[data-skill='2']").first
    expect(check).to_have_attribute("data-hq", "27/35", timeout=30_000)
    expect(check).to_have_attribute("data-plain", "43/70")

    # the cube cup
    _tab(page, "Cube cup")
    expect(page.locator(".bc-cup").first).to_have_attribute("data-size", "19", timeout=30_000)
    expect(page.locator(".bc-cup-end tr").last).to_have_attribute("data-fraction", "1/1")

    # the demonstration battle: M2 assaults E2: 2 (Long Infantry) + 1 (second line) = 3 against 2 (Long
    # Infantry) + 1 (Artillery support) + 1 (woods) + 1 (stream) = 5: -2, the bottom column (23.4)
    _tab(page, "Demonstration battle")
    expect(page.locator(".bc-zone[data-zone='M2']").first).to_have_attribute("data-blocks", "F1 F2", timeout=30_000)
    expect(page.locator(".bc-tally[data-column='-2']").first).to_be_visible(timeout=30_000)
    # a Bombardment (27.5): F3 (Artillery, 2 Fire CPs, 10.0) bombards C3 in clear E1 (0 CPs; the stream gives
    # no Fire CP): column +2, and the Bombardment's one left shift (27.5): net -1
    page.locator(".bk-input-group").filter(has_text="Attacking Zone").locator("select").first.select_option("M1")
    page.locator(".bk-input-group").filter(has_text="Target Zone").locator("select").first.select_option("E1")
    page.locator("select").filter(has_text="bombardment").first.select_option("bombardment (27.5)")
    expect(page.locator(".bc-tally[data-column='2'][data-net='-1']").first).to_be_visible(timeout=30_000)

    # a bad deck file: refused with its reason, the deck stays the shipped one
    _tab(page, "Deck and files")
    expect(page.locator(".bc-deck").first).to_have_attribute("data-cards", "70", timeout=30_000)
    bad = tmp_path / "deck.yaml"
    bad.write_text("source: provisional\ncards:\n  - {number: 31, name: x, side: shared, reshuffle: true}\n")
    page.locator(".upload input[type=file]").first.set_input_files(str(bad))
    expect(page.locator(".upload-error").first).to_be_visible(timeout=10_000)
    expect(page.locator(".upload-error").first).to_contain_text("70 event cards")
    expect(page.locator(".bc-deck").first).to_have_attribute("data-cards", "70")

    # a discard pile naming a card twice: an error, and the last result stays
    _tab(page, "Combat")
    box = page.locator(".bc-discards input").first
    box.fill("3, 3")
    box.press("Enter")                      # no button: the result follows the input
    expect(page.locator(".bc-error").filter(visible=True).first).to_be_visible(timeout=15_000)
    expect(page.locator(".bc-results tr[data-label='skull bones']").first).to_have_attribute("data-fraction", "8/35")
