"""Battles inside a game: who may fight whom (7.0, 9.2.2, 9.4.4, 16.3.2), declarations with the
mandatory-attack rules checked before any die (9.1-9.2.2, 7.3, 9.4.3, 9.9.8), and the resolution of each
battle by THE battle procedure of :mod:`engine.n20.resolution` run through the core drivers (never
re-implemented here). The reaction phase's countercharges (8.2) run through here too (:mod:`.reaction`).
"""
from __future__ import annotations

from functools import lru_cache
from types import MappingProxyType

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log
from engine.core.values import from_fields

from ..battle import Battle as EngineBattle
from ..resolution import battle_procedure
from ..units import Unit
from .actions import Action
from .memo import memo
from .state import Battle, GameState, other, replace_any as replace
from .types import Fate
from .victory import check_victory
from .zoc import adjacent, combat_adjacent, enemy_zoc, exerts_zoc, neighbour_sets, on_map_units

__all__ = ["GARRISON", "fighters", "hex_of", "enemy_targets", "exerts", "zoc_covers", "bombards",
           "mandatory_battles", "required_defenders", "any_contact", "declaration_options", "check_declaration",
           "do_declare", "battle_unit", "engine_battle", "battle_in_game", "finish_battle"]

GARRISON = "garrison:"


# ------------------------------------------------------------------------------------------------
# Who touches whom
# ------------------------------------------------------------------------------------------------
def fighters(state: GameState, side: str) -> list:
    """Units of ``side`` on the map that can take part in a battle (leaders never fight, 16.9)."""
    sc = state.scenario
    return [u for u in on_map_units(state, side) if sc.units[u.id].type != "leader"]


def hex_of(state: GameState, uid: str) -> str | None:
    """Where a unit stands (None off the map), or a garrison's hex (``garrison:<hex>``, 9.4.4)."""
    if uid.startswith(GARRISON):
        return uid[len(GARRISON):]
    return state.unit(uid).hex


def enemy_targets(state: GameState, side: str) -> list[str]:
    """Enemy units, and enemy garrisons alone in their hex (9.4.4), that can be attacked."""
    out = [u.id for u in fighters(state, other(side))]
    if not state.garrison_gone:
        occ = state.occupants
        for g in state.scenario.board.garrisons.values():
            if g.side != side and g.hex not in occ:
                out.append(GARRISON + g.hex)
    return out


def exerts(state: GameState, uid: str) -> bool:
    if uid.startswith(GARRISON):
        return True
    return exerts_zoc(state, state.unit(uid))


def zoc_covers(state: GameState, src_uid: str, dst_hex: str) -> bool:
    """The unit ``src_uid`` exerts its ZOC into ``dst_hex`` (7.0, 9.4.3)."""
    if not exerts(state, src_uid):
        return False
    return dst_hex in state.board.zoc_of(hex_of(state, src_uid))


def required_defenders(state: GameState, side: str, attackers=()) -> set[str]:
    """7.3 / 9.1: enemies exerting a ZOC on any of ``side``'s units must be attacked, and so must every
    enemy in the ZOC of a unit that attacks (9.1.1 B)."""
    base, targets = memo(state, ("required_defenders", side), lambda: _zoc_on_mine(state, side))
    out = set(base)
    if attackers:
        board = state.board
        cover = memo(state, ("zoc_cover",), lambda: _zoc_cover(state))
        covered: set[str] = set()
        for a in attackers:
            z = cover.get(a)
            if z is None:
                z = board.zoc_of(hex_of(state, a)) if exerts(state, a) else frozenset()
            covered |= z
        for e, h in targets:
            if h in covered:
                out.add(e)
    return out


def _zoc_cover(state: GameState) -> dict:
    """unit id -> the hexes its ZOC covers (7.0; empty for a unit without one), for the units on the map."""
    board = state.board
    return {u.id: (board.zoc_of(u.hex) if exerts_zoc(state, u) else frozenset())
            for u in on_map_units(state)}


def _zoc_on_mine(state: GameState, side: str) -> tuple[frozenset, tuple]:
    """The enemies exerting a ZOC on one of ``side``'s fighting units (7.3), and every attackable enemy
    with its hex (the part of :func:`required_defenders` the attackers do not change)."""
    mine_hexes = {u.hex for u in fighters(state, side)}
    targets = tuple((e, hex_of(state, e)) for e in enemy_targets(state, side))
    board = state.board
    base = frozenset(e for e, h in targets if exerts(state, e) and board.zoc_of(h) & mine_hexes)
    return base, targets


def mandatory_battles(state: GameState) -> list[str]:
    """9.1: the phasing units in an enemy ZOC (each must attack). Nothing at night (14.0)."""
    if state.night:
        return []
    side = state.player
    ez = enemy_zoc(state, side)
    return [u.id for u in fighters(state, side) if u.hex in ez]


def any_contact(state: GameState) -> bool:
    """Some phasing unit is adjacent (7.0) to an enemy it could attack."""
    side = state.player
    placed = None                 # the enemies' hexes, worked out once (not once per phasing unit)
    for u in fighters(state, side):
        if placed is None:
            placed = [hex_of(state, e) for e in enemy_targets(state, side)]
        for he in placed:
            if combat_adjacent(state, u.hex, he):
                return True
    return False


# ------------------------------------------------------------------------------------------------
# Declarations (9.2)
# ------------------------------------------------------------------------------------------------
def bombards(state: GameState, a: str, d: str) -> bool:
    """16.3.2: with Artillery Support, artillery next to its target across a Major River (or another
    hexside it could not cross) attacks it by bombardment."""
    if not state.has("artillery_support") or a.startswith(GARRISON):
        return False
    if state.scenario.units[a].type != "artillery":
        return False
    ha, hd = hex_of(state, a), hex_of(state, d)
    return adjacent(state.board, ha, hd) and not combat_adjacent(state, ha, hd)


def check_declaration(state: GameState, battles) -> None:
    """Validate a whole declaration before any die: raises :class:`RuleViolation` naming the rule. The
    answer is memoised beside the state (the greedy bot's declaration is checked when it is made, when
    it is picked and when it is played)."""
    key = tuple(battles)
    try:
        hash(key)
    except TypeError:
        return _check_declaration(state, battles)
    problem = memo(state, ("declaration", key), lambda: _declaration_problem(state, key))
    if problem is not None:
        raise RuleViolation(*problem)


def _declaration_problem(state: GameState, battles) -> tuple[str, str] | None:
    try:
        _check_declaration(state, battles)
    except RuleViolation as exc:
        return exc.rule, exc.message
    return None


def _check_declaration(state: GameState, battles) -> None:
    if state.night:
        raise RuleViolation("14.0", "no battles at night")
    side = state.player
    mine = {u.id for u in fighters(state, side)}
    targets = set(enemy_targets(state, side))
    used_a: set[str] = set()
    used_d: set[str] = set()
    for i, b in enumerate(battles):
        if not b.attackers or not b.defenders:
            raise RuleViolation("9.0 A", f"battle {i}: it needs attacking and defending units")
        for a in b.attackers:
            if a not in mine:
                raise RuleViolation("9.0 A", f"battle {i}: {a} is not a {side} unit on the map that can attack "
                                             f"(leaders command, they do not fight: 16.9)")
            if a in used_a:
                raise RuleViolation("9.1.2", f"{a} attacks more than once")
            used_a.add(a)
        for d in b.defenders:
            if d not in targets:
                raise RuleViolation("9.0 A", f"battle {i}: {d} is not an enemy unit on the map")
            if d in used_d:
                raise RuleViolation("9.1.2", f"{d} is attacked more than once")
            used_d.add(d)
        for a in b.attackers:
            for d in b.defenders:
                if not combat_adjacent(state, hex_of(state, a), hex_of(state, d)) \
                        and not bombards(state, a, d):
                    raise RuleViolation("9.2.2", f"battle {i}: {a} is not adjacent to {d}; every attacker must be "
                                                 f"adjacent to every defender (across a Major River only at a bridge or ford, 7.0, 9.4.3)")
    must = mandatory_battles(state)
    missing = [u for u in must if u not in used_a]
    if missing:
        raise RuleViolation("9.1", f"units in an enemy ZOC must attack: {', '.join(sorted(missing))}")
    need = required_defenders(state, side, used_a)
    unattacked = sorted(need - used_d)
    if unattacked:
        raise RuleViolation("9.1.1", f"every enemy unit exerting a ZOC on your units, or in the ZOC of an attacking "
                                     f"unit, must be attacked: {', '.join(unattacked)}")


def declaration_options(state: GameState) -> list[Action]:
    """A short list of legal declarations: one built to satisfy 9.1 with each required defender
    attacked by the units next to it, and -- when nothing is mandatory -- ending the phase."""
    out = []
    d = _greedy_declaration(state)
    if d is not None:
        try:
            check_declaration(state, d)
            if d:
                out.append(Action("declare", battles=tuple(d)))
        except RuleViolation:
            pass
    if not mandatory_battles(state):
        out.append(Action("end_phase"))
    elif not out:
        # no greedy grouping found: offer the all-in-one battles per defender the player can still edit
        pass
    return out


def _greedy_declaration(state: GameState):
    """A declaration meeting 9.1-9.2.2: every required defender goes to a battle of one adjacent attacker
    (preferring units that must attack anyway); every unit that must attack then joins a battle whose
    defenders are all adjacent to it, or takes one of its adjacent defenders into a battle of its own."""
    side = state.player
    mine = [u.id for u in fighters(state, side)]
    targets = enemy_targets(state, side)
    # who can fight whom (9.2.2, 7.0): only the targets in the hexes next to an attacker need the full check
    placed = [(e, hex_of(state, e)) for e in targets]
    nbr_sets = neighbour_sets(state.board)
    adj = {}
    for a in mine:
        ha = hex_of(state, a)
        ns = nbr_sets.get(ha)
        adj[a] = [e for e, he in placed if (ns is None or he in ns) and combat_adjacent(state, ha, he)]
    must_a = set(mandatory_battles(state))
    battles: list[list[list[str]]] = []          # [[attackers], [defenders]]
    where_d: dict[str, int] = {}
    where_a: dict[str, int] = {}
    for _ in range(4 * (len(mine) + len(targets)) + 8):
        need = sorted(required_defenders(state, side, set(where_a) | must_a) - set(where_d))
        if need:
            d = need[0]
            cands = [a for a in mine if d in adj[a]]
            if not cands:
                return None
            cands.sort(key=lambda a: (a not in must_a, a in where_a and len(battles[where_a[a]][0]) > 1, a))
            a = cands[0]
            if a in where_a:
                b = battles[where_a[a]]
                if all(d in adj[x] for x in b[0]):
                    b[1].append(d)
                    where_d[d] = where_a[a]
                    continue
                a = next((x for x in cands if x not in where_a), None)
                if a is None:
                    return None
            battles.append([[a], [d]])
            where_a[a] = where_d[d] = len(battles) - 1
            continue
        pending = sorted(must_a - set(where_a))
        if not pending:
            break
        a = pending[0]
        placed = False
        for d in adj[a]:
            if d not in where_d:
                battles.append([[a], [d]])
                where_a[a] = where_d[d] = len(battles) - 1
                placed = True
                break
        if placed:
            continue
        for d in adj[a]:
            i = where_d[d]
            b = battles[i]
            if all(x in adj[a] for x in b[1]):
                b[0].append(a)
                where_a[a] = i
                placed = True
                break
        if placed:
            continue
        d = adj[a][0] if adj[a] else None
        if d is None:
            return None
        i = where_d[d]
        battles[i][1].remove(d)
        battles.append([[a], [d]])
        where_a[a] = where_d[d] = len(battles) - 1
    return [Battle(tuple(sorted(b[0])), tuple(sorted(b[1]))) for b in battles if b[0] and b[1]]


def do_declare(state: GameState, battles) -> GameState:
    """Record the declaration; 16.1.1 reveals every unit involved (a revealed dummy leaves the map and
    its battle is void when no real unit is left on a side)."""
    sc = state.scenario
    changes = {}
    final = []
    done = []
    for i, b in enumerate(battles):
        att, dfd = [], []
        for uid in b.attackers + b.defenders:
            if uid.startswith(GARRISON):
                continue
            u = state.unit(uid)
            if sc.units[uid].type == "dummy":
                changes[uid] = replace(u, status="hidden_off", hex=None, revealed=False)    # 16.1.3
            elif not u.revealed:
                changes[uid] = replace(u, revealed=True)
        att = tuple(x for x in b.attackers if x.startswith(GARRISON) or sc.units[x].type != "dummy")
        dfd = tuple(x for x in b.defenders if x.startswith(GARRISON) or sc.units[x].type != "dummy")
        final.append(Battle(att, dfd))
        if not att or not dfd:
            done.append(i)     # 16.1.1: no combat, no advance
    st = state.with_units(changes, carry=False)     # a step on the way: the phase's counters change next
    return replace(st, declared=tuple(final), done_battles=tuple(done))


def check_resolve(state: GameState, a: Action) -> None:
    return None


# ------------------------------------------------------------------------------------------------
# Running a battle through the battle procedure
# ------------------------------------------------------------------------------------------------
def battle_unit(state: GameState, uid: str) -> Unit:
    """The battle engine's view of a game unit (counter values, markers, options in force)."""
    sc = state.scenario
    if uid.startswith(GARRISON):
        h = uid[len(GARRISON):]
        g = sc.board.garrisons[h]
        return Unit(id=uid, side=g.side, type="garrison", strength=g.strength, movement=0, hex=h, name="garrison")
    u = state.unit(uid)
    options = state.options
    return _battle_unit(sc, uid, u.hex, u.routed, u.square, u.fatigue, "special_units" in options,
                        "fatigue" in options)


@lru_cache(maxsize=4096)
def _battle_unit(sc, uid: str, hex_: str | None, routed, square: bool, fatigue: int, special: bool,
                 fatigue_on: bool) -> Unit:
    # keyed by value: the scenario (immutable, compared by identity), what it reads of the unit's state
    # (its place and markers), the options read. The counter's own values come from the unit's template
    # (made once per scenario, unit and option); only the place and the markers are filled in here
    fields = dict(_unit_template(sc, uid, special))
    fields["hex"] = hex_
    fields["routed"] = bool(routed) and sc.tables.rules.routed_markers      # 9.6.3
    fields["square"] = square                                               # 17.1
    fields["fatigue"] = fatigue if fatigue_on else 0                        # 16.8
    return from_fields(Unit, fields)


@lru_cache(maxsize=1024)
def _unit_template(sc, uid: str, special: bool) -> MappingProxyType:
    """Every field of a game unit's battle view (:class:`~engine.n20.units.Unit`) in field order, with its
    place and markers left at their defaults: what the counter says (16.7 colour codes with Special Units,
    16.9 command span for leaders, 16.5.2 cadres), keyed by the scenario (compared by identity), the unit
    and the option."""
    d = sc.units[uid]
    typ = {"dummy": "infantry", "cadre": "infantry"}.get(d.type, d.type)
    u = Unit(id=uid, side=d.side, type=typ, strength=d.command_span if d.type == "leader" else d.strength,
             movement=d.movement, hex=None, name=d.name, elite=d.has("elite"), guard=d.has("guard"),
             recule_exempt=d.has("no_recule"), heavy=d.has("heavy"), routed=False,
             unreliable=special and d.has("unreliable"), portuguese=d.nationality == "portuguese",
             spanish_irregular=special and d.has("irregular"), straggler=special and d.has("straggler"),
             road_bound=d.has("road_bound"), reluctant=special and d.has("reluctant"),
             light=special and d.has("light"), cossack=special and d.has("cossack"),
             cadre=d.has("cadre") or d.type == "cadre", square=False, fatigue=0)
    return MappingProxyType({f: getattr(u, f) for f in _UNIT_FIELD_NAMES})


_UNIT_FIELD_NAMES = tuple(Unit.__dataclass_fields__)


def _effective(state: GameState, b: Battle) -> Battle:
    """9.9.8: units that advanced after combat this phase neither attack nor are attacked again; units no
    longer on the map drop out."""
    def ok(uid):
        if uid.startswith(GARRISON):
            return not state.garrison_gone and uid[len(GARRISON):] not in state.occupants
        u = state.unit(uid)
        return u.status == "map" and not u.exhausted
    att = tuple(x for x in b.attackers if ok(x))
    dfd = tuple(x for x in b.defenders if ok(x))
    if att and dfd:
        att = tuple(x for x in att if all(combat_adjacent(state, hex_of(state, x), hex_of(state, d))
                                          or bombards(state, x, d) for d in dfd))
    return Battle(att, dfd)


def engine_battle(state: GameState, b: Battle, attacker_side: str, reserves: tuple[bool, bool],
                  countercharge: bool) -> EngineBattle:
    sc = state.scenario
    ids = set(b.attackers) | set(b.defenders)
    attackers = tuple(battle_unit(state, x) for x in b.attackers)
    defenders = tuple(battle_unit(state, x) for x in b.defenders)
    special, fatigue_on = state.has("special_units"), state.has("fatigue")
    # battle_unit, for every bystander on the map (read from the units directly: a resolve's state is met
    # once, so a memo entry made for it here would only push out the entries of states still in use)
    others = tuple(_battle_unit(sc, u.id, u.hex, u.routed, u.square, u.fatigue, special, fatigue_on)
                   for u in state.units if u.status == "map" and u.id not in ids)
    board = state.board
    if attacker_side == "allied" and state.fieldworks:
        board = sc.board          # 14.2: French units get no benefit from Fieldworks
    command = "auto" if state.has("leaders") and sc.tables.rules.leaders else None
    return EngineBattle(
        tables=sc.tables, attackers=attackers, defenders=defenders, attacker_side=attacker_side,
        reserves_attacker=reserves[0], reserves_defender=reserves[1], countercharge=countercharge,
        morale=state.morale, command=command,
        artillery_support="auto" if state.has("artillery_support") else 0,
        fatigue=state.has("fatigue") and sc.tables.rules.fatigue,
        reliability_checks=state.has("portuguese_reliability"),
        british_reliability_lapsed=state.reliability_exempt,
        board=board, others=others, name=f"turn {state.turn}", file="<game>",
        bombarding=frozenset(x for x in b.attackers if any(bombards(state, x, d) for d in b.defenders)))


def _reserve_allowed(state: GameState, side: str, group) -> bool:
    """12.5 with its bans: a Morale Point to spend, not every unit Routed! (9.6.3), not only stragglers
    (16.7.5), not only a garrison (9.4.4)."""
    if state.morale_of(side) < 1:
        return False
    units = [battle_unit(state, x) for x in group]
    if all(u.routed for u in units) or all(u.straggler for u in units) or all(u.type == "garrison" for u in units):
        return False
    return True


def battle_in_game(state: GameState, a: Action):
    """Procedure of one battle in play: the two reserve decisions (12.5: attacker in step B, defender in
    step C), then THE battle procedure of :mod:`engine.n20.resolution`."""
    if a.kind == "resolve":
        b = _effective(state, state.declared[a.index])
        attacker_side, cc = state.player, False
    else:
        b = a.battles[0]
        attacker_side, cc = other(state.player), True
    if not b.attackers or not b.defenders:
        yield Log("9.9.8", "nothing left to fight in this battle (advanced, broken or gone)")
        return ("void", a.index, b, None)
    res_a = res_d = False
    if _reserve_allowed(state, attacker_side, b.attackers):
        res_a = (yield Choose((False, True), rule="12.5", player=attacker_side,
                              label="attacker commits reserves (+1, one Morale Point)"))
    if _reserve_allowed(state, other(attacker_side), b.defenders):
        res_d = (yield Choose((False, True), rule="12.5", player=other(attacker_side),
                              label="defender commits reserves (+1, one Morale Point)"))
    eb = engine_battle(state, b, attacker_side, (res_a, res_d), cc)
    outcome = yield from battle_procedure(eb)
    return ("battle", a.index, b, outcome)


def _leaders(sc) -> tuple[str, ...]:
    """The scenario's leader units (16.9), for the steps of a battle's end that move or break them."""
    return _leader_ids(sc)


@lru_cache(maxsize=32)
def _leader_ids(sc) -> tuple[str, ...]:
    # keyed by the scenario (immutable, compared by identity)
    return tuple(uid for uid, d in sc.units.items() if d.type == "leader")


def _occupied_after(state: GameState, changes: dict, h: str) -> list[str]:
    """The units in hex ``h`` once ``changes`` (unit id -> new unit) are made, without making that state."""
    out = [x for x in state.occupants.get(h, ()) if x not in changes]
    out += [k for k, nu in changes.items() if nu.status == "map" and nu.hex == h]
    return out


def finish_battle(state: GameState, a: Action, result) -> GameState:
    """Apply a battle's :class:`~engine.n20.outcome.Outcome` to the game state: every unit change of the
    battle (fates, the 9.9.1 safety net, leaders 16.9.4 and 6.3) is worked out first and made in one
    step, then the counters of the phase and the morale levels in another."""
    _, index, b, outcome = result
    sc = state.scenario
    scalars = {}
    if a.kind == "resolve":
        scalars["done_battles"] = state.done_battles + (index,)
    else:
        scalars["reacted"] = state.reacted + tuple(b.attackers)
    if outcome is None:
        return replace(state, **scalars)
    marker_colour = other(state.player)     # 9.6.3: the side whose player turn it is not
    fighting = state.has("fatigue")
    specials = state.has("special_units")
    changes = {}
    moved_to = {}
    broken_in_retreat = set()
    advanced = []
    for f in outcome.fates:
        if f.unit.startswith(GARRISON):
            if f.fate == Fate.DESTROYED:
                scalars["garrison_gone"] = True
            continue
        u = state.unit(f.unit)
        d = sc.units[f.unit]
        ch = {"fought": True}        # what changes, later entries over earlier ones; the unit made once
        if f.fatigue is not None and fighting:
            ch["fatigue"] = f.fatigue
        if f.fate in (Fate.BROKEN, Fate.DESTROYED):
            gone = f.fate == Fate.DESTROYED or (d.has("straggler") and specials)
            if d.has("cadre") or d.type == "cadre":
                ch.update(status="pool", hex=None, routed=None, fatigue=0, square=False)   # 16.5.2
            else:
                ch.update(status="gone" if gone else "broken", hex=None, routed=None, square=False)
            if f.hexes or f.routed or outcome.result.endswith(("DR", "DW", "AR", "AW")):
                broken_in_retreat.add(u.hex)
            moved_to[u.hex] = None
        elif f.fate in (Fate.WITHDREW, Fate.ROUTED):
            ch["hex"] = f.end_hex or u.hex
            ch["square"] = False
            if f.marker:
                ch["routed"] = marker_colour             # 9.6.3
            moved_to[u.hex] = ch["hex"]
        else:  # held
            if f.advanced and f.end_hex:
                ch["hex"] = f.end_hex
                ch["exhausted"] = True                   # 9.9.8
                advanced.append(f.unit)
        changes[f.unit] = replace(u, **ch)
    # Safety net (the battle procedure itself now ends each advance path before hexes that a later retreat
    # of the same battle filled, 9.9.1): should an advance still share a hex, it stops where it began.
    fixes = {}
    for uid in advanced:
        nu = changes[uid]
        if any(x != uid and sc.units[x].type != "leader" for x in _occupied_after(state, changes, nu.hex)):
            fixes[uid] = replace(nu, hex=state.unit(uid).hex, exhausted=False)
    changes.update(fixes)
    # 16.9.4: a leader stacked with a retreating unit goes with it, and breaks with it (leaders never fight,
    # 16.9, so no fate above moved one)
    leaders = [state.unit(x) for x in _leaders(sc)]
    for u in leaders:
        if u.status != "map" or u.hex not in moved_to:
            continue
        dest = moved_to[u.hex]
        if dest is None and u.hex in broken_in_retreat:
            changes[u.id] = replace(u, status="broken", hex=None)
        elif dest is not None:
            changes[u.id] = replace(u, hex=dest)
    # a leader left alone in a hex an enemy entered is broken (it cannot share a hex with the enemy, 6.3)
    broken_leaders = {}
    for u in leaders:
        u = changes.get(u.id, u)
        if u.status != "map":
            continue
        side = sc.units[u.id].side
        if any(sc.units[x].side != side for x in _occupied_after(state, changes, u.hex)):
            broken_leaders[u.id] = replace(u, status="broken", hex=None)
    changes.update(broken_leaders)
    st = state.with_units(changes, carry=False)     # a step on the way: the counters of the phase change next
    if outcome.morale_after is not None:
        scalars["morale"] = tuple(sorted(dict(outcome.morale_after).items()))
    if outcome.reliability_lapsed:
        scalars["reliability_exempt"] = True
    if outcome.garrison_destroyed:
        scalars["garrison_gone"] = True
    if state.player not in st.battle_rolls:
        scalars["battle_rolls"] = st.battle_rolls + (state.player,)
    return check_victory(replace(st, **scalars))
