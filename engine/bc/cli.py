"""``vedette bc ...``: Battle Commander calculators (JSON out, exact fractions).

Verbs: ``combat COMBAT`` (a combat file, docs/bc.md), ``check`` (a Skill Check), ``cup CUP`` (a cup file),
``deck`` (the deck's composition and next-card chances), ``scenario`` (the demonstration map's state),
``map-combat FROM TO`` (a combat set up from that map); and the game verbs of the core protocol,
``new|legal|act|undo|replay|play`` (:mod:`engine.bc.game.protocol`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, StrictBool

from engine.core.data import Strict, load_yaml
from engine.core.errors import DataError
from engine.core.game_cli import register_game_verbs

from .calc import (MAX_CUBES_PER_COLOUR, check_odds, combat_from_file, combat_odds, combat_tree, cup_odds, deck_summary,
                   load_card_file)
from .cup import COLOURS, Cup, prepare_turn
from .deck import load_deck, parse_card_list
from .game.combat import bombardment_from_map, combat_from_map
from .game.orders import command_perspective
from .game.protocol import BcRules
from .game.scenario import load_scenario
from .game.state import new_map
from .game.zones import battle_zones, command_zones, flanked_zones
from .terrain import load_terrain


def _deck(args):
    return load_deck(args.deck) if getattr(args, "deck", None) else load_deck()


def _cards(args, deck, extra_disc=(), extra_hand=()):
    disc, hand = (), ()
    if getattr(args, "discards", None):
        disc, hand = load_card_file(args.discards, deck)
    disc = tuple(disc) + tuple(extra_disc)
    hand = tuple(hand) + tuple(extra_hand)
    disc = parse_card_list(deck, disc, "discards", args.discards or "<combat file>")
    hand = parse_card_list(deck, hand, "hand", args.discards or "<combat file>")
    return disc, hand


def cmd_combat(args):
    deck = _deck(args)
    terrain = load_terrain(args.terrain) if args.terrain else None
    setup, model = combat_from_file(args.combat)
    disc, hand = _cards(args, deck, model.discards, model.hand)
    odds = combat_odds(setup, deck, disc, hand, terrain)
    out = {"combat": str(args.combat), "deck": deck.to_json(),
           "terrain": {"source": (terrain or load_terrain()).source},
           "discards": list(disc), "hand": list(hand), **odds.to_json()}
    if args.tree:
        out["tree"] = combat_tree(setup, deck, disc, hand, terrain, max_depth=args.depth)
    return out


def cmd_check(args):
    deck = _deck(args)
    disc, hand = _cards(args, deck)
    kw = {}
    if args.table == "rally":
        kw = {"army": args.army, "enemy_adjacent": args.enemy_adjacent, "in_square": args.square,
              "brittle": args.brittle, "near_steady_hq": args.near_hq}
    out = check_odds(args.table, args.skill, hq=args.hq, good_morale=not args.bad_morale, deck=deck,
                     discards=disc, hand=hand, leader_assist=args.leader, **kw)
    out["deck"] = deck.to_json()
    return out


_Count = Annotated[int, Field(strict=True, ge=0, le=MAX_CUBES_PER_COLOUR)]
_Skill = Annotated[int, Field(strict=True, ge=0, le=9)]
_Side = Literal["french", "coalition"]


class CommanderCard(Strict):
    """The Army Commander card values Turn Preparation uses (16.1): cubes, Attack Tokens, skill."""
    cubes: _Count
    tokens: _Count
    skill: _Skill
    name: str = ""
    range: _Skill | None = None


class PrepareBlock(Strict):
    """A cup file's ``prepare:`` block: the inputs of Turn Preparation (16.1, 13.2, 28.4)."""
    commanders: dict[_Side, CommanderCard]
    initiative: _Side
    daylight: StrictBool = True
    both_hqs_steady: dict[_Side, StrictBool] | None = None
    reserve: dict[_Side, _Count] | None = None
    tokens_left: dict[_Side, _Count] | None = None
    reserve_to_cup: dict[_Side, _Count] | None = None
    gold: StrictBool = False
    red: _Count = 3
    black: _Count = 3
    yellow: _Count = 2


class CupFile(Strict):
    cubes: dict[str, _Count] | None = None
    prepare: PrepareBlock | None = None
    own: str = "blue"
    passes: tuple[str, ...] = ()          # 18.0: colours whose player passes on each of his cubes
    gold_next: str | None = None          # 18.0: the colour named with the Gold cube (else an event card)


def _load_cup(path: str) -> tuple[Cup, str, dict | None, tuple[str, ...], str | None]:
    p = Path(path)
    m = load_yaml(p, CupFile)
    if (m.cubes is None) == (m.prepare is None):
        raise DataError(str(p), "cubes", "either 'cubes' (colour: count) or 'prepare' (turn preparation inputs)")
    if m.own not in ("blue", "white"):
        raise DataError(str(p), "own", "blue (French) or white (Coalition)", m.own)
    for c in m.passes:
        if c not in ("blue", "white"):
            raise DataError(str(p), "passes", "a list of blue / white (the colours that make Pass Orders)", c)
    if m.gold_next is not None and m.gold_next not in COLOURS:
        raise DataError(str(p), "gold_next", f"a cube colour ({', '.join(COLOURS)})", m.gold_next)
    if m.cubes is not None:
        return Cup.of(m.cubes), m.own, None, m.passes, m.gold_next
    prep = m.prepare   # validated by PrepareBlock: whole numbers in range, true/false, both sides (7.2, 16.1)
    for side in ("french", "coalition"):
        if side not in prep.commanders:
            raise DataError(str(p), f"prepare.commanders.{side}", "this side's Army Commander card (7.2, 16.1)")
    setup = prepare_turn({s: c.model_dump() for s, c in prep.commanders.items()}, prep.initiative, prep.daylight,
                         prep.both_hqs_steady, prep.reserve, prep.tokens_left, prep.reserve_to_cup, prep.gold,
                         prep.red, prep.black, prep.yellow)
    return setup.cup, m.own, setup.to_json(), m.passes, m.gold_next


def cmd_cup(args):
    cup, own, prep, passes, gold_next = _load_cup(args.cup)
    if args.own:
        own = args.own
    if args.passes:
        passes = tuple(args.passes)
    if args.gold_next:
        gold_next = args.gold_next
    out = cup_odds(cup, own, passes=passes, gold_next=gold_next)
    if prep:
        out["preparation"] = prep
    return out


def cmd_deck(args):
    deck = _deck(args)
    disc, hand = _cards(args, deck)
    return deck_summary(deck, disc, hand)


def _game(args):
    st = new_map(load_scenario(args.scenario) if args.scenario else None, _deck(args))
    for side in getattr(args, "perspective", None) or ():
        st = command_perspective(st, side, rally_order=False)
    return st


def cmd_scenario(args):
    st = _game(args)
    out = {"scenario": st.scenario.name, "source": st.scenario.model.source, **st.to_json()}
    out["battle_zones"] = {u.id: sorted(battle_zones(st, u)) for u in st.units}
    out["flanked_zones"] = {u.id: sorted(flanked_zones(st, u)) for u in st.units}
    out["command_range"] = {h.id: sorted(command_zones(st, h.id)) for h in st.hqs}
    return out


def cmd_map_combat(args):
    st = _game(args)
    deck = _deck(args)
    terrain = load_terrain(args.terrain) if args.terrain else None
    setup = combat_from_map(st, args.attacker_zone, args.target_zone, args.attack)
    disc, hand = _cards(args, deck)
    odds = combat_odds(setup, deck, disc, hand, terrain)
    return {"scenario": st.scenario.name, "attacker_zone": args.attacker_zone, "target_zone": args.target_zone,
            "deck": deck.to_json(), **odds.to_json()}


def cmd_bombard(args):
    st = _game(args)
    deck = _deck(args)
    terrain = load_terrain(args.terrain) if args.terrain else None
    setup = bombardment_from_map(st, args.artillery_zone, args.target_zone, terrain)
    disc, hand = _cards(args, deck)
    odds = combat_odds(setup, deck, disc, hand, terrain)
    return {"scenario": st.scenario.name, "artillery_zone": args.artillery_zone, "target_zone": args.target_zone,
            "range": setup.bombard_range, "line_of_sight": "clear" if setup.bombard_range == 2 else "adjacent",
            "deck": deck.to_json(), **odds.to_json()}


def register(subparsers) -> None:
    p = subparsers.add_parser("bc", help="Battle Commander: combat, skill check and cube-cup odds (exact)",
                              description="Battle Commander calculators. Every probability is exact "
                                          "(fraction string plus float).")
    verbs = p.add_subparsers(dest="verb", metavar="VERB")

    c = verbs.add_parser("combat", help="exact outcome distribution of a Fire or Assault combat")
    c.add_argument("combat", help="combat file (YAML/JSON, see docs/bc.md)")
    c.add_argument("--discards", help="known discard pile: a list of card numbers, or {discards: [...], hand: [...]}")
    c.add_argument("--deck", help="deck file (default: the shipped provisional deck)")
    c.add_argument("--terrain", "--tables", dest="terrain", help="terrain chart file (default: provisional)")
    c.add_argument("--tree", action="store_true", help="include the probability tree")
    c.add_argument("--depth", type=int, default=3, help="tree depth shown with --tree")
    c.set_defaults(handler=cmd_combat)

    k = verbs.add_parser("check", help="exact chances of a Skill Check (21.x)")
    k.add_argument("--table", choices=("rally", "general", "command"), default="general")
    k.add_argument("--skill", type=int, required=True, help="Block (or Army Commander) skill 0..4")
    k.add_argument("--hq", action="store_true", help="a Steady HQ/SHQ in the Zone (+1 skill, 21.0)")
    k.add_argument("--bad-morale", action="store_true", help="the army is in Bad Morale (13.1)")
    k.add_argument("--army", action="store_true", help="an Army Rally (20.0)")
    k.add_argument("--enemy-adjacent", action="store_true", help="the rallying Zone is next to the enemy (21.1)")
    k.add_argument("--square", action="store_true", help="the rallying Block is in Square (21.1)")
    k.add_argument("--brittle", action="store_true", help="Brittle army (29.5)")
    k.add_argument("--near-hq", action="store_true", help="in or next to a Steady HQs (29.5)")
    k.add_argument("--leader", action="store_true", help="discard a Leader card: automatic Officer (29.6)")
    k.add_argument("--discards", help="known discard pile file")
    k.add_argument("--deck", help="deck file")
    k.set_defaults(handler=cmd_check)

    u = verbs.add_parser("cup", help="exact cube-cup odds: own orders before the turn ends, turn length")
    u.add_argument("cup", help="cup file (YAML/JSON): cubes: {blue: 8, ...} or prepare: {...}, see docs/bc.md")
    u.add_argument("--own", choices=("blue", "white"), help="whose orders to count (default from the file)")
    u.add_argument("--pass", dest="passes", action="append", choices=("blue", "white"),
                   help="this colour's player makes a Pass Order on each of his cubes (18.0); repeatable")
    u.add_argument("--gold-next", choices=("blue", "white", "yellow", "red", "black"),
                   help="the colour named when the Gold cube comes out (18.0); default: an event card instead")
    u.set_defaults(handler=cmd_cup)

    d = verbs.add_parser("deck", help="deck composition and chances of each result on the next card")
    d.add_argument("--deck", help="deck file")
    d.add_argument("--discards", help="known discard pile file")
    d.set_defaults(handler=cmd_deck)

    sc = verbs.add_parser("scenario", help="the demonstration scenario's map state: Blocks, Battle Zones, ranges")
    sc.add_argument("--scenario", help="scenario file (default: the invented demonstration scenario)")
    sc.add_argument("--deck", help="deck file")
    sc.add_argument("--perspective", action="append", choices=("french", "coalition"),
                    help="optional rule 29.1: this side's Army Commander is in Command Perspective")
    sc.set_defaults(handler=cmd_scenario)

    mc = verbs.add_parser("map-combat", help="exact odds of a combat set up from the scenario map")
    mc.add_argument("attacker_zone")
    mc.add_argument("target_zone")
    mc.add_argument("--attack", choices=("fire", "assault"), default="assault")
    mc.add_argument("--scenario", help="scenario file")
    mc.add_argument("--deck", help="deck file")
    mc.add_argument("--terrain", "--tables", dest="terrain", help="terrain chart file")
    mc.add_argument("--discards", help="known discard pile file")
    mc.add_argument("--perspective", action="append", choices=("french", "coalition"),
                    help="optional rule 29.1: this side's Army Commander is in Command Perspective")
    mc.set_defaults(handler=cmd_map_combat)

    bb = verbs.add_parser("bombard", help="exact odds of an Artillery Bombardment (27.5) on the scenario map, "
                                          "one or two Zones away (line of sight checked)")
    bb.add_argument("artillery_zone")
    bb.add_argument("target_zone")
    bb.add_argument("--scenario", help="scenario file")
    bb.add_argument("--deck", help="deck file")
    bb.add_argument("--terrain", "--tables", dest="terrain", help="terrain chart file")
    bb.add_argument("--discards", help="known discard pile file")
    bb.add_argument("--perspective", action="append", choices=("french", "coalition"),
                    help="optional rule 29.1 for this side")
    bb.set_defaults(handler=cmd_bombard)

    register_game_verbs(verbs, BcRules)      # new | legal | act | undo | replay | play (the game protocol)

    def no_verb(args):
        p.print_help()
        raise DataError("vedette bc", "VERB", "one of combat, check, cup, deck, scenario, map-combat, bombard, "
                                              "new, legal, act, undo, replay, play")
    p.set_defaults(handler=no_verb)
