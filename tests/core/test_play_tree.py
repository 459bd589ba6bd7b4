"""core.sampling.PlayTree: seeded plays that remember their paths count exactly what plain sampling counts."""
from functools import partial

from hypothesis import given, settings, strategies as st

from engine.core.procedure import Choose, Log, Roll, Sub, first_option
from engine.core.sampling import PlayTree, sample


def _pair(bonus: int):
    a = yield Roll("d6", rule="T 1", label="first die")
    yield Log("T 1", f"first {a}")
    b = yield Roll("d6", rule="T 1", label="second die")
    return min(12, a + b + bonus)


def _battle(bonus: int):
    """A toy procedure with every kind of step a rules procedure has: a die, a note, a choice, a sub-step."""
    total = yield Sub(("pair", bonus), partial(_pair, bonus), rule="T 1", label="two dice")
    if total >= 9:
        pick = yield Choose(("press", "hold"), rule="T 2", label="press on?")
        if pick == "press":
            extra = yield Roll("d6", rule="T 3", label="pursuit")
            return ("won", extra >= 4)
    return ("held", total)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10 ** 6), bonus=st.integers(0, 3), n=st.integers(1, 40))
def test_play_tree_counts_what_sampling_counts(seed, bonus, n):
    tree = PlayTree()
    want = sample(partial(_battle, bonus), n, seed=seed).counts
    cold = tree.sample_counts(("battle", bonus), partial(_battle, bonus), n, seed, first_option)
    warm = tree.sample_counts(("battle", bonus), partial(_battle, bonus), n, seed, first_option)
    # same results, counted in the same order (the counters' insertion order too)
    assert list(cold.items()) == list(want.items()) == list(warm.items())


def test_play_tree_stays_within_its_limit():
    tree = PlayTree(limit=3)
    for bonus in range(10):
        tree.sample_counts(("battle", bonus), partial(_battle, bonus), 5, 1, first_option)
        assert len(tree) <= 3
