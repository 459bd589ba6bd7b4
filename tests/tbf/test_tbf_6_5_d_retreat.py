"""Issue 29, These Brave Fellows 6.5 D on the paths the rout tests of test_tbf_rules_29.py do not take: a
leader may go with a unit that *retreats* after combat (6.6, applied by results.apply_effect), not only with
one that routs. Dürenstein set-up (9.3 B): Gaindorge stands with 4l-1 in 2014."""
from __future__ import annotations

from functools import partial

from engine.core.procedure import TypedDice, play
from engine.tbf.game.protocol import TbfRules
from engine.tbf.game.results import apply_effect
from engine.tbf.game.setup import initial_state

R = TbfRules()
SC = R.sc
START = initial_state(SC)


def _retreat_one_hex(st, choose):
    # a combat result of one hex of retreat for the French in 2014, nothing eliminated or fatigued (6.3.7 F);
    # every check on the way passes on 1s
    return play(partial(apply_effect, SC, st, "2014", "french", False, 1, 0, "6.3.7 F", False),
                TypedDice([1] * 20), choose).result


def test_6_5_D_a_leader_left_alone_goes_with_the_unit_that_retreats():
    # 4l-2 moved off to 2016, so 4l-1 is Gaindorge's only unit in 2014: it retreats one hex (6.6) and, left
    # alone, he is asked first to go with it (6.5 D): he ends in the hex it retreated to, not alone in 2014
    # where the next enemy to enter would take him (6.5 C); before, he stayed
    st = START.with_piece("4l-2", hex="2016")
    assert st.piece("gaindorge").hex == "2014" and st.piece("4l-1").hex == "2014"
    asked = []
    out = _retreat_one_hex(st, lambda r: asked.append((r.rule, r.options)) or r.options[0])
    end = out.piece("4l-1").hex
    assert end not in (None, "2014")
    assert ("6.5 D", ("go", "stay")) in asked
    assert out.piece("gaindorge").hex == end
    # he may stay, his owner's choice: then he is left in 2014
    stayed = _retreat_one_hex(st, lambda r: "stay" if r.rule == "6.5 D" else r.options[0])
    assert stayed.piece("gaindorge").hex == "2014" and stayed.piece("4l-1").hex == end
