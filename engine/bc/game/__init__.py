"""Battle Commander whole games, laid out as every system is (the shape of ``engine/n20/game``):

* :mod:`.types` sides and phases; :mod:`.actions` one value type per action kind and the text notation;
  :mod:`.scenario` the map and the set-up; :mod:`.state` the position (:class:`~.state.MapState` and
  :class:`~.state.BcState`) and its JSON;
* one module per rule chapter: :mod:`.zones` (Battle Zones, command range, facings: the public queries),
  :mod:`.movement` (19.0-19.4), :mod:`.orders` (18.0 cube orders), :mod:`.reinforcements` (18.0),
  :mod:`.rally` (20.0), :mod:`.combat` (23.1, 25.0, 27.x on the map), :mod:`.attacks` (the Red cube),
  :mod:`.retreat` (24.x, 26.0), :mod:`.reform` (9.2, 9.4), :mod:`.turn` (16.x), :mod:`.phases` (the sequence of
  play), :mod:`.victory` (13.1, 17.0);
* :mod:`.candidates` and :mod:`.handlers` (an explicit table kind -> check / perform), :mod:`.protocol` (the
  core protocol, registered as ``"bc"``), :mod:`.bots`, :mod:`.odds` and :mod:`.words`.

The calculators' procedures it plays with are one level up: :mod:`engine.bc.deck`, :mod:`engine.bc.checks`,
:mod:`engine.bc.cup`, :mod:`engine.bc.blocks`, :mod:`engine.bc.tally` and :mod:`engine.bc.combat`.
"""
