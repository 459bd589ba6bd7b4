"""An eliminated HQ marker coming back (27.10), on the demonstration scenario (ours, invented).

Coalition HQ CHQ (skill 2) stands in E3 with C2; C1 and C4 hold E2; French F5 faces E3 from M3. Coalition Morale
starts at the scenario's value. An HQ marker has a Steady and a Disrupted side only (9.2): a Cohesion Hit
from the Fate of War table (27.11) on its Disrupted side eliminates it (our reading, documented)."""
from dataclasses import replace

import pytest

from engine.bc.combat import CombatOutcome
from engine.bc.game.combat import apply_outcome, eliminate_hq
from engine.bc.game.reinforcements import due_reinforcements, reinforcements
from engine.bc.game.scenario import load_scenario
from engine.bc.game.state import new_map
from engine.core.errors import RuleViolation
from engine.core.procedure import play


@pytest.fixture(scope="module")
def st():
    return new_map(load_scenario())


def _hq_hit(who="defender"):
    # a Gun Smoke Fire combat whose only effect is the HQ fate card's hit (27.11)
    return CombatOutcome("gun_smoke", "fire", None, 0, 0, 0, 0, (), ((who, "HQ hit"),))


def _disrupted_chq(st):
    return replace(st, hqs=tuple(replace(h, hq=replace(h.hq, state="disrupted")) if h.id == "CHQ" else h
                                 for h in st.hqs))


def test_27_11_steady_hq_hit_turns_disrupted(st):
    after = play(lambda: apply_outcome(st, "M3", "E3", _hq_hit())).result
    chq = next(h for h in after.hqs if h.id == "CHQ")
    assert chq.hq.state == "disrupted" and after.hqs_out == ()


def test_27_10_disrupted_hq_hit_is_eliminated_and_costs_one_morale(st):
    s = _disrupted_chq(st)
    before = s.morale_of("coalition").value
    after = play(lambda: apply_outcome(s, "M3", "E3", _hq_hit())).result
    assert "CHQ" not in {h.id for h in after.hqs}
    assert after.morale_of("coalition").value == before - 1         # 27.10: like a Block, one Morale
    assert [(h.id, t) for h, t in after.hqs_out] == [("CHQ", 2)]     # turn 1 + 1: back next turn


def test_27_10_eliminated_hq_comes_back_next_turn_disrupted_with_a_friendly_block(st):
    out = eliminate_hq(st, "CHQ")
    assert due_reinforcements(out, "coalition") == {}                # not this turn
    nxt = replace(out, turn=2)
    assert due_reinforcements(nxt, "coalition") == {"CHQ": None}     # the player picks the Zone
    back = play(lambda: reinforcements(nxt, "coalition", zones={"CHQ": "E2"})).result
    chq = next(h for h in back.hqs if h.id == "CHQ")
    assert (chq.zone, chq.hq.state, back.hqs_out) == ("E2", "disrupted", ())


def test_27_10_hq_comes_back_only_where_a_friendly_block_stands(st):
    nxt = replace(eliminate_hq(st, "CHQ"), turn=2)
    s = replace(nxt, units=tuple(u for u in nxt.units if u.zone != "E1"))   # E1 emptied (C3 removed)
    for zone in ("E1", "M3"):     # E1: no Block at all; M3: a French Block only
        with pytest.raises(RuleViolation) as e:
            play(lambda: reinforcements(s, "coalition", zones={"CHQ": zone}))
        assert e.value.rule == "27.10"
    with pytest.raises(RuleViolation) as e:                          # no Zone named
        play(lambda: reinforcements(nxt, "coalition"))
    assert e.value.rule == "27.10"


def test_27_10_eliminating_an_absent_hq_is_refused(st):
    with pytest.raises(RuleViolation) as e:
        eliminate_hq(st, "NOPE")
    assert e.value.rule == "27.10"
