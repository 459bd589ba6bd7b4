"""Replay links of the Scenario balance page (issue 16.4): ``/play?system=..&scenario=..&mode=replay&seed=..
&bots=A,B&options=..`` opens one study game in the play page's replay view, read-only.

A study stores no records: game ``i`` is played by :func:`engine.core.simulate.play_one` with the seed
:func:`~engine.core.simulate.game_seed` gives, and the link carries that per-game seed. Playing
:func:`engine.core.game.play_game` again with the same system, scenario, options, bots and seed gives the
same game, action for action (the one seeding rule: every event's dice come from ``action_seed(seed, n)``,
each bot's from ``action_seed(seed, -1 - i)``).

:func:`parse_replay_link` checks the link's parameters (a one-line :class:`VedetteError` naming the
parameter otherwise; nothing is played or stored); :func:`play_study_game` plays the game, at most
:data:`MAX_LINK_ACTIONS` actions, and returns its record and every state (the play page runs it off the
event loop, within the page's time budget).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from engine.core.errors import VedetteError
from engine.core.game import GameRules, play_game, system_of, systems
from engine.core.record import GameRecord

__all__ = ["ReplayLink", "parse_replay_link", "play_study_game", "MAX_LINK_ACTIONS", "is_replay_link"]

#: a replay link plays at most this many actions (a study's game that ran longer is shown cut there)
MAX_LINK_ACTIONS = 5000
#: the seeds a study writes are below 2**63 (``game_seed`` drops a bit of a 64-bit hash)
MAX_SEED = 2 ** 63 - 1
_NAME = re.compile(r"^[A-Za-z0-9_.+-]{1,40}$")


@dataclass(frozen=True)
class ReplayLink:
    system: str
    scenario: str
    options: tuple[str, ...]
    bots: tuple[str, str]
    seed: int

    def describe(self) -> str:
        opts = ", ".join(self.options) or "standard"
        return (f"study game: {self.scenario} ({opts}), {self.bots[0]} vs {self.bots[1]}, seed {self.seed}")


def is_replay_link(get: Callable[[str], str]) -> bool:
    """Whether the page's URL asks for a study game (``mode=replay`` with a ``seed`` and no saved game)."""
    return get("mode") == "replay" and bool(get("seed")) and not get("game")


def _names(text: str, what: str) -> tuple[str, ...]:
    out = tuple(x.strip() for x in text.split(",") if x.strip())
    for x in out:
        if not _NAME.match(x):
            raise VedetteError(f"replay link: parameter {what!r}: {x[:20]!r} is not a name")
    return out


def parse_replay_link(get: Callable[[str], str]) -> ReplayLink:
    """The study game a link names; ``get(name)`` reads one URL parameter ('' when absent)."""
    system = get("system") or ""
    if system not in systems():
        raise VedetteError(f"replay link: parameter 'system': {system[:20]!r} is not one of {', '.join(systems())}")
    rules: GameRules = system_of(system)
    scenario = get("scenario") or rules.default_scenario
    if scenario not in rules.scenarios():
        raise VedetteError(f"replay link: parameter 'scenario': {scenario[:30]!r} is not one of "
                           f"{', '.join(rules.scenarios())}")
    raw_seed = get("seed") or ""
    if not re.fullmatch(r"\d{1,19}", raw_seed) or int(raw_seed) > MAX_SEED:
        raise VedetteError(f"replay link: parameter 'seed': expected a whole number from 0 to {MAX_SEED}, "
                           f"got {raw_seed[:24]!r}")
    options = _names(get("options") or "", "options")
    known = rules.options()
    for o in options:
        if o not in known:
            raise VedetteError(f"replay link: parameter 'options': unknown option {o!r}; one of "
                               f"{', '.join(known) or '(none)'}")
    bots = _names(get("bots") or "", "bots")
    if len(bots) != 2:
        raise VedetteError(f"replay link: parameter 'bots': expected two bots joined by a comma (one per side: "
                           f"{' and '.join(rules.sides)}), got {len(bots)}")
    for b in bots:
        if b not in rules.bots():
            raise VedetteError(f"replay link: parameter 'bots': unknown bot {b!r}; one of {', '.join(rules.bots())}")
    try:
        rules.new_game(scenario, options, 0)      # e.g. a variant that does not belong to the scenario
    except VedetteError as exc:
        raise VedetteError(f"replay link: parameter 'options': {str(exc)[:160]}") from None
    return ReplayLink(system, scenario, options, (bots[0], bots[1]), int(raw_seed))


def play_study_game(link: ReplayLink, max_actions: int = MAX_LINK_ACTIONS) -> tuple[GameRecord, list, bool]:
    """The study game again, as :func:`engine.core.simulate.play_one` played it: its record, every state
    (the first, then one per action) and whether it stopped at ``max_actions`` before the game ended."""
    rules = system_of(link.system)
    states = [rules.new_game(link.scenario, link.options, link.seed)]
    final, rec = play_game(rules, link.bots, link.scenario, link.options, link.seed, max_actions=max_actions,
                           record=True, on_action=lambda st, n: states.append(st))
    cut = rules.to_act(final) is not None and len(rec.events) >= max_actions
    return rec, states, cut
