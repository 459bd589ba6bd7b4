"""Battle Commander actions as values: one frozen dataclass per kind, each with its ``side`` and only the fields
its kind reads, plus the JSON form records keep and the short text notation the command line reads.

Every action type derives from :class:`BcAction` and names its :class:`Kind` and the rule it belongs to. The
JSON of an action is ``{"kind", "side", then each field that differs from its default}``, the fields always in
the order of :data:`FIELD_ORDER`, so records written before the action types were split read and write the
same bytes. The notation is ``SIDE KIND field=value ...`` (``french move zones=M2 moves=F1:M1``).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar

from engine.core.codec import CodecError, from_json, to_json
from engine.core.errors import VedetteError

from .types import Side

__all__ = ["Kind", "BcAction", "StartTurn", "DrawCube", "Move", "ReadyArms", "InReserve", "Pass", "Gold",
           "Reinforce", "Purchase", "Rally", "ArmyRally", "Attack", "CombatMove", "Advance", "Face", "Swap",
           "ChangeFormation", "Done", "GiveGround", "Surrender", "ACTION_TYPES", "KINDS", "RULE_OF", "FIELD_ORDER",
           "action", "action_to_json", "action_from_json", "format_action", "parse_action_text"]


class Kind(StrEnum):
    """The kinds of action, each written in records as its value."""

    START_TURN = "start_turn"
    DRAW = "draw"
    MOVE = "move"
    READY_ARMS = "ready_arms"
    IN_RESERVE = "in_reserve"
    PASS = "pass"
    GOLD = "gold"
    REINFORCE = "reinforce"
    PURCHASE = "purchase"
    RALLY = "rally"
    ARMY_RALLY = "army_rally"
    ATTACK = "attack"
    COMBAT_MOVE = "combat_move"
    ADVANCE = "advance"
    FACE = "face"
    SWAP = "swap"
    FORMATION = "formation"
    DONE = "done"
    GIVE_GROUND = "give_ground"
    SURRENDER = "surrender"

    __repr__ = str.__repr__


#: the order the fields of every kind are written in (JSON and notation)
FIELD_ORDER = ("zones", "moves", "roadway", "hqs", "frm", "to", "attack", "special", "block", "cards", "buy",
               "facing", "formation", "units", "colour", "leader")
_PAIRS = ("moves", "hqs")
_TUPLES = ("zones", "roadway", "facing", "units")


@dataclass(frozen=True)
class BcAction:
    """One action of ``side``; the subclass says which kind (``kind``) and the rule it belongs to (``rule``)."""

    side: Side
    kind: ClassVar[Kind]
    rule: ClassVar[str]

    def __str__(self) -> str:
        return format_action(self)


@dataclass(frozen=True)
class StartTurn(BcAction):
    """Turn Preparation (16.1): fill the cup, cut the hands, draw the four cards."""
    kind: ClassVar[Kind] = Kind.START_TURN
    rule: ClassVar[str] = "16.1"


@dataclass(frozen=True)
class DrawCube(BcAction):
    """Draw an order cube from the cup (16.2)."""
    kind: ClassVar[Kind] = Kind.DRAW
    rule: ClassVar[str] = "16.2"


@dataclass(frozen=True)
class Move(BcAction):
    """A Move Order (19.0): the activated ``zones``, the Blocks' ``moves`` (Block, Zone or ``A>B`` Roadway
    path), the Blocks in ``roadway`` formation (19.3) and the HQ markers' moves ``hqs`` (HQ, path)."""
    zones: tuple[str, ...] = ()
    moves: tuple[tuple[str, str], ...] = ()
    roadway: tuple[str, ...] = ()
    hqs: tuple[tuple[str, str], ...] = ()
    kind: ClassVar[Kind] = Kind.MOVE
    rule: ClassVar[str] = "19.0"


@dataclass(frozen=True)
class ReadyArms(BcAction):
    """Ready Arms (18.0): one more Attack Token."""
    kind: ClassVar[Kind] = Kind.READY_ARMS
    rule: ClassVar[str] = "18.0"


@dataclass(frozen=True)
class InReserve(BcAction):
    """In Reserve (18.0): the cube goes to the Reserve Orders Box."""
    kind: ClassVar[Kind] = Kind.IN_RESERVE
    rule: ClassVar[str] = "18.0"


@dataclass(frozen=True)
class Pass(BcAction):
    """A pass: a Pass Order (18.0), no reaction (19.2), no more purchases, rallies, attacks or withdrawals."""
    kind: ClassVar[Kind] = Kind.PASS
    rule: ClassVar[str] = "18.0"


@dataclass(frozen=True)
class Gold(BcAction):
    """The Gold cube (18.0): name the next cube's ``colour``, or ``card`` to draw an event card."""
    colour: str = ""
    kind: ClassVar[Kind] = Kind.GOLD
    rule: ClassVar[str] = "18.0"


@dataclass(frozen=True)
class Reinforce(BcAction):
    """The reinforcements due (18.0): ``units`` places ``BLOCK:ZONE`` for those whose Zone the player picks,
    then the free Move Order of the arriving Blocks (``moves``, ``roadway``, 19.1)."""
    moves: tuple[tuple[str, str], ...] = ()
    roadway: tuple[str, ...] = ()
    units: tuple[str, ...] = ()
    kind: ClassVar[Kind] = Kind.REINFORCE
    rule: ClassVar[str] = "18.0"


@dataclass(frozen=True)
class Purchase(BcAction):
    """A Yellow cube purchase (18.0): the ``cards`` discarded buy ``cubes`` or ``tokens``."""
    cards: tuple[int, ...] = ()
    buy: str = ""
    kind: ClassVar[Kind] = Kind.PURCHASE
    rule: ClassVar[str] = "18.0"


@dataclass(frozen=True)
class Rally(BcAction):
    """A Zone Rally Order (20.0) in Zone ``frm``; ``leader``: the friendly Leader card discarded for an
    automatic Officer (optional 29.6), 0 for none."""
    frm: str = ""
    leader: int = 0
    kind: ClassVar[Kind] = Kind.RALLY
    rule: ClassVar[str] = "20.0"


@dataclass(frozen=True)
class ArmyRally(BcAction):
    """An Army Rally Order (20.0); ``leader``: the friendly Leader card used for an automatic Officer (29.6)."""
    leader: int = 0
    kind: ClassVar[Kind] = Kind.ARMY_RALLY
    rule: ClassVar[str] = "20.0"


@dataclass(frozen=True)
class Attack(BcAction):
    """An attack (23.1) from Zone ``frm`` on Zone ``to``: ``attack`` fire, assault or bombard, ``special`` none,
    ordre_mixte or grand_charge (27.x)."""
    frm: str = ""
    to: str = ""
    attack: str = ""
    special: str = "none"
    kind: ClassVar[Kind] = Kind.ATTACK
    rule: ClassVar[str] = "23.1"


@dataclass(frozen=True)
class CombatMove(BcAction):
    """A Combat Move (19.4) of the Lead in ``frm`` to ``to`` with an Attack Token."""
    frm: str = ""
    to: str = ""
    kind: ClassVar[Kind] = Kind.COMBAT_MOVE
    rule: ClassVar[str] = "19.4"


@dataclass(frozen=True)
class Advance(BcAction):
    """The advance after an Assault (25.0) from ``frm`` into ``to`` of the Blocks (and HQs) in ``units``."""
    frm: str = ""
    to: str = ""
    units: tuple[str, ...] = ()
    kind: ClassVar[Kind] = Kind.ADVANCE
    rule: ClassVar[str] = "25.0"


@dataclass(frozen=True)
class Face(BcAction):
    """Face Artillery or a Massed Column ``block`` towards the Zones ``facing`` (9.4)."""
    block: str = ""
    facing: tuple[str, ...] = ()
    kind: ClassVar[Kind] = Kind.FACE
    rule: ClassVar[str] = "9.4"


@dataclass(frozen=True)
class Swap(BcAction):
    """Swap the Lead and the second line Block of Zone ``frm`` (9.4)."""
    frm: str = ""
    kind: ClassVar[Kind] = Kind.SWAP
    rule: ClassVar[str] = "9.4"


@dataclass(frozen=True)
class ChangeFormation(BcAction):
    """The Lead of Zone ``frm`` takes ``formation``: square, massed_column or none (9.2)."""
    frm: str = ""
    formation: str = ""
    kind: ClassVar[Kind] = Kind.FORMATION
    rule: ClassVar[str] = "9.2"


@dataclass(frozen=True)
class Done(BcAction):
    """The end of a reform window (9.4)."""
    kind: ClassVar[Kind] = Kind.DONE
    rule: ClassVar[str] = "9.4"


@dataclass(frozen=True)
class GiveGround(BcAction):
    """A Give Ground withdrawal of ``block`` at the turn's end (24.3)."""
    block: str = ""
    kind: ClassVar[Kind] = Kind.GIVE_GROUND
    rule: ClassVar[str] = "24.3"


@dataclass(frozen=True)
class Surrender(BcAction):
    """``block`` surrenders at the turn's end (26.0)."""
    block: str = ""
    kind: ClassVar[Kind] = Kind.SURRENDER
    rule: ClassVar[str] = "26.0"


#: each kind's action type
ACTION_TYPES: dict[str, type[BcAction]] = {t.kind: t for t in (
    StartTurn, DrawCube, Move, ReadyArms, InReserve, Pass, Gold, Reinforce, Purchase, Rally, ArmyRally, Attack,
    CombatMove, Advance, Face, Swap, ChangeFormation, Done, GiveGround, Surrender)}
KINDS: tuple[Kind, ...] = tuple(Kind)
#: the rule each action kind belongs to (kept in the record beside it)
RULE_OF: dict[str, str] = {k: t.rule for k, t in ACTION_TYPES.items()}
assert set(ACTION_TYPES) == set(Kind), "every kind has its action type"


def action(kind: str, side: str, **values: Any) -> BcAction:
    """The action of ``kind`` for ``side`` with ``values`` (e.g. ``action("rally", "french", frm="M2")``)."""
    try:
        cls = ACTION_TYPES[kind]
    except KeyError:
        raise VedetteError(f"unknown action kind {str(kind)[:30]!r}; one of {', '.join(Kind)}") from None
    return cls(Side(side), **values)


def _set_fields(a: BcAction):
    """``(name, value)`` of each field of ``a`` that differs from its default, in :data:`FIELD_ORDER`."""
    own = {f.name: f.default for f in fields(a) if f.name != "side"}
    return [(k, getattr(a, k)) for k in FIELD_ORDER if k in own and getattr(a, k) != own[k]]


def action_to_json(a: BcAction) -> dict:
    """``{"kind", "side", then every field set}`` (defaults left out)."""
    return {"kind": to_json(a.kind), "side": to_json(a.side), **{k: to_json(v) for k, v in _set_fields(a)}}


def action_from_json(data: Any) -> BcAction:
    """An action from its JSON; a field of the wrong type, or one its kind does not have, is named."""
    if not isinstance(data, dict):
        raise CodecError("", "an object (a Battle Commander action)", data)
    cls = ACTION_TYPES.get(data.get("kind")) if isinstance(data.get("kind"), str) else None
    if cls is None:
        raise CodecError("kind", "one of " + ", ".join(map(repr, (k.value for k in Kind))), data.get("kind"))
    return from_json(cls, {k: v for k, v in data.items() if k != "kind"})


def format_action(a: BcAction) -> str:
    """Text notation: ``side kind`` then ``field=value`` for every field set; lists comma-separated, pairs
    ``a:b`` (e.g. ``french move zones=M2 moves=F1:M1``, ``coalition attack frm=E2 to=M2 attack=fire``)."""
    parts = [str(a.side), str(a.kind)]
    for name, v in _set_fields(a):
        if name in _PAIRS:
            parts.append(f"{name}=" + ",".join(f"{x}:{y}" for x, y in v))
        elif name == "cards":
            parts.append("cards=" + ",".join(str(c) for c in v))
        elif name in _TUPLES:
            parts.append(f"{name}=" + ",".join(v))
        else:
            parts.append(f"{name}={v}")
    return " ".join(parts)


def parse_action_text(text: str) -> dict:
    """The JSON of an action written in the notation of :func:`format_action`."""
    toks = text.split()
    if len(toks) < 2:
        raise VedetteError(f"action: expected 'SIDE KIND field=value ...', got {text[:60]!r}")
    d: dict[str, Any] = {"side": toks[0], "kind": toks[1]}
    for t in toks[2:]:
        if "=" not in t:
            raise VedetteError(f"action: {t[:30]!r} is not field=value")
        k, v = t.split("=", 1)
        if k not in FIELD_ORDER:
            raise VedetteError(f"action: unknown field {k[:30]!r}")
        items = [x for x in v.split(",") if x]
        if k in _PAIRS:
            if any(":" not in x for x in items):
                raise VedetteError(f"action: field {k}: expected pairs a:b")
            d[k] = [x.split(":", 1) for x in items]
        elif k == "cards":
            try:
                d[k] = [int(x) for x in items]
            except ValueError:
                raise VedetteError("action: field cards: expected card numbers") from None
        elif k == "leader":
            try:
                d[k] = int(v)
            except ValueError:
                raise VedetteError("action: field leader: expected a card number") from None
        elif k in _TUPLES:
            d[k] = items
        else:
            d[k] = v
    return d
