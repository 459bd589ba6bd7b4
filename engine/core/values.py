"""Helpers for the value types procedures return as outcomes."""
from __future__ import annotations

import operator
from fractions import Fraction
from typing import Any

__all__ = ["cached_hash_repr", "jsonable", "spoken_list"]


def cached_hash_repr(cls):
    """Class decorator (put it above ``@dataclass(frozen=True)``): compute ``hash`` and ``repr`` once per value.

    Outcomes are hashed and sorted by ``repr`` many times while a distribution is built, so frozen
    dataclasses used as outcomes keep both in their instance dictionary after the first call.
    """
    names = tuple(cls.__dataclass_fields__)
    fields_of = operator.attrgetter(*names) if len(names) > 1 else (lambda v: (getattr(v, names[0]),))

    def __hash__(self) -> int:
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash(fields_of(self))          # the field values as a tuple, gathered in C
            object.__setattr__(self, "_hash", h)
        return h

    def __repr__(self) -> str:
        r = self.__dict__.get("_repr")
        if r is None:
            r = f"{type(self).__name__}({', '.join(f'{f}={getattr(self, f)!r}' for f in names)})"
            object.__setattr__(self, "_repr", r)
        return r

    cls.__hash__ = __hash__
    cls.__repr__ = __repr__
    return cls


def jsonable(value: Any) -> Any:
    """A JSON-friendly form of an answer (tuples -> lists, frozensets -> sorted lists, dataclasses -> dicts)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, (tuple, list)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(v) for v in value), key=repr)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if hasattr(value, "to_json"):
        return value.to_json()
    if hasattr(value, "__dataclass_fields__"):
        return {k: jsonable(getattr(value, k)) for k in value.__dataclass_fields__}
    if hasattr(value, "value"):  # enums
        return jsonable(value.value)
    return str(value)


def spoken_list(items) -> str:
    """Items joined as a player says them: ``a``, ``a and b``, ``a, b and c``."""
    items = [str(x) for x in items]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
