"""10.0 Victory: the automatic victories (10.1), the levels at the end of turn 13 (10.2) and what the optional
rules change in them (11.4.2, 11.5.3, 11.6.2)."""
from __future__ import annotations

from engine.core.errors import RuleViolation
from engine.core.game import Outcome

from ..scenario import Scenario
from .options import OPTIONS
from .state import GameState
from .types import LIVE, Side, Status

__all__ = ["victory", "victory_with_options", "automatic_victory"]


def victory(sc: Scenario, st: GameState, rear_guard_shortfall: int = 0) -> dict:
    """Victory levels at the end of turn 13 (10.1-10.2)."""
    def gone(pid):
        return st.piece(pid).status in (Status.ELIMINATED, Status.SURRENDERED, Status.KILLED, Status.CAPTURED)

    for ldr, winner in (("mortier", "coalition"), ("kutusov", "french")):
        if ldr in sc.leaders and gone(ldr):
            return {"winner": winner, "level": "strategic", "rule": "10.1", "automatic": True}
    eq = 0.0
    gazan_eq = 0.0
    drag = [u for u in sc.units.values() if u.side == Side.FRENCH and u.kind == "cavalry" and u.command == "II"]
    arts_g = [u for u in sc.units.values() if u.side == Side.FRENCH and u.kind == "artillery" and u.command == "II"]
    arts_d = [u for u in sc.units.values() if u.side == Side.FRENCH and u.kind == "artillery" and u.command == "I"]
    for u in sc.units.values():
        if u.side != Side.FRENCH or not gone(u.id):
            continue
        if u in drag:
            w = 1 / 3                                  # 10.2.2 A
        elif u in arts_g:
            w = 1 / 3                                  # 10.2.2 B
        elif u in arts_d:
            w = 1 / 2                                  # 10.2.2 C
        elif u.kind == "infantry":
            w = 1
        else:
            w = 0.5
        eq += w
        if u.command.startswith("II"):
            gazan_eq += w
    for lid, ldr in sc.leaders.items():
        if ldr.side == Side.FRENCH and gone(lid):
            eq += 1                                    # 10.2.2 D
    v = sc.file.victory
    bump = rear_guard_shortfall                        # 9.2 G
    coal = "none"
    if gazan_eq >= v.coalition_strategic["gazan"] + bump or eq >= v.coalition_strategic["total"] + bump:
        coal = "strategic"
    elif gazan_eq >= v.coalition_tactical["gazan"] + bump or eq >= v.coalition_tactical["total"] + bump:
        coal = "tactical"

    def bns(town, side):
        hs = sc.board.data.towns.get(town, [])
        return sum(1 for p in st.on_map() if p.hex in hs and sc.side(p.id) == side and not sc.is_leader(p.id)
                   and p.status in LIVE and sc.units[p.id].kind == "infantry")

    road = [h for r in sc.board.data.roads if r.name.startswith("Danube") for h in r.hexes]

    def road_free(from_town):
        hs = sc.board.data.towns.get(from_town, [])
        idx = max((road.index(h) for h in hs if h in road), default=len(road))
        seg = road[:idx + 1]
        return not any(p.hex in seg and sc.side(p.id) == Side.COALITION and p.status in LIVE for p in st.on_map())

    fr = "none"
    if (bns("Dürenstein", "french") >= 2 and bns("Unterloiben", "french") >= 1 and bns("Oberloiben", "french") >= 1
            and st.controller("Dürenstein") == "french" and road_free("Unterloiben")):
        fr = "strategic"                               # 10.2.1.1
    elif bns("Dürenstein", "french") >= 1 and bns("Oberloiben", "french") >= 1 and road_free("Oberloiben"):
        fr = "tactical"                                # 10.2.1.2
    rank = {"none": 0, "tactical": 1, "strategic": 2}
    if rank[fr] == 0 and rank[coal] == 0:
        winner, level = "draw", "none"                 # 10.2.5
    elif rank[fr] > rank[coal]:
        winner, level = "french", fr                   # 10.2.4 A
    else:
        winner, level = "coalition", coal              # 10.2.4 B: equal levels go to the Coalition
    return {"winner": winner, "level": level, "french_level": fr, "coalition_level": coal,
            "french_battalions_lost": round(eq, 2), "gazan_battalions_lost": round(gazan_eq, 2), "rule": "10.2"}


def victory_with_options(sc: Scenario, st: GameState, options: frozenset[str] = frozenset(),
                         forces_in_play: frozenset[str] = frozenset(), rear_guard_shortfall: int = 0,
                         klein_towns: int = 0) -> dict:
    """10.2 with the optional rules' victory changes: +2 battalions needed per level when Bagration's
    column came into play (11.4.2), -1 when Dumonceau entered (11.5.3), and one or two French levels for
    Scheibenhof and Egelsee held with Klein's division in play (11.6.2)."""
    unknown = set(options) - set(OPTIONS)
    if unknown:
        raise RuleViolation("11.0", f"unknown optional rule {sorted(unknown)[0]!r} (one of {', '.join(OPTIONS)})")
    bump = rear_guard_shortfall
    if "11.4" in options and "bagration" in forces_in_play:
        bump += 2
    if "11.5" in options and "dumonceau" in forces_in_play:
        bump -= 1
    v = victory(sc, st, bump)
    if v.get("automatic"):
        return v
    if "11.6" in options and "klein" in forces_in_play and klein_towns:
        order = ["none", "tactical", "strategic"]
        lvl = min(order.index(v["french_level"]) + min(klein_towns, 2), 2)
        v = dict(v, french_level=order[lvl])
        rank = {"none": 0, "tactical": 1, "strategic": 2}
        fr, co = v["french_level"], v["coalition_level"]
        if rank[fr] == 0 and rank[co] == 0:
            v.update(winner="draw", level="none")
        elif rank[fr] > rank[co]:
            v.update(winner="french", level=fr)
        else:
            v.update(winner="coalition", level=co)
    v["options"] = sorted(options)
    return v



def automatic_victory(g: GameState) -> Outcome | None:
    """10.1 A-B: Mortier or Kutusov killed or captured ends the game at once."""
    if g.piece("mortier").status in (Status.KILLED, Status.CAPTURED):
        return Outcome("coalition", "strategic", "Mortier is killed or captured", "10.1 A")
    if g.piece("kutusov").status in (Status.KILLED, Status.CAPTURED):
        return Outcome("french", "strategic", "Kutusov is killed or captured", "10.1 B")
    return None
