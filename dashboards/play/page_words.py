"""The play page's words and lists that need no widget: whether an action is an attack, a side's and a
scenario's names, an option of a player's choice in a player's words, the optional rules and scenarios of
the new-game form (:class:`~dashboards.play.view.GamePlayView` draws them)."""
from __future__ import annotations

import functools

from engine.core.errors import VedetteError

__all__ = ["is_attack", "side_name", "short_title", "resend", "option_words", "option_pairs", "option_table",
           "scenario_pairs"]


def is_attack(rules, action) -> bool:
    """Whether the system calls ``action`` an attack (its odds are shown before it is made)."""
    check = getattr(rules, "is_attack", None)
    return bool(check and check(action))


def side_name(side: str | None) -> str:
    return (side[:1].upper() + side[1:]) if side else ""


def short_title(rules, scenario: str) -> str:
    """A scenario's name short enough for a tab ('Fuentes de Oñoro', 'Albuera', 'Dürenstein')."""
    title = str(rules.scenarios().get(scenario, scenario))
    for cut in (" — ", " (", ", ", ": "):
        title = title.split(cut)[0]
    return title.removesuffix(" 20").strip() or scenario


def resend(component, names) -> None:
    """Send ``component``'s values ``names`` to the browser again, as they are (a change of a Bokeh model
    to the value it has: Panel and Bokeh send only changes)."""
    for model, _ in list(getattr(component, "_models", {}).values()):
        target = getattr(model, "data", None) or model      # an ESM component's values are in its data model
        for name in names:
            if name in target.properties():
                value = getattr(target, name)
                target.trigger(name, value, value)


def option_words(rules, state, req, option) -> str:
    """One option of a player's choice in a player's words (the system's words, never a repr)."""
    if isinstance(option, bool):
        return "yes" if option else "no"
    try:
        return str(rules.describe_option(state, req, option))
    except (VedetteError, AttributeError, TypeError):
        return str(option)


def option_pairs(rules) -> list[list]:
    """[id, rule, title, scenarios] of each optional rule of ``rules`` for the head's list: its title in a
    player's words (:meth:`GameRules.option_title`), and the scenarios it may be chosen for when the rules
    refuse it for some (asked of the engine: a new game with it alone; ``None``: every scenario)."""
    return [list(x) for x in option_table(rules.system)]


@functools.lru_cache(maxsize=8)
def option_table(system: str) -> tuple:
    from engine.systems import system_of
    rules = system_of(system)
    if hasattr(rules, "allow_paths"):
        rules.allow_paths = False
    out = []
    for k, v in rules.options().items():
        fits = []
        for sc in rules.scenarios():
            try:
                rules.new_game(sc, (k,), 1)
                fits.append(sc)
            except VedetteError:
                pass
        out.append((k, str(v), rules.option_title(k), None if len(fits) == len(rules.scenarios()) else tuple(fits)))
    return tuple(out)


def scenario_pairs(rules) -> list[list[str]]:
    """[id, title] of each scenario of ``rules``, for the head's scenario list."""
    return [[k, f"{v} ({k})" if v and v != k else k] for k, v in rules.scenarios().items()]
