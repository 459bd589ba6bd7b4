"""Live games (issue 28, dashboards/play/live.py): the one undo policy, seats for people and bots, a bot
that runs past its budget, watching two bots, and what each side's page may see (the per-side view
mechanism, on a dice race that hides each runner's square from the other side)."""
from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "core"))
import race_game  # noqa: E402  (registers the "race" system)

from dashboards.play import live  # noqa: E402
from dashboards.play.live import Refused, undo_plan  # noqa: E402
from dashboards.play.model import GamePlayModel  # noqa: E402
from dashboards.server.background import OverBudget  # noqa: E402
from dashboards.server.storage import OWNER, GameStore  # noqa: E402
from engine.core.game import register  # noqa: E402
from engine.core.record import GameRecord  # noqa: E402
from race_game import RaceAction, RaceRules  # noqa: E402


@pytest.fixture
def store(tmp_path):
    return GameStore(tmp_path / "games.sqlite3")


# --------------------------------------------------------------------------------------------------
# The undo policy, worked out on a made-up game: who acts after each event is written down
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _St:
    to_act: str | None
    hidden: int = 0


class _Rules:
    sides = ("a", "b")

    def to_act(self, s):
        return s.to_act

    def hides(self, s):
        return bool(s.hidden)

    def view(self, s, side):
        return replace(s, hidden=0)

    def state_to_json(self, s):
        return {"secret": list(range(s.hidden))}


def _ev(side, dice=False):
    answers = [{"kind": "roll", "rule": "R1", "label": "move", "value": 3}] if dice else []
    return {"kind": "action", "rule": "R", "side": side, "action": {}, "answers": answers}


def _plan(events, after, seats=None, actor="a", live_=True, hidden=None):
    rec = GameRecord(game="x", scenario="s", events=tuple(events))
    hidden = hidden or [0] * (len(events) + 1)
    states = [_St("a", hidden[0])] + [_St(t, h) for t, h in zip(after, hidden[1:])]
    return undo_plan(_Rules(), rec, states, seats or {}, actor, live_)


def test_a_side_takes_back_its_own_action_while_it_still_has_the_move():
    assert _plan([_ev("a")], ["a"]) == 1


def test_not_once_dice_were_rolled():
    with pytest.raises(Refused, match="dice decided it"):
        _plan([_ev("a", dice=True)], ["a"])


def test_not_once_the_turn_passed_to_the_other_player():
    with pytest.raises(Refused, match="turn passed to the b player"):
        _plan([_ev("a")], ["b"])


def test_not_the_other_sides_action():
    with pytest.raises(Refused, match="the b player's"):
        _plan([_ev("a"), _ev("b")], ["b", "b"])


def test_against_a_bot_its_replies_go_back_with_the_move():
    # a moves (the turn passes to the bot), the bot answers twice, a has the move again: three events back
    assert _plan([_ev("a"), _ev("b"), _ev("b")], ["b", "b", "a"], seats={"b": "greedy"}) == 3


def test_against_a_bot_not_when_its_replies_rolled_dice():
    with pytest.raises(Refused, match="dice decided it"):
        _plan([_ev("a"), _ev("b", dice=True)], ["b", "a"], seats={"b": "greedy"})


def test_not_when_it_showed_hidden_information():
    # before the action the other side could not see 3 things, after it only 1: something was shown
    with pytest.raises(Refused, match="hidden information"):
        _plan([_ev("a")], ["a"], hidden=[3, 1])


def test_hotseat_takes_back_the_last_action_whatever_it_was():
    assert _plan([_ev("a"), _ev("b", dice=True)], ["b", "a"], actor=OWNER, live_=False) == 1


# --------------------------------------------------------------------------------------------------
# Seats and bots
# --------------------------------------------------------------------------------------------------
def test_against_a_bot_the_bot_replies_on_the_server(store):
    m = GamePlayModel(store, system="race")
    m.new("short", seed=3, seats={"blue": "greedy"})
    assert m.act(RaceAction("roll", "red")) or m.answer("stay")            # a 1 asks red: stay or back (R2)
    assert [e["side"] for e in m.events] == ["red", "blue"]              # the bot answered at once (tests)
    assert m.to_act == "red" and m.may_act() and not m.may_act("blue")
    with pytest.raises(Refused, match="played by the greedy bot"):
        m.game.check_actor(OWNER, "blue")                                         # not even the owner plays a bot's side


def test_a_bot_seat_is_refused_for_a_side_whose_link_a_player_opened(store):
    owner = GamePlayModel(store, system="race")
    gid = owner.new("short", seed=1)
    blue = GamePlayModel(store, system="race")
    blue.open(gid, key=store.keys(gid)["blue"])
    assert not owner.set_seat("blue", "greedy") and "held by a player" in owner.refusal
    assert owner.seats == {} and store.load(gid).seats == {}
    assert owner.set_seat("red", "random") and store.load(gid).seats == {"red": "random"}
    assert not blue.set_seat("red", None) and "owner's link" in blue.refusal


def test_a_bot_past_its_budget_plays_a_random_legal_move_and_says_so(store, monkeypatch):
    def over(work):
        raise OverBudget("stopped: past its budget of 10 s")
    monkeypatch.setattr(live.HUB, "think", over)
    m = GamePlayModel(store, system="race")
    m.new("short", seed=2, seats={"blue": "greedy"})
    assert m.act(RaceAction("roll", "red")) or m.answer("stay")
    assert len(m.events) == 2 and m.events[1]["side"] == "blue"
    assert "past its budget" in m.message and "random legal move" in m.message


def test_two_bots_start_paused_and_step_one_action_at_a_time(store):
    m = GamePlayModel(store, system="race")
    gid = m.new("short", seed=4, seats={"red": "random", "blue": "random"})
    assert m.snap.paused and m.events == []
    assert m.step() is not False and len(m.events) == 1
    assert m.step() is not False and len(m.events) == 2
    assert not GamePlayModel(store, system="race").step() and len(store.load(gid).events) == 2
    assert m.pause(False)
    assert m.rules.outcome(m.state) is not None                           # unpaused: the bots play it out


def test_the_bots_move_is_the_one_made_through_the_session_and_saved_once(store):
    m = GamePlayModel(store, system="race")
    gid = m.new("short", seed=5, seats={"blue": "random"})
    for _ in range(4):
        if m.to_act == "red":
            m.act(RaceAction("roll", "red"))
            while m.pending is not None:
                m.answer(m.pending.request.options[0])
    saved = store.load(gid).events
    assert tuple(m.events) == saved and len({e["side"] for e in saved}) == 2


# --------------------------------------------------------------------------------------------------
# What each side's page may see (issue 28 point 4): the mechanism on a race that hides the squares
# --------------------------------------------------------------------------------------------------
class HiddenRace(RaceRules):
    """The race with each runner's square hidden from the other side (and from spectators) until the end;
    the other side's dice are hidden in the log."""

    system = "hidden-race"

    def hides(self, s):
        return s.winner is None

    def view(self, s, side):
        if side == "red":
            return replace(s, blue=-1)
        if side == "blue":
            return replace(s, red=-1)
        return replace(s, red=-1, blue=-1)

    def visible_event(self, s, ev, side):
        if ev.get("side") == side:
            return ev
        return {**ev, "answers": [{**a, "value": None} if a.get("kind") == "roll" else a for a in ev["answers"]
                                  if a.get("kind") != "log"]}


register("hidden-race", HiddenRace)


def test_each_side_sees_its_view_and_the_log_hides_the_other_sides_dice(store):
    owner = GamePlayModel(store, system="hidden-race")
    gid = owner.new("short", seed=9)
    keys = store.keys(gid)
    red, blue, watcher = (GamePlayModel(store, system="hidden-race") for _ in range(3))
    red.open(gid, key=keys["red"])
    blue.open(gid, key=keys["blue"])
    store.set_public(gid, True)
    watcher.open(gid, key=None)
    assert red.act(RaceAction("roll", "red")) or red.answer("stay")
    assert red.state.red == blue.state.red > 0 or red.state.red == 0       # the one game both pages show
    assert red.shown_state().red == red.state.red and red.shown_state().blue == -1
    assert blue.shown_state().red == -1                                    # blue does not see red's square
    assert watcher.viewer is None and watcher.shown_state().red == -1 == watcher.shown_state().blue
    red_rolls = [r["value"] for r in red.log() if r["what"] == "roll"]
    blue_rolls = [r["value"] for r in blue.log() if r["what"] == "roll"]
    assert red_rolls and red_rolls[0] != "" and blue_rolls == [""]         # blue's log has no die value
    with pytest.raises(Refused):
        blue.record_json()                                                 # nor may blue download red's dice


def test_once_the_game_is_over_its_replay_shows_everything(store):
    from engine.core.game import play_game
    _, rec = play_game(HiddenRace(), ("random", "random"), "short", seed=3)
    m = GamePlayModel(store, system="hidden-race")
    gid = m.import_record(rec, server=False)
    side = GamePlayModel(store, system="hidden-race")
    side.open(gid, key=store.keys(gid)["blue"], mode="replay")
    side.goto(1)
    assert side.sees_all and side.shown_state() is side.state and side.state.red >= 0


def test_a_bots_answer_to_a_persons_action_rolls_on_as_that_person_rolls(store):
    """Bussaco, seed 2, event 11: the French player (computer dice) resolves a battle; the Allied greedy bot
    answers the defender's question (12.5 reserves) on the server, and the CRT die (9.0 F) that follows
    is rolled as the French player's dice are: the action ends, no die is left waiting for a person who
    was never asked."""
    from engine.core.game import play_game, system_of
    from engine.core.procedure import Choose
    rules = system_of("n20")
    _, rec = play_game(rules, ("greedy", "greedy"), "bussaco", seed=2, max_actions=11)
    ev = rec.events[10]
    assert ev["side"] == "french" and ev["action"]["kind"] == "resolve"
    m = GamePlayModel(store, system="n20")
    m.import_record(rec.truncated(10), server=False)
    m.mode = "play"
    assert m.set_seat("allied", "greedy")
    m.act(rules.action_from_json(ev["action"]))
    while m.pending is not None and isinstance(m.pending.request, Choose) and m.may_act(m.asked()):
        m.answer(m.pending.request.options[0])                   # the French player's own questions
    assert m.pending is None and len(m.events) > 10              # no die waits
    said = [(a["kind"], a["label"]) for a in m.events[10]["answers"] if a["kind"] != "log"]
    i = next(i for i, (k, label) in enumerate(said) if label.startswith("defender commits reserves"))
    assert said[i + 1][0] == "roll"                              # the bot's answer, then the CRT die


# --------------------------------------------------------------------------------------------------
# A stale page (issue 28, bad input): refused, with the fresh view pushed
# --------------------------------------------------------------------------------------------------
def test_a_press_on_a_list_another_page_moved_on_is_refused_and_the_page_shows_the_game_now(store):
    """Two pages on one game (the owner's link in two tabs). Red's roll is on both lists; page A makes it;
    page B, which still had the list before it, presses the same action: refused (the action is named by
    its key, not by a place in a list that changed), nothing made twice, and B shows the game as it is
    now: blue's roll listed, one event, A's roll in its state, no stale words from before."""
    from dashboards.play.view import GamePlayView

    a = GamePlayView(system="race", store=store)
    a.__panel__()
    a._start({"scenario": "short", "seed": "2"})
    gid = a.model.game_id
    b = GamePlayView(system="race", store=store)
    b.__panel__()
    b.open(gid, store.keys(gid)[OWNER])
    assert "loaded (0 actions)" in b.model.message
    (stale_key, label, *_), = b.controls.items
    assert label.startswith("red")
    a._press({"op": "do", "key": a.controls.items[0][0]})
    assert len(a.model.events) == 1
    # pushed to B without a reload: its list, its status and its words are the game's now
    assert [item[1] for item in b.controls.items] == [item[1] for item in a.controls.items]
    assert [item[1] for item in b.controls.items][0].startswith("blue")
    assert "data-events='1'" in b.head.status and b.model.message == ""
    b._press({"op": "do", "key": stale_key})
    assert "no longer on the list" in b.head.refusal
    assert len(b.model.events) == 1 and store.load(gid).n_events == 1 and b.model.state == a.model.state


def test_a_pushed_change_draws_the_status_line_after_the_request_and_the_list(store):
    """The status line is drawn last (a page, or a player, that reads "your move" there finds the list and
    the question already drawn: each part reaches the browser in a message of its own), also when the
    pushed change clears the page's words in the same step: here an action begun on another page, waiting
    for its die (no new event: the position is the same, the change counter and the request are new)."""
    from dashboards.play.view import GamePlayView

    a = GamePlayView(system="race", store=store)
    a.__panel__()
    a._start({"scenario": "short", "seed": "2"})
    gid = a.model.game_id
    b = GamePlayView(system="race", store=store)
    b.__panel__()
    b.open(gid, store.keys(gid)[OWNER])
    assert b.model.message
    drawn: list[str] = []
    for part in ("actions", "pending", "status"):
        def spy(part=part, real=getattr(b, f"_draw_{part}")):
            drawn.append(part)
            real()
        setattr(b, f"_draw_{part}", spy)
    a._dice_mode("typed")
    a._press({"op": "do", "key": a.controls.items[0][0]})              # red's roll waits for its die (R1)
    assert b.controls.pending["rule"] == "R1" and b.controls.pending["mine"] and not b.model.events
    assert "data-state='pending'" in b.head.status and b.model.message == ""
    assert drawn.index("pending") < drawn.index("status") and drawn.index("actions") < drawn.index("status")
