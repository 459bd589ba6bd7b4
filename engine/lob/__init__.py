"""Lines of Battle (D. Kershaw), with the Albuera 1811 scenario: rules procedures, exact combat odds, game.

The package has the shape every system has (docs: ARCHITECTURE.md):

* data and values: :mod:`.tables` (charts and modifiers), :mod:`.board` (the area map), :mod:`.scenario`,
  :mod:`.units` (units, leaders, sides, phases), :mod:`.actions` (the action value, its JSON and notation),
  :mod:`.state` (the position);
* one module per rule chapter: :mod:`.command` (3 command points, 4.2 activation), :mod:`.rally` (4.1),
  :mod:`.movement` (4.2.2), :mod:`.artillery` (3 limbering, 4.2.1 fire in the game) over the fire
  procedure :mod:`.fire`, combat (5) as :mod:`.fight` (values), :mod:`.retreats`, :mod:`.rounds`,
  :mod:`.combat` (the procedure) and :mod:`.attack` (in the game, 5.3.1 charges), :mod:`.leaders` (7.1),
  :mod:`.phases` (2, 3, 6), :mod:`.victory` (6 and the scenario's), :mod:`.setup` (the scenario's set-up
  and options);
* :mod:`.handlers` (the table kind -> check / perform, and the legal actions), :mod:`.protocol` (the
  thin face on core's protocol, ``LobRules``), :mod:`.bots`, :mod:`.words` and :mod:`.odds_words`;
* :mod:`.analysis` and :mod:`.policies` (exact combat odds), :mod:`.records`, :mod:`.cli`.
"""
