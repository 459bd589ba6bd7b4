"""These Brave Fellows in a player's words (issue 25 point 1): every legal action, every option of every question
and every recorded answer of random games is told with the counters' names, the sides capitalised and no
JSON brace, Python repr or identifier with an underscore; the list and the board name a piece alike."""
from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from engine.core.game import play_game
from engine.tbf.game.actions import Activate, Fire, Move
from engine.tbf.game.protocol import TbfRules

R = TbfRules()
SC = R.sc
IDS = set(SC.units) | set(SC.leaders)
#: JSON braces, a list's brackets, an identifier with an underscore, a repr (a quoted id, a constructor, key=value)
_BAD = re.compile(r"[{}\[\]_]|Fraction\(|Piece\(|\w+=\w|'[\w-]+'|\"")


def _clean(text: str) -> None:
    assert text and not _BAD.search(text), text
    ids = {t for t in re.findall(r"[A-Za-z0-9][A-Za-z0-9-]*", text) if t in IDS}
    assert not ids, (text, ids)                 # a piece is named as its counter is, never by its id


def test_hand_picked_sentences():
    # ci-1's counter reads "NOV 1 bn" (units.yaml); the list says the same
    assert R.describe_action(Move("coalition", "ci-1", "2312", ("2411", "2312"), 1)) == \
        "Coalition: move NOV 1 bn to 2312 (1 MP) (6.2)"
    assert R.describe_action(Activate("coalition", "miloradovich")) == "Coalition: activate General Miloradovich (6.1)"
    assert R.describe_action(Fire("french", ("4l-1", "4l-2"), "2114")) == \
        "French: 1/4th Legere and 2/4th Legere fire at 2114 (6.3)"
    assert R.piece_name(None, "ci-1") == "NOV 1 bn" and R.piece_name(None, "gb:3412") == "the Grand Battery in 3412"
    assert R.option_title("9.1") == "Players' set-up (9.1 C-D, 9.3 B)" and R.option_title("11.1") == \
        "Cavalry Fire Ability (11.1)"
    assert R.metric_title("losses.french") == "French losses (battalions, 10.2.2)"
    answer = {"kind": "choose", "rule": "6.5 D", "label": "gaindorge: go with 4l-1 (routs to 1914)?", "value": "go"}
    assert R.describe_answer(None, answer) == "General Gaindorge: go with 1/4th Legere (routs to 1914)?: go with it " \
                                              "(rule 6.5 D)"
    note = {"kind": "log", "rule": "6.4 D", "value": None,
            "label": "Attacker to Perform Melee for ci-1: d6 5 -1 = 4 vs FV 3: fail, no_attack"}
    _clean(R.describe_answer(None, note))


@settings(max_examples=4, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([(), ("9.1",), ("11.1", "11.8")]))
def test_every_word_of_a_random_game_is_a_players_word(seed, options):
    seen_states = []
    _, rec = play_game(R, ("random", "random"), seed=seed, max_actions=60, options=options,
                       on_action=lambda s, k: seen_states.append(s) if k % 10 == 0 else None)
    for s in seen_states:
        for a in R.candidates(s)[:150]:             # every kind the position offers (words need no legality)
            _clean(R.describe_action(a))
    for ev in rec.events:
        _clean(R.describe_action(R.action_from_json(ev["action"])))
        for ans in ev["answers"]:
            _clean(R.describe_answer(None, ans))
            if ans["kind"] == "choose":
                _clean(R.describe_option(None, type("Q", (), {"rule": ans["rule"]})(), ans["value"]))
    for name in R.options():
        _clean(R.option_title(name))
    for key in R.metrics(seen_states[0]):
        _clean(R.metric_title(key))
