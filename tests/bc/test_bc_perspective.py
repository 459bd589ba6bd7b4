"""Optional rule 29.1 Command Perspective, as a switch: in combat, on the map and in the turn preparation."""
import json
from dataclasses import replace
from fractions import Fraction

import pytest

from engine.bc.calc import check_odds, combat_odds
from engine.bc.blocks import Block, HQ
from engine.bc.combat import combat_procedure
from engine.bc.tally import CombatSetup, CombatSide
from engine.bc.deck import Pile, default_deck
from engine.bc.game.orders import command_perspective
from engine.bc.game.rally import rally_zone
from engine.bc.game.state import new_map
from engine.bc.game.turn import start_turn
from engine.bc.game.zones import command_zones
from engine.cli import main
from engine.core.errors import RuleViolation
from engine.core.procedure import Draw, distribution, play


@pytest.fixture(scope="module")
def st():
    return new_map()


def _short_range(st, rng):
    m = st.scenario.model
    coms = {**m.commanders, "french": m.commanders["french"].model_copy(update={"range": rng})}
    return replace(st, scenario=replace(st.scenario, model=m.model_copy(update={"commanders": coms})))


def test_29_1_main_hq_range_plus_one(st):
    # Commander range 1 from W2: W1, W3, M1, M2, M3 (+ W2). In Command Perspective the range is 2, which
    # would reach the E column, but the Coalition Blocks there stop it (19.0): taking them off, E1-E3 join.
    s = _short_range(replace(st, units=tuple(u for u in st.units if u.side == "french")), 1)
    assert command_zones(s, "FHQ") == {"W1", "W2", "W3", "M1", "M2", "M3"}
    p = command_perspective(s, "french", rally_order=False)
    assert command_zones(p, "FHQ") == {"W1", "W2", "W3", "M1", "M2", "M3", "E1", "E2", "E3"}


def test_29_1_one_cube_fewer_in_the_cup(st):
    # The French commander gives 5 cubes (scenario); in Command Perspective 4: one blue cube fewer (16.1)
    a = start_turn(st)
    b = start_turn(command_perspective(st, "french", rally_order=False))
    assert a.cup.count("blue") - b.cup.count("blue") == 1 and a.cup.count("white") == b.cup.count("white")


def test_29_1_is_a_rally_order_paid_with_a_reserve_cube(st):
    with pytest.raises(RuleViolation) as e:
        command_perspective(st, "french")              # the reserve box is empty
    assert e.value.rule == "20.0"
    s = replace(st, reserve=(("french", 2), ("coalition", 0)))
    p = command_perspective(s, "french")
    assert dict(p.reserve)["french"] == 1 and p.in_perspective("french") and not s.in_perspective("french")
    with pytest.raises(RuleViolation) as e:
        command_perspective(p, "french")
    assert e.value.rule == "29.1"


def test_29_1_main_hq_gives_no_skill_bonus_but_an_shq_does():
    assert HQ("hq", 3, "steady").gives_bonus and not HQ("hq", 3, "steady", perspective=True).gives_bonus
    assert HQ("shq", 2, "steady", perspective=True).gives_bonus
    s = CombatSide(Block("infantry", 2), hq=HQ("hq", 3, "steady", True))
    assert not s.steady_hq


def test_29_1_rally_with_main_hq_in_perspective_reads_the_bare_skill(st):
    # F2 (skill 2) in M2, with the French HQ brought there: the rally check reads skill 3 with the HQ (+1),
    # skill 2 in Command Perspective. The chance of a pass must equal the table's for that skill.
    s = replace(st, hqs=tuple(replace(h, zone="M2") if h.id == "FHQ" else h for h in st.hqs),
                reserve=(("french", 1), ("coalition", 0)))
    s = replace(s, units=tuple(replace(u, block=replace(u.block, state="disrupted")) if u.id == "F1" else u
                               for u in s.units))
    def rallied(state):
        new, _ = yield from rally_zone(state, "french", "M2")
        return new.unit("F1").block.state != "disrupted"
    with_bonus = distribution(lambda: rallied(s)).prob(lambda r: r)
    p = command_perspective(s, "french", rally_order=False)
    bare = distribution(lambda: rallied(p)).prob(lambda r: r)
    enemy_adj = True      # M2 borders E2 (Coalition)
    assert with_bonus == Fraction(check_odds("rally", 4, enemy_adjacent=enemy_adj)["success"]["fraction"])
    assert bare == Fraction(check_odds("rally", 3, enemy_adjacent=enemy_adj)["success"]["fraction"])


def _played(card, persp):
    deck = default_deck()
    s = CombatSetup("assault", CombatSide(Block("long_infantry", 3)),
                    CombatSide(Block("infantry", 2), hq=HQ("hq", 2, "steady", persp)))
    used = []

    def dice(req):
        assert isinstance(req, Draw)
        if "redrawn" in req.label:
            v = 7                      # an Officer card: no effect on the HQ
        elif "fate" in req.label:
            v = 5                      # a Death Head card: in an Assault it strikes the Commander (27.11)
        elif not used:
            v = card
        else:
            v = next(x for x in req.cards if x not in (5, 7, card))
        used.append(req.label)
        return v
    return play(combat_procedure(s, deck, Pile.for_play(deck)), dice=dice).result, used


def test_29_1_safety_bonus_redraws_a_fatal_fate_card():
    # Card 3 as the combat card hits the defender; the HQ fate card is a Death Head (#5): without Command
    # Perspective the Commander is Hors de Combat; with it the card is drawn again (an Officer, #7): no effect.
    out, used = _played(3, False)
    assert "Hors de Combat" in out.hq_fates[0][1] and not any("redrawn" in u for u in used)
    out, used = _played(3, True)
    assert out.hq_fates[0][1] == "no effect" and any("redrawn" in u for u in used)


def test_29_1_perspective_lowers_the_commanders_risk_in_exact_odds():
    deck = default_deck()

    def p_out(persp):
        s = CombatSetup("assault", CombatSide(Block("long_infantry", 3)),
                        CombatSide(Block("infantry", 2), hq=HQ("shq" if persp is None else "hq", 2, "steady", bool(persp))))
        d = combat_odds(s, deck).dist
        return d.prob(lambda o: any("Hors de Combat" in w for _, w in o.hq_fates))
    assert 0 < p_out(True) < p_out(False)


def test_cli_scenario_perspective(capsys):
    assert main(["bc", "scenario", "--perspective", "french"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hqs"]["FHQ"]["perspective"] is True and out["hqs"]["CHQ"]["perspective"] is False
