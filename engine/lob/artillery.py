"""Artillery in the game: limbering and deploying in the admin phase (3) and fire in the command phase (4.2.1,
with 7.1.2 artillerymen, 7.2 artillery types and the Albuera terrain rules 1-3). The fire roll itself is
the one procedure of :mod:`.fire`.
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log, Sub

from .actions import Action
from .command import need_active, own_unit
from .fire import FireSetup, artillery_fire
from .leaders import leader_losses
from .movement import step_cost
from .state import Game
from .steps import Steps
from .units import ART, CAV, INF, Unit

__all__ = ["check_toggle", "toggle", "fire_range", "check_fire", "check_fire_target", "fire_retreats",
           "could_move_into", "fire"]


def check_toggle(g: Game, a: Action) -> None:
    """3: one of our guns, in open terrain (Albuera terrain 2-3), once an admin phase."""
    u = own_unit(g, a.units[0] if a.units else "")
    if u.kind != ART:
        raise RuleViolation("3", f"{u.uid} is not artillery")
    if g.board.is_close(u.where):
        raise RuleViolation("Albuera terrain 2-3", f"artillery in {u.area} must stay limbered")
    if u.uid in g.toggled:
        raise RuleViolation("3", f"{u.uid} has already changed formation this admin phase")


def toggle(g: Game, a: Action) -> Game:
    """3: the gun limbers or deploys."""
    u = g.unit(a.units[0])
    return replace(g.with_units([replace(u, deployed=not u.deployed)]), toggled=g.toggled | {u.uid})


def fire_range(g: Game, gun: Unit, target_area: str) -> str | None:
    """4.2.1: 'near' (an adjacent area), 'far' (two areas from a hill, Albuera terrain 1) or None."""
    if g.board.adjacent(gun.where, target_area):
        return "near"
    if g.board.is_hill(gun.where) and target_area in g.board.within_two(gun.where):
        return "far"
    return None


def check_fire_target(g: Game, a: Action) -> tuple[Unit, Unit, str]:
    """4.2.1 (Albuera terrain 2-3, option 5): an activated, deployed gun of ours fires at an enemy unit in
    range. Returns the gun, the target and the range."""
    gun = own_unit(g, a.units[0] if a.units else "")
    if gun.kind != ART:
        raise RuleViolation("4.2.1", f"{gun.uid} is not artillery")
    need_active(g, gun, fire=True)
    if not gun.deployed:
        raise RuleViolation("4.2.1", f"{gun.uid} is limbered: only deployed artillery fires")
    if gun.uid in g.deployed_now:
        raise RuleViolation("4.2.2", f"{gun.uid} deployed with a movement point this go and cannot fire")
    if g.rain:
        raise RuleViolation("Albuera option 5", "no artillery fire in a rain squall")
    if g.board.is_close(gun.where):
        raise RuleViolation("Albuera terrain 2-3", f"artillery in {gun.area} cannot fire")
    tgt = g.unit(a.target or "")
    if tgt.side == g.player or tgt.area is None:
        raise RuleViolation("4.2.1", f"{a.target} is not an enemy unit on the map")
    if g.board.terrain(tgt.area) == "wood":
        raise RuleViolation("Albuera terrain 3", "artillery cannot fire into a wood")
    rng = fire_range(g, gun, tgt.area)
    if rng is None:
        raise RuleViolation("4.2.1", f"{tgt.uid} in {tgt.area} is out of range of {gun.uid} in {gun.area} "
                                     f"(one area; two from a hill over open, non-hill ground)")
    return gun, tgt, rng


def check_fire(g: Game, a: Action) -> None:
    """4.2.1: see :func:`check_fire_target`."""
    check_fire_target(g, a)


def fire_retreats(g: Game, gun: Unit, tgt: Unit, rng: str) -> tuple[str, ...]:
    """Where a fired-on unit may retreat (4.2.1): an adjacent area free of enemies; from an approach only
    into its own area; after long-range fire not closer to the guns."""
    if tgt.approach is not None:
        return (tgt.where,)
    out = []
    for n in sorted(g.board.neighbours(tgt.where)):
        if g.holder(n) not in (None, tgt.side):
            continue
        if rng == "far" and (n == gun.area or g.board.adjacent(n, gun.where)):
            continue
        if not could_move_into(g, tgt, n):
            continue                  # 4.2.1: only into an area the unit could normally move into
        out.append(n)
    return tuple(out)


def could_move_into(g: Game, u: Unit, dest: str) -> bool:
    """4.2.1: a step ``u`` could make as an ordinary move from its area (its full allowance, 4.2.2; a
    river without a bridge takes all of it, Albuera terrain 6; a limbered gun, 4.2.1)."""
    mv = g.tables.movement
    by_arm: dict[str, int] = {INF: mv.infantry, CAV: mv.cavalry, ART: mv.artillery}
    full = by_arm[u.kind]
    c = step_cost(g, replace(u, approach=None), u.where, dest)
    return c is None or c <= full


def fire(g: Game, a: Action) -> Steps[Game]:
    """4.2.1: the fire procedure (:func:`~.fire.artillery_fire`) at the target; its hits, retreat and
    elimination (morale as per combat, 5.3); a leader with the target takes a loss roll (7.1)."""
    gun, tgt, rng = check_fire_target(g, a)
    dests = fire_retreats(g, gun, tgt, rng)
    gunner = next((ld for ld in g.leaders_in(gun.area, gun.side)
                   if "artilleryman" in ld.attributes and ld.name not in g.gunner_used), None)
    if gunner is not None:
        g = replace(g, gunner_used=g.gunner_used | {gunner.name})     # 7.1.2: one gun gets the +1
    setup = FireSetup(artilleryman=gunner is not None, arty=gun.arty, target_kind=tgt.kind, target_square=tgt.square,
                      target_on_approach=tgt.approach is not None,
                      target_deployed_artillery=tgt.kind == ART and tgt.deployed,
                      target_in_town=g.board.terrain(tgt.where) == "town", long_range=rng == "far",
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
            c = g.board.crossing(tgt.where, dest)
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
        g = yield from leader_losses(g, g.leaders_in(tgt.area, tgt.side), "artillery hit in the area (7.1)")
    yield Log("4.2.1", f"{tgt.uid}: {out.hits} hit(s){', retreats' if out.retreated else ''}"
                       f"{', eliminated' if hit.eliminated else ''}")
    return g
