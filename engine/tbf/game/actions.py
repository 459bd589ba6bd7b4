"""The actions of a These Brave Fellows game as frozen values, each with its ``kind`` and ``side`` (JSON both
ways with :mod:`engine.core.codec`), and their short text notation, one action a line::

    coalition: activate miloradovich          french: move 4l-1 2113 [via 2014,2113 mp 2]
    coalition: activate_command I ci-3        french: face 4l-1 NE
    french: charge drag-3 2013,2112,2212 [then 2311]
    coalition: out_of_command ci-5            coalition: attach cv-1
    french: fire 4l-1+4l-2 at 2213            coalition: melee ci-1 at 2014
    french: cavalry_retreat drag-1 1213,1212  french: pass        french: end
    coalition: place ci-1 2412 SW             (the players' set-up, option 9.1)
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any, Literal, Union

from engine.core.codec import from_json
from engine.core.errors import VedetteError

from .types import Segment

__all__ = ["Activate", "ActivateCommand", "Pass", "Move", "Face", "Charge", "OutOfCommand", "Attach", "Fire", "Melee",
           "EndSegment", "CavalryRetreat", "Place", "TbfAction", "KINDS", "ACTION_TYPES", "RULE_OF", "SEGMENT_OF",
           "action_from_json", "format_action", "parse_action", "EXAMPLES"]


@dataclass(frozen=True)
class Activate:
    """6.1: activate a leader (and who he reaches) for this impulse."""
    side: str
    leader: str
    kind: Literal["activate"] = "activate"


@dataclass(frozen=True)
class ActivateCommand:
    """6.1.4: activate a command none of whose leaders is left, around one designated unit of it."""
    side: str
    command: str
    unit: str
    kind: Literal["activate_command"] = "activate_command"


@dataclass(frozen=True)
class Pass:
    """3.3 B: pass the impulse (two passes in a row end the Activation Phase)."""
    side: str
    kind: Literal["pass"] = "pass"


@dataclass(frozen=True)
class Move:
    """6.2: move a unit or leader to ``to`` by its cheapest legal path (``path``/``mp`` as listed; empty/-1
    means "whatever the cheapest path is")."""
    side: str
    unit: str
    to: str
    path: tuple[str, ...] = ()
    mp: int = -1
    kind: Literal["move"] = "move"


@dataclass(frozen=True)
class Face:
    """4.3: turn a unit to face another hexside (0..5 = N, NE, SE, S, SW, NW)."""
    side: str
    unit: str
    facing: int
    kind: Literal["face"] = "face"


@dataclass(frozen=True)
class Charge:
    """6.2.8: a cavalry charge along ``path`` (a straight charge line ending on the target), then maybe on
    into ``next`` targets."""
    side: str
    unit: str
    path: tuple[str, ...]
    next: tuple[str, ...] = ()
    kind: Literal["charge"] = "charge"


@dataclass(frozen=True)
class OutOfCommand:
    """6.1.3 C: a unit of the command outside its leader's range tries to join the activation."""
    side: str
    unit: str
    kind: Literal["out_of_command"] = "out_of_command"


@dataclass(frozen=True)
class Attach:
    """6.1.3 A: the activated leader takes along a unit not under his command (up to his CV)."""
    side: str
    unit: str
    kind: Literal["attach"] = "attach"


@dataclass(frozen=True)
class Fire:
    """6.3: fire at ``target`` with ``units`` (defensive in the Defensive Fire Segment)."""
    side: str
    units: tuple[str, ...]
    target: str
    kind: Literal["fire"] = "fire"


@dataclass(frozen=True)
class Melee:
    """6.4: melee attack on ``target`` by ``units``."""
    side: str
    units: tuple[str, ...]
    target: str
    kind: Literal["melee"] = "melee"


@dataclass(frozen=True)
class EndSegment:
    """3.3 B: end the current segment of the activation (the Melee Segment's end ends the impulse)."""
    side: str
    kind: Literal["end"] = "end"


@dataclass(frozen=True)
class Place:
    """9.1 C-D, 9.3 B (the players' set-up, option 9.1): set a piece of the side's set-up in ``hex`` (in its
    set-up area; the French keep their hexes) facing ``facing`` (0..5)."""
    side: str
    unit: str
    hex: str
    facing: int
    kind: Literal["place"] = "place"


@dataclass(frozen=True)
class CavalryRetreat:
    """Optional 11.8 B: before any defensive fire, non-phasing cavalry falls back two hexes along ``path``."""
    side: str
    unit: str
    path: tuple[str, ...]
    kind: Literal["cavalry_retreat"] = "cavalry_retreat"


TbfAction = Union[Activate, ActivateCommand, Pass, Move, Face, Charge, OutOfCommand, Attach, Fire, Melee, EndSegment,
                  CavalryRetreat, Place]
#: kind -> its action type
KINDS: dict[str, type[TbfAction]] = {c.kind: c for c in
                                     (Activate, ActivateCommand, Pass, Move, Face, Charge, OutOfCommand, Attach, Fire,
                                      Melee, EndSegment, CavalryRetreat, Place)}
ACTION_TYPES: tuple[type[TbfAction], ...] = tuple(KINDS.values())
#: kind -> the rule it belongs to (kept in the record beside it)
RULE_OF = {"activate": "6.1", "activate_command": "6.1.4", "pass": "3.3 B", "move": "6.2", "face": "4.3",
           "charge": "6.2.8", "out_of_command": "6.1.3 C", "attach": "6.1.3 A", "fire": "6.3", "melee": "6.4",
           "end": "3.3 B", "cavalry_retreat": "11.8 B", "place": "9.1"}
#: kind -> the segment it belongs to (3.3 B); fire belongs to both Fire Segments, the rest to none
SEGMENT_OF = {"move": Segment.MOVEMENT, "face": Segment.MOVEMENT, "charge": Segment.MOVEMENT,
              "out_of_command": Segment.MOVEMENT, "attach": Segment.MOVEMENT, "melee": Segment.MELEE,
              "cavalry_retreat": Segment.DEFENSIVE_FIRE}


# ------------------------------------------------------------------------------------------------
# JSON
# ------------------------------------------------------------------------------------------------
def action_from_json(data: Any) -> TbfAction:
    """An action from its JSON, the kind first (a wrong field: :class:`VedetteError` naming it)."""
    if not isinstance(data, dict):
        raise VedetteError(f"action: expected an object with a 'kind', got {str(data)[:40]!r}")
    kind = data.get("kind")
    cls = KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise VedetteError(f"field kind: expected one of {', '.join(KINDS)}, got {str(kind)[:40]!r}")
    return from_json(cls, data)


# ------------------------------------------------------------------------------------------------
# Text notation
# ------------------------------------------------------------------------------------------------
EXAMPLES = {"activate": "coalition: activate miloradovich", "move": "french: move 4l-1 2113",
            "face": "french: face 4l-1 NE", "charge": "french: charge drag-3 2013,2112,2212",
            "fire": "french: fire 4l-1+4l-2 at 2213", "melee": "coalition: melee ci-1 at 2014",
            "out_of_command": "coalition: out_of_command ci-5", "attach": "coalition: attach cv-1",
            "pass": "french: pass", "end": "french: end", "cavalry_retreat": "french: cavalry_retreat drag-1 1213,1212",
            "activate_command": "coalition: activate_command I ci-3", "place": "coalition: place ci-1 2412 SW"}


def format_action(a: TbfAction, direction_names: Sequence[str]) -> str:
    """The notation of ``a`` (``direction_names``: the map's hexside names, for facings)."""
    k = a.kind
    if isinstance(a, Activate):
        rest = a.leader
    elif isinstance(a, ActivateCommand):
        rest = f"{a.command} {a.unit}"
    elif isinstance(a, (Pass, EndSegment)):
        rest = ""
    elif isinstance(a, Move):
        rest = f"{a.unit} {a.to}"
    elif isinstance(a, Face):
        rest = f"{a.unit} {direction_names[a.facing] if 0 <= a.facing <= 5 else a.facing}"
    elif isinstance(a, Charge):
        rest = f"{a.unit} {','.join(a.path)}" + (f" then {','.join(a.next)}" if a.next else "")
    elif isinstance(a, (OutOfCommand, Attach)):
        rest = a.unit
    elif isinstance(a, CavalryRetreat):
        rest = f"{a.unit} {','.join(a.path)}"
    elif isinstance(a, Place):
        rest = f"{a.unit} {a.hex} {direction_names[a.facing] if 0 <= a.facing <= 5 else a.facing}"
    else:
        rest = f"{'+'.join(a.units)} at {a.target}"
    text = f"{a.side}: {k}" + (f" {rest}" if rest else "")
    if isinstance(a, Move) and (a.path or a.mp != -1):
        text += f" via {','.join(a.path)} mp {a.mp}"
    return text


def parse_action(text: str, direction_names: Sequence[str]) -> TbfAction:
    """An action from its notation (JSON is read by the protocol before this is asked)."""
    t = text.strip()
    m = re.fullmatch(r"(french|coalition)\s*:\s*(\w+)\s*(.*)", t)
    if not m:
        raise VedetteError(f"action: cannot read {t[:60]!r}; write e.g. 'coalition: activate miloradovich', "
                           "'french: move 4l-1 2113', 'french: fire 4l-1+4l-2 at 2213' or JSON")
    side, kind, rest = m.group(1), m.group(2), m.group(3).split()
    try:
        if kind == "activate" and len(rest) == 1:
            return Activate(side, rest[0])
        if kind == "activate_command" and len(rest) == 2:
            return ActivateCommand(side, rest[0], rest[1])
        if kind in ("pass", "end") and not rest:
            return Pass(side) if kind == "pass" else EndSegment(side)
        if kind == "move" and len(rest) == 2:
            return Move(side, rest[0], rest[1])
        if kind == "move" and len(rest) == 6 and rest[2] == "via" and rest[4] == "mp":
            return Move(side, rest[0], rest[1], tuple(rest[3].split(",")), int(rest[5]))
        if kind == "face" and len(rest) == 2:
            names = [n.upper() for n in direction_names]
            f = names.index(rest[1].upper()) if rest[1].upper() in names else int(rest[1])
            return Face(side, rest[0], f)
        if kind == "charge" and len(rest) in (2, 4) and (len(rest) == 2 or rest[2] == "then"):
            return Charge(side, rest[0], tuple(rest[1].split(",")),
                          tuple(rest[3].split(",")) if len(rest) == 4 else ())
        if kind == "place" and len(rest) == 3:
            names = [n.upper() for n in direction_names]
            f = names.index(rest[2].upper()) if rest[2].upper() in names else int(rest[2])
            return Place(side, rest[0], rest[1], f)
        if kind == "cavalry_retreat" and len(rest) == 2:
            return CavalryRetreat(side, rest[0], tuple(rest[1].split(",")))
        if kind in ("out_of_command", "attach") and len(rest) == 1:
            return (OutOfCommand if kind == "out_of_command" else Attach)(side, rest[0])
        if kind in ("fire", "melee") and len(rest) == 3 and rest[1] == "at":
            return (Fire if kind == "fire" else Melee)(side, tuple(rest[0].split("+")), rest[2])
    except ValueError:
        pass
    raise VedetteError(f"action: cannot read {t[:60]!r} (a {kind} action is written like "
                       f"{EXAMPLES.get(kind, 'french: pass')!r})")
