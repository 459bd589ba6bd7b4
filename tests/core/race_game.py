"""A tiny two-player dice race used to test the core game protocol without any real system.

Each side in turn either rolls a d6 and moves its marker that many spaces (on a 1 it must choose
to stay or to step back one space), or passes. The first to reach ``goal`` wins. Rule numbers are made
up ("R1" ... "R4") so refusals can be checked.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from engine.core.codec import from_json, to_json
from engine.core.errors import RuleViolation, VedetteError
from engine.core.game import GameRules, Outcome, Position, RandomBot, other_side, register
from engine.core.procedure import Choose, Log, Roll


@dataclass(frozen=True)
class RaceAction:
    kind: Literal["roll", "pass"]
    side: str

    def __str__(self):
        return f"{self.side}:{self.kind}"


@dataclass(frozen=True)
class RaceState:
    goal: int
    turn: int = 1
    player: str = "red"
    red: int = 0
    blue: int = 0
    winner: str | None = None
    options: tuple[str, ...] = ()


class RaceRules(GameRules[RaceState, RaceAction]):
    system = "race"
    sides = ("red", "blue")
    engine_version = "race-1"
    default_scenario = "short"

    def scenarios(self):
        return {"short": "goal 10", "long": "goal 30"}

    def options(self):
        return {"mercy": "R4", "slow": "test only: each action takes 20 ms"}

    def new_game(self, scenario=None, options=(), seed=0):
        names = options.get("options", []) if isinstance(options, dict) else list(options)
        for o in names:
            if o not in self.options():
                raise VedetteError(f"unknown option {o!r}")
        goal = {"short": 10, "long": 30}.get(scenario or "short")
        if goal is None:
            raise VedetteError(f"unknown scenario {scenario!r}")
        return RaceState(goal=goal, options=tuple(names))

    def to_act(self, s):
        return None if s.winner else s.player

    def candidates(self, s):
        return [RaceAction("roll", s.player), RaceAction("pass", s.player),
                RaceAction("roll", other_side(self.sides, s.player))]

    def check(self, s, a):
        if s.winner:
            raise RuleViolation("R3", "the race is over")
        if a.side != s.player:
            raise RuleViolation("R1", f"it is {s.player}'s turn, not {a.side}'s")
        if a.kind == "pass" and s.turn == 1:
            raise RuleViolation("R2", "no passing on the first turn")

    def perform(self, s, a):
        if "slow" in s.options:
            import time
            time.sleep(0.02)
        mine = getattr(s, a.side)
        if a.kind == "roll":
            r = yield Roll("d6", rule="R1", label="move")
            if r == 1:
                back = yield Choose(("stay", "back"), rule="R2", player=a.side, label="after a 1")
                step = 0 if back == "stay" else -1
            else:
                step = r
            yield Log("R1", f"{a.side} moves {step}")
            mine = max(0, mine + step)
        s = replace(s, **{a.side: mine})
        winner = a.side if mine >= s.goal else None
        nxt = other_side(self.sides, a.side)
        return replace(s, winner=winner, player=nxt, turn=s.turn + (1 if nxt == "red" else 0))

    def outcome(self, s):
        return Outcome(s.winner, "win", f"reached {s.goal}", "R3") if s.winner else None

    def action_to_json(self, a):
        return to_json(a)

    def action_from_json(self, d):
        return from_json(RaceAction, d)

    def state_to_json(self, s):
        return to_json(s)

    def state_from_json(self, d):
        return from_json(RaceState, d)

    def position(self, s):
        return Position(s.turn, s.player)

    def is_pass(self, a):
        return a.kind == "pass"

    def format_action(self, a):
        return str(a)

    def parse_action(self, text):
        if ":" in text and not text.strip().startswith("{"):
            side, kind = text.strip().split(":", 1)
            return self.action_from_json({"kind": kind, "side": side})
        return super().parse_action(text)

    def metrics(self, s):
        return {"red": s.red, "blue": s.blue}

    def invariants(self, s):
        return [f"{side} below 0" for side in self.sides if getattr(s, side) < 0]

    def bots(self):
        return {"random": RandomBot, "greedy": lambda seed=None: RandomBot(seed, pass_rate=0.0)}


register("race", RaceRules)
