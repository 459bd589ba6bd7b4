"""The greedy bot's hex scores (issues 10 and 16), kept per target set and board, equal the sum worked out
from scratch: minus the steps to the nearest enemy unit or enemy objective (one breadth-first search from
all targets at once) plus the weighted combat value of the hex's terrain (French: steps count in full and
terrain 0.3; allies: steps count half and terrain in full)."""
from engine.core.game import play_game as core_play_game
from engine.n20.game import bots as BO, zoc as Z
from engine.n20.game.bots import GreedyBot
from engine.n20.game.protocol import RULES
from engine.n20.game.types import other



def _states(scenario, seed, n=300):
    out = []
    core_play_game(RULES, ("greedy", "greedy"), scenario, (), seed, max_actions=n, record=False,
                   on_action=lambda st, k: out.append(st))
    return out


def test_scores_kept_per_target_set_equal_the_sum_from_scratch():
    bot = GreedyBot()
    checked = 0
    for scenario in ("fuentes", "bussaco"):
        for state in _states(scenario, 2)[::25]:
            sc, board = state.scenario, state.board
            for side in ("french", "allied"):
                uid = next((u.id for u in Z.on_map_units(state, side) if sc.units[u.id].type != "leader"
                            and u.id != sc.spec.exclusive.supply_column), None)
                if uid is None:
                    continue
                targets = [u.hex for u in Z.on_map_units(state, other(side)) if sc.units[u.id].type != "leader"]
                targets += [h for h, owner, _ in board.objectives if owner != side]
                steps = BO._distances.__wrapped__(board.base, tuple(targets))
                score = bot._scorer(state, uid)
                for h in board.hexes[::11]:
                    tec = sc.tables.terrain_combat(board.terrain(h))
                    d = steps.get(h, 0)
                    want = -d + 0.3 * tec if side == "french" else -0.5 * d + 1.0 * tec
                    assert score(h) == want, (scenario, side, h)
                    checked += 1
    assert checked > 500


def test_a_hand_worked_score():
    # a French unit 2 steps from the one target, in a hex of TEC combat value 0: -2 + 0.3 * 0 = -2.0;
    # an allied unit there: -0.5 * 2 + 1.0 * 0 = -1.0
    s = RULES.new_game("fuentes", seed=1)
    board, tables = s.board, s.scenario.tables
    t = board.hexes[len(board.hexes) // 2]
    two = next(h for h in board.hexes if Z.distance(board, t, h) == 2 and tables.terrain_combat(board.terrain(h)) == 0)
    near = BO._nearest(board.base, (t,))
    assert BO._scores(near, board, tables, False)[two] == -2.0
    assert BO._scores(near, board, tables, True)[two] == -1.0
