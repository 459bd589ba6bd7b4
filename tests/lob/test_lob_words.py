"""Lines of Battle in a player's words (issue 25 point 1, engine side): every legal action, every choice a
procedure asks, every recorded answer, every option and metric of random games, from engine/lob/words.py:
no JSON, no Python repr, no identifier with an underscore."""
import json
import random
import re
from functools import partial

from hypothesis import HealthCheck, given, settings, strategies as st

from engine.core.game import RandomBot
from engine.core.procedure import RandomDice, play
from engine.lob.protocol import LobRules
from engine.lob.words import choice_words, describe_answer, metric_title

R = LobRules()
#: what a player's words never hold: braces and brackets (JSON, reprs), an underscore (identifiers),
#: double quotes, a quoted word (a repr's 'French'), a Python object's angle brackets or constructor
FORBIDDEN = re.compile(r"[{}\[\]_\"<>]|'\w+'|\w\(\w+=")


def plain(text: str, where) -> None:
    assert isinstance(text, str) and text.strip(), where
    assert not FORBIDDEN.search(text), (text, where)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), options=st.sets(st.sampled_from(sorted(R.options())), max_size=3))
def test_every_action_choice_and_answer_of_a_random_game_reads_as_words(seed, options):
    options = sorted(set(options) - {"bid", "setup", "setup-allied", "setup-french"})   # a free set-up: places only
    g = R.new_game("albuera", options, seed)
    rng, bot, dice = random.Random(seed), RandomBot(seed), RandomDice(seed)
    for name in R.options():
        plain(R.option_title(name), name)
    for key in R.metrics(g):
        plain(R.metric_title(key), key)
    answers = 0
    for _ in range(120):
        if R.to_act(g) is None:
            break
        legal = R.legal_actions(g)
        for a in legal:
            plain(R.describe_action(a), a)
        a = bot.choose_action(R, g, legal)

        def chooser(req, g=g):
            for option in req.options:
                plain(R.describe_option(g, req, option), (req.rule, req.label, option))
            return rng.choice(req.options)

        run = play(partial(R.perform, g, a), dice=dice, chooser=chooser)
        for event in run.events:
            answer = json.loads(json.dumps(event.to_json()))       # as a record keeps it
            plain(R.describe_answer(g, answer), answer)
            answers += 1
        g = run.result
    assert answers > 10


def test_answers_are_worded_from_their_detail_not_their_labels():
    # a combat's end note: the label a record keeps holds a Python mapping; the words use its detail
    answer = {"kind": "log", "rule": "5.3", "label": "combat at 23: attacker holds it (rounds); morale "
              "{'French': 1, 'Allied': -1}", "value": None, "detail": {"French": 1, "Allied": -1}}
    assert describe_answer(answer) == ("combat at area 23: the attacker holds it, after the combat rounds (5.2); "
                                       "French morale +1, Allied morale -1")
    assert describe_answer({"kind": "roll", "rule": "5.2.1", "label": "attacker combat roll", "value": 5}) == \
        "attacker combat roll: the d6 shows 5 (5.2.1)"
    assert choice_words("5.2.3", "defender: stay, pull back the lead (with any others), or give up the area",
                        "lead+A-KGL+A-Myers") == "pull back the lead unit with A-KGL and A-Myers"
    assert metric_title("holds_Albuera.French") == "French holds Albuera"
    assert metric_title("units_lost.Allied") == "Allied units eliminated"
