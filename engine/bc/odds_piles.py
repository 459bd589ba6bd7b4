"""Piles as the exact odds of a combat read them (issue 26): a card read only by its class of icons, and the
piles it may leave.

The Square check card (23.1 step 6) reads only whether each defender passes its Skill Check (21.2), while the
combat card drawn after it (23.2-23.4) reads the cards whole. Drawn from a :class:`ClassDraw`, the first card is
one branch per class of icons; the pile it leaves is a :class:`Mixture`: each pile a card of that class would
leave, weighed by its chance; each later card drawn weighs them again by their chances of giving it (Bayes'
rule), so the odds are those of the cards themselves, and once the piles are read by icons alike they meet as one.
Both answer what :func:`~engine.bc.deck.draw_card` asks of a pile, as :class:`~engine.bc.deck.Pile` and
:class:`~engine.bc.deck.UnseenPile` do.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from engine.core.procedure import Chance
from engine.core.values import cached_hash_repr

from .deck import Deck, Face, spelled_once

__all__ = ["ClassDraw", "Mixture"]


def _class_face(face: Face) -> Face:
    """A face as a draw that reads only its class of icons sees it (the reshuffle card as it is)."""
    if face.reshuffle:
        return face
    return _class_face_of(face.skill, face.alike, face.unseen)


@lru_cache(maxsize=1024)
def _class_face_of(skill: str | None, alike: tuple, unseen: bool) -> Face:
    return Face(skill=skill, unseen=unseen, alike=alike)


@lru_cache(maxsize=4096)
def _class_draw_request(pile: "ClassDraw", deck: Deck, redraw: bool, rule: str, label: str) -> Chance:
    """The draw from a :class:`ClassDraw`: the inner pile's, each class of icons one outcome (made once per pile)."""
    inner = pile.inner
    out: dict = {}
    for face, p in (inner.redraw_request if redraw else inner.draw_request)(deck, rule, label).outcomes():
        key = _class_face(face)
        out[key] = out.get(key, Fraction(0)) + p
    return Chance(tuple(out.items()), rule=rule, label=label)


@spelled_once
@cached_hash_repr
@dataclass(frozen=True)
class ClassDraw:
    """Odds only: a summarised pile (``inner``) whose next card is read only by its class of icons (21.0: the
    faces' ``alike``), not by what else each face holds (the results it can give, 23.2-23.4). The draw offers one
    branch per class (and the reshuffle card, 15.0); the pile it leaves is the :class:`Mixture` of the piles each
    card of that class would leave, weighed by its chance, so the later draws that read those cards whole get
    the odds of the cards themselves."""

    inner: Any
    tracked = False

    @property
    def size(self) -> int:
        return self.inner.size

    @property
    def faces(self) -> tuple:
        return self.inner.faces

    def draw_request(self, deck: Deck, rule: str, label: str):
        return _class_draw_request(self, deck, False, rule, label)

    def redraw_request(self, deck: Deck, rule: str, label: str):
        return _class_draw_request(self, deck, True, rule, label)

    def reshuffled(self, face) -> "ClassDraw":
        return ClassDraw(self.inner.reshuffled(face))

    def without(self, face):
        return _class_drawn(self, face)

    def to_json(self) -> dict:
        return self.inner.to_json()


@lru_cache(maxsize=4096)
def _class_drawn(pile: ClassDraw, face: Face):
    # each card of the class, the pile it leaves, the card (still to be discarded) and its chance
    return Mixture.of((pile.inner.without(f), f, f, p) for f, p in pile.inner.chances()
                      if not f.reshuffle and _class_face(f) == face)


@spelled_once
@cached_hash_repr
@dataclass(frozen=True)
class Mixture:
    """Odds only: the pile after a card read only by its class (:class:`ClassDraw`): each pile it may be, with the
    card drawn (still to be discarded, or ``None`` once it is) and the card that tells it apart (its tag), weighed
    by its chance (they add up to 1). A draw from it weighs each pile's own draw; the card drawn weighs the piles
    again by their chances of giving it (Bayes' rule), so the odds are those of the cards themselves. Piles that
    become alike meet, and a mixture of one pile is that pile (:meth:`of`). Every pile of a mixture holds as many
    cards."""

    parts: tuple                # ((pile, card to discard or None, tag, weight), ...) in the order of the tags
    tracked = False

    @classmethod
    def of(cls, parts: Iterable[tuple[Any, Any, Any, Fraction]]):
        """The mixture of ``(pile, card to discard or None, tag, weight)``: equal piles met (the first tag kept),
        weights made to add up to 1, in the order of the tags; one pile with no card to discard is that pile."""
        met: dict = {}
        for pile, card, tag, w in parts:
            if w:
                had = met.get((pile, card))
                met[(pile, card)] = (tag, w) if had is None else (min(had[0], tag, key=repr), had[1] + w)
        if len(met) == 1:
            (pile, card), = met
            if card is None:
                return pile
        total = sum(w for _, w in met.values())
        return cls(tuple(sorted(((p, c, t, w / total) for (p, c), (t, w) in met.items()), key=lambda x: repr(x[2]))))

    @property
    def size(self) -> int:
        return self.parts[0][0].size

    @property
    def faces(self) -> tuple:
        return tuple(f for p, _, _, _ in self.parts for f in p.faces)

    def draw_request(self, deck: Deck, rule: str, label: str):
        return _mixture_request(self, deck, False, rule, label)

    def redraw_request(self, deck: Deck, rule: str, label: str):
        return _mixture_request(self, deck, True, rule, label)

    def without(self, face) -> Any:
        return _mixture_without(self, face)

    def reshuffled(self, face) -> Any:
        return _mixture_each(self, "reshuffled", (face,))

    def discarded(self, face) -> Any:
        return _mixture_discarded(self, face)

    def summarise(self, deck: Deck, tables: tuple[str, ...] = ()) -> Any:
        return _mixture_each(self, "summarise", (deck, tuple(tables)))

    def project_results(self, deck: Deck, table: str, reads: tuple, fire_reads: tuple = ()) -> Any:
        return _mixture_each(self, "project_results", (deck, table, tuple(reads), tuple(fire_reads)))

    def by_icons(self, deck: Deck, classes: tuple[tuple[str, ...], ...]) -> Any:
        return _mixture_each(self, "by_icons", (deck, classes))

    def classed(self, deck: Deck, classes: tuple[tuple[str, ...], ...]) -> Any:
        return _mixture_each(self, "classed", (deck, classes))

    def to_json(self) -> dict:
        return {**self.parts[0][0].to_json(), "alternatives": len(self.parts)}


# a mixture's moves, made once for each (an enumeration replays the same draws over and over)
@lru_cache(maxsize=16384)
def _mixture_without(m: Mixture, face) -> Any:
    # each pile weighed again by its chance of giving this card (every pile holds as many cards, so the chances
    # of a draw after the reshuffle card are in the same proportions)
    weighed = ((p, c, t, w * dict(p.chances()).get(face, 0)) for p, c, t, w in m.parts)
    return Mixture.of((p.without(face), c, t, w) for p, c, t, w in weighed if w)


@lru_cache(maxsize=16384)
def _mixture_discarded(m: Mixture, face) -> Any:
    # the card drawn by class goes to the discard pile as the card it was in each pile
    return Mixture.of((p.discarded(face if c is None else c), None, t, w) for p, c, t, w in m.parts)


#: the moves a mixture makes as each of its piles does
_MOVES: dict[str, Callable[..., Any]] = {
    "reshuffled": lambda p, face: p.reshuffled(face),
    "summarise": lambda p, deck, tables: p.summarise(deck, tables),
    "project_results": lambda p, deck, table, reads, fire_reads: p.project_results(deck, table, reads, fire_reads),
    "by_icons": lambda p, deck, classes: p.by_icons(deck, classes),
    "classed": lambda p, deck, classes: p.classed(deck, classes),
}


@lru_cache(maxsize=16384)
def _mixture_each(m: Mixture, move: str, args: tuple) -> Any:
    return Mixture.of((_MOVES[move](p, *args), c, t, w) for p, c, t, w in m.parts)


@lru_cache(maxsize=4096)
def _mixture_request(m: Mixture, deck: Deck, redraw: bool, rule: str, label: str) -> Chance:
    """The draw from a :class:`Mixture`: each pile's draw, weighed (made once per mixture)."""
    out: dict = {}
    for p, _, _, w in m.parts:
        for face, q in (p.redraw_request if redraw else p.draw_request)(deck, rule, label).outcomes():
            out[face] = out.get(face, Fraction(0)) + w * q
    return Chance(tuple(out.items()), rule=rule, label=label)
