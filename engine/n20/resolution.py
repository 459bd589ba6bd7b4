"""A Napoleonic 20 battle resolved: THE battle procedure (9.0 A-G) -- steps B-F from :mod:`.battle`
(strengths, reliability rolls, the CRT roll), then step G here: one CRT result applied (9.6 [A]-[H],
16.3.2 bombardment), each retreat as a sub-procedure with its path and hazards (9.8, 9.6.2 elite,
16.7.5 stragglers, 16.7.7 irregulars, 17.1 squares), the advance after combat (9.9), Guard recule
(12.2.2), morale (12.1-12.1.2), Routed! markers (9.6.3) and fatigue (16.8.1).

What the deterministic steps work out is kept in the battle's step cache (:func:`~engine.n20.battle.cached`),
keyed by the battle value, never written into it. Nothing here touches an RNG.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache, partial
from itertools import combinations

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log, Roll, Sub

from .advance import AdvanceResult, advance_procedure
from .battle import Battle, cached, crt_procedure, d6_bands
from .morale import apply_morale, morale_items
from .outcome import Outcome, UnitFate
from .retreat import ContextFreeRetreat, MapRetreat, RetreatResult, hazard_roll
from .units import Unit

__all__ = ["RESULT_RULES", "battle_procedure", "losses", "result_procedure", "retreat_procedure",
           "unit_positions", "bystanders_of"]

#: the rule of each CRT result (9.6 [A]-[H])
RESULT_RULES = {"AB": "9.6 [A]", "AR": "9.6 [B]", "AW": "9.6 [C]", "DB": "9.6 [D]", "DR": "9.6 [E]",
                "DW": "9.6 [F]", "EX": "9.6 [G]", "N": "9.6 [H]"}


# ------------------------------------------------------------------------------------------------
# The battle procedure
# ------------------------------------------------------------------------------------------------
def battle_procedure(b: Battle):
    """THE battle: yields dice / choices / sub-procedures, returns an :class:`Outcome` (9.0 A-G).

    Steps B-F (strengths, reliability rolls, differential, the CRT roll) are one sub-procedure, so that
    exact enumeration merges the reliability branches that end in the same result code; step G then
    applies the result (:func:`result_procedure`), one sub-procedure per retreating unit and one for
    the advance."""
    code, lapsed = yield Sub(("steps B-F", b), partial(crt_procedure, b), rule="9.0",
                             label="strengths, differential and the CRT")
    code = str(code)
    pick = None
    exchange = losses(b, code)[3]
    if exchange is not None:
        need, opts = exchange
        pick = opts[0] if len(opts) == 1 else (yield Choose(opts, rule="9.6 [G]", player=b.attacker_side,
                                                           label=f"exchange: attacking units to break (need {need})"))
    outcome = yield from result_procedure(b, code, pick)
    if lapsed:
        outcome = replace(outcome, reliability_lapsed=True)
    return outcome


# ------------------------------------------------------------------------------------------------
# Step G: retreats (9.8), the result (9.6), the advance (9.9), morale (12.x)
# ------------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _rout_bands(mod: int, elite: bool):
    # 9.6.2: an elite unit below 1 withdraws, whatever the face
    return d6_bands(lambda f: "withdraw" if (elite and f + mod < 1) else max(f + mod, 1))


def _fortified(b: Battle, u: Unit) -> bool:
    if b.board is not None:
        t = b.board.terrain(u.hex)
    else:
        t = dict(b.terrain).get(u.id, "clear")
    return t in ("fortified", "redoubt")


def _in_enemy_cavalry_zoc(b: Battle, u: Unit, positions: tuple) -> bool:
    """17.1: is ``u`` in the ZOC of an enemy cavalry unit? On a map: any enemy cavalry with a ZOC where it
    stands now (attackers, defenders or bystanders alike; Routed! units 9.6.3 and squares have none). Without
    a map: the enemy cavalry of the battle itself, which is adjacent by 9.2.2."""
    if b.board is not None:
        for uid, (side, h, zoc, _solid) in positions:
            if side != u.side and zoc and h and b.units[uid].is_cavalry and u.hex in b.board.zoc_of(h):
                return True
        return False
    enemies = b.defenders if u.side == b.attacker_side else b.attackers
    return any(e.is_cavalry and e.exerts_zoc for e in enemies)


def retreat_procedure(b: Battle, env, u: Unit, kind: str, positions: tuple, cavalry_zoc: bool | None = None):
    """Sub-procedure: one unit's rout or withdrawal with its path and hazards. Returns :class:`RetreatResult`.
    ``cavalry_zoc``: whether the unit stands in an enemy cavalry ZOC (17.1); None works it out."""
    rules = b.rules
    if cavalry_zoc is None:
        cavalry_zoc = u.square and _in_enemy_cavalry_zoc(b, u, positions)
    rule = "9.6 [E]" if u.side == b.defender_side else "9.6 [B]"
    fort = _fortified(b, u)
    distance, routed, marker, rout_distance = 1, False, False, None
    if kind == "rout":
        if u.straggler:                          # 16.7.5
            yield Log("16.7.5", f"{u.id} is a straggler: breaks instead of routing")
            return RetreatResult(u.id, "broken", advance_path=(u.hex,), advance_room=1, rule="16.7.5")
        if u.square and cavalry_zoc:             # 17.1: a square in any enemy cavalry ZOC checks first (9.8.3)
            r = yield from hazard_roll("17.1", f"{u.id}: square caught by cavalry")
            if r == "breaks":
                return RetreatResult(u.id, "broken", advance_path=(u.hex,), advance_room=1, rule="17.1")
        mod = 0
        if u.elite:
            mod += rules.elite_fortified_rout_modifier if fort else rules.elite_rout_modifier   # 9.6.2, 9.8.1
        if u.spanish_irregular:
            mod += 1                             # 16.7.7
        roll = yield Roll("d6", rule=rule, label=f"rout distance of {u.id}",
                          bands=_rout_bands(mod, u.elite))
        d = roll + mod
        if mod:
            yield Log("9.6.2" if u.elite else "16.7.7", f"rout die {roll} {mod:+d} = {d}")
        if d < 1 and u.elite:                    # 9.6.2: an elite unit withdraws instead
            yield Log("9.6.2", f"{u.id} withdraws instead of routing")
            kind = "withdraw"
        else:
            distance, routed, rout_distance = max(d, 1), True, max(d, 1)
            marker = rules.routed_markers
    if u.square and kind == "withdraw":          # 17.1: the square breaks up and withdraws with a Routed! marker
        marker = rules.routed_markers
    if u.type == "garrison":                     # 9.4.4: garrisons never retreat
        return RetreatResult(u.id, "held", advance_path=(u.hex,), advance_room=1, rule="9.4.4")
    # 9.8.1: one hex fewer, at the owner's option; in the older edition a routing elite's -3 already holds
    # that benefit (parameters.yaml, elite_fortified_includes_one_fewer)
    if fort and rules.fortified_one_fewer and not (routed and u.elite and rules.elite_fortified_includes_one_fewer):
        opts = ("one hex fewer", "full retreat")
        pick = yield Choose(opts, rule="9.8.1", player=u.side, label=f"{u.id} in a fortified hex")
        if pick == "one hex fewer":
            distance -= 1
    if rout_distance is not None:
        rout_distance = distance
    beyond = routed and distance > u.movement
    fate = "routed" if routed else "withdrew"
    if distance <= 0:
        return RetreatResult(u.id, "routed" if routed else "held", 0, u.hex, rout_distance, marker if routed else False,
                             False, routed, (), 0, "9.8.1")
    options = env.options(u, u.hex, distance, positions, bystanders_of(b) if b.board is not None else ())
    if getattr(options, "cut", False):
        yield Log("9.8", f"{u.id}: the retreat path search stopped at its bound; some paths may be missing")
    if len(options) == 1:
        path = options[0]
    else:
        path = yield Choose(options, rule="9.8.2", player=u.side, label=f"retreat path of {u.id}")
    hexes = [u.hex] + list(path.hexes)
    where = u.hex
    for i, (h, hz) in enumerate(zip(path.hexes, path.hazards), start=1):
        for rule_h in hz:
            r = yield from hazard_roll(rule_h, f"{u.id} entering {h if b.board else 'hex ' + str(i)}")
            if r == "breaks":
                # 9.8.4 a river breaks the unit in the hex before crossing; 9.8.3 an EZOC in the hex entered
                at = i - 1 if rule_h == "9.8.4" else i
                adv = tuple(hexes[: at + 1]) if b.board else ()
                return RetreatResult(u.id, "broken", at, hexes[at] if b.board else None, None, False, beyond,
                                     routed, adv, at + 1, rule_h)
        where = h
    n = len(path.hexes)
    stop = path.through_friend_at
    room = (stop + 1) if stop is not None else n          # 9.9.1: the path ends at a friend retreated through
    adv = tuple(hexes[:room]) if b.board else ()
    if path.end == "loc":
        yield Log("9.8.7", f"{u.id} reaches its LOC before the end of its retreat and breaks")
        return RetreatResult(u.id, "broken", n, where if b.board else None, None, False, beyond, routed,
                             tuple(hexes[: n + 1]) if b.board else (), n + 1 if stop is None else room, "9.8.7")
    if path.end == "blocked":
        yield Log("9.8", f"{u.id} cannot complete its retreat and breaks")
        return RetreatResult(u.id, "broken", n, where if b.board else None, None, False, beyond, routed,
                             tuple(hexes[: n + 1]) if b.board else (), n + 1, "9.8")
    if path.end == "off_road":
        yield Log("16.7.6", f"{u.id} is road-bound and leaves the road: destroyed")
        return RetreatResult(u.id, "destroyed", n, where if b.board else None, None, False, beyond, routed,
                             tuple(hexes[: n + 1]) if b.board else (), n + 1, "16.7.6")
    return RetreatResult(u.id, fate, n, where if b.board else None, rout_distance, marker, beyond, routed, adv, room,
                         "9.8")


def _exchange_options(b: Battle, need: int):
    """9.6 [G]: sets of attacking units whose printed strengths reach ``need``, none of them superfluous;
    least printed strength lost first (then fewer units, then listing order)."""
    pool = [u for u in b.attackers if u.id not in b.bombarding]          # 16.3.2
    if need <= 0:
        return ((),)
    if sum(u.strength for u in pool) <= need:
        return (tuple(u.id for u in pool),)
    opts = []
    for k in range(1, len(pool) + 1):
        for combo in combinations(pool, k):
            tot = sum(u.strength for u in combo)
            if tot < need:
                continue
            if any(tot - u.strength >= need for u in combo):
                continue   # a unit could be spared: not a minimal choice
            opts.append((tot, k, tuple(pool.index(u) for u in combo), tuple(u.id for u in combo)))
    opts.sort()
    return tuple(o[-1] for o in opts)


def losses(b: Battle, code: str) -> tuple:
    """Which units break and which retreat for a CRT result (9.6 [A]-[H], 16.3.2): ``(result, units to
    break, (unit, rout or withdraw) to retreat, exchange)``, the exchange ``(strength to lose, the sets of
    attackers that may be lost)`` on an EX; kept per battle value and code (:func:`cached`)."""
    return cached(b, ("losses", code), lambda: _losses(b, code))


def _losses(b: Battle, code: str):
    result = code
    if code == "EX" and b.bombarding and all(u.id in b.bombarding for u in b.attackers):
        result = "N"                                          # 16.3.2: bombardment alone
    to_break: list[Unit] = []
    to_retreat: list[tuple[Unit, str]] = []
    if result in ("AB", "AR"):
        for u in b.attackers:
            if u.id in b.bombarding:
                to_retreat.append((u, "withdraw"))            # 16.3.2: AB/AR become AW
            elif result == "AB":
                to_break.append(u)
            else:
                to_retreat.append((u, "rout"))
    elif result == "AW":
        to_retreat = [(u, "withdraw") for u in b.attackers]
    elif result in ("DB", "EX"):
        to_break = list(b.defenders)
    elif result == "DR":
        to_retreat = [(u, "rout") for u in b.defenders]
    elif result == "DW":
        to_retreat = [(u, "withdraw") for u in b.defenders]
    exchange = None
    if result == "EX":
        need = sum(u.strength for u in b.defenders if u.type != "leader")   # printed strengths only
        exchange = (need, _exchange_options(b, need))
    return result, tuple(to_break), tuple(to_retreat), exchange


def result_procedure(b: Battle, code: str, exchange_pick: tuple | None = None):
    """Sub-procedure: apply one CRT result with its retreats, advance, Guard recule and morale (9.6-9.9, 12.x).
    ``exchange_pick``: the attacking units the attacker breaks on an Exchange (9.6 [G])."""
    rules, tables = b.rules, b.tables
    result, to_break, to_retreat, exchange = losses(b, code)
    if result != code:
        yield Log("16.3.2", "bombardment alone: the Exchange becomes Engaged")
    to_break = list(to_break)
    if exchange is not None:
        if exchange_pick is None or exchange_pick not in exchange[1]:
            raise RuleViolation("9.6 [G]", f"the attacker must break one of {list(exchange[1])}")
        to_break += [b.units[i] for i in exchange_pick]
    fates: dict[str, RetreatResult] = {}
    for u in to_break:
        fate = "destroyed" if u.type == "garrison" else "broken"
        fates[u.id] = RetreatResult(u.id, fate, 0, None, advance_path=(u.hex,) if b.board else (), advance_room=1,
                                    rule="9.6")
    env = cached(b, ("env",), lambda: MapRetreat(b.board, rules.loc_breaks_retreat) if b.board else
                  ContextFreeRetreat(dict(b.paths), rules.loc_breaks_retreat))
    positions = unit_positions(b, fates)
    for u, kind in to_retreat:
        r = yield Sub(("retreat", b, u.id, kind, positions),
                      partial(retreat_procedure, b, env, u, kind, positions,
                              u.square and _in_enemy_cavalry_zoc(b, u, positions)),
                      rule="9.8", label=f"{'rout' if kind == 'rout' else 'withdrawal'} of {u.id}")
        fates[u.id] = r
        positions = unit_positions(b, fates)
    fkey = tuple(fates.items())
    setup = cached(b, ("advance", result, fkey), lambda: _advance_setup(b, result, fates, positions))
    adv = AdvanceResult(None)
    if setup is not None:
        victor, eligible, paths, garrison_hexes = setup
        adv = yield Sub(("advance", b, victor, paths, tuple(w.id for w in eligible)),
                        partial(advance_procedure, tables, rules, eligible, paths, victor, garrison_hexes),
                        rule="9.9", label="advance after combat")
    return cached(b, ("outcome", code, result, fkey, adv), lambda: _assemble(b, code, result, fates, adv))


def _advance_setup(b: Battle, result: str, fates: dict, positions: tuple):
    """9.9.2: the victor's eligible units and the enemy retreat paths (None when nobody may advance)."""
    rules = b.rules
    if result in ("DB", "DR", "DW", "EX"):
        winners, losers, victor = b.attackers, b.defenders, b.attacker_side
    elif result in ("AB", "AR", "AW"):
        winners, losers, victor = b.defenders, b.attackers, b.defender_side
    else:
        return None
    eligible = tuple(u for u in winners if u.id not in fates and u.type not in ("artillery", "garrison", "leader")
                     and not u.routed and not (u.fatigue >= 4 and rules.fatigue and b.board is None))
    if victor == b.defender_side and b.countercharge:
        return None                                           # 8.2.3
    if victor == b.defender_side and b.board is not None and any(
            a.hex in b.board.garrisons and b.board.garrisons[a.hex].side == b.attacker_side for a in b.attackers):
        return None                                           # 9.4.4 covering garrison
    paths = tuple((r.advance_path, r.advance_room) for u in losers if (r := fates.get(u.id)) is not None)
    if b.board is not None:
        occupied = _occupied(b, positions)
        paths = tuple(_vacant_part(h, room, occupied) for h, room in paths)
    if not eligible or not any(room >= 1 for _, room in paths):
        return None
    if b.board is not None and rules.fatigue and any(w.fatigue >= 4 for w in eligible):
        ez = _enemy_zoc_for(b, victor, positions)             # 16.8.3: Spent units may not advance into an EZOC
        first = {h[0] for h, room in paths if h}
        eligible = tuple(w for w in eligible if w.fatigue < 4 or not (first & ez))
        if not eligible:
            return None
    garrison_hexes = frozenset(h for h, g in (b.board.garrisons.items() if b.board else ()) if g.side != victor)
    garrison_hexes |= frozenset(u.hex for u in losers if u.type == "garrison" and u.hex)
    return victor, eligible, paths, garrison_hexes


def _occupied(b: Battle, positions: tuple) -> set:
    """The hexes some unit stands in (leaders, 16.9.2, do not count), ``positions`` as
    :func:`_positions_now` makes them: the battle's own units, then the bystanders, who stay put."""
    tail = bystanders_of(b)
    n = len(positions) - len(tail)
    if n < 0 or positions[n:] != tail:
        return {h for _, (_side, h, _zoc, solid) in positions if solid and h}
    out = set(cached(b, ("bystanders occupied",), lambda: _bystanders_occupied(b.others)))
    for _, (_side, h, _zoc, solid) in positions[:n]:
        if solid and h:
            out.add(h)
    return out


def _vacant_part(hexes: tuple, room: int, occupied: set) -> tuple[tuple, int]:
    """9.9.1: a retreat path is a path of vacant hexes. Once every retreat of the battle is done, it ends
    before the first hex some unit now stands in (a later retreat of the same battle may have stopped on it,
    ``occupied``: see :func:`_occupied`); leaders (16.9.2) do not block."""
    for i, h in enumerate(hexes):
        if h in occupied:
            return hexes[:i], min(room, i)
    return hexes, room


def _assemble(b: Battle, code: str, result: str, fates: dict, adv: AdvanceResult) -> Outcome:
    """Fates, Guard recule (12.2.2), morale (12.1-12.1.2), Routed! markers (9.6.3), fatigue (16.8.1)."""
    tables = b.tables
    attacker_won = result in ("DB", "DR", "DW", "EX")
    held = attacker_won and _defenders_kept_their_hexes(b, result, fates)
    recule = tuple(u.id for u in b.attackers if u.guard and not u.recule_exempt
                   and (not attacker_won or u.id in fates or u.routed or held))
    advanced = {uid: (n, h) for uid, n, h in adv.moves}
    out: list[UnitFate] = []
    garrison_gone = adv.garrison_destroyed
    for role, group in (("attacker", b.attackers), ("defender", b.defenders)):
        for u in group:
            r = fates.get(u.id)
            fatigue = None
            if b.fatigue:
                fatigue = u.fatigue if r is not None and r.fate in ("broken", "destroyed") else min(4, u.fatigue + 1)
            if r is None:
                n, h = advanced.get(u.id, (0, None))
                out.append(UnitFate(u.id, u.side, role, "held", 0, h if h else u.hex if b.board else None,
                                    advanced=n, fatigue=fatigue))
            else:
                fate = r.fate
                if u.type == "garrison" and fate == "held" and garrison_gone == u.hex:
                    fate = "destroyed"
                out.append(UnitFate(u.id, u.side, role, fate, r.hexes,
                                    None if fate in ("broken", "destroyed") else r.end_hex,
                                    r.marker and fate in ("routed", "withdrew"), r.routed, r.beyond_ma,
                                    None if fate in ("broken", "destroyed") else r.rout_distance,
                                    fatigue=fatigue))
    items = morale_items(tables, b.units, out,
                         {b.attacker_side: b.reserves_attacker, b.defender_side: b.reserves_defender}, recule)
    deltas, after, lost = apply_morale(tables, b.morale_levels(), items, (b.attacker_side, b.defender_side))
    return Outcome(code if result == code else f"{code}->{result}", tuple(out), deltas, items, after, lost,
                   adv.control, False, garrison_gone)


def _defenders_kept_their_hexes(b: Battle, result: str, fates: dict) -> bool:
    """12.2.2 reading (parameters.yaml, guard_recule_needs_vacated_hex): after a result against the
    defender, did every defender keep its hex so that no unit could advance after combat (9.9.1-9.9.2)?
    A fortified hex held (9.8.1) leaves no retreat path; a garrison that holds leaves its hex open to the
    attacker's advance (9.4.4), so it does not count as holding here."""
    if not b.rules.guard_recule_needs_vacated_hex or result not in ("DB", "DR", "DW", "EX"):
        return False
    paths = [(r.advance_path, r.advance_room) for d in b.defenders if (r := fates.get(d.id)) is not None]
    if b.board is not None:
        positions = unit_positions(b, fates)
        occupied = _occupied(b, positions)
        paths = [_vacant_part(h, room, occupied) for h, room in paths]
    return not any(room >= 1 for _, room in paths)


def unit_positions(b: Battle, fates: dict) -> tuple:
    """Where every unit stands now (broken ones removed): ((id, (side, hex, has ZOC, not a leader)), ...).
    Empty without a map: context-free retreat paths do not depend on where the others stand."""
    if b.board is None:
        return ()
    return cached(b, ("positions", tuple(fates.values())), lambda: _positions_now(b, fates))


def _positions_now(b: Battle, fates: dict) -> tuple:
    # only the battle's own units have fates: the bystanders' part is worked out once per battle
    out = []
    for u in b.attackers + b.defenders:
        r = fates.get(u.id)
        if r is not None and r.fate in ("broken", "destroyed"):
            continue
        h = u.hex
        zoc = u.exerts_zoc and u.type != "leader"
        if r is not None and r.end_hex is not None:
            h = r.end_hex
            if r.marker:
                zoc = False                                  # 9.6.3: a Routed! unit has no ZOC
        out.append((u.id, (u.side, h, zoc, u.type != "leader")))   # leaders stack freely (16.9.2)
    return tuple(out) + bystanders_of(b)


def bystanders_of(b: Battle) -> tuple:
    # per battle value (its hash made once), not per tuple of bystanders (each of them hashed at every ask)
    return cached(b, ("bystanders",), lambda: _bystanders(b.others))


@lru_cache(maxsize=256)
def _bystanders(others: tuple) -> tuple:
    """The part of :func:`_positions_now` for the units that are not in the battle (they stay put), keyed
    by those units (values whose hash is made once)."""
    return tuple(map(_position_of, others))


@lru_cache(maxsize=4096)
def _position_of(u: Unit) -> tuple:
    # one unit standing where it is: (id, (side, hex, has a ZOC 7.0, not a stack-free leader 16.9.2))
    return (u.id, (u.side, u.hex, u.exerts_zoc and u.type != "leader", u.type != "leader"))


@lru_cache(maxsize=256)
def _bystanders_occupied(others: tuple) -> frozenset:
    """The hexes the units that are not in the battle stand in (leaders, 16.9.2, do not count)."""
    return frozenset(u.hex for u in others if u.type != "leader" and u.hex)


def _enemy_zoc_for(b: Battle, side: str, positions: tuple) -> frozenset:
    out: set[str] = set()
    for uid, (s, h, zoc, _) in positions:
        if s != side and h and zoc:
            out |= b.board.zoc_of(h)
    return frozenset(out)
