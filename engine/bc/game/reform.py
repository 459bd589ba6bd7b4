"""Block management (9.2, 9.4, 27.3, 28.2): facing an Artillery or a Massed Column, swapping a Zone's lead and
second line, and changing formation (Square, Massed Column, back to line)."""
from __future__ import annotations

from dataclasses import replace

from engine.core.errors import RuleViolation

from engine.core.procedure import Log

from ..blocks import BattleState, Formation
from ..deck import Deck
from .actions import ChangeFormation, Done, Face, Kind, Swap
from .state import BcState, MapState, check_stacking, set_block
from .zones import faces, facing_options, needs_facing

__all__ = ["set_facing", "swap_lead", "FORMATIONS", "set_formation", "check_reform", "check_done", "do_face",
           "do_swap", "do_formation", "do_done"]


def set_facing(st: MapState, uid: str, facing: tuple[str, ...]) -> MapState:
    """Face an Artillery or Massed Column towards ``facing`` (9.4, 28.2); an Artillery Redoubt never turns."""
    u = st.unit(uid)
    if u.block.redoubt_block:
        raise RuleViolation("28.5", f"{uid} is an Artillery Redoubt Block: its facing never changes")
    if not faces(u.block):
        raise RuleViolation("9.4", f"only Artillery and Massed Columns have a facing, not {uid}")
    if tuple(facing) not in facing_options(st, uid):
        raise RuleViolation("9.4", f"{uid} faces one bordering Zone or two that border each other, not "
                                   f"{', '.join(facing) or 'nothing'}")
    return replace(st, units=tuple(replace(x, facing=tuple(facing)) if x.id == uid else x for x in st.units))


def swap_lead(st: MapState, zone: str) -> MapState:
    """Swap the Lead and the Second Line Block of a Zone (9.4)."""
    here = st.in_zone(zone)
    if len(here) != 2:
        raise RuleViolation("9.4", f"Zone {zone} has no second line Block to swap with its Lead")
    if any(u.block.formation in ("massed_column", "grand_battery") for u in here):
        raise RuleViolation("28.2", f"the Blocks in {zone} act as one formation: no swap")
    a, b = here
    units = tuple(x for x in st.units if x.zone != zone)
    new = replace(st, units=units + (b, a))
    check_stacking(new, zone)      # 28.5: an Artillery Redoubt Block stays the Lead
    return new


FORMATIONS = ("square", "massed_column", "none")


def set_formation(st: MapState, zone: str, formation: str) -> MapState:
    """Change the formation of the Lead Block of ``zone`` (9.2): ``square`` (non-Disrupted Infantry, 27.3: it
    is Steady while in Square), ``massed_column`` (two Steady Infantry, when the scenario allows it, 28.2) or
    ``none`` (back to line: a Square keeps its Battle State, a Massed Column splits)."""
    here = st.in_zone(zone)
    if not here:
        raise RuleViolation("9.2", f"no Block in Zone {zone}")
    lead = here[0]
    b = lead.block
    if formation not in FORMATIONS:
        raise RuleViolation("9.2", f"formation is one of {', '.join(FORMATIONS)}, not {formation!r}")
    if b.state == "disrupted" and formation != "none":
        raise RuleViolation("9.2", f"{lead.id} is Disrupted: it cannot change formation")
    if b.formation == formation:
        raise RuleViolation("9.2", f"{lead.id} is already in {formation.replace('_', ' ')}")
    if b.formation in ("roadway", "grand_charge", "grand_battery"):
        raise RuleViolation("9.2", f"{lead.id} is in {b.formation.replace('_', ' ')}: not changed this way")
    if formation == "square":
        if not b.infantry:
            raise RuleViolation("27.3", f"only Infantry forms a Square, not {lead.id}")
        if b.formation != "none":
            raise RuleViolation("27.3", f"{lead.id} leaves its {b.formation.replace('_', ' ')} first")
        nb = replace(b, formation=Formation.SQUARE, state=BattleState.STEADY, square_hits=0)
        return set_block(st, lead.id, nb)
    if formation == "massed_column":
        if not st.scenario.model.massed_column:
            raise RuleViolation("28.2", "this scenario allows no Massed Columns")
        if len(here) != 2 or not all(u.block.infantry and u.block.state == "steady" and u.block.formation == "none"
                                     for u in here):
            raise RuleViolation("28.2", f"a Massed Column is two Steady Infantry Blocks in line, not {zone}")
        st = set_block(st, lead.id, replace(b, formation=Formation.MASSED_COLUMN))
        return replace(st, units=tuple(replace(x, facing=()) if x.id == lead.id else x for x in st.units))
    if b.formation == "square":
        return set_block(st, lead.id, replace(b, formation=Formation.NONE, square_hits=0))
    return set_block(st, lead.id, replace(b, formation=Formation.NONE))


# ------------------------------------------------------------------------------------------------
# The reform window (9.4): after a Move Order, a Rally or an Advance, the Zones concerned
# ------------------------------------------------------------------------------------------------
def check_reform(st: BcState, a: Face | Swap | ChangeFormation, deck: Deck) -> None:
    """A swap, formation change or facing in a Zone of the reform window, once per Zone or Block (9.4)."""
    g = st.g
    k = a.kind
    key = a.block if k == Kind.FACE else a.frm
    zone = g.unit(a.block).zone if k == Kind.FACE else a.frm
    if zone not in st.reform:
        raise RuleViolation("9.4", f"Zone {zone} is not one the last order, rally or advance concerned")
    if key in st.reformed:
        raise RuleViolation("9.4", f"{key} was already reformed in this step")
    if g.side_of_zone(zone) != a.side:
        raise RuleViolation("9.4", f"Zone {zone} holds no {a.side} Block")
    if k == Kind.FACE:
        if g.unit(a.block).side != a.side:
            raise RuleViolation("9.4", f"{a.block} is not {a.side}")
        set_facing(g, a.block, a.facing)
    elif k == Kind.SWAP:
        swap_lead(g, a.frm)
    else:
        set_formation(g, a.frm, a.formation)


def check_done(st: BcState, a: Done, deck: Deck) -> None:
    """The reform window ends once every Artillery that moved has a facing (9.4)."""
    g = st.g
    for z in st.reform:
        for u in g.in_zone(z):
            if u.side == a.side and needs_facing(g, u):
                raise RuleViolation("9.4", f"{u.id} moved: give it a facing before ending the reform")


def _reformed(st: BcState, key: str, g: MapState) -> BcState:
    return replace(st, g=g, reformed=st.reformed + (key,))


def do_face(st: BcState, a: Face, deck: Deck):
    yield Log("9.4", f"{a.block} faces {', '.join(a.facing)}")
    return _reformed(st, a.block, set_facing(st.g, a.block, a.facing))


def do_swap(st: BcState, a: Swap, deck: Deck):
    yield Log("9.4", f"{a.frm}: lead and second line swap")
    return _reformed(st, a.frm, swap_lead(st.g, a.frm))


def do_formation(st: BcState, a: ChangeFormation, deck: Deck):
    yield Log("9.2", f"{a.frm}: the lead takes formation {a.formation}")
    return _reformed(st, a.frm, set_formation(st.g, a.frm, a.formation))


def do_done(st: BcState, a: Done, deck: Deck):
    yield Log("9.4", f"{a.side} ends the reform")
    return replace(st, phase=st.resume, actor=st.resume_actor, reform=(), reformed=(), resume="",
                   resume_actor=None)
