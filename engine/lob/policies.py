"""Named policies for the decisions of a combat (5.1-5.2): who stays, who retreats, who feints.

A policy is a callable ``(Choose) -> option`` (the core's contract). :class:`CombatPolicy` reads the
:class:`~engine.lob.fight.Decision` in the request's context and answers for the side asked.

Side policies (``attacker=`` / ``defender=``):

* ``stay`` -- fight on until the other side is gone (no feint, no retreat before combat);
* ``until:K`` -- pull the lead out once its strength is K or less (the whole side if it has no fresh unit);
* ``spent:K`` -- as ``until:K``, but the lead takes every other unit at strength K or less back with it
  (5.2.2 / 5.2.3 allow any set of units that includes the lead);
* ``outnumbered`` -- give up (retreat before combat / break off) when the enemy's total strength is greater;
* ``rbc`` -- defender: retreat before combat whenever possible; attacker: as ``stay``;
* ``feint`` -- attacker: feint whenever allowed; defender: as ``stay``.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from engine.core.errors import VedetteError
from engine.core.procedure import Choose

from .fight import ATTACKER, DEFENDER, Decision, Fight, Retreat
from .units import ART, CAV

__all__ = ["CombatPolicy", "parse_side_policy", "SIDE_POLICIES", "best_retreat"]

SIDE_POLICIES = ("stay", "until:K", "spent:K", "outnumbered", "rbc", "feint")


@lru_cache(maxsize=256)          # read at every decision of every combat: parse each spelling once
def parse_side_policy(spec: str) -> tuple[str, int | None]:
    spec = (spec or "stay").strip().lower()
    for name in ("until", "spent"):
        if spec.startswith(name):
            try:
                k = int(spec.split(":", 1)[1])
            except (IndexError, ValueError):
                raise VedetteError(f"policy {spec!r}: write {name}:K with K a whole number, e.g. {name}:1") from None
            return (name, k)
    if spec in ("stay", "outnumbered", "rbc", "feint"):
        return (spec, None)
    raise VedetteError(f"unknown policy {spec!r}: choose one of {', '.join(SIDE_POLICIES)}")


def best_retreat(kind: str, options: Iterable[Retreat]) -> str:
    """The least costly retreat destination for a unit of ``kind`` (5.1.2, Albuera terrain 6-8)."""
    def cost(r: Retreat) -> tuple[int, str]:
        c = 0
        if r.water == "river" and not r.crossing:
            c += 10
        if r.water == "stream" and not r.crossing and kind == ART:
            c += 4
        if r.crossing and kind == ART:
            c += 2
        if r.close and kind in (ART, CAV):
            c += 3
        return (c, r.area)
    return min(options, key=cost).area


@dataclass(frozen=True)
class CombatPolicy:
    attacker: str = "stay"
    defender: str = "stay"

    def __post_init__(self) -> None:
        parse_side_policy(self.attacker)
        parse_side_policy(self.defender)

    @property
    def name(self) -> str:
        return f"attacker={self.attacker}, defender={self.defender}"

    def __call__(self, req: Choose) -> Hashable:
        choice = self._decide(req)
        # the rules may narrow the options (7.1.2 foaming / fearful leaders): never answer outside them
        return choice if choice in req.options else req.options[0]

    def _decide(self, req: Choose) -> Hashable:
        d = req.context
        if isinstance(d, tuple) and d and d[0] == "fire-effect":
            _, certain, extra, left = d               # stand unless the hit would destroy the unit
            if certain + extra >= left and "retreat" in req.options:
                return "retreat"
            return "hit" if "hit" in req.options else req.options[0]
        if not isinstance(d, Decision):
            return req.options[0]
        kind, k = parse_side_policy(self.attacker if d.role == ATTACKER else self.defender)
        f = d.fight
        if d.kind == "retreat-to":
            uid, ukind, options = d.extra
            return best_retreat(ukind, options)
        if d.kind == "fire-target":
            return f.att_lead if f and f.att_lead in req.options else req.options[0]
        if d.kind == "pull-back":
            return "square" if "square" in req.options else req.options[-1]
        if d.kind == "lead" or d.kind == "replace":
            return req.options[0]
        if d.kind == "feint":
            return "feint" if kind == "feint" else "attack"
        if d.kind == "rbc":
            if kind == "rbc":
                return "retreat"
            if kind == "outnumbered" and _total(f, ATTACKER) > _total(f, DEFENDER):
                return "retreat"
            return "fight"
        if d.kind == "retreat":
            me, foe = (ATTACKER, DEFENDER) if d.role == ATTACKER else (DEFENDER, ATTACKER)
            if kind in ("until", "spent"):
                assert f is not None and k is not None, "a retreat decision carries its fight; until:K its K"
                lead = f.a if d.role == ATTACKER else f.d
                if lead.strength > k:
                    return "stay"
                others = [u for u in f.combat_units(me) if u.uid != lead.uid]
                if not any(u.strength > k for u in others) or "lead" not in req.options:
                    return "all"
                weak = sorted(u.uid for u in others if u.strength <= k)
                if kind == "spent" and weak:
                    pick = "lead+" + "+".join(weak)           # 5.2.2 / 5.2.3: the lead and the other spent units
                    return pick if pick in req.options else "lead"
                return "lead"
            if kind == "outnumbered" and _total(f, foe) > _total(f, me):
                return "all"
            return "stay"
        return req.options[0]


def _total(f: Fight | None, role: str) -> int:
    assert f is not None, "a decision about strengths carries its fight"
    return sum(max(0, u.strength) for u in f.combat_units(role))
