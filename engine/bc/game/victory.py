"""Victory (13.1, 16.3, 17.0): who controls each Victory Flag Zone, and the Flag Control Victory at the end."""
from __future__ import annotations

from .state import MapState

__all__ = ["flag_control", "flag_victory"]


def flag_control(st: MapState, previous: dict[str, str] | None = None) -> dict[str, str]:
    """Who controls each Victory Flag Zone (17.0): the last side with an Infantry or Garrison Block there;
    ``previous`` is the control before this state (a scenario's start when None)."""
    out = dict(previous or {})
    for z, m in st.scenario.model.zones.items():
        if m.flag == "none":
            continue
        foot = [u for u in st.in_zone(z) if u.block.kind in ("infantry", "long_infantry", "garrison")]
        if foot:
            out[z] = foot[0].side
    return out


def flag_victory(st: MapState, control: dict[str, str]) -> dict:
    """End-of-game Flag Control Victory (17.0): each side counts the Zones of its own flag colour it controls
    (an enemy Block present cancels control for the moment; five at most); a tie goes to the only army in Good
    Morale, otherwise it stands."""
    counts = {"french": 0, "coalition": 0}
    for z, m in st.scenario.model.zones.items():
        side = control.get(z)
        if side is None or m.flag not in (side, "both"):
            continue
        if any(u.side != side for u in st.in_zone(z)):
            continue
        counts[side] = min(counts[side] + 1, 5)
    if counts["french"] != counts["coalition"]:
        winner = max(counts, key=counts.get)
    else:
        good = [s_ for s_ in counts if st.morale_of(s_).good]
        winner = good[0] if len(good) == 1 else None
    return {"flags": counts, "winner": winner}

