"""The Lines of Battle greedy bot's policy (docs/bots.md): it attacks and charges only where the odds
favour it, guards the Allied rear, and is deterministic given its seed."""
from dataclasses import replace
from functools import partial

import pytest

from engine.core.game import play_game
from engine.core.procedure import Choose, TypedDice, play
from engine.lob.bots import ATTACK_MARGIN, GreedyBot
from engine.lob.actions import Action
from engine.lob.handlers import perform
from engine.lob.setup import new_game
from engine.lob.protocol import LobRules

R = LobRules()


def do(g, action, dice=(), chooser=None):
    return play(partial(perform, g, action), dice=TypedDice(list(dice)),
                chooser=chooser or (lambda r: r.options[0])).result


def french_command():
    return do(new_game(), Action("end-admin"))          # French turn 1, 4 command points


def test_a_hopeless_attack_is_not_made():
    # Pepin (infantry 2 with 1 hit: strength 1) alone in 16 against the KGL (infantry 2) in Albuera.
    # Round 1: attacker d6 + 1 against defender d6 + 2 + 2 (5.2.1, Albuera terrain 2: +2 in the town);
    # the attacker wins only when a - d > 3: (5,1), (6,1), (6,2) = 3/36 = 1/12. Losing, Pepin takes a
    # hit (5.2.1, strength 0) and goes back to 16 (5.2.2, no hit for an attacker's retreat); winning,
    # the KGL takes a hit and Pepin, at strength 1, still pulls back (its policy: out at strength 1).
    # Nobody is eliminated, nothing is taken: worth = 0.25 x (11/12 x -1 + 1/12 x +1) = -5/24,
    # below the margin, so the bot ends the phase instead.
    g = french_command()
    g = g.with_units([replace(g.unit("F-Pepin"), area="16", hits=1)])
    g = do(g, Action("activate", area="16"))
    bot = GreedyBot(seed=1)
    attack = Action("attack", units=("F-Pepin",), target="Albuera")
    assert R.is_legal(g, attack)
    w = bot.attack_value(g, attack)
    assert w == pytest.approx(-5 / 24)
    assert bot.value(g, attack) == 0.0
    assert bot.choose_action(R, g, [attack, Action("end-phase")]).kind == "end-phase"


def test_a_favourable_attack_is_made():
    # Bron (heavy cavalry 3) in 25 against de Espana (infantry 1) alone in 72.
    # Round 1: d6 + 3 against d6 + 1: the cavalry lose only when d >= a + 2, which is 4+3+2+1 = 10 of
    # 36 pairs, so they win 26/36; winning by 2 or more puts 2+ hits on a rating-1 unit (eliminated,
    # -1 Allied morale) and the area is taken (+1 French morale, 5.3). The worth is well above the margin.
    g = french_command()
    g = g.with_units([replace(u, area="75") for u in g.units if u.area == "72"]
                     + [replace(g.unit("A-Espana"), area="72")])
    g = do(g, Action("activate", area="25"))
    bot = GreedyBot(seed=1)
    attack = Action("attack", units=("F-Bron",), target="72")
    w = bot.attack_value(g, attack)
    assert w > 1.0 > ATTACK_MARGIN
    pick = bot.choose_action(R, g, [Action("move", units=("F-Dellard",), path=("19",)), attack,
                                    Action("end-phase")])
    assert pick == attack


def test_cavalry_charge_only_when_it_pays():
    g = french_command()
    bot = GreedyBot(seed=1)
    # against de Espana (infantry 1) in open 72: as above, a charge the cavalry should win (5.3.1)
    g1 = g.with_units([replace(u, area="75") for u in g.units if u.area == "72"]
                      + [replace(g.unit("A-Espana"), area="72")])
    req = Choose(("none", "72"), rule="5.3.1", player="French", context=("charge", "25", ("F-Bron",), g1))
    assert bot.choose(req) == "72"
    # against the KGL (infantry 2) in the town: cavalry fight as infantry in close terrain (5.2.1 NB),
    # infantry there get +2 against cavalry (5.2.1 h) and +2 in Albuera: d6 + 3 against d6 + 6
    g2 = g.with_units([replace(g.unit("F-Bron"), area="16")])
    req = Choose(("none", "Albuera"), rule="5.3.1", player="French",
                 context=("charge", "16", ("F-Bron",), g2))
    assert bot.choose(req) == "none"
    # an older context without the position: no charge
    assert bot.choose(Choose(("none", "72"), rule="5.3.1", player="French", context=("charge", "25", ("F-Bron",)))) \
        == "none"


def test_the_allies_guard_an_empty_rear_area_in_reach_of_french_infantry():
    # Brayer (infantry 3) stands in 11, two areas from each of 1 (11-3-1), 2 (11-3-2) and 8 (11-14-8),
    # and French infantry entering one of them wins at once (Albuera scenario play). De Espana
    # (infantry 1), alone in 3 (Myers and Harvey sent to 10, Murgeon and Polo out of 14), has no attack
    # worth making (1 against 3) and moves into the rear instead.
    g = french_command()
    g = g.with_units([replace(g.unit(u), area="28") for u in ("A-Murgeon", "A-Polo")]
                     + [replace(g.unit(u), area="10") for u in ("A-Myers", "A-Harvey")]
                     + [replace(g.unit("F-Brayer"), area="11")])
    g = replace(g, player="Allied", cp=1)           # one point: spent on activating 3
    g = do(g, Action("activate", area="3"))
    bot = GreedyBot(seed=1)
    assert bot._threatened_rear(g) == {"1", "2", "8"}
    pick = bot.choose_action(R, g, None)
    assert pick.kind == "move" and pick.units == ("A-Espana",) and pick.path[-1] in ("1", "2", "8"), pick
    # French infantry at strength 0 cannot win that way (the scenario asks for strength 1 or more):
    # with all of it spent nothing threatens the rear, and the Allies hold their line
    spent = g.with_units([replace(u, hits=u.rating) for u in g.units if u.side == "French" and u.kind == "inf"])
    bot2 = GreedyBot(seed=1)
    assert bot2._threatened_rear(spent) == set()
    bot2.choose_action(R, spent, None)              # (it would rather attack the spent Brayer now)
    assert bot2.value(spent, Action("move", units=("A-Espana",), path=("2",))) == 0.0


def test_greedy_games_are_the_same_for_the_same_seed():
    a = play_game(R, ("greedy", "greedy"), seed=7, max_actions=80)[1]
    b = play_game(R, ("greedy", "greedy"), seed=7, max_actions=80)[1]
    assert a.events == b.events
