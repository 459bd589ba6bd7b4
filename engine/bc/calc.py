"""Calculators: exact odds for combats, skill checks and the cube cup, as JSON-able summaries.

Everything here runs the rules procedures (:mod:`.combat`, :mod:`.checks`, :mod:`.cup`) through the
core enumerate driver; nothing re-computes a rule. The CLI, the dashboard page and the notebook call these.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any


from engine.core.data import load_data, parse_yaml, read_text
from engine.core.dist import Dist, prob_json
from engine.core.errors import DataError, LimitError, RuleViolation
from engine.core.procedure import distribution, enumerate_tree, jsonable

from .checks import check_procedure, effective_skill
from .combat import CombatOutcome, combat_procedure, neutral_policy
from .tally import CombatModel, CombatSetup, prepare
from .terrain import Terrain, default_terrain
from .cup import COLOURS, Cup, cup_policy, turn_procedure
from .deck import COLUMNS, Deck, Pile, default_deck, draw_card, parse_card_list

__all__ = ["load_card_file", "combat_odds", "check_odds", "next_card_odds", "cup_odds", "deck_summary",
           "combat_from_file", "combat_from_text", "summarise_combat"]


def load_card_file(path: str | Path, deck: Deck) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A discards file: a YAML/JSON list of card numbers, or ``{discards: [...], hand: [...]}``."""
    p = Path(path)
    return parse_card_data(load_data(p), deck, str(p))


def parse_card_data(data: Any, deck: Deck, file: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if data is None:
        return (), ()
    if isinstance(data, list):
        return parse_card_list(deck, data, "discards", file), ()
    if isinstance(data, dict):
        extra = set(data) - {"discards", "hand"}
        if extra:
            raise DataError(file, sorted(extra)[0], "no such field (discards and hand only)")
        disc = parse_card_list(deck, data.get("discards") or [], "discards", file)
        hand = parse_card_list(deck, data.get("hand") or [], "hand", file)
        both = sorted(set(disc) & set(hand))
        if both:
            raise DataError(file, "hand", f"cards not also in the discard pile (both name {both})")
        return disc, hand
    raise DataError(file, "", "a list of card numbers, or a mapping with discards and hand")


def combat_from_text(text: str, file: str = "<input>") -> tuple[CombatSetup, CombatModel]:
    model = parse_yaml(text, CombatModel, file)
    return CombatSetup.from_model(model), model


def combat_from_file(path: str | Path) -> tuple[CombatSetup, CombatModel]:
    p = Path(path)
    return combat_from_text(read_text(p), str(p))


def _p(d: Dist, pred) -> dict:
    return prob_json(d.prob(pred))


def summarise_combat(dist: Dist, redoubt_roles: tuple[str, ...] = ()) -> dict:
    """The questions players ask of a combat's outcome distribution, each as an exact fraction.
    ``redoubt_roles``: the Artillery Redoubt Blocks (28.5) whose cubes left are reported."""
    out: dict[str, Any] = {
        "result": dist.map(lambda o: o.result).to_json(),
        "attacker_morale": dist.map(lambda o: o.attacker_morale).to_json(),
        "defender_morale": dist.map(lambda o: o.defender_morale).to_json(),
        "critical": dist.map(lambda o: o.critical or "none").to_json(),
        "defender_lead_retreats": _p(dist, lambda o: (f := o.fate("defender_lead")) is not None and f.retreats > 0),
        "defender_zone_emptied": _p(dist, lambda o: o.zone_emptied),
        "defender_lead_eliminated": _p(dist, lambda o: o.fate("defender_lead").eliminated),
        "attacker_lead_eliminated": _p(dist, lambda o: o.fate("attacker_lead").eliminated),
        "defender_lead_state": dist.map(lambda o: _state(o, "defender_lead")).to_json(),
        "attacker_lead_state": dist.map(lambda o: _state(o, "attacker_lead")).to_json(),
        "expected_morale": {"attacker": str(dist.expect(lambda o: o.attacker_morale)),
                            "defender": str(dist.expect(lambda o: o.defender_morale))},
    }
    for role in redoubt_roles:          # 28.5: cubes left on the rear of an Artillery Redoubt Block
        out[f"{role}_redoubt_cubes"] = dist.map(lambda o, r=role: o.fate(r).redoubt_cubes).to_json()
    return out


def _state(o: CombatOutcome, role: str) -> str:
    f = o.fate(role)
    if f.eliminated:
        return "eliminated"
    s = f.state if f.formation in ("none", "roadway") else f"{f.formation}({f.square_hits})" \
        if f.formation == "square" else f.formation
    return s + (f" +{f.retreats} retreat" if f.retreats else "")


@dataclass
class CombatOdds:
    tally: Any
    dist: Dist
    pile: Pile
    redoubt_roles: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"tally": self.tally.to_json(), **summarise_combat(self.dist, self.redoubt_roles)}


def combat_odds(setup: CombatSetup, deck: Deck | None = None, discards=(), hand=(),
                terrain: Terrain | None = None) -> CombatOdds:
    """Exact outcome distribution of a combat, for a fresh deck or given a known discard pile (and hand)."""
    deck = deck or default_deck()
    terrain = terrain or default_terrain()
    pile = Pile.for_odds(deck, discards, hand)
    factory = combat_procedure(setup, deck, pile, terrain)
    redoubt = tuple(f"{who}_lead" for who, me in (("attacker", setup.attacker), ("defender", setup.defender))
                    if me.lead.redoubt_block)
    return CombatOdds(prepare(setup, terrain), distribution(factory, policy=neutral_policy), pile, redoubt)


def combat_tree(setup: CombatSetup, deck: Deck | None = None, discards=(), hand=(), terrain: Terrain | None = None,
                max_depth: int | None = 3) -> dict:
    """The probability tree of a combat as JSON: every node names its rule; memoised sub-procedures (the combat
    card and its effects) are shown inside their node under ``sub``, to ``max_depth`` levels in all."""
    deck = deck or default_deck()
    pile = Pile.for_odds(deck, discards, hand)
    tree = enumerate_tree(combat_procedure(setup, deck, pile, terrain), policy=neutral_policy)

    def short(v):
        if isinstance(v, CombatOutcome):
            return v.result
        return jsonable(v)

    def conv(n, depth):
        d = {"kind": n.kind, "rule": n.rule, "request": n.label, "outcome": short(n.outcome)}
        if n.probability is not None:
            d["probability"] = prob_json(n.probability)
        if n.is_leaf:
            d["result"] = short(n.result)
        if max_depth is not None and depth >= max_depth:
            return d
        if n.subtree is not None and n.subtree.root is not None:
            d["sub"] = conv(n.subtree.root, depth + 1)
        if n.children:
            d["children"] = [conv(c, depth + 1) for c in n.children]
        return d

    return conv(tree.root, 0)


def check_odds(table: str, skill: int, *, hq: bool = False, good_morale: bool = True, deck: Deck | None = None,
               discards=(), hand=(), **kw) -> dict:
    """Exact chances of a Skill Check (21.x): success, the icon drawn, Morale change, cube kept."""
    deck = deck or default_deck()
    eff = effective_skill(skill, steady_hq=hq)
    pile = Pile.for_odds(deck, discards, hand, tables=())
    d = distribution(check_procedure(deck, pile, table, eff, good_morale, **kw))
    return {"table": table, "skill": skill, "effective_skill": eff, "hq_bonus": hq, "good_morale": good_morale,
            "success": prob_json(d.prob(lambda o: o.success)),
            "cube_back": prob_json(d.prob(lambda o: o.cube_back)),
            "morale_loss": prob_json(d.prob(lambda o: o.morale < 0)),
            "icon": d.map(lambda o: o.icon).to_json()}


# Bounds of the exact cup calculator (issue 11): its enumeration grows fast with the cubes (a cup of
# 8/5/2/3/3 is about a second, 12/10/3/3/3 several), so larger cups are refused with a message naming the
# bound. A real turn's cup (16.1: commander cubes, kept reserve, the 13.2 and 28.4 bonuses) stays below.
MAX_CUBES_PER_COLOUR = 15
MAX_CUBES_IN_CUP = 26


def check_cup_bounds(cup: Cup) -> None:
    for colour, n in cup.counts:
        if n > MAX_CUBES_PER_COLOUR:
            raise LimitError(f"{colour} cubes in the cup", MAX_CUBES_PER_COLOUR, n, "the exact odds would take too long")
    if cup.count("gold") > 1:
        raise LimitError("gold cubes in the cup", 1, cup.count("gold"), "there is one Gold cube (18.0)")
    if cup.size > MAX_CUBES_IN_CUP:
        raise LimitError("cubes in the cup", MAX_CUBES_IN_CUP, cup.size, "the exact odds would take too long")


def cup_odds(cup: Cup, own: str = "blue", max_track: bool = False, passes: tuple[str, ...] = (),
             gold_next: str | None = None) -> dict:
    """Exact cup questions (16.2): own-colour cubes drawn before the last Black cube, and when the turn ends.

    ``passes``: colours whose player makes a Pass Order on every cube of his (18.0: the next cube of that
    colour goes back); ``gold_next``: the colour the Gold cube's owner names (else he draws an event card).
    Both run through the same cube draw procedure as the game (:func:`engine.bc.cup.cube_draw`)."""
    check_cup_bounds(cup)
    passes = tuple(passes)
    for c in passes:
        if c not in ("blue", "white"):
            raise RuleViolation("18.0", f"only the blue and white order cubes can be passed, not {c!r}")
    if gold_next is not None and gold_next not in COLOURS:
        raise RuleViolation("18.0", f"the Gold cube names a cube colour ({', '.join(COLOURS)}), not {gold_next!r}")
    gold = gold_next is not None and cup.count("gold") > 0
    d = distribution(turn_procedure(cup, (own,), passes, gold, gold_next if gold else None),
                     policy=cup_policy(passes, gold_next))
    n_own = cup.count(own)
    at_least = {str(k): prob_json(d.prob(lambda r, k=k: r.count(own) >= k)) for k in range(0, n_own + 1)}
    ends = d.map(lambda r: r.draws)
    within = {str(n): prob_json(d.prob(lambda r, n=n: r.draws <= n))
              for n in range(min(ends), max(ends) + 1)}
    return {"cup": cup.to_json(), "own": own, "passes": list(passes), "gold_next": gold_next,
            "own_before_end": d.map(lambda r: r.count(own)).to_json(),
            "at_least_own_before_end": at_least,
            "turn_ends_on_draw": ends.to_json(),
            "turn_ended_within": within,
            "expected_own_before_end": str(d.expect(lambda r: r.count(own))),
            "expected_draws": str(d.expect(lambda r: r.draws))}


def next_card_odds(table: str, column: int, net: int, deck: Deck | None = None, discards=(), hand=()) -> dict:
    """Exact chance of each CRT result on the next card at ``column`` with ``net`` fixed shifts (23.2-23.4),
    for a fresh deck or given a known discard pile and the drawer's own hand (15.0), the reshuffle card
    drawn by the same procedure as a combat's."""
    deck = deck or default_deck()
    pile = Pile.for_odds(deck, discards, hand, tables=(table,))
    d = distribution(lambda: draw_card(pile, deck, "23.2" if table == "fire" else "23.3", "next card"))
    res = d.map(lambda fp: deck.results(fp[0], table, ((column, net),))[0][1])
    return {r: prob_json(p) for r, p in sorted(res.items())}


def deck_summary(deck: Deck | None = None, discards=(), hand=()) -> dict:
    """Composition of the deck and, per odds column, the chance of each printed result on the next card
    (before shifts), for a fresh deck or given a discard pile: the reshuffle card handled by the same
    draw procedure as a combat."""
    deck = deck or default_deck()
    cards = [deck.card(n) for n in deck.event_numbers]
    pile = Pile.for_odds(deck, discards, hand)
    d = distribution(lambda: draw_card(pile, deck, "23.2", "next card"))
    per_column = {}
    for table in ("fire", "assault"):
        per_column[table] = {
            f"{c:+d}": d.map(lambda fp, i=i, t=table: fp[0].fire[i] if t == "fire" else fp[0].assault[i]).to_json()
            for i, c in enumerate(COLUMNS)}
    return {"deck": deck.to_json(), "notes": deck.notes,
            "sides": dict(Counter(c.side for c in cards)),
            "skill_icons": dict(Counter(c.skill for c in cards)),
            "leaders": sum(1 for c in cards if c.leader),
            "cubes": dict(Counter(c.cube for c in cards)),
            "discards": list(discards), "hand": list(hand),
            "next_card": per_column}
