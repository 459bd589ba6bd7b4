"""Battle Commander in a player's words: actions as short sentences (what the play page lists and the logs say),
an attack's outcomes as the odds panel groups them, the figures a study follows, and the position value bots
weigh (:meth:`BcRules.describe_action`, :meth:`BcRules.odds_label`, :meth:`BcRules.metrics`,
:meth:`BcRules.evaluate`). The text notation (``format_action``) is not here: it is what the command line reads.
"""
from __future__ import annotations

from engine.core.game import GameRules
from engine.core.values import spoken_list as _list

from .types import ENEMY, SIDES

__all__ = ["describe", "bc_label", "bc_metrics", "bc_value", "HITS"]

_FORMATION = {"square": "Square", "massed_column": "Massed Column", "none": "no special formation"}
_ATTACK = {"fire": "Fire", "assault": "Assault", "bombard": "Bombardment"}


def _step(path: str) -> str:
    return " then ".join(path.split(">"))


def describe(a) -> str:
    """The action as a sentence, with its rule."""
    k, side = a.kind, a.side
    if k == "start_turn":
        text = "start the turn: fill the cup, cut the hands and draw the cards (16.1, 15.0)"
    elif k == "draw":
        text = "draw an order cube from the cup (16.2)"
    elif k == "move":
        parts = [f"{b} to {_step(d)}" for b, d in a.moves] + [f"HQ {h} to {_step(d)}" for h, d in a.hqs]
        road = f"; in Roadway formation: {_list(a.roadway)}" if a.roadway else ""
        text = f"Move Order in {_list(a.zones)}: {_list(parts) or 'nothing moves'}{road} (19.0)"
    elif k == "ready_arms":
        text = "Ready Arms with this cube (18.0)"
    elif k == "in_reserve":
        text = "keep this cube In Reserve (18.0)"
    elif k == "pass":
        text = "pass"
    elif k == "gold":
        text = ("take a card with the Gold cube (18.0)" if a.colour == "card"
                else f"name the {a.colour} cube with the Gold cube (18.0)")
    elif k == "reinforce":
        placed = [u.replace(":", " enters at ") for u in a.units]
        text = ("bring on the reinforcements due: " + _list(placed) if placed
                else "bring on the reinforcements due") + " (18.0)"
    elif k == "purchase":
        cards = _list(str(c) for c in a.cards)
        what = {"tokens": "Attack Tokens", "cubes": "order cubes"}.get(a.buy, a.buy or "a purchase")
        text = f"spend card{'s' if len(a.cards) > 1 else ''} {cards} on {what} (18.0)"
    elif k == "rally":
        text = f"Rally in {a.frm or a.to} (20.0)"
    elif k == "army_rally":
        text = "Army Rally (20.0)"
    elif k == "attack":
        how = _ATTACK.get(a.attack, a.attack)
        extra = "" if a.special in ("", "none") else f", {a.special.replace('_', ' ')}"
        text = f"{how} from {a.frm} at {a.to}{extra} (23.1)"
    elif k == "combat_move":
        text = f"Combat Move from {a.frm} to {a.to} (19.4)"
    elif k == "advance":
        who = _list(a.units) if a.units else "nobody"
        text = f"advance from {a.frm} into {a.to}: {who} (25.0)"
    elif k == "face":
        text = f"face {a.block} toward {_list(a.facing) or 'no Zone'} (9.4)"
    elif k == "swap":
        text = f"swap the lead and second line in {a.frm} (9.4)"
    elif k == "formation":
        text = f"Blocks in {a.frm}: {_FORMATION.get(a.formation, a.formation)} (9.2)"
    elif k == "done":
        text = "done reforming (9.4)"
    elif k == "give_ground":
        text = f"{a.block} gives ground (24.3)"
    elif k == "surrender":
        text = f"{a.block} surrenders (26.0)"
    else:
        text = k.replace("_", " ")
    return f"{side}: {text}"


#: hits a Block carries by its state (9.1: Steady, Shaken, Disrupted), as the labels count them
HITS = {"steady": 0, "shaken": 1, "disrupted": 2}


def _hits(n: int) -> str:
    return f"{n} hit{'s' if n != 1 else ''}"


def _block_words(u0, u1, role: str, target: str) -> str | None:
    """``"defender block takes 1 hit"``, ``"attacker block eliminated"``, ``"defender block retreats"``."""
    if u1 is None:
        return f"{role} block eliminated"
    bits = []
    d = HITS.get(u1.block.state, 0) - HITS.get(u0.block.state, 0) + (u1.block.steps_lost - u0.block.steps_lost)
    if u1.block.square_hits > u0.block.square_hits:
        d += u1.block.square_hits - u0.block.square_hits
    if d > 0:
        bits.append(f"takes {_hits(d)}")
    elif d < 0:
        bits.append("recovers")
    if u1.block.formation != u0.block.formation and u0.block.formation == "square":
        bits.append("square broken")
    if u1.zone != u0.zone:
        bits.append(f"advances into {u1.zone}" if u1.zone == target else f"retreats to {u1.zone}")
    return f"{role} block " + " and ".join(bits) if bits else None


def bc_label(rules, before, after, a) -> tuple[str, str]:
    """E.g. ``"defender block takes 1 hit"``, ``"defender block retreats to M3; attacker block advances
    into M2"``, ``"no effect"`` (rule 23.0), with morale changes (13.0) and the end of the game."""
    if a.kind != "attack":
        return GameRules.odds_label(rules, before, after, a), rules.rule_of(a)
    g0, g1 = before.g, after.g
    now = {u.id: u for u in g1.units}
    parts: list[str] = []
    for u0 in g0.units:
        if u0.zone not in (a.frm, a.to):
            continue
        w = _block_words(u0, now.get(u0.id), "attacker" if u0.side == a.side else "defender", a.to)
        if w:
            parts.append(w)
    for side in SIDES:
        d = g1.morale_of(side).value - g0.morale_of(side).value
        if d:
            parts.append(f"{side} morale {d:+d}")
    if after.winner is not None and before.winner is None:
        parts.append(f"game over: {after.winner}")
    return "; ".join(parts) or "no effect", "23.0"


def bc_metrics(st) -> dict[str, float]:
    """Each side's Morale (13.0), its Blocks on the map and the hits they carry (9.1)."""
    g = st.g
    out: dict[str, float] = {}
    for side in SIDES:
        mine = [u for u in g.units if u.side == side]
        out[f"morale.{side}"] = float(g.morale_of(side).value)
        out[f"blocks.{side}"] = float(len(mine))
        out[f"hits.{side}"] = float(sum(HITS.get(u.block.state, 0) + u.block.steps_lost for u in mine))
    return out


def bc_value(rules, st, side: str) -> float:
    """A won game +1000 (lost -1000, drawn 0); else (our weights) 3 points a Block on the map more than
    the enemy, half a point a hit the enemy carries more than we do, and the Morale balance (13.0)."""
    out = rules.outcome(st)
    if out is not None:
        return 0.0 if out.winner is None else (1000.0 if out.winner == side else -1000.0)
    m = bc_metrics(st)
    foe = ENEMY[side]
    return (3.0 * (m[f"blocks.{side}"] - m[f"blocks.{foe}"]) + 0.5 * (m[f"hits.{foe}"] - m[f"hits.{side}"])
            + (m[f"morale.{side}"] - m[f"morale.{foe}"]))
