"""Calculators: exact odds of checks, fire, melee and charges, as JSON-able summaries.

They only drive the rules procedures (fatigue, fire, melee, charge) with the enumerate driver; no rule
is computed here. Shared by the CLI, the dashboard page and the notebook.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import replace as dc_replace
from fractions import Fraction
from functools import partial
from typing import Any, cast

from engine.core.data import provenance_kind
from engine.core.dist import Dist, prob_json
from engine.core.errors import RuleViolation
from engine.core.procedure import Policy, Procedure, distribution, enumerate_tree, first_option

from .charge import ChargeSetup, charge_outcome, charge_proc
from .fatigue import CheckSpec, check_distribution, check_outcome
from .fire import Firer, FireSetup, fire_distribution, fire_outcome
from .game.activation import activate, out_of_command_check
from .game.cavalry_charge import charge_action
from .game.fire_combat import fire_action
from .game.melee_combat import melee_action
from .game.movement import move_action
from .game.phases import initiative_phase, recovery_phase
from .game.reinforcement import reinforcement_phase
from .game.rout import end_of_activation_overstack
from .game.setup import initial_state
from .game.state import GameState
from .game.types import LIVE
from .melee import Fighter, MeleeSetup, melee_distribution
from .scenario import Scenario
from .tables import STATUSES, Tables

__all__ = ["check_summary", "check_grid", "fire_summary", "melee_summary", "charge_summary", "dist_rows",
           "parse_kv", "fighter_from_kv", "firer_from_kv", "provenance"]


def provenance(source: str) -> dict[str, str]:
    return {"source": source, "kind": provenance_kind(source)}


def dist_rows(d: Dist, key: Callable[[Any], str] = str) -> list[dict[str, Any]]:
    """Outcomes most likely first, each with its exact probability."""
    rows = [(key(k), p) for k, p in d.items()]
    merged: dict[str, Fraction] = {}
    for k, p in rows:
        merged[k] = merged.get(k, Fraction(0)) + p
    return [{"outcome": k, "probability": prob_json(p)}
            for k, p in sorted(merged.items(), key=lambda kv: (-kv[1], kv[0]))]


def _reaches(h: str, o: Hashable) -> bool:
    """Whether the charge outcome ``o`` reached the target hex ``h`` (a step there names it first)."""
    return any(s.startswith(h) for s in charge_outcome(o).steps)


def check_summary(tables: Tables, spec: CheckSpec) -> dict[str, Any]:
    cd = tables.check(spec.check)
    d = check_distribution(tables, spec)
    out = {
        "check": spec.check, "name": cd.name, "rule": cd.rule, "fv": spec.fv, "status": spec.status,
        "leader_cvs": list(spec.leader_cvs), "modifiers": list(spec.modifiers),
        "net_drm": spec.total_drm(tables),
        "pass_on_d6": [f for f in range(1, 7) if f + spec.total_drm(tables) <= spec.fv],
        "pass": prob_json(d.prob(lambda o: check_outcome(o).passed)),
        "fail": prob_json(d.prob(lambda o: not check_outcome(o).passed)),
        "on_pass": cd.passed.get(spec.status), "on_fail": cd.failed.get(spec.status),
        "outcomes": dist_rows(d, key=lambda o: f"{'pass' if o.passed else 'fail'}: {o.effect}"
                              + (" (MF doubled)" if o.doubled else "")),
        "provenance": provenance(cd.source if cd.source != "provisional" else tables.fatigue.source),
    }
    if spec.check == "attacker_melee":
        out["mf_doubled"] = prob_json(d.prob(lambda o: check_outcome(o).doubled))
    return out


def check_grid(tables: Tables, leader_cvs: tuple[int, ...] = (), status: str = "normal") -> dict[str, Any]:
    """Chance to pass every check at every FV (one status)."""
    _status(status, "--status")
    ft = tables.fatigue
    rows = []
    for name, cd in ft.checks.items():
        if status not in cd.allowed:
            continue
        row: dict[str, Any] = {"check": name, "name": cd.name, "rule": cd.rule}
        for fv in range(ft.fv_min, ft.fv_max + 1):
            d = check_distribution(tables, CheckSpec(name, fv, status, tuple(leader_cvs)))
            row[str(fv)] = prob_json(d.prob(lambda o: check_outcome(o).passed))
        rows.append(row)
    return {"status": status, "leader_cvs": list(leader_cvs), "fv": list(range(ft.fv_min, ft.fv_max + 1)),
            "rows": rows, "provenance": provenance(ft.source)}


def fire_summary(tables: Tables, setup: FireSetup) -> dict[str, Any]:
    d = fire_distribution(tables, setup)
    res = tables.fire.results
    return {
        "firers": [{"ff": f.ff, "kind": f.kind, "range": f.range, "status": f.status} for f in setup.firers],
        "night": setup.night, "defensive": setup.defensive,
        "results": dist_rows(d, key=lambda o: o.result),
        "columns": dist_rows(d, key=lambda o: o.column or "none"),
        "meaning": {k: v.text for k, v in res.items()},
        "any_effect": prob_json(d.prob(lambda o: fire_outcome(o).result != "-")),
        "provenance": provenance(tables.fire.source),
    }


def melee_summary(tables: Tables, setup: MeleeSetup) -> dict[str, Any]:
    d = melee_distribution(tables, setup)
    return {
        "attackers": [a.name for a in setup.attackers], "defenders": [x.name for x in setup.defenders],
        "results": dist_rows(d, key=lambda o: o.result),
        "columns": dist_rows(d, key=lambda o: o.column or "none"),
        "detail": dist_rows(d),
        "meaning": {k: v.text for k, v in tables.melee.results.items()},
        "provenance": provenance(tables.melee.source),
    }


def charge_summary(tables: Tables, setup: ChargeSetup, tree: bool = True, max_depth: int | None = None,
                   policy: Policy = first_option) -> dict[str, Any]:
    t = enumerate_tree(charge_proc(tables, setup), policy=policy, build=tree)
    d = t.distribution()
    n = len(setup.targets)
    summary = {
        "attempt_passes": prob_json(d.prob(lambda o: charge_outcome(o).attempted)),
        "stopped": dist_rows(d, key=lambda o: o.stopped),
        "targets_routed": dist_rows(d, key=lambda o: str(sum(1 for s in o.steps if " routs" in s and "stands" not in s))),
        "any_surrender": prob_json(d.prob(lambda o: bool(charge_outcome(o).surrendered))),
    }
    for i, tg in enumerate(setup.targets):
        summary[f"reaches_target_{i + 1}_{tg.hex}"] = prob_json(d.prob(partial(_reaches, tg.hex)))
    out = {
        "charger": setup.charger.name, "targets": [tg.hex for tg in setup.targets], "summary": summary,
        "outcomes": dist_rows(d), "total": prob_json(t.total()),
        "provenance": {"fatigue": provenance(tables.fatigue.source), "melee": provenance(tables.melee.source)},
    }
    if tree:
        out["tree"] = t.to_dict(result=str, max_depth=max_depth)
    return out


# ---------------------------------------------------------------------------------------------------
# "key=value,key=value" unit descriptions for the CLI
# ---------------------------------------------------------------------------------------------------
def parse_kv(text: str, what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = v.strip()
        else:
            out[part] = "yes"
    return out


def _int(d: dict[str, str], key: str, what: str, default: int | None = None, rule: str = "2.4.3.9") -> int:
    if key not in d:
        if default is None:
            raise RuleViolation(rule, f"{what}: {key}= is required (e.g. {key}=3)")
        return default
    try:
        return int(d[key])
    except ValueError:
        raise RuleViolation(rule, f"{what}: {key} must be a whole number, not {d[key]!r}") from None


def _status(value: str, what: str) -> str:
    """A fighting unit's status (4.2.4 fatigued, 6.7 routed; otherwise normal): anything else is refused."""
    if value not in STATUSES:
        raise RuleViolation("4.2.4", f"{what}: status must be one of {', '.join(STATUSES)}, not {value[:40]!r}")
    return value


def fighter_from_kv(text: str, role: str, i: int) -> Fighter:
    d = parse_kv(text, role)
    known = {"name", "mf", "fv", "kind", "status", "cv", "flank", "ma", "charging", "mod"}
    extra = set(d) - known
    what = f"{role} {i + 1}"
    if extra:
        raise RuleViolation("6.4", f"{what}: unknown field {sorted(extra)[0]!r} (use {', '.join(sorted(known))})")
    try:
        cvs = tuple(int(x) for x in d["cv"].split("+")) if d.get("cv") else ()
    except ValueError:
        raise RuleViolation("4.2.2 C", f"{what}: cv must be leaders' CVs joined by '+', e.g. cv=1+2, "
                                       f"not {d['cv']!r}") from None
    return Fighter(name=d.get("name", f"{role[0].upper()}{i + 1}"), mf=_int(d, "mf", what), fv=_int(d, "fv", what),
                   kind=d.get("kind", "infantry"), status=_status(d.get("status", "normal"), what), leader_cvs=cvs,
                   flank="flank" in d, charging="charging" in d, ma=_int(d, "ma", what, 0),
                   modifiers=tuple(m for m in d.get("mod", "").split("+") if m))


def firer_from_kv(text: str, i: int) -> Firer:
    d = parse_kv(text, "firer")
    known = {"name", "ff", "kind", "range", "status", "moved", "alone"}
    extra = set(d) - known
    what = f"firer {i + 1}"
    if extra:
        raise RuleViolation("6.3", f"{what}: unknown field {sorted(extra)[0]!r} (use {', '.join(sorted(known))})")
    return Firer(ff=_int(d, "ff", what, 0 if d.get("kind") in ("leader", "grand_battery") else None, "6.3.7"),
                 kind=d.get("kind", "infantry"), range=_int(d, "range", what, 1, "6.3.3"),
                 status=_status(d.get("status", "normal"), what), moved="moved" in d,
                 alone=d.get("alone", "yes") != "no",
                 name=d.get("name", f"F{i + 1}"))


# ---------------------------------------------------------------------------------------------------
# Scenario situations: the set-up changed by placements, and the odds of an action's consequences
# ---------------------------------------------------------------------------------------------------
STATUSES_ALL = ("normal", "fatigued", "routed", "eliminated", "surrendered", "killed", "captured", "wounded")
#: a unit's statuses (4.2.4, 6.7, 6.6 C) and a leader's (6.5 A-C)
UNIT_STATUSES = ("normal", "fatigued", "routed", "eliminated", "surrendered")
LEADER_STATUSES = ("normal", "killed", "captured", "wounded")


def state_from_placements(sc: Scenario, placements: Iterable[str] = (), turn: int | None = None,
                          alert: bool = False) -> GameState:
    """The scenario's set-up with pieces moved: each placement is ``ID=HEX[:FACING[:STATUS]]``."""
    st = initial_state(sc)
    names = [n.upper() for n in sc.board.grid.direction_names]
    for item in placements:
        item = item.strip()
        if not item:
            continue
        pid, eq, rest = item.partition("=")
        if not eq:
            raise RuleViolation("9.0", f"a placement looks like ID=HEX[:FACING[:STATUS]], not {item!r}")
        pid = pid.strip()
        parts = rest.strip().split(":")
        st.piece(pid)
        changes: dict[str, Any] = {}
        changes["hex"] = None if parts[0] in ("", "off") else sc.board.check_hex(parts[0], "9.0")
        if len(parts) > 1 and parts[1]:
            if parts[1].upper() not in names:
                raise RuleViolation("4.3 B", f"facing must be one of {', '.join(names)}, not {parts[1]!r}")
            changes["facing"] = names.index(parts[1].upper())
        if len(parts) > 2 and parts[2]:
            if parts[2] not in STATUSES_ALL:
                raise RuleViolation("4.2.4", f"unknown status {parts[2]!r} (one of {', '.join(STATUSES_ALL)})")
            allowed = LEADER_STATUSES if sc.is_leader(pid) else UNIT_STATUSES
            if parts[2] not in allowed:
                raise RuleViolation("6.5" if sc.is_leader(pid) else "4.2.4",
                                    f"{pid} is a {'leader' if sc.is_leader(pid) else 'unit'}: its status is one of "
                                    f"{', '.join(allowed)}, not {parts[2]!r}")
            changes["status"] = parts[2]
        st = st.with_piece(pid, **changes)
        h = changes["hex"]
        if h is not None and not sc.is_leader(pid) and st.piece(pid).status in LIVE:
            # 6.2.5 B: French and Coalition units never share a hex (an enemy leader alone may be there)
            enemy = [p.id for p in st.in_hex(h) if p.id != pid and not sc.is_leader(p.id) and p.status in LIVE
                     and sc.side(p.id) != sc.side(pid)]
            if enemy:
                raise RuleViolation("6.2.5 B", f"--place {pid}={h}: {h} holds enemy units ({', '.join(enemy)}); "
                                               f"move them with another --place first")
    if turn is not None:
        if not 1 <= turn <= sc.file.turns:
            raise RuleViolation("3.0", f"--turn must be a game turn from 1 to {sc.file.turns}, not {turn}")
        st = dc_replace(st, turn=turn)
    if alert:
        st = st.with_flag("alert")
    return st


def piece_outcomes(sc: Scenario, st0: GameState, d: Dist, ids: Iterable[str] = ()) -> dict[str, list[dict[str, Any]]]:
    """For every piece an action may change: the exact chance of each final status and hex (``d``: a
    distribution of positions)."""
    changed = {i for i in ids if not i.startswith("gb:")}
    for s, _ in _positions(d):
        for p in s.pieces:
            if p != st0.piece(p.id):
                changed.add(p.id)
    out = {}
    for pid in sorted(changed):
        rows: dict[str, Fraction] = {}
        for s, w in _positions(d):
            p = s.piece(pid)
            key = f"{p.status} in {p.hex}" if p.hex else p.status
            if p.charged:
                key += " (charged)"
            rows[key] = rows.get(key, Fraction(0)) + w
        out[pid] = [{"outcome": k, "probability": prob_json(v)} for k, v in sorted(rows.items(), key=lambda kv: -kv[1])]
    return out


def action_summary(sc: Scenario, st: GameState, what: str, units: tuple[str, ...], target: str | None = None,
                   path: tuple[str, ...] = (), next_targets: tuple[str, ...] = (), defensive: bool = False,
                   policy: Policy = first_option, level_hexes: tuple[tuple[int, int], ...] = ()) -> dict[str, Any]:
    """Exact consequences of a move, fire, melee or charge on a scenario state."""
    f: Procedure
    if what == "move":
        if len(units) != 1 or not target:
            raise RuleViolation("6.2.1", "a move needs one unit and a destination hex")
        f = partial(move_action, sc, st, units[0], target, tuple(level_hexes))
    elif what == "fire":
        # (no target: the fire's set-up refuses None as a hex, naming 6.3; the melee's, 6.4)
        f = partial(fire_action, sc, st, tuple(units), cast(str, target), defensive)
    elif what == "melee":
        f = partial(melee_action, sc, st, tuple(units), cast(str, target))
    elif what == "charge":
        if len(units) != 1:
            raise RuleViolation("6.2.8 A", "a charge is made by one cavalry unit")
        f = partial(charge_action, sc, st, units[0], tuple(path), tuple(next_targets))
    else:
        raise RuleViolation("3.3", f"unknown action {what!r} (move, fire, melee, charge)")
    d = distribution(f, policy=policy)
    return {"action": what, "units": list(units), "target": target or (path[-1] if path else None),
            "pieces": piece_outcomes(sc, st, d, units), "states": len(d),
            "provenance": {"tables": provenance(sc.tables.fatigue.source), "map": provenance(sc.board.data.source),
                           "units": provenance(sc.oob.source)}}


def _positions(d: Dist) -> list[tuple[GameState, Fraction]]:
    """The outcomes of a distribution of positions (what a procedure on the map returns), each with its
    exact chance, in the distribution's order."""
    return [(cast(GameState, s), w) for s, w in d.items()]


def _acts(r: Hashable) -> tuple[bool, GameState]:
    """An outcome of the Out of Command check on the map: (may act, the position after it), 6.1.3 C."""
    return cast(tuple[bool, GameState], r)


PHASES = ("reinforcement", "initiative", "activate", "out-of-command", "end-of-activation", "recovery")


def phase_summary(sc: Scenario, st: GameState, what: str, side: str | None = None, leader: str | None = None,
                  unit: str | None = None) -> dict[str, Any]:
    """Exact consequences of one step of the turn on a scenario state: the Reinforcement Phase rolls
    (3.1, 9.2, 9.5.2, 9.6.2), the initiative (3.2), a leader's activation (6.1), an Out of Command check
    (6.1.3 C), the overstack checks at the end of a side's Activation Phase (4.1.10 B), the Recovery
    Phase (7.0)."""
    prov = {"tables": provenance(sc.tables.fatigue.source), "scenario": provenance(sc.file.source)}
    if what == "initiative":
        d = distribution(partial(initiative_phase, sc, st))
        return {"phase": what, "turn": st.turn, "rule": "3.2", "outcomes": dist_rows(d), "provenance": prov}
    if what == "activate":
        if not leader:
            raise RuleViolation("6.1 B", "an activation needs a leader (--leader ID)")
        plan, st2 = activate(sc, st, leader)
        return {"phase": what, "turn": st.turn, "rule": "6.1", "plan": plan,
                "activated_leaders": sorted(p.id for p in st2.pieces if p.activated and not st.piece(p.id).activated),
                "provenance": prov}
    if what == "out-of-command":
        if not unit:
            raise RuleViolation("6.1.3 C", "an Out of Command check needs a unit (--unit ID)")
        d = distribution(partial(out_of_command_check, sc, st, unit))
        acts = d.prob(lambda r: _acts(r)[0])
        return {"phase": what, "turn": st.turn, "rule": "6.1.3 C", "unit": unit, "may_act": prob_json(acts),
                "pieces": piece_outcomes(sc, st, d.map(lambda r: _acts(r)[1]), (unit,)), "provenance": prov}
    f: Procedure
    if what == "reinforcement":
        f, rule = partial(reinforcement_phase, sc, st), "3.1"
    elif what == "end-of-activation":
        if side not in ("french", "coalition"):
            raise RuleViolation("4.1.10 B", "say whose Activation Phase ends (--side french or coalition)")
        f, rule = partial(end_of_activation_overstack, sc, st, side), "4.1.10 B"
    elif what == "recovery":
        f, rule = partial(recovery_phase, sc, st), "7.0"
        # every piece is made ready again and loses its Charged marker (7.0 C, H): list only real changes
        base = dc_replace(st, pieces=tuple(dc_replace(p, activated=False, charged=False) for p in st.pieces))
    else:
        raise RuleViolation("3.0", f"unknown phase {what!r} ({', '.join(PHASES)})")
    d = distribution(f)
    flags: dict[str, Fraction] = {}
    for s, w in _positions(d):
        for fl in sorted(s.flags - st.flags):
            flags[fl] = flags.get(fl, Fraction(0)) + w
    return {"phase": what, "turn": st.turn, "rule": rule, "states": len(d),
            "next_turn": sorted({s.turn for s, _ in _positions(d)}),
            "pieces": piece_outcomes(sc, base if what == "recovery" else st, d), "new_flags": {k: prob_json(v) for k, v in sorted(flags.items())},
            "provenance": prov}
