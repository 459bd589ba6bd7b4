"""Battle Commander Blocks and HQ markers as combat and the map see them (9.0-9.2, 11.0, 27.3, 28.5).

A :class:`Block` is an immutable value: its type, skill, Battle State (9.2) and formation. :func:`hit_block`
is the one Cohesion Hit rule (9.2) that combat (:mod:`engine.bc.combat`) and the map (retreats, moves in
Square) both apply; :func:`redoubt_cube` the 28.5 choice to spend a Redoubt cube on a hit.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from enum import StrEnum
from typing import Literal

from pydantic import Field, model_validator

from engine.core.data import Strict
from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log
from engine.core.values import cached_hash_repr

__all__ = ["BLOCK_KINDS", "INFANTRY", "ARTILLERY", "BattleState", "Formation", "BlockModel", "Block", "block_steps",
           "HQModel", "HQ", "hit_block", "redoubt_cube"]

BLOCK_KINDS = ("long_infantry", "infantry", "cavalry", "artillery", "horse_artillery", "garrison")
INFANTRY = ("long_infantry", "infantry")
ARTILLERY = ("artillery", "horse_artillery")


class BattleState(StrEnum):
    """A Block's Battle State (9.2): Steady, Shaken (Infantry only), Disrupted; an HQ marker is Steady or
    Disrupted (27.10). Equal to, and written as, the strings of the data files and records."""

    STEADY = "steady"
    SHAKEN = "shaken"
    DISRUPTED = "disrupted"

    __repr__ = str.__repr__


class Formation(StrEnum):
    """A Block's formation (9.2, 19.3, 27.2-27.4, 28.2); ``none`` is the line."""

    NONE = "none"
    SQUARE = "square"
    GRAND_CHARGE = "grand_charge"
    GRAND_BATTERY = "grand_battery"
    MASSED_COLUMN = "massed_column"
    ROADWAY = "roadway"

    __repr__ = str.__repr__


StateName = Literal["steady", "shaken", "disrupted"]
FormationName = Literal["none", "square", "grand_charge", "grand_battery", "massed_column", "roadway"]


class BlockModel(Strict):
    kind: Literal["long_infantry", "infantry", "cavalry", "artillery", "horse_artillery", "garrison"]
    skill: int = Field(default=2, ge=0, le=4)
    state: StateName = "steady"
    formation: FormationName = "none"
    shots: bool = False
    burst: bool = False
    square_hits: int = Field(default=0, ge=0, le=2)
    fresh: bool = False
    detached_guns: bool = False
    grognard: bool = False
    russian: bool = False
    steps_lost: int = Field(default=0, ge=0)
    name: str = ""
    redoubt_block: bool = False      # 28.5: an Artillery Redoubt Block (fixed, always the lead)
    redoubt_cubes: int = Field(default=0, ge=0)   # 28.5: cubes on its rear, each may absorb one hit

    @model_validator(mode="before")
    @classmethod
    def _garrison_skill(cls, data):
        if isinstance(data, dict) and data.get("kind") == "garrison":
            if data.get("skill", 0) != 0:
                raise ValueError(f"a Garrison's skill is zero (rule 28.3), not {str(data.get('skill'))[:20]}")
            data = {**data, "skill": 0}
        return data


@cached_hash_repr       # a combat's odds key their memo by it at every step: hashed once
@dataclass(frozen=True)
class Block:
    """A Block (9.0) as far as combat cares. ``square_hits`` counts hits a Square has absorbed (9.2)."""

    kind: str
    skill: int = 2
    state: BattleState = BattleState.STEADY
    formation: Formation = Formation.NONE
    shots: bool = False
    burst: bool = False
    square_hits: int = 0
    fresh: bool = False          # 29.4 Fresh Troops marker
    detached_guns: bool = False  # 28.7
    grognard: bool = False       # 29.8
    russian: bool = False        # 24.1 No Retreat! bonus
    steps_lost: int = 0
    name: str = ""
    redoubt_block: bool = False  # 28.5 Artillery Redoubt Block
    redoubt_cubes: int = 0       # 28.5 cubes on its rear (scenario rules)

    @classmethod
    def from_model(cls, m: BlockModel) -> "Block":
        b = cls(**{**m.model_dump(), "state": BattleState(m.state), "formation": Formation(m.formation)})
        if b.formation == "roadway":        # 19.3: a Roadway Block acts as Disrupted in combat
            b = replace(b, state=BattleState.DISRUPTED)
        if b.formation in ("square", "massed_column") and b.kind not in INFANTRY:
            raise RuleViolation("27.3" if b.formation == "square" else "28.2",
                                f"only Infantry Blocks form a {b.formation.replace('_', ' ')}")
        if b.formation == "grand_charge" and b.kind != "cavalry":
            raise RuleViolation("27.2", "only Cavalry makes a Grand Charge")
        if b.formation == "grand_battery" and b.kind not in ARTILLERY:
            raise RuleViolation("27.4", "a Grand Battery is made of Artillery Blocks")
        if b.state == "shaken" and b.kind not in INFANTRY:
            raise RuleViolation("9.2", f"only Infantry has a Shaken state; a {b.kind} goes from Steady to Disrupted")
        if b.formation in ("square", "grand_charge", "massed_column", "grand_battery") and b.state != "steady":
            raise RuleViolation("9.2", f"a {b.formation.replace('_', ' ')} is always Steady")
        if b.redoubt_block and b.kind not in ARTILLERY:
            raise RuleViolation("28.5", f"only an Artillery Block can be a Redoubt Block, not a {b.kind}")
        if b.redoubt_cubes and not b.redoubt_block:
            raise RuleViolation("28.5", "cubes on the rear are for an Artillery Redoubt Block only")
        if b.redoubt_block and b.formation != "none":
            raise RuleViolation("28.5", f"an Artillery Redoubt Block takes no {b.formation.replace('_', ' ')} "
                                        "formation")
        if b.steps_lost >= block_steps(b):
            raise RuleViolation("11.0", f"a {b.kind} with {b.steps_lost} step(s) lost is already eliminated")
        return b

    @property
    def infantry(self) -> bool:
        return self.kind in INFANTRY

    @property
    def artillery(self) -> bool:
        return self.kind in ARTILLERY

    @property
    def steady(self) -> bool:
        return self.state == "steady"

    @property
    def square(self) -> bool:
        return self.formation == "square"

    def label(self) -> str:
        return self.name or self.kind.replace("_", " ")


def block_steps(b: Block) -> int:
    """Steps of a Block (9.0, 11.0): two for a Long Infantry, one otherwise, one more with a Burst."""
    return (2 if b.kind == "long_infantry" else 1) + (1 if b.burst else 0)


class HQModel(Strict):
    kind: Literal["hq", "shq"] = "hq"
    skill: int = Field(default=3, ge=0, le=4)
    state: Literal["steady", "disrupted"] = "steady"
    perspective: bool = False       # optional rule 29.1: the Army Commander watches from the rear


@cached_hash_repr       # a combat's odds key their memo by it at every step: hashed once
@dataclass(frozen=True)
class HQ:
    kind: str = "hq"
    skill: int = 3
    state: BattleState = BattleState.STEADY
    perspective: bool = False   # 29.1 Command Perspective (main HQ only: no +1, a redraw of a fatal Fate card)

    @property
    def gives_bonus(self) -> bool:
        """Does this HQ add +1 to Skill (21.0)? Not a Steady main HQ whose Commander is in Command
        Perspective (29.1); an SHQ always does."""
        return self.state == "steady" and not (self.perspective and self.kind == "hq")


@lru_cache(maxsize=4096)
def hit_block(b: Block) -> tuple[Block, bool, tuple[str, str] | None]:
    """One combat Cohesion Hit on a Block (9.2): ``(new block, must retreat, note)``.

    Fresh Troops absorb it (29.4); a Square absorbs two and breaks on the third (9.2, 27.3); a Grand Charge
    loses its marker (27.2); a Massed Column flips as one and loses the formation when hit face-down (28.2);
    Infantry goes Steady, Shaken, Disrupted, others Steady, Disrupted; a Disrupted Block hit retreats (24.1).
    """
    if b.fresh:
        return replace(b, fresh=False), False, ("29.4", "the Fresh Troops marker absorbs the hit")
    if b.square:
        h = b.square_hits + 1
        if h < 3:
            return replace(b, square_hits=h), False, None
        broken = replace(b, formation=Formation.NONE, square_hits=0, state=BattleState.DISRUPTED)
        return broken, False, ("9.2", "the Square breaks")
    if b.formation == "grand_charge":
        return replace(b, formation=Formation.NONE), False, ("27.2", "the Grand Charge marker absorbs the hit")
    if b.formation == "massed_column":
        if b.state == "disrupted":
            return replace(b, formation=Formation.NONE), False, ("28.2", "the Massed Column is broken up")
        return replace(b, state=BattleState.SHAKEN if b.state == "steady" else BattleState.DISRUPTED), False, None
    if b.state == "disrupted":
        return b, True, None
    worse = BattleState.SHAKEN if (b.infantry and b.state == "steady") else BattleState.DISRUPTED
    return replace(b, state=worse), False, None


def redoubt_cube(b: Block, player: str, label: str):
    """Procedure: before a Cohesion Hit lands on an Artillery Redoubt Block with cubes on its rear, its owner
    may remove one cube to absorb the hit (28.5). Returns the Block with one cube fewer, or None to take it."""
    if not (b.redoubt_block and b.redoubt_cubes > 0):
        return None
    use = yield Choose((True, False), rule="28.5", player=player,
                       label=f"{label}: remove a Redoubt cube ({b.redoubt_cubes} left) to absorb the hit?")
    if not use:
        return None
    yield Log("28.5", f"{label}: a Redoubt cube absorbs the hit")
    return replace(b, redoubt_cubes=b.redoubt_cubes - 1)

