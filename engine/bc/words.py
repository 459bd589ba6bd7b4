"""Battle Commander actions in a player's words (what the play page lists and the logs say).

:func:`describe` turns a :class:`~engine.bc.protocol.BcAction` into a short sentence that starts with the
side, e.g. ``"coalition: Move Order in E2: C1 to E1 (19.0)"``. It only reads the action's fields; what is
legal stays with the protocol. The text notation (``format_action``) is unchanged: it is what the command
line reads back.
"""
from __future__ import annotations

from engine.core.values import spoken_list as _list

__all__ = ["describe"]

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
