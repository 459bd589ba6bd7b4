"""A click the rules refuse says the rule, in the browser (issue 25.5): on the Battle Commander board, a Block
picked, then a Zone not next to its own: the page shows the rules' refusal with its rule (19.1) and nothing
changes. Every wait is on page state."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from play_helpers import open_record

sys.path.insert(0, str(Path(__file__).parents[1] / "dashboards"))
from attack_records import kind_of, record_until  # noqa: E402

pytestmark = pytest.mark.e2e


def test_bc_a_click_on_a_zone_the_block_cannot_reach_says_rule_19_1(page: Page, app_url: str, tmp_path):
    from engine.core.errors import RuleViolation

    def single_block_move(r, s, a):
        j = r.action_to_json(a)
        return kind_of(r, a) == "move" and len(j.get("moves") or ()) == 1 and not j.get("hqs")
    rec, state, move, rules = record_until("bc", single_block_move)
    j = rules.action_to_json(move)
    block = j["moves"][0][0]
    home = next(u.zone for u in state.g.units if u.id == block)

    def refused(zone: str) -> str:
        try:
            rules.check(state, rules.action_from_json({**j, "moves": [[block, zone]]}))
        except RuleViolation as exc:
            return exc.rule
        return ""
    # an empty Zone not next to the Block's own (19.1), so the click lands on the Zone, not on a Block
    far = next(z for z in sorted(state.g.scenario.model.zones)
               if z != home and not state.g.in_zone(z) and refused(z) == "19.1")
    open_record(page, app_url, "bc", rec, tmp_path)
    page.locator(f".bc-board [data-block='{block}'] text").click()
    expect(page.locator(f".bc-pick[data-picked='{block}']")).to_be_attached(timeout=30_000)
    page.locator(f".bc-board [data-zone='{far}'] > rect").first.click(position={"x": 140, "y": 104})
    refusal = page.locator(".refusal-box [data-state='refused']")
    expect(refusal).to_contain_text("rule 19.1", timeout=30_000)
    expect(refusal).to_contain_text(far)
    expect(page.locator(f".status-line [data-events='{len(rec.events)}']")).to_be_attached()
