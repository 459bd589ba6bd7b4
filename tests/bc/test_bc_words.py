"""Battle Commander actions in a player's words (engine/bc/game/words.py): the play page lists these, the
notation stays what the command line reads (issue 15.1: no code names in the list)."""
from __future__ import annotations

from dataclasses import fields

from engine.bc.game.actions import ACTION_TYPES, KINDS, action as BcAction, format_action
from engine.bc.game.protocol import BcRules


def test_each_kind_reads_as_words_with_its_rule():
    r = BcRules()
    said = r.describe_action(BcAction("move", "coalition", zones=("E2",), moves=(("C1", "E1"),)))
    assert said == "coalition: Move Order in E2: C1 to E1 (19.0)"
    assert r.describe_action(BcAction("attack", "french", frm="M2", to="E2", attack="fire")) == \
        "french: Fire from M2 at E2 (23.1)"
    assert r.describe_action(BcAction("move", "french", zones=("M3",), moves=(("F1", "M2>M1"),),
                                      roadway=("F1",))) == \
        "french: Move Order in M3: F1 to M2 then M1; in Roadway formation: F1 (19.0)"
    for k in KINDS:
        values = {"frm": "M1", "to": "M2", "block": "F1", "attack": "assault"}
        own = {f.name for f in fields(ACTION_TYPES[k])}
        a = BcAction(k, "french", **{f: v for f, v in values.items() if f in own})
        text = r.describe_action(a)
        assert text.startswith("french: ") and "_" not in text and "=" not in text, text
    # the notation is unchanged, and still reads back
    a = BcAction("move", "coalition", zones=("E2",), moves=(("C1", "E1"),))
    assert format_action(a) == "coalition move zones=E2 moves=C1:E1"
    assert r.parse_action(format_action(a)) == a
