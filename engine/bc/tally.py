"""Battle Commander combat set-up and tally (10.0, 23.1-23.6): who may attack with what, Combat Points with
supports and terrain, the odds column and the fixed shifts, every line citing its rule.

A :class:`CombatSetup` is both Zones of a combat as values (each side a :class:`CombatSide`: Lead, second
line, HQ, wing candidates, morale, terrain), read from a combat file (:class:`CombatModel`, docs/bc.md) or
built from the map (:mod:`engine.bc.game.combat`). :func:`prepare` checks it against table 23.6 and tallies
it; the combat procedure (:mod:`engine.bc.combat`) reads the card at that column.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field, model_validator

from engine.core.data import Sourced, Strict, data_path, load_yaml
from engine.core.errors import RuleViolation
from engine.core.values import cached_hash_repr

from .blocks import BLOCK_KINDS, HQ, Block, BlockModel, HQModel
from .deck import COLUMNS
from .terrain import Terrain, default_terrain

__all__ = ["FIRE_CP", "ASSAULT_CP", "SUPPORT_CP", "WingModel", "Wing", "SideModel", "CombatModel", "CombatSide",
           "CombatSetup", "Line", "Shift", "Tally", "check_attacker", "second_supports", "wing_supports", "prepare"]


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


class WingModel(Strict):
    block: BlockModel
    adjacent_to_attacker: bool = True
    in_flanked_zone: bool = False
    engaged: bool = False
    in_other_enemy_battle_zone: bool = False
    across_impassable: bool = False


@cached_hash_repr       # a combat's odds key their memo by it at every step: hashed once
@dataclass(frozen=True)
class Wing:
    """A candidate Wing Support: a friendly Lead Block next to the target Zone (23.1 step 5)."""

    block: Block
    adjacent_to_attacker: bool = True       # 9.4 condition II needs a Wing not next to the Lead Attacker
    in_flanked_zone: bool = False           # 9.4 condition I
    engaged: bool = False                   # 23.1: already has an Attack Token
    in_other_enemy_battle_zone: bool = False  # 23.1: in the BZ of a non-engaged Steady enemy Lead Block
    across_impassable: bool = False         # 23.1


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


@cached_hash_repr       # a combat's odds key their memo by it at every step: hashed once
@dataclass(frozen=True)
class CombatSide:
    lead: Block
    second: Block | None = None
    hq: HQ | None = None
    wings: tuple[Wing, ...] = ()
    morale: str = "good"
    in_flanked_zone: bool = False
    terrain: str = "clear"
    no_retreat: bool | None = False   # 24.1 No Retreat! tried (None: the owner decides at each retreat, as in a game)
    redoubt: bool = False      # 28.5: defending in a Redoubt that covers the attacked interval

    @property
    def steady_hq(self) -> bool:
        """A Steady HQ that gives the +1 Skill bonus (21.0; not a main HQ in Command Perspective, 29.1)."""
        return self.hq is not None and self.hq.gives_bonus

    def good_morale_for(self, b: Block) -> bool:
        """Army morale as a Block feels it: Grognards and Fresh Lead Zones always count as Good (29.8, 29.4)."""
        return self.morale == "good" or b.grognard or self.lead.fresh


@cached_hash_repr       # a combat's odds key their memo by it at every step: hashed once
@dataclass(frozen=True)
class CombatSetup:
    attack: str
    attacker: CombatSide
    defender: CombatSide
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
    square_attempt: bool | None = True            # 23.1 step 6 tried (None: the defender decides, as in a game)
    skirmish_gun_smoke: bool = True
    ordre_mixte_redraw: tuple[str, ...] = ("black_cross", "horse_head")
    wavering_troops: bool = False                 # optional rule 29.7
    red_cube: bool = True                         # False for a card-triggered combat (27.1)
    large_battle: bool = False                    # 27.6: a scenario's Large Battle (Ordre Mixte unsupported)
    players: tuple[str, str] = ("attacker", "defender")   # who answers each side's questions (a game: the sides)

    @classmethod
    def from_model(cls, m: CombatModel) -> "CombatSetup":
        def side(s: SideModel) -> CombatSide:
            return CombatSide(Block.from_model(s.lead), Block.from_model(s.second) if s.second else None,
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


def check_attacker(s: CombatSetup) -> None:
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
        supported = s.attacker.second is not None and second_supports(s.attacker.second, "assault")
        if not (b.kind == "long_infantry" or (b.kind == "infantry" and (supported or s.large_battle))):
            raise RuleViolation("27.6", "only a Steady Long Infantry, or a Short Infantry with support, may lead an "
                                        "Ordre Mixte (a Short Infantry alone in a Large Battle)")


def second_supports(b: Block, table: str) -> bool:
    """Table 23.6 Second Line support: Steady, not in Square; Fire: only Artillery (note A)."""
    if b.state != "steady" or b.square or b.formation == "roadway":
        return False
    if b.kind == "garrison":
        return False
    if table == "fire":
        return b.artillery
    return True


def wing_supports(w: Wing, table: str) -> str | None:
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


def prepare(s: CombatSetup, terrain: Terrain | None = None, declared: bool = False) -> Tally:
    """Check the set-up and tally Combat Points, supports, terrain, the odds column and the fixed shifts.
    ``declared``: a Clash of Wills already declared keeps its shift, even if the Square check changed the Lead
    since (27.7 is checked when it is declared)."""
    terrain = terrain or default_terrain()
    check_attacker(s)
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
    if a.second is not None and not paired and not bombard and second_supports(a.second, table):
        lines.append(Line("attacker", f"second line {a.second.label()} support", SUPPORT_CP, "23.1"))
    wings_counted: list[int] = []
    if not bombard and s.special != "grand_charge":
        for i, w in enumerate(a.wings):
            if wing_supports(w, table) is None:
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
        if d.second is not None and not d_paired and second_supports(d.second, "assault"):
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
            if not declared and (not me.lead.steady or my <= theirs):
                raise RuleViolation("27.7", f"a Clash of Wills needs a Steady Lead Block of higher skill than the "
                                            f"enemy Lead ({my} against {theirs}, HQ bonus included)")
            shifts.append(Shift(1 if s.clash_of_wills == "attacker" else -1, f"clash of wills ({s.clash_of_wills})",
                                "27.7"))
    if s.card_shifts:
        if not s.red_cube:
            raise RuleViolation("27.1", "no combat cards may be played outside a Red Cube draw")
        shifts.append(Shift(s.card_shifts, "event card shifts", "23.1"))
    return Tally(table, tuple(lines), att, dfn, raw, column, tuple(shifts), flanked, tuple(wings_counted))


