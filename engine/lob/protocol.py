"""Lines of Battle on the core game protocol (:class:`engine.core.game.GameRules`): a thin face.

``candidates`` is :func:`.handlers.legal_actions`, ``check`` :func:`.handlers.check` (the same check
``perform`` runs first), ``perform`` :func:`.handlers.perform`. What this module adds is what every system
shares through core: the action JSON with each field checked, the text notation (:mod:`.actions`), a
full position round trip, the outcome (:mod:`.victory`), the invariants (:mod:`.state`) and the bots.
"""
from __future__ import annotations

import dataclasses
import typing
from dataclasses import replace
from typing import Any

from engine.core.codec import CodecError, from_json, to_json
from engine.core.errors import VedetteError
from engine.core.game import GameRules, Outcome, Places, Position
from engine.core.odds import OddsBot
from engine.core.procedure import Choose, Log
from engine.core.tables import ChartFile, GameTables, charts_summary, own_tables, tables_from_json

from .actions import ACTION_TYPES, PASSES, RULE_OF, Action, Kind, format_action, parse_notation
from .bots import GreedyBot, RandomBot
from .handlers import check, keep_all, legal_actions, perform
from .odds_words import lob_label, lob_value
from .places import places
from .setup import OPTION_RULES, bid_of, new_game, parse_options
from .state import Game, Setup, invariants
from .steps import Steps
from .tables import TABLES_FILE
from .units import SIDES
from .victory import outcome
from . import words

__all__ = ["LobRules", "ENGINE_VERSION", "RULE_OF", "ACTION_TYPES", "parse_options", "keep_all"]

#: records made by this engine; records with no version (before the protocol) or ``lob-game-1`` replay too
ENGINE_VERSION = "lob-game-2"


def _validate_tables(data, file):
    from .tables import tables_from_data
    return tables_from_data(data, file)


CHART_FILES = (ChartFile("lob", "Lines of Battle tables", "tables", TABLES_FILE, _validate_tables),)


class LobRules(GameRules[Game, Action]):
    system = "lob"
    title = "Lines of Battle"
    sides = SIDES
    engine_version = ENGINE_VERSION
    accepts_versions = ("lob-game-1",)
    older_option_keys = frozenset({"rules", "bid"})      # records before the protocol: {"rules": [...], "bid": ...}
    default_scenario = "albuera"

    def scenarios(self) -> dict[str, str]:
        return {"albuera": "Albuera (16 May 1811)"}

    def options(self) -> dict[str, str]:
        return dict(OPTION_RULES)

    def __init__(self, tables: GameTables | None = None):
        #: the game's own tables (engine/core/tables.py): a new game plays with them
        self.game_tables = tables

    def new_game(self, scenario: str | None = None, options: Any = (), seed: int = 0) -> Game:
        """``options``: option names, or a record's ``{"options": [...], "bid": ..., "tables": ...}`` (the
        game's own tables, validated again; without them the rules' own, else the shipped ones)."""
        scenario = scenario or self.default_scenario
        if scenario not in self.scenarios():
            raise VedetteError(f"unknown scenario {str(scenario)[:30]!r}; one of {', '.join(self.scenarios())}")
        mine = self.game_tables
        if isinstance(options, dict) and "tables" in options:
            options = dict(options)
            kept = options.pop("tables")
            mine = None if kept is None else tables_from_json(self, kept)
        names, bid = parse_options(options)
        setup = Setup(options=names) if mine is None else Setup(options=names, tables=mine.value, charts=mine)
        return new_game(setup, morale_bid=bid or None)

    # --- a game's own charts (engine/core/tables.py) ---------------------------------------------
    def chart_files(self, state: Game | None = None) -> tuple[ChartFile, ...]:
        return CHART_FILES

    def with_tables(self, tables: GameTables | None) -> "LobRules":
        return self if tables == self.game_tables else LobRules(own_tables(self, tables))

    def tables_of(self, g: Game) -> GameTables | None:
        """The position's own: its set-up keeps the tables it plays with."""
        return g.setup.charts

    def to_act(self, g: Game) -> str | None:
        return None if g.over else g.player

    def candidates(self, g: Game) -> list[Action]:
        # every candidate game.legal_actions lists, unfiltered: legal_actions (core) checks each once
        return legal_actions(g, keep=keep_all)

    def check(self, g: Game, action: object) -> None:
        if not isinstance(action, Action):
            raise VedetteError(f"expected a Lines of Battle action, got {type(action).__name__}")
        check(g, action)

    def perform(self, g: Game, action: Action) -> Steps[Game]:
        return perform(g, action)

    def outcome(self, g: Game) -> Outcome | None:
        return outcome(g)

    # --- actions -------------------------------------------------------------------------------
    def action_to_json(self, a: Action) -> dict:
        return a.to_json()

    def action_from_json(self, data: Any) -> Action:
        a = Action.from_json(data)
        if a.kind not in RULE_OF:
            raise VedetteError(f"action field 'type': unknown action {a.kind[:30]!r}; one of {', '.join(ACTION_TYPES)}")
        if a.kind != Kind.MOVE and isinstance(data, dict) and "end" in data:
            raise VedetteError(f"action field 'end': only a move has an ending, not a {a.kind!r}")
        return replace(a, kind=Kind(a.kind))

    def rule_of(self, a: Action) -> str:
        return RULE_OF.get(a.kind, "4")

    def describe_action(self, a: Action) -> str:
        return words.describe(a, self.rule_of(a))

    def describe_option(self, g: Game, request: Choose, option: Any) -> str:
        return words.describe_option(request.rule, request.label, option)

    def describe_answer(self, g: Game, answer: dict) -> str:
        return words.describe_answer(answer)

    def describe_result(self, g: Game, request: Any, value: Any) -> str:
        return words.describe_result(request, value)

    def describe_step(self, g: Game, request: Any) -> str:
        if isinstance(request, Log):             # a note on the way (the tree shows its rule beside it)
            return words.describe_note(request.rule, request.text)
        return super().describe_step(g, request)

    def option_title(self, name: str) -> str:
        return words.option_title(name)

    def metric_title(self, key: str) -> str:
        return words.metric_title(key)

    def is_pass(self, a: Action) -> bool:
        return a.kind in PASSES

    def format_action(self, a: Action) -> str:
        text = format_action(a)
        return super().format_action(a) if text is None else text

    def parse_action(self, text: str) -> Action:
        if not isinstance(text, str):
            raise VedetteError("action: expected text or a JSON object")
        s = text.strip()
        if s.startswith("{"):
            return super().parse_action(s)
        return parse_notation(s)

    def places(self, g: Game, a: Action) -> Places:
        """The units, areas and path of ``a`` for the area map (:mod:`.places`)."""
        return places(g, a)

    # --- positions -----------------------------------------------------------------------------
    def state_to_json(self, g: Game) -> dict:
        d = to_json(g, skip=frozenset({"setup"}))
        d["setup"] = {"scenario": self.default_scenario, "options": sorted(g.setup.options),
                      "morale_bid": dict(g.setup.morale_bid)}
        if g.setup.charts is not None:
            d["setup"]["tables"] = g.setup.charts.to_json()
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
        bid = bid_of(su.get("morale_bid") or {}, "field 'setup.morale_bid'")
        mine = None if su.get("tables") is None else tables_from_json(self, su["tables"], "setup.tables")
        setup = Setup(options=names, morale_bid=tuple(sorted(bid.items())),
                      **({} if mine is None else {"tables": mine.value, "charts": mine}))
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
        if g.setup.charts is not None:
            out["tables"] = g.setup.charts.to_json()
        return out

    def state_summary(self, g: Game) -> dict:
        """What the older ``vedette lob`` verbs printed about a position (kept beside core's summary), and
        the command points the side to act has left in its command phase in words (rule 3), for the page's
        status line (``turn_label``)."""
        label = f"{g.player} command points left: {g.cp} (3)" if g.phase == "command" and not g.over else ""
        return {"turn_label": label, "player": g.player, "cp": g.cp, "morale": dict(g.morale), "winner": g.winner, "reason": g.reason,
                "finished": g.over, "eliminated": sorted(u.uid for u in g.units if u.area is None),
                "areas": {a: sorted(u.uid for u in g.in_area(a)) for a in g.board.areas if g.in_area(a)},
                "charts": charts_summary(self, g)}

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
        return invariants(g)

    # --- bots ----------------------------------------------------------------------------------
    def bots(self) -> dict:
        return {"random": RandomBot, "greedy": GreedyBot, "odds": OddsBot}

    # --- odds of an action (engine/core/odds.py) ------------------------------------------------
    def is_attack(self, a: Action) -> bool:
        """An attack (5) and artillery fire (4.2.1) are decided by the dice."""
        return a.kind in ("attack", "fire")

    def attack_candidates(self, g: Game) -> list:
        """The legal fire and the legal attacks by at most three units without a move first (the attacks
        the greedy bot weighs: bigger combats cost too much to enumerate at every decision)."""
        if g.over or g.phase != "command":
            return []
        return [a for a in legal_actions(g, limit_moves=True, keep=keep_all) if self.is_attack(a)
                and (a.kind == Kind.FIRE or (len(a.units) <= 3 and not a.path)) and self.is_legal(g, a)]

    def attack_score(self, g: Game, a: Action) -> float | None:
        """A cheap pre-score for the odds bot's shortlist (ours, not a rule): fire is always weighed (its
        odds are cheap); an attack scores its units' strength (1.2) against the defenders' (5)."""
        if a.kind == "fire":
            return None
        att = sum(g.unit(u).strength for u in a.units)
        assert a.target is not None, "an attack names its target area"
        dfn = sum(u.strength for u in g.in_area(a.target) if u.is_combat)
        return att / (1.0 + dfn)

    def odds_label(self, before: Game, after: Game, action: Action) -> tuple[str, str]:
        return lob_label(self, before, after, action)

    def evaluate(self, g: Game, side: str) -> float:
        return lob_value(self, g, side)

