"""Saved games for the served app: one SQLite file (stdlib ``sqlite3``), every action committed at once.

A saved game is the header of a game record (game, scenario, edition, options, seed) plus its ordered
events. Each event is written and committed the moment it happens, in its own transaction, so a server
that is killed loses nothing: reopening the file gives back every event up to the last one played.
Undo removes the last event (also committed at once). Bookmarks name a position in a game's event list.

The file is chosen, in order, by the ``path`` argument, the ``VEDETTE_DB`` environment variable
(``vedette-serve --db PATH`` sets it), or ``games.sqlite3`` in the per-user data folder (platformdirs).

The store is used from several sessions (and, with ``--num-procs``, several processes) at once:
every call opens its own short connection, so no connection is shared between threads.

The store serves every game system: each game names its ``system`` (``n20``, ``lob``, ``tbf``, ``bc``) and
the ``engine_version`` that recorded it. Each game has secret keys (``secrets.token_urlsafe``): one for the
owner (may do everything, and mark the game public) and one per side (may act for that side). The served
pages carry a key in their URL; a game marked public may be watched and replayed by anyone, read-only.

Problems with the file (a full disk, a read-only folder, a file that is not a saved-games file) raise
:class:`StorageError` with a one-line message naming the file and the cause. A folder the store creates is
private to the user (0700) and so is the file (0600): it holds the games' keys. An existing file is
checked before anything is changed: a file that is not SQLite, or another program's SQLite file (tables
but no Vedette schema mark), is refused untouched (no permission change, no table added).

Live games (issue 28): every change of a game (an action, an undo, its seats, public or not) adds one to
its change counter ``rev`` in the same transaction, so a server process learns cheaply that another one
changed a game it shows (:meth:`GameStore.revs`, after SQLite's own ``PRAGMA data_version`` said the file
changed). Each game has seats: which side a person plays (by link) and which a bot (``{"allied": "greedy"}``).
"""
from __future__ import annotations

import errno
import json
import os
import secrets
import sqlite3
import stat
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from engine.core.errors import VedetteError

__all__ = ["GameStore", "SavedGame", "Bookmark", "StorageError", "StaleGame", "StoreWatcher", "default_db_path", "ENV_VAR", "SCHEMA_VERSION",
           "OWNER"]

ENV_VAR = "VEDETTE_DB"
SCHEMA_VERSION = 3
OWNER = "owner"
#: bytes of randomness in a key (token_urlsafe gives 22 characters for 16 bytes)
KEY_BYTES = 16

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    scenario TEXT NOT NULL,
    edition TEXT NOT NULL DEFAULT '',
    options TEXT NOT NULL DEFAULT '{}',
    seed INTEGER,
    title TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'in progress',
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS bookmarks (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    label TEXT NOT NULL,
    PRIMARY KEY (game_id, position)
);
CREATE TABLE IF NOT EXISTS keys (
    token TEXT PRIMARY KEY,
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    role TEXT NOT NULL
);
"""
# columns added in schemas 2 and 3 (added to an older file by ALTER TABLE, keeping its games)
_NEW_COLUMNS = {"system": "TEXT NOT NULL DEFAULT ''", "engine_version": "TEXT NOT NULL DEFAULT ''",
                "public": "INTEGER NOT NULL DEFAULT 0", "rev": "INTEGER NOT NULL DEFAULT 0",
                "seats": "TEXT NOT NULL DEFAULT '{}'", "pending": "TEXT NOT NULL DEFAULT ''"}
_NEW_KEY_COLUMNS = {"claimed": "REAL"}
_GAME_COLUMNS = ("id, system, scenario, edition, options, seed, title, status, created, updated, engine_version, "
                 "public, rev, seats, pending")
#: the tables of a saved-games file (a file with other tables is another program's)
_OUR_TABLES = frozenset({"meta", "games", "events", "bookmarks", "keys"})


class StorageError(VedetteError):
    """The saved-games file cannot be used; the message is one line naming the file and the cause."""

    def __init__(self, path, cause: str):
        self.path, self.cause = str(path), cause
        super().__init__(f"saved-games file {path}: {cause}")


class StaleGame(VedetteError):
    """The saved game changed in another session since this one read it: nothing was written."""

    def __init__(self, game_id: str, expected: int, found: int):
        self.game_id, self.expected, self.found = game_id, expected, found
        super().__init__(f"this game was changed in another window or by another player ({found} actions "
                         f"saved, this page had {expected}); nothing was saved: the page shows the game as "
                         "it is now")


def _cause(exc: BaseException, path: Path) -> str:
    """A person's words for why SQLite (or the OS) could not use ``path``."""
    if isinstance(exc, OSError):
        if exc.errno == errno.ENOSPC:
            return "the disk is full"
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return f"permission denied ({exc.strerror}): the folder or file is read-only for this user"
        return exc.strerror or str(exc)
    msg = str(exc).lower()
    if "disk is full" in msg or "disk full" in msg:
        return "the disk is full (the game could not be saved)"
    if "readonly" in msg or "read-only" in msg:
        return "the file or its folder is read-only for this user (the game could not be saved)"
    if "locked" in msg or "busy" in msg:
        return "another program holds the file locked; try again"
    if "not a database" in msg or "malformed" in msg:
        return "this file is not a Vedette saved-games file (or it is damaged)"
    if "unable to open" in msg or "disk i/o" in msg:
        folder = path.parent
        if not folder.is_dir():
            return f"its folder {folder} does not exist"
        if not os.access(folder, os.W_OK | os.X_OK):
            return f"its folder {folder} is read-only for this user"
        if path.exists() and not os.access(path, os.R_OK | os.W_OK):
            return "the file is not readable and writable by this user"
        return "the file cannot be opened (" + str(exc)[:80] + ")"
    return str(exc)[:120]


def _make_private_dirs(folder: Path) -> None:
    """Create ``folder`` and any missing parents, each one 0700 (existing folders are left as they are)."""
    missing = []
    p = folder
    while not p.exists():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir(mode=0o700)
        except FileExistsError:
            continue
        os.chmod(d, 0o700)   # mkdir's mode is masked by the umask; the folder must be private whatever it is


def new_key() -> str:
    return secrets.token_urlsafe(KEY_BYTES)


def default_db_path() -> Path:
    """``$VEDETTE_DB`` if set, else ``games.sqlite3`` in the per-user data folder."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("vedette", appauthor=False)) / "games.sqlite3"


@dataclass(frozen=True)
class Bookmark:
    position: int
    label: str


@dataclass(frozen=True)
class SavedGame:
    """One saved game: its header, its events (JSON-able dicts) and bookmarks."""

    id: str
    system: str
    scenario: str
    edition: str
    options: dict
    seed: int | None
    title: str
    status: str
    created: float
    updated: float
    engine_version: str = ""
    public: bool = False
    rev: int = 0
    seats: dict = field(default_factory=dict)
    pending: dict | None = None
    events: tuple = ()
    bookmarks: tuple[Bookmark, ...] = ()
    n_events: int = 0

    @property
    def game(self) -> str:
        """The game system (older name of :attr:`system`)."""
        return self.system

    def header(self) -> dict[str, Any]:
        """The record header (what a game record needs besides its events)."""
        return {"game": self.system, "scenario": self.scenario, "edition": self.edition,
                "options": dict(self.options), "seed": self.seed, "engine_version": self.engine_version}

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.system, "scenario": self.scenario, "edition": self.edition,
                "title": self.title, "status": self.status, "events": self.n_events,
                "public": "public" if self.public else "private",
                "updated": time.strftime("%Y-%m-%d %H:%M", time.localtime(self.updated))}


class GameStore:
    """Saved games in one SQLite file. Cheap to create: make one per session or per call."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path).expanduser() if path is not None else default_db_path()
        try:
            if self.path.exists():
                self._check_ours()     # before anything changes: another program's file stays as it is
                if self.path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO) and self.path.stat().st_uid == os.getuid():
                    os.chmod(self.path, 0o600)     # a file made by an older version (0644): it holds the keys now
            else:
                _make_private_dirs(self.path.parent)
                # created here, private (0600), before SQLite opens it (SQLite gives its -wal and -shm files
                # the same permissions)
                os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
                os.chmod(self.path, 0o600)
        except FileExistsError:
            pass
        except OSError as exc:
            raise StorageError(self.path, _cause(exc, self.path)) from None
        with self._connect() as con:
            con.executescript(_SCHEMA)
            row = con.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                self._add_columns(con)
                con.execute("INSERT INTO meta(key, value) VALUES('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) == 1:
                self._migrate_1(con)
            elif int(row[0]) == 2:
                self._migrate_2(con)
            elif int(row[0]) != SCHEMA_VERSION:
                raise StorageError(self.path, f"it has schema {row[0]}, this version of Vedette reads "
                                              f"{SCHEMA_VERSION} (it was made by a newer version)")

    def _check_ours(self) -> None:
        """Refuse, changing nothing, a file that is not a saved-games file: not SQLite at all, or an SQLite
        file with tables of its own and no Vedette schema mark. An empty file or an empty SQLite file is
        taken (a file being made)."""
        not_ours = "this file is not a Vedette saved-games file (or it is damaged); nothing in it was changed"
        if not self.path.is_file():
            raise StorageError(self.path, "this is not a file (a folder or a device?); nothing was changed")
        # read through SQLite, never with open(): closing a file descriptor of the database drops every POSIX
        # lock this process holds on it (the live games' watcher's too); another process may then take the
        # file as unused, delete its -wal and -shm files, and this process reads a stale copy for good
        # (a plain connection, not mode=ro: one left behind by a server that was killed needs its write-ahead log
        # recovered, which a read-only connection cannot do; query_only keeps this look from writing anything)
        try:
            con = sqlite3.connect(str(self.path), timeout=10)
        except sqlite3.Error as exc:
            raise StorageError(self.path, _cause(exc, self.path)) from None
        try:
            con.execute("PRAGMA query_only = ON")
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            mark = (con.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
                    if "meta" in tables else None)
        except sqlite3.DatabaseError as exc:
            if "not a database" in str(exc):
                raise StorageError(self.path, not_ours) from None
            raise StorageError(self.path, _cause(exc, self.path)) from None
        except sqlite3.Error as exc:
            raise StorageError(self.path, _cause(exc, self.path)) from None
        finally:
            con.close()
        tables = {t for t in tables if not t.startswith("sqlite_")}
        if tables and (mark is None or not tables <= _OUR_TABLES):
            raise StorageError(self.path, "this is another program's SQLite file, not a Vedette saved-games file; "
                                          "nothing in it was changed")

    #: below this much free space on the file's disk, ``check_writable`` says the disk is full
    MIN_FREE_BYTES = 1 << 20

    def check_writable(self) -> None:
        """Write to the file now (and check the disk has room), so a server says at start what is wrong."""
        import shutil

        try:
            free = shutil.disk_usage(self.path.parent).free
        except OSError as exc:
            raise StorageError(self.path, _cause(exc, self.path)) from None
        if free < self.MIN_FREE_BYTES:
            raise StorageError(self.path, f"the disk is full ({free // 1024} kB free)")
        with self._transaction() as con:
            con.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('last_check', ?)", (str(time.time()),))

    @staticmethod
    def _add_columns(con: sqlite3.Connection) -> None:
        for table, columns in (("games", _NEW_COLUMNS), ("keys", _NEW_KEY_COLUMNS)):
            have = {r[1] for r in con.execute(f"PRAGMA table_info({table})")}
            for name, decl in columns.items():
                if name not in have:
                    con.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}")

    def _migrate_2(self, con: sqlite3.Connection) -> None:
        """Schema 2 → 3: add the change counter, the seats and the keys' first use; no game is lost."""
        con.execute("BEGIN IMMEDIATE")
        try:
            self._add_columns(con)
            con.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION),))
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")

    def _migrate_1(self, con: sqlite3.Connection) -> None:
        """Schema 1 → 2: add the system, engine version and public columns and give every game an owner key
        (``vedette-serve --links`` prints them); no game or event is lost."""
        con.execute("BEGIN IMMEDIATE")
        try:
            self._add_columns(con)
            con.execute("UPDATE games SET system=game WHERE system=''")
            for (gid,) in con.execute("SELECT id FROM games WHERE id NOT IN (SELECT game_id FROM keys)").fetchall():
                con.execute("INSERT INTO keys(token, game_id, role) VALUES(?,?,?)", (new_key(), gid, OWNER))
            con.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION),))
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")

    # -- connections -------------------------------------------------------------------------------
    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A short connection; SQLite and OS failures become a :class:`StorageError` naming file and cause."""
        try:
            con = self._open()
        except (sqlite3.Error, OSError) as exc:
            raise StorageError(self.path, _cause(exc, self.path)) from None
        try:
            con.execute("PRAGMA foreign_keys = ON")
            con.execute("PRAGMA journal_mode = WAL")
            con.execute("PRAGMA synchronous = FULL")
            yield con
        except (sqlite3.OperationalError, sqlite3.DatabaseError, OSError) as exc:
            if isinstance(exc, sqlite3.IntegrityError):
                raise
            raise StorageError(self.path, _cause(exc, self.path)) from None
        finally:
            con.close()

    def _open(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10, isolation_level=None)  # autocommit; explicit BEGIN below

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._connect() as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")

    # -- games -------------------------------------------------------------------------------------
    def create(self, system: str, scenario: str, edition: str = "", options: dict | None = None,
               seed: int | None = None, title: str = "", events: list | tuple = (), sides: tuple = (),
               engine_version: str = "", public: bool = False, seats: dict | None = None) -> str:
        """Start a saved game (optionally with events already played, e.g. an imported record).

        Makes an owner key and one key per side in ``sides``; :meth:`keys` gives them. ``seats``: the sides
        a bot plays, ``{side: bot name}`` (the others are people's, by link)."""
        gid = uuid.uuid4().hex[:12]
        now = time.time()
        with self._transaction() as con:
            con.execute("INSERT INTO games(id, game, system, scenario, edition, options, seed, title, created, "
                        "updated, engine_version, public, seats) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
                        (gid, system, system, scenario, edition, json.dumps(options or {}, sort_keys=True), seed,
                         title or f"{system} {scenario}", now, now, engine_version, int(bool(public)),
                         json.dumps(dict(seats or {}), sort_keys=True)))
            for role in (OWNER, *sides):
                con.execute("INSERT INTO keys(token, game_id, role) VALUES(?,?,?)", (new_key(), gid, str(role)))
            for i, ev in enumerate(events):
                con.execute("INSERT INTO events(game_id, seq, event, created) VALUES(?,?,?,?)",
                            (gid, i, json.dumps(ev, sort_keys=True), now))
        return gid

    # -- keys (who may do what) --------------------------------------------------------------------
    def keys(self, game_id: str) -> dict[str, str]:
        """``{role: key}`` of a game: ``owner`` and one per side (only for whoever already holds the owner's key)."""
        with self._connect() as con:
            self._require(con, game_id)
            return {role: tok for tok, role in con.execute(
                "SELECT token, role FROM keys WHERE game_id=? ORDER BY rowid", (game_id,))}

    def role(self, game_id: str, key: str | None) -> str | None:
        """The role ``key`` gives on ``game_id`` (``owner`` or a side), or None for no key or a wrong one."""
        if not key or not game_id:
            return None
        with self._connect() as con:
            row = con.execute("SELECT game_id, role FROM keys WHERE token=?", (key,)).fetchone()
        if row is None or not secrets.compare_digest(row[0], game_id):
            return None
        return row[1]

    def find_key(self, key: str) -> tuple[str, str] | None:
        """``(game_id, role)`` for a key, or None."""
        if not key:
            return None
        with self._connect() as con:
            row = con.execute("SELECT game_id, role FROM keys WHERE token=?", (key,)).fetchone()
        return None if row is None else (row[0], row[1])

    def set_public(self, game_id: str, public: bool) -> None:
        with self._transaction() as con:
            self._require(con, game_id)
            con.execute("UPDATE games SET public=?, rev=rev+1 WHERE id=?", (int(bool(public)), game_id))

    def claim(self, game_id: str, key: str) -> None:
        """Note that a browser opened ``game_id`` with ``key`` (the first time only): a side whose link a
        person holds is not given to a bot."""
        with self._transaction() as con:
            con.execute("UPDATE keys SET claimed=? WHERE token=? AND game_id=? AND claimed IS NULL",
                        (time.time(), key, game_id))

    def claimed(self, game_id: str) -> set[str]:
        """The roles whose link has been opened by a browser."""
        with self._connect() as con:
            return {r for (r,) in con.execute("SELECT role FROM keys WHERE game_id=? AND claimed IS NOT NULL",
                                              (game_id,))}

    def set_seats(self, game_id: str, seats: dict) -> None:
        """Which sides a bot plays (``{side: bot name}``, with ``"paused": True`` while a watched game of two
        bots is paused); the caller has checked them."""
        with self._transaction() as con:
            self._require(con, game_id)
            con.execute("UPDATE games SET seats=?, rev=rev+1 WHERE id=?", (json.dumps(dict(seats), sort_keys=True),
                                                                         game_id))

    def revs(self, game_ids) -> dict[str, int]:
        """``{game id: change counter}`` of the games asked for that exist (one cheap query)."""
        ids = [g for g in dict.fromkeys(game_ids) if isinstance(g, str)]
        out: dict[str, int] = {}
        if not ids:
            return out
        with self._connect() as con:
            for i in range(0, len(ids), 500):
                chunk = ids[i:i + 500]
                out.update(con.execute(f"SELECT id, rev FROM games WHERE id IN ({','.join('?' * len(chunk))})",
                                       chunk).fetchall())
        return out

    def watcher(self) -> "StoreWatcher":
        """A long-lived reader that says cheaply whether any other connection changed the file."""
        return StoreWatcher(self)

    def visible(self, keys, system: str | None = None) -> list[tuple[SavedGame, str | None, str | None]]:
        """The games a browser holding ``keys`` may see, newest first: ``(game, role, key)`` for each game one
        of the keys opens (the strongest role: owner before a side), then ``(game, None, None)`` for the
        public games it holds no key of."""
        keys = [k for k in dict.fromkeys(keys or ()) if isinstance(k, str) and k]
        held: dict[str, tuple[str, str]] = {}
        with self._connect() as con:
            for i in range(0, len(keys), 500):
                chunk = keys[i:i + 500]
                for tok, gid, role in con.execute(
                        f"SELECT token, game_id, role FROM keys WHERE token IN ({','.join('?' * len(chunk))})", chunk):
                    if gid not in held or role == OWNER:
                        held[gid] = (role, tok)
        out = []
        for g in self.list(system):
            if g.id in held:
                out.append((g, *held[g.id]))
            elif g.public:
                out.append((g, None, None))
        return out

    def append(self, game_id: str, event: dict, expected: int | None = None) -> int:
        """Add one event at the end of the game's list and commit it now; returns its position.

        ``expected``: the number of events the caller's position was made from. If another session
        added or removed events meanwhile, :class:`StaleGame` is raised and nothing is written (an
        optimistic check in the same transaction), so an action is only ever stored on the position it
        was legal on."""
        with self._transaction() as con:
            self._require(con, game_id)
            (n,) = con.execute("SELECT COUNT(*) FROM events WHERE game_id=?", (game_id,)).fetchone()
            if expected is not None and n != expected:
                raise StaleGame(game_id, expected, n)
            now = time.time()
            con.execute("INSERT INTO events(game_id, seq, event, created) VALUES(?,?,?,?)",
                        (game_id, n, json.dumps(event, sort_keys=True), now))
            con.execute("UPDATE games SET updated=?, rev=rev+1 WHERE id=?", (now, game_id))
        return n

    def truncate(self, game_id: str, length: int, expected: int | None = None) -> None:
        """Keep only the first ``length`` events (undo); bookmarks beyond the end go too.

        ``expected``: the number of events the caller saw; if the game has another number now (another
        session moved or undid meanwhile), :class:`StaleGame` is raised and nothing is removed."""
        if length < 0:
            raise ValueError("length must be >= 0")
        with self._transaction() as con:
            self._require(con, game_id)
            if expected is not None:
                (n,) = con.execute("SELECT COUNT(*) FROM events WHERE game_id=?", (game_id,)).fetchone()
                if n != expected:
                    raise StaleGame(game_id, expected, n)
            con.execute("DELETE FROM events WHERE game_id=? AND seq>=?", (game_id, length))
            con.execute("DELETE FROM bookmarks WHERE game_id=? AND position>?", (game_id, length))
            con.execute("UPDATE games SET updated=?, rev=rev+1 WHERE id=?", (time.time(), game_id))

    _UNCHANGED = object()

    def change(self, game_id: str, rev: int | None, *, event: dict | None = None, keep: int | None = None,
               pending: Any = _UNCHANGED, status: str | None = None, seats: dict | None = None,
               public: bool | None = None) -> int:
        """One change of a live game in one transaction, made only if the game's change counter is still
        ``rev`` (what the caller last read; None: whatever it is): append ``event``, or keep the first
        ``keep`` events (undo); set the action under way (``pending``: its JSON, or None when there is
        none), the status, the seats, whether it is public. Returns the new change counter; raises
        :class:`StaleGame` and writes nothing when another session changed the game meanwhile."""
        with self._transaction() as con:
            row = self._require(con, game_id)
            (n,) = con.execute("SELECT COUNT(*) FROM events WHERE game_id=?", (game_id,)).fetchone()
            found = int(row[12] or 0)
            if rev is not None and found != rev:
                raise StaleGame(game_id, n, n)
            now = time.time()
            if keep is not None:
                if not 0 <= keep <= n:
                    raise ValueError(f"cannot keep {keep} of {n} events")
                con.execute("DELETE FROM events WHERE game_id=? AND seq>=?", (game_id, keep))
                con.execute("DELETE FROM bookmarks WHERE game_id=? AND position>?", (game_id, keep))
            if event is not None:
                con.execute("INSERT INTO events(game_id, seq, event, created) VALUES(?,?,?,?)",
                            (game_id, n if keep is None else keep, json.dumps(event, sort_keys=True), now))
            sets: list[str] = ["rev=rev+1", "updated=?"]
            args: list[Any] = [now]
            if pending is not GameStore._UNCHANGED:
                sets.append("pending=?")
                args.append(json.dumps(pending, sort_keys=True) if pending is not None else "")
            if status is not None:
                sets.append("status=?")
                args.append(status)
            if seats is not None:
                sets.append("seats=?")
                args.append(json.dumps(dict(seats), sort_keys=True))
            if public is not None:
                sets.append("public=?")
                args.append(int(bool(public)))
            con.execute(f"UPDATE games SET {', '.join(sets)} WHERE id=?", (*args, game_id))
        return found + 1

    def set_status(self, game_id: str, status: str) -> None:
        with self._transaction() as con:
            self._require(con, game_id)
            con.execute("UPDATE games SET status=?, updated=?, rev=rev+1 WHERE id=?", (status, time.time(), game_id))

    def rename(self, game_id: str, title: str) -> None:
        with self._transaction() as con:
            self._require(con, game_id)
            con.execute("UPDATE games SET title=? WHERE id=?", (title, game_id))

    def delete(self, game_id: str) -> None:
        with self._transaction() as con:
            self._require(con, game_id)
            con.execute("DELETE FROM events WHERE game_id=?", (game_id,))
            con.execute("DELETE FROM bookmarks WHERE game_id=?", (game_id,))
            con.execute("DELETE FROM keys WHERE game_id=?", (game_id,))
            con.execute("DELETE FROM games WHERE id=?", (game_id,))

    def bookmark(self, game_id: str, position: int, label: str) -> None:
        with self._transaction() as con:
            self._require(con, game_id)
            (n,) = con.execute("SELECT COUNT(*) FROM events WHERE game_id=?", (game_id,)).fetchone()
            if not 0 <= position <= n:
                raise ValueError(f"bookmark position {position} outside 0..{n}")
            con.execute("INSERT OR REPLACE INTO bookmarks(game_id, position, label) VALUES(?,?,?)",
                        (game_id, position, label))

    def load(self, game_id: str) -> SavedGame:
        with self._connect() as con:
            row = self._require(con, game_id)
            events = tuple(json.loads(e) for (e,) in con.execute(
                "SELECT event FROM events WHERE game_id=? ORDER BY seq", (game_id,)))
            marks = tuple(Bookmark(p, lab) for p, lab in con.execute(
                "SELECT position, label FROM bookmarks WHERE game_id=? ORDER BY position", (game_id,)))
        return self._saved(row, events=events, bookmarks=marks, n_events=len(events))

    def list(self, game: str | None = None) -> list[SavedGame]:
        """Saved games of one system (or all), most recently updated first (without their events).

        Every game, whoever holds its keys: the served pages show :meth:`visible` instead."""
        cols = ", ".join(f"g.{c}" for c in _GAME_COLUMNS.split(", "))
        q = (f"SELECT {cols}, (SELECT COUNT(*) FROM events e WHERE e.game_id=g.id) FROM games g"
             + (" WHERE g.system=?" if game else "") + " ORDER BY g.updated DESC")
        with self._connect() as con:
            rows = con.execute(q, (game,) if game else ()).fetchall()
        return [self._saved(r[:-1], n_events=r[-1]) for r in rows]

    def exists(self, game_id: str) -> bool:
        with self._connect() as con:
            return con.execute("SELECT 1 FROM games WHERE id=?", (game_id,)).fetchone() is not None

    # -- helpers -----------------------------------------------------------------------------------
    @staticmethod
    def _require(con: sqlite3.Connection, game_id: str) -> tuple:
        row = con.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id=?", (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no saved game {game_id!r}")
        return row

    @staticmethod
    def _saved(row: tuple, **kw) -> SavedGame:
        gid, system, scenario, edition, options, seed, title, status, created, updated, version, public, rev, seats, \
            pending = row
        try:
            seats = json.loads(seats or "{}")
        except ValueError:
            seats = {}
        try:
            pending = json.loads(pending) if pending else None
        except ValueError:
            pending = None
        return SavedGame(id=gid, system=system, scenario=scenario, edition=edition, options=json.loads(options),
                         seed=seed, title=title, status=status, created=created, updated=updated,
                         engine_version=version, public=bool(public), rev=int(rev or 0),
                         seats=seats if isinstance(seats, dict) else {},
                         pending=pending if isinstance(pending, dict) else None, **kw)


class StoreWatcher:
    """One connection kept open to say whether the file changed since the last look: SQLite's
    ``PRAGMA data_version`` changes when another connection (this process's or another's) commits, and
    costs no read of the tables. Used from one thread (the live games' watcher)."""

    def __init__(self, store: GameStore):
        self.store = store
        self._con: sqlite3.Connection | None = None
        self._last: int | None = None

    def changed(self) -> bool:
        try:
            if self._con is None:
                self._con = sqlite3.connect(self.store.path, timeout=10, isolation_level=None,
                                            check_same_thread=False)
            (v,) = self._con.execute("PRAGMA data_version").fetchone()
        except sqlite3.Error:
            self.close()
            return True            # when in doubt, look
        changed, self._last = v != self._last, v
        return changed

    def close(self) -> None:
        if self._con is not None:
            try:
                self._con.close()
            except sqlite3.Error:
                pass
            self._con = None
            self._last = None
