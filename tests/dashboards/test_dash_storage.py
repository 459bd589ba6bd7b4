"""Saved games (dashboards/server/storage.py): every action is committed at once and survives a crash."""
from __future__ import annotations

import multiprocessing
import os
import sqlite3

import pytest
from hypothesis import given, settings, strategies as st

from dashboards.server.storage import ENV_VAR, GameStore, default_db_path


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


# ---- issue 12: keys, migration, permissions, storage errors -----------------------------------------------
import stat as _stat

from dashboards.server.storage import OWNER, SCHEMA_VERSION, StaleGame, StorageError


def test_each_game_has_an_owner_key_and_a_key_per_side(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    gid = store.create("n20", "fuentes", sides=("french", "allied"))
    keys = store.keys(gid)
    assert list(keys) == [OWNER, "french", "allied"]
    assert len(set(keys.values())) == 3 and all(len(k) >= 22 for k in keys.values())   # 16 random bytes each
    for role, k in keys.items():
        assert store.role(gid, k) == role
    other = store.create("n20", "bussaco", sides=("french", "allied"))
    assert store.role(other, keys[OWNER]) is None          # a key opens its own game only
    assert store.role(gid, "") is None and store.role(gid, "x" * 22) is None
    assert store.load(gid).system == "n20" and store.load(gid).game == "n20"


def test_visible_lists_held_keys_and_public_games_only(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    mine = store.create("n20", "fuentes", sides=("french", "allied"))
    theirs = store.create("n20", "bussaco", sides=("french", "allied"))
    french = store.keys(mine)["french"]
    assert [(g.id, role) for g, role, _ in store.visible([french])] == [(mine, "french")]
    assert store.visible([]) == []
    store.set_public(theirs, True)
    seen = {g.id: role for g, role, _ in store.visible([french, store.keys(mine)[OWNER]])}
    assert seen == {mine: OWNER, theirs: None}             # the strongest key held; the public one without a key


def _schema1_file(path):
    """A saved-games file as the first version wrote it (schema 1: no system, keys or public)."""
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES('schema', '1');
        CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, scenario TEXT NOT NULL,
            edition TEXT NOT NULL DEFAULT '', options TEXT NOT NULL DEFAULT '{}', seed INTEGER,
            title TEXT NOT NULL DEFAULT '', status TEXT NOT NULL DEFAULT 'in progress', created REAL NOT NULL,
            updated REAL NOT NULL);
        CREATE TABLE events (game_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, created REAL NOT NULL,
            PRIMARY KEY (game_id, seq));
        CREATE TABLE bookmarks (game_id TEXT NOT NULL, position INTEGER NOT NULL, label TEXT NOT NULL,
            PRIMARY KEY (game_id, position));
        INSERT INTO games VALUES('old1', 'n20', 'fuentes', 'v3', '{}', 3, 'old game', 'in progress', 1.0, 2.0);
        INSERT INTO events VALUES('old1', 0, '{"kind": "x", "i": 0}', 1.5);
        INSERT INTO events VALUES('old1', 1, '{"kind": "x", "i": 1}', 1.6);
    """)
    con.commit()
    con.close()


def test_an_old_file_is_migrated_without_losing_games(tmp_path):
    path = tmp_path / "old.sqlite3"
    _schema1_file(path)
    store = GameStore(path)
    g = store.load("old1")
    assert (g.system, g.title, g.seed, [e["i"] for e in g.events]) == ("n20", "old game", 3, [0, 1])
    assert not g.public and list(store.keys("old1")) == [OWNER]     # an owner key, printed by --links
    con = sqlite3.connect(path)
    assert con.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == str(SCHEMA_VERSION)
    con.close()
    assert GameStore(path).load("old1").n_events == 2                 # opening it again changes nothing


def test_new_folder_is_0700_and_file_0600(tmp_path):
    old = os.umask(0o022)                   # a usual umask, under which mkdir/open would give 0755/0644
    try:
        path = tmp_path / "a" / "b" / "games.sqlite3"
        store = GameStore(path)
        store.create("n20", "fuentes")
    finally:
        os.umask(old)
    assert _stat.S_IMODE(os.stat(tmp_path / "a").st_mode) == 0o700
    assert _stat.S_IMODE(os.stat(tmp_path / "a" / "b").st_mode) == 0o700
    assert _stat.S_IMODE(os.stat(path).st_mode) == 0o600
    for extra in ("-wal", "-shm"):          # SQLite's side files get the file's own permissions
        side = path.with_name(path.name + extra)
        if side.exists():
            assert _stat.S_IMODE(os.stat(side).st_mode) & 0o077 == 0


def test_a_world_readable_file_of_an_older_version_is_made_private(tmp_path):
    path = tmp_path / "g.sqlite3"
    GameStore(path)
    os.chmod(path, 0o644)
    GameStore(path)
    assert _stat.S_IMODE(os.stat(path).st_mode) == 0o600


class _FullDisk:
    """A connection whose writes fail as SQLite's do when the disk is full."""

    def __init__(self, con):
        self._con = con

    def execute(self, sql, *args):
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
            raise sqlite3.OperationalError("database or disk is full")
        return self._con.execute(sql, *args)

    def close(self):
        self._con.close()


def test_full_disk_gives_one_line_naming_the_file_and_changes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "g.sqlite3"
    store = GameStore(path)
    gid = store.create("n20", "fuentes")
    store.append(gid, {"kind": "x", "i": 0})
    real_open = GameStore._open
    monkeypatch.setattr(GameStore, "_open", lambda self: _FullDisk(real_open(self)))
    with pytest.raises(StorageError) as err:
        store.append(gid, {"kind": "x", "i": 1})
    msg = str(err.value)
    assert "\n" not in msg and str(path) in msg and "disk is full" in msg
    monkeypatch.undo()
    assert [e["i"] for e in store.load(gid).events] == [0]


def test_full_disk_at_start_is_reported(tmp_path, monkeypatch):
    import shutil

    store = GameStore(tmp_path / "g.sqlite3")
    monkeypatch.setattr(shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10 ** 9, 10 ** 9 - 4096, 4096))
    with pytest.raises(StorageError, match="disk is full"):
        store.check_writable()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folder_says_so(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    os.chmod(folder, 0o500)
    try:
        with pytest.raises(StorageError) as err:
            GameStore(folder / "games.sqlite3")
        assert "read-only" in str(err.value) or "permission denied" in str(err.value)
        assert str(folder / "games.sqlite3") in str(err.value)
    finally:
        os.chmod(folder, 0o700)


def test_read_only_file_in_a_read_only_folder_says_so(tmp_path, monkeypatch):
    """Whoever runs the tests (root ignores file modes), SQLite's own read-only error becomes one line."""
    store = GameStore(tmp_path / "g.sqlite3")
    gid = store.create("n20", "fuentes")
    real_open = GameStore._open

    class _ReadOnly(_FullDisk):
        def execute(self, sql, *args):
            if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE", "BEGIN")):
                raise sqlite3.OperationalError("attempt to write a readonly database")
            return self._con.execute(sql, *args)

    monkeypatch.setattr(GameStore, "_open", lambda self: _ReadOnly(real_open(self)))
    with pytest.raises(StorageError, match="read-only") as err:
        store.append(gid, {"kind": "x"})
    assert str(tmp_path / "g.sqlite3") in str(err.value) and "\n" not in str(err.value)


def test_a_file_that_is_not_a_saved_games_file(tmp_path):
    path = tmp_path / "g.sqlite3"
    path.write_bytes(b"this is not sqlite " * 100)
    with pytest.raises(StorageError, match="not a Vedette saved-games file"):
        GameStore(path)


@pytest.fixture
def small_tmpfs(tmp_path):
    """A real 256 kB tmpfs (when the tests may mount one, e.g. as root in a container); yields a mounter."""
    import subprocess

    mounted = []

    def mount(name: str, opts: str):
        target = tmp_path / name
        target.mkdir()
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(target)], capture_output=True)
        if r.returncode != 0:
            pytest.skip("cannot mount a tmpfs here")
        mounted.append(target)
        return target

    yield mount
    for target in mounted:
        subprocess.run(["umount", str(target)], capture_output=True)


def test_a_real_full_disk_gives_one_line_and_keeps_what_was_saved(small_tmpfs):
    folder = small_tmpfs("full", "size=256k,mode=0700")
    path = folder / "games.sqlite3"
    store = GameStore(path)
    gid = store.create("n20", "fuentes")
    saved = 0
    with pytest.raises(StorageError) as err:
        for i in range(10_000):
            store.append(gid, {"kind": "x", "i": i, "pad": "p" * 4000})
            saved += 1
    msg = str(err.value)
    assert "disk is full" in msg and str(path) in msg and "\n" not in msg
    assert saved > 0 and store.load(gid).n_events == saved     # everything committed before is still there


def test_a_real_read_only_folder_says_so(small_tmpfs):
    folder = small_tmpfs("ro", "ro,size=64k")
    with pytest.raises(StorageError) as err:
        GameStore(folder / "games.sqlite3")
    assert "read-only" in str(err.value) and str(folder / "games.sqlite3") in str(err.value)


def test_optimistic_check_keeps_only_actions_made_on_the_stored_position(tmp_path):
    """Two sessions hold the same game at 1 event; the first to act wins, the second is refused and
    nothing of it is stored; an undo from a stale page removes nothing (issue 15.5)."""
    from dashboards.server.storage import GameStore, StaleGame
    store = GameStore(tmp_path / "g.sqlite3")
    gid = store.create("n20", "fuentes", events=[{"kind": "action", "n": 0}])
    assert store.append(gid, {"kind": "action", "n": 1}, expected=1) == 1      # session A
    with pytest.raises(StaleGame, match="another window"):
        store.append(gid, {"kind": "action", "n": "B"}, expected=1)             # session B, stale
    assert [e["n"] for e in store.load(gid).events] == [0, 1]
    with pytest.raises(StaleGame):
        store.truncate(gid, 0, expected=1)                                       # B's undo: stale
    assert len(store.load(gid).events) == 2
    store.truncate(gid, 1, expected=2)
    assert len(store.load(gid).events) == 1


def test_another_programs_sqlite_file_is_refused_and_left_as_it_was(tmp_path):
    """Issue 28 (hardening): ``--db`` naming another program's SQLite file is refused before anything is
    changed: no table added, its permissions as they were."""
    path = tmp_path / "notes.sqlite3"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    con.execute("INSERT INTO notes(text) VALUES ('shopping')")
    con.commit()
    con.close()
    os.chmod(path, 0o644)
    before = path.read_bytes()
    with pytest.raises(StorageError, match="another program's SQLite file"):
        GameStore(path)
    assert path.read_bytes() == before and _stat.S_IMODE(os.stat(path).st_mode) == 0o644
    con = sqlite3.connect(path)
    assert [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")] == ["notes"]
    con.close()


def test_a_file_that_is_not_sqlite_keeps_its_permissions(tmp_path):
    path = tmp_path / "report.txt"
    path.write_text("not a database\n" * 10)
    os.chmod(path, 0o644)
    with pytest.raises(StorageError, match="not a Vedette saved-games file"):
        GameStore(path)
    assert _stat.S_IMODE(os.stat(path).st_mode) == 0o644 and path.read_text().startswith("not a database")


def test_a_schema_2_file_is_migrated_to_live_games(tmp_path):
    """Schema 2 -> 3 adds the change counter, the seats, the action under way and the keys' first use; the
    games stay, and every change then moves the counter."""
    path = tmp_path / "g.sqlite3"
    store = GameStore(path)
    gid = store.create("n20", "fuentes", sides=("french", "allied"))
    store.append(gid, {"kind": "x"})
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value='2' WHERE key='schema'")
    con.commit()
    con.close()
    again = GameStore(path)
    g = again.load(gid)
    assert g.n_events == 1 and g.seats == {} and g.pending is None
    rev = again.revs([gid])[gid]
    assert again.change(gid, rev, event={"kind": "y"}) == rev + 1
    with pytest.raises(StaleGame):
        again.change(gid, rev, event={"kind": "z"})             # a stale counter writes nothing
    assert again.load(gid).n_events == 2


def _other_process(path: str, sql: str) -> None:
    """A short connection of another process (a second ``vedette-serve`` worker): run ``sql``, close."""
    import subprocess
    import sys
    code = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
            "c.execute(sys.argv[2]); c.close()")
    subprocess.run([sys.executable, "-c", code, path, sql], check=True, timeout=60)


def test_a_store_made_while_the_watcher_is_open_still_hears_other_processes(tmp_path):
    """Issue 28.2, ``--num-procs 2``: a page made while this process's watcher holds the file open (a
    GameStore per page) must not drop the watcher's locks. Before, the file's header was read with open()
    and close(), which drops every POSIX lock of the process on the file: another process's closing
    connection then took the file as unused, deleted its -wal and -shm, and this process's watcher never
    saw another change (the other browser waited for a move forever)."""
    path = tmp_path / "games.sqlite3"
    GameStore(path)
    w = GameStore(path).watcher()
    try:
        w.changed()                                  # the watcher's connection is open from here on
        GameStore(path)                              # a new page's store, in this process
        _other_process(str(path), "SELECT COUNT(*) FROM meta")          # opened and closed elsewhere
        _other_process(str(path), "INSERT INTO meta(key, value) VALUES('moved', '1')")
        assert w.changed()                           # the other process's commit is seen here
    finally:
        w.close()
