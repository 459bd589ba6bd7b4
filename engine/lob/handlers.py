"""One handler per action kind: what the kind checks (before any die, changing nothing) and what it does (a
deterministic change, or a rules procedure). :func:`check` and :func:`perform` dispatch on
:data:`HANDLERS`; :func:`legal_actions` lists the candidates of a position (the protocol keeps those that
pass :func:`check`, so legality has one source).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.core.errors import RuleViolation

from .actions import RULE_OF, Action, Kind
from .state import Game
from .steps import Steps
from .units import ART, INF, Phase, Unit
from . import artillery as AR
from . import attack as AT
from . import command as C
from . import leaders as L
from . import movement as M
from . import phases as P
from . import rally as RL
from . import setup as S
from . import victory as V

__all__ = ["Handler", "HANDLERS", "PHASE_KINDS", "check", "perform", "legal_actions", "is_legal", "keep_all"]


@dataclass(frozen=True)
class Handler:
    """How one action kind is played: the phases it belongs to, its check, and either ``do`` (a change
    with no dice and no question) or ``procedure`` (a generator yielding dice and choices)."""

    kind: Kind
    phases: frozenset[str]
    check: Callable[[Game, Action], None]
    do: Callable[[Game, Action], Game] | None = None
    procedure: Callable[[Game, Action], Steps[Game]] | None = None

    @property
    def rule(self) -> str:
        return RULE_OF[self.kind]


def _ok(g: Game, a: Action) -> None:
    return None


_SETUP, _ADMIN, _COMMAND = frozenset({Phase.SETUP}), frozenset({Phase.ADMIN}), frozenset({Phase.COMMAND})

HANDLERS: dict[str, Handler] = {h.kind: h for h in (
    Handler(Kind.PLACE, _SETUP, S.check_place, do=S.place),                          # Albuera option 6
    Handler(Kind.END_SETUP, _SETUP, S.check_end_setup, procedure=S.end_setup),
    Handler(Kind.TOGGLE, _ADMIN, AR.check_toggle, do=AR.toggle),                    # 3
    Handler(Kind.END_ADMIN, _ADMIN, _ok, procedure=lambda g, a: P.end_admin(g)),
    Handler(Kind.RALLY, _COMMAND, RL.check_rally, procedure=RL.rally),              # 4.1
    Handler(Kind.ACTIVATE, _COMMAND, C.check_activate, procedure=C.activate),       # 4.2
    Handler(Kind.MOVE, _COMMAND, M.check_move, do=M.move),                          # 4.2.2
    Handler(Kind.ATTACK, _COMMAND, AT.check_attack, procedure=AT.attack),           # 5
    Handler(Kind.FIRE, _COMMAND, AR.check_fire, procedure=AR.fire),                 # 4.2.1
    Handler(Kind.END_PHASE, _COMMAND, _ok, procedure=lambda g, a: P.end_phase(g)),  # 6
)}
assert set(HANDLERS) == set(Kind), "every action kind has its handler"

#: phase -> the kinds possible in it
PHASE_KINDS: dict[str, frozenset[str]] = {
    p: frozenset(k for k, h in HANDLERS.items() if p in h.phases) for p in Phase if p != Phase.OVER}


def check(g: Game, a: Action) -> None:
    """Raise :class:`RuleViolation` (naming the rule) if ``a`` is not legal now; nothing changes."""
    if g.over:
        raise RuleViolation("6", f"the game is over ({g.winner} won: {g.reason})")
    if a.side is not None and a.side != g.player:
        raise RuleViolation("2", f"it is the {g.player} player's go, not the {a.side}'s")
    t = a.kind
    if g.phase == Phase.SETUP:
        if t not in PHASE_KINDS[Phase.SETUP]:
            raise RuleViolation("Albuera option 6", f"{t!r} is not a set-up action (place, end-setup)")
    elif t in PHASE_KINDS[Phase.SETUP]:
        raise RuleViolation("Albuera option 6", f"{t!r} belongs to the free set-up before the first turn")
    elif g.phase == Phase.ADMIN:
        if t not in PHASE_KINDS[Phase.ADMIN]:
            raise RuleViolation("3", f"{t!r} is not an admin-phase action (toggle, end-admin)")
    elif t in PHASE_KINDS[Phase.ADMIN]:
        raise RuleViolation("3", f"{t!r} belongs to the admin phase")
    h = HANDLERS.get(t)
    if h is None:
        raise RuleViolation("4", f"unknown action {t!r}")
    h.check(g, a)


def perform(g: Game, a: Action) -> Steps[Game]:
    """The procedure of one action; returns the next :class:`Game` (after the leaders left alone, 7.1, and
    the scenario's sudden victory)."""
    check(g, a)
    h = HANDLERS[a.kind]
    if h.procedure is not None:
        g = yield from h.procedure(g, a)
    else:
        assert h.do is not None, "a handler has its change or its procedure"
        g = h.do(g, a)
    if g.use_leaders and not g.over:
        g = yield from L.lone_leaders(g)
    g = V.track_albuera(g)
    return V.sudden_death(g)


def is_legal(g: Game, a: Action) -> bool:
    try:
        check(g, a)
        return True
    except RuleViolation:
        return False


def keep_all(g: Game, a: Action) -> bool:
    """A ``keep`` for :func:`legal_actions` that lists every candidate (checked later, once)."""
    return True


# ------------------------------------------------------------------------------------------------
# Candidates (for bots, boards and the protocol)
# ------------------------------------------------------------------------------------------------
def legal_actions(g: Game, limit_moves: bool = False, keep: Callable[[Game, Action], bool] | None = None) -> list[Action]:
    """Every legal action now (moves: single units to each reachable area, plus group attacks).

    ``keep(g, action)`` filters the candidates (default: :func:`check`); the core protocol passes
    one that keeps them all and then checks each candidate once, with the same check."""
    keep = is_legal if keep is None else keep
    if g.over:
        return []
    out: list[Action] = []
    side = g.player
    mine = [u for u in g.live() if u.side == side]
    if g.phase == "setup":
        for u in mine:
            for area in g.board.areas:
                if area != u.area and g.board.attrs(area)["bank"] == S.bank(g.player):
                    out.append(Action(Kind.PLACE, side=side, units=(u.uid,), area=area))
        if keep(g, Action(Kind.END_SETUP, side=side)):
            out.append(Action(Kind.END_SETUP, side=side))
        return out
    if g.phase == "admin":
        for u in mine:
            if u.kind == ART and not g.board.is_close(u.where) and u.uid not in g.toggled:
                out.append(Action(Kind.TOGGLE, side=side, units=(u.uid,)))
        out.append(Action(Kind.END_ADMIN, side=side))
        return out
    if g.cp >= 1:
        for u in mine:
            if u.hits and u.approach is None and u.uid not in g.rallied and u.uid not in g.activated:
                act = Action(Kind.RALLY, side=side, units=(u.uid,))
                if not g.use_leaders or keep(g, act):
                    out.append(act)
        if not g.use_leaders:
            for area in sorted({u.where for u in mine}):
                if C.activatable(g, area):
                    out.append(Action(Kind.ACTIVATE, side=side, area=area))
        else:
            for ld in g.leaders:
                if ld.side == g.player and ld.present:
                    here = ld.where
                    areas = [here] + (sorted(g.board.neighbours(here)) if "fine-rider" in ld.attributes else [])
                    for area in areas:
                        act = Action(Kind.ACTIVATE, side=side, area=area, units=(ld.name,))
                        if keep(g, act):
                            out.append(act)
            if "light-cavalry" in g.setup.options:
                for area in sorted({u.where for u in mine}):
                    act = Action(Kind.ACTIVATE, side=side, area=area)
                    if keep(g, act):
                        out.append(act)
    for ld in g.leaders:
        if ld.side == g.player and ld.present and ld.name in g.activated and ld.name not in g.acted:
            enemy = {a for a, s2 in g.occupied().items() if s2 != g.player}
            goes = g.board.reachable(
                ld.where, lambda x, y: None if y in enemy else L.leader_step_cost(g, ld, x, y), ld.movement)
            for dest, r in sorted(goes.items()):
                if dest != ld.area:
                    act = Action(Kind.MOVE, side=side, units=(ld.name,), path=tuple(r.path[1:]))
                    if keep(g, act):
                        out.append(act)
    ready = [u for u in mine if u.uid in g.activated and u.uid not in g.acted]
    by_area: dict[str, list[Unit]] = {}
    for u in ready:
        by_area.setdefault(u.where, []).append(u)
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
                act = Action(Kind.ATTACK, side=side, units=grp, target=target)
                if keep(g, act):
                    out.append(act)
        for u in us:
            if u.kind == ART and u.deployed:
                for t in g.live():
                    if t.side != g.player:
                        act = Action(Kind.FIRE, side=side, units=(u.uid,), target=t.uid)
                        if keep(g, act):
                            out.append(act)
            reach = M.reach(g, u) if u.uid not in g.horse_moved else {}
            for dest, (cost, path) in sorted(reach.items()):
                out.append(Action(Kind.MOVE, side=side, units=(u.uid,), path=path))
                if limit_moves:
                    continue
                if u.kind == INF:
                    for facing in sorted(g.board.neighbours(dest)):
                        act = Action(Kind.MOVE, side=side, units=(u.uid,), path=path, end=f"approach:{facing}")
                        if g.board.has_approach(dest, facing) and keep(g, act):
                            out.append(act)
                if u.kind == ART and not g.board.is_close(dest):
                    act = Action(Kind.MOVE, side=side, units=(u.uid,), path=path, end="deploy")
                    if keep(g, act):
                        out.append(act)
                # multi-area attacks for one unit: from ``dest`` into an adjacent enemy area
                if u.is_combat and u.strength >= 1:
                    for target in sorted(g.board.neighbours(dest)):
                        if g.holder(target) not in (None, g.player):
                            act = Action(Kind.ATTACK, side=side, units=(u.uid,), path=path, target=target)
                            if keep(g, act):
                                out.append(act)
            if u.kind == INF and u.approach is not None and u.strength >= 1:
                # 4.2.2 NB: back off the approach into its own area, then attack another neighbour
                for target in sorted(g.board.neighbours(u.where)):
                    if target != u.approach and g.holder(target) not in (None, g.player):
                        act = Action(Kind.ATTACK, side=side, units=(u.uid,), path=(u.area,), target=target)
                        if keep(g, act):
                            out.append(act)
            if u.kind == INF:
                for facing in sorted(g.board.neighbours(u.where)):
                    act = Action(Kind.MOVE, side=side, units=(u.uid,), end=f"approach:{facing}")
                    if u.approach != facing and g.board.has_approach(u.where, facing) and keep(g, act):
                        out.append(act)
                for end in ("square", "line", "area"):
                    act = Action(Kind.MOVE, side=side, units=(u.uid,), end=end)
                    if keep(g, act):
                        out.append(act)
            if u.kind == ART and not u.deployed:
                act = Action(Kind.MOVE, side=side, units=(u.uid,), end="deploy")
                if keep(g, act):
                    out.append(act)
    out.append(Action(Kind.END_PHASE, side=side))
    return out
