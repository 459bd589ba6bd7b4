"""The movement search's within-budget neighbour sets (engine.n20.game.reach._Within, what the reach cache
reads to know which hexes a search looked at, 6.2-6.7) on a board with Fieldworks (14.2): the rows it shares
with its map take the map's sets, and every hex's sets equal those made from the board's own steps."""
from engine.n20 import game as g
from engine.n20.game import reach as RC
from engine.n20.game.state import board_with_fieldworks


def test_within_sets_of_a_fieldworks_board_equal_fresh_ones():
    s = g.new_game("fuentes")
    tables = s.scenario.tables
    hexes = s.board.hexes
    board = board_with_fieldworks(s.board, (hexes[40], hexes[120]))
    assert board.base is s.board.base and board.terrain_changed
    shared = 0
    for road in (False, True):
        kept = RC._within(board, tables, road)
        fresh = RC._Within(RC._edges(board, tables), road)
        assert all(kept[h] == fresh[h] for h in hexes), road
        # the rows next to the two Redoubt hexes were made again; all the others came from the map's
        base = RC._within(board.base, tables, road)
        shared += sum(kept[h] is base[h] for h in hexes)
    assert 0 < shared < 2 * len(hexes)


def test_hand_worked_sets_of_a_hex():
    # a hex whose steps each cost 1 Movement Point (as every step of the Fuentes map does in its tables):
    # item 0 is empty (no step costs 0 points), item 1 holds all its steps' hexes, and there is no item 2
    s = g.new_game("fuentes")
    tables = s.scenario.tables
    w = RC._within(s.board, tables, False)
    h = s.board.hexes[len(s.board.hexes) // 2]
    row = RC._edges(s.board, tables)[h]
    assert all(c == 1 for _, c, _, _ in row)
    assert w[h] == (frozenset(), frozenset(b for b, _, _, _ in row))
