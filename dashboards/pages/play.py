"""Play a game in the browser, for every system on the core game protocol (issue 15): Napoleonic 20,
Lines of Battle, These Brave Fellows and Battle Commander on one page (:class:`GamePlayView`), with saved
games, undo, typed or computer dice, the dice log and replay. A study's replay link (issue 16.4,
``mode=replay&seed=..&bots=A,B``) plays that bot game again and opens it read-only."""
from __future__ import annotations


from dashboards.server.access import BrowserKeys, url_arg
from dashboards.play.view import GamePlayView
from dashboards.play.study_replay import is_replay_link, parse_replay_link
from dashboards.server.storage import GameStore
from engine.core.errors import VedetteError
from engine.core.game import systems

TITLE = "Play a game"
SUMMARY = ("Hotseat play of Napoleonic 20 (Fuentes de Oñoro, Bussaco), Lines of Battle, These Brave Fellows and "
           "Battle Commander with the rules enforced: computer or table dice, undo, dice log, saved games and replays.")

#: shown as HTML (a Markdown pane would parse its text again in every session)
INTRO_HTML = ("<p>Start a scenario or open a saved game. Every action is checked by the rules engine: a refused action "
              "shows the rule number and changes nothing. Click one of your units (or a place) to narrow the list "
              "to what it may do; on the Napoleonic 20 map a click on a shaded hex moves the unit there. Each action "
              "is saved the moment it is made; the index page lists saved games.</p>")


def _system_wanted(store: GameStore) -> str:
    """The system of the page: the saved game's (``?game=``), else ``?system=``, else Napoleonic 20."""
    gid = url_arg("game", limit=40)
    if gid:
        try:
            return store.load(gid).system
        except (KeyError, VedetteError):
            pass
    system = url_arg("system", "n20", limit=10)
    return system if system in systems() else "n20"


def page():
    store = GameStore()
    system = _system_wanted(store)
    keys = BrowserKeys()
    view = GamePlayView(system, store=store, keys=keys)
    gid = url_arg("game", limit=40)
    if gid:
        view.open(gid, url_arg("key", limit=64) or None, url_arg("mode", "play", limit=10))
    elif is_replay_link(lambda k: url_arg(k, limit=200)):
        try:
            link = parse_replay_link(lambda k: url_arg(k, limit=200))
        except VedetteError as exc:                 # a short line on the page; nothing played or stored
            view._show_refusal(f"This replay link does not open a game: {str(exc)[:200]}")
        else:
            view.show_study_game(link)
    view.head.intro = INTRO_HTML        # the introduction, and the browser's keys, travel in the view's head
    root = view.__panel__()     # one column for the page and the view
    root.css_classes = [*root.css_classes, "play-page"]
    return root


__all__ = ["page", "TITLE", "SUMMARY"]
