"""Lines of Battle (D. Kershaw), with the Albuera 1811 scenario: rules procedures, exact combat odds, game.

Modules: :mod:`.tables` (charts and modifiers from data), :mod:`.board` (the area map), :mod:`.units`,
:mod:`.combat` (5.x: pre-combat, rounds, retreats, post-combat), :mod:`.fire` (4.2.1 artillery fire),
:mod:`.analysis` (exact odds under named policies), :mod:`.game` (turn, actions, victory),
:mod:`.bots`, :mod:`.records`, :mod:`.cli`, and :mod:`.protocol` (the game on core's protocol: ``LobRules``,
registered as system ``"lob"``).
"""
