"""The greedy bot's two ways to choose (issue 13 speed): from the full legal list, or from the candidates
scored first and checked best first with the one check (a unit's moves weighed from its one movement
search, 6.2, without being spelt out). Both must take the same action in every position, and the
candidate list spelt out from blocks is the list the game filters into its legal actions."""
from __future__ import annotations

from engine.core.game import play_game
from engine.tbf.game.bots import GreedyBot
from engine.tbf.game.actions import Move
from engine.tbf.game.movement import FaceBlock, MoveBlock
from engine.tbf.game.protocol import TbfRules

R = TbfRules()


def _positions(bots, seed, n):
    seen = []
    play_game(R, bots, seed=seed, max_actions=n, record=False,
              on_action=lambda s, k: seen.append(s) if R.to_act(s) is not None else None)
    return seen


def test_greedy_picks_the_same_action_from_candidates_as_from_the_legal_list():
    states = _positions(("random", "random"), 21, 120) + _positions(("greedy", "greedy"), 22, 160)
    movement = 0
    for s in states:
        quick = GreedyBot(seed=0).choose_action(R, s, None)
        full = GreedyBot(seed=0).choose_action(R, s, R.legal_actions(s))
        assert quick == full, (R.position(s), quick, full)
        movement += s.impulse is not None and s.impulse.segment == "movement"
    assert movement > 40            # the movement segments, where the blocks matter, were tried


def test_blocks_spell_out_the_candidates_in_order():
    for s in _positions(("greedy", "greedy"), 23, 60):
        spelt = []
        for item in R.candidate_blocks(s):
            spelt += item.actions() if isinstance(item, (MoveBlock, FaceBlock)) else [item]
        assert spelt == R.candidates(s)
        moves = [a for a in spelt if isinstance(a, Move)]
        # each move carries the path and MPs of its unit's one search: listed so, it is as legal as the
        # bare "move there by the cheapest path" (never refused for its path or its cost)
        for a in moves[:40]:
            assert R.is_legal(s, a) == R.is_legal(s, Move(a.side, a.unit, a.to)), a


def test_move_bound_is_never_beaten_by_a_move_of_its_unit():
    """The branch and bound of choose_action skips a unit whose bound cannot beat the best candidate:
    sound only if no move of the unit scores above its bound (the distance to its objective and the hexes
    it may still step through, 6.2.2-6.2.3, plus the 0.1 MP bonus)."""
    tried = 0
    for s in _positions(("random", "random"), 24, 150) + _positions(("greedy", "greedy"), 25, 150):
        if s.impulse is None or s.impulse.segment != "movement":
            continue
        bot = GreedyBot(seed=0)
        bot.choose_action(R, s, None)               # sets the decision's memo (moved units, overstacks)
        for blk in R.candidate_blocks(s):
            if isinstance(blk, MoveBlock):
                scores = [v for v, _ in bot.move_scores(R, s, blk)]
                assert max(scores, default=0) <= bot.move_bound(R, s, blk), (blk.unit, R.position(s))
                tried += bool(scores)
    assert tried > 20
