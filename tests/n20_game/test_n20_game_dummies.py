"""Fog of War dummies that arrive with a reinforcement or a rallied unit (16.1.3, second case) and the
stacking duty that comes with them (6.9). Worked by hand on the small test map of n20_game_helpers
(flat hexes, even columns shifted; the French entry area A is 0808 and 0807)."""
from __future__ import annotations

import pytest

from engine.core.errors import RuleViolation
from engine.n20 import game as g

from n20_game_helpers import BASE_UNITS, apply_action, apply_logged, legal, make_scenario, put

DUMMIES = [
    {"id": "FD1", "name": "Dummy", "side": "french", "type": "dummy", "strength": 0, "movement": 3,
     "source": "provisional"},
    {"id": "FD2", "name": "Dummy", "side": "french", "type": "dummy", "strength": 0, "movement": 3,
     "source": "provisional"},
    {"id": "FL", "name": "Leader", "side": "french", "type": "leader", "strength": 0, "movement": 3,
     "command_span": 2, "source": "provisional"},
]
FOG = ("fog_of_war",)


def _game(tmp_path, options=FOG, setup=(("A1", "0202"), ("F2", "0505"))):
    sc = make_scenario(tmp_path, units=BASE_UNITS + DUMMIES, setup=list(setup),
                       reinforcements=[{"unit": "F1", "turn": 1, "areas": ["A"]},
                                       {"unit": "FC", "turn": 1, "areas": ["A"]}])
    s = apply_action(g.new_game(sc, options=options), {"kind": "draw_event"})
    assert s.step == "movement" and s.unit("F1").status == "due"
    return s


def test_16_1_3_dummy_arrives_with_a_reinforcement_and_6_9_makes_them_part(tmp_path):
    s = _game(tmp_path)
    assert s.unit("FD1").status == "hidden_off"          # not set up (16.1.3: no dummies at the start here)
    # F1 (movement 2) enters at 0807 (1 MP: the entry hex) and goes on to 0707 (+1 = 2 MP)
    s = apply_action(s, {"kind": "move", "unit": "F1", "path": ["0807", "0707"]})
    assert s.unit("F1").hex == "0707" and not s.unit("F1").revealed
    offers = [a for a in legal(s) if a.kind == "add_dummy"]
    assert [(a.unit, a.units) for a in offers] == [("F1", ("FD1",))]
    s = apply_action(s, {"kind": "add_dummy", "unit": "F1"})
    fd1 = s.unit("FD1")
    assert (fd1.status, fd1.hex, fd1.revealed, fd1.moved) == ("map", "0707", False, False)
    # the allied view shows two hidden pieces in 0707 and cannot tell which is the dummy
    hidden = [u for u in g.RULES.view(s, "allied").to_json()["units"] if u.get("hex") == "0707"]
    assert len(hidden) == 2 and all(u.get("hidden") and "type" not in u for u in hidden)
    # 6.9: the phase cannot end while the two share 0707; the refused action changes nothing
    assert all(a.kind != "end_phase" for a in legal(s))
    with pytest.raises(RuleViolation) as e:
        apply_action(s, {"kind": "end_phase"})
    assert e.value.rule == "6.9" and "FD1" in str(e.value)
    assert s.step == "movement" and s.unit("FD1").hex == "0707"
    # the dummy (movement 3, like cavalry) steps off to 0706 (1 MP); now the phase may end
    s = apply_action(s, {"kind": "move", "unit": "FD1", "path": ["0707", "0706"]})
    assert any(a.kind == "end_phase" for a in legal(s))
    s = apply_action(s, {"kind": "end_phase"})
    # (no reaction or battle is possible, so play passes on to the allied player turn)
    assert s.step != "movement" and s.unit("FD1").hex == "0706" and s.dummy_pair == ()


def test_16_1_3_at_most_one_dummy_per_turn(tmp_path):
    s = _game(tmp_path)
    s = apply_action(s, {"kind": "move", "unit": "F1", "path": ["0807", "0707"]})
    s = apply_action(s, {"kind": "add_dummy", "unit": "F1", "units": ["FD1"]})
    s = apply_action(s, {"kind": "move", "unit": "FD1", "path": ["0707", "0706"]})
    # FC (cavalry, movement 3) enters at 0808 and goes to 0708 (2 MP); FD2 is still off the map
    s = apply_action(s, {"kind": "move", "unit": "FC", "path": ["0808", "0708"]})
    assert s.unit("FD2").status == "hidden_off"
    assert not any(a.kind == "add_dummy" for a in legal(s))
    with pytest.raises(RuleViolation) as e:
        apply_action(s, {"kind": "add_dummy", "unit": "FC", "units": ["FD2"]})
    assert e.value.rule == "16.1.3"
    assert s.unit("FD2").status == "hidden_off" and s.dummy_pair == ("FD1", "F1")


def test_16_1_3_only_with_a_unit_that_arrived_this_phase(tmp_path):
    s = _game(tmp_path)
    # F2 stood on the map since the setup: it did not arrive, so no dummy comes with it
    with pytest.raises(RuleViolation) as e:
        apply_action(s, {"kind": "add_dummy", "unit": "F2"})
    assert e.value.rule == "16.1.3"
    # F1 is still waiting off the map (due): it has not arrived yet either
    with pytest.raises(RuleViolation) as e:
        apply_action(s, {"kind": "add_dummy", "unit": "F1"})
    assert e.value.rule == "16.1.3"
    # a dummy already on the map is not available (only those off the map are)
    s = apply_action(s, {"kind": "move", "unit": "F1", "path": ["0807", "0707"]})
    s2 = put(s, FD2="0303")
    with pytest.raises(RuleViolation) as e:
        apply_action(s2, {"kind": "add_dummy", "unit": "F1", "units": ["FD2"]})
    assert e.value.rule == "16.1.3" and s2.unit("FD2").hex == "0303"
    # a real unit is not a dummy
    with pytest.raises(RuleViolation) as e:
        apply_action(s, {"kind": "add_dummy", "unit": "F1", "units": ["F2"]})
    assert e.value.rule == "16.1.3"


def test_16_1_3_6_9_refused_when_the_pair_could_never_part(tmp_path):
    # A1 in 0806 puts its ZOC on 0807. F1 enters at 0807 (1 MP) and must stop there (enemy ZOC).
    # A dummy arriving with it would start the day's phase in an enemy ZOC (6.8: no move out) and F1 has
    # already moved (6.4): they could not part by the end of the phase, so the dummy is refused (6.9).
    s = _game(tmp_path, setup=(("A1", "0806"), ("F2", "0505")))
    s = apply_action(s, {"kind": "move", "unit": "F1", "path": ["0807"]})
    assert not any(a.kind == "add_dummy" for a in legal(s))
    with pytest.raises(RuleViolation) as e:
        apply_action(s, {"kind": "add_dummy", "unit": "F1"})
    assert e.value.rule == "6.9"
    assert s.unit("FD1").status == "hidden_off" and not s.dummies_added


def test_16_1_3_dummy_with_a_rallied_leader_16_9_6(tmp_path):
    # FL was broken; at the start of the French movement phase it rallies on its own LOC hex 0808 (16.9.6)
    sc = make_scenario(tmp_path, units=BASE_UNITS + DUMMIES, setup=[("A1", "0202"), ("F2", "0505"), ("FL", "0505")])
    s = g.new_game(sc, options=FOG + ("leaders",))
    s = s.with_units({"FL": s.unit("FL").__class__("FL", status="broken", revealed=False)})
    s = apply_action(s, {"kind": "draw_event"})
    assert s.unit("FL").hex == "0808" and s.arrived == ("FL",)
    s = apply_action(s, {"kind": "add_dummy", "unit": "FL"})
    assert s.unit("FD1").hex == "0808"
    # leaders may share hexes, but the dummy and its companion must still part (6.9 via 16.1.3)
    with pytest.raises(RuleViolation) as e:
        apply_action(s, {"kind": "end_phase"})
    assert e.value.rule == "6.9"
    # this time the leader moves off (one of the two is enough): 0808 -> 0708 (1 MP)
    s = apply_action(s, {"kind": "move", "unit": "FL", "path": ["0808", "0708"]})
    s = apply_action(s, {"kind": "end_phase"})
    assert s.step != "movement" and s.unit("FD1").hex == "0808" and s.unit("FL").hex == "0708"


def test_16_1_no_dummy_arrivals_without_the_fog_of_war_option(tmp_path):
    s = _game(tmp_path, options=())
    s = apply_action(s, {"kind": "move", "unit": "F1", "path": ["0807", "0707"]})
    assert s.arrived == () and not any(a.kind == "add_dummy" for a in legal(s))
    with pytest.raises(RuleViolation) as e:
        apply_action(s, {"kind": "add_dummy", "unit": "F1", "units": ["FD1"]})
    assert e.value.rule == "16.1"


def test_16_1_3_dummy_arrival_is_recorded_and_replays(tmp_path):
    s0 = _game(tmp_path)
    events, states = [], [s0]
    s = s0
    for a in ({"kind": "move", "unit": "F1", "path": ["0807", "0707"]}, {"kind": "add_dummy", "unit": "F1"},
              {"kind": "move", "unit": "FD1", "path": ["0707", "0706"]}):
        s, ev = apply_logged(s, a)
        events.append(ev)
        states.append(s)
    assert events[1]["rule"] == "16.1.3" and events[1]["action"] == {"kind": "add_dummy", "unit": "F1"}
    again = s0
    for ev in events:
        again = apply_action(again, ev["action"])
    assert again.to_json() == s.to_json() and again.dummy_pair == ("FD1", "F1")


def test_16_1_3_6_9_a_parted_pair_may_not_stack_again(tmp_path):
    # FL rallies on 0808 (16.9.6) and FD1 arrives with it; FD1 steps off to 0708 (1 MP). A leader may
    # normally share a hex, but the leader going back onto its dummy would re-form the pair's stack (6.9).
    sc = make_scenario(tmp_path, units=BASE_UNITS + DUMMIES, setup=[("A1", "0202"), ("F2", "0505"), ("FL", "0505")])
    s = g.new_game(sc, options=FOG + ("leaders",))
    s = s.with_units({"FL": s.unit("FL").__class__("FL", status="broken", revealed=False)})
    s = apply_action(s, {"kind": "draw_event"})
    s = apply_action(s, {"kind": "add_dummy", "unit": "FL"})
    s = apply_action(s, {"kind": "move", "unit": "FD1", "path": ["0808", "0708"]})
    assert "0708" not in [a.path[-1] for a in legal(s, unit="FL") if a.kind == "move"]
    with pytest.raises(RuleViolation) as e:
        apply_action(s, {"kind": "move", "unit": "FL", "path": ["0808", "0708"]})
    assert e.value.rule == "6.9"
    assert s.unit("FL").hex == "0808"
