"""The Artillery Redoubt Block (28.5): data/bc/examples/artillery_redoubt.yaml (ours, invented) and
data/bc/examples/redoubt_fire.yaml.

Map: B has a Redoubt covering its borders with A and C (not D, E). French Artillery Redoubt Block R (one cube on
its rear) leads in B with Infantry FI behind it; Coalition Infantry CA (A), CC (C), CD (D).

The combat file is read at column 0 (Infantry fire 1 against Redoubt 1) with the artillery-toughness shift
left (23.5): a shift moves to the next *different* result (23.4), so card 8 (Round Shot in every column from
-2 to +1) gives Round Shot. On the map CA firing
from A has wings in C and D (23.1: 1 + 1 + 1 = 3 against the Redoubt's 1 -> +2), the toughness shift left and
a flank shift right (D is a Flanked Zone of R, 9.4): column +2. A Round Shot puts exactly one Cohesion Hit on
the defender's lead (23.5); card 41 reads Round Shot at +2."""
import json
from dataclasses import replace
from fractions import Fraction

import pytest

from engine.bc.calc import combat_from_file, combat_odds
from engine.bc.blocks import Block, BlockModel
from engine.bc.combat import combat_procedure, neutral_policy
from engine.bc.tally import CombatSetup, CombatSide, prepare
from engine.bc.deck import Pile, default_deck
from engine.bc.game.combat import advance, combat_from_map, map_combat
from engine.bc.game.movement import move_order
from engine.bc.game.retreat import give_ground
from engine.bc.game.scenario import load_scenario
from engine.bc.game.state import new_map
from engine.bc.game.turn import start_turn
from engine.bc.game.zones import battle_zones, flanked_zones
from engine.cli import main
from engine.core.data import data_path
from engine.core.errors import DataError, RuleViolation
from engine.core.procedure import TypedDice, distribution, play

FILE = data_path("bc", "examples", "artillery_redoubt.yaml")
COMBAT = data_path("bc", "examples", "redoubt_fire.yaml")
ROUND_SHOT_FILE = 8
ROUND_SHOT_MAP = 41


@pytest.fixture(scope="module")
def st():
    return new_map(load_scenario(FILE))


def _without(st, *ids):
    return replace(st, units=tuple(u for u in st.units if u.id not in ids))


def _set(st, uid, **kw):
    return replace(st, units=tuple(replace(u, block=replace(u.block, **kw)) if u.id == uid else u
                                   for u in st.units))


def always(answer):
    def policy(req):
        return answer if req.rule == "28.5" else req.options[0]
    return policy


# ---- Battle Zones and facing ---------------------------------------------------------------------------
def test_28_5_redoubt_block_projects_the_redoubt_intervals(st):
    # B borders A, C, D, E; the Redoubt covers A and C: those are R's Battle Zones, D and E its Flanked Zones
    # (9.4: an Artillery's non-Battle Zones are Flanked).
    assert battle_zones(st, st.unit("R")) == {"A", "C"}
    assert flanked_zones(st, st.unit("R")) == {"D", "E"}


def test_28_5_redoubt_block_fires_only_across_its_redoubt_intervals(st):
    s = replace(st, units=tuple(replace(u, side="french") if u.id == "FI" else u for u in st.units))
    assert prepare(combat_from_map(s, "B", "A", "fire")).attacker_cp >= 1
    with pytest.raises(RuleViolation) as e:
        combat_from_map(s, "B", "D", "fire")
    assert e.value.rule == "23.1"


# ---- never moves, never changes place in the stack -----------------------------------------------------
def test_28_5_redoubt_block_cannot_move(st):
    with pytest.raises(RuleViolation) as e:
        play(lambda: move_order(st, "french", ["B"], [("R", "E")]), seed=1)
    assert e.value.rule == "28.5"
    assert st.unit("R").zone == "B"


def test_28_5_redoubt_block_cannot_give_ground(st):
    with pytest.raises(RuleViolation) as e:
        play(lambda: give_ground(st, "R"), seed=1)
    assert e.value.rule == "28.5"


def test_28_5_redoubt_block_is_always_the_lead(tmp_path):
    text = FILE.read_text()
    r = "  - {id: R, side: french, kind: artillery, skill: 2, zone: B, redoubt_block: true, redoubt_cubes: 1}\n"
    fi = "  - {id: FI, side: french, kind: infantry, skill: 2, zone: B}\n"
    p = tmp_path / "s.yaml"
    p.write_text(text.replace(r + fi, fi + r))
    with pytest.raises(RuleViolation) as e:
        new_map(load_scenario(p))
    assert e.value.rule == "28.5"
    # in a combat set-up too: a Redoubt Block is never the second line
    setup = CombatSetup("fire", CombatSide(Block("infantry")),
                        CombatSide(Block("infantry"), Block("artillery", redoubt_block=True)))
    with pytest.raises(RuleViolation) as e:
        prepare(setup)
    assert e.value.rule == "28.5"


def test_28_5_redoubt_block_needs_a_redoubt_zone(tmp_path):
    p = tmp_path / "s.yaml"
    p.write_text(FILE.read_text().replace("redoubt: [A, C]", "road: false"))
    with pytest.raises(DataError) as e:
        load_scenario(p)
    assert "redoubt_block" in str(e.value)


def test_28_5_only_artillery_is_a_redoubt_block():
    with pytest.raises(RuleViolation) as e:
        Block.from_model(BlockModel(kind="infantry", redoubt_block=True))
    assert e.value.rule == "28.5"
    with pytest.raises(RuleViolation) as e:
        Block.from_model(BlockModel(kind="artillery", redoubt_cubes=2))
    assert e.value.rule == "28.5"


# ---- cubes on the rear absorb hits at the owner's choice -------------------------------------------------
def test_28_5_cube_absorbs_one_hit_if_the_owner_wishes():
    setup, _ = combat_from_file(COMBAT)
    deck = default_deck()
    assert prepare(setup).column + prepare(setup).net_shift == -1      # column 1 - 1 = 0, one shift left (23.5)
    factory = combat_procedure(setup, deck, Pile.for_play(deck))
    kept = play(factory, dice=TypedDice([ROUND_SHOT_FILE]), chooser=always(True))
    f = kept.result.fate("defender_lead")
    assert kept.result.result == "round_shot"
    assert (f.state, f.redoubt_cubes, f.hits) == ("steady", 0, 0)   # the cube took the Round Shot's hit
    asked = [e for e in kept.events if e.kind == "choose" and e.rule == "28.5"]
    assert len(asked) == 1
    taken = play(factory, dice=TypedDice([ROUND_SHOT_FILE]), chooser=always(False))
    f = taken.result.fate("defender_lead")
    assert (f.state, f.redoubt_cubes, f.hits) == ("disrupted", 1, 1)   # Artillery: Steady -> Disrupted (9.2)


def test_28_5_one_cube_keeps_the_guns_steady_against_any_fire_exactly():
    # A Fire combat lands at most one Cohesion Hit on the defender's lead (23.5: Muskets & Shot, Round Shot,
    # Skull & Bones each one; Gun Smoke none). With one cube used whenever asked, R stays Steady for sure,
    # and the cube is left exactly when the card is Gun Smoke.
    setup, _ = combat_from_file(COMBAT)
    odds = combat_odds(setup)
    assert odds.dist.prob(lambda o: o.fate("defender_lead").state == "steady") == 1
    smoke = odds.dist.prob(lambda o: o.result == "gun_smoke")
    assert odds.dist.prob(lambda o: o.fate("defender_lead").redoubt_cubes == 1) == smoke
    # without the cube, Steady is left exactly with Gun Smoke
    bare = replace(setup, defender=replace(setup.defender, lead=replace(setup.defender.lead, redoubt_cubes=0)))
    assert combat_odds(bare).dist.prob(lambda o: o.fate("defender_lead").state == "steady") == smoke
    assert smoke == Fraction(17, 35)     # provisional deck: 34 of 70 cards give Gun Smoke after the shift


def test_28_5_declining_every_cube_is_the_combat_without_cubes():
    setup, _ = combat_from_file(COMBAT)
    deck = default_deck()
    bare = replace(setup, defender=replace(setup.defender, lead=replace(setup.defender.lead, redoubt_cubes=0)))

    def key(o):
        f = o.fate("defender_lead")
        return o.result, f.state, f.hits, f.retreats, o.defender_morale, o.critical

    def decline(req):
        return False if req.rule == "28.5" else neutral_policy(req)
    with_cube = distribution(combat_procedure(setup, deck, Pile.for_odds(deck)), policy=decline).map(key)
    without = distribution(combat_procedure(bare, deck, Pile.for_odds(deck)), policy=neutral_policy).map(key)
    assert dict(with_cube.items()) == dict(without.items())


# ---- must retreat: stays; eliminated if the enemy advances --------------------------------------------
def _disrupted_no_cube(st):
    return _set(_without(st, "FI"), "R", state="disrupted", redoubt_cubes=0)


def test_28_5_redoubt_block_that_must_retreat_stays_and_falls_to_an_advance(st):
    s = _disrupted_no_cube(st)
    t = prepare(combat_from_map(s, "A", "B", "fire"))
    assert (t.attacker_cp, t.defender_cp, t.column, t.net_shift) == (3, 1, 2, 0)
    # CA fires from A: Round Shot, one hit on a Disrupted Artillery -> it must retreat (24.1) but cannot
    after = play(lambda: map_combat(s, "A", "B", "fire"), dice=TypedDice([ROUND_SHOT_MAP])).result
    assert after.unit("R").zone == "B" and after.redoubt_held == ("R",)
    morale = after.morale_of("french").value
    done = play(lambda: advance(after, "A", "B", ("CA",))).result
    assert "R" not in {u.id for u in done.units}
    assert done.unit("CA").zone == "B"
    assert done.morale_of("french").value == morale - 1          # 26.0: an eliminated Block costs one Morale


def test_28_5_without_an_advance_the_redoubt_block_holds(st):
    s = _disrupted_no_cube(st)
    after = play(lambda: map_combat(s, "A", "B", "fire"), dice=TypedDice([ROUND_SHOT_MAP])).result
    stayed = play(lambda: advance(after, "A", "B", ())).result          # the attacker does not advance
    assert stayed.unit("R").zone == "B"
    nxt = start_turn(after)
    assert nxt.redoubt_held == ()
    with pytest.raises(RuleViolation) as e:                              # later, B is simply occupied
        play(lambda: advance(nxt, "A", "B", ("CA",)))
    assert e.value.rule == "25.0"


def test_28_5_cube_on_the_map_saves_the_guns(st):
    s = _set(_without(st, "FI"), "R", state="disrupted")                  # one cube left
    after = play(lambda: map_combat(s, "A", "B", "fire"), dice=TypedDice([ROUND_SHOT_MAP]),
                 chooser=always(True)).result
    r = after.unit("R")
    assert (r.block.state, r.block.redoubt_cubes, after.redoubt_held) == ("disrupted", 0, ())


def test_28_5_cli_reports_the_cubes_left(capsys):
    assert main(["bc", "combat", str(COMBAT)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["defender_lead_state"] == {"steady": {"fraction": "1/1", "float": 1.0}}
    assert out["defender_lead_redoubt_cubes"]["1"]["fraction"] == "17/35"
