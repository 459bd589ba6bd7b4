"""Lines of Battle player actions: one value type with a ``kind`` and a ``side``, its JSON form and its text
notation.

An action's JSON keeps the field name ``type`` for its kind (every record written so far says ``type``;
``kind`` is read as well), and no side: the record event names the side that acted. ``side`` on the
value is who plays it (the candidates carry the side to act; an action read from JSON or notation has
``None``, meaning the side to act); it does not count in equality, so an action read back equals the
listed one. :func:`~.handlers.check` refuses an action whose side is not the side to act (2).

Text notation (:func:`format_action` / :func:`parse_notation`)::

    end-admin | end-phase | end-setup           toggle F-ResArt      rally F-Brayer
    activate 75            activate 75 by Soult (7.1: the leader who spends the point)
    place A-KGL in 16      fire F-ResArt at A-Head
    move F-Dellard,F-Schwitter via 19           move F-Brayer via 67>68 end approach:69
    move A-Myers end square                     attack Albuera with F-Briche,F-Arenberg [via 16]

An id the notation cannot carry (a space, a comma, ``>``, a keyword) makes :func:`format_action` answer
``None`` (the protocol then prints the action's JSON, which it reads as well).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine.core.errors import VedetteError

from .units import SIDES

__all__ = ["Kind", "Action", "RULE_OF", "ACTION_TYPES", "PASSES", "format_action", "parse_notation"]


class Kind(StrEnum):
    """The kinds of action; each value is the name records and the notation use."""

    PLACE = "place"              # Albuera option 6: free set-up
    END_SETUP = "end-setup"
    TOGGLE = "toggle"            # 3: artillery limbers or deploys in the admin phase
    END_ADMIN = "end-admin"
    RALLY = "rally"              # 4.1
    ACTIVATE = "activate"        # 4.2
    MOVE = "move"                # 4.2.2
    ATTACK = "attack"            # 5
    FIRE = "fire"                # 4.2.1
    END_PHASE = "end-phase"      # 6

    __repr__ = str.__repr__


#: the rule each kind belongs to (kept in the record beside each action)
RULE_OF: dict[str, str] = {
    Kind.PLACE: "Albuera option 6", Kind.END_SETUP: "Albuera option 6", Kind.TOGGLE: "3", Kind.END_ADMIN: "3",
    Kind.RALLY: "4.1", Kind.ACTIVATE: "4.2", Kind.MOVE: "4.2.2", Kind.ATTACK: "5", Kind.FIRE: "4.2.1",
    Kind.END_PHASE: "6"}
ACTION_TYPES = tuple(RULE_OF)
#: the kinds that end a phase (a bot passes with them)
PASSES = frozenset({Kind.END_SETUP, Kind.END_ADMIN, Kind.END_PHASE})
#: the move endings (4.2.2; "approach:X" faces area X)
ENDINGS = ("area", "square", "line", "deploy")

_KEYWORDS = frozenset({"in", "by", "at", "via", "end", "with"})


@dataclass(frozen=True)
class Action:
    """One player action. ``kind`` is one of :class:`Kind`; ``units`` the units (or a leader, 7.1) it moves,
    rallies, fires or activates with; ``path`` the areas a move or an attack goes through; ``area`` a
    set-up place or the area activated; ``target`` the area attacked or the unit fired at; ``end`` how a
    move leaves its units (area, approach:X, square, line, deploy); ``side`` who plays it (not compared)."""

    kind: str
    units: tuple = ()
    path: tuple = ()
    area: str | None = None
    target: str | None = None
    end: str = "area"
    side: str | None = field(default=None, compare=False)

    @property
    def origin(self) -> str | None:
        """The last area of the path (where a move ends, where an attack starts from); None without a path."""
        return self.path[-1] if self.path else None

    def to_json(self) -> dict:
        d: dict[str, Any] = {"type": self.kind}
        if self.units:
            d["units"] = list(self.units)
        if self.path:
            d["path"] = list(self.path)
        if self.area is not None:
            d["area"] = self.area
        if self.target is not None:
            d["target"] = self.target
        if self.kind == Kind.MOVE:
            d["end"] = self.end
        return d

    @classmethod
    def from_json(cls, d: dict) -> "Action":
        if not isinstance(d, dict) or ("type" not in d and "kind" not in d):
            raise VedetteError(f"an action is an object with a 'type', got {_short(d)}")
        if "type" in d and "kind" in d:
            raise VedetteError("an action names its kind once: 'type' (as records write it) or 'kind', not both")
        key = "type" if "type" in d else "kind"
        known = {"type", "kind", "units", "path", "area", "target", "end", "side"}
        extra = set(d) - known
        if extra:
            raise VedetteError(f"unknown action field(s) {sorted(map(str, extra))[:5]}; known: "
                               f"{sorted(known - {'kind'})}")
        if not isinstance(d[key], str):
            raise VedetteError(f"action field {key!r}: expected a string, got {_short(d[key])}")
        if not isinstance(d.get("end", "area"), str):
            raise VedetteError(f"action field 'end': expected a string (area, approach:X, square, line, deploy), "
                               f"got {_short(d['end'])}")
        side = d.get("side")
        if side is not None and side not in SIDES:
            raise VedetteError(f"action field 'side': expected one of {', '.join(SIDES)}, got {_short(side)}")
        return cls(kind=d[key], units=_names(d, "units"), path=_names(d, "path"), area=_name(d, "area"),
                   target=_name(d, "target"), end=d.get("end", "area"), side=side)

    def describe(self) -> str:
        """A short technical line (the words a player reads are :func:`engine.lob.words.describe`)."""
        t = self.kind
        if t == Kind.MOVE:
            return f"move {', '.join(self.units)} via {'-'.join(self.path) or '(in place)'} ({self.end})"
        if t == Kind.ATTACK:
            via = f" via {'-'.join(self.path)}" if self.path else ""
            return f"attack {self.target} with {', '.join(self.units)}{via}"
        if t == Kind.FIRE:
            return f"{self.units[0]} fires at {self.target}"
        if t == Kind.PLACE:
            return f"place {self.units[0]} in {self.area}"
        if t in (Kind.RALLY, Kind.TOGGLE):
            return f"{t} {self.units[0]}"
        if t == Kind.ACTIVATE:
            return f"activate area {self.area}"
        return str(t)


def _short(v: object) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _name(d: dict, key: str) -> str | None:
    """An area or unit id of an action: a string (a whole number is read as its digits)."""
    v = d.get(key)
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    raise VedetteError(f"action field {key!r}: expected one id (a string), got {_short(v)}")


def _names(d: dict, key: str) -> tuple[str, ...]:
    """A list of ids of an action; a bare string or number is refused (it is not read letter by letter)."""
    v = d.get(key, ())
    if not isinstance(v, (list, tuple)):
        raise VedetteError(f"action field {key!r}: expected a list of ids, e.g. [\"F-Vare\"], got {_short(v)}")
    out = []
    for x in v:
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, int) and not isinstance(x, bool):
            out.append(str(x))
        else:
            raise VedetteError(f"action field {key!r}: every entry must be an id (a string), got {_short(x)}")
    return tuple(out)


# ------------------------------------------------------------------------------------------------
# The text notation
# ------------------------------------------------------------------------------------------------
def _plain(x: str) -> bool:
    """An id the text notation can carry as it is."""
    return bool(x) and not any(c.isspace() or c in ",>{" for c in x) and x not in _KEYWORDS


def format_action(a: Action) -> str | None:
    """The action in the text notation; ``None`` when an id cannot be written in it."""
    ids = list(a.units) + list(a.path) + [x for x in (a.area, a.target) if x is not None]
    end = a.end[len("approach:"):] if a.end.startswith("approach:") else a.end
    if not all(_plain(x) for x in ids + [end]):
        return None
    t, us = a.kind, ",".join(a.units)
    if t in PASSES and not ids:
        return str(t)
    if t in (Kind.TOGGLE, Kind.RALLY) and len(a.units) == 1 and not a.path and a.area is None and a.target is None:
        return f"{t} {us}"
    if t == Kind.PLACE and len(a.units) == 1 and a.area is not None and not a.path and a.target is None:
        return f"place {us} in {a.area}"
    if t == Kind.ACTIVATE and a.area is not None and len(a.units) <= 1 and not a.path and a.target is None:
        return f"activate {a.area}" + (f" by {us}" if a.units else "")
    if t == Kind.FIRE and len(a.units) == 1 and a.target is not None and not a.path and a.area is None:
        return f"fire {us} at {a.target}"
    if t == Kind.MOVE and a.units and a.area is None and a.target is None:
        out = f"move {us}" + (f" via {'>'.join(a.path)}" if a.path else "")
        return out + (f" end {a.end}" if a.end != "area" or not a.path else "")
    if t == Kind.ATTACK and a.units and a.target is not None and a.area is None:
        return f"attack {a.target} with {us}" + (f" via {'>'.join(a.path)}" if a.path else "")
    return None


def parse_notation(text: str) -> Action:
    """An action from the text notation (not JSON: the protocol reads that)."""
    s = text.strip()
    w = s.split()
    bad = VedetteError(f"action: cannot read {s[:60]!r}; write e.g. 'activate 75', 'move F-Brayer via 67', "
                       "'attack 23 with F-Bron', or the action's JSON")
    if not w:
        raise bad
    t, n = w[0], len(w)
    if t not in RULE_OF:
        raise VedetteError(f"action: unknown action {t[:30]!r}; one of {', '.join(ACTION_TYPES)}")
    t = Kind(t)

    def units(x: str) -> tuple[str, ...]:
        us = tuple(x.split(","))
        if not all(us):
            raise bad
        return us

    if t in PASSES and n == 1:
        return Action(t)
    if t in (Kind.TOGGLE, Kind.RALLY) and n == 2:
        return Action(t, units=units(w[1]))
    if t == Kind.PLACE and n == 4 and w[2] == "in":
        return Action(t, units=units(w[1]), area=w[3])
    if t == Kind.ACTIVATE and n in (2, 4) and (n == 2 or w[2] == "by"):
        return Action(t, area=w[1], units=units(w[3]) if n == 4 else ())
    if t == Kind.FIRE and n == 4 and w[2] == "at":
        return Action(t, units=units(w[1]), target=w[3])
    if t == Kind.MOVE and n >= 2:
        rest, end = w[2:], "area"
        path: tuple[str, ...] = ()
        if rest[:1] == ["via"] and len(rest) >= 2:
            path, rest = tuple(w[3].split(">")), rest[2:]
        if rest[:1] == ["end"] and len(rest) == 2:
            end, rest = rest[1], []
        if rest or not all(path) or (not path and end == "area" and "end" not in w):
            raise bad
        return Action(t, units=units(w[1]), path=path, end=end)
    if t == Kind.ATTACK and n in (4, 6) and w[2] == "with" and (n == 4 or w[4] == "via"):
        via: tuple[str, ...] = tuple(w[5].split(">")) if n == 6 else ()
        if not all(via):
            raise bad
        return Action(t, target=w[1], units=units(w[3]), path=via)
    raise bad
