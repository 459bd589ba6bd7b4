"""Exact combat analysis: the enumerate driver over :func:`engine.lob.combat.combat` under named policies.

Builds a :class:`~engine.lob.combat.CombatContext` from the map (terrain, approach, river/stream,
retreat routes), runs the one combat procedure exactly, and summarises: the chance the attacker takes
the area, the distribution of hits on each unit, each side's expected morale change, the chance of a
follow-up cavalry charge (5.3.1).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Literal

from pydantic import Field

from engine.core.data import Strict, load_yaml, parse_yaml
from engine.core.dist import Dist, prob_json
from engine.core.errors import RuleViolation
from engine.core.procedure import distribution, enumerate_tree

from .board import Board, default_board, load_board
from .combat import combat
from .fight import CombatContext, CombatResult, Retreat, combat_result
from .policies import CombatPolicy
from .rounds import clear_roll_cache
from .tables import Tables, default_tables
from .units import ART, CAV, INF, Unit, other_side

__all__ = ["make_context", "CombatSpec", "UnitSpec", "load_combat", "combat_from_spec", "Analysis", "analyse",
           "combat_tree"]


def make_context(board: Board, target: str, origin: str, attacker_side: str,
                 occupied: dict[str, str] | None = None, *, charge: bool = False, rain: bool = False,
                 tables: Tables | None = None, approach_holders: tuple[str, ...] = (),
                 att_traits: frozenset[str] = frozenset(), dfn_traits: frozenset[str] = frozenset()) -> CombatContext:
    """The fixed facts of a combat from the map. ``occupied`` maps areas to the side holding them."""
    board.check_area(target, "target area")
    board.check_area(origin, "origin area")
    if not board.adjacent(origin, target):
        raise RuleViolation("4.2.2", f"area {origin} does not border area {target}: an attack enters an adjacent area")
    occupied = occupied or {}
    cross = board.crossing(origin, target)
    if cross.water == "river" and not cross.crossing and not charge:
        raise RuleViolation("Albuera terrain 6", f"no attack across the river between {origin} and {target} "
                                                 f"except at a bridge or ford")
    defender_side = other_side(attacker_side)

    def retreat(area: str) -> Retreat:
        c = board.crossing(target, area)
        return Retreat(area, board.is_close(area), c.water, c.crossing)

    dfn_routes = tuple(retreat(a) for a in sorted(board.neighbours(target))
                       if a != origin and occupied.get(a) != attacker_side)
    cav_routes = tuple(retreat(a) for a in sorted(board.neighbours(target))
                       if occupied.get(a) != defender_side)
    return CombatContext(
        target=target, origin=origin, attacker_side=attacker_side, defender_side=defender_side,
        target_close=board.is_close(target), target_town=board.terrain(target) == "town",
        target_open=not board.is_close(target), origin_close=board.is_close(origin),
        origin_terrain=board.terrain(origin), approach=cross.approach, water=cross.water,
        crossing=cross.crossing, defender_retreats=dfn_routes, cavalry_retreats=cav_routes,
        origin_retreat=Retreat(origin, board.is_close(origin), cross.water, cross.crossing),
        approach_holders=tuple(sorted(approach_holders)), charge=charge, rain=rain,
        att_traits=frozenset(att_traits), dfn_traits=frozenset(dfn_traits),
        tables=tables or default_tables())


# ------------------------------------------------------------------------------------------------
# Combat description files (the CLI's COMBAT argument)
# ------------------------------------------------------------------------------------------------
class UnitSpec(Strict):
    uid: str = Field(min_length=1)
    kind: Literal["inf", "cav", "art"]
    rating: int = Field(default=0, ge=0, le=9)
    hits: int = Field(default=0, ge=0)
    cav: Literal["heavy", "light", "lancer"] | None = None
    approach: str | None = None        # the area the unit's approach faces
    square: bool = False
    deployed: bool = False
    arty: Literal["foot", "horse", "heavy", "rockets"] = "foot"


class CombatSpec(Strict):
    target: str
    origin: str
    attacker_side: Literal["French", "Allied"] = "French"
    attackers: tuple[UnitSpec, ...] = Field(min_length=1)
    defenders: tuple[UnitSpec, ...] = Field(min_length=1)
    enemy_adjacent: tuple[str, ...] = ()     # areas next to the target held by the attacker's side
    friendly_adjacent: tuple[str, ...] = ()  # areas next to the target held by the defender's side
    charge: bool = False
    rain: bool = False


def _unit(spec: UnitSpec, side: str, area: str, board: Board, where: str) -> Unit:
    if spec.kind == CAV and spec.cav is None:
        raise RuleViolation("1.2", f"{where} {spec.uid}: cavalry needs a type (heavy, light or lancer)")
    if spec.kind != CAV and spec.cav is not None:
        raise RuleViolation("1.2", f"{where} {spec.uid}: only cavalry has a cavalry type")
    if spec.kind == ART and (spec.rating or spec.hits):
        raise RuleViolation("1.2", f"{where} {spec.uid}: artillery has no rating and no hits (one hit eliminates it)")
    if spec.kind != ART and spec.rating < 1:
        raise RuleViolation("1.2", f"{where} {spec.uid}: infantry and cavalry need a rating of 1 or more")
    if spec.kind != ART and spec.hits > spec.rating:
        raise RuleViolation("1.2", f"{where} {spec.uid}: {spec.hits} hits on rating {spec.rating} means eliminated")
    if spec.approach is not None:
        if spec.kind != INF:
            raise RuleViolation("1.1", f"{where} {spec.uid}: only infantry may stand on an approach")
        board.check_area(spec.approach, "approach area")
        if not board.adjacent(area, spec.approach):
            raise RuleViolation("1.1", f"{where} {spec.uid}: area {area} does not border {spec.approach}")
        if not board.has_approach(area, spec.approach):
            raise RuleViolation("1.1", f"{where} {spec.uid}: no approach between {area} and {spec.approach} "
                                       f"(approaches lie only between two open areas)")
        if spec.square:
            raise RuleViolation("4.2.2", f"{where} {spec.uid}: infantry on an approach cannot be in square")
    if spec.square and (spec.kind != INF or board.is_close(area)):
        raise RuleViolation("4.2.2", f"{where} {spec.uid}: only infantry in open terrain may form square")
    return Unit(uid=spec.uid, side=side, kind=spec.kind, rating=spec.rating, hits=spec.hits, cav=spec.cav,
                area=area, approach=spec.approach, square=spec.square,
                deployed=spec.deployed and spec.kind == ART, arty=spec.arty)


def combat_from_spec(spec: CombatSpec, board: Board | None = None, tables: Tables | None = None):
    """(context, attackers, defenders) from a combat description; bad descriptions raise RuleViolation."""
    board = board or default_board()
    for field, areas in (("enemy_adjacent", spec.enemy_adjacent), ("friendly_adjacent", spec.friendly_adjacent)):
        for a in areas:
            board.check_area(a, f"{field} area")
            if a == spec.target or not board.adjacent(a, spec.target):
                raise RuleViolation("5.1.2", f"{field}: area {a} does not border the target {spec.target}; list "
                                             f"only areas next to it")
    both = sorted(set(spec.enemy_adjacent) & (set(spec.friendly_adjacent)))
    if both:
        raise RuleViolation("1.1", f"area(s) {', '.join(both)} listed in both enemy_adjacent and friendly_adjacent: "
                                   f"an area holds one side only")
    if spec.origin in spec.friendly_adjacent:
        raise RuleViolation("1.1", f"friendly_adjacent lists {spec.origin}, the attackers' own area")
    occupied: dict[str, str] = {a: spec.attacker_side for a in spec.enemy_adjacent}
    occupied.update({a: other_side(spec.attacker_side) for a in spec.friendly_adjacent})
    occupied[spec.origin] = spec.attacker_side
    ctx = make_context(board, spec.target, spec.origin, spec.attacker_side, occupied, charge=spec.charge,
                       rain=spec.rain, tables=tables)
    att = tuple(_unit(u, spec.attacker_side, spec.origin, board, "attacker") for u in spec.attackers)
    dfn = tuple(_unit(u, other_side(spec.attacker_side), spec.target, board, "defender") for u in spec.defenders)
    if board.is_close(spec.target) and any(u.kind == ART and u.deployed for u in dfn):
        raise RuleViolation("Albuera terrain 2-3", f"artillery in close terrain ({spec.target}) must stay limbered")
    approaches = [u.approach for u in dfn if u.approach]
    if len(approaches) != len(set(approaches)):
        raise RuleViolation("1.1", "only one infantry unit may occupy an approach")
    a_on = [u.uid for u in att if u.approach == spec.target]
    d_on = [u.uid for u in dfn if u.approach == spec.origin]
    if len(a_on) > 1 or (a_on and d_on):
        raise RuleViolation("1.1", f"{', '.join(a_on + d_on)} all stand on the approach between {spec.origin} and "
                                   f"{spec.target}: it holds one infantry unit only")
    return ctx, att, dfn


def load_combat(path: str | Path, board: Board | None = None, tables: Tables | None = None):
    return combat_from_spec(load_yaml(path, CombatSpec), board, tables)


def parse_combat(text: str, board: Board | None = None, tables: Tables | None = None, file: str = "<combat>"):
    return combat_from_spec(parse_yaml(text, CombatSpec, file), board, tables)


# ------------------------------------------------------------------------------------------------
# Analysis
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Analysis:
    ctx: CombatContext
    attackers: tuple[Unit, ...]
    defenders: tuple[Unit, ...]
    policy: CombatPolicy
    dist: Dist  # over CombatResult

    @property
    def attacker_takes_area(self) -> Fraction:
        return self.dist.prob(lambda r: combat_result(r).taken)

    def hits_dist(self, uid: str) -> Dist:
        start = next(u for u in self.attackers + self.defenders if u.uid == uid).hits
        return self.dist.map(lambda r: combat_result(r).unit(uid).hits - start)

    def expected_hits(self, uid: str) -> Fraction:
        return self.hits_dist(uid).expect()

    def eliminated(self, uid: str) -> Fraction:
        return self.dist.prob(lambda r: combat_result(r).unit(uid).eliminated)

    def expected_morale(self, side: str) -> Fraction:
        return self.dist.expect(lambda r: combat_result(r).morale()[side])

    @property
    def charge_chance(self) -> Fraction:
        return self.dist.prob(lambda r: bool(combat_result(r).charge_units()))

    def stage_dist(self) -> Dist:
        return self.dist.map(lambda r: combat_result(r).stage)

    def to_json(self) -> dict:
        units = self.attackers + self.defenders
        return {
            "target": self.ctx.target, "origin": self.ctx.origin,
            "attacker": self.ctx.attacker_side, "defender": self.ctx.defender_side,
            "policy": {"attacker": self.policy.attacker, "defender": self.policy.defender},
            "attacker_takes_area": prob_json(self.attacker_takes_area),
            "expected_hits": {u.uid: _frac_json(self.expected_hits(u.uid)) for u in units},
            "hits_distribution": {u.uid: {str(h): prob_json(p) for h, p in sorted(self.hits_dist(u.uid).items())}
                                  for u in units},
            "eliminated": {u.uid: prob_json(self.eliminated(u.uid)) for u in units},
            "expected_morale": {s: _frac_json(self.expected_morale(s))
                                for s in (self.ctx.attacker_side, self.ctx.defender_side)},
            "cavalry_charge_possible": prob_json(self.charge_chance),
            "how_it_ends": {k: prob_json(v) for k, v in sorted(self.stage_dist().items())},
            "outcomes": len(self.dist),
            "provenance": self.ctx.tables.provenance(),
        }


def _frac_json(x: Fraction) -> dict:
    x = Fraction(x)
    return {"fraction": f"{x.numerator}/{x.denominator}", "float": float(x)}


def analyse(ctx: CombatContext, attackers, defenders, policy: CombatPolicy | None = None,
            memo: dict | None = None) -> Analysis:
    """Exact analysis of one combat under ``policy`` (default: both sides stay)."""
    policy = policy or CombatPolicy()
    clear_roll_cache()        # measure and compute from cold: no carry-over between analyses
    dist = distribution(partial(combat, ctx, tuple(attackers), tuple(defenders)), policy=policy, memo=memo)
    return Analysis(ctx, tuple(attackers), tuple(defenders), policy, dist)


def combat_tree(ctx: CombatContext, attackers, defenders, policy: CombatPolicy | None = None):
    """The probability tree of the combat (sub-procedure nodes carry their own subtrees)."""
    return enumerate_tree(partial(combat, ctx, tuple(attackers), tuple(defenders)), policy=policy or CombatPolicy())
