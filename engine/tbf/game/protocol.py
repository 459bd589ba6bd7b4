"""These Brave Fellows (Dürenstein) on the core game protocol: the whole sequence of play, enforced.

A turn (3.0): the Reinforcement Phase (3.1: mustering 9.2, Dupont 9.6.2, regroup 5.3, Mortier's Alert
9.5.2), the Initiative Phase (3.2), the Activation Phase (3.3: impulses alternate; in each the side to act
activates one leader, 6.1, or passes; the phase ends when both pass one after the other or no leader is
left to activate), the end-of-phase overstack checks (4.1.10 B) and the Recovery Phase (7.0). Victory
(10.0) at the end of turn 13, or at once by 10.1.

An activation runs its segments in order (3.3 B): Movement (6.2: moves, facing changes, charges
6.2.8, out-of-command checks 6.1.3 C, extra units 6.1.3 A), Defensive Fire by the other side (6.3.1 A),
Offensive Fire (6.3.1 B), Melee (6.4). Every "once" is kept per unit in :class:`~.state.UnitTurn` and
refused naming its rule.

``TbfRules`` supplies the rules only, through :mod:`.handlers` (one check and one procedure per action
kind) and :class:`~.queries.Queries` (what bots and boards ask); core gives the record, replay, undo,
sessions, the seeding rule and the bot loop. The phases with no decision (reinforcement rolls, initiative
rolls, recovery) run inside the action that ends the previous Activation Phase; the initiative winner's
choice of who opens (3.2 B) is a ``Choose`` asked of him inside that action.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from engine.core.codec import from_json, to_json
from engine.core.errors import RecordError, RuleViolation, VedetteError
from engine.core.dist import Dist
from engine.core.game import Bot, GameRules, Options, Outcome, Places, Position, RandomBot, register
from engine.core.odds import OddsBot
from engine.core.procedure import Choose, Policy, distribution, first_option
from engine.core.record import GameRecord
from engine.core.tables import ChartFile, GameTables, charts_summary, own_tables, tables_from_json

from ..scenario import Scenario, load_scenario
from ..steps import Steps
from ..tables import DEFAULT_TABLES
from . import handlers as H
from . import words
from .actions import (Activate, ActivateCommand, Attach, CavalryRetreat, Charge, EndSegment, Face, Fire, Melee, Move,
                      OutOfCommand, Pass, RULE_OF, action_from_json, format_action, parse_action, TbfAction)
from .melee_combat import cached_melee_setup
from .movement import FaceBlock, MoveBlock
from .odds_words import tbf_label, tbf_result, tbf_step, tbf_value
from .options import GAME_OPTIONS
from .places import places
from .queries import Queries
from .setup import new_game
from .stacking import stacking_problem
from .state import TbfState, to_act
from .types import GONE, LIVE, SIDES, Status
from .victory import victory_json

__all__ = ["TbfRules", "ENGINE_VERSION", "REFUSED_VERSIONS", "BOTS"]

#: the records this engine writes. tbf-game-2 (issue 29): a charge's fire and melee in their own segments
#: (3.3 B, 6.2.8 H-K), leaders going with routing units (6.5 D), the choices of 6.1.1 B-C, 6.3.8 and 6.4 J,
#: exact victory counts (10.2.2, 10.2.6); a tbf-game-1 record asks other questions in other places and is
#: refused, naming its version (see :meth:`TbfRules.initial_state`)
ENGINE_VERSION = "tbf-game-2"
#: records of earlier engines this one refuses, with the reason
REFUSED_VERSIONS = {"tbf-game-1": "made before the issue 29 readings (charges fought in their segments, 6.5 D, "
                                  "the choices of 6.1.1 B-C, 6.3.8 and 6.4 J): it asks other questions in other "
                                  "places, so it cannot be replayed; play the game again"}

#: the game's bots by name besides core's random and odds bots: :mod:`.bots` adds its greedy bot here (it
#: imports this module; this module never imports it)
BOTS: dict[str, Callable[..., Bot]] = {}


def _validate_tables(data: Any, file: str) -> Any:
    from engine.core.data import validate
    from ..tables import Tables
    return validate(data, Tables, file)


CHART_FILES = (ChartFile("tbf", "These Brave Fellows tables (Fatigue, Fire, Melee, Terrain, Levels)", "tables",
                         DEFAULT_TABLES, _validate_tables),)


class TbfRules(GameRules[TbfState, TbfAction]):
    system = "tbf"
    title = "These Brave Fellows: Dürenstein 1805"
    sides = SIDES
    engine_version = ENGINE_VERSION
    default_scenario = "durenstein"

    def __init__(self, tables: GameTables | None = None) -> None:
        #: the game's own tables (engine/core/tables.py), None for the shipped ones: the rules hold them (the
        #: scenario, the queries), so a game with its own takes these rules (:func:`engine.core.tables.rules_for`)
        self.game_tables = tables
        #: what the rules, bots and boards ask of a state (memoised per state)
        self.queries = Queries(None if tables is None else load_scenario(tables=tables.value))
        self.sc: Scenario = self.queries.sc
        self.td = self.queries.td

    # --- a game's own charts (engine/core/tables.py) ---------------------------------------------
    def chart_files(self, state: TbfState | None = None) -> tuple[ChartFile, ...]:
        return CHART_FILES

    def with_tables(self, tables: GameTables | None) -> "TbfRules":
        return self if tables == self.game_tables else TbfRules(own_tables(self, tables))

    # --- set-up ----------------------------------------------------------------------------------
    def scenarios(self) -> dict[str, str]:
        return {"durenstein": self.sc.file.name}

    def options(self) -> dict[str, str]:
        return dict(GAME_OPTIONS)

    def new_game(self, scenario: str | None = None, options: Options = (), seed: int = 0) -> TbfState:
        """``options``: optional rules, or a record's ``{"options": [...], "tables": ...}`` (the game's own
        tables: they must be the ones these rules play with, :func:`engine.core.tables.rules_for`)."""
        if isinstance(options, dict) and "tables" in options:
            options = dict(options)
            value = options.pop("tables")
            kept = None if value is None else tables_from_json(self, value)
            if kept != self.game_tables:
                raise VedetteError("field 'options.tables': the game plays with "
                                   + (f"the tables {kept.name}" if kept else "the shipped tables")
                                   + ", these rules with other ones (take them from rules_for(record))")
        return new_game(self.sc, scenario, options)

    def record_options(self, s: TbfState) -> dict[str, Any]:
        out: dict[str, Any] = {"options": list(s.options)}
        if self.game_tables is not None:
            out["tables"] = self.game_tables.to_json()
        return out

    def initial_state(self, record: GameRecord) -> TbfState:
        """The first state of a record; a record of an earlier engine whose readings differ is refused, naming
        its version (nothing is migrated: its events answer other questions)."""
        why = REFUSED_VERSIONS.get(record.engine_version)
        if why is not None:
            raise RecordError(f"field 'engine_version': this engine replays {ENGINE_VERSION} records; the record "
                              f"was made by {record.engine_version}, {why}")
        return super().initial_state(record)

    # --- who acts, what is legal, what an action does ---------------------------------------------
    def to_act(self, s: TbfState) -> str | None:
        return to_act(s)

    def outcome(self, s: TbfState) -> Outcome | None:
        return s.result

    def position(self, s: TbfState) -> Position:
        if s.result is not None:
            return Position(s.turn, "over")
        if s.setting_up is not None:
            return Position(s.turn, f"set-up, {s.setting_up}")
        if s.impulse is None:
            return Position(s.turn, f"activation phase, {s.to_move} impulse")
        return Position(s.turn, f"{s.impulse.side} impulse ({s.impulse.leader}), {s.impulse.segment.replace('_', ' ')}")

    def rule_of(self, a: object) -> str:
        return RULE_OF.get(getattr(a, "kind", ""), "")

    def is_pass(self, a: object) -> bool:
        return isinstance(a, (Pass, EndSegment))

    def candidates(self, s: TbfState) -> list[TbfAction]:
        """Every candidate action, in a fixed order (legal actions are those of them that pass :meth:`check`)."""
        return H.candidates(self.queries, s)

    def candidate_blocks(self, s: TbfState) -> list[TbfAction | MoveBlock | FaceBlock]:
        """The candidates with each unit's moves and facings kept as one block (:class:`~.movement.MoveBlock`,
        :class:`~.movement.FaceBlock`): what a bot may weigh without spelling every move out."""
        return H.candidate_blocks(self.queries, s)

    def is_legal(self, state: TbfState, action: object) -> bool:
        return H.is_legal(self.queries, state, action)

    def check(self, s: TbfState, a: object) -> None:
        H.check(self.queries, s, a)

    def perform(self, s: TbfState, a: TbfAction) -> Steps[TbfState]:
        return H.perform(self.queries, s, a)

    def places(self, s: TbfState, a: TbfAction) -> Places:
        """The pieces and hexes ``a`` concerns (see :mod:`.places`): what a board highlights and picks by."""
        return places(self.queries, s, a)

    # --- JSON, text ------------------------------------------------------------------------------------
    def action_to_json(self, a: TbfAction) -> dict[str, Any]:
        return to_json(a)

    def action_from_json(self, data: Any) -> TbfAction:
        return action_from_json(data)

    def state_to_json(self, s: TbfState) -> dict[str, Any]:
        return to_json(s)

    def state_from_json(self, data: Any) -> TbfState:
        return from_json(TbfState, data)

    def format_action(self, a: TbfAction) -> str:
        return format_action(a, self.sc.board.grid.direction_names)

    def parse_action(self, text: str) -> TbfAction:
        if text.strip().startswith("{"):
            return super().parse_action(text)
        return parse_action(text, self.sc.board.grid.direction_names)

    # --- a player's words (:mod:`.words`) ---------------------------------------------------------------
    def describe_action(self, a: TbfAction) -> str:
        return words.describe(a, self.rule_of(a), self.sc.board.grid.direction_names, self.sc)

    def describe_option(self, state: TbfState, request: Choose, option: Any) -> str:
        return words.describe_option(self.sc, getattr(request, "rule", ""), option)

    def describe_answer(self, state: TbfState, answer: dict[str, Any]) -> str:
        return words.describe_answer(self.sc, answer)

    def option_title(self, name: str) -> str:
        return words.option_title(name)

    def metric_title(self, key: str) -> str:
        return words.metric_title(key)

    def piece_name(self, state: TbfState, piece: str) -> str:
        return words.piece_name(self.sc, piece)

    def describe_step(self, state: TbfState, request: Any) -> str:
        return tbf_step(self.sc, request)

    def describe_result(self, state: TbfState, request: Any, value: Any) -> str:
        return tbf_result(self.sc, state, request, value)

    # --- what the CLI and studies show of a position ---------------------------------------------------
    def state_summary(self, s: TbfState) -> dict[str, Any]:
        q = self.queries
        imp = s.impulse
        v = victory_json(q.victory(s))
        return {"impulse": None if imp is None else {
                    "side": imp.side, "leader": imp.leader, "segment": imp.segment, "units": list(imp.units),
                    "out_of_command": [u for u in imp.out_of_command if u not in imp.tried]},
                "leaders_to_activate": {side: q.leaders_left(s, side) for side in SIDES},
                "leaderless_commands": {side: q.leaderless(s, side) for side in SIDES},
                "victory_now": {"french": v.get("french_level"), "coalition": v.get("coalition_level"),
                                "french_battalions_lost": v.get("french_battalions_lost"), "rule": "10.2"},
                "charts": charts_summary(self, s)}

    def metrics(self, s: TbfState) -> dict[str, float]:
        v = self.queries.victory(s)
        rank = {"none": 0, "tactical": 1, "strategic": 2}
        lost = sum(1 for u in self.queries.coalition_units() if s.game.piece(u).status in GONE)
        return {"losses.french": float(v.get("french_battalions_lost", 0)), "losses.coalition": float(lost),
                "level.french": float(rank.get(v.get("french_level", "none"), 0)),
                "level.coalition": float(rank.get(v.get("coalition_level", "none"), 0))}

    # --- odds ----------------------------------------------------------------------------------------
    def odds(self, s: TbfState, a: TbfAction | dict[str, Any] | str, policy: Policy | None = None) -> Dist:
        """The exact distribution of the positions a legal move, charge, fire, melee or Out of Command check
        leads to (the action's own procedure enumerated; the defenders' choices by ``policy``, default the
        first option). Ending a segment or passing may roll a whole end of turn, so it has no odds here."""
        a = self.coerce_action(a)
        if not isinstance(a, (Move, Charge, Fire, Melee, OutOfCommand, Face, Attach, Activate, ActivateCommand,
                              CavalryRetreat)):
            raise VedetteError(f"odds: only moves, charges, fire, melee and activations have odds, not {a.kind}")
        self.check(s, a)
        return distribution(partial(H.perform_only, self.queries, s, a), policy=policy or first_option)

    def is_attack(self, a: TbfAction) -> bool:
        """Fire (6.3), melee (6.4) and a charge (6.2.8) are decided by the dice."""
        return isinstance(a, (Fire, Melee, Charge))

    def odds_label(self, before: TbfState, after: TbfState, a: TbfAction) -> tuple[str, str]:
        return tbf_label(self, before, after, a)

    def attack_score(self, s: TbfState, a: TbfAction) -> float:
        """A cheap pre-score for the odds bot's shortlist (ours, not a rule; the greedy bot's weights): fire by
        the firers' fire factors (6.3), melee by the attackers' melee factors over the defenders' (6.4), a
        charge high (6.2.8)."""
        sc = self.sc
        if isinstance(a, Fire):
            return 10 + sum(sc.units[u].ff or sc.units[u].ff_red for u in a.units if u in sc.units)
        if isinstance(a, Melee):
            try:
                ms = cached_melee_setup(s.game, tuple(a.units), a.target, self.sc)
            except RuleViolation:
                return 0.0
            return 8 + sum(f.mf for f in ms.attackers) / (sum(f.mf for f in ms.defenders) or 1)
        return 9.0

    def evaluate(self, s: TbfState, side: str) -> float:
        return tbf_value(self, s, side)

    def bots(self) -> dict[str, Callable[..., Bot]]:
        return {"random": RandomBot, **BOTS, "odds": OddsBot}

    # --- invariants ----------------------------------------------------------------------------------
    def invariants(self, s: TbfState) -> list[str]:
        sc, g = self.sc, s.game
        out: list[str] = []
        if not 1 <= g.turn <= sc.file.turns:
            out.append(f"turn {g.turn} outside 1..{sc.file.turns}")
        live = [p for p in g.on_map() if p.id in sc.units and p.status in LIVE]
        sides_in: dict[str | None, set[str]] = {}
        for p in live:
            sides_in.setdefault(p.hex, set()).add(sc.side(p.id))
            if not 0 <= p.facing <= 5:
                out.append(f"4.3 B: {p.id} faces {p.facing}")
        out += [f"6.2.5 B: French and Coalition units share {h}" for h, ss in sides_in.items() if len(ss) > 1]
        for h in self.queries.overstacks(g):
            if h not in s.overstack_ok:
                out.append(f"4.1: {h} is overstacked by a move ({stacking_problem(sc, g, h)})")
        if len(set(s.activations)) != len(s.activations):
            out.append(f"6.1.3 E: a leader opened two activations this turn ({s.activations})")
        for l in s.activations:
            if l.startswith("command "):
                continue
            if g.piece(l).hex is not None and g.piece(l).status == Status.NORMAL and not g.piece(l).activated:
                out.append(f"6.1.3 B: {l} activated but not flipped")
        if s.impulse is not None:
            for u in s.impulse.units:
                if g.piece(u).hex is not None and not g.piece(u).activated:
                    out.append(f"6.1.3 E: {u} acts in an impulse without being marked activated")
        for p in g.pieces:
            if p.status in GONE and p.hex is not None:
                out.append(f"{p.id} is {p.status} but still on the map")
        wounded = {l for l, _ in s.wounded}
        for l in sorted(sc.leaders):
            if (g.piece(l).status == Status.WOUNDED) != (l in wounded):
                out.append(f"6.5 A: {l} is {g.piece(l).status} but the wounded list says {sorted(wounded)}")
        for u in s.rear_guard:
            if sc.units[u].command != "II":
                out.append(f"9.2 E: {u} is in the Rear Guard but not a Column II unit")
        need = sc.file.victory.rear_guard
        if s.rear_guard and s.rear_guard_short != need.infantry + need.cavalry - len(s.rear_guard):
            out.append(f"9.2 G: Rear Guard of {len(s.rear_guard)} units but shortfall {s.rear_guard_short}")
        for o in s.options:
            if o not in GAME_OPTIONS:
                out.append(f"11.0: unknown option {o!r} in the state")
        if "optional_11.4" in g.flags and "11.4" not in s.options:
            out.append("11.4: Column IV is in play without the optional rule")
        return out


register("tbf", TbfRules)
