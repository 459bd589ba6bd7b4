"""JSON both ways for the value types of a game (frozen dataclasses, tuples, frozensets, enums, fractions).

:func:`to_json` turns a value into JSON-able data; :func:`from_json` rebuilds a value of a declared type
from such data, following the dataclass field annotations. Every system's positions (``state_to_json`` /
``state_from_json``) and actions can be written with these two functions instead of hand-written copies.
Data of the wrong shape raises :class:`~engine.core.errors.VedetteError` naming the field path.
"""
from __future__ import annotations

import dataclasses
import enum
import sys
import types
import typing
from fractions import Fraction
from functools import lru_cache
from typing import Any, NoReturn, Union, get_args, get_origin

from .errors import VedetteError

__all__ = ["to_json", "from_json", "CodecError"]


class CodecError(VedetteError):
    """A JSON value that does not fit the declared type; ``path`` names the field."""

    def __init__(self, path: str, expected: str, got: Any):
        self.path = path
        shown = repr(got)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        super().__init__(f"field {path or '(top)'}: expected {expected}, got {shown}")


def to_json(value: Any, skip: frozenset[str] = frozenset()) -> Any:
    """JSON-able data for ``value``. Dataclass fields whose name starts with ``_`` or is in ``skip`` are
    left out (caches, derived data); frozensets become sorted lists, fractions ``"n/d"`` strings."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value.value if isinstance(value, enum.Enum) else value
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name), skip) for f in dataclasses.fields(value)
                if f.init and not f.name.startswith("_") and f.name not in skip}
    if isinstance(value, (tuple, list)):
        return [to_json(v, skip) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((to_json(v, skip) for v in value), key=lambda v: (str(type(v)), repr(v)))
    if isinstance(value, dict):
        return {str(to_json(k, skip)): to_json(v, skip) for k, v in value.items()}
    if hasattr(value, "to_json"):
        return value.to_json()
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


@lru_cache(maxsize=None)
def _hints(cls: type) -> dict[str, Any]:
    module = sys.modules.get(cls.__module__)
    return typing.get_type_hints(cls, globalns=vars(module) if module else None)


def from_json(tp: Any, data: Any, path: str = "") -> Any:
    """A value of type ``tp`` rebuilt from ``data`` (as :func:`to_json` wrote it)."""
    if tp is Any:
        return data
    origin = get_origin(tp)
    if origin is Union or (hasattr(types, "UnionType") and isinstance(tp, types.UnionType)):
        args = get_args(tp)
        if data is None and type(None) in args:
            return None
        errors = []
        for a in args:
            if a is type(None):
                continue
            try:
                return from_json(a, data, path)
            except VedetteError as exc:
                errors.append(exc)
        raise CodecError(path, " or ".join(getattr(a, "__name__", str(a)) for a in args), data)
    if origin is typing.Literal:
        if data not in get_args(tp):
            raise CodecError(path, "one of " + ", ".join(map(repr, get_args(tp))), data)
        return data
    if origin in (tuple, list, frozenset, set):
        if not isinstance(data, list):
            raise CodecError(path, "a list", data)
        args = get_args(tp)
        if origin is tuple and args and args[-1] is not Ellipsis:
            if len(args) != len(data):
                raise CodecError(path, f"a list of {len(args)} items", data)
            return tuple(from_json(a, d, f"{path}[{i}]") for i, (a, d) in enumerate(zip(args, data)))
        item = args[0] if args else Any
        items = [from_json(item, d, f"{path}[{i}]") for i, d in enumerate(data)]
        return {tuple: tuple, list: list, frozenset: frozenset, set: set}[origin](items)
    if origin is dict:
        if not isinstance(data, dict):
            raise CodecError(path, "an object", data)
        kt, vt = get_args(tp) or (Any, Any)
        return {from_json(kt, k, f"{path}.{k}"): from_json(vt, v, f"{path}.{k}") for k, v in data.items()}
    if tp in (tuple, frozenset):
        # a bare ``tuple`` / ``frozenset`` annotation: JSON lists (nested too) come back as tuples, so the
        # value is hashable as the original was (JSON cannot tell a tuple from a list)
        if not isinstance(data, list):
            raise CodecError(path, "a list", data)
        try:
            return tp(_frozen(d) for d in data)
        except TypeError:
            raise CodecError(path, "a list of plain values", data) from None
    if isinstance(tp, type):
        if issubclass(tp, enum.Enum):
            try:
                return tp(data)
            except ValueError:
                raise CodecError(path, "one of " + ", ".join(repr(m.value) for m in tp), data) from None
        if dataclasses.is_dataclass(tp):
            if not isinstance(data, dict):
                raise CodecError(path, f"an object ({tp.__name__})", data)
            hints = _hints(tp)
            kwargs = {}
            for f in dataclasses.fields(tp):
                if not f.init or f.name.startswith("_"):
                    continue
                if f.name in data:
                    kwargs[f.name] = from_json(hints.get(f.name, Any), data[f.name], f"{path}.{f.name}".lstrip("."))
                elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    raise CodecError(f"{path}.{f.name}".lstrip("."), "a value (required)", None)
            unknown = set(data) - {f.name for f in dataclasses.fields(tp)}
            if unknown:
                raise CodecError(path, f"only the fields of {tp.__name__}", sorted(unknown))
            try:
                return tp(**kwargs)
            except (TypeError, ValueError) as exc:
                raise CodecError(path, f"a valid {tp.__name__} ({exc})", data) from None
        if tp is Fraction:
            try:
                return Fraction(data) if isinstance(data, (str, int)) and not isinstance(data, bool) else _bad(path, "a fraction", data)
            except (ValueError, ZeroDivisionError):
                raise CodecError(path, "a fraction 'n/d'", data) from None
        if tp is bool:
            if not isinstance(data, bool):
                raise CodecError(path, "true or false", data)
            return data
        if tp is int:
            if isinstance(data, bool) or not isinstance(data, int):
                raise CodecError(path, "a whole number", data)
            return data
        if tp is float:
            if isinstance(data, bool) or not isinstance(data, (int, float)):
                raise CodecError(path, "a number", data)
            return float(data)
        if tp is str:
            if not isinstance(data, str):
                raise CodecError(path, "a string", data)
            return data
        if hasattr(tp, "from_json"):
            return tp.from_json(data)
    return data


def _bad(path: str, expected: str, data: Any) -> NoReturn:
    raise CodecError(path, expected, data)


def _frozen(data: Any) -> Any:
    return tuple(_frozen(d) for d in data) if isinstance(data, list) else data
