"""Cavalry charges (6.2.8-6.2.11) as one chained procedure.

attempt check (6.2.8 D) -> reaction charges by nearby enemy cavalry (6.2.10) -> for each target hex
in turn: counter charge (6.2.9) or each unit's Being Charged check (6.2.8 E-F) -> all routed: the
charger enters the vacated hex and goes on if it has MPs for the next target (6.2.8 G-H); someone
stands: the charge stops next to it and the melee follows -> routers the charger ends next to
surrender (6.2.8 I) -> Charged marker (6.2.8 L) and automatic fatigue after the Melee Segment
(4.2.3, 6.2.8 J).

Every check is the single Fatigue Check procedure, called as a memoised sub-procedure, so play,
replay and the exact tree share it.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

from engine.core.errors import DataError, RuleViolation
from engine.core.hexgrid import HexGrid
from engine.core.procedure import Choose, Log, Policy, Sub, enumerate_tree, first_option
from engine.core.tree import Tree

from .fatigue import CheckSpec, check_sub
from .fire import Firer, FireSetup, fire_combat
from .melee import Fighter, MeleeSetup, melee_sub
from .steps import Steps
from .tables import STATUSES, Tables

__all__ = ["Target", "Reactor", "ChargeSetup", "ChargeOutcome", "charge_outcome", "charge", "charge_proc",
           "charge_tree", "charge_from_spec", "charge_lines", "frontal_directions", "validate"]


@dataclass(frozen=True)
class Target:
    hex: str
    units: tuple[Fighter, ...]
    cost: int = 1                 # MPs to enter this hex (6.2.8 G)
    rout_to: str | None = None    # hex where its routers end their rout move (for 6.2.8 I)
    shift: int = 0                # melee column shift if the charge ends in a melee against this hex
    counter_arc: bool = True      # 6.2.9 A: the charger starts or passes in this target's frontal charge arc


@dataclass(frozen=True)
class Reactor:
    """An enemy cavalry unit that may try a Reaction Charge (6.2.10) before target number ``before``."""

    unit: Fighter
    before: int = 0


@dataclass(frozen=True)
class ChargeSetup:
    charger: Fighter
    targets: tuple[Target, ...]
    mp_left: int                       # MPs the charger has left when it declares the charge
    approach_cost: int = 0             # MPs to reach the hex next to the first target
    start_next_to_first: str = ""      # the hex next to the first target (where a stopped charge ends)
    reactors: tuple[Reactor, ...] = ()
    resolve_melee: bool = True
    grid: HexGrid | None = None
    defensive_fire: bool = False       # standing targets fire at the charger before the melee (6.2.8 K)


@dataclass(frozen=True)
class ChargeOutcome:
    attempted: bool
    steps: tuple[str, ...]             # what happened at each target, in order
    stopped: str                       # why the charge ended
    ended_at: str = ""                 # hex where the charger ends
    surrendered: tuple[str, ...] = ()  # units removed by surrender (6.2.8 F, 6.2.8 I)
    melee: str = ""                    # melee result when the charge ends in one

    def __str__(self) -> str:
        if not self.attempted:
            return "attempt failed: no charge"
        bits = list(self.steps) + [f"stopped: {self.stopped}"]
        if self.surrendered:
            bits.append("surrendered: " + ", ".join(self.surrendered))
        if self.melee:
            bits.append(f"melee {self.melee}")
        return "; ".join(bits)


def charge_outcome(o: Hashable) -> ChargeOutcome:
    """An outcome of a charge's distribution as the value it is (a :class:`Dist` holds hashables)."""
    return cast(ChargeOutcome, o)


def validate(setup: ChargeSetup, tables: Tables) -> None:
    """Refuse a charge that may not be declared (6.2.8 A-C, 4.2.4 F), naming the rule; nothing is rolled."""
    c = setup.charger
    if c.kind != "cavalry":
        raise RuleViolation("6.2.8 A", f"{c.name} is not cavalry: only cavalry charges")
    if c.status != "normal":
        raise RuleViolation("4.2.4 F", f"{c.name} is {c.status}: fatigued or routed cavalry may not charge")
    if not setup.targets:
        raise RuleViolation("6.2.8 C", "a charge needs a declared target hex")
    if c.ma <= 0:
        raise RuleViolation("6.2.8 A", f"{c.name} needs a positive printed MA")
    if setup.mp_left < c.ma // 2:
        raise RuleViolation("6.2.8 A", f"{c.name} has {setup.mp_left} MPs left, fewer than half its printed MA "
                                       f"({c.ma // 2})")
    if setup.mp_left < setup.approach_cost + setup.targets[0].cost:
        raise RuleViolation("6.2.8 A", f"{c.name} has {setup.mp_left} MPs left, not enough to reach and enter the "
                                       f"target hex ({setup.approach_cost + setup.targets[0].cost})")
    for t in setup.targets:
        if not t.units:
            raise RuleViolation("6.2.8 C", f"target hex {t.hex} holds no enemy unit")


#: ``hex -> (charge_ok, mp)`` of a map, for charge files (6.2.8 B)
TerrainOf = Callable[[str], tuple[bool, int]]


def _counter_eligible(u: Fighter) -> bool:
    # 6.2.9 A: a non-activated cavalry unit that is neither fatigued nor routed.
    return u.kind == "cavalry" and u.status == "normal" and not u.activated


def charge(tables: Tables, setup: ChargeSetup) -> Steps[ChargeOutcome]:
    """The charge procedure; returns a :class:`ChargeOutcome`."""
    validate(setup, tables)
    c = setup.charger
    ok = yield check_sub(tables, CheckSpec("attempting_to_charge", c.fv, c.status, c.leader_cvs, unit=c.name),
                         rule="6.2.8 D")
    if ok.effect != "charge":
        return ChargeOutcome(False, (), "attempt failed", setup.start_next_to_first)
    mp = setup.mp_left - setup.approach_cost
    here = setup.start_next_to_first
    steps: list[str] = []
    routers: list[tuple[Target, tuple[str, ...]]] = []
    surrendered: list[str] = []
    stopped = "no more targets"
    melee_result = ""
    charger_att = Fighter(c.name, c.mf, c.fv, "cavalry", "normal", c.leader_cvs, charging=True, ma=c.ma)

    def finish() -> ChargeOutcome:
        # 6.2.8 I: routers the charger ends next to surrender.
        if setup.grid is not None and here:
            for t, names in routers:
                if t.rout_to and setup.grid.distance(here, t.rout_to) == 1:
                    surrendered.extend(n for n in names if n not in surrendered)
        return ChargeOutcome(True, tuple(steps), stopped, here, tuple(surrendered), melee_result)

    for i, tgt in enumerate(setup.targets):
        if i > 0 and mp < tgt.cost:
            stopped = "out of MPs"                                           # 6.2.8 H
            break
        # 6.2.10 Reaction charges that trigger before this target.
        for r in setup.reactors:
            if r.before != i or not _counter_eligible(r.unit):
                continue
            want = yield Choose(("react", "hold"), rule="6.2.10 A", player="defender",
                                label=f"{r.unit.name}: try a reaction charge?")
            if want != "react":
                continue
            rc = yield check_sub(tables, CheckSpec("attempting_to_charge", r.unit.fv, "normal", r.unit.leader_cvs,
                                                   unit=r.unit.name), rule="6.2.10 B")
            if rc.effect == "charge":
                steps.append(f"{r.unit.name} reaction charges")
                stopped = "reaction charge"
                if setup.resolve_melee:
                    m = yield melee_sub(tables, MeleeSetup((charger_att,), (Fighter(
                        r.unit.name, r.unit.mf, r.unit.fv, "cavalry", "normal", r.unit.leader_cvs, checked=True),),
                        no_doubling=True), rule="6.2.10 D")
                    melee_result = m.result
                return finish()
            steps.append(f"{r.unit.name} fails to react")
        # 6.2.9 Counter charge: an eligible cavalry target that passes its check may meet the charge.
        if len(tgt.units) == 1 and _counter_eligible(tgt.units[0]) and tgt.counter_arc:
            u = tgt.units[0]
            bc = yield check_sub(tables, CheckSpec("being_charged", u.fv, u.status, u.leader_cvs, u.modifiers,
                                                   unit=u.name), rule="6.2.9 A")
            if bc.passed:
                want = yield Choose(("counter", "stand"), rule="6.2.9 A", player="defender",
                                    label=f"{u.name}: counter charge?")
                if want == "counter":
                    steps.append(f"{tgt.hex}: {u.name} counter charges")
                    stopped = "counter charge"
                    if setup.resolve_melee:
                        m = yield melee_sub(tables, MeleeSetup((charger_att,), (Fighter(
                            u.name, u.mf, u.fv, "cavalry", "normal", u.leader_cvs, checked=True),),
                            no_doubling=True, shift=tgt.shift), rule="6.2.9 B")
                        melee_result = m.result
                    return finish()
                outs = [bc]
            else:
                outs = [bc]
        else:
            outs = []
            for u in tgt.units:
                o = yield check_sub(tables, CheckSpec("being_charged", u.fv, u.status, u.leader_cvs, u.modifiers,
                                                      unit=u.name), rule="6.2.8 E")
                outs.append(o)
        standing: list[Fighter] = []
        fled: list[str] = []
        for u, o in zip(tgt.units, outs):
            if o.effect == "surrender":
                surrendered.append(u.name)                                   # 6.2.8 F
            elif o.effect == "rout":
                fled.append(u.name)
            else:
                standing.append(Fighter(u.name, u.mf, u.fv, u.kind, o.status, u.leader_cvs, checked=True,
                                        half_mf=o.effect == "stand_half", ff=u.ff))
        if standing:
            steps.append(f"{tgt.hex}: " + ", ".join(f"{s.name} stands" + (" (half MF)" if s.half_mf else "")
                                                   for s in standing))
            stopped = "target stands"
            firing = tuple(Firer(s.ff, "artillery" if s.kind == "artillery" else "infantry", 1, s.status, name=s.name)
                           for s in standing if s.ff > 0 and s.status != "routed" and s.kind != "cavalry")
            if setup.defensive_fire and firing:
                fire = FireSetup(firing, defensive=True)
                f = yield Sub(("tbf-fire", tables.key, fire), partial(fire_combat, tables, fire), rule="6.2.8 K",
                              label="defensive fire at the charger")
                eff = tables.fire.results[f.result]
                if eff.fatigue or eff.eliminate or eff.retreat:
                    steps.append(f"defensive fire {f.result}")
                    stopped = "defensive fire"                               # 6.2.8 K: no melee
                    return finish()
            if setup.resolve_melee:
                m = yield melee_sub(tables, MeleeSetup((charger_att,), tuple(standing), shift=tgt.shift),
                                    rule="6.2.8 H")
                melee_result = m.result
            return finish()
        steps.append(f"{tgt.hex}: " + ", ".join([f"{n} routs" for n in fled] + [f"{n} surrenders" for n in surrendered
                                                                               if n in {u.name for u in tgt.units}]))
        routers.append((tgt, tuple(fled)))
        mp -= tgt.cost                                                       # 6.2.8 G
        here = tgt.hex
        yield Log("6.2.8 G", f"{c.name} enters {tgt.hex}; {mp} MPs left")
        if mp <= 0:
            stopped = "out of MPs"
            break
    return finish()


def charge_proc(tables: Tables, setup: ChargeSetup) -> Callable[[], Steps[ChargeOutcome]]:
    validate(setup, tables)
    return partial(charge, tables, setup)


def charge_tree(tables: Tables, setup: ChargeSetup, policy: Policy | None = None) -> Tree:
    return enumerate_tree(charge_proc(tables, setup), policy=policy or first_option)


# ---------------------------------------------------------------------------------------------------
# Geometry of charge lines (6.2.8 C, 6.2.11)
# ---------------------------------------------------------------------------------------------------
def frontal_directions(facing: int) -> tuple[int, int, int]:
    """The three hexside directions of a unit's frontal arc (4.3 C): the faced side and its neighbours."""
    return ((facing - 1) % 6, facing % 6, (facing + 1) % 6)


def charge_lines(grid: HexGrid, start: str, facing: int, length: int = 8) -> dict[int, list[str]]:
    """The straight charge lines out of the frontal arc (our reading of the 6.2.11 diagram: a charge runs
    along one of the three frontal hex rows), each as the list of hexes from the start outward."""
    out: dict[int, list[str]] = {}
    for d in frontal_directions(facing):
        line: list[str] = []
        h = start
        for _ in range(length):
            n = grid.neighbour(h, d)
            if n is None:
                break
            line.append(n)
            h = n
        out[d] = line
    return out


def _direction(grid: HexGrid, value: Any, file: str) -> int:
    if isinstance(value, int) and 0 <= value < 6:
        return value
    names = [n.upper() for n in grid.direction_names]
    if isinstance(value, str) and value.upper() in names:
        return names.index(value.upper())
    raise DataError(file, "charger.facing", f"a direction 0..5 or one of {', '.join(grid.direction_names)}", value)


# Bounds on a CHARGE file (issue 11): the exact tree grows about 1.35 times per defending unit, so the
# file is refused past these. 4.1.1 allows two battalions a hex (4.1.2: a whole regiment; 4.1.9 A: an
# overstack after a retreat), so six units in one target hex is already more than play produces.
MAX_UNITS_PER_TARGET = 6
MAX_TARGETS = 6
MAX_REACTORS = 6
MAX_NUMBER = 99   # FV, MF, MA, MP, costs and shifts are printed one- or two-digit values


def _whole(value: Any, file: str, where: str, lo: int = 0, hi: int = MAX_NUMBER) -> int:
    """A whole number in [lo, hi] from the file, or a one-line DataError naming the field."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise DataError(file, where, f"a whole number from {lo} to {hi}", value)
    return value


def _hex_label(grid: HexGrid, value: Any, file: str, where: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)       # an unquoted label such as 1611 (one with a leading zero must be quoted)
    if not isinstance(value, str) or not grid.in_bounds(value):
        raise DataError(file, where, "a hex label on the map (XXYY, quoted in YAML)", value)
    return value


def _fighter(d: Any, where: str, file: str, default_kind: str = "infantry") -> Fighter:
    if not isinstance(d, dict):
        raise DataError(file, where, "a unit: {name, fv, mf, ...}", d)
    allowed = {"name", "fv", "mf", "kind", "status", "leader_cvs", "ma", "activated", "modifiers", "ff"}
    extra = set(d) - allowed
    if extra:
        raise DataError(file, f"{where}.{sorted(extra)[0]}", "only the documented unit fields "
                                                              f"({', '.join(sorted(allowed))})")
    for k in ("fv", "mf"):
        if not isinstance(d.get(k), int) or isinstance(d.get(k), bool):
            raise DataError(file, f"{where}.{k}", "a whole number", d.get(k))
        _whole(d[k], file, f"{where}.{k}", -MAX_NUMBER)
    for k in ("ma", "ff"):
        _whole(d.get(k, 0), file, f"{where}.{k}")
    cvs = d.get("leader_cvs", [])
    if not isinstance(cvs, list) or len(cvs) > MAX_UNITS_PER_TARGET or \
            not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= MAX_NUMBER for c in cvs):
        raise DataError(file, f"{where}.leader_cvs", "a list of leaders' CVs (whole numbers 0 or more)", cvs)
    for k in ("name", "kind", "status"):
        if k in d and not isinstance(d[k], str):
            raise DataError(file, f"{where}.{k}", "a text", d[k])
    status = d.get("status", "normal")
    if status not in STATUSES:
        raise DataError(file, f"{where}.status", f"a unit status (4.2.4): {', '.join(STATUSES)}", status)
    mods = d.get("modifiers", [])
    if not isinstance(mods, list) or not all(isinstance(m, str) for m in mods):
        raise DataError(file, f"{where}.modifiers", "a list of named modifiers", mods)
    if not isinstance(d.get("activated", False), bool):
        raise DataError(file, f"{where}.activated", "true or false", d.get("activated"))
    return Fighter(name=str(d.get("name", where)), mf=d["mf"], fv=d["fv"], kind=d.get("kind", default_kind),
                   status=status, leader_cvs=tuple(cvs),
                   ma=d.get("ma", 0), activated=d.get("activated", False),
                   modifiers=tuple(mods), ff=d.get("ff", 0))


def charge_from_spec(spec: Any, grid: HexGrid, file: str = "<charge>", terrain: TerrainOf | None = None,
                     los: Callable[[str, str], bool] | None = None) -> ChargeSetup:
    """Build a charge from a CHARGE file (docs/tbf.md) and check its geometry.

    ``terrain(hex) -> (charge_ok, mp)`` and ``los(a, b) -> bool`` come from a map when one is used.
    """
    if isinstance(spec, dict):
        for key, kind in (("charger", dict), ("path", list), ("targets", list), ("reactors", list),
                          ("path_costs", dict)):
            if key in spec and spec[key] is not None and not isinstance(spec[key], kind):
                raise DataError(file, key, "a mapping" if kind is dict else "a list", spec[key])
    try:
        return _charge_from_spec(spec, grid, file, terrain, los)
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise DataError(file, "", f"a CHARGE file in the documented format ({type(exc).__name__}: {exc})") from None


def _charge_from_spec(spec: Any, grid: HexGrid, file: str, terrain: TerrainOf | None,
                      los: Callable[[str, str], bool] | None) -> ChargeSetup:
    if not isinstance(spec, dict):
        raise DataError(file, "", "a mapping with charger, path and targets")
    for k in ("charger", "path", "targets"):
        if k not in spec:
            raise DataError(file, k, "this required field")
    allowed = {"charger", "path", "targets", "reactors", "melee", "mp_left", "map", "path_costs", "defensive_fire"}
    extra = set(spec) - allowed
    if extra:
        raise DataError(file, sorted(extra)[0], f"only the documented fields ({', '.join(sorted(allowed))})")
    cd = dict(spec["charger"])
    hex0 = cd.pop("hex", None)
    facing_v = cd.pop("facing", None)
    if hex0 is None or not grid.in_bounds(str(hex0)):
        raise DataError(file, "charger.hex", "the charger's hex label on the map (XXYY)", hex0)
    hex0 = str(hex0)
    facing = _direction(grid, facing_v, file)
    charger = _fighter(cd, "charger", file, default_kind="cavalry")
    if not isinstance(spec["path"], list) or not spec["path"]:
        raise DataError(file, "path", "the hexes from the charger to the first target (at least 3)")
    path = [_hex_label(grid, h, file, f"path[{i}]") for i, h in enumerate(spec["path"])]
    # 6.2.8 C / 6.2.11: a straight line out of the frontal arc, target at least three hexes away.
    try:
        d0 = grid.direction(hex0, path[0])
    except ValueError:
        raise RuleViolation("6.2.11", f"the charge path must start next to the charger ({hex0}), not at {path[0]}") from None
    if d0 not in frontal_directions(facing):
        raise RuleViolation("6.2.8 C", f"{path[0]} is not in the charger's frontal arc")
    prev = hex0
    for i, h in enumerate(path):
        try:
            d = grid.direction(prev, h)
        except ValueError:
            raise RuleViolation("6.2.11", f"the charge path is broken between {prev} and {h}: hexes must be adjacent") from None
        if d != d0:
            raise RuleViolation("6.2.11", f"the charge path is not straight: it turns at {prev} -> {h}")
        prev = h
    if len(path) < 3:
        raise RuleViolation("6.2.8 C", f"the target must be at least three hexes away (two between), not {len(path)}")
    raw_targets = spec["targets"]
    if not isinstance(raw_targets, list) or not raw_targets:
        raise DataError(file, "targets", "a list of target hexes with their units")
    if len(raw_targets) > MAX_TARGETS:
        raise DataError(file, "targets", f"at most {MAX_TARGETS} target hexes (6.2.8 G: each costs MP)",
                        f"{len(raw_targets)} targets")
    costs = spec.get("path_costs") or {}
    for h, c in costs.items():
        _hex_label(grid, h, file, "path_costs")
        _whole(c, file, f"path_costs.{h}")
    targets: list[Target] = []
    first_hex = path[-1]
    for i, t in enumerate(raw_targets):
        if not isinstance(t, dict) or "units" not in t:
            raise DataError(file, f"targets[{i}]", "a target: {hex, units, cost?, rout_to?}")
        h = str(t.get("hex", first_hex if i == 0 else ""))
        if i == 0 and h != first_hex:
            raise RuleViolation("6.2.8 C", f"the first target must be the last hex of the path ({first_hex}), not {h}")
        if i > 0:
            before = targets[-1].hex
            if not grid.in_bounds(h) or grid.distance(before, h) != 1:
                raise RuleViolation("6.2.8 G", f"the next target {h} must be adjacent to {before}")
            if grid.direction(before, h) not in frontal_directions(facing):
                raise RuleViolation("6.2.8 G", f"the next target {h} is not in the charger's frontal arc")
        raw_units = t["units"]
        if not isinstance(raw_units, list) or not raw_units:
            raise DataError(file, f"targets[{i}].units", "a list of the units in the target hex", raw_units)
        if len(raw_units) > MAX_UNITS_PER_TARGET:
            raise DataError(file, f"targets[{i}].units", f"at most {MAX_UNITS_PER_TARGET} units in one target "
                            f"hex (4.1 stacking; the exact tree grows with each unit)", f"{len(raw_units)} units")
        units = tuple(_fighter(u, f"targets[{i}].units[{j}]", file) for j, u in enumerate(raw_units))
        extra = set(t) - {"hex", "units", "cost", "rout_to", "shift"}
        if extra:
            raise DataError(file, f"targets[{i}].{sorted(extra)[0]}", "only hex, units, cost, rout_to and shift")
        if t.get("cost") is not None:
            _whole(t["cost"], file, f"targets[{i}].cost")
        if t.get("rout_to") is not None:
            _hex_label(grid, t["rout_to"], file, f"targets[{i}].rout_to")
        _whole(t.get("shift", 0), file, f"targets[{i}].shift", -MAX_NUMBER)
        cost = t.get("cost")
        if cost is None and terrain is not None:
            cost = terrain(h)[1]
        targets.append(Target(h, units, int(cost if cost is not None else costs.get(h, 1)),
                              str(t["rout_to"]) if t.get("rout_to") else None, int(t.get("shift", 0))))
    if terrain is not None:
        for h in [hex0] + path + [t.hex for t in targets]:
            ok, _ = terrain(h)
            if not ok:
                raise RuleViolation("6.2.8 B", f"a charge may only start in, cross and end in Level 0, Level 1 or "
                                               f"vineyard hexes; {h} is not")
    if los is not None and not los(hex0, first_hex):
        raise RuleViolation("6.2.8 C", f"the target {first_hex} is not in the charger's line of sight")
    approach = 0
    for h in path[:-1]:
        c = costs.get(h)
        if c is None and terrain is not None:
            c = terrain(h)[1]
        approach += int(c if c is not None else 1)
    reacting: list[Reactor] = []
    raw_reactors = spec.get("reactors", []) or []
    if len(raw_reactors) > MAX_REACTORS:
        raise DataError(file, "reactors", f"at most {MAX_REACTORS} reacting units", f"{len(raw_reactors)} reactors")
    for i, r in enumerate(raw_reactors):
        if not isinstance(r, dict):
            raise DataError(file, f"reactors[{i}]", "a reactor: {unit: {...}, before: N}", r)
        body = r["unit"] if "unit" in r else {k: v for k, v in r.items() if k != "before"}
        ahead = _whole(r.get("before", 0), file, f"reactors[{i}].before", 0, len(targets))
        reacting.append(Reactor(_fighter(body, f"reactors[{i}]", file, "cavalry"), ahead))
    reactors = tuple(reacting)
    mp_left = _whole(spec.get("mp_left", charger.ma), file, "mp_left")
    for k in ("melee", "defensive_fire"):
        if k in spec and not isinstance(spec[k], bool):
            raise DataError(file, k, "true or false", spec[k])
    return ChargeSetup(charger, tuple(targets), mp_left, approach, path[-2], reactors, bool(spec.get("melee", True)),
                       grid, bool(spec.get("defensive_fire", False)))
