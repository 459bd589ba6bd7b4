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

from .errors import RecordError, VedetteError, short

__all__ = ["GameRecord", "FORMAT", "FORMAT_VERSION", "replay_states"]

FORMAT = "vedette-record"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class GameRecord:
    game: str                      # "n20", "lob", "tbf", "bc"
    scenario: str                  # scenario id, e.g. "fuentes"
    edition: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    events: tuple[dict[str, Any], ...] = ()
    engine_version: str = ""
    meta: dict[str, Any] = field(default_factory=dict)   # players, bookmarks, notes, ...

    def append(self, *events: dict[str, Any]) -> "GameRecord":
        """A new record with ``events`` added at the end."""
        return replace(self, events=self.events + tuple(events))

    def truncated(self, n: int) -> "GameRecord":
        """A new record keeping only the first ``n`` events (undo)."""
        return replace(self, events=self.events[:n])

    # JSON ------------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "game": self.game, "scenario": self.scenario,
                "edition": self.edition, "options": self.options, "seed": self.seed,
                "engine_version": self.engine_version, "meta": self.meta, "events": list(self.events)}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps(), encoding="utf-8")

    @classmethod
    def from_json(cls, data: Any, file: str | None = None) -> "GameRecord":
        """A record from parsed JSON, every top-level field checked (one-line :class:`RecordError`)."""
        from .data import MAX_DEPTH, check_depth

        def bad(message: str, index: int | None = None) -> RecordError:
            return RecordError(message, index=index, file=file)

        check_depth(data, file or "<record>", MAX_DEPTH, error=lambda _f, _w, expected: bad(f"expected {expected}"))
        if not isinstance(data, dict):
            raise bad("a game record must be a JSON object")
        if data.get("format") != FORMAT:
            raise bad(f"field 'format': expected {FORMAT!r}, got {short(data.get('format'))}")
        version = data.get("format_version")
        if version != FORMAT_VERSION or isinstance(version, bool):
            raise bad(f"field 'format_version': this Vedette reads version {FORMAT_VERSION}, the record "
                      f"has {short(version)}; it cannot be replayed by this version")
        for key, typ in (("game", str), ("scenario", str), ("events", list)):
            if not isinstance(data.get(key), typ):
                raise bad(f"field {key!r}: expected {_TYPE_NAMES[typ]}, got {short(data.get(key))}")
        for key in ("edition", "engine_version"):
            if data.get(key) is not None and not isinstance(data.get(key), str):
                raise bad(f"field {key!r}: expected a string, got {short(data.get(key))}")
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise bad(f"field 'seed': expected a whole number or null, got {short(seed)}")
        for i, e in enumerate(data["events"]):
            if not isinstance(e, dict) or not isinstance(e.get("kind"), str):
                raise bad(f"expected an object with a 'kind' (a string), got {short(e)}", index=i)
            if "answers" in e and not isinstance(e["answers"], list):
                raise bad(f"field 'answers': expected a list (the answers the event's procedure got), "
                          f"got {short(e['answers'])}", index=i)
        opts = data.get("options") or {}
        if not isinstance(opts, dict):
            raise bad(f"field 'options': expected an object, got {short(opts)}")
        meta = data.get("meta") or {}
        if not isinstance(meta, dict):
            raise bad(f"field 'meta': expected an object, got {short(meta)}")
        return cls(game=data["game"], scenario=data["scenario"], edition=data.get("edition", "") or "",
                   options=opts, seed=seed, events=tuple(data["events"]),
                   engine_version=data.get("engine_version", "") or "", meta=meta)

    @classmethod
    def loads(cls, text: str, file: str | None = None) -> "GameRecord":
        """A record from JSON text (at most :data:`engine.core.data.MAX_FILE_BYTES` long)."""
        from .data import MAX_FILE_BYTES

        if len(text) > MAX_FILE_BYTES:
            raise RecordError(f"expected a record of at most {MAX_FILE_BYTES} characters (1 MiB)", file=file)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"not valid JSON: {exc}", file=file) from None
        except RecursionError:
            raise RecordError("expected JSON nested less deeply", file=file) from None
        except ValueError as exc:   # e.g. an integer of more than 4300 digits
            raise RecordError(f"not valid JSON: {short(str(exc), 160)}", file=file) from None
        return cls.from_json(data, file=file)

    @classmethod
    def load(cls, path: str | Path) -> "GameRecord":
        """A record from a file: missing, unreadable, over-size, binary and non-UTF-8 files are refused."""
        from .data import read_text

        text = read_text(path, error=lambda f, _w, expected: RecordError(f"expected {expected}", file=f))
        return cls.loads(text, file=str(path))


_TYPE_NAMES = {str: "a string", list: "a list", dict: "an object"}


def replay_states(record: GameRecord, initial: Callable[[GameRecord], Any],
                  apply: Callable[[Any, dict[str, Any]], Any], upto: int | None = None) -> list[Any]:
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
