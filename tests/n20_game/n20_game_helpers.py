"""Helpers for the game tests: a small scenario written to a temporary folder, and states built on it."""
from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path

import yaml

from engine.core.data import data_path
from engine.core.game import EventDice
from engine.core.procedure import first_option, replay as replay_procedure
from engine.n20 import game as g
from engine.n20.game.handlers import HANDLERS

BASE_UNITS = [
    {"id": "F1", "name": "French 1", "side": "french", "type": "infantry", "strength": 3, "movement": 2, "source": "provisional"},
    {"id": "F2", "name": "French 2", "side": "french", "type": "infantry", "strength": 2, "movement": 2, "source": "provisional"},
    {"id": "FC", "name": "French cav", "side": "french", "type": "cavalry", "strength": 2, "movement": 3, "source": "provisional"},
    {"id": "FG", "name": "Guard", "side": "french", "type": "infantry", "strength": 4, "movement": 2, "flags": ["elite", "guard"], "source": "provisional"},
    {"id": "A1", "name": "Allied 1", "side": "allied", "type": "infantry", "strength": 3, "movement": 2, "nationality": "british", "source": "provisional"},
    {"id": "A2", "name": "Allied 2", "side": "allied", "type": "infantry", "strength": 2, "movement": 2, "nationality": "portuguese", "source": "provisional"},
    {"id": "AC", "name": "Allied cav", "side": "allied", "type": "cavalry", "strength": 2, "movement": 3, "nationality": "british", "source": "provisional"},
    {"id": "FK1", "name": "Cadre", "side": "french", "type": "cadre", "strength": 1, "movement": 2, "source": "provisional"},
    {"id": "FK2", "name": "Cadre", "side": "french", "type": "cadre", "strength": 1, "movement": 2, "source": "provisional"},
    {"id": "AS", "name": "Irregulars", "side": "allied", "type": "infantry", "strength": 1, "movement": 2, "flags": ["irregular"], "nationality": "spanish", "source": "provisional"},
]


def make_scenario(tmp_path: Path, name: str = "t", *, edition: str = "v3", hexes=None, hexsides=(), roads=(),
                  loc=None, objectives=(), entry_areas=None, units=None, setup=(), reinforcements=(),
                  set_aside=(), morale=None, night_turns=(5, 6), last_turn=8, start_turn=1, sudden_death=None,
                  lulls_from_turn=None, exclusive=None, cards=None, extra=None, cols=8, rows=8) -> str:
    d = tmp_path / name
    d.mkdir(parents=True, exist_ok=True)
    m = {"source": "provisional", "name": "test map",
         "grid": {"orientation": "flat", "shifted": "even", "cols": cols, "rows": rows},
         "hexes": hexes or {}, "hexsides": list(hexsides), "roads": list(roads),
         "loc": loc or {"allied": ["0101"], "french": ["0808"]},
         "objectives": list(objectives), "entry_areas": entry_areas or {"A": ["0808", "0807"]}}
    (d / "map.yaml").write_text(yaml.safe_dump(m), encoding="utf-8")
    (d / "units.yaml").write_text(yaml.safe_dump({"source": "provisional", "units": units or BASE_UNITS}), encoding="utf-8")
    cards = cards or [{"id": "C1", "title": "quiet", "source": "provisional",
                       "french": {"effect": "none"}, "allied": {"effect": "none"}}]
    (d / "events.yaml").write_text(yaml.safe_dump({"source": "provisional", "cards": cards}), encoding="utf-8")
    sc = {"id": name, "name": name, "source": "provisional", "edition": edition,
          "tables": str(data_path("n20", f"tables_{edition}.yaml")), "map": "map.yaml", "units": "units.yaml",
          "events": "events.yaml", "first_player": "french", "start_turn": start_turn,
          "morale": morale or {"french": 6, "allied": 6}, "morale_source": "provisional",
          "skip_first_event": False, "lulls_from_turn": lulls_from_turn,
          "turn_track": {"source": "provisional", "days": ["d1", "d2"], "day_turns": ["a", "b", "c", "d", "n1", "n2"],
                         "night_turns": list(night_turns), "last_turn": last_turn},
          "sudden_death": {"source": "provisional", "turns": sudden_death or {}},
          "setup": [{"unit": u, "hex": h} for u, h in setup], "reinforcements": list(reinforcements),
          "set_aside": list(set_aside), "exclusive": exclusive or {}}
    sc.update(extra or {})
    p = d / "scenario.yaml"
    p.write_text(yaml.safe_dump(sc, allow_unicode=True), encoding="utf-8")
    return str(p)


def at(state, step: str, player: str = "french", turn: int | None = None, **kw):
    """The same state moved to a phase (a test shortcut, not a game action)."""
    return replace(state, step=step, player=player, turn=turn if turn is not None else state.turn, **kw)


def put(state, **where):
    """Move units (id=hex, or id=None to take it off the map as 'gone'); a state still before the movement
    phase is moved to the French movement phase."""
    if state.step in ("event", "setup", "bessieres"):
        state = replace(state, step="movement")
    ch = {}
    for uid, h in where.items():
        u = state.unit(uid)
        ch[uid] = replace(u, status="map" if h else "gone", hex=h)
    return state.with_units(ch)


def dests(state, uid):
    return sorted(g.reachable(state, uid))


def apply_action(state, action, dice=None, chooser=None, index: int = 0):
    """The state after ``action`` through the protocol (``RULES.begin`` and ``run``): dice not given come
    from the core seeding rule for the game's seed and the action's ``index`` in the game (what a game
    loop would roll for it), choices inside the procedure from ``chooser`` (default: the first option)."""
    return apply_logged(state, action, dice, chooser, index)[0]


def apply_logged(state, action, dice=None, chooser=None, index: int = 0):
    """Like :func:`apply_action`, with the record event of the action."""
    p = g.RULES.begin(state, action).run(dice if dice is not None else EventDice(state.seed, index),
                                         chooser or first_option)
    return p.state, p.event()


def legal(state, unit: str | None = None):
    """The legal actions of the side to act (``unit``: that unit's only)."""
    return g.RULES.legal_actions(state, unit)


def procedure_result(p):
    """What the action's rules procedure returned (e.g. a battle's ``("battle", index, battle, Outcome)``),
    for a finished core Pending: the procedure replayed on its answers."""
    h = HANDLERS[p.action.kind]
    return replay_procedure(partial(h.procedure, p.before, p.action), p.events).result
