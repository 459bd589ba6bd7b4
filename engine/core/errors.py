"""Errors every layer understands: a rule refused, a data file rejected, a record that does not replay."""
from __future__ import annotations


class VedetteError(Exception):
    """Base of every error the engine raises on purpose (the CLI maps it to exit code 2)."""


class RuleViolation(VedetteError):
    """An action or request the rules forbid. ``rule`` is the rule number it breaks (e.g. ``"6.3"``)."""

    def __init__(self, rule: str, message: str):
        self.rule = rule
        self.message = message
        super().__init__(f"[rule {rule}] {message}")


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
        tail = "" if got is None else f" (got {got!r})"
        super().__init__(f"{where}: expected {expected}{tail}")


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
        super().__init__(f"{prefix}: {message}" if prefix else message)
