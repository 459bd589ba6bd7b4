"""Exact discrete distributions over hashable outcomes, with ``fractions.Fraction`` weights.

We evaluated ``icepool`` first: it is excellent for dice pools and we use it to build die
distributions (:func:`die`), but its outcomes must be totally ordered, while our outcomes are
battle results (frozen dataclasses with no natural order). :class:`Dist` therefore keeps a plain
mapping outcome -> Fraction and offers the few operations the odds tools need.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from fractions import Fraction
from functools import lru_cache
from math import lcm
import re
from typing import Any

__all__ = ["Dist", "die", "prob_json", "DIE_PATTERN"]

DIE_PATTERN = re.compile(r"^(\d*)d(\d+)$")
_ZERO = Fraction(0)


def _total(weights: Iterable[Fraction]) -> Fraction:
    """The exact sum of fractions, over their least common denominator at once (the same value as adding
    them one by one, without reducing each partial sum)."""
    ws = list(weights)
    if not ws:
        return _ZERO
    den = lcm(*(w.denominator for w in ws))
    return Fraction(sum(w.numerator * (den // w.denominator) for w in ws), den)


class Dist(Mapping[Any, Fraction]):
    """An exact probability distribution: outcome -> Fraction, weights summing to 1 (checked)."""

    __slots__ = ("_p",)

    def __init__(self, weights: Mapping[Any, Fraction | int] | Iterable[tuple[Any, Fraction | int]] = (),
                 *, normalise: bool = False) -> None:
        items = weights.items() if isinstance(weights, Mapping) else weights
        p: dict[Hashable, Fraction] = {}
        for outcome, w in items:
            if w.__class__ is not Fraction:
                w = Fraction(w)
            if w < 0:
                raise ValueError(f"negative weight {w} for {outcome!r}")
            if w:
                p[outcome] = p.get(outcome, Fraction(0)) + w
        total = _total(p.values())
        if normalise and total and total != 1:
            p = {k: v / total for k, v in p.items()}
        elif p and total != 1:
            raise ValueError(f"probabilities sum to {total}, not 1")
        self._p = p

    # Mapping protocol -------------------------------------------------------------------------
    def __getitem__(self, outcome: Hashable) -> Fraction:
        return self._p.get(outcome, _ZERO)

    def __contains__(self, outcome: object) -> bool:
        return outcome in self._p

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._p)

    def __len__(self) -> int:
        return len(self._p)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k!r}: {v}" for k, v in self._p.items())
        return f"Dist({{{inner}}})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Dist):
            return self._p == other._p
        if isinstance(other, Mapping):
            return self._p == {k: Fraction(v) for k, v in other.items() if v}
        return NotImplemented

    def __hash__(self) -> int:
        return hash(frozenset(self._p.items()))

    # Queries ------------------------------------------------------------------------------------
    @property
    def total(self) -> Fraction:
        return sum(self._p.values(), Fraction(0))

    def prob(self, predicate: Callable[[Hashable], bool]) -> Fraction:
        """Probability that the outcome satisfies ``predicate``."""
        return sum((w for k, w in self._p.items() if predicate(k)), Fraction(0))

    def expect(self, f: Callable[[Any], Fraction | int] = lambda x: x) -> Fraction:
        """Expected value of ``f(outcome)`` (exact when ``f`` returns ints or Fractions)."""
        return sum((w * f(k) for k, w in self._p.items()), Fraction(0))

    def map(self, f: Callable[[Hashable], Hashable]) -> "Dist":
        """Distribution of ``f(outcome)``."""
        return Dist(((f(k), w) for k, w in self._p.items()))

    def given(self, predicate: Callable[[Hashable], bool]) -> "Dist":
        """Conditional distribution given ``predicate`` (raises if it has probability 0)."""
        kept = {k: w for k, w in self._p.items() if predicate(k)}
        if not kept:
            raise ValueError("conditioning on an event of probability 0")
        return Dist(kept, normalise=True)

    def bind(self, f: Callable[[Hashable], "Dist"]) -> "Dist":
        """Chain: for each outcome, continue with the distribution ``f(outcome)``."""
        out: dict[Hashable, Fraction] = {}
        for k, w in self._p.items():
            for k2, w2 in f(k).items():
                out[k2] = out.get(k2, Fraction(0)) + w * w2
        return Dist(out)

    def product(self, other: "Dist", combine: Callable[[Hashable, Hashable], Hashable] = lambda a, b: (a, b)) -> "Dist":
        """Independent combination of two distributions."""
        return self.bind(lambda a: other.map(lambda b: combine(a, b)))

    def sorted_items(self, key: Callable[[Any], Any] | None = None) -> list[tuple[Hashable, Fraction]]:
        """Items ordered by ``key`` (default: the outcome's ``repr``), for stable display."""
        return sorted(self._p.items(), key=(lambda kv: key(kv[0])) if key else (lambda kv: repr(kv[0])))

    def to_json(self, key: Callable[[Any], str] = str) -> dict[str, dict[str, object]]:
        """``{str(outcome): prob_json(p)}`` for JSON output."""
        return {key(k): prob_json(w) for k, w in self.sorted_items()}

    @classmethod
    def certain(cls, outcome: Hashable) -> "Dist":
        return cls({outcome: Fraction(1)})

    @classmethod
    def uniform(cls, outcomes: Iterable[Hashable]) -> "Dist":
        outcomes = list(outcomes)
        if not outcomes:
            raise ValueError("uniform distribution over nothing")
        return cls(((o, Fraction(1, len(outcomes))) for o in outcomes))


def prob_json(p: Fraction | int) -> dict[str, object]:
    """A probability for JSON: exact fraction as a string and a float beside it."""
    p = Fraction(p)
    return {"fraction": f"{p.numerator}/{p.denominator}", "float": float(p)}


@lru_cache(maxsize=None)
def die(spec: str) -> Dist:
    """Distribution of a dice expression: ``"d6"``, ``"d10"``, ``"d3"``, ``"2d6"`` (sum).

    Built with icepool so the pool arithmetic is not ours.
    """
    m = DIE_PATTERN.match(spec.strip().lower())
    if not m:
        raise ValueError(f"unknown die {spec!r}: expected NdS such as 'd6', '2d6', 'd10'")
    n = int(m.group(1) or 1)
    sides = int(m.group(2))
    if n < 1 or sides < 1:
        raise ValueError(f"unknown die {spec!r}")
    import icepool

    pool = n @ icepool.d(sides)
    denom = pool.denominator()
    return Dist({int(o): Fraction(w, denom) for o, w in pool.items()})
