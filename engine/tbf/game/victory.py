"""10.0 Victory: the automatic victories (10.1), the levels at the end of turn 13 (10.2) and what the optional
rules change in them (11.4.2, 11.5.3, 11.6.2)."""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from engine.core.errors import RuleViolation
from engine.core.game import Outcome

from ..scenario import Scenario
from .options import OPTIONS
from .state import GameState
from .types import LIVE, Side, Status

__all__ = ["victory", "victory_with_options", "automatic_victory", "french_losses", "battalion_equivalent",
           "battalions_text", "victory_json", "LOST"]


#: a piece out of the game for the Coalition's count (10.2.3; a wounded general comes back, 6.5 A)
LOST = (Status.ELIMINATED, Status.SURRENDERED, Status.KILLED, Status.CAPTURED)


def battalion_equivalent(sc: Scenario, uid: str) -> Fraction:
    """10.2.2: what one French unit lost counts toward the Coalition's levels, exactly. An infantry
    battalion 1; each of the three at-start dragoon squadrons 1/3 (10.2.2 A); each of Gazan's three batteries
    1/3 (10.2.2 B); each of Dupont's two batteries 1/2 (10.2.2 C). Dupont's hussars are neither a battalion
    nor one of the units 10.2.2 gives an equivalent for: they count 0 (our reading of the list as complete)."""
    u = sc.units[uid]
    if u.kind == "infantry":
        return Fraction(1)
    if u.kind == "cavalry":
        return Fraction(1, 3) if uid in sc.file.setup.french else Fraction(0)           # 10.2.2 A
    if u.command.split("-")[0] == "II":
        return Fraction(1, 3)                                                            # 10.2.2 B
    return Fraction(1, 2)                                                                # 10.2.2 C


def in_gazans_division(sc: Scenario, pid: str) -> bool:
    """A unit or general of Gazan's division (command II and its brigades II-1, II-2), 10.2.3."""
    d = sc.units.get(pid) or sc.leaders[pid]
    return d.side == Side.FRENCH and d.command.split("-")[0] == "II"


def french_losses(sc: Scenario, st: GameState, regrouped: tuple[str, ...] = ()) -> tuple[Fraction, Fraction]:
    """(all French losses, Gazan's division's) in battalion equivalents, exactly (10.2.2-10.2.3): each
    French unit lost counts its equivalent; a unit regrouped and returned still counts, and counts again if
    lost again (10.2.6: ``regrouped`` names each unit once per regroup); each general killed or captured
    counts one battalion (10.2.2 D), toward Gazan's total too when he is one of Gazan's."""
    total = gazan = 0                       # in sixths of a battalion: every equivalent is a whole number of them
    for pid, sixths, gazans, leader in _french_sixths(sc):
        times = int(st.piece(pid).status in LOST) + (0 if leader else regrouped.count(pid))
        if times:
            total += times * sixths
            if gazans:
                gazan += times * sixths
    return Fraction(total, 6), Fraction(gazan, 6)


@lru_cache(maxsize=8)
def _french_sixths(sc: Scenario) -> tuple[tuple[str, int, bool, bool], ...]:
    """Each French unit, then each French general: (id, what losing it counts in sixths of a battalion
    (10.2.2; a general 1, 10.2.2 D), of Gazan's division (10.2.3), a general), from the order of battle."""
    out = []
    for uid, u in sc.units.items():
        if u.side == Side.FRENCH:
            w = battalion_equivalent(sc, uid) * 6
            assert w.denominator == 1, f"{uid}: an equivalent not in sixths of a battalion"
            out.append((uid, int(w), in_gazans_division(sc, uid), False))
    out += [(lid, 6, in_gazans_division(sc, lid), True) for lid, ldr in sc.leaders.items() if ldr.side == Side.FRENCH]
    return tuple(out)


def battalions_text(x: Fraction) -> str:
    """A count of battalion equivalents as a player writes it: ``6``, ``5 2/3``, ``1/3``."""
    whole, part = divmod(Fraction(x), 1)
    if not part:
        return str(whole)
    return f"{whole} {part.numerator}/{part.denominator}" if whole else f"{part.numerator}/{part.denominator}"


@lru_cache(maxsize=64)
def _town_hexes(sc: Scenario, town: str) -> frozenset[str]:
    """The hexes of ``town`` (the map's data)."""
    return frozenset(sc.board.data.towns.get(town, []))


@lru_cache(maxsize=64)
def _road_behind(sc: Scenario, from_town: str) -> frozenset[str]:
    """The hexes of the Danube road from its start to ``from_town`` (its whole length when the town is not on
    it), which no Coalition unit may hold for the French levels (10.2.1)."""
    road = [h for r in sc.board.data.roads if r.name.startswith("Danube") for h in r.hexes]
    hs = sc.board.data.towns.get(from_town, [])
    idx = max((road.index(h) for h in hs if h in road), default=len(road))
    return frozenset(road[:idx + 1])


def victory(sc: Scenario, st: GameState, rear_guard_shortfall: int = 0, regrouped: tuple[str, ...] = ()) -> dict:
    """Victory levels at the end of turn 13 (10.1-10.2); the losses are exact fractions (10.2.2)."""
    for ldr, winner in (("mortier", "coalition"), ("kutusov", "french")):
        if ldr in sc.leaders and st.piece(ldr).status in LOST:
            return {"winner": winner, "level": "strategic", "rule": "10.1", "automatic": True}
    eq, gazan_eq = french_losses(sc, st, regrouped)
    v = sc.file.victory
    bump = rear_guard_shortfall                        # 9.2 G
    coal = "none"
    if gazan_eq >= v.coalition_strategic.gazan + bump or eq >= v.coalition_strategic.total + bump:
        coal = "strategic"
    elif gazan_eq >= v.coalition_tactical.gazan + bump or eq >= v.coalition_tactical.total + bump:
        coal = "tactical"

    def bns(town: str, side: str) -> int:
        return sum(1 for h in _town_hexes(sc, town) for p in st.in_hex(h) if sc.side(p.id) == side
                   and not sc.is_leader(p.id) and p.status in LIVE and sc.units[p.id].kind == "infantry")

    def road_free(from_town: str) -> bool:
        return not any(sc.side(p.id) == Side.COALITION and p.status in LIVE
                       for h in _road_behind(sc, from_town) for p in st.in_hex(h))

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
            "french_battalions_lost": eq, "gazan_battalions_lost": gazan_eq, "rule": "10.2"}


def victory_with_options(sc: Scenario, st: GameState, options: frozenset[str] = frozenset(),
                         forces_in_play: frozenset[str] = frozenset(), rear_guard_shortfall: int = 0,
                         klein_towns: int = 0, regrouped: tuple[str, ...] = ()) -> dict:
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
    v = victory(sc, st, bump, regrouped)
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


def victory_json(v: dict) -> dict:
    """:func:`victory`'s answer for JSON: each count of battalions as its exact fraction, a float and the
    way a player writes it."""
    out = dict(v)
    for k in ("french_battalions_lost", "gazan_battalions_lost"):
        if k in out:
            x = Fraction(out[k])
            out[k] = {"fraction": f"{x.numerator}/{x.denominator}", "float": float(x), "text": battalions_text(x)}
    return out
