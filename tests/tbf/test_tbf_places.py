"""Where each TBF action happens, for boards (core ``places``): one test per action kind, the hexes read off
the Dürenstein set-up (9.1, 9.3: ci-1 in 2411, ci-3 in 2511, Miloradovich in 2512, 4l-1 in 2014, 4l-2 in
2015, drag-3 in 1914) and the map's hexsides (0..5 = N, NE, SE, S, SW, NW); and for every legal action of
a few bot games: the pieces are the action's own, the origin their hexes, a move's path ends at its target."""
from __future__ import annotations

from engine.core.game import Places, play_game
from engine.core.procedure import TypedDice
from engine.tbf.game.actions import (Activate, ActivateCommand, Attach, CavalryRetreat, Charge, EndSegment, Face,
                                     Fire, Melee, Move, OutOfCommand, Pass)
from engine.tbf.game.protocol import TbfRules

R = TbfRules()
START = R.new_game()
# Miloradovich's activation (6.1), the Level 2/3 die a 1: the Coalition's Movement Segment, Column I activated
MOVING, _ = R.apply(START, Activate("coalition", "miloradovich"), dice=TypedDice([1]))


def test_activate_is_the_leader_where_he_stands():
    assert R.places(START, Activate("coalition", "miloradovich")) == Places(("miloradovich",), ("2512",))


def test_activate_command_is_the_designated_unit():
    # 6.1.4 A: the command activates around the unit named, ci-3 in 2511
    assert R.places(START, ActivateCommand("coalition", "I", "ci-3")) == Places(("ci-3",), ("2511",))


def test_pass_and_end_concern_nothing():
    assert R.places(START, Pass("coalition")) == Places() == R.places(MOVING, EndSegment("coalition"))


def test_move_names_its_path_without_the_start():
    # 2411 -> 2312 is one step: entered 2312 only
    assert R.places(MOVING, Move("coalition", "ci-1", "2312")) == Places(("ci-1",), ("2411",), ("2312",), ("2312",))
    # a listed path is used as listed (its first hex is where the unit stands)
    a = Move("coalition", "ci-1", "2213", ("2411", "2412", "2313", "2213"), 3)
    assert R.places(MOVING, a) == Places(("ci-1",), ("2411",), ("2213",), ("2412", "2313", "2213"))


def test_move_without_a_path_takes_the_cheapest_one():
    # the movement search's path (6.2.1) to 2213, its start left out, ends at the destination
    mp, path = R.queries.reach(MOVING, "ci-1")["2213"]
    got = R.places(MOVING, Move("coalition", "ci-1", "2213"))
    assert got.path == path[1:] and got.path[-1] == "2213" and got.targets == ("2213",)


def test_face_targets_the_hex_across_the_faced_hexside():
    # ci-1 in 2411 turning to face N (0): the hex north of it is 2410; to face S (3): 2412
    assert R.places(MOVING, Face("coalition", "ci-1", 0)) == Places(("ci-1",), ("2411",), ("2410",))
    assert R.places(MOVING, Face("coalition", "ci-1", 3)).targets == ("2412",)


def test_charge_targets_the_line_end_then_the_next_targets():
    a = Charge("french", "drag-3", ("2013", "2112", "2212"), ("2311",))
    assert R.places(START, a) == Places(("drag-3",), ("1914",), ("2212", "2311"), ("2013", "2112", "2212"))


def test_out_of_command_and_attach_are_the_unit_where_it_stands():
    assert R.places(MOVING, OutOfCommand("coalition", "ci-3")) == Places(("ci-3",), ("2511",))
    assert R.places(MOVING, Attach("coalition", "ci-1")) == Places(("ci-1",), ("2411",))


def test_fire_and_melee_name_every_firer_and_the_target():
    # two battalions of the 4th Légère in 2014 and 2015 fire at 2114: both hexes are origins
    assert R.places(START, Fire("french", ("4l-1", "4l-2"), "2114")) == \
        Places(("4l-1", "4l-2"), ("2014", "2015"), ("2114",))
    # two units of one hex (103-2 and 103-3 in 0715, 9.3 B) give that hex once
    assert R.places(START, Melee("french", ("103-2", "103-3"), "0815")) == \
        Places(("103-2", "103-3"), ("0715",), ("0815",))


def test_cavalry_retreat_ends_at_the_last_hex_of_its_path():
    a = CavalryRetreat("french", "drag-3", ("1815", "1715"))
    assert R.places(START, a) == Places(("drag-3",), ("1914",), ("1715",), ("1815", "1715"))


def test_every_legal_action_of_some_games_is_placed_on_its_own_pieces():
    checked = set()

    def watch(s, k):
        if R.to_act(s) is None:
            return
        for a in R.legal_actions(s):
            p = R.places(s, a)
            ids = {getattr(a, "unit", None), getattr(a, "leader", None), *getattr(a, "units", ())} - {None}
            assert set(p.pieces) == ids, a
            assert set(p.origin) == {s.game.piece(x).hex for x in ids}, a
            if isinstance(a, (Move, CavalryRetreat, Charge)):
                assert p.path and p.path[-1] == p.targets[0] and p.origin[0] not in p.path, a
            checked.add(a.kind)

    for seed in (4, 5):
        play_game(R, ("greedy", "greedy"), seed=seed, max_actions=150, record=False, on_action=watch)
    assert {"activate", "move", "face", "fire", "end", "pass"} <= checked
