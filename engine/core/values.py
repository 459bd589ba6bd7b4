"""Helpers for the value types procedures return as outcomes."""
from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any, TypeVar

__all__ = ["cached_hash_repr", "from_fields", "hash_first_eq", "jsonable", "spoken_list"]

T = TypeVar("T")


def cached_hash_repr(cls: type[T]) -> type[T]:
    """Class decorator (put it above ``@dataclass(frozen=True)``): ``hash`` made once, at construction.

    Outcomes are hashed many times while a distribution is built, so the hash is derived when the value
    is made (never written into it later), and pickling drops and remakes it (a string's hash differs
    between processes). ``repr`` is the dataclass's, spelled from the fields when asked.
    """
    klass: Any = cls       # the class is given new methods below
    names = tuple(klass.__dataclass_fields__)
    fields_of = operator.attrgetter(*names) if len(names) > 1 else (lambda v: (getattr(v, names[0]),))
    init = klass.__init__

    def derive(self: Any) -> None:
        object.__setattr__(self, "_hash", hash(fields_of(self)))      # the field values as a tuple, gathered in C

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        derive(self)

    def __getstate__(self: Any) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    def __setstate__(self: Any, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)
        derive(self)

    klass.__init__ = __init__
    klass._derive_hash = staticmethod(derive)
    params = getattr(klass, "__dataclass_params__", None)
    if params is not None and params.eq and not params.order:
        # the dataclass's equality (the compared fields, as tuples) with the shortcuts a value with a hash
        # made at construction allows: the same value is equal, different hashes are never equal, and the
        # fields are gathered in C
        compared = tuple(f.name for f in klass.__dataclass_fields__.values() if f.compare)
        compared_of = operator.attrgetter(*compared) if len(compared) > 1 else (lambda v: (getattr(v, compared[0]),))
        klass.__eq__ = hash_first_eq(compared_of)
    klass.__hash__ = lambda self: self._hash
    klass.__repr__ = lambda self: f"{type(self).__name__}({', '.join(f'{f}={getattr(self, f)!r}' for f in names)})"
    klass.__getstate__ = __getstate__
    klass.__setstate__ = __setstate__
    return cls


def hash_first_eq(compared_of: Callable[[Any], Any]) -> Callable[[Any, Any], Any]:
    """``__eq__`` of a value whose ``_hash`` is made at construction from the same fields ``compared_of``
    gathers (as a tuple): the dataclass's equality, with the shortcuts such a hash allows (the very same
    value is equal, different hashes never are)."""
    def __eq__(self: Any, other: Any) -> Any:
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        if self._hash != other._hash:
            return False
        return compared_of(self) == compared_of(other)
    return __eq__


def from_fields(cls: type[T], values: dict[str, Any]) -> T:
    """A value of a :func:`cached_hash_repr` class made from a dict of ALL its fields, in field order,
    without its ``__init__`` (for trusted code that has the fields already, e.g. a unit's fixed counter
    values plus its markers): the same value, hash included, as ``cls(**values)`` for a class with no
    ``__post_init__``."""
    new = object.__new__(cls)
    new.__dict__.update(values)
    cls._derive_hash(new)  # type: ignore[attr-defined]  # given by cached_hash_repr
    return new


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


def spoken_list(items: Iterable[object]) -> str:
    """Items joined as a player says them: ``a``, ``a and b``, ``a, b and c``."""
    words = [str(x) for x in items]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]
