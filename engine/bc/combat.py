"""Battle Commander combat (10, 23-27): Combat Points, supports, odds column, shifts and the results.

:func:`prepare` checks a combat set-up against table 23.6 and tallies it (CPs with supports, terrain,
the clamped column, the fixed shifts), with every line citing its rule. :func:`resolve` is the combat
procedure: Square attempt (23.1 step 6), the combat card (23.2/23.3), neutral shifts chosen after the draw
(23.4), the exceptions (skirmishers, Burst, Cavalry Battle), Critical Combat Table (23.5), No Retreat!
(24.1), HQs fate (27.10-27.11). It returns a :class:`CombatOutcome`: what happened to each Block in the
two Zones, the Morale changes, Attack Tokens lost and how many Zones each Block must retreat. Moving the
retreating Blocks is the map's business (:mod:`engine.bc.game`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from engine.core.data import Sourced, Strict, data_path, load_yaml, parse_yaml, provenance_kind
from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log, Sub

from .checks import read_check, read_fate
from .deck import COLUMNS, Deck, Pile, apply_shift, draw_card, flags_needed

__all__ = ["Block", "Wing", "Side", "CombatSetup", "Tally", "CombatOutcome", "BlockFate", "Terrain",
           "load_terrain", "default_terrain", "prepare", "resolve", "combat_procedure", "apply_shift",
           "best_for", "neutral_policy", "BLOCK_KINDS", "INFANTRY", "block_steps"]

BLOCK_KINDS = ("long_infantry", "infantry", "cavalry", "artillery", "horse_artillery", "garrison")
INFANTRY = ("long_infantry", "infantry")
ARTILLERY = ("artillery", "horse_artillery")



class CombatPointsModel(Sourced):
    """The Combat Points chart (10.0), data/bc/combat_points.yaml: every Block type in both tables."""
    fire: dict[Literal["long_infantry", "infantry", "cavalry", "artillery", "horse_artillery", "garrison"],
               int | None]
    assault: dict[Literal["long_infantry", "infantry", "cavalry", "artillery", "horse_artillery", "garrison"], int]
    support: int = Field(ge=0)

    @model_validator(mode="after")
    def _every_kind(self):
        for name, table in (("fire", self.fire), ("assault", self.assault)):
            missing = [k for k in BLOCK_KINDS if k not in table]
            if missing:
                raise ValueError(f"{name}: a value for every Block type (rule 10.0); missing {missing}")
        return self


_CP = load_yaml(data_path("bc", "combat_points.yaml"), CombatPointsModel)
# 10.0 Combat Points: Fire (None = cannot fire) and Assault by Block type; Support (23.1) from the same chart
FIRE_CP: dict[str, int | None] = dict(_CP.fire)
ASSAULT_CP: dict[str, int] = dict(_CP.assault)
SUPPORT_CP: int = _CP.support


# ------------------------------------------------------------------------------------------------
# Terrain (provisional TEC, data/bc/terrain.yaml)
# ------------------------------------------------------------------------------------------------
class ZoneTerrainModel(Strict):
    fire: int = 0
    assault: int = 0
    clear: bool = False
    horse: bool = False
    range_bonus: bool = False
    garrison: bool = False


class IntervalModel(Strict):
    fire: int = 0
    assault: int = 0
    higher_only: bool = False
    impassable: bool = False


class TerrainModel(Sourced):
    zones: dict[str, ZoneTerrainModel]
    intervals: dict[str, IntervalModel]


@dataclass(frozen=True)
class Terrain:
    model: TerrainModel
    file: str = ""

    def __hash__(self) -> int:         # a value (equal by file and content): usable in memo keys
        return hash(self.file)

    @property
    def source(self) -> str:
        return self.model.source

    @property
    def provenance(self) -> str:
        return provenance_kind(self.model.source)

    def zone(self, name: str) -> ZoneTerrainModel:
        try:
            return self.model.zones[name]
        except KeyError:
            raise RuleViolation("12.0", f"unknown zone terrain {name!r}; the terrain chart has "
                                        f"{sorted(self.model.zones)}") from None

    def interval(self, name: str) -> IntervalModel:
        try:
            return self.model.intervals[name]
        except KeyError:
            raise RuleViolation("23.3", f"unknown interval terrain {name!r}; the terrain chart has "
                                        f"{sorted(self.model.intervals)}") from None


def load_terrain(path: str | Path | None = None) -> Terrain:
    p = Path(path) if path else data_path("bc", "terrain.yaml")
    return Terrain(load_yaml(p, TerrainModel), str(p))


def parse_terrain(text: str, file: str = "<upload>") -> Terrain:
    return Terrain(parse_yaml(text, TerrainModel, file), file)


_TERRAIN: Terrain | None = None


def default_terrain() -> Terrain:
    global _TERRAIN
    if _TERRAIN is None:
        _TERRAIN = load_terrain()
    return _TERRAIN


# ------------------------------------------------------------------------------------------------
# Blocks and the combat set-up (file format in docs/bc.md)
# ------------------------------------------------------------------------------------------------
State = Literal["steady", "shaken", "disrupted"]
Formation = Literal["none", "square", "grand_charge", "grand_battery", "massed_column", "roadway"]


class BlockModel(Strict):
    kind: Literal["long_infantry", "infantry", "cavalry", "artillery", "horse_artillery", "garrison"]
    skill: int = Field(default=2, ge=0, le=4)
    state: State = "steady"
    formation: Formation = "none"
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


@dataclass(frozen=True)
class Block:
    """A Block (9.0) as far as combat cares. ``square_hits`` counts hits a Square has absorbed (9.2)."""

    kind: str
    skill: int = 2
    state: str = "steady"
    formation: str = "none"
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
        b = cls(**m.model_dump())
        if b.formation == "roadway":        # 19.3: a Roadway Block acts as Disrupted in combat
            b = replace(b, state="disrupted")
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


class WingModel(Strict):
    block: BlockModel
    adjacent_to_attacker: bool = True
    in_flanked_zone: bool = False
    engaged: bool = False
    in_other_enemy_battle_zone: bool = False
    across_impassable: bool = False


@dataclass(frozen=True)
class Wing:
    """A candidate Wing Support: a friendly Lead Block next to the target Zone (23.1 step 5)."""

    block: Block
    adjacent_to_attacker: bool = True       # 9.4 condition II needs a Wing not next to the Lead Attacker
    in_flanked_zone: bool = False           # 9.4 condition I
    engaged: bool = False                   # 23.1: already has an Attack Token
    in_other_enemy_battle_zone: bool = False  # 23.1: in the BZ of a non-engaged Steady enemy Lead Block
    across_impassable: bool = False         # 23.1


class HQModel(Strict):
    kind: Literal["hq", "shq"] = "hq"
    skill: int = Field(default=3, ge=0, le=4)
    state: Literal["steady", "disrupted"] = "steady"
    perspective: bool = False       # optional rule 29.1: the Army Commander watches from the rear


class SideModel(Strict):
    lead: BlockModel
    second: BlockModel | None = None
    hq: HQModel | None = None
    wings: tuple[WingModel, ...] = ()
    morale: Literal["good", "bad"] = "good"
    in_flanked_zone: bool = False
    terrain: str = "clear"
    no_retreat: bool = False
    leader_card_in_combat: bool = False
    redoubt: bool = False            # 28.5: the Zone's Redoubt covers the interval it is attacked across


class CombatModel(Strict):
    """The combat file read by ``vedette bc combat`` (docs/bc.md)."""

    attack: Literal["fire", "assault"]
    special: Literal["none", "bombardment", "ordre_mixte", "artillery_assault", "grand_charge"] = "none"
    bombard_range: int = Field(default=1, ge=1, le=2)
    attacker: SideModel
    defender: SideModel
    interval: str = "none"
    defender_higher: bool = True
    initiative: Literal["attacker", "defender"] = "attacker"
    card_shifts: int = 0
    neutral_shifts: dict[Literal["attacker", "defender"], int] = {}
    clash_of_wills: Literal["none", "attacker", "defender"] = "none"
    disciplined_infantry: bool = False
    attacker_disciplined_infantry: bool = False
    artillery_expert: bool = False
    square_attempt: bool = True
    skirmish_gun_smoke: bool = True
    ordre_mixte_redraw: tuple[str, ...] = ("black_cross", "horse_head")
    wavering_troops: bool = False
    red_cube: bool = True
    discards: tuple[int, ...] = ()
    hand: tuple[int, ...] = ()


@dataclass(frozen=True)
class HQ:
    kind: str = "hq"
    skill: int = 3
    state: str = "steady"
    perspective: bool = False   # 29.1 Command Perspective (main HQ only: no +1, a redraw of a fatal Fate card)

    @property
    def gives_bonus(self) -> bool:
        """Does this HQ add +1 to Skill (21.0)? Not a Steady main HQ whose Commander is in Command
        Perspective (29.1); an SHQ always does."""
        return self.state == "steady" and not (self.perspective and self.kind == "hq")


@dataclass(frozen=True)
class Side:
    lead: Block
    second: Block | None = None
    hq: HQ | None = None
    wings: tuple[Wing, ...] = ()
    morale: str = "good"
    in_flanked_zone: bool = False
    terrain: str = "clear"
    no_retreat: bool = False
    redoubt: bool = False      # 28.5: defending in a Redoubt that covers the attacked interval

    @property
    def steady_hq(self) -> bool:
        """A Steady HQ that gives the +1 Skill bonus (21.0; not a main HQ in Command Perspective, 29.1)."""
        return self.hq is not None and self.hq.gives_bonus

    def good_morale_for(self, b: Block) -> bool:
        """Army morale as a Block feels it: Grognards and Fresh Lead Zones always count as Good (29.8, 29.4)."""
        return self.morale == "good" or b.grognard or self.lead.fresh


@dataclass(frozen=True)
class CombatSetup:
    attack: str
    attacker: Side
    defender: Side
    special: str = "none"
    bombard_range: int = 1
    interval: str = "none"
    defender_higher: bool = True
    initiative: str = "attacker"
    card_shifts: int = 0
    neutral_attacker: int = 0
    neutral_defender: int = 0
    clash_of_wills: str = "none"
    disciplined_infantry: bool = False            # defender's commander ability (27.8)
    attacker_disciplined_infantry: bool = False   # attacker's commander ability (27.8: Disrupted Inf fires)
    artillery_expert: bool = False                # attacker's commander ability (27.4, 27.6)
    square_attempt: bool = True
    skirmish_gun_smoke: bool = True
    ordre_mixte_redraw: tuple[str, ...] = ("black_cross", "horse_head")
    wavering_troops: bool = False                 # optional rule 29.7
    red_cube: bool = True                         # False for a card-triggered combat (27.1)

    @classmethod
    def from_model(cls, m: CombatModel) -> "CombatSetup":
        def side(s: SideModel) -> Side:
            return Side(Block.from_model(s.lead), Block.from_model(s.second) if s.second else None,
                        HQ(**s.hq.model_dump()) if s.hq else None,
                        tuple(Wing(Block.from_model(w.block), w.adjacent_to_attacker, w.in_flanked_zone, w.engaged,
                                   w.in_other_enemy_battle_zone, w.across_impassable) for w in s.wings),
                        s.morale, s.in_flanked_zone, s.terrain, s.no_retreat, s.redoubt)
        return cls(m.attack, side(m.attacker), side(m.defender), m.special, m.bombard_range, m.interval,
                   m.defender_higher, m.initiative, m.card_shifts, m.neutral_shifts.get("attacker", 0),
                   m.neutral_shifts.get("defender", 0), m.clash_of_wills, m.disciplined_infantry,
                   m.attacker_disciplined_infantry, m.artillery_expert, m.square_attempt, m.skirmish_gun_smoke,
                   tuple(m.ordre_mixte_redraw), m.wavering_troops, m.red_cube)


# ------------------------------------------------------------------------------------------------
# Tally (10, 23.1-23.6): who may attack, CPs, supports, terrain, column, shifts
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Line:
    side: str
    what: str
    cp: int
    rule: str

    def to_json(self):
        return {"side": self.side, "what": self.what, "cp": self.cp, "rule": self.rule}


@dataclass(frozen=True)
class Shift:
    amount: int
    why: str
    rule: str

    def to_json(self):
        return {"amount": self.amount, "why": self.why, "rule": self.rule}


@dataclass(frozen=True)
class Tally:
    table: str                 # which CRT line: "fire" or "assault"
    lines: tuple[Line, ...]
    attacker_cp: int
    defender_cp: int
    raw_column: int
    column: int
    shifts: tuple[Shift, ...]
    flanked: bool
    wings_counted: tuple[int, ...]

    @property
    def net_shift(self) -> int:
        return sum(s.amount for s in self.shifts)

    def to_json(self) -> dict:
        return {"table": self.table, "lines": [l.to_json() for l in self.lines], "attacker_cp": self.attacker_cp,
                "defender_cp": self.defender_cp, "difference": self.raw_column, "column": self.column,
                "shifts": [s.to_json() for s in self.shifts], "net_shift": self.net_shift, "flanked": self.flanked}


def _check_attacker(s: CombatSetup) -> None:
    """Table 23.6 (and 19.3, 27.x): may this Lead Block make this attack? Raises RuleViolation."""
    b = s.attacker.lead
    what = f"a {b.state} {b.label()}" + (f" in {b.formation.replace('_', ' ')}" if b.formation != "none" else "")
    if s.special == "bombardment":
        if not (b.artillery and b.steady):
            raise RuleViolation("27.5", f"only a Steady Artillery may bombard, not {what}")
        if s.attack != "fire":
            raise RuleViolation("27.5", "a Bombardment is a Fire combat")
    if s.attack == "fire":
        if s.special in ("ordre_mixte", "grand_charge", "artillery_assault"):
            raise RuleViolation("27.6" if s.special != "grand_charge" else "27.2",
                                f"a {s.special.replace('_', ' ')} is an Assault, never a Fire attack")
        if b.formation == "roadway" and b.artillery:
            raise RuleViolation("19.3", "Artillery in Roadway formation cannot fire at all")
        if b.formation == "grand_charge" or FIRE_CP[b.kind] is None:
            raise RuleViolation("23.6", f"{what} cannot make a Fire attack (Combat Options Table)")
        if b.state == "disrupted" and not b.artillery:
            if not (b.infantry and s.attacker_disciplined_infantry and b.skill >= 2):
                raise RuleViolation("23.6", f"{what} cannot fire: only Artillery (and Disciplined Infantry of "
                                            f"skill 2+, 27.8) may fire when Disrupted")
        return
    # assault
    if s.special == "artillery_assault":
        if not s.artillery_expert:
            raise RuleViolation("27.6", "an Artillery Assault needs a Commander with the Artillery Expert ability")
        if b.kind != "horse_artillery" or not b.steady:
            raise RuleViolation("27.6", f"an Artillery Assault is led by a Steady Horse Artillery, not {what}")
        if b.formation == "grand_battery":
            raise RuleViolation("27.4", "a Grand Battery cannot make an Artillery Assault")
        if b.skill < 2:
            raise RuleViolation("27.6", "Blocks of skill 0 or 1 cannot use this ability")
        if not s.red_cube:
            raise RuleViolation("27.6", "special assaults need a Red Cube draw")
        return
    if b.artillery:
        raise RuleViolation("23.6", f"{what} cannot assault (only a Horse Artillery, as an Artillery Assault "
                                    f"under the Artillery Expert ability, 27.6)")
    if b.kind == "garrison":
        raise RuleViolation("23.6", f"{what} cannot assault (Combat Options Table)")
    if b.square:
        raise RuleViolation("27.3", f"{what} cannot assault")
    if b.state != "steady":
        raise RuleViolation("23.6", f"{what} cannot assault: Shaken and Disrupted Blocks never assault")
    if s.special == "grand_charge" and not (b.kind == "cavalry" and b.formation == "grand_charge"):
        raise RuleViolation("27.2", "a Grand Charge is led by Cavalry in Grand Charge formation")
    if s.special == "ordre_mixte":
        if not s.red_cube:
            raise RuleViolation("27.6", "special assaults need a Red Cube draw")
        if b.formation == "massed_column":
            raise RuleViolation("27.6", "a Massed Column cannot make an Ordre Mixte assault")
        if b.skill < 2:
            raise RuleViolation("27.6", "Blocks of skill 0 or 1 cannot use this ability")
        supported = s.attacker.second is not None and _second_supports(s.attacker.second, "assault")
        if not (b.kind == "long_infantry" or (b.kind == "infantry" and supported)):
            raise RuleViolation("27.6", "only a Steady Long Infantry, or a Short Infantry with support, may lead an "
                                        "Ordre Mixte")


def _second_supports(b: Block, table: str) -> bool:
    """Table 23.6 Second Line support: Steady, not in Square; Fire: only Artillery (note A)."""
    if b.state != "steady" or b.square or b.formation == "roadway":
        return False
    if b.kind == "garrison":
        return False
    if table == "fire":
        return b.artillery
    return True


def _wing_supports(w: Wing, table: str) -> str | None:
    """Why a Wing candidate gives no support (None when it does): 23.1 step 5 and table 23.6."""
    b = w.block
    if b.state != "steady" or b.square or b.formation == "roadway":
        return "not a Steady Lead Block"
    if b.kind == "garrison":
        return "Garrisons never support"
    if table == "fire" and b.kind == "cavalry":
        return "Cavalry gives no Fire support"
    if w.engaged:
        return "already engaged (Attack Token in its Zone)"
    if w.in_other_enemy_battle_zone:
        return "in the Battle Zone of a non-engaged Steady enemy Lead Block"
    if w.across_impassable:
        return "impassable terrain between it and the target"
    return None


def prepare(s: CombatSetup, terrain: Terrain | None = None) -> Tally:
    """Check the set-up and tally Combat Points, supports, terrain, the odds column and the fixed shifts."""
    terrain = terrain or default_terrain()
    _check_attacker(s)
    a, d = s.attacker, s.defender
    A, D = a.lead, d.lead
    for who, me in (("attacker", a), ("defender", d)):
        if me.second is not None and me.second.redoubt_block:
            raise RuleViolation("28.5", f"the {who}'s Artillery Redoubt Block is always the Lead Block, "
                                        "never the second line")
    table = s.attack
    zone = terrain.zone(d.terrain)
    interval = terrain.interval(s.interval)
    if interval.impassable and table == "assault":
        raise RuleViolation("23.3", "no Assault across impassable terrain")
    if s.clash_of_wills != "none" and table != "assault":
        raise RuleViolation("27.7", "a Clash of Wills is declared in an Assault")
    if s.special == "grand_charge" and any(True for _ in a.wings):
        pass  # wings are ignored below (27.2)
    lines: list[Line] = []

    # attacker's own CPs (10.0)
    if A.formation == "grand_battery" and not s.artillery_expert:
        raise RuleViolation("27.4", "a Grand Battery needs a Commander with the Artillery Expert ability")
    if table == "fire":
        cp = FIRE_CP[A.kind]
        lines.append(Line("attacker", f"lead {A.label()} fire", cp, "10.0"))
        if A.formation == "grand_battery":
            if a.second is None or not a.second.artillery:
                raise RuleViolation("27.4", "a Grand Battery is two Artillery Blocks: give the second as 'second'")
            lines.append(Line("attacker", "grand battery partner guns", FIRE_CP[a.second.kind], "27.4"))
        if A.detached_guns:
            lines.append(Line("attacker", "detached guns", 1, "28.7"))
    else:
        cp = ASSAULT_CP[A.kind]
        lines.append(Line("attacker", f"lead {A.label()} assault", cp, "10.0"))
        if A.formation == "massed_column":
            if a.second is None or not a.second.infantry:
                raise RuleViolation("28.2", "a Massed Column is two Infantry Blocks: give the second as 'second'")
            lines.append(Line("attacker", "massed column second block", ASSAULT_CP[a.second.kind], "28.2"))

    # attacker supports: second line (23.1 step 4), wings (23.1 step 5)
    bombard = s.special == "bombardment"
    paired = A.formation in ("grand_battery", "massed_column")
    if a.second is not None and not paired and not bombard and _second_supports(a.second, table):
        lines.append(Line("attacker", f"second line {a.second.label()} support", SUPPORT_CP, "23.1"))
    wings_counted: list[int] = []
    if not bombard and s.special != "grand_charge":
        for i, w in enumerate(a.wings):
            if _wing_supports(w, table) is None:
                wings_counted.append(i)
                lines.append(Line("attacker", f"wing support {w.block.label()}", SUPPORT_CP, "23.1"))

    # defender: terrain always (23.2); in Assault also the Lead Defender and its second line (23.3)
    t_cp = zone.fire if table == "fire" else zone.assault
    if t_cp:
        lines.append(Line("defender", f"{d.terrain} zone terrain", t_cp, "23.2" if table == "fire" else "23.3"))
    i_cp = interval.fire if table == "fire" else interval.assault
    if i_cp and (not interval.higher_only or s.defender_higher):
        lines.append(Line("defender", f"{s.interval} interval", i_cp, "23.3"))
    if d.redoubt:               # 28.5: the Redoubt's interval benefits come on top of the Zone's
        red = terrain.interval("redoubt")
        r_cp = red.fire if table == "fire" else red.assault
        if r_cp:
            lines.append(Line("defender", "redoubt", r_cp, "28.5"))
    if table == "assault":
        dcp = ASSAULT_CP[D.kind]
        lines.append(Line("defender", f"lead {D.label()} (always counted)", dcp, "23.3"))
        d_paired = D.formation in ("grand_battery", "massed_column")
        if d_paired and d.second is not None:
            lines.append(Line("defender", f"{D.formation.replace('_', ' ')} second block", ASSAULT_CP[d.second.kind],
                              "28.2" if D.formation == "massed_column" else "27.4"))
        if D.detached_guns:
            lines.append(Line("defender", "detached guns", 1, "28.7"))
        if d.second is not None and not d_paired and _second_supports(d.second, "assault"):
            lines.append(Line("defender", f"second line {d.second.label()} support", SUPPORT_CP, "23.1"))

    att = sum(l.cp for l in lines if l.side == "attacker")
    dfn = sum(l.cp for l in lines if l.side == "defender")
    raw = att - dfn
    column = max(COLUMNS[0], min(COLUMNS[-1], raw))               # 23.4 clamps

    # flank advantage (9.4; 31.0 on 23.4: a Disrupted defender is always flanked)
    wings = [a.wings[i] for i in wings_counted]
    flanked = False
    if not D.square:
        cond_disrupted = D.state == "disrupted"
        cond_1 = a.in_flanked_zone or any(w.in_flanked_zone for w in wings)
        cond_2 = any(not w.adjacent_to_attacker for w in wings)
        flanked = cond_disrupted or cond_1 or cond_2
    shifts: list[Shift] = []
    clear = zone.clear
    if table == "fire":
        if bombard:
            shifts.append(Shift(-1, "bombardment", "27.5"))
        if D.artillery:
            shifts.append(Shift(-2 if D.formation == "grand_battery" else -1, "artillery toughness", "23.5"))
        if A.artillery and A.state == "disrupted":
            shifts.append(Shift(-1, "disrupted artillery firing", "23.5"))
        if A.square or A.formation == "massed_column":
            shifts.append(Shift(-1, "weak fire", "23.5"))
        if flanked:
            shifts.append(Shift(1, "lead defender flanked", "9.4"))
        if A.artillery and (D.square or D.formation == "massed_column") and clear:
            shifts.append(Shift(1, "high density target in clear terrain", "23.5"))
    else:
        if a.morale == "bad" and not A.grognard and not A.fresh:
            shifts.append(Shift(-1, "attacker's army in bad morale", "13.1"))
        if s.disciplined_infantry and D.infantry and D.steady and D.skill >= 2 and s.red_cube:
            shifts.append(Shift(-1, "disciplined fire (defender's ability)", "27.8"))
        elif D.grognard and D.infantry and D.steady:
            shifts.append(Shift(-1, "disciplined fire (grognards)", "29.8"))
        if A.infantry and D.kind == "cavalry" and not zone.horse:
            shifts.append(Shift(-1, "infantry assaulting cavalry", "23.5"))
        if A.kind == "cavalry" and D.square and D.square_hits == 0:
            shifts.append(Shift(-1, "cavalry against an unhit square", "23.5"))
        if A.infantry and D.square and clear:
            shifts.append(Shift(1, "infantry against a square in clear terrain", "23.5"))
        if A.formation == "massed_column":
            shifts.append(Shift(-1, "weak assault (massed column)", "23.5"))
        if flanked:
            lone_art = D.artillery and d.second is None
            shifts.append(Shift(2 if lone_art else 1, "lone flanked artillery" if lone_art else "lead defender flanked",
                                "23.5" if lone_art else "9.4"))
        if s.clash_of_wills != "none":
            me, foe = (a, d) if s.clash_of_wills == "attacker" else (d, a)
            my = me.lead.skill + (1 if me.steady_hq else 0)
            theirs = foe.lead.skill + (1 if foe.steady_hq else 0)
            if not me.lead.steady or my <= theirs:
                raise RuleViolation("27.7", f"a Clash of Wills needs a Steady Lead Block of higher skill than the "
                                            f"enemy Lead ({my} against {theirs}, HQ bonus included)")
            shifts.append(Shift(1 if s.clash_of_wills == "attacker" else -1, f"clash of wills ({s.clash_of_wills})",
                                "27.7"))
    if s.card_shifts:
        if not s.red_cube:
            raise RuleViolation("27.1", "no combat cards may be played outside a Red Cube draw")
        shifts.append(Shift(s.card_shifts, "event card shifts", "23.1"))
    return Tally(table, tuple(lines), att, dfn, raw, column, tuple(shifts), flanked, tuple(wings_counted))


# ------------------------------------------------------------------------------------------------
# Outcome
# ------------------------------------------------------------------------------------------------
ROLES = ("attacker_lead", "attacker_second", "defender_lead", "defender_second")


@dataclass(frozen=True)
class BlockFate:
    role: str
    state: str
    formation: str
    square_hits: int
    hits: int
    steps_lost: int
    retreats: int
    eliminated: bool
    skill: int
    redoubt_cubes: int = 0      # 28.5: cubes left on an Artillery Redoubt Block's rear

    def to_json(self):
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class CombatOutcome:
    result: str                 # final CRT result, after shifts and exceptions
    table: str                  # CRT line used (an Ordre Mixte redraw may switch to fire)
    critical: str | None        # Critical Combat Table icon, if checked
    attacker_morale: int
    defender_morale: int
    attacker_tokens_lost: int
    defender_tokens_lost: int
    blocks: tuple[BlockFate, ...]
    hq_fates: tuple[tuple[str, str], ...] = ()   # (side, what happened)
    zone_emptied: bool = False  # every defender left or died: the attacker may advance (25.0)
    advance_morale: bool = False  # Retreat Flag: +1 Morale if the attacker advances (23.5)
    square_formed: bool = False
    pile: Pile | None = None

    def fate(self, role: str) -> BlockFate | None:
        for f in self.blocks:
            if f.role == role:
                return f
        return None

    def to_json(self) -> dict:
        d = {"result": self.result, "table": self.table, "critical": self.critical,
             "attacker_morale": self.attacker_morale, "defender_morale": self.defender_morale,
             "attacker_tokens_lost": self.attacker_tokens_lost, "defender_tokens_lost": self.defender_tokens_lost,
             "blocks": [b.to_json() for b in self.blocks], "hq_fates": [list(h) for h in self.hq_fates],
             "zone_emptied": self.zone_emptied, "advance_morale": self.advance_morale,
             "square_formed": self.square_formed}
        if self.pile is not None:
            d["pile"] = self.pile.to_json()
        return d


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
        return replace(b, formation="none", square_hits=0, state="disrupted"), False, ("9.2", "the Square breaks")
    if b.formation == "grand_charge":
        return replace(b, formation="none"), False, ("27.2", "the Grand Charge marker absorbs the hit")
    if b.formation == "massed_column":
        if b.state == "disrupted":
            return replace(b, formation="none"), False, ("28.2", "the Massed Column is broken up")
        return replace(b, state="shaken" if b.state == "steady" else "disrupted"), False, None
    if b.state == "disrupted":
        return b, True, None
    return replace(b, state="shaken" if (b.infantry and b.state == "steady") else "disrupted"), False, None


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


def square_outcome(s: CombatSetup, icon: str) -> dict[str, Block]:
    """What the Square check card (23.1 step 6, 27.3) does to each eligible defender: forms Square on a
    pass, one hit on a failure. Also used to foresee, before the card, every possible odds column."""
    d = s.defender
    out = {}
    for r, b in (("defender_lead", d.lead), ("defender_second", d.second)):
        if b is None or not b.infantry or b.state == "disrupted" or b.square or \
                b.formation in ("massed_column", "roadway"):
            continue
        ok = read_check("general", icon, b.skill + (1 if d.steady_hq else 0), d.good_morale_for(b)).success
        out[r] = replace(b, formation="square", state="steady", square_hits=0) if ok else hit_block(b)[0]
    return out


def best_for(deck: Deck, table: str, player: str):
    """Ranking used by the calculators' default policy: the attacker prefers results further along the
    table's order (worst-for-attacker first), the defender the reverse."""
    def key(result: str) -> int:
        r = deck.rank(table, result)
        return r if player == "attacker" else -r
    return key


def neutral_policy(request: Choose):
    """Default policy for neutral shifts (23.4): each side picks what is best for it; the player who chooses
    first anticipates the last chooser's reply. ``request.context`` carries, for each possible final net
    shift, the rank of the result it gives (worst for the attacker first)."""
    ctx = request.context
    if not ctx or ctx[0] != "neutral":
        return request.options[0]
    _, ranks, fixed, order = ctx          # order: ((player, n), ...) from this chooser on
    rank_of = dict(ranks)

    def value(net: int, rest) -> int:
        if not rest:
            return rank_of[net]
        player, n = rest[0]
        vals = [value(net + k, rest[1:]) for k in range(-n, n + 1, 2)]
        return max(vals) if player == "attacker" else min(vals)

    player, n = order[0]
    scored = [(value(fixed + k, order[1:]), k) for k in request.options]
    pick = max(scored) if player == "attacker" else min(scored)
    return pick[1]


def resolve(s: CombatSetup, deck: Deck, pile: Pile, terrain: Terrain | None = None, _resume=None,
            _scenarios: tuple | None = None):
    """The combat procedure (23.1 step 6 to 27.11). Yields card draws and choices; returns a CombatOutcome."""
    terrain = terrain or default_terrain()
    a, d = s.attacker, s.defender
    blocks: dict[str, Block | None] = {"attacker_lead": a.lead, "attacker_second": a.second,
                                       "defender_lead": d.lead, "defender_second": d.second}
    hits = {r: 0 for r in ROLES}
    steps = {r: 0 for r in ROLES}
    retreats = {r: 0 for r in ROLES}
    gone = {r: False for r in ROLES}
    morale = {"attacker": 0, "defender": 0}
    tokens = {"attacker": 0, "defender": 0}
    side_hit = {"attacker": False, "defender": False}
    hq_fates: list[tuple[str, str]] = []
    no_retreat_paid = {"attacker": False, "defender": False}
    square_formed = False

    def side_of(role: str) -> Side:
        return a if role.startswith("attacker") else d

    def owner(role: str) -> str:
        return "attacker" if role.startswith("attacker") else "defender"

    def present(role: str) -> bool:
        return blocks[role] is not None and not gone[role]

    def lose_step(role: str, rule: str):
        b = blocks[role]
        steps[role] += 1
        if b.steps_lost + steps[role] >= block_steps(b):
            gone[role] = True
            morale[owner(role)] -= 1                 # 26.0: an eliminated Block costs one Morale
            yield Log(rule, f"{role.replace('_', ' ')} eliminated: its army loses one Morale (26.0)")
        else:
            yield Log(rule, f"{role.replace('_', ' ')} loses a step (11.0)")

    def cohesion_hit(role: str, rule: str):
        """One combat Cohesion Hit (9.2); a Disrupted Block hit retreats a Zone (24.1)."""
        if not present(role):
            return
        b = blocks[role]
        if s.special == "bombardment" and role == "attacker_lead" and not d.lead.artillery:
            yield Log("27.5", "bombarding artillery is immune to the hit")
            return
        saved = yield from redoubt_cube(b, owner(role), role.replace("_", " "))   # 28.5
        if saved is not None:
            blocks[role] = saved
            return
        hits[role] += 1
        side_hit[owner(role)] = True
        nb, must_retreat, note = hit_block(b)
        blocks[role] = nb
        if note:
            yield Log(note[0], f"{role.replace('_', ' ')}: {note[1]}")
        if must_retreat:                              # 24.1 retreat trigger
            yield from retreat(role, "24.1", by_hit=True)

    def retreat(role: str, rule: str, by_hit: bool = False):
        b = blocks[role]
        if b.square or b.formation == "massed_column":   # 24.1: they never retreat, a hit instead
            yield Log("24.1", f"{role.replace('_', ' ')} cannot retreat: takes a hit instead")
            yield from cohesion_hit(role, "24.1")
            return
        if b.redoubt_block:          # 28.5: it stays; the map eliminates it if the enemy advances (25.0)
            yield Log("28.5", f"{role.replace('_', ' ')}: the Redoubt Block must retreat but cannot move; "
                              "it is eliminated if the enemy advances")
            retreats[role] += 1
            return
        me = side_of(role)
        who = owner(role)
        eligible = b.infantry and (b.skill >= 3 or b.russian)
        if by_hit and me.no_retreat and eligible:          # 24.1 No Retreat!
            skill = b.skill + (1 if me.steady_hq else 0) + (1 if b.russian else 0)
            chk = yield from check("general", skill, me.good_morale_for(b), "24.1",
                                   f"No Retreat! check for {role.replace('_', ' ')}")
            if chk.success:
                if not no_retreat_paid[who]:
                    morale[who] -= 1
                    no_retreat_paid[who] = True
                yield Log("24.1", f"{role.replace('_', ' ')} holds: retreat cancelled, one Morale paid for the Zone")
                return
        retreats[role] += 1

    piles = {"p": pile}

    def draw(rule: str, label: str):
        face, p = yield from draw_card(piles["p"], deck, rule, label)
        piles["p"] = p.discarded(face)
        return face

    def check(table: str, skill: int, good: bool, rule: str, label: str):
        face = yield from draw(rule, label)
        return read_check(table, deck.skill(face), skill, good)

    def passes(b, icon, me: Side) -> bool:
        """A block's General Skill Check on a drawn icon (21.2), with the HQ +1."""
        return read_check("general", icon, b.skill + (1 if me.steady_hq else 0), me.good_morale_for(b)).success

    def checks_or_hits(roles: list, me: Side, label: str):
        """23.5: one card drawn for the group; each block that fails its check takes a Cohesion Hit."""
        icon = deck.skill((yield from draw("23.5", label)))
        for r in roles:
            if not passes(blocks[r], icon, me):
                yield from cohesion_hit(r, "23.5")

    def effects(result: str, table: str):
        """Everything after the final result is known (23.5-27.11): a memoised sub-procedure."""
        nonlocal square_formed
        A, D = blocks["attacker_lead"], blocks["defender_lead"]
        critical: str | None = None

        def critical_check(who: str):
            nonlocal critical
            me = a if who == "attacker" else d
            role = f"{who}_lead"
            face = yield from draw("23.5", f"Critical Combat Table ({who})")
            icon = deck.skill(face)
            critical = icon
            b = blocks[role]
            good = me.good_morale_for(b)
            if icon == "officer":
                morale[who] += 1
                yield Log("23.5", "Officer: the Morale loss is cancelled")
            elif flags_needed(icon) is not None:
                n = flags_needed(icon)
                if s.wavering_troops and not b.artillery and b.skill + (1 if me.steady_hq else 0) < n:
                    if b.skill == 0:
                        gone[role] = True
                        yield Log("29.7", "wavering militia removed from the game")
                    else:
                        blocks[role] = replace(b, skill=b.skill - 1)
                        yield Log("29.7", f"wavering troops: lead skill drops to {b.skill - 1}")
            elif icon == "crossed_flags":
                if not good:
                    yield from lose_step(role, "23.5")
            else:  # death head
                tokens[who] += 1
                yield Log("23.5", "Death Head: one Attack Token discarded from the Army Mat")
                if blocks[role].state == "disrupted" and present(role):
                    yield from lose_step(role, "23.5")

        zone = ("attacker_lead", "attacker_second")
        target = ("defender_lead", "defender_second")
        area = s.special == "bombardment" and s.bombard_range == 1      # 27.5 area effect

        if table == "fire":
            if result == "muskets_shot":
                yield from cohesion_hit("attacker_lead", "23.5")
                for r in (target if area else ("defender_lead",)):
                    yield from cohesion_hit(r, "23.5")
            elif result == "round_shot":
                for r in (target if area else ("defender_lead",)):
                    yield from cohesion_hit(r, "23.5")
            elif result == "skull_bones":
                morale["defender"] -= 1
                yield from critical_check("defender")
                for r in (target if area else ("defender_lead",)):
                    yield from cohesion_hit(r, "23.5")
        else:
            if result == "black_cross":
                morale["attacker"] -= 1
                yield from critical_check("attacker")
                for r in zone:
                    yield from cohesion_hit(r, "23.5")
            elif result == "horse_head":
                def steady_cav(b):
                    return b is not None and b.kind == "cavalry" and not b.shots and (b.steady or
                                                                                     b.formation == "grand_charge")
                if steady_cav(A) or steady_cav(D):
                    yield Log("23.5", "Cavalry Battle")
                    for side_roles, me in ((zone, a), (target, d)):
                        cav = [r for r in side_roles if present(r) and blocks[r].kind == "cavalry"]
                        if cav:
                            yield from checks_or_hits(cav, me, f"cavalry skill check ({owner(cav[0])})")
                    if steady_cav(A):
                        for r in target:
                            b = blocks[r] if present(r) else None
                            if b is None or b.kind == "cavalry":
                                continue
                            if b.infantry and b.steady and not b.square and b.formation != "massed_column":
                                blocks[r] = replace(b, formation="square", square_hits=0)
                                square_formed = True
                                yield Log("23.5", f"{r.replace('_', ' ')} forms Square automatically")
                            elif not b.square:
                                yield from cohesion_hit(r, "23.5")
                    if steady_cav(D):
                        for r in zone:
                            b = blocks[r] if present(r) else None
                            if b is None or b.kind == "cavalry" or b.square:
                                continue
                            yield from cohesion_hit(r, "23.5")
            elif result == "bayonets":
                for r in zone + target:
                    yield from cohesion_hit(r, "23.5")
            elif result == "bayonets_burst":
                for r in target:
                    yield from cohesion_hit(r, "23.5")
                here = [r for r in zone if present(r)]
                if here:
                    yield from checks_or_hits(here, a, "attackers' skill check (Bayonets & Burst)")
            elif result == "burst":
                for r in target:
                    yield from cohesion_hit(r, "23.5")
                still = [r for r in target if present(r)]
                if still and all(retreats[r] > 0 for r in still):
                    face = yield from draw("23.5", "retreating defenders' skill check (Burst)")
                    icon = deck.skill(face)
                    if any(not passes(blocks[r], icon, d) for r in still):
                        morale["defender"] -= 1
                        yield Log("23.5", "a retreating defender failed: one Morale lost")
            elif result == "retreat_flag":
                morale["defender"] -= 1
                yield from critical_check("defender")
                for r in target:
                    if present(r):
                        yield from retreat(r, "23.5")
                for r in target:
                    yield from cohesion_hit(r, "23.5")

        # ---- HQs in a Zone that took hits check their fate (27.10, 27.11) ---------------------------------
        for who, me in (("attacker", a), ("defender", d)):
            if me.hq is not None and side_hit[who]:
                face = yield from draw("27.10", f"{who} HQ fate of war")
                f = read_fate(deck.skill(face), me.hq.skill, me.morale == "good", hq_kind=me.hq.kind,
                              assault=table == "assault")
                if f.commander_hors_de_combat and me.hq.perspective and me.hq.kind == "hq":
                    # 29.1 safety bonus: a card that would strike the Commander is drawn again, once
                    yield Log("29.1", f"{who} Commander in Command Perspective: the Fate of War card is redrawn")
                    face = yield from draw("29.1", f"{who} HQ fate of war, redrawn")
                    f = read_fate(deck.skill(face), me.hq.skill, me.morale == "good", hq_kind=me.hq.kind,
                                  assault=table == "assault")
                icon = f.icon
                morale[who] += f.morale
                what = "no effect"
                if f.hq_hit:
                    what = "HQ hit" + (", one Morale lost" if f.morale else "") + \
                        (" and the Army Commander is Hors de Combat" if f.commander_hors_de_combat else "")
                hq_fates.append((who, what))
                yield Log("27.11", f"{who} HQ: {icon}: {what}")

        fates = []
        for r in ROLES:
            b = blocks[r]
            if b is None:
                continue
            fates.append(BlockFate(r, b.state, b.formation, b.square_hits, hits[r], steps[r], retreats[r], gone[r],
                                   b.skill, b.redoubt_cubes))
        emptied = table == "assault" and all(not present(r) or retreats[r] > 0 for r in target)
        out = CombatOutcome(result, table, critical, morale["attacker"], morale["defender"], tokens["attacker"],
                            tokens["defender"], tuple(fates), tuple(hq_fates), emptied,
                            emptied and result == "retreat_flag", square_formed,
                            piles["p"] if piles["p"].tracked else None)
        return out


    def freeze(*extra):
        return (s, square_formed, piles["p"], tuple(blocks.items()), tuple(hits.items()), tuple(steps.items()),
                tuple(retreats.items()), tuple(gone.items()), tuple(morale.items()), tuple(tokens.items()),
                tuple(side_hit.items())) + extra

    stage = None
    if _resume is not None:               # a memoised sub-procedure: carry on from a frozen state
        stage, snap = _resume
        (s, square_formed, piles["p"], b_items, h_items, st_items, r_items, g_items, m_items, t_items,
         sh_items) = snap[:11]
        a, d = s.attacker, s.defender
        for target_dict, items in ((blocks, b_items), (hits, h_items), (steps, st_items), (retreats, r_items),
                                   (gone, g_items), (morale, m_items), (tokens, t_items), (side_hit, sh_items)):
            target_dict.update(items)
        if stage == "effects":
            result, table = snap[11:]
            return (yield from effects(result, table))

    redraw_rule = s.special in ("ordre_mixte", "artillery_assault")
    summarised = not piles["p"].tracked
    if stage is None:
        if s.clash_of_wills != "none":          # 27.7: declaring it costs the declaring army one Morale at once
            morale[s.clash_of_wills] -= 1
            yield Log("27.7", f"Clash of Wills declared by the {s.clash_of_wills}: one Morale lost")
        if summarised:          # odds: keep only what the draws below look at (icons, this table's rows)
            piles["p"] = piles["p"].summarise(deck, (s.attack, "fire") if redraw_rule else (s.attack,))
        # ---- 23.1 step 6: Square attempt against a Lead Cavalry assault --------------------------------
        if s.attack == "assault" and a.lead.kind == "cavalry" and s.square_attempt and square_outcome(s, "officer"):
            if summarised and not redraw_rule:
                # odds: foresee the column and shifts after every possible Square check, and keep of each card
                # only its icon and the results it can give; alike cards then share one branch
                piles["p"] = piles["p"].project_results(deck, s.attack, _scenarios or _square_scenarios(s, terrain))
            face = yield from draw("23.1", "square formation check (one card for the Zone)")
            icon = deck.skill(face)
            for r, nb in square_outcome(s, icon).items():
                if nb.square:
                    blocks[r] = nb
                    square_formed = True
                    yield Log("27.3", f"{r.replace('_', ' ')} forms a Square")
                else:
                    yield Log("27.3", f"{r.replace('_', ' ')} fails to form a Square and takes a hit")
                    yield from cohesion_hit(r, "23.1")
            s = replace(s, defender=replace(d, lead=blocks["defender_lead"], second=blocks["defender_second"]))
            d = s.defender

    tally = prepare(s, terrain)
    table = tally.table
    # neutral shifts (23.4): decided after the draw, non-initiative player first, initiative player last
    order = [(p, n) for p, n in (("attacker", s.neutral_attacker), ("defender", s.neutral_defender)) if n]
    order.sort(key=lambda pn: pn[0] == s.initiative)
    nets = _nets(s, tally.net_shift)
    if stage is None and summarised and not redraw_rule:
        # odds: each card now only matters by its icon and the result it gives at this column for each
        # possible net shift; cards alike in both count as one branch, and the rest is memoised
        piles["p"] = piles["p"].project_results(deck, table, tuple((tally.column, n) for n in nets))
        snap = freeze()
        out = yield Sub(("bc-combat-card", deck, terrain, snap),
                        partial(resolve, s, deck, piles["p"], terrain, _resume=("card", snap)),
                        rule="23.2" if table == "fire" else "23.3", label="combat card and its effects")
        return out

    # ---- the combat card (23.2 / 23.3) --------------------------------------------------------------
    rule = "23.2" if table == "fire" else "23.3"
    face = yield from draw(rule, f"combat card ({table}, column {tally.column:+d})")
    outcomes = tuple((n, r) for (c, n), r in deck.results(face, table, tuple((tally.column, n) for n in nets)))
    if summarised and not redraw_rule:
        piles["p"] = piles["p"].summarise(deck, ())
    net = tally.net_shift
    for i, (player, n) in enumerate(order):
        pick = yield Choose(tuple(range(-n, n + 1, 2)), rule="23.4", player=player,
                            label=f"net direction of {n} neutral shift(s)",
                            context=("neutral", tuple((k, deck.rank(table, r)) for k, r in outcomes), net,
                                     tuple(order[i:])))
        net += pick
    result = dict(outcomes)[net]
    yield Log("23.4", f"column {tally.column:+d}, net shift {net:+d}: {result}")

    # Ordre Mixte / Artillery Assault redraw (27.6): switch to the Fire line at the same odds and shifts
    if redraw_rule:
        redraw = yield Choose((result in s.ordre_mixte_redraw, not (result in s.ordre_mixte_redraw)), rule="27.6",
                              player="attacker", label=f"redraw and use the Fire line instead of {result}?")
        if redraw:
            face = yield from draw("27.6", f"redraw card (fire, column {tally.column:+d})")
            table = "fire"
            result = deck.results(face, "fire", ((tally.column, net),))[0][1]
            yield Log("27.6", f"redraw on the Fire line: {result}")
        if summarised:
            piles["p"] = piles["p"].summarise(deck, ())

    # ---- exceptions (23.5) ----------------------------------------------------------------------------
    A, D = blocks["attacker_lead"], blocks["defender_lead"]
    if table == "fire" and result == "muskets_shot":
        shots = [r for r in ("attacker_lead", "defender_lead") if blocks[r].shots
                 and blocks[r].kind in INFANTRY + ("cavalry",)]
        other = {"attacker_lead": D, "defender_lead": A}
        if len(shots) == 1 and other[shots[0]].infantry:
            who = owner(shots[0])
            change = yield Choose((s.skirmish_gun_smoke, not s.skirmish_gun_smoke), rule="23.5", player=who,
                                  label="skirmishers: change Muskets & Shot to Gun Smoke?")
            if change:
                result = "gun_smoke"
                yield Log("23.5", "skirmishers turn the exchange into Gun Smoke")
    if table == "assault" and result == "bayonets_burst":
        if D.burst and D.steady and not A.burst:
            result = "bayonets"
            yield Log("23.5", "defender's Burst: Bayonets & Burst becomes Bayonets")
        elif A.burst and A.steady and not D.burst:
            result = "burst"
            yield Log("23.5", "attacker's Burst: Bayonets & Burst becomes Burst")

    snap = freeze(result, table)
    out = yield Sub(("bc-combat-effects", deck, terrain, snap),
                    partial(resolve, s, deck, piles["p"], terrain, _resume=("effects", snap)),
                    rule="23.5", label=f"effects of {result}")
    return out


def _nets(s: CombatSetup, fixed: int) -> tuple[int, ...]:
    nets = {fixed}
    for n in (s.neutral_attacker, s.neutral_defender):
        if n:
            nets = {x + k for x in nets for k in range(-n, n + 1, 2)}
    return tuple(sorted(nets))


def _square_scenarios(s: CombatSetup, terrain: Terrain) -> tuple[tuple[int, int], ...]:
    """Every (column, net shift) the combat card may be read at, whatever the Square check gives."""
    out = set()
    for icon in ("officer", "flags_1", "flags_2", "flags_3", "flags_4", "crossed_flags", "death_head"):
        d = s.defender
        new = square_outcome(s, icon)
        s2 = replace(s, defender=replace(d, lead=new.get("defender_lead", d.lead),
                                         second=new.get("defender_second", d.second)))
        t = prepare(s2, terrain)
        out |= {(t.column, n) for n in _nets(s2, t.net_shift)}
    return tuple(sorted(out))


def combat_procedure(setup: CombatSetup, deck: Deck, pile: Pile, terrain: Terrain | None = None):
    """Validate now (a bad set-up raises before anything is drawn) and return the factory for the drivers."""
    terrain = terrain or default_terrain()
    prepare(setup, terrain)
    scen = None
    if setup.attack == "assault" and setup.attacker.lead.kind == "cavalry" and setup.square_attempt:
        scen = _square_scenarios(setup, terrain)
    return partial(resolve, setup, deck, pile, terrain, _scenarios=scen)
