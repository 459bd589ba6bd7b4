"""Helpers for the value types procedures return as outcomes."""
from __future__ import annotations

__all__ = ["cached_hash_repr"]


def cached_hash_repr(cls):
    """Class decorator (put it above ``@dataclass(frozen=True)``): compute ``hash`` and ``repr`` once per value.

    Outcomes are hashed and sorted by ``repr`` many times while a distribution is built, so frozen
    dataclasses used as outcomes keep both in their instance dictionary after the first call.
    """
    names = tuple(cls.__dataclass_fields__)

    def __hash__(self) -> int:
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash(tuple(getattr(self, f) for f in names))
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
