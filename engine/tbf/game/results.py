"""A combat result applied to the map: the units of one side in one hex eliminated, fatigued or retreating
(6.3.7 F, 6.4 H, 6.2.8 K), with the checks of the leaders there (6.3.9, 6.5 A-B) and the leaders going along
with the retreat (6.5 D); the advance into a vacated hex after fire (6.3.8) or melee (6.4 J)."""
from __future__ import annotations

from functools import partial

from engine.core.procedure import Choose, Sub

from ..fire import leader_casualty_sub
from ..scenario import Scenario
from ..steps import Steps
from .leaders import capture_leaders, leader_fate, leader_loss
from .position import leaders_in, occupants, occupy
from .retreat import retreat
from .rout import apply_status, leaders_follow, sub_rout
from .stacking import stacking_problem
from .state import GameState
from .types import LIVE, Status

__all__ = ["apply_effect", "advance", "choose_advance"]


def apply_effect(sc: Scenario, st: GameState, hex_: str, side: str, fatigue: bool, retreat_n: int,
                 eliminate: int, rule: str, leader_checks: bool = True) -> Steps[GameState]:
    """Apply one side's part of a combat result to the units of ``side`` in ``hex_`` (a procedure)."""
    units = [p.id for p in occupants(sc, st, hex_, side)]
    eliminated = []
    for _ in range(min(eliminate, len(units))):
        pick = yield Choose(tuple(units), rule=rule, player=side, label="which unit is eliminated?")
        units.remove(pick)
        eliminated.append(pick)
        st = st.with_piece(pick, status=Status.ELIMINATED, hex=None)
    if eliminated and leader_checks:                                # melee leaders check once, 6.4 I
        for ldr in leaders_in(sc, st, hex_):                       # 6.3.9, 6.5 A
            # the 2d6 turns out of a wound (6.5 A) are rolled by the game when it applies the wound
            fate = yield leader_casualty_sub(ldr, roll_turns=False)
            st = leader_fate(sc, st, ldr, fate)
            if fate.fate == "killed":
                st = yield from leader_loss(sc, st, ldr, hex_)     # 6.5 B
    if fatigue:
        for uid in list(units):
            p = st.piece(uid)
            if p.status == Status.NORMAL:
                st = st.with_piece(uid, status=Status.FATIGUED)
            elif p.status == Status.FATIGUED:                            # a fatigued unit hit again routs (6.7 A)
                st = yield sub_rout(sc, st, uid)
                units.remove(uid)
    stay = [u for u in units if st.piece(u).hex == hex_ and st.piece(u).status in LIVE]
    here = hex_
    for _ in range(retreat_n):
        if not stay:
            break
        out = yield Sub(("tbf-retreat", sc.key, st, tuple(stay), here), partial(retreat, sc, st, tuple(stay), here),
                        rule="6.6", label="retreat")
        for uid, status in out.units:
            st = yield from apply_status(sc, st, uid, status)
        if out.hex is None:
            break
        movers = [uid for uid in stay if st.piece(uid).hex == here and st.piece(uid).status in LIVE]
        for uid in movers:
            st = st.with_piece(uid, hex=out.hex)
        if movers:
            st = yield from leaders_follow(sc, st, here, out.hex, movers[0])     # 6.5 D
        stay = [u for u in stay if st.piece(u).hex == out.hex and st.piece(u).status in LIVE]
        here = out.hex
    return st


def choose_advance(sc: Scenario, st: GameState, movers: tuple[str, ...], target: str, must: bool
                   ) -> Steps[GameState]:
    """Advance after combat into the vacated ``target``: the attacker picks the units that advance, one at a
    time, up to the stacking limits (4.1): after fire any of the firing non-artillery units, or none (6.3.8,
    ``must=False``: advancing comes first, as before); after melee at least one infantry or cavalry attacker
    (6.4 J, ``must=True``: the first asked for, then staying comes first). A procedure."""
    rule = "6.4 J" if must else "6.3.8"
    side = sc.side(movers[0])
    left = list(movers)
    moved = False
    while left:
        fits = tuple(m for m in left if stacking_problem(sc, st.with_piece(m, hex=target), target) is None)
        if not fits:
            break
        if must and not moved:
            pick = fits[0] if len(fits) == 1 else (
                yield Choose(fits, rule=rule, player=side, label=f"which unit advances into {target}?"))
        else:
            opts = ("stay",) + fits if must else fits + ("stay",)
            pick = yield Choose(opts, rule=rule, player=side,
                                label=f"advance {'another unit' if moved else 'a unit'} into {target}?")
            if pick == "stay":
                break
        st = yield from advance(sc, st, (pick,), target)
        left.remove(pick)
        moved = True
    return st


def advance(sc: Scenario, st: GameState, movers: tuple[str, ...], target: str) -> Steps[GameState]:
    """Advance after combat (6.3.8, 6.4 J) up to the stacking limits; a lone enemy leader in the hex is
    captured and his subordinates next to him check for leader loss (6.5 C). A procedure."""
    for m in movers:
        trial = st.with_piece(m, hex=target)
        if stacking_problem(sc, trial, target) is None:
            st = occupy(sc, trial, target, sc.side(m))
            st = yield from capture_leaders(sc, st, target, sc.side(m))
    return st
