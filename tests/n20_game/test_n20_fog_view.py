"""What each side may see under 16.1 Fog of War (engine/n20/game/view.py): the per-side view, actions and
log events as a side may know them, the public tokens of face-down counters, and the odds a side is shown.

Fuentes de Oñoro with fog_of_war starts (turn 3, French movement) with twelve allied counters face-down:
nine units and the three dummies of exclusive 16.1.3 (AD1 in 0806, AD2 in 1009, AD3 in 1310)."""
from __future__ import annotations

import json
import random
import re
from dataclasses import replace

import pytest

from engine.core.odds import action_odds
from engine.n20 import game as g
from engine.n20.game import view as V
from engine.n20.game.phases import night_operations
from engine.n20.game.state import Battle

from n20_game_helpers import apply_action, apply_logged, at, legal, put

R = g.RULES
FOG = ("fog_of_war",)


def _start(seed=5, options=FOG):
    return R.new_game("fuentes", options, seed=seed)


def _hidden_allied(s):
    sc = s.scenario
    return [u.id for u in s.units if sc.units[u.id].side == "allied" and u.status == "map" and not u.revealed]


def _secrets(s, ids, json_text: bool = True):
    """Every id and name of ``ids`` as patterns: an id as a word; a name as a JSON string (``json_text``:
    some names are plain words, such as "Cavalry", which a French counter's name may contain) or as words."""
    sc = s.scenario
    french_names = {d.name for d in sc.units.values() if d.side == "french"}     # e.g. their own "Dummy"
    out = []
    for uid in ids:
        d = sc.units[uid]
        out.append(re.compile(r"(?<![\w:])" + re.escape(uid) + r"(?!\w)"))
        if d.name not in french_names:
            out.append(re.compile(re.escape(json.dumps(d.name)) if json_text else r"\b" + re.escape(d.name) + r"\b"))
    return out


def _leaks(text: str, secrets) -> list[str]:
    return [p.pattern for p in secrets if p.search(text)]


def test_the_french_see_no_hidden_allied_unit_in_the_view_the_log_or_their_legal_actions():
    # a fog game played by bots; at every state the French view's JSON, the log events as the French see
    # them and the words of the French legal actions name no face-down allied counter (id or name), and a
    # face-down counter's entry carries no type, name or strength
    s = _start(seed=5, options=FOG + ("leaders", "special_units"))
    bots = {side: R.bots()["greedy"](seed=1) for side in R.sides}
    checked_states = checked_events = checked_actions = 0
    for _ in range(400):
        if R.to_act(s) is None:
            break
        hidden = _hidden_allied(s)
        secrets = _secrets(s, hidden)
        v = R.view(s, "french")
        text = json.dumps(R.state_to_json(v)) + json.dumps(v.to_json())
        assert _leaks(text, secrets) == []
        for u in v.to_json()["units"]:
            if u.get("hidden") and u["side"] == "allied" and u["status"] == "map":
                assert not {"name", "type", "strength", "movement"} & set(u), u
        if R.to_act(s) == "french":
            for a in legal(s):
                words = R.describe_action(R.visible_action(s, a, "french"))
                assert _leaks(words, _secrets(s, hidden, json_text=False)) == [], words
                checked_actions += 1
        a = bots[R.to_act(s)].choose_action(R, s, legal(s))
        nxt, event = apply_logged(s, a, chooser=lambda req: req.options[0])
        seen = R.visible_event(s, event, "french")
        assert _leaks(json.dumps(seen), secrets) == [], seen
        checked_states += 1
        checked_events += 1
        s = nxt
    assert checked_states > 100 and checked_events > 100 and checked_actions > 200


def test_a_dummy_looks_like_any_other_counter():
    s = _start()
    entries = {u["hex"]: u for u in R.view(s, "french").to_json()["units"] if u.get("hidden") and u["side"] == "allied"}
    dummy, unit = entries["0806"], entries["0707"]           # AD1 (a dummy) and A1 (the 1st Division)
    assert set(dummy) == set(unit) == {"id", "status", "hex", "hidden", "side", "nationality"}
    assert (dummy["side"], dummy["nationality"]) == (unit["side"], unit["nationality"]) == ("allied", "british")


def test_the_other_sides_face_down_counters_are_listed_apart_from_their_order_in_the_scenario():
    v = R.view(_start(), "french")
    tokens = [u.id for u in v.units if v.scenario.units[u.id].type == "hidden"]
    assert len(tokens) == 12 and tokens == sorted(tokens)     # by token, not by the scenario's unit order
    assert all(t not in _start().scenario.units for t in tokens)


def test_a_token_follows_a_moving_counter_and_is_new_when_a_counter_is_put_on_the_map_again():
    s = _start()
    t = V.token(s, "A7")
    # the allies move A7 (0706) on their turn: the French follow the same token
    st = at(s, "movement", player="allied")
    dest = sorted(g.reachable(st, "A7"))[0]
    moved = apply_action(st, {"kind": "move", "unit": "A7", "path": list(g.reachable(st, "A7")[dest].path)})
    assert moved.unit("A7").hex == dest and V.token(moved, "A7") == t
    assert [u.id for u in R.view(moved, "french").units if u.hex == dest] == [t]
    # AD1 revealed in a declared battle leaves the map (16.1.3); put back at night it is a new counter
    st = at(put(s, FFER="0807"), "combat")
    st = put(st, **{x: h for x, h in zip(_hidden_allied(s), ["0101", "0102", "0103", "0104", "0105", "0106",
                                                               "0107", "0108", "0109", "0110", "0111"])
                    if x != "AD1"})
    st = put(st, AD1="0806")
    before = V.token(st, "AD1")
    st = apply_action(st, {"kind": "declare", "battles": [{"attackers": ["FFER"], "defenders": ["AD1"]}]})
    assert st.unit("AD1").status == "hidden_off"
    back = st.with_units({"AD1": replace(st.unit("AD1"), status="map", hex="0301", revealed=False)})
    assert V.token(back, "AD1") != before


def test_the_shell_game_gives_both_counters_new_tokens(tmp_path):
    from n20_game_helpers import BASE_UNITS, make_scenario
    dummy = {"id": "FD1", "name": "Dummy", "side": "french", "type": "dummy", "strength": 0, "movement": 3,
             "source": "provisional"}
    sc = make_scenario(tmp_path, units=BASE_UNITS + [dummy], setup=[("A1", "0202")],
                       reinforcements=[{"unit": "F1", "turn": 1, "areas": ["A"]}])
    s = apply_action(g.new_game(sc, options=FOG), {"kind": "draw_event"})
    s = apply_action(s, {"kind": "move", "unit": "F1", "path": ["0807", "0707"]})
    t_before = V.token(s, "F1")
    a = g.Action("add_dummy", unit="F1", units=("FD1",))
    s2, event = apply_logged(s, a)
    # 16.1.3: the allies see two new face-down counters in 0707 and an arrival there, not who is who
    assert V.token(s2, "F1") != t_before
    assert R.visible_action(s, a, "allied") == g.Action("add_dummy", hex="0707")
    seen = R.visible_event(s, event, "allied")
    assert seen["action"] == {"kind": "add_dummy", "hex": "0707"} and "FD1" not in json.dumps(seen)
    here = [u for u in R.view(s2, "allied").to_json()["units"] if u.get("hex") == "0707"]
    assert len(here) == 2 and all(u["hidden"] for u in here) and here[0].keys() == here[1].keys()
    # the French see their own pieces as they are
    assert {u["id"] for u in R.view(s2, "french").to_json()["units"] if u.get("hex") == "0707"} == {"F1", "FD1"}


def test_tokens_are_keyed_by_the_seed_and_no_view_carries_the_seed():
    a, b = _start(seed=5), _start(seed=6)
    assert V.token(a, "A1") != V.token(b, "A1")
    assert V.token(a, "A1") == V.token(_start(seed=5), "A1")      # the same game, the same token
    assert "A1" not in V.token(a, "A1")
    for side in ("french", "allied", None):
        assert R.view(a, side).seed == 0 and R.state_to_json(R.view(a, side))["seed"] == 0


def test_own_pieces_in_full_and_a_spectator_sees_both_sides_face_down():
    s = _start()
    allied = R.view(s, "allied")
    assert {u.id for u in allied.units} >= set(_hidden_allied(s))                # their own, dummies too
    french_ids = {u.id for u in s.units if s.scenario.units[u.id].side == "french" and u.status == "map"}
    spectator = R.view(s, None)
    assert not (french_ids | set(_hidden_allied(s))) & {u.id for u in spectator.units}
    assert all(spectator.scenario.units[u.id].type == "hidden" for u in spectator.units if u.status == "map")


def test_16_1_1_revealed_units_show_in_full_and_16_1_2_the_night_conceals_them_again():
    s = _start()
    # A7 (0706) and FFER (0807 -> next to A1 in 0707): a declared battle reveals the units in it (16.1.1)
    st = at(put(s, FFER="0606"), "combat")
    others = [x for x in _hidden_allied(s) if x != "A7"]
    st = put(st, **dict(zip(others, ["0101", "0102", "0103", "0104", "0105", "0106", "0107", "0108", "0109",
                                     "0110", "0111"])))
    st = apply_action(st, {"kind": "declare", "battles": [{"attackers": ["FFER"], "defenders": ["A7"]}]})
    assert st.unit("A7").revealed
    assert "A7" in {u.id for u in R.view(st, "french").units}
    # the allies' night turn ends: their face-up units turn face-down again (16.1.2); turn 5 is a night turn
    night = at(st, "night_ops", player="allied", turn=5)
    assert night.night
    dark = night_operations(night)
    assert not dark.unit("A7").revealed
    assert "A7" not in {u.id for u in R.view(dark, "french").units}


def test_odds_shown_after_the_declaration_are_the_exact_odds():
    # after 9.2's declaration every unit of the battle is face-up (16.1.1): the odds a side is shown are
    # the exact odds of the battle (core action_odds over the game's own battle procedure)
    s = _start()
    st = at(put(s, FFER="0606"), "combat")
    others = [x for x in _hidden_allied(s) if x != "A7"]
    st = put(st, **dict(zip(others, ["0101", "0102", "0103", "0104", "0105", "0106", "0107", "0108", "0109",
                                     "0110", "0111"])))
    st = apply_action(st, {"kind": "declare", "battles": [{"attackers": ["FFER"], "defenders": ["A7"]}]})
    resolve = g.Action("resolve", index=0)
    assert V.odds_unknown(st, resolve, "french") is None
    shown = R.odds_view(st, resolve, "french")
    assert shown is not None and shown.to_json() == action_odds(R, st, resolve).to_json()


def test_odds_are_not_shown_while_a_face_down_counter_could_change_them():
    s = _start()
    # the allies in their reaction phase: ACAV (0605) could countercharge a French unit next to it, but to
    # the allies a face-down French counter is unknown (it may be a dummy: 16.1, 16.1.3)
    st = at(put(s, FFER="0604"), "reaction", player="french")
    st = st.with_units({"FFER": replace(st.unit("FFER"), revealed=False)})
    cc = g.Action("countercharge", battles=(Battle(("ACAV",), ("FFER",)),))
    assert "face-down" in V.odds_unknown(st, cc, "allied") and R.odds_view(st, cc, "allied") is None
    # the same battle with FFER face-up: exact
    up = st.with_units({"FFER": replace(st.unit("FFER"), revealed=True)})
    assert R.odds_view(up, cc, "allied").to_json() == action_odds(R, up, cc).to_json()
    # 16.3.1: with artillery support, a face-down French counter next to the defender might be artillery
    art = R.new_game("fuentes", FOG + ("artillery_support",), seed=5)
    art = at(put(art, FFER="0604", FMAR="0603"), "reaction", player="french")
    art = art.with_units({"FFER": replace(art.unit("FFER"), revealed=True),
                          "FMAR": replace(art.unit("FMAR"), revealed=False)})
    assert "16.3.1" in V.odds_unknown(art, cc, "allied")
