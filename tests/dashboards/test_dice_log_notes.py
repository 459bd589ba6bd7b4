"""The play page's dice log: each rule in it carries its reminder (our words) as hover text (issue 17,
restored for Napoleonic 20: the log had lost the notes of dashboards/common/rule_notes.py)."""
from __future__ import annotations

import html
import re

from attack_records import record_until
from dashboards.play.model import log_html
from dashboards.common.rule_notes import note
from dashboards.server.storage import GameStore


def test_log_html_gives_each_rule_its_note():
    rows = [{"#": 1, "action": "attack", "rule": "9.0 F", "what": "roll", "label": "CRT", "value": "4", "detail": ""},
            {"#": 1, "action": "attack", "rule": "77.7", "what": "roll", "label": "", "value": "2", "detail": ""}]
    out = log_html(rows, note)
    # 9.0 is in n20_rule_notes.yaml: its summary is the hover text; 77.7 is not: "rule 77.7"
    assert f"title='{html.escape(note('9.0 F'), quote=True)}'" in out and note("9.0 F").startswith("9.0: ")
    assert "title='rule 77.7'" in out
    assert out.count("class='rule-tag'") == 2


def test_n20_dice_log_on_the_play_view_has_rule_notes(tmp_path):
    """A Napoleonic 20 attack made on the play view: every rule of its dice in the log has its note."""
    from dashboards.play.view import GamePlayView

    rec, _state, attack, rules = record_until("n20", lambda r, s, a: bool(r.is_attack(a)))
    v = GamePlayView(system="n20", store=GameStore(tmp_path / "g.sqlite3"))
    m = v.model
    m.import_record(rec, server=True)
    m.mode, m.position = "play", len(m.states) - 1
    v.refresh()
    m.act(attack)
    while m.pending is not None:                   # the players' questions (e.g. a retreat's hex)
        m.answer(m.pending.request.options[0])
    v.refresh()
    log = v.log.object
    tags = re.findall(r"<span class='rule-tag' data-rule='([^']*)' title='([^']*)'>", log)
    assert tags, "no rule in the dice log"
    for rule, tip in tags:
        want = note(html.unescape(rule)) or f"rule {html.unescape(rule)}"
        assert html.unescape(tip) == want
    # the attack's CRT roll (rule 9.0 ...) is among them, with the 9.0 summary
    assert any(html.unescape(t).startswith("9.") and ": " in html.unescape(t) for _, t in tags)

