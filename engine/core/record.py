"""Game records: a scenario plus the ordered list of events (actions and chance outcomes).

A record is the analogue of a chess PGN: saved and loaded as JSON, it replays every state of the game.
Each event is a dict with at least ``kind`` and ``rule`` (chance outcomes also keep the raw die face
and the modified value). The game package supplies how to build the first state and apply an event.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
import json
from pathlib import Path
from typing import Any

from .errors import RecordError, VedetteError

__all__ = ["GameRecord", "FORMAT", "FORMAT_VERSION", "replay_states"]

FORMAT = "vedette-record"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class GameRecord:
    game: str                      # "n20", "lob", "tbf", "bc"
    scenario: str                  # scenario id, e.g. "fuentes"
    edition: str = ""
    options: dict = field(default_factory=dict)
    seed: int | None = None
    events: tuple = ()
    engine_version: str = ""
    meta: dict = field(default_factory=dict)   # players, bookmarks, notes, ...

    def append(self, *events: dict) -> "GameRecord":
        """A new record with ``events`` added at the end."""
        return replace(self, events=self.events + tuple(events))

    def truncated(self, n: int) -> "GameRecord":
        """A new record keeping only the first ``n`` events (undo)."""
        return replace(self, events=self.events[:n])

    # JSON ------------------------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "game": self.game, "scenario": self.scenario,
                "edition": self.edition, "options": self.options, "seed": self.seed,
                "engine_version": self.engine_version, "meta": self.meta, "events": list(self.events)}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps(), encoding="utf-8")

    @classmethod
    def from_json(cls, data: Any, file: str | None = None) -> "GameRecord":
        if not isinstance(data, dict):
            raise RecordError("a game record must be a JSON object", file=file)
        if data.get("format") != FORMAT:
            raise RecordError(f"field 'format': expected {FORMAT!r}, got {data.get('format')!r}", file=file)
        version = data.get("format_version")
        if version != FORMAT_VERSION:
            raise RecordError(f"field 'format_version': this Vedette reads version {FORMAT_VERSION}, the record "
                              f"has {version!r}; it cannot be replayed by this version", file=file)
        for key, typ in (("game", str), ("scenario", str), ("events", list)):
            if not isinstance(data.get(key), typ):
                raise RecordError(f"field {key!r}: expected {typ.__name__}, got {data.get(key)!r}", file=file)
        for i, e in enumerate(data["events"]):
            if not isinstance(e, dict) or "kind" not in e:
                raise RecordError(f"expected an object with a 'kind', got {e!r}", index=i, file=file)
        opts = data.get("options") or {}
        if not isinstance(opts, dict):
            raise RecordError(f"field 'options': expected an object, got {opts!r}", file=file)
        return cls(game=data["game"], scenario=data["scenario"], edition=data.get("edition", "") or "",
                   options=opts, seed=data.get("seed"), events=tuple(data["events"]),
                   engine_version=data.get("engine_version", ""), meta=data.get("meta") or {})

    @classmethod
    def loads(cls, text: str, file: str | None = None) -> "GameRecord":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"not valid JSON: {exc}", file=file) from None
        return cls.from_json(data, file=file)

    @classmethod
    def load(cls, path: str | Path) -> "GameRecord":
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise RecordError(f"cannot read: {exc.strerror}", file=str(path)) from None
        return cls.loads(text, file=str(path))


def replay_states(record: GameRecord, initial: Callable[[GameRecord], Any],
                  apply: Callable[[Any, dict], Any], upto: int | None = None) -> list[Any]:
    """Every state of a recorded game: ``[initial, after event 0, after event 1, ...]``.

    ``apply(state, event)`` must return the next state; any :class:`VedetteError` it raises becomes a
    :class:`RecordError` naming the event's index.
    """
    states = [initial(record)]
    events = record.events if upto is None else record.events[:upto]
    for i, ev in enumerate(events):
        try:
            states.append(apply(states[-1], ev))
        except RecordError as exc:
            if exc.index is None:
                raise RecordError(str(exc), index=i) from None
            raise
        except VedetteError as exc:
            raise RecordError(f"does not replay: {exc}", index=i) from None
    return states
