"""The greedy bot's bounds and its memory between decisions (issue 13 speed): a bound says how well a
unit's best move could score before its movement search (6.2) is run; a unit is searched only while its
bound could still beat the best candidate found. Sound bounds keep the pick the same as scoring every
legal action; what the bot keeps from one decision to the next must never change a pick either."""
from __future__ import annotations

from functools import partial

from hypothesis import given, settings, strategies as st

from engine.core import game as G
from engine.core.game import RandomDice, action_seed, play_game
from engine.tbf.game.bots import Extreme, GreedyBot
from engine.tbf.game.movement import MoveBlock
from engine.tbf.game.protocol import TbfRules

R = TbfRules()


def _states(bots, seed, n):
    seen = []
    play_game(R, bots, seed=seed, max_actions=n, record=False, on_action=lambda s, k: seen.append(s))
    return seen


def _bounds(s):
    bot = GreedyBot(seed=0)
    bot.choose_action(R, s, None)                   # the decision's memo (moved units, overstacks)
    return bot, {b.unit: b for b in R.candidate_blocks(s) if isinstance(b, MoveBlock)}


def test_move_bounds_worked_by_hand():
    # seed 4, greedy against greedy: the states after the 1st and the 71st actions, both the Coalition's
    # Movement Segment (fixed by the seed: tests/tbf's recorded games play the same moves)
    states = _states(("greedy", "greedy"), 4, 71)
    bot, blocks = _bounds(states[0])                # Kutusov's activation; Level 2/3 roll: infantry (1, 0)
    # ci-2 in 2412: nearest French unit 4 hexes off, so it can gain 3 at most (it never enters their hex,
    # 6.2.5 B); 4 MPs, each step >= 1 MP; its Level 2 allowance is of no use (no Level 2 hex in or next to
    # 2412, 6.2.3 B-C): g = min(3, 4 // 1 + 0) = 3, MPs >= 3, bound 3 + 0.01 * (10 - 3) = 3.07
    assert bot.move_bound(R, states[0], blocks["ci-2"]) == 3 + 0.01 * (10 - 3)
    # ci-1 in 2411: 5 hexes off, 4 MPs: g = min(4, 4) = 4, bound 4 + 0.01 * (10 - 4) = 4.06
    assert bot.move_bound(R, states[0], blocks["ci-1"]) == 4 + 0.01 * (10 - 4)
    # ci-art in 2511: 6 hexes off, 3 MPs: g = min(5, 3) = 3, bound 3.07
    assert bot.move_bound(R, states[0], blocks["ci-art"]) == 3 + 0.01 * (10 - 3)
    # and each of these is reached: the search's best move scores the bound exactly
    for u in ("ci-2", "ci-1", "ci-art"):
        assert max(v for v, _ in bot.move_scores(R, states[0], blocks[u])) == bot.move_bound(R, states[0], blocks[u])

    s = states[70]                                  # Dokhturov's activation (turn 3); infantry Level 2/3 (1, 0)
    bot, blocks = _bounds(s)
    # cii-5 in 0905: 11 hexes off, 4 MPs; Level 1 and 2 in or next to 0905, the roll's one Level 2 hex: free =
    # 1 + 0; g = min(10, 4 + 1) = 5, MPs >= (5 - 1) * 1 = 4, bound 5 + 0.01 * (10 - 4) = 5.06 (its best: 4.06)
    assert bot.move_bound(R, s, blocks["cii-5"]) == 5 + 0.01 * (10 - 4)
    assert max(v for v, _ in bot.move_scores(R, s, blocks["cii-5"])) == 4 + 0.01 * (10 - 4)
    # cii-7 in 0604: only Level 1 around it, free = 0: g = min(10, 4) = 4, bound 4.06, reached (0708)
    assert bot.move_bound(R, s, blocks["cii-7"]) == 4 + 0.01 * (10 - 4)
    assert (4 + 0.01 * (10 - 4), "0708") in bot.move_scores(R, s, blocks["cii-7"])


def test_leader_quick_bound_is_never_beaten_by_his_moves():
    """A leader's quick bound (before the hexes he could score a move to are looked at) is at least what
    any of his moves scores: fleeing a nearby enemy (6.5 C) or closing on the farthest of his people."""
    tried = 0
    for s in _states(("random", "random"), 31, 160) + _states(("greedy", "greedy"), 32, 200):
        if s.impulse is None or s.impulse.segment != "movement":
            continue
        bot, blocks = _bounds(s)
        for uid, blk in blocks.items():
            if uid not in R.sc.leaders or uid in bot.moved:
                continue
            quick = bot.leader_bound(R, s, blk)
            scores = [v for v, _ in bot.leader_scores(R, s, blk)]
            assert max(scores, default=0) <= quick, (uid, R.position(s))
            tried += bool(scores)
    assert tried > 5


_HEXES = sorted(R.sc.board.hexes())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_HEXES), min_size=1, max_size=12), st.sampled_from(_HEXES))
def test_no_hex_is_nearer_than_the_floor_to_the_farthest_of_a_set(hexes, h):
    grid = R.sc.board.grid
    far = Extreme(grid, tuple(hexes), True)
    assert far(h) == max(grid.distance(h, x) for x in hexes)
    assert far(h) >= far.floor()
    near = Extreme(grid, tuple(hexes), False)
    assert near(h) == min(grid.distance(h, x) for x in hexes)


def test_floor_worked_by_hand():
    grid = R.sc.board.grid
    # two hexes 4 apart along a column (2410 to 2414): from anywhere the farther is at least 2 away
    assert grid.distance("2410", "2414") == 4
    assert Extreme(grid, ("2410", "2414"), True).floor() == 2
    # 5 apart: at least 3 (half of 5, rounded up); one hex alone: 0
    assert Extreme(grid, ("2410", "2415"), True).floor() == 3
    assert Extreme(grid, ("2410",), True).floor() == 0


def test_one_bot_through_a_game_picks_as_a_fresh_bot_from_the_legal_list():
    """The bot keeps some answers from one decision to the next (a unit's scores while its reach stays the
    same; its MPs and free Level 2/3 steps while its hex, status and book do): at every decision of a
    game it still takes what a fresh bot takes from the full legal list."""
    players = G._make_bots(R, ("greedy", "greedy"), 7)
    s = R.new_game(R.default_scenario, (), 7)
    moves = 0
    for k in range(260):
        side = R.to_act(s)
        if side is None:
            break
        bot = players[side]
        a = bot.choose_action(R, s, None)
        assert a == GreedyBot(seed=0).choose_action(R, s, R.legal_actions(s)), (k, R.position(s))
        moves += type(a).__name__ == "Move"
        s = R.begin(s, a).run(RandomDice(action_seed(7, k)), partial(G._bot_choose, players, bot, s)).state
    assert moves > 60


def test_where_the_units_stand_is_the_plain_count_of_the_pieces():
    """The bot's one pass over where the live units stand (each side's hexes, the hexes of one side only,
    each command's hexes, 10.2 objectives and 6.5 C leader safety read them) gives what reading every
    piece of every hex with the order of battle gives."""
    sc = R.sc
    checked = 0
    for s in _states(("greedy", "greedy"), 3, 160)[::4]:
        bot = GreedyBot(seed=0)
        bot.begin_decision(R, s)
        got = bot.where(R, s)
        sides, only, by_cmd = {}, {}, {}
        for h, ps in R.queries.units_in(s).items():
            owners = {sc.side(p.id) for p in ps}
            for p in ps:
                sides.setdefault(sc.side(p.id), set()).add(h)
                by_cmd.setdefault(sc.units[p.id].command, []).append(h)
            if len(owners) == 1:
                only.setdefault(owners.pop(), []).append(h)
        assert got["sides"] == {k: tuple(sorted(v)) for k, v in sides.items()}
        assert got["only"] == only and got["by_command"] == by_cmd
        checked += 1
    assert checked > 20
