"""The Battle Commander greedy bot: a simple player of the whole game (our own policy, not a rule)."""
from __future__ import annotations

import random

from engine.core.procedure import Choose

from ..combat import neutral_policy
from .actions import Move
from .attacks import attack_setup
from .odds import result_value
from .state import BcState, MapState
from .types import ENEMY
from .zones import needs_facing

__all__ = ["GreedyBot"]


class GreedyBot:
    """A simple player: attacks when the calculators' exact odds (the known discard pile taken into
    account) favour it, rallies what is not Steady, moves Steady Blocks towards the enemy and the flags,
    otherwise keeps cubes and buys Attack Tokens with enemy cards."""

    name = "greedy"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self._odds: dict = {}

    def choose(self, request: Choose, state=None):
        ctx = request.context
        if ctx and ctx[0] == "neutral":
            return neutral_policy(request)
        return request.options[0]

    def choose_action(self, rules, st: BcState, legal: list):
        kinds = {a.kind for a in legal}
        ph = st.phase
        g = st.g
        side = st.actor
        if ph == "reform":
            faces = [a for a in legal if a.kind == "face"]
            need = [a for a in faces if needs_facing(g, g.unit(a.block))]
            if need:
                best = [a for a in need if any(g.side_of_zone(z) == ENEMY[side] for z in a.facing)]
                return (best or need)[0]
            return next(a for a in legal if a.kind == "done")
        if ph == "red":
            return self._attack(rules, st, legal)
        if ph == "advance":
            return max(legal, key=lambda a: len(a.units))
        if ph == "yellow_rally":
            for a in legal:
                if a.kind == "rally" and any(u.block.state != "steady" for u in g.in_zone(a.frm) if u.side == side):
                    return a
            m = g.morale_of(side)
            if "army_rally" in kinds and m.value < m.maximum and m.good:
                return next(a for a in legal if a.kind == "army_rally")
            return next(a for a in legal if a.kind == "pass")
        if ph == "yellow_buy":
            for a in legal:
                if a.kind == "purchase" and a.buy == "tokens" and rules.deck.card(a.cards[0]).side == ENEMY[side]:
                    return a
            return next(a for a in legal if a.kind == "pass")
        if ph in ("order", "reaction"):
            moves = [a for a in legal if a.kind == "move" and not a.hqs]
            control = dict(st.control)
            scored = sorted(((self._move_score(g, a, control), -i, a) for i, a in enumerate(moves)), reverse=True)
            if scored and scored[0][0] > 0 and (ph == "order" or g.reserve_of(side) > 1):
                return scored[0][2]
            if g.tokens_of(side) < 3 and "ready_arms" in kinds and ph == "order":
                return next(a for a in legal if a.kind == "ready_arms")
            if "in_reserve" in kinds:
                return next(a for a in legal if a.kind == "in_reserve")
            return next(a for a in legal if a.kind == "pass")
        passes = [a for a in legal if a.kind == "pass"]
        return passes[0] if passes and ph == "give_ground" else legal[0]

    def _move_score(self, g: MapState, a: Move, control: dict | None = None) -> float:
        """Steady Infantry heads for the flag Zones of its colour that its side does not hold (17.0), the
        other Steady Blocks for the enemy; a Zone next to the enemy is not left."""
        sc = g.scenario
        control = control or {}
        score = 0.0
        for uid, to in a.moves:
            u = g.unit(uid)
            if u.block.state != "steady" or u.block.artillery:
                continue
            dest = to.split(">")[-1]
            enemy = [z for z in sc.graph.areas if g.side_of_zone(z) == ENEMY[u.side]]
            flags = [z for z, m in sc.model.zones.items() if m.flag in (u.side, "both")
                     and control.get(z) != u.side]
            goals = flags if (u.block.infantry and flags) else enemy
            if not goals:
                continue
            if any(g.side_of_zone(n) == ENEMY[u.side] for n in sc.graph.neighbours(u.zone)) and not (
                    dest in flags and not g.in_zone(dest)):
                continue                         # already in contact: hold the line
            d0 = min(sc.graph.distance(u.zone, z) or 9 for z in goals)
            d1 = min(sc.graph.distance(dest, z) if sc.graph.distance(dest, z) is not None else 9 for z in goals)
            score += (d0 - d1)
            if dest in flags and not g.in_zone(dest):
                score += 2.0
        return score

    def _attack(self, rules, st: BcState, legal: list):
        best, best_score = None, 0.6
        for a in legal:
            if a.kind != "attack" or a.special != "none":
                continue
            _, tally = attack_setup(st, a)
            s = result_value(rules.deck, tally.table, tally.column, tally.net_shift)
            if s > best_score:
                best, best_score = a, s
        return best or next(a for a in legal if a.kind == "pass")
