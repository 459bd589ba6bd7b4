"""View model of one Napoleonic 20 battle being planned: units, terrain, reserves, options -> exact odds.

:class:`BattlePlan` holds what the user typed (param-declared, one instance per browser session) and
turns it into a battle in the engine's battle-file format (:meth:`BattlePlan.battle_data`); the engine
(:func:`engine.n20.odds`, :func:`engine.n20.tree`) does every calculation. Invalid input is caught and
shown (``error``) while the last good result stays on screen.
"""
from __future__ import annotations

import json
import time
from fractions import Fraction
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import param
import yaml

from engine import n20
from engine.core.data import data_path
from engine.core.errors import VedetteError

if TYPE_CHECKING:
    from dashboards.server.background import Background

__all__ = ["UnitEntry", "BattlePlan", "apply_edit", "EDIT_COLUMNS", "side_probabilities", "UNIT_FLAGS", "FLAG_HELP", "scenario_units", "example_battles",
           "entry_from_unitdef"]

#: Flags a battle unit can carry (engine.n20.units.Unit), with the rule each one brings in (for tooltips).
FLAG_HELP = {
    "elite": "9.6.2", "guard": "12.2", "recule_exempt": "exclusive 2.0", "heavy": "9.9.3", "routed": "9.6.3",
    "unreliable": "16.7.3", "portuguese": "16.9", "spanish_irregular": "16.7.7", "straggler": "16.7.5",
    "road_bound": "16.7.6", "reluctant": "16.7.4", "light": "16.7.1", "cossack": "16.7.2", "cadre": "16.5.2",
    "square": "17.1", "bombarding": "16.3.2",
}
UNIT_FLAGS = list(FLAG_HELP)
UNIT_TYPES = ["infantry", "cavalry", "artillery", "supply"]


def example_battles() -> dict[str, Path]:
    """The shipped battle files (``data/examples/n20_*.yaml``), by name."""
    return {p.stem: p for p in sorted(data_path("examples").glob("n20_*.yaml"))}


@lru_cache(maxsize=64)
def _read_battle_yaml(path: str, mtime: float) -> str:
    return json.dumps(yaml.safe_load(Path(path).read_text(encoding="utf-8")))


def read_battle_file(path: str | Path) -> dict:
    """A battle file's data (parsed once per file version; a fresh copy each call)."""
    p = Path(path)
    return json.loads(_read_battle_yaml(str(p), p.stat().st_mtime))


@lru_cache(maxsize=1)
def scenario_choices() -> tuple[str, ...]:
    """Scenario ids (read once per process: listing them parses every scenario file)."""
    from engine.n20.game.scenario import scenario_ids

    return tuple(scenario_ids())


@lru_cache(maxsize=16)
def scenario_units(scenario_id: str) -> dict[str, Any]:
    """The counters of a scenario (``engine.n20.game.scenario``), fighting units only (read once)."""
    from engine.n20.game.scenario import load_scenario

    sc = load_scenario(scenario_id)
    return {uid: u for uid, u in sc.units.items() if u.type in ("infantry", "cavalry", "artillery", "supply", "cadre")}


class UnitEntry(param.Parameterized):
    """One unit in the plan (as on its counter) and, for a context-free retreat, its path's hazards."""

    uid = param.String(default="unit", doc="unit id")
    type: param.Selector[str] = param.Selector(default="infantry", objects=UNIT_TYPES)
    strength = param.Integer(default=2, bounds=(0, 30))
    movement = param.Integer(default=2, bounds=(0, 12))
    flags = param.ListSelector(default=[], objects=UNIT_FLAGS)
    hazards = param.String(default="", doc="hazard rolls per hex of its retreat path, e.g. '1,0,2' (9.8.3, 9.8.4)")
    source = param.String(default="", doc="where the counter values come from")

    def spec(self) -> dict:
        d: dict[str, Any] = {"id": self.uid.strip() or "unit", "type": self.type, "strength": int(self.strength),
                             "movement": int(self.movement)}
        for f in self.flags:
            d[f] = True
        return d

    def hazard_list(self) -> list[int] | None:
        text = self.hazards.strip()
        if not text:
            return None
        try:
            return [int(x) for x in text.replace(";", ",").replace(" ", ",").split(",") if x.strip()]
        except ValueError:
            raise VedetteError(f"unit {self.uid}: hazards must be whole numbers separated by commas "
                               f"(one per hex of the retreat path, 9.8.3/9.8.4), got {self.hazards!r}") from None

    def copy(self) -> "UnitEntry":
        return UnitEntry(**{k: (list(v) if isinstance(v, list) else v) for k, v in self.param.values().items()
                            if k != "name"})


def entry_from_unitdef(u, edition: str = "v3") -> UnitEntry:
    flags = [f for f in u.battle_flags() if f in UNIT_FLAGS]   # the engine names the counter's flags
    typ = u.type if u.type in UNIT_TYPES else "infantry"
    return UnitEntry(uid=u.id, type=typ, strength=u.strength, movement=u.movement, flags=flags,
                     source=getattr(u, "source", ""))


class BattlePlan(param.Parameterized):
    """One attack plan. Any change recomputes the exact odds (a few milliseconds)."""

    title = param.String(default="Plan A")
    edition: param.Selector[str] = param.Selector(default="v3", objects=["v3", "v2"],
                                                  doc="v3 = rulebook 000 (Fuentes); v2 = 001 (Bussaco)")
    attacker_side: param.Selector[str] = param.Selector(default="french", objects=["french", "allied"])
    attackers = param.List(default=[], item_type=UnitEntry)
    defenders = param.List(default=[], item_type=UnitEntry)
    terrain: param.Selector[str] = param.Selector(default="clear",
                                                  objects=["clear", "forest", "rough", "marsh", "town", "fortified",
                                                       "redoubt"])
    hexside = param.ListSelector(default=[], objects=["minor_river", "major_river", "bridge", "ford", "slope",
                                                      "steep_slope"], doc="features of the hexside attacked across")
    defender_upslope = param.Boolean(default=True, doc="the defender is on the higher side of a slope hexside")
    reserves_attacker = param.Boolean(default=False, doc="12.5: the attacker spends a Morale Point for +1")
    reserves_defender = param.Boolean(default=False, doc="12.5: the defender spends a Morale Point for +1")
    countercharge = param.Boolean(default=False, doc="8.2.2: a reaction-phase countercharge")
    command: param.Selector[str] = param.Selector(default="none", objects=["none", "in", "out"],
                                                  doc="16.9.4 leader command")
    artillery_support = param.Integer(default=0, bounds=(0, 3), doc="16.3.1: supported defenders")
    reduce_to = param.Integer(default=None, allow_None=True, bounds=(-10, 10), doc="9.5 voluntary reduction")
    fatigue = param.Boolean(default=False, doc="16.8 fatigue (v3 only)")
    reliability_checks = param.Boolean(default=False, doc="16.9 Portuguese reliability (v2, Bussaco)")
    morale_attacker = param.Integer(default=None, allow_None=True, bounds=(0, 10))
    morale_defender = param.Integer(default=None, allow_None=True, bounds=(0, 10))

    tables = param.Parameter(default=None, doc="an uploaded engine.n20.Tables, or None for the shipped set")
    tables_name = param.String(default="")
    result = param.Parameter(default=None, doc="the last good engine.n20.OddsResult")
    error = param.String(default="")
    elapsed_ms = param.Number(default=0.0)
    revision = param.Integer(default=0, doc="bumped after every recomputation")

    def __init__(self, **params):
        super().__init__(**params)
        self._entry_watchers: list = []
        self._holding = False
        self.param.watch(self._changed, [p for p in self.param if p not in (
            "name", "title", "result", "error", "elapsed_ms", "revision", "tables_name")])
        self._watch_entries()
        self.recompute()

    # -- building ------------------------------------------------------------------------------------
    @classmethod
    def from_battle_file(cls, path: str | Path, **params) -> "BattlePlan":
        plan = cls(**params)
        plan.load_battle_file(path)
        return plan

    def load_battle_file(self, path: str | Path) -> None:
        self.load_battle_data(read_battle_file(path))

    def load_battle_data(self, data: dict) -> None:
        """Fill the form from a context-free battle in the battle-file format (map battles: units only)."""
        n20.parse_battle(data, name="<form>")  # raises a clear error before anything changes
        with self.hold():
            self.edition = data.get("edition") or "v3"
            self.attacker_side = data.get("attacker") or (data["attackers"][0].get("side") or "french")
            paths = data.get("paths") or {}
            self.attackers = [self._entry(u, paths) for u in data["attackers"]]
            self.defenders = [self._entry(u, paths) for u in data["defenders"]]
            self.terrain = data.get("terrain", "clear")
            hs = (data.get("hexsides") or [{}])[0] if data.get("hexsides") else {}
            self.hexside = list(hs.get("features", []))
            self.defender_upslope = bool(hs.get("defender_upslope", True))
            res = data.get("reserves") or {}
            self.reserves_attacker, self.reserves_defender = bool(res.get("attacker")), bool(res.get("defender"))
            self.countercharge = bool(data.get("countercharge", False))
            self.command = data.get("command") or "none"
            self.artillery_support = int(data.get("artillery_support") or 0)
            self.reduce_to = data.get("reduce_to")
            self.fatigue = bool(data.get("fatigue", False))
            self.reliability_checks = bool(data.get("reliability_checks", False))
            m = data.get("morale") or {}
            defender_side = "allied" if self.attacker_side == "french" else "french"
            self.morale_attacker, self.morale_defender = m.get(self.attacker_side), m.get(defender_side)

    @staticmethod
    def _entry(u: dict, paths: dict) -> UnitEntry:
        flags = [f for f in UNIT_FLAGS if u.get(f)]
        p = paths.get(u["id"])
        if isinstance(p, dict):
            p = p.get("hazards")
        return UnitEntry(uid=u["id"], type=u.get("type", "infantry") if u.get("type", "infantry") in UNIT_TYPES
                         else "infantry", strength=int(u.get("strength", 0)), movement=int(u.get("movement", 2)),
                         flags=flags, hazards=",".join(str(h) for h in p) if p else "")

    def add_unit(self, role: str, entry: UnitEntry | None = None) -> UnitEntry:
        entry = entry or UnitEntry(uid=self._fresh_id(role))
        if role == "attacker":
            self.attackers = self.attackers + [entry]
        else:
            self.defenders = self.defenders + [entry]
        return entry

    def remove_unit(self, role: str, entry: UnitEntry) -> None:
        if role == "attacker":
            self.attackers = [e for e in self.attackers if e is not entry]
        else:
            self.defenders = [e for e in self.defenders if e is not entry]

    def _fresh_id(self, role: str) -> str:
        used = {e.uid for e in self.attackers + self.defenders}
        prefix = "att" if role == "attacker" else "def"
        i = 1
        while f"{prefix}{i}" in used:
            i += 1
        return f"{prefix}{i}"

    def copy_from(self, other: "BattlePlan") -> None:
        with self.hold():
            for k in ("edition", "attacker_side", "terrain", "hexside", "defender_upslope", "reserves_attacker",
                      "reserves_defender", "countercharge", "command", "artillery_support", "reduce_to", "fatigue",
                      "reliability_checks", "morale_attacker", "morale_defender", "tables", "tables_name"):
                v = getattr(other, k)
                setattr(self, k, list(v) if isinstance(v, list) else v)
            self.attackers = [e.copy() for e in other.attackers]
            self.defenders = [e.copy() for e in other.defenders]

    # -- engine input --------------------------------------------------------------------------------
    def battle_data(self) -> dict:
        """The plan in the battle-file format (what ``vedette n20 odds`` reads)."""
        defender_side = "allied" if self.attacker_side == "french" else "french"
        data: dict[str, Any] = {
            "edition": self.edition, "name": self.title, "attacker": self.attacker_side,
            "attackers": [e.spec() for e in self.attackers], "defenders": [e.spec() for e in self.defenders],
            "terrain": self.terrain,
            "reserves": {"attacker": self.reserves_attacker, "defender": self.reserves_defender},
        }
        if self.hexside:
            data["hexsides"] = [{"features": list(self.hexside), "defender_upslope": self.defender_upslope}]
        if self.countercharge:
            data["countercharge"] = True
        if self.command != "none":
            data["command"] = self.command
        if self.artillery_support:
            data["artillery_support"] = self.artillery_support
        if self.reduce_to is not None:
            data["reduce_to"] = self.reduce_to
        if self.fatigue:
            data["fatigue"] = True
        if self.reliability_checks:
            data["reliability_checks"] = True
        if self.morale_attacker is not None or self.morale_defender is not None:
            data["morale"] = {s: v for s, v in ((self.attacker_side, self.morale_attacker),
                                                (defender_side, self.morale_defender)) if v is not None}
        paths = {}
        for e in self.attackers + self.defenders:
            h = e.hazard_list()
            if h is not None:
                paths[e.uid] = h
        if paths:
            data["paths"] = paths
        return data

    def battle(self):
        tables = self.tables if (self.tables is not None and self.tables.edition == self.edition) else None
        if self.tables is not None and tables is None:
            raise VedetteError(f"your tables file {self.tables_name} is for edition {self.tables.edition}; "
                               f"switch the edition to {self.tables.edition} or load a {self.edition} file")
        return n20.parse_battle(self.battle_data(), name=self.title, tables=tables)

    #: a dashboards ``Background`` set by a served page: the odds are then worked out off the event loop, in
    #: a worker process, with a busy line (issue 12.3); without one (tests, notebooks) here and now
    runner: Background | None = None

    def recompute(self) -> None:
        try:
            if not self.attackers or not self.defenders:
                raise VedetteError("a battle needs at least one attacker and one defender (9.0 A)")
            battle = self.battle()
        except (VedetteError, ValueError) as exc:  # ValueError: e.g. a param bound; shown like a rules error
            self._computed(None, str(exc))
            return
        key = (json.dumps(self.battle_data(), sort_keys=True, default=str) if self.tables is None else None)
        if key is not None and key in _SHARED_ODDS:     # the same battle on shipped tables: computed once
            self._computed(*_SHARED_ODDS[key])
            return

        def done(answer):
            if key is not None:
                _share_odds(key, answer)
            self._computed(*answer)

        if self.runner is None:
            try:
                answer = odds_work(battle)
            except (VedetteError, ValueError) as exc:
                self._computed(None, str(exc))
                return
            done(answer)
        else:
            self.runner.start(partial(odds_work, battle), done, lambda exc: self._computed(None, str(exc)),
                              label="working out the odds…")

    def _computed(self, result, error: str, elapsed_ms: float | None = None) -> None:
        if error:
            self.error = error
        else:
            self.result, self.error = result, ""
        if elapsed_ms is not None:
            self.elapsed_ms = elapsed_ms
        self.revision += 1

    # -- tables upload -------------------------------------------------------------------------------
    def use_tables(self, tables, filename: str) -> None:
        with self.hold():
            self.tables, self.tables_name = tables, filename
            if tables.edition != self.edition:
                self.edition = tables.edition

    def reset_tables(self) -> None:
        with self.hold():
            self.tables, self.tables_name = None, ""

    # -- change tracking -----------------------------------------------------------------------------
    class _Hold:
        def __init__(self, plan):
            self.plan = plan

        def __enter__(self):
            self.plan._holding = True

        def __exit__(self, *exc):
            self.plan._holding = False
            self.plan._watch_entries()
            self.plan.recompute()

    def hold(self) -> "_Hold":
        """Group several changes into one recomputation."""
        return BattlePlan._Hold(self)

    def _changed(self, *events) -> None:
        if any(e.name in ("attackers", "defenders") for e in events):
            self._watch_entries()
        if not self._holding:
            self.recompute()

    def _watch_entries(self) -> None:
        for obj, w in self._entry_watchers:
            obj.param.unwatch(w)
        self._entry_watchers = [(e, e.param.watch(self._changed, ["uid", "type", "strength", "movement", "flags",
                                                                  "hazards"]))
                                for e in self.attackers + self.defenders]

    # -- derived views (formatting only; every number comes from the engine's result) ----------------
    def side_probabilities(self) -> list[tuple[str, Fraction, str]]:
        return side_probabilities(self.result)


def odds_work(battle) -> tuple[Any, str, float]:
    """``(odds, "", milliseconds)`` of a parsed battle: module-level, so that it runs in a worker process."""
    t0 = time.perf_counter()
    try:
        res = n20.odds(battle)
    except ValueError as exc:
        raise VedetteError(str(exc)) from None
    return res, "", (time.perf_counter() - t0) * 1000


#: odds of battles on the shipped tables, shared by every session (the results are never changed in place)
_SHARED_ODDS: dict[str, tuple] = {}
_SHARED_MAX = 64


def _share_odds(key: str, answer: tuple) -> None:
    if len(_SHARED_ODDS) >= _SHARED_MAX:
        _SHARED_ODDS.pop(next(iter(_SHARED_ODDS)))
    _SHARED_ODDS[key] = answer


def side_probabilities(r) -> list[tuple[str, Fraction, str]]:
    """(label, probability, rule) rows for the consequence bars of an ``engine.n20.OddsResult``."""
    if r is None:
        return []
    s, d = r.summary, r.outcomes
    att, dfn = r.battle.attacker_side, r.battle.defender_side

    def any_fate(role, pred):
        return d.prob(lambda o: any(f.role == role and pred(f) for f in o.fates))

    return [
        (f"defender ({dfn}) breaks", s["defender_broken"], "9.6.1"),
        (f"defender ({dfn}) dislodged", s["defender_dislodged"], "9.7"),
        ("defender routs beyond its movement allowance", any_fate("defender", lambda f: f.beyond_ma), "9.6"),
        (f"attacker ({att}) breaks", s["attacker_broken"], "9.6.1"),
        (f"attacker ({att}) dislodged",
         any_fate("attacker", lambda f: f.hexes > 0 or f.fate in ("broken", "destroyed")), "9.7"),
        ("attacker routs beyond its movement allowance", any_fate("attacker", lambda f: f.beyond_ma), "9.6"),
        ("runaway cavalry advance (control lost)", s["runaway_cavalry_advance"], "9.9.3"),
        ("Guard recule (-1 morale)", s["guard_recule"], "12.2.2"),
    ] + [(f"{side} loses the game (morale 0)", p, "12.1.2") for side, p in s["game_lost"].items() if p]


# ------------------------------------------------------------------------------------------------
# A units table's cell edit
# ------------------------------------------------------------------------------------------------
_BOOL_FLAGS = ["elite", "guard", "heavy", "routed", "unreliable"]   # the usual flags, named in the table's title
# The units tables' columns. One "flags" column (words) rather than a checkbox column per flag: each Tabulator column costs three Bokeh
# models per session, and 13 columns did not fit a 1280 px screen (issue 17).
EDIT_COLUMNS = ["id", "type", "strength", "move", "flags", "retreat hazards", "source"]


def apply_edit(plan: BattlePlan, e: UnitEntry, column: str, value) -> None:
    """A table cell edit -> the unit entry (invalid values raise ValueError and change nothing)."""
    if column == "id":
        e.uid = str(value).strip() or e.uid
    elif column == "type":
        e.type = value
    elif column == "strength":
        e.strength = int(value)
    elif column == "move":
        e.movement = int(value)
    elif column in ("flags", "other flags"):
        words = [w for w in str(value or "").replace(",", " ").split() if w]
        bad = [w for w in words if w not in UNIT_FLAGS]
        if bad:
            raise ValueError(f"unknown flag(s) {', '.join(bad)}; flags are: "
                             + ", ".join(f"{f} ({r})" for f, r in FLAG_HELP.items()))
        e.flags = list(dict.fromkeys(words))
    elif column in _BOOL_FLAGS:   # kept for callers that set one flag on or off
        on = bool(value)
        e.flags = [f for f in e.flags if f != column] + ([column] if on else [])
    elif column == "retreat hazards":
        e.hazards = str(value or "")
