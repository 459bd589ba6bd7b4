"""These Brave Fellows, the whole Dürenstein game on the core game protocol (system ``"tbf"``), laid out as
every system's game package is:

``types`` (sides, segments, statuses), ``state`` (pieces, positions, the activation's bookkeeping),
``actions`` (the action values and their text notation), the rules chapter by chapter -- ``setup`` (9.0),
``activation`` (6.1), ``search`` and ``movement`` (6.2, 4.3), ``cavalry_charge`` (6.2.8-6.2.10),
``fire_combat`` (6.3), ``melee_combat`` (6.4), ``leaders`` (6.5), ``retreat`` (6.6, 11.8), ``rout`` (6.7,
4.1.9-4.1.10), ``results`` (a combat result on the map), ``stacking`` (4.1), ``phases`` (3.0, 3.2, 7.0),
``reinforcement`` (3.1: 5.3, 9.2, 9.5.2, 9.6.2, 11.4), ``exclusive`` (8.x, 9.x), ``victory`` (10.0),
``options`` (11.0) --, ``position`` (what a position says), ``queries`` (what bots and boards ask),
``handlers`` (kind -> check / perform), a thin ``protocol`` (:class:`TbfRules`), ``bots``, ``words`` and
``odds_words`` (a player's words)::

    from engine.tbf.game import TbfRules
    R = TbfRules()
    s = R.new_game()
    R.legal_actions(s)[:3]                       # [Activate('coalition', 'kutusov'), ...]
    s2, event = R.apply(s, R.parse_action("coalition: activate miloradovich"), seed=1)
"""
from __future__ import annotations

from .protocol import ENGINE_VERSION, TbfRules
from .bots import GreedyBot

__all__ = ["TbfRules", "GreedyBot", "ENGINE_VERSION"]
