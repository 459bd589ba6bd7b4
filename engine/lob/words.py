"""Lines of Battle actions in a player's words (what the play page lists and the walkthroughs say).

:func:`describe` reads only an action's fields and ends with the action's rule, e.g.
``"move F-Konopka to area 17 by 19 (4.2.2)"``. The text notation (``format_action``) is unchanged.
"""
from __future__ import annotations

from engine.core.values import spoken_list as _list

__all__ = ["describe"]




def _ending(end: str) -> str:
    """Where a move leaves its units (4.2.2)."""
    if end.startswith("approach:"):
        return f", ending on the approach to area {end[len('approach:'):]}"
    return {"area": "", "square": ", ending in square", "line": ", ending in line",
            "deploy": ", ending deployed"}.get(end, f", ending {end}")


def describe(a, rule: str) -> str:
    """The action as a sentence, with its rule."""
    t, us = a.kind, _list(a.units)
    if t == "move":
        if a.path:
            via = f" by {', '.join(a.path[:-1])}" if len(a.path) > 1 else ""
            text = f"move {us} to area {a.path[-1]}{via}{_ending(a.end)}"
        else:
            text = f"{us}: stay in the area{_ending(a.end)}"
    elif t == "attack":
        via = f" by {', '.join(a.path)}" if a.path else ""
        text = f"attack area {a.target} with {us}{via}"
    elif t == "fire":
        text = f"{us} fires at {a.target}"
    elif t == "place":
        text = f"set up {us} in area {a.area}"
    elif t == "rally":
        text = f"rally {us}"
    elif t == "toggle":
        text = f"switch {us} between limbered and deployed"
    elif t == "activate":
        text = f"activate area {a.area}" + (f" with {us}" if a.units else "")
    elif t == "end-setup":
        text = "end the set-up"
    elif t == "end-admin":
        text = "end the administration phase"
    elif t == "end-phase":
        text = "end this phase"
    else:
        text = a.describe()
    return f"{text} ({rule})"
