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


# ------------------------------------------------------------------------------------------------
# Issue 25 point 1: every word from one place (engine/bc/game/words.py), no JSON, repr or identifier
# ------------------------------------------------------------------------------------------------
import re  # noqa: E402
from dataclasses import replace  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402

from engine.bc.game.words import WORDS, bc_label, word, words_in  # noqa: E402
from engine.bc.game.state import set_block  # noqa: E402
from engine.core.game import Session  # noqa: E402
from engine.systems import system_of  # noqa: E402

_BAD = re.compile(r"[_{}\[\]]|'[^' ]+'|\bNone\b|Face\(|\bTrue\b|\bFalse\b")


def _clean(text: str) -> bool:
    return not _BAD.search(text)


def test_rule_identifiers_in_the_rulebooks_words():
    assert word("muskets_shot") == "Muskets & Shot" and word("round_shot") == "Round Shot"
    assert word("flags_2") == "2 Flags" and word("death_head") == "Death Head"
    assert word("horse_artillery") == "Horse Artillery" and word("ordre_mixte") == "Ordre Mixte"
    assert all(_clean(w) or w.startswith("Leader") for w in WORDS.values())
    assert words_in("column +0, net shift +1: skull_bones") == "column +0, net shift +1: Skull & Bones"
    assert words_in("turn 1: cup {'blue': 6, 'red': 3}, tokens {'french': 4}") == \
        "turn 1: cup Blue 6, Red 3, tokens French 4"


def test_titles_and_piece_names():
    r = BcRules()
    st = r.new_game()
    assert r.metric_title("morale.french") == "French Morale"
    assert r.metric_title("hits.coalition") == "Coalition hits carried"
    assert r.option_title("leader_assist").startswith("Leader-assisted Skill Checks (29.6")
    assert r.piece_name(st, "F1") == "F1 (Long Infantry)" and r.piece_name(st, "CHQ") == "CHQ (HQ)"


def test_outcome_lines_that_repeat_are_summed():
    """F1 and F2 (M2) both go from Steady to Shaken in an attack from M2: one line for the two (old words:
    "attacker block takes 1 hit; attacker block takes 1 hit")."""
    r = BcRules()
    st = r.new_game()
    g = st.g
    for uid in ("F1", "F2"):
        g = set_block(g, uid, replace(g.unit(uid).block, state="shaken"))
    label, rule = bc_label(r, st, replace(st, g=g), BcAction("attack", "french", frm="M2", to="E2", attack="fire"))
    assert (label, rule) == ("2 attacker blocks take 1 hit each", "23.0")
    one = set_block(st.g, "C1", replace(st.g.unit("C1").block, state="shaken"))
    assert bc_label(r, st, replace(st, g=one), BcAction("attack", "french", frm="M2", to="E2", attack="fire"))[0] \
        == "defender block takes 1 hit"


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.integers(min_value=0, max_value=10_000), hs.integers(min_value=20, max_value=160))
def test_no_json_repr_or_identifier_in_any_word_of_a_random_game(seed, n):
    """Every legal action of a random game's positions, every option of every question asked on the way, every
    answer and note of its record: in a player's words."""
    rules = system_of("bc")
    sess = Session.new(rules, None, (), seed)
    bot = rules.bots()["random"](seed=seed)
    said = []

    def chooser(req):
        said.extend(rules.describe_option(sess.state, req, o) for o in req.options)
        return bot.choose(req, sess.state)
    for _ in range(n):
        legal = sess.legal_actions()
        if not legal:
            break
        said.extend(rules.describe_action(a) for a in legal)
        sess.act(bot.choose_action(rules, sess.state, legal), chooser=chooser)
    for i, ev in enumerate(sess.record.events):
        said.extend(rules.describe_answer(sess.states[i] if hasattr(sess, "states") else sess.state, x)
                    for x in ev["answers"])
    bad = [t for t in said if not _clean(t)]
    assert said and bad == [], bad[:5]
