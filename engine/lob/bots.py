"""Bots for Lines of Battle: a random-legal bot and a greedy one (one-ply, exact combat odds).

Both follow core's bot interface (:class:`engine.core.game.Bot`): ``choose_action(rules, state, legal)``
picks among the legal actions the game loop lists, ``choose(request, state)`` answers a question asked
inside a procedure. The rules come with each call: this module does not import the protocol (the
protocol imports it)."""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable
from functools import partial
from typing import Any

from engine.core.errors import VedetteError
from engine.core.game import GameRules, RandomBot as CoreRandomBot
from engine.core.procedure import Choose, distribution
from engine.core.sampling import PlayTree

from .actions import PASSES, Action, Kind
from .attack import combat_context
from .combat import combat
from .fight import combat_result
from .handlers import keep_all, legal_actions
from .policies import CombatPolicy
from .state import Game
from .units import ART, INF, Phase

__all__ = ["RandomBot", "GreedyBot", "make_bot", "BOTS"]


class RandomBot(CoreRandomBot):
    """Core's random-legal bot (ends a phase now and then, answers choices at random)."""


#: an attack (or a cavalry charge) is made only when its worth (below) is above this margin
ATTACK_MARGIN = 0.25
#: worth of taking an end-of-game objective (Albuera, 28: scenario victory), as in lob_value
OBJECTIVE = 1.5
#: worth of French infantry taking a rear area (1, 2, 8): the Allies lose at once (scenario victory)
REAR_WIN = 20.0
#: the cost we put on losing a fight when the winner keeps cavalry able to charge on (5.3.1): the
#: charge may fall on the area we attacked from (our weight, about a heavy-cavalry win on infantry)
COUNTER_CHARGE = 1.5
#: the Allies guard an empty rear area once fresh French infantry is this many areas from it
REAR_WATCH = 4
#: per target area, how many attacking groups get their odds worked out (the strongest first)
SHORTLIST = 3
#: a fight with more units than this (attackers x defenders) is sampled, not enumerated
EXACT_UNITS = 4
SAMPLES = 32


# ------------------------------------------------------------------------------------------------
# Fight odds kept by value for the whole process (every bot, every game of a study)
# ------------------------------------------------------------------------------------------------
#: bounds of the module caches below (each is emptied whole when it grows past its bound)
FIGHT_CACHE = 20_000
MEMO_CACHE = 100_000
TRIE_CACHE = 50_000
_FIGHTS: dict = {}      # exact fights: (policy, scenario, ctx, attackers, defenders, side, charge) -> (worth, take)
_MEMOS: dict = {}       # (policy, scenario) -> memo of sub-procedure distributions for distribution()
_TRIES: dict = {}       # (policy, scenario) -> PlayTree of what plays of its fights found


def _sample_counts(part: tuple, key, factory, n: int, seed: int, policy) -> Counter:
    """``n`` plays of the procedure with one RandomDice seeded ``seed``: the counts
    engine.core.sampling.sample gives (same results, counted in the same order), along the play tree kept
    for ``part`` (policy, scenario)."""
    tree = _TRIES.get(part)
    if tree is None:
        if len(_TRIES) >= 64:
            _TRIES.clear()
        tree = _TRIES[part] = PlayTree(TRIE_CACHE)
    return tree.sample_counts(key, factory, n, seed, policy)


#: candidates the greedy bot checks before valuing them (see GreedyBot.choose_action)
_EAGER = frozenset({Kind.ACTIVATE, Kind.ATTACK}) | PASSES


class GreedyBot:
    """One-ply Lines of Battle bot (policy in docs/bots.md, "Lines of Battle greedy bot"): it fires its
    deployed guns, attacks only where the exact (small fights) or sampled (larger ones) odds favour it,
    charges with cavalry on the same test, and otherwise moves up (French) or holds and guards the
    objectives and the rear (Allied), rallying hits when nothing better is to be done."""

    name = "greedy"
    #: core's game loop need not list every legal action for it: it looks only at moves that end in an
    #: area (``legal_actions(limit_moves=True)``), each checked with the one check, and picks the same
    #: action from that shorter list as from the full one (the others are all worth 0 to it)
    needs_legal = False

    def __init__(self, seed: int | None = None, combat_policy: CombatPolicy | None = None) -> None:
        self.rng = random.Random(seed)
        self.policy = combat_policy or CombatPolicy("until:1", "until:1")
        self._odds: dict[Any, float] = {}   # this bot's fights (a sampled fight draws its seed once per bot)
        self._dist: dict[str, dict[Hashable, int]] = {}     # area -> the areas' distances from it
        self._board: str | None = None      # the map the distances are of (its fingerprint)
        self._rear: set[str] = set()        # rear areas to guard, worked out at each Allied decision
        self._weighed: set[Action] | None = None   # the attacks on this decision's shortlist (None: all)

    # --- decisions inside procedures ---------------------------------------------------------
    def choose(self, req: Choose, state: object = None) -> Hashable:
        ctx = req.context
        if isinstance(ctx, tuple) and ctx and ctx[0] == "charge":
            return self._charge(req)
        if isinstance(ctx, tuple) and ctx and ctx[0] == "fire-retreat":
            _, uid, kind, dests = ctx
            return dests[0]
        return self.policy(req)

    def _charge(self, req: Choose) -> Hashable:
        """5.3.1: charge the adjacent area where the charge is worth most, if that is above the margin;
        else stay ("none"). Needs the position the charge starts from (the request's context)."""
        if len(req.context) < 4 or not isinstance(req.context[3], Game):
            return "none" if "none" in req.options else req.options[0]
        _, origin, uids, g = req.context
        side = req.player or g.player
        us = tuple(g.unit(u) for u in uids)
        best: Hashable = "none"
        best_w = ATTACK_MARGIN
        for target in req.options:
            if target == "none" or not isinstance(target, str):
                continue
            w = self.fight_worth(g, us, origin, target, side, charge=True)
            if w > best_w:
                best, best_w = target, w
        return best if best in req.options else req.options[0]

    # --- the worth of a fight -------------------------------------------------------------------
    def fight_worth(self, g: Game, us: tuple, origin: str, target: str, side: str, charge: bool = False) -> float:
        """Expected morale balance of the fight (5.3: ratings of units eliminated, +1 for taking the
        area), plus a quarter point per hit more on the enemy than on us, less 1.5 when we lose to a
        winner left with cavalry that may charge on (5.3.1), plus the chance of taking the area times
        what the area is worth (an objective, or for French infantry the Allied rear).
        Exact odds when attackers x defenders is at most 4, else 32 seeded plays of the same combat
        procedure (engine.core.sampling), taken one standard error under their mean."""
        try:
            ctx = combat_context(g, target, origin, side, charge=charge)
        except VedetteError:
            return -99.0
        dfn = g.in_area(target)
        key = (ctx, us, dfn)
        hit = self._odds.get(key)
        if hit is not None:
            return hit + self._prize(g, us, target, side) * self._odds[key, "take"]
        foe = ctx.defender_side
        start = {u.uid: u.hits for u in us + dfn}

        def balance(o: Hashable) -> float:
            r = combat_result(o)
            m = r.morale()
            hits = sum((u.hits - start[u.uid]) * (1 if u.side == foe else -1) for u in r.units)
            risk = COUNTER_CHARGE if not charge and r.winner_side() == foe and r.charge_units() else 0.0
            return m[side] - m[foe] + 0.25 * hits - risk

        # the module caches are kept per policy and scenario (the units' names and tags come with it)
        part = (self.policy, g.setup.scenario.fingerprint)
        try:
            n_dfn = sum(1 for u in dfn if u.is_combat)
            if len(us) * max(1, n_dfn) <= EXACT_UNITS:
                fkey = (part, ctx, us, dfn, side, charge)
                done = _FIGHTS.get(fkey)
                if done is None:
                    memo = _MEMOS.get(part)
                    if memo is None or len(memo) > MEMO_CACHE:
                        if len(_MEMOS) >= 64:
                            _MEMOS.clear()
                        memo = _MEMOS[part] = {}
                    # the combat procedure enumerated exactly (as analyse does, but keeping the memo of
                    # sub-procedure results and the roll cache between fights and games: keys are values)
                    d = distribution(partial(combat, ctx, us, dfn), policy=self.policy, memo=memo)
                    # (a float balance: core's Dist.expect is annotated for exact values; w * float works)
                    done = (float(d.expect(balance)),  # type: ignore[arg-type]
                            float(d.prob(lambda r: combat_result(r).taken)))
                    if len(_FIGHTS) > FIGHT_CACHE:
                        _FIGHTS.clear()
                    _FIGHTS[fkey] = done
                val, take = done
            else:
                # SAMPLES seeded plays of the combat procedure (what engine.core.sampling.sample gives,
                # played along the paths earlier plays of the same fights found: _play)
                counts = _sample_counts(part, ("combat", ctx, us, dfn), partial(combat, ctx, us, dfn), SAMPLES,
                                        self.rng.randrange(10 ** 6), self.policy)
                vals = [(balance(r), c) for r, c in counts.items()]
                mean = sum(v * c for v, c in vals) / SAMPLES
                var = sum(c * (v - mean) ** 2 for v, c in vals) / max(1, SAMPLES - 1)
                # the lower bound, one standard error under the mean: the best of many noisy
                # estimates is otherwise picked for its luck (the winner's curse)
                val = mean - (var / SAMPLES) ** 0.5
                take = sum(c for r, c in counts.items() if r.taken) / SAMPLES
        except VedetteError:
            val, take = -99.0, 0.0
        self._odds[key], self._odds[key, "take"] = val, take
        return val + self._prize(g, us, target, side) * take

    def _prize(self, g: Game, us: tuple, target: str, side: str) -> float:
        va = g.board.spec.victory_areas
        if side == "French" and target in va.french_infantry_wins and any(u.kind == INF for u in us):
            return REAR_WIN
        return OBJECTIVE if target in va.hold_at_end else 0.0

    def attack_value(self, g: Game, a: Action) -> float:
        """The worth of the attack ``a`` by the acting side (see :meth:`fight_worth`)."""
        assert a.target is not None, "an attack names its target area"
        us = tuple(g.unit(u) for u in a.units)
        origin = a.path[-1] if a.path else us[0].where
        us = tuple(u.moved(origin, u.approach if not a.path else None, u.square) for u in us)
        return self.fight_worth(g, us, origin, a.target, g.player)

    # --- where the armies go ----------------------------------------------------------------------
    def _distances(self, g: Game, area: str) -> dict[Hashable, int]:
        if self._board != g.board.fingerprint:      # distances are kept per map (by its content)
            self._board, self._dist = g.board.fingerprint, {}
        ds = self._dist.get(area)
        if ds is None:
            ds = self._dist[area] = g.board.graph.distances(area)
        return ds

    def _goal_distance(self, g: Game, area: str) -> int:
        if g.player == "French":
            goals = ["Albuera", "28"] + list(g.board.spec.victory_areas.french_infantry_wins)
        else:
            goals = [a for a in ("Albuera", "28") if g.holder(a) != "Allied"] or ["Albuera", "28"]
        ds = self._distances(g, area)
        return min(ds.get(x, 99) for x in goals)

    def _threatened_rear(self, g: Game) -> set[str]:
        """Empty rear areas (1, 2, 8) within four areas of fresh French infantry, counted over the map
        whatever stands between (in one go the French may attack their way through and then march on):
        the Allies guard them, since French infantry entering one wins at once (Albuera scenario play).
        A one-go movement horizon was tried and let the French in three games of six."""
        wins = [w for w in g.board.spec.victory_areas.french_infantry_wins if g.holder(w) is None]
        if not wins:
            return set()
        french = {u.area for u in g.live() if u.side == "French" and u.kind == INF and u.strength >= 1}
        return {w for w in wins if any(self._distances(g, w).get(a, 99) <= REAR_WATCH for a in french)}

    def choose_action(self, rules: GameRules[Any, Any], g: Game, acts: list[Action] | None) -> Action:
        """The best-valued legal action (the last one, ending the phase, when nothing is worth doing);
        ``acts=None``: it lists its own candidates and keeps those that pass ``rules.check``."""
        lazy = acts is None and g.phase not in (Phase.SETUP, Phase.ADMIN)
        if acts is None:
            acts = legal_actions(g, limit_moves=True, keep=keep_all)
            if lazy:
                # the one check (rules.is_legal) is made before valuing only where the valuing draws from
                # the bot's generator or ranks the attacks (activations, attacks) and for the phase end;
                # any other candidate is checked only when it would be the best so far: a candidate
                # worth no more than the best is never picked, legal or not, so the pick is the same
                acts = [a for a in acts if a.kind not in _EAGER or rules.is_legal(g, a)]
            else:
                acts = [a for a in acts if rules.is_legal(g, a)]
        end = next((a for a in reversed(acts) if a.kind in PASSES), acts[-1])
        if g.phase == Phase.SETUP:
            return end                 # keep the historical set-up
        if g.phase == Phase.ADMIN:
            for a in acts:
                if a.kind == Kind.TOGGLE and not g.unit(a.units[0]).deployed:
                    return a
            return end
        self._rear = self._threatened_rear(g) if g.player == "Allied" else set()
        self._weighed = self._shortlist(g, acts)
        best, best_v = end, 0.0
        for a in acts:
            if lazy and a.kind not in _EAGER:
                try:
                    v = self.value(g, a)
                except VedetteError:
                    if not rules.is_legal(g, a):
                        continue
                    raise
                if v > best_v and rules.is_legal(g, a):
                    best, best_v = a, v
                continue
            v = self.value(g, a)
            if v > best_v:
                best, best_v = a, v
        return best

    def _shortlist(self, g: Game, acts: list[Action]) -> set[Action]:
        """The attacks whose odds are worked out: per target area, the SHORTLIST groups with the most
        strength (1.2) for the defenders' strength, in listed order on ties. An area next to a big
        stack offers dozens of groups of up to three units; the others are not weighed."""
        by_target: dict[str, list[tuple[int, Action]]] = {}
        for i, a in enumerate(acts):
            if a.kind == Kind.ATTACK and len(a.units) <= 3 and not a.path and a.target is not None:
                by_target.setdefault(a.target, []).append((i, a))
        keep: set[Action] = set()
        for target, cands in by_target.items():
            dfn = 1 + sum(max(0, u.strength) for u in g.in_area(target) if u.is_combat)
            ranked = sorted(cands, key=lambda t: (-sum(g.unit(u).strength for u in t[1].units) / dfn, t[0]))
            keep.update(a for _, a in ranked[:SHORTLIST])
        return keep

    def value(self, g: Game, a: Action) -> float:
        t = a.kind
        if t == Kind.FIRE:
            assert a.target is not None, "a fire names the unit it fires at"
            tgt = g.unit(a.target)
            return 3.0 + (tgt.rating - tgt.strength) * 0.1 + (0.5 if tgt.kind == ART else 0)
        if t == Kind.ATTACK:
            if len(a.units) > 3 or a.path or (self._weighed is not None and a not in self._weighed):
                return 0.0
            v = self.attack_value(g, a)
            return 2.5 + v if v > ATTACK_MARGIN else 0.0
        if t == Kind.RALLY:
            u = g.unit(a.units[0])
            return 0.8 + 0.3 * u.hits
        rear = self._rear
        if t == Kind.ACTIVATE:
            assert a.area is not None, "an activation names its area"
            us = [u for u in g.in_area(a.area) if u.side == g.player]
            enemy_near = any(g.holder(n) not in (None, g.player) for n in g.board.neighbours(a.area))
            fresh = sum(1 for u in us if u.strength >= 1)
            base = 1.0 + 0.2 * fresh + (0.8 if enemy_near else 0.0)
            if g.player == "Allied" and not enemy_near:
                base -= 0.6
            if rear and fresh and any(self._distances(g, a.area).get(w, 99) <= 3 for w in rear):
                base += 1.0            # units here can block the way to the rear
            return base + self.rng.random() * 0.2
        if t == Kind.MOVE and (ld := g.leader(a.units[0])) is not None:
            # a leader goes where units it may command are, when it has none where it stands
            here = [u for u in g.in_area(ld.where) if ld.can_command(u)]
            there = [u for u in g.in_area(a.path[-1]) if ld.can_command(u)]
            return 1.2 + 0.1 * len(there) if not here and there else 0.0
        if t == Kind.MOVE:
            u = g.unit(a.units[0])
            if a.end != "area" or not a.path:
                return 0.0
            dest = a.path[-1]
            if g.player == "Allied":
                # the defender holds its line: it moves to fill an objective it does not hold, or to
                # stand in an empty rear area that French infantry could reach
                if dest in ("Albuera", "28") and g.holder(dest) is None and u.area not in ("Albuera", "28"):
                    return 1.5
                if dest in rear and u.area not in ("Albuera", "28") and u.is_combat:
                    return 1.4
                return 0.0
            gain = self._goal_distance(g, u.where) - self._goal_distance(g, dest)
            return 0.5 + 0.3 * gain if gain > 0 else 0.0
        return 0.0


BOTS = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(name: str, seed: int | None = None):
    """A bot by name (the older entry point; :meth:`LobRules.bots` gives the same factories)."""
    try:
        return BOTS[name](seed=seed)
    except KeyError:
        raise VedetteError(f"unknown bot {str(name)[:30]!r}: choose from {', '.join(BOTS)}") from None
