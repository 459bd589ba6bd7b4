"""A Napoleonic 20 game state is a value (issue 10.6): its derived indexes (scenario, board with Fieldworks,
units by id, occupants, hash) are made with it and never written afterwards; copies made by the fast
paths (evolve, with_units) carry the same indexes as a state built from scratch; states pickle by their
fields and rebuild their indexes where they are loaded; module-level caches are shared safely by games
played in several threads."""
import pickle
import re
import threading
from dataclasses import fields, replace
from pathlib import Path

from hypothesis import given, settings, strategies as st

from engine.n20.game import new_game, play_game
from engine.n20.game.protocol import N20Rules
from engine.n20.game.state import GameState, evolve, _FIELDS

RULES = N20Rules()
GAME = Path(__file__).resolve().parents[2] / "engine" / "n20" / "game"


def _fresh(s: GameState) -> GameState:
    return GameState(**{k: getattr(s, k) for k in _FIELDS})


def _same_index(a: GameState, b: GameState) -> None:
    assert a == b and hash(a) == hash(b)
    assert a.scenario is b.scenario
    assert a.board is b.board                      # the Fieldworks board comes from one bounded cache
    assert dict(a.by_id) == dict(b.by_id) and list(a.by_id) == list(b.by_id)
    assert dict(a.occupants) == dict(b.occupants)
    assert a._units_hash == b._units_hash and a._hash == b._hash


def _states(scenario="fuentes", seed=5, n=120):
    _, rec = play_game(scenario, bots=("random", "random"), seed=seed, max_actions=n)
    from engine.n20.game import replay_record
    return replay_record(rec)


def test_asking_a_state_writes_nothing_into_it():
    for s in _states()[::7]:
        before = dict(vars(s))
        RULES.legal_actions(s)
        hash(s), repr(s), s.to_json(), RULES.view(s, "allied").to_json()
        for u in s.units:
            RULES.legal_actions(s, u.id)
        after = vars(s)
        assert after.keys() == before.keys()
        assert all(after[k] is before[k] for k in before)


def test_fast_copies_carry_the_indexes_of_a_state_built_from_scratch():
    for s in _states("fuentes", 5) + _states("bussaco", 6):
        _same_index(s, _fresh(s))


def test_pickle_rebuilds_the_indexes():
    for s in _states()[::11]:
        s2 = pickle.loads(pickle.dumps(s))
        _same_index(s, s2)
        assert set(vars(s2)) == {f.name for f in fields(GameState)}


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_with_units_and_evolve_match_dataclasses_replace(data):
    s = new_game("fuentes", seed=1)
    ids = [u.id for u in s.units]
    picked = data.draw(st.lists(st.sampled_from(ids), max_size=5, unique=True))
    hexes = sorted(s.board.hexes)
    changes = {}
    for uid in picked:
        u = s.unit(uid)
        changes[uid] = replace(u, hex=data.draw(st.sampled_from(hexes)),
                               status=data.draw(st.sampled_from(["map", "broken", "due", "gone"])),
                               moved=data.draw(st.booleans()))
    fw = tuple(data.draw(st.lists(st.sampled_from(hexes), max_size=2, unique=True)))
    via_fast = evolve(s.with_units(changes), fieldworks=fw, turn=s.turn + 1)
    # with_units also counts a unit put on the map from off it (16.1: a new face-down piece to the enemy)
    counted = {k: replace(v, placed=s.unit(k).placed + 1) if v.status == "map" and s.unit(k).status != "map" else v
               for k, v in changes.items()}
    via_init = replace(s, units=tuple(counted.get(u.id, u) for u in s.units), fieldworks=fw, turn=s.turn + 1)
    _same_index(via_fast, via_init)


def test_no_lazy_caches_or_identity_keys_in_the_game_package():
    # issue 10.6: nothing cached inside a value after it is made, no memo key from id()
    for p in sorted(GAME.glob("*.py")):
        text = p.read_text(encoding="utf-8")
        assert "cached_property" not in text, p.name
        assert "__dict__.setdefault" not in text, p.name
        assert not re.search(r"(?<![\w.])id\(", text), p.name


def test_games_in_threads_play_as_alone():
    keys = [("fuentes", 11), ("bussaco", 12), ("fuentes", 13), ("bussaco", 14)]
    alone = {k: play_game(k[0], bots=("greedy", "random"), seed=k[1])[1].to_json() for k in keys}
    from engine.n20.game import memo
    memo.clear()
    got: dict = {}

    def run(k):
        got[k] = play_game(k[0], bots=("greedy", "random"), seed=k[1])[1].to_json()
    threads = [threading.Thread(target=run, args=(k,)) for k in keys]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == alone
