"""Napoleonic 20 actions in a player's words (what the play page lists and the walkthroughs say).

:func:`describe` reads only an action's fields and ends with the action's rule, e.g.
``"move FRCV from 1011 to 0912 (6.0)"``. The text notation (``str(action)``) is unchanged: it is what the
command line reads back.
"""
from __future__ import annotations

from .actions import KINDS, Action

from engine.core.values import spoken_list as _list

__all__ = ["describe"]


def _side(ids) -> str:
    return _list(x.replace("garrison:", "the garrison of ") for x in ids)


def _route(path) -> str:
    if len(path) < 2:
        return f"to {''.join(path)}"
    via = f" by {', '.join(path[1:-1])}" if len(path) > 2 else ""
    return f"from {path[0]} to {path[-1]}{via}"


def describe(a: Action) -> str:
    """The action as a sentence, with its rule."""
    k, u = a.kind, a.unit
    if k in ("move", "night_move", "penetrate", "disengage"):
        verb = {"move": "move", "night_move": "night move:", "penetrate": "reaction move:",
                "disengage": "disengage:"}[k]
        text = f"{verb} {u} {_route(a.path) if a.path else 'to ' + str(a.hex)}"
    elif k == "place":
        text = f"set up {u} in {a.hex}"
    elif k == "roll_bessieres":
        text = "roll for Bessières' cavalry"
    elif k == "draw_event":
        text = "draw this turn's event"
    elif k == "pick_released":
        text = "roll which French division is released"
    elif k == "forced_march":
        text = f"Forced March{' for ' + u if u else ''}"
    elif k == "add_dummy":
        text = f"bring a dummy in with {u}"
    elif k == "form_square":
        text = f"{u} forms square"
    elif k == "breakdown":
        text = f"break {u} down"
    elif k == "fieldworks":
        text = "roll for fieldworks"
    elif k == "place_fieldworks":
        text = f"put fieldworks in {a.hex}"
    elif k == "orderly_withdrawal":
        text = "orderly withdrawal"
    elif k == "countercharge":
        against = [d for b in a.battles for d in b.defenders] + list(a.units)
        who = u or _side([x for b in a.battles for x in b.attackers])
        text = f"{who} countercharges {_side(against)}" if against else f"{who} countercharges"
    elif k == "night_march":
        text = "roll for the night march"
    elif k == "withdraw":
        text = f"{u} withdraws{' to ' + a.hex if a.hex else ''}"
    elif k == "declare":
        if not a.battles:
            text = "declare no battles"
        else:
            text = "declare " + "; ".join(f"{_side(b.attackers)} against {_side(b.defenders)}"
                                          for b in a.battles)
    elif k == "resolve":
        text = f"fight declared battle no. {(a.index or 0) + 1}"
    elif k == "rally":
        text = f"rally {_side(a.units or ([u] if u else []))}" + (" spending a morale point" if a.spend else "")
    elif k == "roll_sudden_death":
        text = "roll for sudden death"
    elif k == "end_phase":
        text = "end this phase"
    else:                                   # a kind added later: its notation, still with its rule
        text = str(a)
    rule = KINDS.get(k, "4.0").replace(" (", ", ").replace(")", "")     # "14.2 (Fuentes)" -> "14.2, Fuentes"
    return f"{text} ({rule})"
