"""Artillery fire (rule 4.2.1, with 7.2 artillery types and the Albuera terrain rules).

One procedure serves offensive fire in the command phase, defensive fire in pre-combat (5.1.3) and
the odds calculator: roll a d6, add the modifiers, read the effect, then the target's owner chooses
between taking the second hit and retreating where the effect allows it.
"""
from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from functools import partial

from engine.core.dist import Dist
from engine.core.procedure import Choose, Log, Policy, Roll, distribution

from .steps import Steps
from .tables import Tables, default_tables
from .units import ART, INF

__all__ = ["FireSetup", "FireOutcome", "fire_modifier", "fire_effect", "artillery_fire", "fire_odds"]


@dataclass(frozen=True)
class FireSetup:
    """Everything the fire roll depends on (4.2.1, 7.2, Albuera terrain 1-3)."""

    arty: str = "foot"                   # foot | horse | heavy | rockets (7.2)
    target_kind: str = INF               # inf | cav | art
    target_square: bool = False
    target_on_approach: bool = False
    target_deployed_artillery: bool = False
    target_in_town: bool = False         # Albuera terrain 2: -2 firing into the town
    long_range: bool = False             # two areas away from a hill (Albuera terrain 1)
    can_retreat: bool = True             # somewhere to retreat to (4.2.1)
    target_hits_left: int = 1            # hits the target can take before it is eliminated (art: 1)
    artilleryman: bool = False           # 7.1.2 leader attribute: +1 to one artillery's fire


def fire_modifier(s: FireSetup, tables: Tables) -> int:
    """Sum of the 4.2.1 modifiers (and the terrain / optional ones)."""
    f, t, o = tables.fire, tables.terrain, tables.optional
    m = 0
    if s.target_square:
        m += f.target_square                    # 4.2.1: +1 against a square
    if s.target_on_approach and s.target_kind == INF:
        m += f.target_on_approach               # 4.2.1: -1 against infantry on the approach (line)
    if s.target_deployed_artillery:
        m += f.target_deployed_artillery        # 4.2.1: -1 against deployed artillery
    if s.target_in_town:
        m += t.town_fire                        # Albuera terrain 2: -2 into the town
    if s.long_range and s.arty == "horse":
        m += o.horse_artillery_long_range       # 7.2.1: -1 beyond one area
    if s.artilleryman:
        m += 1                                  # 7.1.2 Artilleryman
    return m


def fire_effect(s: FireSetup, modified: int, tables: Tables) -> tuple[int, bool]:
    """(certain hits, whether a further 'hit or retreat' follows) for a modified roll (4.2.1, 7.2)."""
    f, o = tables.fire, tables.optional
    if s.arty == "rockets":                     # 7.2.3: only 5+ hits; then two hits or retreat
        return (0, True) if modified >= o.rocket_hit_from else (0, False)
    two_from = f.two_hit_from
    if s.arty == "heavy":                       # 7.2.2: 5+ counts as a 6
        two_from = min(two_from, o.heavy_artillery_two_hit_from)
    if s.arty == "horse":                       # 7.2.1: 6+ counts as 4-5
        two_from = 10 ** 6
    if modified >= two_from:
        return (1, True)
    if modified >= f.one_hit_from:
        return (0, True)
    return (0, False)


@dataclass(frozen=True, order=True)
class FireOutcome:
    hits: int
    retreated: bool

    def to_json(self) -> dict:
        return {"hits": self.hits, "retreated": self.retreated}


def artillery_fire(s: FireSetup, tables: Tables | None = None, player: str = "target", label: str = ""
                   ) -> Steps[FireOutcome]:
    """The fire procedure: d6 + modifiers, then the target's choice of an extra hit or a retreat."""
    tables = tables or default_tables()
    roll = yield Roll("d6", rule="4.2.1", label=label or "artillery fire")
    modified = roll + fire_modifier(s, tables)
    certain, option = fire_effect(s, modified, tables)
    yield Log("4.2.1", f"fire roll {roll} modified to {modified}", {"roll": roll, "modified": modified})
    if certain >= s.target_hits_left or not option:
        return FireOutcome(min(certain, s.target_hits_left), False)
    extra = tables.optional.rocket_hits if s.arty == "rockets" else 1
    options = ("hit", "retreat") if s.can_retreat else ("hit",)
    choice = yield Choose(options, rule="7.2.3" if s.arty == "rockets" else "4.2.1", player=player,
                          label=f"take {extra} more hit(s) or retreat",
                          context=("fire-effect", certain, extra, s.target_hits_left))
    if choice == "retreat":
        return FireOutcome(certain, True)
    return FireOutcome(min(certain + extra, s.target_hits_left), False)


def prefer_retreat(req: Choose) -> Hashable:
    """Policy: a fired-on unit retreats whenever it may."""
    return "retreat" if "retreat" in req.options else req.options[0]


def prefer_hit(req: Choose) -> Hashable:
    """Policy: a fired-on unit stands and takes the hit unless that would eliminate it."""
    if req.context and req.context[0] == "fire-effect":
        _, certain, extra, left = req.context
        if certain + extra >= left and "retreat" in req.options:
            return "retreat"
    return "hit" if "hit" in req.options else req.options[0]


def fire_odds(s: FireSetup, tables: Tables | None = None, policy: Policy = prefer_hit) -> Dist:
    """Exact distribution of :class:`FireOutcome` (the enumerate driver over :func:`artillery_fire`)."""
    return distribution(partial(artillery_fire, s, tables), policy=policy)
