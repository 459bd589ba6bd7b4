"""What each side may see of a Napoleonic 20 game under Fog of War (16.1-16.1.3), and the odds it may be
shown: the per-side view the play layer sends each browser (:meth:`N20Rules.view`), actions and log
events as that side may know them, and :func:`odds_view`.

* A counter the enemy has not revealed (16.1.1) shows its back only: its side and, in the v3.0 rules, its
  nationality (000 2.0: the hidden side names it). Nothing else: no id, name, type or strength; a dummy
  (16.1.3) looks like any other counter. The older edition (001 2.0) prints the Combat Strength and
  Movement Allowance on the back; a dummy's back is not in our data, and a dummy must look like a unit,
  so there the back shows the side only (docs/n20-game.md, rules choices).
* Each face-down counter has a public token, stable while it stays on the map (a player can follow a
  face-down counter) and new each time it is put on the map (a dummy that comes back, a rallied unit, the
  two pieces of a 16.1.3 shell game). The token is a keyed hash of the unit and that count; the key is
  worked out slowly from the game's seed, which no view carries, so the browser can neither read nor
  rebuild a unit from it.
* Revealed counters (16.1.1: battles declared, the Guard committed, cavalry at the end of a day movement
  phase) show in full until their side's night turn ends (16.1.2, :func:`~.phases.night_operations`).
* A side sees its own pieces in full; ``None`` (a spectator) sees what both sides may.
"""
from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import replace
from functools import lru_cache

from engine.core.odds import ActionOdds, action_odds

from .actions import Action
from .combat import hex_of
from .scenario import UnitDef
from .state import Battle, GameState, UnitState, evolve
from .types import HIDDEN, Status, is_garrison
from .zoc import distance

__all__ = ["HIDDEN", "hides", "hidden_tokens", "token", "view", "visible_action", "visible_event",
           "face_nationality", "odds_unknown", "odds_view"]

#: rounds of the slow key derivation: trying every small seed costs about this many hashes a seed
_KEY_ROUNDS = 60_000


def hides(state: GameState) -> bool:
    """16.1 is in use: some counters are face-down to one side."""
    return state.has("fog_of_war")


@lru_cache(maxsize=256)
def _key(seed: int) -> bytes:
    # slow on purpose (PBKDF2): a browser that tried the seeds one by one would pay this for each
    return hashlib.pbkdf2_hmac("sha256", str(int(seed)).encode(), b"vedette n20 16.1 face-down counters",
                               _KEY_ROUNDS)


def token(state: GameState, uid: str) -> str:
    """The public token of ``uid``'s face-down counter: ``X`` and six letters or digits, the same while
    the counter stays on the map, another each time it is put on the map again (:attr:`UnitState.placed`)."""
    u = state.unit(uid)
    raw = hashlib.blake2b(f"{uid}:{u.placed}".encode(), key=_key(state.seed), digest_size=5).digest()
    return "X" + base64.b32encode(raw).decode()[:6]


def hidden_tokens(state: GameState, side: str | None) -> dict[str, str]:
    """unit id -> token for every counter on the map that is face-down to ``side`` (the enemy's; both
    sides' for a spectator). Empty without Fog of War."""
    if not hides(state):
        return {}
    units = state.scenario.units
    return {u.id: token(state, u.id) for u in state.units
            if u.status == Status.MAP and not u.revealed and (side is None or units[u.id].side != side)}


def face_nationality(state: GameState, d: UnitDef) -> str:
    """What a counter's back says of it besides its side: its nationality in the v3.0 rules (000 2.0),
    nothing in the older edition (001 2.0 prints strength and allowance there, which a view withholds)."""
    return d.nationality if state.scenario.edition == "v3" else ""


def _unknown_to(state: GameState, side: str | None, d: UnitDef) -> bool:
    """Whether ``side`` knows nothing of this counter off the map: the enemy's dummies (16.1.3)."""
    return d.type == "dummy" and (side is None or d.side != side)


def view(state: GameState, side: str | None) -> GameState:
    """``state`` as ``side`` may see it (``None``: a spectator). A value of the same type: the enemy's
    face-down counters carry their token as id and a scenario entry saying only their side and
    nationality (type :data:`HIDDEN`), listed after the others in token order (the order of a state's
    units would tell them apart); the enemy's dummies off the map are left out; the seed is 0 in every
    view (it decides the dice to come); the enemy's bookkeeping that would name a hidden piece speaks of
    tokens or is left out (the pair a dummy arrived with, 16.1.3)."""
    sc = state.scenario
    tokens = hidden_tokens(state, side)
    units, masked = [], []
    defs = {}
    hidden_defs = {}
    for u in state.units:
        d = sc.units[u.id]
        t = tokens.get(u.id)
        if t is not None:
            # its markers show (Routed!, fatigue, square); the bookkeeping of what it did this phase does not
            # (a counter that moved and one that did not would tell the two of a shell game apart, 16.1.3)
            masked.append(UnitState(t, Status.MAP, u.hex, routed=u.routed, fatigue=u.fatigue, revealed=False,
                                    square=u.square))
            hidden_defs[t] = UnitDef(t, "", d.side, HIDDEN, 0, 0, 0, frozenset(), face_nationality(state, d), "",
                                     "16.1")
        elif hides(state) and _unknown_to(state, side, d):
            continue
        else:
            units.append(u)
            defs[u.id] = d
    masked.sort(key=lambda u: u.id)
    for t in sorted(hidden_defs):
        defs[t] = hidden_defs[t]

    def name(uid: str) -> str:
        return tokens.get(uid, uid)

    def names(ids) -> tuple:
        return tuple(name(x) for x in ids if not (hides(state) and x in sc.units and x not in tokens
                                                    and _unknown_to(state, side, sc.units[x])))

    owner_pair = bool(state.dummy_pair) and side is not None and sc.units[state.dummy_pair[0]].side == side
    out = evolve(state, seed=0, units=tuple(units + masked), arrived=names(state.arrived),
                 builders=names(state.builders), reacted=names(state.reacted),
                 night_marched=names(state.night_marched), dummy_pair=state.dummy_pair if owner_pair else (),
                 declared=None if state.declared is None else
                 tuple(Battle(names(b.attackers), names(b.defenders)) for b in state.declared),
                 last=tuple(_spoken(x, tokens) for x in state.last))
    spec = sc.spec
    if spec.fog_dummies is not None and (side is None or any(sc.units[p.unit].side != side
                                                             for p in spec.fog_dummies.units)):
        spec = spec.model_copy(update={"fog_dummies": None})     # where the enemy's dummies began (16.1.3)
    out.__dict__["scenario"] = replace(sc, units=defs, spec=spec)
    return out


def _spoken(value, tokens: dict[str, str]):
    """``value`` (a string, or JSON made of lists and objects) with every id of ``tokens`` written as its
    token (as a whole word: ``A1`` in ``A1 routs`` but not in ``A10``)."""
    if not tokens:
        return value
    if isinstance(value, str):
        return _pattern(tuple(sorted(tokens, key=len, reverse=True))).sub(lambda m: tokens[m.group(0)], value)
    if isinstance(value, dict):
        return {k: _spoken(v, tokens) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_spoken(v, tokens) for v in value)
    return value


@lru_cache(maxsize=64)
def _pattern(ids: tuple[str, ...]) -> re.Pattern:
    return re.compile(r"(?<![\w:])(?:" + "|".join(map(re.escape, ids)) + r")(?![\w])")


def visible_action(state: GameState, action: Action, side: str | None) -> Action:
    """``action`` (legal in ``state`` or played there) as ``side`` may know it: every face-down enemy
    counter named by its token. A dummy brought in by the enemy (16.1.3) is known only by the hex it
    joins: which of the two counters there is the dummy is the point of the shell game."""
    tokens = hidden_tokens(state, side)
    if action.kind == "add_dummy" and action.unit in tokens:
        return Action("add_dummy", hex=state.unit(action.unit).hex)
    if not tokens:
        return action

    def name(uid):
        return None if uid is None else tokens.get(uid, uid)

    return replace(action, unit=name(action.unit), units=tuple(name(x) for x in action.units),
                   battles=tuple(Battle(tuple(name(x) for x in b.attackers), tuple(name(x) for x in b.defenders))
                                 for b in action.battles))


def visible_event(state: GameState, event: dict, side: str | None, action: Action | None = None) -> dict:
    """A record event made in ``state`` as ``side`` may see it in the log: the action as
    :func:`visible_action` gives it (``action``: the event's action, read from it when not given), and in
    its answers and notes every face-down enemy counter by its token."""
    tokens = hidden_tokens(state, side)
    if not tokens or not isinstance(event, dict):
        return event
    out = dict(event)
    if action is not None:
        out["action"] = visible_action(state, action, side).to_json()
    elif isinstance(event.get("action"), dict):
        out["action"] = _spoken(event["action"], tokens)
    if "answers" in event:
        out["answers"] = _spoken(event["answers"], tokens)
    return out


# ------------------------------------------------------------------------------------------------
# The odds a side may be shown
# ------------------------------------------------------------------------------------------------
def _battle_of(state: GameState, action: Action) -> Battle | None:
    if action.kind == "resolve" and state.declared is not None and action.index is not None \
            and 0 <= action.index < len(state.declared):
        return state.declared[action.index]
    if action.kind in ("countercharge", "declare") and action.battles:
        return Battle(tuple(x for b in action.battles for x in b.attackers),
                      tuple(x for b in action.battles for x in b.defenders))
    return None


def odds_unknown(state: GameState, action: Action, side: str | None) -> str | None:
    """Why the exact odds of ``action`` cannot be shown to ``side`` (None when they can). The odds a side
    sees rest on what it knows (16.1): a battle with a face-down enemy counter in it (before 9.2's
    declaration reveals them all, 16.1.1: a countercharge's target, a declaration being made) has unknown
    odds; after the declaration every unit of the battle is face-up, and what else could change the odds is
    a face-down enemy counter next to a defender that might be artillery supporting it (16.3.1), next to a
    square that might be cavalry (17.1), or, with leaders in play, within a rout's reach of the battle that
    might be a leader with no ZOC (16.9.2: the hazards of 9.8.3)."""
    tokens = hidden_tokens(state, side)
    b = _battle_of(state, action)
    if not tokens or b is None:
        return None
    ids = b.attackers + b.defenders
    face_down = [x for x in ids if x in tokens]
    if face_down:
        return f"{len(face_down)} counter(s) of this battle are face-down (16.1): their units are not known yet"
    board = state.board
    units = state.scenario.units
    here = [h for x in ids if (h := hex_of(state, x)) is not None]
    defended = [h for x in b.defenders if (h := hex_of(state, x)) is not None]
    squares = [state.unit(x).hex for x in ids if not is_garrison(x) and state.unit(x).square]
    defender_side = units[b.defenders[0]].side if b.defenders and not is_garrison(b.defenders[0]) else None
    for uid in tokens:
        h = state.unit(uid).hex
        if state.has("artillery_support") and units[uid].side == defender_side \
                and any(distance(board, h, d) == 1 for d in defended):
            return "a face-down counter next to a defender might be artillery giving support (16.1, 16.3.1)"
        if squares and any(distance(board, h, s) == 1 for s in squares):
            return "a face-down counter next to a square might be cavalry (16.1, 17.1)"
        if state.has("leaders") and any(distance(board, h, x) <= 8 for x in here):
            return "a face-down counter within a rout's reach might be a leader, which has no ZOC (16.1, 16.9.2)"
    return None


def odds_view(rules, state: GameState, action: Action, side: str | None, **kw) -> ActionOdds | None:
    """The exact odds of ``action`` as ``side`` may be shown them: :func:`engine.core.odds.action_odds`
    when everything that decides them is known to that side (:func:`odds_unknown` is None), else None."""
    if odds_unknown(state, action, side) is not None:
        return None
    return action_odds(rules, state, action, **kw)
