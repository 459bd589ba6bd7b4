"""The greedy bot skips a unit's reach search when no hex it could end in scores enough (issues 10 and 16).

The skip rests on a superset of the reachable hexes: every hex :func:`rules.reachable` gives lies at most
:func:`rules.move_radius` steps from the unit and outside :func:`rules.move_end_barred` (enemy hexes, 6.3;
hexes stacked with the side's own units, 6.9). These tests check that superset in states of whole games
(every option that changes movement on), and that the skip gives the pick the full scoring gives.
"""
from hypothesis import given, settings, strategies as st

from engine.core.game import play_game as core_play_game
from engine.n20.game import bots as BO, rules as R
from engine.n20.game.bots import GreedyBot, _rules
from engine.n20.game.movement import check_can_move, reach as move_reach
from engine.core.errors import RuleViolation, VedetteError

from engine.n20 import game as g
from n20_game_helpers import make_scenario, put

RULES = _rules()
OPTIONS = ("fog_of_war", "breakdown", "special_units", "fatigue", "leaders", "squares", "unit_reduction")


def _allowed(scenario):
    """The options of :data:`OPTIONS` the scenario's edition has (the others are refused at set-up)."""
    out = []
    for o in OPTIONS:
        try:
            g.new_game(scenario, options=(o,))
        except VedetteError:
            continue
        out.append(o)
    return tuple(out)


def _states(scenario, bots, seed, options=(), n=240):
    out = []
    core_play_game(RULES, bots, scenario, options, seed, max_actions=n, record=False,
                   on_action=lambda s, k: out.append(s))
    return out


def _check_superset(state) -> int:
    checked = 0
    for u in state.units:
        if u.status != "map":
            continue
        radius = R.move_radius(state, u.id)
        near = set(BO._ball(state.board.base, u.hex, radius))
        barred = R.move_end_barred(state, u.id)
        for h in R.reachable(state, u.id):
            assert h in near, (u.id, u.hex, h, radius)
            assert h not in barred, (u.id, h)
            checked += 1
    return checked


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(1, 10_000), scenario=st.sampled_from(["fuentes", "bussaco", "fuentes-5may"]),
       random_bots=st.booleans(), with_options=st.booleans())
def test_reachable_hexes_lie_within_the_bound(seed, scenario, random_bots, with_options):
    bots = ("random", "random") if random_bots else ("greedy", "greedy")
    states = _states(scenario, bots, seed, _allowed(scenario) if with_options else ())
    assert sum(_check_superset(s) for s in states[::20]) > 0


def test_a_hand_worked_radius_and_barred_hexes(tmp_path):
    # an infantry unit of movement allowance 2 on all-clear ground (every step 1 point): the road move of
    # 6.6 spends 2 + 1 = 3 points at most, 1 point a step, so 3 hexes at most: radius 3
    sc = make_scenario(tmp_path)
    s = put(g.new_game(sc), F1="0404", F2="0405", A1="0407")
    assert R.move_radius(s, "F1") == 3
    # barred for F1: its own hex and F2's (6.9), A1's (6.3)
    assert R.move_end_barred(s, "F1") == {"0404", "0405", "0407"}
    # a cavalry unit (allowance 3): 3 + 1 = 4 hexes
    s = put(s, FC="0101")
    assert R.move_radius(s, "FC") == 4
    # the ball is nearest first: the 6 neighbours of a hex away from the map's edges, then the 12 at 2 steps
    ball = BO._ball(s.board.base, "0404", 2)
    assert len(ball) == 18
    assert all(R.distance(s.board, "0404", h) == 1 for h in ball[:6])
    assert all(R.distance(s.board, "0404", h) == 2 for h in ball[6:])


def _full_pick(bot, state, u):
    """The best move by scoring every reachable hex (no skip): the bot's rule of choice written out."""
    try:
        check_can_move(state, u.id)
    except RuleViolation:
        return None
    reach = move_reach(state, u.id)
    score = bot._scorer(state, u.id)
    here = score(u.hex) if u.status == "map" else -99.0
    best_h, best_gain = None, 0.25
    for h in reach:
        gain = score(h) - here
        if gain > best_gain or (gain == best_gain and best_h is not None and h < best_h):
            best_h, best_gain = h, gain
    return None if best_h is None else reach[best_h]


def test_the_skip_picks_what_the_full_scoring_picks():
    bot = GreedyBot()
    skipped = checked = 0
    for scenario in ("fuentes", "bussaco"):
        for state in _states(scenario, ("greedy", "greedy"), 3, n=400):
            if state.step != "movement":
                continue
            side = state.player
            for u in state.units:
                if u.moved or u.status not in ("map", "due") or state.scenario.units[u.id].side != side:
                    continue
                want = _full_pick(bot, state, u)
                assert bot._best_reach(state, u) == want, (scenario, u.id)
                checked += 1
                if u.status == "map" and not BO._may_gain(state, u, bot._scorer(state, u.id),
                                                            bot._scorer(state, u.id)(u.hex)):
                    assert want is None
                    skipped += 1
    assert checked > 100 and skipped > 0


def test_within_sets_of_a_fieldworks_board_equal_fresh_ones():
    # a Fieldworks board (14.2) takes its map's sets for the rows it shares with the map: every hex's
    # sets equal those made from scratch from the board's own steps
    from engine.n20.game.state import board_with_fieldworks
    s = g.new_game("fuentes")
    tables = s.scenario.tables
    hexes = s.board.hexes
    board = board_with_fieldworks(s.board, (hexes[40], hexes[120]))
    assert board.base is s.board.base and board.terrain_changed
    for road in (False, True):
        kept = R._within(board, tables, road)
        fresh = R._Within(R._edges(board, tables), road)
        assert all(kept[h] == fresh[h] for h in hexes), road
