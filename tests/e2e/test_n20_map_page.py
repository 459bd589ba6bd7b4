"""Browser test of the map page: clicking a unit shows its reachable hexes (from the game engine)."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from n20_helpers import click_hex, wait_ready

pytestmark = pytest.mark.e2e


def test_click_a_unit_shows_its_reachable_hexes_and_a_hex_its_features(page: Page, app_url: str):
    from engine.n20.game import reach as RC
    from engine.n20.game.setup import new_game

    expected = len(RC.search_moves(new_game("fuentes"), "A1"))   # the 1st Division, set up in 0707
    page.goto(app_url + "/map")
    expect(page.locator(".hex-info")).to_contain_text("Click a hex", timeout=30_000)
    wait_ready(page)
    click_hex(page, "fuentes", "0707")
    info = page.locator(".hex-info")
    expect(info).to_contain_text("1st Division (A1)")
    expect(info.locator(".reach-count")).to_have_text(f"{expected} reachable hexes")
    assert expected > 1
    page.locator(".zoc-toggle input").check()
    click_hex(page, "fuentes", "1902")
    expect(info).to_contain_text("Almeida")
    expect(info).to_contain_text(re.compile(r"garrison \(french, strength \d\)"))
