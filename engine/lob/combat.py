"""Combat (rule 5): pre-combat, combat rounds, retreats and the post-combat morale.

Written once as procedures (generators yielding :mod:`engine.core.procedure` requests):

* :func:`combat` -- the whole of 5.1-5.3 for one attack (or a 5.3.1 cavalry charge);
* :func:`rounds` -- 5.2.1 to 5.2.5: one round's roll as a sub-procedure (:func:`round_roll`), then the
  decisions and the repeat as another (:func:`after_round`), which calls :func:`rounds` again through
  ``Sub(key=<combat state>)`` so exact enumeration memoises every state of a long duel.

Decisions are :class:`Choose` requests whose ``context`` is a :class:`Decision` (role, kind, the
fight); play answers them from a player or bot, odds from a named policy (:mod:`.policies`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache, partial

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log, Roll, Sub

from .fire import FireSetup, artillery_fire
from .tables import Tables, default_tables
from .units import ART, CAV, INF, Unit

__all__ = ["Retreat", "CombatContext", "Fight", "End", "CombatResult", "Decision", "combat", "rounds",
           "round_roll", "after_round", "roll_modifier", "round_hits", "retreat_sets", "retreat_set", "ATTACKER",
           "DEFENDER"]

ATTACKER, DEFENDER = "attacker", "defender"


# ------------------------------------------------------------------------------------------------
# Values
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, order=True)
class Retreat:
    """An area a unit may retreat to, with what lies on the border crossed to reach it."""

    area: str
    close: bool = False
    water: str | None = None      # river | stream
    crossing: str | None = None   # bridge | ford


@dataclass(frozen=True)
class CombatContext:
    """What stays fixed during one combat: where, from where, terrain, retreat routes, options."""

    target: str
    origin: str
    attacker_side: str = "French"
    defender_side: str = "Allied"
    target_close: bool = False
    target_town: bool = False
    target_open: bool = True            # squares may form only in open terrain (4.2.2)
    origin_close: bool = False          # 5.2.1 g
    origin_terrain: str = "clear"       # terrain of the attackers' area (5.1.3 fire ignores it: docs/lob.md)
    approach: bool = False              # an approach lies on the border crossed (origin-target)
    water: str | None = None            # river / stream on the border crossed (Albuera terrain 6-8)
    crossing: str | None = None
    defender_retreats: tuple[Retreat, ...] = ()   # 5.1.2: free of enemies, not the attacker's origin
    cavalry_retreats: tuple[Retreat, ...] = ()    # 5.2.2: attacker cavalry, free of enemies
    origin_retreat: Retreat | None = None         # 5.2.2: attacker infantry go back where they came from
    approach_holders: tuple[str, ...] = ()        # units already on the approach of the border crossed
    charge: bool = False                # 5.3.1: straight to the rounds
    rain: bool = False                  # scenario option 5 (rain squall)
    att_traits: frozenset = frozenset() # 7.1.2 attributes of leaders with the attackers (inspiring, ...)
    dfn_traits: frozenset = frozenset() # ... and with the defenders
    tables: Tables = field(default_factory=default_tables, compare=False, repr=False)

    def __post_init__(self):
        if self.origin_retreat is None:
            object.__setattr__(self, "origin_retreat", Retreat(self.origin, self.origin_close, self.water,
                                                               self.crossing))
        self._derive_key()

    def __getstate__(self):
        # a string hashes differently in another process (a Dask worker, a page's child process): the
        # key's hash is made again there, never carried over
        return {k: v for k, v in self.__dict__.items() if k not in ("_key", "_hash")}

    def __setstate__(self, state):
        for k, v in state.items():
            object.__setattr__(self, k, v)
        self._derive_key()

    def _derive_key(self):
        key = (self.target, self.origin, self.attacker_side, self.target_close, self.target_town,
               self.target_open, self.origin_close, self.origin_terrain, self.approach, self.water, self.crossing,
               self.defender_retreats, self.cavalry_retreats, self.origin_retreat, self.approach_holders, self.charge,
               self.rain, self.att_traits, self.dfn_traits,
               self.tables.fingerprint)
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return isinstance(other, CombatContext) and self._key == other._key

    @property
    def key(self):
        return self._key


@dataclass(frozen=True)
class Fight:
    """The changing state of a combat in its rounds: units still in it, the two leads, first roll or not."""

    att: tuple[Unit, ...]
    dfn: tuple[Unit, ...]
    att_lead: str | None
    dfn_lead: str | None
    first: bool = True
    entered: frozenset = frozenset()   # (role, area): where a side's units retreated during this fight

    def __hash__(self):
        # equal fights have equal keys (the key reads some of the fields): the same contract as the
        # generated hash, without hashing every field of every unit (results are hashed at each lookup)
        return hash(self.key())

    def key(self):
        k = self.__dict__.get("_k")
        if k is None:
            k = self._make_key()
            object.__setattr__(self, "_k", k)
        return k

    def _make_key(self):
        # every unit field that can matter (the same ids may name other units in another combat)
        return (tuple((u.uid, u.side, u.kind, u.cav, u.rating, u.hits, u.approach, u.square) for u in self.att),
                tuple((u.uid, u.side, u.kind, u.cav, u.rating, u.hits, u.approach, u.square, u.deployed, u.arty)
                      for u in self.dfn),
                self.att_lead, self.dfn_lead, self.first, self.entered)

    def routes(self, ctx: "CombatContext", role: str) -> tuple:
        """Retreat areas still free of the other side (units that retreated earlier in this fight count)."""
        other = DEFENDER if role == ATTACKER else ATTACKER
        blocked = {a for r, a in self.entered if r == other}
        pool = ctx.defender_retreats if role == DEFENDER else ctx.cavalry_retreats
        return tuple(r for r in pool if r.area not in blocked)

    def after_retreat(self, role: str, moved) -> "Fight":
        new = {(role, u.area) for u in moved if u.area is not None}
        return replace(self, entered=self.entered | new) if new - self.entered else self

    def unit(self, uid: str) -> Unit:
        for u in self.att + self.dfn:
            if u.uid == uid:
                return u
        raise KeyError(uid)

    @property
    def a(self) -> Unit:
        return self.unit(self.att_lead)

    @property
    def d(self) -> Unit:
        return self.unit(self.dfn_lead)

    def combat_units(self, role: str) -> tuple[Unit, ...]:
        return tuple(u for u in (self.att if role == ATTACKER else self.dfn) if u.is_combat)


@dataclass(frozen=True)
class Decision:
    """The context of a combat :class:`Choose`: who decides what, in which fight (for policies)."""

    role: str
    kind: str
    ctx: CombatContext
    fight: Fight | None = None
    extra: tuple = ()

    def __hash__(self):
        return hash((self.role, self.kind, self.ctx, self.fight.key() if self.fight else None, self.extra))


@dataclass(frozen=True)
class End:
    """Result of :func:`rounds`: the final state of the units that were in the fight, and the winner."""

    units: tuple[Unit, ...]
    winner: str

    def __hash__(self):
        # equal ends have equal ids, hits and winner: the generated hash's contract, at a fraction of its
        # cost (a result of the rounds is hashed at every memo and tree lookup)
        return hash((self.winner, tuple([(u.uid, u.hits) for u in self.units])))


@dataclass(frozen=True)
class CombatResult:
    """The whole combat's outcome: every participant's final state (sorted by id) and how it ended."""

    units: tuple[Unit, ...]
    winner: str                 # attacker | defender
    stage: str                  # retreat-before-combat | repulsed | feint | artillery | rounds
    target: str
    attacker_side: str
    defender_side: str
    capture_point: bool         # 5.3: +1 morale for taking the area

    @property
    def taken(self) -> bool:
        return self.winner == ATTACKER and any(u.side == self.attacker_side and u.area == self.target
                                               for u in self.units)

    def unit(self, uid: str) -> Unit:
        for u in self.units:
            if u.uid == uid:
                return u
        raise KeyError(uid)

    def morale(self) -> dict[str, int]:
        """Morale change per side (5.3): minus the rating of each eliminated unit (artillery 1), +1 capture."""
        out = {self.attacker_side: 0, self.defender_side: 0}
        for u in self.units:
            if u.eliminated:
                out[u.side] -= u.morale_value
        if self.taken and self.capture_point:
            out[self.attacker_side] += 1
        return out

    def winner_side(self) -> str:
        return self.attacker_side if self.winner == ATTACKER else self.defender_side

    def charge_units(self) -> tuple[Unit, ...]:
        """Cavalry of the winner, strength 1+, in the combat area, after rounds were fought (5.3, 5.3.1)."""
        if self.stage != "rounds":
            return ()
        side = self.winner_side()
        return tuple(u for u in self.units if u.side == side and u.kind == CAV and u.area == self.target
                     and u.strength >= 1)

    def to_json(self) -> dict:
        return {"winner": self.winner, "stage": self.stage, "taken": self.taken,
                "morale": self.morale(), "units": [u.to_json() for u in self.units]}


# ------------------------------------------------------------------------------------------------
# Helpers (pure)
# ------------------------------------------------------------------------------------------------
def _upd(units: tuple[Unit, ...], new: Unit) -> tuple[Unit, ...]:
    return tuple(new if u.uid == new.uid else u for u in units)


def _drop(units: tuple[Unit, ...], uid: str) -> tuple[Unit, ...]:
    return tuple(u for u in units if u.uid != uid)


def _sorted(units) -> tuple[Unit, ...]:
    return tuple(sorted(units, key=lambda u: u.uid))


def roll_modifier(ctx: CombatContext, f: Fight, role: str) -> int:
    """The modifiers a-h of 5.2.1 (plus the town, river/stream and rain squall ones) for one side's lead."""
    t = ctx.tables.combat
    me, foe = (f.a, f.d) if role == ATTACKER else (f.d, f.a)
    m = me.strength                                                      # 5.2.1 a
    if me.kind == INF and foe.kind == CAV and foe.cav == "light":
        m += t.infantry_vs_light_cavalry                                 # 5.2.1 b
    if me.kind == CAV and me.cav == "heavy" and foe.kind == CAV and foe.cav in ("light", "lancer"):
        m += t.heavy_vs_light_or_lancer                                  # 5.2.1 c
    if me.kind == INF:
        if role == DEFENDER and me.approach == ctx.origin:
            m += t.infantry_on_approach                                  # 5.2.1 d (every roll, defender)
        if role == ATTACKER and f.first and me.approach == ctx.target:
            m += t.infantry_on_approach                                  # 5.2.1 d (first roll, attacker)
    if me.kind == INF and me.square and foe.kind == CAV:
        m += t.square_vs_cavalry                                         # 5.2.1 e
    if me.kind == INF and not me.square and foe.kind == INF and foe.square:
        m += t.infantry_vs_square                                        # 5.2.1 f
    if role == DEFENDER and f.first and ctx.origin_close:
        m += t.attacker_from_close                                       # 5.2.1 g
    if me.kind == INF and foe.kind == CAV and ctx.target_close:
        m += t.infantry_vs_cavalry_in_close                              # 5.2.1 h
    if role == DEFENDER and me.kind == INF and ctx.target_town:
        m += ctx.tables.terrain.town_infantry_defence                    # Albuera terrain 2
    if role == DEFENDER and f.first and ctx.water == "river":
        m += ctx.tables.terrain.river_defence_first_roll                 # Albuera terrain 6, 8
    if role == DEFENDER and f.first and ctx.water == "stream":
        m += ctx.tables.terrain.stream_defence_first_roll                # Albuera terrain 7, 8
    if ctx.rain and me.kind == CAV and foe.kind == INF:
        m += ctx.tables.optional.rain_cavalry_vs_infantry                # scenario option 5
    if f.first:
        mine, theirs = (ctx.att_traits, ctx.dfn_traits) if role == ATTACKER else (ctx.dfn_traits, ctx.att_traits)
        if "inspiring" in mine:
            m += 1                                                       # 7.1.2 inspiring
        if "demoralising" in theirs:
            m += 1                                                       # 7.1.2 demoralising (the enemy's leader)
    return m


def round_hits(ctx: CombatContext, a: Unit, d: Unit, att_total: int, dfn_total: int) -> tuple[int, int, str]:
    """Hits (on the attacking lead, on the defending lead) and the winner, from the modified rolls (5.2.1)."""
    winner = ATTACKER if att_total > dfn_total else DEFENDER           # 5.2.1: the defender wins a draw
    diff = abs(att_total - dfn_total)
    # 5.2.1 NB: in close terrain cavalry count as infantry for the hits
    a_cav = a.kind == CAV and not ctx.target_close
    d_cav = d.kind == CAV and not ctx.target_close
    if not a_cav and not d_cav:                                         # infantry versus infantry
        return (1, 0, winner) if winner == DEFENDER else (0, 1, winner)
    if a_cav and d_cav:                                                 # cavalry versus cavalry
        lose = max(1, diff)
        return (lose, 1, winner) if winner == DEFENDER else (1, lose, winner)
    cav_won = (winner == ATTACKER) == a_cav                             # cavalry versus infantry
    big = ctx.tables.combat.cavalry_loser_hits_when_infantry_wins
    if cav_won:
        inf_hits, cav_hits = max(1, diff), 1
    else:
        inf_hits, cav_hits = 1, big
    return (cav_hits, inf_hits, winner) if a_cav else (inf_hits, cav_hits, winner)


# ------------------------------------------------------------------------------------------------
# Sub-steps written as procedures (they may roll or ask)
# ------------------------------------------------------------------------------------------------
def _choose_lead(ctx: CombatContext, f: Fight, role: str):
    """5.1.1: nominate a lead. Returns (fight, note). Attacker: the unit on the approach facing the
    defender if any, else any. Defender: by the priority order 1-4."""
    if role == ATTACKER:
        pool = f.combat_units(ATTACKER)
        if not pool:
            return replace(f, att_lead=None)
        forced = [u for u in pool if u.kind == INF and u.approach == ctx.target]
        opts = forced or sorted(pool, key=lambda u: (-u.strength, u.uid))
        if len(opts) == 1:
            return replace(f, att_lead=opts[0].uid)
        uid = yield Choose(tuple(u.uid for u in opts), rule="5.1.1", player=ctx.attacker_side,
                           label="attacker nominates a lead unit", context=Decision(ATTACKER, "lead", ctx, f))
        return replace(f, att_lead=uid)
    pool = f.combat_units(DEFENDER)
    if not pool:
        return (replace(f, dfn_lead=None), ())
    tiers = [
        ("5.1.1 priority 1", [u for u in pool if u.approach == ctx.origin]),
        ("5.1.1 priority 2", [u for u in pool if (u.kind == INF and u.approach is None and not u.square)
                              or u.kind == CAV]),
        ("5.1.1 priority 3", [u for u in pool if u.kind == INF and u.approach is None and u.square]),
        ("5.1.1 priority 4", [u for u in pool if u.kind == INF and u.approach not in (None, ctx.origin)]),
    ]
    for i, (rule, opts) in enumerate(tiers):
        if not opts:
            continue
        opts = sorted(opts, key=lambda u: (-u.strength, u.uid))
        if len(opts) == 1:
            uid = opts[0].uid
        else:
            uid = yield Choose(tuple(u.uid for u in opts), rule="5.1.1", player=ctx.defender_side,
                               label=f"defender nominates a lead unit ({rule})",
                               context=Decision(DEFENDER, "lead", ctx, f))
        if i == 3:
            # priority 4: caught on another approach, it steps into the area and takes a hit
            u = f.unit(uid)
            moved = u.moved(ctx.target).hit(ctx.tables.retreat.wrong_approach_hits)
            yield Log("5.1.1", f"{uid} leaves its approach to lead and takes a hit")
            if moved.eliminated:
                f = replace(f, dfn=_drop(f.dfn, uid))
                nf, more = yield from _choose_lead(ctx, f, DEFENDER)
                return (nf, (moved,) + tuple(more))
            return (replace(f, dfn=_upd(f.dfn, moved), dfn_lead=uid), ())
        return (replace(f, dfn_lead=uid), ())
    return (replace(f, dfn_lead=None), ())


def _pick_dest(ctx: CombatContext, f: Fight | None, role: str, unit: Unit, options: tuple[Retreat, ...]):
    if len(options) == 1:
        return options[0]
    side = ctx.attacker_side if role == ATTACKER else ctx.defender_side
    area = yield Choose(tuple(r.area for r in options), rule="5.1.2" if role == DEFENDER else "5.2.2",
                        player=side, label=f"retreat {unit.uid} to",
                        context=Decision(role, "retreat-to", ctx, f, (unit.uid, unit.kind, options)))
    return next(r for r in options if r.area == area)


def _defender_retreat(ctx: CombatContext, f: Fight, units: tuple[Unit, ...], lead_uid: str | None,
                      rule: str):
    """Retreat defending units as in 5.1.2 (also 5.2.3). Returns the units' new states."""
    r, terr, opt = ctx.tables.retreat, ctx.tables.terrain, ctx.tables.optional
    att_lead_cav = f.att_lead is not None and f.a.kind == CAV
    out = []
    for u in units:
        dests = f.routes(ctx, DEFENDER)
        if not dests:
            # nowhere to go: artillery is eliminated (5.2.3); others cannot be ordered to retreat
            out.append(u.hit(1) if u.kind == ART else u)
            continue
        dest = yield from _pick_dest(ctx, f, DEFENDER, u, dests)
        if u.kind == ART:
            roll = yield Roll("d6", rule=rule, label=f"artillery {u.uid} retreat roll")
            m = 0
            if not u.deployed:
                m += r.artillery_limbered                              # 5.1.2: +2 limbered
            if att_lead_cav:
                m += r.artillery_vs_cavalry_lead                       # 5.1.2: -2 lead attacker cavalry
            if dest.close:
                m += r.artillery_to_close                              # 5.1.2: -2 into close terrain
            if dest.water and dest.crossing:
                m += terr.crossing_artillery_retreat                   # Albuera terrain 8
            elif dest.water == "river":
                m += terr.river_artillery_retreat                      # Albuera terrain 6
            elif dest.water == "stream":
                m += terr.stream_artillery_retreat                     # Albuera terrain 7
            if u.arty == "horse":
                m += opt.horse_artillery_retreat                       # 7.2.1
            if u.arty == "heavy":
                m += opt.heavy_artillery_retreat                       # 7.2.2
            survives = roll + m >= r.artillery_survives_from
            yield Log(rule, f"{u.uid} retreat roll {roll}{m:+d} = {roll + m}: "
                            f"{'limbers and escapes' if survives else 'is lost'}")
            out.append(replace(u, area=dest.area, deployed=False) if survives else u.hit(1))
            continue
        hits = 0
        if u.approach is not None and u.approach != ctx.origin:
            hits += r.wrong_approach_hits                              # 5.1.2: caught on another approach
        if u.kind == CAV and dest.close:
            hits += r.cavalry_to_close_hits                            # 5.1.2: cavalry into close terrain
        if u.uid == lead_uid:
            lead = r.lead_hits                                         # 5.1.2: the lead takes 1 hit
            if att_lead_cav:
                lead += r.lead_hits_if_attacker_cavalry                #   +1 against a cavalry lead
            if u.kind == CAV:
                lead += r.lead_hits_if_lead_cavalry                    #   -1 when the lead is cavalry
            hits += max(0, lead)
        if dest.water == "river" and not dest.crossing:
            hits += 1                                                  # Albuera terrain 6 (not at a bridge/ford, 8)
        square = u.square and not dest.close
        out.append(u.hit(hits).moved(dest.area, None, square) if not u.hit(hits).eliminated else u.hit(hits))
    return tuple(out)


def _attacker_retreat(ctx: CombatContext, f: Fight, units: tuple[Unit, ...], to_origin: bool = False):
    """5.2.2: infantry go back to the origin, cavalry anywhere free (hit if close); 5.1.3: back to the origin."""
    out = []
    for u in units:
        if u.kind == CAV and f.routes(ctx, ATTACKER) and not to_origin:
            dest = yield from _pick_dest(ctx, f, ATTACKER, u, f.routes(ctx, ATTACKER))
        else:
            dest = ctx.origin_retreat
        hits = 0
        if u.kind == CAV and dest.close:
            hits += ctx.tables.retreat.cavalry_to_close_hits           # 5.2.2: cavalry into close terrain
        if dest.water == "river" and not dest.crossing:
            hits += 1                                                  # Albuera terrain 6
        v = u.hit(hits)
        out.append(v if v.eliminated else v.moved(dest.area, None, u.square and not dest.close))
    return tuple(out)


def _pull_back(ctx: CombatContext, f: Fight, rule: str, a_cav: bool):
    """All attackers gone back (feint 5.1.4, break-off 5.2.2): the lead defender, if infantry, goes onto
    the approach facing the attackers' area, or forms square against a cavalry lead. Returns the new defender lead unit."""
    d = f.d if f.dfn_lead else None
    if d is None or d.kind != INF:
        return f
    options = []
    if ctx.approach:
        options.append("approach")       # onto the approach facing the attackers' area
    if a_cav and ctx.target_open:
        options.append("square")         # only against a cavalry lead, only in open terrain
    if rule == "5.2.2" and not ctx.approach and options:
        options.insert(0, "stay")        # 5.2.2: the square is optional
    if not options:
        return f
    if len(options) == 1:
        choice = options[0]
    else:
        choice = yield Choose(tuple(options), rule=rule, player=ctx.defender_side,
                              label="lead defender takes the approach, forms square, or stays",
                              context=Decision(DEFENDER, "pull-back", ctx, f))
    if choice == "approach":
        nd = replace(d, approach=ctx.origin, square=False)
    elif choice == "square":
        nd = replace(d, approach=None, square=True)
    else:
        return f
    return replace(f, dfn=_upd(f.dfn, nd))


# ------------------------------------------------------------------------------------------------
# The combat rounds (5.2.1 - 5.2.5)
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _AfterRoll:
    """The state after one combat roll and its hits (the input of the decisions of 5.2.2-5.2.4)."""

    fight: Fight
    gone: tuple[Unit, ...]
    winner: str
    att_total: int = 0
    dfn_total: int = 0
    first_round: bool = False

    def key(self):
        return (self.fight.key(), self.gone, self.winner, self.first_round)

    def __hash__(self):
        return hash(self.key())      # equal states have equal keys (see Fight.__hash__)


#: per fight state (context, fight key): the two leads' modifiers (5.2.1 a-h and the terrain ones), the
#: leads, and the state after the roll for each (hits on the attacking lead, hits on the defending lead,
#: winner): a roll leads to a handful of those, so each is built once (keys are values)
_ROLL_CACHE: dict = {}
ROLL_CACHE_STATES = 50_000


def _roll_state(ctx: CombatContext, f: Fight) -> tuple:
    key = (ctx, f.key())
    hit = _ROLL_CACHE.get(key)
    if hit is None:
        if len(_ROLL_CACHE) > ROLL_CACHE_STATES:
            _ROLL_CACHE.clear()
        hit = _ROLL_CACHE[key] = (roll_modifier(ctx, f, ATTACKER), roll_modifier(ctx, f, DEFENDER), f.a, f.d, {})
    return hit


def _roll_dice(ctx: CombatContext, a: Unit, d: Unit, ma: int, md: int):
    """5.2.1: the two dice, the modified totals, and what they do: (hits on the attacking lead, hits on
    the defending lead, winner). Everything it reads is in its key (see :func:`round_roll`): the leads'
    ids and kinds, the two modifiers, close terrain (5.2.1 NB) and the tables."""
    ra = yield Roll("d6", rule="5.2.1", label="attacker combat roll")
    rd = yield Roll("d6", rule="5.2.1", label="defender combat roll")
    ta, td = ra + ma, rd + md
    ha, hd, winner = round_hits(ctx, a, d, ta, td)
    yield Log("5.2.1", f"{a.uid} {ra} -> {ta}, {d.uid} {rd} -> {td}: "
                       f"{winner} wins", {"attacker": [ra, ta], "defender": [rd, td]})
    return (ha, hd, winner)


def round_roll(ctx: CombatContext, f: Fight):
    """5.2.1: both sides roll a d6, add modifiers, the hits are applied. Returns :class:`_AfterRoll`.

    The dice are an inline step of their own (the record is the same) keyed by what they read, not by
    the whole fight: fights with the same leads and modifiers share their odds."""
    ma, md, a, d, outs = _roll_state(ctx, f)
    ha, hd, winner = yield Sub(("dice", a.uid, a.kind, d.uid, d.kind, ma, md, ctx.target_close,
                                ctx.tables.fingerprint), partial(_roll_dice, ctx, a, d, ma, md),
                               rule="5.2.1", label="combat dice", inline=True)
    out = outs.get((ha, hd, winner))
    if out is None:
        na, nd = a.hit(ha), d.hit(hd)
        gone = tuple(u for u in (na, nd) if u.eliminated)
        att = _drop(f.att, a.uid) if na.eliminated else _upd(f.att, na)
        dfn = _drop(f.dfn, d.uid) if nd.eliminated else _upd(f.dfn, nd)
        nf = Fight(att, dfn, None if na.eliminated else a.uid, None if nd.eliminated else d.uid, False, f.entered)
        out = outs[ha, hd, winner] = _AfterRoll(nf, _sorted(gone), winner, first_round=f.first)
    return out


def _finish_defender_gone(ctx: CombatContext, f: Fight, gone: list, lead_hit: bool):
    """The defenders' combat units are all gone: artillery left must retreat (5.1.2, 5.2.3); the
    attackers occupy the area; the lead attacker takes a hit unless only artillery was left."""
    arts = tuple(u for u in f.dfn if u.kind == ART)
    if arts:
        moved = yield from _defender_retreat(ctx, f, arts, None, "5.2.3")
        gone.extend(moved)
    att = []
    for u in f.att:
        v = u
        if lead_hit and u.uid == f.att_lead:
            v = v.hit(ctx.tables.retreat.lead_hits)                  # 5.1.2: occupying costs the lead a hit
        if not v.eliminated:
            v = v.moved(ctx.target, None, v.square and ctx.target_open)
        att.append(v)
    return End(_sorted(gone + att), ATTACKER)


def _finish_attacker_gone(ctx: CombatContext, f: Fight, gone: list):
    """No attackers left: the defenders keep the area (and the lead defender may step forward)."""
    return End(_sorted(gone + list(f.dfn)), DEFENDER)


# 5.2.2 / 5.2.3: beyond this many units besides the lead, only the lead alone, the lead with one other
# unit, or everyone are offered (2**6 = 64 sets at most; an Albuera area holds 6 units)
MAX_RETREAT_SET_OTHERS = 6


def retreat_sets(others: tuple[str, ...]) -> tuple[str, ...]:
    """The retreat choices of 5.2.2 / 5.2.3 besides "stay": every set of units that includes the lead.

    "lead" is the lead alone, "all" every unit of the side, and "lead+X+Y" the lead with X and Y (ids
    sorted); sets are listed smallest first."""
    from itertools import combinations
    others = tuple(sorted(others))
    if not others:
        return ("all",)
    sizes = range(1, len(others)) if len(others) <= MAX_RETREAT_SET_OTHERS else (1,)
    mixed = tuple("lead+" + "+".join(c) for k in sizes for c in combinations(others, k)
                  if k < len(others))
    return ("lead",) + mixed + ("all",)


def retreat_set(choice: str, lead: str, units: tuple[Unit, ...]) -> tuple[Unit, ...]:
    """The units a 5.2.2 / 5.2.3 answer sends back (the lead first)."""
    if choice == "all":
        return units
    names = {lead} | (set(choice.split("+")[1:]) if choice.startswith("lead+") else set())
    return tuple(u for u in units if u.uid in names)


@lru_cache(maxsize=4096)         # asked after every roll of every combat with the same few arguments
def _retreat_options(traits: frozenset, others: tuple[str, ...], first_round: bool) -> tuple[str, ...]:
    """5.2.2 / 5.2.3 choices (stay, or any set with the lead), narrowed by 7.1.2: foaming leaders never
    retreat; fearful ones always pull back after the first round."""
    opts = ("stay",) + retreat_sets(others)
    if "foaming" in traits:
        return ("stay",)
    if "fearful" in traits and first_round:
        return tuple(o for o in opts if o != "stay")
    return opts


@dataclass(frozen=True)
class _Next:
    """The decisions after a roll are made and both sides fight on (5.2.5): the fight as it goes into
    the next round, and the units that left it after that roll."""

    fight: Fight
    gone: tuple[Unit, ...]

    def __hash__(self):
        return hash((self.fight.key(), self.gone))     # equal states have equal keys (see Fight.__hash__)


def after_round(ctx: CombatContext, ar: _AfterRoll):
    """5.2.2 - 5.2.5 after a roll: new leads, attacker then defender retreats, replacement, repeat.

    The decisions are a step of their own (an inline sub-procedure: the record is the same), so that
    the drivers, which continue a procedure from its start for each outcome of its last sub-procedure
    (the next round's many ends), go over a two-step procedure, not over every decision again."""
    nxt = yield Sub(("decide", ctx, ar.key()), partial(_decisions, ctx, ar), rule="5.2.2",
                    label="retreats and replacement", inline=True)
    if isinstance(nxt, End):
        return nxt
    end = yield Sub(("rounds", ctx, nxt.fight.key()), partial(rounds, ctx, nxt.fight), rule="5.2.5",
                    label="next combat round")
    return End(_sorted(nxt.gone + end.units), end.winner)


def _decisions(ctx: CombatContext, ar: _AfterRoll):
    """5.2.2 - 5.2.4 after a roll: new leads, attacker then defender retreats, replacement. Returns the
    :class:`End` when one side is gone, else the :class:`_Next` round's state (5.2.5)."""
    f, gone = ar.fight, list(ar.gone)
    if not f.combat_units(ATTACKER):
        return _finish_attacker_gone(ctx, f, gone)
    if not f.combat_units(DEFENDER):
        return (yield from _finish_defender_gone(ctx, f, gone, lead_hit=False))
    # IMPORTANT (5.1.1): a lost lead is replaced at once, attacker first
    if f.att_lead is None:
        f = yield from _choose_lead(ctx, f, ATTACKER)
    if f.dfn_lead is None:
        f, lost = yield from _choose_lead(ctx, f, DEFENDER)
        gone.extend(lost)
        if f.dfn_lead is None:
            return (yield from _finish_defender_gone(ctx, f, gone, lead_hit=False))
    # 5.2.2 attacker retreats: the lead and any others it wants
    others = tuple(u.uid for u in f.combat_units(ATTACKER) if u.uid != f.att_lead)
    opts = _retreat_options(ctx.att_traits, others, ar.first_round)
    choice = yield Choose(opts, rule="5.2.2", player=ctx.attacker_side,
                          label="attacker: stay, pull back the lead (with any others), or break off",
                          context=Decision(ATTACKER, "retreat", ctx, f, (ar.winner,)))
    if choice != "stay":
        leaving = retreat_set(choice, f.att_lead, f.att)
        moved = yield from _attacker_retreat(ctx, f, leaving)
        gone.extend(moved)
        f = f.after_retreat(ATTACKER, moved)
        left = tuple(u for u in f.att if u.uid not in {m.uid for m in moved})
        if not left:
            a_cav = f.a.kind == CAV
            f = replace(f, att=(), att_lead=None)
            f = yield from _pull_back(ctx, f, "5.2.2", a_cav)
            return _finish_attacker_gone(ctx, f, gone)
        f = replace(f, att=left, att_lead=None)
        f = yield from _choose_lead(ctx, f, ATTACKER)
    # 5.2.3 defender retreats (the lead and any others)
    can_go = bool(f.routes(ctx, DEFENDER))
    if can_go:
        others = tuple(u.uid for u in f.combat_units(DEFENDER) if u.uid != f.dfn_lead)
        opts = _retreat_options(ctx.dfn_traits, others, ar.first_round)
        choice = yield Choose(opts, rule="5.2.3", player=ctx.defender_side,
                              label="defender: stay, pull back the lead (with any others), or give up the area",
                              context=Decision(DEFENDER, "retreat", ctx, f, (ar.winner,)))
        if choice == "all":
            moved = yield from _defender_retreat(ctx, f, f.dfn, f.dfn_lead, "5.2.3")
            gone.extend(moved)
            f = replace(f, dfn=())
            return (yield from _finish_defender_gone(ctx, f, gone, lead_hit=True))
        if choice != "stay":
            # 5.2.3: part of the side goes (as in 5.1.2); the rest hold the area and name a new lead
            leaving = retreat_set(choice, f.dfn_lead, f.dfn)
            moved = yield from _defender_retreat(ctx, f, leaving, f.dfn_lead, "5.2.3")
            gone.extend(moved)
            names = {u.uid for u in leaving}
            f = replace(f.after_retreat(DEFENDER, moved), dfn=tuple(u for u in f.dfn if u.uid not in names),
                        dfn_lead=None)
            f, lost = yield from _choose_lead(ctx, f, DEFENDER)
            gone.extend(lost)
            if f.dfn_lead is None:
                return (yield from _finish_defender_gone(ctx, f, gone, lead_hit=True))
    # 5.2.4 the defender may put a cavalry unit in as lead
    cav = tuple(u.uid for u in f.dfn if u.kind == CAV and u.strength >= 1 and u.uid != f.dfn_lead)
    if cav:
        pick = yield Choose(("keep",) + cav, rule="5.2.4", player=ctx.defender_side,
                            label="defender: keep the lead or replace it with cavalry",
                            context=Decision(DEFENDER, "replace", ctx, f))
        if pick != "keep":
            old = f.d
            if old.approach is not None:
                f = replace(f, dfn=_upd(f.dfn, replace(old, approach=None)))  # 5.2.4: off the approach
            f = replace(f, dfn_lead=pick)
    # 5.2.5 both sides still have infantry/cavalry: another round
    return _Next(f, tuple(gone))


def rounds(ctx: CombatContext, f: Fight):
    """5.2: combat rounds until one side holds the area. Returns :class:`End`."""
    ar = yield Sub(("roll", ctx, f.key()), partial(round_roll, ctx, f), rule="5.2.1", label="combat roll")
    end = yield Sub(("after", ctx, ar.key()), partial(after_round, ctx, ar), rule="5.2.2",
                    label="retreats and the next round")
    return end


# ------------------------------------------------------------------------------------------------
# The whole combat (5.1 - 5.3)
# ------------------------------------------------------------------------------------------------
def check_combat(ctx: CombatContext, attackers: tuple[Unit, ...], defenders: tuple[Unit, ...]) -> None:
    """Refuse an illegal combat before anything happens (5, 5.1.1, 1.1)."""
    if not attackers:
        raise RuleViolation("5", "a combat needs at least one attacking unit")
    if not any(u.is_combat for u in defenders) and not any(u.kind == ART for u in defenders):
        raise RuleViolation("5", f"area {ctx.target} holds no enemy unit to attack")
    for u in attackers:
        if not u.is_combat:
            raise RuleViolation("5", f"{u.uid} is artillery: only infantry and cavalry attack")
        if u.strength < 1:
            raise RuleViolation("4.2.2", f"{u.uid} has strength {u.strength}: attackers need strength 1 or more")
        if u.side != ctx.attacker_side:
            raise RuleViolation("5", f"{u.uid} is not on the attacking side ({ctx.attacker_side})")
        if u.kind == INF and u.approach not in (None, ctx.target):
            raise RuleViolation("4.2.2", f"{u.uid} is on the approach facing {u.approach}; it may join a group "
                                         f"only when the group's first move is to that area")
    for u in defenders:
        if u.side != ctx.defender_side:
            raise RuleViolation("1.1", f"{u.uid} is not on the defending side: an area holds one side only")
        if u.area != ctx.target:
            raise RuleViolation("5", f"{u.uid} is not in area {ctx.target}")
    if ctx.approach is False and any(u.approach == ctx.origin for u in defenders):
        raise RuleViolation("1.1", f"no approach between {ctx.origin} and {ctx.target}, yet a unit stands on it")
    ids = [u.uid for u in attackers + defenders]
    if len(set(ids)) != len(ids):
        raise RuleViolation("5", "a unit is listed twice in the combat")


def combat(ctx: CombatContext, attackers: tuple[Unit, ...], defenders: tuple[Unit, ...]):
    """Rule 5 from the declaration to the morale: returns a :class:`CombatResult`."""
    check_combat(ctx, attackers, defenders)
    if set(ctx.approach_holders) - {u.uid for u in attackers + defenders}:
        # 1.1: the approach is held by a unit outside this fight; nobody can be put onto it
        ctx = replace(ctx, approach=False, approach_holders=())
    f = Fight(_sorted(attackers), _sorted(defenders), None, None, True)
    gone: list[Unit] = []

    def result(end_units, winner, stage, capture=True):
        return CombatResult(_sorted(end_units), winner, stage, ctx.target, ctx.attacker_side,
                            ctx.defender_side, capture)

    # 5.1.1 leads: attacker first, then defender
    f = yield from _choose_lead(ctx, f, ATTACKER)
    f, lost = yield from _choose_lead(ctx, f, DEFENDER)
    gone.extend(lost)
    only_art = f.dfn_lead is None

    if not ctx.charge and not only_art and ctx.defender_retreats and "foaming" not in ctx.dfn_traits:
        # 5.1.2 retreat before combat: all defenders or none
        go = yield Choose(("fight", "retreat"), rule="5.1.2", player=ctx.defender_side,
                          label="defender: retreat before combat?", context=Decision(DEFENDER, "rbc", ctx, f))
        if go == "retreat":
            pure_cav = all(u.kind == CAV or (u.kind == ART and u.arty == "horse") for u in f.dfn)
            moved = yield from _defender_retreat(ctx, f, f.dfn, f.dfn_lead, "5.1.2")
            end = yield from _finish_defender_gone(ctx, replace(f, dfn=()), gone + list(moved), lead_hit=True)
            # 5.3: no point for an area given up by cavalry alone (7.2.1: or with horse artillery)
            return result(end.units, ATTACKER, "retreat-before-combat", capture=not pure_cav)

    # 5.1.3 defensive artillery (not in a charge, 5.3.1; not in rain, scenario option 5)
    if not ctx.charge and not ctx.rain:
        for gun in [u for u in f.dfn if u.kind == ART and u.deployed]:
            if not f.att:
                break
            target_uid = f.att[0].uid if len(f.att) == 1 else (yield Choose(
                tuple(u.uid for u in f.att), rule="5.1.3", player=ctx.defender_side,
                label=f"{gun.uid} fires at", context=Decision(DEFENDER, "fire-target", ctx, f)))
            tgt = f.unit(target_uid)
            setup = FireSetup(arty=gun.arty, target_kind=tgt.kind, target_square=tgt.square,
                              target_on_approach=tgt.approach == ctx.target,
                              # 5.1.3 reading: the attackers are fired on as they come on, out of
                              # their area's cover: no town -2, no wood ban (docs/lob.md)
                              target_in_town=False,
                              can_retreat=True, target_hits_left=tgt.strength + 1)
            out = yield Sub(("fire", setup, ctx.tables.fingerprint, ctx.attacker_side),
                            partial(artillery_fire, setup, ctx.tables, ctx.attacker_side,
                                    f"defensive fire of {gun.uid} at {tgt.uid}"),
                            rule="5.1.3", label=f"{gun.uid} fires at {tgt.uid}")
            hit = tgt.hit(out.hits)
            if hit.eliminated or out.retreated:
                if out.retreated and not hit.eliminated:
                    (hit,) = yield from _attacker_retreat(ctx, f, (hit,), to_origin=True)
                gone.append(hit)
                f = replace(f, att=_drop(f.att, tgt.uid))
                if f.att_lead == tgt.uid:
                    f = replace(f, att_lead=None)
                    f = yield from _choose_lead(ctx, f, ATTACKER)
            else:
                f = replace(f, att=_upd(f.att, hit))
        if not f.att:
            # 5.1.3: the guns broke the attack up
            return result(gone + list(f.dfn), DEFENDER, "repulsed", capture=False)

    if only_art:
        # 5.1.1 / 5.1.3: lone artillery must retreat; no hit on the lead attacker for taking it
        arts = [u for u in f.dfn if u.kind == ART]
        end = yield from _finish_defender_gone(ctx, f, gone, lead_hit=False)
        # 7.2.1: horse artillery that retreats on its own gives the attacker no point for the area
        escaped = any(u.uid == a.uid and not u.eliminated for u in end.units for a in arts)
        horse_only = bool(arts) and all(a.arty == "horse" for a in arts)
        return result(end.units, ATTACKER, "artillery", capture=not (horse_only and escaped))

    # 5.1.4 feint (only against an infantry lead; never in a charge)
    if not ctx.charge and f.d.kind == INF and "foaming" not in ctx.att_traits:
        feint = yield Choose(("attack", "feint"), rule="5.1.4", player=ctx.attacker_side,
                             label="attacker: press the attack or feint?",
                             context=Decision(ATTACKER, "feint", ctx, f))
        if feint == "feint":
            back = tuple(u.moved(ctx.origin, None, u.square) for u in f.att)
            f2 = yield from _pull_back(ctx, f, "5.1.4", f.a.kind == CAV)
            return result(gone + list(back) + list(f2.dfn), DEFENDER, "feint", capture=False)

    # 5.2 the rounds
    end = yield Sub(("rounds", ctx, f.key()), partial(rounds, ctx, f), rule="5.2", label="combat rounds")
    return result(gone + list(end.units), end.winner, "rounds")

