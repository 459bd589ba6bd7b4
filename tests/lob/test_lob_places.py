"""Core's ``places(state, action)`` for every Lines of Battle action kind: the pieces, the areas they stand
in, the areas the action goes to or affects, a move's path (what the area map highlights; no board reads
an action's JSON). Positions from the Albuera set-up (data/lob/albuera/scenario.yaml)."""
from dataclasses import replace
from functools import partial

from engine.core.game import Places
from engine.core.procedure import TypedDice, play
from engine.lob.actions import Action, Kind
from engine.lob.handlers import perform
from engine.lob.protocol import LobRules
from engine.lob.setup import new_game

R = LobRules()


def do(g, action):
    return play(partial(perform, g, action), dice=TypedDice([]), chooser=lambda r: r.options[0]).result


def command(options=()):
    return do(new_game(options=options), Action(Kind.END_ADMIN))       # French turn 1: fixed command points


def test_every_kind_is_covered_here():
    tested = {"place", "end-setup", "toggle", "end-admin", "rally", "activate", "move", "attack", "fire", "end-phase"}
    assert tested == set(Kind)


def test_place_names_the_unit_its_area_and_where_it_goes():
    g = new_game(options=("setup",))                  # option 6: the Allies set up first, west bank
    kgl = g.unit("A-KGL")                             # printed set-up: Albuera
    assert R.places(g, Action(Kind.PLACE, units=("A-KGL",), area="16")) == \
        Places(pieces=("A-KGL",), origin=(kgl.area,), targets=("16",), path=("16",))


def test_phase_ends_concern_no_piece_and_no_place():
    for kind in (Kind.END_SETUP, Kind.END_ADMIN, Kind.END_PHASE):
        assert R.places(new_game(), Action(kind)) == Places()


def test_toggle_and_rally_stay_in_the_unit_area():
    g = new_game()
    assert R.places(g, Action(Kind.TOGGLE, units=("F-ResArt",))) == Places(pieces=("F-ResArt",), origin=("72",))
    g = command()
    g = g.with_units([replace(g.unit("F-Brayer"), hits=1)])
    assert R.places(g, Action(Kind.RALLY, units=("F-Brayer",))) == Places(pieces=("F-Brayer",), origin=("75",))


def test_activate_names_the_units_it_wakes_and_the_area():
    g = command()
    woken = tuple(sorted(u.uid for u in g.in_area("75") if u.side == "French"))
    p = R.places(g, Action(Kind.ACTIVATE, area="75"))
    assert sorted(p.pieces) == list(woken) and p.origin == ("75",) and p.targets == ("75",)
    # 7.1: with leaders, the leader who spends the point (Latour-Maubourg commands cavalry only, in 25)
    g = command(("leaders",))
    p = R.places(g, Action(Kind.ACTIVATE, area="25", units=("Latour-Maubourg",)))
    assert set(p.pieces) == {"F-Bron", "F-Eclat", "Latour-Maubourg"} and p.origin == ("25",) and p.targets == ("25",)


def test_a_move_ends_in_its_last_area_and_a_change_in_place_in_its_own():
    g = do(command(), Action(Kind.ACTIVATE, area="75"))
    assert R.places(g, Action(Kind.MOVE, units=("F-Brayer",), path=("25", "19"))) == \
        Places(pieces=("F-Brayer",), origin=("75",), targets=("19",), path=("25", "19"))
    assert R.places(g, Action(Kind.MOVE, units=("F-Brayer",), end="square")) == \
        Places(pieces=("F-Brayer",), origin=("75",), targets=("75",))


def test_an_attack_names_its_group_its_path_and_the_area_attacked():
    g = command()
    assert R.places(g, Action(Kind.ATTACK, units=("F-Briche", "F-Arenberg"), path=("16",), target="Albuera")) \
        == Places(pieces=("F-Briche", "F-Arenberg"), origin=(g.unit("F-Briche").area,), targets=("Albuera",),
                  path=("16",))


def test_fire_names_the_gun_and_the_area_of_the_unit_fired_at():
    g = command()
    assert R.places(g, Action(Kind.FIRE, units=("F-ResArt",), target="A-KGL")) == \
        Places(pieces=("F-ResArt",), origin=("72",), targets=("Albuera",))


def test_unknown_names_give_what_is_named_and_never_raise():
    g = command()
    assert R.places(g, Action(Kind.FIRE, units=("nobody",), target="nobody")) == Places(pieces=("nobody",))
    assert R.places(g, Action(Kind.ACTIVATE, area="no-such-area")).targets == ("no-such-area",)
