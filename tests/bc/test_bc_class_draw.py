"""A card read only by its class of icons, and the piles it may leave (engine/bc/odds_piles.py ``ClassDraw`` and
``Mixture``, issue 26): the Square check card (23.1 step 6) reads only whether each defender passes, while the
combat card after it (23.2-23.4) reads the cards whole. Drawn from a ``ClassDraw``, the first card is one branch
per class; the pile it leaves is each pile a card of that class would leave, weighed by its chance, and each
later card drawn weighs them again by their chances of giving it.

Hypothesis: over small piles of real cards (the whole pile and a side's unseen pile, 15.0, with the reshuffle
card), the class of the first card and the later cards whole have the same joint chances as the cards drawn one
by one, and the pile by icons after them is the same."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as hs
from sizes import examples

from engine.bc.deck import Pile, UnseenPile, default_deck, draw_card
from engine.bc.odds_piles import ClassDraw, Mixture
from engine.bc.readings import icon_classes
from engine.core.procedure import distribution

DECK = default_deck()
READS = ((-1, 0), (1, 0))           # two columns of the Assault line (23.3), as after a Square check


def _class_of(face):
    return face if face.reshuffle else (face.skill, face.alike, face.unseen)


def draws(pile, n: int):
    """The first card by its class, the next ``n`` whole, then the pile by icons."""
    seen = []
    for i in range(n + 1):
        face, pile = yield from draw_card(pile, DECK, "23.3", f"card {i}")
        pile = pile.discarded(face)
        seen.append(_class_of(face) if i == 0 else face)
    return tuple(seen), pile.summarise(DECK, ())


CLASSES = hs.sampled_from([
    frozenset({("check", 2, True)}), frozenset({("check", 3, False), ("fate", 2, True, "hq", True)}),
    frozenset({("critical", 2, False, 0, True, False)}), frozenset()])


def _piles(kept, discards, unseen_in_draw, readings):
    out = [n for n in DECK.event_numbers if n not in kept and n not in discards]
    classes = icon_classes(readings)
    whole = Pile.for_odds(DECK, discards=sorted(discards), hand=out)
    unseen = UnseenPile.of(DECK, sorted(kept), min(unseen_in_draw, len(kept)), sorted(discards))
    return [p.project_results(DECK, "assault", READS).classed(DECK, classes) for p in (whole, unseen)]


@settings(max_examples=examples(25), deadline=None)
@given(hs.sets(hs.sampled_from(DECK.event_numbers), min_size=3, max_size=6),
       hs.sets(hs.sampled_from(DECK.event_numbers), max_size=3), hs.integers(1, 6), CLASSES, hs.integers(1, 2))
def test_a_class_drawn_first_gives_the_odds_of_the_cards_themselves(kept, discards, in_draw, readings, n):
    discards -= kept
    for pile in _piles(kept, discards, in_draw, readings):
        by_class = distribution(lambda: draws(ClassDraw(pile), n))
        one_by_one = distribution(lambda: draws(pile, n))
        assert by_class == one_by_one and by_class.total == 1


def test_a_mixture_of_alike_piles_is_that_pile():
    pile = Pile.for_odds(DECK).summarise(DECK, ())
    face = pile.draw[1]
    assert Mixture.of([(pile, None, face, 1), (pile, None, pile.draw[2], 3)]) is pile
