"""The Cavalry Grand Charge with its second assault (27.2), on the demonstration map (ours, invented).

C3 (Coalition Cavalry, E1) charges F3 (French Artillery, M1) across the stream."""
import pytest

from engine.bc.deck import default_deck
from engine.bc.game.combat import grand_charge
from engine.bc.game.state import new_map
from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Draw, play

DECK = default_deck()
OFFICER, DEATH_HEAD = 7, 5          # an Officer card passes any check, a Death Head fails it (21.2)


@pytest.fixture(scope="module")
def st():
    return new_map()


def _dice(first_card, check_card):
    used = []

    def dice(req):
        assert isinstance(req, Draw)
        if "call off" in req.label:
            v = check_card
        elif not used:
            v = first_card
        else:
            v = next(x for x in req.cards if x not in (OFFICER, DEATH_HEAD, first_card))
        used.append(req.label)
        return v
    return dice, used


def _holding_card(st):
    """A combat card (not 5 or 7) after which F3 stays in M1 and C3 is not Disrupted, so a second assault is
    possible: found by playing, not assumed."""
    for c in range(1, 72):
        if c in (OFFICER, DEATH_HEAD, 31):
            continue
        dice, used = _dice(c, OFFICER)
        r = play(lambda: grand_charge(st, "E1", "M1"), dice=dice, chooser=lambda req: False if
                 req.label.startswith("Grand Charge: assault") else req.options[0]).result
        if any("call off" in u for u in used):
            return c
    raise AssertionError("no card leaves a second assault possible")


def test_27_2_declining_the_second_assault_needs_a_passed_check(st):
    c = _holding_card(st)
    decline = lambda req: False if req.label.startswith("Grand Charge: assault") else req.options[0]  # noqa
    # an Officer passes: the charge stops after one assault
    dice, used = _dice(c, OFFICER)
    r = play(lambda: grand_charge(st, "E1", "M1"), dice=dice, chooser=decline).result
    assert sum(1 for line in r.log if line.startswith("combat E1 -> M1")) == 1
    # a Death Head fails: the second assault is made anyway
    dice, used = _dice(c, DEATH_HEAD)
    r = play(lambda: grand_charge(st, "E1", "M1"), dice=dice, chooser=decline).result
    assert sum(1 for line in r.log if line.startswith("combat ")) == 2


def test_27_2_second_assault_when_wanted(st):
    c = _holding_card(st)
    dice, used = _dice(c, OFFICER)
    r = play(lambda: grand_charge(st, "E1", "M1"), dice=dice).result     # first option: assault again
    assert sum(1 for line in r.log if line.startswith("combat ")) == 2
    assert not any("call off" in u for u in used)


@pytest.mark.parametrize("seed", range(8))
def test_27_2_every_charging_block_ends_disrupted_or_leaves(st, seed):
    r = play(lambda: grand_charge(st, "E1", "M1"), seed=seed).result
    on = {u.id: u for u in r.units}
    if "C3" in on:
        assert on["C3"].block.state == "disrupted" and on["C3"].block.formation == "none"
    else:
        # gone: eliminated, or already Disrupted at the end and off the map until turn 1 + 2 = 3
        assert [(u.id, t) for u, t in r.returning] in ([], [("C3", 3)])
    assert st.unit("C3").block.state == "steady"      # the old state is unchanged


def test_27_2_only_steady_cavalry_charges(st):
    with pytest.raises(RuleViolation) as e:
        play(lambda: grand_charge(st, "M2", "E2"), seed=1)      # F1 is infantry
    assert e.value.rule == "27.2"
