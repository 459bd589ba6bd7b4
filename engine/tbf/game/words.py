"""These Brave Fellows actions in a player's words (what the play page lists and the walkthroughs say).

:func:`describe` reads only an action's fields, starts with the side and ends with the rule, e.g.
``"coalition: move ci-1 to 2113 by 2411, 2312, 2212 (4 MP) (6.2)"``. The text notation
(``format_action``) is unchanged: it is what the command line reads back.
"""
from __future__ import annotations

from engine.core.values import spoken_list as _list

__all__ = ["describe"]




def describe(a, rule: str, direction_names=None) -> str:
    """The action as a sentence, with its side and rule (``direction_names``: the map's facing names)."""
    k = a.kind
    if k == "activate":
        text = f"activate {a.leader}"
    elif k == "activate_command":
        text = f"activate command {a.command} through {a.unit}"
    elif k == "pass":
        text = "pass this impulse"
    elif k == "end":
        text = "end this segment"
    elif k == "move":
        steps = [h for h in a.path if h != a.to]
        via = f" by {', '.join(steps)}" if steps else ""
        cost = f" ({a.mp} MP)" if a.mp >= 0 else ""
        text = f"move {a.unit} to {a.to}{via}{cost}"
    elif k == "face":
        names = direction_names or ()
        towards = names[a.facing] if 0 <= a.facing < len(names) else str(a.facing)
        text = f"turn {a.unit} to face {towards}"
    elif k == "charge":
        then = f", then on to {', '.join(a.next)}" if a.next else ""
        text = f"{a.unit} charges {a.path[-1] if a.path else '?'} along {', '.join(a.path)}{then}"
    elif k == "out_of_command":
        text = f"{a.unit} acts out of command"
    elif k == "attach":
        text = f"attach {a.unit} to the activated leader"
    elif k == "fire":
        text = f"{_list(a.units)} {'fires' if len(a.units) == 1 else 'fire'} at {a.target}"
    elif k == "melee":
        text = f"{_list(a.units)} {'attacks' if len(a.units) == 1 else 'attack'} {a.target} in melee"
    elif k == "place":
        names = direction_names or ()
        towards = names[a.facing] if 0 <= a.facing < len(names) else str(a.facing)
        text = f"set {a.unit} up in {a.hex} facing {towards}"
    elif k == "cavalry_retreat":
        text = f"{a.unit} falls back by {', '.join(a.path)}"
    else:
        text = k
    return f"{a.side}: {text} ({rule})"
