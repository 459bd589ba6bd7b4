"""Monte Carlo over the same procedures, for what is too big to enumerate (whole games), with intervals."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass
import math

from .procedure import Policy, Procedure, RandomDice, Stepper, first_option

__all__ = ["Sample", "sample", "wilson_interval"]


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
    counts: Counter
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
    counts: Counter = Counter()
    for _ in range(n):
        counts[Stepper(factory).run(dice, chooser).result] += 1
    return Sample(counts, n)
