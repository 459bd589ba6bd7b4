"""The fixed cost every action pays in the game loop (issues 10, 13, 16), made smaller without changing a
die or a record: dice seeded at their first request, the stepper's own check of each answer, Pendings made
field by field, and the heap put out of the collector's sight before each game."""
from __future__ import annotations

import gc
import random
import weakref
from functools import partial

from hypothesis import given, settings, strategies as st

from engine.core.game import EventDice, Pending, action_seed, play_game, steady_heap
from engine.core.procedure import Chance, Draw, RandomDice, Roll, Stepper

from race_game import RaceAction, RaceRules

R = RaceRules()
_REQUESTS = (Roll("d6", rule="T1"), Roll("2d6", rule="T2"), Draw(("a", "b", "b", "c"), rule="T3"),
             Chance((("x", "1/3"), ("y", "2/3")), rule="T4"), Roll("d10", rule="T5"))


def _eager(seed):
    """The dice as they were made before the lazy seeding: the generator seeded when the dice are made."""
    d = RandomDice.__new__(RandomDice)
    d._seed = None
    d._rng = random.Random(seed)
    return d


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 40), st.integers(-3, 5000), st.lists(st.integers(0, len(_REQUESTS) - 1), max_size=12))
def test_event_dice_roll_as_the_seeded_dice_did(seed, index, picks):
    # the one seeding rule: event ``index`` of game ``seed`` rolls RandomDice(action_seed(seed, index)); the lazy
    # forms (seed worked out and generator made at the first request) give the same answers in the same order
    lazy, event, eager = RandomDice(action_seed(seed, index)), EventDice(seed, index), _eager(action_seed(seed, index))
    for k in picks:
        req = _REQUESTS[k]
        want = eager(req)
        assert lazy(req) == want and event(req) == want


def test_dice_that_are_never_asked_make_no_generator():
    d = EventDice(7, 3)
    assert d._rng is None                       # nothing seeded for an action without a die
    assert isinstance(d.rng, random.Random)     # asked for, it is the seeded generator
    assert d.rng.random() == random.Random(action_seed(7, 3)).random()


def test_stepper_answer_gives_back_the_checked_value():
    def proc():
        a = yield Roll("d6", rule="T1")
        return a * 10
    step = Stepper(proc)
    # a face typed as text is taken as the number the request checks it to: 4 -> result 4 * 10 = 40
    assert step.answer("4") == 4
    assert step.done and step.result == 40 and step.events[0].value == 4


def test_pending_made_field_by_field_equals_the_dataclass_value():
    s = R.new_game("short")
    a = RaceAction("roll", "red")
    p = R.begin(s, a)
    q = Pending(rules=R, before=s, action=a, answers=(), events=p.events, request=p.request, state=None,
                done=False, _stepper=None)
    assert p == q and hash(p) == hash(q) and repr(p) == repr(q)
    done = p.answer(5)
    assert done.done and done.answers == (5,) and done.state is not None


def test_play_game_is_the_same_game_with_or_without_the_steady_heap():
    # steady_heap changes where the collector looks, never what a game does: the records are equal
    _, with_heap = play_game(R, ("random", "random"), "short", seed=11)
    gc.disable()
    try:
        _, without = play_game(R, ("random", "random"), "short", seed=11)   # gc off: play_game skips it
    finally:
        gc.enable()
    assert with_heap.to_json() == without.to_json()


class _Thing:
    pass


def test_steady_heap_objects_are_still_freed_when_dropped():
    x = _Thing()
    ref = weakref.ref(x)
    steady_heap()
    assert gc.get_freeze_count() > 0
    del x                                       # no cycle: freed at once, frozen or not
    assert ref() is None


def test_a_page_server_leaves_the_heap_alone():
    # the dashboards' background module is loaded by every process that serves pages: there the open
    # sessions' objects must stay collectable, so play_game no longer freezes the heap
    import engine.core.game_loop as G           # the module play_game reads the switch from
    import dashboards.server.background  # noqa: F401
    assert G.STEADY_HEAP is False
    before = gc.get_freeze_count()
    play_game(R, ("random", "random"), "short", seed=3)
    # nothing more is frozen (a freeze would add every live object); objects frozen by earlier tests may
    # die meanwhile (a cache emptied), which only lowers the count
    assert gc.get_freeze_count() <= before


def test_play_game_reads_the_heap_switch_where_the_server_sets_it(monkeypatch):
    # engine.core.game_loop.STEADY_HEAP (the switch dashboards.server.background turns off) is the one
    # play_game reads: on, one steady_heap call per game; off, none
    import engine.core.game_loop as G
    calls = []
    monkeypatch.setattr(G, "steady_heap", lambda: calls.append(1))
    monkeypatch.setattr(G, "STEADY_HEAP", True)
    play_game(R, ("random", "random"), "short", seed=3)
    assert calls == [1]
    monkeypatch.setattr(G, "STEADY_HEAP", False)
    play_game(R, ("random", "random"), "short", seed=3)
    assert calls == [1]
