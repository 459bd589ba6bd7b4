"""9.0 Scenario set-up: the position the Dürenstein game starts from (9.1, 9.3: both sides set up, Gaindorge's
command already activated), the checks of a set-up against 9.1 C-D and 9.3 B, and a new game with its
optional rules (11.0)."""
from __future__ import annotations

from engine.core.errors import RuleViolation, VedetteError
from engine.core.game import Options
from engine.core.procedure import Log

from ..scenario import LeaderDef, Scenario, UnitDef
from ..steps import Steps
from .actions import Place
from .exclusive import releases
from .options import GAME_OPTIONS
from .queries import Queries
from .stacking import stacking_problem, stacking_problem_with
from .state import GameState, Piece, TbfState, replace
from .types import Side, Status

__all__ = ["initial_state", "setup_problems", "new_game", "setup_area", "setup_candidates", "check_place", "do_place",
           "end_setup", "COLUMN_I_AREA"]

#: 9.1 C: where Column I sets up
COLUMN_I_AREA = frozenset({"2411", "2412", "2511", "2512", "2513"})


def initial_state(sc: Scenario) -> GameState:
    """Turn 1, after both set-ups (9.1, 9.3): Gaindorge's command already activated."""
    g = sc.board.grid
    names = [n.upper() for n in g.direction_names]
    placed = {**sc.file.setup.coalition, **sc.file.setup.french}
    pieces: list[Piece] = []
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
    col_i_area = COLUMN_I_AREA
    v_centre = sc.board.data.setup_numbers.get("V", "2810")
    for p in st.on_map():
        d: UnitDef | LeaderDef = sc.units.get(p.id) or sc.leaders[p.id]
        if d.side != Side.COALITION or p.hex is None:
            continue
        cmd = d.command
        if cmd == "I" and p.hex not in col_i_area:
            out.append(f"9.1 C: {p.id} must set up in 2411-12 or 2511-13, not {p.hex}")
        if (cmd == "V" or p.id == "kutusov") and (g.distance(p.hex, v_centre) > 2 or g.parse(p.hex)[0] < 28):
            out.append(f"9.1 D: {p.id} must set up within two hexes of {v_centre}, not west of 28XX ({p.hex})")
    for pid, h in sc.file.setup.french.items():
        if st.piece(pid).hex != h:
            out.append(f"9.3 B: {pid} sets up in {h}, not {st.piece(pid).hex}")
    for h in sorted({p.hex for p in st.on_map() if p.hex is not None}):
        problem = stacking_problem(sc, st, h)
        if problem is not None:
            out.append(f"{problem.split(':')[0]}: the set-up overstacks {h} ({problem})")
    return out



def new_game(sc: Scenario, scenario: str | None = None, options: Options = ()) -> TbfState:
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
    # option 9.1: the Coalition sets up first (9.1), then the French (9.3 A), from the historical set-up
    return TbfState(game=g, to_move=Side(sc.file.first_impulse), activations=("gaindorge",),       # 9.0
                    options=tuple(sorted(set(names))), setting_up=Side.COALITION if "9.1" in names else None)


# ------------------------------------------------------------------------------------------------
# The players' set-up (option 9.1)
# ------------------------------------------------------------------------------------------------
def setup_area(sc: Scenario, pid: str) -> frozenset[str]:
    """Where a piece of the set-up may stand: Column I in 2411-12 and 2511-13 (9.1 C); Column V and Kutusov
    within two hexes of 2810 and not west of the 28XX row (9.1 D); the French in their hexes (9.3 B)."""
    if sc.side(pid) == Side.FRENCH:
        return frozenset({sc.file.setup.french[pid]})
    d = sc.units.get(pid) or sc.leaders[pid]
    if d.command == "I":
        return COLUMN_I_AREA
    g = sc.board.grid
    centre = sc.board.data.setup_numbers.get("V", "2810")
    return frozenset(h for h in g.within(centre, 2) if g.parse(h)[0] >= 28 and sc.board.terrain(h) != "river")


def _setup_pieces(sc: Scenario, side: str) -> list[str]:
    """The pieces a side sets up, in the scenario's order."""
    return list(sc.file.setup.coalition if side == Side.COALITION else sc.file.setup.french)


def setup_candidates(ctx: Queries, s: TbfState, side: str) -> list:
    """Each piece of the side's set-up moved to another hex of its area (facing kept), then each unit
    turned to another hexside where it stands (9.1, 9.3 B)."""
    sc, g = ctx.sc, s.game
    out: list = []
    for pid in _setup_pieces(sc, side):
        p = g.piece(pid)
        out += [Place(side, pid, h, p.facing) for h in sorted(setup_area(sc, pid)) if h != p.hex]
        if pid in sc.units and p.hex is not None:
            out += [Place(side, pid, p.hex, f) for f in range(6) if f != p.facing]
    return out


def check_place(ctx: Queries, s: TbfState, a: Place) -> None:
    sc, g = ctx.sc, s.game
    if s.setting_up is None:
        raise RuleViolation("9.1", "the set-up is over: pieces move in their Movement Segments now")
    if a.unit not in _setup_pieces(sc, a.side):
        raise RuleViolation("9.1 B" if a.side == Side.COALITION else "9.3 B",
                            f"{a.unit!r} is not a piece of the {a.side} set-up")
    if a.hex not in setup_area(sc, a.unit):
        rule = "9.3 B" if a.side == Side.FRENCH else ("9.1 C" if a.hex not in COLUMN_I_AREA and
                                                      (sc.units.get(a.unit) or sc.leaders[a.unit]).command == "I"
                                                      else "9.1 D")
        raise RuleViolation(rule, f"{a.unit} sets up in {', '.join(sorted(setup_area(sc, a.unit)))}, not {a.hex}")
    if isinstance(a.facing, bool) or not isinstance(a.facing, int) or not 0 <= a.facing <= 5:
        raise RuleViolation("4.3 B", f"a facing is a hexside 0..5 (N, NE, SE, S, SW, NW), not {a.facing!r}")
    p = g.piece(a.unit)
    if (p.hex, p.facing) == (a.hex, a.facing):
        raise RuleViolation("9.1", f"{a.unit} already stands in {a.hex} facing that way")
    if a.unit in sc.units and a.hex != p.hex:
        problem = stacking_problem_with(sc, g, a.hex, a.unit)
        if problem is not None:
            raise RuleViolation(problem.split(":")[0], f"{a.unit} may not set up in {a.hex}: {problem}")


def do_place(ctx: Queries, s: TbfState, a: Place) -> Steps[TbfState]:
    yield Log("9.1" if a.side == Side.COALITION else "9.3 B",
              f"{a.unit} sets up in {a.hex} facing {ctx.sc.board.grid.direction_names[a.facing]}")
    return replace(s, game=s.game.with_piece(a.unit, hex=a.hex, facing=a.facing))


def end_setup(ctx: Queries, s: TbfState) -> Steps[TbfState]:
    """The side setting up is done: the French set up next (9.3 A), then turn 1 begins (9.0)."""
    side = s.setting_up
    yield Log("9.1" if side == Side.COALITION else "9.3 A", f"the {side} set-up is done")
    nxt = Side.FRENCH if side == Side.COALITION else None
    return replace(s, setting_up=nxt, game=releases(ctx.sc, s.game))
