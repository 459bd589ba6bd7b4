"""The sequence of play (2, 3, 6): the end of the admin phase and the end of a player's go."""
from __future__ import annotations

from dataclasses import replace
from functools import partial

from engine.core.procedure import Choose, Log, Roll, Sub

from .command import command_points, rain_squall
from .state import Game
from .steps import Steps
from .units import LeaderStatus, Phase, other_side
from .victory import end_of_game, victory_phase

__all__ = ["end_admin", "end_phase"]


def end_admin(g: Game) -> Steps[Game]:
    """End of the admin phase (3): 7.1.2 wanderers roll, the rain squall roll (Albuera option 5), then the
    command points of the go (3, Albuera scenario play)."""
    for ld in g.leaders:
        if ld.present and ld.side == g.player and "wanderer" in ld.attributes:
            roll = yield Roll("d6", rule="7.1.2", label=f"{ld.name} wanders?")
            if roll == 1:
                g = g.with_leaders([replace(ld, area=None, status=LeaderStatus.WANDERED_OFF)])
            elif roll == 2:
                # the opponent moves the leader one area
                assert ld.area is not None, "a present leader stands in an area"
                opts = tuple(sorted(g.board.neighbours(ld.area)))
                dest = yield Choose(opts, rule="7.1.2", player=other_side(ld.side), label=f"move {ld.name} to",
                                    context=("leader-move", ld.name, opts))
                g = g.with_leaders([replace(ld, area=dest)])
    rain = False
    if "rain" in g.setup.options:
        rain = yield Sub(("rain", g.player, g.tables.fingerprint), partial(rain_squall, g.player, g.tables),
                         rule="Albuera option 5", label="rain squall?")
    cp = yield Sub(("cp", g.player, g.turn, g.tables.fingerprint),
                   partial(command_points, g.player, g.turn, g.tables), rule="3", label="command points")
    return replace(g, phase=Phase.COMMAND, cp=cp, rain=rain)


def end_phase(g: Game) -> Steps[Game]:
    """End of a player's go: the victory phase (6), then the other player's go or the next turn (2), or
    the end of the game after the last turn."""
    g = victory_phase(g)
    if g.over:
        return g
    first = g.setup.scenario.first_player
    if g.player == first:
        nxt = replace(g, player=other_side(first))
    else:
        if g.turn >= g.setup.scenario.turns:
            return end_of_game(g)
        nxt = replace(g, player=first, turn=g.turn + 1)
    yield Log("2", f"turn {nxt.turn}: {nxt.player} admin phase")
    # 3: markers of last turn are cleared at the start of a player's go
    return replace(nxt, phase=Phase.ADMIN, cp=0, rallied=frozenset(), activated=frozenset(), acted=frozenset(),
                   moved_in=frozenset(), frozen=frozenset(), toggled=frozenset(), deployed_now=frozenset(),
                   horse_moved=frozenset(), pace=(), gunner_used=frozenset(), spent=(),
                   rain=False)
