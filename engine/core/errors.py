"""Errors every layer understands: a rule refused, a data file rejected, a record that does not replay."""
from __future__ import annotations

import reprlib

SHOWN = 80            # characters of user text quoted in an error message
MAX_MESSAGE = 1000    # no error message is longer than this (a safety net: most are far shorter)

_REPR = reprlib.Repr()
_REPR.maxstring = SHOWN
_REPR.maxother = SHOWN
_REPR.maxlevel = 2
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = _REPR.maxfrozenset = 4
_REPR.maxlong = 40


def one_line(text: object) -> str:
    """``text`` with every run of whitespace (newlines included) made one space: messages are one line."""
    return " ".join(str(text).split())


def short(value: object, limit: int = SHOWN) -> str:
    """A bounded, one-line rendering of user data for an error message: never the repr of a huge value
    (reprlib stops after a few items, levels and digits), then cut to ``limit`` characters."""
    if isinstance(value, str):
        text = repr(value[:limit + 1])
    else:
        try:
            text = _REPR.repr(value)
        except Exception:  # a value whose repr fails is named by its type
            text = f"<{type(value).__name__}>"
    text = one_line(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _line(message: str) -> str:
    message = one_line(message)
    return message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE - 1] + "…"


class VedetteError(Exception):
    """Base of every error the engine raises on purpose (the CLI maps it to exit code 2)."""


class RuleViolation(VedetteError):
    """An action or request the rules forbid. ``rule`` is the rule number it breaks (e.g. ``"6.3"``)."""

    def __init__(self, rule: str, message: str):
        self.rule = rule
        self.message = message
        super().__init__(_line(f"[rule {rule}] {message}"))


class DataError(VedetteError):
    """A data file (table, map, scenario, battle, record) that does not match its schema.

    Names the file, the field (dotted path) and what was expected there.
    """

    def __init__(self, file: str, field: str, expected: str, got: object = None):
        self.file = str(file)
        self.field = field
        self.expected = expected
        self.got = got
        where = f"{self.file}: {field}" if field else self.file
        tail = "" if got is None else f" (got {short(got)})"
        super().__init__(_line(f"{where}: expected {expected}{tail}"))


class LimitError(VedetteError):
    """An input past one of Vedette's documented bounds (file size, nesting, units per hex, cubes, ...):
    the exact computation it asks for would explode, so it is refused up front. Names the bound."""

    def __init__(self, what: str, limit: int, got: object = None, why: str = ""):
        self.what = what
        self.limit = limit
        self.got = got
        tail = "" if got is None else f" (got {short(got)})"
        reason = f": {why}" if why else ""
        super().__init__(_line(f"{what}: at most {limit}{reason}{tail}"))


class RecordError(VedetteError):
    """A game record that cannot be loaded or replayed; ``index`` is the failing event's position."""

    def __init__(self, message: str, index: int | None = None, file: str | None = None):
        self.index = index
        self.file = file
        parts = []
        if file:
            parts.append(str(file))
        if index is not None:
            parts.append(f"event {index}")
        prefix = ": ".join(parts)
        super().__init__(_line(f"{prefix}: {message}" if prefix else message))
