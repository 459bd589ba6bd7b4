"""A Battle Commander position as values: the map (:class:`MapState`: Blocks in their Zones, HQ markers, Morale,
the cup, the piles and hands, the Army Mats) and where the turn stands (:class:`BcState`: the phase, the side to
act, the cube acted on ...). Applying an action returns a new value and never changes the old one.

Also here: the stacking limits every change keeps (9.3, 28.5), the two small changes many rules make (a Block's
new Battle State or formation, :func:`set_block`; an Army's Morale, :func:`change_morale`, with the initiative
that follows it, 13.2) and the positions' JSON both ways.
"""
from __future__ import annotations

import typing
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any

from engine.core.codec import CodecError, from_json as codec_from_json, to_json as codec_to_json
from engine.core.errors import RuleViolation, VedetteError

from ..blocks import HQ, BattleState, Block, BlockModel
from ..cup import RESERVE_EXTRA, TOKEN_EXTRA, Cup, Morale, initiative
from ..deck import HAND_LIMIT, Deck, Pile, default_deck
from .scenario import CommanderModel, Scenario, load_scenario, scenario_by_id
from .types import SIDES, Phase, Side

__all__ = ["STACK_LIMIT", "Unit", "HQMarker", "MapState", "new_map", "check_stacking", "stacking_ok", "set_block",
           "change_morale", "BcState", "state_to_json", "state_from_json", "invariants"]

STACK_LIMIT = 2   # 9.3: two friendly Blocks per Zone, plus one HQs


@dataclass(frozen=True)
class Unit:
    id: str
    side: Side
    block: Block
    zone: str
    facing: tuple[str, ...] | None = None   # Artillery: the Zones its guns face (its Battle Zones, 9.4)


@dataclass(frozen=True)
class HQMarker:
    id: str
    side: Side
    hq: HQ
    zone: str


@dataclass(frozen=True)
class MapState:
    scenario: Scenario
    units: tuple[Unit, ...]          # per Zone, the first listed is the Lead Block (9.4)
    hqs: tuple[HQMarker, ...]
    morale: tuple[tuple[str, Morale], ...]
    initiative: Side
    last_morale_change: str = "french"
    turn: int = 1
    cup: Cup | None = None
    drawn: tuple[str, ...] = ()
    reserve: tuple[tuple[str, int], ...] = (("french", 0), ("coalition", 0))
    tokens: tuple[tuple[str, int], ...] = (("french", 0), ("coalition", 0))
    pile: Pile | None = None
    log: tuple[str, ...] = ()
    hands: tuple[tuple[str, tuple[int, ...]], ...] = (("french", ()), ("coalition", ()))
    passed: str | None = None        # 18.0 Pass Order: the colour just passed
    forced_next: str | None = None   # 18.0 Gold cube: the colour chosen to come out next
    returning: tuple[tuple[Unit, int], ...] = ()  # 27.2: (Block, turn it comes back) after a Grand Charge
    arrived: tuple[str, ...] = ()                  # scenario reinforcements already on the map (18.0)
    redoubt_held: tuple[str, ...] = ()  # 28.5: Redoubt Blocks that had to retreat and stayed (until an advance)
    hqs_out: tuple[tuple[HQMarker, int], ...] = ()  # 27.10: eliminated HQ markers and the turn they come back
    order_cube_back: bool = False   # 21.3: the last Out of Command check was an Officer (cube back in the cup)
    out_of_play: tuple[int, ...] = ()   # 27.12: Leader cards Hors de Combat (under the Army Commander card)

    def hand(self, side: str) -> tuple[int, ...]:
        return dict(self.hands)[side]

    def reserve_of(self, side: str) -> int:
        """Cubes in the side's Reserve Orders Box (18.0)."""
        return dict(self.reserve)[side]

    def tokens_of(self, side: str) -> int:
        """Attack Tokens on the side's Army Mat (8.0)."""
        return dict(self.tokens)[side]

    def hq(self, hq_id: str) -> HQMarker | None:
        """The HQ marker ``hq_id`` on the map, or None."""
        return next((h for h in self.hqs if h.id == hq_id), None)

    # lookups ---------------------------------------------------------------------------------------
    def unit(self, uid: str) -> Unit:
        for u in self.units:
            if u.id == uid:
                return u
        raise RuleViolation("9.0", f"no Block {uid!r} on the map")

    def in_zone(self, zone: str) -> list[Unit]:
        return [u for u in self.units if u.zone == zone]

    def lead(self, zone: str) -> Unit | None:
        here = self.in_zone(zone)
        return here[0] if here else None

    def hqs_in(self, zone: str, side: str | None = None) -> list[HQMarker]:
        return [h for h in self.hqs if h.zone == zone and (side is None or h.side == side)]

    def side_of_zone(self, zone: str) -> str | None:
        here = self.in_zone(zone)
        return here[0].side if here else None

    def morale_of(self, side: str) -> Morale:
        return dict(self.morale)[side]

    def commander(self, side: str) -> CommanderModel:
        return self.scenario.model.commanders[side]

    def steady_hq_in(self, zone: str, side: str) -> bool:
        return any(h.hq.state == "steady" for h in self.hqs_in(zone, side))

    def hq_bonus_in(self, zone: str, side: str) -> bool:
        """A Steady HQ in the Zone that adds +1 Skill (21.0): not a main HQ in Command Perspective (29.1)."""
        return any(h.hq.gives_bonus for h in self.hqs_in(zone, side))

    def in_perspective(self, side: str) -> bool:
        """Is this side's Army Commander in Command Perspective (optional rule 29.1)?"""
        return any(h.side == side and h.hq.kind == "hq" and h.hq.perspective for h in self.hqs)

    def to_json(self) -> dict:
        return {"turn": self.turn, "initiative": self.initiative,
                "morale": {s: m.to_json() for s, m in self.morale},
                "zones": {z: [u.id for u in self.in_zone(z)] for z in self.scenario.graph.areas},
                "blocks": {u.id: {"side": u.side, "kind": u.block.kind, "zone": u.zone, "state": u.block.state,
                                  "formation": u.block.formation, "skill": u.block.skill,
                                  "steps_lost": u.block.steps_lost,
                                  **({"redoubt_block": True, "redoubt_cubes": u.block.redoubt_cubes}
                                     if u.block.redoubt_block else {})} for u in self.units},
                "hqs": {h.id: {"side": h.side, "zone": h.zone, "state": h.hq.state,
                                "perspective": h.hq.perspective} for h in self.hqs},
                "cup": self.cup.to_json() if self.cup else None, "reserve": dict(self.reserve),
                "returning": [[u.id, t] for u, t in self.returning],
                "hqs_out": [[h.id, t] for h, t in self.hqs_out],
                "tokens": dict(self.tokens)}


def new_map(scenario: Scenario | None = None, deck: Deck | None = None) -> MapState:
    sc = scenario or load_scenario()
    deck = deck or default_deck()
    units = tuple(Unit(b.id, Side(b.side), Block.from_model(BlockModel(**b.model_dump(exclude={"id", "side", "zone",
                                                                                                "facing"}))),
                       b.zone, b.facing) for b in sc.model.blocks)
    hqs = tuple(HQMarker(h.id, Side(h.side), HQ(h.kind, h.skill, BattleState(h.state),
                                                 h.perspective and h.kind == "hq"), h.zone) for h in sc.model.hqs)
    morale = tuple((Side(s), Morale(m.value, m.good, m.maximum)) for s, m in sc.model.morale.items())
    st = MapState(sc, units, hqs, morale, Side(sc.model.initiative), pile=Pile.for_play(deck))
    for z in sc.graph.areas:
        check_stacking(st, z)
    return st


def check_stacking(st: MapState, zone: str, rule: str = "9.3") -> None:
    here = st.in_zone(zone)
    if len({u.side for u in here}) > 1:
        raise RuleViolation(rule, f"Zone {zone} would hold Blocks of both sides")
    if len(here) > STACK_LIMIT:
        raise RuleViolation(rule, f"Zone {zone} would hold {len(here)} Blocks: two at most")
    arts = [u for u in here if u.block.artillery]
    if len(arts) > 1 and not any(u.block.formation == "grand_battery" for u in arts):
        raise RuleViolation(rule, f"Zone {zone} would hold two Artillery Blocks")
    if len(st.hqs_in(zone)) > 1:
        raise RuleViolation(rule, f"Zone {zone} would hold two HQ markers")
    if any(u.block.redoubt_block for u in here[1:]):
        raise RuleViolation("28.5", f"the Artillery Redoubt Block in {zone} must be its Lead Block")
    if st.scenario.zone(zone).fort_of is not None:
        if len(here) > 1 or any(u.block.kind != "garrison" for u in here):
            raise RuleViolation("28.5", f"the Fort {zone} holds one Garrison Block and nothing else")


def stacking_ok(st: MapState, zone: str) -> bool:
    """Does ``zone`` keep the stacking limits (:func:`check_stacking`)?"""
    try:
        check_stacking(st, zone)
    except RuleViolation:
        return False
    return True


def set_block(st: MapState, uid: str, block: Block) -> MapState:
    """The map with Block ``uid``'s new state, formation, steps (the Block value ``block``)."""
    return replace(st, units=tuple(replace(u, block=block) if u.id == uid else u for u in st.units))


def change_morale(st: MapState, side: str, delta: int, army_rally: bool = False) -> MapState:
    """The map after ``side``'s Army Morale changes by ``delta`` (13.0), with the initiative that follows
    (13.2: the marker moved last wins a tie)."""
    if not delta:
        return st
    m = dict(st.morale)
    m[side] = m[side].change(delta, army_rally=army_rally)
    new = replace(st, morale=tuple(m.items()), last_morale_change=side)
    return replace(new, initiative=Side(initiative(m["french"], m["coalition"], side)))


@dataclass(frozen=True)
class BcState:
    """A Battle Commander position: the map (``g``) and where the turn stands."""

    g: MapState
    scenario_id: str = "demo"
    phase: Phase = Phase.PREPARE
    actor: Side | None = None
    cube: str = ""                              # the cube acted on (order, reaction)
    passes: int = 0                             # passes in succession (18.0, 23.0, 24.3)
    engaged: tuple[str, ...] = ()               # Zones holding an Attack Token this Red cube (8.0, 23.1)
    specials: tuple[str, ...] = ()              # "side:ability" used this Red cube (27.6, 27.8: once per draw)
    rallied: tuple[str, ...] = ()               # Zones rallied this Yellow cube (20.0)
    army_rallied: tuple[str, ...] = ()          # sides that made an Army Rally this draw (20.0)
    bought: tuple[str, ...] = ()                # sides done with purchases this Yellow cube
    reform: tuple[str, ...] = ()                # Zones of the reform window (9.4)
    reformed: tuple[str, ...] = ()              # Zones / Blocks already reformed in this window
    resume: str = ""                            # the phase after the reform window
    resume_actor: Side | None = None
    advance: tuple[str, ...] = ()               # (from, to, retreated artillery or "", "morale" or "")
    follow: str = ""                            # 19.4: the Zone a Combat Move just reached (its token's attack)
    surrendered: tuple[str, ...] = ()           # sides that surrendered a Block this turn end (26.0)
    control: tuple[tuple[str, str], ...] = ()   # Victory Flag Zone -> controlling side (17.0)
    winner: Side | None = None
    result: str = ""                            # why the game ended ("" while it goes on)
    result_rule: str = ""
    options: tuple[str, ...] = ()


@lru_cache(maxsize=None)
def _hints(cls) -> dict[str, Any]:
    return typing.get_type_hints(cls, globalns=globals())


def state_to_json(st: BcState) -> dict:
    """A position as JSON: the turn's fields, then the map (``g``; its scenario is named by ``scenario_id``)."""
    g = st.g
    gd = {f.name: codec_to_json(getattr(g, f.name)) for f in fields(g) if f.name != "scenario"}
    out = {f.name: codec_to_json(getattr(st, f.name)) for f in fields(st) if f.name != "g"}
    out["g"] = gd
    return out


def state_from_json(data: Any) -> BcState:
    """A position from :func:`state_to_json`'s JSON (a field of the wrong shape is named)."""
    if not isinstance(data, dict) or not isinstance(data.get("g"), dict):
        raise VedetteError("a Battle Commander position is an object with a 'g' object (the map)")
    sc = scenario_by_id(data.get("scenario_id", "demo"))
    hints = _hints(MapState)
    gd = dict(data["g"])
    pile = gd.pop("pile", None)
    kw = {k: codec_from_json(hints[k], v, f"g.{k}") for k, v in gd.items() if k in hints}
    if pile is not None:
        kw["pile"] = Pile(tuple(pile["draw"]), tuple(pile["discard"]))
    g = MapState(scenario=sc, **kw)
    turn = {f.name for f in fields(BcState) if f.name != "g"}
    rest = {k: v for k, v in data.items() if k != "g"}
    unknown = set(rest) - turn
    if unknown:
        raise CodecError("", "only the fields of a Battle Commander position", sorted(unknown))
    th = _hints(BcState)
    return BcState(g, **{k: codec_from_json(th[k], v, k) for k, v in rest.items()})


def invariants(st: BcState, deck: Deck) -> list[str]:
    """What every position keeps (checked by the conformance suite): hand sizes (15.0), the Army Mats (18.0),
    Morale on its track (13.0), each Block in one place, stacking (9.3), the cards all accounted for (15.0),
    a Black cube in the cup while the turn goes on (16.2), one Attack Token per Zone (8.0)."""
    g = st.g
    bad = []
    for side in SIDES:
        if len(g.hand(side)) > HAND_LIMIT:
            bad.append(f"15.0: {side} holds {len(g.hand(side))} cards")
        skill = g.commander(side).skill
        if not 0 <= g.tokens_of(side) <= skill + TOKEN_EXTRA:
            bad.append(f"18.0: {side} has {g.tokens_of(side)} Attack Tokens")
        if not 0 <= g.reserve_of(side) <= skill + RESERVE_EXTRA:
            bad.append(f"18.0: {side} has {g.reserve_of(side)} reserve cubes")
        m = g.morale_of(side)
        if not 0 <= m.value <= 10 or (m.good and m.value > m.maximum):   # 13.0: Bad Morale restarts at 10
            bad.append(f"13.0: {side} Morale {m.value} off the track")
    ids = [u.id for u in g.units] + [u.id for u, _ in g.returning]
    if len(ids) != len(set(ids)):
        bad.append("9.0: a Block is in two places")
    for z in g.scenario.graph.areas:
        try:
            check_stacking(g, z)
        except RuleViolation as exc:
            bad.append(str(exc))
    cards = list(g.pile.draw) + list(g.pile.discard) + [c for _, h in g.hands for c in h] + list(g.out_of_play)
    if sorted(cards) != list(deck.numbers):
        bad.append("15.0: the cards in the piles and hands are not the deck")
    in_turn = st.phase not in (Phase.PREPARE, Phase.GIVE_GROUND, Phase.OVER) and not (
        st.phase == Phase.REFORM and st.resume in (Phase.PREPARE, Phase.GIVE_GROUND))
    if in_turn and (g.cup is None or g.cup.count("black") < 1):
        bad.append("16.2: the turn goes on with no Black cube left in the cup")
    if st.phase in (Phase.GIVE_GROUND, Phase.PREPARE) and g.cup is not None:
        bad.append("16.2: the turn ended with cubes left in the cup")
    if len(set(st.engaged)) != len(st.engaged):
        bad.append("8.0: two Attack Tokens in one Zone")
    return bad
