"""The game: set-up (Albuera scenario), turn and phases (2-3), actions, victory (6), records, bots."""
from collections import Counter
from dataclasses import replace
from functools import partial
import json

import pytest

from engine.core.errors import RecordError, RuleViolation
from engine.core.procedure import RandomDice, TypedDice, play
from engine.core.record import GameRecord
from engine.lob.bots import GreedyBot, make_bot
from engine.lob.protocol import LobRules
from engine.lob.actions import Action
from engine.lob.handlers import legal_actions, perform
from engine.lob.movement import move_cost
from engine.lob.setup import new_game
from engine.lob.state import Game, Setup
from engine.lob.records import Session, replay_record
from engine.lob.units import ART, CAV, INF


def do(g, action, dice=(), chooser=None):
    return play(partial(perform, g, action), dice=TypedDice(list(dice)), chooser=chooser or (lambda r: r.options[0])).result


def test_albuera_setup_as_printed():
    g = new_game()
    sides = Counter(u.side for u in g.units)
    assert sides == {"Allied": 22, "French": 17}
    where = Counter((u.side, u.area) for u in g.units)
    assert where[("French", "75")] == 6          # Girard's V Corps: 4 brigades, 2 batteries
    assert where[("Allied", "10")] == 4          # Stewart: 3 brigades and the British artillery
    assert where[("French", "25")] == 4          # Dellard, Schwitter, Bron, Eclat
    assert g.unit("F-Konopka").cav == "lancer" and g.unit("F-Konopka").rating == 4 and g.unit("F-Konopka").area == "19"
    assert g.unit("A-deGrey").cav == "heavy" and g.unit("A-deGrey").area == "15"
    assert g.morale_of("French") == 10 and g.morale_of("Allied") == 10
    assert g.player == "French" and g.turn == 1 and g.phase == "admin"


def test_optional_rules_2_3_4_change_the_order_of_battle():
    assert len(new_game(options=["kemmis"]).units) == 40
    assert new_game(options=["madden"]).unit("A-Madden").area == "6"
    g = new_game(options=["spanish-no-show"])
    assert Counter(u.side for u in g.units)["Allied"] == 16
    with pytest.raises(RuleViolation):
        new_game(options=["zeppelins"])


def test_option_1_bid_costs_morale():
    g = new_game(morale_bid={"French": 3})
    assert g.morale_of("French") == 7


def test_3_and_scenario_first_turn_command_points():
    g = do(new_game(), Action("end-admin"))
    assert g.phase == "command" and g.cp == 4                # French turn 1: 4 CPs, no roll
    g = do(g, Action("end-phase"))
    assert g.player == "Allied" and g.phase == "admin"
    g = do(g, Action("end-admin"))
    assert g.cp == 1                                         # Allies turn 1: 1 CP
    g = do(g, Action("end-phase"))
    assert g.turn == 2 and g.player == "French"
    g = do(g, Action("end-admin"), dice=[5])                 # d6 5 -> D3 3 -> +1 = 4
    assert g.cp == 4


def command(g=None):
    g = g or new_game()
    return do(g, Action("end-admin"))


def test_illegal_actions_change_nothing():
    g = command()
    before = g
    with pytest.raises(RuleViolation, match="4.2"):
        do(g, Action("activate", area="10"))                 # an Allied area on the French go
    with pytest.raises(RuleViolation, match="not been activated"):
        do(g, Action("move", units=("F-Brayer",), path=("25",)))
    with pytest.raises(RuleViolation):
        do(g, Action("toggle", units=("F-ResArt",)))         # admin-phase action in the command phase
    assert g == before and g.cp == 4


def test_4_2_2_movement_costs_and_terrain():
    g = command()
    brayer, bron, gun = g.unit("F-Brayer"), g.unit("F-Bron"), g.unit("F-1stArt")
    assert move_cost(g, brayer, ("67",)) == 2                # 1 + 1 stream (Albuera terrain 7)
    assert move_cost(g, brayer, ("67", "28")) == 3           # the 67-28 ford costs infantry nothing (8)
    assert move_cost(g, gun, ("67",)) == 1 + 1 + 2           # wood +1, stream +2 for artillery
    assert move_cost(g, g.unit("F-Konopka"), ("16",)) == 2   # bridge: +1 for cavalry (8)
    assert move_cost(g, g.unit("F-Konopka"), ("16",), attack=None) == 2
    assert move_cost(g, brayer, ("25",), end="approach:19") == 2
    with pytest.raises(RuleViolation, match="river"):
        move_cost(g, g.unit("F-Briche"), ("32", "4"))        # the river takes all movement (6)
    g = do(g, Action("activate", area="75"))
    with pytest.raises(RuleViolation, match="movement points"):
        do(g, Action("move", units=("F-1stArt",), path=("67",)))
    g2 = do(g, Action("move", units=("F-Brayer", "F-Veilande"), path=("67", "28") if False else ("25",)))
    assert g2.unit("F-Brayer").area == "25" and "F-Brayer" in g2.moved_in


def test_1_1_approach_rules():
    g = do(command(), Action("activate", area="75"))
    g = do(g, Action("move", units=("F-Brayer",), path=("25",), end="approach:19"))
    assert g.unit("F-Brayer").approach == "19"
    with pytest.raises(RuleViolation, match="approach"):
        do(g, Action("move", units=("F-Veilande",), path=("25",), end="approach:19"))   # occupied
    with pytest.raises(RuleViolation, match="open"):
        do(g, Action("move", units=("F-Veilande",), path=("25",), end="approach:65"))   # wood: no approach


def test_4_1_rally_removes_one_hit():
    g = command()
    g = g.with_units([replace(g.unit("F-Brayer"), hits=2)])
    g2 = do(g, Action("rally", units=("F-Brayer",)))
    assert g2.unit("F-Brayer").hits == 1 and g2.cp == 3
    with pytest.raises(RuleViolation):
        do(g2, Action("rally", units=("F-Brayer",)))         # once per turn
    with pytest.raises(RuleViolation, match="activated"):
        do(g2, Action("activate", area="75")) and do(do(g2, Action("activate", area="75")),
                                                      Action("move", units=("F-Brayer",), path=("25",)))


def test_4_2_1_fire_range_and_woods():
    g = do(command(), Action("activate", area="72"))
    with pytest.raises(RuleViolation, match="range"):
        do(g, Action("fire", units=("F-ResArt",), target="A-Colborne"))
    # 72 borders 32 across the river: Head (light cavalry, strength 1) may be shot at
    g2 = do(g, Action("fire", units=("F-ResArt",), target="A-Head"), dice=[6], chooser=lambda r: "hit")
    assert g2.unit("A-Head").hits == 2 and g2.unit("A-Head").eliminated
    assert g2.morale_of("Allied") == 9                       # eliminated by fire: -rating (4.2.1)
    with pytest.raises(RuleViolation):
        do(g2, Action("fire", units=("F-ResArt",), target="A-Otway"))   # fired already


def test_scenario_sudden_death_french_infantry_in_the_rear():
    g = command()
    g = g.with_units([replace(g.unit("F-Brayer"), area="3")])
    g = g.with_units([replace(u, area="1") for u in g.units if u.side == "Allied" and u.area == "3"])
    g = do(g, Action("activate", area="3"))
    g = do(g, Action("move", units=("F-Brayer",), path=("2",)))
    assert g.over and g.winner == "French"


def test_6_morale_zero_loses_and_both_zero_draw():
    g = command()
    g2 = do(replace(g, morale=(("Allied", 0), ("French", 3))), Action("end-phase"))
    assert g2.winner == "French"
    g3 = do(replace(g, morale=(("Allied", 0), ("French", 0))), Action("end-phase"))
    assert g3.winner == "draw"


def test_scenario_end_of_game_holding_albuera_and_28():
    g = command()
    g = replace(g, turn=25, player="Allied")
    g2 = do(g, Action("end-phase"))
    assert g2.over and g2.winner == "Allied"                 # Allies hold both at the set-up
    # French in Albuera, Allies on 28: shared -> higher morale
    g = g.with_units([replace(u, area=None, hits=u.rating + 1) for u in g.units if u.area == "Albuera"])
    g = g.with_units([replace(g.unit("F-Dulong"), area="Albuera")])
    g3 = do(replace(g, morale=(("Allied", 4), ("French", 6))), Action("end-phase"))
    assert g3.winner == "French" and "morale" in g3.reason


def test_attack_runs_the_combat_procedure_and_applies_it():
    # Briche (light cavalry 3) and Arenberg (light 2) in 17 attack the KGL (infantry 2) in the town.
    g = do(command(), Action("activate", area="17"))
    played = play(partial(perform, g, Action("attack", units=("F-Briche", "F-Arenberg"), target="Albuera")),
                  dice=RandomDice(3), chooser=lambda r: r.options[0])
    g2 = played.result
    assert any(e.rule.startswith("5") for e in played.events)
    assert {"F-Briche", "F-Arenberg"} <= g2.acted
    lost = (g.morale_of("French") - g2.morale_of("French"), g.morale_of("Allied") - g2.morale_of("Allied"))
    elim = [u for u in g2.units if u.area is None]
    assert sum(u.morale_value for u in elim if u.side == "French") >= lost[0] - 0
    assert g2.holder("Albuera") in ("French", "Allied")


def invariants(g: Game):
    seen = {}
    for u in g.units:
        assert 0 <= u.hits <= (1 if u.kind == ART else u.rating + 1)
        assert (u.area is None) == u.eliminated, u
        if u.area is None:
            continue
        seen.setdefault(u.area, set()).add(u.side)
        if u.approach is not None:
            assert u.kind == INF and g.board.has_approach(u.area, u.approach) and not u.square
        if u.square:
            assert u.kind == INF and not g.board.is_close(u.area)
        if u.kind == ART and g.board.is_close(u.area):
            assert not u.deployed
    assert all(len(s) == 1 for s in seen.values()), seen     # one side per area (1.1)
    borders = Counter(frozenset((u.area, u.approach)) for u in g.units if u.approach and u.area)
    assert all(c == 1 for c in borders.values())             # one infantry per approach
    elim = Counter()
    for u in g.units:
        if u.area is None:
            elim[u.side] += u.morale_value
    assert g.cp >= 0
    for ld in g.leaders:
        assert (ld.area is None) == (ld.status != "active")
        if ld.area is not None:
            assert seen.get(ld.area, {ld.side}) == {ld.side}      # never left standing among the enemy (7.1)


def bot_action(bot, g):
    """The bot's pick among the legal actions (the greedy bot lists its own candidates)."""
    rules = LobRules()
    return bot.choose_action(rules, g, None if isinstance(bot, GreedyBot) else rules.legal_actions(g))


def run_game(seed, bots=("random", "random"), limit=3000, options=()):
    s = Session.start(seed=seed, options=options)
    b = {"French": make_bot(bots[0], seed), "Allied": make_bot(bots[1], seed + 1)}
    dice = RandomDice(seed)
    n = 0
    while not s.state.over and n < limit:
        acts = legal_actions(s.state)
        a = bot_action(b[s.state.player], s.state)
        assert a in acts or a.kind == "end-phase"
        s.do(a, dice=dice, chooser=lambda r: b[r.player].choose(r))
        invariants(s.state)
        n += 1
    assert s.state.over, "a game must end by turn 25"
    return s


@pytest.mark.parametrize("seed", range(12))
def test_random_bot_games_keep_every_invariant(seed):
    run_game(seed)


@pytest.mark.parametrize("seed,options", [(1, ("leaders", "light-cavalry")), (2, ("setup", "rain")),
                                          (3, ("kemmis", "madden", "spanish-no-show", "leaders"))])
def test_random_bot_games_with_optional_rules(seed, options):
    s = run_game(seed, options=options)
    assert replay_record(s.record)[-1] == s.state


def test_option_6_free_setup():
    g = new_game(options=["setup"])
    assert g.phase == "setup" and g.player == "Allied"
    with pytest.raises(RuleViolation, match="west"):
        do(g, Action("place", units=("A-KGL",), area="25"))
    g2 = do(g, Action("place", units=("A-KGL",), area="16"))
    with pytest.raises(RuleViolation, match="Albuera"):
        do(g2, Action("end-setup"))                          # Albuera left empty
    g3 = do(g2, Action("place", units=("A-Myers",), area="Albuera"))
    g4 = do(g3, Action("end-setup"))
    assert g4.player == "French" and g4.phase == "setup"
    g5 = do(do(g4, Action("place", units=("F-Brayer",), area="65")), Action("end-setup"))
    assert g5.phase == "admin" and g5.player == "French" and g5.unit("F-Brayer").area == "65"


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12, 212))
def test_random_bot_games_keep_every_invariant_200(seed):
    run_game(seed)


def test_greedy_game_and_record_round_trip(tmp_path):
    s = run_game(5, ("greedy", "greedy"))
    path = tmp_path / "game.json"
    s.save(path)
    states = replay_record(GameRecord.load(path))
    assert states[-1] == s.state
    assert len(states) == len(s.states)
    # undo drops the last action; replaying the shortened record lands on the previous state
    before = s.states[-2]
    s.undo()
    assert s.state == before


def test_bad_records_are_refused(tmp_path):
    s = run_game(1)
    data = s.record.to_json()
    for i, ev in enumerate(data["events"]):
        if ev["answers"] and ev["answers"][0]["kind"] == "roll":
            ev["answers"][0]["value"] = 9                    # not a d6 face
            bad = i
            break
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(data))
    with pytest.raises(RecordError) as exc:
        replay_record(GameRecord.load(p))
    assert exc.value.index == bad
    p.write_text("{not json")
    with pytest.raises(RecordError):
        GameRecord.load(p)
    data = s.record.to_json()
    data["events"][0] = {"kind": "action", "action": {"type": "fly"}, "answers": []}
    p.write_text(json.dumps(data))
    with pytest.raises(RecordError, match="event 0"):
        replay_record(GameRecord.load(p))
