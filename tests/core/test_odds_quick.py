"""The play page's quick odds (engine/core/quick_odds.py, issue 26 point 3): an action's exact odds as small
plain data, cached by position and action (by value), the tree only on a second call, held positions
addressed by key, every input bounded, and the bound's error naming the bound and how far it got.

The hand-worked cases use a toy two-volley action over the core race game (tests/core/race_game.py): two
d6 in a row, each a hit on 5-6; the real systems are checked against action_odds, the calculators' path."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from functools import partial
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as hst

from engine.core.errors import LimitError, RuleViolation, VedetteError
from engine.core.game import play_game, system_of
from engine.core.odds import OddsCache, OddsCancelled, action_odds, _Budget, _counted
from engine.core.procedure import Roll, Sub, enumerate_tree, first_option
from engine.core.quick_odds import (MAX_ACTION_CHARS, OddsDesk, OddsHidden, PositionNotHeld, action_tree,
                                    odds_position, position_key, quick_odds, tree_data)

sys.path.insert(0, str(Path(__file__).parent))
from race_game import RaceAction, RaceRules, RaceState  # noqa: E402


class Volleys(RaceRules):
    """The race, except that a roll is two volleys (toy rules "T1", "T2"): each d6 hits on 5-6, and the
    roller's marker moves one space per hit."""

    def __init__(self):
        self._performed = 0         # how many times an action's procedure was started (cache hits start none)

    def perform(self, s, a):
        self._performed += 1
        hits = 0
        if a.kind == "roll":
            hits += (yield Roll("d6", rule="T1", label="first volley")) >= 5
            hits += (yield Roll("d6", rule="T2", label="second volley")) >= 5
        s = replace(s, **{a.side: getattr(s, a.side) + hits})
        return replace(s, player="blue" if a.side == "red" else "red")


RED_ROLLS = RaceAction("roll", "red")


def start() -> RaceState:
    return RaceState(goal=10)


# ------------------------------------------------------------------------------------------------
# Small data, worked by hand
# ------------------------------------------------------------------------------------------------
def test_quick_odds_of_two_volleys_worked_by_hand():
    rules = Volleys()
    data = quick_odds(rules, start(), RED_ROLLS, cache=OddsCache(8))
    # each volley hits on 2 faces of 6 (1/3): no hit (2/3)^2 = 4/9, one hit 2 * 1/3 * 2/3 = 4/9,
    # two hits (1/3)^2 = 1/9; the default label names the metric that changed
    assert [(x["label"], x["fraction"]) for x in data["lines"]] == [
        ("no change", "4/9"), ("red +1", "4/9"), ("red +2", "1/9")]
    assert all(x["float"] == float(Fraction(x["fraction"])) for x in data["lines"])
    # expected hits: 4/9 * 1 + 1/9 * 2 = 2/3
    assert {x["metric"]: x["fraction"] for x in data["expected"]} == {"red": "2/3", "blue": "0/1"}
    assert data["side"] == "red" and data["end_positions"] == 3
    # 36 branches to the end, each asking both dice once: 72 requests
    assert data["steps"] == 72
    assert json.loads(json.dumps(data)) == data                    # plain data: no state, no tree
    assert not {"tree", "state", "outcomes"} & set(data)


@pytest.mark.parametrize("system", ["n20", "lob", "tbf", "bc"])
def test_quick_odds_agree_with_action_odds_on_every_system(system):
    """On a real attack of each system (the first of greedy play from seed 1 whose odds take at most 35,000
    steps): the same lines and expectations as core's action_odds from the same position (the system's
    compact one where it has one: Battle Commander's, checked against the cards themselves below)."""
    rules = system_of(system)
    seen = []
    play_game(rules, ("greedy", "greedy"), seed=1, max_actions=300, record=False,
              on_action=lambda s, n: seen.append(s) if not seen and rules.attack_candidates(s) else None)
    st = seen[0]
    for a in rules.attack_candidates(st):
        try:
            got = quick_odds(rules, st, rules.action_to_json(a), max_steps=35_000, max_outcomes=20_000, cache=None)
            break
        except LimitError:
            continue
    else:
        raise AssertionError("no attack small enough")
    want = action_odds(rules, odds_position(rules, st, a), a, max_outcomes=20_000)
    assert [(x["label"], x["rule"], Fraction(x["fraction"])) for x in got["lines"]] == \
        [(o.label, o.rule, o.probability) for o in want.outcomes]
    assert [(x["metric"], Fraction(x["fraction"])) for x in got["expected"]] == list(want.expected)
    assert sum(Fraction(x["fraction"]) for x in got["lines"]) == 1
    assert got["said"] == rules.describe_action(a) and got["rule"] == want.rule


# ------------------------------------------------------------------------------------------------
# The cache: by value, bounded; errors kept, nothing kept for refusals or cancellations
# ------------------------------------------------------------------------------------------------
def test_second_pick_of_an_equal_position_comes_from_the_cache():
    rules, cache = Volleys(), OddsCache(8)
    first = quick_odds(rules, start(), RED_ROLLS, cache=cache)
    # the first way, then a replay from the start for each of the 35 others (the driver cannot copy a
    # procedure half-way)
    assert rules._performed == 36
    # an equal position made anew (another object) and the action as JSON: found by value
    again = quick_odds(rules, RaceState(goal=10), {"kind": "roll", "side": "red"}, cache=cache)
    assert again == first and rules._performed == 36 and cache.hits == 1
    again["lines"].clear()                               # the caller's copy: the cache keeps its own
    assert quick_odds(rules, start(), RED_ROLLS, cache=cache) == first
    # another position is another entry
    quick_odds(rules, RaceState(goal=10, red=3), RED_ROLLS, cache=cache)
    assert rules._performed == 72 and len(cache) == 2


def test_rules_made_with_other_settings_do_not_share_answers():
    a, b = Volleys(), Volleys()
    b.tables = "my_tables.yaml"                          # a plain setting, as Napoleonic 20's --tables
    cache = OddsCache(8)
    quick_odds(a, start(), RED_ROLLS, cache=cache)
    quick_odds(b, start(), RED_ROLLS, cache=cache)
    assert b._performed > 0 and len(cache) == 2


def test_the_cache_keeps_at_most_its_size_least_recently_used_dropped():
    cache = OddsCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1                           # a is now the most recently used
    cache.put("c", 3)
    assert "b" not in cache and "a" in cache and "c" in cache and len(cache) == 2
    cache.put(["a list"], 4)                             # unhashable: neither kept nor looked up
    assert len(cache) == 2 and cache.get(["a list"]) is None


def test_illegal_action_is_refused_naming_the_rule_and_nothing_is_kept():
    rules, cache = Volleys(), OddsCache(8)
    with pytest.raises(RuleViolation, match=r"\[rule R1\]"):
        quick_odds(rules, start(), RaceAction("roll", "blue"), cache=cache)
    assert len(cache) == 0 and rules._performed == 0


# ------------------------------------------------------------------------------------------------
# Bounds: the bound named, and how far it got
# ------------------------------------------------------------------------------------------------
def test_bound_error_says_how_far_it_got_worked_by_hand():
    """Each branch to the end asks both dice (2 steps, a replay included), so 20 steps finish 10 branches and the
    21st step, the first die of the 11th way, is past the bound. The driver goes through the first die's
    faces in order: first die 1 with second die 1..6 (6 branches), then first die 2 with 1..4 (4): 10
    branches of 1/36 each, 10/36 = 27.8% of the chances."""
    rules, cache = Volleys(), OddsCache(8)
    with pytest.raises(LimitError) as err:
        quick_odds(rules, start(), RED_ROLLS, max_steps=20, cache=cache)
    assert str(err.value) == ("odds of red:roll: enumeration steps: at most 20: this action has too many dice "
                              "outcomes to enumerate exactly; it had run 10 branches to the end, "
                              "27.8% of the chances, when it stopped")
    assert (err.value.steps, err.value.ends) == (21, 10) and err.value.mass == pytest.approx(10 / 36)
    # asked again: the same error at once, from the cache (no procedure started)
    n = rules._performed
    with pytest.raises(LimitError) as again:
        quick_odds(rules, start(), RED_ROLLS, max_steps=20, cache=cache)
    assert str(again.value) == str(err.value) and rules._performed == n
    # the end-position bound, given up as soon as it is passed: the ways come in the dice's order, the first die
    # 1-4 with any second die give 0 or 1 hit (2 end positions), the first die 5 with the second 5 the third (2
    # hits); the enumeration stops there, its steps counted
    with pytest.raises(LimitError, match=r"end positions: at most 2: more than 2 found, worked out no further$") as e:
        quick_odds(rules, start(), RED_ROLLS, max_outcomes=2, cache=cache)
    assert e.value.steps > 0


class _InOneStep(Volleys):
    """The two volleys as one sub-procedure of the action (rule "T0"), as a Battle Commander attack draws
    its cards inside one."""

    def perform(self, s, a):
        hits = yield Sub(("volleys", a.side), partial(_two_volleys), rule="T0", label="two volleys")
        return replace(s, red=s.red + hits, player="blue")


def _two_volleys():
    hits = (yield Roll("d6", rule="T1", label="first volley")) >= 5
    return hits + ((yield Roll("d6", rule="T2", label="second volley")) >= 5)


def test_bound_error_inside_a_sub_procedure_worked_by_hand():
    """Step 1 is the action's own request for the sub-procedure; then each of its branches takes 2 steps, so
    21 steps finish 10 of its 36 branches (as above: 10/36 = 27.8% of its chances), and the action itself
    has finished none."""
    with pytest.raises(LimitError) as err:
        quick_odds(_InOneStep(), start(), RED_ROLLS, max_steps=21, cache=None)
    assert str(err.value).endswith("it had run 0 branches to the end; inside two volleys (rule T0) "
                                   "it had run 10 branches to its end, 27.8% of its chances, when it stopped")
    assert quick_odds(_InOneStep(), start(), RED_ROLLS, cache=None)["lines"][0]["fraction"] == "4/9"


def test_bound_error_before_any_way_ends():
    with pytest.raises(LimitError, match="it had run 0 branches to the end$"):
        quick_odds(Volleys(), start(), RED_ROLLS, max_steps=1, cache=None)


def test_inputs_are_bounded():
    rules = Volleys()
    with pytest.raises(LimitError, match=f"action: characters: at most {MAX_ACTION_CHARS}"):
        quick_odds(rules, start(), "red:" + "r" * MAX_ACTION_CHARS, cache=None)
    with pytest.raises(LimitError, match=f"action: characters: at most {MAX_ACTION_CHARS}"):
        quick_odds(rules, start(), {"kind": "roll", "side": "red", "pad": "x" * MAX_ACTION_CHARS}, cache=None)
    desk = OddsDesk(cache=None)
    with pytest.raises(LimitError, match="position key: characters"):
        desk.hold(rules, start(), key="k" * 1000)
    with pytest.raises(LimitError, match="tree of red:roll: nodes: at most 10: .* \\(got 43\\)"):
        # 1 + 6 first-die nodes, each with 6 second-die children: 1 + 6 + 36 = 43 nodes
        action_tree(rules, start(), RED_ROLLS, max_nodes=10)
    assert rules._performed == 36                         # only the tree's enumeration ran


class _Deep(Volleys):
    """Four volleys: 6^4 = 1,296 ways, 4 steps each, well past the 256 steps between two questions."""

    def perform(self, s, a):
        hits = 0
        for i in range(4):
            hits += (yield Roll("d6", rule="T1", label=f"volley {i + 1}")) >= 5
        return replace(s, red=s.red + hits, player="blue")


def test_cancelled_question_stops_and_keeps_nothing():
    cache = OddsCache(8)
    asked = []

    def stop():
        asked.append(1)
        return True
    with pytest.raises(OddsCancelled, match="odds of red:roll: cancelled"):
        quick_odds(_Deep(), start(), RED_ROLLS, cache=cache, stop=stop)
    assert asked == [1] and len(cache) == 0             # asked once, at step 256; nothing kept
    assert quick_odds(_Deep(), start(), RED_ROLLS, cache=cache)["steps"] == 4 * 6 ** 4


# ------------------------------------------------------------------------------------------------
# The tree, on a second call
# ------------------------------------------------------------------------------------------------
def test_tree_is_built_only_when_asked_and_names_ends_in_words():
    rules = Volleys()
    desk = OddsDesk(cache=OddsCache(8))
    key = desk.hold(rules, start())
    data = desk.odds(key, {"kind": "roll", "side": "red"})
    assert "tree" not in data
    t = desk.tree(key, {"kind": "roll", "side": "red"})
    assert t["nodes"] == 43 and t["said"] == rules.describe_action(RED_ROLLS)
    leaves = []

    def walk(n):
        if n.get("children"):
            for c in n["children"]:
                walk(c)
        else:
            leaves.append(n)
    walk(t["tree"])
    assert len(leaves) == 36
    by_label = {}
    for n in leaves:
        assert n["result"] == n["text"]                # the end position's words, not the state
        by_label[n["result"]] = by_label.get(n["result"], 0) + Fraction(n["path_probability"]["fraction"])
    assert by_label == {x["label"]: Fraction(x["fraction"]) for x in data["lines"]}


def test_tree_of_a_real_battle_shows_no_state():
    rules = system_of("n20")
    st, _ = play_game(rules, ("greedy", "greedy"), seed=1, max_actions=11, record=False)
    (a,) = rules.attack_candidates(st)
    t = tree_data(rules, st, rules.action_to_json(a))
    text = json.dumps(t)
    assert "GameState" not in text and "{'" not in text

    def values(n):
        yield n.get("outcome")
        yield n.get("result")
        for c in n.get("children", []):
            yield from values(c)
    for v in [*values(t["tree"]), *(x for s in t["subtrees"] for x in values(s["tree"]))]:
        assert v is None or isinstance(v, (str, int, float, bool)), v


class _FogNoWord(Volleys):
    """Red does not see how far blue is (a toy of n20 16.1). Blue's pickets, once blue is 5 spaces on,
    spoil red's first volley (a hit on a 6 only). This system does not say what a side may be shown."""

    def hides(self, s):
        return True

    def view(self, s, side):
        return s if side == "blue" else replace(s, blue=0)

    def perform(self, s, a):
        self._performed += 1
        first = yield Roll("d6", rule="T1", label="first volley")
        second = yield Roll("d6", rule="T2", label="second volley")
        hits = (first >= (6 if s.blue >= 5 else 5)) + (second >= 5)
        return replace(s, red=s.red + hits, player="blue")


class _Fog(_FogNoWord):
    """As above, and red's odds are worked out as red knows the position: blue at the start."""

    def odds_position(self, s, a, side):
        return self.view(s, side)


def test_odds_seen_by_a_side_are_worked_out_in_what_it_may_see():
    rules, cache = _Fog(), OddsCache(8)
    truth = RaceState(goal=10, blue=6)
    desk = OddsDesk(cache=cache)
    key = desk.hold(rules, truth)
    # the whole position: first volley 1/6, second 1/3; two hits 1/18, none 5/6 * 2/3 = 10/18,
    # one 1 - 1/18 - 10/18 = 7/18
    whole = desk.odds(key, RED_ROLLS)
    assert [(x["label"], x["fraction"]) for x in whole["lines"]] == [
        ("no change", "5/9"), ("red +1", "7/18"), ("red +2", "1/18")]
    # red may not see blue's pickets: its odds are those of the position it sees (4/9, 4/9, 1/9), and
    # the cached answer of the whole position is not given to it
    red = desk.odds(key, RED_ROLLS, seen_by="red")
    assert red == quick_odds(rules, RaceState(goal=10), RED_ROLLS, cache=None)
    assert [x["fraction"] for x in red["lines"]] == ["4/9", "4/9", "1/9"]
    assert desk.odds(key, RED_ROLLS, seen_by="blue") == whole           # blue sees it all
    # first die 5, second 5 or 6: two hits where red sees no pickets, one in the whole position
    def after_five(tree):
        return [c["result"] for c in tree["tree"]["children"][4]["children"]][4:]
    assert after_five(desk.tree(key, RED_ROLLS, seen_by="red")) == ["red +2", "red +2"]
    assert after_five(desk.tree(key, RED_ROLLS)) == ["red +1", "red +1"]


def test_a_side_gets_no_odds_where_the_system_does_not_say_what_it_may_see():
    rules = _FogNoWord()
    truth = RaceState(goal=10, blue=6)
    with pytest.raises(OddsHidden, match="odds of red:roll: .* hides part of this position from red"):
        quick_odds(rules, truth, RED_ROLLS, seen_by="red", cache=None)
    with pytest.raises(OddsHidden, match="from a spectator"):
        tree_data(rules, truth, RED_ROLLS, seen_by=None)
    assert rules._performed == 0
    assert quick_odds(rules, truth, RED_ROLLS, cache=None)["lines"][0]["fraction"] == "5/9"   # the server


def test_whole_position_odds_come_from_the_systems_compact_position():
    """Battle Commander's odds_state (the piles as card summaries): the same fractions as its own exact
    odds with every card known (tests/bc/test_bc_exact_odds.py checks those against the cards themselves),
    in far fewer steps than over the cards themselves."""
    from engine.bc.game.odds import exact_odds
    rules = system_of("bc")
    seen = []
    play_game(rules, ("greedy", "greedy"), seed=1, max_actions=300, record=False,
              on_action=lambda s, n: seen.append(s) if not seen and rules.attack_candidates(s) else None)
    st = seen[0]
    a = rules.attack_candidates(st)[0]
    got = quick_odds(rules, st, a, cache=None)
    want = exact_odds(rules, st, a)
    assert [(x["label"], Fraction(x["fraction"])) for x in got["lines"]] == \
        [(o.label, o.probability) for o in want.outcomes]
    with pytest.raises(LimitError):                      # over the cards themselves it takes far longer
        action_odds(rules, st, a, max_steps=got["steps"] * 4)


# ------------------------------------------------------------------------------------------------
# The desk: positions held by key
# ------------------------------------------------------------------------------------------------
def test_desk_answers_by_key_and_asks_again_for_a_dropped_position():
    rules = Volleys()
    desk = OddsDesk(positions=2, cache=OddsCache(8))
    k1 = desk.hold(rules, start())
    assert k1 == position_key(rules, start()) and k1.startswith("race:")
    assert desk.odds(k1, "red:roll")["lines"][0]["fraction"] == "4/9"
    k2 = desk.hold(rules, RaceState(goal=10, red=1), key="game 7 @ 1")
    desk.hold(rules, RaceState(goal=10, red=2), key="game 7 @ 2")         # k1 is dropped (2 held)
    assert desk.holds(k2) and not desk.holds(k1)
    with pytest.raises(PositionNotHeld, match="send the position again"):
        desk.odds(k1, "red:roll")
    with pytest.raises(VedetteError, match="position key"):
        desk.odds("", "red:roll")


def test_position_key_is_the_same_in_another_process():
    rules = system_of("tbf")
    st, _ = play_game(rules, ("greedy", "greedy"), seed=2, max_actions=30, record=False)
    here = position_key(rules, st)
    code = ("import engine.systems; from engine.core.game import play_game, system_of; "
            "from engine.core.quick_odds import position_key; r = system_of('tbf'); "
            "s, _ = play_game(r, ('greedy', 'greedy'), seed=2, max_actions=30, record=False); "
            "print(position_key(r, s))")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    there = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert there.stdout.strip() == here
    st2, _ = play_game(rules, ("greedy", "greedy"), seed=2, max_actions=31, record=False)
    assert position_key(rules, st2) != here


# ------------------------------------------------------------------------------------------------
# How far it got is the chance of the branches run to the end (hypothesis)
# ------------------------------------------------------------------------------------------------
_STEPS = hst.lists(hst.sampled_from(["d6", "d3", "2d6", "band", "sub"]), min_size=1, max_size=3)


def _procedure(steps):
    def sub():
        return (yield Roll("d3", rule="S", label="inner"))

    def proc():
        total = 0
        for i, kind in enumerate(steps):
            if kind == "band":
                total += (yield Roll("d6", rule="B", label="banded", bands=((1, 2), (3, 4, 5, 6))))
            elif kind == "sub":
                total += (yield Sub(("inner", i), sub, rule="S"))
            else:
                total += (yield Roll(kind, rule="R", label=kind))
        return total
    return proc


@settings(max_examples=60)
@given(_STEPS, hst.integers(min_value=1, max_value=400))
def test_how_far_it_got_adds_up_the_branches_run_to_the_end(steps, limit):
    """Run to the end, the tracked chance is 1 and the ways are the tree's leaves; stopped at any bound,
    it is the chance of exactly the ways finished, each counted once."""
    full = _Budget(10 ** 6, "x", track=True)
    full.memo = memo = {}
    tree = enumerate_tree(_counted(_procedure(steps), full, top=True), policy=first_option, memo=memo)
    ways = [n for n in tree.nodes() if not n.children]
    assert full.ends == len(ways) and full.mass == pytest.approx(1.0)
    # the first `ends` leaves in the driver's order are the ways a stopped run had finished
    cut = _Budget(limit, "x", track=True)
    cut.memo = {}
    try:
        enumerate_tree(_counted(_procedure(steps), cut, top=True), policy=first_option, memo=cut.memo,
                       build=False)
    except LimitError:
        assert cut.ends < len(ways)
    assert cut.mass == pytest.approx(float(sum(n.path_probability for n in ways[:cut.ends])))
