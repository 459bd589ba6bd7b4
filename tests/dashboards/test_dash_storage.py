"""Saved games (dashboards/storage.py): every action is committed at once and survives a crash."""
from __future__ import annotations

import multiprocessing
import os
import sqlite3

import pytest
from hypothesis import given, settings, strategies as st

from dashboards.storage import ENV_VAR, GameStore, default_db_path


def test_append_is_committed_before_returning(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    gid = store.create("n20", "fuentes", edition="v3", seed=7)
    store.append(gid, {"kind": "move", "unit": "A1", "to": "0708"})
    # a second, independent connection sees the event at once (nothing waits for a later commit)
    con = sqlite3.connect(tmp_path / "g.sqlite3")
    assert con.execute("SELECT COUNT(*) FROM events WHERE game_id=?", (gid,)).fetchone()[0] == 1
    con.close()


def _writer(path: str, gid: str, n: int) -> None:
    store = GameStore(path)
    for i in range(n):
        store.append(gid, {"kind": "move", "i": i})
    os._exit(0)  # die without any cleanup, as a killed server would


def test_events_survive_a_process_that_dies_without_cleanup(tmp_path):
    path = str(tmp_path / "g.sqlite3")
    gid = GameStore(path).create("n20", "bussaco")
    p = multiprocessing.get_context("fork").Process(target=_writer, args=(path, gid, 5))
    p.start()
    p.join(30)
    saved = GameStore(path).load(gid)
    assert [e["i"] for e in saved.events] == [0, 1, 2, 3, 4]


def test_undo_truncates_and_drops_later_bookmarks(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    gid = store.create("n20", "fuentes")
    for i in range(4):
        store.append(gid, {"kind": "x", "i": i})
    store.bookmark(gid, 1, "after the first move")
    store.bookmark(gid, 4, "end")
    store.truncate(gid, 3)
    g = store.load(gid)
    assert [e["i"] for e in g.events] == [0, 1, 2]
    assert [(b.position, b.label) for b in g.bookmarks] == [(1, "after the first move")]


def test_list_newest_first_with_event_counts(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    a = store.create("n20", "fuentes", title="club night")
    b = store.create("n20", "bussaco")
    store.append(a, {"kind": "x"})  # a is now the most recently updated
    rows = store.list()
    assert [g.id for g in rows] == [a, b]
    assert rows[0].n_events == 1 and rows[0].title == "club night"
    assert store.list(game="lob") == []


def test_unknown_game_and_bad_bookmark_raise_and_change_nothing(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    with pytest.raises(KeyError):
        store.append("nope", {"kind": "x"})
    gid = store.create("n20", "fuentes")
    with pytest.raises(ValueError):
        store.bookmark(gid, 5, "beyond the end")
    assert store.load(gid).bookmarks == ()


def test_default_path_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "club.sqlite3"))
    assert default_db_path() == tmp_path / "club.sqlite3"
    monkeypatch.delenv(ENV_VAR)
    assert default_db_path().name == "games.sqlite3"


@settings(max_examples=25, deadline=None)
@given(st.lists(st.one_of(st.tuples(st.just("add"), st.integers(0, 99)), st.tuples(st.just("undo"), st.integers(0, 3))),
                max_size=25))
def test_store_matches_an_in_memory_list(tmp_path_factory, ops):
    """Property: after any sequence of appends and undos the stored events equal a plain list's."""
    store = GameStore(tmp_path_factory.mktemp("p") / "g.sqlite3")
    gid = store.create("n20", "fuentes")
    model: list = []
    for op, v in ops:
        if op == "add":
            store.append(gid, {"kind": "x", "v": v})
            model.append({"kind": "x", "v": v})
        else:
            n = max(0, len(model) - v)
            store.truncate(gid, n)
            del model[n:]
    assert list(store.load(gid).events) == model
