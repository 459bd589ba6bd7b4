"""The odds-aware bot (engine/core/odds.py OddsBot, engine/n20/game/odds_bot.py N20OddsBot; issue 16
point 3): deterministic per seed, its cache bounded, its shortlist, and the Napoleonic 20 declaration
chosen by the exact odds of its battles on a position reached by greedy play (worked by hand below)."""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from engine.core.game import RandomDice, play_game, system_of
from engine.core.odds import OddsBot, action_odds, choice_policy, enumerate_action, unkey


def _actions(rec):
    return [e["action"] for e in rec.events]


# ------------------------------------------------------------------------------------------------
# Determinism and bounds
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("system,actions", [("n20", 130), ("lob", 20)])
def test_odds_bot_is_deterministic_per_seed(system, actions):
    rules = system_of(system)
    a, ra = play_game(rules, ("odds", "odds"), seed=3, max_actions=actions)
    b, rb = play_game(rules, ("odds", "odds"), seed=3, max_actions=actions)
    assert _actions(ra) == _actions(rb)
    assert rules.state_to_json(a) == rules.state_to_json(b)


def test_odds_bot_cache_stays_within_its_size():
    rules = system_of("n20")
    st, _ = play_game(rules, ("greedy", "greedy"), seed=1, max_actions=11, record=False)
    # action 11 of seed 1: FHEU's declared battle against A6 waits to be resolved (9.0)
    (a,) = rules.attack_candidates(st)
    bot = OddsBot(seed=1, cache_size=2)
    v = bot.attack_value(rules, st, a)
    assert bot.attack_value(rules, st, a) == v and bot.weighed == 1          # the second time from the cache
    # more battles from later positions of the same game push the oldest entries out
    keys = [(st, a)]
    for n in range(12, 40):
        s, _ = play_game(rules, ("greedy", "greedy"), seed=1, max_actions=n, record=False)
        for b in rules.attack_candidates(s):
            bot.attack_value(rules, s, b)
            keys.append((s, b))
        assert len(bot._cache) <= 2
    assert len(set(keys)) > 2 and (st, a) not in bot._cache
    n = bot.weighed
    bot.attack_value(rules, st, a)
    assert bot.weighed == n + 1                                                # dropped, so weighed again


def test_odds_bot_value_is_the_expected_change_of_evaluate():
    """The value the bot weighs = sum over the exact end positions of p * (evaluate(end) - evaluate(now)):
    FHEU (2) against A6 (4), column -2: AR 1/3 and a rout of 3+ hexes (4 faces of 6) costs a French
    Morale Point (9.6.2, 12.1): -(1/3 * 4/6) = -2/9; nothing else changes the value."""
    rules = system_of("n20")
    st, _ = play_game(rules, ("greedy", "greedy"), seed=1, max_actions=11, record=False)
    (a,) = rules.attack_candidates(st)
    bot = OddsBot(seed=1)
    assert bot.attack_value(rules, st, a) == pytest.approx(-2 / 9)
    assert action_odds(rules, st, a).expect("morale.french") == Fraction(-2, 9)


def test_odds_bot_shortlist_keeps_the_top_scored_and_the_unscored():
    class Rules:
        def attack_score(self, state, a):
            return None if a == "fire" else {"x": 1.0, "y": 3.0, "z": 2.0, "w": 3.0}[a]
    bot = OddsBot(seed=0, top_k=2)
    # y and w score 3 (kept, in listed order), z 2 and x 1 dropped; fire has no score: always kept
    assert bot._shortlist(Rules(), None, ["x", "y", "fire", "z", "w"]) == ["y", "fire", "w"]
    assert bot._shortlist(Rules(), None, ["x", "y"]) == ["x", "y"]            # within top_k: all


# ------------------------------------------------------------------------------------------------
# Battle Commander: attacks weighed from the card summaries (issue 26 point 4)
# ------------------------------------------------------------------------------------------------
def _bc_first_french_attacks():
    """Battle Commander's demo, seed 1, greedy play to the first position where the French may attack (a Red
    cube, 23.1): fire, bombardment and assaults from M1-M3."""
    rules = system_of("bc")
    seen = []
    play_game(rules, ("greedy", "greedy"), seed=1, record=False,
              on_action=lambda s, n: seen.append(s) if not seen and rules.to_act(s) == "french"
              and rules.attack_candidates(s) else None)
    st = seen[0]
    bombard = next(a for a in rules.attack_candidates(st) if rules.format_action(a).endswith("attack=bombard"))
    return rules, st, bombard


def test_bc_odds_bot_weighs_an_attack_from_the_card_summaries_to_the_exact_value():
    """The French bombardment M1 -> E1 runs to 9,815 enumeration steps over the cards themselves (each card
    number a branch, 15.0), past the bot's 4,000, so the bot used to find it too big and play as the greedy
    bot does. From the card summaries (odds_state: icon and CRT rows, 21.0, 23.2-23.3) it is a few hundred
    steps, and its value is the very expected change worked out over the cards themselves with no bound:
    sum over the end positions of p * (evaluate(end) - evaluate(now)), exact fractions (a differential test:
    the summaries must not move the value)."""
    rules, st, a = _bc_first_french_attacks()
    bot = OddsBot(seed=1)
    value = bot.attack_value(rules, st, a)
    assert value is not None and bot.too_big == 0
    assert bot.steps < bot.max_steps
    greedy = OddsBot(seed=1).base(rules)
    tree, budget = enumerate_action(rules, st, a, choice_policy(greedy, st)[0], 10**6, 10**5)
    assert budget.used > bot.max_steps                       # over the cards themselves: past the bound
    now = Fraction(rules.evaluate(st, "french"))
    exact = sum((p * (Fraction(rules.evaluate(unkey(s), "french")) - now)
                 for s, p in tree.distribution().items()), Fraction(0))
    assert value == pytest.approx(float(exact), abs=1e-12)


def test_bc_odds_bot_positions_alike_in_their_card_summaries_share_one_weighing():
    """Two positions that differ only in the order of the draw pile (15.0: each card of it is equally likely
    next) have one card summary, so the bot weighs an attack in the second from its cache."""
    rules, st, a = _bc_first_french_attacks()
    pile = st.g.pile
    shuffled = replace(st, g=replace(st.g, pile=replace(pile, draw=pile.draw[::-1])))
    assert shuffled != st and rules.odds_state(shuffled) == rules.odds_state(st)
    bot = OddsBot(seed=1)
    v = bot.attack_value(rules, st, a)
    assert bot.attack_value(rules, shuffled, a) == v and bot.weighed == 1


# ------------------------------------------------------------------------------------------------
# Napoleonic 20: which battles to declare (9.2), by their exact odds
# ------------------------------------------------------------------------------------------------
def _combat_position():
    """Fuentes, seed 1, greedy play to action 119: the French turn 8 combat step, nothing declared yet."""
    rules = system_of("n20")
    st, _ = play_game(rules, ("greedy", "greedy"), seed=1, max_actions=119, record=False)
    assert (st.turn, st.player, str(st.step), st.declared) == (8, "french", "combat", None)
    return rules, st


def test_n20_declaration_by_odds_worked_by_hand():
    from engine import n20
    from engine.n20.game import combat as C
    from engine.n20.game.actions import Action
    from engine.n20.game.odds_bot import N20OddsBot
    from engine.n20.game.state import Battle

    rules, st = _combat_position()
    greedy = next(a for a in C.declaration_options(st) if a.kind == "declare")
    B = Battle
    assert greedy.battles == (B(("FMAR", "FNOR"), ("A3",)), B(("FMRL", "FRES"), ("A7",)),
                              B(("FCON", "FLTC", "FSOL"), ("ALT",)), B(("FHEU",), ("APOR",)))
    bot = N20OddsBot(seed=1)
    bot.base(rules)

    def crt(b):
        s = C.do_declare(st, (b,))
        calc = n20.odds(C.engine_battle(s, C._effective(s, s.declared[0]), "french", (False, False), False))
        return calc.column, dict(calc.crt)

    def value(b):
        return bot.battle_value(rules, st, b)[1]

    # FHEU (2) against APOR (3): column -1 = AR 1/6, AW 1/3, DW 1/3, N 1/6. Only AR moves the value: the
    # attacker routs d6 hexes and 3+ costs a French Morale Point (4 faces of 6): -(1/6 * 4/6) = -1/9
    assert crt(B(("FHEU",), ("APOR",))) == (-1, {"AR": Fraction(1, 6), "AW": Fraction(1, 3),
                                                  "DW": Fraction(1, 3), "N": Fraction(1, 6)})
    assert value(B(("FHEU",), ("APOR",))) == pytest.approx(-1 / 9)
    # FHEU+FNOR (3) against APOR (3): column 0 = AW 1/3, DR 1/6, DW 1/3, N 1/6. Only DR moves it: APOR
    # routs and 3+ hexes cost an Allied point: +(1/6 * 4/6) = +1/9 for the French
    assert crt(B(("FHEU", "FNOR"), ("APOR",))) == (0, {"AW": Fraction(1, 3), "DR": Fraction(1, 6),
                                                        "DW": Fraction(1, 3), "N": Fraction(1, 6)})
    assert value(B(("FHEU", "FNOR"), ("APOR",))) == pytest.approx(1 / 9)
    # FMAR (3) against A3 (5): column -2 = AR 1/3, AW 1/3, DW 1/6, N 1/6: -(1/3 * 4/6) = -2/9
    assert crt(B(("FMAR",), ("A3",)))[0] == -2
    assert value(B(("FMAR",), ("A3",))) == pytest.approx(-2 / 9)
    # FMAR+FNOR (4) against A3 (5): column -1; as for FHEU only AR (1/6) costs anything, so its value v
    # is below 0 (the engine's exact odds: -7/36, two units routing, some routs cut short by the map)
    v_a3 = value(B(("FMAR", "FNOR"), ("A3",)))
    assert v_a3 == pytest.approx(float(action_odds(
        rules, C.do_declare(st, (B(("FMAR", "FNOR"), ("A3",)),)), Action("resolve", index=0),
        chooser=bot.base(rules)).expect("morale.french"))) == pytest.approx(-7 / 36)
    # Moving FNOR from the A3 battle to the APOR battle (both legal, 9.1-9.2.2) changes the sum by
    #   [v(FMAR>A3) + v(FHEU+FNOR>APOR)] - [v(FMAR+FNOR>A3) + v(FHEU>APOR)]
    #   = (-2/9 + 1/9) - (-7/36 - 1/9) = -1/9 + 11/36 = 7/36 > 0
    moved = (B(("FMAR",), ("A3",)), greedy.battles[1], greedy.battles[2], B(("FHEU", "FNOR"), ("APOR",)))
    C.check_declaration(st, moved)
    total = lambda bs: sum(value(b) for b in bs)
    assert total(moved) - total(greedy.battles) == pytest.approx(7 / 36)
    # so the bot does not declare the greedy grouping; what it declares is worth at least the move
    pick = bot.choose_declaration(rules, st, C.declaration_options(st))
    assert pick.kind == "declare" and pick.battles != greedy.battles
    C.check_declaration(st, pick.battles)
    assert total(pick.battles) >= total(moved) - 1e-12


def test_n20_odds_bot_resolves_its_declared_battles_best_first():
    rules, st = _combat_position()
    bot = rules.bots()["odds"](seed=1)
    decl = bot.choose_action(rules, st, None)
    assert decl.kind == "declare"
    st2 = rules.begin(st, decl).run(RandomDice(0), lambda r: bot.choose(r, st)).state
    vals = bot._values[2]
    first = bot.choose_action(rules, st2, None)
    assert first.kind == "resolve"
    assert vals[st2.declared[first.index]] == max(vals[st2.declared[i]] for i in range(len(st2.declared))
                                                  if i not in st2.done_battles)
    n = bot.weighed
    bot.choose_action(rules, st2, None)
    assert bot.weighed == n                         # the order comes from the declaration's values


@pytest.mark.slow
@pytest.mark.parametrize("system", ("n20", "lob", "tbf", "bc"))
def test_odds_bot_whole_game_reaches_an_outcome_and_is_reproducible(system):
    rules = system_of(system)
    a, ra = play_game(rules, ("odds", "greedy"), seed=1)
    assert rules.outcome(a) is not None
    b, rb = play_game(rules, ("odds", "greedy"), seed=1)
    assert _actions(ra) == _actions(rb)
