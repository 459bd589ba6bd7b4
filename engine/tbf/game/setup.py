"""9.0 Scenario set-up: the position the Dürenstein game starts from (9.1, 9.3: both sides set up, Gaindorge's
command already activated), the checks of a set-up against 9.1 C-D and 9.3 B, and a new game with its
optional rules (11.0)."""
from __future__ import annotations

from engine.core.errors import VedetteError

from ..scenario import Scenario
from .exclusive import releases
from .options import GAME_OPTIONS
from .stacking import stacking_problem
from .state import GameState, Piece, TbfState
from .types import Side, Status

__all__ = ["initial_state", "setup_problems", "new_game"]


def initial_state(sc: Scenario) -> GameState:
    """Turn 1, after both set-ups (9.1, 9.3): Gaindorge's command already activated."""
    g = sc.board.grid
    names = [n.upper() for n in g.direction_names]
    placed = {**sc.file.setup.coalition, **sc.file.setup.french}
    pieces = []
    for pid in list(sc.units) + list(sc.leaders):
        side = sc.side(pid)
        facing = names.index(sc.file.setup.facing.get(side, names[0]).upper())
        pieces.append(Piece(pid, placed.get(pid), facing, Status.NORMAL, pid in sc.file.setup.already_activated))
    control = tuple(sorted([(t, "french") for t in sc.file.control.french] +
                           [(t, "coalition") for t in sc.file.control.coalition]))
    return GameState(1, tuple(pieces), control, frozenset())



def setup_problems(sc: Scenario, st: GameState) -> list[str]:
    """Check a set-up against 9.1 C-D (Coalition) and 9.3 B (French hexes): a list of problems."""
    g = sc.board.grid
    out = []
    col_i_area = {"2411", "2412", "2511", "2512", "2513"}
    v_centre = sc.board.data.setup_numbers.get("V", "2810")
    for p in st.on_map():
        d = sc.units.get(p.id) or sc.leaders.get(p.id)
        if d.side != Side.COALITION:
            continue
        cmd = d.command if p.id in sc.units else d.command
        if cmd == "I" and p.hex not in col_i_area:
            out.append(f"9.1 C: {p.id} must set up in 2411-12 or 2511-13, not {p.hex}")
        if (cmd == "V" or p.id == "kutusov") and (g.distance(p.hex, v_centre) > 2 or g.parse(p.hex)[0] < 28):
            out.append(f"9.1 D: {p.id} must set up within two hexes of {v_centre}, not west of 28XX ({p.hex})")
    for pid, h in sc.file.setup.french.items():
        if st.piece(pid).hex != h:
            out.append(f"9.3 B: {pid} sets up in {h}, not {st.piece(pid).hex}")
    for h in sorted({p.hex for p in st.on_map()}):
        problem = stacking_problem(sc, st, h)
        if problem is not None:
            out.append(f"{problem.split(':')[0]}: the set-up overstacks {h} ({problem})")
    return out



def new_game(sc: Scenario, scenario: str | None = None, options=()) -> TbfState:
    """Turn 1's first impulse (9.0) with the optional rules ``options`` (a list, or a record's
    ``{"options": [...]}``)."""
    if scenario not in (None, "durenstein"):
        raise VedetteError(f"unknown scenario {str(scenario)[:40]!r}; one of durenstein")
    if isinstance(options, dict) and set(options) - {"options"}:
        # a record's options hold one key, the list of optional rules: a misspelt key is refused, not ignored
        extra = sorted(map(str, set(options) - {"options"}))
        raise VedetteError(f"field options: unknown key {extra[0][:40]!r}; a TBF game's options hold only "
                           "'options' (a list of optional rules)")
    names = options.get("options", []) if isinstance(options, dict) else list(options)
    if not isinstance(names, (list, tuple)):
        raise VedetteError(f"field options: expected a list of optional rules, got {str(names)[:40]!r}")
    for n in names:
        if n not in GAME_OPTIONS:
            raise VedetteError(f"unknown option {str(n)[:40]!r}: the TBF game offers {', '.join(GAME_OPTIONS)} "
                               "(11.3, 11.5-11.7 need counters the order of battle lacks)")
    g = releases(sc, initial_state(sc))
    return TbfState(game=g, to_move=sc.file.first_impulse, activations=("gaindorge",),       # 9.0
                    options=tuple(sorted(set(names))))
