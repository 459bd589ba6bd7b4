"""One session (issue 28 point 1), differential: a game played through the play page's model with the
computer's dice gives the very record ``vedette GAME play`` gives with the same seed and the same choices,
for every system and scenario.

``vedette GAME play --bots greedy,greedy`` plays a game and writes its record; the page's model then makes
the same actions, one by one, and answers each question the action asks with the answer recorded for it
(the bots' choices), while the computer rolls. Both drive the core session and its one dice rule, so every
event (action, dice, choices, notes) must be equal. Before the fix the page re-seeded the dice after each
player's choice: a Lines of Battle combat of several rounds then rolled the first round's dice in each
round, and the records part at the first such combat (event 31 at seed 1).
"""
from __future__ import annotations

import json

import pytest

from dashboards.play.model import GamePlayModel
from dashboards.server.storage import GameStore
from engine.cli import main as vedette
from engine.core.game import system_of
from engine.core.record import GameRecord

#: (system, scenario, seed, actions played): a stretch of each game long enough for fights with choices
GAMES = [("lob", "albuera", 1, 120), ("n20", "fuentes", 3, 120), ("n20", "fuentes-5may", 2, 120),
         ("n20", "bussaco", 3, 120), ("tbf", "durenstein", 3, 120), ("bc", "demo", 3, 120)]


def test_every_system_and_scenario_is_in_the_list():
    listed = {(s, sc) for s, sc, _, _ in GAMES}
    assert listed == {(s, sc) for s in ("n20", "lob", "tbf", "bc") for sc in system_of(s).scenarios()}


@pytest.mark.parametrize("system,scenario,seed,n", GAMES)
def test_page_and_cli_give_the_same_record(tmp_path, capsys, system, scenario, seed, n):
    path = tmp_path / "cli.json"
    assert vedette([system, "play", "--scenario", scenario, "--seed", str(seed), "--bots", "greedy,greedy",
                    "--max-actions", str(n), "--record", str(path)]) == 0
    capsys.readouterr()
    cli = GameRecord.load(path)
    rules = system_of(system)
    m = GamePlayModel(GameStore(tmp_path / "g.sqlite3"), system=system, server=True)
    m.new(scenario, (), seed)
    assert m.dice_mode == "computer"
    for i, ev in enumerate(cli.events):
        choices = [a["value"] for a in ev["answers"] if a["kind"] == "choose"]
        m.act(rules.action_from_json(ev["action"]))
        while m.pending is not None:               # a question for a player: the recorded answer
            assert choices, f"event {i}: the page asks more questions than the game did"
            m.answer(choices.pop(0))
        assert not m.refusal, f"event {i}: {m.refusal}"
        assert json.dumps(m.events[i], sort_keys=True) == json.dumps(ev, sort_keys=True), f"event {i} differs"
    assert len(m.events) == len(cli.events) == n
    assert m.store.load(m.game_id).events == tuple(cli.events)
