"""Battle Commander on the core game protocol (issue 14): the order-cube turn enforced, registered as ``"bc"``.

A :class:`~.state.BcState` is the map position plus where the turn stands; each phase allows only its actions
(:data:`~.handlers.ALLOWED`, the sequence of play in :mod:`.phases`). This class is the protocol's face only:
candidates (:mod:`.candidates`), check and perform (:mod:`.handlers`), JSON (:mod:`.actions`, :mod:`.state`),
words (:mod:`.words`), the calculators' odds (:mod:`.odds`) and the bots (:mod:`.bots`) live in their modules.
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from engine.core.errors import RuleViolation, VedetteError
from engine.core.game import GameRules, Outcome, Places, Position, RandomBot
from engine.core.odds import OddsBot
from engine.core.tables import ChartFile, GameTables, charts_summary, own_tables, tables_from_json

from ..deck import default_deck
from .actions import BcAction, Kind, action_from_json, action_to_json, format_action, parse_action_text
from .attacks import attack_setup
from .bots import GreedyBot
from .candidates import candidates
from .handlers import check, perform
from .odds import card_odds, result_value
from .places import places
from .scenario import SCENARIOS, scenario_by_id
from .state import BcState, invariants, new_map, state_from_json, state_to_json
from .types import LEADER_ASSIST, SIDES, Phase
from .victory import flag_control
from .view import odds_state, odds_view, view, visible_action, visible_event
from .words import (bc_label, bc_metrics, bc_result, bc_step, bc_value, describe, describe_answer, describe_option,
                    metric_title, option_title, piece_name)

__all__ = ["BcRules", "ENGINE_VERSION", "GAME_OPTIONS"]

#: bc-game-3 (issue 29): Square attempts (23.1), No Retreat! (24.1) and Clash of Wills (27.7) are the players'
#: choices, Ordre Mixte once per Red cube with the Commander's ability (27.6), the turn marker moves after the
#: Give Ground step (16.3); bc-game-2 records are refused, naming their version
ENGINE_VERSION = "bc-game-3"
#: the optional rules a game may be played with
GAME_OPTIONS = {LEADER_ASSIST: "Leader-assisted Skill Checks for Rally Orders (optional rule 29.6), with Wavering "
                               "Troops (29.7)"}


def _deck(data, file):
    from engine.core.data import validate
    from ..deck import Deck, DeckModel
    return Deck(validate(data, DeckModel, file), file)


def _terrain(data, file):
    from engine.core.data import validate
    from ..terrain import Terrain, TerrainModel
    return Terrain(validate(data, TerrainModel, file), file)


def _chart_files() -> tuple[ChartFile, ...]:
    from engine.core.data import data_path
    return (ChartFile("bc-deck", "Battle Commander event deck (Skill icons, Fire and Assault CRT rows)", "event deck",
                      data_path("bc", "deck.yaml"), _deck, lambda d: isinstance(d, dict) and "cards" in d),
            ChartFile("bc-terrain", "Battle Commander Terrain Effects Chart", "Terrain Effects Chart",
                      data_path("bc", "terrain.yaml"), _terrain,
                      lambda d: isinstance(d, dict) and "zones" in d and "cards" not in d))


CHART_FILES = _chart_files()


class BcRules(GameRules[BcState, BcAction]):
    system = "bc"
    title = "Battle Commander"
    sides = SIDES
    engine_version = ENGINE_VERSION
    default_scenario = "demo"

    def __init__(self, tables: GameTables | None = None):
        #: the game's own tables (engine/core/tables.py): an event deck or a Terrain Effects Chart file. The
        #: rules hold the deck (a game with its own takes these rules, :func:`engine.core.tables.rules_for`);
        #: the terrain chart travels with the map's scenario
        self.game_tables = tables
        self.deck = tables.value if tables is not None and tables.chart == "bc-deck" else default_deck()
        self.terrain = tables.value if tables is not None and tables.chart == "bc-terrain" else None

    # --- a game's own charts (engine/core/tables.py) ---------------------------------------------
    def chart_files(self, state: BcState | None = None) -> tuple[ChartFile, ...]:
        return CHART_FILES

    def with_tables(self, tables: GameTables | None) -> "BcRules":
        return self if tables == self.game_tables else BcRules(own_tables(self, tables))

    def record_options(self, st: BcState) -> dict[str, Any]:
        out: dict[str, Any] = {"options": list(st.options)}
        if self.game_tables is not None:
            out["tables"] = self.game_tables.to_json()
        return out

    def _scenario(self, sc):
        """The map's scenario played on the game's own terrain chart (if it has one)."""
        return sc if sc.terrain == self.terrain else replace(sc, terrain=self.terrain)

    # --- set-up ----------------------------------------------------------------------------------
    def scenarios(self) -> dict[str, str]:
        return dict(SCENARIOS)

    def options(self) -> dict[str, str]:
        return dict(GAME_OPTIONS)

    def new_game(self, scenario=None, options=(), seed: int = 0) -> BcState:
        """``options``: a list of optional rules, or a record's ``{"options": [...], "tables": ...}`` (the
        game's own tables: they must be the ones these rules play with, :func:`engine.core.tables.rules_for`)."""
        if isinstance(options, dict) and set(options) - {"options", "tables"}:
            extra = sorted(map(str, set(options) - {"options", "tables"}))
            raise VedetteError(f"field options: unknown key {extra[0][:40]!r}; a Battle Commander game's options "
                               "hold only 'options' (a list of optional rules) and 'tables' (its own charts)")
        if isinstance(options, dict) and options.get("tables") is not None:
            kept = tables_from_json(self, options["tables"])
            if kept != self.game_tables:
                raise VedetteError(f"field 'options.tables': the game plays with the tables {kept.name}, these "
                                   "rules with other ones (take them from rules_for(record))")
        names = options.get("options", []) if isinstance(options, dict) else list(options)
        if not isinstance(names, (list, tuple)):
            raise VedetteError(f"field options: expected a list of optional rules, got {str(names)[:40]!r}")
        for o in names:
            if o not in GAME_OPTIONS:
                raise VedetteError(f"unknown option {str(o)[:30]!r}: Battle Commander offers "
                                   f"{', '.join(GAME_OPTIONS)}")
        sid = scenario or self.default_scenario
        g = new_map(self._scenario(scenario_by_id(sid)), self.deck)
        st = BcState(g, sid, Phase.PREPARE, g.initiative, options=tuple(sorted(set(names))))
        return replace(st, control=tuple(sorted(flag_control(g).items())))

    # --- who acts -----------------------------------------------------------------------------------
    def to_act(self, st: BcState) -> str | None:
        return None if st.phase == Phase.OVER else st.actor

    def outcome(self, st: BcState) -> Outcome | None:
        if st.phase != Phase.OVER:
            return None
        return Outcome(st.winner, "demoralisation" if st.result_rule == "13.1" else "flags", st.result,
                       st.result_rule)

    def position(self, st: BcState) -> Position:
        cube = f" ({st.cube})" if st.cube and st.phase in (Phase.ORDER, Phase.REACTION) else ""
        return Position(st.g.turn, st.phase + cube)

    def is_pass(self, a: BcAction) -> bool:
        return a.kind in (Kind.PASS, Kind.DONE)

    def rule_of(self, a: BcAction) -> str:
        return a.rule

    # --- legal actions, check, perform ---------------------------------------------------------------
    def candidates(self, st: BcState) -> list[BcAction]:
        return candidates(st)

    def check(self, st: BcState, a: BcAction) -> None:
        check(st, a, self.deck)

    def perform(self, st: BcState, a: BcAction):
        return perform(st, a, self.deck)

    # --- what the CLI shows of a position, with odds ----------------------------------------------
    def state_summary(self, st: BcState) -> dict:
        g = st.g
        out = {"cube": st.cube, "cup": dict(g.cup.counts) if g.cup else {}, "tokens": dict(g.tokens),
               "reserve": dict(g.reserve), "morale": {s: g.morale_of(s).to_json() for s in SIDES},
               "hands": {s: len(g.hand(s)) for s in SIDES}, "initiative": g.initiative,
               "charts": charts_summary(self, st)}
        if st.phase in (Phase.RED, Phase.YELLOW_RALLY, Phase.ORDER, Phase.REACTION) and st.actor is not None:
            out["odds"] = {self.format_action(a): o for a in self.legal_actions(st)
                           if (o := self.action_odds(st, a)) is not None}
        return out

    def action_odds(self, st: BcState, a: BcAction) -> dict | None:
        """The calculators' odds of ``a`` (:func:`~.odds.card_odds`)."""
        return card_odds(st, a, self.deck)

    # --- JSON ---------------------------------------------------------------------------------------
    def action_to_json(self, a: BcAction) -> dict:
        return action_to_json(a)

    def action_from_json(self, data: Any) -> BcAction:
        return action_from_json(data)

    def format_action(self, a: BcAction) -> str:
        return format_action(a)

    def parse_action(self, text: str) -> BcAction:
        text = text.strip()
        if text.startswith("{"):
            return super().parse_action(text)
        return self.action_from_json(parse_action_text(text))

    def describe_action(self, a: BcAction) -> str:
        return describe(a)

    def describe_option(self, st: BcState, request, option) -> str:
        return describe_option(st, request, option, self.deck)

    def describe_answer(self, st: BcState, answer: dict) -> str:
        return describe_answer(st, answer, self.deck)

    def option_title(self, name: str) -> str:
        return option_title(name)

    def metric_title(self, key: str) -> str:
        return metric_title(key)

    def piece_name(self, st: BcState, piece: str) -> str:
        return piece_name(st, piece)

    def describe_step(self, st: BcState, request) -> str:
        return bc_step(request)

    def describe_result(self, st: BcState, request, value) -> str:
        return bc_result(st, request, value)

    def state_to_json(self, st: BcState) -> dict:
        return state_to_json(st)

    def state_from_json(self, data: Any) -> BcState:
        st = state_from_json(data)
        if self.terrain is None:
            return st
        return replace(st, g=replace(st.g, scenario=self._scenario(st.g.scenario)))

    # --- what boards and each side's page may use (15.0 No Peeking) --------------------------------
    def places(self, st: BcState, a: BcAction) -> Places:
        return places(st, a)

    def hides(self, st: BcState) -> bool:
        """Always: the hands and the draw pile are hidden (15.0)."""
        return True

    def view(self, st: BcState, side: str | None) -> BcState:
        return view(st, side)

    def visible_action(self, st: BcState, a: BcAction, side: str | None) -> BcAction:
        return visible_action(st, a, side)

    def visible_event(self, st: BcState, event: dict, side: str | None) -> dict:
        return visible_event(st, event, side)

    def odds_view(self, st: BcState, side: str | None) -> BcState:
        """The position to work ``side``'s odds from (:func:`~.view.odds_view`): pass it to core's
        :func:`~engine.core.odds.action_odds` so the odds a side is shown treat the cards it has not seen
        as unknown."""
        return odds_view(st, side, self.deck)

    def odds_position(self, st: BcState, a: BcAction, side: str | None) -> BcState:
        """Core's quick-odds hook (engine/core/quick_odds.py): the position to work ``side``'s odds of ``a``
        from, as that side knows the cards (:func:`~.view.odds_view`). Refused (15.0, 16.1) for Turn
        Preparation, whose hands are cut by what each card is: the other hand's cards stay hidden."""
        if a.kind == Kind.START_TURN:
            raise RuleViolation("15.0", "Turn Preparation cuts each hand by what its cards are (16.1): the other "
                                        "hand stays hidden, no odds are shown of it")
        return odds_view(st, side, self.deck)

    def odds_state(self, st: BcState) -> BcState:
        """The position to work exact odds from with everything known (:func:`~.view.odds_state`): the
        same fractions as ``st`` itself, far fewer branches and end positions."""
        return odds_state(st, self.deck)

    # --- invariants (checked by the conformance suite) ---------------------------------------------
    def invariants(self, st: BcState) -> list[str]:
        return invariants(st, self.deck)

    def bots(self):
        # an assault's odds run to thousands of end positions: exact odds for the 2 best pre-scored attacks
        return {"random": RandomBot, "greedy": GreedyBot, "odds": partial(OddsBot, top_k=2)}

    # --- odds of an action (engine/core/odds.py) ------------------------------------------------
    def is_attack(self, a: BcAction) -> bool:
        """An attack (23.1: fire, assault or bombardment) is decided by the cards."""
        return a.kind == Kind.ATTACK

    def attack_candidates(self, st: BcState) -> list:
        if st.phase != Phase.RED:
            return []
        return [a for a in self.legal_actions(st) if self.is_attack(a)]

    def attack_score(self, st: BcState, a: BcAction) -> float:
        """A cheap pre-score for the odds bot's shortlist (ours, not a rule): the greedy bot's value of one
        combat card at the attack's tallied column and fixed shifts (23.2-23.4)."""
        try:
            _, t = attack_setup(st, a)
        except VedetteError:
            return float("-inf")
        return result_value(self.deck, t.table, t.column, t.net_shift)

    def metrics(self, st: BcState) -> dict[str, float]:
        return bc_metrics(st)

    def odds_label(self, before: BcState, after: BcState, a: BcAction):
        return bc_label(self, before, after, a)

    def evaluate(self, st: BcState, side: str) -> float:
        return bc_value(self, st, side)

