"""The play page's boards in the browser (issue 15.1): the frontal hexes of a picked TBF unit, and a BC
move made by clicking a Block, then an outlined Zone. Every wait is on page state."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from n20_helpers import _TO_SCREEN
from play_helpers import open_record

sys.path.insert(0, str(Path(__file__).parents[1] / "dashboards"))
from attack_records import kind_of, record_until  # noqa: E402

pytestmark = pytest.mark.e2e


def _click_tbf_hex(page: Page, label: str) -> None:
    from engine.tbf.scenario import default_scenario
    x, y = default_scenario().board.grid.center(label)
    page.wait_for_function("() => window.Bokeh && Object.keys(window.Bokeh.index).length > 0")
    pos = page.evaluate(_TO_SCREEN, [x, -y])
    assert pos, "no map on the page"
    page.mouse.click(pos[0], pos[1])


def test_tbf_frontal_hexes_of_the_picked_unit(page: Page, app_url: str):
    from engine.core.game import system_of
    from engine.tbf.game.position import frontal
    rules = system_of("tbf")
    st = rules.new_game(rules.default_scenario, (), 1)
    sc = rules.sc
    unit = next(p for p in st.game.on_map() if not sc.is_leader(p.id) and frontal(sc, st.game, p))
    front = set()
    for p in st.game.on_map():
        if p.hex == unit.hex and not sc.is_leader(p.id):
            front |= frontal(sc, st.game, p)
    page.goto(f"{app_url}/play?system=tbf")
    expect(page.locator(".status-line [data-state='no-game']")).to_be_attached(timeout=90_000)
    page.locator(".start-game button").click()
    expect(page.locator(".status-line [data-state='ready'][data-events='0']")).to_be_attached(timeout=90_000)
    expect(page.locator(".tbf-front[data-unit='']")).to_be_attached(timeout=30_000)
    _click_tbf_hex(page, unit.hex)
    note = page.locator(f".tbf-front[data-hexes='{' '.join(sorted(front))}']")
    expect(note).to_be_attached(timeout=30_000)
    expect(note).to_contain_text("4.3 C")


def test_bc_click_a_block_then_an_outlined_zone_moves_it(page: Page, app_url: str, tmp_path):
    def single_block_move(r, s, a):
        j = r.action_to_json(a)
        return kind_of(r, a) == "move" and len(j.get("moves") or ()) == 1 and not j.get("hqs")
    rec, state, move, rules = record_until("bc", single_block_move)
    block, dest = rules.action_to_json(move)["moves"][0]
    open_record(page, app_url, "bc", rec, tmp_path)
    page.locator(f".bc-board [data-block='{block}'] text").click()
    expect(page.locator(f".bc-pick[data-picked='{block}']")).to_be_attached(timeout=30_000)
    expect(page.locator(".bc-pick")).to_have_attribute("data-targets", re.compile(rf"\b{dest}\b"))
    page.locator(f".bc-board [data-zone='{dest}'] > rect").first.click(position={"x": 140, "y": 104})
    n = len(rec.events) + 1
    expect(page.locator(f".status-line [data-events='{n}']")).to_be_attached(timeout=60_000)
    expect(page.locator(".status-line .message")).to_contain_text(block)
