"""A value fingerprint for the loaded data of a game (map, scenario, tables).

Positions hold their map, scenario and tables; memo keys and position equality need those to compare by
what they contain, not by which object was loaded. Each loaded model gets a short digest of its whole
content once, when it is built (``model_post_init``), so hashing a position never walks the data again.
Two files with the same content give the same fingerprint; any changed value gives another.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Self

from pydantic import BaseModel, PrivateAttr

__all__ = ["digest", "Fingerprinted"]


def digest(data: Any) -> str:
    """12 hex digits of the SHA-1 of ``data`` as canonical JSON (keys sorted)."""
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:12]


class Fingerprinted(BaseModel):
    """A frozen data model that knows the digest of its content (computed once, when built) and is
    hashable and equal by it."""

    _fingerprint: str = PrivateAttr(default="")

    def model_post_init(self, context: Any, /) -> None:
        self._fingerprint = digest(self.model_dump(mode="json"))

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        out = super().model_copy(update=update, deep=deep)
        if update:
            out._fingerprint = digest(out.model_dump(mode="json"))   # a changed copy is another value
        return out

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._fingerprint))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not type(self):
            return NotImplemented
        return self._fingerprint == other.fingerprint
