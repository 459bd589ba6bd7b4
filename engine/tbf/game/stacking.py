"""4.1 Stacking: what breaks the limits in a hex (4.1.1-4.1.6), judged from the pieces in it. The checks an
overstack brings (4.1.9, 4.1.10 B) are in :mod:`.rout` (a failed check may rout a unit, and a router may
overstack the hex it stops in)."""
from __future__ import annotations

from ..scenario import Scenario
from .state import GameState
from .types import LIVE, Side

__all__ = ["stacking_problem", "stacking_problem_with", "judge_stack"]


_STACKS: dict = {}


_NOT_YET = object()


def stacking_problem(sc: Scenario, st: GameState, hex_: str) -> str | None:
    """What breaks the stacking limits in the hex (4.1.1-4.1.6), or None. It depends on the hex and the
    pieces in it only: kept by those (values), so each crowd of pieces is judged once."""
    here = st.in_hex(hex_)
    if len(here) <= 1:
        return None                                                          # one unit stacks anywhere
    return _stacking_of(sc, hex_, here)


def stacking_problem_with(sc: Scenario, st: GameState, hex_: str, pid: str) -> str | None:
    """:func:`stacking_problem` of ``hex_`` once the unit ``pid`` (elsewhere now) has entered it, asked
    without making that position."""
    here = st.in_hex(hex_)
    if not here:
        return None
    return _stacking_of(sc, hex_, here + (st.piece(pid),))


def _stacking_of(sc: Scenario, hex_: str, pieces: tuple) -> str | None:
    key = (sc.key, hex_, pieces)
    got = _STACKS.get(key, _NOT_YET)
    if got is _NOT_YET:
        if len(_STACKS) > 50_000:
            _STACKS.clear()
        got = _STACKS[key] = judge_stack(sc, hex_, pieces)
    return got


def judge_stack(sc: Scenario, hex_: str, pieces: tuple) -> str | None:
    """(The pieces' ids and states decide; where each piece is listed does not.)"""
    leaders = sc.leaders
    units = [sc.units[p.id] for p in pieces if p.status in LIVE and p.id not in leaders]      # as occupants()
    if len(units) <= 1:
        return None
    regs = {u.regiment for u in units if u.kind != "artillery"}
    if len(regs) == 1 and all(u.kind != "artillery" for u in units):
        return None                                                          # 4.1.2
    if hex_ in sc.board.data.grand_battery and any(u.side == Side.COALITION for u in units):
        return "4.1.6: one Coalition unit in a Grand Battery hex"
    kinds = [u.kind for u in units]
    if "cavalry" in kinds:
        if any(k == "artillery" for k in kinds):
            return "4.1.5: cavalry may not stack with non-horse artillery"
        return "4.1.1 A: a cavalry regiment stacks alone"
    inf, art = kinds.count("infantry"), kinds.count("artillery")
    if art == len(kinds) and art <= 2:
        return None                                                          # 4.1.1 B
    if inf <= 2 and art == 0:
        return None
    if inf == 1 and art == 1:
        return None
    return f"4.1.1 A: {inf} infantry and {art} artillery units exceed the limit"
