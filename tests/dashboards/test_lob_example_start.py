"""LoB page start (issue 17 point 6): an example attack that shows what the page does, the set-up kept."""
from __future__ import annotations

from dashboards.calculators.lob.views import EXAMPLE_START, SETUP_START, LobSession


def test_example_start_is_an_open_fight_and_the_setup_stays_available():
    s = LobSession()
    assert s.start == EXAMPLE_START and (s.origin, s.target) == ("16", "Albuera")
    assert s.attackers == ["F-Brayer", "F-Veilande"]
    p = s.analysis().attacker_takes_area
    assert 0.3 < p < 0.6                 # neither side is sure: two strength-3 brigades against a strength 2
    s.start = SETUP_START                # the printed set-up: its only attack from 17 is hopeless (0 %)
    assert (s.origin, s.target) == ("17", "Albuera") and s.analysis().attacker_takes_area == 0
