"""The optional rules of These Brave Fellows (11.0) by number, and those the game enforces when chosen."""
from __future__ import annotations

__all__ = ["OPTIONS", "GAME_OPTIONS"]

OPTIONS = {
    "11.1": "Cavalry Fire Ability", "11.2": "French Ammunition Shortage", "11.3": "Coalition Column's Impetus",
    "11.4": "Bagration's IV Column", "11.5": "Dumonceau's Dutch 3rd Division", "11.6": "Klein's 1st Dragoon Division",
    "11.7": "Murat's Relief Force", "11.8": "Cavalry Retreat Before Combat",
}
#: what a game may be started with: the players' own set-up (9.1 C-D, 9.3 B; without it the game starts from
#: the scenario's historical set-up) and the optional rules the game enforces (11.3, 11.5-11.7 need counters
#: the order of battle lacks)
GAME_OPTIONS = {"9.1": "Players' set-up (9.1 C-D, 9.3 B)",
                **{k: f"{OPTIONS[k]} ({k})" for k in ("11.1", "11.2", "11.4", "11.8")}}
