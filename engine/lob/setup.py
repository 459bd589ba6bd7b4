"""A new game of Albuera and the scenario's options: the printed set-up, the morale bid (Albuera option 1),
the free set-up (Albuera option 6: placing units, ending the set-up), and the option names a record or
the command line gives.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace
from typing import Any

from engine.core.errors import RuleViolation, VedetteError
from engine.core.procedure import Log

from .actions import Action
from .command import own_unit
from .scenario import OPTIONS, initial_leaders, initial_units
from .state import Game, Setup
from .steps import Steps
from .units import ART, SIDES, Phase
from .victory import track_albuera

__all__ = ["new_game", "free_setup_sides", "setup_locations", "bank", "check_place", "place", "check_end_setup",
           "end_setup", "OPTION_RULES", "parse_options", "bid_of"]

OPTION_RULES = {
    "bid": "Albuera option 1 (bid for victory: the winner pays morale, give it as bid:SIDE=N)",
    "kemmis": "Albuera option 2 (Kemmis's brigade is present)",
    "madden": "Albuera option 3 (Madden's cavalry is present)",
    "spanish-no-show": "Albuera option 4 (the Spanish stay away)",
    "rain": "Albuera option 5 (rain squalls)",
    "setup": "Albuera option 6 (free set-up, both sides)",
    "setup-allied": "Albuera option 6 (free set-up, the Allies only)",
    "setup-french": "Albuera option 6 (free set-up, the French only)",
    "leaders": "7.1 (leaders; their 7.1.2 attributes come from the scenario file)",
    "light-cavalry": "7.1.3 (light cavalry activated without a leader)",
}
assert set(OPTION_RULES) == set(OPTIONS)
assert set(OPTION_RULES) == set(OPTIONS)


def new_game(setup: Setup | None = None, options: Iterable[str] = (), morale_bid: dict[str, int] | None = None
             ) -> Game:
    """The Albuera set-up (scenario), French to play first, turn 1, admin phase."""
    setup = setup or Setup(options=frozenset(options))
    sc = setup.scenario
    units = initial_units(sc, setup.options, setup.board)
    morale = {"French": sc.morale.French, "Allied": sc.morale.Allied}
    if morale_bid:
        # optional rule 1 (bid for victory): the winner of the bid pays its bid in morale
        for side, bid in morale_bid.items():
            if side not in morale or not isinstance(bid, int) or bid < 0:
                raise RuleViolation("Albuera option 1", f"a bid is a side and a whole number of morale points, got {side}: {bid}")
            morale[side] -= bid
        setup = replace(setup, morale_bid=tuple(sorted(morale_bid.items())))
    g = Game(setup=setup, turn=1, player=sc.first_player, phase=Phase.ADMIN, cp=0,
             morale=tuple(sorted(morale.items())), units=units,
             leaders=initial_leaders(sc, setup.options))
    free = free_setup_sides(setup.options)
    if free:
        # scenario option 6: the Allies set up first, then the French (each only if free to)
        g = replace(g, phase=Phase.SETUP, player="Allied" if "Allied" in free else "French")
    return track_albuera(g)


def free_setup_sides(options: Collection[str]) -> tuple[str, ...]:
    """Albuera option 6: the sides that set up freely, the Allies first."""
    if "setup" in options:
        return ("Allied", "French")
    return tuple(s for s, o in (("Allied", "setup-allied"), ("French", "setup-french")) if o in options)


def setup_locations(g: Game, side: str) -> tuple[str, ...]:
    """The areas the printed set-up uses for ``side`` (option 6: the Allies keep a unit in each)."""
    return tuple(sorted({u.area for u in initial_units(g.setup.scenario, g.setup.options, g.board)
                         if u.side == side and u.area is not None}))


def bank(side: str) -> str:
    """Albuera option 6: each side sets up on its own bank of the river and streams."""
    return "west" if side == "Allied" else "east"


def check_place(g: Game, a: Action) -> None:
    """Albuera option 6: one of our units, to an area on our bank."""
    own_unit(g, a.units[0] if a.units else "")
    if a.area is None or a.area not in g.board:
        raise RuleViolation("Albuera option 6", f"no area {a.area!r} on the map")
    if g.board.attrs(a.area)["bank"] != bank(g.player):
        raise RuleViolation("Albuera option 6", f"the {g.player} set up {bank(g.player)} of the river "
                                                f"and streams; {a.area} is not")


def place(g: Game, a: Action) -> Game:
    """Albuera option 6: the unit stands in the area (artillery deployed where it may be, terrain 2-3)."""
    u = g.unit(a.units[0])
    assert a.area is not None, "a placement names its area (check_place)"
    return g.with_units([replace(u, area=a.area, approach=None, square=False,
                                 deployed=u.kind == ART and not g.board.is_close(a.area))])


def check_end_setup(g: Game, a: Action) -> None:
    """Albuera option 6: the Allies keep at least one unit in each area of their printed set-up."""
    if g.player == "Allied":
        empty = [x for x in setup_locations(g, "Allied") if g.holder(x) != "Allied"]
        if empty:
            raise RuleViolation("Albuera option 6", f"the Allies must keep at least one unit in each "
                                                    f"set-up area; empty: {', '.join(empty)}")


def end_setup(g: Game, a: Action) -> Steps[Game]:
    """Albuera option 6: the French set up next if free to; else the first turn begins."""
    free = free_setup_sides(g.setup.options)
    if g.player == "Allied" and "French" in free:
        g = replace(g, player="French")
    else:
        g = replace(g, phase=Phase.ADMIN, player=g.setup.scenario.first_player)
    yield Log("Albuera option 6", f"set-up done; {g.player} {'sets up' if g.phase == 'setup' else 'begins'}")
    return g


# ------------------------------------------------------------------------------------------------
# Options (the record's spellings: {"options": [...]} or the older {"rules": [...]}, with "bid")
# ------------------------------------------------------------------------------------------------
def bid_of(value: Any, where: str) -> dict[str, int]:
    """A morale bid (Albuera option 1): ``{"French": 2}``, or the text ``French=2``."""
    if isinstance(value, str):
        side, eq, n = value.partition("=")
        if not eq or not n.strip().isdigit():
            raise VedetteError(f"{where}: write the bid as SIDE=N, e.g. French=2 (Albuera option 1), got {value[:30]!r}")
        value = {side.strip(): int(n)}
    if not isinstance(value, Mapping):
        raise VedetteError(f"{where}: expected an object such as {{\"French\": 2}} (Albuera option 1)")
    out = {}
    for side, n in value.items():
        if side not in SIDES:
            raise VedetteError(f"{where}: unknown side {str(side)[:20]!r}; one of {', '.join(SIDES)}")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise VedetteError(f"{where}.{side}: expected a whole number of morale points, 0 or more, got {str(n)[:20]!r}")
        out[side] = n
    return out


def parse_options(options: Any) -> tuple[frozenset[str], dict[str, int]]:
    """Option names and the morale bid, from a list of names (``"bid:French=2"`` carries a bid) or a
    record's options object (``{"options": [...], "bid": {...}}``; ``"rules"`` is the older key)."""
    bid: dict[str, int] = {}
    if isinstance(options, Mapping):
        unknown = set(options) - {"options", "rules", "bid"}
        if unknown:
            raise VedetteError(f"field 'options': unknown key(s) {sorted(map(str, unknown))[:5]}; "
                               "known: options, rules (older records), bid")
        key = "options" if "options" in options else "rules"
        names = options.get(key, [])
        if not isinstance(names, (list, tuple)):
            raise VedetteError(f"field 'options.{key}': expected a list of option names")
        if options.get("bid"):
            bid = bid_of(options["bid"], "field 'options.bid'")
    elif isinstance(options, str):
        names = [o.strip() for o in options.split(",") if o.strip()]
    else:
        names = list(options or ())
    out = set()
    for i, n in enumerate(names):
        if not isinstance(n, str):
            raise VedetteError(f"option {i}: expected an option name (a string), got {str(n)[:20]!r}")
        if n.startswith("bid:") or n.startswith("bid="):
            bid.update(bid_of(n[4:], "option bid"))
            continue
        if n not in OPTION_RULES:
            raise VedetteError(f"unknown option {n[:30]!r}; known: {', '.join(OPTION_RULES)}")
        out.add(n)
    if bid:
        out.add("bid")
    return frozenset(out), bid
