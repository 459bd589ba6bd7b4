"""Bots for Lines of Battle: a random-legal bot and a greedy one (one-ply, exact combat odds).

Both follow core's bot interface (:class:`engine.core.game.Bot`): ``choose_action(rules, state, legal)``
picks among the legal actions the game loop lists, ``choose(request, state)`` answers a question asked
inside a procedure. ``act(g)`` is the older spelling (the legal actions are listed for it)."""
from __future__ import annotations

from functools import partial
import random

from engine.core.errors import VedetteError
from engine.core.game import RandomBot as CoreRandomBot
from engine.core.procedure import Choose
from engine.core.sampling import sample

from .analysis import analyse
from .combat import Decision, combat
from .game import Action, Game, combat_context, legal_actions
from .policies import CombatPolicy, best_retreat
from .protocol import LobRules, keep_all
from .units import ART, CAV, INF

__all__ = ["RandomBot", "GreedyBot", "make_bot", "BOTS"]


def _rules():
    return LobRules()


class RandomBot(CoreRandomBot):
    """Core's random-legal bot (ends a phase now and then, answers choices at random), with ``act``."""

    def act(self, g: Game) -> Action:
        rules = _rules()
        return self.choose_action(rules, g, rules.legal_actions(g))


class GreedyBot:
    """Takes the best-looking action now: fire, attacks the exact odds favour, rally, advance, end."""

    name = "greedy"
    #: core's game loop need not list every legal action for it: it looks only at moves that end in an
    #: area (``legal_actions(limit_moves=True)``), each checked with the one check, and picks the same
    #: action from that shorter list as from the full one (the others are all worth 0 to it)
    needs_legal = False

    def __init__(self, seed: int | None = None, combat_policy: CombatPolicy | None = None):
        self.rng = random.Random(seed)
        self.policy = combat_policy or CombatPolicy("until:1", "until:1")
        self._odds: dict = {}
        self._dist: dict = {}
        self._board = None

    # --- decisions inside procedures ---------------------------------------------------------
    def choose(self, req: Choose, state=None):
        ctx = req.context
        if isinstance(ctx, tuple) and ctx and ctx[0] == "charge":
            return req.options[1] if len(req.options) > 1 else req.options[0]
        if isinstance(ctx, tuple) and ctx and ctx[0] == "fire-retreat":
            _, uid, kind, dests = ctx
            return dests[0]
        return self.policy(req)

    # --- actions ------------------------------------------------------------------------------
    def attack_value(self, g: Game, a: Action) -> float:
        """Chance of taking the area (x2) plus the expected morale balance: exact for small fights,
        sampled (same procedure, engine.core.sampling) when many units take part."""
        us = tuple(g.unit(u) for u in a.units)
        origin = a.path[-1] if a.path else us[0].area
        us = tuple(u.moved(origin, u.approach if not a.path else None, u.square) for u in us)
        try:
            ctx = combat_context(g, a.target, origin, g.player)
        except VedetteError:
            return -99.0
        dfn = g.in_area(a.target)
        key = (ctx, us, dfn)
        if key not in self._odds:
            try:
                n_dfn = sum(1 for u in dfn if u.is_combat)
                if len(us) * max(1, n_dfn) <= 2:
                    an = analyse(ctx, us, dfn, self.policy)
                    val = float(an.attacker_takes_area) * 2 + float(an.expected_morale(g.player)
                                                                     - an.expected_morale(ctx.defender_side))
                else:
                    s = sample(partial(combat, ctx, us, dfn), 24, seed=self.rng.randrange(10 ** 6), chooser=self.policy)
                    val = sum(c * (2 * r.taken + r.morale()[g.player] - r.morale()[ctx.defender_side])
                              for r, c in s.counts.items()) / s.n
            except VedetteError:
                val = -99.0
            self._odds[key] = val
        return self._odds[key]

    def _goal_distance(self, g: Game, area: str) -> int:
        if g.player == "French":
            goals = ["Albuera", "28"] + list(g.board.spec.victory_areas.french_infantry_wins)
        else:
            goals = [a for a in ("Albuera", "28") if g.holder(a) != "Allied"] or ["Albuera", "28"]
        if self._board != g.board.fingerprint:      # distances are kept per map (by its content)
            self._board, self._dist = g.board.fingerprint, {}
        ds = self._dist.get(area)
        if ds is None:
            ds = self._dist[area] = g.board.graph.distances(area)
        return min(ds.get(x, 99) for x in goals)

    def act(self, g: Game) -> Action:
        return self.choose_action(_rules(), g, None)

    def choose_action(self, rules, g: Game, acts: list | None) -> Action:
        """The best-valued legal action (the last one, ending the phase, when nothing is worth doing);
        ``acts=None``: it lists its own candidates and keeps those that pass ``rules.check``."""
        if acts is None:
            acts = [a for a in legal_actions(g, limit_moves=True, keep=keep_all) if rules.is_legal(g, a)]
        end = next((a for a in reversed(acts) if a.type in ("end-setup", "end-admin", "end-phase")), acts[-1])
        if g.phase == "setup":
            return end                 # keep the historical set-up
        if g.phase == "admin":
            for a in acts:
                if a.type == "toggle" and not g.unit(a.units[0]).deployed:
                    return a
            return end
        best, best_v = end, 0.0
        for a in acts:
            v = self.value(g, a)
            if v > best_v:
                best, best_v = a, v
        return best

    def value(self, g: Game, a: Action) -> float:
        t = a.type
        if t == "fire":
            tgt = g.unit(a.target)
            return 3.0 + (tgt.rating - tgt.strength) * 0.1 + (0.5 if tgt.kind == ART else 0)
        if t == "attack":
            if len(a.units) > 3 or a.path:
                return 0.0
            v = self.attack_value(g, a)
            return 2.5 + v if v > 0.6 else 0.0
        if t == "rally":
            u = g.unit(a.units[0])
            return 0.8 + 0.3 * u.hits
        if t == "activate":
            us = [u for u in g.in_area(a.area) if u.side == g.player]
            enemy_near = any(g.holder(n) not in (None, g.player) for n in g.board.neighbours(a.area))
            fresh = sum(1 for u in us if u.strength >= 1)
            base = 1.0 + 0.2 * fresh + (0.8 if enemy_near else 0.0)
            if g.player == "Allied" and not enemy_near:
                base -= 0.6
            return base + self.rng.random() * 0.2
        if t == "move" and g.leader(a.units[0]) is not None:
            # a leader goes where units it may command are, when it has none where it stands
            ld = g.leader(a.units[0])
            here = [u for u in g.in_area(ld.area) if ld.can_command(u)]
            there = [u for u in g.in_area(a.path[-1]) if ld.can_command(u)]
            return 1.2 + 0.1 * len(there) if not here and there else 0.0
        if t == "move":
            u = g.unit(a.units[0])
            if a.end != "area" or not a.path:
                return 0.0
            if g.player == "Allied":
                # the defender holds its line: it only moves to fill an objective it does not hold
                dest = a.path[-1]
                if dest in ("Albuera", "28") and g.holder(dest) is None and u.area not in ("Albuera", "28"):
                    return 1.5
                return 0.0
            gain = self._goal_distance(g, u.area) - self._goal_distance(g, a.path[-1])
            return 0.5 + 0.3 * gain if gain > 0 else 0.0
        return 0.0


BOTS = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(name: str, seed: int | None = None):
    """A bot by name (the older entry point; :meth:`LobRules.bots` gives the same factories)."""
    try:
        return BOTS[name](seed=seed)
    except KeyError:
        raise VedetteError(f"unknown bot {str(name)[:30]!r}: choose from {', '.join(BOTS)}") from None
