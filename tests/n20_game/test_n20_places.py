"""The typed pieces and places of every Napoleonic 20 action kind (core Places, for boards: a pick on the
board finds its actions through these, never through an action's JSON). Worked by hand on the 8x8 test
grid of n20_game_helpers (flat hexes, even columns shifted down; 0302's neighbours are 0301, 0401, 0402,
0303, 0202, 0201; the French LOC is 0808, the allied 0101; entry area A is 0808 and 0807)."""
from __future__ import annotations

import random

import pytest

from engine.core.game import Places
from engine.n20 import game as g
from engine.n20.game.actions import KINDS, Action
from engine.n20.game.state import Battle, UnitState

from n20_game_helpers import BASE_UNITS, apply_action, at, legal, make_scenario, put

R = g.RULES
DUMMY = {"id": "FD1", "name": "Dummy", "side": "french", "type": "dummy", "strength": 0, "movement": 3,
         "source": "provisional"}


@pytest.fixture
def s(tmp_path):
    sc = make_scenario(tmp_path, units=BASE_UNITS + [DUMMY])
    return put(g.new_game(sc, options=("fog_of_war",)), F1="0301", F2="0501", FC="0305", A1="0303", AC="0304")


def _p(pieces=(), origin=(), targets=(), path=()):
    return Places(tuple(pieces), tuple(origin), tuple(targets), tuple(path))


NO_PLACES = ["roll_bessieres", "draw_event", "pick_released", "forced_march", "fieldworks", "orderly_withdrawal",
             "night_march", "roll_sudden_death", "end_phase"]


@pytest.mark.parametrize("kind", NO_PLACES)
def test_kinds_that_concern_no_piece_or_place(s, kind):
    assert R.places(s, Action(kind)) == _p()


def test_place_18_1(s):
    # F1 stands in 0301 and is set up in 0302
    assert R.places(s, Action("place", unit="F1", hex="0302")) == _p(["F1"], ["0301"], ["0302"])


@pytest.mark.parametrize("kind", ["move", "night_move", "disengage", "penetrate"])
def test_moves_6_0_8_3_14_1_16_2(s, kind):
    # F1 from 0301 by 0401 to 0402: it stands in 0301, ends in 0402, passes the whole path
    a = Action(kind, unit="F1", path=("0301", "0401", "0402"))
    assert R.places(s, a) == _p(["F1"], ["0301"], ["0402"], ["0301", "0401", "0402"])


def test_a_reinforcement_stands_nowhere_before_it_enters_11_1(s):
    due = s.with_units({"F1": UnitState("F1", "due", areas=("A",))})
    a = Action("move", unit="F1", path=("0807", "0707"))
    assert R.places(due, a) == _p(["F1"], [], ["0707"], ["0807", "0707"])


def test_add_dummy_16_1_3(s):
    # FD1 arrives with F1 in 0301; the enemy knows only the hex it joins (16.1.3's shell game)
    assert R.places(s, Action("add_dummy", unit="F1", units=("FD1",))) == _p(["F1", "FD1"], ["0301"], ["0301"])
    assert R.places(s, Action("add_dummy", hex="0301")) == _p([], [], ["0301"])


@pytest.mark.parametrize("kind", ["form_square", "breakdown"])
def test_in_place_17_1_16_6_1(s, kind):
    assert R.places(s, Action(kind, unit="F1")) == _p(["F1"], ["0301"], ["0301"])


def test_place_fieldworks_14_2(s):
    # A1 holds 0303 and builds the works there (a leader there would not count)
    assert R.places(s, Action("place_fieldworks", hex="0303")) == _p(["A1"], ["0303"], ["0303"])


def test_withdraw_12_7_a_marches_off(s):
    assert R.places(s, Action("withdraw", unit="A1")) == _p(["A1"], ["0303"], [])


def test_countercharge_8_2(s):
    a = Action("countercharge", battles=(Battle(("AC",), ("FC",)),))
    assert R.places(s, a) == _p(["AC"], ["0304"], ["0305"])


def test_declare_9_2_with_a_garrison(s):
    a = Action("declare", battles=(Battle(("F1", "F2"), ("A1",)), Battle(("FC",), ("garrison:0101",))))
    assert R.places(s, a) == _p(["F1", "F2", "FC"], ["0301", "0501", "0305"], ["0303", "0101"])


def test_resolve_9_0_names_the_declared_battle(s):
    st = at(s, "combat", declared=(Battle(("F1",), ("A1",)), Battle(("FC",), ("AC",))), done_battles=())
    assert R.places(st, Action("resolve", index=1)) == _p(["FC"], ["0305"], ["0304"])
    assert R.places(st, Action("resolve", index=7)) == _p()


def test_rally_10_0_targets_the_rally_hexes(s):
    # F2 broken; the one French rally hex is the vacant LOC hex 0808 (10.0)
    st = at(s.with_units({"F2": UnitState("F2", "broken")}), "night_ops", turn=5)
    assert R.places(st, Action("rally", units=("F2",))) == _p(["F2"], [], ["0808"])


def test_every_kind_is_covered_here():
    covered = set(NO_PLACES) | {"place", "move", "night_move", "disengage", "penetrate", "add_dummy", "form_square",
                                "breakdown", "place_fieldworks", "withdraw", "countercharge", "declare", "resolve",
                                "rally"}
    assert covered == set(KINDS)


def test_places_of_legal_actions_in_played_games_agree_with_the_actions():
    # every legal action of a few hundred states of bot games: its pieces are units or garrisons that the
    # action (or its declared battle) names, each origin is where one of them stands, a move ends at its
    # path's end
    rng = random.Random(3)
    for scenario, opts in (("fuentes", ("fog_of_war", "leaders", "squares", "breakdown", "unit_reduction")),
                           ("bussaco", ("fog_of_war",))):
        s = R.new_game(scenario, opts, seed=3)
        bots = {side: R.bots()["random"](seed=7) for side in R.sides}
        for _ in range(160):
            if R.to_act(s) is None:
                break
            acts = legal(s)
            for a in rng.sample(acts, min(8, len(acts))):
                p = R.places(s, a)
                named = {a.unit, *a.units, *(x for b in a.battles for x in b.attackers + b.defenders)}
                if a.kind == "resolve":
                    named |= set(s.declared[a.index].attackers)
                if a.kind == "place_fieldworks":
                    named |= set(s.occupants.get(a.hex, ()))
                assert set(p.pieces) <= named, (a, p)
                assert all(h == s.unit(x).hex for x, h in zip(p.pieces, p.origin)), (a, p)
                if a.path:
                    assert p.targets == (a.path[-1],) and p.path == a.path
            s = apply_action(s, bots[R.to_act(s)].choose_action(R, s, acts),
                             chooser=lambda req: req.options[0])
