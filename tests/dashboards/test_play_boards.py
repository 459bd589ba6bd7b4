"""The play page's boards (dashboards/play/boards/__init__.py, game_view.py; issue 15.1): facing on every TBF
counter and the frontal hexes of the picked unit, a TBF move by clicking a unit then a highlighted hex, a
BC move by clicking a Block then an outlined Zone."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from attack_records import view_at as _view_at, kind_of, record_until  # noqa: E402

from dashboards.play.view import GamePlayView  # noqa: E402
from dashboards.server.storage import GameStore  # noqa: E402


@pytest.fixture
def store(tmp_path):
    return GameStore(tmp_path / "games.sqlite3")


def test_tbf_board_facing_on_every_counter_and_frontal_hexes_of_the_pick(store):
    from engine.tbf.game.position import frontal
    v = GamePlayView(system="tbf", store=store)
    v._start()
    b, st_ = v.board, v.model.state
    sc = b.scenario
    units = [p for p in st_.game.on_map() if not sc.is_leader(p.id)]
    assert len(b.facing_source.data["xs"]) == len(units)          # a wedge on every unit counter
    p = next(p for p in units if frontal(sc, st_.game, p))
    b._picked(p.hex)
    g = sc.board.grid
    # 4.3 C: the hex across the faced hexside and the two beside it (directions facing-1, facing, facing+1)
    by_hand = {g.neighbour(p.hex, (p.facing + d) % 6) for d in (-1, 0, 1)} - {None}
    assert set(b.front_source.data["hex"]) == by_hand
    assert f"data-hexes='{' '.join(sorted(by_hand))}'" in b.front_note.object
    b._picked(None)
    assert list(b.front_source.data["hex"]) == []


def test_tbf_click_a_unit_then_a_highlighted_hex_moves_it(store):
    legal_of: dict = {}

    def only_move_there(r, s, a):
        """A move that is the only move, fire, melee or charge of its hex's units into its hex."""
        if kind_of(r, a) != "move":
            return False
        legal = legal_of.setdefault(id(s), (s, r.legal_actions(s)))[1]
        here = {p.id for p in s.game.on_map() if p.hex == s.game.piece(a.unit).hex}
        same = [b for b in legal if getattr(b, "to", None) == a.to and getattr(b, "unit", None) in here]
        return len(same) == 1
    rec, state, move, rules = record_until("tbf", only_move_there)
    v = _view_at(store, rec)
    n = len(v.model.events)
    v.board._picked(state.game.piece(move.unit).hex)
    assert move.to in v._targets and len(v.model.events) == n       # picking changes nothing
    v.board._picked(move.to)
    assert len(v.model.events) == n + 1
    assert v.model.events[-1]["action"] == rules.action_to_json(move)


def test_bc_click_a_block_then_an_outlined_zone_makes_the_move(store):
    def single_block_move(r, s, a):
        j = r.action_to_json(a)
        return kind_of(r, a) == "move" and len(j.get("moves") or ()) == 1 and not j.get("hqs")
    rec, state, move, rules = record_until("bc", single_block_move)
    block, dest = rules.action_to_json(move)["moves"][0]
    v = _view_at(store, rec)
    n = len(v.model.events)
    v.board.svg.click = {"n": 1, "place": block}                 # what a click on the Block sends
    note = v.board.note.object
    assert f"data-picked='{block}'" in note and dest in re.search(r"data-targets='([^']*)'", note).group(1)
    assert len(v.model.events) == n                              # picking changes nothing
    v.board.svg.click = {"n": 2, "place": dest}                  # a click on the outlined Zone
    assert len(v.model.events) == n + 1
    last = v.model.events[-1]["action"]
    assert last["kind"] == "move" and [list(m) for m in last["moves"]] == [[block, dest]]


def test_lob_click_an_area_then_a_highlighted_area_moves_its_units(store):
    """LoB: picking an area rings every area its units' moves, fires and attacks lead to; a click on an
    area that exactly one listed move reaches makes that move (one event more), a click on the picked
    area itself only picks."""
    legal_of: dict = {}

    def only_move_there(r, g, a):
        j = r.action_to_json(a)
        if j.get("type") != "move" or not j.get("path"):
            return False
        legal = legal_of.setdefault(id(g), (g, [r.action_to_json(b) for b in r.legal_actions(g)]))[1]
        origin = next(u.area for u in g.units if u.uid == j["units"][0])
        here = {u.uid for u in g.units if u.area == origin}
        same = [b for b in legal if b.get("type") in ("move", "fire", "attack") and set(b.get("units") or ()) & here
                and ((b.get("path") or [None])[-1] if b["type"] == "move" else b.get("target")) == j["path"][-1]]
        return len(same) == 1 and j["path"][-1] != origin
    rec, state, move, rules = record_until("lob", only_move_there)
    v = _view_at(store, rec)
    j = rules.action_to_json(move)
    origin = next(u.area for u in state.units if u.uid == j["units"][0])
    n = len(v.model.events)
    v.board._picked(origin)
    assert j["path"][-1] in v._targets and len(v.model.events) == n        # picking changes nothing
    rings = dict(zip(v.board.fig.source.data["id"], v.board.fig.source.data["lw"]))
    assert rings[j["path"][-1]] == 6 and rings[origin] == 6                  # origin and target ringed
    v.board._picked(j["path"][-1])
    assert len(v.model.events) == n + 1
    assert v.model.events[-1]["action"] == j


def test_each_part_is_drawn_again_only_when_what_it_shows_changed(store):
    """Issue 28 point 5: a pick on the board redraws the board, the list and the status line, not the log,
    the replay controls or the seats; a move redraws each part once (the board too: a new game's board
    drawn a second time in the same callback was not shown by the browser)."""
    v = GamePlayView(system="tbf", store=store)
    v.__panel__()
    drawn: list[str] = []
    for part in ("log", "replay", "seats", "actions", "status"):
        def spy(part=part, real=getattr(v, f"_draw_{part}")):
            drawn.append(part)
            real()
        setattr(v, f"_draw_{part}", spy)
    from dashboards.play.boards.tbf import TbfBoard
    real_show = TbfBoard.show

    def show(board, *args):
        drawn.append("board")
        return real_show(board, *args)
    TbfBoard.show = show
    try:
        v._start({"seed": "1"})
        assert drawn.count("board") == 1 and "log" in drawn
        st = v.model.state
        hexes = sorted({p.hex for p in st.game.on_map()})
        h = next(h for h in hexes if any(v.board.concerns(st, h, e[3]) for e in v._legal_entries()))
        drawn.clear()
        v._pick(h)
        assert v.picked == h and {"board", "actions", "status"} <= set(drawn)
        assert not {"log", "replay", "seats"} & set(drawn) and drawn.count("board") == 1
        v._pick(None)
        drawn.clear()
        revs: list[int] = []
        v.model.param.watch(lambda e: revs.append(e.new), "rev")
        v._do(v.controls.items[-1][0])
        while v.model.pending is not None:
            v.model.answer(v.model.pending.request.options[0])
        assert len(v.model.events) == 1
        assert "log" in drawn and 1 <= drawn.count("board") <= len(revs)       # once per change of the game
    finally:
        TbfBoard.show = real_show
