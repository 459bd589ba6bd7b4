"""These Brave Fellows: the outcomes of fire, melee and charges in a player's words and the position value
bots weigh (:meth:`TbfRules.odds_label`, :meth:`TbfRules.evaluate`; the odds themselves are core's
:func:`engine.core.odds.action_odds` over the game's own fire, melee and charge procedures), and the questions
and sub-procedure results of an attack's probability tree (:meth:`TbfRules.describe_step`,
:meth:`TbfRules.describe_result`): ``"Fatigue Check (Attempting to Charge) for 4th Dragoons sqn 3"``, ``"passed:
charges (6.2.8 D)"``, ``"column 4-1: EX, 1 attacker eliminated; 1 defender eliminated (6.4 H)"``.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from typing import Any, Protocol

from engine.core.game import Outcome
from engine.core.odds import metrics_label
from engine.core.procedure import ChanceRequest, Request
from engine.core.words import result_words

from ..charge import ChargeOutcome
from ..fatigue import CheckOutcome, CheckSpec
from ..fire import FireOutcome, LeaderFate
from ..melee import MeleeOutcome
from ..scenario import Scenario
from ..tables import MeleeEffect
from .actions import Charge, Fire, Melee, TbfAction
from .retreat import RetreatOutcome
from .state import ChargeMelee, GameState, TbfState
from .types import other
from .words import named, piece_name


class RulesAsked(Protocol):
    """What the words and the value ask of the game's rules (:class:`~.protocol.TbfRules` has it; the
    protocol imports this module, never the reverse)."""

    sc: Scenario

    def metrics(self, s: TbfState) -> dict[str, float]: ...

    def rule_of(self, a: object) -> str: ...

    def outcome(self, s: TbfState) -> Outcome | None: ...

__all__ = ["tbf_label", "tbf_value", "tbf_step", "tbf_result"]

#: a unit's status in words (4.2 fatigue checks, 6.3 fire, 6.4 melee, 6.5 leader casualties)
_STATUS = {"fatigued": "fatigued", "routed": "routs", "eliminated": "eliminated", "surrendered": "surrenders",
           "wounded": "wounded", "killed": "killed", "captured": "captured", "normal": "recovers"}
_RULE = {"fire": "6.3", "melee": "6.4", "charge": "6.2.8"}
#: what a unit's status is worth to its side in :func:`tbf_value` (our weights, not a rule)
_WORTH = {"normal": 0.0, "fatigued": -0.4, "routed": -1.2}


def _changes(rules: RulesAsked, before: TbfState, after: TbfState, ids: Iterable[str], role: str,
             targets: Collection[str] = ()) -> list[str]:
    """What changed for the pieces ``ids`` of one role, counted: ``"target fatigued"``, ``"2 targets
    rout"``, ``"leader captured"`` (a leader in a hex concerned, 6.5)."""
    counts: dict[tuple[str, str], int] = {}
    for pid in ids:
        p0, p1 = before.game.piece(pid), after.game.piece(pid)
        who = "leader" if rules.sc.is_leader(pid) else role
        moved = p1.hex != p0.hex and p0.hex is not None and p1.hex is not None and role != "charger"
        step = ("advances" if p1.hex in targets else "retreats") if moved else ""
        if p1.status != p0.status:
            word = _STATUS.get(p1.status, p1.status) + (f" and {step}" if step else "")
        elif step:
            word = step
        else:
            continue
        counts[(who, word)] = counts.get((who, word), 0) + 1
    out = []
    for (who, word), n in counts.items():
        if n == 1:
            out.append(f"{who} {word}")
        else:
            verb = " ".join(w[:-1] if w in ("routs", "retreats", "surrenders", "recovers", "advances") else w
                            for w in word.split())
            out.append(f"{n} {who}s {verb}")
    return out


def tbf_label(rules: RulesAsked, before: TbfState, after: TbfState, a: TbfAction) -> tuple[str, str]:
    """E.g. ``"charge fails; charger fatigued"``, ``"target routs"``, ``"attacker fatigued; target
    eliminated"``, ``"no effect"``; leaders hit in the hexes concerned are named. Another action: the
    changes of the game's metrics (core's label)."""
    if not isinstance(a, (Fire, Melee, Charge)):
        return metrics_label(rules.metrics(before), rules.metrics(after)), rules.rule_of(a)
    kind = a.kind
    g0 = before.game
    parts: list[str] = []
    if isinstance(a, Charge):
        mover = a.unit
        parts.append("charge goes in" if after.game.piece(mover).charged else "charge fails")
        targets = [a.path[-1], *a.next]
        parts += _changes(rules, before, after, [mover], "charger")
        acting = {mover}
    else:
        targets = [a.target]
        acting = set(a.units)
        parts += _changes(rules, before, after, list(a.units), "firer" if kind == "fire" else "attacker", targets)
    in_targets = [p.id for p in g0.pieces if p.hex in targets and p.id not in acting]
    parts += _changes(rules, before, after, in_targets, "target")
    if after.result is not None and before.result is None:
        parts.append(f"game over: {after.result.winner or 'draw'}")
    return "; ".join(parts) if len(parts) > (kind == "charge") else ("; ".join(parts) + "; no effect"
                                                                     if parts else "no effect"), _RULE[kind]


def tbf_value(rules: RulesAsked, s: TbfState, side: str) -> float:
    """A won game +1000 (lost -1000, drawn 0); else, per battalion (our weights): 3 points for each
    one the enemy has lost more than we have (10.2 counts them), 1.2 for each routed and 0.4 for each
    fatigued one the enemy has more of; and 2 per victory level reached (10.2) beyond the enemy's."""
    out = rules.outcome(s)
    if out is not None:
        return 0.0 if out.winner is None else (1000.0 if out.winner == side else -1000.0)
    sc = rules.sc
    foe = other(side)
    v = 0.0
    for p in s.game.pieces:
        if p.id not in sc.units:
            continue
        sign = 1.0 if sc.units[p.id].side == side else -1.0
        w = _WORTH.get(p.status, -3.0)
        v += sign * w
    m = rules.metrics(s)
    return v + 2.0 * (m.get(f"level.{side}", 0.0) - m.get(f"level.{foe}", 0.0))


# ------------------------------------------------------------------------------------------------
# An attack's probability tree in a player's words (issue 25 point 1)
# ------------------------------------------------------------------------------------------------
#: a result said in the tree is at most this long (core cuts longer ones: quick_odds.RESULT_CHARS is 120)
LONGEST = 119

#: what a Fatigue Check's effect does to the unit (4.2.2; each check's rows in the Fatigue Check Table)
_EFFECT = {"charge": "charges", "no_charge": "no charge this segment", "stand": "stands",
           "stand_half": "stands at half MF", "rout": "routs", "surrender": "surrenders", "fatigued": "fatigued",
           "none": "no effect", "attack": "attacks", "no_attack": "does not attack", "act": "may act",
           "no_action": "may not act", "recover": "fatigue removed", "rally": "rallies, fatigued"}
#: a status a piece ends a step with, said of it (4.2.4, 6.5, 6.7); "normal" after a check: it stands
_BECOMES = {"normal": "stands", "fatigued": "fatigued", "routed": "routs", "eliminated": "eliminated",
            "surrendered": "surrenders", "killed": "killed", "wounded": "wounded", "captured": "captured",
            "disbanded": "disbanded"}
#: what a melee attacker or defender did before the roll (6.4 D, 6.4 F, 6.7 J), as the procedure notes it
_BEFORE_MELEE = {"attacks doubled": "MF doubled", "no_attack": "does not attack", "rout": "routs",
                 "routs": "routs", "surrenders": "surrenders", "fatigued": "fatigued first"}
_THE_SIDE = {"french": "the French", "coalition": "the Coalition"}
#: a charge's end, as the procedure notes it (6.2.8 D-K, 6.2.9, 6.2.10)
_STOPPED = {"no more targets": "no more targets", "target stands": "the target stands",
            "out of MPs": "out of MPs", "reaction charge": "met by a reaction charge",
            "counter charge": "met by a counter charge", "defensive fire": "stopped by defensive fire",
            "attempt failed": "the attempt failed"}


def _fit(head: str, extras: Sequence[str], rule: str = "") -> str:
    """``head; extra; ... (rule)`` with as many extras, in order, as keep it at most :data:`LONGEST` long."""
    tail = f" ({rule})" if rule else ""
    out = head
    for e in extras:
        if len(out) + 2 + len(e) + len(tail) > LONGEST:
            break
        out = f"{out}; {e}" if out else e
    return out + tail


def _check_names(sc: Scenario) -> re.Pattern[str]:
    names = sorted((c.name for c in sc.tables.fatigue.checks.values()), key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r") Fatigue Check for ")


def tbf_step(sc: Scenario, request: Request) -> str:
    """A question of the tree: a Fatigue Check as the table names it, ``"Fatigue Check (Leader Loss) for NOV 3
    bn"`` (4.2.2), a die with what it decides, every piece by its counter's name."""
    text = request.describe() if isinstance(request, ChanceRequest) else str(request.label)
    text = _check_names(sc).sub(lambda m: f"Fatigue Check ({m.group(1)}) for ", text)
    return named(sc, text).replace("_", " ")


def _check(sc: Scenario, o: CheckOutcome, rule: str) -> str:
    effect = _EFFECT.get(o.effect, o.effect.replace("_", " "))
    doubled = ", MF doubled" if o.doubled else ""
    return f"{'passed' if o.passed else 'failed'}: {effect}{doubled} ({rule or sc.tables.check(o.check).rule})"


def _fire(sc: Scenario, o: FireOutcome, rule: str) -> str:
    rule = rule or "6.3.7"
    if o.column is None:
        return f"nothing fires ({rule})"
    eff = sc.tables.fire.results.get(o.result)
    text = eff.text if eff is not None and eff.text else ""
    if o.result == "-":
        return f"column {o.column}: {text or 'no effect'} ({rule})"
    return _fit(f"column {o.column}: {o.result}" + (f", {text}" if text else ""), (), rule)


def _melee_effect(eff: MeleeEffect | None) -> str:
    """A Melee Combat Table result from its effects (6.4 H), each side's in a few words."""
    if eff is None:
        return ""
    out = []
    for side in ("attacker", "defender"):
        lost, tired, back = (getattr(eff, f"{side}_eliminate"), getattr(eff, f"{side}_fatigue"),
                             getattr(eff, f"{side}_retreat"))
        rest = (["fatigued"] if tired else []) + ([f"retreat {back} hex{'es' if back > 1 else ''}"] if back else [])
        if lost and rest:
            out.append(f"{lost} {side} eliminated, the others " + " and ".join(rest))
        elif lost:
            out.append(f"{lost} {side} eliminated")
        elif rest:
            out.append(f"{side}s " + " and ".join(rest))
    return "; ".join(out) or "no effect"


def _leader(sc: Scenario, entry: str) -> str:
    """``"kutusov: wounded (2d6 turns)"`` -> ``"General Kutusov wounded"`` (6.5 A)."""
    who, _, fate = str(entry).partition(": ")
    return f"{piece_name(sc, who)} {fate.split(' (')[0]}".strip()


def _melee(sc: Scenario, column: str | None, result: str, attackers: Iterable[tuple[str, str]],
           defenders: Iterable[tuple[str, str]], leaders: Iterable[str], rule: str) -> str:
    before = [f"{piece_name(sc, u)} {_BEFORE_MELEE[s]}" for u, s in [*attackers, *defenders] if s in _BEFORE_MELEE]
    if column is None:
        if result == "vacated":
            return _fit("no melee: the defenders left the hex", before, "6.4")
        return _fit("no attack", before, "6.4 D")
    eff = sc.tables.melee.results.get(result)
    head = f"column {column}: {result}, {_melee_effect(eff)}"
    return _fit(head, [_leader(sc, x) for x in leaders] + before, rule if rule and rule != "6.4" else "6.4 H")


def _retreat(sc: Scenario, o: RetreatOutcome, rule: str) -> str:
    units = [f"{piece_name(sc, u)}" + ("" if s == "normal" else f" ({_BECOMES.get(s, s)})") for u, s in o.units]
    if o.hex is None:
        return _fit(f"no hex to retreat to: {', '.join(units)}", (), "6.6 C")
    verb = "retreats" if len(units) == 1 else "retreat"
    into = " (an enemy front hex, 6.6 D)" if o.into_front else ""
    return _fit(f"{', '.join(units)} {verb} to {o.hex}{into}", (), rule or "6.6")


def _fate(sc: Scenario, o: LeaderFate, rule: str) -> str:
    out = {"unhurt": "unhurt", "killed": "killed",
           "wounded": f"wounded, out {o.turns_out or '2d6'} turns"}.get(o.fate, o.fate)
    return f"{piece_name(sc, o.leader)} {out} ({rule or '6.5 A'})"


def _charge(sc: Scenario, o: ChargeOutcome, rule: str) -> str:
    if not o.attempted:
        return "no charge: the attempt failed (6.2.8 D)"
    bits = [named(sc, s) for s in o.steps]
    if o.surrendered:
        bits.append(f"{', '.join(piece_name(sc, u) for u in o.surrendered)} surrender (6.2.8 I)")
    if o.melee:
        bits.append(f"melee {o.melee}")
    return _fit(f"ends in {o.ended_at}, {_STOPPED.get(o.stopped, o.stopped)}", bits, rule or "6.2.8")


def game_changes(sc: Scenario, before: GameState, after: GameState) -> list[str]:
    """What became of each piece between two positions of the map, by its counter's name: ``"NOV 3 bn routs to
    1812"``, ``"3/4th Legere fatigued"``, ``"General Kutusov killed"``."""
    out = []
    for p1 in after.pieces:
        p0 = before.piece(p1.id)
        if p0.status == p1.status and p0.hex == p1.hex:
            continue
        bits = [piece_name(sc, p1.id)]
        if p1.status != p0.status:
            bits.append("recovers" if p1.status == "normal" else _BECOMES.get(p1.status, str(p1.status)))
        if p1.hex != p0.hex and p1.hex is not None:
            bits.append(f"{'moves ' if p1.status == p0.status else ''}to {p1.hex}")
        elif p1.hex is None and p1.status == p0.status:
            bits.append("leaves the map")
        out.append(" ".join(bits))
    return out


def _changed(sc: Scenario, before: GameState, after: GameState, rule: str, more: Sequence[str] = ()) -> str:
    said = game_changes(sc, before, after) + list(more)
    if not said:
        return f"nothing changes ({rule})" if rule else "nothing changes"
    kept = _fit(said[0], said[1:], rule)
    shown = kept.count("; ") + 1
    if shown < len(said):
        tail = f" ({rule})" if rule else ""
        body = kept[:len(kept) - len(tail)] if tail else kept
        while True:
            cand = f"{body}; {len(said) - shown} more{tail}"
            if len(cand) <= LONGEST or "; " not in body:
                return cand
            body, shown = body.rsplit("; ", 1)[0], shown - 1
    return kept


def _key_game(request: Request, state: TbfState) -> GameState:
    """The map the sub-procedure started from (its key holds it), else the action's."""
    for k in getattr(request, "key", None) or ():
        if isinstance(k, GameState):
            return k
    return state.game


def tbf_result(sc: Scenario, state: TbfState, request: Request, value: Any) -> str:
    """A sub-procedure's result in the tree, said as a player says it, with its rule: a Fatigue Check
    ``"failed: routs (6.5 B)"``, fire ``"column 3: R, retreat one hex (6.3.7)"``, melee ``"column 4-1: DE, 1
    defender eliminated, the others fatigued and retreat 2 hexes (6.4 H)"``, a retreat, a leader's fate, a
    charge, or a new map by what changed on it (a rout, 6.7 C)."""
    rule = str(getattr(request, "rule", "") or "")
    got = getattr(request, "key", None)
    key: tuple[Any, ...] = got if isinstance(got, tuple) else ()
    kind = key[0] if key and isinstance(key[0], str) else ""
    if isinstance(value, CheckOutcome):
        return _check(sc, value, rule)
    if isinstance(value, FireOutcome):
        return _fire(sc, value, rule)
    if isinstance(value, MeleeOutcome):
        return _melee(sc, value.column, value.result, value.attackers, value.defenders, value.leaders, rule)
    if isinstance(value, RetreatOutcome):
        return _retreat(sc, value, rule)
    if isinstance(value, LeaderFate):
        return _fate(sc, value, rule)
    if isinstance(value, ChargeOutcome):
        return _charge(sc, value, rule)
    if isinstance(value, GameState):
        return _changed(sc, _key_game(request, state), value, rule)
    if isinstance(value, tuple):
        if kind == "tbf-melee-resolve" and len(value) == 4:     # (column, result, defenders, leaders): 6.4 F-H
            column, result, defenders, leaders = value
            return _melee(sc, column, result, (), defenders, leaders, "6.4 H")
        if value and isinstance(value[0], GameState):           # a charge's results: the map, a melee left (6.2.8)
            left = value[1] if len(value) > 1 else None
            more = ([f"melee with {piece_name(sc, left.charger)} in {left.target} in the Melee Segment (3.3 B)"]
                    if isinstance(left, ChargeMelee) else [])
            return _changed(sc, _key_game(request, state), value[0], rule, more)
        specs = key[2] if kind == "tbf-6.7K" and len(key) > 2 else ()
        if specs and all(isinstance(s, CheckSpec) for s in specs) and len(specs) == len(value):
            return _fit("", [f"{piece_name(sc, s.unit)} {_BECOMES.get(v, v)}" for s, v in zip(specs, value)], rule)
    if kind == "tbf-initiative" and value in _THE_SIDE:
        return f"{_THE_SIDE[value]} {'win' if value == 'french' else 'wins'} the initiative ({rule or '3.2 A'})"
    if kind == "tbf-reinforcement" and isinstance(value, bool) and len(key) > 3 and key[2] == "muster":
        return f"Column {key[3]} {'musters' if value else 'does not muster yet'} ({rule or '9.2 B'})"
    if isinstance(value, bool):
        return f"{tbf_step(sc, request)}: {'yes' if value else 'no'}" + (f" ({rule})" if rule else "")
    return named(sc, result_words(value)).replace("_", " ")
