"""Lines of Battle on the core game protocol (:class:`engine.core.game.GameRules`).

Everything here is a thin face over :mod:`engine.lob.game`: ``candidates`` is its ``legal_actions``,
``check`` its ``check_action`` (the same check ``perform`` runs first), ``perform`` its action procedure.
What this module adds is what every system shares through core: the action JSON with each field
checked, a short text notation, a full position round trip, the outcome as a value, the invariants the
conformance suite checks, and the bots under core's :class:`~engine.core.game.Bot` interface.

Text notation (``format_action`` / ``parse_action``)::

    end-admin | end-phase | end-setup           toggle F-ResArt      rally F-Brayer
    activate 75            activate 75 by Soult (7.1: the leader who spends the point)
    place A-KGL in 16      fire F-ResArt at A-Head
    move F-Dellard,F-Schwitter via 19           move F-Brayer via 67>68 end approach:69
    move A-Myers end square                     attack Albuera with F-Briche,F-Arenberg [via 16]

An id the notation cannot carry (a space, a comma, ``>``, a keyword) makes the action print as its JSON,
which ``parse_action`` reads as well.
"""
from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import Any

from engine.core.codec import CodecError, from_json, to_json
from engine.core.errors import VedetteError
from engine.core.game import GameRules, Outcome, Position, register

from .game import Action, Game, Setup, check_action, legal_actions, new_game, perform
from .scenario import OPTIONS
from .units import ART, INF, SIDES

__all__ = ["LobRules", "ENGINE_VERSION", "RULE_OF", "ACTION_TYPES", "parse_options", "keep_all"]

#: records made by this engine; records with no version (before the protocol) or ``lob-game-1`` replay too
ENGINE_VERSION = "lob-game-2"

RULE_OF = {"place": "Albuera option 6", "end-setup": "Albuera option 6", "toggle": "3", "end-admin": "3",
           "rally": "4.1", "activate": "4.2", "move": "4.2.2", "attack": "5", "fire": "4.2.1", "end-phase": "6"}
ACTION_TYPES = tuple(RULE_OF)
PASSES = frozenset({"end-setup", "end-admin", "end-phase"})

OPTION_RULES = {
    "bid": "Albuera option 1 (bid for victory: the winner pays morale, give it as bid:SIDE=N)",
    "kemmis": "Albuera option 2 (Kemmis's brigade is present)",
    "madden": "Albuera option 3 (Madden's cavalry is present)",
    "spanish-no-show": "Albuera option 4 (the Spanish stay away)",
    "rain": "Albuera option 5 (rain squalls)",
    "setup": "Albuera option 6 (free set-up, both sides)",
    "setup-allied": "Albuera option 6 (free set-up, the Allies only)",
    "setup-french": "Albuera option 6 (free set-up, the French only)",
    "leaders": "7.1 (leaders; their 7.1.2 attributes come from the scenario file)",
    "light-cavalry": "7.1.3 (light cavalry activated without a leader)",
}
assert set(OPTION_RULES) == set(OPTIONS)

_KEYWORDS = frozenset({"in", "by", "at", "via", "end", "with"})


# ------------------------------------------------------------------------------------------------
# Options (the record's spellings: {"options": [...]} or the older {"rules": [...]}, with "bid")
# ------------------------------------------------------------------------------------------------
def _bid_of(value: Any, where: str) -> dict[str, int]:
    """A morale bid (Albuera option 1): ``{"French": 2}``, or the text ``French=2``."""
    if isinstance(value, str):
        side, eq, n = value.partition("=")
        if not eq or not n.strip().isdigit():
            raise VedetteError(f"{where}: write the bid as SIDE=N, e.g. French=2 (Albuera option 1), got {value[:30]!r}")
        value = {side.strip(): int(n)}
    if not isinstance(value, Mapping):
        raise VedetteError(f"{where}: expected an object such as {{\"French\": 2}} (Albuera option 1)")
    out = {}
    for side, n in value.items():
        if side not in SIDES:
            raise VedetteError(f"{where}: unknown side {str(side)[:20]!r}; one of {', '.join(SIDES)}")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise VedetteError(f"{where}.{side}: expected a whole number of morale points, 0 or more, got {str(n)[:20]!r}")
        out[side] = n
    return out


def parse_options(options: Any) -> tuple[frozenset[str], dict[str, int]]:
    """Option names and the morale bid, from a list of names (``"bid:French=2"`` carries a bid) or a
    record's options object (``{"options": [...], "bid": {...}}``; ``"rules"`` is the older key)."""
    bid: dict[str, int] = {}
    if isinstance(options, Mapping):
        unknown = set(options) - {"options", "rules", "bid"}
        if unknown:
            raise VedetteError(f"field 'options': unknown key(s) {sorted(map(str, unknown))[:5]}; "
                               "known: options, rules (older records), bid")
        key = "options" if "options" in options else "rules"
        names = options.get(key, [])
        if not isinstance(names, (list, tuple)):
            raise VedetteError(f"field 'options.{key}': expected a list of option names")
        if options.get("bid"):
            bid = _bid_of(options["bid"], "field 'options.bid'")
    elif isinstance(options, str):
        names = [o.strip() for o in options.split(",") if o.strip()]
    else:
        names = list(options or ())
    out = set()
    for i, n in enumerate(names):
        if not isinstance(n, str):
            raise VedetteError(f"option {i}: expected an option name (a string), got {str(n)[:20]!r}")
        if n.startswith("bid:") or n.startswith("bid="):
            bid.update(_bid_of(n[4:], "option bid"))
            continue
        if n not in OPTION_RULES:
            raise VedetteError(f"unknown option {n[:30]!r}; known: {', '.join(OPTION_RULES)}")
        out.add(n)
    if bid:
        out.add("bid")
    return frozenset(out), bid


# ------------------------------------------------------------------------------------------------
# The rules
# ------------------------------------------------------------------------------------------------
class LobRules(GameRules[Game, Action]):
    system = "lob"
    title = "Lines of Battle"
    sides = SIDES
    engine_version = ENGINE_VERSION
    accepts_versions = ("lob-game-1",)
    default_scenario = "albuera"

    def scenarios(self) -> dict[str, str]:
        return {"albuera": "Albuera (16 May 1811)"}

    def options(self) -> dict[str, str]:
        return dict(OPTION_RULES)

    def new_game(self, scenario: str | None = None, options: Any = (), seed: int = 0) -> Game:
        scenario = scenario or self.default_scenario
        if scenario not in self.scenarios():
            raise VedetteError(f"unknown scenario {str(scenario)[:30]!r}; one of {', '.join(self.scenarios())}")
        names, bid = parse_options(options)
        return new_game(Setup(options=names), morale_bid=bid or None)

    def to_act(self, g: Game) -> str | None:
        return None if g.over else g.player

    def candidates(self, g: Game):
        # every candidate game.legal_actions lists, unfiltered: legal_actions (core) checks each once
        return legal_actions(g, keep=keep_all)

    def check(self, g: Game, action) -> None:
        if not isinstance(action, Action):
            raise VedetteError(f"expected a Lines of Battle action, got {type(action).__name__}")
        check_action(g, action)

    def perform(self, g: Game, action):
        return perform(g, action)

    def outcome(self, g: Game) -> Outcome | None:
        if not g.over:
            return None
        why = g.reason or ""
        if "morale at zero" in why:
            level, rule = ("draw" if g.winner == "draw" else "morale"), "6"
        elif "Allied rear" in why:
            level, rule = "sudden death", "Albuera victory (areas 1, 2, 8)"
        elif "holds" in why:
            level, rule = "objectives", "Albuera victory (Albuera and 28 at the end)"
        elif "higher morale" in why:
            level, rule = "morale at the end", "Albuera victory (objectives shared)"
        elif "last in Albuera" in why:
            level, rule = "last in Albuera", "Albuera victory (objectives shared, morale equal)"
        else:
            level, rule = "", "6"                       # a reason this reading does not know (yet)
        return Outcome(None if g.winner == "draw" else g.winner, level, why, rule)

    # --- actions -------------------------------------------------------------------------------
    def action_to_json(self, a: Action) -> dict:
        return a.to_json()

    def action_from_json(self, data: Any) -> Action:
        a = Action.from_json(data)
        if a.type not in RULE_OF:
            raise VedetteError(f"action field 'type': unknown action {a.type[:30]!r}; one of {', '.join(ACTION_TYPES)}")
        if a.type != "move" and isinstance(data, dict) and "end" in data:
            raise VedetteError(f"action field 'end': only a move has an ending, not a {a.type!r}")
        return a

    def rule_of(self, a: Action) -> str:
        return RULE_OF.get(a.type, "4")

    def describe_action(self, a: Action) -> str:
        from .words import describe
        return describe(a, self.rule_of(a))

    def is_pass(self, a: Action) -> bool:
        return a.type in PASSES

    def format_action(self, a: Action) -> str:
        ids = list(a.units) + list(a.path) + [x for x in (a.area, a.target) if x is not None]
        end = a.end[len("approach:"):] if a.end.startswith("approach:") else a.end
        if not all(_plain(x) for x in ids + [end]):
            return super().format_action(a)
        t, us = a.type, ",".join(a.units)
        if t in PASSES and not ids:
            return t
        if t in ("toggle", "rally") and len(a.units) == 1 and not a.path and a.area is None and a.target is None:
            return f"{t} {us}"
        if t == "place" and len(a.units) == 1 and a.area is not None and not a.path and a.target is None:
            return f"place {us} in {a.area}"
        if t == "activate" and a.area is not None and len(a.units) <= 1 and not a.path and a.target is None:
            return f"activate {a.area}" + (f" by {us}" if a.units else "")
        if t == "fire" and len(a.units) == 1 and a.target is not None and not a.path and a.area is None:
            return f"fire {us} at {a.target}"
        if t == "move" and a.units and a.area is None and a.target is None:
            out = f"move {us}" + (f" via {'>'.join(a.path)}" if a.path else "")
            return out + (f" end {a.end}" if a.end != "area" or not a.path else "")
        if t == "attack" and a.units and a.target is not None and a.area is None:
            return f"attack {a.target} with {us}" + (f" via {'>'.join(a.path)}" if a.path else "")
        return super().format_action(a)

    def parse_action(self, text: str) -> Action:
        if not isinstance(text, str):
            raise VedetteError("action: expected text or a JSON object")
        s = text.strip()
        if s.startswith("{"):
            return super().parse_action(s)
        w = s.split()
        bad = VedetteError(f"action: cannot read {s[:60]!r}; write e.g. 'activate 75', 'move F-Brayer via 67', "
                           "'attack 23 with F-Bron', or the action's JSON")
        if not w:
            raise bad
        t, n = w[0], len(w)
        if t not in RULE_OF:
            raise VedetteError(f"action: unknown action {t[:30]!r}; one of {', '.join(ACTION_TYPES)}")

        def units(x):
            us = tuple(x.split(","))
            if not all(us):
                raise bad
            return us

        if t in PASSES and n == 1:
            return Action(t)
        if t in ("toggle", "rally") and n == 2:
            return Action(t, units=units(w[1]))
        if t == "place" and n == 4 and w[2] == "in":
            return Action(t, units=units(w[1]), area=w[3])
        if t == "activate" and n in (2, 4) and (n == 2 or w[2] == "by"):
            return Action(t, area=w[1], units=units(w[3]) if n == 4 else ())
        if t == "fire" and n == 4 and w[2] == "at":
            return Action(t, units=units(w[1]), target=w[3])
        if t == "move" and n >= 2:
            rest, path, end = w[2:], (), "area"
            if rest[:1] == ["via"] and len(rest) >= 2:
                path, rest = tuple(w[3].split(">")), rest[2:]
            if rest[:1] == ["end"] and len(rest) == 2:
                end, rest = rest[1], []
            if rest or not all(path) or (not path and end == "area" and "end" not in w):
                raise bad
            return Action(t, units=units(w[1]), path=path, end=end)
        if t == "attack" and n in (4, 6) and w[2] == "with" and (n == 4 or w[4] == "via"):
            path = tuple(w[5].split(">")) if n == 6 else ()
            if not all(path):
                raise bad
            return Action(t, target=w[1], units=units(w[3]), path=path)
        raise bad

    # --- positions -----------------------------------------------------------------------------
    def state_to_json(self, g: Game) -> dict:
        d = to_json(g, skip=frozenset({"setup"}))
        d["setup"] = {"scenario": self.default_scenario, "options": sorted(g.setup.options),
                      "morale_bid": dict(g.setup.morale_bid)}
        return d

    def state_from_json(self, data: Any) -> Game:
        if not isinstance(data, dict):
            raise VedetteError("a Lines of Battle position is a JSON object (as state_to_json writes it)")
        su = data.get("setup")
        if not isinstance(su, dict):
            raise VedetteError("field 'setup': expected an object with 'scenario', 'options' and 'morale_bid'")
        if su.get("scenario", self.default_scenario) not in self.scenarios():
            raise VedetteError(f"field 'setup.scenario': unknown scenario {str(su.get('scenario'))[:30]!r}")
        names, _ = parse_options(su.get("options", []))
        bid = _bid_of(su.get("morale_bid") or {}, "field 'setup.morale_bid'")
        setup = Setup(options=names, morale_bid=tuple(sorted(bid.items())))
        # every other field through the core codec (each has a default; the set-up is rebuilt above)
        hints = typing.get_type_hints(Game)
        fields = {f.name for f in dataclasses.fields(Game)} - {"setup"}
        unknown = sorted(set(data) - fields - {"setup"})
        if unknown:
            raise CodecError("", "only the fields of a Lines of Battle position", unknown)
        kwargs = {k: from_json(hints[k], v, k) for k, v in data.items() if k != "setup"}
        try:
            return Game(setup=setup, **kwargs)
        except (TypeError, ValueError) as exc:
            raise CodecError("", f"a valid position ({exc})", data) from None

    def position(self, g: Game) -> Position:
        return Position(g.turn, g.phase)

    def record_options(self, g: Game) -> dict:
        out: dict = {"options": sorted(g.setup.options)}
        if g.setup.morale_bid:
            out["bid"] = dict(g.setup.morale_bid)
        return out

    def state_summary(self, g: Game) -> dict:
        """What the older ``vedette lob`` verbs printed about a position (kept beside core's summary)."""
        return {"player": g.player, "cp": g.cp, "morale": dict(g.morale), "winner": g.winner, "reason": g.reason,
                "finished": g.over, "eliminated": sorted(u.uid for u in g.units if u.area is None),
                "areas": {a: sorted(u.uid for u in g.in_area(a)) for a in g.board.areas if g.in_area(a)}}

    def metrics(self, g: Game) -> dict[str, float]:
        """What a study follows turn by turn: each side's morale (6), its units on the map and eliminated
        (1.2), the hits they carry, and who holds the two objectives (Albuera and hill 28)."""
        out: dict[str, float] = {}
        for side in SIDES:
            mine = [u for u in g.units if u.side == side]
            out[f"morale.{side}"] = float(g.morale_of(side))
            out[f"units_map.{side}"] = float(sum(1 for u in mine if u.area is not None))
            out[f"units_lost.{side}"] = float(sum(1 for u in mine if u.area is None))
            out[f"hits.{side}"] = float(sum(u.hits for u in mine if u.area is not None))
            for area in g.board.spec.victory_areas.hold_at_end:
                out[f"holds_{area}.{side}"] = 1.0 if g.holder(area) == side else 0.0
        return out

    def invariants(self, g: Game) -> list[str]:
        out: list[str] = []
        sc = g.setup.scenario
        if not 1 <= g.turn <= sc.turns:
            out.append(f"2: turn {g.turn} outside 1..{sc.turns}")
        if g.player not in SIDES:
            out.append(f"2: unknown player {g.player!r}")
        if g.phase not in ("setup", "admin", "command", "over"):
            out.append(f"2: unknown phase {g.phase!r}")
        if g.cp < 0:
            out.append(f"3: negative command points ({g.cp})")
        if g.over != (g.winner is not None):
            out.append("6: a game is over exactly when it has a winner (or a draw)")
        if g.rallied & g.activated:
            out.append(f"4: rallied and activated in one turn: {sorted(g.rallied & g.activated)}")
        sides_in: dict[str, set] = {}
        approaches: dict[frozenset, list[str]] = {}
        lost = {s: 0 for s in SIDES}
        for u in g.units:
            cap = 1 if u.kind == ART else u.rating + 1
            if not 0 <= u.hits <= cap:
                out.append(f"1.2: {u.uid} has {u.hits} hits (0..{cap})")
            if (u.area is None) != u.eliminated:
                out.append(f"1.2: {u.uid} is {'off the map' if u.area is None else 'on the map'} with {u.hits} hits")
            if u.area is None:
                lost[u.side] += u.morale_value
                continue
            sides_in.setdefault(u.area, set()).add(u.side)
            if u.approach is not None:
                if u.kind != INF or u.square or not g.board.has_approach(u.area, u.approach):
                    out.append(f"1.1: {u.uid} on an approach {u.area}-{u.approach} it may not hold")
                approaches.setdefault(frozenset((u.area, u.approach)), []).append(u.uid)
            if u.square and (u.kind != INF or g.board.is_close(u.area)):
                out.append(f"4.2.2: {u.uid} in square in {u.area}")
            if u.kind == ART and u.deployed and g.board.is_close(u.area):
                out.append(f"Albuera terrain 2-3: {u.uid} deployed in close terrain ({u.area})")
        for area, s in sides_in.items():
            if len(s) > 1:
                out.append(f"1.1: area {area} holds both sides")
        for border, who in approaches.items():
            if len(who) > 1:
                out.append(f"1.1: approach {'-'.join(sorted(border))} holds {', '.join(who)}")
        start = {"French": sc.morale.French, "Allied": sc.morale.Allied}
        bid = dict(g.setup.morale_bid)
        for side in SIDES:
            # 5.3 / 4.2.1: morale falls only by eliminations (rating, artillery 1) and rises by captures
            floor = start[side] - bid.get(side, 0) - lost[side]
            if g.morale_of(side) < floor:
                out.append(f"5.3: {side} morale {g.morale_of(side)} below {floor} (start less bid less eliminated)")
        for ld in g.leaders:
            if (ld.area is None) != (ld.status != "active"):
                out.append(f"7.1: leader {ld.name} is {ld.status} with area {ld.area!r}")
            elif ld.area is not None and not g.over and sides_in.get(ld.area, {ld.side}) != {ld.side}:
                out.append(f"7.1: leader {ld.name} stands alone among the enemy in {ld.area}")
        return out

    # --- bots ----------------------------------------------------------------------------------
    def bots(self) -> dict:
        from engine.core.odds import OddsBot
        from .bots import GreedyBot, RandomBot as LobRandomBot
        return {"random": LobRandomBot, "greedy": GreedyBot, "odds": OddsBot}

    # --- odds of an action (engine/core/odds.py) ------------------------------------------------
    def is_attack(self, a: Action) -> bool:
        """An attack (5) and artillery fire (4.2.1) are decided by the dice."""
        return a.type in ("attack", "fire")

    def attack_candidates(self, g: Game) -> list:
        """The legal fire and the legal attacks by at most three units without a move first (the attacks
        the greedy bot weighs: bigger combats cost too much to enumerate at every decision)."""
        if g.over or g.phase != "command":
            return []
        return [a for a in legal_actions(g, limit_moves=True, keep=keep_all) if self.is_attack(a)
                and (a.type == "fire" or (len(a.units) <= 3 and not a.path)) and self.is_legal(g, a)]

    def attack_score(self, g: Game, a: Action) -> float | None:
        """A cheap pre-score for the odds bot's shortlist (ours, not a rule): fire is always weighed (its
        odds are cheap); an attack scores its units' strength (1.2) against the defenders' (5)."""
        if a.type == "fire":
            return None
        att = sum(g.unit(u).strength for u in a.units)
        dfn = sum(u.strength for u in g.in_area(a.target) if u.is_combat)
        return att / (1.0 + dfn)

    def odds_label(self, before: Game, after: Game, action):
        from .odds_words import lob_label
        return lob_label(self, before, after, action)

    def evaluate(self, g: Game, side: str) -> float:
        from .odds_words import lob_value
        return lob_value(self, g, side)


def keep_all(g, a) -> bool:
    """A ``keep`` for :func:`engine.lob.game.legal_actions` that lists every candidate (checked later, once)."""
    return True


def _plain(x: str) -> bool:
    """An id the text notation can carry as it is."""
    return bool(x) and not any(c.isspace() or c in ",>{" for c in x) and x not in _KEYWORDS


register("lob", LobRules)
