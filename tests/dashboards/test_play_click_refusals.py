"""A click on the board that the rules refuse says the rule (issue 25.5): with a piece picked, a click on a
place none of its listed actions leads to is put to the rules as a move, and the page shows the rules' own
refusal (their RuleViolation: the rule and its words), changing nothing. n20 does it in
tests/e2e/test_n20_play_page.py; here Lines of Battle, These Brave Fellows and Battle Commander."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from attack_records import kind_of, record_until, view_at  # noqa: E402

from dashboards.server.storage import GameStore  # noqa: E402
from engine.core.errors import RuleViolation  # noqa: E402


@pytest.fixture
def store(tmp_path):
    return GameStore(tmp_path / "games.sqlite3")


def _is_move(rules, state, action) -> bool:
    return kind_of(rules, action) == "move"


def _click_refused(store, system: str, pick_of, far_of):
    """The page at the first position with a legal move: the mover's place picked, then ``far_of`` clicked.
    Returns (the page's refusal, the rules' own RuleViolation for the same move)."""
    rec, state, move, rules = record_until(system, _is_move)
    v = view_at(store, rec)
    m = v.model
    picked = pick_of(rules, state, move)
    far = far_of(rules, state, move)
    before, events = m.state, list(m.events)
    v._pick(picked)
    assert v.picked == picked
    attempt = v.board.attempt_at(m.state, picked, far)
    assert attempt is not None
    with pytest.raises(RuleViolation) as exc:
        rules.check(m.state, rules.action_from_json(attempt))
    v._pick(far)
    assert m.events == events and m.state == before and store.load(m.game_id).n_events == len(events)
    return m.refusal, exc.value


def test_lob_a_click_on_an_area_that_does_not_border_says_rule_4_2_2(store):
    def pick(rules, state, move):
        return rules.places(state, move).origin[0]

    def far(rules, state, move):
        # an area without the player's units that does not border the picked one (4.2.2: a move goes to a
        # bordering area)
        origin = rules.places(state, move).origin[0]
        side = rules.to_act(state)
        own = {u.area for u in state.units if u.side == side}
        near = set(state.board.neighbours(origin))
        return next(a for a in sorted(state.board.areas) if a not in own | near | {origin})
    said, why = _click_refused(store, "lob", pick, far)
    assert why.rule.startswith("4.2") and f"rule {why.rule}" in said and str(why).split("] ", 1)[-1][:30] in said


def test_tbf_a_click_out_of_reach_says_rule_6_2_1(store):
    def pick(rules, state, move):
        return rules.places(state, move).origin[0]

    def far(rules, state, move):
        # a hex far beyond any unit's movement points (6.2.1): ten hexes or more away, nobody in it
        origin = rules.places(state, move).origin[0]
        grid = rules.sc.board.grid
        taken = {p.hex for p in state.game.on_map()}
        return next(h for h in sorted(rules.sc.board.hexes()) if grid.distance(origin, h) >= 10 and h not in taken)
    said, why = _click_refused(store, "tbf", pick, far)
    assert why.rule == "6.2.1" and "rule 6.2.1" in said and "cannot reach" in said, (str(why), said)


def test_bc_a_click_on_a_zone_not_next_to_the_block_says_rule_19_1(store):
    def pick(rules, state, move):
        return rules.places(state, move).pieces[0]

    def far(rules, state, move):
        # a Zone not next to the Block's own (19.1: a move goes to an adjacent Zone): the map's zones are
        # W1..W3, M1..M3, E1..E3; one of the other wing's
        block = next(u for u in state.g.units if u.id == rules.places(state, move).pieces[0])
        other = {"E": "W", "W": "E", "M": "W"}[block.zone[0]]
        return f"{other}{block.zone[1]}"
    said, why = _click_refused(store, "bc", pick, far)
    assert why.rule == "19.1" and "rule 19.1" in said and "adjacent Zone" in said
