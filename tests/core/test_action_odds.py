"""Exact odds of one declared action over the protocol (engine/core/odds.py), checked against each system's
own calculator, and the odds-aware bot of every system (issue 16 point 3, issue 15 point 2).

Every position below is reached by greedy play from a fixed seed (the one seeding rule), so each test
sees the same battle every run."""
from __future__ import annotations

import json
from fractions import Fraction
from functools import partial

import pytest

from engine.core.errors import LimitError, RuleViolation
from engine.core.game import RandomDice, _make_bots, action_seed, play_game, system_of
from engine.core.odds import ActionOdds, OddsBot, action_odds, metrics_label, metrics_value, solve
from engine.core.procedure import distribution


def reach(system: str, seed: int, stop, limit: int = 400):
    """Greedy play from ``seed`` until ``stop(rules, state, legal)`` holds: (rules, state, legal)."""
    rules = system_of(system)
    players = _make_bots(rules, ("greedy", "greedy"), seed)
    st = rules.new_game(None, (), seed)
    for n in range(limit):
        legal = rules.legal_actions(st)
        if stop(rules, st, legal):
            return rules, st, legal
        bot = players[rules.to_act(st)]
        a = bot.choose_action(rules, st, legal)
        st = rules.begin(st, a).run(RandomDice(action_seed(seed, n)),
                                    lambda r, b=bot, s=st: players.get(r.player, b).choose(r, s)).state
    raise AssertionError("the position was not reached")


def p_of(odds: ActionOdds, pred) -> Fraction:
    return sum((o.probability for o in odds.outcomes if pred(o.label)), Fraction(0))


# ------------------------------------------------------------------------------------------------
# Napoleonic 20: a declared battle resolved in the game == n20.odds of the same battle
# ------------------------------------------------------------------------------------------------
def test_n20_resolve_agrees_with_battle_odds():
    from engine import n20
    from engine.n20.game.combat import _effective, engine_battle
    rules, st, legal = reach("n20", 1, lambda r, s, l: any(a.kind == "resolve" for a in l))
    a = next(a for a in legal if a.kind == "resolve")
    o = action_odds(rules, st, a)
    b = _effective(st, st.declared[a.index])
    assert (b.attackers, b.defenders) == (("FHEU",), ("A6",))
    calc = n20.odds(engine_battle(st, b, st.player, (False, False), False))   # no reserves (12.5: first option)
    # FHEU (2) against A6 (4): differential -2, column -2; the d6 reads AR on 2 faces, AW on 2, DW 1, N 1
    assert (calc.attack, calc.defence, calc.column) == (2, 4, -2)
    assert dict(calc.crt) == {"AR": Fraction(1, 3), "AW": Fraction(1, 3), "DW": Fraction(1, 6), "N": Fraction(1, 6)}
    # AR: FHEU routs d6 hexes (9.6.2); routs of 3+ cost a French Morale Point: E = -(1/3 * 4/6) = -2/9
    assert o.expect("morale.french") == calc.summary["expected_morale"]["french"] == Fraction(-2, 9)
    assert o.expect("morale.allied") == calc.summary["expected_morale"]["allied"] == 0
    assert p_of(o, lambda s: "attacker routs" in s) == calc.crt["AR"]
    assert o.prob("defender advances 1 hex; attacker retreats 1 hex") == calc.crt["AW"]
    assert o.prob("defender retreats 1 hex; attacker advances 1 hex") == calc.crt["DW"]
    assert o.prob("both sides hold") == calc.crt["N"]
    assert o.total == 1 and o.rule == "9.0"
    assert all(line.rule == "9.0" for line in o.outcomes)


# ------------------------------------------------------------------------------------------------
# Lines of Battle: artillery fire and an attack in the game == the fire procedure and the combat analysis
# ------------------------------------------------------------------------------------------------
def _lob_attack_position():
    return reach("lob", 1, lambda r, s, l: any(a.kind == "attack" and a.units == ("F-Legrand",) for a in l))


def test_lob_fire_agrees_with_fire_procedure():
    from engine.lob.fire import FireSetup, artillery_fire  # noqa: F401  (the calculator's procedure)
    rules, st, legal = _lob_attack_position()
    a = next(a for a in legal if a.kind == "fire" and a.units == ("F-ResArt",) and a.target == "A-Head")
    o = action_odds(rules, st, a)
    # one d6 (4.2.1): 1-3 no effect (1/2), 4-5 one hit (1/3), 6 eliminates the one-hit target (1/6),
    # which costs the Allies 1 morale point (its morale value): E[Allied morale] = -1/6
    assert o.prob("target unhurt") == Fraction(1, 2)
    assert o.prob("target takes 1 hit") == Fraction(1, 3)
    assert o.prob("target eliminated; Allied morale -1") == Fraction(1, 6)
    assert o.expect("morale.Allied") == Fraction(-1, 6)
    assert o.rule == "4.2.1"


def test_lob_attack_agrees_with_combat_analysis():
    from engine.lob.analysis import analyse
    from engine.lob.attack import combat_context
    from engine.lob.policies import CombatPolicy
    rules, st, legal = _lob_attack_position()
    a = next(a for a in legal if a.kind == "attack" and a.units == ("F-Legrand",))
    policy = CombatPolicy("until:1", "until:1")
    o = action_odds(rules, st, a, chooser=policy)
    # the calculator's combat: the unit moved to the origin (4.2.2), the area's defenders, the same policy
    u = st.unit("F-Legrand")
    origin = a.path[-1] if a.path else u.area
    moved = (u.moved(origin, None if a.path else u.approach, u.square),)
    an = analyse(combat_context(st, a.target, origin, st.player), moved, st.in_area(a.target), policy)
    # the game adds each side's morale change (5.3) to its morale: the expectations are the analysis's own
    assert o.expect("morale.French") == an.expected_morale("French")
    assert o.expect("morale.Allied") == an.expected_morale("Allied")
    assert p_of(o, lambda s: s.startswith(f"attacker takes {a.target}")) == an.attacker_takes_area
    assert o.total == 1


# ------------------------------------------------------------------------------------------------
# These Brave Fellows: fire in the game == the Fire Combat procedure of the calculator
# ------------------------------------------------------------------------------------------------
def test_tbf_fire_agrees_with_fire_calculator():
    from engine.tbf.game.fire_combat import fire_setup
    from engine.tbf.game.memo import cached
    from engine.tbf.fire import fire_distribution
    from engine.tbf.game.actions import Fire
    rules, st, legal = reach("tbf", 1, lambda r, s, l: any(isinstance(a, Fire) and a.target == "2013" for a in l))
    a = next(a for a in legal if isinstance(a, Fire) and a.target == "2013")
    o = action_odds(rules, st, a)
    sc = rules.sc
    setup = cached(fire_setup)(sc, st.game, tuple(a.units), a.target, False, False, (), ())
    dist = fire_distribution(sc.tables, setup)

    def effect(r):
        eff = sc.tables.fire.results[r.result]
        if eff.eliminate:
            return "target eliminated"
        return {(True, True): "target fatigued and retreats", (True, False): "target fatigued",
                (False, True): "target retreats", (False, False): "no effect"}[(eff.fatigue, eff.retreat > 0)]
    calc = dist.map(effect)
    # column 3 of the shipped Fire Combat Table (6.3.7): no effect 3/5, F 1/5, R 1/10, FR 1/10 (sum 1)
    assert dict(calc) == {"no effect": Fraction(3, 5), "target fatigued": Fraction(1, 5),
                          "target retreats": Fraction(1, 10), "target fatigued and retreats": Fraction(1, 10)}
    assert {line.label: line.probability for line in o.outcomes} == dict(calc)
    assert rules.odds(st, a).total == 1 and len(o.outcomes) == 4
    assert all(line.rule == "6.3" for line in o.outcomes)


# ------------------------------------------------------------------------------------------------
# Battle Commander: a bombardment in the game == the combat calculator over the same pile
# ------------------------------------------------------------------------------------------------
def test_bc_bombard_agrees_with_combat_calculator():
    from engine.bc.combat import combat_procedure, neutral_policy
    from engine.bc.game.attacks import attack_setup
    rules, st, legal = reach("bc", 1, lambda r, s, l: any(a.kind == "attack" and a.attack == "bombard" for a in l))
    a = next(a for a in legal if a.kind == "attack" and a.attack == "bombard")
    o = action_odds(rules, st, a, chooser=rules.bots()["greedy"](seed=0))
    setup, _ = attack_setup(st, a)
    calc = distribution(combat_procedure(setup, rules.deck, st.g.pile), policy=neutral_policy)
    d_side = "coalition" if a.side == "french" else "french"
    # the game applies the combat's morale changes (13.0) as they are: the same expectation
    assert o.expect(f"morale.{d_side}") == calc.expect(lambda x: x.defender_morale)
    assert o.expect(f"morale.{a.side}") == calc.expect(lambda x: x.attacker_morale)
    hit = calc.prob(lambda x: x.fate("defender_lead").state != "steady" or x.fate("defender_lead").eliminated)
    assert p_of(o, lambda s: "defender block" in s) == hit
    assert o.prob("no effect") == 1 - hit
    # too many card sequences to work by hand: the proof is two computations agreeing (the calculator over
    # the game's own pile and the whole action's enumeration), on a denominator of 59 x 61 = 3599 pairs
    assert (1 - hit).denominator == 3599
    assert o.total == 1 and o.rule == "23.1" and all(line.rule == "23.0" for line in o.outcomes)


def test_bc_assault_agrees_with_combat_calculator():
    """An assault (23.3) made in the game, with its combat run as a memoised inline sub-procedure, gives
    the same odds as the combat calculator over the same set-up and the game's own tracked pile."""
    from engine.bc.combat import combat_procedure, neutral_policy
    from engine.bc.game.attacks import attack_setup
    rules, st, legal = reach("bc", 1, lambda r, s, l: any(a.kind == "attack" and a.attack == "assault" for a in l))
    a = next(a for a in legal if a.kind == "attack" and a.attack == "assault")
    # a lone Artillery defends: no Cavalry Withdrawal or HQ choice (24.2) comes before the combat
    assert [u.block.kind for u in st.g.in_zone(a.to)] == ["artillery"]
    o = action_odds(rules, st, a, chooser=rules.bots()["greedy"](seed=0), max_outcomes=20_000)
    setup, _ = attack_setup(st, a)
    calc = distribution(combat_procedure(setup, rules.deck, st.g.pile), policy=neutral_policy)
    d_side = "coalition" if a.side == "french" else "french"
    # 13.0: the Morale the combat costs each army is applied as it is, so the expectations are equal
    assert o.expect(f"morale.{d_side}") == calc.expect(lambda x: x.defender_morale)
    assert o.expect(f"morale.{a.side}") == calc.expect(lambda x: x.attacker_morale)
    # 24.1: the defending Lead retreats on the map exactly when the combat says it retreats
    ret = calc.prob(lambda x: x.fate("defender_lead").retreats > 0 and not x.fate("defender_lead").eliminated)
    assert p_of(o, lambda s: "retreats" in s) == ret
    # too many card sequences to work by hand (61 cards, then 61 x 61 = 3721 pairs): the proof is the two
    # computations agreeing; the retreat chance sits on that denominator
    assert ret.denominator == 3721
    assert o.total == 1 and o.rule == "23.1"


# ------------------------------------------------------------------------------------------------
# The function itself
# ------------------------------------------------------------------------------------------------
def test_action_odds_refuses_past_its_bound_and_illegal_actions():
    rules, st, legal = reach("n20", 1, lambda r, s, l: any(a.kind == "resolve" for a in l))
    a = next(a for a in legal if a.kind == "resolve")
    with pytest.raises(LimitError, match="enumeration steps: at most 5"):
        action_odds(rules, st, a, max_steps=5)
    with pytest.raises(LimitError, match="end positions: at most 2"):
        action_odds(rules, st, a, max_outcomes=2)
    before = rules.state_to_json(st)
    with pytest.raises(RuleViolation):
        action_odds(rules, st, "resolve 7")
    assert rules.state_to_json(st) == before


def test_action_odds_json_and_text_notation():
    rules, st, legal = reach("n20", 1, lambda r, s, l: any(a.kind == "resolve" for a in l))
    o = action_odds(rules, st, "resolve 0")
    d = json.loads(json.dumps(o.to_json()))
    assert d["action"] == "resolve 0" and d["total_probability"]["fraction"] == "1/1"
    assert d["expected"]["morale.french"] == {"fraction": "-2/9", "float": -2 / 9}
    assert sum(Fraction(x["probability"]["fraction"]) for x in d["outcomes"]) == 1
    assert "first listed option" in o.note


def test_defaults_of_the_hooks():
    # metrics 10 -> 9 and 0 -> 1: both named with their change, the unchanged one left out
    assert metrics_label({"morale.a": 10, "lost.b": 0, "x.a": 3}, {"morale.a": 9, "lost.b": 1, "x.a": 3}) \
        == "lost.b +1, morale.a -1"
    assert metrics_label({"m.a": 1}, {"m.a": 1}) == "no change"

    class Fake:
        sides = ("a", "b")

        def outcome(self, s):
            return None

        def metrics(self, s):
            return {"morale.a": 5, "morale.b": 3, "units_lost.a": 1, "units_lost.b": 2}
    # (5 - 3) morale, losses count against: -(1 - 2) = +1 -> 3 for a, -3 for b
    assert metrics_value(Fake(), None, "a") == 3.0
    assert metrics_value(Fake(), None, "b") == -3.0


class _Toy:
    """A two-line procedure: whoever ``player`` names picks "safe" (end value 1) or "risky" (a d6: 4-6
    gives 6, 1-3 gives 0)."""
    sides = ("a", "b")

    def __init__(self, player):
        self.player = player

    def to_act(self, state):
        return "a"

    def format_action(self, action):
        return str(action)

    def perform(self, state, action):
        from engine.core.procedure import Choose, Roll
        pick = yield Choose(("safe", "risky"), rule="T1", player=self.player, label="safe or risky")
        if pick == "safe":
            return 1
        roll = yield Roll("d6", rule="T2")
        return 6 if roll >= 4 else 0


def test_solve_makes_each_choice_for_whoever_decides():
    value = lambda s, side: s if side == "a" else -s          # what "a" gains "b" loses
    # a decides: risky is worth 1/2 * 6 + 1/2 * 0 = 3 to a, more than safe's 1
    outs, plan = solve(_Toy("a"), None, "go", value)
    assert dict(outs) == {6: Fraction(1, 2), 0: Fraction(1, 2)}
    assert list(plan.values()) == ["risky"]
    # b decides: risky is worth -3 to b, safe -1: b plays safe
    outs, plan = solve(_Toy("b"), None, "go", value)
    assert dict(outs) == {1: Fraction(1)} and list(plan.values()) == ["safe"]


# ------------------------------------------------------------------------------------------------
# The odds bot on every system
# ------------------------------------------------------------------------------------------------
SYSTEMS = ("n20", "lob", "tbf", "bc")


@pytest.mark.parametrize("system", SYSTEMS)
def test_odds_bot_is_registered_and_is_an_odds_bot(system):
    rules = system_of(system)
    bot = rules.bots()["odds"](seed=3)
    assert isinstance(bot, OddsBot) and bot.name == "odds"


@pytest.mark.parametrize("system,actions", [("n20", 60), ("lob", 20), ("tbf", 60), ("bc", 40)])
def test_odds_bot_plays_a_short_game(system, actions):
    rules = system_of(system)
    st, rec = play_game(rules, ("odds", "greedy"), seed=5, max_actions=actions)
    assert len(rec.events) == actions or rules.outcome(st) is not None
    assert rules.invariants(st) == []


def test_odds_bot_is_deterministic_given_its_seed():
    rules = system_of("tbf")
    a, ra = play_game(rules, ("odds", "odds"), seed=5, max_actions=60)
    b, rb = play_game(rules, ("odds", "odds"), seed=5, max_actions=60)
    assert [e["action"] for e in ra.events] == [e["action"] for e in rb.events]
    assert rules.state_to_json(a) == rules.state_to_json(b)


def test_odds_bot_cache_is_bounded():
    rules, st, legal = reach("n20", 1, lambda r, s, l: any(a.kind == "resolve" for a in l))
    bot = OddsBot(seed=1, cache_size=1)
    a = next(a for a in legal if a.kind == "resolve")
    v1 = bot.attack_value(rules, st, a)
    assert bot.attack_value(rules, st, a) == v1 and bot.weighed == 1       # found in the cache
    assert len(bot._cache) == 1


@pytest.mark.slow
@pytest.mark.parametrize("system", SYSTEMS)
def test_odds_bot_plays_a_whole_game_to_an_outcome(system):
    rules = system_of(system)
    st, _ = play_game(rules, ("odds", "greedy"), seed=2, record=False)
    assert rules.outcome(st) is not None


@pytest.mark.slow
def test_lob_simulate_with_odds_bots(tmp_path):
    import subprocess
    import sys
    out = tmp_path / "lob.parquet"
    r = subprocess.run([sys.executable, "-m", "engine.cli", "lob", "simulate", "--bots", "odds,odds", "--games", "4",
                        "--workers", "0", "--seed", "1", "--out", str(out), "--no-progress"],
                       capture_output=True, text=True, timeout=3000)
    assert r.returncode == 0, r.stderr[-500:]
    assert out.exists()
