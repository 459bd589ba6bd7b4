"""The rules the Dürenstein game gained after the first protocol version: leaders' defensive fire (6.3.5),
wounded leaders coming back (6.5 A), the Rear Guard (9.2 E-G), overstacks resolved in the next Movement
Segment (4.1.10 A) and the optional rules offered as game options (11.1, 11.2, 11.4, 11.8).

Each position is the shipped set-up with pieces moved by hand; dice are typed so every number is worked
out in the comments (Fire Combat Table column = total FF, row = d10 + DRMs; see data/tbf/tables.yaml)."""
import json
from dataclasses import replace

import pytest

from engine.core.errors import RuleViolation, VedetteError
from engine.core.procedure import TypedDice
from engine.tbf.game.actions import Activate, CavalryRetreat, EndSegment, Fire, Melee, Move, Pass
from engine.tbf.game.options import GAME_OPTIONS
from engine.tbf.game.protocol import TbfRules
from engine.tbf.game.state import Impulse, UnitTurn
from engine.tbf.scenario import default_scenario

SC = default_scenario()
R = TbfRules()
N, NE, SE, S = 0, 1, 2, 3


from .test_tbf_game import canon, refused  # noqa: E402  (a refusal names its rule, the state unchanged)


def with_game(s, **pieces):
    """Move pieces: name=(hex, facing) or name=hex (underscores stand for dashes)."""
    g = s.game
    for pid, v in pieces.items():
        pid = pid.replace("_", "-")
        h, f = v if isinstance(v, tuple) else (v, g.piece(pid).facing)
        g = g.with_piece(pid, hex=h, facing=f)
    return replace(s, game=g)


def by_rule(answers, default=1):
    """Dice that answer each roll by its rule (``answers[rule]``: one value or a list used in turn)."""
    left = {k: list(v) if isinstance(v, (list, tuple)) else [v] for k, v in answers.items()}

    def dice(req):
        got = left.get(req.rule)
        if got:
            return got.pop(0) if len(got) > 1 else got[0]
        return 2 if req.die == "2d6" else default
    return dice


# ------------------------------------------------------------------------------------------------
# 6.3.5: a leader alone in his hex fires defensively at FF 1, then falls back two hexes or is captured
# ------------------------------------------------------------------------------------------------
def leader_fire_position(**pieces):
    # a French impulse in its Defensive Fire Segment: 4l-1 (activated) in 2115 with Gaindorge; the
    # Column V leader alone in 2114, next to it
    s = with_game(R.new_game(), **{"4l-1": "2115", "gaindorge": "2115", "kolloredo": "2114", **pieces})
    return replace(s, to_move="french", impulse=Impulse("french", "gaindorge", "defensive_fire", ("gaindorge",),
                                                         ("4l-1",)))


def test_lone_leader_fires_defensively_and_falls_back():
    s = leader_fire_position()
    shot = Fire("coalition", ("kolloredo",), "2115")
    assert shot in R.legal_actions(s)
    # FF 1 -> column 1; 2115 is Level 0 (no DRM), one unit there (no stacked DRM): d10 8 -> row 8 = F
    s2, ev = R.apply(s, shot, dice=TypedDice([8]))
    assert any(e.get("label", "").startswith("strength 1, column 1, d10 8 +0 = 8: F") for e in ev["answers"])
    assert s2.game.piece("4l-1").status == "fatigued"
    # 6.3.5: then two hexes back, each step the free neighbour farthest from the French: 2114 -> 2213 -> 2313
    k = s2.game.piece("kolloredo")
    assert k.hex == "2313" and k.status == "normal" and SC.board.grid.distance("2114", k.hex) == 2
    assert R.invariants(s2) == []


def test_leader_with_troops_or_in_his_own_impulse_does_not_fire():
    s = leader_fire_position(cv_1="2114")                 # a Column V battalion shares his hex
    assert Fire("coalition", ("kolloredo",), "2115") not in R.legal_actions(s)
    e = refused(s, Fire("coalition", ("kolloredo",), "2115"), "6.3.5")
    assert "alone" in e.message
    # offensive fire: Gaindorge in his own French impulse may not fire at all (6.3.5: defensively only)
    s = with_game(R.new_game(), **{"4l-1": "2115", "gaindorge": "2213", "ci-1": "2114"})
    s = replace(s, to_move="french", impulse=Impulse("french", "gaindorge", "offensive_fire", ("gaindorge",),
                                                      ("4l-1",)))
    refused(s, Fire("french", ("gaindorge",), "2114"), "6.3.5")


def test_surrounded_leader_is_captured_after_firing():
    # Kutusov alone in 2810 (Column V moved away), every neighbour held by a French unit: after his
    # shot he cannot fall back and is captured (6.3.5), so the French win at once (10.1 B)
    away = {u: "3420" for u in ("kolloredo", "cv-1")}
    ring = {"4l-1": "2710", "100-1": "2809", "100-2": "2910", "100-3": "2911", "103-1": "2811", "103-2": "2711"}
    s = with_game(R.new_game(), **away, **ring)
    s = replace(s, to_move="french", impulse=Impulse("french", "gaindorge", "defensive_fire", ("gaindorge",),
                                                      ("4l-1",)))
    # d10 1 -> row 1 of column 1: no effect on 4l-1
    s2, _ = R.apply(s, Fire("coalition", ("kutusov",), "2710"), dice=TypedDice([1]))
    assert s2.game.piece("kutusov").status == "captured" and s2.game.piece("kutusov").hex is None
    oc = R.outcome(s2)
    assert (oc.winner, oc.level, oc.rule) == ("french", "strategic", "10.1 B")


# ------------------------------------------------------------------------------------------------
# 6.5 A: a wounded leader is out for 2d6 turns and then comes back with his troops
# ------------------------------------------------------------------------------------------------
def wound_position():
    # French offensive fire: 4l-1 and 4l-2 in 2115 facing N, 4l-3 in 2013 facing SE, all at 2114 where
    # ci-1 stands with Miloradovich
    s = with_game(R.new_game(), **{"4l-1": ("2115", N), "4l-2": ("2115", N), "4l-3": ("2013", SE),
                                   "gaindorge": "2115", "ci-1": "2114", "miloradovich": "2114"})
    return replace(s, to_move="french", impulse=Impulse("french", "gaindorge", "offensive_fire", ("gaindorge",),
                                                         ("4l-1", "4l-2", "4l-3")))


def test_wounded_leader_rolls_his_turns_out():
    s = wound_position()
    # FF 3 + 3 + 3 = 9 -> column 9; d10 10 +0 -> row 10 = E: ci-1 eliminated; Miloradovich then checks
    # (6.3.9): a 6, then a 5 = wounded (6.5 A); 2d6 = 7 turns out, wounded on turn 1 -> back on turn 1 + 7 = 8
    s2, ev = R.apply(s, Fire("french", ("4l-1", "4l-2", "4l-3"), "2114"), dice=TypedDice([10, 6, 5, 7]))
    assert s2.game.piece("ci-1").status == "eliminated"
    assert s2.game.piece("miloradovich").status == "wounded" and s2.game.piece("miloradovich").hex is None
    assert s2.wounded == (("miloradovich", 8),)
    assert [e["rule"] for e in ev["answers"] if e["kind"] == "roll"] == ["6.3.7 D", "6.5 A", "6.5 A", "6.5 A"]
    assert R.invariants(s2) == []
    # Column I has no leader of its own left: it activates as a leaderless command (6.1.4)
    assert "I" in R.queries.leaderless(s2, "coalition")


def test_wounded_leader_comes_back_in_the_reinforcement_phase():
    s = R.new_game()
    s = replace(s, game=s.game.with_piece("miloradovich", hex=None, status="wounded"),
                wounded=(("miloradovich", 2),))
    s1, _ = R.apply(s, Pass("coalition"), seed=1)
    s2, ev = R.apply(s1, Pass("french"), seed=1)
    # turn 2's Reinforcement Phase: his turns are over; he is set down with a Column I unit, the first of
    # their hexes (2411, 2412, 2511, 2512, 2513) being the default choice
    assert s2.turn == 2 and s2.wounded == ()
    m = s2.game.piece("miloradovich")
    assert (m.hex, m.status, m.activated) == ("2411", "normal", False)
    assert any(e["rule"] == "6.5 A" and e["kind"] == "choose" for e in ev["answers"])
    # one who is due on turn 3 is still out on turn 2
    s = replace(s, wounded=(("miloradovich", 3),))
    s1, _ = R.apply(s, Pass("coalition"), seed=1)
    s2, _ = R.apply(s1, Pass("french"), seed=1)
    assert s2.game.piece("miloradovich").hex is None and s2.wounded == (("miloradovich", 3),)


def test_wounded_list_invariant():
    s = R.new_game()
    bad = replace(s, game=s.game.with_piece("strik", status="wounded"))
    assert any(x.startswith("6.5 A") for x in R.invariants(bad))


# ------------------------------------------------------------------------------------------------
# 9.2 E-G: the Rear Guard left as Column II musters
# ------------------------------------------------------------------------------------------------
def muster(picks):
    """Turn 1 ends with two passes; turn 2's Column II roll is a 6 (range 6 on turn 2, 9.2 B)."""
    s1, _ = R.apply(R.new_game(), Pass("coalition"), seed=1)
    it = iter(picks)

    def chooser(req):
        return next(it) if req.rule == "9.2 E" else req.options[0]
    # dice: Column II 6, Column III 1 (no muster), initiative 1 and 3
    s2, ev = R.apply(s1, Pass("french"), dice=TypedDice([6, 1, 1, 3]), chooser=chooser)
    return s2, ev


def test_short_rear_guard_raises_the_coalition_thresholds():
    s, _ = muster(["cii-1", "cii-2", "cii-3", "done", "cii-cav1", "cii-cav2"])
    # 3 battalions and 2 cavalry instead of 4 and 2: (4 - 3) + (2 - 2) = 1 short (9.2 G)
    assert s.rear_guard == ("cii-1", "cii-2", "cii-3", "cii-cav1", "cii-cav2") and s.rear_guard_short == 1
    for u in s.rear_guard:                                         # set down inside rows XX01-XX06
        assert SC.board.grid.parse(s.game.piece(u).hex)[1] <= 6
    assert R.invariants(s) == []
    # six of Gazan's battalions lost is a Coalition Tactical Victory (10.2.3.2: 6) with the full Rear
    # Guard; one short, it needs 6 + 1 = 7
    g = s.game
    for u in ("100-1", "100-2", "100-3", "103-1", "103-2", "103-3"):
        g = g.with_piece(u, hex=None, status="eliminated")
    assert R.queries.victory(replace(s, game=g, rear_guard_short=0))["coalition_level"] == "tactical"
    assert R.queries.victory(replace(s, game=g))["coalition_level"] == "none"
    g7 = g.with_piece("4l-1", hex=None, status="eliminated")
    assert R.queries.victory(replace(s, game=g7))["coalition_level"] == "tactical"


def test_full_rear_guard_is_the_default_and_stays_in_rows_01_to_06():
    s, ev = muster(["cii-1", "cii-2", "cii-3", "cii-4", "cii-cav1", "cii-cav2"])
    assert s.rear_guard_short == 0                                  # 9.2 F: the victory conditions stand
    # the first option of every question is a unit: the bots' default leaves the full Rear Guard
    asks = [e for e in ev["answers"] if e["rule"] == "9.2 E" and e["kind"] == "choose"]
    assert len(asks) == 6
    # in Dokhturov's activation (Level 2/3 roll 6), cii-1 (in 0805) moves only inside rows 01-06
    s = replace(s, to_move="coalition")
    s, _ = R.apply(s, Activate("coalition", "dokhturov"), dice=TypedDice([6]))
    assert "cii-1" in s.impulse.units
    moves = {a.to for a in R.legal_actions(s) if isinstance(a, Move) and a.unit == "cii-1"}
    assert moves and all(SC.board.grid.parse(h)[1] <= 6 for h in moves)
    free = {a.to for a in R.legal_actions(s) if isinstance(a, Move) and a.unit == "cii-5"}
    assert any(SC.board.grid.parse(h)[1] > 6 for h in free)        # not in the Rear Guard: no limit
    # 0807 (row 07) is two Level 2 hexes away: in reach of a free battalion, refused to the Rear Guard
    assert "0807" in free
    e = refused(s, Move("coalition", "cii-1", "0807"), "9.2 G")
    assert "XX01-XX06" in e.message


# ------------------------------------------------------------------------------------------------
# 4.1.10 A: an overstack left by combat must be gone before the side's next Movement Segment is over
# ------------------------------------------------------------------------------------------------
def test_overstack_must_be_resolved_before_the_movement_segment_ends():
    s, _ = R.apply(R.new_game(), Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    # ci-1 (NOV) pushed by a retreat into 2412 with ci-2 (POD) and ci-5 (NOV): three battalions of two
    # regiments break 4.1.1 A; the overstack came from combat (4.1.8 A) and still stands
    s = replace(with_game(s, ci_1="2412"), overstack_ok=("2412",))
    e = refused(s, EndSegment("coalition"), "4.1.10 A")
    assert "2412" in e.message
    assert EndSegment("coalition") not in R.legal_actions(s)
    s2, _ = R.apply(s, Move("coalition", "ci-1", "2312"), seed=0)   # one battalion leaves: resolved
    assert s2.overstack_ok == () and R.is_legal(s2, EndSegment("coalition"))


def test_overstack_of_units_not_in_the_activation_waits_for_4_1_10_b():
    s, _ = R.apply(R.new_game(), Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    # Column V units (not activated by Miloradovich) overstacked in 2810: they cannot move in this
    # segment, so it may end; they check at the end of the Activation Phase instead (4.1.10 B)
    s = replace(with_game(s, cv_2="2810"), overstack_ok=("2810",))
    assert R.is_legal(s, EndSegment("coalition"))


def test_greedy_bot_resolves_the_overstack():
    s, _ = R.apply(R.new_game(), Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    s = replace(with_game(s, ci_1="2412"), overstack_ok=("2412",))
    bot = R.bots()["greedy"](seed=0)
    a = bot.choose_action(R, s, R.legal_actions(s))
    assert isinstance(a, Move) and R.invariants(R.apply(s, a, seed=0)[0]) == []


# ------------------------------------------------------------------------------------------------
# 11.0: optional rules as game options
# ------------------------------------------------------------------------------------------------
def test_options_listed_and_unknown_ones_refused():
    assert set(R.options()) == set(GAME_OPTIONS) == {"9.1", "11.1", "11.2", "11.4", "11.8"}
    s = R.new_game(options=["11.8", "11.1"])
    assert s.options == ("11.1", "11.8") and R.record_options(s) == {"options": ["11.1", "11.8"]}
    with pytest.raises(VedetteError, match="unknown option '11.3'"):
        R.new_game(options=["11.3"])
    with pytest.raises(VedetteError, match="field options"):
        R.new_game(options={"options": "11.1"})


def dragoon_position(options, moved=False):
    # a French impulse, Offensive Fire: drag-3 (a 9.4 A start unit) in 2115 facing N, ci-1 in 2114 (N of it, in its front)
    s = with_game(R.new_game(options=options), drag_3=("2115", N), gazan="2115", ci_1="2114")
    book = (UnitTurn("drag-3", mp=1, moved=True),) if moved else ()
    return replace(s, to_move="french", impulse=Impulse("french", "gazan", "offensive_fire", ("gazan",), ("drag-3",),
                                                         book=book))


def test_cavalry_fire_only_with_11_1():
    refused(dragoon_position(()), Fire("french", ("drag-3",), "2114"), "6.3.2 D")
    s = dragoon_position(("11.1",))
    assert Fire("french", ("drag-3",), "2114") in R.legal_actions(s)
    # red FF 1 -> column 1; Level 0 target: d10 8 -> row 8 = F
    s2, _ = R.apply(s, Fire("french", ("drag-3",), "2114"), dice=TypedDice([8]))
    assert s2.game.piece("ci-1").status == "fatigued"
    # 11.1 C: it moved this segment: 8 - 1 = 7 -> row 7 = R (ci-1 retreats one hex instead)
    s3, ev = R.apply(dragoon_position(("11.1",), moved=True), Fire("french", ("drag-3",), "2114"),
                     dice=TypedDice([8]), chooser=lambda r: r.options[-1] if r.rule == "6.3.8" else r.options[0])
    assert any("d10 8 -1 = 7: R" in e.get("label", "") for e in ev["answers"])
    assert s3.game.piece("ci-1").status == "normal" and s3.game.piece("ci-1").hex != "2114"


def ammo_position(turn):
    # turn 6 or later with a Coalition battalion on the road west of Dürenstein (0412): 4l-1 and 4l-2
    # (Gazan's division) fire from 2115 at ci-1 in 2114
    s = with_game(R.new_game(options=["11.2"]), **{"4l-1": ("2115", N), "4l-2": ("2115", N), "ci-1": "2114",
                                                   "ci-6": "0412", "gaindorge": "2115"})
    s = replace(s, game=replace(s.game, turn=turn))
    return replace(s, to_move="french", impulse=Impulse("french", "gaindorge", "offensive_fire", ("gaindorge",),
                                                         ("4l-1", "4l-2")))


def test_ammunition_shortage_halves_gazans_infantry():
    fire = Fire("french", ("4l-1", "4l-2"), "2114")
    # ammunition d6 3 (3-6 short, 11.2 B): FF 3 // 2 + 3 // 2 = 2 -> column 2; d10 5 -> row 5 col 2 = '-'
    _, ev = R.apply(ammo_position(6), fire, dice=TypedDice([3, 5]))
    labels = [e.get("label", "") for e in ev["answers"]]
    assert [e["rule"] for e in ev["answers"] if e["kind"] == "roll"] == ["11.2 B", "6.3.7 D"]
    assert any(x.startswith("strength 2, column 2") for x in labels)
    # a 2 keeps full FF: 3 + 3 = 6 -> column 6
    _, ev = R.apply(ammo_position(6), fire, dice=TypedDice([2, 5]))
    assert any(x.startswith("strength 6, column 6") for x in (e.get("label", "") for e in ev["answers"]))
    # before turn 6 there is no roll at all (11.2 A)
    _, ev = R.apply(ammo_position(5), fire, dice=TypedDice([5]))
    assert [e["rule"] for e in ev["answers"] if e["kind"] == "roll"] == ["6.3.7 D"]


def test_column_iv_musters_with_11_4_and_moves_the_thresholds():
    def end_turn_5(options):
        s = R.new_game(options=options)
        s = replace(s, game=replace(s.game, turn=5))
        s1, _ = R.apply(s, Pass("coalition"), seed=1)
        return R.apply(s1, Pass("french"), dice=by_rule({"11.4.1": 6, "9.6.2 A": 1, "9.6.2": 1}))
    s, ev = end_turn_5(["11.4"])
    # 11.4.1: turn 6's range (provisional) is a 6: Column IV musters on or next to 3001
    assert "optional_11.4" in s.game.flags
    col = [u for u, d in SC.units.items() if d.command == "IV"]
    g = SC.board.grid
    assert all(s.game.piece(u).hex and g.distance(s.game.piece(u).hex, "3001") <= 3 for u in col + ["bagration"])
    assert R.invariants(s) == []
    # 11.4.2: two more French battalions for each level: 6 Gazan battalions no longer make it Tactical
    gg = s.game
    for u in ("100-1", "100-2", "100-3", "103-1", "103-2", "103-3"):
        gg = gg.with_piece(u, hex=None, status="eliminated")
    assert R.queries.victory(replace(s, game=gg))["coalition_level"] == "none"
    assert R.queries.victory(replace(s, game=gg, options=()))["coalition_level"] == "tactical"
    plain, _ = end_turn_5([])
    assert "optional_11.4" not in plain.game.flags


def cavalry_retreat_position(options=("11.8",)):
    # a Coalition impulse: ci-1 in 2114 facing S, drag-1 in 2115 (S of it, in its front) on Level 0
    s = with_game(R.new_game(options=list(options)), ci_1=("2114", S), drag_1=("2115", N))
    s, _ = R.apply(s, Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    s, _ = R.apply(s, EndSegment("coalition"), seed=0)
    assert s.impulse.segment == "defensive_fire" and R.to_act(s) == "french"
    return s


def test_cavalry_retreat_before_combat_with_11_8():
    s = cavalry_retreat_position()
    backs = [a for a in R.legal_actions(s) if isinstance(a, CavalryRetreat)]
    assert backs and all(a.unit == "drag-1" and len(a.path) == 2 for a in backs)
    s2, _ = R.apply(s, backs[0], seed=0)
    d = s2.game.piece("drag-1")
    assert d.hex == backs[0].path[-1] and SC.board.grid.distance(d.hex, "2115") <= 2
    refused(s2, backs[0], "11.8 B")                          # once per unit
    # after a defensive shot it is too late (11.8 B: at the start of the segment)
    late = replace(s, impulse=replace(s.impulse, defensive_fired=("4l-1",)))
    refused(late, backs[0], "11.8 B")
    plain = cavalry_retreat_position(())
    assert not any(isinstance(a, CavalryRetreat) for a in R.legal_actions(plain))
    refused(plain, backs[0], "11.8")
    assert R.parse_action(R.format_action(backs[0])) == backs[0]


def test_cli_new_with_options(tmp_path):
    from engine.cli import main
    rec = tmp_path / "g.json"
    assert main(["tbf", "new", "--options", "11.1,11.8", "--record", str(rec)]) == 0
    assert json.loads(rec.read_text())["options"] == {"options": ["11.1", "11.8"]}
    assert main(["tbf", "new", "--options", "11.9", "--record", str(tmp_path / "h.json")]) == 2


# ------------------------------------------------------------------------------------------------
# Invariants with every option on, and the speed work changing no result
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [3, 4])
def test_random_games_with_every_option_break_no_invariant(seed):
    from engine.core.game import play_game

    def watch(state, n):
        bad = R.invariants(state)
        assert not bad, f"seed {seed} action {n}: {bad[:3]}"
    # whole games, so the options that start on turn 6 (11.2 ammunition, 11.4 Column IV) are played too
    final, _ = play_game(R, ("random", "random"), options=sorted(GAME_OPTIONS), seed=seed, max_actions=20000,
                         record=False, on_action=watch)
    oc = R.outcome(final)
    assert oc is not None and oc.rule.startswith("10.")
    if final.turn == 13:
        # 11.4.1: Column IV rolls from turn 6 and musters at the latest on turn 12 (range 1-6, our "auto")
        assert "optional_11.4" in final.game.flags


def test_greedy_game_plays_the_stored_record_again():
    """The seed-4 greedy game played now makes exactly the stored record (every die, choice and action):
    the caches behind the game's speed change no result."""
    from pathlib import Path
    from engine.core.game import play_game
    from engine.core.record import GameRecord
    path = Path(__file__).resolve().parents[2] / "data" / "records" / "tbf_durenstein_greedy_seed4.json"
    stored = GameRecord.load(path)
    _, rec = play_game(R, ("greedy", "greedy"), seed=4, max_actions=3000)
    assert json.dumps(list(rec.events), sort_keys=True, default=str) == \
        json.dumps(list(stored.events), sort_keys=True, default=str)
