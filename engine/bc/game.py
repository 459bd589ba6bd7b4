"""Zones, Blocks on the map and the order-cube turn (5, 8, 9, 16-20, 24-25), on an immutable game state.

The map is an :class:`~engine.core.areas.AreaGraph` of Zones (each bordered by up to six others, 5.0) whose
borders may carry interval terrain or be impassable. A :class:`GameState` is a value: every action returns a
new state and an illegal one raises :class:`RuleViolation` leaving the old state as it was.

What is here: Battle Zones and Flanked Zones (9.4), stacking (9.3), command range and activation (19.0),
move orders with their restrictions (19.0-19.1), retreat paths by priority and blocked retreats (24.1), a
combat set up from the map (23.1: lead, second line, wing supports, flank conditions) and its outcome applied
back (retreats chosen by the enemy, morale, steps), rally orders (20.0), the turn preparation (16.1) and the
cube draws of the Order Cube Draw Phase (16.2, 18.0).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from pydantic import Field

from engine.core.areas import AreaGraph
from engine.core.data import Sourced, Strict, data_path, load_yaml
from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Draw, Log

from .checks import read_check
from .combat import (Block, BlockModel, CombatOutcome, CombatSetup, HQ, Side, Terrain, Wing, block_steps,
                     default_terrain, hit_block, redoubt_cube, resolve)
from .cup import Cup, Morale, SIDE_COLOUR, cube_draw, activation_limit, initiative, prepare_turn
from .deck import HAND_LIMIT, Deck, Pile, default_deck, draw_card

__all__ = ["Scenario", "load_scenario", "GameState", "new_game", "battle_zones", "flanked_zones",
           "command_zones", "move_order", "retreat_options", "combat_from_map", "apply_outcome", "rally_zone",
           "order_cube_draw", "ENEMY"]

ENEMY = {"french": "coalition", "coalition": "french"}
STACK_LIMIT = 2   # 9.3: two friendly Blocks per Zone, plus one HQs


class ZoneModel(Strict):
    terrain: str = "clear"
    x: float = 0
    y: float = 0
    road: bool = False
    lane: bool = False
    flag: Literal["none", "french", "coalition", "both"] = "none"
    fort_of: str | None = None       # 28.5: this Zone is the Fort inside that regular Zone (its only border)
    redoubt: tuple[str, ...] = ()    # 28.5: the bordering Zones whose intervals this Zone's Redoubt covers


class CommanderModel(Strict):
    name: str
    cubes: int = Field(ge=0)
    tokens: int = Field(ge=0)
    skill: int = Field(ge=0, le=4)
    range: int = Field(ge=0)


class MoraleModel(Strict):
    value: int = Field(ge=1, le=10)
    maximum: int = Field(default=10, ge=1, le=10)
    good: bool = True


class PlacedBlock(BlockModel):
    id: str
    side: Literal["french", "coalition"]
    zone: str
    facing: tuple[str, ...] | None = None


class PlacedHQ(Strict):
    id: str
    side: Literal["french", "coalition"]
    kind: Literal["hq", "shq"] = "hq"
    skill: int = Field(default=3, ge=0, le=4)
    state: Literal["steady", "disrupted"] = "steady"
    zone: str
    perspective: bool = False      # optional rule 29.1 in force from the start (main HQ only)


class ReinforcementModel(PlacedBlock):
    """A Block that enters later (18.0 Yellow Cube): ``zone`` is where it enters, ``turn`` the first turn it may.
    The schedule belongs to a scenario (the Playbook's); type it in from there."""
    turn: int = Field(ge=1)


class ScenarioModel(Sourced):
    name: str
    zones: dict[str, ZoneModel]
    borders: tuple[tuple[str, ...], ...]
    commanders: dict[Literal["french", "coalition"], CommanderModel]
    morale: dict[Literal["french", "coalition"], MoraleModel]
    initiative: Literal["french", "coalition"] = "french"
    blocks: tuple[PlacedBlock, ...]
    hqs: tuple[PlacedHQ, ...] = ()
    reinforcements: tuple[ReinforcementModel, ...] = ()
    turns: int = Field(default=6, ge=1, le=40)        # 16.3: the game ends after the last turn box
    night: tuple[int, ...] = ()                       # 14.0: turns that are not Daylight (no 13.2 bonus)
    gold: Literal["french", "coalition"] | None = None   # 16.1, 18.0: a Gold cube, named by this player
    massed_column: bool = False                       # 28.2: Massed Columns allowed by the scenario


@dataclass(frozen=True)
class Scenario:
    model: ScenarioModel
    graph: AreaGraph
    file: str = ""

    # a value: equal when loaded from the same file with the same content (the graph is made from the model),
    # so positions holding it are hashable and equal positions meet in exact enumeration
    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is Scenario and self.file == other.file and self.model == other.model)

    def __hash__(self) -> int:
        return hash((self.file, self.model.name))

    def __repr__(self) -> str:          # short: positions are ordered by their repr in exact enumeration
        return f"Scenario({self.model.name!r}, file={self.file!r})"

    @property
    def name(self) -> str:
        return self.model.name

    def zone(self, z: str) -> ZoneModel:
        try:
            return self.model.zones[z]
        except KeyError:
            raise RuleViolation("5.0", f"there is no Zone {z!r} on this map") from None

    def interval(self, a: str, b: str) -> str:
        feats = self.graph.border(a, b).features
        return next(iter(feats)) if feats else "none"

    def impassable(self, a: str, b: str) -> bool:
        return self.graph.adjacent(a, b) and self.graph.border(a, b).has("impassable")


def load_scenario(path: str | Path | None = None) -> Scenario:
    """Load a scenario file (default: the invented demonstration scenario ``data/bc/demo/scenario.yaml``)."""
    from engine.core.errors import DataError

    p = Path(path) if path else data_path("bc", "demo", "scenario.yaml")
    m = load_yaml(p, ScenarioModel)
    for key in ("commanders", "morale"):   # 7.2 an Army Commander card and 13.0 an Army Morale for each side
        for side in ("french", "coalition"):
            if side not in getattr(m, key):
                raise DataError(str(p), f"{key}.{side}", "an entry for each side (french and coalition)")
    borders = []
    for i, b in enumerate(m.borders):
        if len(b) not in (2, 3):
            raise DataError(str(p), f"borders[{i}]", "[zone, zone] or [zone, zone, interval terrain]", list(b))
        # 23.3: for a slope or cliff interval the second Zone listed is the higher one
        borders.append((b[0], b[1], (b[2],), {"higher": b[1]}) if len(b) == 3 else (b[0], b[1]))
    try:
        graph = AreaGraph.build({z: z_m.model_dump() for z, z_m in m.zones.items()}, borders)
    except ValueError as exc:
        raise DataError(str(p), "borders", str(exc)) from None
    for z in m.zones:
        if len(graph.neighbours(z)) > 6:
            raise DataError(str(p), f"zones.{z}", "at most six bordering Zones (rule 5.0)")
    for z, zm in m.zones.items():
        if zm.fort_of is not None and set(graph.neighbours(z)) != {zm.fort_of}:
            raise DataError(str(p), f"zones.{z}.fort_of", f"a Fort borders only its encircling Zone "
                                                          f"{zm.fort_of} (rule 28.5)", sorted(graph.neighbours(z)))
        for r in zm.redoubt:
            if r not in graph.neighbours(z):
                raise DataError(str(p), f"zones.{z}.redoubt", "Zones bordering this one (rule 28.5)", r)
    for i, b in enumerate(m.reinforcements):
        if b.zone not in m.zones:
            raise DataError(str(p), f"reinforcements[{i}].zone", f"a Zone of the map ({sorted(m.zones)})", b.zone)
    for i, b in enumerate(m.blocks):
        if b.zone not in m.zones:
            raise DataError(str(p), f"blocks[{i}].zone", f"a Zone of the map ({sorted(m.zones)})", b.zone)
        if b.redoubt_block and not m.zones[b.zone].redoubt:
            raise DataError(str(p), f"blocks[{i}].redoubt_block",
                            "a Zone with a Redoubt (its `redoubt:` intervals, rule 28.5)", b.zone)
    for i, h in enumerate(m.hqs):
        if h.zone not in m.zones:
            raise DataError(str(p), f"hqs[{i}].zone", f"a Zone of the map ({sorted(m.zones)})", h.zone)
    return Scenario(m, graph, str(p))


# ------------------------------------------------------------------------------------------------
# State
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Unit:
    id: str
    side: str
    block: Block
    zone: str
    facing: tuple[str, ...] | None = None   # Artillery: the Zones its guns face (its Battle Zones, 9.4)


@dataclass(frozen=True)
class HQMarker:
    id: str
    side: str
    hq: HQ
    zone: str


@dataclass(frozen=True)
class GameState:
    scenario: Scenario
    units: tuple[Unit, ...]          # per Zone, the first listed is the Lead Block (9.4)
    hqs: tuple[HQMarker, ...]
    morale: tuple[tuple[str, Morale], ...]
    initiative: str
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

    def hand(self, side: str) -> tuple[int, ...]:
        return dict(self.hands)[side]

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


def new_game(scenario: Scenario | None = None, deck: Deck | None = None) -> GameState:
    sc = scenario or load_scenario()
    deck = deck or default_deck()
    units = tuple(Unit(b.id, b.side, Block.from_model(BlockModel(**b.model_dump(exclude={"id", "side", "zone",
                                                                                          "facing"}))),
                       b.zone, b.facing) for b in sc.model.blocks)
    hqs = tuple(HQMarker(h.id, h.side, HQ(h.kind, h.skill, h.state, h.perspective and h.kind == "hq"),
                           h.zone) for h in sc.model.hqs)
    morale = tuple((s, Morale(m.value, m.good, m.maximum)) for s, m in sc.model.morale.items())
    st = GameState(sc, units, hqs, morale, sc.model.initiative, pile=Pile.for_play(deck))
    for z in sc.graph.areas:
        _check_stacking(st, z)
    return st


def _check_stacking(st: GameState, zone: str, rule: str = "9.3") -> None:
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


# ------------------------------------------------------------------------------------------------
# Battle Zones and Flanked Zones (9.4)
# ------------------------------------------------------------------------------------------------
def battle_zones(st: GameState, unit: Unit) -> set[str]:
    """Zones a Lead Steady Block projects its Battle Zone into (9.4): not across impassable terrain;
    Artillery only towards the Zones it faces. Second-line, Square, Shaken, Garrison: none."""
    sc = st.scenario
    if st.lead(unit.zone) is None or st.lead(unit.zone).id != unit.id:
        return set()
    b = unit.block
    fort_of = sc.zone(unit.zone).fort_of
    if b.kind == "garrison" and fort_of is not None and b.state == "steady":
        return {fort_of}                          # 9.4, 28.5: a Garrison in a Fort projects into its Zone
    if b.state != "steady" or b.square or b.kind == "garrison" or b.formation == "roadway":
        return set()
    adj = {z for z in sc.graph.neighbours(unit.zone) if not sc.impassable(unit.zone, z)}
    if b.redoubt_block:                          # 28.5: the Redoubt's intervals (and any facing given)
        return adj & redoubt_zones(st, unit)
    if b.artillery or b.formation == "massed_column":
        return adj & set(adj if unit.facing is None else unit.facing)   # (): not yet faced after a move
    return adj


def redoubt_zones(st: GameState, unit: Unit) -> set[str]:
    """Zones an Artillery Redoubt Block covers (28.5): the intervals its Redoubt covers (the Zone's ``redoubt``
    list) plus any Zones its ``facing`` names; its facing never changes."""
    return set(st.scenario.zone(unit.zone).redoubt) | set(unit.facing or ())


def flanked_zones(st: GameState, unit: Unit) -> set[str]:
    """Flanked Zones (9.4): all Zones of a Disrupted Lead Block, the non-Battle Zones of a Lead Artillery."""
    sc = st.scenario
    lead = st.lead(unit.zone)
    if lead is None or lead.id != unit.id or unit.block.square:
        return set()
    adj = set(sc.graph.neighbours(unit.zone))
    if unit.block.state == "disrupted":
        return adj
    if unit.block.artillery and unit.block.state == "steady":
        return adj - battle_zones(st, unit)
    return set()


def enemy_battle_zones(st: GameState, side: str, exclude_engaged: tuple[str, ...] = ()) -> dict[str, set[str]]:
    """Zone -> ids of enemy Lead Blocks projecting a Battle Zone there."""
    out: dict[str, set[str]] = {}
    for u in st.units:
        if u.side == side or u.id in exclude_engaged:
            continue
        for z in battle_zones(st, u):
            out.setdefault(z, set()).add(u.id)
    return out


# ------------------------------------------------------------------------------------------------
# Move orders (19.0, 19.1)
# ------------------------------------------------------------------------------------------------
def command_zones(st: GameState, hq_id: str) -> set[str]:
    """Zones within command range of a Steady HQ/SHQ (19.0): the range may cross impassable terrain but not
    enemy Blocks or empty enemy Battle Zones; +1 (at most) in a Town, Village or Up Cliff Zone."""
    h = next((h for h in st.hqs if h.id == hq_id), None)
    if h is None:
        raise RuleViolation("19.0", f"no HQ marker {hq_id!r}")
    if h.hq.state != "steady":
        return set()
    sc = st.scenario
    rng = st.commander(h.side).range if h.hq.kind == "hq" else 1          # 28.4: SHQ range 1
    if h.hq.kind == "hq" and h.hq.perspective:
        rng += 1                                                            # 29.1: main HQ range +1
    if sc.zone(h.zone).terrain in ("town", "village", "up_cliff"):
        rng += 1
    ebz = enemy_battle_zones(st, h.side)
    seen = {h.zone: 0}
    frontier = [h.zone]
    while frontier:
        nxt = []
        for z in frontier:
            for n in sc.graph.neighbours(z):
                if n in seen:
                    continue
                if st.side_of_zone(n) == ENEMY[h.side] or (n in ebz and not st.in_zone(n)):
                    continue
                seen[n] = seen[z] + 1
                if seen[n] < rng:
                    nxt.append(n)
        frontier = nxt
    return {z for z, d in seen.items() if 0 < d <= rng} | {h.zone}


def _chain(sc: Scenario, zones: list[str]) -> bool:
    if not zones:
        return False
    todo, seen = [zones[0]], {zones[0]}
    while todo:
        z = todo.pop()
        for n in sc.graph.neighbours(z):
            if n in zones and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen == set(zones)


ROADWAY_ZONES = 2   # 19.3: a Roadway Block moves up to two Zones along a road or lane


def _road_zone(sc: Scenario, z: str) -> bool:
    m = sc.zone(z)
    return m.road or m.lane


def _move_path(to) -> tuple[str, ...]:
    if isinstance(to, str):
        return tuple(p for p in to.split(">") if p) if ">" in to else (to,)
    return tuple(to)


def _move_state(b: Block) -> str:
    """A Roadway Block is flipped as if Disrupted for combat only (19.3); it moves as the Steady Block it is."""
    return "steady" if b.formation == "roadway" else b.state


def _check_road_stacking(st: GameState, zone: str) -> None:
    """19.3 road stacking, for the Roadway Blocks ending in ``zone``: a Road Zone takes one Long Block or two
    other Blocks, a Lane Zone one Block of any type."""
    rw = [u for u in st.in_zone(zone) if u.block.formation == "roadway"]
    if not rw:
        return
    m = st.scenario.zone(zone)
    if m.road:
        if any(u.block.kind == "long_infantry" for u in rw) and len(rw) > 1:
            raise RuleViolation("19.3", f"a Road Zone ({zone}) holds one Long Block in Roadway formation, "
                                        "or two other Blocks")
        if len(rw) > 2:
            raise RuleViolation("19.3", f"a Road Zone ({zone}) holds at most two Roadway Blocks")
    elif len(rw) > 1:
        raise RuleViolation("19.3", f"a Lane Zone ({zone}) holds a single Roadway Block")


def move_order(st: GameState, side: str, zones: list[str], moves: list[tuple], deck: Deck | None = None,
               reaction: bool = False, roadway: tuple[str, ...] = (), free_in_command: bool = False,
               hq_moves: tuple = ()):
    """Procedure: a Move Order (19.0) activating ``zones`` and moving Blocks ``moves`` = [(block id, to)].

    Checks the activation (a chain of occupied friendly Zones, how many, command range; otherwise an Out of
    Command check, 21.3), then each move (adjacent, passable, stacking 9.3, no enemy Zone, no Battle Zone to
    Battle Zone of the same enemy, no Disrupted Block into an enemy Battle Zone). Returns the new state.

    ``roadway`` names the Blocks that take Roadway formation for this move (19.3): for them ``to`` may be a
    path of up to two Zones (``"M3>E3"`` or a list), every Zone of it, the start included, on a road or lane;
    the Block must be Steady and not in Square or Massed Column; it ends in Roadway formation (combat: as
    Disrupted, 19.3) unless it stops with Blocks not in that formation, where it becomes the second line Block
    in its normal formation. When every move is a Roadway move, up to four Zones may be activated (19.0).
    A Roadway Block that makes a regular move first goes back to its normal formation.

    ``hq_moves`` = [(HQ id, path)]: an HQ marker in an activated Zone moves up to its skill in Zones (19.1),
    never into an enemy-held Zone, one HQ marker per Zone at the end (9.3). An Artillery or Massed Column
    that moves loses its facing: its owner gives it a new one (9.4). An Officer on the Out of Command check
    sets ``order_cube_back`` (21.3: the cube goes back into the cup).
    """
    deck = deck or default_deck()
    sc = st.scenario
    com = st.commander(side)
    if st.order_cube_back:
        st = replace(st, order_cube_back=False)
    hq_paths = []
    for hid, to in hq_moves:
        h = next((x for x in st.hqs if x.id == hid), None)
        if h is None or h.side != side:
            raise RuleViolation("19.1", f"no {side} HQ marker {hid!r} on the map")
        if h.zone not in zones:
            raise RuleViolation("19.0", f"the HQ marker {hid} is not in an activated Zone")
        path = _move_path(to)
        if not path or len(path) > max(h.hq.skill, 1):
            raise RuleViolation("19.1", f"an HQ marker moves up to its skill ({h.hq.skill}) in Zones")
        here = h.zone
        for z in path:
            sc.zone(z)
            if not sc.graph.adjacent(here, z):
                raise RuleViolation("19.1", f"{hid} moves to adjacent Zones, {z} is not next to {here}")
            if sc.impassable(here, z):
                raise RuleViolation("19.1", f"impassable terrain between {here} and {z}")
            if st.side_of_zone(z) == ENEMY[side]:
                raise RuleViolation("9.3", f"{z} holds enemy Blocks")
            here = z
        hq_paths.append((hid, here))
    for z in zones:
        sc.zone(z)
        if not (st.in_zone(z) and st.side_of_zone(z) == side) and not st.hqs_in(z, side):
            raise RuleViolation("19.0", f"Zone {z} holds no {side} Block or HQ to activate")
    if not _chain(sc, zones):
        raise RuleViolation("19.0", "activated Zones must form a chain of adjacent Zones")
    roadway = tuple(roadway)
    paths = [(m[0], _move_path(m[1])) for m in moves]
    for uid, path in paths:
        if st.unit(uid).block.redoubt_block:
            raise RuleViolation("28.5", f"{uid} is an Artillery Redoubt Block: it never moves")
        if not path:
            raise RuleViolation("19.1", f"no destination given for {uid}")
        if uid not in roadway and len(path) > 1:
            raise RuleViolation("19.1", f"{uid} moves one Zone; only a Roadway move goes two Zones (19.3)")
        if uid in roadway:
            u = st.unit(uid)
            if _move_state(u.block) != "steady":
                raise RuleViolation("19.3", f"only a Steady Block takes Roadway formation ({uid} is "
                                            f"{u.block.state})")
            if u.block.square or u.block.formation == "massed_column":
                raise RuleViolation("19.3", f"a Square or a Massed Column cannot take Roadway formation ({uid})")
            if len(path) > ROADWAY_ZONES:
                raise RuleViolation("19.3", f"a Roadway move goes at most {ROADWAY_ZONES} Zones ({uid})")
            off = [z for z in (u.zone,) + path if not _road_zone(sc, z)]
            if off:
                raise RuleViolation("19.3", f"a Roadway move starts and ends along a road or lane: {off[0]} has "
                                            "neither")
    for uid in roadway:
        if uid not in {m[0] for m in moves}:
            raise RuleViolation("19.3", f"{uid} is named for a Roadway move but does not move")
    road_only = bool(moves) and all(uid in roadway for uid, _ in paths)
    free = [z for z in zones if st.steady_hq_in(z, side)]
    counted = len(zones) - (1 if free else 0)
    limit = activation_limit(com.skill, road_only)
    if counted > limit and not free_in_command:
        raise RuleViolation("19.0", f"a skill {com.skill} commander activates at most {limit} Zones "
                                    f"({counted} asked, a Steady HQs Zone is free)")
    if reaction:
        ebz = enemy_battle_zones(st, side)
        if any(z in ebz for z in zones):
            raise RuleViolation("19.2", "a Reaction cannot activate a Zone in an enemy Battle Zone")
        if dict(st.reserve)[side] < 1:
            raise RuleViolation("19.2", "a Reaction is paid with a cube from the Reserve Orders Box")
        st = replace(st, reserve=tuple((s_, n - 1 if s_ == side else n) for s_, n in st.reserve))
    in_range = set()
    for h in st.hqs:
        if h.side == side:
            in_range |= command_zones(st, h.id)
    in_command = free_in_command or any(z in in_range for z in zones)     # 19.1: arriving reinforcements
    for uid, _ in paths:
        if st.unit(uid).zone not in zones:
            raise RuleViolation("19.0", f"Block {uid} is not in an activated Zone")
        if st.unit(uid).side != side:
            raise RuleViolation("19.0", f"Block {uid} is not {side}")
    if not in_command:
        pile = st.pile
        face, pile = yield from draw_card(pile, deck, "21.3", "out of command check")
        out = read_check("command", deck.skill(face), com.skill, st.morale_of(side).good)   # 21.0: no HQ bonus
        st = replace(st, pile=pile.discarded(face), order_cube_back=out.cube_back)
        yield Log("21.3", f"out of command: {out.icon}, {'success' if out.success else 'failure'}")
        if not out.success:
            return replace(st, log=st.log + (f"{side} move order out of command failed ({out.icon})",))
    ebz_before = enemy_battle_zones(st, side)
    for uid, path in paths:
        u = st.unit(uid)
        on_road = uid in roadway
        rule = "19.3" if on_road else "19.1"
        here = u.zone
        for to in path:
            sc.zone(to)
            if not sc.graph.adjacent(here, to):
                raise RuleViolation(rule, f"{uid} can only move to an adjacent Zone, {to} is not next to {here}")
            if sc.impassable(here, to):
                raise RuleViolation(rule, f"impassable terrain between {here} and {to}")
            if st.side_of_zone(to) == ENEMY[side]:
                raise RuleViolation("9.3", f"{to} holds enemy Blocks")
            if to in ebz_before:
                if _move_state(u.block) == "disrupted":
                    raise RuleViolation("19.0", f"a Disrupted Block cannot enter an enemy Battle Zone ({to})")
                same = ebz_before.get(here, set()) & ebz_before[to]
                if same:
                    raise RuleViolation("19.0", f"{uid} cannot move from one Battle Zone to another of the same "
                                                f"enemy Block ({sorted(same)[0]})")
            here = to
        block = u.block
        if on_road:                             # 19.3: flipped as if Disrupted, with a Roadway marker
            block = replace(block, formation="roadway", state="disrupted")
        elif block.formation == "roadway":      # 19.3: a formation change back to Steady before the move
            block = replace(block, formation="none", state="steady")
        if on_road and any(x.block.formation != "roadway" for x in st.in_zone(here) if x.id != uid):
            block = replace(block, formation="none", state="steady")    # 19.3: joins them as second line
            yield Log("19.3", f"{uid} ends with Blocks not in Roadway formation: it leaves that formation")
        facing = u.facing
        if (block.artillery or block.formation == "massed_column") and here != u.zone:
            facing = ()                          # 9.4: the owner faces it again after the move
        st = replace(st, units=tuple(x for x in st.units if x.id != uid) + (replace(u, zone=here, block=block,
                                                                                      facing=facing),))
        _check_stacking(st, here)
        _check_road_stacking(st, here)
        if u.block.square:
            yield Log("19.0", f"{uid} moved in Square: it takes a Cohesion Hit")
            nb, _, note = hit_block(block)       # 27.3: the third hit breaks the Square, as in combat
            if note:
                yield Log(*note)
            st = _set_block(st, uid, nb)
    for hid, to in hq_paths:
        st = replace(st, hqs=tuple(replace(h, zone=to) if h.id == hid else h for h in st.hqs))
        _check_stacking(st, to)
    return replace(st, log=st.log + (f"{side} moves {moves}" + (f" (Roadway: {list(roadway)})" if roadway else ""),))


def _set_block(st: GameState, uid: str, block: Block) -> GameState:
    return replace(st, units=tuple(replace(u, block=block) if u.id == uid else u for u in st.units))


# ------------------------------------------------------------------------------------------------
# Retreats (24.1)
# ------------------------------------------------------------------------------------------------
def retreat_options(st: GameState, uid: str, visited: tuple[str, ...] = ()) -> tuple[tuple[str, ...], str]:
    """Zones a Block may retreat into, best tier only (24.1): never into enemy-occupied Zones or across
    impassable terrain; avoid (1) empty enemy Battle Zones, (2) Zones next to enemy Blocks, (3) overstacks,
    in that order. Returns ``(zones, why)``; no zone means a blocked retreat (stay, lose a step)."""
    u = st.unit(uid)
    sc = st.scenario
    enemy = ENEMY[u.side]
    cands = [z for z in sc.graph.neighbours(u.zone)
             if not sc.impassable(u.zone, z) and st.side_of_zone(z) != enemy]
    if not cands:
        return (), "blocked"
    ebz = enemy_battle_zones(st, u.side)

    def empty_ebz(z):
        return z in ebz and not st.in_zone(z)

    def next_to_enemy(z):
        return any(st.side_of_zone(n) == enemy for n in sc.graph.neighbours(z))

    def overstack(z):
        return len(st.in_zone(z)) >= STACK_LIMIT

    def been_there(z):      # our tie-break: a chain of retreats does not go back where it came from
        return z in visited

    tiers = cands
    for test, why in ((empty_ebz, "empty enemy Battle Zone"), (next_to_enemy, "next to the enemy"),
                      (overstack, "overstack"), (been_there, "already left")):
        better = [z for z in tiers if not test(z)]
        if better:
            tiers = better
    return tuple(tiers), "priority 24.1"


MAX_CHAIN = 3   # our limit: a chain of hit-triggered retreats stops after three Zones (the rules set none)


def retreat_block(st: GameState, uid: str, chooser_side: str, depth: int = 0, visited: tuple[str, ...] = ()):
    """Procedure: retreat one Block one Zone (24.1); ``chooser_side`` picks among the best Zones (the enemy for
    a retreat, the owner for a withdrawal). Squares and Massed Columns take a hit instead; a blocked retreat
    costs a step; entering an enemy Battle Zone costs a hit (and a step if Disrupted and alone); ending
    overstacked hits the Zone's other Blocks (skill 3-4 excepted) and may push the retreating Block on.
    The whole chain ends with the stacking limits kept (:func:`settle_stacking`)."""
    st = yield from _retreat_block(st, uid, chooser_side, depth, visited)
    if depth == 0:
        st = yield from settle_stacking(st)
    return st


def _stacking_ok(st: GameState, zone: str) -> bool:
    try:
        _check_stacking(st, zone)
    except RuleViolation:
        return False
    return True


def settle_stacking(st: GameState):
    """Procedure: after a chain of retreats, every Zone still over its stacking limits (9.3) sheds its last
    arrived Block: the owner withdraws it one Zone where it fits (24.1 order of preference); with no such
    Zone it is eliminated (our reading, as a Garrison that cannot retreat, 28.3; one Morale, 26.0).
    Our rule for the engine's chain limit: the rules themselves never leave an overstack standing."""
    for _ in range(4 * len(st.units) + 1):
        over = [z for z in st.scenario.graph.areas if len(st.in_zone(z)) > STACK_LIMIT or not _stacking_ok(st, z)]
        if not over:
            return st
        z = over[0]
        here = st.in_zone(z)
        u = here[-1] if here else None
        if u is None:               # two HQ markers: the one that came last steps back with its Block's owner
            return st
        zones, _ = retreat_options(st, u.id)
        fits = tuple(x for x in zones if _stacking_ok(replace(st, units=tuple(y for y in st.units if y.id != u.id)
                                                               + (replace(u, zone=x),)), x))
        if fits:
            to = fits[0] if len(fits) == 1 else (
                yield Choose(fits, rule="24.1", player=u.side, label=f"withdraw {u.id} from the overstacked {z}"))
            yield Log("24.1", f"{u.id} withdraws from the overstacked {z} into {to}")
            st = replace(st, units=tuple(y for y in st.units if y.id != u.id) + (replace(u, zone=to),))
        else:
            yield Log("24.1", f"{u.id} finds no Zone to withdraw into from the overstacked {z}: eliminated")
            st = _morale(replace(st, units=tuple(y for y in st.units if y.id != u.id)), u.side, -1)   # 26.0
    return st


def _retreat_block(st: GameState, uid: str, chooser_side: str, depth: int = 0, visited: tuple[str, ...] = ()):
    u = st.unit(uid)
    if u.block.redoubt_block:      # 28.5: it stays; an enemy advance into its Zone eliminates it
        yield Log("28.5", f"{uid} is a Redoubt Block: it stays in {u.zone}, eliminated if the enemy advances")
        return replace(st, redoubt_held=tuple(dict.fromkeys(st.redoubt_held + (uid,))))
    if u.block.square or u.block.formation == "massed_column":
        yield Log("24.1", f"{uid} never retreats in this formation: a Cohesion Hit instead")
        return (yield from _hit(st, uid, chooser_side, depth))
    zones, _ = retreat_options(st, uid, visited)
    if not zones:
        yield Log("24.1", f"{uid} cannot retreat: it stays and loses a step")
        return _lose_step(st, uid)
    to = yield Choose(zones, rule="24.1", player=chooser_side, label=f"retreat {uid} from {u.zone}")
    visited = visited + (u.zone,)
    ebz = enemy_battle_zones(st, u.side)
    st = replace(st, units=tuple(x for x in st.units if x.id != uid) + (replace(u, zone=to),))
    hq = st.hqs_in(u.zone, u.side)
    if hq and not st.in_zone(u.zone) and not st.hqs_in(to):   # HQs follow the Block (owner's option, taken)
        st = replace(st, hqs=tuple(replace(h, zone=to) if h.id == hq[0].id else h for h in st.hqs))
    if to in ebz:
        friends = [x for x in st.in_zone(to) if x.id != uid]
        if u.block.state == "disrupted" and not friends:
            yield Log("24.1", f"{uid} retreats Disrupted into an empty enemy Battle Zone: a hit and a step lost")
            st = _lose_step(st, uid)
            if not any(x.id == uid for x in st.units):
                return st
            return (yield from _hit(st, uid, chooser_side, depth, visited))   # 9.2: hit while Disrupted
        yield Log("24.1", f"{uid} retreats into an enemy Battle Zone: a Cohesion Hit")
        st = yield from _hit(st, uid, chooser_side, depth, visited)
    if any(x.id == uid for x in st.units) and len(st.in_zone(to)) > STACK_LIMIT and depth < MAX_CHAIN:
        yield Log("24.1", f"{uid} ends its retreat overstacked in {to}")
        for other in [x for x in st.in_zone(to) if x.id != uid]:
            if other.block.skill >= 3:
                continue
            st = yield from _hit(st, other.id, u.side, depth + 1)   # a Disrupted one withdraws (owner)
        if any(x.id == uid for x in st.units) and len(st.in_zone(to)) > STACK_LIMIT:
            st = yield from retreat_block(st, uid, u.side, depth + 1, visited)
    return st


def _hit(st: GameState, uid: str, chooser_side: str, depth: int = 0, visited: tuple[str, ...] = ()):
    """Procedure: one Cohesion Hit on a Block on the map (9.2, same rules as in combat via ``hit_block``)."""
    u = st.unit(uid)
    saved = yield from redoubt_cube(u.block, u.side, uid)          # 28.5: a cube may absorb the hit
    if saved is not None:
        return _set_block(st, uid, saved)
    nb, must_retreat, _ = hit_block(u.block)
    st = _set_block(st, uid, nb)
    if must_retreat:
        if depth >= MAX_CHAIN:
            yield Log("24.1", f"{uid}: retreat chain stopped after {MAX_CHAIN} Zones (our limit)")
            return st
        st = yield from retreat_block(st, uid, chooser_side, depth + 1, visited)
        if depth == 0:
            st = yield from settle_stacking(st)
    return st


def _lose_step(st: GameState, uid: str) -> GameState:
    u = st.unit(uid)
    b = replace(u.block, steps_lost=u.block.steps_lost + 1)
    if b.steps_lost >= block_steps(b):
        st = replace(st, units=tuple(x for x in st.units if x.id != uid))
        return _morale(st, u.side, -1)                            # 26.0
    return _set_block(st, uid, b)


def _morale(st: GameState, side: str, delta: int, army_rally: bool = False) -> GameState:
    if not delta:
        return st
    m = dict(st.morale)
    m[side] = m[side].change(delta, army_rally=army_rally)
    new = replace(st, morale=tuple(m.items()), last_morale_change=side)
    return replace(new, initiative=initiative(m["french"], m["coalition"], side))


# ------------------------------------------------------------------------------------------------
# Combat from the map (23.1) and its outcome back onto the map
# ------------------------------------------------------------------------------------------------
def combat_from_map(st: GameState, attacker_zone: str, target_zone: str, attack: str,
                    engaged: tuple[str, ...] = ()) -> CombatSetup:
    """Build the combat set-up from the map: lead and second-line Blocks, HQs, wing supports with their
    restrictions (23.1 step 5), flank conditions (9.4), terrain and interval (23.3)."""
    sc = st.scenario
    att, dfn = st.in_zone(attacker_zone), st.in_zone(target_zone)
    if not att or not dfn:
        raise RuleViolation("23.1", "both Zones need Blocks")
    side = att[0].side
    if dfn[0].side == side:
        raise RuleViolation("23.1", "the target Zone holds friendly Blocks")
    if not sc.graph.adjacent(attacker_zone, target_zone):
        raise RuleViolation("23.1", "the target must be next to the Lead Attacker")
    if attacker_zone in engaged:
        raise RuleViolation("23.1", "this Zone already has an Attack Token")
    lead_a = att[0]
    if lead_a.block.artillery:                   # 23.1: a Lead Artillery attacks into the Zones it faces
        faced = (redoubt_zones(st, lead_a) if lead_a.block.redoubt_block          # 28.5
                 else set(lead_a.facing or sc.graph.neighbours(attacker_zone)))
        if target_zone not in faced:             # (faced Zones count even across impassable terrain)
            raise RuleViolation("23.1", f"a Lead Artillery attacks only into its Battle Zones "
                                        f"({', '.join(sorted(faced))})")
    lead_d = dfn[0]
    ebz = enemy_battle_zones(st, side, exclude_engaged=tuple(u.id for u in st.units if u.zone in engaged))
    fz = flanked_zones(st, lead_d)
    wings = []
    fort_of = sc.zone(target_zone).fort_of
    # 28.5: around a Fort, wing supports come from the Zones next to the Zone that encircles it
    wing_zones = sc.graph.neighbours(fort_of) if fort_of else sc.graph.neighbours(target_zone)
    for z in wing_zones:
        if z in (attacker_zone, target_zone):
            continue
        here = st.in_zone(z)
        if not here or here[0].side != side:
            continue
        w = here[0]
        others = ebz.get(z, set()) - {lead_d.id}
        wings.append(Wing(w.block, adjacent_to_attacker=sc.graph.adjacent(z, attacker_zone),
                          in_flanked_zone=z in fz, engaged=z in engaged, in_other_enemy_battle_zone=bool(others),
                          across_impassable=sc.impassable(z, target_zone)))

    def side_of(units, zone, s):
        hq = st.hqs_in(zone, s)
        m = st.morale_of(s)
        return Side(units[0].block, units[1].block if len(units) > 1 else None, hq[0].hq if hq else None,
                    tuple(wings) if s == side else (), "good" if m.good else "bad",
                    in_flanked_zone=(attacker_zone in fz) if s == side else False,
                    terrain=sc.zone(zone).terrain,
                    redoubt=(s != side and attacker_zone in sc.zone(zone).redoubt))     # 28.5
    return CombatSetup(attack, side_of(att, attacker_zone, side), side_of(dfn, target_zone, dfn[0].side),
                       interval=sc.interval(attacker_zone, target_zone),
                       defender_higher=defender_higher(sc, attacker_zone, target_zone),
                       initiative="attacker" if st.initiative == side else "defender")


def defender_higher(sc: Scenario, attacker_zone: str, target_zone: str) -> bool:
    """Is the target Zone the higher one across a slope or cliff interval (23.3)? The scenario lists such a
    border as ``[lower, higher, up_slope]``. Borders without a slope: True (the defender keeps the interval)."""
    if not sc.graph.adjacent(attacker_zone, target_zone):
        return True
    higher = sc.graph.border(attacker_zone, target_zone).attrs.get("higher")
    if higher is None or sc.interval(attacker_zone, target_zone) not in ("up_slope", "up_cliff"):
        return True
    return higher == target_zone


def bombard_line_of_sight(st: GameState, art_zone: str, target_zone: str, terrain: Terrain | None = None
                          ) -> tuple[str, ...]:
    """The Zones that stop a two-Zone Bombardment (27.5): Zones next to both the Artillery and its target whose
    terrain has a Fire defence value, or that hold any Block. Empty when the line of sight is clear.
    Our reading: any one such Zone stops it, even when another common neighbour is open."""
    terrain = terrain or default_terrain()
    sc = st.scenario
    common = set(sc.graph.neighbours(art_zone)) & set(sc.graph.neighbours(target_zone))
    return tuple(sorted(z for z in common if terrain.zone(sc.zone(z).terrain).fire > 0 or st.in_zone(z)))


def bombardment_from_map(st: GameState, art_zone: str, target_zone: str, terrain: Terrain | None = None
                         ) -> CombatSetup:
    """A Bombardment Fire set up from the map (27.5): a Steady Lead Artillery fires at a Zone one or two Zones
    away. At one Zone it is the adjacent combat (no supports, area effect); at two Zones the line of sight
    must be clear (:func:`bombard_line_of_sight`) and, our reading of the facing rule (9.4), one of the Zones
    between must be a Zone the guns face. No interval terrain counts at two Zones (they share no border)."""
    sc = st.scenario
    sc.zone(art_zone)
    sc.zone(target_zone)
    att, dfn = st.in_zone(art_zone), st.in_zone(target_zone)
    if not att or not att[0].block.artillery:
        raise RuleViolation("27.5", f"Zone {art_zone} has no Lead Artillery to bombard with")
    if not dfn or dfn[0].side == att[0].side:
        raise RuleViolation("27.5", f"Zone {target_zone} holds no enemy Block")
    if att[0].block.state != "steady":
        raise RuleViolation("27.5", "only a Steady Artillery may bombard")
    if sc.graph.adjacent(art_zone, target_zone):
        return replace(combat_from_map(st, art_zone, target_zone, "fire"), special="bombardment", bombard_range=1)
    dist = sc.graph.distance(art_zone, target_zone)
    if dist != 2:
        raise RuleViolation("27.5", f"a Bombardment reaches one or two Zones; {target_zone} is "
                                    f"{dist if dist is not None else 'no'} Zones from {art_zone}")
    lead = att[0]
    between = set(sc.graph.neighbours(art_zone)) & set(sc.graph.neighbours(target_zone))
    if lead.facing and not between & set(lead.facing):
        raise RuleViolation("27.5", f"the guns in {art_zone} face {', '.join(lead.facing)}, not towards "
                                    f"{target_zone}")
    blocked = bombard_line_of_sight(st, art_zone, target_zone, terrain)
    if blocked:
        raise RuleViolation("27.5", f"no line of sight from {art_zone} to {target_zone}: blocked by "
                                    f"{', '.join(blocked)} (a Block, or terrain with a Fire value)")
    side, foe = lead.side, dfn[0].side

    def side_of(units, zone, s):
        hq = st.hqs_in(zone, s)
        return Side(units[0].block, units[1].block if len(units) > 1 else None, hq[0].hq if hq else None,
                    (), "good" if st.morale_of(s).good else "bad", terrain=sc.zone(zone).terrain)
    return CombatSetup("fire", side_of(att, art_zone, side), side_of(dfn, target_zone, foe), special="bombardment",
                       bombard_range=2, interval="none",
                       initiative="attacker" if st.initiative == side else "defender")


def map_bombardment(st: GameState, art_zone: str, target_zone: str, deck: Deck | None = None,
                    terrain: Terrain | None = None):
    """Procedure: a Bombardment on the map (27.5), resolved by the combat procedure and applied."""
    deck = deck or default_deck()
    setup = bombardment_from_map(st, art_zone, target_zone, terrain)
    out = yield from resolve(setup, deck, st.pile, terrain)
    return (yield from apply_outcome(st, art_zone, target_zone, out))


def grand_charge(st: GameState, attacker_zone: str, target_zone: str, deck: Deck | None = None,
                 card_shifts: int = 0):
    """Procedure: a whole Cavalry Grand Charge (27.2), triggered by an event card.

    The Steady Cavalry of the Zone (a Lead and a second line Cavalry) take Grand Charge markers and assault
    with no wing support; the card's shifts apply to both assaults. If the target Zone is emptied the Lead
    must advance (the second line with it). Then, if the Lead is not Disrupted, a second assault with the
    same Attack Token: the attacker decides (a Choose); declining needs a passed Skill Check of the Lead
    (21.2), a failed one means the second assault is made anyway. Without an advance only the same Zone may
    be assaulted again; after one, any adjacent enemy Zone (a Choose). At the end every charging Block still
    on the map becomes Disrupted; one that already was withdraws one Zone and leaves the map, to come back as
    a Steady reinforcement two turns later (recorded in ``returning``). Returns the new state.
    """
    deck = deck or default_deck()
    here = st.in_zone(attacker_zone)
    if not here or here[0].block.kind != "cavalry":
        raise RuleViolation("27.2", f"a Grand Charge is led by Cavalry; {attacker_zone} has none in the lead")
    side = here[0].side
    charging = tuple(u.id for u in here if u.block.kind == "cavalry")
    for uid in charging:
        if st.unit(uid).block.state != "steady":
            raise RuleViolation("27.2", f"only Steady Cavalry joins a Grand Charge ({uid} is "
                                        f"{st.unit(uid).block.state})")
    for uid in charging:
        st = _set_block(st, uid, replace(st.unit(uid).block, formation="grand_charge"))
    zone, target = attacker_zone, target_zone

    def on_map(uid):
        return any(x.id == uid for x in st.units)

    for n in (1, 2):
        setup = combat_from_map(st, zone, target, "assault")
        lead_block = setup.attacker.lead
        special = "grand_charge" if lead_block.formation == "grand_charge" else "none"
        setup = replace(setup, special=special, card_shifts=card_shifts,
                        attacker=replace(setup.attacker, wings=()))          # 27.2: no wing support
        yield Log("27.2", f"Grand Charge, assault {n}: {zone} -> {target}")
        out = yield from resolve(setup, deck, st.pile)
        st = yield from apply_outcome(st, zone, target, out)
        movers = tuple(u for u in charging if on_map(u) and st.unit(u).zone == zone)
        advanced = False
        if movers and movers[0] == st.in_zone(zone)[0].id and out.zone_emptied and not st.in_zone(target):
            yield Log("27.2", "the Lead Cavalry must advance")
            st = yield from advance(st, zone, target, movers, deck=deck)
            zone, advanced = target, True
        if n == 2:
            break
        alive = [u for u in charging if on_map(u) and st.unit(u).zone == zone]
        if not alive or st.unit(alive[0]).block.state == "disrupted" or st.lead(zone).id != alive[0]:
            break
        if advanced:
            targets = tuple(z for z in st.scenario.graph.neighbours(zone)
                            if st.side_of_zone(z) == ENEMY[side] and not st.scenario.impassable(zone, z))
        else:
            targets = (target,) if st.side_of_zone(target) == ENEMY[side] else ()
        if not targets:
            break
        again = yield Choose((True, False), rule="27.2", player=side, label="Grand Charge: assault a second time?")
        if not again:
            face, pile = yield from draw_card(st.pile, deck, "27.2", "check to call off the second assault")
            st = replace(st, pile=pile.discarded(face))
            lead = st.unit(alive[0])
            ok = read_check("general", deck.skill(face), lead.block.skill + (1 if st.hq_bonus_in(zone, side) else 0),
                            st.morale_of(side).good).success
            yield Log("27.2", f"{deck.skill(face)}: " + ("the charge stops" if ok else "it must charge again"))
            if ok:
                break
        target = targets[0] if len(targets) == 1 else (
            yield Choose(targets, rule="27.2", player=side, label="Grand Charge: second target"))
    returning = list(st.returning)
    for uid in charging:                         # 27.2: end of the charge
        if not on_map(uid):
            continue
        u = st.unit(uid)
        if u.block.state == "disrupted":
            yield Log("27.2", f"{uid} was already Disrupted: it withdraws and leaves the map for two turns")
            st = replace(st, units=tuple(x for x in st.units if x.id != uid))
            returning.append((replace(u, block=replace(u.block, state="steady", formation="none")), st.turn + 2))
        else:
            st = _set_block(st, uid, replace(u.block, state="disrupted", formation="none"))
    return replace(st, returning=tuple(returning),
                   log=st.log + (f"grand charge from {attacker_zone} ends",))


def eliminate_hq(st: GameState, hq_id: str) -> GameState:
    """An HQ marker is eliminated (27.10): it leaves the map, its army loses one Morale as for a Block (26.0),
    and it is due back the next turn as a reinforcement, Disrupted, in a Zone holding a friendly Block."""
    h = next((x for x in st.hqs if x.id == hq_id), None)
    if h is None:
        raise RuleViolation("27.10", f"no HQ marker {hq_id!r} on the map")
    st = replace(st, hqs=tuple(x for x in st.hqs if x.id != hq_id),
                 hqs_out=st.hqs_out + ((replace(h, hq=replace(h.hq, state="disrupted")), st.turn + 1),),
                 log=st.log + (f"{hq_id} eliminated: back on turn {st.turn + 1} (27.10)",))
    return _morale(st, h.side, -1)


def due_reinforcements(st: GameState, side: str) -> dict[str, str | None]:
    """Blocks of ``side`` due to arrive now (18.0): the scenario's schedule (Block id -> entry Zone) and the
    Cavalry back from a Grand Charge two turns on (27.2; Block id -> None: the player picks the Zone)."""
    out: dict[str, str | None] = {r.id: r.zone for r in st.scenario.model.reinforcements
                                  if r.side == side and r.turn <= st.turn and r.id not in st.arrived}
    out.update({u.id: None for u, t in st.returning if u.side == side and t <= st.turn})
    out.update({h.id: None for h, t in st.hqs_out if h.side == side and t <= st.turn})     # 27.10
    return out


def reinforcements(st: GameState, side: str, zones: dict[str, str] | None = None,
                   moves: list[tuple] = (), roadway: tuple[str, ...] = (), deck: Deck | None = None):
    """Procedure: the Yellow Cube's Reinforcement step for ``side`` (18.0): every due Block is placed, then the
    Steady ones make a free Move Order that needs no command range and no Out of Command check (19.1; Roadway
    moves allowed, 19.3). A scenario Block enters at its scheduled Zone; a Cavalry back from a Grand Charge
    (27.2) comes back Steady in a Zone of ``zones`` that holds or borders a friendly HQ and borders no enemy
    Block; an eliminated HQ marker (27.10) comes back Disrupted in a Zone of ``zones`` holding a friendly Block.
    Only arriving Blocks may move. Returns the new state."""
    zones = dict(zones or {})
    due = due_reinforcements(st, side)
    if not due:
        raise RuleViolation("18.0", f"no {side} reinforcement is due on turn {st.turn}")
    sc = st.scenario
    placed, hq_placed = [], []
    for uid, entry in due.items():
        hq_back = next((h for h, _ in st.hqs_out if h.id == uid), None)
        if hq_back is not None:            # 27.10: an eliminated HQ returns Disrupted with a friendly Block
            z = zones.get(uid)
            if z is None:
                raise RuleViolation("27.10", f"say where {uid} comes back (a Zone holding a friendly Block)")
            sc.zone(z)
            if st.side_of_zone(z) != side:
                raise RuleViolation("27.10", f"{uid} comes back in a Zone holding a friendly Block, not {z}")
            st = replace(st, hqs=st.hqs + (replace(hq_back, zone=z),), hqs_out=tuple(r for r in st.hqs_out if r[0].id != uid))
            _check_stacking(st, z)
            yield Log("27.10", f"{uid} comes back Disrupted in {z}")
            hq_placed.append(uid)
            continue
        if entry is None:
            unit = next(u for u, _ in st.returning if u.id == uid)
            z = zones.get(uid)
            if z is None:
                raise RuleViolation("27.2", f"say where {uid} comes back (a Zone with or next to a friendly HQ)")
            sc.zone(z)
            hq_near = any(h.zone == z or sc.graph.adjacent(h.zone, z) for h in st.hqs if h.side == side)
            if not hq_near:
                raise RuleViolation("27.2", f"{uid} comes back in or next to a friendly HQ's Zone, not {z}")
            if any(st.side_of_zone(n) == ENEMY[side] for n in sc.graph.neighbours(z)) or \
                    st.side_of_zone(z) == ENEMY[side]:
                raise RuleViolation("27.2", f"{uid} cannot come back next to the enemy ({z})")
            st = replace(st, units=st.units + (replace(unit, zone=z),),
                         returning=tuple(r for r in st.returning if r[0].id != uid))
        else:
            r = next(r for r in sc.model.reinforcements if r.id == uid)
            if st.side_of_zone(entry) == ENEMY[side]:
                raise RuleViolation("18.0", f"{uid} cannot enter: enemy Blocks hold {entry}")
            block = Block.from_model(BlockModel(**r.model_dump(exclude={"id", "side", "zone", "facing", "turn"})))
            st = replace(st, units=st.units + (Unit(uid, side, block, entry, r.facing),), arrived=st.arrived + (uid,))
            z = entry
        _check_stacking(st, z)
        placed.append(uid)
        yield Log("18.0", f"{uid} arrives in {z}")
    for uid, _ in moves:
        if uid not in placed:
            raise RuleViolation("19.1", f"only the arriving Blocks use the free Move Order, not {uid}")
        if st.unit(uid).block.state != "steady":
            raise RuleViolation("19.1", f"only Steady reinforcements get the free Move Order ({uid})")
    if moves:                       # 18.0: each new Block arrives with its own free Move Order
        st = yield from _each_move(st, side, list(moves), roadway, deck)
    return replace(st, log=st.log + (f"{side} reinforcements: {placed + hq_placed}",))


def _each_move(st: GameState, side: str, moves: list[tuple], roadway, deck):
    for m in moves:
        st = yield from move_order(st, side, [st.unit(m[0]).zone], [m], deck,
                                   roadway=tuple(r for r in roadway if r == m[0]), free_in_command=True)
    return st


def map_combat(st: GameState, attacker_zone: str, target_zone: str, attack: str, deck: Deck | None = None,
               engaged: tuple[str, ...] = ()):
    """Procedure: a whole combat on the map: resolve it (same procedure as the calculators), then apply it."""
    deck = deck or default_deck()
    setup = combat_from_map(st, attacker_zone, target_zone, attack, engaged)
    out = yield from resolve(setup, deck, st.pile)
    return (yield from apply_outcome(st, attacker_zone, target_zone, out))


def apply_outcome(st: GameState, attacker_zone: str, target_zone: str, out: CombatOutcome):
    """Procedure: put a combat outcome on the map: Block states and steps, Morale, then retreats one Zone at a
    time chosen by the enemy (24.1)."""
    att, dfn = st.in_zone(attacker_zone), st.in_zone(target_zone)
    st = replace(st, redoubt_held=())        # 28.5: only the last combat's retreat may let an advance eliminate
    roles = {"attacker_lead": att[0], "attacker_second": att[1] if len(att) > 1 else None,
             "defender_lead": dfn[0], "defender_second": dfn[1] if len(dfn) > 1 else None}
    a_side, d_side = att[0].side, dfn[0].side
    for f in out.blocks:
        u = roles[f.role]
        if u is None:
            continue
        if f.eliminated:
            st = replace(st, units=tuple(x for x in st.units if x.id != u.id))
            continue
        formation = f.formation
        if formation == "roadway" and f.role.startswith("defender"):
            formation = "none"       # 19.3: attacked, it loses the Roadway marker and stays Disrupted
        b = replace(u.block, state=f.state, formation=formation, square_hits=f.square_hits,
                    steps_lost=u.block.steps_lost + f.steps_lost, skill=f.skill, redoubt_cubes=f.redoubt_cubes)
        st = _set_block(st, u.id, b)
    st = _morale(st, a_side, out.attacker_morale)
    st = _morale(st, d_side, out.defender_morale)
    for who, what in out.hq_fates:                 # 27.11: an HQ hit flips it to Disrupted
        if what.startswith("HQ hit"):
            zone = attacker_zone if who == "attacker" else target_zone
            side = a_side if who == "attacker" else d_side
            for h in st.hqs_in(zone, side):
                if h.hq.state == "disrupted":
                    st = eliminate_hq(st, h.id)        # 27.10 (our reading: no side left below Disrupted)
                else:
                    st = replace(st, hqs=tuple(replace(x, hq=replace(x.hq, state="disrupted")) if x.id == h.id
                                               else x for x in st.hqs))
    if out.pile is not None:
        st = replace(st, pile=out.pile)
    for s_, lost in ((a_side, out.attacker_tokens_lost), (d_side, out.defender_tokens_lost)):
        if lost:                                   # 23.5 Death Head: Attack Tokens off the Army Mat
            st = replace(st, tokens=tuple((x, max(0, n - lost) if x == s_ else n) for x, n in st.tokens))
    for f in out.blocks:
        u = roles[f.role]
        if u is None or f.eliminated:
            continue
        for _ in range(f.retreats):
            if not any(x.id == u.id for x in st.units):
                break
            st = yield from retreat_block(st, u.id, ENEMY[u.side])
    return replace(st, log=st.log + (f"combat {attacker_zone} -> {target_zone}: {out.result}",))


# ------------------------------------------------------------------------------------------------
# Rally orders (20.0)
# ------------------------------------------------------------------------------------------------
def rally_zone(st: GameState, side: str, zone: str, deck: Deck | None = None):
    """Procedure: a Zone Rally Order (20.0, 21.1): one card for every Block (and HQ) in the Zone; each that
    passes goes one Battle State better (Disrupted Infantry to Shaken first). Returns ``(state, cube_back)``."""
    deck = deck or default_deck()
    st.scenario.zone(zone)
    here = [u for u in st.in_zone(zone) if u.side == side]
    hqs_here = st.hqs_in(zone, side)
    if not here and not hqs_here:
        raise RuleViolation("20.0", f"no {side} Block or HQ in Zone {zone}")
    if dict(st.reserve)[side] < 1:
        raise RuleViolation("20.0", "a Rally Order costs one cube from the Reserve Orders Box")
    face, pile = yield from draw_card(st.pile, deck, "21.1", f"rally {zone}")
    icon = deck.skill(face)
    st = replace(st, pile=pile.discarded(face))
    m = st.morale_of(side)
    hq = st.hq_bonus_in(zone, side)                 # 21.0 +1; 29.1: not a main HQ in Command Perspective
    enemy_adj = any(st.side_of_zone(n) == ENEMY[side] for n in st.scenario.graph.neighbours(zone))
    cube_back = False
    morale_loss = 0
    for u in here:
        out = read_check("rally", icon, u.block.skill + (1 if hq else 0), m.good, enemy_adjacent=enemy_adj,
                         in_square=u.block.square)
        cube_back = cube_back or out.cube_back
        morale_loss = min(morale_loss, out.morale)
        if out.success and u.block.state != "steady":
            nxt = "shaken" if (u.block.infantry and u.block.state == "disrupted") else "steady"
            st = _set_block(st, u.id, replace(u.block, state=nxt))
    for h in hqs_here:                          # 20.0: the HQs in the Zone rally too, with their own skill
        out = read_check("rally", icon, h.hq.skill, m.good, enemy_adjacent=enemy_adj)   # 21.0: no bonus to itself
        cube_back = cube_back or out.cube_back
        morale_loss = min(morale_loss, out.morale)
        if out.success and h.hq.state != "steady":
            st = replace(st, hqs=tuple(replace(x, hq=replace(x.hq, state="steady")) if x.id == h.id else x
                                       for x in st.hqs))
    st = _morale(st, side, morale_loss)         # one Morale for the Zone at most (21.1)
    if not cube_back:
        st = replace(st, reserve=tuple((s, n - 1 if s == side else n) for s, n in st.reserve))
    yield Log("21.1", f"rally {zone}: {icon}")
    return st, cube_back


def rally_army(st: GameState, side: str, deck: Deck | None = None):
    """Procedure: an Army Rally Order (20.0, 21.1) with the Army Commander's skill: needs a Steady HQ and a
    reserve cube; a pass raises Morale by one (never over the maximum, never back to Good Morale), an Officer
    keeps the cube, a Death Head costs one Morale. Returns ``(state, cube_back)``."""
    deck = deck or default_deck()
    if not any(h.side == side and h.hq.kind == "hq" and h.hq.state == "steady" for h in st.hqs):
        raise RuleViolation("20.0", "an Army Rally needs a Steady HQ")
    if dict(st.reserve)[side] < 1:
        raise RuleViolation("20.0", "a Rally Order costs one cube from the Reserve Orders Box")
    face, pile = yield from draw_card(st.pile, deck, "21.1", f"{side} army rally")
    st = replace(st, pile=pile.discarded(face))
    out = read_check("rally", deck.skill(face), st.commander(side).skill, st.morale_of(side).good, army=True)
    yield Log("21.1", f"army rally: {out.icon}, {'success' if out.success else 'no rally'}")
    if out.success:
        st = _morale(st, side, +1, army_rally=True)
    st = _morale(st, side, out.morale)
    if not out.cube_back:
        st = replace(st, reserve=tuple((s_, n - 1 if s_ == side else n) for s_, n in st.reserve))
    return st, out.cube_back


# ------------------------------------------------------------------------------------------------
# The turn (16.1, 16.2, 18.0)
# ------------------------------------------------------------------------------------------------
def start_turn(st: GameState, daylight: bool = True, gold: bool = False,
               reserve_to_cup: dict[str, int] | None = None) -> GameState:
    """Turn Preparation (16.1): refill the cup and the Attack Tokens from the commanders and the state."""
    both = {s: (sum(1 for h in st.hqs if h.side == s and h.hq.state == "steady" and h.hq.kind == "hq") > 0 and
                sum(1 for h in st.hqs if h.side == s and h.hq.state == "steady" and h.hq.kind == "shq") > 0)
            for s in ("french", "coalition")}
    coms = {s: {"cubes": max(0, c.cubes - (1 if st.in_perspective(s) else 0)),   # 29.1: one cube fewer
                "tokens": c.tokens, "skill": c.skill}
            for s, c in st.scenario.model.commanders.items()}
    t = prepare_turn(coms, st.initiative, daylight, both, dict(st.reserve), dict(st.tokens), gold=gold,
                     reserve_to_cup=reserve_to_cup)
    return replace(st, cup=t.cup, drawn=(), tokens=t.tokens, reserve=t.reserve, redoubt_held=(),
                   log=st.log + tuple(f"[{r}] {w}" for r, w in t.lines))


def draw_cards(st: GameState, side: str, n: int, deck: Deck | None = None):
    """Procedure: ``side`` draws ``n`` cards one by one into its hand (15.0), then discards down to six cards,
    choosing which."""
    deck = deck or default_deck()
    for i in range(n):
        face, pile = yield from draw_card(st.pile, deck, "15.0", f"{side} draws a card")
        st = replace(st, pile=pile, hands=tuple((s_, h + (face,) if s_ == side else h) for s_, h in st.hands))
    while len(st.hand(side)) > HAND_LIMIT:
        card = yield Choose(st.hand(side), rule="15.0", player=side, label="discard down to six cards")
        hand = list(st.hand(side))
        hand.remove(card)
        st = replace(st, pile=st.pile.discarded(card),
                     hands=tuple((s_, tuple(hand) if s_ == side else h) for s_, h in st.hands))
    return st


def turn_card_draws(st: GameState, deck: Deck | None = None):
    """Procedure: the four cards each player draws at turn start (16.1), initiative player first (13.2)."""
    first = st.initiative
    for side in (first, ENEMY[first]):
        st = yield from draw_cards(st, side, 4, deck)
    return st


def order_cube_draw(st: GameState, deck: Deck | None = None):
    """Procedure: draw one order cube (16.2) and return ``(state, colour, turn_over)``.

    A colour chosen with a Gold cube comes out without a draw; a cube of the colour just passed goes back
    once (Pass Order, 18.0); a Black cube that is not the last makes both players draw a card (18.0); the last
    Black cube ends the turn (16.2). Acting on other cubes (orders, rallies, combats) is up to the players.
    """
    if st.cup is None:
        raise RuleViolation("16.1", "prepare the turn first: the cup is empty")
    colour, left, returned, last = yield from cube_draw(st.cup, st.passed, st.forced_next)   # 16.2, 18.0
    st = replace(st, forced_next=None)
    if returned:
        return replace(st, passed=None), colour, False
    st = replace(st, passed=None)
    st = replace(st, cup=left if left.size else None, drawn=st.drawn + (colour,))
    if last:
        yield Log("16.3", "the last Black cube ends the turn")
        return replace(st, turn=st.turn + 1, cup=None), colour, True
    if colour == "black":
        for side in (st.initiative, ENEMY[st.initiative]):
            st = yield from draw_cards(st, side, 1, deck)
    return st, colour, False


def purchase(st: GameState, side: str, cards: tuple[int, ...], buy: str) -> GameState:
    """Yellow cube purchase (18.0): each card discarded from the hand buys one reserve cube (up to commander
    skill + 5) or one Attack Token (up to skill + 10); enemy cards may be spent too (22.0)."""
    hand = list(st.hand(side))
    for c in cards:
        if c not in hand:
            raise RuleViolation("18.0", f"card {c} is not in the {side} hand")
        hand.remove(c)
    if buy not in ("cubes", "tokens"):
        raise RuleViolation("18.0", "buy cubes or tokens")
    pile = st.pile
    for c in cards:
        pile = pile.discarded(c)
    st = replace(st, pile=pile, hands=tuple((s_, tuple(hand) if s_ == side else h) for s_, h in st.hands))
    for _ in cards:
        st = in_reserve(st, side) if buy == "cubes" else ready_arms(st, side)
    return st


def flag_control(st: GameState, previous: dict[str, str] | None = None) -> dict[str, str]:
    """Who controls each Victory Flag Zone (17.0): the last side with an Infantry or Garrison Block there;
    ``previous`` is the control before this state (a scenario's start when None)."""
    out = dict(previous or {})
    for z, m in st.scenario.model.zones.items():
        if m.flag == "none":
            continue
        foot = [u for u in st.in_zone(z) if u.block.kind in ("infantry", "long_infantry", "garrison")]
        if foot:
            out[z] = foot[0].side
    return out


def flag_victory(st: GameState, control: dict[str, str]) -> dict:
    """End-of-game Flag Control Victory (17.0): each side counts the Zones of its own flag colour it controls
    (an enemy Block present cancels control for the moment; five at most); a tie goes to the only army in Good
    Morale, otherwise it stands."""
    counts = {"french": 0, "coalition": 0}
    for z, m in st.scenario.model.zones.items():
        side = control.get(z)
        if side is None or m.flag not in (side, "both"):
            continue
        if any(u.side != side for u in st.in_zone(z)):
            continue
        counts[side] = min(counts[side] + 1, 5)
    if counts["french"] != counts["coalition"]:
        winner = max(counts, key=counts.get)
    else:
        good = [s_ for s_ in counts if st.morale_of(s_).good]
        winner = good[0] if len(good) == 1 else None
    return {"flags": counts, "winner": winner}


def pass_order(st: GameState, side: str) -> GameState:
    """Pass Order (18.0): the drawn own cube is discarded; a next draw of the same colour goes back."""
    return replace(st, passed=SIDE_COLOUR[side], log=st.log + (f"{side} passes",))


def gold_choice(st: GameState, colour: str | None):
    """Gold cube (18.0): the scenario's player names the next cube's colour (it must be in the cup), or, with
    ``colour=None``, draws an event card instead. A procedure (a card may be drawn)."""
    if colour is None:
        side = st.initiative
        return (yield from draw_cards(st, side, 1))
    if st.cup is None or st.cup.count(colour) < 1:
        raise RuleViolation("18.0", f"no {colour} cube left in the cup")
    return replace(st, forced_next=colour)


def command_perspective(st: GameState, side: str, rally_order: bool = True) -> GameState:
    """Optional rule 29.1: with a Rally Order (one reserve cube, 20.0) the Army Commander moves to the rear.
    From then on the side's main HQ gives no +1 Skill (its SHQs still do), its command range is one Zone
    longer, the Commander puts one cube fewer in the cup (16.1), and a Fate of War card that would put him
    Hors de Combat is drawn again once (in combat). An SHQ is not affected. ``rally_order=False``: the switch
    set before play (no cube spent)."""
    if st.in_perspective(side):
        raise RuleViolation("29.1", f"the {side} Army Commander is already in Command Perspective")
    if not any(h.side == side and h.hq.kind == "hq" for h in st.hqs):
        raise RuleViolation("29.1", f"the {side} army has no main HQ marker on the map")
    if rally_order and dict(st.reserve)[side] < 1:
        raise RuleViolation("20.0", "a Rally Order costs one cube from the Reserve Orders Box")
    paid = 1 if rally_order else 0
    hqs = tuple(replace(h, hq=replace(h.hq, perspective=True)) if h.side == side and h.hq.kind == "hq" else h
                for h in st.hqs)
    return replace(st, hqs=hqs, reserve=tuple((s_, n - paid if s_ == side else n) for s_, n in st.reserve),
                   log=st.log + (f"{side} Army Commander takes Command Perspective (29.1)",))


def in_reserve(st: GameState, side: str) -> GameState:
    """In Reserve Order (18.0): keep the drawn own cube, up to commander skill + 5."""
    cap = st.commander(side).skill + 5
    n = dict(st.reserve)[side]
    if n >= cap:
        raise RuleViolation("18.0", f"the Reserve Orders Box holds at most {cap} cubes")
    return replace(st, reserve=tuple((s, k + 1 if s == side else k) for s, k in st.reserve))


def ready_arms(st: GameState, side: str) -> GameState:
    """Ready Arms Order (18.0): one more Attack Token, up to commander skill + 10."""
    cap = st.commander(side).skill + 10
    n = dict(st.tokens)[side]
    if n >= cap:
        raise RuleViolation("18.0", f"the Attack Token Box holds at most {cap} tokens")
    return replace(st, tokens=tuple((s, k + 1 if s == side else k) for s, k in st.tokens))


# ------------------------------------------------------------------------------------------------
# Cavalry withdrawal (24.2), advance after combat and artillery capture (25), end-of-turn withdrawals
# (24.3) and surrender (26)
# ------------------------------------------------------------------------------------------------
def cavalry_withdrawal(st: GameState, uid: str, attacker_zone: str):
    """Procedure: right after an Infantry or Artillery Lead declares an Assault on its Zone, a Cavalry or Horse
    Artillery there may withdraw one Zone (24.2); the owner picks the Zone."""
    u = st.unit(uid)
    lead = st.lead(attacker_zone)
    if lead is None or lead.side == u.side or not (lead.block.infantry or lead.block.artillery):
        raise RuleViolation("24.2", "only an Assault declared by an enemy Lead Infantry or Artillery allows it")
    if u.block.kind not in ("cavalry", "horse_artillery"):
        raise RuleViolation("24.2", f"a {u.block.kind} cannot make a Cavalry Withdrawal")
    return (yield from retreat_block(st, uid, u.side))


def advance(st: GameState, attacker_zone: str, target_zone: str, uids: tuple[str, ...],
            retreated_artillery: str | None = None, deck: Deck | None = None):
    """Procedure: Advance after an Assault (25.0) into the emptied target Zone: the Lead Attacker, its second
    line only with it, never Foot Artillery or wing supports; then the capture check for a Lead Artillery that
    just retreated from there (a Skill Check, one lower for Foot Artillery; failure costs a step)."""
    deck = deck or default_deck()
    held = [u for u in st.in_zone(target_zone) if u.id in st.redoubt_held]
    if len(held) < len(st.in_zone(target_zone)):
        raise RuleViolation("25.0", f"{target_zone} is not empty of Blocks")
    here = st.in_zone(attacker_zone)
    if not here:
        raise RuleViolation("25.0", f"no Blocks in {attacker_zone}")
    lead, second = here[0], (here[1] if len(here) > 1 else None)
    hq_ids = tuple(h.id for h in st.hqs_in(attacker_zone, lead.side) if h.id in uids)   # 25.0: HQs may go too
    if hq_ids and lead.id not in uids:
        raise RuleViolation("25.0", "an HQ marker advances with the Lead Attacker (our reading)")
    if hq_ids and st.hqs_in(target_zone):
        raise RuleViolation("9.3", f"{target_zone} already holds an HQ marker")
    uids = tuple(u for u in uids if u not in hq_ids)
    for uid in uids:
        if uid not in [x.id for x in here]:
            raise RuleViolation("25.0", f"{uid} is not in the assaulting Zone (wing supports never advance)")
        if st.unit(uid).block.kind == "artillery":
            raise RuleViolation("25.0", "Foot Artillery does not advance after combat")
    if second is not None and second.id in uids and lead.id not in uids:
        raise RuleViolation("25.0", "the second line advances only with the Lead Attacker")
    if not st.scenario.graph.adjacent(attacker_zone, target_zone):
        raise RuleViolation("25.0", "the target Zone must be next to the attacker's")
    if uids:
        for r in held:           # 28.5: a Redoubt Block that had to retreat is eliminated by the advance
            yield Log("28.5", f"{r.id} could not retreat from its Redoubt and the enemy advances: eliminated")
            st = replace(st, units=tuple(x for x in st.units if x.id != r.id),
                         redoubt_held=tuple(x for x in st.redoubt_held if x != r.id))
            st = _morale(st, r.side, -1)                                     # 26.0
    for uid in uids:
        u = st.unit(uid)
        st = replace(st, units=tuple(x for x in st.units if x.id != uid) + (replace(u, zone=target_zone),))
    if hq_ids:
        st = replace(st, hqs=tuple(replace(h, zone=target_zone) if h.id in hq_ids else h for h in st.hqs))
    if uids and retreated_artillery and any(x.id == retreated_artillery for x in st.units):   # 25.0: only on an advance
        art = st.unit(retreated_artillery)
        skill = art.block.skill - (1 if art.block.kind == "artillery" else 0)
        face, pile = yield from draw_card(st.pile, deck, "25.0", f"capture check for {art.id}")
        st = replace(st, pile=pile.discarded(face))
        ok = read_check("general", deck.skill(face), max(skill, 0), st.morale_of(art.side).good).success
        yield Log("25.0", f"capture check {deck.skill(face)}: {'guns saved' if ok else 'guns lost, one step'}")
        if not ok:
            st = _lose_step(st, art.id)
    return replace(st, log=st.log + (f"advance {uids} into {target_zone}",))


def give_ground(st: GameState, uid: str, deck: Deck | None = None):
    """Procedure: a Give Ground withdrawal at the last Black cube (24.3): an enemy-adjacent Block withdraws one
    Zone (owner's choice); if it started in an enemy Battle Zone it checks skill (21.2): Death Head = a hit and
    one Morale, other failures = a hit (a Disrupted Block hit withdraws again). Undisrupted skirmishers pass."""
    deck = deck or default_deck()
    u = st.unit(uid)
    sc = st.scenario
    if u.block.redoubt_block:
        raise RuleViolation("28.5", f"{uid} is an Artillery Redoubt Block: it never gives ground")
    if not any(st.side_of_zone(n) == ENEMY[u.side] for n in sc.graph.neighbours(u.zone)):
        raise RuleViolation("24.3", f"{uid} is not next to an enemy Block")
    started_in_ebz = u.zone in enemy_battle_zones(st, u.side)
    st = yield from retreat_block(st, uid, u.side)
    if not started_in_ebz or not any(x.id == uid for x in st.units):
        return st
    b = st.unit(uid).block
    if b.shots and b.kind in ("infantry", "long_infantry", "cavalry") and b.state != "disrupted":
        yield Log("24.3", "undisrupted skirmishers pass the check")
        return st
    face, pile = yield from draw_card(st.pile, deck, "24.3", f"give ground check for {uid}")
    st = replace(st, pile=pile.discarded(face))
    hq = st.hq_bonus_in(st.unit(uid).zone, u.side)
    out = read_check("general", deck.skill(face), b.skill + (1 if hq else 0), st.morale_of(u.side).good)
    if out.success:
        return st
    if out.icon == "death_head":
        st = _morale(st, u.side, -1)
    yield Log("24.3", f"give ground check failed ({out.icon}): a Cohesion Hit")
    return (yield from _hit(st, uid, u.side))


def surrender(st: GameState, uid: str) -> GameState:
    """Surrender at the last Black cube (26.0): a non-Steady Block next to an enemy Block and not next to a
    friendly Steady Block leaves the game, with no Morale lost."""
    u = st.unit(uid)
    sc = st.scenario
    if u.block.state == "steady":
        raise RuleViolation("26.0", f"{uid} is Steady: only a non-Steady Block may surrender")
    near = [x for n in sc.graph.neighbours(u.zone) for x in st.in_zone(n)]
    if not any(x.side != u.side for x in near):
        raise RuleViolation("26.0", f"{uid} is not next to an enemy Block")
    if any(x.side == u.side and x.block.state == "steady" for x in near):
        raise RuleViolation("26.0", f"{uid} is next to a friendly Steady Block")
    return replace(st, units=tuple(x for x in st.units if x.id != uid), log=st.log + (f"{uid} surrenders",))


def press_on(st: GameState, side: str, deck: Deck | None = None):
    """Procedure: Press On (optional 29.2) when the third Black cube is drawn: with a Steady HQ and Good Morale,
    a Skill Check with the commander's skill. Success: the cube goes back, two Morale lost; failure: one Morale;
    Officer: back, no loss; Death Head: nothing, both armies lose one Morale. Returns ``(state, cube_back)``."""
    deck = deck or default_deck()
    if not any(h.side == side and h.hq.kind == "hq" and h.hq.state == "steady" for h in st.hqs):
        raise RuleViolation("29.2", "Press On needs a Steady HQ")
    if not st.morale_of(side).good:
        raise RuleViolation("29.2", "Press On needs Good Morale")
    face, pile = yield from draw_card(st.pile, deck, "29.2", f"press on ({side})")
    st = replace(st, pile=pile.discarded(face))
    icon = deck.skill(face)
    if icon == "officer":
        return st, True
    if icon == "death_head":
        st = _morale(st, side, -1)
        return _morale(st, ENEMY[side], -1), False
    out = read_check("general", icon, st.commander(side).skill, True)
    if out.success:
        return _morale(st, side, -2), True
    return _morale(st, side, -1), False


# ------------------------------------------------------------------------------------------------
# Turn-start hands (15.0, 16.1) and reforming Blocks (9.2, 9.4, 27.3, 28.2)
# ------------------------------------------------------------------------------------------------
def cut_hands(st: GameState, deck: Deck | None = None):
    """Procedure: before the turn's four cards (16.1) each player throws away every enemy card (22.0) and
    keeps at most the commander's skill in own and shared cards, choosing which go (a Choose per card)."""
    deck = deck or default_deck()
    first = st.initiative
    for side in (first, ENEMY[first]):
        hand = [c for c in st.hand(side)]
        pile = st.pile
        for c in [c for c in hand if deck.card(c).side == ENEMY[side]]:
            hand.remove(c)
            pile = pile.discarded(c)
        keep = st.commander(side).skill
        while len(hand) > keep:
            c = yield Choose(tuple(hand), rule="16.1", player=side,
                             label=f"{side}: discard down to {keep} card(s) (commander skill)")
            hand.remove(c)
            pile = pile.discarded(c)
        st = replace(st, pile=pile, hands=tuple((s_, tuple(hand) if s_ == side else h) for s_, h in st.hands))
    return st


def facing_options(st: GameState, uid: str) -> tuple[tuple[str, ...], ...]:
    """The facings an Artillery (or Massed Column) may take (9.4): towards one bordering Zone, or towards two
    bordering Zones that border each other (our reading of "parallel to a Zone's side": the guns cover the
    Zone in front and may take in the next one along that front)."""
    u = st.unit(uid)
    sc = st.scenario
    nb = sorted(sc.graph.neighbours(u.zone))
    out = [(z,) for z in nb]
    out += [(a, b) for i, a in enumerate(nb) for b in nb[i + 1:] if sc.graph.adjacent(a, b)]
    return tuple(out)


def _faces(b: Block) -> bool:
    return (b.artillery and not b.redoubt_block) or b.formation == "massed_column"


def set_facing(st: GameState, uid: str, facing: tuple[str, ...]) -> GameState:
    """Face an Artillery or Massed Column towards ``facing`` (9.4, 28.2); an Artillery Redoubt never turns."""
    u = st.unit(uid)
    if u.block.redoubt_block:
        raise RuleViolation("28.5", f"{uid} is an Artillery Redoubt Block: its facing never changes")
    if not _faces(u.block):
        raise RuleViolation("9.4", f"only Artillery and Massed Columns have a facing, not {uid}")
    if tuple(facing) not in facing_options(st, uid):
        raise RuleViolation("9.4", f"{uid} faces one bordering Zone or two that border each other, not "
                                   f"{', '.join(facing) or 'nothing'}")
    return replace(st, units=tuple(replace(x, facing=tuple(facing)) if x.id == uid else x for x in st.units))


def needs_facing(st: GameState, u: Unit) -> bool:
    """An Artillery or Massed Column without a valid facing (9.4): ``()`` after a move, or a facing left
    over from another Zone after a retreat or an advance. ``None`` (a scenario's all-round set-up) is valid."""
    if not _faces(u.block) or u.facing is None:
        return False
    return not u.facing or not set(u.facing) <= set(st.scenario.graph.neighbours(u.zone))


def swap_lead(st: GameState, zone: str) -> GameState:
    """Swap the Lead and the Second Line Block of a Zone (9.4)."""
    here = st.in_zone(zone)
    if len(here) != 2:
        raise RuleViolation("9.4", f"Zone {zone} has no second line Block to swap with its Lead")
    if any(u.block.formation in ("massed_column", "grand_battery") for u in here):
        raise RuleViolation("28.2", f"the Blocks in {zone} act as one formation: no swap")
    a, b = here
    units = tuple(x for x in st.units if x.zone != zone)
    new = replace(st, units=units + (b, a))
    _check_stacking(new, zone)      # 28.5: an Artillery Redoubt Block stays the Lead
    return new


FORMATIONS = ("square", "massed_column", "none")


def set_formation(st: GameState, zone: str, formation: str) -> GameState:
    """Change the formation of the Lead Block of ``zone`` (9.2): ``square`` (non-Disrupted Infantry, 27.3: it
    is Steady while in Square), ``massed_column`` (two Steady Infantry, when the scenario allows it, 28.2) or
    ``none`` (back to line: a Square keeps its Battle State, a Massed Column splits)."""
    here = st.in_zone(zone)
    if not here:
        raise RuleViolation("9.2", f"no Block in Zone {zone}")
    lead = here[0]
    b = lead.block
    if formation not in FORMATIONS:
        raise RuleViolation("9.2", f"formation is one of {', '.join(FORMATIONS)}, not {formation!r}")
    if b.state == "disrupted" and formation != "none":
        raise RuleViolation("9.2", f"{lead.id} is Disrupted: it cannot change formation")
    if b.formation == formation:
        raise RuleViolation("9.2", f"{lead.id} is already in {formation.replace('_', ' ')}")
    if b.formation in ("roadway", "grand_charge", "grand_battery"):
        raise RuleViolation("9.2", f"{lead.id} is in {b.formation.replace('_', ' ')}: not changed this way")
    if formation == "square":
        if not b.infantry:
            raise RuleViolation("27.3", f"only Infantry forms a Square, not {lead.id}")
        if b.formation != "none":
            raise RuleViolation("27.3", f"{lead.id} leaves its {b.formation.replace('_', ' ')} first")
        nb = replace(b, formation="square", state="steady", square_hits=0)
        return _set_block(st, lead.id, nb)
    if formation == "massed_column":
        if not st.scenario.model.massed_column:
            raise RuleViolation("28.2", "this scenario allows no Massed Columns")
        if len(here) != 2 or not all(u.block.infantry and u.block.state == "steady" and u.block.formation == "none"
                                     for u in here):
            raise RuleViolation("28.2", f"a Massed Column is two Steady Infantry Blocks in line, not {zone}")
        st = _set_block(st, lead.id, replace(b, formation="massed_column"))
        return replace(st, units=tuple(replace(x, facing=()) if x.id == lead.id else x for x in st.units))
    if b.formation == "square":
        return _set_block(st, lead.id, replace(b, formation="none", square_hits=0))
    return _set_block(st, lead.id, replace(b, formation="none"))


def combat_move(st: GameState, zone: str, to: str) -> GameState:
    """A Combat Move (19.4) on a Red cube: a Steady Cavalry or Horse Artillery Lead moves one Zone with its
    Attack Token (placed by the caller), enemy Battle Zones and command range do not matter, nor is a Skill
    Check made. Our reading of "no split moves": a Second Line Block that is Steady Cavalry or Horse Artillery
    too goes with it, the others stay."""
    sc = st.scenario
    sc.zone(zone)
    sc.zone(to)
    lead = st.lead(zone)
    if lead is None or lead.block.kind not in ("cavalry", "horse_artillery") or lead.block.state != "steady" \
            or lead.block.formation not in ("none",):
        raise RuleViolation("19.4", f"only a Steady Cavalry or Horse Artillery Lead makes a Combat Move, not in {zone}")
    if not sc.graph.adjacent(zone, to) or sc.impassable(zone, to):
        raise RuleViolation("19.4", f"a Combat Move goes to a bordering Zone across passable ground, not {to}")
    if st.side_of_zone(to) == ENEMY[lead.side]:
        raise RuleViolation("9.3", f"{to} holds enemy Blocks")
    movers = [u for u in st.in_zone(zone)
              if u.id == lead.id or (u.block.kind in ("cavalry", "horse_artillery") and u.block.state == "steady")]
    ids = {u.id for u in movers}
    moved = tuple(replace(u, zone=to, facing=() if u.block.artillery else u.facing) for u in movers)
    rest = tuple(x for x in st.units if x.id not in ids)
    # the moving Lead leads in its new Zone (9.4: stacking is set after a move)
    new = replace(st, units=tuple(x for x in rest if x.zone != to) + moved + tuple(x for x in rest if x.zone == to))
    _check_stacking(new, to)
    return new
