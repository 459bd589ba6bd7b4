"""Napoleonic 20: the odds-aware bot's choice of which battles to declare (9.1-9.2.2), by the exact odds
of the battles each declaration leads to.

The core :class:`~engine.core.odds.OddsBot` weighs attacks one at a time; in Napoleonic 20 the real choice
comes one step earlier, when the phasing player declares every battle of the combat phase at once (9.2)
and then must fight them all. :class:`N20OddsBot` therefore:

1. lists a few legal declarations (:func:`declaration_candidates`): the one the greedy bot would make
   (:func:`engine.n20.game.combat.declaration_options`), and its neighbours -- two battles merged into
   one, a spare unit added to a battle (more strength, 9.2.2 adjacency), an optional attacker held back,
   an optional battle dropped or a new one-on-one battle added; each is checked by the game's own
   :func:`~engine.n20.game.combat.check_declaration` (9.1, 9.1.1, 9.1.2, 9.2.2), so only legal ones stay;
   a few rounds of this start again from the best so far;
2. values a declaration as the sum, over its battles, of the exact expected change of the side's
   :meth:`~engine.n20.game.protocol.N20Rules.evaluate` (the Morale swing, units broken or eliminated)
   when that battle alone is declared and resolved -- the battle's own procedure enumerated by core's
   driver, inner questions answered as the greedy bot answers them; each battle is weighed once per
   position, whatever declarations share it;
3. declares the best (ties: the earlier listed, the greedy one first); ending the phase without battles
   (only when none is mandatory, 9.1) counts as 0, so optional battles that are expected to cost more
   than they win are not fought;
4. resolves the declared battles best first, by the same values (no odds computed again).

The policy is set out in ``docs/bots.md`` (Napoleonic 20). The values are our weights, not rules.
"""
from __future__ import annotations

from engine.core.errors import RuleViolation
from engine.core.odds import OddsBot

from .actions import Action
from .combat import check_declaration, declaration_options, do_declare
from .queries import attack_targets, can_attack, fighting_units
from .state import Battle, GameState

__all__ = ["N20OddsBot", "declaration_candidates", "variants"]


def _battle(att, dfd) -> Battle:
    return Battle(tuple(sorted(att)), tuple(sorted(dfd)))


def variants(state: GameState, battles: tuple[Battle, ...]) -> list[tuple[Battle, ...]]:
    """Declarations one change away from ``battles`` (not yet checked against 9.1-9.2.2): two battles
    merged, a spare unit added to a battle or given a one-on-one battle of its own, an attacker held
    back, a battle dropped. In a fixed order, so the bot is deterministic."""
    side = state.player
    mine = fighting_units(state, side)
    targets = attack_targets(state, side)
    used_a = {a for b in battles for a in b.attackers}
    used_d = {d for b in battles for d in b.defenders}
    out: list[tuple[Battle, ...]] = []
    n = len(battles)
    for i in range(n):                                   # merge two battles (every attacker next to every defender)
        for j in range(i + 1, n):
            att = battles[i].attackers + battles[j].attackers
            dfd = battles[i].defenders + battles[j].defenders
            if all(can_attack(state, a, d) for a in att for d in dfd):
                rest = tuple(b for k, b in enumerate(battles) if k not in (i, j))
                out.append(rest[:i] + (_battle(att, dfd),) + rest[i:])
    for i, b in enumerate(battles):                      # an attacker or a defender moves to another battle
        for j, c in enumerate(battles):
            if i == j:
                continue
            if len(b.attackers) > 1:
                for x in b.attackers:
                    if all(can_attack(state, x, d) for d in c.defenders):
                        new = list(battles)
                        new[i] = _battle(tuple(a for a in b.attackers if a != x), b.defenders)
                        new[j] = _battle(c.attackers + (x,), c.defenders)
                        out.append(tuple(new))
            if len(b.defenders) > 1:
                for d in b.defenders:
                    if all(can_attack(state, a, d) for a in c.attackers):
                        new = list(battles)
                        new[i] = _battle(b.attackers, tuple(e for e in b.defenders if e != d))
                        new[j] = _battle(c.attackers, c.defenders + (d,))
                        out.append(tuple(new))
    spare = [u for u in mine if u not in used_a]
    for x in spare:                                      # a spare unit joins a battle
        for i, b in enumerate(battles):
            if all(can_attack(state, x, d) for d in b.defenders):
                out.append(battles[:i] + (_battle(b.attackers + (x,), b.defenders),) + battles[i + 1:])
    for x in spare:                                      # a spare unit attacks an enemy nobody attacks
        for e in targets:
            if e not in used_d and can_attack(state, x, e):
                out.append(battles + (_battle((x,), (e,)),))
    for i, b in enumerate(battles):                      # an attacker held back / a battle dropped
        if len(b.attackers) > 1:
            for x in b.attackers:
                out.append(battles[:i] + (_battle(tuple(a for a in b.attackers if a != x), b.defenders),)
                           + battles[i + 1:])
        out.append(battles[:i] + battles[i + 1:])
    return out


def _legal(state: GameState, battles) -> bool:
    try:
        check_declaration(state, battles)
    except RuleViolation:
        return False
    return True


def declaration_candidates(state: GameState) -> list[Action]:
    """The greedy bot's declarations (the game's short list: the greedy grouping, and ending the phase
    when nothing is mandatory) -- the starting point of :class:`N20OddsBot`'s search."""
    return list(declaration_options(state))


class N20OddsBot(OddsBot):
    """The odds bot of Napoleonic 20: core's :class:`~engine.core.odds.OddsBot` (countercharges, 8.2, and
    every other step), and in the combat step the declaration chosen by the exact odds of its battles
    (module docstring; ``docs/bots.md``). ``rounds`` bounds the search's rounds, ``max_battles`` the
    distinct battles weighed per declaration (those past it are not tried).

    Inner questions (reserves, 12.5; retreat paths, 9.8; the advance, 9.9) are answered as the greedy
    bot answers them: solving them for the best answer costs about four times the odds themselves at
    every battle, so ``solve_steps`` is 0 here."""

    def __init__(self, seed: int | None = None, rounds: int = 2, max_battles: int = 10, **kw):
        kw.setdefault("solve_steps", 0)
        super().__init__(seed, **kw)
        self.rounds = rounds
        self.max_battles = max_battles
        self._values: tuple | None = None      # (turn, player, {declared battle: value}) of the last declaration
        self.declarations = 0                  # declarations chosen by odds

    # --- values -------------------------------------------------------------------------------------
    def battle_value(self, rules, state: GameState, b: Battle) -> tuple[Battle, float]:
        """The battle as the game records it once declared alone (16.1.1 drops revealed dummies) and the
        exact expected change of the phasing side's value when it is resolved (0 past the bound)."""
        st = do_declare(state, (b,))
        final = st.declared[0]
        if 0 in st.done_battles:
            return final, 0.0                  # void: nothing real left on a side (16.1.1)
        v = self.attack_value(rules, st, Action("resolve", index=0))
        return final, 0.0 if v is None else v

    def _declaration_value(self, rules, state, battles, seen: dict) -> float | None:
        total = 0.0
        for b in battles:
            if b not in seen:
                if len(seen) >= self.max_battles:
                    return None                # past the bound: not tried
                seen[b] = self.battle_value(rules, state, b)
            total += seen[b][1]
        return total

    def choose_declaration(self, rules, state: GameState, options: list[Action]) -> Action:
        """The best declaration by the sum of its battles' exact expected values (ties: earlier listed)."""
        seen: dict = {}
        end = next((a for a in options if a.kind == "end_phase"), None)
        start = [a for a in options if a.kind == "declare"]
        best_act, best_v = (end, 0.0) if end is not None else (None, None)
        tried: set = set()
        frontier = []
        for a in start:
            key = frozenset(a.battles)
            tried.add(key)
            v = self._declaration_value(rules, state, a.battles, seen)
            if v is not None and (best_v is None or v > best_v):
                best_act, best_v = a, v
            frontier.append(a.battles)
        for _ in range(self.rounds):
            nxt = None
            for battles in frontier:
                for cand in variants(state, battles):
                    key = frozenset(cand)
                    if not cand or key in tried:
                        continue
                    tried.add(key)
                    if not _legal(state, cand):
                        continue
                    v = self._declaration_value(rules, state, cand, seen)
                    if v is not None and (best_v is None or v > best_v):
                        best_act, best_v, nxt = Action("declare", battles=cand), v, cand
            if nxt is None:
                break
            frontier = [nxt]
        if best_act is None:                   # nothing could be weighed: the greedy grouping
            best_act = start[0] if start else options[0]
        if best_act.kind == "declare":
            vals = {}
            for b in best_act.battles:
                if b in seen:
                    final, v = seen[b]
                    vals.setdefault(final, v)
            self._values = (state.turn, state.player, vals)
        self.declarations += 1
        return best_act

    # --- choosing -----------------------------------------------------------------------------------
    def choose_action(self, rules, state: GameState, legal: list | None):
        if state.step == "combat" and not state.over and not state.night:
            if state.declared is None:
                base = self.base(rules)
                pick = base.choose_action(rules, state, legal)
                if pick.kind not in ("declare", "end_phase"):
                    return pick                # e.g. an exclusive withdrawal first
                options = declaration_candidates(state)
                if not options:
                    return pick
                self._plan = {}
                return self.choose_declaration(rules, state, options)
            if self._values is not None and self._values[:2] == (state.turn, state.player):
                vals = self._values[2]
                todo = [i for i in range(len(state.declared)) if i not in state.done_battles]
                if todo and all(state.declared[i] in vals for i in todo):
                    self._plan = {}
                    best = max(todo, key=lambda i: (vals[state.declared[i]], -i))
                    return Action("resolve", index=best)
        return super().choose_action(rules, state, legal)
