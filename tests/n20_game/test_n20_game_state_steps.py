"""The states an action makes on its way (issues 10, 16): the start of the reaction (6.4 moved marks off)
and combat (9.9.8 exhausted marks off) phases change the marked units only, through with_units, and give
the same value as the whole units tuple made again; a state that is only a step on the way takes no place
in the memo, and what with_units carries to a state waits beside the memo until that state asks."""
from dataclasses import replace

from engine.n20.game import memo, play_game, replay_record
from engine.n20.game import phases as P
from engine.n20.game.state import GameState, evolve, with_units, _FIELDS

_STATES = None


def _states():
    global _STATES
    if _STATES is None:
        _, rec = play_game("fuentes", bots=("random", "random"), seed=3, max_actions=160)
        _STATES = replay_record(rec)
    return _STATES


def _same(a: GameState, b: GameState) -> None:
    fresh = GameState(**{k: getattr(a, k) for k in _FIELDS})
    for x in (b, fresh):
        assert a == x and hash(a) == hash(x)
        assert dict(a.by_id) == dict(x.by_id) and dict(a.places) == dict(x.places)
        assert dict(a.occupants) == dict(x.occupants) and a._units_hash == x._units_hash


def test_entering_reaction_and_combat_equal_the_whole_units_made_again():
    seen = 0
    for s in _states():
        if s.step != "movement" or s.over:
            continue
        # what the two phase starts did before: one evolve with every unit made again
        marked = tuple(replace(u, moved=True) if i % 3 == 0 else u for i, u in enumerate(s.units))
        s2 = evolve(s, units=marked)
        old_reaction = evolve(s2, step="reaction", reacted=(),
                              units=tuple(replace(u, moved=False, mp_left=0) if u.moved or u.mp_left else u
                                          for u in s2.units))
        _same(P._enter_reaction(s2), old_reaction)
        tired = evolve(old_reaction, units=tuple(replace(u, exhausted=True) if i % 4 == 1 else u
                                                 for i, u in enumerate(old_reaction.units)))
        if not tired.night:
            old_combat = evolve(tired, step="combat", declared=None, done_battles=(),
                                units=tuple(replace(u, exhausted=False) if u.exhausted else u for u in tired.units))
            _same(P._enter_combat(tired), old_combat)
        seen += 1
    assert seen >= 3


def _movers(s):
    # the phasing side's units on the map outside garrison hexes (9.4.4: a garrison hex carries nothing over)
    return [u for u in s.units if u.status == "map" and s.scenario.units[u.id].side == s.player
            and u.hex not in s.board.garrisons]


def _movement_state():
    return next(x for x in _states() if x.step == "movement" and not x.over and _movers(x))


def test_a_state_on_the_way_takes_no_place_in_the_memo():
    memo.clear()
    s = _movement_state()
    side = s.player
    uid = _movers(s)[0].id
    enemy = "allied" if side == "french" else "french"
    value = memo.memo(s, ("on_map", enemy), lambda: ("the enemy units",))
    u = s.unit(uid)
    moved = {uid: replace(u, moved=not u.moved)}
    step = with_units(s, moved)                   # one side's unit changed: the enemy's entries carry over
    assert step not in memo._table and step in memo._carried
    again = with_units(step, {uid: replace(step.unit(uid), fought=not u.fought)})   # carried on from a carried one
    assert again not in memo._table
    # the first question of the state finds the carried value (compute not called) and takes its place then
    assert memo.memo(again, ("on_map", enemy), lambda: 1 / 0) is value
    assert again in memo._table and again not in memo._carried
    quiet = with_units(s, moved, carry=False)
    assert quiet == step and quiet in memo._carried       # equal states share entries; carry=False adds none
    memo.clear()
    assert not memo._table and not memo._carried


def test_carried_values_are_bounded():
    memo.clear()
    s = _movement_state()
    side = s.player
    enemy = "allied" if side == "french" else "french"
    memo.memo(s, ("on_map", enemy), lambda: ())
    mine = _movers(s)
    for k in range(3 * memo._CARRY_SIZE):
        u = mine[k % len(mine)]
        with_units(s, {u.id: replace(u, fatigue=(k // len(mine)) + 1, moved=bool(k % 2))})
    assert len(memo._carried) <= memo._CARRY_SIZE
    memo.clear()
