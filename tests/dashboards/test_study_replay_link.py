"""Replay links of the Scenario balance page (issue 16.4) read by the play page: parsing and replaying."""
from __future__ import annotations

import urllib.parse

import pytest
from hypothesis import given, settings, strategies as st

from dashboards.play.model import GamePlayModel
from dashboards.play.study_replay import (MAX_SEED, ReplayLink, is_replay_link, parse_replay_link,
                                          play_study_game)
from dashboards.calculators.study_view import replay_link
from dashboards.server.storage import GameStore
from engine.core.errors import VedetteError
from engine.core.simulate import Study, play_one


def _args(url: str):
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query, keep_blank_values=True)
    return lambda k: (q.get(k) or [""])[0]


GOOD = "/play?system=n20&scenario=bussaco&mode=replay&seed=12345&bots=greedy,random&options="


def test_the_balance_pages_link_reads_back_as_the_same_study_game():
    study = Study("n20", "fuentes", ("bessieres",), ("greedy", "random"), games=1, seed=3).validate()
    row = {"seed": 2 ** 62 + 17}
    got = _args(replay_link(study, row))
    assert is_replay_link(got)
    assert parse_replay_link(got) == ReplayLink("n20", "fuentes", ("bessieres",), ("greedy", "random"),
                                                  2 ** 62 + 17)


def test_a_blank_scenario_is_the_systems_default():
    link = parse_replay_link(_args("/play?system=lob&scenario=&mode=replay&seed=1&bots=greedy,greedy&options="))
    assert link.scenario == "albuera" and link.options == ()


@pytest.mark.parametrize("url, field", [
    (GOOD.replace("system=n20", "system=chess"), "'system'"),
    (GOOD.replace("scenario=bussaco", "scenario=waterloo"), "'scenario'"),
    (GOOD.replace("seed=12345", "seed=-1"), "'seed'"),
    (GOOD.replace("seed=12345", "seed=1e9"), "'seed'"),
    (GOOD.replace("seed=12345", f"seed={MAX_SEED + 1}"), "'seed'"),
    (GOOD.replace("bots=greedy,random", "bots=greedy"), "'bots'"),
    (GOOD.replace("bots=greedy,random", "bots=greedy,alphazero"), "'bots'"),
    (GOOD.replace("bots=greedy,random", "bots=greedy,<script>"), "'bots'"),
    (GOOD.replace("options=", "options=no-such-rule"), "'options'"),
    # the Bessières variant (17.2) belongs to Fuentes: Bussaco does not set up with it
    (GOOD.replace("options=", "options=bessieres"), "'options'"),
])
def test_a_bad_parameter_is_refused_in_one_line_naming_it(url, field):
    with pytest.raises(VedetteError) as err:
        parse_replay_link(_args(url))
    msg = str(err.value)
    assert field in msg and "\n" not in msg and len(msg) < 300


def test_a_saved_games_link_is_not_a_study_link():
    assert not is_replay_link(_args("/play?game=abc&key=xyz&mode=replay"))
    assert not is_replay_link(_args("/play?system=n20&mode=replay"))          # no seed: nothing to play
    assert not is_replay_link(_args(GOOD.replace("mode=replay", "mode=play")))


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(["system", "scenario", "seed", "bots", "options", "mode"]),
                       st.text(max_size=30)))
def test_any_parameters_give_a_link_or_a_one_line_refusal(params):
    try:
        link = parse_replay_link(lambda k: params.get(k, ""))
    except VedetteError as exc:
        assert "\n" not in str(exc)
    else:
        assert 0 <= link.seed <= MAX_SEED and len(link.bots) == 2


def test_the_replayed_game_is_the_studys_game_and_nothing_is_stored(tmp_path):
    """The same seed derivation as engine.core.simulate: the link's game ends as the study's row says."""
    study = Study("n20", "bussaco", (), ("greedy", "greedy"), games=2, seed=5).validate()
    row = play_one(study, 1)
    rec, states, cut = play_study_game(parse_replay_link(_args(replay_link(study, row))))
    from engine.core.game import system_of
    rules = system_of("n20")
    oc = rules.outcome(states[-1])
    assert not cut and len(states) == len(rec.events) + 1
    assert (oc.winner or "draw") == row["winner"] and oc.reason == row["reason"]
    assert rules.position(states[-1]).turn == row["last_turn"]
    store = GameStore(tmp_path / "g.sqlite3")
    m = GamePlayModel(store, system="lob", server=True)
    m.show_record(rec, states)
    assert m.system == "n20" and m.mode == "replay" and m.position == len(rec.events) and m.role == ""
    assert not m.act(rules.legal_actions(states[0])[0]) and "watch" in m.refusal     # read-only
    m.add_bookmark("mine")
    assert store.list() == []                                                         # nothing stored


def test_a_game_longer_than_the_limit_is_cut_there():
    link = ReplayLink("n20", "bussaco", (), ("greedy", "greedy"), 12345)
    rec, states, cut = play_study_game(link, max_actions=10)
    assert cut and len(rec.events) == 10 and len(states) == 11
