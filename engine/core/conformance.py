"""The conformance suite every system passes (OpenSpiel's random-simulation test, python-chess's perft
spirit), written once against :class:`~engine.core.game.GameRules`.

:func:`check_game` plays a random-legal game from a seed and checks, at every state:

* every legal action passes ``check`` and can be applied (all of them, or a sample of ``apply_sample``);
* illegal actions (legal elsewhere in the game, or the system's own ``illegal_examples``) are refused with a
  :class:`RuleViolation` naming a rule, and the state is unchanged (its JSON before and after is equal);
* actions and states round-trip through JSON, and actions through their text notation;
* the system's invariants hold;
* replaying the record rebuilds every state, and a saved and reloaded record replays the same way.

It returns a :class:`Report` (counts) and raises :class:`ConformanceError` on the first failure.
"""
from __future__ import annotations

import json
import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NoReturn

from .errors import RuleViolation, VedetteError
from .game import Bot, GameRules, RandomBot, action_seed, new_record, replay
from .procedure import Choose, RandomDice
from .record import GameRecord

__all__ = ["check_game", "Report", "ConformanceError"]


class ConformanceError(AssertionError):
    pass


@dataclass
class Report:
    system: str
    seed: int
    actions: int = 0
    states_checked: int = 0
    legal_applied: int = 0
    illegal_refused: int = 0
    over: bool = False
    outcome: Any = None
    rules_cited: set[str] = field(default_factory=set)


def _canon(rules: GameRules[Any, Any], state: Any) -> str:
    return json.dumps(rules.state_to_json(state), sort_keys=True, default=str)


def check_game(rules: GameRules[Any, Any], scenario: str | None = None, options: Sequence[str] | Mapping[str, Any] = (), seed: int = 0,
               max_actions: int = 400, apply_sample: int = 3, illegal_sample: int = 4,
               full_state_every: int = 1) -> Report:
    """Play a random-legal game of at most ``max_actions`` actions and check the protocol at each state."""
    rng = random.Random(seed)
    bot = RandomBot(seed=seed)
    state = rules.new_game(scenario or rules.default_scenario, options, seed)
    record = new_record(rules, state, seed)
    rep = Report(rules.system, seed)
    seen_actions: list[Any] = []
    states = [state]
    events = []

    def fail(msg: str) -> NoReturn:
        raise ConformanceError(f"{rules.system} seed {seed} action {rep.actions} ({rules.position(state)}): {msg}")

    while rep.actions < max_actions:
        side = rules.to_act(state)
        if side is None:
            rep.over = True
            rep.outcome = rules.outcome(state)
            if rep.outcome is None:
                fail("no side to act, but outcome() is None")
            break
        if side not in rules.sides:
            fail(f"to_act gave {side!r}, not one of {rules.sides}")
        problems = rules.invariants(state)
        if problems:
            fail("invariant broken: " + "; ".join(problems[:3]))
        before = _canon(rules, state) if rep.actions % full_state_every == 0 else None
        # position round trip
        if before is not None:
            back = rules.state_from_json(json.loads(json.dumps(rules.state_to_json(state))))
            if _canon(rules, back) != before:
                fail("state_to_json / state_from_json do not round-trip")
        legal = rules.legal_actions(state)
        if not legal:
            fail("the side to act has no legal action")
        for a in legal:
            data = json.loads(json.dumps(rules.action_to_json(a)))
            if rules.action_from_json(data) != a:
                fail(f"action JSON does not round-trip: {data}")
            text = rules.format_action(a)
            if rules.parse_action(text) != a:
                fail(f"action text {text!r} does not read back")
            try:
                rules.check(state, a)
            except RuleViolation as exc:
                fail(f"a listed legal action is refused: {exc}")
        for a in rng.sample(legal, min(apply_sample, len(legal))):
            try:
                rules.apply(state, a, dice=RandomDice(rng.randrange(2 ** 32)), chooser=lambda r: rng.choice(r.options))
            except VedetteError as exc:
                fail(f"legal action {rules.describe_action(a)} fails when applied: {exc}")
            rep.legal_applied += 1
        # illegal actions: legal elsewhere, not here
        pool = [a for a in seen_actions if a not in legal]
        for a in rng.sample(pool, min(illegal_sample, len(pool))):
            if rules.is_legal(state, a):
                continue           # legal here too, though not listed: candidates() missed it
            try:
                rules.apply(state, a, dice=RandomDice(0))
            except RuleViolation as exc:
                if not exc.rule:
                    fail(f"refusal of {rules.describe_action(a)} names no rule")
                rep.rules_cited.add(exc.rule)
                rep.illegal_refused += 1
            except VedetteError as exc:
                fail(f"illegal action {rules.describe_action(a)} raised {type(exc).__name__}, not RuleViolation: {exc}")
            else:
                fail(f"illegal action {rules.describe_action(a)} was applied")
            if before is not None and _canon(rules, state) != before:
                fail("a refused action changed the state")
        seen_actions.extend(legal[:20])
        if len(seen_actions) > 400:
            del seen_actions[:200]
        a = bot.choose_action(rules, state, legal)
        p = rules.begin(state, a).run(RandomDice(action_seed(seed, rep.actions)), partial(_pick, bot))
        events.append(p.event())
        state = p.state
        states.append(state)
        rep.actions += 1
        rep.states_checked += 1
    # replay reproduces every state, also after a save and load
    record = GameRecord.loads(record.__class__(**{**record.__dict__, "events": tuple(events)}).dumps())
    again = replay(rules, record)
    if len(again) != len(states):
        raise ConformanceError(f"{rules.system} seed {seed}: replay gave {len(again)} states, play {len(states)}")
    for i, (x, y) in enumerate(zip(states, again)):
        if _canon(rules, x) != _canon(rules, y):
            raise ConformanceError(f"{rules.system} seed {seed}: replayed state {i} differs from the played one")
    return rep


def _pick(bot: Bot, req: Choose) -> Hashable:
    return bot.choose(req)
