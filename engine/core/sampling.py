"""Monte Carlo over the same procedures, for what is too big to enumerate (whole games), with intervals."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Generator, Hashable
from dataclasses import dataclass
import math
from typing import Any, cast

from .procedure import ChanceRequest, Choose, Log, Policy, Procedure, RandomDice, Request, Stepper, Sub, first_option

__all__ = ["PlayTree", "Sample", "sample", "wilson_interval"]


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion (95 % by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Sample:
    counts: Counter[Hashable]
    n: int

    def prob(self, predicate: Callable[[Hashable], bool]) -> float:
        return sum(c for k, c in self.counts.items() if predicate(k)) / self.n

    def interval(self, predicate: Callable[[Hashable], bool], z: float = 1.96) -> tuple[float, float]:
        return wilson_interval(sum(c for k, c in self.counts.items() if predicate(k)), self.n, z)

    def frequencies(self) -> dict[Hashable, float]:
        return {k: c / self.n for k, c in self.counts.items()}


def sample(factory: Procedure, n: int, seed: int | None = None, chooser: Policy | None = first_option) -> Sample:
    """Play the procedure ``n`` times with one seeded RNG and count the results."""
    dice = RandomDice(seed)
    counts: Counter[Hashable] = Counter()
    for _ in range(n):
        counts[Stepper(factory).run(dice, chooser).result] += 1
    return Sample(counts, n)


class _Node:
    """One point of a procedure as its plays found it: the request waiting there (``req``; None once the
    procedure has returned ``result``), the policy's answer when it is a choice, and the point each answer
    seen so far leads to (``kids``); for a sub-procedure, the first point of its own plays (``sub``, found
    once by its key)."""

    __slots__ = ("req", "result", "answer", "kids", "sub")

    def __init__(self, req: Request | None, result: Any, policy: Policy) -> None:
        self.req, self.result = req, result
        self.sub: _Node | None = None
        self.kids: dict[Any, _Node] = {}
        self.answer = req.check(policy(req)) if isinstance(req, Choose) else None


def _step(gen: Generator[Any, Any, Any], value: Any, policy: Policy, first: bool = False) -> _Node:
    """Send ``value`` into the live procedure and run it to its next question (notes skipped)."""
    try:
        req = next(gen) if first else gen.send(value)
        while isinstance(req, Log):
            req = gen.send(None)
    except StopIteration as stop:
        return _Node(None, stop.value, policy)
    if not isinstance(req, (ChanceRequest, Choose, Sub)):
        raise TypeError(f"a procedure yielded {req!r}, which is not a request")
    return _Node(req, None, policy)


def _play(tries: dict[Hashable, _Node], limit: int, key: Hashable, factory: Procedure, dice: RandomDice, policy: Policy,
          node: _Node | None = None) -> tuple[Any, _Node | None]:
    """One play of the procedure ``factory`` (whose situation ``key`` names completely, as for the
    enumerator's memo), dice from ``dice``, choices from ``policy`` (a pure function of the request):
    the result core's Stepper would give with the same dice, which are asked the same requests in the
    same order. What earlier plays of the same procedure found is kept (``tries``, by key): along a
    path seen before no rules code runs again; at a new branch the generator is started and fed the
    answers of the path so far (sub-procedures by their results, as the enumerator does), then runs live.
    Returns the result and the first point (``node``, when the caller has it already)."""
    if node is None:
        node = tries.get(key)
    root = node
    gen: Generator[Any, Any, Any] | None = None
    if node is None:
        gen = factory()
        node = _step(gen, None, policy, first=True)
        if len(tries) >= limit:
            tries.clear()          # the nodes of the plays under way live on in those plays
        tries[key] = root = node
    path: list[Any] = []
    while True:
        req = node.req
        if req is None:
            return node.result, root
        if isinstance(req, Sub):
            value, node.sub = _play(tries, limit, req.key, req.proc, dice, policy, node.sub)
        elif isinstance(req, Choose):
            value = node.answer
        else:
            chance = cast(ChanceRequest, req)
            value = chance.check(dice(chance))
        if gen is None:
            kid = node.kids.get(value)
            if kid is None:
                gen = factory()
                _step(gen, None, policy, first=True)
                for v in path:
                    _step(gen, v, policy)
                kid = node.kids.setdefault(value, _step(gen, value, policy))
            else:
                path.append(value)
        else:
            kid = node.kids.setdefault(value, _step(gen, value, policy))
        node = kid

class PlayTree:
    """Seeded plays of procedures that remember the paths they took: plays of the same procedure (named
    completely by its key, as for the enumerator's memo) that follow a path seen before run no rules code
    again; a new branch replays the procedure to it and goes on live. The counts are those :func:`sample`
    gives with the same seed and a pure ``policy`` (same dice, asked in the same order). At most ``limit``
    procedures are remembered (the tree is emptied whole past it)."""

    def __init__(self, limit: int = 50_000):
        self.limit = limit
        self._roots: dict[Hashable, _Node] = {}

    def __len__(self) -> int:
        return len(self._roots)

    def sample_counts(self, key: Hashable, factory: Procedure, n: int, seed: int, policy: Policy) -> Counter[Hashable]:
        dice = RandomDice(seed)
        counts: Counter[Hashable] = Counter()
        for _ in range(n):
            counts[_play(self._roots, self.limit, key, factory, dice, policy)[0]] += 1
        return counts
