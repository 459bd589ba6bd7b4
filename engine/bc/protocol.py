"""Battle Commander on the core game protocol (issue 14): the order-cube turn enforced, registered as ``"bc"``.

A :class:`BcState` is the map position (:class:`~engine.bc.game.GameState`) plus where the turn stands: the
phase, the side to act, the cube being acted on, the Zones that already hold an Attack Token this Red cube,
the Zones rallied this Yellow cube, and the reform window after an order. Each phase allows only its actions:

* ``prepare`` (16.1): the initiative player starts the turn: the cup is filled from the commander cards with
  the daylight (13.2) and HQ + SHQ (16.1) bonuses, hands are cut to the commander's skill (enemy cards
  thrown away) and four cards are drawn each (15.0);
* ``draw`` (16.2): the initiative player draws a cube (a ``Draw`` request) and the phase follows its colour;
* ``order`` (Blue / White, 18.0): the cube's owner makes a Move Order, Ready Arms, In Reserve or a Pass;
  ``reaction`` (19.2): after a Move Order the enemy may pay a reserve cube for an order of his own;
* ``gold`` (18.0): the scenario's Gold player names the next cube or takes a card;
* ``yellow_reinf``, ``yellow_buy``, ``yellow_rally`` (Yellow, 18.0, 20.0): reinforcements, purchases, then
  rallies in turns until both pass in succession (one Rally per Zone, one Army Rally per draw);
* ``red`` (Red, 23.0): attacks in turns, initiative first, until both pass in succession; each attack spends
  an Attack Token and places it in the attacking Zone (one per Zone); ``advance`` (25.0) after an Assault
  that emptied its target;
* ``reform`` (9.2, 9.4): after a Move Order, a Rally or an Advance, the Blocks of the Zones concerned may
  swap lead and second line, change formation, and Artillery that moved must be faced again;
* ``give_ground`` (24.3, 26.0): after the last Black cube, withdrawals and surrenders in turns until both
  pass; then the next turn, or the end of the game (16.3, 17.0).

``check`` runs the very procedures ``perform`` runs (move orders, combats, rallies ...) on a dry driver, so
legality has one source; ``perform`` reuses the procedures of :mod:`engine.bc.game` and :mod:`engine.bc.combat`.
The only scenario is our own invented demonstration (``demo``): the Playbook's scenarios are not in the
rulebook.
"""
from __future__ import annotations

import typing
from collections.abc import Generator
from dataclasses import dataclass, fields, replace
from functools import lru_cache, partial
from typing import Any, Literal

from engine.core.codec import from_json, to_json
from engine.core.errors import RuleViolation, VedetteError
from engine.core.game import GameRules, Outcome, Position, RandomBot, register
from engine.core.procedure import ChanceRequest, Choose, Draw, Log, Sub

from . import game as G
from .combat import default_terrain, neutral_policy, prepare, resolve
from .cup import COLOURS, SIDE_COLOUR, Cup, RESERVE_EXTRA, TOKEN_EXTRA
from .deck import HAND_LIMIT, default_deck

__all__ = ["BcAction", "BcState", "BcRules", "GreedyBot", "KINDS", "PHASES"]

SIDES = ("french", "coalition")
ENEMY = G.ENEMY
COLOUR_SIDE = {v: k for k, v in SIDE_COLOUR.items()}
SCENARIOS = {"demo": "Vedette demonstration: the bridge at the mill (our own invented scenario, not the Playbook's)"}
KINDS = ("start_turn", "draw", "move", "ready_arms", "in_reserve", "pass", "gold", "reinforce", "purchase",
         "rally", "army_rally", "attack", "combat_move", "advance", "face", "swap", "formation", "done",
         "give_ground", "surrender")
PHASES = ("prepare", "draw", "order", "reaction", "gold", "yellow_reinf", "yellow_buy", "yellow_rally", "red",
          "advance", "reform", "give_ground", "over")
#: the rule each action kind belongs to (kept in the record beside it)
RULE_OF = {"start_turn": "16.1", "draw": "16.2", "move": "19.0", "ready_arms": "18.0", "in_reserve": "18.0",
           "pass": "18.0", "gold": "18.0", "reinforce": "18.0", "purchase": "18.0", "rally": "20.0",
           "army_rally": "20.0", "attack": "23.1", "combat_move": "19.4", "advance": "25.0", "face": "9.4", "swap": "9.4",
           "formation": "9.2", "done": "9.4", "give_ground": "24.3", "surrender": "26.0"}
PHASE_RULE = {"prepare": "16.1", "draw": "16.2", "order": "18.0", "reaction": "19.2", "gold": "18.0",
              "yellow_reinf": "18.0", "yellow_buy": "18.0", "yellow_rally": "20.0", "red": "23.0",
              "advance": "25.0", "reform": "9.4", "give_ground": "24.3", "over": "16.3"}
#: which action kinds each phase allows (everything else is refused naming the phase's rule)
ALLOWED = {"prepare": ("start_turn",), "draw": ("draw",), "order": ("move", "ready_arms", "in_reserve", "pass"),
           "reaction": ("move", "ready_arms", "pass"), "gold": ("gold",), "yellow_reinf": ("reinforce",),
           "yellow_buy": ("purchase", "pass"), "yellow_rally": ("rally", "army_rally", "pass"),
           "red": ("attack", "combat_move", "pass"), "advance": ("advance",), "reform": ("face", "swap", "formation", "done"),
           "give_ground": ("give_ground", "surrender", "pass"), "over": ()}
LOG_KEEP = 30     # our choice: the position keeps the last 30 log lines (the record keeps every event)


# ------------------------------------------------------------------------------------------------
# Values
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BcAction:
    """One action. ``kind`` says which; the other fields are used by some kinds only:

    ``zones`` activated Zones, ``moves`` (Block, destination or ``A>B`` roadway path), ``roadway`` Blocks in
    Roadway formation, ``hqs`` (HQ marker, path) for a Move Order; ``frm``/``to`` the Zones of an attack,
    advance, rally or reform; ``attack`` fire / assault / bombard and ``special`` (none, ordre_mixte ...);
    ``block`` the Block faced, withdrawn or surrendered; ``cards`` and ``buy`` (cubes / tokens) of a purchase;
    ``facing`` the Zones faced; ``formation`` square / massed_column / none; ``units`` the Blocks advancing or
    (Block, Zone) places of reinforcements; ``colour`` the cube named with the Gold cube (or ``card``)."""

    kind: Literal["start_turn", "draw", "move", "ready_arms", "in_reserve", "pass", "gold", "reinforce",
                  "purchase", "rally", "army_rally", "attack", "combat_move", "advance", "face", "swap", "formation",
                  "done", "give_ground", "surrender"]
    side: Literal["french", "coalition"]
    zones: tuple[str, ...] = ()
    moves: tuple[tuple[str, str], ...] = ()
    roadway: tuple[str, ...] = ()
    hqs: tuple[tuple[str, str], ...] = ()
    frm: str = ""
    to: str = ""
    attack: str = ""
    special: str = "none"
    block: str = ""
    cards: tuple[int, ...] = ()
    buy: str = ""
    facing: tuple[str, ...] = ()
    formation: str = ""
    units: tuple[str, ...] = ()
    colour: str = ""

    def __str__(self) -> str:
        return format_action(self)


_PAIRS = ("moves", "hqs")
_TUPLES = ("zones", "roadway", "facing", "units")


def format_action(a: BcAction) -> str:
    """Text notation: ``side kind`` then ``field=value`` for every field set; lists comma-separated, pairs
    ``a:b`` (e.g. ``french move zones=M2 moves=F1:M1``, ``coalition attack frm=E2 to=M2 attack=fire``)."""
    parts = [a.side, a.kind]
    for f in fields(a)[2:]:
        v = getattr(a, f.name)
        if v == f.default:
            continue
        if f.name in _PAIRS:
            parts.append(f"{f.name}=" + ",".join(f"{x}:{y}" for x, y in v))
        elif f.name == "cards":
            parts.append("cards=" + ",".join(str(c) for c in v))
        elif f.name in _TUPLES:
            parts.append(f"{f.name}=" + ",".join(v))
        else:
            parts.append(f"{f.name}={v}")
    return " ".join(parts)


def parse_action_text(text: str) -> dict:
    toks = text.split()
    if len(toks) < 2:
        raise VedetteError(f"action: expected 'SIDE KIND field=value ...', got {text[:60]!r}")
    d: dict[str, Any] = {"side": toks[0], "kind": toks[1]}
    names = {f.name for f in fields(BcAction)}
    for t in toks[2:]:
        if "=" not in t:
            raise VedetteError(f"action: {t[:30]!r} is not field=value")
        k, v = t.split("=", 1)
        if k not in names or k in ("side", "kind"):
            raise VedetteError(f"action: unknown field {k[:30]!r}")
        items = [x for x in v.split(",") if x]
        if k in _PAIRS:
            if any(":" not in x for x in items):
                raise VedetteError(f"action: field {k}: expected pairs a:b")
            d[k] = [x.split(":", 1) for x in items]
        elif k == "cards":
            try:
                d[k] = [int(x) for x in items]
            except ValueError:
                raise VedetteError("action: field cards: expected card numbers") from None
        elif k in _TUPLES:
            d[k] = items
        else:
            d[k] = v
    return d


@dataclass(frozen=True)
class BcState:
    """A Battle Commander position: the map (``g``) and where the turn stands."""

    g: G.GameState
    scenario_id: str = "demo"
    phase: str = "prepare"
    actor: str | None = None
    cube: str = ""                              # the cube acted on (order, reaction)
    passes: int = 0                             # passes in succession (18.0, 23.0, 24.3)
    engaged: tuple[str, ...] = ()               # Zones holding an Attack Token this Red cube (8.0, 23.1)
    rallied: tuple[str, ...] = ()               # Zones rallied this Yellow cube (20.0)
    army_rallied: tuple[str, ...] = ()          # sides that made an Army Rally this draw (20.0)
    bought: tuple[str, ...] = ()                # sides done with purchases this Yellow cube
    reform: tuple[str, ...] = ()                # Zones of the reform window (9.4)
    reformed: tuple[str, ...] = ()              # Zones / Blocks already reformed in this window
    resume: str = ""                            # the phase after the reform window
    resume_actor: str | None = None
    advance: tuple[str, ...] = ()               # (from, to, retreated artillery or "", "morale" or "")
    follow: str = ""                            # 19.4: the Zone a Combat Move just reached (its token's attack)
    surrendered: tuple[str, ...] = ()           # sides that surrendered a Block this turn end (26.0)
    control: tuple[tuple[str, str], ...] = ()   # Victory Flag Zone -> controlling side (17.0)
    winner: str | None = None
    result: str = ""                            # why the game ended ("" while it goes on)
    result_rule: str = ""
    options: tuple[str, ...] = ()


# ------------------------------------------------------------------------------------------------
# Helpers
# ------------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _scenario(sid: str) -> G.Scenario:
    if sid not in SCENARIOS:
        raise VedetteError(f"unknown scenario {str(sid)[:40]!r}; one of {', '.join(SCENARIOS)}")
    return G.load_scenario()


@lru_cache(maxsize=None)
def _game_hints() -> dict:
    return typing.get_type_hints(G.GameState, globalns=vars(G))


def _dry(gen: Generator) -> Any:
    """Run a rules procedure to its end with a driver that takes the first option of every request, except
    an Out of Command check (21.3), answered with a card that succeeds so that the moves are checked too.
    Used by :meth:`BcRules.check`: it raises the procedure's :class:`RuleViolation` without any randomness."""
    deck = default_deck()
    stack = [gen]
    send = None
    first = True
    while True:
        g = stack[-1]
        try:
            req = next(g) if first else g.send(send)
            first = False
        except StopIteration as stop:
            stack.pop()
            if not stack:
                return stop.value
            send, first = stop.value, False
            continue
        if isinstance(req, Log):
            send = None
        elif isinstance(req, Sub):
            stack.append(req.proc())
            first = True
        elif isinstance(req, Draw):
            send = req.cards[0]
            if req.rule == "21.3":
                good = [c for c in req.cards if not deck.is_reshuffle(c) and
                        deck.skill(c) in ("officer", "crossed_flags", "flags_1")]
                send = good[0] if good else send
        elif isinstance(req, Choose):
            send = req.options[0]
        elif isinstance(req, ChanceRequest):
            send = req.outcomes()[0][0]
        else:
            raise TypeError(f"unexpected request {req!r}")


def _set(st: BcState, g: G.GameState, **kw) -> BcState:
    return replace(st, g=g, **kw)


def _cup_plus(cup: Cup | None, colour: str) -> Cup:
    d = dict(cup.counts) if cup else {}
    d[colour] = d.get(colour, 0) + 1
    return Cup(tuple((c, d[c]) for c in COLOURS if d.get(c)))


def _reserve(g: G.GameState, side: str) -> int:
    return dict(g.reserve)[side]


def _tokens(g: G.GameState, side: str) -> int:
    return dict(g.tokens)[side]


def _lead_zones(g: G.GameState, side: str) -> list[str]:
    return [z for z in g.scenario.graph.areas if g.side_of_zone(z) == side]


# ------------------------------------------------------------------------------------------------
# The rules
# ------------------------------------------------------------------------------------------------
class BcRules(GameRules[BcState, BcAction]):
    system = "bc"
    title = "Battle Commander"
    sides = SIDES
    engine_version = "bc-game-2"
    default_scenario = "demo"

    def __init__(self):
        self.deck = default_deck()

    # --- set-up ----------------------------------------------------------------------------------
    def scenarios(self) -> dict[str, str]:
        return dict(SCENARIOS)

    def options(self) -> dict[str, str]:
        return {}

    def new_game(self, scenario=None, options=(), seed: int = 0) -> BcState:
        names = options.get("options", []) if isinstance(options, dict) else list(options)
        for o in names:
            raise VedetteError(f"unknown option {str(o)[:30]!r}: Battle Commander has no options here")
        sid = scenario or self.default_scenario
        g = G.new_game(_scenario(sid), self.deck)
        st = BcState(g, sid, "prepare", g.initiative, options=tuple(names))
        return replace(st, control=tuple(sorted(G.flag_control(g).items())))

    # --- who acts -----------------------------------------------------------------------------------
    def to_act(self, st: BcState) -> str | None:
        return None if st.phase == "over" else st.actor

    def outcome(self, st: BcState) -> Outcome | None:
        if st.phase != "over":
            return None
        return Outcome(st.winner, "demoralisation" if st.result_rule == "13.1" else "flags", st.result,
                       st.result_rule)

    def position(self, st: BcState) -> Position:
        cube = f" ({st.cube})" if st.cube and st.phase in ("order", "reaction") else ""
        return Position(st.g.turn, st.phase + cube)

    def is_pass(self, a: BcAction) -> bool:
        return a.kind in ("pass", "done")

    def rule_of(self, a: BcAction) -> str:
        return RULE_OF.get(a.kind, "")

    # --- candidates ---------------------------------------------------------------------------------
    def candidates(self, st: BcState) -> list[BcAction]:
        side = st.actor
        if side is None or st.phase == "over":
            return []
        g = st.g
        ph = st.phase
        A = BcAction
        out: list[BcAction] = []
        if ph == "prepare":
            return [A("start_turn", side)]
        if ph == "draw":
            return [A("draw", side)]
        if ph in ("order", "reaction"):
            out += self._move_candidates(g, side)
            out.append(A("ready_arms", side))
            if ph == "order":
                out.append(A("in_reserve", side))
            out.append(A("pass", side))
            return out
        if ph == "gold":
            return [A("gold", side, colour=c) for c, _ in (g.cup.counts if g.cup else ())] + [A("gold", side, colour="card")]
        if ph == "yellow_reinf":
            due = G.due_reinforcements(g, side)
            free = [u for u, z in due.items() if z is None]
            if not free:
                return [A("reinforce", side)]
            opts = [A("reinforce", side, units=tuple(f"{u}:{z}" for u, z in zip(free, combo)))
                    for combo in _product([g.scenario.graph.areas] * len(free), 40)]
            return opts
        if ph == "yellow_buy":
            for c in sorted(set(g.hand(side))):
                out += [A("purchase", side, cards=(c,), buy="tokens"), A("purchase", side, cards=(c,), buy="cubes")]
            return out + [A("pass", side)]
        if ph == "yellow_rally":
            zones = sorted({u.zone for u in g.units if u.side == side} | {h.zone for h in g.hqs if h.side == side})
            out += [A("rally", side, frm=z) for z in zones]
            out.append(A("army_rally", side))
            return out + [A("pass", side)]
        if ph == "red" and st.follow:            # 19.4: attack with the token that moved, or stop there
            z = st.follow
            for t in g.scenario.graph.neighbours(z):
                if g.side_of_zone(t) == ENEMY[side]:
                    out += [A("attack", side, frm=z, to=t, attack="fire"), A("attack", side, frm=z, to=t, attack="assault")]
            return out + [A("pass", side)]
        if ph == "red":
            for z in _lead_zones(g, side):
                lead = g.lead(z)
                if lead.block.kind in ("cavalry", "horse_artillery"):
                    out += [A("combat_move", side, frm=z, to=n) for n in g.scenario.graph.neighbours(z)]
                for t in g.scenario.graph.neighbours(z):
                    if g.side_of_zone(t) == ENEMY[side]:
                        out += [A("attack", side, frm=z, to=t, attack="fire"),
                                A("attack", side, frm=z, to=t, attack="assault")]
                lead = g.lead(z)
                if lead is not None and lead.block.artillery:
                    for t in g.scenario.graph.areas:
                        if g.side_of_zone(t) == ENEMY[side]:
                            out.append(A("attack", side, frm=z, to=t, attack="bombard"))
                if lead is not None and lead.block.infantry:
                    for t in g.scenario.graph.neighbours(z):
                        if g.side_of_zone(t) == ENEMY[side]:
                            out.append(A("attack", side, frm=z, to=t, attack="assault", special="ordre_mixte"))
            return out + [A("pass", side)]
        if ph == "advance":
            frm, to = st.advance[0], st.advance[1]
            here = [u.id for u in g.in_zone(frm)]
            opts = [()] + [tuple(here[:k]) for k in range(1, len(here) + 1)]
            hqs = tuple(h.id for h in g.hqs_in(frm, side))
            opts += [o + hqs for o in opts if o] if hqs else []
            return [A("advance", side, frm=frm, to=to, units=u) for u in opts]
        if ph == "reform":
            for z in st.reform:
                here = [u for u in g.in_zone(z) if u.side == side]
                if len(here) == 2:
                    out.append(A("swap", side, frm=z))
                for f in ("square", "massed_column", "none"):
                    if here:
                        out.append(A("formation", side, frm=z, formation=f))
                for u in here:
                    if u.block.artillery or u.block.formation == "massed_column":
                        out += [A("face", side, block=u.id, facing=f) for f in G.facing_options(g, u.id)]
            return out + [A("done", side)]
        if ph == "give_ground":
            for u in g.units:
                if u.side == side:
                    out += [A("give_ground", side, block=u.id), A("surrender", side, block=u.id)]
            return out + [A("pass", side)]
        return out

    def _move_candidates(self, g: G.GameState, side: str) -> list[BcAction]:
        out = []
        sc = g.scenario
        def open_(z):           # a cheap first cut; check() still decides (9.3: no enemy, not full)
            here = g.in_zone(z)
            return not here or (here[0].side == side and len(here) < G.STACK_LIMIT)

        for u in g.units:
            if u.side != side or u.block.redoubt_block:
                continue
            for n in sc.graph.neighbours(u.zone):
                if not open_(n) and g.side_of_zone(n) != side:
                    continue
                out.append(BcAction("move", side, zones=(u.zone,), moves=((u.id, n),)))
                if G._road_zone(sc, u.zone) and G._road_zone(sc, n):
                    out.append(BcAction("move", side, zones=(u.zone,), moves=((u.id, n),), roadway=(u.id,)))
                    for m in sc.graph.neighbours(n):
                        if m != u.zone and G._road_zone(sc, m):
                            out.append(BcAction("move", side, zones=(u.zone,), moves=((u.id, f"{n}>{m}"),),
                                                roadway=(u.id,)))
        for z in sc.graph.areas:
            here = [u for u in g.in_zone(z) if u.side == side]
            if len(here) == 2:
                for n in sc.graph.neighbours(z):
                    if not g.in_zone(n):
                        out.append(BcAction("move", side, zones=(z,), moves=tuple((u.id, n) for u in here)))
        for h in g.hqs:
            if h.side != side:
                continue
            dist = sc.graph.distances(h.zone)
            for z, d in dist.items():
                if 0 < d <= max(h.hq.skill, 1):
                    path = _path(sc, h.zone, z)
                    if path:
                        out.append(BcAction("move", side, zones=(h.zone,), hqs=((h.id, ">".join(path)),)))
        return out

    # --- check: the same procedures perform runs, on a dry driver ---------------------------------
    def check(self, st: BcState, a: BcAction) -> None:
        if not isinstance(a, BcAction):
            raise RuleViolation("16.2", f"not a Battle Commander action: {a!r}")
        try:
            self._check(st, a)
        except KeyError as exc:
            raise RuleViolation("5.0", f"unknown Zone, Block or HQ {exc}") from None

    def _check(self, st: BcState, a: BcAction) -> None:
        if st.phase == "over":
            raise RuleViolation("16.3", "the game is over")
        if a.side != st.actor:
            raise RuleViolation(PHASE_RULE[st.phase], f"it is {st.actor}'s action now ({st.phase}), not {a.side}'s")
        if a.kind not in ALLOWED[st.phase]:
            what = {"order": f"a {st.cube} cube allows a Move Order, Ready Arms, In Reserve or a Pass (18.0)",
                    "red": "a Red cube allows attacks and passes (23.0)",
                    "yellow_rally": "a Yellow cube's rally step allows rallies and passes (20.0)"}.get(
                st.phase, f"the {st.phase} step allows {', '.join(ALLOWED[st.phase]) or 'nothing'}")
            raise RuleViolation(PHASE_RULE[st.phase], f"{a.kind} is not allowed now: {what}")
        g = st.g
        k = a.kind
        if k in ("start_turn", "draw", "pass"):
            return
        if k == "done":
            for z in st.reform:
                for u in g.in_zone(z):
                    if u.side == a.side and G.needs_facing(g, u):
                        raise RuleViolation("9.4", f"{u.id} moved: give it a facing before ending the reform")
            return
        if k == "move":
            g2 = _dry(self._move_proc(st, a))
            if g2.log and "out of command failed" in g2.log[-1]:
                # no card in the draw pile passes the 21.3 check: check the moves as if it had (a success
                # there changes nothing before them, and every activation rule ran already)
                _dry(G.move_order(g, a.side, list(a.zones), [tuple(m) for m in a.moves], self.deck,
                                  reaction=st.phase == "reaction", roadway=a.roadway, hq_moves=a.hqs,
                                  free_in_command=True))
        elif k == "ready_arms":
            if st.phase == "reaction" and _reserve(g, a.side) < 1:
                raise RuleViolation("19.2", "a Reaction is paid with a cube from the Reserve Orders Box")
            G.ready_arms(g, a.side)
        elif k == "in_reserve":
            G.in_reserve(g, a.side)
        elif k == "gold":
            if a.colour != "card":
                if a.colour not in COLOURS or g.cup is None or g.cup.count(a.colour) < 1:
                    raise RuleViolation("18.0", f"no {a.colour} cube left in the cup to name")
        elif k == "reinforce":
            _dry(self._reinforce_proc(g, a))
        elif k == "purchase":
            if len(a.cards) != 1:
                raise RuleViolation("18.0", "a purchase discards one card for one cube or token (our step: one at a time)")
            G.purchase(g, a.side, a.cards, a.buy)
        elif k == "rally":
            if a.frm in st.rallied:
                raise RuleViolation("20.0", f"Zone {a.frm} was already rallied on this Yellow cube (one Rally per Zone)")
            _dry(G.rally_zone(g, a.side, a.frm, self.deck))
        elif k == "army_rally":
            if a.side in st.army_rallied:
                raise RuleViolation("20.0", "one Army Rally per draw")
            _dry(G.rally_army(g, a.side, self.deck))
        elif k == "attack":
            self._attack_setup(st, a)
        elif k == "combat_move":
            if st.follow:
                raise RuleViolation("19.4", f"the Block that moved to {st.follow} attacks now or stops")
            if _tokens(g, a.side) < 1:
                raise RuleViolation("19.4", f"a Combat Move costs an Attack Token; {a.side} has none (8.0)")
            if a.frm in st.engaged:
                raise RuleViolation("23.1", f"Zone {a.frm} already holds an Attack Token this Red cube")
            if g.side_of_zone(a.frm) != a.side:
                raise RuleViolation("19.4", f"Zone {a.frm} holds no {a.side} Lead Block")
            G.combat_move(g, a.frm, a.to)
        elif k == "advance":
            if (a.frm, a.to) != tuple(st.advance[:2]):
                raise RuleViolation("25.0", f"only the Assault just made from {st.advance[0]} into {st.advance[1]} "
                                            "may advance")
            _dry(G.advance(g, a.frm, a.to, a.units, st.advance[2] or None, self.deck))
        elif k in ("face", "swap", "formation"):
            key = a.block if k == "face" else a.frm
            zone = g.unit(a.block).zone if k == "face" else a.frm
            if zone not in st.reform:
                raise RuleViolation("9.4", f"Zone {zone} is not one the last order, rally or advance concerned")
            if key in st.reformed:
                raise RuleViolation("9.4", f"{key} was already reformed in this step")
            if g.side_of_zone(zone) != a.side:
                raise RuleViolation("9.4", f"Zone {zone} holds no {a.side} Block")
            if k == "face":
                if g.unit(a.block).side != a.side:
                    raise RuleViolation("9.4", f"{a.block} is not {a.side}")
                G.set_facing(g, a.block, a.facing)
            elif k == "swap":
                G.swap_lead(g, a.frm)
            else:
                G.set_formation(g, a.frm, a.formation)
        elif k == "give_ground":
            if g.unit(a.block).side != a.side:
                raise RuleViolation("24.3", f"{a.block} is not {a.side}")
            _dry(G.give_ground(g, a.block, self.deck))
        elif k == "surrender":
            if a.side in st.surrendered:
                raise RuleViolation("26.0", "one Block only may surrender at a turn's end")
            if g.unit(a.block).side != a.side:
                raise RuleViolation("26.0", f"{a.block} is not {a.side}")
            G.surrender(g, a.block)

    def _move_proc(self, st: BcState, a: BcAction):
        return G.move_order(st.g, a.side, list(a.zones), [tuple(m) for m in a.moves], self.deck,
                            reaction=st.phase == "reaction", roadway=a.roadway, hq_moves=a.hqs)

    def _reinforce_proc(self, g: G.GameState, a: BcAction):
        places = {}
        for p in a.units:
            if ":" not in p:
                raise RuleViolation("18.0", f"a reinforcement place is BLOCK:ZONE, not {p!r}")
            u, z = p.split(":", 1)
            places[u] = z
        return G.reinforcements(g, a.side, places, [tuple(m) for m in a.moves], a.roadway, self.deck)

    def _attack_setup(self, st: BcState, a: BcAction):
        g = st.g
        moved = bool(st.follow) and a.frm == st.follow          # 19.4: the token came with the Block
        if st.follow and not moved:
            raise RuleViolation("19.4", f"the Block that made a Combat Move to {st.follow} attacks now or stops")
        if not moved and _tokens(g, a.side) < 1:
            raise RuleViolation("23.1", f"{a.side} has no Attack Token left (8.0)")
        if not moved and a.frm in st.engaged:
            raise RuleViolation("23.1", f"Zone {a.frm} already holds an Attack Token this Red cube: one attack per Zone")
        if g.side_of_zone(a.frm) != a.side:
            raise RuleViolation("23.1", f"Zone {a.frm} holds no {a.side} Lead Block")
        if a.special not in ("none", "ordre_mixte", "grand_charge"):
            raise RuleViolation("27.0", f"unknown special attack {a.special!r}")
        if a.attack == "bombard":
            if a.special != "none":
                raise RuleViolation("27.5", "a Bombardment has no other special type")
            setup = G.bombardment_from_map(g, a.frm, a.to)
        elif a.attack in ("fire", "assault"):
            setup = G.combat_from_map(g, a.frm, a.to, a.attack,
                                      tuple(z for z in st.engaged if z != a.frm) if moved else st.engaged)
            if a.special != "none":
                setup = replace(setup, special=a.special)
        else:
            raise RuleViolation("23.1", f"the attack type is fire, assault or bombard, not {a.attack!r}")
        tally = prepare(setup)                  # table 23.6 and 27.x: may this Lead make this attack?
        return setup, tally

    # --- perform ------------------------------------------------------------------------------------
    def perform(self, st: BcState, a: BcAction):
        st = yield from getattr(self, f"_do_{a.kind}")(st, a)
        return self._after(st)

    def _after(self, st: BcState) -> BcState:
        """Bookkeeping after every action: stale facings, flag control (17.0), Demoralisation (13.1)."""
        g = st.g
        for u in g.units:
            if G.needs_facing(g, u) and not (st.phase == "reform" and u.zone in st.reform):
                # our reading: a retreated or advanced Artillery faces its first facing towards an enemy Zone
                opts = G.facing_options(g, u.id)
                towards = [f for f in opts if any(g.side_of_zone(z) == ENEMY[u.side] for z in f)]
                g = G.set_facing(g, u.id, (towards or list(opts))[0])
        if len(g.log) > LOG_KEEP:
            g = replace(g, log=g.log[-LOG_KEEP:])
        control = tuple(sorted(G.flag_control(g, dict(st.control)).items()))
        st = replace(st, g=g, control=control)
        for side in SIDES:
            if g.morale_of(side).demoralised:
                return replace(st, phase="over", actor=None, winner=ENEMY[side], result_rule="13.1",
                               result=f"the {side} army in Bad Morale reached zero: demoralised")
        return st

    def _do_start_turn(self, st, a):
        g = st.g
        sc = g.scenario.model
        into = {}
        for side in (g.initiative, ENEMY[g.initiative]):      # 16.1: kept reserve cubes may go into the cup
            kept = min(_reserve(g, side), g.commander(side).skill)
            if kept:
                into[side] = yield Choose(tuple(range(kept + 1)), rule="16.1", player=side,
                                          label=f"{side}: how many of the {kept} kept reserve cubes go into the cup?")
        g = G.start_turn(g, daylight=g.turn not in sc.night, gold=sc.gold is not None, reserve_to_cup=into)
        yield Log("16.1", f"turn {g.turn}: cup {dict(g.cup.counts)}, tokens {dict(g.tokens)}")
        g = yield from G.cut_hands(g, self.deck)
        g = yield from G.turn_card_draws(g, self.deck)
        return _set(st, g, phase="draw", actor=g.initiative, surrendered=(), passes=0)

    def _do_draw(self, st, a):
        g, colour, over = yield from G.order_cube_draw(st.g, self.deck)
        if over:
            return _set(st, g, phase="give_ground", actor=g.initiative, passes=0, cube="", engaged=())
        base = dict(cube=colour, passes=0, engaged=(), rallied=(), army_rallied=(), bought=())
        if g.cup == st.g.cup:                   # 18.0: the passed colour came out again and went back
            return _set(st, g, phase="draw", actor=g.initiative)
        if colour in COLOUR_SIDE:
            return _set(st, g, phase="order", actor=COLOUR_SIDE[colour], **base)
        if colour == "gold":
            if g.scenario.model.gold is None:
                return _set(st, g, phase="draw", actor=g.initiative)
            return _set(st, g, phase="gold", actor=g.scenario.model.gold, **base)
        if colour == "yellow":
            return self._yellow_next(_set(st, g, **base))
        if colour == "red":
            return _set(st, g, phase="red", actor=g.initiative, **base)
        return _set(st, g, phase="draw", actor=g.initiative, cube=colour)      # 18.0 Black: cards were drawn

    def _yellow_next(self, st: BcState) -> BcState:
        """The next step of a Yellow cube (18.0): reinforcements, then purchases, then rallies, initiative first."""
        g = st.g
        if st.phase not in ("yellow_buy", "yellow_rally"):
            for side in (g.initiative, ENEMY[g.initiative]):
                if G.due_reinforcements(g, side):
                    nxt = replace(st, phase="yellow_reinf", actor=side)
                    # due but with nowhere to go (27.10: no friendly Block left): it stays due (our reading)
                    if self.legal_actions(nxt):
                        return nxt
        if st.phase != "yellow_rally":
            for side in (g.initiative, ENEMY[g.initiative]):
                if side not in st.bought:
                    return replace(st, phase="yellow_buy", actor=side)
        return replace(st, phase="yellow_rally", actor=g.initiative, passes=0)

    def _open_reform(self, st: BcState, zones, side: str, resume: str, resume_actor: str | None) -> BcState:
        zones = tuple(z for z in dict.fromkeys(zones) if st.g.side_of_zone(z) == side)
        nxt = replace(st, phase="reform", actor=side, reform=zones, reformed=(), resume=resume,
                      resume_actor=resume_actor)
        if zones and any(c.kind != "done" for c in self.legal_actions(nxt)):
            return nxt
        return replace(st, phase=resume, actor=resume_actor, reform=(), reformed=(), resume="", resume_actor=None)

    def _do_move(self, st, a):
        before = st.g
        g = yield from self._move_proc(st, a)
        reaction = st.phase == "reaction"
        if g.order_cube_back:                  # 21.3 Officer: the order cube goes back into the cup
            colour = SIDE_COLOUR[a.side]
            yield Log("21.3", f"Officer: the {colour} cube goes back into the cup")
            g = replace(g, cup=_cup_plus(g.cup, colour), order_cube_back=False)
        resume, who = ("draw", g.initiative) if reaction else ("reaction", ENEMY[a.side])
        st = _set(st, g)
        if g.log and "failed (death_head)" in g.log[-1]:
            return replace(st, phase=resume, actor=who)          # 21.3 Death Head: no changes either
        moved = [before.unit(uid).zone for uid, _ in a.moves] + [g.unit(uid).zone for uid, _ in a.moves
                                                                  if any(x.id == uid for x in g.units)]
        return self._open_reform(st, tuple(a.zones) + tuple(moved), a.side, resume, who)

    def _do_ready_arms(self, st, a):
        g = st.g
        if st.phase == "reaction":
            g = replace(g, reserve=tuple((s, n - 1 if s == a.side else n) for s, n in g.reserve))
        g = G.ready_arms(g, a.side)
        yield Log("18.0", f"{a.side}: Ready Arms, {_tokens(g, a.side)} Attack Token(s)")
        return _set(st, g, phase="draw", actor=g.initiative)

    def _do_in_reserve(self, st, a):
        g = G.in_reserve(st.g, a.side)
        yield Log("18.0", f"{a.side}: In Reserve, {_reserve(g, a.side)} cube(s) in the box")
        return _set(st, g, phase="draw", actor=g.initiative)

    def _do_pass(self, st, a):
        g = st.g
        ph = st.phase
        if ph == "order":
            g = G.pass_order(g, a.side)
            yield Log("18.0", f"{a.side}: Pass Order")
            return _set(st, g, phase="draw", actor=g.initiative)
        if ph == "reaction":
            yield Log("19.2", f"{a.side}: no reaction")
            return _set(st, g, phase="draw", actor=g.initiative)
        if ph == "yellow_buy":
            yield Log("18.0", f"{a.side}: no more purchases")
            return self._yellow_next(replace(st, bought=st.bought + (a.side,)))
        if ph == "red" and st.follow:
            yield Log("19.4", f"{a.side}: the Combat Move ends without an attack")
            return replace(st, follow="", actor=ENEMY[a.side], passes=0)
        yield Log(PHASE_RULE[ph], f"{a.side} passes")
        if st.passes + 1 >= 2:                 # both passed in succession
            if ph == "red":
                yield Log("23.0", "both players passed: the combats end, the Attack Tokens on the map go")
                return replace(st, phase="draw", actor=g.initiative, engaged=(), passes=0)
            if ph == "yellow_rally":
                return replace(st, phase="draw", actor=g.initiative, passes=0, rallied=(), army_rallied=())
            if ph == "give_ground":
                return self._end_turn(st)
        return replace(st, actor=ENEMY[a.side], passes=st.passes + 1)

    def _end_turn(self, st: BcState) -> BcState:
        """16.3: the turn marker moved on when the last Black cube came out; past the last turn box the game
        ends on Flag Control (17.0)."""
        g = st.g
        if g.turn > g.scenario.model.turns:
            v = G.flag_victory(g, dict(st.control))
            why = f"flags held at the end: {v['flags']}" + ("" if v["winner"] else " (a tie that stands)")
            return replace(st, phase="over", actor=None, winner=v["winner"], result=why, result_rule="17.0")
        return replace(st, phase="prepare", actor=g.initiative, passes=0, surrendered=())

    def _do_gold(self, st, a):
        g = yield from G.gold_choice(st.g, None if a.colour == "card" else a.colour)
        return _set(st, g, phase="draw", actor=g.initiative)

    def _do_reinforce(self, st, a):
        before = {u.id for u in st.g.units}
        g = yield from self._reinforce_proc(st.g, a)
        st = _set(st, g)
        nxt = self._yellow_next(st)
        zones = [u.zone for u in g.units if u.id not in before]      # 9.4: the arriving Blocks may reform
        return self._open_reform(st, zones, a.side, nxt.phase, nxt.actor) if zones else nxt

    def _do_purchase(self, st, a):
        g = G.purchase(st.g, a.side, a.cards, a.buy)
        yield Log("18.0", f"{a.side}: card {a.cards[0]} buys one {'cube' if a.buy == 'cubes' else 'Attack Token'}")
        return _set(st, g)

    def _do_rally(self, st, a):
        g, cube_back = yield from G.rally_zone(st.g, a.side, a.frm, self.deck)
        icon = self.deck.skill(g.pile.discard[-1]) if g.pile.discard else ""
        st = _set(st, g, passes=0, rallied=st.rallied + (() if cube_back else (a.frm,)))
        if icon == "death_head":                 # 20.0: no reforming on a Death Head
            return replace(st, actor=ENEMY[a.side])
        return self._open_reform(st, (a.frm,), a.side, "yellow_rally", ENEMY[a.side])

    def _do_army_rally(self, st, a):
        g, cube_back = yield from G.rally_army(st.g, a.side, self.deck)
        return _set(st, g, passes=0, actor=ENEMY[a.side],
                    army_rallied=st.army_rallied + (() if cube_back else (a.side,)))

    def _setup_proc(self, st: BcState, a: BcAction):
        """Sub-procedure without a question: the attack's set-up from the map (23.1, table 23.6, 27.x)."""
        if False:                                # pragma: no cover - a generator that asks nothing
            yield
        return self._attack_setup(st, a)[0]

    def _do_attack(self, st, a):
        # an inline sub-procedure keyed by the position, so exact enumeration reads the map once
        setup = yield Sub(("bc-setup", st, a), partial(self._setup_proc, st, a), rule="23.1",
                          label="attack set-up", inline=True)
        moved = bool(st.follow)
        st = replace(st, follow="")
        g = st.g
        d_lead = g.lead(a.to)
        if moved:
            yield Log("19.4", f"the Attack Token that moved with the Lead: {a.attack} on {a.to}")
        else:
            g = replace(g, tokens=tuple((s, n - 1 if s == a.side else n) for s, n in g.tokens))   # 8.0, 23.1
            yield Log("23.1", f"{a.side} places an Attack Token in {a.frm}: {a.attack} on {a.to}")
        lead_a = g.lead(a.frm).block
        if a.attack == "assault" and (lead_a.infantry or lead_a.artillery):
            for u in [x for x in g.in_zone(a.to) if x.block.kind in ("cavalry", "horse_artillery")]:
                go = yield Choose((False, True), rule="24.2", player=u.side,
                                  label=f"{u.id}: withdraw from {a.to} before the assault?")
                if go:                           # 24.2 Cavalry Withdrawal, the owner picks the Zone
                    g = yield from G.cavalry_withdrawal(g, u.id, a.frm)
            sc = g.scenario
            for h in g.hqs_in(a.to, ENEMY[a.side]):     # 24.2: an HQ marker there may withdraw too
                ways = tuple(z for z in sorted(sc.graph.neighbours(a.to)) if not sc.impassable(a.to, z)
                             and g.side_of_zone(z) != a.side and not g.hqs_in(z))
                if not ways or not (yield Choose((False, True), rule="24.2", player=h.side,
                                                 label=f"{h.id}: withdraw from {a.to} before the assault?")):
                    continue
                to = ways[0] if len(ways) == 1 else (
                    yield Choose(ways, rule="24.2", player=h.side, label=f"{h.id} withdraws to"))
                yield Log("24.2", f"{h.id} withdraws to {to}")
                g = replace(g, hqs=tuple(replace(x, zone=to) if x.id == h.id else x for x in g.hqs))
            if not any(x.side != a.side for x in g.in_zone(a.to)):
                yield Log("24.2", f"{a.to} is empty: no combat, the token is spent, the attacker may advance")
                st = _set(st, g, engaged=tuple(dict.fromkeys(st.engaged + (a.frm,))), passes=0)
                if any(x.side == a.side for x in g.in_zone(a.frm)):
                    return replace(st, phase="advance", actor=a.side, advance=(a.frm, a.to, "", ""))
                return replace(st, actor=ENEMY[a.side])
            d_lead = g.lead(a.to)
            setup = G.combat_from_map(g, a.frm, a.to, a.attack, st.engaged)
            if a.special != "none":
                setup = replace(setup, special=a.special)
        out, g = yield from self._combat(g, a, setup)
        st = _set(st, g, engaged=tuple(dict.fromkeys(st.engaged + (a.frm,))), passes=0)
        fate = out.fate("defender_lead")
        art = ""
        if d_lead.block.artillery and fate is not None and fate.retreats and not fate.eliminated \
                and any(x.id == d_lead.id for x in g.units):
            art = d_lead.id                      # 25.0: a Lead Artillery that just retreated
        attackers = [u for u in g.in_zone(a.frm) if u.side == a.side]
        held = [u for u in g.in_zone(a.to) if u.id not in g.redoubt_held]
        if a.attack == "assault" and out.zone_emptied and not held and attackers:
            return replace(st, phase="advance", actor=a.side,
                           advance=(a.frm, a.to, art, "morale" if out.advance_morale else ""))
        return replace(st, actor=ENEMY[a.side])

    def _combat(self, g: G.GameState, a: BcAction, setup):
        """23.1 step 6 to 27.11, then 24.1 on the map: the combat procedure and its outcome put on the map.

        Both run as inline sub-procedures keyed by value: play and replay run them in place (the record is
        the same), and exact enumeration works out each one's outcomes once. The map part is keyed without
        the pile (its retreats draw no card), so every card sequence with the same effect shares it; the
        pile the combat leaves is then put on the map, as :func:`~engine.bc.game.apply_outcome` does."""
        terrain = default_terrain()
        out = yield Sub(("bc-combat", setup, self.deck, terrain, g.pile),
                        partial(resolve, setup, self.deck, g.pile, terrain),
                        rule="23.1", label=f"{setup.attack} from {a.frm} on {a.to}", inline=True)
        bare = replace(out, pile=None)
        g2 = yield Sub(("bc-apply", g, a.frm, a.to, bare), partial(G.apply_outcome, g, a.frm, a.to, bare),
                       rule="24.1", label="the combat outcome on the map", inline=True)
        if out.pile is not None:
            g2 = replace(g2, pile=out.pile)
        return out, g2

    def _do_combat_move(self, st, a):
        g = replace(st.g, tokens=tuple((s, n - 1 if s == a.side else n) for s, n in st.g.tokens))
        g = G.combat_move(g, a.frm, a.to)
        yield Log("19.4", f"{a.side}: Combat Move from {a.frm} to {a.to} with an Attack Token")
        st = _set(st, g, engaged=tuple(dict.fromkeys(st.engaged + (a.to,))), follow=a.to, passes=0)
        need = [u for u in g.in_zone(a.to) if G.needs_facing(g, u)]
        if need:                                 # 9.4: a moved Horse Artillery is faced before it fires
            return self._open_reform(st, (a.to,), a.side, "red", a.side)
        return st

    def _do_advance(self, st, a):
        frm, to, art, morale = st.advance
        g = yield from G.advance(st.g, frm, to, a.units, art or None, self.deck)
        engaged = st.engaged
        if a.units:
            if morale:
                yield Log("23.5", f"Retreat Flag and an advance: the {a.side} army gains one Morale")
                g = G._morale(g, a.side, +1)
            # 25.0: the Attack Token stays with the Lead Attacker: it leaves the Zone it attacked from
            engaged = tuple(dict.fromkeys(tuple(z for z in engaged if z != frm) + (to,)))
        st = _set(st, g, advance=(), engaged=engaged)
        if not a.units:
            return replace(st, phase="red", actor=ENEMY[a.side])
        return self._open_reform(st, (to,), a.side, "red", ENEMY[a.side])

    def _reformed(self, st, key, g):
        return _set(st, g, reformed=st.reformed + (key,))

    def _do_face(self, st, a):
        yield Log("9.4", f"{a.block} faces {', '.join(a.facing)}")
        return self._reformed(st, a.block, G.set_facing(st.g, a.block, a.facing))

    def _do_swap(self, st, a):
        yield Log("9.4", f"{a.frm}: lead and second line swap")
        return self._reformed(st, a.frm, G.swap_lead(st.g, a.frm))

    def _do_formation(self, st, a):
        yield Log("9.2", f"{a.frm}: the lead takes formation {a.formation}")
        return self._reformed(st, a.frm, G.set_formation(st.g, a.frm, a.formation))

    def _do_done(self, st, a):
        yield Log("9.4", f"{a.side} ends the reform")
        return replace(st, phase=st.resume, actor=st.resume_actor, reform=(), reformed=(), resume="",
                       resume_actor=None)

    def _do_give_ground(self, st, a):
        g = yield from G.give_ground(st.g, a.block, self.deck)
        return _set(st, g, passes=0, actor=ENEMY[a.side])

    def _do_surrender(self, st, a):
        g = G.surrender(st.g, a.block)
        yield Log("26.0", f"{a.block} surrenders")
        return _set(st, g, passes=0, actor=ENEMY[a.side], surrendered=st.surrendered + (a.side,))

    # --- what the CLI shows of a position, with odds ----------------------------------------------
    def state_summary(self, st: BcState) -> dict:
        g = st.g
        out = {"cube": st.cube, "cup": dict(g.cup.counts) if g.cup else {}, "tokens": dict(g.tokens),
               "reserve": dict(g.reserve), "morale": {s: g.morale_of(s).to_json() for s in SIDES},
               "hands": {s: len(g.hand(s)) for s in SIDES}, "initiative": g.initiative}
        if st.phase in ("red", "yellow_rally", "order", "reaction") and st.actor is not None:
            out["odds"] = {self.format_action(a): o for a in self.legal_actions(st)
                           if (o := self.action_odds(st, a)) is not None}
        return out

    def action_odds(self, st: BcState, a: BcAction) -> dict | None:
        """The calculators' odds for an attack (the chance of each CRT result on the next card at the tallied
        column and fixed shifts, 23.2-23.4, before neutral shifts and the exceptions of 23.5) or a rally (the
        exact Rally Skill Check, 21.1, given the discard pile and the side's own hand)."""
        from .calc import check_odds
        g = st.g
        if a.kind == "attack":
            _, t = self._attack_setup(st, a)
            res = _result_odds(self.deck, t.table, t.column, t.net_shift)
            return {"column": t.column, "net_shift": t.net_shift, "next_card": res}
        if a.kind == "move":                     # 19.0, 21.3: only an order out of command range is a gamble
            in_range = set()
            for h in g.hqs:
                if h.side == a.side:
                    in_range |= G.command_zones(g, h.id)
            if any(z in in_range for z in a.zones):
                return None
            o = check_odds("command", g.commander(a.side).skill, good_morale=g.morale_of(a.side).good,
                           discards=g.pile.discard, hand=g.hand(a.side))
            return {"out_of_command": True, "success": o["success"], "cube_back": o["cube_back"]}
        if a.kind in ("rally", "army_rally"):
            known = dict(discards=g.pile.discard, hand=g.hand(a.side))
            good = g.morale_of(a.side).good
            if a.kind == "army_rally":
                o = check_odds("rally", g.commander(a.side).skill, good_morale=good, army=True, **known)
            else:
                here = [u for u in g.in_zone(a.frm) if u.side == a.side]
                if not here:
                    return None
                enemy_adj = any(g.side_of_zone(n) == ENEMY[a.side] for n in g.scenario.graph.neighbours(a.frm))
                o = check_odds("rally", here[0].block.skill, hq=g.hq_bonus_in(a.frm, a.side), good_morale=good,
                               enemy_adjacent=enemy_adj, in_square=here[0].block.square, **known)
            return {"success": o["success"], "cube_back": o["cube_back"], "morale_loss": o["morale_loss"]}
        return None

    # --- JSON ---------------------------------------------------------------------------------------
    def action_to_json(self, a: BcAction) -> dict:
        d = to_json(a)
        return {k: v for k, v in d.items() if k in ("kind", "side") or v != to_json(_DEFAULTS[k])}

    def action_from_json(self, data: Any) -> BcAction:
        return from_json(BcAction, data)

    def format_action(self, a: BcAction) -> str:
        return format_action(a)

    def parse_action(self, text: str) -> BcAction:
        text = text.strip()
        if text.startswith("{"):
            return super().parse_action(text)
        return self.action_from_json(parse_action_text(text))

    def describe_action(self, a: BcAction) -> str:
        from .words import describe          # in a player's words; format_action stays the notation
        return describe(a)

    def state_to_json(self, st: BcState) -> dict:
        g = st.g
        gd = {f.name: to_json(getattr(g, f.name)) for f in fields(g) if f.name != "scenario"}
        out = {f.name: to_json(getattr(st, f.name)) for f in fields(st) if f.name != "g"}
        out["g"] = gd
        return out

    def state_from_json(self, data: Any) -> BcState:
        if not isinstance(data, dict) or not isinstance(data.get("g"), dict):
            raise VedetteError("a Battle Commander position is an object with a 'g' object (the map)")
        sc = _scenario(data.get("scenario_id", "demo"))
        hints = _game_hints()
        gd = dict(data["g"])
        pile = gd.pop("pile", None)
        kw = {k: from_json(hints[k], v, f"g.{k}") for k, v in gd.items() if k in hints}
        if pile is not None:
            kw["pile"] = G.Pile(tuple(pile["draw"]), tuple(pile["discard"]))
        g = G.GameState(scenario=sc, **kw)
        rest = {k: v for k, v in data.items() if k != "g"}
        shell = from_json(_StateShell, rest)
        return BcState(g, **{f.name: getattr(shell, f.name) for f in fields(_StateShell)})

    # --- invariants (checked by the conformance suite) ---------------------------------------------
    def invariants(self, st: BcState) -> list[str]:
        g = st.g
        bad = []
        for side in SIDES:
            if len(g.hand(side)) > HAND_LIMIT:
                bad.append(f"15.0: {side} holds {len(g.hand(side))} cards")
            skill = g.commander(side).skill
            if not 0 <= _tokens(g, side) <= skill + TOKEN_EXTRA:
                bad.append(f"18.0: {side} has {_tokens(g, side)} Attack Tokens")
            if not 0 <= _reserve(g, side) <= skill + RESERVE_EXTRA:
                bad.append(f"18.0: {side} has {_reserve(g, side)} reserve cubes")
            m = g.morale_of(side)
            if not 0 <= m.value <= 10 or (m.good and m.value > m.maximum):   # 13.0: Bad Morale restarts at 10
                bad.append(f"13.0: {side} Morale {m.value} off the track")
        ids = [u.id for u in g.units] + [u.id for u, _ in g.returning]
        if len(ids) != len(set(ids)):
            bad.append("9.0: a Block is in two places")
        for z in g.scenario.graph.areas:
            try:
                G._check_stacking(g, z)
            except RuleViolation as exc:
                bad.append(str(exc))
        cards = list(g.pile.draw) + list(g.pile.discard) + [c for _, h in g.hands for c in h]
        if sorted(cards) != list(self.deck.numbers):
            bad.append("15.0: the cards in the piles and hands are not the deck")
        in_turn = st.phase not in ("prepare", "give_ground", "over") and not (
            st.phase == "reform" and st.resume in ("prepare", "give_ground"))
        if in_turn and (g.cup is None or g.cup.count("black") < 1):
            bad.append("16.2: the turn goes on with no Black cube left in the cup")
        if st.phase in ("give_ground", "prepare") and g.cup is not None:
            bad.append("16.2: the turn ended with cubes left in the cup")
        if len(set(st.engaged)) != len(st.engaged):
            bad.append("8.0: two Attack Tokens in one Zone")
        return bad

    def bots(self):
        from engine.core.odds import OddsBot
        # an assault's odds run to thousands of end positions: exact odds for the 2 best pre-scored attacks
        return {"random": RandomBot, "greedy": GreedyBot, "odds": partial(OddsBot, top_k=2)}

    # --- odds of an action (engine/core/odds.py) ------------------------------------------------
    def is_attack(self, a: BcAction) -> bool:
        """An attack (23.1: fire, assault or bombardment) is decided by the cards."""
        return a.kind == "attack"

    def attack_candidates(self, st: BcState) -> list:
        if st.phase != "red":
            return []
        return [a for a in self.legal_actions(st) if self.is_attack(a)]

    def attack_score(self, st: BcState, a: BcAction) -> float:
        """A cheap pre-score for the odds bot's shortlist (ours, not a rule): the greedy bot's value of one
        combat card at the attack's tallied column and fixed shifts (23.2-23.4)."""
        try:
            _, t = self._attack_setup(st, a)
        except VedetteError:
            return float("-inf")
        return _result_value(self.deck, t.table, t.column, t.net_shift)

    def metrics(self, st: BcState) -> dict[str, float]:
        from .odds_words import bc_metrics
        return bc_metrics(st)

    def odds_label(self, before: BcState, after: BcState, a: BcAction):
        from .odds_words import bc_label
        return bc_label(self, before, after, a)

    def evaluate(self, st: BcState, side: str) -> float:
        from .odds_words import bc_value
        return bc_value(self, st, side)


@dataclass(frozen=True)
class _StateShell:
    scenario_id: str = "demo"
    phase: str = "prepare"
    actor: str | None = None
    cube: str = ""
    passes: int = 0
    engaged: tuple[str, ...] = ()
    rallied: tuple[str, ...] = ()
    army_rallied: tuple[str, ...] = ()
    bought: tuple[str, ...] = ()
    reform: tuple[str, ...] = ()
    reformed: tuple[str, ...] = ()
    resume: str = ""
    resume_actor: str | None = None
    advance: tuple[str, ...] = ()
    follow: str = ""
    surrendered: tuple[str, ...] = ()
    control: tuple[tuple[str, str], ...] = ()
    winner: str | None = None
    result: str = ""
    result_rule: str = ""
    options: tuple[str, ...] = ()


_DEFAULTS = {f.name: f.default for f in fields(BcAction)}


def _product(lists, limit):
    out = [()]
    for lst in lists:
        out = [o + (x,) for o in out for x in lst][:limit]
    return out


def _path(sc: G.Scenario, a: str, b: str) -> tuple[str, ...]:
    """A shortest path from ``a`` to ``b`` (the Zones after ``a``), for HQ move candidates."""
    prev = {a: None}
    todo = [a]
    while todo:
        nxt = []
        for z in todo:
            for n in sorted(sc.graph.neighbours(z)):
                if n not in prev:
                    prev[n] = z
                    nxt.append(n)
        todo = nxt
    if b not in prev:
        return ()
    path = []
    z = b
    while z != a:
        path.append(z)
        z = prev[z]
    return tuple(reversed(path))


# ------------------------------------------------------------------------------------------------
# The greedy bot
# ------------------------------------------------------------------------------------------------
class GreedyBot:
    """A simple player: attacks when the calculators' exact odds (the known discard pile taken into
    account) favour it, rallies what is not Steady, moves Steady Blocks towards the enemy and the flags,
    otherwise keeps cubes and buys Attack Tokens with enemy cards."""

    name = "greedy"

    def __init__(self, seed: int | None = None):
        import random
        self.rng = random.Random(seed)
        self._odds: dict = {}

    def choose(self, request: Choose, state=None):
        ctx = request.context
        if ctx and ctx[0] == "neutral":
            return neutral_policy(request)
        return request.options[0]

    def choose_action(self, rules: BcRules, st: BcState, legal: list):
        kinds = {a.kind for a in legal}
        ph = st.phase
        g = st.g
        side = st.actor
        if ph == "reform":
            faces = [a for a in legal if a.kind == "face"]
            need = [a for a in faces if G.needs_facing(g, g.unit(a.block))]
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
            if scored and scored[0][0] > 0 and (ph == "order" or _reserve(g, side) > 1):
                return scored[0][2]
            if _tokens(g, side) < 3 and "ready_arms" in kinds and ph == "order":
                return next(a for a in legal if a.kind == "ready_arms")
            if "in_reserve" in kinds:
                return next(a for a in legal if a.kind == "in_reserve")
            return next(a for a in legal if a.kind == "pass")
        passes = [a for a in legal if a.kind == "pass"]
        return passes[0] if passes and ph == "give_ground" else legal[0]

    def _move_score(self, g: G.GameState, a: BcAction, control: dict | None = None) -> float:
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

    def _attack(self, rules: BcRules, st: BcState, legal: list):
        best, best_score = None, 0.6
        for a in legal:
            if a.kind != "attack" or a.special != "none":
                continue
            _, tally = rules._attack_setup(st, a)
            s = _result_value(rules.deck, tally.table, tally.column, tally.net_shift)
            if s > best_score:
                best, best_score = a, s
        return best or next(a for a in legal if a.kind == "pass")


@lru_cache(maxsize=None)
def _result_odds(deck, table: str, column: int, net: int) -> dict:
    """Exact chance of each CRT result on one card of a fresh deck at ``column`` with ``net`` fixed shifts."""
    from fractions import Fraction

    from engine.core.dist import prob_json
    from .deck import apply_shift
    counts: dict[str, int] = {}
    for n in deck.event_numbers:
        row = deck.row(n, table)
        r = row[apply_shift(row, column, net)]
        counts[r] = counts.get(r, 0) + 1
    total = len(deck.event_numbers)
    return {r: prob_json(Fraction(k, total)) for r, k in sorted(counts.items())}


#: how much the greedy bot likes each CRT result (its own weights, not a rule)
RESULT_VALUE = {"gun_smoke": 0.0, "muskets_shot": 0.3, "round_shot": 1.0, "skull_bones": 2.0,
                "black_cross": -2.0, "horse_head": 0.0, "bayonets": 0.3, "bayonets_burst": 1.0, "burst": 1.2,
                "retreat_flag": 2.5}


@lru_cache(maxsize=None)
def _result_value(deck, table: str, column: int, net: int) -> float:
    """The bot's expected value of one combat card on a fresh deck: the exact chance of each CRT result at
    the tallied column and fixed shifts (23.4, read as the calculators read a card), times its weight."""
    from .deck import apply_shift
    rows = [deck.row(n, table) for n in deck.event_numbers]
    total = 0.0
    for row in rows:
        total += RESULT_VALUE[row[apply_shift(row, column, net)]]
    return total / len(rows)


register("bc", BcRules)
