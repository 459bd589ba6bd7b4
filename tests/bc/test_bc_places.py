"""Core's places(state, action) for every Battle Commander action kind (the typed pieces and Zones a board picks
actions by), worked out by hand on the demonstration map (data/bc/demo/scenario.yaml): M2 holds F1 (lead) and
F2, M1 the Artillery F3 facing E1 and M2, W3 the Cavalry F4, M3 F5, W2 the French HQ FHQ; E1 the Cavalry C3,
E2 C1 (lead) and the Artillery C4, E3 C2 and the Coalition HQ CHQ."""
from __future__ import annotations

from dataclasses import replace

import pytest

from engine.bc.game.actions import ACTION_TYPES, Kind, action
from engine.bc.game.places import PLACES
from engine.bc.game.protocol import BcRules
from engine.bc.game.state import HQMarker
from engine.core.game import Places

R = BcRules()


@pytest.fixture(scope="module")
def st():
    return R.new_game()


def test_every_kind_has_places():
    assert set(PLACES) == set(Kind) == set(ACTION_TYPES)


@pytest.mark.parametrize("kind", ["start_turn", "draw", "ready_arms", "in_reserve", "pass", "army_rally", "done"])
def test_kinds_with_nothing_on_the_map(st, kind):
    assert R.places(st, action(kind, "french")) == Places()


def test_gold_and_purchase_name_no_place(st):
    # 18.0: the Gold cube names a colour, a purchase spends a card: neither is on the map
    assert R.places(st, action("gold", "french", colour="red")) == Places()
    assert R.places(st, action("purchase", "french", cards=(5,), buy="tokens")) == Places()


def test_move_19_1(st):
    # F2 from M2 to M3: piece F2, from M2, ends in M3 (path M3)
    p = R.places(st, action("move", "french", zones=("M2",), moves=(("F2", "M3"),)))
    assert p == Places(pieces=("F2",), origin=("M2",), targets=("M3",), path=("M3",))


def test_roadway_move_and_hq_move_19_3(st):
    # 19.3: F5 along the road M3 > W3 ... the path is both Zones, the end the last; the HQ FHQ W2 > W1 > M1
    p = R.places(st, action("move", "french", zones=("M3", "W2"), moves=(("F5", "W3>M3"),), roadway=("F5",),
                            hqs=(("FHQ", "W1>M1"),)))
    assert p.pieces == ("F5", "FHQ") and p.origin == ("M3", "W2")
    assert p.targets == ("M3", "M1") and p.path == ("W3", "M3", "W1", "M1")


def test_reinforce_18_0(st):
    # an eliminated HQ due back (27.10) placed by the player in M2, then no free move
    out = HQMarker("FHQ", "french", st.g.hq("FHQ").hq, "W2")
    s = replace(st, g=replace(st.g, hqs=tuple(h for h in st.g.hqs if h.id != "FHQ"), hqs_out=((out, 1),)))
    p = R.places(s, action("reinforce", "french", units=("FHQ:M2",)))
    assert p == Places(pieces=("FHQ",), targets=("M2",), path=("M2",))


def test_rally_20_0(st):
    # M2 holds F1 and F2 (no HQ): both rally there
    assert R.places(st, action("rally", "french", frm="M2")) == Places(pieces=("F1", "F2"), origin=("M2",),
                                                                      targets=("M2",))


def test_attack_23_1(st):
    # F1 leads in M2 with F2 behind: both in the attacking Zone; the target E2
    p = R.places(st, action("attack", "french", frm="M2", to="E2", attack="fire"))
    assert p == Places(pieces=("F1", "F2"), origin=("M2",), targets=("E2",))


def test_combat_move_19_4(st):
    # the Cavalry F4 from W3 to W2
    p = R.places(st, action("combat_move", "french", frm="W3", to="W2"))
    assert p == Places(pieces=("F4",), origin=("W3",), targets=("W2",), path=("W2",))


def test_advance_25_0(st):
    p = R.places(st, action("advance", "coalition", frm="E1", to="M1", units=("C3",)))
    assert p == Places(pieces=("C3",), origin=("E1",), targets=("M1",), path=("M1",))


def test_face_9_4(st):
    p = R.places(st, action("face", "french", block="F3", facing=("E1",)))
    assert p == Places(pieces=("F3",), origin=("M1",), targets=("E1",))


@pytest.mark.parametrize("kind,extra", [("swap", {}), ("formation", {"formation": "square"})])
def test_swap_and_formation_9_4(st, kind, extra):
    p = R.places(st, action(kind, "coalition", frm="E2", **extra))
    assert p == Places(pieces=("C1", "C4"), origin=("E2",), targets=("E2",))


def test_give_ground_24_3(st):
    # C3 in E1 withdraws: it borders M1 (French), E2 (friends, not full? C1 and C4: two Blocks, overstack) and M2
    # across impassable ground; 24.1 leaves E2 only (never into the enemy's M1, never across the impassable border)
    p = R.places(st, action("give_ground", "coalition", block="C3"))
    assert p == Places(pieces=("C3",), origin=("E1",), targets=("E2",))


def test_surrender_26_0(st):
    assert R.places(st, action("surrender", "coalition", block="C2")) == Places(pieces=("C2",), origin=("E3",))


def test_unknown_names_never_raise(st):
    for kind, t in ACTION_TYPES.items():
        names = {f: ("X9",) if f in ("zones", "roadway", "facing", "units") else "X9"
                 for f in ("frm", "to", "block", "zones", "facing", "units") if f in t.__dataclass_fields__}
        R.places(st, t("french", **names))
