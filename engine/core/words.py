"""A player's words for values the engine has no better words for yet: the fallback every page uses
before a system's own ``words`` module refines it (issue 25). Nothing here shows JSON braces, a Python
repr or an identifier with an underscore."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .values import jsonable

__all__ = ["plain", "identifier_words", "result_words"]


def identifier_words(name: str) -> str:
    """``"fog_of_war"`` -> ``"fog of war"``; ``"morale.french"`` -> ``"morale french"``."""
    return " ".join(str(name).replace("_", " ").replace(".", " ").split())


def plain(value: Any) -> str:
    """Any answer, option or detail as plain words: lists joined with commas, mappings as
    ``key value`` pairs, identifiers with spaces; ``None`` and empty values as a dash."""
    v = jsonable(value)
    if v is None or v == "" or v == [] or v == {}:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, str):
        return identifier_words(v)
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, Mapping):
        return "; ".join(f"{identifier_words(str(k))} {plain(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ", ".join(plain(x) for x in v)
    return identifier_words(str(v))


def result_words(value: Any) -> str:
    """A rules procedure's result in words: its own ``in_words()`` when it has one (results that describe
    themselves), else :func:`plain`; within a tuple, each part so."""
    said = getattr(value, "in_words", None)
    if callable(said):
        return str(said())
    if isinstance(value, tuple) and not hasattr(value, "_fields") and any(
            callable(getattr(x, "in_words", None)) for x in value):
        return "; ".join(result_words(x) for x in value)
    return plain(value)
