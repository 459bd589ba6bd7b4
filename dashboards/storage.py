"""Saved games for the served app: one SQLite file (stdlib ``sqlite3``), every action committed at once.

A saved game is the header of a game record (game, scenario, edition, options, seed) plus its ordered
events. Each event is written and committed the moment it happens, in its own transaction, so a server
that is killed loses nothing: reopening the file gives back every event up to the last one played.
Undo removes the last event (also committed at once). Bookmarks name a position in a game's event list.

The file is chosen, in order, by the ``path`` argument, the ``VEDETTE_DB`` environment variable
(``vedette-serve --db PATH`` sets it), or ``games.sqlite3`` in the per-user data folder (platformdirs).

The store is used from several sessions (and, with ``--num-procs``, several processes) at once:
every call opens its own short connection, so no connection is shared between threads.
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

__all__ = ["GameStore", "SavedGame", "Bookmark", "default_db_path", "ENV_VAR", "SCHEMA_VERSION"]

ENV_VAR = "VEDETTE_DB"
SCHEMA_VERSION = 1

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
"""


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
    game: str
    scenario: str
    edition: str
    options: dict
    seed: int | None
    title: str
    status: str
    created: float
    updated: float
    events: tuple = ()
    bookmarks: tuple[Bookmark, ...] = ()
    n_events: int = 0

    def header(self) -> dict[str, Any]:
        """The record header (what a game record needs besides its events)."""
        return {"game": self.game, "scenario": self.scenario, "edition": self.edition,
                "options": dict(self.options), "seed": self.seed}

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game, "scenario": self.scenario, "edition": self.edition,
                "title": self.title, "status": self.status, "events": self.n_events,
                "updated": time.strftime("%Y-%m-%d %H:%M", time.localtime(self.updated))}


class GameStore:
    """Saved games in one SQLite file. Cheap to create: make one per session or per call."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path).expanduser() if path is not None else default_db_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as con:
            con.executescript(_SCHEMA)
            row = con.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                con.execute("INSERT INTO meta(key, value) VALUES('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) != SCHEMA_VERSION:
                raise RuntimeError(f"{self.path}: saved-games file has schema {row[0]}, "
                                   f"this version reads {SCHEMA_VERSION}")

    # -- connections -------------------------------------------------------------------------------
    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        con = sqlite3.connect(self.path, timeout=10, isolation_level=None)  # autocommit; explicit BEGIN below
        try:
            con.execute("PRAGMA foreign_keys = ON")
            con.execute("PRAGMA journal_mode = WAL")
            con.execute("PRAGMA synchronous = FULL")
            yield con
        finally:
            con.close()

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
    def create(self, game: str, scenario: str, edition: str = "", options: dict | None = None,
               seed: int | None = None, title: str = "", events: list | tuple = ()) -> str:
        """Start a saved game (optionally with events already played, e.g. an imported record)."""
        gid = uuid.uuid4().hex[:12]
        now = time.time()
        with self._transaction() as con:
            con.execute("INSERT INTO games(id, game, scenario, edition, options, seed, title, created, updated) "
                        "VALUES(?,?,?,?,?,?,?,?,?)",
                        (gid, game, scenario, edition, json.dumps(options or {}, sort_keys=True), seed,
                         title or f"{game} {scenario}", now, now))
            for i, ev in enumerate(events):
                con.execute("INSERT INTO events(game_id, seq, event, created) VALUES(?,?,?,?)",
                            (gid, i, json.dumps(ev, sort_keys=True), now))
        return gid

    def append(self, game_id: str, event: dict) -> int:
        """Add one event at the end of the game's list and commit it now; returns its position."""
        with self._transaction() as con:
            self._require(con, game_id)
            (n,) = con.execute("SELECT COUNT(*) FROM events WHERE game_id=?", (game_id,)).fetchone()
            now = time.time()
            con.execute("INSERT INTO events(game_id, seq, event, created) VALUES(?,?,?,?)",
                        (game_id, n, json.dumps(event, sort_keys=True), now))
            con.execute("UPDATE games SET updated=? WHERE id=?", (now, game_id))
        return n

    def truncate(self, game_id: str, length: int) -> None:
        """Keep only the first ``length`` events (undo); bookmarks beyond the end go too."""
        if length < 0:
            raise ValueError("length must be >= 0")
        with self._transaction() as con:
            self._require(con, game_id)
            con.execute("DELETE FROM events WHERE game_id=? AND seq>=?", (game_id, length))
            con.execute("DELETE FROM bookmarks WHERE game_id=? AND position>?", (game_id, length))
            con.execute("UPDATE games SET updated=? WHERE id=?", (time.time(), game_id))

    def set_status(self, game_id: str, status: str) -> None:
        with self._transaction() as con:
            self._require(con, game_id)
            con.execute("UPDATE games SET status=?, updated=? WHERE id=?", (status, time.time(), game_id))

    def rename(self, game_id: str, title: str) -> None:
        with self._transaction() as con:
            self._require(con, game_id)
            con.execute("UPDATE games SET title=? WHERE id=?", (title, game_id))

    def delete(self, game_id: str) -> None:
        with self._transaction() as con:
            self._require(con, game_id)
            con.execute("DELETE FROM events WHERE game_id=?", (game_id,))
            con.execute("DELETE FROM bookmarks WHERE game_id=?", (game_id,))
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
        """Saved games, most recently updated first (without their events)."""
        q = ("SELECT g.*, (SELECT COUNT(*) FROM events e WHERE e.game_id=g.id) FROM games g"
             + (" WHERE g.game=?" if game else "") + " ORDER BY g.updated DESC")
        with self._connect() as con:
            rows = con.execute(q, (game,) if game else ()).fetchall()
        return [self._saved(r[:-1], n_events=r[-1]) for r in rows]

    def exists(self, game_id: str) -> bool:
        with self._connect() as con:
            return con.execute("SELECT 1 FROM games WHERE id=?", (game_id,)).fetchone() is not None

    # -- helpers -----------------------------------------------------------------------------------
    @staticmethod
    def _require(con: sqlite3.Connection, game_id: str) -> tuple:
        row = con.execute("SELECT id, game, scenario, edition, options, seed, title, status, created, updated "
                          "FROM games WHERE id=?", (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no saved game {game_id!r}")
        return row

    @staticmethod
    def _saved(row: tuple, **kw) -> SavedGame:
        gid, game, scenario, edition, options, seed, title, status, created, updated = row
        return SavedGame(id=gid, game=game, scenario=scenario, edition=edition, options=json.loads(options),
                         seed=seed, title=title, status=status, created=created, updated=updated, **kw)
