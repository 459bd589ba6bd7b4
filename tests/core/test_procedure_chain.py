"""core.procedure.chain: steps run one after another, whose exact odds go step by step over the values
reached (equal values met by different ways carried on once, with the chances of all of them).

Differential, on random procedures (hypothesis): each step throws a die or asks a question and moves a small
value by a random table, so many ways meet at equal values. The chain and the same steps written one after
another in the caller (``for step in steps: value = yield from step(value)``, :func:`inline_in_place.in_place`)
give the same exact distribution, the same tree where it is built or decisions are kept (every die and
question of the steps is the caller's own), the same record in play with the same dice, and a
record one replays into the other. And the comparison does catch a wrong merge: a key that does not name what
the steps do gives other fractions."""
from __future__ import annotations

from collections.abc import Generator
from fractions import Fraction
from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from inline_in_place import in_place
from sizes import examples

from engine.core.procedure import (Chain, Choose, Log, RandomDice, Roll, Stepper, Sub, chain, distribution,
                                   enumerate_tree, first_option, replay)

VALUES = 4           # a step's value: 0..3, so that ways meet

#: one step: (die or "choose", table: (value, face or option) -> next value, with a memoised sub-step or not)
StepSpec = tuple[str, tuple[tuple[int, ...], ...], bool]


def _sub_step(value: int) -> Generator[Any, Any, int]:
    """A memoised sub-procedure inside a step: a d3 added to the value, mod VALUES."""
    r = yield Roll("d3", rule="T9", label="inner d3")
    return (value + r) % VALUES


def _step(spec: StepSpec, value: int) -> Generator[Any, Any, int]:
    kind, table, inner = spec
    yield Log("T1", f"step from {value}")
    if kind == "choose":
        pick = yield Choose(tuple(range(len(table[value]))), rule="T2", player="a", label="which way?")
        out = table[value][pick]
    else:
        face = yield Roll(kind, rule="T3", label="step die")
        out = table[value][(face - 1) % len(table[value])]
    if inner:
        out = yield Sub(("inner", out), partial(_sub_step, out), rule="T9", label="inner")
    return out


def _chained(specs: tuple[StepSpec, ...], start: int, key: Any = None) -> Generator[Any, Any, Any]:
    """A roll before, the chain, a roll after (the chain is one step of a longer procedure)."""
    head = yield Roll("d2", rule="T0", label="before")
    value = yield chain(("toy", specs) if key is None else key, (start + head) % VALUES,
                        [partial(_step, s) for s in specs], rule="T4", label="the steps")
    tail = yield Roll("d2", rule="T5", label="after")
    return (value, tail)


def _written_out(specs: tuple[StepSpec, ...], start: int) -> Generator[Any, Any, Any]:
    return in_place(_chained(specs, start))


def _spec(die_or_choose: str, draw: Any) -> StepSpec:
    faces = {"d2": 2, "d3": 3, "d6": 6, "choose": 2}[die_or_choose]
    table = tuple(tuple(draw(st.integers(0, VALUES - 1)) for _ in range(faces)) for _ in range(VALUES))
    return (die_or_choose, table, draw(st.booleans()))


@st.composite
def procedures(draw: Any) -> tuple[tuple[StepSpec, ...], int]:
    kinds = draw(st.lists(st.sampled_from(["d2", "d3", "d6", "choose"]), min_size=1, max_size=4))
    return tuple(_spec(k, draw) for k in kinds), draw(st.integers(0, VALUES - 1))


def _shape(node: Any) -> Any:
    """A tree node as plain values (what it asks, its children with their chances, its notes and result)."""
    return (node.kind, node.rule, node.label, node.result, tuple(node.notes),
            tuple((c.outcome, c.probability, _shape(c)) for c in node.children))


def _last(policy_pick: int):
    def policy(req: Choose) -> Any:
        return req.options[policy_pick % len(req.options)]
    return policy


@settings(max_examples=examples(25), deadline=None)
@given(procedures(), st.integers(0, 1))
def test_a_chain_has_the_odds_of_its_steps_written_out(proc, pick):
    specs, start = proc
    policy = _last(pick)
    merged = distribution(partial(_chained, specs, start), policy=policy)
    reference = distribution(partial(_written_out, specs, start), policy=policy)
    assert merged == reference and merged.total == 1
    # the tree built (for a reader): the steps drawn where they are, the tree of the steps written out
    built = enumerate_tree(partial(_chained, specs, start), policy=policy)
    assert _shape(built.root) == _shape(enumerate_tree(partial(_written_out, specs, start), policy=policy).root)


@settings(max_examples=examples(20), deadline=None)
@given(procedures())
def test_decisions_kept_make_the_tree_of_the_steps_written_out(proc):
    # every question of a step is the caller's own: kept as a decision node where it would be written out
    specs, start = proc
    merged = enumerate_tree(partial(_chained, specs, start), keep_decisions=True)
    reference = enumerate_tree(partial(_written_out, specs, start), keep_decisions=True)
    assert _shape(merged.root) == _shape(reference.root)


@settings(max_examples=examples(20), deadline=None)
@given(procedures(), st.integers(0, 10_000))
def test_play_records_what_the_steps_written_out_record(proc, seed):
    specs, start = proc
    a = Stepper(partial(_chained, specs, start)).run(RandomDice(seed), first_option)
    b = Stepper(partial(_written_out, specs, start)).run(RandomDice(seed), first_option)
    assert a.events == b.events and a.result == b.result
    assert replay(partial(_written_out, specs, start), a.events).result == a.result
    assert replay(partial(_chained, specs, start), b.events).events == a.events


def test_equal_values_go_on_once():
    # two d6 steps, each moving the value to face % 2: the second step is worked out from the 2 values the
    # first can leave, not once per face of the first die
    table = tuple(tuple(f % 2 for f in range(1, 7)) for _ in range(VALUES))
    specs = (("d6", table, False), ("d6", table, False))
    started: list[tuple[int, int]] = []

    def counted(i: int, spec: StepSpec, value: int) -> Generator[Any, Any, int]:
        started.append((i, value))
        return (yield from _step(spec, value))

    def proc() -> Generator[Any, Any, Any]:
        return (yield chain("counted", 0, [partial(counted, i, s) for i, s in enumerate(specs)], rule="T4"))
    # (face % 2) of a d6 is 0 or 1, each 3/6 = 1/2, whatever the value before
    assert distribution(proc) == {1: Fraction(1, 2), 0: Fraction(1, 2)}
    second = [v for i, v in started if i == 1]
    # the second step from 0 and from 1, each started once per face of its own die (the driver replays
    # a step from its start for each answer but the first): 2 x 6
    assert sorted(set(second)) == [0, 1] and len(second) == 12
    started.clear()
    assert distribution(lambda: in_place(proc())) == {1: Fraction(1, 2), 0: Fraction(1, 2)}
    assert len([v for i, v in started if i == 1]) == 6 * 6          # written out: once per pair of faces


def test_a_key_that_does_not_name_the_steps_is_caught():
    # two chains of different steps under one key, from the same value: the second takes the first's
    # results (the memo's promise broken), and the comparison with the steps written out says so
    up = ("d2", tuple((1, 1) for _ in range(VALUES)), False)         # always to 1
    down = ("d2", tuple((0, 0) for _ in range(VALUES)), False)       # always to 0

    def two(key_names_steps: bool) -> Generator[Any, Any, Any]:
        a = yield chain(("up",) if key_names_steps else "same", 2, [partial(_step, up)], rule="T4")
        b = yield chain(("down",) if key_names_steps else "same", 2, [partial(_step, down)], rule="T4")
        return (a, b)

    assert distribution(partial(two, True)) == distribution(lambda: in_place(two(True))) == {(1, 0): 1}
    assert distribution(partial(two, False)) != distribution(lambda: in_place(two(False)))


def test_a_chain_is_an_inline_step_whose_questions_are_the_callers():
    c = chain("k", 0, [partial(_step, ("d2", ((0, 1),) * VALUES, False))], rule="T4", label="steps")
    assert isinstance(c, Chain) and isinstance(c, Sub)
    assert c.inline and c.own_choices and c.key == ("chain", "k", 0)
    wrapped = c.wrapped(lambda proc: proc)
    assert isinstance(wrapped, Chain) and wrapped.key == c.key and wrapped.own_choices


@pytest.mark.parametrize("keep", [False, True])
def test_a_step_of_the_callers_own_in_a_sub_procedure(keep):
    # inside a memoised (not inline) sub-procedure a chain is memoised as any step there, decisions kept or not
    specs = (("choose", ((0, 1),) * VALUES, False), ("d3", ((0, 1, 2),) * VALUES, True))

    def outer() -> Generator[Any, Any, Any]:
        return (yield Sub("outer", partial(_chained, specs, 1), rule="T6", label="outer"))

    def outer_written() -> Generator[Any, Any, Any]:
        return (yield Sub("outer", partial(_written_out, specs, 1), rule="T6", label="outer"))
    merged = enumerate_tree(outer, keep_decisions=keep, policy=first_option)
    reference = enumerate_tree(outer_written, keep_decisions=keep, policy=first_option)
    assert _shape(merged.root)[5] == _shape(reference.root)[5]       # the same outcomes and chances
    assert merged.root.subtree.distribution() == reference.root.subtree.distribution()


@settings(max_examples=examples(10), deadline=None)
@given(procedures(), st.integers(0, 1))
def test_an_enumeration_leaves_no_cyclic_garbage(proc, pick):
    # enumerate_tree's working functions refer to one another: unbound at its end, every enumeration (each
    # sub-procedure and chain step one of its own) is freed as it ends, none left to the cyclic collector,
    # whose full passes over a server's caches cost more than the odds themselves (issue 26)
    import gc
    specs, start = proc
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        distribution(partial(_chained, specs, start), policy=_last(pick))
        enumerate_tree(partial(_chained, specs, start), policy=_last(pick))
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()
