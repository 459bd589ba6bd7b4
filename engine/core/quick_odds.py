"""The odds of one action, quickly and as small data: what the play page asks while a player picks an
attack (issue 26 point 3). Written once over the game protocol and :mod:`engine.core.odds`; no rule is
read here.

A warm worker holds positions, the page sends keys
--------------------------------------------------
A worker process (or thread) that answers a game's odds keeps an :class:`OddsDesk`. The desk *holds*
positions under string keys; every later question names a key and an action, never a whole state, so a
pick sends a few hundred bytes and gets a few kilobytes back::

    from engine.core.quick_odds import OddsDesk, position_key

    desk = OddsDesk()                             # once per worker, kept for the worker's life
    key = desk.hold(rules, state)                 # after each commit (or hold(rules, state, key="game 7 @ 41"))
    data = desk.odds(key, action_json, seen_by=side)   # a pick: small plain data (below), cached
    shown = desk.tree(key, action_json, seen_by=side)  # only when the player opens the tree: plain data too

* ``hold(rules, state, key=None)`` returns the key: :func:`position_key` by default (the system and a
  digest of the position's JSON: the same position gives the same key in every process), or the key the
  caller gives (any string of at most :data:`MAX_KEY_CHARS` characters that names the position, e.g. a
  saved game's id and its number of events). The desk keeps the last ``positions`` positions it was given
  (least recently used dropped first). Holding the same key again replaces its position.
* ``odds(key, action)`` -- the action as the protocol's JSON, its text notation, or the action itself --
  answers :func:`quick_odds` in the held position. A key the desk does not hold (never sent, or dropped)
  raises :class:`PositionNotHeld`: send the position again with ``hold`` and ask again.
* ``tree(key, action)`` answers :func:`tree_data`: the tree of the same enumeration, built only now.
* ``seen_by=`` (on ``odds`` and ``tree``): the side whose browser asks (``None``: a spectator). Left out
  (:data:`WHOLE`), the whole position is used (the server, bots, the CLI). See "Hidden information" below.
* ``stop=`` (on ``odds`` and ``tree``, a callable): asked every 256 enumeration steps; when it answers True
  the enumeration ends with :class:`~engine.core.odds.OddsCancelled` and the worker is free at once (a
  cancelled pick leaves no worker busy). Nothing is cached for a cancelled question.

What comes back
---------------
:func:`quick_odds` gives plain JSON-able data, with no tree and no state::

    {"system": "n20", "side": "french",               # the side whose action it is
     "action": "resolve 0", "said": "...",             # its notation, and in a player's words
     "rule": "9.0", "note": "choices inside answered by the first listed option (each rule's default)",
     "lines": [{"label": "attacker routs 2 hexes", "rule": "9.6.2",
                "fraction": "1/18", "float": 0.0556}, ...],       # most likely first; they add up to 1
     "expected": [{"metric": "morale.french", "title": "morale french",
                   "fraction": "-2/9", "float": -0.2222}, ...],   # every metric, 0 included
     "end_positions": 7, "steps": 120}                            # the size of the work done

Every probability is exact (``fraction``) with a ``float`` beside it. ``label``, ``rule``, ``said`` and
``title`` are a player's words from the system's hooks (``odds_label``, ``describe_action``,
``metric_title``).

:func:`tree_data` gives ``{"system", "action", "said", "rule", "nodes", "tree", "subtrees"}``: the tree as
:meth:`engine.core.tree.Tree.to_json` draws it (each node its rule, request, outcome and exact
probability; a sub-procedure's tree listed once in ``subtrees``), every end position named by the
system's ``odds_label`` and every sub-procedure result in plain words (no state, no repr). In the same
process :func:`action_tree` gives the core :class:`~engine.core.tree.Tree` itself (for
``dashboards.render.tree_plot``).

Hidden information, and the position the odds are worked out from
-------------------------------------------------------------------
:func:`odds_position` picks the position, through two optional hooks of the system's rules (duck-typed, as
the odds bot's ``attack_score``; a system without them gets the plain behaviour):

* ``rules.odds_state(state)``: the position with everything known, in the compact form that gives the
  same fractions with fewer branches (Battle Commander's piles as card summaries, 21.0, 23.2-23.3). Used
  for the whole position, and for a side when the system hides nothing.
* ``rules.odds_position(state, action, side)``: where the system hides part of the position from that side
  (:meth:`~engine.core.game.GameRules.hides`: n20 16.1 fog of war, BC 15.0 hands and pile), the position
  to work ``side``'s odds of ``action`` from as that side knows it (BC: its ``odds_view``), or a
  :class:`~engine.core.errors.RuleViolation` naming the rule when that side may not be shown exact odds
  (n20: a face-down counter that could change them, 16.1). A hiding system without this hook is refused
  (:class:`OddsHidden`): a side's odds are never worked out from what it may not see.

Caching and bounds
------------------
Answers are kept in :data:`ODDS_CACHE`, one bounded :class:`~engine.core.odds.OddsCache` per process, by
value: the rules' class and settings, the position (its own hash and equality, never ``id()``), the action
and the bounds. Picking the same attack again is a dictionary lookup. A position past a bound is kept
too, as its error: asking again raises the same :class:`~engine.core.errors.LimitError` at once.

Every input is bounded: the action's text or JSON at most :data:`MAX_ACTION_CHARS` characters, a key at
most :data:`MAX_KEY_CHARS`, the work at most ``max_steps`` enumeration steps and ``max_outcomes`` end
positions (the defaults of :mod:`engine.core.odds`), a tree at most ``max_nodes`` nodes. Past a bound the
error is one line naming the bound and how far it got, e.g. ``odds of resolve 0: enumeration steps: at most
400000: this action has too many dice outcomes to enumerate exactly; it had run 1,234 branches to the end,
37.5% of the chances, when it stopped`` (before the first branch ends, the same inside the sub-procedure it
was working on: a Battle Commander assault's cards), an :class:`~engine.core.odds.OddsLimitError` with
``steps``, ``ends`` and ``mass``. An illegal action raises its
:class:`~engine.core.errors.RuleViolation` (the rule named); nothing is held, cached or changed by an
error.

The odds bot (:class:`~engine.core.odds.OddsBot`) works its odds out from the same position as the whole
position's quick odds (:func:`~engine.core.odds.compact_position`: the system's ``odds_state``), so it runs
as fast, but keeps a cache of its own, per game: it answers the questions inside an attack as its greedy
bot does, not with the first listed option, and a greedy bot's answers may depend on what it has already
worked out in its game (Lines of Battle's sampled charges), so its values are not the page's and are never
mixed with them.
"""
from __future__ import annotations

import copy
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Union

from .dist import prob_json
from .errors import LimitError, VedetteError
from .procedure import Log
from .odds import (MAX_OUTCOMES, MAX_STEPS, ActionOdds, OddsCache, OddsLimitError, choice_policy, compact_position,
                   enumerate_odds, summarise, unkey)
from .tables import GameTables
from .tree import Tree
from .words import plain

if TYPE_CHECKING:
    from .game import GameRules

__all__ = ["OddsDesk", "PositionNotHeld", "quick_odds", "odds_data", "action_tree", "tree_data", "position_key",
           "read_action", "odds_position", "OddsHidden", "WHOLE", "SeenBy", "ODDS_CACHE", "MAX_ACTION_CHARS", "MAX_KEY_CHARS",
           "MAX_TREE_NODES"]

#: the longest action (its text notation or its JSON) a question may carry
MAX_ACTION_CHARS = 4000
#: the longest position key
MAX_KEY_CHARS = 200
#: the most nodes a tree may have (its sub-procedures' trees included)
MAX_TREE_NODES = 20_000
#: the longest plain-words text of one sub-procedure result in a tree
RESULT_CHARS = 120

#: the process's answers, by value (see the module docstring)
ODDS_CACHE = OddsCache(512)


class _Whole:
    """The default of ``seen_by``: the whole position, nothing masked."""

    def __repr__(self) -> str:
        return "WHOLE"


#: ``seen_by`` default: the whole position (no side's view)
WHOLE = _Whole()

#: who asks: a side, ``None`` (a spectator) or :data:`WHOLE` (the whole position: the server, bots, the CLI)
SeenBy = Union[str, None, _Whole]


class OddsHidden(VedetteError):
    """A side asked for odds in a position that hides part of what decides them, and the system does not
    say what that side may be shown (no ``odds_position`` hook)."""


def odds_position(rules: GameRules[Any, Any], state: Any, action: Any, seen_by: SeenBy = WHOLE) -> Any:
    """The position to work the odds of ``action`` from, for ``seen_by`` (module docstring: the system's
    optional ``odds_state`` and ``odds_position`` hooks)."""
    if not isinstance(seen_by, _Whole) and rules.hides(state):
        hook = getattr(rules, "odds_position", None)
        if hook is None:
            who = seen_by or "a spectator"
            raise OddsHidden(f"odds of {rules.format_action(action)}: {rules.title} hides part of this position "
                             f"from {who}, and does not say which odds {who} may be shown")
        return hook(state, action, seen_by)
    return compact_position(rules, state)


class PositionNotHeld(VedetteError):
    """The desk holds no position under this key (never sent, or dropped as older ones were): send it again."""


# ------------------------------------------------------------------------------------------------
# Keys
# ------------------------------------------------------------------------------------------------
def position_key(rules: GameRules[Any, Any], state: Any) -> str:
    """The system and a digest of the position's JSON: equal positions get equal keys, in every process
    (unlike ``hash``, which differs between processes for text). Rules that hold a player's own tables
    (TBF, BC) add their fingerprint: the same position played with other charts has other odds."""
    text = json.dumps(rules.state_to_json(state), sort_keys=True, separators=(",", ":"), default=str)
    own = getattr(rules, "game_tables", None)
    if own is not None:
        text += "\ntables " + own.fingerprint
    return f"{rules.system}:{hashlib.sha256(text.encode()).hexdigest()[:32]}"


def _rules_key(rules: GameRules[Any, Any]) -> tuple[str, str, tuple[tuple[str, Any], ...]]:
    """The rules by value: their class and the settings they were made with -- their public attributes
    that are plain numbers or text (e.g. Napoleonic 20's ``tables``) -- not the working caches they keep
    (private names) -- and the player's own tables they hold (by their fingerprint)."""
    settings = tuple(sorted((k, v.fingerprint if isinstance(v, GameTables) else v) for k, v in vars(rules).items()
                            if not k.startswith("_")
                            and isinstance(v, (str, int, float, bool, type(None), GameTables))))
    return type(rules).__module__, type(rules).__qualname__, settings


def _state_key(state: Any) -> Any:
    """The position itself where it is hashable (its own hash and equality); ``None`` for a position
    with a mutable part (its answer is then worked out each time, not kept)."""
    return state if OddsCache.hashable(state) else None


def read_action(rules: GameRules[Any, Any], action: Any) -> Any:
    """``action`` (the action, its JSON or its text notation) as the system's action, its size bounded
    (:data:`MAX_ACTION_CHARS`) before it is read."""
    if isinstance(action, str):
        size = len(action)
    elif isinstance(action, (dict, list)):
        try:
            size = len(json.dumps(action, separators=(",", ":"), default=str))
        except (TypeError, ValueError, RecursionError):
            raise VedetteError("action: expected the JSON of one action") from None
    else:
        return action
    if size > MAX_ACTION_CHARS:
        raise LimitError("action: characters", MAX_ACTION_CHARS, size)
    return rules.coerce_action(action)


# ------------------------------------------------------------------------------------------------
# Odds as small data
# ------------------------------------------------------------------------------------------------
def _num(v: Fraction | float) -> dict[str, Any]:
    if isinstance(v, Fraction):
        return prob_json(v)
    return {"fraction": None, "float": float(v)}


def odds_data(rules: GameRules[Any, Any], state: Any, action: Any, odds: ActionOdds, *,
              end_positions: int | None = None, steps: int | None = None) -> dict[str, Any]:
    """An :class:`~engine.core.odds.ActionOdds` as the plain data of the module docstring."""
    side = rules.to_act(state)
    return {
        "system": rules.system,
        "side": side,
        "action": odds.action,
        "said": rules.describe_action(action),
        "rule": odds.rule,
        "note": odds.note,
        **({"until": odds.until} if odds.until else {}),
        "lines": [{"label": o.label, "rule": o.rule, **_num(o.probability)} for o in odds.outcomes],
        "expected": [{"metric": k, "title": rules.metric_title(k), **_num(v)} for k, v in odds.expected],
        "end_positions": end_positions,
        "steps": steps,
    }


class _Refused:
    """A bound passed, kept in the cache: the same error is raised again at once."""

    __slots__ = ("exc",)

    def __init__(self, exc: OddsLimitError) -> None:
        self.exc = exc

    def again(self) -> OddsLimitError:
        """A new error like the first (same message and figures), for the caller to raise."""
        e = self.exc
        return OddsLimitError(e.what, e.limit, e.got, why=e.why, steps=e.steps, ends=e.ends, mass=e.mass)


def quick_odds(rules: GameRules[Any, Any], state: Any, action: Any, *, max_steps: int = MAX_STEPS,
               max_outcomes: int = MAX_OUTCOMES, cache: OddsCache | None = ODDS_CACHE,
               stop: Callable[[], bool] | None = None, seen_by: SeenBy = WHOLE) -> dict[str, Any]:
    """The exact odds of ``action`` in ``state`` as small plain data (module docstring), from ``cache``
    when they were worked out before. Choices inside the action are answered by the first listed option
    (each rule's default), as :func:`~engine.core.odds.action_odds` answers them. Raises the action's
    :class:`~engine.core.errors.RuleViolation` when it is illegal, :class:`~engine.core.errors.LimitError`
    past a bound (naming it, and how far it got), :class:`~engine.core.odds.OddsCancelled` when ``stop()``
    says so. ``seen_by``: work them out in what that side may see (module docstring)."""
    action = read_action(rules, action)
    rules.check(state, action)
    state = odds_position(rules, state, action, seen_by)
    sk = _state_key(state)
    key = None if sk is None or cache is None else (_rules_key(rules), sk, action, max_steps, max_outcomes)
    if key is not None and not OddsCache.hashable(key):
        key = None
    hit = cache.get(key) if cache is not None and key is not None else None
    if hit is not None:
        if isinstance(hit, _Refused):
            raise hit.again()
        known: dict[str, Any] = copy.deepcopy(hit)
        return known
    policy, name = choice_policy(None, state)
    try:
        tree, budget, stopped = enumerate_odds(rules, state, action, policy, max_steps, max_outcomes, stop=stop)
    except OddsLimitError as exc:
        if cache is not None and key is not None:
            cache.put(key, _Refused(exc))
        raise
    dist = tree.distribution()
    odds = summarise(rules, state, action, dist, f"choices inside answered by {name}",
                     until=stopped.words() if stopped is not None else "")
    data = odds_data(rules, state, action, odds, end_positions=len(dist), steps=budget.used)
    if cache is not None and key is not None:
        cache.put(key, data)
    return copy.deepcopy(data)


# ------------------------------------------------------------------------------------------------
# The tree, on a second call
# ------------------------------------------------------------------------------------------------
class _Said(str):
    """A leaf result already put in words (so a sub-procedure tree met twice is named once)."""


def _trees(tree: Tree) -> list[Tree]:
    """The tree and every sub-procedure tree under it, each once (sub-trees are shared by key)."""
    out: list[Tree] = []
    met: set[Any] = set()
    todo = [tree]
    while todo:
        t = todo.pop()
        out.append(t)
        for n in t.nodes():
            sub = n.subtree
            if sub is not None and sub.root is not None and n.request.key not in met:
                met.add(n.request.key)
                todo.append(sub)
    return out


def action_tree(rules: GameRules[Any, Any], state: Any, action: Any, *, max_steps: int = MAX_STEPS,
                max_outcomes: int = MAX_OUTCOMES, max_nodes: int = MAX_TREE_NODES,
                stop: Callable[[], bool] | None = None, seen_by: SeenBy = WHOLE) -> Tree:
    """The probability tree of ``action`` in ``state`` (choices by the first listed option, as
    :func:`quick_odds`), its end positions named by the system's ``odds_label`` and the results of its
    sub-procedures in plain words. Bounded as :func:`quick_odds`, and at most ``max_nodes`` nodes
    (sub-procedure trees included, each once), in what ``seen_by`` may see."""
    action = read_action(rules, action)
    rules.check(state, action)
    state = odds_position(rules, state, action, seen_by)
    policy, _ = choice_policy(None, state)
    tree, _, _ = enumerate_odds(rules, state, action, policy, max_steps, max_outcomes, build=True, stop=stop)
    trees = _trees(tree)
    nodes = sum(t.size() for t in trees)
    if nodes > max_nodes:
        raise LimitError(f"tree of {rules.format_action(action)}: nodes", max_nodes, nodes,
                         why="the tree is too big to draw; its odds are shown without it")
    state_type = type(state)

    def words(value: Any, request: Any) -> _Said:
        # a whole position (the action's end, or a sub-procedure that plays on to one) by what changed
        # since the action's start; any other result as the system says it
        value = unkey(value)
        if isinstance(value, state_type):
            lab = rules.odds_label(state, value, action)
            text = lab[0] if isinstance(lab, tuple) else lab
        elif request is not None:
            text = rules.describe_result(state, request, value)
        else:
            text = plain(value)
        return _Said(text if len(text) <= RESULT_CHARS else text[:RESULT_CHARS - 1] + "…")

    # a sub-procedure's tree ends in that sub-procedure's results: said as its answers are, by its request
    opened: dict[int, Any] = {}
    for t in trees:
        for n in t.nodes():
            if n.subtree is not None:
                opened.setdefault(id(n.subtree), n.request)
    for t in trees:
        asked = opened.get(id(t))
        for n in t.nodes():
            # what the procedure noted on the way (a Log), said as the system says its steps
            n.notes = [(r, t if isinstance(t, _Said) else _Said(rules.describe_step(state, Log(r, t))))
                       for r, t in n.notes]
            if not n.children:
                if not isinstance(n.result, _Said):
                    n.result = words(n.result, asked)
                continue
            if n.request is not None and not isinstance(n.label, _Said):
                n.label = _Said(rules.describe_step(state, n.request))
            for c in n.children:             # a sub-procedure's result as the answer of its node
                if c.outcome_text is None and not isinstance(c.outcome, (bool, int, float, str, type(None))):
                    c.outcome_text = words(c.outcome, n.request)
    return tree


def tree_data(rules: GameRules[Any, Any], state: Any, action: Any, *, max_steps: int = MAX_STEPS,
              max_outcomes: int = MAX_OUTCOMES, max_nodes: int = MAX_TREE_NODES,
              stop: Callable[[], bool] | None = None, seen_by: SeenBy = WHOLE) -> dict[str, Any]:
    """:func:`action_tree` as plain data (module docstring)."""
    action = read_action(rules, action)
    tree = action_tree(rules, state, action, max_steps=max_steps, max_outcomes=max_outcomes, max_nodes=max_nodes,
                       stop=stop, seen_by=seen_by)
    drawn = tree.to_json(result=str)
    return {"system": rules.system, "action": rules.format_action(action), "said": rules.describe_action(action),
            "rule": rules.rule_of(action), "nodes": sum(t.size() for t in _trees(tree)), **drawn}


# ------------------------------------------------------------------------------------------------
# The warm worker's desk
# ------------------------------------------------------------------------------------------------
class OddsDesk:
    """Positions held by key, and the odds and trees asked about them (module docstring). Safe to share
    between threads."""

    def __init__(self, positions: int = 32, cache: OddsCache | None = ODDS_CACHE, *,
                 max_steps: int = MAX_STEPS, max_outcomes: int = MAX_OUTCOMES,
                 max_nodes: int = MAX_TREE_NODES) -> None:
        self.positions = positions
        self.cache = cache
        self.max_steps, self.max_outcomes, self.max_nodes = max_steps, max_outcomes, max_nodes
        self._held: OrderedDict[str, tuple[GameRules[Any, Any], Any]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _check_key(key: object) -> str:
        if not isinstance(key, str) or not key:
            raise VedetteError("position key: expected a non-empty text")
        if len(key) > MAX_KEY_CHARS:
            raise LimitError("position key: characters", MAX_KEY_CHARS, len(key))
        return key

    def hold(self, rules: GameRules[Any, Any], state: Any, key: str | None = None) -> str:
        """Keep ``state`` (with its ``rules``) under ``key`` (default :func:`position_key`); returns the key."""
        key = position_key(rules, state) if key is None else self._check_key(key)
        with self._lock:
            self._held[key] = (rules, state)
            self._held.move_to_end(key)
            while len(self._held) > self.positions:
                self._held.popitem(last=False)
        return key

    def holds(self, key: str) -> bool:
        return key in self._held

    def forget(self, key: str) -> None:
        with self._lock:
            self._held.pop(key, None)

    def position(self, key: str) -> tuple[GameRules[Any, Any], Any]:
        """``(rules, state)`` held under ``key``; :class:`PositionNotHeld` when none is."""
        self._check_key(key)
        with self._lock:
            got = self._held.get(key)
            if got is not None:
                self._held.move_to_end(key)
        if got is None:
            raise PositionNotHeld(f"odds: no position is held under the key {key[:40]}; send the position again")
        return got

    def odds(self, key: str, action: Any, *, seen_by: SeenBy = WHOLE,
             stop: Callable[[], bool] | None = None) -> dict[str, Any]:
        """:func:`quick_odds` of ``action`` in the position held under ``key`` (as ``seen_by`` sees it)."""
        rules, state = self.position(key)
        return quick_odds(rules, state, action, max_steps=self.max_steps, max_outcomes=self.max_outcomes,
                          cache=self.cache, stop=stop, seen_by=seen_by)

    def tree(self, key: str, action: Any, *, seen_by: SeenBy = WHOLE,
             stop: Callable[[], bool] | None = None) -> dict[str, Any]:
        """:func:`tree_data` of ``action`` in the position held under ``key`` (built now, not cached)."""
        rules, state = self.position(key)
        return tree_data(rules, state, action, max_steps=self.max_steps, max_outcomes=self.max_outcomes,
                         max_nodes=self.max_nodes, stop=stop, seen_by=seen_by)

