"""The game of Lines of Battle: state, actions, their procedures, legal actions, victory (rules 2-6).

A :class:`Game` is an immutable value. :func:`perform` is the procedure of one action (it may roll dice
and ask questions); it returns the next :class:`Game`. Illegal actions raise :class:`RuleViolation`
before anything happens. Every random step is one of the shared procedures: :func:`combat`,
:func:`artillery_fire`, :func:`command_points`, :func:`rain_squall`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from engine.core.errors import RuleViolation, VedetteError
from engine.core.graph import dijkstra
from engine.core.procedure import Choose, Log, Roll, Sub

from .analysis import make_context
from .board import Board, default_board
from .combat import CombatResult, combat
from .command import command_points, rain_squall
from .fire import FireSetup, artillery_fire
from .leaders import apply_loss, loss_roll, step_away
from .scenario import ScenarioSpec, default_scenario, initial_leaders, initial_units
from .tables import Tables, default_tables
from .units import ART, CAV, INF, Leader, Phase, Unit, other_side

__all__ = ["Setup", "Game", "Action", "new_game", "perform", "legal_actions", "move_cost", "check_action"]


@dataclass(frozen=True)
class Setup:
    """The fixed parts of a game: map, scenario, tables, options."""

    board: Board = field(default_factory=default_board)
    scenario: ScenarioSpec = field(default_factory=default_scenario)
    tables: Tables = field(default_factory=default_tables)
    options: frozenset = frozenset()
    morale_bid: tuple = ()          # Albuera option 1: ((side, morale points paid), ...), kept for the record

    # a value: the map, scenario and tables count by their content (each one's fingerprint, computed once
    # when it was loaded), so two games set up from equal files are equal and meet in memo keys
    def _key(self) -> tuple:
        return (self.board.fingerprint, self.scenario.fingerprint, self.tables.fingerprint, self.options,
                self.morale_bid)

    def __hash__(self):
        return hash(self._key())

    def __eq__(self, other):
        return self is other or (isinstance(other, Setup) and self._key() == other._key())


@dataclass(frozen=True)
class Action:
    """One player action. ``type`` is one of: place, end-setup (option 6), toggle, end-admin, rally, activate,
    move, attack, fire, end-phase."""

    type: str
    units: tuple = ()
    path: tuple = ()
    area: str | None = None
    target: str | None = None
    end: str = "area"

    def to_json(self) -> dict:
        d: dict[str, Any] = {"type": self.type}
        if self.units:
            d["units"] = list(self.units)
        if self.path:
            d["path"] = list(self.path)
        if self.area is not None:
            d["area"] = self.area
        if self.target is not None:
            d["target"] = self.target
        if self.type == "move":
            d["end"] = self.end
        return d

    @classmethod
    def from_json(cls, d: dict) -> "Action":
        if not isinstance(d, dict) or "type" not in d:
            raise VedetteError(f"an action is an object with a 'type', got {d!r}")
        known = {"type", "units", "path", "area", "target", "end"}
        extra = set(d) - known
        if extra:
            raise VedetteError(f"unknown action field(s) {sorted(extra)}; known: {sorted(known)}")
        if not isinstance(d["type"], str):
            raise VedetteError(f"action field 'type': expected a string, got {_short(d['type'])}")
        if not isinstance(d.get("end", "area"), str):
            raise VedetteError(f"action field 'end': expected a string (area, approach:X, square, line, deploy), "
                               f"got {_short(d['end'])}")
        return cls(type=d["type"], units=_names(d, "units"), path=_names(d, "path"), area=_name(d, "area"),
                   target=_name(d, "target"), end=d.get("end", "area"))

    def describe(self) -> str:
        t = self.type
        if t == "move":
            return f"move {', '.join(self.units)} via {'-'.join(self.path) or '(in place)'} ({self.end})"
        if t == "attack":
            via = f" via {'-'.join(self.path)}" if self.path else ""
            return f"attack {self.target} with {', '.join(self.units)}{via}"
        if t == "fire":
            return f"{self.units[0]} fires at {self.target}"
        if t == "place":
            return f"place {self.units[0]} in {self.area}"
        if t in ("rally", "toggle"):
            return f"{t} {self.units[0]}"
        if t == "activate":
            return f"activate area {self.area}"
        return t


def _short(v) -> str:
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


@dataclass(frozen=True)
class Game:
    # the set-up counts in a position's equality and hash (by value: see Setup), so positions of games
    # with other tables, options or a changed map never meet in a memo
    setup: Setup = field(repr=False)
    turn: int = 1
    player: str = "French"
    phase: str = Phase.ADMIN      # setup (option 6) | admin | command | over (a Phase)
    cp: int = 0
    morale: tuple = (("Allied", 10), ("French", 10))
    units: tuple[Unit, ...] = ()
    rallied: frozenset = frozenset()
    activated: frozenset = frozenset()
    acted: frozenset = frozenset()
    moved_in: frozenset = frozenset()
    frozen: frozenset = frozenset()     # attacked by a cavalry charge: no activation this turn (5.3.1)
    toggled: frozenset = frozenset()
    deployed_now: frozenset = frozenset()
    horse_moved: frozenset = frozenset()   # 7.2.1: horse artillery that moved one point and may still fire
    spent: tuple = ()                      # 4.2.2: (uid, points) used by formation changes in place this go
    pace: tuple = ()                       # 7.1.2 marcher / disorganised: (uid, +1 or -1) for this turn
    gunner_used: frozenset = frozenset()   # 7.1.2 artilleryman leaders whose +1 was used this turn
    rain: bool = False
    last_albuera: str | None = None
    winner: str | None = None
    reason: str = ""
    leaders: tuple[Leader, ...] = ()    # optional rule 7.1

    # --- queries -------------------------------------------------------------------------------
    @property
    def board(self) -> Board:
        return self.setup.board

    @property
    def tables(self) -> Tables:
        return self.setup.tables

    def morale_of(self, side: str) -> int:
        return dict(self.morale)[side]

    def unit(self, uid: str) -> Unit:
        for u in self.units:
            if u.uid == uid:
                return u
        raise RuleViolation("1.2", f"no unit {uid!r} in this game")

    @property
    def use_leaders(self) -> bool:
        return "leaders" in self.setup.options

    def leader(self, name: str) -> Leader | None:
        for ld in self.leaders:
            if ld.name == name:
                return ld
        return None

    def leaders_in(self, area: str, side: str | None = None) -> tuple[Leader, ...]:
        return tuple(ld for ld in self.leaders if ld.present and ld.area == area and (side is None or ld.side == side))

    def with_leaders(self, changed) -> "Game":
        by = {ld.name: ld for ld in changed}
        return replace(self, leaders=tuple(by.get(ld.name, ld) for ld in self.leaders))

    def live(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.area is not None)

    def in_area(self, area: str) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.area == area)

    def holder(self, area: str) -> str | None:
        for u in self.units:
            if u.area == area:
                return u.side
        return None

    def occupied(self) -> dict[str, str]:
        return {u.area: u.side for u in self.units if u.area is not None}

    @property
    def over(self) -> bool:
        return self.phase == "over"

    def to_json(self) -> dict:
        return {"turn": self.turn, "player": self.player, "phase": self.phase, "cp": self.cp,
                "morale": dict(self.morale), "rain": self.rain, "winner": self.winner, "reason": self.reason,
                "last_in_albuera": self.last_albuera,
                "units": [u.to_json() for u in self.units],
                "leaders": [ld.to_json() for ld in self.leaders]}

    # --- updates (pure) -------------------------------------------------------------------------
    def with_units(self, changed) -> "Game":
        by = {u.uid: u for u in changed}
        return replace(self, units=tuple(by.get(u.uid, u) for u in self.units))

    def add_morale(self, delta: dict[str, int]) -> "Game":
        m = dict(self.morale)
        for k, v in delta.items():
            m[k] += v
        return replace(self, morale=tuple(sorted(m.items())))


def new_game(setup: Setup | None = None, options=(), morale_bid: dict | None = None) -> Game:
    """The Albuera set-up (scenario), French to play first, turn 1, admin phase."""
    setup = setup or Setup(options=frozenset(options))
    sc = setup.scenario
    units = initial_units(sc, setup.options, setup.board)
    morale = {"French": sc.morale.French, "Allied": sc.morale.Allied}
    if morale_bid:
        # optional rule 1 (bid for victory): the winner of the bid pays its bid in morale
        for side, bid in morale_bid.items():
            if side not in morale or not isinstance(bid, int) or bid < 0:
                raise RuleViolation("Albuera option 1", f"a bid is a side and a whole number of morale points, got {side}: {bid}")
            morale[side] -= bid
        setup = replace(setup, morale_bid=tuple(sorted(morale_bid.items())))
    g = Game(setup=setup, turn=1, player=sc.first_player, phase=Phase.ADMIN, cp=0,
             morale=tuple(sorted(morale.items())), units=units,
             leaders=initial_leaders(sc, setup.options))
    free = _free_setup_sides(setup.options)
    if free:
        # scenario option 6: the Allies set up first, then the French (each only if free to)
        g = replace(g, phase=Phase.SETUP, player="Allied" if "Allied" in free else "French")
    return _track_albuera(g)


def _free_setup_sides(options) -> tuple[str, ...]:
    if "setup" in options:
        return ("Allied", "French")
    return tuple(s for s, o in (("Allied", "setup-allied"), ("French", "setup-french")) if o in options)


def setup_locations(g: "Game", side: str) -> tuple[str, ...]:
    """The areas the printed set-up uses for ``side`` (option 6: the Allies keep a unit in each)."""
    return tuple(sorted({u.area for u in initial_units(g.setup.scenario, g.setup.options, g.board)
                         if u.side == side}))


def _bank(side: str) -> str:
    return "west" if side == "Allied" else "east"


# ------------------------------------------------------------------------------------------------
# Movement costs (4.2.2, Albuera terrain)
# ------------------------------------------------------------------------------------------------
def allowance(g: Game, u: Unit) -> int:
    mv = g.tables.movement
    base = {INF: mv.infantry, CAV: mv.cavalry, ART: mv.artillery}[u.kind]
    if g.rain and u.kind in (INF, ART):
        base = min(base, g.tables.optional.rain_infantry_artillery_movement)   # option 5
    return max(0, base + sum(d for uid, d in g.pace if uid == u.uid))          # 7.1.2 marcher / disorganised


def points_left(g: Game, u: Unit) -> int:
    """4.2.2: the allowance less the points already used this go by formation changes in place."""
    return allowance(g, u) - sum(n for uid, n in g.spent if uid == u.uid)


def step_cost(g: Game, u: Unit, a: str, b: str) -> int | None:
    """Cost for ``u`` to cross from ``a`` to ``b``; None for a river without bridge/ford (all points)."""
    t = g.tables.terrain
    c = g.board.crossing(a, b)
    if c.water == "river" and not c.crossing:
        return None                                              # Albuera terrain 6
    cost = 1                                                     # 4.2.2
    if g.board.terrain(b) == "wood" and u.kind in (CAV, ART) and not c.road:
        cost += t.woods_entry_cavalry_artillery                  # Albuera terrain 3, 9
    if c.water == "stream" and not c.crossing:
        cost += t.stream_cost_artillery if u.kind == ART else t.stream_cost_infantry_cavalry   # terrain 7
    if c.water and c.crossing and u.kind in (CAV, ART):
        cost += t.crossing_cost_cavalry_artillery                # Albuera terrain 8
    if u.square:
        cost += g.tables.movement.square_extra                   # 4.2.2: squares pay +1
    return cost


def move_cost(g: Game, u: Unit, path: tuple[str, ...], end: str = "area", attack: str | None = None) -> int:
    """Movement points ``u`` spends along ``path`` (then ``end``, or an attack into ``attack``).

    Raises RuleViolation for an impossible route."""
    mv = g.tables.movement
    here = u.area
    total = 0
    steps = list(path) + ([attack] if attack else [])
    on_approach = u.approach is not None
    if on_approach and steps and steps[0] == u.area:
        # 4.2.2 NB: alone, it may step back off the approach into its own area and go on from there
        total += mv.approach_step
        steps, on_approach = steps[1:], False
    if on_approach and steps and steps[0] != u.approach:
        raise RuleViolation("4.2.2", f"{u.uid} is on the approach facing {u.approach}: its first move is into "
                                     f"{u.approach}, or back into its own area (a path starting with {u.area})")
    if on_approach and not steps and (end in ("area", "square") or end.startswith("approach:")):
        total += mv.approach_step                                # off the approach into its own area
    square = u.square
    for i, nxt in enumerate(steps):
        if not g.board.adjacent(here, nxt):
            raise RuleViolation("4.2.2", f"{here} and {nxt} do not border each other")
        c = step_cost(g, u if u.square == square else replace(u, square=square), here, nxt)   # 4.2.2: +1 only in square
        if g.board.is_close(nxt):
            square = False                                       # 4.2.2: close terrain breaks the square
        if c is None:
            if i != 0 or len(steps) != 1 or attack:
                raise RuleViolation("Albuera terrain 6", f"crossing the river between {here} and {nxt} takes all "
                                                         f"of a unit's movement (no attack across it)")
            c = allowance(g, u)
        total += c
        here = nxt
    if attack:
        total += mv.enter_enemy_area                              # 4.2.2: +1 to enter an enemy area
    if end.startswith("approach:"):
        total += mv.approach_step
    elif end in ("square", "line"):
        total += mv.square_change
    elif end == "deploy":
        total += mv.deploy
    return total


# ------------------------------------------------------------------------------------------------
# Checks
# ------------------------------------------------------------------------------------------------
def _own(g: Game, uid: str) -> Unit:
    u = g.unit(uid)
    if u.side != g.player:
        raise RuleViolation("4", f"{uid} belongs to the {u.side}; it is the {g.player} player's go")
    if u.area is None:
        raise RuleViolation("4.1", f"{uid} has been eliminated")
    return u


def _need_active(g: Game, u: Unit, fire: bool = False) -> None:
    if u.uid not in g.activated:
        raise RuleViolation("4.2", f"{u.uid} has not been activated this turn (activate its area first)")
    if u.uid in g.acted:
        raise RuleViolation("4", f"{u.uid} has already moved, fired or fought this turn")
    if u.uid in g.horse_moved and not fire:
        raise RuleViolation("7.2.1", f"{u.uid} has made its one-point move; it may still fire, not move again")


def _approach_taken(g: Game, area: str, facing: str, except_uid: str | None = None) -> bool:
    return any(v.area in (area, facing) and v.approach in (area, facing) and v.uid != except_uid
               and {v.area, v.approach} == {area, facing} for v in g.units)


def check_action(g: Game, a: Action) -> None:
    """Raise :class:`RuleViolation` if ``a`` is not legal now; return quietly otherwise."""
    if g.over:
        raise RuleViolation("6", f"the game is over ({g.winner} won: {g.reason})")
    t = a.type
    if g.phase == "setup":
        if t == "place":
            u = _own(g, a.units[0] if a.units else "")
            if a.area not in g.board:
                raise RuleViolation("Albuera option 6", f"no area {a.area!r} on the map")
            if g.board.attrs(a.area)["bank"] != _bank(g.player):
                raise RuleViolation("Albuera option 6", f"the {g.player} set up {_bank(g.player)} of the river "
                                                        f"and streams; {a.area} is not")
            return
        if t == "end-setup":
            if g.player == "Allied":
                empty = [x for x in setup_locations(g, "Allied") if g.holder(x) != "Allied"]
                if empty:
                    raise RuleViolation("Albuera option 6", f"the Allies must keep at least one unit in each "
                                                            f"set-up area; empty: {', '.join(empty)}")
            return
        raise RuleViolation("Albuera option 6", f"{t!r} is not a set-up action (place, end-setup)")
    if t in ("place", "end-setup"):
        raise RuleViolation("Albuera option 6", f"{t!r} belongs to the free set-up before the first turn")
    if g.phase == "admin":
        if t not in ("toggle", "end-admin"):
            raise RuleViolation("3", f"{t!r} is not an admin-phase action (toggle, end-admin)")
    elif t in ("toggle", "end-admin"):
        raise RuleViolation("3", f"{t!r} belongs to the admin phase")
    if t == "end-admin" or t == "end-phase":
        return
    if t == "toggle":
        u = _own(g, a.units[0] if a.units else "")
        if u.kind != ART:
            raise RuleViolation("3", f"{u.uid} is not artillery")
        if g.board.is_close(u.area):
            raise RuleViolation("Albuera terrain 2-3", f"artillery in {u.area} must stay limbered")
        if u.uid in g.toggled:
            raise RuleViolation("3", f"{u.uid} has already changed formation this admin phase")
        return
    if t == "rally":
        if g.cp < 1:
            raise RuleViolation("4", "no command points left")
        u = _own(g, a.units[0] if a.units else "")
        if u.hits < 1:
            raise RuleViolation("4.1", f"{u.uid} has no hits to remove")
        if u.approach is not None:
            raise RuleViolation("4.1", f"{u.uid} is on an approach and cannot rally")
        if u.uid in g.rallied or u.uid in g.activated:
            raise RuleViolation("4", f"{u.uid} has already rallied or been activated this turn")
        if g.use_leaders and not any(ld.can_command(u) for ld in g.leaders_in(u.area, g.player)):
            raise RuleViolation("7.1", f"no leader in {u.area} who may command {u.uid}: command points are "
                                       f"spent where a leader is")
        return
    if t == "activate":
        if a.area is None or a.area not in g.board:
            raise RuleViolation("4.2", f"no area {a.area!r} on the map")
        units, leader, cost = _activation(g, a.area, a.units[0] if a.units else None)
        if g.cp < cost:
            raise RuleViolation("4" if cost == 1 else "7.1.2", f"{cost} command point(s) needed, {g.cp} left")
        if not units:
            raise RuleViolation("4.2", f"area {a.area} has no {g.player} unit that may be activated now "
                                       f"(rallied, moved in, already activated or charged units cannot be"
                                       f"{', nor units the leader may not command' if leader else ''})")
        return
    if t == "fire":
        _check_fire(g, a)
        return
    if t in ("move", "attack"):
        if not a.units:
            raise RuleViolation("4.2.2", "name the unit(s) to move")
        names, leaders = _split(g, a.units)
        for ld in leaders:
            if ld.name not in g.activated or ld.name in g.acted:
                raise RuleViolation("7.1", f"{ld.name} has not been activated this turn, or has moved already")
        if t == "move" and leaders:
            if names or len(leaders) != 1 or not a.path or a.end != "area":
                raise RuleViolation("7.1", "a leader moves on its own, along a path, to an area")
            for step in a.path:
                if step not in g.board:
                    raise RuleViolation("4.2.2", f"no area {step!r} on the map")
                if g.holder(step) not in (None, g.player):
                    raise RuleViolation("7.1", f"a leader may not enter {step}: enemy units are there")
            cost = _leader_path_cost(g, leaders[0], a.path)
            if cost > leaders[0].movement:
                raise RuleViolation("7.1", f"{leaders[0].name} would need {cost} movement points; it has "
                                           f"{leaders[0].movement}")
            return
        if leaders and not names:
            raise RuleViolation("7.1", "a leader is not a combat unit: it can only join an attack")
        if any(ld.area != g.unit(names[0]).area for ld in leaders):
            raise RuleViolation("7.1", "a leader joins an attack from the attackers' area")
        us = [_own(g, uid) for uid in names]
        if len(set(a.units)) != len(a.units):
            raise RuleViolation("4.2.2", "a unit is named twice")
        if leaders:
            a = replace(a, units=tuple(names))
        starts = {u.area for u in us}
        if len(starts) != 1:
            raise RuleViolation("4.2.2", "a group moves from one area together")
        for u in us:
            _need_active(g, u)
        here = us[0].area
        for step in a.path:
            if step not in g.board:
                raise RuleViolation("4.2.2", f"no area {step!r} on the map")
            if g.holder(step) not in (None, g.player):
                raise RuleViolation("4.2.2", f"area {step} holds enemy units: entering it is an attack")
        if t == "move":
            _check_move(g, a, us)
        else:
            _check_attack(g, a, us)
        return
    raise RuleViolation("4", f"unknown action {t!r}")


def _activatable(g: Game, area: str) -> tuple[Unit, ...]:
    return tuple(u for u in g.in_area(area) if u.side == g.player and u.uid not in g.rallied
                 and u.uid not in g.moved_in and u.uid not in g.activated and u.uid not in g.frozen)


def _activation(g: Game, area: str, leader_name: str | None) -> tuple[tuple[Unit, ...], Leader | None, int]:
    """Which units an activation of ``area`` wakes, through which leader, for how many CPs (4.2, 7.1)."""
    units = _activatable(g, area)
    if not g.use_leaders:
        if leader_name:
            raise RuleViolation("7.1", "leaders are an optional rule that is not in use in this game")
        return units, None, 1
    if leader_name is None:
        if "light-cavalry" in g.setup.options:
            # 7.1.3: light cavalry may be activated without a leader
            return tuple(u for u in units if u.kind == CAV and u.cav == "light"), None, 1
        raise RuleViolation("7.1", "with leaders, name the leader who spends the command point "
                                   "(units: [leader name])")
    ld = g.leader(leader_name)
    if ld is None or ld.side != g.player or not ld.present:
        raise RuleViolation("7.1", f"{leader_name!r} is not a {g.player} leader on the map")
    if ld.area != area:
        fine = "fine-rider" in ld.attributes and g.board.adjacent(ld.area, area) and not g.board.is_close(area)
        if not fine:
            raise RuleViolation("7.1", f"{ld.name} is in {ld.area}: command points are spent in the leader's area"
                                       " (7.1.2 fine riders: also an adjacent open area)")
    cost = 2 if "imbecile" in ld.attributes else 1                      # 7.1.2 imbecile
    return tuple(u for u in units if ld.can_command(u)), ld, cost


def _split(g: Game, names) -> tuple[list[str], list[Leader]]:
    units, leaders = [], []
    for n in names:
        ld = g.leader(n) if g.use_leaders else None
        if ld is not None:
            if ld.side != g.player or not ld.present:
                raise RuleViolation("7.1", f"{n} is not a {g.player} leader on the map")
            leaders.append(ld)
        else:
            units.append(n)
    return units, leaders


def _leader_path_cost(g: Game, ld: Leader, path) -> int:
    """7.1: a leader moves 4 and always pays the lowest terrain price (that of infantry)."""
    here, total = ld.area, 0
    for i, nxt in enumerate(path):
        if not g.board.adjacent(here, nxt):
            raise RuleViolation("4.2.2", f"{here} and {nxt} do not border each other")
        c = g.board.crossing(here, nxt)
        if c.water == "river" and not c.crossing:
            if i != 0 or len(path) != 1:
                raise RuleViolation("Albuera terrain 6", "crossing the river takes a leader's whole move")
            return ld.movement
        total += 1 + (g.tables.terrain.stream_cost_infantry_cavalry if c.water == "stream" and not c.crossing else 0)
        here = nxt
    return total


def _check_move(g: Game, a: Action, us: list[Unit]) -> None:
    end = a.end
    final = a.path[-1] if a.path else us[0].area
    if end.startswith("approach:"):
        facing = end.split(":", 1)[1]
        if len(us) != 1 or us[0].kind != INF:
            raise RuleViolation("1.1", "only a single infantry unit may occupy an approach")
        if facing not in g.board or not g.board.adjacent(final, facing):
            raise RuleViolation("1.1", f"area {final} has no border with {facing!r}")
        if not g.board.has_approach(final, facing):
            raise RuleViolation("1.1", f"no approach between {final} and {facing}: approaches lie only between "
                                       f"two open areas")
        if _approach_taken(g, final, facing, us[0].uid):
            raise RuleViolation("1.1", f"the approach between {final} and {facing} is already occupied")
    elif end == "square":
        if any(u.kind != INF for u in us):
            raise RuleViolation("4.2.2", "only infantry may form square")
        if g.board.is_close(final):
            raise RuleViolation("4.2.2", "only infantry in open terrain may form square")
        if any(u.square for u in us) and not a.path:
            raise RuleViolation("4.2.2", "already in square")
    elif end == "line":
        if any(not u.square for u in us):
            raise RuleViolation("4.2.2", "only a square can leave square")
    elif end == "deploy":
        if any(u.kind != ART for u in us):
            raise RuleViolation("4.2.2", "only artillery deploys")
        if g.board.is_close(final):
            raise RuleViolation("Albuera terrain 2-3", f"artillery in {final} must stay limbered")
    elif end != "area":
        raise RuleViolation("4.2.2", f"unknown move ending {end!r} (area, approach:X, square, line, deploy)")
    if not a.path and end == "area" and not all(u.approach for u in us):
        raise RuleViolation("4.2.2", "a move needs a path (or an ending such as square, approach:X, deploy)")
    _check_step_back(a, us)
    for u in us:
        cost = move_cost(g, u, a.path, end)
        if cost > points_left(g, u):
            raise RuleViolation("4.2.2", f"{u.uid} would need {cost} movement points; it has {points_left(g, u)} left")


def _check_step_back(a: Action, us: list[Unit]) -> None:
    """4.2.2 NB: a path that starts in the group's own area is infantry stepping off its approach, alone."""
    if a.path and a.path[0] == us[0].area:
        if len(us) != 1 or us[0].approach is None:
            raise RuleViolation("4.2.2", f"a path starting in {us[0].area}, the group's own area, is only for a "
                                         f"single infantry unit stepping back off its approach")


def _check_attack(g: Game, a: Action, us: list[Unit]) -> None:
    if a.target is None or a.target not in g.board:
        raise RuleViolation("5", f"no target area {a.target!r} on the map")
    if g.holder(a.target) in (None, g.player):
        raise RuleViolation("5", f"area {a.target} holds no enemy unit")
    origin = a.path[-1] if a.path else us[0].area
    if not g.board.adjacent(origin, a.target):
        raise RuleViolation("5", f"area {origin} does not border {a.target}")
    _check_step_back(a, us)
    for u in us:
        if not u.is_combat:
            raise RuleViolation("5", f"{u.uid} is artillery: only infantry and cavalry attack")
        if u.strength < 1:
            raise RuleViolation("4.2.2", f"{u.uid} has strength {u.strength}: attackers need strength 1 or more")
        cost = move_cost(g, u, a.path, "area", attack=a.target)
        if cost > points_left(g, u):
            raise RuleViolation("5", f"{u.uid} would need {cost} movement points to attack; it has "
                                     f"{points_left(g, u)} left")


def _fire_range(g: Game, gun: Unit, target_area: str) -> str | None:
    """'near', 'far' (from a hill, Albuera terrain 1) or None."""
    if g.board.adjacent(gun.area, target_area):
        return "near"
    if g.board.is_hill(gun.area) and target_area in g.board.within_two(gun.area):
        return "far"
    return None


def _check_fire(g: Game, a: Action) -> tuple[Unit, Unit, str]:
    gun = _own(g, a.units[0] if a.units else "")
    if gun.kind != ART:
        raise RuleViolation("4.2.1", f"{gun.uid} is not artillery")
    _need_active(g, gun, fire=True)
    if not gun.deployed:
        raise RuleViolation("4.2.1", f"{gun.uid} is limbered: only deployed artillery fires")
    if gun.uid in g.deployed_now:
        raise RuleViolation("4.2.2", f"{gun.uid} deployed with a movement point this go and cannot fire")
    if g.rain:
        raise RuleViolation("Albuera option 5", "no artillery fire in a rain squall")
    if g.board.is_close(gun.area):
        raise RuleViolation("Albuera terrain 2-3", f"artillery in {gun.area} cannot fire")
    tgt = g.unit(a.target or "")
    if tgt.side == g.player or tgt.area is None:
        raise RuleViolation("4.2.1", f"{a.target} is not an enemy unit on the map")
    if g.board.terrain(tgt.area) == "wood":
        raise RuleViolation("Albuera terrain 3", "artillery cannot fire into a wood")
    rng = _fire_range(g, gun, tgt.area)
    if rng is None:
        raise RuleViolation("4.2.1", f"{tgt.uid} in {tgt.area} is out of range of {gun.uid} in {gun.area} "
                                     f"(one area; two from a hill over open, non-hill ground)")
    return gun, tgt, rng


# ------------------------------------------------------------------------------------------------
# The action procedures
# ------------------------------------------------------------------------------------------------
def perform(g: Game, a: Action):
    """The procedure of one action; returns the next :class:`Game` (after checking victory)."""
    check_action(g, a)
    t = a.type
    if t == "place":
        u = g.unit(a.units[0])
        g = g.with_units([replace(u, area=a.area, approach=None, square=False,
                                  deployed=u.kind == ART and not g.board.is_close(a.area))])
    elif t == "end-setup":
        free = _free_setup_sides(g.setup.options)
        if g.player == "Allied" and "French" in free:
            g = replace(g, player="French")
        else:
            g = replace(g, phase=Phase.ADMIN, player=g.setup.scenario.first_player)
        yield Log("Albuera option 6", f"set-up done; {g.player} {'sets up' if g.phase == 'setup' else 'begins'}")
    elif t == "toggle":
        u = g.unit(a.units[0])
        g = replace(g.with_units([replace(u, deployed=not u.deployed)]), toggled=g.toggled | {u.uid})
    elif t == "end-admin":
        g = yield from _end_admin(g)
    elif t == "rally":
        u = g.unit(a.units[0])
        g = replace(g.with_units([replace(u, hits=u.hits - 1)]), cp=g.cp - 1, rallied=g.rallied | {u.uid})
        yield Log("4.1", f"{u.uid} rallies one hit")
    elif t == "activate":
        us, ld, cost = _activation(g, a.area, a.units[0] if a.units else None)
        woken = {u.uid for u in us} | ({ld.name} if ld is not None and ld.area == a.area else set())
        g = replace(g, cp=g.cp - cost, activated=g.activated | woken)
        if ld is not None:
            step = ("marcher" in ld.attributes) - ("disorganised" in ld.attributes)
            if step:
                g = replace(g, pace=g.pace + tuple((u.uid, step) for u in us))
        yield Log("4.2", f"area {a.area} activated{' by ' + ld.name if ld else ''}: {', '.join(u.uid for u in us)}")
    elif t == "move":
        names, leaders = _split(g, a.units)
        if leaders:
            ld = leaders[0]
            g = replace(g.with_leaders([replace(ld, area=a.path[-1])]), acted=g.acted | {ld.name})
        else:
            g = _do_move(g, a)
    elif t == "attack":
        names, leaders = _split(g, a.units)
        g = yield from _do_attack(g, replace(a, units=tuple(names)), tuple(leaders))
    elif t == "fire":
        g = yield from _do_fire(g, a)
    elif t == "end-phase":
        g = yield from _end_phase(g)
    if g.use_leaders and not g.over:
        g = yield from _lone_leaders(g)
    g = _track_albuera(g)
    return _sudden_death(g)


def _lone_leaders(g: Game):
    """7.1: a leader left alone where enemy units now stand takes a loss roll, then goes to a free area
    (captured when there is none)."""
    for ld in g.leaders:
        if not ld.present:
            continue
        here = {u.side for u in g.in_area(ld.area)}
        if here and ld.side not in here:
            outcome = yield Sub(("loss", ld), partial(loss_roll, ld), rule="7.1.1", label=f"{ld.name} caught alone")
            new = yield from apply_loss(g, ld, outcome)
            if new.present and new.area == ld.area:
                new = yield from step_away(g, new, "7.1", anywhere=True)
            g = g.with_leaders([new])
    return g


def _leader_losses(g: Game, leaders, why: str):
    """7.1.1 for each leader given (combat past pre-combat, a hit from artillery fire)."""
    for ld in leaders:
        ld = g.leader(ld.name)
        if not ld.present:
            continue
        outcome = yield Sub(("loss", ld), partial(loss_roll, ld), rule="7.1.1", label=f"{ld.name}: {why}")
        g = g.with_leaders([(yield from apply_loss(g, ld, outcome))])
    return g


def _end_admin(g: Game):
    for ld in g.leaders:
        if ld.present and ld.side == g.player and "wanderer" in ld.attributes:
            roll = yield Roll("d6", rule="7.1.2", label=f"{ld.name} wanders?")
            if roll == 1:
                g = g.with_leaders([replace(ld, area=None, status="wandered off")])
            elif roll == 2:
                # the opponent moves the leader one area
                opts = tuple(sorted(g.board.neighbours(ld.area)))
                dest = yield Choose(opts, rule="7.1.2", player=other_side(ld.side), label=f"move {ld.name} to",
                                    context=("leader-move", ld.name, opts))
                g = g.with_leaders([replace(ld, area=dest)])
    rain = False
    if "rain" in g.setup.options:
        rain = yield Sub(("rain", g.player, g.tables.fingerprint), partial(rain_squall, g.player, g.tables),
                         rule="Albuera option 5", label="rain squall?")
    cp = yield Sub(("cp", g.player, g.turn, g.tables.fingerprint),
                   partial(command_points, g.player, g.turn, g.tables), rule="3", label="command points")
    return replace(g, phase=Phase.COMMAND, cp=cp, rain=rain)


def _do_move(g: Game, a: Action) -> Game:
    final = a.path[-1] if a.path else g.unit(a.units[0]).area
    changed = []
    close = any(g.board.is_close(x) for x in a.path) or g.board.is_close(final)
    costs = {uid: move_cost(g, g.unit(uid), a.path, a.end) for uid in a.units}
    for uid in a.units:
        u = g.unit(uid)
        approach = None
        square = u.square and not close
        deployed = u.deployed if not a.path else False          # 4.2.2: artillery that moves limbers
        if a.end.startswith("approach:"):
            approach, square = a.end.split(":", 1)[1], False
        elif a.end == "square":
            square = True
        elif a.end == "line":
            square = False
        elif a.end == "deploy":
            deployed = True
        changed.append(replace(u, area=final, approach=approach, square=square, deployed=deployed))
    # 7.2.1: horse artillery may move one movement point and still fire (it stays ready to fire)
    horse = {uid for uid in a.units if g.unit(uid).kind == ART and g.unit(uid).arty == "horse"
             and g.unit(uid).deployed and a.path and a.end == "area" and not g.board.is_close(final)
             and move_cost(g, g.unit(uid), a.path) <= 1}
    changed = [replace(c, deployed=True) if c.uid in horse else c for c in changed]
    # 4.2.2: a formation change in place (square, line, onto or off an approach) uses points but is not
    # the unit's move: it may still move with what is left (1 to unform + 2 areas = 3)
    in_place = {uid for uid in a.units if not a.path and a.end != "deploy" and costs[uid] >= 1}
    g = replace(g.with_units(changed), acted=g.acted | (set(a.units) - horse - in_place),
                horse_moved=g.horse_moved | horse,
                spent=g.spent + tuple((uid, costs[uid]) for uid in sorted(in_place)))
    if a.path:
        g = replace(g, moved_in=g.moved_in | set(a.units))
    if a.end == "deploy":
        g = replace(g, deployed_now=g.deployed_now | set(a.units))
    return g


COMBAT_TRAITS = frozenset({"inspiring", "demoralising", "foaming", "fearful"})


def combat_context(g: Game, target: str, origin: str, attacker_side: str, charge: bool = False,
                   joining: tuple = ()):
    holders = tuple(u.uid for u in g.units if u.area is not None and u.approach is not None
                    and {u.area, u.approach} == {target, origin})
    att_traits = frozenset(t for ld in joining for t in ld.attributes) & COMBAT_TRAITS
    dfn_traits = frozenset(t for ld in g.leaders_in(target, other_side(attacker_side))
                           for t in ld.attributes) & COMBAT_TRAITS
    return make_context(g.board, target, origin, attacker_side, g.occupied(), charge=charge, rain=g.rain,
                        tables=g.tables, approach_holders=holders, att_traits=att_traits, dfn_traits=dfn_traits)


def _apply_result(g: Game, res: CombatResult) -> Game:
    before = {u.uid: u for u in g.units}
    g = g.with_units(res.units).add_morale(res.morale())
    moved = {u.uid for u in res.units if u.area is not None and u.area != before[u.uid].area}
    return replace(g, moved_in=g.moved_in | moved)


def _run_combat(g: Game, target: str, origin: str, attackers: tuple[Unit, ...], side: str, charge: bool,
                joining: tuple[Leader, ...] = ()):
    ctx = combat_context(g, target, origin, side, charge, joining)
    dfn = g.in_area(target)
    defending_leaders = g.leaders_in(target, other_side(side))
    res = yield Sub(("combat", ctx, attackers, dfn), partial(combat, ctx, attackers, dfn),
                    rule="5.3.1" if charge else "5", label=f"{'charge' if charge else 'combat'} at {target}")
    yield Log("5.3", f"combat at {target}: {res.winner} holds it ({res.stage}); morale {res.morale()}",
              res.morale())
    if charge and side != g.player:
        # 5.3.1: the phasing player's units hit by a charge lose their activation this turn
        g = replace(g, frozen=g.frozen | {u.uid for u in dfn if u.uid not in g.activated})
    g = _apply_result(g, res)
    if g.use_leaders:
        if res.taken:
            g = g.with_leaders([replace(g.leader(ld.name), area=target) for ld in joining])
        if res.stage == "rounds":
            g = yield from _leader_losses(g, tuple(joining) + tuple(defending_leaders), "in the combat (7.1)")
        # a defending leader left alone with the enemy retreats with its side (7.1)
        for ld in defending_leaders:
            ld = g.leader(ld.name)
            if ld.present and ld.area == target and g.holder(target) == side:
                g = g.with_leaders([(yield from step_away(g, ld, "7.1"))])
    return g, res


def _do_attack(g: Game, a: Action, joining: tuple[Leader, ...] = ()):
    us = [g.unit(uid) for uid in a.units]
    origin = a.path[-1] if a.path else us[0].area
    moved = [u.moved(origin, u.approach if not a.path else None,
                     u.square and not any(g.board.is_close(x) for x in (origin,) + tuple(a.path)))
             for u in us]
    g = replace(g.with_units(moved), acted=g.acted | set(a.units) | {ld.name for ld in joining})
    joining = tuple(replace(ld, area=origin) for ld in joining)
    g = g.with_leaders(joining)
    g, res = yield from _run_combat(g, a.target, origin, tuple(g.unit(uid) for uid in a.units), g.player, False,
                                    joining)
    # 5.3 / 5.3.1 the winner may charge with its fresh cavalry, again and again
    for _ in range(20):
        if g.over or _sudden_check(g):
            break
        side = res.winner_side()
        cav = tuple(g.unit(u.uid) for u in res.charge_units())
        cav = tuple(u for u in cav if u.area == res.target and u.strength >= 1)
        if not cav:
            break
        targets = []
        for n in sorted(g.board.neighbours(res.target)):
            c = g.board.crossing(res.target, n)
            if g.holder(n) not in (None, side) and not (c.water == "river" and not c.crossing):
                targets.append(n)
        if not targets:
            break
        pick = yield Choose(("none",) + tuple(targets), rule="5.3.1", player=side,
                            label=f"{side} cavalry in {res.target}: charge an adjacent area?",
                            context=("charge", res.target, tuple(u.uid for u in cav), g))
        if pick == "none":
            break
        # 5.3.1: any number of the eligible cavalry charge together (at least one)
        group = list(cav)
        if len(cav) > 1:
            group = []
            for i, u in enumerate(cav):
                if i == len(cav) - 1 and not group:
                    group.append(u)          # somebody must go: the charge was declared
                    break
                ans = yield Choose(("charge", "hold"), rule="5.3.1", player=side,
                                   label=f"{u.uid}: join the charge on {pick}?", context=("charge-unit", pick, u.uid))
                if ans == "charge":
                    group.append(u)
        # 7.1: leaders in the area may join the charge
        riders = []
        for ld in (g.leaders_in(res.target, side) if g.use_leaders else ()):
            ans = yield Choose(("join", "stay"), rule="7.1", player=side, label=f"{ld.name}: join the charge on {pick}?",
                               context=("charge-leader", pick, ld.name))
            if ans == "join":
                riders.append(ld)
        g, res = yield from _run_combat(g, pick, res.target, tuple(group), side, True, tuple(riders))
    return g


def _fire_retreats(g: Game, gun: Unit, tgt: Unit, rng: str) -> tuple[str, ...]:
    """Where a fired-on unit may retreat (4.2.1): an adjacent area free of enemies; from an approach only
    into its own area; after long-range fire not closer to the guns."""
    if tgt.approach is not None:
        return (tgt.area,)
    out = []
    for n in sorted(g.board.neighbours(tgt.area)):
        if g.holder(n) not in (None, tgt.side):
            continue
        if rng == "far" and (n == gun.area or g.board.adjacent(n, gun.area)):
            continue
        if not _could_move_into(g, tgt, n):
            continue                  # 4.2.1: only into an area the unit could normally move into
        out.append(n)
    return tuple(out)


def _could_move_into(g: Game, u: Unit, dest: str) -> bool:
    """4.2.1: a step ``u`` could make as an ordinary move from its area (its full allowance, 4.2.2; a
    river without a bridge takes all of it, Albuera terrain 6; a limbered gun, 4.2.1)."""
    mv = g.tables.movement
    full = {INF: mv.infantry, CAV: mv.cavalry, ART: mv.artillery}[u.kind]
    c = step_cost(g, replace(u, approach=None), u.area, dest)
    return c is None or c <= full


def _do_fire(g: Game, a: Action):
    gun, tgt, rng = _check_fire(g, a)
    dests = _fire_retreats(g, gun, tgt, rng)
    gunner = next((ld for ld in g.leaders_in(gun.area, gun.side)
                   if "artilleryman" in ld.attributes and ld.name not in g.gunner_used), None)
    if gunner is not None:
        g = replace(g, gunner_used=g.gunner_used | {gunner.name})     # 7.1.2: one gun gets the +1
    setup = FireSetup(artilleryman=gunner is not None, arty=gun.arty, target_kind=tgt.kind, target_square=tgt.square,
                      target_on_approach=tgt.approach is not None,
                      target_deployed_artillery=tgt.kind == ART and tgt.deployed,
                      target_in_town=g.board.terrain(tgt.area) == "town", long_range=rng == "far",
                      can_retreat=bool(dests), target_hits_left=1 if tgt.kind == ART else tgt.strength + 1)
    out = yield Sub(("fire", setup, g.tables.fingerprint, tgt.side), partial(artillery_fire, setup, g.tables, tgt.side,
                    f"{gun.uid} fires at {tgt.uid}"), rule="4.2.1", label=f"{gun.uid} fires at {tgt.uid}")
    g = replace(g, acted=g.acted | {gun.uid})
    hit = tgt.hit(out.hits)
    if out.retreated and not hit.eliminated:
        dest = dests[0] if len(dests) == 1 else (yield Choose(
            dests, rule="4.2.1", player=tgt.side, label=f"{tgt.uid} retreats to",
            context=("fire-retreat", tgt.uid, tgt.kind, dests)))
        if dest != tgt.area:
            c = g.board.crossing(tgt.area, dest)
            if c.water == "river" and not c.crossing and tgt.kind != ART:
                hit = hit.hit(1)                                     # Albuera terrain 6
        if not hit.eliminated:
            close = g.board.is_close(dest)
            hit = replace(hit, area=dest, approach=None, square=hit.square and not close and dest != tgt.area,
                          deployed=False)
            g = replace(g, moved_in=g.moved_in | {tgt.uid})
    g = g.with_units([hit])
    if hit.eliminated:
        g = g.add_morale({tgt.side: -tgt.morale_value})              # 4.2.1: as per combat
    if g.use_leaders and out.hits > 0:
        g = yield from _leader_losses(g, g.leaders_in(tgt.area, tgt.side), "artillery hit in the area (7.1)")
    yield Log("4.2.1", f"{tgt.uid}: {out.hits} hit(s){', retreats' if out.retreated else ''}"
                       f"{', eliminated' if hit.eliminated else ''}")
    return g


def _end_phase(g: Game):
    g = _victory_phase(g)
    if g.over:
        return g
    first = g.setup.scenario.first_player
    if g.player == first:
        nxt = replace(g, player=other_side(first))
    else:
        if g.turn >= g.setup.scenario.turns:
            return _end_of_game(g)
        nxt = replace(g, player=first, turn=g.turn + 1)
    yield Log("2", f"turn {nxt.turn}: {nxt.player} admin phase")
    # 3: markers of last turn are cleared at the start of a player's go
    return replace(nxt, phase=Phase.ADMIN, cp=0, rallied=frozenset(), activated=frozenset(), acted=frozenset(),
                   moved_in=frozenset(), frozen=frozenset(), toggled=frozenset(), deployed_now=frozenset(),
                   horse_moved=frozenset(), pace=(), gunner_used=frozenset(), spent=(),
                   rain=False)


# ------------------------------------------------------------------------------------------------
# Victory (6 and the scenario's conditions)
# ------------------------------------------------------------------------------------------------
def _track_albuera(g: Game) -> Game:
    h = g.holder("Albuera") if "Albuera" in g.board else None
    return replace(g, last_albuera=h) if h and h != g.last_albuera else g


def _sudden_check(g: Game) -> bool:
    wins = g.board.spec.victory_areas.french_infantry_wins
    return any(u.side == "French" and u.kind == INF and u.strength >= 1 and u.area in wins for u in g.units)


def _sudden_death(g: Game) -> Game:
    if not g.over and _sudden_check(g):
        return replace(g, phase=Phase.OVER, winner="French",
                       reason="French infantry reached the Allied rear (scenario victory)")
    return g


def _victory_phase(g: Game) -> Game:
    f, al = g.morale_of("French"), g.morale_of("Allied")
    if f <= 0 and al <= 0:
        return replace(g, phase=Phase.OVER, winner="draw", reason="both sides' morale at zero or less")
    if f <= 0:
        return replace(g, phase=Phase.OVER, winner="Allied", reason="French morale at zero or less")
    if al <= 0:
        return replace(g, phase=Phase.OVER, winner="French", reason="Allied morale at zero or less")
    return g


def _end_of_game(g: Game) -> Game:
    holds = g.board.spec.victory_areas.hold_at_end
    owners = {g.holder(a) for a in holds}
    if len(owners) == 1 and None not in owners:
        side = owners.pop()
        return replace(g, phase=Phase.OVER, winner=side, reason=f"holds {' and '.join(holds)} at the end")
    f, al = g.morale_of("French"), g.morale_of("Allied")
    if f != al:
        side = "French" if f > al else "Allied"
        return replace(g, phase=Phase.OVER, winner=side, reason="objectives shared: higher morale at the end")
    side = g.last_albuera or "Allied"
    return replace(g, phase=Phase.OVER, winner=side, reason="objectives shared, morale equal: last in Albuera")


# ------------------------------------------------------------------------------------------------
# Legal actions (for bots and the UI)
# ------------------------------------------------------------------------------------------------
#: the searches of _reach kept by what they read (map, tables, the unit's kind, place and formation, the
#: enemy-held areas, its points): a bot lists every unit's moves at each decision, most unchanged since
_REACH: dict = {}
REACH_CACHE = 20_000


def _reach(g: Game, u: Unit) -> dict[str, tuple[int, tuple[str, ...]]]:
    """Areas ``u`` can move to (free of enemies), with cost and path: a shortest-path search
    (engine.core.graph) over places (area, still in square, still on the approach, crossed the river).
    The answer is shared: read it, do not change it."""
    budget = points_left(g, u)
    full = allowance(g, u)
    enemy = frozenset(a for a, s in g.occupied().items() if s != u.side)
    key = (g.board.fingerprint, g.tables.fingerprint, u.kind, u.area, u.square, u.approach, enemy, budget, full)
    best = _REACH.get(key)
    if best is None:
        if len(_REACH) > REACH_CACHE:
            _REACH.clear()
        best = _REACH[key] = _search_reach(g, u, budget, full, enemy)
    return best


def _search_reach(g: Game, u: Unit, budget: int, full: int, enemy: frozenset) -> dict:
    start = (u.area, u.square, u.approach is not None, False)
    price: dict = {}
    plain, squared = u if not u.square else replace(u, square=False), u if u.square else replace(u, square=True)

    def neighbours(p):
        here, sq, on_app, _crossed = p
        out = []
        if on_app:
            # 4.2.2 NB: step back off the approach into its own area, then go on
            q = (here, sq, False, False)
            price[p, q] = g.tables.movement.approach_step
            out.append(q)
        for n in g.board.neighbours(here):
            if n in enemy or (on_app and n != u.approach):
                continue
            c = step_cost(g, squared if sq else plain, here, n)
            if c is None:
                # Albuera terrain 6: a river without a crossing takes the whole allowance, from the start
                if p != start or budget < full:
                    continue
                q = (n, sq, False, True)
                price[p, q] = full if not sq else full + 1
            else:
                q = (n, sq and not g.board.is_close(n), False, False)    # 4.2.2: close terrain breaks squares
                price[p, q] = c
            out.append(q)
        return out

    found = dijkstra(start, neighbours, lambda p, q: price[p, q], budget, stops=lambda p: p[3])
    best: dict[str, tuple[int, tuple[str, ...]]] = {}
    for place, r in found.items():
        area = place[0]
        if area == u.area or place == start:
            continue
        if area not in best or r.cost < best[area][0]:
            best[area] = (int(r.cost), tuple(p[0] for p in r.path[1:]))
    return best


def legal_actions(g: Game, limit_moves: bool = False, keep=None) -> list[Action]:
    """Every legal action now (moves: single units to each reachable area, plus group attacks).

    ``keep(g, action)`` filters the candidates (default: :func:`check_action`); the core protocol passes
    one that keeps them all and then checks each candidate once, with the same check."""
    keep = _legal if keep is None else keep
    if g.over:
        return []
    out: list[Action] = []
    mine = [u for u in g.live() if u.side == g.player]
    if g.phase == "setup":
        for u in mine:
            for area in g.board.areas:
                if area != u.area and g.board.attrs(area)["bank"] == _bank(g.player):
                    out.append(Action("place", units=(u.uid,), area=area))
        if keep(g, Action("end-setup")):
            out.append(Action("end-setup"))
        return out
    if g.phase == "admin":
        for u in mine:
            if u.kind == ART and not g.board.is_close(u.area) and u.uid not in g.toggled:
                out.append(Action("toggle", units=(u.uid,)))
        out.append(Action("end-admin"))
        return out
    if g.cp >= 1:
        for u in mine:
            if u.hits and u.approach is None and u.uid not in g.rallied and u.uid not in g.activated:
                act = Action("rally", units=(u.uid,))
                if not g.use_leaders or keep(g, act):
                    out.append(act)
        if not g.use_leaders:
            for area in sorted({u.area for u in mine}):
                if _activatable(g, area):
                    out.append(Action("activate", area=area))
        else:
            for ld in g.leaders:
                if ld.side == g.player and ld.present:
                    areas = [ld.area] + (sorted(g.board.neighbours(ld.area)) if "fine-rider" in ld.attributes else [])
                    for area in areas:
                        act = Action("activate", area=area, units=(ld.name,))
                        if keep(g, act):
                            out.append(act)
            if "light-cavalry" in g.setup.options:
                for area in sorted({u.area for u in mine}):
                    act = Action("activate", area=area)
                    if keep(g, act):
                        out.append(act)
    for ld in g.leaders:
        if ld.side == g.player and ld.present and ld.name in g.activated and ld.name not in g.acted:
            enemy = {a for a, s2 in g.occupied().items() if s2 != g.player}
            reach = g.board.graph.reachable(
                ld.area, lambda x, y: None if y in enemy else _safe_leader_cost(g, ld, x, y), ld.movement)
            for dest, r in sorted(reach.items()):
                if dest != ld.area:
                    act = Action("move", units=(ld.name,), path=tuple(r.path[1:]))
                    if keep(g, act):
                        out.append(act)
    ready = [u for u in mine if u.uid in g.activated and u.uid not in g.acted]
    by_area: dict[str, list[Unit]] = {}
    for u in ready:
        by_area.setdefault(u.area, []).append(u)
    for area, us in sorted(by_area.items()):
        # attacks: the whole eligible group, and each unit alone, into each adjacent enemy area
        for target in sorted(g.board.neighbours(area)):
            if g.holder(target) in (None, g.player):
                continue
            eligible = [u for u in us if u.is_combat and u.strength >= 1 and u.approach in (None, target)]
            groups = []
            if len(eligible) > 1:
                groups.append(tuple(u.uid for u in eligible))
            groups += [(u.uid,) for u in eligible]
            for grp in groups:
                act = Action("attack", units=grp, target=target)
                if keep(g, act):
                    out.append(act)
        for u in us:
            if u.kind == ART and u.deployed:
                for t in g.live():
                    if t.side != g.player:
                        act = Action("fire", units=(u.uid,), target=t.uid)
                        if keep(g, act):
                            out.append(act)
            reach = _reach(g, u) if u.uid not in g.horse_moved else {}
            for dest, (cost, path) in sorted(reach.items()):
                out.append(Action("move", units=(u.uid,), path=path))
                if limit_moves:
                    continue
                if u.kind == INF:
                    for facing in sorted(g.board.neighbours(dest)):
                        act = Action("move", units=(u.uid,), path=path, end=f"approach:{facing}")
                        if g.board.has_approach(dest, facing) and keep(g, act):
                            out.append(act)
                if u.kind == ART and not g.board.is_close(dest):
                    act = Action("move", units=(u.uid,), path=path, end="deploy")
                    if keep(g, act):
                        out.append(act)
                # multi-area attacks for one unit: from ``dest`` into an adjacent enemy area
                if u.is_combat and u.strength >= 1:
                    for target in sorted(g.board.neighbours(dest)):
                        if g.holder(target) not in (None, g.player):
                            act = Action("attack", units=(u.uid,), path=path, target=target)
                            if keep(g, act):
                                out.append(act)
            if u.kind == INF and u.approach is not None and u.strength >= 1:
                # 4.2.2 NB: back off the approach into its own area, then attack another neighbour
                for target in sorted(g.board.neighbours(u.area)):
                    if target != u.approach and g.holder(target) not in (None, g.player):
                        act = Action("attack", units=(u.uid,), path=(u.area,), target=target)
                        if keep(g, act):
                            out.append(act)
            if u.kind == INF:
                for facing in sorted(g.board.neighbours(u.area)):
                    act = Action("move", units=(u.uid,), end=f"approach:{facing}")
                    if u.approach != facing and g.board.has_approach(u.area, facing) and keep(g, act):
                        out.append(act)
                for end in ("square", "line", "area"):
                    act = Action("move", units=(u.uid,), end=end)
                    if keep(g, act):
                        out.append(act)
            if u.kind == ART and not u.deployed:
                act = Action("move", units=(u.uid,), end="deploy")
                if keep(g, act):
                    out.append(act)
    out.append(Action("end-phase"))
    return out


def _safe_leader_cost(g: Game, ld: Leader, a: str, b: str):
    c = g.board.crossing(a, b)
    if c.water == "river" and not c.crossing:
        return None
    return 1 + (g.tables.terrain.stream_cost_infantry_cavalry if c.water == "stream" and not c.crossing else 0)


def _legal(g: Game, a: Action) -> bool:
    try:
        check_action(g, a)
        return True
    except RuleViolation:
        return False
