"""The shortcuts of the perform side of Napoleonic 20 actions give what the long way gives (issues 10 and 16):

- a game unit's battle view is made from its counter's template plus its place and markers, and is the
  very value the Unit constructor makes (fields, hash, repr, pickling);
- the cached-hash values (units, retreat results, fates) and the battle value keep the dataclass's
  equality although they compare their hashes first;
- the reaction phase (8.0) is skipped exactly when the list of reactions is empty;
- a draw (5.0 event deck) offers each card with its share of the pile and takes back only its cards;
- a choice answered in JSON form (a replayed record) finds its option.
"""
import pickle
from dataclasses import dataclass, replace
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from engine.core.errors import RuleViolation
from engine.core.game import play_game
from engine.core.procedure import Choose, Draw
from engine.core.values import cached_hash_repr, from_fields
from engine.n20.game import combat as C, reaction as RE
from engine.n20.game.protocol import RULES
from engine.n20.retreat import RetreatOption
from engine.n20.units import Unit



def _states(options=(), seed=3, n=300):
    out = []
    play_game(RULES, ("greedy", "greedy"), "fuentes", options, seed, max_actions=n, record=False,
              on_action=lambda s, k: out.append(s))
    return out


@pytest.mark.parametrize("options", [(), ("special_units", "fatigue", "squares")])
def test_battle_view_of_a_game_unit_is_the_constructors_value(options):
    states = _states(options, n=120)
    seen = 0
    for state in states[::10]:
        for u in state.units:
            if u.status != "map":
                continue
            bu = C.battle_unit(state, u.id)
            made = Unit(**{f: getattr(bu, f) for f in Unit.__dataclass_fields__})
            assert bu == made and hash(bu) == hash(made) and repr(bu) == repr(made)
            assert list(bu.__dict__) == list(made.__dict__)          # the same fields, in field order
            back = pickle.loads(pickle.dumps(bu))
            assert back == bu and hash(back) == hash(bu)
            # its place and markers are the game unit's (7.0 ZOC reads them: 9.6.3, 17.1)
            assert bu.hex == u.hex and bu.square == u.square and bu.id == u.id
            seen += 1
    assert seen > 50


def test_battle_view_reads_the_counter():
    # the Fuentes counters as the scenario lists them: a leader's strength is its command span (16.9)
    state = _states(n=1)[0]
    sc = state.scenario
    for u in state.units:
        if u.status != "map":
            continue
        d = sc.units[u.id]
        bu = C.battle_unit(state, u.id)
        assert bu.side == d.side and bu.movement == d.movement and bu.name == d.name
        assert bu.strength == (d.command_span if d.type == "leader" else d.strength)


@cached_hash_repr
@dataclass(frozen=True)
class _Pair:
    a: int
    b: str = ""


@given(st.integers(-3, 3), st.sampled_from(["", "x", "y"]), st.integers(-3, 3), st.sampled_from(["", "x", "y"]))
def test_cached_hash_values_keep_the_dataclass_equality(a1, b1, a2, b2):
    p, q = _Pair(a1, b1), _Pair(a2, b2)
    assert (p == q) == ((a1, b1) == (a2, b2))
    assert (p != q) == ((a1, b1) != (a2, b2))
    assert p == p and p != (a1, b1)                    # another type is never equal (NotImplemented)
    f = from_fields(_Pair, {"a": a1, "b": b1})
    assert f == p and hash(f) == hash(p) and repr(f) == repr(p)


def test_retreat_options_and_battles_compare_by_value():
    o = RetreatOption(("0101",), ((),), "ok", (0, 0, False, 0))
    assert o == RetreatOption(("0101",), ((),), "ok", (0, 0, False, 0))
    assert o != replace(o, end="blocked") and o != o.to_json()
    state = next(s for s in _states(n=200) if s.declared and len(s.done_battles) < len(s.declared))
    b = state.declared[len(state.done_battles)]
    one = C.engine_battle(state, b, state.player, (False, False), False)
    two = C.engine_battle(state, b, state.player, (False, False), False)
    assert one is not two and one == two and hash(one) == hash(two)
    assert one != replace(one, reserves_attacker=True) and one != replace(one, name="other")


def test_the_reaction_phase_is_skipped_exactly_when_no_reaction_is_open():
    # asked of every state of two games (the reacting side is the non-phasing one): both answers occur
    seen = set()
    for seed in (1, 2):
        for state in _states(seed=seed, n=250):
            has = RE.any_reaction(state)
            assert has == bool(RE.reaction_actions(state, None))
            seen.add(has)
    assert seen == {True, False}


def test_a_draw_offers_each_card_with_its_share_and_takes_back_its_cards():
    # a pile of 4 cards, "b" twice: a 1/4, b 2/4 = 1/2, c 1/4 (5.0)
    d = Draw(("a", "b", "b", "c"), rule="5.0")
    assert d.outcomes() == (("a", Fraction(1, 4)), ("b", Fraction(1, 2)), ("c", Fraction(1, 4)))
    assert d.check("b") == "b"
    with pytest.raises(RuleViolation) as e:
        d.check("z")
    assert e.value.rule == "5.0"
    # a pile of 1s is not a pile of Trues (equal tuples, other cards)
    assert type(Draw((1, 1), rule="6.10").outcomes()[0][0]) is int
    assert type(Draw((True, True), rule="6.10").outcomes()[0][0]) is bool


def test_a_choice_answered_in_json_form_finds_its_option():
    o1 = RetreatOption(("0101",), ((),), "ok", (0, 0, False, 0))
    o2 = RetreatOption(("0102",), (("9.8.3",),), "ok", (0, 1, False, 0))
    c = Choose((o1, o2), rule="9.8.2")
    assert c.check(o2) is o2
    assert c.check(o2.to_json()) is o2                 # a recorded answer is JSON
    with pytest.raises(RuleViolation):
        c.check({"hexes": ["0909"]})


def test_retreat_paths_with_the_bystanders_part_worked_out_once_are_the_same():
    # 9.8-9.8.6: the paths offered to each unit of a battle, its bystanders' hexes read once per battle or
    # read again at every ask
    from engine.n20.resolution import bystanders_of, unit_positions
    from engine.n20.retreat import MapRetreat
    checked = 0
    for state in _states(n=200):
        if not state.declared or len(state.done_battles) >= len(state.declared):
            continue
        b = C._effective(state, state.declared[len(state.done_battles)])
        if not b.attackers or not b.defenders:
            continue
        eb = C.engine_battle(state, b, state.player, (False, False), False)
        env = MapRetreat(eb.board, eb.rules.loc_breaks_retreat)
        positions = unit_positions(eb, {})
        for u in eb.attackers + eb.defenders:
            if u.type == "garrison":
                continue
            for distance in (1, 3):
                assert env.options(u, u.hex, distance, positions, bystanders_of(eb)) == \
                    env.options(u, u.hex, distance, positions)
                checked += 1
    assert checked > 10
