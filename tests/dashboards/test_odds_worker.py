"""The play page's warm odds worker (dashboards/server/odds_worker.py, issue 26.3): a position is sent once
and every later pick sends its key and the action; a cancelled pick leaves the worker free; a dead worker is
started again and sent the position again; the questions waiting are bounded; the server keeps the answers by
position, action and side, so the same pick again asks the worker nothing; the tree is worked out only when
opened; a Napoleonic 20 declaration shows each declared battle's odds (9.1-9.2)."""
from __future__ import annotations

import sys
import threading
from fractions import Fraction
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from attack_records import kind_of, record_until, view_at  # noqa: E402

from dashboards.play.action_odds import odds_data_html, odds_html  # noqa: E402
from dashboards.server import odds_worker as workers  # noqa: E402
from dashboards.server.background import Cancelled  # noqa: E402
from dashboards.server.odds_worker import OddsWorker, Ticket, WorkerBusy  # noqa: E402
from dashboards.server.storage import GameStore  # noqa: E402
from engine.core.odds import action_odds  # noqa: E402
from engine.core.quick_odds import WHOLE, position_key, quick_odds  # noqa: E402


@pytest.fixture(scope="module")
def worker():
    w = OddsWorker(size=1)
    yield w
    w.shutdown()


@pytest.fixture(autouse=True)
def _fresh_answers():
    workers.ANSWERS.clear()
    workers.TREES.clear()
    yield
    workers.ANSWERS.clear()
    workers.TREES.clear()


def _sender(rules, state):
    """The position's JSON, counting how often the worker had to be sent it."""
    sent = []

    def state_json():
        sent.append(1)
        return rules.state_to_json(state)
    return state_json, sent


def _bc_assault():
    return record_until("bc", lambda r, s, a: kind_of(r, a) == "attack" and getattr(a, "attack", "") == "assault")


def _bc_square_assault_on_an_hq(rules, st, a) -> bool:
    """A Lead Cavalry assault the defender may meet in Square (23.1 step 6) on a Zone with an HQ (27.10): the
    Square check, then the card, a Cavalry Battle or a Critical Combat Table, then the HQ's fate."""
    from engine.bc.combat import square_outcome
    from engine.bc.game.attacks import attack_setup
    if not (kind_of(rules, a) == "attack" and a.attack == "assault" and st.g.lead(a.frm).block.kind == "cavalry"):
        return False
    return bool(square_outcome(attack_setup(st, a)[0], "officer")) and bool(st.g.hqs_in(a.to))


def test_a_second_pick_sends_the_key_and_the_action_only(worker):
    rec, state, _, rules = record_until("lob", lambda r, s, a: r.is_attack(a))
    attacks = [a for a in rules.legal_actions(state) if rules.is_attack(a)][:3]
    key = position_key(rules, state)
    state_json, sent = _sender(rules, state)
    before = worker.holds_sent
    got = [worker.ask("odds", key, "lob", state_json, rules.action_to_json(a), WHOLE) for a in attacks]
    # the position went to the worker once, with the first pick; the later picks carried the key only
    assert len(sent) == 1 and worker.holds_sent == before + 1
    # differential: the worker's answers are the engine's quick odds of each action in that position
    assert got == [quick_odds(rules, state, a, max_outcomes=workers.PAGE_MAX_OUTCOMES, cache=None) for a in attacks]
    assert sum(Fraction(line["fraction"]) for line in got[0]["lines"]) == 1


def test_a_dead_worker_is_started_again_and_sent_the_position_again(worker):
    rec, state, attack, rules = record_until("lob", lambda r, s, a: r.is_attack(a))
    key = position_key(rules, state)
    state_json, sent = _sender(rules, state)
    first = worker.ask("odds", key, "lob", state_json, rules.action_to_json(attack), WHOLE)
    pid, restarts, n = worker.pid(), worker.restarts, len(sent)
    worker.kill()
    again = worker.ask("odds", key, "lob", state_json, rules.action_to_json(attack), WHOLE)
    assert again == first
    assert worker.pid() != pid and worker.restarts == restarts + 1
    assert len(sent) == n + 1             # the fresh worker held nothing: the position was sent once more


def test_a_cancelled_pick_leaves_the_worker_free(worker):
    """A Battle Commander cavalry assault met in Square on an HQ's Zone takes among the longest odds of the shipped
    attacks (random bots, bot seed 1, game seed 1: thousands of enumeration steps, tenths of a second); its pick
    is cancelled as it runs: the asker is answered 'cancelled' and the same worker process (not killed, not
    started again) answers the next pick."""
    rec, state, assault, rules = record_until("bc", _bc_square_assault_on_an_hq, seed=1, bot_seed=1, games=1)
    key = position_key(rules, state)
    state_json, _ = _sender(rules, state)
    pid, restarts = worker.pid(), worker.restarts
    ticket = Ticket()
    timer = threading.Timer(0.05, ticket.cancel)
    timer.start()
    try:
        worker.ask("odds", key, "bc", state_json, rules.action_to_json(assault), WHOLE, ticket=ticket)
        cancelled = False
    except Cancelled:
        cancelled = True
    assert cancelled
    lob_rec, lob_state, attack, lob_rules = record_until("lob", lambda r, s, a: r.is_attack(a))
    lob_json, _ = _sender(lob_rules, lob_state)
    data = worker.ask("odds", position_key(lob_rules, lob_state), "lob", lob_json, lob_rules.action_to_json(attack),
                      WHOLE)
    assert data["lines"]
    assert worker.pid() == pid and worker.restarts == restarts      # it let go of the assault by itself (stop=)


def test_the_questions_waiting_are_bounded():
    rec, state, assault, rules = _bc_assault()
    w = OddsWorker(size=1, max_queue=1)
    try:
        key = position_key(rules, state)
        p = w._route(key)
        rid, fut = w._send(p, "hold", (key, "bc", rules.state_to_json(state)))
        with pytest.raises(WorkerBusy, match="busy"):       # one question waits already: the next is refused
            w._send(p, "odds", (key, rules.action_to_json(assault), workers.WHOLE_TAG))
        fut.result(timeout=60)
    finally:
        w.shutdown()


def test_a_long_question_does_not_hold_up_another_pages_pick():
    """While one worker works out a Battle Commander assault, another page's pick goes to a second worker
    (started for it), not behind the assault."""
    rec, state, assault, rules = _bc_assault()
    lob_rec, lob_state, attack, lob_rules = record_until("lob", lambda r, s, a: r.is_attack(a))
    w = OddsWorker(size=2)
    try:
        key = position_key(rules, state)
        first = w._route(key)
        w._hold(first, key, "bc", lambda: rules.state_to_json(state)).result(timeout=60)
        rid, fut = w._send(first, "odds", (key, rules.action_to_json(assault), workers.WHOLE_TAG))
        assert w._route(position_key(lob_rules, lob_state)) is not first       # the busy one is passed over
        data = w.ask("odds", position_key(lob_rules, lob_state), "lob", lambda: lob_rules.state_to_json(lob_state),
                     lob_rules.action_to_json(attack), WHOLE)
        assert data["lines"] and len(w.pids()) == 2
        ok, value = fut.result(timeout=120)
        assert ok and value["lines"]
    finally:
        w.shutdown()


def _count_questions(monkeypatch) -> list:
    """The kinds of question the page puts to the odds worker from now on ("odds", "tree"), in order."""
    asked: list = []
    real = workers.odds_worker()

    class Counting:
        def ask(self, *a, **k):
            asked.append(a[0])
            return real.ask(*a, **k)
    monkeypatch.setattr(workers, "odds_worker", lambda: Counting())
    return asked


def test_the_same_pick_again_is_answered_by_the_server_without_the_worker(tmp_path, monkeypatch):
    """Two pages of one server (two views, one process): the second page's pick of the same attack in the
    same position is drawn from the server's answers; the worker is asked nothing."""
    rec, state, attack, rules = record_until("lob", lambda r, s, a: r.is_attack(a))
    store = GameStore(tmp_path / "g.sqlite3")
    asked = _count_questions(monkeypatch)
    a = view_at(store, rec)
    a.select(attack)
    shown = a.odds.pane.object
    assert "data-state='ready'" in shown and asked == ["odds"]
    b = view_at(store, rec)
    b.select(attack)
    assert b.odds.pane.object == shown and asked == ["odds"]          # no second question
    assert workers.ANSWERS.hits >= 1


def test_the_tree_is_worked_out_only_when_opened(tmp_path, monkeypatch):
    rec, state, attack, rules = record_until("lob", lambda r, s, a: r.is_attack(a))
    asked = _count_questions(monkeypatch)
    v = view_at(GameStore(tmp_path / "g.sqlite3"), rec)
    v.select(attack)
    assert asked == ["odds"] and v.odds.tree_button.visible
    assert "data-state='closed'" in v.odds.tree_pane.object
    v.odds.toggle_tree()
    assert asked == ["odds", "tree"]
    drawn = v.odds.tree_pane.object
    assert "data-state='ready'" in drawn and "class='ptree'" in drawn and "5.2.1" in drawn   # the combat roll's rule
    v.odds.toggle_tree()
    assert "data-state='closed'" in v.odds.tree_pane.object
    v.odds.toggle_tree()                                   # opened again: the tree kept, nothing asked
    assert asked == ["odds", "tree"] and v.odds.tree_pane.object == drawn


def test_the_odds_drawn_from_the_data_are_the_engines():
    """Differential: the block drawn from the worker's plain data has the rows, fractions and rules of the
    block drawn from the engine's ActionOdds (only the figures' names differ: player's words, not keys)."""
    for system, wanted in (("lob", lambda r, s, a: r.is_attack(a)),
                           ("tbf", lambda r, s, a: kind_of(r, a) == "charge"),
                           ("n20", lambda r, s, a: r.is_attack(a))):
        rec, state, attack, rules = record_until(system, wanted, limit=3000)
        data = quick_odds(rules, state, attack, cache=None)
        drawn = odds_data_html(data, "x")
        plain = odds_html(action_odds(rules, state, attack), "x")
        assert drawn.split("<div class='odds-expected'>")[0] == plain.split("<div class='odds-expected'>")[0]
        for e in data["expected"]:
            if e["float"] != 0:
                assert f"data-metric='{e['metric']}'>{e['title']} " in drawn


def test_a_n20_declaration_shows_each_declared_battles_odds(tmp_path):
    """9.1-9.2: the declaration is one action; picked (not made), the page shows the odds of each battle it
    declares: the engine's quick odds of each 'resolve' in the position the declaration leads to."""
    rec, state, declare, rules = record_until("n20", lambda r, s, a: a.kind == "declare", limit=3000)
    v = view_at(GameStore(tmp_path / "g.sqlite3"), rec)
    v.select(declare)
    shown = v.odds.pane.object
    after, _ = rules.apply(state, declare)
    battles = rules.attack_candidates(after)
    assert battles and "class='declared-odds'" in shown
    assert shown.count("class='action-odds' data-state='ready'") == len(battles)
    for b in battles:
        want = quick_odds(rules, after, b, cache=None)
        assert all(f"data-p='{line['fraction']}'" in shown for line in want["lines"])
    assert len(v.model.events) == len(rec.events)              # nothing declared by looking


def test_a_side_that_may_not_see_the_position_gets_the_same_answer_as_the_engine(tmp_path):
    """Hidden information (15.0: the other side's hand): the odds a side's page is shown are the engine's
    quick odds from that side's view, or the refusal in the page's words: never the whole position's."""
    rec, state, assault, rules = _bc_assault()
    side = rules.to_act(state)
    w = workers.odds_worker()
    key = position_key(rules, state)
    try:
        want = quick_odds(rules, state, assault, max_outcomes=workers.PAGE_MAX_OUTCOMES, cache=None, seen_by=side)
    except Exception as exc:  # noqa: BLE001 - refused: the page says so in its words
        with pytest.raises(Exception, match="hides part of the position from you") as got:
            w.ask("odds", key, "bc", lambda: rules.state_to_json(state), rules.action_to_json(assault), side)
        assert "Coalition" not in str(got.value) and type(exc).__name__
    else:
        assert w.ask("odds", key, "bc", lambda: rules.state_to_json(state), rules.action_to_json(assault), side) == want


def test_odds_worked_out_ahead_are_a_picks_answer(tmp_path, monkeypatch):
    """The attacks a page lists are worked out ahead in the warm worker and kept as a pick's answers: the
    pick that follows asks the worker nothing, and shows the engine's odds."""
    from dashboards.play.action_odds import _work_ahead
    rec, state, attack, rules = record_until("lob", lambda r, s, a: r.is_attack(a))
    attacks = [a for a in rules.legal_actions(state) if rules.is_attack(a)]
    key = position_key(rules, state)
    _work_ahead(workers.odds_worker(), key, "lob", lambda: rules.state_to_json(state),
                [rules.action_to_json(a) for a in attacks], WHOLE, Ticket(), 60)
    for a in attacks[:workers.MAX_AHEAD]:
        assert workers.known("odds", key, rules.action_to_json(a), WHOLE) == \
            quick_odds(rules, state, a, max_outcomes=workers.PAGE_MAX_OUTCOMES, cache=None)
    asked = []

    class Counting:
        def ask(self, *a, **k):
            asked.append(a[0])
    monkeypatch.setattr(workers, "odds_worker", lambda: Counting())
    v = view_at(GameStore(tmp_path / "g.sqlite3"), rec)
    v.select(attacks[-1] if len(attacks) <= workers.MAX_AHEAD else attacks[0])
    assert "data-state='ready'" in v.odds.pane.object and asked == []


def _fog_declaration():
    """Bussaco with fog of war (16.1): the first declaration the random bots reach, its position and rules."""
    from engine.core.game import Session, system_of
    rules = system_of("n20")
    bot = rules.bots()["random"](seed=3)
    sess = Session.new(rules, "bussaco", ("fog_of_war",), 1)
    for _ in range(3000):
        legal = sess.legal_actions()
        hits = [a for a in legal if a.kind == "declare"]
        if hits:
            return sess.state, hits[0], rules
        a = bot.choose_action(rules, sess.state, legal)
        sess.act(a, chooser=lambda req: bot.choose(req, sess.state))
    raise AssertionError("no declaration")


def test_fog_of_war_a_sides_declaration_odds_are_refused_and_the_whole_positions_are_not_shown():
    """16.1: before the declaration reveals them (16.1.1), the defenders' counters are face down to the
    declaring side: its page is refused the battles' odds, in the page's words (no piece named), while the
    same declaration seen whole (a finished game's replay, the server) gets each battle's odds."""
    from dashboards.play.action_odds import ActionOddsView
    state, declare, rules = _fog_declaration()
    side = rules.to_act(state)
    assert rules.hides(state)
    v = ActionOddsView()
    v.declare(rules, state, declare, seen_by=side, said="a declaration")
    shown = v.pane.object
    assert "data-state='error'" in shown and "hides part of the position from you" in shown
    assert not any(u in shown for b in declare.battles for u in b.defenders)
    whole = ActionOddsView()
    whole.declare(rules, state, declare, seen_by=WHOLE, said="a declaration")
    assert "class='declared-odds'" in whole.pane.object and "data-state='ready'" in whole.pane.object


def test_in_this_process_the_same_answers(tmp_path):
    """``process=False`` (a notebook): the same questions answered in the asking thread, the same data."""
    from dashboards.server.odds_worker import LocalOdds
    rec, state, attack, rules = record_until("tbf", lambda r, s, a: kind_of(r, a) == "charge")
    key = position_key(rules, state)
    here = LocalOdds().ask("odds", key, "tbf", lambda: rules.state_to_json(state), rules.action_to_json(attack), WHOLE)
    there = workers.odds_worker().ask("odds", key, "tbf", lambda: rules.state_to_json(state),
                                      rules.action_to_json(attack), WHOLE)
    assert here == there and here["lines"]


def test_a_position_the_worker_cannot_read_is_refused_in_one_line(worker):
    """Bad input: a position that is not one (a broken saved game) is refused with the protocol's one-line
    error, and the worker answers the next question."""
    with pytest.raises(workers.Refused) as got:
        worker.ask("odds", "lob:not-a-position", "lob", lambda: {"areas": "nonsense"}, {"type": "pass"}, WHOLE)
    assert "\n" not in str(got.value) and str(got.value)
    rec, state, attack, rules = record_until("lob", lambda r, s, a: r.is_attack(a))
    assert worker.ask("odds", position_key(rules, state), "lob", lambda: rules.state_to_json(state),
                      rules.action_to_json(attack), WHOLE)["lines"]


def test_odds_past_the_pages_bound_are_refused_in_a_players_words(monkeypatch):
    """A pick whose odds pass the page's bound is refused naming the bound and how far the enumeration got,
    without the action's notation ("coalition: attack ...") or the ids of its inner steps: the LoB attack of
    the first record has 7 end positions; with the page's bound at 1 the second one found stops it."""
    from dashboards.server.odds_worker import LocalOdds
    monkeypatch.setattr(workers, "PAGE_MAX_OUTCOMES", 1)
    rec, state, attack, rules = record_until("lob", lambda r, s, a: r.is_attack(a))
    with pytest.raises(Exception) as got:
        LocalOdds().ask("odds", position_key(rules, state), "lob", lambda: rules.state_to_json(state),
                        rules.action_to_json(attack), WHOLE)
    assert str(got.value) == "they have more than 1 different end positions, the bound here: worked out no further"
    assert rules.format_action(attack) not in str(got.value)
    monkeypatch.setattr(workers, "PAGE_MAX_OUTCOMES", 4000)
    monkeypatch.setattr(workers, "PAGE_MAX_STEPS", 5)
    with pytest.raises(Exception) as got:
        LocalOdds().ask("odds", position_key(rules, state), "lob", lambda: rules.state_to_json(state),
                        rules.action_to_json(attack), WHOLE)
    assert str(got.value).startswith("working them out would take more than 5 enumeration steps, the bound here "
                                     "(it had run ")
