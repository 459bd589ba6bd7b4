"""The Battle Commander event deck: card data, the draw and discard piles, and the card draw procedure.

Battle Commander has no dice (7.0): a card drawn from the event deck gives a combat result (its Fire or
Assault CRT row, 23.2-23.3) or a Skill Check icon (21.0). A card draw is a :class:`~engine.core.procedure.Draw`
over the current draw pile; the piles are immutable values (:class:`Pile`), so drawing returns new piles.

Reshuffle card (15.0): drawing card #31 shuffles the draw pile and the discard pile together (card #31
included) into a new draw pile, and the draw is made again. If card #31 came up again at once, the piles
would be exactly as before, so the repeated draws add up (a geometric series) to one uniform draw among
the other cards of the new pile; that is how the procedure asks for it, which keeps the odds exact.

Faces. A pile holds *faces*: card numbers when a game is played (the record then names each card), or
:class:`Face` summaries (icon and CRT row, no number) when odds are enumerated, so that cards alike in every
respect the procedure looks at count as one branch weighted by their number. Both kinds go through the same
procedures; the tests check that they give the same distributions.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property, lru_cache, partial
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from engine.core.data import Sourced, Strict, data_path, load_yaml, parse_yaml, provenance_kind
from engine.core.errors import DataError, RuleViolation
from engine.core.procedure import Chance, Draw, Log, jsonable
from engine.core.values import cached_hash_repr

__all__ = [
    "SKILL_ICONS", "FIRE_RESULTS", "ASSAULT_RESULTS", "COLUMNS", "CardModel", "DeckModel", "Card", "Deck",
    "Face", "RESHUFFLE", "Pile", "UnseenPile", "apply_shift", "load_deck", "default_deck", "parse_deck", "draw_card",
    "parse_card_list", "read_icon", "spelled_once",
]

SkillIcon = Literal["officer", "flags_1", "flags_2", "flags_3", "flags_4", "crossed_flags", "death_head"]
SKILL_ICONS: tuple[str, ...] = ("officer", "flags_1", "flags_2", "flags_3", "flags_4", "crossed_flags",
                                "death_head")
FireResult = Literal["gun_smoke", "muskets_shot", "round_shot", "skull_bones"]
AssaultResult = Literal["black_cross", "horse_head", "bayonets", "bayonets_burst", "burst", "retreat_flag"]
FIRE_RESULTS: tuple[str, ...] = ("gun_smoke", "muskets_shot", "round_shot", "skull_bones")
ASSAULT_RESULTS: tuple[str, ...] = ("black_cross", "horse_head", "bayonets", "bayonets_burst", "burst",
                                    "retreat_flag")
COLUMNS: tuple[int, ...] = (-2, -1, 0, 1, 2, 3, 4)   # 23.4: odds are clamped to -2..+4
EVENT_CARDS = 70                                    # 7.0: a 70-card deck plus the reshuffle card
HAND_LIMIT = 6                                      # 15.0


def flags_needed(icon: str) -> int | None:
    """Number of Skill Flags on a ``flags_N`` icon (None for the other icons)."""
    return int(icon[-1]) if icon.startswith("flags_") else None


# ------------------------------------------------------------------------------------------------
# The deck file (data/bc/deck.yaml; format in docs/bc.md)
# ------------------------------------------------------------------------------------------------
class CardModel(Strict):
    number: int = Field(ge=1)
    name: str
    side: Literal["french", "coalition", "shared"]
    reshuffle: bool = False
    skill: SkillIcon | None = None
    cube: Literal["blue", "white", "red", "none"] = "none"
    leader: bool = False
    fire: tuple[FireResult, ...] | None = None
    assault: tuple[AssaultResult, ...] | None = None

    @model_validator(mode="after")
    def _complete(self):
        if self.reshuffle:
            return self
        if self.skill is None:
            raise ValueError(f"card {self.number}: a Skill Check icon (skill: officer, flags_1..flags_4, "
                             f"crossed_flags or death_head), rule 21.0")
        for table in ("fire", "assault"):
            row = getattr(self, table)
            if row is None or len(row) != len(COLUMNS):
                raise ValueError(f"card {self.number}: a {table} CRT row of {len(COLUMNS)} results, one per odds "
                                 f"column -2..+4 (rule 23.4)")
        return self


class DeckModel(Sourced):
    columns: tuple[int, ...] = COLUMNS
    fire_order: tuple[FireResult, ...] = FIRE_RESULTS
    assault_order: tuple[AssaultResult, ...] = ASSAULT_RESULTS
    reshuffle: int = 31
    cards: tuple[CardModel, ...]

    @field_validator("columns")
    @classmethod
    def _columns(cls, v):
        if tuple(v) != COLUMNS:
            raise ValueError("the odds columns -2, -1, 0, 1, 2, 3, 4 (rule 23.4)")
        return v

    @model_validator(mode="after")
    def _deck(self):
        numbers = [c.number for c in self.cards]
        dup = [n for n, k in Counter(numbers).items() if k > 1]
        if dup:
            raise ValueError(f"each card number once; repeated: {sorted(dup)}")
        resh = [c.number for c in self.cards if c.reshuffle]
        if resh != [self.reshuffle]:
            raise ValueError(f"exactly one reshuffle card, numbered {self.reshuffle} (rule 15.0); found {resh}")
        events = len(self.cards) - 1
        if events != EVENT_CARDS:
            raise ValueError(f"{EVENT_CARDS} event cards plus the reshuffle card (rule 7.0); found {events} "
                             f"event cards")
        for order, name in ((self.fire_order, "fire_order"), (self.assault_order, "assault_order")):
            if len(set(order)) != len(order):
                raise ValueError(f"{name}: each result once")
        if set(self.fire_order) != set(FIRE_RESULTS) or set(self.assault_order) != set(ASSAULT_RESULTS):
            raise ValueError("fire_order and assault_order list every Fire and Assault result once (rule 23.5)")
        return self


# ------------------------------------------------------------------------------------------------
# Engine values
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Card:
    number: int
    name: str
    side: str
    skill: str | None
    cube: str
    leader: bool
    fire: tuple[str, ...]
    assault: tuple[str, ...]
    reshuffle: bool = False

    def row(self, table: str) -> tuple[str, ...]:
        return self.fire if table == "fire" else self.assault


def spelled_once(cls):
    """Class decorator (above :func:`~engine.core.values.cached_hash_repr`): ``repr`` spelled once, when first
    asked, and not pickled. An enumeration orders a sub-procedure's outcomes (a pile among them) by their
    ``repr`` each time it meets the step, and a pile's faces are the same objects throughout."""
    spell, state = cls.__repr__, cls.__getstate__

    def __repr__(self) -> str:
        r = self.__dict__.get("_repr")
        if r is None:
            r = spell(self)
            object.__setattr__(self, "_repr", r)
        return r

    def __getstate__(self) -> dict:
        return {k: v for k, v in state(self).items() if k not in ("_repr", "_order")}

    cls.__repr__, cls.__getstate__ = __repr__, __getstate__
    return cls


@spelled_once
@cached_hash_repr       # hashed at every step of an enumeration (piles of faces key its memo): made once
@dataclass(frozen=True)
class Face:
    """What an odds computation needs of a card: its Skill Check icon and one CRT row (or the reshuffle mark)."""

    skill: str | None = None
    fire: tuple[str, ...] = ()
    assault: tuple[str, ...] = ()
    reshuffle: bool = False
    shifted: tuple[tuple[tuple[int, int], str], ...] = ()   # ((column, net shift), final result), once projected
    unseen: bool = False    # a card the side the odds are for has not seen: in the draw pile or the other hand
    fire_shifted: tuple[tuple[tuple[int, int], str], ...] = ()   # the Fire line's, for an Ordre Mixte redraw (27.6)
    #: the icons this face stands for, once the cards are told apart only by what one read gives them (27.11):
    #: ``skill`` is the first of them, and the read gives each the same
    alike: tuple[str, ...] = field(default=(), repr=False)

    def to_json(self):
        if self.reshuffle:
            return "reshuffle"
        d = {"skill": self.skill}
        if self.alike:
            d["alike"] = list(self.alike)
        if self.shifted:
            d["results"] = {f"{c:+d}{k:+d}": r for (c, k), r in self.shifted}
        if self.fire_shifted:
            d["fire results"] = {f"{c:+d}{k:+d}": r for (c, k), r in self.fire_shifted}
        if self.fire:
            d["fire"] = list(self.fire)
        if self.assault:
            d["assault"] = list(self.assault)
        return d


class Deck:
    """A loaded deck (immutable). ``source`` is its provenance; cards are looked up by number."""

    def __init__(self, model: DeckModel, file: str = ""):
        self.model = model
        self.file = file
        self.source = model.source
        self.notes = model.notes
        self.reshuffle_number = model.reshuffle
        self.cards: dict[int, Card] = {}
        for c in model.cards:
            self.cards[c.number] = Card(c.number, c.name, c.side, c.skill, c.cube, c.leader,
                                        tuple(c.fire or ()), tuple(c.assault or ()), c.reshuffle)
        self.order = {"fire": tuple(model.fire_order), "assault": tuple(model.assault_order)}

    # a value: equal when made from the same file and content, so it can stand in memo keys
    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Deck) and self.file == other.file and self.model == other.model)

    def __hash__(self) -> int:
        return hash((self.file, len(self.cards)))

    @property
    def provenance(self) -> str:
        return provenance_kind(self.source)

    @cached_property
    def numbers(self) -> tuple[int, ...]:
        return tuple(sorted(self.cards))

    @cached_property
    def event_numbers(self) -> tuple[int, ...]:
        return tuple(n for n in self.numbers if n != self.reshuffle_number)

    def card(self, number: int, rule: str = "7.0") -> Card:
        try:
            return self.cards[int(number)]
        except (KeyError, ValueError, TypeError):
            raise RuleViolation(rule, f"there is no card {number!r} in this deck "
                                      f"(cards {self.numbers[0]}..{self.numbers[-1]})") from None

    # faces ------------------------------------------------------------------------------------------
    def is_reshuffle(self, face) -> bool:
        return face.reshuffle if isinstance(face, Face) else face == self.reshuffle_number

    def skill(self, face) -> str:
        return face.skill if isinstance(face, Face) else self.cards[face].skill

    def row(self, face, table: str) -> tuple[str, ...]:
        if isinstance(face, Face):
            row = face.fire if table == "fire" else face.assault
            if not row:
                raise ValueError(f"this face was summarised without its {table} CRT row")
            return row
        return self.cards[face].row(table)

    def results(self, face, table: str, reads: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[int, int], str], ...]:
        """``((column, net shift), final result)`` for each read of this card's ``table`` row (23.4)."""
        if isinstance(face, Face) and (face.shifted or face.fire_shifted):
            # projected: the Fire line's own results where an Ordre Mixte redraw kept them (27.6)
            have = dict(face.fire_shifted if table == "fire" and face.fire_shifted else face.shifted)
            return tuple((cn, have[cn]) for cn in reads)
        row = self.row(face, table)
        return tuple(((c, n), row[apply_shift(row, c, n)]) for c, n in reads)

    def face(self, number: int, tables: tuple[str, ...] = ()) -> Face:
        """The summary of a card: the reshuffle mark, or its icon (and the CRT rows of ``tables``)."""
        c = self.cards[number]
        if c.reshuffle:
            return Face(reshuffle=True)
        return Face(skill=c.skill, fire=c.fire if "fire" in tables else (),
                    assault=c.assault if "assault" in tables else ())

    def rank(self, table: str, result: str) -> int:
        """Position of ``result`` in the table's order, worst for the attacker first (23.4, 23.5)."""
        return self.order[table].index(result)

    def to_json(self) -> dict:
        return {"file": self.file, "source": self.source, "provenance": self.provenance,
                "cards": len(self.event_numbers), "reshuffle": self.reshuffle_number}


def load_deck(path: str | Path | None = None) -> Deck:
    """Load a deck file (default: the shipped provisional deck ``data/bc/deck.yaml``)."""
    p = Path(path) if path else data_path("bc", "deck.yaml")
    return Deck(load_yaml(p, DeckModel), str(p))


def parse_deck(text: str, file: str = "<upload>") -> Deck:
    return Deck(parse_yaml(text, DeckModel, file), file)


_DEFAULT: Deck | None = None


def default_deck() -> Deck:
    """The shipped deck, loaded once (it is immutable)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_deck()
    return _DEFAULT


def parse_card_list(deck: Deck, values: Iterable, what: str = "discard pile", file: str = "<input>") -> tuple[int, ...]:
    """Validate a list of card numbers (a known discard pile or hand): each card of the deck, at most once.

    Card #31 can never lie in a discard pile or a hand: it is shuffled back the moment it is drawn (15.0).
    """
    if isinstance(values, (str, bytes, dict)) or not isinstance(values, Iterable):
        raise DataError(file, what, "a list of card numbers", values)
    out: list[int] = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise DataError(file, f"{what}[{i}]", "a card number", v)
        try:
            n = int(v)
        except (TypeError, ValueError):
            raise DataError(file, f"{what}[{i}]", "a card number", v) from None
        if n not in deck.cards:
            raise DataError(file, f"{what}[{i}]", f"a card of the deck ({deck.numbers[0]}..{deck.numbers[-1]})", n)
        if n == deck.reshuffle_number:
            raise DataError(file, f"{what}[{i}]", f"not the reshuffle card {n}: it goes straight back into the "
                                                  f"draw pile (rule 15.0)", n)
        if n in out:
            raise DataError(file, f"{what}[{i}]", f"each card at most once (card {n} is already listed at "
                                                  f"position {out.index(n)})", n)
        out.append(n)
    return tuple(out)


def apply_shift(row: tuple[str, ...], column: int, net: int) -> int:
    """Index in ``row`` after ``net`` shifts from ``column`` (23.4): each shift moves to the next *different*
    result; at the end of the row nothing is extrapolated."""
    i = COLUMNS.index(column)
    step = 1 if net > 0 else -1
    for _ in range(abs(net)):
        j = i + step
        while 0 <= j < len(row) and row[j] == row[i]:
            j += step
        if not 0 <= j < len(row):
            break
        i = j
    return i


# ------------------------------------------------------------------------------------------------
# Piles
# ------------------------------------------------------------------------------------------------
#: the reshuffle card as an odds computation sees it (15.0)
RESHUFFLE = Face(reshuffle=True)


def _face_key(face: "Face"):
    # made once for each face (summarised piles are sorted at every move, and their faces are the same objects)
    k = face.__dict__.get("_order")
    if k is None:
        k = (face.reshuffle, face.skill or "", face.fire, face.assault, face.shifted, face.unseen, face.fire_shifted,
             face.alike)
        object.__setattr__(face, "_order", k)
    return k


def _sorted(faces) -> tuple:
    return tuple(sorted(faces, key=_face_key))


@lru_cache(maxsize=8192)
def _project(pile, deck: "Deck", table: str, reads: tuple, fire_reads: tuple = ()):
    return pile.map_faces(partial(_projected_face, deck=deck, table=table, reads=reads, fire_reads=fire_reads))


@lru_cache(maxsize=65536)
def _projected_face(x, deck: "Deck", table: str, reads: tuple, fire_reads: tuple) -> "Face":
    # one Face object per summary (an enumeration makes the same ones over and over): hashed and spelled once
    if deck.is_reshuffle(x):
        return RESHUFFLE
    return Face(skill=deck.skill(x), shifted=deck.results(x, table, reads), unseen=isinstance(x, Face) and x.unseen,
                fire_shifted=deck.results(x, "fire", fire_reads) if fire_reads else (),
                alike=x.alike if isinstance(x, Face) else ())


@lru_cache(maxsize=8192)
def _by_icons(pile, deck: "Deck", classes: tuple[tuple[str, ...], ...]):
    return pile.map_faces(partial(_icon_class_face, deck=deck, classes=classes))


def _class_of(x, deck: "Deck", classes: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    """The class of ``classes`` the card ``x`` falls in by its icon; a face that already stands for a class of
    icons must fall in one class whole (the new classes only lump what the old ones did)."""
    icon = deck.skill(x)
    alike = next(c for c in classes if icon in c)
    if isinstance(x, Face) and not set(x.alike) <= set(alike):
        raise ValueError(f"the icons {' or '.join(x.alike)} were lumped as alike, and are told apart now "
                         f"({' | '.join(' or '.join(c) for c in classes)})")
    return alike


@lru_cache(maxsize=65536)
def _icon_class_face(x, deck: "Deck", classes: tuple[tuple[str, ...], ...]) -> "Face":
    if deck.is_reshuffle(x):
        return RESHUFFLE
    alike = _class_of(x, deck, classes)
    return Face(skill=alike[0], unseen=isinstance(x, Face) and x.unseen, alike=alike if len(alike) > 1 else ())


@lru_cache(maxsize=8192)
def _classed(pile, deck: "Deck", classes: tuple[tuple[str, ...], ...]):
    return pile.map_faces(partial(_classed_face, deck=deck, classes=classes))


@lru_cache(maxsize=65536)
def _classed_face(x: "Face", deck: "Deck", classes: tuple[tuple[str, ...], ...]) -> "Face":
    if x.reshuffle:
        return RESHUFFLE
    alike = _class_of(x, deck, classes)
    return replace(x, skill=alike[0], alike=alike if len(alike) > 1 else ())


@lru_cache(maxsize=8192)
def _summarise(pile, deck: "Deck", tables: tuple[str, ...]):
    return pile.map_faces(partial(_summarised_face, deck=deck, tables=tables))


@lru_cache(maxsize=65536)
def _summarised_face(x, deck: "Deck", tables: tuple[str, ...]) -> "Face":
    if isinstance(x, Face):
        return Face(x.skill, x.fire if "fire" in tables else (), x.assault if "assault" in tables else (),
                    x.reshuffle, x.shifted if tables else (), x.unseen, x.fire_shifted if tables else (), x.alike)
    return deck.face(x, tables)


def _remove_one(items: tuple, item) -> tuple:
    i = items.index(item)
    return items[:i] + items[i + 1:]


@spelled_once
@cached_hash_repr
@dataclass(frozen=True)
class Pile:
    """The draw pile and the discard pile (15.0), as faces. Cards in hands are in neither.

    ``tracked`` piles hold card numbers (play, replay, game records); summarised piles hold :class:`Face`
    values (odds). Use :meth:`for_play` / :meth:`for_odds` to build one from a deck and what is known.
    :func:`draw_card` works on any pile through :meth:`draw_request`, :meth:`without` and :meth:`reshuffled`
    (an :class:`UnseenPile` answers them too).
    """

    draw: tuple
    discard: tuple = ()

    @property
    def tracked(self) -> bool:
        # piles are never mixed: the first face of either pile tells
        return not ((self.draw and isinstance(self.draw[0], Face)) or
                    (self.discard and isinstance(self.discard[0], Face)))

    @property
    def size(self) -> int:
        """Cards in the draw pile (the reshuffle card included)."""
        return len(self.draw)

    @classmethod
    def for_play(cls, deck: Deck, discards: Iterable[int] = (), hand: Iterable[int] = ()) -> "Pile":
        discards = parse_card_list(deck, discards)
        hand = parse_card_list(deck, hand, "hand")
        both = set(discards) & set(hand)
        if both:
            raise DataError("<input>", "hand", f"cards not also in the discard pile (both name {sorted(both)})")
        gone = set(discards) | set(hand)
        return cls(tuple(n for n in deck.numbers if n not in gone), discards)

    @classmethod
    def for_odds(cls, deck: Deck, discards: Iterable[int] = (), hand: Iterable[int] = (),
                 tables: tuple[str, ...] = ("fire", "assault")) -> "Pile":
        """A summarised pile: every unseen card may be next. Cards in an opponent's hand are unseen to the
        drawer, so they count as in the draw pile (the calculators do not know how many cards the other hand
        holds; :class:`UnseenPile` is the exact model when it is known)."""
        tracked = cls.for_play(deck, discards, hand)
        return tracked.summarise(deck, tables)

    def map_faces(self, f) -> "Pile":
        """The pile with each face replaced by ``f(face)``, both piles sorted (summaries only)."""
        return Pile(_sorted(f(x) for x in self.draw), _sorted(f(x) for x in self.discard))

    def summarise(self, deck: Deck, tables: tuple[str, ...] = ()) -> "Pile":
        """Replace each face by its summary: icon, and the CRT rows of ``tables`` (cached: enumeration re-runs
        a procedure many times over the same piles)."""
        return _summarise(self, deck, tuple(tables))

    def project_results(self, deck: Deck, table: str, reads: tuple[tuple[int, int], ...],
                        fire_reads: tuple[tuple[int, int], ...] = ()) -> "Pile":
        """Odds only: each face becomes its icon plus the final result for each possible (column, net shift),
        and the Fire line's for each of ``fire_reads`` (an Ordre Mixte redraw, 27.6). Cached, like
        :meth:`summarise`."""
        return _project(self, deck, table, tuple(reads), tuple(fire_reads))

    def by_icons(self, deck: Deck, classes: tuple[tuple[str, ...], ...]) -> "Pile":
        """Odds only: each card as the class of ``classes`` (a partition of the Skill Check icons, 21.0) its icon
        falls in, for draws that read nothing but what the class gives (the Fate of War table, 27.11): the
        first icon of the class stands for it. Cards alike count as one branch, and piles alike meet."""
        return _by_icons(self, deck, classes)

    def classed(self, deck: Deck, classes: tuple[tuple[str, ...], ...]) -> "Pile":
        """Odds only (a summarised pile): :meth:`by_icons` keeping what else each face holds (its CRT rows or
        the results it can give): each card's icon as the class of ``classes`` it falls in, for the draws that
        follow when none of them tells the icons of a class apart. A face already standing for a class must fall
        in one class whole (a ValueError otherwise)."""
        return _classed(self, deck, classes)

    @property
    def faces(self) -> tuple:
        """Every face of the draw and the discard piles (a reshuffle brings the discards back, 15.0)."""
        return self.draw + self.discard

    def draw_request(self, deck: Deck, rule: str, label: str):
        """The request that draws the next card: one face of the draw pile, each alike (15.0)."""
        return Draw(self.draw, rule=rule, label=label)

    def redraw_request(self, deck: Deck, rule: str, label: str):
        """The draw made again right after the reshuffle card: any card of the new pile but that one (15.0)."""
        return Draw(tuple(f for f in self.draw if not deck.is_reshuffle(f)), rule=rule, label=label)

    def chances(self) -> tuple:
        """Each face of the draw pile (the reshuffle card among them) with its chance of being drawn next."""
        return Draw(self.draw, rule="15.0").outcomes()

    def without(self, face) -> "Pile":
        """The pile once ``face`` is drawn out of the draw pile."""
        if isinstance(face, Face):
            return _pile_without(self, face)
        return Pile(_remove_one(self.draw, face), self.discard)

    def reshuffled(self, face) -> "Pile":
        """15.0: the draw pile (without the reshuffle card ``face`` just drawn), the discards and the reshuffle
        card together as the new draw pile."""
        if isinstance(face, Face):
            return _pile_reshuffled(self, face)
        return Pile(_remove_one(self.draw, face) + self.discard + (face,), ())

    def discarded(self, face) -> "Pile":
        """The pile after a used card goes to the discard pile (15.0). Summarised discards are kept sorted:
        their order never matters, and equal piles must compare equal for memoisation."""
        if isinstance(face, Face):
            return _pile_discarded(self, face)
        return Pile(self.draw, self.discard + (face,))

    def to_json(self) -> dict:
        return {"draw": len(self.draw), "discard": jsonable(self.discard) if self.tracked else len(self.discard)}


# a summarised pile's moves, made once for each pile and card (an enumeration replays the same draws over and
# over; played cards are drawn once, and keep their order)
@lru_cache(maxsize=65536)
def _pile_without(pile: Pile, face: Face) -> Pile:
    return Pile(_remove_one(pile.draw, face), pile.discard)


@lru_cache(maxsize=16384)
def _pile_reshuffled(pile: Pile, face: Face) -> Pile:
    return Pile(_remove_one(pile.draw, face) + pile.discard + (face,), ())


@lru_cache(maxsize=65536)
def _pile_discarded(pile: Pile, face: Face) -> Pile:
    return Pile(pile.draw, _sorted(pile.discard + (face,)))


@spelled_once
@cached_hash_repr
@dataclass(frozen=True)
class UnseenPile:
    """The draw pile as one side knows it (15.0 No Peeking), for exact odds from that side's seat.

    The side knows the discard pile (every card was seen face up), its own hand, how many cards the draw pile
    and the other hand hold, and that the reshuffle card is in the draw pile (it goes back the moment it is
    drawn). The cards it has not seen, ``pool`` (as :class:`Face` summaries marked ``unseen``), lie in the draw
    pile (``in_draw`` of them) or in the other hand; which ones, it does not know, and every split is alike.
    ``known`` are faces known to be in the draw pile: the discards shuffled back in by a reshuffle.

    Drawing: the reshuffle card and each known face with chance 1/N (N = the draw pile's size), an unseen card
    with chance ``in_draw``/N, equally likely any face of the pool: the chance of each card averaged over
    every possible other hand, so the odds do not depend on the cards that hand really holds.
    """

    pool: tuple = ()
    in_draw: int = 0
    known: tuple = ()
    discard: tuple = ()

    tracked = False

    @classmethod
    def of(cls, deck: Deck, unseen: Iterable[int], in_draw: int, discard: Iterable[int],
           tables: tuple[str, ...] = ("fire", "assault")) -> "UnseenPile":
        """The pile of a side that has not seen the cards ``unseen`` (numbers), ``in_draw`` of which lie in the
        draw pile (with the reshuffle card), and has seen the ``discard`` pile."""
        summary = Pile(tuple(unseen), tuple(discard)).summarise(deck, tables)
        return cls(_sorted(replace(f, unseen=True) for f in summary.draw), in_draw, (), summary.discard)

    @property
    def size(self) -> int:
        return len(self.known) + self.in_draw + 1

    def map_faces(self, f) -> "UnseenPile":
        return UnseenPile(_sorted(f(x) for x in self.pool), self.in_draw, _sorted(f(x) for x in self.known),
                          _sorted(f(x) for x in self.discard))

    def summarise(self, deck: Deck, tables: tuple[str, ...] = ()) -> "UnseenPile":
        return _summarise(self, deck, tuple(tables))

    def project_results(self, deck: Deck, table: str, reads: tuple[tuple[int, int], ...],
                        fire_reads: tuple[tuple[int, int], ...] = ()) -> "UnseenPile":
        return _project(self, deck, table, tuple(reads), tuple(fire_reads))

    def by_icons(self, deck: Deck, classes: tuple[tuple[str, ...], ...]) -> "UnseenPile":
        return _by_icons(self, deck, classes)

    def classed(self, deck: Deck, classes: tuple[tuple[str, ...], ...]) -> "UnseenPile":
        return _classed(self, deck, classes)

    @property
    def faces(self) -> tuple:
        return self.pool + self.known + self.discard

    def draw_request(self, deck: Deck, rule: str, label: str):
        return _unseen_draw(self, True, rule, label)

    def redraw_request(self, deck: Deck, rule: str, label: str):
        if not self.known and not self.in_draw:
            raise RuleViolation(rule, f"cannot draw from an empty pile ({label or 'draw'})")
        return _unseen_draw(self, False, rule, label)

    def chances(self) -> tuple:
        return _unseen_draw(self, True, "15.0", "").outcomes()

    def without(self, face) -> "UnseenPile":
        return _unseen_without(self, face)

    def reshuffled(self, face) -> "UnseenPile":
        return _unseen_reshuffled(self)

    def discarded(self, face) -> "UnseenPile":
        return _unseen_discarded(self, face)

    def to_json(self) -> dict:
        return {"draw": self.size, "discard": len(self.discard), "unseen": len(self.pool)}


@lru_cache(maxsize=65536)
def _unseen_without(pile: UnseenPile, face: Face) -> UnseenPile:
    if face.reshuffle:
        return pile
    if face.unseen:
        return UnseenPile(_remove_one(pile.pool, face), pile.in_draw - 1, pile.known, pile.discard)
    return UnseenPile(pile.pool, pile.in_draw, _remove_one(pile.known, face), pile.discard)


@lru_cache(maxsize=16384)
def _unseen_reshuffled(pile: UnseenPile) -> UnseenPile:
    return UnseenPile(pile.pool, pile.in_draw, _sorted(pile.known + pile.discard), ())


@lru_cache(maxsize=65536)
def _unseen_discarded(pile: UnseenPile, face: Face) -> UnseenPile:
    seen = replace(face, unseen=False)          # a used card lies face up: now everyone has seen it
    return UnseenPile(pile.pool, pile.in_draw, pile.known, _sorted(pile.discard + (seen,)))


@lru_cache(maxsize=4096)
def _unseen_draw(pile: UnseenPile, with_reshuffle: bool, rule: str, label: str) -> Chance:
    """The draw from an :class:`UnseenPile` (made once per pile: enumeration asks for it at every replay)."""
    n = len(pile.known) + pile.in_draw + (1 if with_reshuffle else 0)
    out: dict = {}
    if with_reshuffle:
        out[RESHUFFLE] = Fraction(1, n)
    for k in pile.known:
        out[k] = out.get(k, Fraction(0)) + Fraction(1, n)
    if pile.in_draw:
        each = Fraction(pile.in_draw, n * len(pile.pool))
        for u in pile.pool:
            out[u] = out.get(u, Fraction(0)) + each
    return Chance(tuple(out.items()), rule=rule, label=label)


def read_icon(deck: Deck, face, read: Callable[[str], Any]) -> Any:
    """What ``read`` (a rule's reading of a Skill Check icon, 21.0) gives for the card ``face``. In odds a face may
    stand for a class of icons (:meth:`Pile.classed`); every icon of it must read the same, or the class lumps cards
    the rule tells apart: a ValueError, never other odds."""
    out = read(deck.skill(face))
    for icon in getattr(face, "alike", ())[1:]:
        if read(icon) != out:
            raise ValueError(f"the icons {' or '.join(face.alike)} were lumped as alike, and this read tells "
                             f"{face.alike[0]} and {icon} apart")
    return out


def draw_card(pile, deck: Deck, rule: str, label: str = ""):
    """Sub-procedure: draw one card for ``rule``; returns ``(face, pile)`` with the card out of the draw pile.

    Drawing the reshuffle card (15.0) shuffles the draw and discard piles together with it into a new draw
    pile, and the card is drawn again from it. The card is not yet discarded: the caller discards it once used
    (``pile.discarded``).
    """
    face = yield pile.draw_request(deck, rule, label or "card")
    if deck.is_reshuffle(face):
        new = pile.reshuffled(face)
        yield Log("15.0", "reshuffle card: draw and discard piles shuffled together into a new draw pile",
                  {"draw": new.size})
        got = yield new.redraw_request(deck, "15.0", (label or "card") + " (after the reshuffle)")
        return got, new.without(got)
    return face, pile.without(face)
